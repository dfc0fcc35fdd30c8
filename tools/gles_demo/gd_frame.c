/* One frame: the five passes in order, the misuse/control switches at their fixed places,
 * the deliberate GL errors of --gl-errors, then eglSwapBuffers (or glFlush). */
#include "gd.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Mirrors the std140 blocks Frame and Pass of gd_common_glsl. */
struct gd_frame_constants {
	float view_proj[16];
	float light_view_proj[16];
	float light_dir[4];
	float viewport[4];
	float params[4];
};

struct gd_pass_constants {
	int32_t load[4];
	float weight[4];
};

static void gd_frame_constants_fill(struct gd_frame_constants *fc, const struct gd_options *opt,
				    uint32_t frame)
{
	float view[16], proj[16], light_view[16], light_proj[16];
	static const float eye[3] = {0.0f, 9.0f, 9.0f}, center[3] = {0, 0, 0}, up[3] = {0, 1, 0};
	demo_mat4_look_at(view, eye, center, up);
	demo_mat4_perspective(proj, 1.0f, (float)opt->width / (float)opt->height, 0.5f, 60.0f, DEMO_CLIP_GL);
	demo_mat4_multiply(fc->view_proj, proj, view);

	/* The sun circles one step per frame, so every frame's image differs. */
	float angle = 0.6f + 0.05f * (float)(frame % 1000u);
	float dir[3] = {0.6f * cosf(angle), 0.8f, 0.6f * sinf(angle)};
	float light_eye[3] = {dir[0] * 20.0f, dir[1] * 20.0f, dir[2] * 20.0f};
	demo_mat4_look_at(light_view, light_eye, center, up);
	demo_mat4_ortho(light_proj, 10.0f, 1.0f, 45.0f, DEMO_CLIP_GL);
	demo_mat4_multiply(fc->light_view_proj, light_proj, light_view);
	memcpy(fc->light_dir, (float[4]){dir[0], dir[1], dir[2], 0.3f}, sizeof(fc->light_dir));
	memcpy(fc->viewport,
	       (float[4]){(float)opt->width, (float)opt->height, 1.0f / (float)opt->width,
			  1.0f / (float)opt->height},
	       sizeof(fc->viewport));
	memcpy(fc->params, (float[4]){(float)frame, 0, 0, 0}, sizeof(fc->params));
}

/* --gl-errors: one line per glGetError call, "frame <f> <point> 0x<code>". */
static void gd_error_point(struct gd_context *ctx, uint32_t frame, const char *point)
{
	GLenum e = gd_load_gl.glGetError();
	fprintf(ctx->gl_errors, "frame %u %s 0x%04x\n", frame, point, e);
}

/* The invalid calls leave GL state unchanged (an erroring call has no effect). */
static void gd_errors_frame_start(struct gd_context *ctx, uint32_t frame)
{
	gd_error_point(ctx, frame, "frame-start");
	gd_load_gl.glBindFramebuffer(0x1234, 0);
	gd_error_point(ctx, frame, "bind-framebuffer-bad-target");
	gd_load_gl.glEnable(0xFFFF);
	gd_error_point(ctx, frame, "enable-bad-cap");
	gd_load_gl.glViewport(0, 0, -1, -1);
	gd_error_point(ctx, frame, "viewport-negative");
	/* Two errors before one glGetError: the first is kept (Mesa keeps only it). */
	gd_load_gl.glEnable(0xFFFF);
	gd_load_gl.glViewport(0, 0, -1, -1);
	gd_error_point(ctx, frame, "two-errors-first");
	gd_error_point(ctx, frame, "two-errors-second");
}

static void gd_pass_constants_set(struct gd_context *ctx, enum gd_pass pass)
{
	struct gd_pass_constants pc = {
		.load = {(int32_t)(ctx->opt.load[pass] * GD_LOAD_ITERATIONS), 0, 0, 0},
		.weight = {0.0f, 0.0f, 0.0f, 0.0f},
	};
	uint32_t stride = gd_scene_constants_stride(ctx);
	gd_load_gl.glBindBuffer(GL_UNIFORM_BUFFER, ctx->constants_ubo);
	gd_load_gl.glBufferSubData(GL_UNIFORM_BUFFER, (GLintptr)stride * (1 + pass), sizeof(pc), &pc);
	gd_load_gl.glBindBufferRange(GL_UNIFORM_BUFFER, 1, ctx->constants_ubo, (GLintptr)stride * (1 + pass),
			     sizeof(pc));
}

