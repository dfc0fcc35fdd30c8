/* A context as a model device: set-up at its first eglMakeCurrent (GL strings, the timer, the
 * model's device and queue, the sinks' device), submissions at glFlush/glFinish/glFenceSync/
 * eglSwapBuffers/release, frames through the one frame clock, and GPU results read through
 * the model's pp_attr_gpu_ops, never waiting. Recordings in flight are kept in a ring: one is
 * reused once the model has read its results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "gles_diag.h"
#include "gles_internal.h"
#include "pp_clock.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_sink.h"

static const char *const reason_no_ext = "the context has no GL_EXT_disjoint_timer_query";
static const char *const reason_setting = "GPU timestamps disabled by the timestamps setting";
static const char *const reason_timer = "GPU timing could not be set up on this context";
static const char *const reason_forced =
	"result not read in time: the context was released for good, destroyed or the program exited, or too "
	"many submissions were waiting (the shim never waits for the GPU)";
static const char *const reason_disjoint =
	"GPU timer disjoint (GL_GPU_DISJOINT_EXT): the GPU clock was reset or throttled while this pass was timed";

/* ---- the model's view of the GPU -------------------------------------------------------- */

static void ops_read_timestamps(void *ctx, const uint32_t *slots, uint32_t n, uint64_t submitted_ns, uint64_t *ns,
				uint8_t *avail)
{
	struct pp_gles_ctx *c = ctx;
	/* Query objects can only be read where the context is current. */
	if (pp_gles_init_exiting || pp_egl_real_tls.ctx != c || !c->timer) {
		memset(avail, 0, n);
		return;
	}
	pp_gpu_gl_timer_read(c->timer, slots, n, ns, avail);
}

static struct pp_recording *recording_new(struct pp_gles_ctx *c)
{
	struct pp_recording *r = pp_attr_record_create(false);
	if (r)
		c->ring[c->nring++] = r;
	return r;
}

static void recording_reset(struct pp_gles_ctx *c, struct pp_recording *r)
{
	for (uint32_t k = 0; c->timer && k < r->nchunks; k++)
		pp_gpu_gl_timer_chunk_free(c->timer, r->chunks[k]);
	pp_attr_record_clear(r);
}

/* Capture windows and sampled GPU timing (docs/settings.md, "Capture windows"), decided once
 * per recording for the frame the application is building as it begins, as on Vulkan. */
static void recording_arm(struct pp_gles_ctx *c)
{
	uint32_t frame = pp_attr_device_frame_building(c->attr);
	c->rec_ts_reason = NULL;
	/* RenderDoc starts and ends its own captures inside its swap hook, before the shim's swap
	 * submits the frame that ends: whether it captures the next frame is known here, where
	 * that frame's work begins (gles_renderdoc.c updates it when passprobe starts one). */
	c->rec_rdoc = pp_renderdoc_present() && pp_renderdoc_capturing();
	/* Outside a capture window the diagnostics still read the passes (as on Vulkan). */
	pp_attr_record_quiet_set(c->rec, !(frame & PP_FRAME_CAPTURED), c->diag != NULL);
	if (!(frame & PP_FRAME_CAPTURED)) {
		c->rec_ts_reason = "recorded outside a capture window";
	} else if (!(frame & PP_FRAME_GPU_TIMED)) {
		c->rec_ts_reason = "not a GPU-timed frame (gpu_timing_interval)";
	}
}

/* The recording to record into next: one whose results the model has read, a new one while
 * the ring has room, else the oldest, whose unread results are given up (marked unavailable). */
