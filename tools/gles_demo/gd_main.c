/* pp_gles_demo / pp_gles_demo_dlopen: renders shadow, gbuffer, lighting, bloom and composite
 * passes into a pbuffer of the EGL surfaceless platform every frame; see docs/demo.md. */
#include "gd.h"

#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

/* Everything a profiler should count per frame, from the same tables the renderer walks. */
static void gd_expect_print(const struct gd_options *opt)
{
	printf("expect build %s\n", gd_load_api_build);
	printf("expect frames %u\n", opt->frames);
	printf("expect swaps %u\n", opt->no_swap ? 0 : opt->frames);
	printf("expect size %ux%u\n", opt->width, opt->height);
	printf("expect passes %d\n", GD_PASS_COUNT);
	printf("expect debug-groups %d\n", !opt->no_groups);
	printf("expect surface %s\n", opt->no_surface ? "none" : "pbuffer");
	uint64_t draws = 0;
	for (int p = 0; p < GD_PASS_COUNT; p++) {
		struct gd_pass_counts c;
		gd_scene_pass_counts_get(opt, (enum gd_pass)p, &c);
		draws += c.draws;
		/* The name a profiler gives the pass (docs/gles.md): the debug group's; with
		 * --no-groups the framebuffer's label, or a generated one for the pbuffer's. */
		const char *framebuffer = gd_scene_pass_framebuffer_label(opt, (enum gd_pass)p);
		const char *name = gd_scene_passes[p].name, *source = "";
		char generated[32];
		if (opt->no_groups && strcmp(framebuffer, "default") != 0) {
			name = framebuffer;
			source = " source=object";
		} else if (opt->no_groups) {
			snprintf(generated, sizeof(generated), "render#%d", p);
			name = generated;
			source = " source=generated";
		}
		printf("expect pass %d %s draws=%u instances=%llu vertices=%llu indices=%llu "
		       "dispatches=%u clear=%u invalidate=%u draws_arrays=%u draws_indexed=%u "
		       "workgroups=%llu barriers=%u load=%u framebuffer=%s%s\n",
		       p, name, c.draws, (unsigned long long)c.instances,
		       (unsigned long long)c.vertices, (unsigned long long)c.indices, c.dispatches,
		       c.clear, c.invalidate, c.draws_arrays, c.draws_indexed,
		       (unsigned long long)c.workgroups, c.barriers, opt->load[p], framebuffer,
		       source);
	}
	printf("expect draws %llu\n", (unsigned long long)draws);
	for (int m = 0; m < GD_MISUSE_COUNT; m++)
		if (opt->mode[m] != GD_MODE_DEFAULT)
			printf("expect %s %s\n", opt->mode[m] == GD_MODE_MISUSE ? "misuse" : "control",
			       gd_options_misuse_names[m]);
	uint32_t thread_passes, thread_draws;
	gd_threads_counts_get(&thread_passes, &thread_draws);
	for (uint32_t t = 0; t < opt->threads; t++)
		printf("expect thread %u passes=%u draws=%u frames=%u shared=%d\n", t, thread_passes,
		       thread_draws, opt->frames, t % 2 == 1);
	fflush(stdout);
}

/* What the renderer issued over all frames, counted at the calls: --expect's numbers times
 * the frames, unless the renderer and the tables disagree. */
static void gd_issued_print(const struct gd_context *ctx)
{
	for (int p = 0; p < GD_PASS_COUNT; p++) {
		const struct gd_pass_counts *c = &ctx->issued[p];
		printf("issued pass %d %s draws=%u instances=%llu vertices=%llu indices=%llu "
		       "dispatches=%u clear=%u invalidate=%u draws_arrays=%u draws_indexed=%u "
		       "workgroups=%llu barriers=%u\n",
		       p, gd_scene_passes[p].name, c->draws, (unsigned long long)c->instances,
		       (unsigned long long)c->vertices, (unsigned long long)c->indices, c->dispatches,
		       c->clear, c->invalidate, c->draws_arrays, c->draws_indexed,
		       (unsigned long long)c->workgroups, c->barriers);
	}
	printf("issued swaps %u\n", ctx->swaps);
	/* The switches' reads: every frame in a misuse mode; in a control mode only what was
	 * ready two frames later (no number to expect). */
	printf("issued reads readpixels=%u query_results=%u fences_signalled=%u\n",
	       ctx->readbacks_done, ctx->queries_read, ctx->fences_signalled);
}

/* After the targets exist, before the first frame: what each pass renders to. */
static void gd_attachments_print(const struct gd_context *ctx)
{
	static const char *const slot_names[4] = {"color0", "color1", "depth", "stencil"};
	for (int p = 0; p < GD_PASS_COUNT; p++) {
		printf("expect attachments %d %s size=%ux%u samples=1", p, gd_scene_passes[p].name,
		       ctx->opt.width, ctx->opt.height);
		for (int s = 0; s < 4; s++)
			if (ctx->attachment_format[p][s])
				printf(" %s=%s", slot_names[s],
				       gd_scene_format_name(ctx->attachment_format[p][s]));
		printf("\n");
	}
	fflush(stdout);
}

