#pragma once
/* Column-major 4x4 matrices (m[col * 4 + row], the layout GLSL's mat4 expects in std140), for
 * both demos, each of which compiles demo_mat4.c: tools/demo (Vulkan's clip space) and
 * tools/gles_demo (OpenGL's). */
#include <stdbool.h>

enum demo_clip {
	DEMO_CLIP_VULKAN, /* y down, z in [0, 1] */
	DEMO_CLIP_GL,     /* y up, z in [-1, 1] */
};

void demo_mat4_multiply(float out[16], const float a[16], const float b[16]);
void demo_mat4_look_at(float out[16], const float eye[3], const float center[3], const float up[3]);
void demo_mat4_perspective(float out[16], float fovy, float aspect, float znear, float zfar, enum demo_clip clip);
void demo_mat4_ortho(float out[16], float half_extent, float znear, float zfar, enum demo_clip clip);
bool demo_mat4_invert(float out[16], const float m[16]);
