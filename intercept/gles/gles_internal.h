#pragma once
/* The GLES intercept's shared state: one record per EGL context, the thread's current one in
 * pp_egl_real_tls.ctx (the per-draw path reads only that), and the helpers the hook files share.
 *
 * Threads: a GL context is current on at most one thread at a time, and everything in a
 * struct pp_gles_ctx below `hot` is touched only by that thread, without a lock. The context
 * list (gles_context.c) has one mutex, taken at context creation, destruction and
 * eglMakeCurrent, never across a call down. The share group's image table has its own mutex
 * (gles_images.c). */
#include <stdbool.h>
#include <stdint.h>

#include "attr_device.h"
#include "egl_rdoc.h"
#include "egl_real.h"
#include "gles_pass_machine.h"
#include "gpu_gl_timer.h"
#include "pp_cpu_counters.h"
#include "pp_model.h"

#define PP_GLES_GROUP_DEPTH 32
#define PP_GLES_FBO_CACHE 64   /* framebuffer descriptions, by name modulo this (gles_pass.c) */
#define PP_GLES_FBO_LABELS 32
#define PP_GLES_RING 32           /* recordings in flight per context */
#define PP_GLES_MAX_PASSES 1024   /* passes in one recording before it is submitted anyway */
#define PP_GLES_MAX_LABELS 4096   /* debug-group events in one recording, likewise */
#define PP_GLES_TIMER_CHUNKS 64   /* x PP_GL_CHUNK_SLOTS query objects per context */

struct pp_gles_share; /* gles_images.c */
struct pp_gles_diag;  /* gles_diag_internal.h */

/* Attachments of one framebuffer as last described (queried once per change, not per pass). */
struct pp_gles_fbo {
	uint32_t name;
	uint64_t generation;      /* pp_gles_fbo_generation when described */
	uint32_t natt;
	struct pp_attachment att[PP_MAX_ATTACHMENTS];
	uint8_t cls[PP_MAX_ATTACHMENTS]; /* enum pp_gles_att of each */
	/* The image behind each: a texture's name, a renderbuffer's | PP_GLES_IMAGE_RB; 0 for
	 * the default framebuffer's (what the diagnostics' tile rules follow). */
	uint32_t image[PP_MAX_ATTACHMENTS];
};
#define PP_GLES_IMAGE_RB 0x80000000u

struct pp_gles_label {
	uint32_t fbo;
	char name[64];
};

struct pp_gles_ctx {
	/* hot: the per-draw path */
	struct pp_workload *draw_work; /* the open render pass's workload; NULL when none is open */
	struct pp_workload *cur;       /* where barriers go: the open pass, or the recording's stray */
	uint32_t diag_dirty;           /* PP_GLES_DIRTY_*: the next draw marks these bindings as used (gles_diag.c);
					* beside draw_work: one cache line for the draw path */
	struct pp_workload dummy;      /* counts nothing anybody reads: a context that could not be set up */
	struct pp_gles_diag *diag;     /* diagnostics (gles_diag.c); NULL when off */
	bool surface_preserved;        /* the draw surface keeps its colour across swaps (EGL_BUFFER_PRESERVED) */
	bool surface_pbuffer;          /* ... is a pbuffer: a swap leaves every buffer as it is */
	bool surface_age_used;         /* the program asked a surface's EGL_BUFFER_AGE: it repaints on the
					* old contents of its back buffer */

	struct pp_gles_ctx *next;      /* context list */
	EGLDisplay dpy;
	EGLContext handle;
	EGLConfig config;              /* with glx: Display *, GLXContext, GLXFBConfig */
	EGLConfig surface_config;      /* a context made without a config (EGL_KHR_no_config_context):
					* its draw surface's, which describes the default framebuffer */
	void *draw_surface;            /* the EGLSurface or GLXDrawable it draws into; NULL: none */
	bool glx;                      /* made with glXCreateContextAttribsARB (gles_glx.c), not EGL */
	struct pp_gles_share *share;
	uint32_t current_tid;          /* 0: not current anywhere */
	bool destroy_pending;          /* destroyed while current: freed when released */
	bool set_up;                   /* first made current: device, timer */
	bool es3;                      /* GL_DRAW_FRAMEBUFFER exists */
	int32_t max_color;             /* GL_MAX_COLOR_ATTACHMENTS, asked once (0: not yet) */
	uint32_t ordinal;

