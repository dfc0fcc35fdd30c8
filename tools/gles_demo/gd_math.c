#include "gd.h"

#include <math.h>
#include <string.h>

/* Column-major: m[col * 4 + row], the layout GLSL's mat4 expects in std140. */

void gd_mat4_multiply(float out[16], const float a[16], const float b[16])
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

static void gd_vec3_normalize(float v[3])
{
	float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	if (len > 0.0f) {
		v[0] /= len;
		v[1] /= len;
		v[2] /= len;
	}
}

static void gd_vec3_cross(float out[3], const float a[3], const float b[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

void gd_mat4_look_at(float out[16], const float eye[3], const float center[3], const float up[3])
{
	float f[3] = {center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]};
	gd_vec3_normalize(f);
	float s[3], u[3];
	gd_vec3_cross(s, f, up);
	gd_vec3_normalize(s);
	gd_vec3_cross(u, s, f);
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

/* Right-handed view space looking down -z, OpenGL clip z in [-1, 1]. */
void gd_mat4_perspective(float out[16], float fovy, float aspect, float znear, float zfar)
{
	float f = 1.0f / tanf(fovy * 0.5f);
	memset(out, 0, 16 * sizeof(float));
	out[0] = f / aspect;
	out[5] = f;
	out[10] = (zfar + znear) / (znear - zfar);
	out[11] = -1.0f;
	out[14] = 2.0f * znear * zfar / (znear - zfar);
}

void gd_mat4_ortho(float out[16], float half_extent, float znear, float zfar)
{
	memset(out, 0, 16 * sizeof(float));
	out[0] = 1.0f / half_extent;
	out[5] = 1.0f / half_extent;
	out[10] = -2.0f / (zfar - znear);
	out[14] = -(zfar + znear) / (zfar - znear);
	out[15] = 1.0f;
}
