#pragma once
/* Per-device attribution: submission instances, label resolution in queue order, harvesting
 * GPU results without waiting, frames. API-neutral: GPU results come through `ops`. */
#include <stdbool.h>
#include <stdint.h>

#include "attr_frame.h"
#include "attr_record.h"
#include "pp_settings.h"

/* How attribution reads the GPU results. Implemented by counters/gpu. Neither may block. */
struct pp_attr_gpu_ops {
	void *ctx;
	/* Reads slots into host-time-line ns; avail[i] = 0 when slot i has no result yet,
	 * PP_ATTR_UNUSABLE when it arrived but cannot be used (unusable_reason says why).
	 * submitted_ns: the submit call that submitted the slots' work began then (0: unknown). */
	void (*read_timestamps)(void *ctx, const uint32_t *slots, uint32_t n, uint64_t submitted_ns, uint64_t *ns,
				uint8_t *avail);
	/* The pipeline statistics backend (counters/gpu/pp_gpu_counters.h): the passes' statistics
	 * slots are its scopes, read with its scope_read (PP_STAT_COUNT values). NULL: none. */
	const struct pp_gpu_counter_backend *statistics;
	/* The hardware counter backend of bracketing kind (VK_KHR_performance_query), whose scopes
	 * the passes' perf slots are; its configured set (at most PP_ATTR_PERF_SET_MAX) joins each
	 * pass's counters. With several hardware passes, the values of the others are merged per
	 * pass name from earlier frames. NULL: none. */
	const struct pp_gpu_counter_backend *perf;
	/* The sampling hardware counter backend (Mali kbase): its samples are attributed to the
	 * passes of each frame by time overlap (attr_overlap.h) when the frame is assembled.
	 * NULL: none. */
	const struct pp_gpu_counter_backend *sampled;
	/* Whether the device was lost: nothing more will arrive (may be NULL). */
	bool (*lost)(void *ctx);
	/* Static: why a result read as PP_ATTR_UNUSABLE is not used (GLES: a GPU disjoint event). */
	const char *unusable_reason;
	/* Static: why a result still missing when it had to be read is unavailable (NULL: the
	 * Vulkan wording, a command buffer reused or its device destroyed). */
	const char *forced_reason;
};
#define PP_ATTR_UNUSABLE 2

#define PP_ATTR_PERF_SET_MAX 64

struct pp_attr_device;
struct pp_attr_queue;

/* Where finished frames go (the sinks' pp_attr_sink_frame_submit): ownership passes with the frame.
 * A function the caller passes, so the model needs nothing from the floor above it. */
typedef void (*pp_attr_frame_fn)(struct pp_frame_result *frame);

struct pp_attr_device *pp_attr_device_create(const struct pp_attr_gpu_ops *ops, pp_attr_frame_fn frame_out,
					     uint32_t sink_device_id, const struct pp_settings *settings);
/* Harvests everything (the application has idled the device) and hands every frame,
 * including an unfinished one, to the sinks. */
void pp_attr_device_destroy(struct pp_attr_device *d);

struct pp_attr_queue *pp_attr_device_queue_create(struct pp_attr_device *d, uint64_t handle, uint32_t family,
					   uint32_t index);
void pp_attr_device_queue_destroy(struct pp_attr_queue *q);
/* Queue-level debug labels (vkQueueBeginDebugUtilsLabelEXT ...). */
void pp_attr_device_queue_label(struct pp_attr_queue *q, enum pp_label_op op, const char *name);

/* A recording whose results this execution leaves in other chunks than its own: a
 * SIMULTANEOUS_USE recording, whose executions may overlap, copied per execution into a ring
 * of chunks (intercept/vulkan/vk_simultaneous.c). `owner` stands for the ring entry: it is
 * what waits for this submission's harvest (pp_attr_device_recording_release / _pending). */
struct pp_attr_slot_map {
	struct pp_recording *owner; /* NULL when `reason` is set */
	uint32_t nchunks;
	const uint32_t *from, *to;  /* the recording's chunk from[i] is read from chunk to[i] */
	uint32_t chunk_slots;       /* slots per chunk: slot = chunk * chunk_slots + index */
	const char *reason;         /* non-NULL: this execution is not timed, and why */
};

/* Whether RenderDoc captures the frame a submission begins (pp_attr_submit_info.renderdoc). */
enum pp_attr_rdoc_known {
	PP_ATTR_RDOC_ASK = 0, /* RenderDoc is asked at the submission */
	PP_ATTR_RDOC_NO,
	PP_ATTR_RDOC_YES,
};

