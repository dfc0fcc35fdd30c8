/* Context records: one per OpenGL ES context (struct pp_gles_ctx), made with EGL or with GLX
 * (gles_glx.c); the thread's current one, contexts moving between threads, destroyed
 * (deferred while current, as EGL and GLX defer it) and terminated with their EGL display.
 * The EGL hooks are here. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "gles_internal.h"
#include "pp_log.h"
#include "pp_thread.h"

/* Lock order: g_lock is a leaf; never held across a call down or into the model. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pp_gles_ctx *g_contexts;
/* Contexts created so far: a context's number in its device name. Not reused, so two
 * contexts never share a device of the report; the sinks bound the devices they list. */
static uint32_t g_ordinals;

static struct pp_gles_ctx *find_locked(void *handle)
{
	for (struct pp_gles_ctx *c = g_contexts; c; c = c->next)
		if (c->handle == handle)
			return c;
	return NULL;
}

static struct pp_gles_ctx *ctx_find(void *handle)
{
	if (!handle)
		return NULL;
	pthread_mutex_lock(&g_lock);
	struct pp_gles_ctx *c = find_locked(handle);
	pthread_mutex_unlock(&g_lock);
	return c;
}

static void unlink_locked(struct pp_gles_ctx *c)
{
	for (struct pp_gles_ctx **p = &g_contexts; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
}

/* Frees a context record that is current nowhere (or on this thread: current says which). */
static void ctx_free(struct pp_gles_ctx *c, bool current)
{
	pthread_mutex_lock(&g_lock);
	unlink_locked(c);
	pthread_mutex_unlock(&g_lock);
	pp_gles_submit_device_teardown(c, current);
	pp_gles_images_share_unref(c->share);
	free(c);
}

static bool client_is_gles(void)
{
	PFNEGLQUERYAPIPROC query = PP_REAL(eglQueryAPI);
	return !query || query() == EGL_OPENGL_ES_API;
}

/* A context the application created (EGL, or GLX with the ES profile): its record. */
void pp_gles_context_created(void *dpy, void *handle, void *config, void *share_handle, bool glx)
{
	struct pp_gles_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		pp_log_once(PP_LOG_ERROR, "out of memory recording an OpenGL ES context; it is not measured");
		return;
	}
	c->dpy = dpy;
	c->handle = handle;
	c->config = config;
	c->glx = glx;
	pthread_mutex_lock(&g_lock);
	struct pp_gles_ctx *shared = share_handle ? find_locked(share_handle) : NULL;
	if (shared && shared->share) {
		c->share = shared->share;
		pp_gles_images_share_ref(c->share);
	}
	c->ordinal = g_ordinals++;
	c->next = g_contexts;
	g_contexts = c;
	pthread_mutex_unlock(&g_lock);
	if (!c->share)
		c->share = pp_gles_images_share_create();
}

EGLAPI EGLContext EGLAPIENTRY eglCreateContext(EGLDisplay dpy, EGLConfig config, EGLContext share_context,
					       const EGLint *attrib_list)
{
	PP_GLES_ABOVE_RET(eglCreateContext, (dpy, config, share_context, attrib_list));
	if (pp_egl_real_tls.guard)
		return PP_REAL(eglCreateContext)(dpy, config, share_context, attrib_list);
	/* Asked before the call: the application's eglGetError is the create's. */
	bool gles = client_is_gles();
	pp_egl_guard_enter();
	EGLContext ctx = PP_REAL(eglCreateContext)(dpy, config, share_context, attrib_list);
	pp_egl_guard_leave();
	/* RenderDoc's own contexts (it makes some for itself when the application's first
	 * becomes current) are not the application's to measure. */
	if (ctx != EGL_NO_CONTEXT && gles && !pp_egl_real_tls.rdoc_own)
		pp_gles_context_created(dpy, ctx, config, share_context, false);
	return ctx;
}

/* The calling thread lets go of its current context: its open pass ends and its recording
 * goes to the model (the driver flushes a context made not current). */
