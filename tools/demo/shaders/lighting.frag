#version 450
#include "common.glsl"
#include "frame.glsl"

layout(set = 0, binding = 1) uniform sampler2D g_albedo;
layout(set = 0, binding = 2) uniform sampler2D g_normal;
layout(set = 0, binding = 3) uniform sampler2D g_depth;
layout(set = 0, binding = 4) uniform sampler2D shadow_map;
layout(location = 0) out vec4 o_hdr;

float shadow_lit(vec3 world, vec3 n)
{
    vec4 lp = frame.light_view_proj * vec4(world + n * 0.03, 1.0);
    vec2 uv = lp.xy * 0.5 + 0.5;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThanEqual(uv, vec2(1.0))))
        return 1.0;
    int size = int(frame.counts.z);
    ivec2 sp = ivec2(uv * float(size));
    float lit = 0.0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            ivec2 q = clamp(sp + ivec2(dx, dy), ivec2(0), ivec2(size - 1));
            lit += (lp.z - 0.002 <= texelFetch(shadow_map, q, 0).r) ? 1.0 : 0.0;
        }
    return lit / 9.0;
}

void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 albedo = texelFetch(g_albedo, p, 0);
    vec4 nrm = texelFetch(g_normal, p, 0);
    float depth = texelFetch(g_depth, p, 0).r;
    vec3 color;
    if (nrm.w == 0.0) {
        float t = gl_FragCoord.y * frame.viewport.w;
        color = mix(vec3(0.12, 0.25, 0.9), vec3(0.9, 1.0, 1.2), t);
    } else {
        vec2 ndc = gl_FragCoord.xy * frame.viewport.zw * 2.0 - 1.0;
        vec4 wp = frame.inv_view_proj * vec4(ndc, depth, 1.0);
        vec3 world = wp.xyz / wp.w;
        vec3 n = normalize(nrm.xyz);
        float ndl = max(dot(n, frame.light_dir.xyz), 0.0);
        float lit = ndl > 0.0 ? shadow_lit(world, n) : 0.0;
        color = albedo.rgb * (frame.light_dir.w + 2.4 * ndl * lit * vec3(1.0, 0.93, 0.8));
    }
    color += pc.load_weight * load_work(gl_FragCoord.xy);
    o_hdr = vec4(color, 1.0);
}
