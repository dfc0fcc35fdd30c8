#pragma once
/* Diagnostics of a GLES context (docs/gles.md "Diagnostics", docs/diagnostics.md): the same
 * API-neutral rules as Vulkan (attribution/diag), fed from the GL hooks. gles_diag.c holds the
 * per-context state (what draws of recent frames used, buffer usage hints, the application's
 * KHR_debug callback) and delivers findings; gles_diag_hooks.c has the GL hooks.
 *
 * Threads: the state belongs to the context and is touched only by the thread it is current
 * on, like the rest of struct pp_gles_ctx. */
#include <stdbool.h>
#include <stdint.h>

#include "attr_cpu.h"
#include "attr_diag.h"

struct pp_gles_ctx;
struct pp_pass_rec;

/* At the context's set-up (diagnostics setting on), and before its record goes. */
void pp_gles_diag_setup(struct pp_gles_ctx *c, uint32_t sink_id);
void pp_gles_diag_teardown(struct pp_gles_ctx *c);

/* The draw path's slow part (and a dispatch's), taken only while c->diag_dirty is set (a binding
 * changed, a new frame began): what is bound now counts as used by draws of the current frame;
 * only the kinds of binding that changed are marked. */
enum {
	PP_GLES_DIRTY_ARRAY = 1u << 0,
	PP_GLES_DIRTY_ELEMENT = 1u << 1,
	PP_GLES_DIRTY_INDIRECT = 1u << 2,
	PP_GLES_DIRTY_UNIFORM = 1u << 3,
	PP_GLES_DIRTY_STORAGE = 1u << 4,
	PP_GLES_DIRTY_TEXTURES = 1u << 5,
	PP_GLES_DIRTY_ALL = (1u << 6) - 1,
};
void pp_gles_diag_draw(struct pp_gles_ctx *c);


/* Every submission boundary (pp_gles_submit): frame is the model's frame of the submission
 * (or the open frame when nothing was submitted), ended the clock's "every frame below has
 * ended"; sync: the GLsync glFenceSync made (0: none). */
void pp_gles_diag_submitted(struct pp_gles_ctx *c, uint64_t frame, uint64_t ended, uint64_t sync);
/* A swap, after its submission: frames below `ended` are over, and the default framebuffer's
 * contents are what the surface keeps (c->surface_preserved, _pbuffer, _age_used). */
void pp_gles_diag_presented(struct pp_gles_ctx *c, uint64_t ended);
/* A render pass opened (c->diag set), and closed, its attachments' load/store ops set: the tile
 * rules (PASSPROBE-Pass-*). */
void pp_gles_diag_pass_opened(struct pp_gles_ctx *c);
void pp_gles_diag_pass_closed(struct pp_gles_ctx *c, const struct pp_pass_rec *p);
/* The tile rules: a read of the attachments of classes `mask` (enum pp_gles_att) of
 * framebuffer fb (glReadPixels, glBlitFramebuffer, glCopyTex*Image2D), and an image gone
 * (deleted, or its storage specified again; key as pp_gles_fbo.image). */
void pp_gles_diag_fb_read(struct pp_gles_ctx *c, uint32_t fb, uint32_t mask);
void pp_gles_diag_image_forget(struct pp_gles_ctx *c, uint32_t key);

/* The calls findings sit on, counted per frame (pp_diag_waits_call_count) while RenderDoc is in the
 * process. */
enum pp_gles_call {
	PP_GLES_CALL_FINISH,
	PP_GLES_CALL_READ_PIXELS,
	PP_GLES_CALL_BUFFER_SUB_DATA,
	PP_GLES_CALL_MAP_BUFFER_RANGE,
	PP_GLES_CALL_TEX_SUB_IMAGE_2D,
	PP_GLES_CALL_TEX_SUB_IMAGE_3D,
	PP_GLES_CALL_GET_QUERY_OBJECT_UIV,
	PP_GLES_CALL_GET_QUERY_OBJECT_UIV_EXT,
	PP_GLES_CALL_GET_QUERY_OBJECT_UI64V_EXT,
	PP_GLES_CALL_CLIENT_WAIT_SYNC,
	PP_GLES_CALL_COUNT
};
/* Where a call sits: taken as it begins (a glFinish or glReadPixels may end the frame). */
struct pp_gles_call_mark {
	const char *call;    /* NULL: not in a frame RenderDoc captures */
	uint32_t index;
	uint64_t frame;
};
struct pp_gles_call_mark pp_gles_diag_call(struct pp_gles_ctx *c, enum pp_gles_call k, const char *name);

/* glFinish returned after cpu->wall_ns; ra: the application's call site. */
void pp_gles_diag_finish(struct pp_gles_ctx *c, const struct pp_cpu_cost *cpu, void *ra,
			 const struct pp_gles_call_mark *m);
/* glReadPixels: true when the read goes to client memory with rendering pending (a drain):
 * then the hook times the call and reports it with pp_gles_diag_readback_done. */
bool pp_gles_diag_readback_drains(struct pp_gles_ctx *c);
void pp_gles_diag_readback_done(struct pp_gles_ctx *c, int32_t w, int32_t h, uint64_t blocked_ns, void *ra,
				const struct pp_gles_call_mark *m);

/* Timing a call the rules flagged, on the application's thread: a "wait" slice on the
 * thread's trace track and in its frame's totals. */
struct pp_gles_diag_span {
	struct pp_cpu_snapshot before;
};
void pp_gles_diag_span_begin(struct pp_gles_diag_span *s);
uint64_t pp_gles_diag_span_end(struct pp_gles_ctx *c, struct pp_gles_diag_span *s, const char *name);

/* One flagged occurrence: fn is the GL call (its site is ra + fn), m where it sits, detail
 * what it was about. steady: counted once the site recurs in a later frame (start-up and
 * shutdown calls happen once). */
void pp_gles_diag_report(struct pp_gles_ctx *c, enum pp_diag_rule rule, const char *fn,
			 const struct pp_gles_call_mark *m, void *ra, const char *detail, uint64_t blocked_ns,
			 bool steady);