static void release_current(struct pp_gles_ctx *old)
{
	if (!old || !old->set_up)
		return;
	pp_gles_pass_event(old, PP_GLES_EV_END, 0, 0);
	pp_gles_submit(old, old->glx ? "glXMakeCurrent" : "eglMakeCurrent", PP_SUBMIT_ASYNC, NULL);
}

static void after_release(struct pp_gles_ctx *old)
{
	if (!old)
		return;
	old->current_tid = 0;
	if (old->destroy_pending)
		ctx_free(old, false);
}

struct pp_gles_switch pp_gles_context_switch_begin(void *handle, void *draw)
{
	struct pp_gles_switch s = { .old = pp_gles_current(), .c = ctx_find(handle) };
	if (s.old && s.old != s.c && !pp_gles_init_exiting) {
		pp_egl_guard_enter();
		release_current(s.old);
		if (s.old->destroy_pending)
			pp_gles_submit_device_teardown(s.old, true);
		pp_egl_guard_leave();
	} else if (s.old && s.old == s.c && s.c->set_up && draw != s.c->draw_surface && !pp_gles_init_exiting) {
		/* The same context made current with another draw surface: the default framebuffer
		 * is another one from here on, so the open pass ends before the real call (its end
		 * timestamp in what the old surface's rendering is flushed with). */
		pp_egl_guard_enter();
		pp_gles_pass_event(s.c, PP_GLES_EV_END, 0, 0);
		pp_egl_guard_leave();
	}
	return s;
}

void pp_gles_context_switch_end(const struct pp_gles_switch *s, bool ok, void *draw, int32_t w, int32_t h,
			void *surface_config)
{
	if (!ok)
		return;
	struct pp_gles_ctx *c = s->c;
	if (s->old != c) {
		after_release(s->old);
		pp_egl_real_tls.ctx = NULL;
	}
	if (!c)
		return;
	c->surface_w = w;
	c->surface_h = h;
	c->draw_surface = draw;
	c->current_tid = pp_thread_id();
	bool redescribe = c->set_up && surface_config != c->surface_config;
	c->surface_config = surface_config;
	if (!c->set_up) {
		pp_gles_init_once();
		pp_egl_guard_enter();
		pp_gles_submit_device_setup(c);
		pp_egl_guard_leave();
	} else if (redescribe) {
		pp_egl_guard_enter();
		pp_gles_submit_default_fb_describe(c);
		pp_egl_guard_leave();
	}
	/* A draw surface is what a swapchain is on Vulkan: frame_delimiter=auto then ends frames
	 * at swaps from the first frame on, not at a glFenceSync before the first swap (a
	 * glFinish before it still ends one: a program that never swaps, attr_frame.h). */
	if (draw && c->attr)
		pp_attr_device_swapchain_created(c->attr);
	pp_egl_real_tls.ctx = c;
}

/* A context made without a config (EGL_KHR_no_config_context: Weston, and other compositors)
 * takes its default framebuffer's format from its draw surface: that surface's config, by the
 * EGL_CONFIG_ID it reports. NULL when EGL cannot say. */
static EGLConfig config_of_surface(EGLDisplay dpy, EGLSurface surface)
{
	PFNEGLCHOOSECONFIGPROC choose = PP_REAL(eglChooseConfig);
	EGLint id = 0, n = 0;
	EGLConfig config = (EGLConfig)0;
	if (!choose || !PP_REAL(eglQuerySurface)(dpy, surface, EGL_CONFIG_ID, &id))
		return (EGLConfig)0;
	const EGLint attribs[] = { EGL_CONFIG_ID, id, EGL_NONE };
	if (!choose(dpy, attribs, &config, 1, &n) || n < 1)
		return (EGLConfig)0;
	return config;
}

