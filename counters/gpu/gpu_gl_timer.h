#pragma once
/* OpenGL ES GPU timing backend (GL_EXT_disjoint_timer_query): query objects of one context,
 * carved into chunks that the context's recordings own; glQueryCounterEXT timestamps written at
 * boundaries, read only when GL_QUERY_RESULT_AVAILABLE says so, mapped onto CLOCK_MONOTONIC.
 * Knows nothing of passes or frames.
 *
 * Every call here must be made on a thread where the timer's context is current (query
 * objects belong to one context). Every GL call it makes is one that cannot raise a GL error
 * with the arguments it passes (query names of its own, made by glGenQueriesEXT, written by
 * glQueryCounterEXT before they are ever read, never active), so the application's glGetError
 * sequence stays as it was (docs/gles.md). */
#include <stdbool.h>
#include <stdint.h>

#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#define PP_GL_CHUNK_SLOTS 32u
#define PP_GL_NO_SLOT UINT32_MAX

struct pp_gl_timer_funcs {
	PFNGLGENQUERIESEXTPROC GenQueriesEXT;
	PFNGLDELETEQUERIESEXTPROC DeleteQueriesEXT;
	PFNGLQUERYCOUNTEREXTPROC QueryCounterEXT;
	PFNGLGETQUERYOBJECTUIVEXTPROC GetQueryObjectuivEXT;
	PFNGLGETQUERYOBJECTUI64VEXTPROC GetQueryObjectui64vEXT;
	PFNGLGETINTEGER64VEXTPROC GetInteger64vEXT;
	PFNGLGETINTEGERVPROC GetIntegerv;
};

struct pp_gl_timer;

/* NULL when a function is missing or out of memory. max_chunks bounds the query objects
 * (max_chunks x PP_GL_CHUNK_SLOTS). */
struct pp_gl_timer *pp_gpu_gl_timer_create(const struct pp_gl_timer_funcs *fns, uint32_t max_chunks);
/* current: the timer's context is current on this thread, so its queries can be deleted
 * (otherwise they go with the context). */
void pp_gpu_gl_timer_destroy(struct pp_gl_timer *t, bool current);

uint32_t pp_gpu_gl_timer_chunk_alloc(struct pp_gl_timer *t);
void pp_gpu_gl_timer_chunk_free(struct pp_gl_timer *t, uint32_t chunk);
const char *pp_gpu_gl_timer_no_slot_reason(const struct pp_gl_timer *t);

/* glQueryCounterEXT(GL_TIMESTAMP_EXT) into slot. */
void pp_gpu_gl_timer_write(struct pp_gl_timer *t, uint32_t slot);

/* Reads slots into host ns without waiting: avail[i] 0 = not yet, 1 = ns[i] valid,
 * 2 = arrived but not usable (a GPU disjoint event since it was written). */
void pp_gpu_gl_timer_read(struct pp_gl_timer *t, const uint32_t *slots, uint32_t n, uint64_t *ns, uint8_t *avail);

/* Reads GL_GPU_DISJOINT_EXT (which also clears it): when set, every timestamp not yet read
 * is marked unusable and the clock mapping taken again. Returns whether it was set. */
bool pp_gpu_gl_timer_check_disjoint(struct pp_gl_timer *t);

/* Takes the GPU-to-host mapping again (GL_TIMESTAMP_EXT with glGetInteger64vEXT between
 * two CLOCK_MONOTONIC reads). */
void pp_gpu_gl_timer_calibrate(struct pp_gl_timer *t);
const char *pp_gpu_gl_timer_time_domain(const struct pp_gl_timer *t);
/* Disjoint events seen so far. */
uint64_t pp_gpu_gl_timer_disjoint_count(const struct pp_gl_timer *t);