struct pp_attr_submit_info {
	const char *api;
	uint64_t cpu_begin_ns, cpu_end_ns;
	uint32_t tid;
	uint32_t nrecordings;
	struct pp_recording *const *recordings; /* queue order; NULL for untracked command buffers */
	const uint64_t *command_buffer_handles;
	const struct pp_attr_slot_map *const *maps; /* per recording, NULL entries or NULL: own slots */
	bool signals_fence;
	struct pp_cpu_cost cpu; /* the submit call */
	/* A layer above passprobe submitted work of its own (pp_callers.h, pp_renderdoc.h): it
	 * never makes RenderDoc's capture of the frame known, and the caller does not let it end
	 * a frame. */
	bool foreign;
	/* Where the front end knows better than RenderDoc's state at the submission whether
	 * RenderDoc captures its frame. OpenGL ES: the swap ending a frame is one of its
	 * submissions, and RenderDoc starts its own captures inside its swap hook, before it
	 * passes the swap down: what counts is RenderDoc's state when the work began. */
	enum pp_attr_rdoc_known renderdoc;
};

/* Records one submission (per vkQueueSubmit batch). Recordings still referenced by an
 * unharvested submission are harvested first (the application guarantees they completed).
 * Returns the index of the frame it went into: the device's frame clock (attr_frame.h) decides,
 * and the diagnostics take the same index. */
uint64_t pp_attr_device_submit(struct pp_attr_device *d, struct pp_attr_queue *q, const struct pp_attr_submit_info *info);

/* Whether a submission still waits to read what `r` stands for (tries a non-forced harvest
 * first). */
bool pp_attr_device_recording_pending(struct pp_attr_device *d, struct pp_recording *r);

/* Frame delimiters, through the device's frame clock. Each returns the clock's "every frame
 * below this index has ended" for the diagnostics to follow (0 when d is NULL). */
/* Call after a submit call returned. */
uint64_t pp_attr_device_submit_done(struct pp_attr_device *d, enum pp_submit_sync sync, bool saw_frame_label);
/* After vkQueueWaitIdle or vkDeviceWaitIdle returned success (pp_attr_frame_clock_waited_idle). */
uint64_t pp_attr_device_waited_idle(struct pp_attr_device *d);
/* The device has a swapchain: frame_delimiter=auto ends frames at presents only, from the
 * first frame on (not at fence-signalling submits before the first present; a drained one
 * still ends a frame until the first present: pp_attr_frame_clock_swapchain_created). */
void pp_attr_device_swapchain_created(struct pp_attr_device *d);
/* cpu: the present call's cost, added to the frame it ends (may be NULL). */
uint64_t pp_attr_device_present(struct pp_attr_device *d, const struct pp_cpu_cost *cpu);

/* An application blocking call's cost (wall and CPU time), added to the frame the
 * application is building when it makes the call: the open frame, or after a delimiter the
 * next one. */
void pp_attr_device_blocking(struct pp_attr_device *d, const struct pp_cpu_cost *cost);

/* Before a recording is reset, re-recorded, freed or re-submitted: reads what its pending
 * submission can still read, so the slots can be reused. */
void pp_attr_device_recording_release(struct pp_attr_device *d, struct pp_recording *r);

/* Harvests what is ready, without waiting, and emits complete frames. Cheap when nothing is. */
void pp_attr_device_poll(struct pp_attr_device *d);

/* Capture windows and sampled GPU timing: the enum pp_frame_flags (attr_frame.h) of the frame
 * the application is building now. Lock-free; a recording asks when it begins
 * (pp_attr_record_quiet_set when not PP_FRAME_CAPTURED; no GPU queries when not
 * PP_FRAME_GPU_TIMED). d NULL: PP_FRAME_ALL. */
uint32_t pp_attr_device_frame_building(const struct pp_attr_device *d);
/* The frame a recording made now is expected to be submitted in (the open frame, or the next):
 * what rotates hardware counter groups over frames. */
uint64_t pp_attr_device_frame_recording(struct pp_attr_device *d);

/* Whether the application is between frames (no frame open): then *flags gets the enum
 * pp_frame_flags of the next frame; else those of the open one. What decides where passprobe
 * starts and ends RenderDoc's captures. */
bool pp_attr_device_frame_between(struct pp_attr_device *d, uint32_t *flags);

/* Frames RenderDoc captured, oldest first, once they have ended: takes the oldest into *frame
 * (and whether passprobe asked for it) and returns true, or returns false when none is waiting.
 * What pairs a capture file RenderDoc has written with passprobe's frame (at most 64 wait). */
bool pp_attr_device_renderdoc_frame_take(struct pp_attr_device *d, uint64_t *frame, bool *requested);

/* Whether the label named by the frame_delimiter setting occurs in these recordings. */
bool pp_attr_device_recordings_have_label(const struct pp_attr_device *d, struct pp_recording *const *recs, uint32_t n);
