/* GL_EXT_disjoint_timer_query backend (gpu_gl_timer.h). */
#include <stdlib.h>
#include <string.h>

#include "gpu_gl_timer.h"
#include "pp_clock.h"

#ifndef GL_TIMESTAMP_EXT
#define GL_TIMESTAMP_EXT 0x8E28
#endif
#ifndef GL_QUERY_RESULT_EXT
#define GL_QUERY_RESULT_EXT 0x8866
#endif
#ifndef GL_QUERY_RESULT_AVAILABLE_EXT
#define GL_QUERY_RESULT_AVAILABLE_EXT 0x8867
#endif
#ifndef GL_GPU_DISJOINT_EXT
#define GL_GPU_DISJOINT_EXT 0x8FBB
#endif

struct pp_gl_timer {
	struct pp_gl_timer_funcs gl;
	uint32_t max_chunks, nchunks;
	GLuint *names;          /* nchunks * PP_GL_CHUNK_SLOTS query objects */
	uint32_t *epoch;        /* per slot: disjoint epoch it was written in */
	uint64_t *raw;          /* per slot: the result, once read (a written query's result never changes) */
	uint8_t *have_raw;      /* per slot: raw holds the result of the latest write */
	uint8_t *chunk_used;    /* per chunk */
	uint32_t disjoint_epoch;/* bumped at every disjoint event */
	uint64_t disjoints;
	int64_t offset_ns;      /* host ns = GPU ns + offset */
	bool exhausted;
};

struct pp_gl_timer *pp_gpu_gl_timer_create(const struct pp_gl_timer_funcs *fns, uint32_t max_chunks)
{
	if (!fns->GenQueriesEXT || !fns->DeleteQueriesEXT || !fns->QueryCounterEXT || !fns->GetQueryObjectuivEXT ||
	    !fns->GetQueryObjectui64vEXT || !fns->GetInteger64vEXT || !fns->GetIntegerv || !max_chunks)
		return NULL;
	struct pp_gl_timer *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->gl = *fns;
	t->max_chunks = max_chunks;
	t->names = calloc((size_t)max_chunks * PP_GL_CHUNK_SLOTS, sizeof(*t->names));
	t->epoch = calloc((size_t)max_chunks * PP_GL_CHUNK_SLOTS, sizeof(*t->epoch));
	t->raw = calloc((size_t)max_chunks * PP_GL_CHUNK_SLOTS, sizeof(*t->raw));
	t->have_raw = calloc((size_t)max_chunks * PP_GL_CHUNK_SLOTS, 1);
	t->chunk_used = calloc(max_chunks, 1);
	if (!t->names || !t->epoch || !t->raw || !t->have_raw || !t->chunk_used) {
		pp_gpu_gl_timer_destroy(t, false);
		return NULL;
	}
	/* Clears a disjoint state left from before we looked. */
	GLint d = 0;
	t->gl.GetIntegerv(GL_GPU_DISJOINT_EXT, &d);
	pp_gpu_gl_timer_calibrate(t);
	return t;
}

void pp_gpu_gl_timer_destroy(struct pp_gl_timer *t, bool current)
{
	if (!t)
		return;
	if (current && t->nchunks)
		t->gl.DeleteQueriesEXT((GLsizei)(t->nchunks * PP_GL_CHUNK_SLOTS), t->names);
	free(t->names);
	free(t->epoch);
	free(t->raw);
	free(t->have_raw);
	free(t->chunk_used);
	free(t);
}

uint32_t pp_gpu_gl_timer_chunk_alloc(struct pp_gl_timer *t)
{
	for (uint32_t c = 0; c < t->nchunks; c++)
		if (!t->chunk_used[c]) {
			t->chunk_used[c] = 1;
			return c;
		}
	if (t->nchunks == t->max_chunks) {
		t->exhausted = true;
		return PP_GL_NO_SLOT;
	}
	uint32_t c = t->nchunks++;
	t->gl.GenQueriesEXT((GLsizei)PP_GL_CHUNK_SLOTS, &t->names[c * PP_GL_CHUNK_SLOTS]);
	t->chunk_used[c] = 1;
	return c;
}

void pp_gpu_gl_timer_chunk_free(struct pp_gl_timer *t, uint32_t chunk)
{
	if (chunk < t->nchunks)
		t->chunk_used[chunk] = 0;
}

const char *pp_gpu_gl_timer_no_slot_reason(const struct pp_gl_timer *t)
{
	return t && t->exhausted ? "GPU timestamp queries of this context all in use (results not read yet)"
				 : "no GPU timestamps for this pass";
}

void pp_gpu_gl_timer_write(struct pp_gl_timer *t, uint32_t slot)
{
	t->epoch[slot] = t->disjoint_epoch;
	t->have_raw[slot] = 0;
	t->gl.QueryCounterEXT(t->names[slot], GL_TIMESTAMP_EXT);
}

void pp_gpu_gl_timer_read(struct pp_gl_timer *t, const uint32_t *slots, uint32_t n, uint64_t *ns, uint8_t *avail)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = slots[i];
		GLuint ready = 0;
		avail[i] = 0;
		ns[i] = 0;
		if (s >= t->nchunks * PP_GL_CHUNK_SLOTS)
			continue;
		/* The model asks again for every slot of a submission while one of them is not
		 * there yet: those already read are not asked of GL twice. */
		if (!t->have_raw[s]) {
			t->gl.GetQueryObjectuivEXT(t->names[s], GL_QUERY_RESULT_AVAILABLE_EXT, &ready);
			if (!ready)
				continue;
			GLuint64 r = 0;
			t->gl.GetQueryObjectui64vEXT(t->names[s], GL_QUERY_RESULT_EXT, &r);
			t->raw[s] = r;
			t->have_raw[s] = 1;
		}
		uint64_t v = t->raw[s];
		if (t->epoch[s] != t->disjoint_epoch) {
			avail[i] = 2;
			continue;
		}
		avail[i] = 1;
		ns[i] = (uint64_t)((int64_t)v + t->offset_ns);
	}
}

bool pp_gpu_gl_timer_check_disjoint(struct pp_gl_timer *t)
{
	GLint d = 0;
	t->gl.GetIntegerv(GL_GPU_DISJOINT_EXT, &d);
	if (!d)
		return false;
	t->disjoint_epoch++;
	t->disjoints++;
	pp_gpu_gl_timer_calibrate(t);
	return true;
}

void pp_gpu_gl_timer_calibrate(struct pp_gl_timer *t)
{
	/* The narrowest of a few tries: the host instant closest to the GPU read. */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		GLint64 gpu = 0;
		uint64_t a = pp_clock_now_ns();
		t->gl.GetInteger64vEXT(GL_TIMESTAMP_EXT, &gpu);
		uint64_t b = pp_clock_now_ns();
		if (b - a < best && gpu > 0) {
			best = b - a;
			t->offset_ns = (int64_t)(a + (b - a) / 2) - (int64_t)gpu;
		}
	}
}

const char *pp_gpu_gl_timer_time_domain(const struct pp_gl_timer *t)
{
	return t ? "calibrated (GL_TIMESTAMP_EXT read with glGetInteger64vEXT between two CLOCK_MONOTONIC reads)"
		 : "none";
}

uint64_t pp_gpu_gl_timer_disjoint_count(const struct pp_gl_timer *t)
{
	return t ? t->disjoints : 0;
}
