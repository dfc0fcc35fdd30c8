/* The per-draw path: a draw bumps counters of the open render pass through the thread's
 * current context (pp_egl_real_tls, initial-exec TLS: a load from the thread pointer), then calls
 * down. Only a draw with no render pass open takes the slow path (gles_pass.c), and only the
 * first draw after a binding change or a new frame the diagnostics' (gles_diag.c). Dispatches and
 * memory barriers are rarer and go through the pass machine each time. */
#include "gles_diag.h"
#include "gles_internal.h"

#define NONNEG(x) ((uint64_t)((x) > 0 ? (x) : 0))

/* name, parameters, arguments, what it adds to the workload w. The fast path needs no
 * saved register and ends in a jump to the driver; everything else (no pass open, the real
 * entry point not known yet, a binding the diagnostics have not seen used yet) is a tail call
 * to the slow twin, which counts and then lets the diagnostics mark what the draw uses. */
#define UNPAREN(...) __VA_ARGS__
/* Where RenderDoc's hooks may be in the process (pp_egl_rdoc_maybe), every draw takes the slow
 * twin, which passes the application's to RenderDoc first (gles_renderdoc.c); the hook's
 * return address goes with it, the twin being reached by a jump or by a call. RenderDoc's own
 * draws change nothing the diagnostics follow. */
#define DRAW_HOOK(name, params, args, count)                                                   \
	__attribute__((noinline, cold)) static void slow_##name(const void *ra, UNPAREN params)  \
	{                                                                                      \
		PP_GLES_ABOVE_FROM(name, ra, args);                                                 \
		struct pp_gles_ctx *c = pp_gles_acting();                                      \
		if (c) {                                                                       \
			struct pp_workload *w = c->draw_work;                                  \
			if (!w)                                                                \
				w = pp_gles_pass_for_draw(c);                                  \
			count;                                                                 \
			if (c->diag_dirty && !pp_egl_real_tls.rdoc_own)                             \
				pp_gles_diag_draw(c);                                          \
		}                                                                              \
		PP_REAL(name) args;                                                            \
	}                                                                                      \
	GL_APICALL void GL_APIENTRY name params                                                \
	{                                                                                      \
		if (__builtin_expect(__atomic_load_n(&pp_egl_rdoc_maybe, __ATOMIC_RELAXED), 0)) { \
			slow_##name(__builtin_return_address(0), UNPAREN args);                \
			return;                                                                \
		}                                                                              \
		struct pp_gles_ctx *c = pp_gles_acting();                                      \
		__typeof__(pp_egl_real.name) real = __atomic_load_n(&pp_egl_real.name, __ATOMIC_RELAXED); \
		struct pp_workload *w = c ? c->draw_work : NULL;                               \
		if (__builtin_expect(!real || (c && (!w || c->diag_dirty)), 0)) {              \
			slow_##name(__builtin_return_address(0), UNPAREN args);                \
			return;                                                                \
		}                                                                              \
		if (w)                                                                         \
			count;                                                                 \
		real args;                                                                     \
	}

#define DIRECT(n, inst) (w->draws++, w->instances += NONNEG(inst), w->vertices += NONNEG(n) * NONNEG(inst))
#define INDEXED(n, inst) (w->draws_indexed++, w->instances += NONNEG(inst), w->indices += NONNEG(n) * NONNEG(inst))

DRAW_HOOK(glDrawArrays, (GLenum mode, GLint first, GLsizei count), (mode, first, count), (w->draws++, w->instances++,
	  w->vertices += NONNEG(count)))
DRAW_HOOK(glDrawElements, (GLenum mode, GLsizei count, GLenum type, const void *indices), (mode, count, type, indices),
	  (w->draws_indexed++, w->instances++, w->indices += NONNEG(count)))
DRAW_HOOK(glDrawArraysInstanced, (GLenum mode, GLint first, GLsizei count, GLsizei instancecount),
	  (mode, first, count, instancecount), DIRECT(count, instancecount))