void gd_frame_draw_issue(GLuint instance_buffer, const struct gd_draw *d)
{
	const struct gd_mesh_range *m = &gd_scene_meshes[d->mesh];
	/* GLES has no base instance: the instance attribute starts at the draw's first one. */
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, instance_buffer);
	gd_load_gl.glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, 16,
				 (const void *)(uintptr_t)(d->first_instance * 16u));
	const void *indices = (const void *)(uintptr_t)(m->index_first * sizeof(uint16_t));
	switch (d->form) {
	case GD_DRAW_ARRAYS:
		gd_load_gl.glDrawArrays(m->arrays_mode, (GLint)m->arrays_first, (GLsizei)m->arrays_count);
		break;
	case GD_DRAW_ARRAYS_INSTANCED:
		gd_load_gl.glDrawArraysInstanced(m->arrays_mode, (GLint)m->arrays_first,
					 (GLsizei)m->arrays_count, (GLsizei)d->instances);
		break;
	case GD_DRAW_ELEMENTS:
		gd_load_gl.glDrawElements(m->elements_mode, (GLsizei)m->index_count, GL_UNSIGNED_SHORT,
				  indices);
		break;
	case GD_DRAW_RANGE_ELEMENTS:
		gd_load_gl.glDrawRangeElements(m->elements_mode, m->min_vertex, m->max_vertex,
				       (GLsizei)m->index_count, GL_UNSIGNED_SHORT, indices);
		break;
	case GD_DRAW_ELEMENTS_INSTANCED:
		gd_load_gl.glDrawElementsInstanced(m->elements_mode, (GLsizei)m->index_count,
					   GL_UNSIGNED_SHORT, indices, (GLsizei)d->instances);
		break;
	}
}

static void gd_texture_bind(GLuint unit, GLuint texture)
{
	gd_load_gl.glActiveTexture(GL_TEXTURE0 + unit);
	gd_load_gl.glBindTexture(GL_TEXTURE_2D, texture);
}

/* Fixed-function state and inputs of each pass, set after its framebuffer is bound. */
static void gd_pass_state(struct gd_context *ctx, enum gd_pass pass)
{
	bool depth = pass == GD_PASS_SHADOW || pass == GD_PASS_GBUFFER || pass == GD_PASS_COMPOSITE;
	if (depth)
		gd_load_gl.glEnable(GL_DEPTH_TEST);
	else
		gd_load_gl.glDisable(GL_DEPTH_TEST);
	/* Composite writes depth everywhere (GL_ALWAYS), so its image is the same whether it
	 * clears the depth first or loads what it invalidated (tile-load-store's misuse). */
	gd_load_gl.glDepthFunc(pass == GD_PASS_COMPOSITE ? GL_ALWAYS : GL_LESS);
	gd_load_gl.glDepthMask(GL_TRUE);
	gd_load_gl.glDisable(GL_BLEND);
	switch (pass) {
	case GD_PASS_SHADOW:
		gd_load_gl.glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
		break;
	case GD_PASS_GBUFFER:
		gd_load_gl.glClearColor(0.45f, 0.6f, 0.85f, 1.0f);
		gd_texture_bind(0, ctx->shadow_map);
		gd_texture_bind(1, ctx->palette);
		break;
	case GD_PASS_LIGHTING:
		gd_load_gl.glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
		gd_texture_bind(0, ctx->albedo);
		gd_texture_bind(1, ctx->normal);
		break;
	case GD_PASS_BLOOM:
		gd_load_gl.glEnable(GL_BLEND);
		gd_load_gl.glBlendFunc(GL_ONE, GL_ONE);
		break;
	case GD_PASS_COMPOSITE:
		gd_load_gl.glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
		gd_texture_bind(0, ctx->hdr);
		break;
	default:
		break;
	}
	gd_load_gl.glClearDepthf(1.0f);
	gd_load_gl.glUseProgram(ctx->program[pass]);
}

