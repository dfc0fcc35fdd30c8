#version 450
#include "common.glsl"
#include "frame.glsl"
#include "scene.glsl"

void main()
{
    vec3 normal, albedo;
    gl_Position = frame.light_view_proj * vec4(scene_vertex(normal, albedo), 1.0);
}
