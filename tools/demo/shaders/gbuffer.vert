#version 450
#include "common.glsl"
#include "frame.glsl"
#include "scene.glsl"

layout(location = 0) out vec3 v_normal;
layout(location = 1) flat out vec3 v_albedo;

void main()
{
    vec3 world = scene_vertex(v_normal, v_albedo);
    gl_Position = frame.view_proj * vec4(world, 1.0);
}
