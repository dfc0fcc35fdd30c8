/* Submissions and frames: glFlush, glFinish and glFenceSync hand the context's recording to
 * the model (a "submit"; glFinish and glFenceSync signal completion, the headless frame end of
 * frame_delimiter=auto); eglSwapBuffers and its WithDamage variants (and glXSwapBuffers,
 * gles_glx.c) submit and present. The open pass ends before the call goes down (its end
 * timestamp must be in what is flushed); the call's CPU cost is measured around it. glFinish
 * in the frame loop is a diagnostic (gles_diag.c). */
#include "attr_cpu.h"
#include "gles_diag.h"
#include "gles_internal.h"

void pp_gles_frame_call_cost_begin(struct pp_gles_call_cost *k)
{
	pp_cpu_counters_snapshot_take(&k->a);
}

static void cost_end(struct pp_gles_call_cost *k, struct pp_cpu_cost *out)
{
	struct pp_cpu_snapshot b;
	pp_cpu_counters_snapshot_take(&b);
	*out = (struct pp_cpu_cost){ 0 };
	pp_attr_cpu_cost_add_span(out, &k->a, &b);
}

GL_APICALL void GL_APIENTRY glFlush(void)
{
	PP_GLES_ABOVE(glFlush, ());
	struct pp_gles_ctx *c = pp_gles_renderdoc_acting_app();
	if (!c) {
		PP_REAL(glFlush)();
		return;
	}
	pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
	struct pp_gles_call_cost k;
	struct pp_cpu_cost cpu;
	pp_gles_frame_call_cost_begin(&k);
	pp_egl_guard_enter();
	PP_REAL(glFlush)();
	pp_egl_guard_leave();
	cost_end(&k, &cpu);
	pp_gles_submit(c, "glFlush", PP_SUBMIT_ASYNC, &cpu);
}

GL_APICALL void GL_APIENTRY glFinish(void)
{
	PP_GLES_ABOVE(glFinish, ());
	struct pp_gles_ctx *c = pp_gles_renderdoc_acting_app();
	if (!c) {
		PP_REAL(glFinish)();
		return;
	}
	struct pp_gles_call_mark m = pp_gles_diag_call(c, PP_GLES_CALL_FINISH, "glFinish");
	pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
	struct pp_gles_call_cost k;
	struct pp_cpu_cost cpu;
	pp_gles_frame_call_cost_begin(&k);
	pp_egl_guard_enter();
	PP_REAL(glFinish)();
	pp_egl_guard_leave();
	cost_end(&k, &cpu);
	pp_gles_submit(c, "glFinish", PP_SUBMIT_DRAINED, &cpu);
	pp_gles_diag_finish(c, &cpu, pp_gles_site(__builtin_return_address(0)), &m);
}

GL_APICALL GLsync GL_APIENTRY glFenceSync(GLenum condition, GLbitfield flags)
{
	PP_GLES_ABOVE_RET(glFenceSync, (condition, flags));
	struct pp_gles_ctx *c = pp_gles_renderdoc_acting_app();
	if (!c)
		return PP_REAL(glFenceSync)(condition, flags);
	pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
	pp_egl_guard_enter();
	GLsync s = PP_REAL(glFenceSync)(condition, flags);
	pp_egl_guard_leave();
	c->fence_sync = (uint64_t)(uintptr_t)s;
	pp_gles_submit(c, "glFenceSync", PP_SUBMIT_FENCE, NULL);
	return s;
}

/* The context current on this thread draws into `surface`: its frame ends here. */
static struct pp_gles_ctx *swap_begin(EGLDisplay dpy, EGLSurface surface)
{
	struct pp_gles_ctx *c = pp_gles_acting();
	if (!c)
		return NULL;
	EGLint w = 0, h = 0, behavior = EGL_BUFFER_DESTROYED;
	pp_egl_guard_enter();
	/* Before the call: the application's eglGetError is the swap's. */
	if (PP_REAL(eglQuerySurface)(dpy, surface, EGL_WIDTH, &w) && PP_REAL(eglQuerySurface)(dpy, surface, EGL_HEIGHT, &h)) {
		c->surface_w = w;
		c->surface_h = h;
	}
	if (c->diag && PP_REAL(eglQuerySurface)(dpy, surface, EGL_SWAP_BEHAVIOR, &behavior))
		c->surface_preserved = behavior == EGL_BUFFER_PRESERVED;
	/* EGL_LARGEST_PBUFFER is answered for a pbuffer only (other surfaces leave the value as
	 * it was, without an error): a swap of a pbuffer has no effect on its buffers. */
	EGLint largest = -1;
	if (c->diag && PP_REAL(eglQuerySurface)(dpy, surface, EGL_LARGEST_PBUFFER, &largest))
		c->surface_pbuffer = largest != -1;
	pp_egl_guard_leave();
	pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
	return c;
}

void pp_gles_frame_swap_end(struct pp_gles_ctx *c, const char *api, struct pp_gles_call_cost *k)
{
	struct pp_cpu_cost cpu;
	cost_end(k, &cpu);
	pp_gles_submit(c, api, PP_SUBMIT_ASYNC, &cpu);
	pp_gles_submit_present(c, &cpu);
}

/* The three swaps differ only in their parameters: one body, the call down passing them on. */
#define PP_GLES_SWAP_HOOK(name, params, args)                                                                  \
	EGLAPI EGLBoolean EGLAPIENTRY name params                                                              \
	{                                                                                                      \
		PP_GLES_ABOVE_RET(name, args);                                                                 \
		struct pp_gles_ctx *c = swap_begin(dpy, surface);                                              \
		struct pp_gles_call_cost k;                                                                    \
		if (c)                                                                                         \
			pp_gles_frame_call_cost_begin(&k);                                                     \
		pp_egl_guard_enter();                                                                          \
		EGLBoolean ok = PP_REAL(name) args;                                                            \
		pp_egl_guard_leave();                                                                          \
		if (c)                                                                                         \
			pp_gles_frame_swap_end(c, #name, &k);                                                  \
		return ok;                                                                                     \
	}

PP_GLES_SWAP_HOOK(eglSwapBuffers, (EGLDisplay dpy, EGLSurface surface), (dpy, surface))
PP_GLES_SWAP_HOOK(eglSwapBuffersWithDamageEXT, (EGLDisplay dpy, EGLSurface surface, const EGLint *rects, EGLint n_rects),
		  (dpy, surface, rects, n_rects))
PP_GLES_SWAP_HOOK(eglSwapBuffersWithDamageKHR, (EGLDisplay dpy, EGLSurface surface, const EGLint *rects, EGLint n_rects),
		  (dpy, surface, rects, n_rects))
