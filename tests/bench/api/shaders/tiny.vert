#version 450
// A tiny triangle per instance, placed by gl_InstanceIndex: the benchmark measures API cost,
// so each draw does almost no GPU work.
void main()
{
	vec2 p = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1)) * 0.05;
	float x = float(gl_InstanceIndex % 16) / 8.0 - 1.0;
	gl_Position = vec4(p + vec2(x, -0.9), 0.0, 1.0);
}
