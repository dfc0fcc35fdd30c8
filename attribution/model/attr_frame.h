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

struct pp_frame_clock {
	enum pp_frame_delimiter delimiter;
	bool open;      /* a submission went into frame `current` and it has not ended */
	bool presented; /* auto: once a present was seen, only presents end frames */
	bool swapchain; /* auto: a swapchain exists, so presents will come: fences do not end frames */
	uint64_t current; /* the open frame, or the last one that was open */
	uint64_t next;    /* index of the next frame to open */
	uint64_t ended;   /* every frame below this index has ended */
	const char *why;  /* what ended the last frame: "present", "fence", "submit", "label", ... */
};

void pp_frame_clock_init(struct pp_frame_clock *c, enum pp_frame_delimiter delimiter);

/* Work was submitted: the index of the frame it belongs to (opens one when none is open). */
uint64_t pp_frame_clock_submit(struct pp_frame_clock *c);

/* After a submit call returned. Returns true when that ended the open frame. */
bool pp_frame_clock_submit_done(struct pp_frame_clock *c, bool signalled_fence, bool saw_frame_label);

/* A swapchain was created: with frame_delimiter=auto, frames end at presents only from now
 * on (fence-signalling submits before the first present stay in the first frame). */
void pp_frame_clock_swapchain_created(struct pp_frame_clock *c);

/* A present call, whatever its result. Returns true when that ended the open frame. */
bool pp_frame_clock_present(struct pp_frame_clock *c);

/* Ends the open frame for a reason of the owner's (a bound on submissions per frame).
 * Returns true when a frame was open. */
bool pp_frame_clock_end(struct pp_frame_clock *c, const char *why);