	struct pp_gles_pass_machine pm;
	uint8_t open_cls[PP_MAX_ATTACHMENTS]; /* attachment classes of the open render pass */
	uint32_t open_image[PP_MAX_ATTACHMENTS]; /* and their images (pp_gles_fbo.image) */
	struct pp_recording *rec;      /* being recorded */
	struct pp_recording *ring[PP_GLES_RING];
	uint32_t nring, ring_next;
	uint32_t slot_chunk, slot_used;/* the recording's last timer chunk and slots taken from it */
	const char *rec_ts_reason;     /* the recording takes no timestamps (capture windows), and why */

	struct pp_attr_device *attr;
	struct pp_attr_queue *queue;
	uint32_t sink_id;              /* the sinks' device */
	bool rec_rdoc;                 /* RenderDoc was capturing when the recording's work began */
	bool open_own;                 /* the open pass is RenderDoc's own work (gles_renderdoc.c) */
	bool own_bound;                /* RenderDoc's own call bound own_fb as the draw framebuffer */
	uint32_t own_fb;
	struct pp_gl_timer *timer;
	const char *no_timer_reason;
	uint64_t submits;
	uint64_t frame_open;           /* the model's index of the frame being built */
	uint64_t names_frame;          /* the frame of the last submission with passes, and */
	uint32_t names_base;           /* its passes so far: where generated pass names go on */
	uint64_t fence_sync;           /* the GLsync of the glFenceSync being submitted; 0: none */

	/* default framebuffer: from the EGL config and the draw surface */
	struct pp_gles_fbo fb0;
	int32_t surface_w, surface_h;

	struct pp_gles_fbo fbos[PP_GLES_FBO_CACHE]; /* name 0: empty */
	struct pp_gles_label labels[PP_GLES_FBO_LABELS];
	uint32_t nlabels;
	uint64_t fbo_generation;       /* bumped by every attachment change */
	uint32_t read_fb;              /* GL_READ_FRAMEBUFFER binding (ES3) */
};

static inline struct pp_gles_ctx *pp_gles_current(void)
{
	return (struct pp_gles_ctx *)pp_egl_real_tls.ctx;
}

/* The calling thread's context, when a hook should act (a context is current and the call
 * does not come from inside the shim or the driver); NULL: pass straight through. */
static inline struct pp_gles_ctx *pp_gles_acting(void)
{
	return pp_egl_real_tls.guard ? NULL : (struct pp_gles_ctx *)pp_egl_real_tls.ctx;
}

/* Like pp_gles_acting, for calls that hand work to the GPU (submission boundaries): NULL also
 * for RenderDoc's own such calls, which end the open pass and are not the application's
 * submissions (gles_renderdoc.c). */
struct pp_gles_ctx *pp_gles_renderdoc_acting_app(void);

/* Whether the call being handled moves the context's passes (bindings, invalidates, blits):
 * the application's calls do, RenderDoc's own only inside a pass of its own. RenderDoc binds
 * framebuffers of its own between the application's calls (to read attachments back while it
 * captures) and binds the application's back: that is no boundary of the application's pass
 * (gles_renderdoc.c). */
static inline bool pp_gles_moves_passes(const struct pp_gles_ctx *c)
{
	return !pp_egl_real_tls.rdoc_own || (c->pm.open != PP_GLES_NONE && c->open_own);
}

/* The application's call site of the call being handled: the hook's return address, unless
 * RenderDoc passed the application's call on (its hook is the return address then). */
static inline void *pp_gles_site(void *ra)
{
	return pp_egl_real_tls.site ? (void *)pp_egl_real_tls.site : ra;
}

/* ---- RenderDoc above the shim (gles_renderdoc.c, layer/egl/egl_rdoc.h) ----------------- */

struct pp_gles_above {
	void *entry;          /* RenderDoc's entry point the application's call goes to */
	unsigned id;
	uint16_t prev_call;
	const void *prev_ra;
};
/* At a hook's entry where RenderDoc's GL hooks may be in the process (pp_egl_rdoc_maybe),
 * with the hook's return address: true for an application's call to pass on to RenderDoc
 * first (a->entry, then pp_gles_renderdoc_above_leave); false for a call the hook handles itself: one
 * from RenderDoc (the application's passed on, or RenderDoc's own work: pp_egl_real_tls.rdoc_own),
 * one RenderDoc has no entry point for, or one made inside the shim. */
bool pp_gles_renderdoc_above_enter(struct pp_gles_above *a, unsigned id, const void *ra);
/* RenderDoc returned the application's call: none of RenderDoc's code is on the stack, none
 * of its locks held, where its captures start and end (renderdoc_frames). */