static void recording_next(struct pp_gles_ctx *c)
{
	struct pp_recording *r = NULL;
	for (uint32_t i = 0; i < c->nring && !r; i++) {
		struct pp_recording *cand = c->ring[(c->ring_next + i) % c->nring];
		if (cand != c->rec && !pp_attr_device_recording_pending(c->attr, cand))
			r = cand;
	}
	if (!r && c->nring < PP_GLES_RING)
		r = recording_new(c);
	if (!r) {
		r = c->ring[c->ring_next % c->nring];
		if (r == c->rec)
			r = c->ring[++c->ring_next % c->nring];
		pp_attr_device_recording_release(c->attr, r);
	}
	c->ring_next = (c->ring_next + 1) % (c->nring ? c->nring : 1);
	recording_reset(c, r);
	c->rec = r;
	c->slot_used = PP_GL_CHUNK_SLOTS;
	c->cur = &r->stray;
	c->draw_work = NULL;
	recording_arm(c);
}

uint32_t pp_gles_submit_slot_take(struct pp_gles_ctx *c, const char **why)
{
	if (!c->timer || c->rec_ts_reason) {
		*why = c->timer ? c->rec_ts_reason : c->no_timer_reason;
		return PP_NO_SLOT;
	}
	if (c->slot_used >= PP_GL_CHUNK_SLOTS) {
		uint32_t chunk = pp_gpu_gl_timer_chunk_alloc(c->timer);
		if (chunk == PP_GL_NO_SLOT || pp_attr_record_chunk_add(c->rec, chunk) < 0) {
			if (chunk != PP_GL_NO_SLOT)
				pp_gpu_gl_timer_chunk_free(c->timer, chunk);
			*why = pp_gpu_gl_timer_no_slot_reason(c->timer);
			return PP_NO_SLOT;
		}
		c->slot_chunk = chunk;
		c->slot_used = 0;
	}
	uint32_t slot = c->slot_chunk * PP_GL_CHUNK_SLOTS + c->slot_used++;
	pp_gpu_gl_timer_write(c->timer, slot);
	return slot;
}

/* ---- set-up and tear-down ------------------------------------------------------------- */

