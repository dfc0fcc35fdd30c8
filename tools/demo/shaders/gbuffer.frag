#version 450
#include "common.glsl"

layout(location = 0) in vec3 v_normal;
layout(location = 1) flat in vec3 v_albedo;
layout(location = 0) out vec4 o_albedo;
layout(location = 1) out vec4 o_normal; // w = 1 marks "geometry here" for the lighting pass

void main()
{
    float work = pc.load_weight * load_work(gl_FragCoord.xy);
    o_albedo = vec4(v_albedo + work, 1.0);
    o_normal = vec4(normalize(v_normal), 1.0);
}
