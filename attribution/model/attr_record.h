#pragma once
/* Recording: what one command buffer recording contains, API-neutral. The Vulkan intercept
 * appends passes and label events at boundaries; draws only bump counters in *cur. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "pp_cpu_counters.h"
#include "pp_model.h"

#define PP_NO_SLOT UINT32_MAX

enum pp_pass_flags {
	PP_PASS_SUSPENDING = 1u << 0, /* dynamic rendering suspended: continues in a later command buffer */
	PP_PASS_RESUMING = 1u << 1,   /* dynamic rendering resumed from an earlier command buffer */
	PP_PASS_EXECUTE = 1u << 2,    /* vkCmdExecuteCommands outside a render pass */
	/* its render pass object declares no subpass dependency: nothing for the diagnostics to
	 * look up when the recording is submitted */
	PP_PASS_NO_SUBPASS_DEPS = 1u << 3,
};

enum pp_label_op { PP_LABEL_PUSH, PP_LABEL_POP, PP_LABEL_INSERT };

struct pp_label_event {
	uint32_t pos; /* passes begun in this recording before the event */
	enum pp_label_op op;
	char name[PP_NAME_BYTES]; /* a push's: zero-padded (pp_model_name_copy_padded) */
};

struct pp_pass_rec {
	/* Zeroed when the pass begins (pp_attr_record_pass_begin) ... */
	enum pp_pass_kind kind;
	const char *api;
	uint32_t flags;
	uint64_t render_pass;      /* the API's render pass object, 0 when none (diagnostics) */
	uint32_t ts_begin, ts_end; /* timestamp slots, PP_NO_SLOT when none */
	const char *ts_reason;     /* why there are no timestamps */
	uint32_t stats_slot;
	const char *stats_reason;
	uint32_t perf_slot;        /* the hardware counter backend's scope (VK_KHR_performance_query) */
	const char *perf_reason;   /* why there is none */
	uint32_t subpasses;
	uint32_t secondaries;
	/* NULL: the recording's recorded_by. A front end whose recordings mix the application's
	 * passes with another library's (OpenGL ES: one recording per context, RenderDoc's overlay
	 * drawn into it at the swap) names the other library per pass. Static. */
	const char *recorded_by;
	struct pp_workload work;
	uint32_t nattachments;
	uint32_t first_draw_slot, ndraw_slots; /* per-draw timing: pairs in recording->draw_slots */
	bool cpu_ended;            /* its CPU span's two ends taken: its recording cost, to subtract */
	bool cpu_begin_prev;       /* the span begins at the previous pass's cpu_end (this[-1]), not
				    * at cpu_begin: pp_attr_record_pass_cpu_begin() */
	/* The experiment (docs/diagnostics.md): the experiment sites (bit = index) whose barriers
	 * were recorded since the previous pass, and those of them passprobe rewrote. */
	uint64_t exp_seen, exp_fixed;
	/* ... up to here. What follows is large and read only as far as it is filled (a pass
	 * boundary is measured in instructions: docs/performance.md): the name up to its NUL, the
	 * first nattachments attachments, the snapshots once cpu_ended. */
	char object_name[64];      /* debug name of the render pass/framebuffer/attachment, or "" */
	struct pp_attachment attachments[PP_MAX_ATTACHMENTS];
	/* The recording thread's counters at its begin and end: subtracted off that thread
	 * (pp_attr_cpu_frame_result_resolve), so a pass boundary only reads them. Read the begin with
	 * pp_attr_record_pass_cpu_begin(). */
	struct pp_cpu_snapshot cpu_begin, cpu_end;
};

/* Where a pass record's CPU span begins: its own snapshot, or the previous pass's end in the
 * same recording's array (pp_attr_record_pass_begin), not copied at the boundary. */
static inline const struct pp_cpu_snapshot *pp_attr_record_pass_cpu_begin(const struct pp_pass_rec *p)
{
	return p->cpu_begin_prev ? &p[-1].cpu_end : &p->cpu_begin;
}

enum pp_recording_state { PP_REC_IDLE, PP_REC_RENDER, PP_REC_OUTSIDE };

struct pp_submission;

