#pragma once
/* The frame clock: the one place that decides where a frame ends. Submit, present and
 * swapchain events go in; the index of the frame a submission belongs to, and "frames before
 * N have ended", come out. The model (attr_device.c) drives one per device; the diagnostics
 * (attribution/diag) take their frame indices from it, so report.json's frames and the
 * diagnostics' first_frame/last_frame count the same frames. API-neutral: the Vulkan hooks
 * and the GLES shim feed the same events.
 *
 * Not thread-safe on its own: its owner's lock protects it (a plain value, so the owner can
 * keep index and frame records consistent under the one lock it already takes). */
#include <stdbool.h>
#include <stdint.h>

#include "pp_settings.h"

/* What the clock decided for a frame (pp_attr_frame_clock_building, pp_attr_frame_clock_flags). */
enum pp_frame_flags {
	PP_FRAME_CAPTURED = 1u << 0,  /* in a capture window: measured and handed to the sinks */
	PP_FRAME_GPU_TIMED = 1u << 1, /* captured and GPU-timed (gpu_timing_interval) */
	PP_FRAME_BY_SIGNAL = 1u << 2, /* captured because the capture signal toggled capturing on */
	PP_FRAME_BY_FILE = 1u << 3,   /* captured because the trigger file started a window */
	/* Frame debuggers (docs/frame-debuggers.md): passprobe asks RenderDoc to capture this frame
	 * (the renderdoc_frames setting). Decided at the boundary before it, like a window. */
	PP_FRAME_RENDERDOC_WANTED = 1u << 4,
	/* RenderDoc captured this frame: it was capturing when the frame's first submission of
	 * the application's came (whoever asked it to). Measured in full. */
	PP_FRAME_RENDERDOC = 1u << 5,
	PP_FRAME_BY_RENDERDOC = 1u << 6, /* captured only because RenderDoc captures it */
	/* The experiment (docs/diagnostics.md, "Experiment mode"): captured, GPU-timed frames not
	 * captured by RenderDoc alternate in blocks of PP_EXPERIMENT_BLOCK_FRAMES between the
	 * application's commands as written and passprobe's fixes. */
	PP_FRAME_EXP_AS_WRITTEN = 1u << 7,
	PP_FRAME_EXP_FIXED = 1u << 8,
};
#define PP_FRAME_EXP (PP_FRAME_EXP_AS_WRITTEN | PP_FRAME_EXP_FIXED)
#define PP_EXPERIMENT_BLOCK_FRAMES 4u
#define PP_FRAME_ALL (PP_FRAME_CAPTURED | PP_FRAME_GPU_TIMED)

/* Capture windows and sampled timing: the settings the clock follows (docs/settings.md). */
struct pp_frame_capture {
	struct pp_frame_ranges frames; /* frames setting */
	bool signal;                   /* follow the capture signal (pp_capture.h) */
	const char *trigger_file;      /* "" or NULL: none; must outlive the clock */
	uint32_t trigger_frames;
	uint32_t timing_interval;      /* 1: every captured frame is GPU-timed */
	struct pp_frame_ranges renderdoc; /* renderdoc_frames setting: captured and GPU-timed whatever
					   * the above say */
	bool experiment;               /* experiment setting not off: frames get an arm */
};

struct pp_frame_clock {
	enum pp_frame_delimiter delimiter;
	bool open;      /* a submission went into frame `current` and it has not ended */
	bool presented; /* auto: once a present was seen, only presents end frames */
	bool swapchain; /* auto: a swapchain exists, so presents will come: fences do not end frames */
	uint64_t current; /* the open frame, or the last one that was open */
	uint64_t next;    /* index of the next frame to open */
	uint64_t ended;   /* every frame below this index has ended */
	const char *why;  /* what ended the last frame: "present", "fence", "submit", "label", ... */

