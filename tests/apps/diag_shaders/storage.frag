#version 450
// Reads the compute result in the fragment shader (the fragment -> compute -> fragment case).
layout(std430, binding = 0) readonly buffer Positions { vec2 p[]; } positions;
layout(location = 0) out vec4 color;
void main()
{
	color = vec4(positions.p[0], 0.5, 1.0);
}
