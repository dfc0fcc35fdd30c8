#version 450
// Reads the rendered image and writes three vertex positions derived from it.
layout(local_size_x = 1) in;
layout(binding = 0) uniform sampler2D rendered;
layout(std430, binding = 1) writeonly buffer Positions { vec2 p[]; } positions;
void main()
{
	float t = textureLod(rendered, vec2(0.5), 0.0).b * 0.001;
	const vec2 corners[3] = vec2[](vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(0.0, 0.5));
	for (int i = 0; i < 3; i++)
		positions.p[i] = corners[i] + vec2(t);
}