static void gd_info_print(const struct gd_context *ctx)
{
	printf("info egl-platform %s\n", ctx->egl_platform);
	printf("info renderer %s\n", (const char *)gd_load_gl.glGetString(GL_RENDERER));
	printf("info version %s\n", (const char *)gd_load_gl.glGetString(GL_VERSION));
	static const char *const extensions[] = {"GL_EXT_disjoint_timer_query", "GL_KHR_debug",
						 "GL_EXT_debug_label"};
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		printf("info extension %s %d\n", extensions[i], gd_timings_gl_extension_has(extensions[i]));
	fflush(stdout);
}

static int gd_files_open(struct gd_context *ctx)
{
	if (ctx->opt.output) {
		ctx->output_file = tool_options_file_open(GD_NAME, ctx->opt.output, "wb");
		if (!ctx->output_file)
			return -1;
	}
	if (ctx->opt.gl_errors) {
		ctx->gl_errors = tool_options_file_open(GD_NAME, ctx->opt.gl_errors, "w");
		if (!ctx->gl_errors)
			return -1;
	}
	return 0;
}

static int gd_run(struct gd_context *ctx)
{
	int rc = gd_egl_create(ctx);
	if (rc)
		return rc;
	if (ctx->opt.info)
		gd_info_print(ctx);
	if (ctx->opt.debug_callback && gd_egl_debug_callback_install(ctx->opt.debug_mute))
		return GD_EXIT_FAILURE;
	if (ctx->opt.debug_insert)
		gd_egl_debug_insert();
	if (gd_scene_create(ctx))
		return GD_EXIT_FAILURE;
	if (ctx->opt.expect)
		gd_attachments_print(ctx);
	if (ctx->opt.timings && gd_timings_create(ctx))
		return GD_EXIT_FAILURE;

	struct gd_threads *threads = NULL;
	if (ctx->opt.threads) {
		ctx->share_fence = gd_load_gl.glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		gd_load_gl.glFlush();
		if (gd_threads_start(ctx, &threads))
			rc = GD_EXIT_FAILURE;
	}
	for (uint32_t frame = 0; rc == 0 && frame < ctx->opt.frames; frame++)
		if (gd_frame_render(ctx, frame))
			rc = GD_EXIT_FAILURE;
	if (rc == 0 && gd_frame_finish(ctx))
		rc = GD_EXIT_FAILURE;
	gd_timings_finish(ctx);
	if (gd_threads_join(threads, ctx->opt.expect))
		rc = GD_EXIT_FAILURE;
	if (ctx->share_fence)
		gd_load_gl.glDeleteSync(ctx->share_fence);
	/* Without --gl-errors the demo makes no error on purpose: any error is a bug. */
	if (!ctx->gl_errors && gd_scene_check_error("after the last frame"))
		rc = GD_EXIT_FAILURE;
	return rc;
}

int main(int argc, char **argv)
{
	static struct gd_context ctx; /* zeroed so that cleanup can test every name */
	ctx.display = EGL_NO_DISPLAY;
	ctx.context = EGL_NO_CONTEXT;
	ctx.surface = EGL_NO_SURFACE;
	int parsed = gd_options_parse(&ctx.opt, argc, argv);
	if (parsed != 0)
		return parsed > 0 ? 0 : GD_EXIT_USAGE;
	if (ctx.opt.expect)
		gd_expect_print(&ctx.opt);
	if (gd_load_api())
		return GD_EXIT_UNAVAILABLE;
	if (gd_files_open(&ctx))
		return GD_EXIT_FAILURE;

	int rc = gd_run(&ctx);

	gd_scene_destroy(&ctx);
	gd_egl_destroy(&ctx);
	if (ctx.gl_errors && fclose(ctx.gl_errors) != 0 && rc == 0) {
		fprintf(stderr, GD_NAME ": cannot write %s\n", ctx.opt.gl_errors);
		rc = GD_EXIT_FAILURE;
	}
	if (ctx.output_file) {
		/* Rendering failed before the image existed: leave no truncated PPM behind. */
		fclose(ctx.output_file);
		remove(ctx.opt.output);
	}
	if (rc)
		return rc;
	if (ctx.opt.expect)
		gd_issued_print(&ctx);
	printf(GD_NAME ": rendered %u frames (%d passes, %s build, %u threads)\n", ctx.opt.frames,
	       GD_PASS_COUNT, gd_load_api_build, ctx.opt.threads);
	return 0;
}
