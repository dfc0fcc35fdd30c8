#version 450
#include "common.glsl"

// Bloom-ish cross blur, Reinhard tonemap and gamma, HDR storage image in, RGBA8 out.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D ldr;

vec3 fetch(ivec2 p, ivec2 size)
{
    return imageLoad(hdr, clamp(p, ivec2(0), size - 1)).rgb;
}

void main()
{
    ivec2 size = imageSize(hdr);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, size)))
        return;
    vec3 c = 0.6 * fetch(p, size);
    c += 0.1 * (fetch(p + ivec2(1, 0), size) + fetch(p - ivec2(1, 0), size) +
                fetch(p + ivec2(0, 1), size) + fetch(p - ivec2(0, 1), size));
    c = c / (1.0 + c);
    c = pow(c, vec3(1.0 / 2.2));
    c += pc.load_weight * load_work(vec2(p));
    imageStore(ldr, p, vec4(c, 1.0));
}
