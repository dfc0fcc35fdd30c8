#version 450
// A serial multiply-add chain of pc.iterations steps per invocation: work that grows with the
// load and cannot be folded away, whose result is multiplied by pc.weight (always 0).
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { float data[]; } buf;
layout(push_constant) uniform Push { uint iterations; float weight; } pc;
void main()
{
	uint i = gl_GlobalInvocationID.x;
	float x = float(i) * 0.001;
	for (uint k = 0u; k < pc.iterations; k++)
		x = x * 1.0001 + 0.5;
	buf.data[i] = float(i) + x * pc.weight;
}
