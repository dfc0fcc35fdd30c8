#version 450
// A small triangle from gl_VertexIndex alone: no vertex buffers.
void main()
{
	vec2 p[3] = vec2[](vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(0.0, 0.5));
	gl_Position = vec4(p[gl_VertexIndex % 3], 0.0, 1.0);
}