/* --misuse/--control query-result, right after the occlusion query of gbuffer ends. */
static void gd_query_read(struct gd_context *ctx, uint32_t frame)
{
	GLuint result = 0;
	if (ctx->opt.mode[GD_MISUSE_QUERY_RESULT] == GD_MODE_MISUSE) {
		/* Waits for this frame's gbuffer to finish. */
		gd_load_gl.glGetQueryObjectuiv(ctx->queries[frame % GD_RING], GL_QUERY_RESULT, &result);
		ctx->queries_read++;
		return;
	}
	if (frame < GD_RING_LAG)
		return;
	uint32_t slot = (frame - GD_RING_LAG) % GD_RING;
	GLuint available = GL_FALSE;
	gd_load_gl.glGetQueryObjectuiv(ctx->queries[slot], GL_QUERY_RESULT_AVAILABLE, &available);
	if (available) {
		gd_load_gl.glGetQueryObjectuiv(ctx->queries[slot], GL_QUERY_RESULT, &result);
		ctx->queries_read++;
	}
}

/* --misuse/--control map-sync, after gbuffer's draws read the instance buffer. The data
 * written is the data already there, so the image does not change. */
static int gd_instances_map(struct gd_context *ctx)
{
	GLbitfield access = GL_MAP_WRITE_BIT;
	if (ctx->opt.mode[GD_MISUSE_MAP_SYNC] == GD_MODE_CONTROL)
		access |= GL_MAP_INVALIDATE_BUFFER_BIT;
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, ctx->instance_vbo);
	void *p = gd_load_gl.glMapBufferRange(GL_ARRAY_BUFFER, 0, GD_INSTANCE_BYTES, access);
	if (!p) {
		gd_scene_check_error("glMapBufferRange of the instance buffer");
		return -1;
	}
	gd_scene_instances_write(p);
	if (!gd_load_gl.glUnmapBuffer(GL_ARRAY_BUFFER)) {
		fprintf(stderr, GD_NAME ": glUnmapBuffer lost the instance buffer\n");
		return -1;
	}
	return 0;
}

static void gd_palette_update(struct gd_context *ctx)
{
	gd_load_gl.glActiveTexture(GL_TEXTURE0 + 3);
	gd_load_gl.glBindTexture(GL_TEXTURE_2D, ctx->palette);
	gd_load_gl.glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4, 1, GL_RGBA, GL_UNSIGNED_BYTE,
			   gd_scene_palette_texels);
}

/* Runs one pass: debug group, framebuffer, clear, draws (and bloom's dispatch), invalidate. */
static int gd_pass_run(struct gd_context *ctx, enum gd_pass pass, uint32_t frame)
{
	const struct gd_pass_desc *desc = &gd_scene_passes[pass];
	struct gd_pass_counts counts;
	gd_scene_pass_counts_get(&ctx->opt, pass, &counts);
	bool query = pass == GD_PASS_GBUFFER && ctx->opt.mode[GD_MISUSE_QUERY_RESULT] != GD_MODE_DEFAULT;

	if (!ctx->opt.no_groups)
		gd_load_gl.glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, (GLuint)pass + 1, -1, desc->name);
	gd_timings_mark(ctx, frame, pass, false);
	gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, ctx->fbo[pass]);
	gd_load_gl.glViewport(0, 0, (GLsizei)ctx->opt.width, (GLsizei)ctx->opt.height);
	gd_pass_state(ctx, pass);
	gd_pass_constants_set(ctx, pass);
	if (counts.clear) {
		GLbitfield bits = GL_COLOR_BUFFER_BIT;
		if (pass != GD_PASS_LIGHTING)
			bits |= GL_DEPTH_BUFFER_BIT;
		gd_load_gl.glClear(bits);
		ctx->issued[pass].clear++;
	}
	if (desc->dispatches) {
		gd_load_gl.glUseProgram(ctx->bloom_compute);
		gd_load_gl.glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, ctx->sprite_buffer);
		for (uint32_t i = 0; i < desc->dispatches; i++) {
			gd_load_gl.glDispatchCompute(GD_SPRITE_COUNT / 16, 1, 1);
			ctx->issued[pass].dispatches++;
			ctx->issued[pass].workgroups += GD_SPRITE_COUNT / 16;
		}
		/* The sprites' rectangles are read as instanced vertex attributes. */
		gd_load_gl.glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT);
		ctx->issued[pass].barriers++;
		gd_load_gl.glUseProgram(ctx->program[pass]);
	}
	if (query)
		gd_load_gl.glBeginQuery(GL_ANY_SAMPLES_PASSED, ctx->queries[frame % GD_RING]);
	for (uint32_t i = 0; i < desc->draw_count; i++) {
		if (ctx->gl_errors && pass == GD_PASS_LIGHTING && i == 2) {
			gd_load_gl.glDisable(0xFFFF);
			gd_error_point(ctx, frame, "lighting-mid-pass");
		}
		if (desc->draws[i].overlay) {
			gd_load_gl.glEnable(GL_BLEND);
			gd_load_gl.glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
			gd_load_gl.glUseProgram(ctx->overlay_program);
		}
		gd_frame_draw_issue(desc->draws[i].sprites ? ctx->sprite_buffer : ctx->instance_vbo,
			      &desc->draws[i]);
		gd_scene_pass_counts_draw(&ctx->issued[pass], &desc->draws[i]);
	}
	if (query) {
		gd_load_gl.glEndQuery(GL_ANY_SAMPLES_PASSED);
		gd_query_read(ctx, frame);
	}
	if (counts.invalidate) {
		GLenum attachment = ctx->fbo[pass] ? GL_DEPTH_ATTACHMENT : GL_DEPTH;
		gd_load_gl.glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, &attachment);
		ctx->issued[pass].invalidate++;
	}
	gd_timings_mark(ctx, frame, pass, true);
	if (!ctx->opt.no_groups)
		gd_load_gl.glPopDebugGroup();
	if (ctx->gl_errors) {
		char point[32];
		snprintf(point, sizeof(point), "after-%s", desc->name);
		gd_error_point(ctx, frame, point);
	}
	return 0;
}

