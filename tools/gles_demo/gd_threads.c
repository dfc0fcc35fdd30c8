/* --threads N: N more threads, each with its own context and pbuffer, rendering two small
 * passes per frame while the main thread renders its own. Thread i's context shares objects
 * with the main one when i is odd (it draws from the main context's geometry buffers). Every
 * frame the thread makes its context current, renders, swaps and releases it again, so a
 * profiler sees eglMakeCurrent switches all along. */
#include "gd.h"

#include <pthread.h>
#include <stdlib.h>

#define GD_THREAD_SIZE 64

static const struct gd_draw gd_thread_offscreen_draws[] = {
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 0, .instances = 1},
	{.form = GD_DRAW_ARRAYS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 1, .instances = 1},
	{.form = GD_DRAW_ELEMENTS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 2, .instances = 1},
};
static const struct gd_draw gd_thread_present_draws[] = {
	{.form = GD_DRAW_ARRAYS_INSTANCED, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_STRIPS + 0, .instances = 2},
	{.form = GD_DRAW_RANGE_ELEMENTS, .mesh = GD_MESH_QUAD, .first_instance = GD_INSTANCE_FULL, .instances = 1},
};
static const struct {
	const char *name;
	const struct gd_draw *draws;
	uint32_t draw_count;
} gd_thread_passes[GD_THREAD_PASSES] = {
	{"thread_offscreen", gd_thread_offscreen_draws, 3},
	{"thread_present", gd_thread_present_draws, 2},
};

void gd_threads_counts_get(uint32_t *passes, uint32_t *draws)
{
	*passes = GD_THREAD_PASSES;
	*draws = 0;
	for (uint32_t p = 0; p < GD_THREAD_PASSES; p++)
		*draws += gd_thread_passes[p].draw_count;
}

struct gd_thread {
	pthread_t thread;
	bool started;
	uint32_t index;
	bool shared;
	const struct gd_context *main;
	int result;
	uint32_t issued_passes, issued_draws, issued_swaps;

	EGLContext context;
	EGLSurface surface;
	GLuint vbo, ibo, instances, vao, program, fbo, texture;
};

struct gd_threads {
	uint32_t count;
	struct gd_thread thread[];
};

static bool gd_thread_current(struct gd_thread *t, bool on)
{
	EGLDisplay dpy = t->main->display;
	EGLBoolean ok = on ? gd_load_gl.eglMakeCurrent(dpy, t->surface, t->surface, t->context)
			   : gd_load_gl.eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	if (!ok)
		gd_egl_fail("eglMakeCurrent (thread)");
	return ok;
}

static int gd_thread_setup(struct gd_thread *t)
{
	const struct gd_context *m = t->main;
	const EGLint context_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2, EGL_NONE,
	};
	t->context = gd_load_gl.eglCreateContext(m->display, m->config,
					 t->shared ? m->context : EGL_NO_CONTEXT, context_attribs);
	if (t->context == EGL_NO_CONTEXT) {
		gd_egl_fail("eglCreateContext (thread)");
		return -1;
	}
	const EGLint surface_attribs[] = {EGL_WIDTH, GD_THREAD_SIZE, EGL_HEIGHT, GD_THREAD_SIZE,
					  EGL_NONE};
	t->surface = gd_load_gl.eglCreatePbufferSurface(m->display, m->config, surface_attribs);
	if (t->surface == EGL_NO_SURFACE) {
		gd_egl_fail("eglCreatePbufferSurface (thread)");
		return -1;
	}
	if (!gd_thread_current(t, true))
		return -1;
	if (t->shared) {
		/* The main context's uploads are complete before this context reads them. */
		gd_load_gl.glWaitSync(m->share_fence, 0, GL_TIMEOUT_IGNORED);
		t->vbo = m->geometry_vbo;
		t->ibo = m->geometry_ibo;
	} else {
		GLuint b[2];
		gd_load_gl.glGenBuffers(2, b);
		t->vbo = b[0];
		t->ibo = b[1];
		gd_scene_geometry_upload(t->vbo, t->ibo);
	}
	gd_load_gl.glGenVertexArrays(1, &t->vao);
	gd_load_gl.glBindVertexArray(t->vao);
	gd_load_gl.glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, t->ibo);
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
	gd_load_gl.glEnableVertexAttribArray(0);
	gd_load_gl.glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 24, (void *)0);
	float inst[GD_INSTANCE_COUNT * 4];
	gd_scene_instances_write(inst);
	gd_load_gl.glGenBuffers(1, &t->instances);
	gd_load_gl.glBindBuffer(GL_ARRAY_BUFFER, t->instances);
	gd_load_gl.glBufferData(GL_ARRAY_BUFFER, sizeof(inst), inst, GL_STATIC_DRAW);
	gd_load_gl.glEnableVertexAttribArray(2);
	gd_load_gl.glVertexAttribDivisor(2, 1);
	gd_scene_label(GL_BUFFER, t->instances, "thread_instances");

	t->program = gd_scene_program_build("thread_program", NULL, gd_scene_screen_vs, gd_scene_flat_fs, NULL);
	gd_load_gl.glGenTextures(1, &t->texture);
	gd_load_gl.glBindTexture(GL_TEXTURE_2D, t->texture);
	gd_load_gl.glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, GD_THREAD_SIZE, GD_THREAD_SIZE);
	gd_scene_label(GL_TEXTURE, t->texture, "thread_color");
	gd_load_gl.glGenFramebuffers(1, &t->fbo);
	gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
	gd_load_gl.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->texture, 0);
	gd_scene_label(GL_FRAMEBUFFER, t->fbo, "thread_fbo");
	int rc = t->program ? gd_scene_check_error("setting up a thread") : -1;
	gd_thread_current(t, false);
	return rc;
}

