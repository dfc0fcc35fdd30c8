#version 450
#include "common.glsl"

// Full-screen passes (lighting, composite) draw the screen as strip_count horizontal strips,
// one draw each (gl_InstanceIndex = firstInstance = strip), so every render pass issues
// exactly --draws draws. A shared edge is computed from the same integer by the same code in
// both strips, so the strips meet exactly and every pixel is shaded once.
void main()
{
    const uint corner_of[6] = uint[6](0u, 1u, 2u, 2u, 1u, 3u);
    uint q = corner_of[gl_VertexIndex];
    uint k = uint(gl_InstanceIndex) + (q >> 1);
    float y = float(k) * 2.0 / float(pc.strip_count) - 1.0;
    float x = (q & 1u) != 0u ? 1.0 : -1.0;
    gl_Position = vec4(x, y, 0.0, 1.0);
}