struct pp_recording {
	/* Hot: the workload draws and dispatches add to. Points into the open pass, or at
	 * `stray` when nothing is open (counted, never attributed). */
	struct pp_workload *cur;
	enum pp_recording_state state;
	bool secondary;
	uint32_t open;                /* index of the open pass */
	uint32_t npasses, cap_passes;
	struct pp_pass_rec *passes;
	uint32_t nlabels, cap_labels;
	struct pp_label_event *labels;
	uint32_t ndraw_slots, cap_draw_slots;
	uint32_t *draw_slots;
	uint32_t nchunks, cap_chunks;
	uint32_t *chunks;             /* timestamp/statistics slot chunks this recording owns */
	uint32_t passes_dropped;      /* beyond PP_RECORDING_MAX_PASSES */
	uint32_t perf_group;          /* the hardware counter group its passes measure, PP_NO_SLOT: none yet */
	uint32_t submissions;         /* since it was recorded */
	bool quiet;                   /* begun outside a capture window: no CPU snapshots */
	/* Who records into it: NULL for the application, else the file name of the library of a
	 * layer above passprobe recording work of its own (pp_callers.h). Static; set when its
	 * command buffer is allocated, kept across recordings. */
	const char *recorded_by;
	bool passless;                /* quiet, and no one needs its passes: none recorded */
	/* The experiment: the arm of the frame it was begun in (enum pp_exp_arm), and the experiment sites recorded since its last pass began, for the next pass
	 * (pp_pass_rec.exp_seen, exp_fixed). */
	uint32_t exp_arm;
	uint64_t exp_seen, exp_fixed;
	struct pp_submission *last_submission; /* not yet harvested, reads this recording's slots */
	struct pp_workload stray;
};

#define PP_RECORDING_MAX_PASSES 65536

struct pp_recording *pp_attr_record_create(bool secondary);
void pp_attr_record_destroy(struct pp_recording *r);
/* Forgets passes and labels. The caller first releases slots and pending submissions. */
void pp_attr_record_clear(struct pp_recording *r);
/* Opens a pass and returns it (zeroed, slots PP_NO_SLOT), or NULL when the recording is full
 * or out of memory (its work then counts as stray). Its CPU span starts where the recording's
 * previous pass ended (that pass's end snapshot), where that was on this thread: so the
 * calls between two passes count in the next one's recording cost, and a boundary costs one
 * CPU snapshot (a system call) instead of two. The first pass of a recording takes its own. */
struct pp_pass_rec *pp_attr_record_pass_begin(struct pp_recording *r, enum pp_pass_kind kind,
					    const char *api, enum pp_recording_state state);
/* Closes the open pass: its CPU span's end snapshot. Inline: one per pass boundary. */
static inline void pp_attr_record_pass_end(struct pp_recording *r)
{
	if (r->state != PP_REC_IDLE && r->open < r->npasses && !r->quiet) {
		struct pp_pass_rec *p = &r->passes[r->open];
		pp_cpu_counters_snapshot_take(&p->cpu_end);
		p->cpu_ended = true;
	}
	r->state = PP_REC_IDLE;
	r->cur = &r->stray;
}
/* A recording begun outside a capture window (set after pp_attr_record_clear, before its first
 * pass): no CPU snapshots at its pass boundaries, and with keep_passes false (nothing, e.g.
 * the diagnostics, reads them) no pass records either: pass_begin returns NULL and its work
 * counts as stray. Its passes never reach a frame (pp_attr_device_submit). */
static inline void pp_attr_record_quiet_set(struct pp_recording *r, bool quiet, bool keep_passes)
{
	r->quiet = quiet;
	r->passless = quiet && !keep_passes;
}
static inline struct pp_pass_rec *pp_attr_record_open_pass(struct pp_recording *r)
{
	return r->state != PP_REC_IDLE && r->open < r->npasses ? &r->passes[r->open] : NULL;
}
int pp_attr_record_labels_grow(struct pp_recording *r);
/* A debug label pushed, popped or inserted: where in the pass sequence, and its name (a pop
 * names nothing: the queue's label stack reads push names only). -ENOMEM when the labels'
 * array cannot grow. Inline: engines label every pass. */
static inline int pp_attr_record_label(struct pp_recording *r, enum pp_label_op op, const char *name)
{
	if (r->nlabels == r->cap_labels && pp_attr_record_labels_grow(r))
		return -ENOMEM;
	struct pp_label_event *e = &r->labels[r->nlabels++];
	/* A label that opens while a pass is open names later passes, not this one. */
	e->pos = r->npasses;
	e->op = op;
	if (op == PP_LABEL_POP)
		e->name[0] = '\0';
	else
		pp_model_name_copy_padded(e->name, name ? name : "");
	return 0;
}
int pp_attr_record_draw_slot_add(struct pp_recording *r, uint32_t begin_slot, uint32_t end_slot);
int pp_attr_record_chunk_add(struct pp_recording *r, uint32_t chunk);
/* Adds a secondary recording's work to the open pass (inside a render pass). */
void pp_attr_record_merge_secondary(struct pp_pass_rec *into, const struct pp_recording *secondary);
void pp_attr_record_workload_add(struct pp_workload *into, const struct pp_workload *w);
/* Draws of every form; dispatches of every form. */
static inline uint64_t pp_attr_record_workload_draws(const struct pp_workload *w)
{
	return w->draws + w->draws_indexed + w->draws_indirect + w->draws_indirect_count;
}
static inline uint64_t pp_attr_record_workload_dispatches(const struct pp_workload *w)
{
	return w->dispatches + w->dispatches_indirect;
}
