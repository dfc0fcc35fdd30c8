/* RenderDoc's OpenGL ES hooks and the shim (docs/gles.md, "RenderDoc"; layer/egl/egl_rdoc.h):
 * the application's calls passed on to RenderDoc first, which of RenderDoc's calls down are the
 * application's and which its own work, and RenderDoc's captures at passprobe's frame
 * boundaries (renderdoc_frames). */
#include <string.h>

#include "gles_internal.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_renderdoc_frames.h"

/* Calls that do work in a pass. A pass is the work of whoever's call opened it, so such a call
 * of the other ends the open pass: RenderDoc draws its overlay after the application's last
 * draw of the frame, often on the same framebuffer, with no binding change between. */
static bool does_work(unsigned id)
{
	switch (id) {
	case PP_EGL_ID_glDrawArrays:
	case PP_EGL_ID_glDrawElements:
	case PP_EGL_ID_glDrawArraysInstanced:
	case PP_EGL_ID_glDrawElementsInstanced:
	case PP_EGL_ID_glDrawRangeElements:
	case PP_EGL_ID_glDrawArraysIndirect:
	case PP_EGL_ID_glDrawElementsIndirect:
	case PP_EGL_ID_glDrawElementsBaseVertex:
	case PP_EGL_ID_glDrawRangeElementsBaseVertex:
	case PP_EGL_ID_glDrawElementsInstancedBaseVertex:
	case PP_EGL_ID_glDrawArraysInstancedEXT:
	case PP_EGL_ID_glDrawElementsInstancedEXT:
	case PP_EGL_ID_glDrawElementsBaseVertexOES:
	case PP_EGL_ID_glDrawElementsBaseVertexEXT:
	case PP_EGL_ID_glDispatchCompute:
	case PP_EGL_ID_glDispatchComputeIndirect:
	case PP_EGL_ID_glClear:
	case PP_EGL_ID_glClearBufferfv:
	case PP_EGL_ID_glClearBufferiv:
	case PP_EGL_ID_glClearBufferuiv:
	case PP_EGL_ID_glClearBufferfi:
		return true;
	default:
		return false;
	}
}

/* Calls that may end a frame: once RenderDoc has returned one, passprobe starts or ends its
 * capture (renderdoc_frames) before the application makes the next frame's first call. */
static bool may_end_frame(unsigned id)
{
	switch (id) {
	case PP_EGL_ID_eglSwapBuffers:
	case PP_EGL_ID_eglSwapBuffersWithDamageEXT:
	case PP_EGL_ID_eglSwapBuffersWithDamageKHR:
	case PP_EGL_ID_glXSwapBuffers:
	case PP_EGL_ID_glFinish:
	case PP_EGL_ID_glFlush:
	case PP_EGL_ID_glFenceSync:
	case PP_EGL_ID_glReadPixels:
		return true;
	default:
		return false;
	}
}

/* Calls after which the thread's context may be gone: a capture passprobe started on it ends
 * before RenderDoc sees them. */
static bool context_may_leave(unsigned id)
{
	switch (id) {
	case PP_EGL_ID_eglMakeCurrent:
	case PP_EGL_ID_eglReleaseThread:
	case PP_EGL_ID_eglDestroyContext:
	case PP_EGL_ID_eglTerminate:
	case PP_EGL_ID_glXMakeCurrent:
	case PP_EGL_ID_glXMakeContextCurrent:
	case PP_EGL_ID_glXDestroyContext:
		return true;
	default:
		return false;
	}
}

/* At a call of the application's outside RenderDoc (its hook not on the stack, none of its
 * locks held): RenderDoc's GL capture of the thread's context starts or ends here when
 * renderdoc_frames asks (pp_renderdoc_frames_between; its device pointer for OpenGL is the
 * context). Where RenderDoc comes first nothing of the application's is seen outside
 * RenderDoc, and no capture is started. */
static void between(struct pp_gles_ctx *c)
{
	if (!c || !c->attr || !pp_renderdoc_frames_driving() || pp_egl_rdoc_mode() != PP_EGL_RDOC_ABOVE)
		return;
	/* Not under the re-entry guard: what RenderDoc does meanwhile (reading back every
	 * resource's initial contents) reaches the hooks, and is marked as its own. */
	pp_renderdoc_frames_between(c->attr, c->sink_id, c->handle);
	/* A recording that holds nothing of the application's yet holds the next frame's work,
	 * which RenderDoc captures or not from here. */
	bool app = false;
	for (uint32_t i = 0; c->rec && i < c->rec->npasses && !app; i++)
		app = !c->rec->passes[i].recorded_by;
	if (c->rec && !app)
		c->rec_rdoc = pp_renderdoc_capturing();
}

/* A call RenderDoc made: the application's passed on (RenderDoc's hook of the same name, or
 * of its EXT/OES/KHR/ARB alias, while the application's call of it is marked on this thread),
 * or RenderDoc's own work. */