static bool has_extension(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* A static name for an EGL config's colour and depth/stencil sizes. */
static const char *config_color_name(EGLint r, EGLint g, EGLint b, EGLint a)
{
	if (r == 8 && g == 8 && b == 8)
		return a == 8 ? "RGBA8" : a == 0 ? "RGB8" : "unknown";
	if (r == 5 && g == 6 && b == 5 && a == 0)
		return "RGB565";
	if (r == 10 && g == 10 && b == 10)
		return a == 2 ? "RGB10_A2" : "unknown";
	if (r == 16 && g == 16 && b == 16)
		return a == 16 ? "RGBA16F" : "unknown";
	return "unknown";
}

static const char *config_depth_name(EGLint d, EGLint s)
{
	if (d == 24 && s == 8)
		return "DEPTH24_STENCIL8";
	if (d == 32 && s == 8)
		return "DEPTH32F_STENCIL8";
	if (s == 0)
		return d == 16 ? "DEPTH_COMPONENT16" : d == 24 ? "DEPTH_COMPONENT24" : d == 32 ? "DEPTH_COMPONENT32F" : "unknown";
	if (d == 0)
		return s == 8 ? "STENCIL_INDEX8" : "unknown";
	return "unknown";
}

/* The default framebuffer's attachments from the context's config, or from its draw surface's
 * for a context made without one (none when neither: surfaceless programs render into
 * framebuffer objects). */
void pp_gles_submit_default_fb_describe(struct pp_gles_ctx *c)
{
	struct pp_gles_fbo *f = &c->fb0;
	memset(f, 0, sizeof(*f));
	EGLConfig config = c->config != (EGLConfig)0 ? c->config : c->surface_config;
	if (config == (EGLConfig)0)
		return;
	EGLint r = 0, g = 0, b = 0, a = 0, d = 0, s = 0, samples = 0;
	if (c->glx) {
		PFNPPGLXGETFBCONFIGATTRIBPROC get = PP_REAL(glXGetFBConfigAttrib);
		if (!get)
			return;
		struct _XDisplay *dpy = c->dpy;
		GLXFBConfig fbconfig = config;
		get(dpy, fbconfig, GLX_RED_SIZE, &r);
		get(dpy, fbconfig, GLX_GREEN_SIZE, &g);
		get(dpy, fbconfig, GLX_BLUE_SIZE, &b);
		get(dpy, fbconfig, GLX_ALPHA_SIZE, &a);
		get(dpy, fbconfig, GLX_DEPTH_SIZE, &d);
		get(dpy, fbconfig, GLX_STENCIL_SIZE, &s);
		get(dpy, fbconfig, GLX_SAMPLES, &samples);
	} else {
		PFNEGLGETCONFIGATTRIBPROC get = PP_REAL(eglGetConfigAttrib);
		if (!get)
			return;
		get(c->dpy, config, EGL_RED_SIZE, &r);
		get(c->dpy, config, EGL_GREEN_SIZE, &g);
		get(c->dpy, config, EGL_BLUE_SIZE, &b);
		get(c->dpy, config, EGL_ALPHA_SIZE, &a);
		get(c->dpy, config, EGL_DEPTH_SIZE, &d);
		get(c->dpy, config, EGL_STENCIL_SIZE, &s);
		get(c->dpy, config, EGL_SAMPLES, &samples);
	}
	f->att[0].format = config_color_name(r, g, b, a);
	f->cls[0] = PP_GLES_ATT_COLOR;
	f->natt = 1;
	if (d || s) {
		f->att[1].format = config_depth_name(d, s);
		f->att[1].depth_stencil = true;
		f->cls[1] = (d ? PP_GLES_ATT_DEPTH : 0) | (s ? PP_GLES_ATT_STENCIL : 0);
		f->natt = 2;
	}
	for (uint32_t i = 0; i < f->natt; i++) {
		f->att[i].samples = samples > 1 ? (uint32_t)samples : 1;
		f->att[i].layers = 1;
	}
}

static void sink_device_register(struct pp_gles_ctx *c, const char *renderer, const char *version, uint32_t *id)
{
	struct pp_device_info info = { 0 };
	snprintf(info.name, sizeof(info.name), "%s (GLES context %u)", renderer ? renderer : "unknown renderer",
		 c->ordinal);
	snprintf(info.driver, sizeof(info.driver), "%s", version ? version : "");
	info.timestamp_period_ns = 1.0;
	info.timestamp_valid_bits = c->timer ? 64 : 0;
	info.time_domain = pp_gpu_gl_timer_time_domain(c->timer);
	info.pipeline_statistics = false;
	info.query_results = c->timer ? "read with glGetQueryObjectui64vEXT once GL_QUERY_RESULT_AVAILABLE" : NULL;
	info.notes = !c->timer ? c->no_timer_reason
		     : c->glx ? "OpenGL ES through GLX (passprobe GLES shim); GPU times from glQueryCounterEXT "
				"timestamps at pass boundaries"
			      : "OpenGL ES through EGL (passprobe GLES shim); GPU times from glQueryCounterEXT "
				"timestamps at pass boundaries";
	/* Mesa's llvmpipe puts a timestamp query into every 64x64 tile (bin) of its scene; each
	 * rasterizer thread overwrites its value at every tile it draws, and the result is the
	 * latest thread's: a pass's two timestamps are about its last tile's work apart
	 * (lp_rast.c lp_rast_end_query, lp_query.c; docs/gles.md "GPU time"). */
	if (c->timer && renderer && strstr(renderer, "llvmpipe"))
		info.gpu_time_caveat = "llvmpipe timestamps every 64x64 tile apart, so a pass's GPU time is about "
				       "one tile's work (the whole pass only on a one-tile target): read them as an "
				       "ordering, not durations (docs/gles.md)";
	*id = pp_attr_sink_device_register(&info);
}

void pp_gles_submit_device_setup(struct pp_gles_ctx *c)
{
	c->set_up = true;
	c->cur = &c->dummy;
	pp_gles_pass_machine_init(&c->pm);
	pp_gles_submit_default_fb_describe(c);

	PFNGLGETSTRINGPROC get_string = PP_REAL(glGetString);
	const char *version = get_string ? (const char *)get_string(GL_VERSION) : NULL;
	const char *renderer = get_string ? (const char *)get_string(GL_RENDERER) : NULL;
	const char *exts = get_string ? (const char *)get_string(GL_EXTENSIONS) : NULL;
	/* "OpenGL ES 3.2 Mesa ...": ES 3 has GL_DRAW_FRAMEBUFFER and several colour attachments. */
	const char *v = version ? strstr(version, "OpenGL ES ") : NULL;
	c->es3 = v && v[10] >= '3' && v[10] <= '9';

	if (!pp_gles_init_settings.timestamps)
		c->no_timer_reason = reason_setting;
	else if (!has_extension(exts, "GL_EXT_disjoint_timer_query"))
		c->no_timer_reason = reason_no_ext;
	else {
		struct pp_gl_timer_funcs fns = {
			.GenQueriesEXT = PP_REAL(glGenQueriesEXT),
			.DeleteQueriesEXT = PP_REAL(glDeleteQueriesEXT),
			.QueryCounterEXT = PP_REAL(glQueryCounterEXT),
			.GetQueryObjectuivEXT = PP_REAL(glGetQueryObjectuivEXT),
			.GetQueryObjectui64vEXT = PP_REAL(glGetQueryObjectui64vEXT),
			.GetInteger64vEXT = PP_REAL(glGetInteger64vEXT),
			.GetIntegerv = PP_REAL(glGetIntegerv),
		};
		c->timer = pp_gpu_gl_timer_create(&fns, PP_GLES_TIMER_CHUNKS);
		if (!c->timer)
			c->no_timer_reason = reason_timer;
	}

	uint32_t sink_id;
	sink_device_register(c, renderer, version, &sink_id);
	c->sink_id = sink_id;
	struct pp_attr_gpu_ops ops = {
		.ctx = c,
		.read_timestamps = ops_read_timestamps,
		.unusable_reason = reason_disjoint,
		.forced_reason = reason_forced,
	};
	c->attr = pp_attr_device_create(&ops, pp_attr_sink_frame_submit, sink_id, &pp_gles_init_settings);
	c->queue = c->attr ? pp_attr_device_queue_create(c->attr, (uint64_t)(uintptr_t)c->handle, 0, 0) : NULL;
	if (!c->attr || !c->queue || !recording_new(c)) {
		pp_log_once(PP_LOG_ERROR, "out of memory setting up a GLES context; it is not measured");
		pp_attr_device_queue_destroy(c->queue);
		pp_attr_device_destroy(c->attr);
		c->queue = NULL;
		c->attr = NULL;
	}
	if (c->attr) {
		c->rec = c->ring[0];
		c->slot_used = PP_GL_CHUNK_SLOTS;
		c->cur = &c->rec->stray;
		pp_gles_diag_setup(c, sink_id);
		recording_arm(c);
	}
	pp_log(PP_LOG_INFO, "GLES context %u: %s, %s; GPU timing: %s", c->ordinal, renderer ? renderer : "?",
	       version ? version : "?", c->timer ? "GL_EXT_disjoint_timer_query" : c->no_timer_reason);
}

void pp_gles_submit_device_teardown(struct pp_gles_ctx *c, bool current)
{
	if (!c->set_up)
		return;
	c->set_up = false;
	bool read = current && pp_egl_real_tls.ctx == c && !pp_gles_init_exiting;
	if (read) {
		pp_gles_pass_event(c, PP_GLES_EV_END, 0, 0);
		pp_gles_submit(c, c->glx ? "glXDestroyContext" : "eglDestroyContext", PP_SUBMIT_ASYNC, NULL);
	}
	pp_gles_diag_teardown(c);
	pp_gles_renderdoc_poll(c, true);
	/* Reads what can be read (only where the context is current), hands every frame on. */
	pp_attr_device_destroy(c->attr);
	pp_attr_device_queue_destroy(c->queue);
	c->attr = NULL;
	c->queue = NULL;
	for (uint32_t i = 0; i < c->nring; i++)
		pp_attr_record_destroy(c->ring[i]);
	c->nring = 0;
	c->rec = NULL;
	c->cur = &c->dummy;
	c->draw_work = NULL;
	pp_gpu_gl_timer_destroy(c->timer, read);
	c->timer = NULL;
}

/* ---- submissions and frames ----------------------------------------------------------- */

void pp_gles_submit(struct pp_gles_ctx *c, const char *api, enum pp_submit_sync sync, const struct pp_cpu_cost *cpu)
{
	if (!c->attr || !c->rec)
		return;
	bool present = !strncmp(api, "eglSwapBuffers", 14) || !strcmp(api, "glXSwapBuffers");
	pp_egl_guard_enter();
	if (c->timer)
		pp_gpu_gl_timer_check_disjoint(c->timer);
	/* frame_delimiter=label:<name>: a debug group of that name pushed in what is submitted */
	bool label = pp_attr_device_recordings_have_label(c->attr, &c->rec, 1);
	uint64_t frame = c->frame_open, ended = 0;
	if (c->rec->npasses || present || label || c->rec->nlabels >= PP_GLES_MAX_LABELS) {
		struct pp_recording *recs[1] = { c->rec };
		uint64_t handle = (uint64_t)(uintptr_t)c->handle;
		uint64_t now = pp_clock_now_ns();
		struct pp_attr_submit_info info = {
			.api = api,
			.cpu_begin_ns = cpu && cpu->valid ? cpu->begin_ns : now,
			.cpu_end_ns = cpu && cpu->valid ? cpu->begin_ns + cpu->wall_ns : now,
			/* The thread it is current on (eglMakeCurrent took the id): no system call per frame. */
			.tid = c->current_tid,
			.nrecordings = 1,
			.recordings = recs,
			.command_buffer_handles = &handle,
			.signals_fence = sync != PP_SUBMIT_ASYNC,
			.renderdoc = !pp_renderdoc_present() ? PP_ATTR_RDOC_ASK
				     : c->rec_rdoc ? PP_ATTR_RDOC_YES : PP_ATTR_RDOC_NO,
		};
		if (cpu && !present)
			info.cpu = *cpu;
		frame = pp_attr_device_submit(c->attr, c->queue, &info);
		/* Generated pass names count passes over the frame's submissions, as the model does
		 * (gles_diag.c names a finding's pass before it is submitted). */
		if (frame != c->names_frame) {
			c->names_frame = frame;
			c->names_base = 0;
		}
		c->names_base += c->rec->quiet ? 0 : pp_gles_app_passes(c->rec, c->rec->npasses);
		c->submits++;
		recording_next(c);
	}
	if (!present)
		ended = pp_attr_device_submit_done(c->attr, sync, label);
	if (ended > c->frame_open || frame > c->frame_open)
		c->frame_open = ended > frame ? ended : frame;
	pp_gles_diag_submitted(c, frame, ended, c->fence_sync);
	c->fence_sync = 0;
	pp_egl_guard_leave();
	if (ended)
		pp_gles_renderdoc_poll(c, false);
}

void pp_gles_submit_present(struct pp_gles_ctx *c, const struct pp_cpu_cost *cpu)
{
	if (!c->attr)
		return;
	pp_egl_guard_enter();
	uint64_t ended = pp_attr_device_present(c->attr, cpu);
	if (ended > c->frame_open)
		c->frame_open = ended;
	/* The swap ended the frame: the next recording belongs to the frame after it. */
	if (c->rec && !c->rec->npasses)
		recording_arm(c);
	pp_gles_diag_presented(c, ended);
	pp_egl_guard_leave();
	pp_gles_renderdoc_poll(c, false);
}
