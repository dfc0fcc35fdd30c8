#version 450
#include "common.glsl"

layout(set = 0, binding = 0) uniform sampler2D post;
layout(location = 0) out vec4 o_color;

void main()
{
    vec2 size = vec2(textureSize(post, 0));
    vec2 uv = gl_FragCoord.xy / size;
    vec3 c = texture(post, uv).rgb;
    vec2 d = uv - 0.5;
    c *= 1.0 - 0.6 * dot(d, d); // vignette
    c += pc.load_weight * load_work(gl_FragCoord.xy);
    o_color = vec4(c, 1.0);
}
