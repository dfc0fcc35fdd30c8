#pragma once
/* Where GLES passes begin and end (docs/gles.md), as a pure function of events: no GL call, no
 * allocation, no global state, so the rules can be driven directly (tests/gles/, the property
 * test) and the hooks only translate calls into events and act on the transitions.
 *
 * A pass is the span of work on one draw-framebuffer binding. It opens lazily, at the first
 * clear, draw or dispatch after a boundary (a binding with no work makes no pass), and ends
 * when the binding changes, at an invalidate of the draw framebuffer, and at the boundaries
 * the caller turns into PP_GLES_EV_END (swap, glFlush, glFinish, glFenceSync, glReadPixels,
 * glBlitFramebuffer, the context leaving its thread). A pass that only dispatched is a compute
 * pass; its first clear or draw makes it a render pass (promoted: the same pass, its begin
 * kept). Dispatches inside a render pass are work of that pass. */
#include <stdbool.h>
#include <stdint.h>

/* Attachment classes of a framebuffer, as masks. */
enum pp_gles_att {
	PP_GLES_ATT_COLOR = 1u << 0,
	PP_GLES_ATT_DEPTH = 1u << 1,
	PP_GLES_ATT_STENCIL = 1u << 2,
	PP_GLES_ATT_ALL = 7u,
};

enum pp_gles_ev_kind {
	PP_GLES_EV_BIND,       /* the draw framebuffer binding became `fb` */
	PP_GLES_EV_CLEAR,      /* clear of `mask` on the draw framebuffer */
	PP_GLES_EV_DRAW,
	PP_GLES_EV_DISPATCH,
	PP_GLES_EV_INVALIDATE, /* invalidate/discard of `mask` on the draw framebuffer */
	PP_GLES_EV_END,        /* a boundary that ends any open pass */
};

struct pp_gles_event {
	enum pp_gles_ev_kind kind;
	uint32_t fb;
	uint32_t mask;
};

enum pp_gles_open { PP_GLES_NONE = 0, PP_GLES_RENDER, PP_GLES_COMPUTE };

struct pp_gles_pass_machine {
	uint32_t fb;             /* the draw framebuffer bound now (0: the default one) */
	enum pp_gles_open open;
	uint32_t open_fb;        /* of the open render pass */
	bool drawn;              /* the open render pass has drawn */
	uint32_t cleared;        /* cleared before the open pass's first draw */
	uint32_t not_loaded;     /* invalidated before the open pass began: not loaded */
	uint32_t invalidated;    /* invalidated on `fb` while no render pass was open */
};

/* What one event did. A single event may close one pass and open the next. */
struct pp_gles_transition {
	bool closed;
	enum pp_gles_open closed_kind;
	uint32_t closed_fb;
	/* Render passes: how each attachment class was loaded and stored. A class in neither
	 * load mask was loaded (LOAD); in store_dont_care, invalidated at the end (DONT_CARE),
	 * else stored (STORE). */
	uint32_t load_clear, load_dont_care, store_dont_care;
	bool opened;
	enum pp_gles_open opened_kind;
	uint32_t opened_fb;
	/* The open compute pass became a render pass on opened_fb (opened stays false). */
	bool promoted;
};

void pp_gles_pass_machine_init(struct pp_gles_pass_machine *m);

/* Applies one event; *t says what closed and opened (zeroed first). */
void pp_gles_pass_machine_step(struct pp_gles_pass_machine *m, const struct pp_gles_event *ev, struct pp_gles_transition *t);