/* --misuse readpixels: the whole image into client memory, right after rendering it.
 * --control readpixels: into a PBO, mapped two frames later once its fence has signalled
 * (glClientWaitSync with a zero timeout never waits). */
static int gd_readpixels(struct gd_context *ctx, uint32_t frame)
{
	GLsizei w = (GLsizei)ctx->opt.width, h = (GLsizei)ctx->opt.height;
	if (ctx->opt.mode[GD_MISUSE_READPIXELS] == GD_MODE_MISUSE) {
		gd_load_gl.glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, ctx->readback);
		ctx->readbacks_done++;
		return 0;
	}
	if (frame >= GD_RING_LAG) {
		uint32_t old = (frame - GD_RING_LAG) % GD_RING;
		if (ctx->pbo_fence[old] &&
		    gd_load_gl.glClientWaitSync(ctx->pbo_fence[old], 0, 0) != GL_TIMEOUT_EXPIRED) {
			gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, ctx->pbo[old]);
			const uint8_t *p = gd_load_gl.glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0,
							       (GLsizeiptr)w * h * 4,
							       GL_MAP_READ_BIT);
			if (p) {
				ctx->readbacks_done++;
				gd_load_gl.glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
			}
			gd_load_gl.glDeleteSync(ctx->pbo_fence[old]);
			ctx->pbo_fence[old] = NULL;
		}
	}
	uint32_t slot = frame % GD_RING;
	if (ctx->pbo_fence[slot])
		gd_load_gl.glDeleteSync(ctx->pbo_fence[slot]);
	gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, ctx->pbo[slot]);
	gd_load_gl.glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
	gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	ctx->pbo_fence[slot] = gd_load_gl.glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	return 0;
}

/* --misuse clientwaitsync: wait up to a second for the fence of the frame just rendered.
 * --control clientwaitsync: poll (timeout 0) the fence of two frames ago. */
static int gd_clientwaitsync(struct gd_context *ctx, uint32_t frame)
{
	GLsync fence = gd_load_gl.glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	if (ctx->opt.mode[GD_MISUSE_CLIENTWAITSYNC] == GD_MODE_MISUSE) {
		GLenum r = gd_load_gl.glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000u);
		ctx->fences_signalled += r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
		gd_load_gl.glDeleteSync(fence);
		return r == GL_WAIT_FAILED ? -1 : 0;
	}
	uint32_t slot = frame % GD_RING;
	if (frame >= GD_RING_LAG) {
		uint32_t old = (frame - GD_RING_LAG) % GD_RING;
		if (ctx->frame_fence[old]) {
			GLenum r = gd_load_gl.glClientWaitSync(ctx->frame_fence[old], 0, 0);
			ctx->fences_signalled += r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
			gd_load_gl.glDeleteSync(ctx->frame_fence[old]);
			ctx->frame_fence[old] = NULL;
		}
	}
	if (ctx->frame_fence[slot])
		gd_load_gl.glDeleteSync(ctx->frame_fence[slot]);
	ctx->frame_fence[slot] = fence;
	return 0;
}