static void classify(unsigned id, enum pp_egl_rdoc_mode mode)
{
	bool own;
	const void *site = NULL;
	if (pp_renderdoc_calling()) {
		own = true; /* inside passprobe's own call of RenderDoc's API */
	} else if (mode != PP_EGL_RDOC_ABOVE) {
		own = false; /* RenderDoc first: nothing tells its own work apart */
	} else {
		own = pp_egl_real_tls.rdoc_call != (uint16_t)(pp_egl_rdoc_family(id) + 1);
		if (!own) {
			pp_egl_real_tls.rdoc_call = 0; /* passed down: later calls inside it are RenderDoc's */
			site = pp_egl_real_tls.rdoc_ra;
		}
	}
	pp_egl_real_tls.rdoc_own = own;
	pp_egl_real_tls.site = site;
	struct pp_gles_ctx *c = does_work(id) ? pp_gles_current() : NULL;
	if (c && c->rec) {
		if (c->pm.open != PP_GLES_NONE && c->open_own != own)
			pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		/* RenderDoc's work goes where RenderDoc bound (pp_gles_moves_passes). */
		if (own && c->own_bound) {
			c->own_bound = false;
			pp_gles_pass_event(c, PP_GLES_EV_BIND, c->own_fb, 0);
		}
	}
}

bool pp_gles_renderdoc_above_enter(struct pp_gles_above *a, unsigned id, const void *ra)
{
	/* Calls from inside the shim, or the driver's while the shim calls it: straight through,
	 * with what the hook that called down knows kept. */
	if (pp_egl_real_tls.guard)
		return false;
	enum pp_egl_rdoc_mode mode = pp_egl_rdoc_mode();
	if (mode == PP_EGL_RDOC_NONE)
		return false;
	/* From RenderDoc: called from its library, or jumped to at the end of its hook of the
	 * call the shim passed on (a tail call returns to the shim's call of RenderDoc). Where
	 * RenderDoc comes first every call has come through it: passing one on again would call
	 * RenderDoc's hook twice. */
	if (mode == PP_EGL_RDOC_FIRST || pp_egl_rdoc_in(ra) || pp_egl_rdoc_in_shim(ra)) {
		classify(id, mode);
		return false;
	}
	void *entry = pp_egl_rdoc_entry(id);
	if (!entry) {
		pp_egl_real_tls.rdoc_own = false;
		pp_egl_real_tls.site = NULL;
		return false;
	}
	a->entry = entry;
	a->id = id;
	a->prev_call = pp_egl_real_tls.rdoc_call;
	a->prev_ra = pp_egl_real_tls.rdoc_ra;
	pp_egl_real_tls.rdoc_call = (uint16_t)(pp_egl_rdoc_family(id) + 1);
	pp_egl_real_tls.rdoc_ra = ra;
	if (context_may_leave(id))
		between(pp_gles_current());
	return true;
}

void pp_gles_renderdoc_above_leave(const struct pp_gles_above *a)
{
	pp_egl_real_tls.rdoc_call = a->prev_call;
	pp_egl_real_tls.rdoc_ra = a->prev_ra;
	if (may_end_frame(a->id))
		between(pp_gles_current());
}

struct pp_gles_ctx *pp_gles_renderdoc_acting_app(void)
{
	struct pp_gles_ctx *c = pp_gles_acting();
	if (c && pp_egl_real_tls.rdoc_own) {
		/* Inside the application's pass (RenderDoc waiting for what it reads back while it
		 * captures) the pass goes on. */
		if (pp_gles_moves_passes(c))
			pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		return NULL;
	}
	return c;
}

void pp_gles_renderdoc_poll(struct pp_gles_ctx *c, bool final)
{
	if (c->attr && pp_renderdoc_present())
		pp_renderdoc_frames_poll(c->attr, c->sink_id, final);
}

const char *pp_gles_renderdoc_name(void)
{
	const char *lib = pp_renderdoc_library();
	const char *slash = strrchr(lib, '/');
	return slash ? slash + 1 : lib[0] ? lib : "librenderdoc.so";
}

void pp_gles_renderdoc_setup(void)
{
	switch (pp_egl_rdoc_mode()) {
	case PP_EGL_RDOC_ABOVE:
		pp_log(PP_LOG_INFO, "RenderDoc's OpenGL ES hooks are in the process, after the shim: the "
		       "application's calls pass through RenderDoc first; its own work (its overlay, its "
		       "capture copies) is marked recorded_by %s", pp_gles_renderdoc_name());
		break;
	case PP_EGL_RDOC_FIRST:
		pp_log(PP_LOG_WARN, "RenderDoc is preloaded before libpassprobe_gles.so: the application's "
		       "OpenGL ES calls reach RenderDoc without passing the shim, so RenderDoc's own work (its "
		       "overlay, its capture copies) is measured as the application's passes and "
		       "renderdoc_frames takes no capture; preload the shim first "
		       "(LD_PRELOAD=libpassprobe_gles.so:librenderdoc.so, as passprobe run --renderdoc does; "
		       "docs/gles.md)");
		break;
	default:
		break;
	}
}
