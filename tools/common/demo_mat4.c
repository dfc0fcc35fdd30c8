/* Column-major 4x4 matrices for both demos (demo_mat4.h). */
#include "demo_mat4.h"

#include <math.h>
#include <string.h>

/* Column-major: m[col * 4 + row], the layout GLSL's mat4 expects in std140. */

void demo_mat4_multiply(float out[16], const float a[16], const float b[16])
{
	float r[16];
	for (int c = 0; c < 4; c++)
		for (int row = 0; row < 4; row++) {
			float s = 0.0f;
			for (int k = 0; k < 4; k++)
				s += a[k * 4 + row] * b[c * 4 + k];
			r[c * 4 + row] = s;
		}
	memcpy(out, r, sizeof(r));
}

static void demo_vec3_normalize(float v[3])
{
	float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	if (len > 0.0f) {
		v[0] /= len;
		v[1] /= len;
		v[2] /= len;
	}
}

static void demo_vec3_cross(float out[3], const float a[3], const float b[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

void demo_mat4_look_at(float out[16], const float eye[3], const float center[3], const float up[3])
{
	float f[3] = { center[0] - eye[0], center[1] - eye[1], center[2] - eye[2] };
	demo_vec3_normalize(f);
	float s[3], u[3];
	demo_vec3_cross(s, f, up);
	demo_vec3_normalize(s);
	demo_vec3_cross(u, s, f);
	memset(out, 0, 16 * sizeof(float));
	out[0] = s[0];
	out[4] = s[1];
	out[8] = s[2];
	out[1] = u[0];
	out[5] = u[1];
	out[9] = u[2];
	out[2] = -f[0];
	out[6] = -f[1];
	out[10] = -f[2];
	out[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
	out[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
	out[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
	out[15] = 1.0f;
}

/* Right-handed view space looking down -z. Vulkan clip space has y pointing down, so the y
 * scale is negated to keep world-up on screen-up, and z in [0, 1]; OpenGL's z is in [-1, 1]. */
void demo_mat4_perspective(float out[16], float fovy, float aspect, float znear, float zfar, enum demo_clip clip)
{
	float f = 1.0f / tanf(fovy * 0.5f);
	memset(out, 0, 16 * sizeof(float));
	out[0] = f / aspect;
	out[11] = -1.0f;
	if (clip == DEMO_CLIP_VULKAN) {
		out[5] = -f;
		out[10] = zfar / (znear - zfar);
		out[14] = znear * zfar / (znear - zfar);
	} else {
		out[5] = f;
		out[10] = (zfar + znear) / (znear - zfar);
		out[14] = 2.0f * znear * zfar / (znear - zfar);
	}
}

void demo_mat4_ortho(float out[16], float half_extent, float znear, float zfar, enum demo_clip clip)
{
	memset(out, 0, 16 * sizeof(float));
	out[0] = 1.0f / half_extent;
	out[15] = 1.0f;
	if (clip == DEMO_CLIP_VULKAN) {
		out[5] = -1.0f / half_extent;
		out[10] = -1.0f / (zfar - znear);
		out[14] = -znear / (zfar - znear);
	} else {
		out[5] = 1.0f / half_extent;
		out[10] = -2.0f / (zfar - znear);
		out[14] = -(zfar + znear) / (zfar - znear);
	}
}

bool demo_mat4_invert(float out[16], const float m[16])
{
	float inv[16];
	inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
		 m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
	inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
		 m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
	inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
		 m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
	inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
		  m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
	inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
		 m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
	inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
		 m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
	inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
		 m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
	inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
		  m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
	inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
		 m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
	inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
		 m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
	inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
		  m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
	inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
		  m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
	inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
		 m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
	inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
		 m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
	inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
		  m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
	inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
		  m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
	float det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
	if (det == 0.0f)
		return false;
	for (int i = 0; i < 16; i++)
		out[i] = inv[i] / det;
	return true;
}