int gd_frame_render(struct gd_context *ctx, uint32_t frame)
{
	const enum gd_mode *mode = ctx->opt.mode;
	gd_timings_collect(ctx, frame);
	if (mode[GD_MISUSE_TEXSUBIMAGE] == GD_MODE_CONTROL)
		gd_palette_update(ctx); /* before anything samples it this frame */

	struct gd_frame_constants fc;
	gd_frame_constants_fill(&fc, &ctx->opt, frame);
	gd_load_gl.glBindBuffer(GL_UNIFORM_BUFFER, ctx->constants_ubo);
	gd_load_gl.glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof(fc), &fc);
	gd_load_gl.glBindBufferRange(GL_UNIFORM_BUFFER, 0, ctx->constants_ubo, 0, sizeof(fc));
	gd_load_gl.glBindVertexArray(ctx->scene_vao);
	if (ctx->gl_errors)
		gd_errors_frame_start(ctx, frame);

	for (int pass = 0; pass < GD_PASS_COUNT; pass++) {
		if (gd_pass_run(ctx, (enum gd_pass)pass, frame))
			return -1;
		if (pass != GD_PASS_GBUFFER)
			continue;
		if (mode[GD_MISUSE_MAP_SYNC] != GD_MODE_DEFAULT && gd_instances_map(ctx))
			return -1;
		if (mode[GD_MISUSE_TEXSUBIMAGE] == GD_MODE_MISUSE)
			gd_palette_update(ctx); /* gbuffer sampled it already */
	}
	if (mode[GD_MISUSE_READPIXELS] != GD_MODE_DEFAULT && gd_readpixels(ctx, frame))
		return -1;
	if (mode[GD_MISUSE_CLIENTWAITSYNC] != GD_MODE_DEFAULT && gd_clientwaitsync(ctx, frame))
		return -1;
	if (ctx->gl_errors) {
		gd_load_gl.glEndQuery(GL_ANY_SAMPLES_PASSED); /* none is active */
		gd_error_point(ctx, frame, "end-query-inactive");
	}

	if (ctx->opt.no_swap) {
		gd_load_gl.glFlush();
	} else if (!gd_load_gl.eglSwapBuffers(ctx->display, ctx->surface)) {
		gd_egl_fail("eglSwapBuffers");
		return -1;
	} else {
		ctx->swaps++;
	}
	if (mode[GD_MISUSE_FINISH] == GD_MODE_MISUSE)
		gd_load_gl.glFinish();
	return 0;
}

static int gd_ppm_write(struct gd_context *ctx, const uint8_t *rgba)
{
	uint32_t w = ctx->opt.width, h = ctx->opt.height;
	FILE *f = ctx->output_file;
	ctx->output_file = NULL;
	int ok = fprintf(f, "P6\n%u %u\n255\n", w, h) > 0;
	/* GL's rows run bottom-up, PPM's top-down. */
	for (uint32_t y = 0; ok && y < h; y++) {
		const uint8_t *row = rgba + (size_t)(h - 1 - y) * w * 4;
		for (uint32_t x = 0; ok && x < w; x++)
			ok = fwrite(row + x * 4, 1, 3, f) == 3;
	}
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, GD_NAME ": cannot write %s\n", ctx->opt.output);
		remove(ctx->opt.output); /* no truncated PPM left behind */
	}
	return ok ? 0 : -1;
}

/* After the last frame: the final image (read once, so per-frame behaviour is untouched). */
int gd_frame_finish(struct gd_context *ctx)
{
	if (!ctx->opt.output)
		return 0;
	gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, ctx->fbo[GD_PASS_COMPOSITE]);
	gd_load_gl.glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	gd_load_gl.glPixelStorei(GL_PACK_ALIGNMENT, 4);
	gd_load_gl.glReadPixels(0, 0, (GLsizei)ctx->opt.width, (GLsizei)ctx->opt.height, GL_RGBA,
			GL_UNSIGNED_BYTE, ctx->readback);
	if (gd_scene_check_error("reading the final image"))
		return -1;
	return gd_ppm_write(ctx, ctx->readback);
}
