#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint data[]; } buf;
void main()
{
	uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
	uint i = gl_GlobalInvocationID.x + n.x * (gl_GlobalInvocationID.y + n.y * gl_GlobalInvocationID.z);
	buf.data[i % 1024u] = i;
}
