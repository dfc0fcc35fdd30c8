#version 450
layout(push_constant) uniform Load { uint iterations; } load;
layout(location = 0) out vec4 color;
void main()
{
	vec2 v = gl_FragCoord.xy * 0.01;
	for (uint i = 0u; i < load.iterations; i++)
		v = vec2(sin(v.x + v.y), cos(v.x - v.y)) * 0.99 + 0.01;
	color = vec4(v, 0.25, 1.0);
}