DRAW_HOOK(glDrawArraysInstancedEXT, (GLenum mode, GLint start, GLsizei count, GLsizei primcount),
	  (mode, start, count, primcount), DIRECT(count, primcount))
DRAW_HOOK(glDrawElementsInstanced, (GLenum mode, GLsizei count, GLenum type, const void *indices, GLsizei instancecount),
	  (mode, count, type, indices, instancecount), INDEXED(count, instancecount))
DRAW_HOOK(glDrawElementsInstancedEXT, (GLenum mode, GLsizei count, GLenum type, const void *indices, GLsizei primcount),
	  (mode, count, type, indices, primcount), INDEXED(count, primcount))
DRAW_HOOK(glDrawRangeElements, (GLenum mode, GLuint start, GLuint end, GLsizei count, GLenum type, const void *indices),
	  (mode, start, end, count, type, indices), INDEXED(count, 1))
DRAW_HOOK(glDrawElementsBaseVertex, (GLenum mode, GLsizei count, GLenum type, const void *indices, GLint basevertex),
	  (mode, count, type, indices, basevertex), INDEXED(count, 1))
DRAW_HOOK(glDrawElementsBaseVertexOES, (GLenum mode, GLsizei count, GLenum type, const void *indices, GLint basevertex),
	  (mode, count, type, indices, basevertex), INDEXED(count, 1))
DRAW_HOOK(glDrawElementsBaseVertexEXT, (GLenum mode, GLsizei count, GLenum type, const void *indices, GLint basevertex),
	  (mode, count, type, indices, basevertex), INDEXED(count, 1))
DRAW_HOOK(glDrawRangeElementsBaseVertex,
	  (GLenum mode, GLuint start, GLuint end, GLsizei count, GLenum type, const void *indices, GLint basevertex),
	  (mode, start, end, count, type, indices, basevertex), INDEXED(count, 1))
DRAW_HOOK(glDrawElementsInstancedBaseVertex,
	  (GLenum mode, GLsizei count, GLenum type, const void *indices, GLsizei instancecount, GLint basevertex),
	  (mode, count, type, indices, instancecount, basevertex), INDEXED(count, instancecount))
/* Indirect draws: calls; what they draw is in a GPU buffer. */
DRAW_HOOK(glDrawArraysIndirect, (GLenum mode, const void *indirect), (mode, indirect), w->draws_indirect++)
DRAW_HOOK(glDrawElementsIndirect, (GLenum mode, GLenum type, const void *indirect), (mode, type, indirect),
	  w->draws_indirect++)

GL_APICALL void GL_APIENTRY glDispatchCompute(GLuint x, GLuint y, GLuint z)
{
	PP_GLES_ABOVE(glDispatchCompute, (x, y, z));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c) {
		struct pp_workload *w = pp_gles_pass_for_dispatch(c);
		if (c->diag_dirty && !pp_egl_real_tls.rdoc_own)
			pp_gles_diag_draw(c);
		w->dispatches++;
		w->workgroups += (uint64_t)x * y * z;
	}
	PP_REAL(glDispatchCompute)(x, y, z);
}

GL_APICALL void GL_APIENTRY glDispatchComputeIndirect(GLintptr indirect)
{
	PP_GLES_ABOVE(glDispatchComputeIndirect, (indirect));
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c) {
		pp_gles_pass_for_dispatch(c)->dispatches_indirect++;
		if (c->diag_dirty)
			pp_gles_diag_draw(c);
	}
	PP_REAL(glDispatchComputeIndirect)(indirect);
}

PP_GLES_ACTING_HOOK(glMemoryBarrier, (GLbitfield barriers), (barriers), c->cur->barriers++)
PP_GLES_ACTING_HOOK(glMemoryBarrierByRegion, (GLbitfield barriers), (barriers), c->cur->barriers++)