EGLAPI EGLBoolean EGLAPIENTRY eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext ctx)
{
	PP_GLES_ABOVE_RET(eglMakeCurrent, (dpy, draw, read, ctx));
	if (pp_egl_real_tls.guard)
		return PP_REAL(eglMakeCurrent)(dpy, draw, read, ctx);
	struct pp_gles_switch s = pp_gles_context_switch_begin(ctx, draw);
	EGLint w = 0, h = 0;
	EGLConfig surface_config = (EGLConfig)0;
	pp_egl_guard_enter();
	if (s.c && draw != EGL_NO_SURFACE) {
		/* Before the call, so the application's eglGetError is eglMakeCurrent's. */
		PP_REAL(eglQuerySurface)(dpy, draw, EGL_WIDTH, &w);
		PP_REAL(eglQuerySurface)(dpy, draw, EGL_HEIGHT, &h);
		if (s.c->config == (EGLConfig)0)
			surface_config = config_of_surface(dpy, draw);
	}
	EGLBoolean ok = PP_REAL(eglMakeCurrent)(dpy, draw, read, ctx);
	pp_egl_guard_leave();
	pp_gles_context_switch_end(&s, ok, draw, w, h, surface_config);
	return ok;
}

EGLAPI EGLBoolean EGLAPIENTRY eglReleaseThread(void)
{
	PP_GLES_ABOVE_RET(eglReleaseThread, ());
	if (pp_egl_real_tls.guard)
		return PP_REAL(eglReleaseThread)();
	struct pp_gles_ctx *old = pp_gles_current();
	pp_egl_guard_enter();
	if (old && !pp_gles_init_exiting) {
		release_current(old);
		if (old->destroy_pending)
			pp_gles_submit_device_teardown(old, true);
	}
	EGLBoolean ok = PP_REAL(eglReleaseThread)();
	pp_egl_guard_leave();
	if (ok && old) {
		pp_egl_real_tls.ctx = NULL;
		after_release(old);
	}
	return ok;
}

void pp_gles_context_destroyed(void *handle)
{
	struct pp_gles_ctx *c = ctx_find(handle);
	if (!c)
		return;
	/* EGL and GLX keep a context that is current somewhere until it is released. */
	if (c->current_tid)
		c->destroy_pending = true;
	else
		ctx_free(c, false);
}

EGLAPI EGLBoolean EGLAPIENTRY eglDestroyContext(EGLDisplay dpy, EGLContext ctx)
{
	PP_GLES_ABOVE_RET(eglDestroyContext, (dpy, ctx));
	if (pp_egl_real_tls.guard)
		return PP_REAL(eglDestroyContext)(dpy, ctx);
	pp_gles_context_destroyed(ctx);
	pp_egl_guard_enter();
	EGLBoolean ok = PP_REAL(eglDestroyContext)(dpy, ctx);
	pp_egl_guard_leave();
	return ok;
}

EGLAPI EGLBoolean EGLAPIENTRY eglTerminate(EGLDisplay dpy)
{
	PP_GLES_ABOVE_RET(eglTerminate, (dpy));
	if (pp_egl_real_tls.guard)
		return PP_REAL(eglTerminate)(dpy);
	for (;;) {
		struct pp_gles_ctx *victim = NULL;
		pthread_mutex_lock(&g_lock);
		for (struct pp_gles_ctx *c = g_contexts; c; c = c->next) {
			if (c->dpy != dpy || c->destroy_pending)
				continue;
			if (c->current_tid) {
				c->destroy_pending = true;
				continue;
			}
			victim = c;
			break;
		}
		pthread_mutex_unlock(&g_lock);
		if (!victim)
			break;
		ctx_free(victim, false);
	}
	pp_egl_guard_enter();
	EGLBoolean ok = PP_REAL(eglTerminate)(dpy);
	pp_egl_guard_leave();
	return ok;
}

void pp_gles_context_shutdown(void)
{
	for (;;) {
		pthread_mutex_lock(&g_lock);
		struct pp_gles_ctx *c = g_contexts;
		pthread_mutex_unlock(&g_lock);
		if (!c)
			break;
		if (pp_egl_real_tls.ctx == c)
			pp_egl_real_tls.ctx = NULL;
		/* At exit GL is not called: results not read by now stay unavailable. */
		ctx_free(c, false);
	}
}