void pp_gles_renderdoc_above_leave(const struct pp_gles_above *a);

/* The first statement of every hook: an application's call goes to RenderDoc first where
 * RenderDoc's hooks are in the process and the shim comes first (egl_rdoc.h). args: the
 * call's arguments, in parentheses; ra (_FROM): the hook's return address, where the hook
 * itself is not the function it is expanded in. */
#define PP_GLES_ABOVE_FROM(name, ra, args)                                                         \
	do {                                                                                       \
		struct pp_gles_above pp_a_;                                                        \
		if (__builtin_expect(__atomic_load_n(&pp_egl_rdoc_maybe, __ATOMIC_RELAXED), 0) &&  \
		    pp_gles_renderdoc_above_enter(&pp_a_, PP_EGL_ID_##name, (ra))) {                         \
			((__typeof__(pp_egl_real.name))pp_a_.entry) args;                          \
			pp_gles_renderdoc_above_leave(&pp_a_);                                               \
			return;                                                                    \
		}                                                                                  \
	} while (0)
#define PP_GLES_ABOVE(name, args) PP_GLES_ABOVE_FROM(name, __builtin_return_address(0), args)

/* The whole of a void hook that only notes something for the acting context: name's
 * definition, with params and the args passing them down; the statement (after args) runs with
 * `c`, the acting context, when there is one, before the call down. */
#define PP_GLES_ACTING_HOOK(name, params, args, ...)                                                           \
	GL_APICALL void GL_APIENTRY name params                                                                \
	{                                                                                                      \
		PP_GLES_ABOVE(name, args);                                                                     \
		struct pp_gles_ctx *c = pp_gles_acting();                                                      \
		if (c) {                                                                                       \
			__VA_ARGS__;                                                                           \
		}                                                                                              \
		PP_REAL(name) args;                                                                            \
	}
#define PP_GLES_ABOVE_RET(name, args)                                                              \
	do {                                                                                       \
		struct pp_gles_above pp_a_;                                                        \
		if (__builtin_expect(__atomic_load_n(&pp_egl_rdoc_maybe, __ATOMIC_RELAXED), 0) &&  \
		    pp_gles_renderdoc_above_enter(&pp_a_, PP_EGL_ID_##name, __builtin_return_address(0))) {  \
			__typeof__(((__typeof__(pp_egl_real.name))0) args) pp_r_ =                \
				((__typeof__(pp_egl_real.name))pp_a_.entry) args;                  \
			pp_gles_renderdoc_above_leave(&pp_a_);                                               \
			return pp_r_;                                                              \
		}                                                                                  \
	} while (0)

/* Passes of the application's among the first n of a recording (the model counts the others'
 * apart when it names passes). */
static inline uint32_t pp_gles_app_passes(const struct pp_recording *r, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n && i < r->npasses; i++)
		k += !r->passes[i].recorded_by;
	return k;
}

/* RenderDoc and passprobe's frames on this context: the capture files RenderDoc wrote since,
 * paired with their frames (final: the context goes away). */
void pp_gles_renderdoc_poll(struct pp_gles_ctx *c, bool final);
/* Process set-up: says once where RenderDoc's hooks leave the shim (gles_init.c). */
void pp_gles_renderdoc_setup(void);
/* The file name passes of RenderDoc's own work carry as recorded_by. */
const char *pp_gles_renderdoc_name(void);

/* gles_pass.c: feeds an event through the pass machine and acts on the transition. */
void pp_gles_pass_event(struct pp_gles_ctx *c, enum pp_gles_ev_kind kind, uint32_t fb, uint32_t mask);
/* The slow path of a draw: opens the render pass; returns its workload (never NULL). */
struct pp_workload *pp_gles_pass_for_draw(struct pp_gles_ctx *c);
struct pp_workload *pp_gles_pass_for_dispatch(struct pp_gles_ctx *c);
/* Debug groups become label events of the recording (names of the passes they enclose). */
void pp_gles_pass_label(struct pp_gles_ctx *c, bool push, const char *name, int32_t length);
void pp_gles_pass_fbo_label(struct pp_gles_ctx *c, uint32_t fbo, const char *name, int32_t length);
void pp_gles_pass_fbo_forget(struct pp_gles_ctx *c, uint32_t fbo);
/* The framebuffer's description as last taken (the default one's always), or NULL where it is
 * not current: describing needs it bound as the draw framebuffer. */
const struct pp_gles_fbo *pp_gles_pass_fbo_known(const struct pp_gles_ctx *c, uint32_t fb);
/* Attachment masks of a glClear mask / glInvalidateFramebuffer list. */
uint32_t pp_gles_pass_clear_mask(uint32_t gl_mask);
uint32_t pp_gles_pass_invalidate_mask(const uint32_t *attachments, int32_t n, bool default_fb);

/* gles_submit.c: a submission boundary ends the open pass and hands the recording to the
 * model. sync: how the application can know the work completed (glFenceSync: a fence,
 * glFinish: drained), which decides frame ends under frame_delimiter=auto (attr_frame.h).
 * cpu: the call's own cost, or NULL. */
void pp_gles_submit(struct pp_gles_ctx *c, const char *api, enum pp_submit_sync sync, const struct pp_cpu_cost *cpu);
/* eglSwapBuffers after the real call: the frame ends. */
void pp_gles_submit_present(struct pp_gles_ctx *c, const struct pp_cpu_cost *cpu);
/* gles_frame.c: a swap's own CPU cost, measured around the real call; after it the swap is
 * submitted and presented (api: the call's name). */
struct pp_gles_call_cost {
	struct pp_cpu_snapshot a;
};
void pp_gles_frame_call_cost_begin(struct pp_gles_call_cost *k);
void pp_gles_frame_swap_end(struct pp_gles_ctx *c, const char *api, struct pp_gles_call_cost *k);
/* Timestamp slot for the recording, PP_NO_SLOT (and *why) when none. */
uint32_t pp_gles_submit_slot_take(struct pp_gles_ctx *c, const char **why);
/* First made current on this thread: GL queries, timer, model device. */
void pp_gles_submit_device_setup(struct pp_gles_ctx *c);
/* Before the context record goes: results read where possible, frames handed on. */
void pp_gles_submit_device_teardown(struct pp_gles_ctx *c, bool current);

/* gles_images.c: image sizes per share group, for attachment descriptions. */
struct pp_gles_share *pp_gles_images_share_create(void);
void pp_gles_images_share_ref(struct pp_gles_share *s);
void pp_gles_images_share_unref(struct pp_gles_share *s);
/* No other context shares its objects (its images are this context's alone). */
bool pp_gles_images_share_alone(struct pp_gles_share *s);
void pp_gles_images_store(struct pp_gles_share *s, bool renderbuffer, uint32_t name, uint32_t internal_format,
			 uint32_t w, uint32_t h, uint32_t samples);
void pp_gles_images_forget(struct pp_gles_share *s, bool renderbuffer, uint32_t name);
bool pp_gles_images_find(struct pp_gles_share *s, bool renderbuffer, uint32_t name, uint32_t *internal_format,
			uint32_t *w, uint32_t *h, uint32_t *samples);
const char *pp_gles_images_format_name(uint32_t internal_format);

/* gles_context.c: every context's frames handed on (process exit). */
void pp_gles_context_shutdown(void);
/* An OpenGL ES context the application created: its record (share_handle: the context it
 * shares objects with, or NULL). */
void pp_gles_context_created(void *dpy, void *handle, void *config, void *share_handle, bool glx);
/* Before the real destroy: the record goes, or when the context is current somewhere, when
 * it is released. */
void pp_gles_context_destroyed(void *handle);
/* A make-current, around the real call: begin (before it) ends the work of the context the
 * thread lets go of; end (after it; ok: whether it succeeded) sets the new one up, with its
 * draw surface's size (draw_surface: whether it has one). c is NULL for a context passprobe
 * does not measure (desktop OpenGL, or none). */
struct pp_gles_switch {
	struct pp_gles_ctx *old, *c;
};
/* A make-current of context `handle` with draw surface `draw` (an EGLSurface or GLXDrawable;
 * NULL for none) on the calling thread, around the real call. */
struct pp_gles_switch pp_gles_context_switch_begin(void *handle, void *draw);
void pp_gles_context_switch_end(const struct pp_gles_switch *s, bool ok, void *draw, int32_t w, int32_t h,
			void *surface_config);
/* gles_submit.c: the default framebuffer's attachments from the context's config, or its draw
 * surface's (surface_config) when it was made without one. */
void pp_gles_submit_default_fb_describe(struct pp_gles_ctx *c);
/* gles_init.c: process set-up at the first context made current (settings, CPU counter
 * events, outputs); the settings after it. */
void pp_gles_init_once(void);
extern struct pp_settings pp_gles_init_settings;
/* Whether the process is exiting: GL is not called any more. */
extern bool pp_gles_init_exiting;
