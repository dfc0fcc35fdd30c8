/* GLX hooks: OpenGL ES contexts made through GLX (GLX_EXT_create_context_es2_profile). SDL 2
 * makes its OpenGL ES contexts this way on X11 where the driver offers the extension (Mesa and
 * NVIDIA do), loading libGL with dlopen and finding glXCreateContextAttribsARB with
 * glXGetProcAddressARB: a shim that watched EGL alone would see none of its frames.
 *
 * Only contexts created with the ES profile are measured; a desktop OpenGL context's first
 * swap is said once, and its calls pass straight through (passprobe measures OpenGL ES). The
 * same records, passes and frames as EGL contexts (gles_context.c, gles_frame.c); what
 * differs:
 *   - the default framebuffer is described from the GLXFBConfig (glXGetFBConfigAttrib);
 *   - the draw surface's size comes from glXQueryDrawable, a round trip to the X server (there
 *     is no local query as EGL has): asked at each make-current and each swap, as RenderDoc's
 *     GLX hooks do, so a resized window is seen at its next frame;
 *   - GLX has no EGL_SWAP_BEHAVIOR: a swapped back buffer is taken as undefined. */
#include "gles_internal.h"
#include "pp_log.h"

static bool attribs_es_profile(const int *attribs)
{
	for (const int *a = attribs; a && a[0]; a += 2)
		if (a[0] == GLX_CONTEXT_PROFILE_MASK_ARB)
			return (a[1] & GLX_CONTEXT_ES_PROFILE_BIT_EXT) != 0;
	return false;
}

GLXContext glXCreateContextAttribsARB(struct _XDisplay *dpy, GLXFBConfig config, GLXContext share_context,
				      int direct, const int *attrib_list)
{
	PP_GLES_ABOVE_RET(glXCreateContextAttribsARB, (dpy, config, share_context, direct, attrib_list));
	pp_egl_guard_enter();
	GLXContext ctx = PP_REAL(glXCreateContextAttribsARB)(dpy, config, share_context, direct, attrib_list);
	pp_egl_guard_leave();
	if (ctx && !pp_egl_real_tls.guard && !pp_egl_real_tls.rdoc_own && attribs_es_profile(attrib_list))
		pp_gles_context_created(dpy, ctx, config, share_context, true);
	return ctx;
}

void glXDestroyContext(struct _XDisplay *dpy, GLXContext ctx)
{
	PP_GLES_ABOVE(glXDestroyContext, (dpy, ctx));
	if (!pp_egl_real_tls.guard)
		pp_gles_context_destroyed(ctx);
	pp_egl_guard_enter();
	PP_REAL(glXDestroyContext)(dpy, ctx);
	pp_egl_guard_leave();
}

/* The size of a GLX drawable; false (sizes untouched) when GLX cannot say. */
static bool drawable_size(struct _XDisplay *dpy, GLXDrawable d, int32_t *w, int32_t *h)
{
	PFNPPGLXQUERYDRAWABLEPROC query = PP_REAL(glXQueryDrawable);
	unsigned width = 0, height = 0;
	if (!query || !d)
		return false;
	query(dpy, d, GLX_WIDTH, &width);
	query(dpy, d, GLX_HEIGHT, &height);
	if (!width || !height)
		return false;
	*w = (int32_t)width;
	*h = (int32_t)height;
	return true;
}

/* After a make-current the drawable is known to GLX: its size is asked then. */
static int make_current_end(const struct pp_gles_switch *s, int ok, struct _XDisplay *dpy, GLXDrawable draw)
{
	int32_t w = 0, h = 0;
	if (ok && s->c) {
		pp_egl_guard_enter();
		drawable_size(dpy, draw, &w, &h);
		pp_egl_guard_leave();
	}
	pp_gles_context_switch_end(s, ok, (void *)(uintptr_t)draw, w, h, NULL);
	return ok;
}

int glXMakeCurrent(struct _XDisplay *dpy, GLXDrawable drawable, GLXContext ctx)
{
	PP_GLES_ABOVE_RET(glXMakeCurrent, (dpy, drawable, ctx));
	if (pp_egl_real_tls.guard)
		return PP_REAL(glXMakeCurrent)(dpy, drawable, ctx);
	struct pp_gles_switch s = pp_gles_context_switch_begin(ctx, (void *)(uintptr_t)drawable);
	pp_egl_guard_enter();
	int ok = PP_REAL(glXMakeCurrent)(dpy, drawable, ctx);
	pp_egl_guard_leave();
	return make_current_end(&s, ok, dpy, drawable);
}

int glXMakeContextCurrent(struct _XDisplay *dpy, GLXDrawable draw, GLXDrawable read, GLXContext ctx)
{
	PP_GLES_ABOVE_RET(glXMakeContextCurrent, (dpy, draw, read, ctx));
	if (pp_egl_real_tls.guard)
		return PP_REAL(glXMakeContextCurrent)(dpy, draw, read, ctx);
	struct pp_gles_switch s = pp_gles_context_switch_begin(ctx, (void *)(uintptr_t)draw);
	pp_egl_guard_enter();
	int ok = PP_REAL(glXMakeContextCurrent)(dpy, draw, read, ctx);
	pp_egl_guard_leave();
	return make_current_end(&s, ok, dpy, draw);
}

void glXSwapBuffers(struct _XDisplay *dpy, GLXDrawable drawable)
{
	PP_GLES_ABOVE(glXSwapBuffers, (dpy, drawable));
	struct pp_gles_ctx *c = pp_gles_acting();
	struct pp_gles_call_cost k;
	/* Said at a swap, not at the make-current: SDL makes a desktop context current to probe
	 * GLX's extensions before it creates its OpenGL ES one, and that probe has no frames. */
	if (!c && !pp_egl_real_tls.guard)
		pp_log_once(PP_LOG_WARN, "glXSwapBuffers of a desktop OpenGL context: passprobe measures OpenGL ES "
			    "contexts (made with EGL, or with GLX's ES profile), so its frames are not measured "
			    "(docs/gles.md)");
	if (c) {
		pp_egl_guard_enter();
		drawable_size(dpy, drawable, &c->surface_w, &c->surface_h);
		pp_egl_guard_leave();
		c->surface_preserved = false;
		pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		pp_gles_frame_call_cost_begin(&k);
	}
	pp_egl_guard_enter();
	PP_REAL(glXSwapBuffers)(dpy, drawable);
	pp_egl_guard_leave();
	if (c)
		pp_gles_frame_swap_end(c, "glXSwapBuffers", &k);
}
