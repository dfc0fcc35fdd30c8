#version 450
// Fragment work proportional to the push constant: the loop count is not known when the
// shader is compiled, so it cannot be folded, and its result is written out.
layout(push_constant) uniform Load { uint iterations; } load;
layout(location = 0) out vec4 color;
void main()
{
	vec2 v = gl_FragCoord.xy * 0.001;
	for (uint i = 0u; i < load.iterations; i++)
		v = vec2(sin(v.x + v.y), cos(v.x - v.y)) * 0.99 + 0.01;
	color = vec4(v, 0.0, 1.0);
}
