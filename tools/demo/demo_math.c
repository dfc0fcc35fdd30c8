#include "demo.h"

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

/* Right-handed view space looking down -z; Vulkan clip space has y pointing down, so the
 * y scale is negated to keep world-up on screen-up. */
void demo_mat4_perspective(float out[16], float fovy, float aspect, float znear, float zfar)
{
	float f = 1.0f / tanf(fovy * 0.5f);
	memset(out, 0, 16 * sizeof(float));
	out[0] = f / aspect;
	out[5] = -f;
	out[10] = zfar / (znear - zfar);
	out[11] = -1.0f;
	out[14] = znear * zfar / (znear - zfar);
}

void demo_mat4_ortho(float out[16], float half_extent, float znear, float zfar)
{
	memset(out, 0, 16 * sizeof(float));
	out[0] = 1.0f / half_extent;
	out[5] = -1.0f / half_extent;
	out[10] = -1.0f / (zfar - znear);
	out[14] = -znear / (zfar - znear);
	out[15] = 1.0f;
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

/* Everything here depends only on the options and the frame number, so two runs with the
 * same command line render the same pixels. */
void demo_frame_constants_fill(struct demo_frame_constants *fc, const struct demo_options *opt, uint32_t frame)
{
	const float scene_extent = 8.0f; /* the tile grid always spans 8x8 world units */
	uint32_t cols = (uint32_t)ceil(sqrt((double)opt->draws));
	uint32_t rows = (opt->draws + cols - 1) / cols;
	float tile = scene_extent / (float)(cols > rows ? cols : rows);
	float time = (float)frame / 30.0f;

	float view[16], proj[16];
	const float eye[3] = { 0.0f, 6.5f, 9.5f }, center[3] = { 0.0f, 0.2f, 0.0f };
	const float up[3] = { 0.0f, 1.0f, 0.0f };
	demo_mat4_look_at(view, eye, center, up);
	demo_mat4_perspective(proj, 0.8f, (float)opt->width / (float)opt->height, 0.5f, 40.0f);
	demo_mat4_multiply(fc->view_proj, proj, view);
	if (!demo_mat4_invert(fc->inv_view_proj, fc->view_proj))
		memset(fc->inv_view_proj, 0, sizeof(fc->inv_view_proj));

	/* The sun circles the scene at a fixed elevation, so shadows visibly move per frame. */
	float azimuth = 0.7f + 0.35f * time, elevation = 0.9f;
	float dir[3] = { cosf(elevation) * cosf(azimuth), sinf(elevation), cosf(elevation) * sinf(azimuth) };
	float light_eye[3] = { dir[0] * 20.0f, dir[1] * 20.0f, dir[2] * 20.0f };
	const float origin[3] = { 0.0f, 0.0f, 0.0f };
	float light_view[16], light_proj[16];
	demo_mat4_look_at(light_view, light_eye, origin, up);
	/* The light's frustum is wider than the scene needs: the shadow pass then shades about
     * as many fragments as a 640x360 pass, so one unit of --load costs about the same in
     * every pass and "shadow=1,gbuffer=4,lighting=16" gives times near 1:4:16. */
	demo_mat4_ortho(light_proj, 14.0f, 1.0f, 40.0f);
	demo_mat4_multiply(fc->light_view_proj, light_proj, light_view);

	fc->light_dir[0] = dir[0];
	fc->light_dir[1] = dir[1];
	fc->light_dir[2] = dir[2];
	fc->light_dir[3] = 0.2f;
	fc->grid[0] = (float)cols;
	fc->grid[1] = (float)rows;
	fc->grid[2] = tile;
	fc->grid[3] = time;
	fc->viewport[0] = (float)opt->width;
	fc->viewport[1] = (float)opt->height;
	fc->viewport[2] = 1.0f / (float)opt->width;
	fc->viewport[3] = 1.0f / (float)opt->height;
	fc->counts[0] = opt->draws;
	fc->counts[1] = DEMO_BOXES_PER_TILE;
	fc->counts[2] = DEMO_SHADOW_SIZE;
	fc->counts[3] = 0;
}
