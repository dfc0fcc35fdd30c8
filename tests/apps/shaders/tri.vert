#version 450
// A small triangle per three vertices: vertex work is what the counts scenarios measure, so
// the fragment work stays tiny. Non-indexed draws: every vertex is one invocation.
void main()
{
	const vec2 corners[3] = vec2[](vec2(-0.1, -0.1), vec2(0.1, -0.1), vec2(0.0, 0.1));
	gl_Position = vec4(corners[gl_VertexIndex % 3], 0.0, 1.0);
}