static int gd_thread_frame(struct gd_thread *t)
{
	if (!gd_thread_current(t, true))
		return -1;
	gd_load_gl.glBindVertexArray(t->vao);
	gd_load_gl.glUseProgram(t->program);
	gd_load_gl.glViewport(0, 0, GD_THREAD_SIZE, GD_THREAD_SIZE);
	gd_load_gl.glClearColor(0.1f, 0.1f, 0.1f + 0.05f * (float)t->index, 1.0f);
	for (uint32_t p = 0; p < GD_THREAD_PASSES; p++) {
		if (!t->main->opt.no_groups)
			gd_load_gl.glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, p + 1, -1,
					    gd_thread_passes[p].name);
		gd_load_gl.glBindFramebuffer(GL_FRAMEBUFFER, p == 0 ? t->fbo : 0);
		gd_load_gl.glClear(GL_COLOR_BUFFER_BIT);
		for (uint32_t i = 0; i < gd_thread_passes[p].draw_count; i++) {
			gd_frame_draw_issue(t->instances, &gd_thread_passes[p].draws[i]);
			t->issued_draws++;
		}
		if (!t->main->opt.no_groups)
			gd_load_gl.glPopDebugGroup();
		t->issued_passes++;
	}
	int rc = 0;
	if (t->main->opt.no_swap) {
		gd_load_gl.glFlush();
	} else if (!gd_load_gl.eglSwapBuffers(t->main->display, t->surface)) {
		gd_egl_fail("eglSwapBuffers (thread)");
		rc = -1;
	} else {
		t->issued_swaps++;
	}
	if (!gd_thread_current(t, false))
		rc = -1;
	return rc;
}

static void gd_thread_teardown(struct gd_thread *t)
{
	EGLDisplay dpy = t->main->display;
	if (t->context != EGL_NO_CONTEXT && t->surface != EGL_NO_SURFACE &&
	    gd_thread_current(t, true)) {
		gd_load_gl.glDeleteFramebuffers(1, &t->fbo);
		gd_load_gl.glDeleteTextures(1, &t->texture);
		gd_load_gl.glDeleteProgram(t->program);
		gd_load_gl.glDeleteVertexArrays(1, &t->vao);
		gd_load_gl.glDeleteBuffers(1, &t->instances);
		if (!t->shared) {
			GLuint b[2] = {t->vbo, t->ibo};
			gd_load_gl.glDeleteBuffers(2, b);
		}
		gd_thread_current(t, false);
	}
	if (t->surface != EGL_NO_SURFACE)
		gd_load_gl.eglDestroySurface(dpy, t->surface);
	if (t->context != EGL_NO_CONTEXT)
		gd_load_gl.eglDestroyContext(dpy, t->context);
	gd_load_gl.eglReleaseThread();
}

static void *gd_thread_main(void *arg)
{
	struct gd_thread *t = arg;
	t->result = gd_thread_setup(t);
	for (uint32_t f = 0; t->result == 0 && f < t->main->opt.frames; f++)
		t->result = gd_thread_frame(t);
	gd_thread_teardown(t);
	if (t->result)
		fprintf(stderr, GD_NAME ": thread %u failed\n", t->index);
	return NULL;
}

int gd_threads_start(struct gd_context *ctx, struct gd_threads **out)
{
	uint32_t n = ctx->opt.threads;
	struct gd_threads *threads = calloc(1, sizeof(*threads) + n * sizeof(struct gd_thread));
	*out = threads;
	if (!threads) {
		fprintf(stderr, GD_NAME ": out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct gd_thread *t = &threads->thread[i];
		*t = (struct gd_thread){.index = i, .shared = i % 2 == 1, .main = ctx,
					.context = EGL_NO_CONTEXT, .surface = EGL_NO_SURFACE};
		if (pthread_create(&t->thread, NULL, gd_thread_main, t) != 0) {
			fprintf(stderr, GD_NAME ": cannot start thread %u\n", i);
			return -1;
		}
		t->started = true;
		threads->count = i + 1;
	}
	return 0;
}

int gd_threads_join(struct gd_threads *threads, bool print_issued)
{
	if (!threads)
		return 0;
	int rc = 0;
	for (uint32_t i = 0; i < threads->count; i++) {
		struct gd_thread *t = &threads->thread[i];
		if (!t->started)
			continue;
		pthread_join(t->thread, NULL);
		if (t->result)
			rc = -1;
		if (print_issued)
			printf("issued thread %u passes=%u draws=%u swaps=%u\n", t->index,
			       t->issued_passes, t->issued_draws, t->issued_swaps);
	}
	free(threads);
	return rc;
}