	/* Capture windows: decided for frame `next` whenever a frame ends (and at init), so a
	 * window opens and closes only between frames. */
	struct pp_frame_capture cap;
	bool sig_on;             /* the capture signal toggled an odd number of times */
	uint64_t sig_seen, file_seen; /* trigger counts already acted on */
	uint64_t file_left;      /* frames the trigger file's window still captures */
	uint64_t window_first;   /* first frame of the current run of captured frames */
	bool window_open;        /* frame `next` is in a capture window (not only a RenderDoc frame) */
	uint32_t next_flags;     /* enum pp_frame_flags of frame `next` */
	uint32_t current_flags;  /* of frame `current` */
	uint32_t building;       /* of the frame the application is building (current while open,
				  * else next); written under the owner's lock, read without it */
};

/* Every frame captured and GPU-timed until pp_attr_frame_clock_capture_set says otherwise. */
void pp_attr_frame_clock_init(struct pp_frame_clock *c, enum pp_frame_delimiter delimiter);

/* Follows capture windows and sampled GPU timing from now on (decides frame `next` again). */
void pp_attr_frame_clock_capture_set(struct pp_frame_clock *c, const struct pp_frame_capture *cap);

/* The flags of the frame the application is building now: the open frame, or after a
 * delimiter the next one. Lock-free (a relaxed atomic load): what a recording hook asks when
 * a recording begins, to know whether to measure it (PP_FRAME_CAPTURED) and time it on the
 * GPU (PP_FRAME_GPU_TIMED). */
static inline uint32_t pp_attr_frame_clock_building(const struct pp_frame_clock *c)
{
	return __atomic_load_n(&c->building, __ATOMIC_RELAXED);
}

/* The flags of frame `current` (the open one, or the last one opened). */
static inline uint32_t pp_attr_frame_clock_flags(const struct pp_frame_clock *c)
{
	return c->current_flags;
}

/* Work was submitted: the index of the frame it belongs to (opens one when none is open). */
uint64_t pp_attr_frame_clock_submit(struct pp_frame_clock *c);

/* How a submit call's work reaches completion, as far as the application can tell. */
enum pp_submit_sync {
	PP_SUBMIT_ASYNC = 0, /* nothing the application can wait on (vkQueueSubmit without a fence, glFlush) */
	PP_SUBMIT_FENCE,     /* signals a fence the application can wait on (a fence, glFenceSync) */
	PP_SUBMIT_DRAINED,   /* the call returned after the GPU finished everything (glFinish) */
	PP_SUBMIT_FOREIGN,   /* a layer above passprobe submitted work of its own: never the
			      * application's frame boundary */
};

/* After a submit call returned. Returns true when that ended the open frame. */
bool pp_attr_frame_clock_submit_done(struct pp_frame_clock *c, enum pp_submit_sync sync, bool saw_frame_label);

/* The application waited for all the work it had submitted (vkQueueWaitIdle,
 * vkDeviceWaitIdle). Under frame_delimiter=auto, before any present and without a swapchain,
 * that ends the open frame as a fence-signalling submit would: a headless program that
 * submits without a fence and waits for the queue gets a frame per wait. With a swapchain it
 * does not (programs upload with a submit and vkQueueWaitIdle before their first present).
 * Returns true when that ended the open frame. */
bool pp_attr_frame_clock_waited_idle(struct pp_frame_clock *c);

/* A swapchain was created: with frame_delimiter=auto, frames end at presents only from now
 * on: fence-signalling submits before the first present stay in the first frame, but a
 * drained one (glFinish) still ends a frame until the first present, so a program that makes
 * a window current and never presents (glmark2-es2 --off-screen) gets its frames. */
void pp_attr_frame_clock_swapchain_created(struct pp_frame_clock *c);

/* A present call, whatever its result. Returns true when that ended the open frame. */
bool pp_attr_frame_clock_present(struct pp_frame_clock *c);

/* RenderDoc is capturing the open frame (its owner asked RenderDoc when the frame's first
 * submission came): the frame is measured in full, and recordings made for it from now on are
 * timed. */
void pp_attr_frame_clock_renderdoc(struct pp_frame_clock *c);

/* Ends the open frame for a reason of the owner's (a bound on submissions per frame).
 * Returns true when a frame was open. */
bool pp_attr_frame_clock_end(struct pp_frame_clock *c, const char *why);
