/* --timings: the demo's own per-pass GPU times from GL_EXT_disjoint_timer_query timestamps
 * at each pass's start and end, read GD_RING frames later and only when available (never
 * waiting), frames with the disjoint flag set dropped. A reference for what a profiler
 * should find: the passes' GPU times follow --load. */
#include "gd.h"

#include <stdlib.h>
#include <string.h>

/* Per-frame times kept for the medians: bounded, the first frames only. */
#define GD_TIMING_SAMPLES 4096u

struct gd_timings {
	GLuint queries[GD_RING][GD_PASS_COUNT * 2];
	bool pending[GD_RING];
	uint64_t sum_ns[GD_PASS_COUNT];
	uint64_t samples[GD_PASS_COUNT][GD_TIMING_SAMPLES];
	uint32_t frames;      /* frames whose times were read */
	uint32_t disjoint;    /* frames dropped for the disjoint flag */
	uint32_t unavailable; /* frames whose results were not there in time */
};

bool gd_timings_gl_extension_has(const char *name)
{
	GLint n = 0;
	gd_load_gl.glGetIntegerv(GL_NUM_EXTENSIONS, &n);
	for (GLint i = 0; i < n; i++) {
		const char *e = (const char *)gd_load_gl.glGetStringi(GL_EXTENSIONS, (GLuint)i);
		if (e && !strcmp(e, name))
			return true;
	}
	return false;
}

int gd_timings_create(struct gd_context *ctx)
{
	if (!gd_timings_gl_extension_has("GL_EXT_disjoint_timer_query")) {
		printf(GD_NAME ": timings unavailable: the context has no "
			       "GL_EXT_disjoint_timer_query\n");
		return 0;
	}
#define GD_PROC(name, type)                                                                        \
	gd_load_gl.name = (type)gd_load_gl.eglGetProcAddress(#name);                                               \
	if (!gd_load_gl.name) {                                                                            \
		printf(GD_NAME ": timings unavailable: eglGetProcAddress has no " #name "\n");     \
		return 0;                                                                          \
	}
	GD_TIMER_FUNCTIONS(GD_PROC)
#undef GD_PROC
	struct gd_timings *t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, GD_NAME ": out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < GD_RING; i++)
		gd_load_gl.glGenQueries(GD_PASS_COUNT * 2, t->queries[i]);
	GLint disjoint;
	gd_load_gl.glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint); /* clears the flag */
	ctx->timings = t;
	return gd_scene_check_error("creating the timer queries");
}

void gd_timings_mark(struct gd_context *ctx, uint32_t frame, enum gd_pass pass, bool end)
{
	struct gd_timings *t = ctx->timings;
	if (!t)
		return;
	gd_load_gl.glQueryCounterEXT(t->queries[frame % GD_RING][pass * 2 + end], GL_TIMESTAMP_EXT);
	if (pass == GD_PASS_COUNT - 1 && end)
		t->pending[frame % GD_RING] = true;
}

/* Reads the results of the frame that last used `slot`, if they are there. */
static void gd_timings_read(struct gd_timings *t, uint32_t slot)
{
	if (!t->pending[slot])
		return;
	t->pending[slot] = false;
	GLuint *q = t->queries[slot];
	GLuint available = GL_FALSE;
	gd_load_gl.glGetQueryObjectuiv(q[GD_PASS_COUNT * 2 - 1], GL_QUERY_RESULT_AVAILABLE, &available);
	if (!available) {
		t->unavailable++;
		return;
	}
	GLint disjoint = 0;
	gd_load_gl.glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
	if (disjoint) {
		t->disjoint++;
		return;
	}
	for (int p = 0; p < GD_PASS_COUNT; p++) {
		GLuint64 begin = 0, end = 0;
		gd_load_gl.glGetQueryObjectui64vEXT(q[2 * p], GL_QUERY_RESULT, &begin);
		gd_load_gl.glGetQueryObjectui64vEXT(q[2 * p + 1], GL_QUERY_RESULT, &end);
		uint64_t ns = end > begin ? end - begin : 0;
		t->sum_ns[p] += ns;
		if (t->frames < GD_TIMING_SAMPLES)
			t->samples[p][t->frames] = ns;
	}
	t->frames++;
}

/* At the start of frame `frame`, before its slot is reused. */
void gd_timings_collect(struct gd_context *ctx, uint32_t frame)
{
	if (ctx->timings)
		gd_timings_read(ctx->timings, frame % GD_RING);
}

static int gd_u64_compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double gd_median_ms(uint64_t *samples, uint32_t n)
{
	qsort(samples, n, sizeof(samples[0]), gd_u64_compare);
	uint64_t twice = n % 2 ? 2 * samples[n / 2] : samples[n / 2 - 1] + samples[n / 2];
	return (double)twice / 2e6;
}

void gd_timings_finish(struct gd_context *ctx)
{
	struct gd_timings *t = ctx->timings;
	if (!t)
		return;
	for (uint32_t i = 0; i < GD_RING; i++)
		gd_timings_read(t, (ctx->opt.frames + i) % GD_RING);
	if (t->frames) {
		uint32_t n = t->frames < GD_TIMING_SAMPLES ? t->frames : GD_TIMING_SAMPLES;
		for (int p = 0; p < GD_PASS_COUNT; p++)
			printf("timing pass %d %s gpu_ms=%.3f median_ms=%.3f\n", p, gd_scene_passes[p].name,
			       (double)t->sum_ns[p] / t->frames / 1e6,
			       gd_median_ms(t->samples[p], n));
	}
	printf("timing frames=%u disjoint=%u unavailable=%u\n", t->frames, t->disjoint,
	       t->unavailable);
	for (uint32_t i = 0; i < GD_RING; i++)
		gd_load_gl.glDeleteQueries(GD_PASS_COUNT * 2, t->queries[i]);
	free(t);
	ctx->timings = NULL;
}
