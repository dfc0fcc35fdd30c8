#include "demo.h"

#include <math.h>
#include <string.h>

/* Everything here depends only on the options and the frame number, so two runs with the
 * same command line render the same pixels. */
void demo_math_frame_constants_fill(struct demo_frame_constants *fc, const struct demo_options *opt, uint32_t frame)
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
	demo_mat4_perspective(proj, 0.8f, (float)opt->width / (float)opt->height, 0.5f, 40.0f, DEMO_CLIP_VULKAN);
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
	demo_mat4_ortho(light_proj, 14.0f, 1.0f, 40.0f, DEMO_CLIP_VULKAN);
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
