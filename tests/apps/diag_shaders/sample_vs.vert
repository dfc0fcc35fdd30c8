#version 450
// Fullscreen triangle whose vertex shader also reads the G-buffer.
layout(binding = 0) uniform sampler2D gbuffer;
layout(location = 0) out vec4 tint;
void main()
{
	vec2 p = vec2(float((gl_VertexIndex & 1) << 2) - 1.0, float((gl_VertexIndex & 2) << 1) - 1.0);
	tint = textureLod(gbuffer, vec2(0.5), 0.0);
	gl_Position = vec4(p, 0.0, 1.0);
}
