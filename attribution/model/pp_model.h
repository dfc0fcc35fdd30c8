#pragma once
/* The API-neutral model of measured work: what the Vulkan (and later GLES) intercepts produce
 * and the sinks consume. No Vulkan or GL types here: formats and ops arrive as static strings.
 *
 * Units: every time is in nanoseconds on the host CLOCK_MONOTONIC time line (GPU timestamps are
 * mapped onto it). A value that could not be measured is flagged invalid with a reason; it is
 * never 0 by convention. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pp_cpu_counters.h"
#include "pp_gpu_counters.h"

/* snprintf(dst, size, "%s", src) without printf's cost, for the pass and label names that
 * every pass boundary and submission copies (docs/performance.md). size > 0. */
static inline void pp_model_name_copy(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "(null)"; /* what glibc's printf writes for it */
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Whether two name buffers of PP_NAME_BYTES hold the same bytes, all of them: eight loads
 * and compares where strcmp would call out. A pass result's name is zero-padded (its head is
 * cleared before the name is copied), so equal names compare equal; a buffer with other bytes
 * after its terminator only compares unequal, which costs the caller its slower lookup. */
#define PP_NAME_BYTES 64
static inline bool pp_model_name_same(const char *a, const char *b)
{
	uint64_t d = 0;
	for (size_t k = 0; k < PP_NAME_BYTES; k += 8) {
		uint64_t x, y;
		memcpy(&x, a + k, 8);
		memcpy(&y, b + k, 8);
		d |= x ^ y;
	}
	return d == 0;
}

/* pp_model_name_copy into a buffer of PP_NAME_BYTES, zero-padded after the name: such a buffer
 * is copied whole where it names a pass (the submit's pass results: one copy of 64 bytes
 * rather than a length and a copy of it). */
static inline void pp_model_name_copy_padded(char dst[PP_NAME_BYTES], const char *src)
{
	memset(dst, 0, PP_NAME_BYTES); /* a constant size: a few stores, not a call */
	pp_model_name_copy(dst, PP_NAME_BYTES, src);
}

enum pp_pass_kind {
	PP_PASS_RENDER = 0,
	PP_PASS_COMPUTE,  /* work outside render passes that dispatched */
	PP_PASS_TRANSFER, /* work outside render passes with copies/blits/clears/resolves only */
};

enum pp_name_source {
	PP_NAME_LABEL = 0,  /* innermost open VK_EXT_debug_utils label */
	PP_NAME_OBJECT,     /* debug object name of the render pass / framebuffer / attachment */
	PP_NAME_GENERATED,  /* stable generated name, e.g. "render#3" (pp_attr_device_pass_generated_name) */
};

/* The name of a pass with neither a label nor an object name: its kind and its position in
 * its submission ("render#3"), stable across frames for the same command stream. What the
 * model names such passes, for whoever names them elsewhere (a diagnostic's message). */
void pp_attr_device_pass_generated_name(char *out, size_t len, enum pp_pass_kind kind, uint32_t index);

/* What the application asked the GPU to do inside one pass. Counted at record time. */
struct pp_workload {
	uint64_t draws;                /* vkCmdDraw */
	uint64_t draws_indexed;        /* vkCmdDrawIndexed */
	uint64_t draws_indirect;       /* vkCmdDraw[Indexed]Indirect: calls, not the draws inside */
	uint64_t draws_indirect_count; /* vkCmdDraw[Indexed]IndirectCount calls */
	uint64_t instances;            /* sum of instanceCount over direct draws */
	uint64_t vertices;             /* vertexCount x instanceCount over vkCmdDraw */
	uint64_t indices;              /* indexCount x instanceCount over vkCmdDrawIndexed */
	uint64_t dispatches;           /* vkCmdDispatch / vkCmdDispatchBase */
	uint64_t dispatches_indirect;  /* vkCmdDispatchIndirect */
	uint64_t workgroups;           /* x*y*z over direct dispatches */
	uint64_t copies;               /* buffer/image copy, blit, resolve, update, fill calls */
	uint64_t copy_bytes;           /* bytes of buffer copies, updates and fills where known */
	uint64_t clears;               /* vkCmdClear*Image, vkCmdClearAttachments */
	uint64_t barriers;             /* vkCmdPipelineBarrier[2], vkCmdWaitEvents[2] */
};

#define PP_MAX_ATTACHMENTS 10

struct pp_attachment {
	const char *format;   /* e.g. "R8G8B8A8_UNORM"; static string */
	const char *load_op;  /* "LOAD" | "CLEAR" | "DONT_CARE" | "NONE" | "unknown" */
	const char *store_op; /* "STORE" | "DONT_CARE" | "NONE" | "unknown" */
	uint32_t width, height, layers;
	uint32_t samples;
	bool depth_stencil;
	bool resolve;
	uint64_t view;        /* the API's image view object, where known (the experiment's proofs); 0: not known */
};

/* Pipeline statistics, in the order the sinks print them. */
enum pp_stat {
	PP_STAT_IA_VERTICES = 0,
	PP_STAT_IA_PRIMITIVES,
	PP_STAT_VS_INVOCATIONS,
	PP_STAT_CLIP_INVOCATIONS,
	PP_STAT_CLIP_PRIMITIVES,
	PP_STAT_FS_INVOCATIONS,
	PP_STAT_CS_INVOCATIONS,
	PP_STAT_COUNT
};
extern const char *const pp_model_stat_names[PP_STAT_COUNT]; /* "input_assembly_vertices", ... */

/* One GPU counter of a pass, from any backend (counters/gpu/pp_gpu_counters.h): the pass's
 * generic counter set holds these. The pipeline statistics (desc->source
 * "pipeline_statistics", in PP_STAT_* order) and the pass's GPU time ("timestamps") are two
 * such backends; report.json's "pipeline_statistics" object is generated from them. */
struct pp_counter_value {
	const struct pp_gpu_counter_desc *desc; /* static or interned: outlives the device */
	struct pp_gpu_counter_value v;          /* v.valid false: unavailable_reason says why */
	const char *unavailable_reason;         /* static string when !v.valid */
	/* Sampled counters, attributed to the pass by time overlap (attr_overlap.h): v is the
	 * estimate, [lower, upper] the bounds that hold whatever the events' timing in a sample. */
	bool estimated;
	double lower, upper;
	bool shared;            /* another pass ran at the same time: samples cannot tell them apart */
	/* The frame the value was measured in: a counter set needing several hardware passes is
	 * measured over successive frames (one pass each) and merged per pass name. */
	bool other_frame;       /* true: measured in `frame`, not in this pass instance's frame */
	uint64_t frame;
};

/* A GPU interval on the host time line, or why there is none. */
struct pp_gpu_interval {
	uint64_t begin_ns, end_ns;
	bool valid;
	const char *unavailable_reason; /* static string when !valid */
};

/* CPU cost of a span of work on the application's threads (counters/cpu snapshots taken at
 * its boundaries). `valid` false: not measured. Counters are indexed like the names given to
 * pp_attr_sink_cpu_counters_set(); a counter whose bit is clear in counters_valid is unavailable. */
#define PP_CPU_COUNTERS_MAX 16
struct pp_cpu_cost {
	bool valid;
	uint64_t begin_ns;       /* CLOCK_MONOTONIC at the start of the first span */
	uint64_t wall_ns;        /* wall time of the span(s) */
	uint64_t thread_cpu_ns;  /* CPU time of the thread in the span(s) */
	uint32_t spans;          /* how many spans were summed (e.g. a pass recorded over 2 command buffers) */
	uint32_t tid;            /* the thread, or 0 when spans of several threads were summed */
	uint32_t counters_valid; /* bit i: counter[i] measured in every span */
	uint32_t counters_scaled;/* bit i: estimated, the kernel multiplexed the counter */
	uint64_t counter[PP_CPU_COUNTERS_MAX];
};

/* Adds b into a (spans summed; a counter stays valid only if valid in both). */
void pp_attr_cpu_cost_add(struct pp_cpu_cost *a, const struct pp_cpu_cost *b);

/* One draw's own timing, in per_draw_timing mode. */
struct pp_draw_timing {
	uint32_t index;            /* draw index within the pass */
	struct pp_gpu_interval gpu;
};

/* The experiment's arms (docs/diagnostics.md, "Experiment mode"). */
enum pp_exp_arm {
	PP_EXP_ARM_NONE = 0,
	PP_EXP_ARM_AS_WRITTEN, /* the application's commands as written */
	PP_EXP_ARM_FIXED,      /* with passprobe's fix of one experiment site */
};
/* Experiment sites per process: an index, one bit of pp_pass_result.exp_seen. */
#define PP_EXP_MAX_SITES 64

/* One measured instance of a pass: a pass recorded once and submitted N times gives N. */
struct pp_pass_result {
	char name[PP_NAME_BYTES];
	enum pp_name_source name_source;
	enum pp_pass_kind kind;
	const char *api;             /* "vkCmdBeginRenderPass", "vkCmdBeginRenderPass2",
	                                "vkCmdBeginRendering", "outside-render-pass", "vkCmdExecuteCommands" */
	uint32_t submission;         /* index into the frame's submissions */
	uint32_t command_buffer;     /* index of the command buffer within its submission (queue order) */
	uint32_t subpasses;
	bool suspended_resumed;      /* dynamic rendering split over command buffers */
	uint32_t secondaries;        /* secondary command buffers executed inside */
	/* NULL: the application's. Else recorded by a layer above passprobe for its own purposes
	 * (RenderDoc's capture copies, an overlay's HUD): that layer's library file name, static. */
	const char *recorded_by;
	uint32_t nattachments;       /* of attachments[], at the end */
	/* After the fields above, which describe the pass alike frame after frame where the program
	 * records it alike (the recording's writer compares them whole: rec_write.c), since
	 * command buffers used in turn change it every frame. */
	uint64_t command_buffer_handle;

	struct pp_gpu_interval gpu;  /* from the pass's begin to end timestamp */
	/* gpu time not shared with another pass of the same submission: where k passes overlap,
	 * each gets 1/k of the overlapped time. NAN-free: meaningful only when gpu.valid. */
	uint64_t gpu_exclusive_ns;
	bool overlapped;             /* another pass's interval intersected this one */

	/* The pass's GPU counters, any backend's (owned by the frame; may be 0/NULL). */
	uint32_t ncounters;
	struct pp_counter_value *counters;
	/* Until pp_model_frame_result_counters_resolve: the timestamps backend's value (from `gpu`)
	 * and the pipeline statistics (stats, stats_valid, stats_reason below) are not yet the
	 * first 1 + PP_STAT_COUNT entries of `counters`. The report puts them there: an
	 * allocation and eight entries per pass that the application's process need not make. */
	bool counters_pending;

	/* Until pp_attr_cpu_frame_result_resolve: `cpu` is still the recording thread's two snapshots
	 * around the pass (cpu_begin, cpu_end below), subtracted where the report is made
	 * (`passprobe report`, and in the process only for report.json's frames): the
	 * application's thread takes the snapshots and nothing more. */
	bool cpu_pending;
	/* The span begins where the previous pass's ended: at this[-1].cpu_end, not cpu_begin (a
	 * frame's passes stay in order in one array). Read the begin with pp_model_pass_cpu_begin(). */
	bool cpu_begin_prev;
	bool recording_reused;       /* its command buffer was submitted before without re-recording: the
	                                recording cost was counted in that earlier frame */
	/* The experiment (docs/diagnostics.md, "Experiment mode"): the arm of the frame its
	 * recording was begun in (PP_EXP_ARM_*), the experiment sites (bit = index) whose barriers
	 * were recorded right before it (since the pass before it in its recording), and those of
	 * them passprobe rewrote. */
	uint8_t exp_arm;
	uint64_t exp_seen, exp_fixed;

	uint32_t ndraw_timings;      /* per_draw_timing mode only */
	struct pp_draw_timing *draw_timings; /* owned by the frame */

	/* The large parts last: the model clears what is above (PP_PASS_RESULT_HEAD) for each
	 * pass and fills these itself: `work` copied whole, `cpu` marked not measured (its other
	 * fields are read only when it is valid), the rest as far as the fields above say. */
	struct pp_workload work;
	struct pp_cpu_cost cpu;      /* recording it: from its begin to its end command, on the recording thread(s) */
	struct pp_attachment attachments[PP_MAX_ATTACHMENTS]; /* the first nattachments */
	struct pp_cpu_snapshot cpu_begin, cpu_end;             /* while cpu_pending */
	uint64_t stats[PP_STAT_COUNT];                         /* while counters_pending: */
	uint32_t stats_valid;                                  /* bit i: stats[i] measured */
	const char *stats_reason;                              /* why not, where not */
};
#define PP_PASS_RESULT_HEAD offsetof(struct pp_pass_result, work)

/* Where a pending pass's CPU span begins (cpu_pending, cpu_begin_prev). */
static inline const struct pp_cpu_snapshot *pp_model_pass_cpu_begin(const struct pp_pass_result *p)
{
	return p->cpu_begin_prev ? &p[-1].cpu_end : &p->cpu_begin;
}

struct pp_submission_result {
	uint64_t seq;                /* device-wide submission sequence number */
	const char *api;             /* "vkQueueSubmit" | "vkQueueSubmit2" */
	uint64_t queue_handle;
	uint32_t queue_family, queue_index;
	uint32_t tid;                /* submitting thread */
	uint64_t cpu_begin_ns, cpu_end_ns; /* the submit call itself, host time line */
	struct pp_gpu_interval gpu;  /* first pass begin to last pass end of this submission */
	uint32_t first_pass, npasses;/* range in the frame's passes array */
	uint32_t command_buffers;
	struct pp_cpu_cost cpu;      /* the vkQueueSubmit* call itself */
};

struct pp_frame_result {
	uint64_t index;              /* per device, from 0 */
	uint32_t device_id;          /* from pp_attr_sink_device_register */
	const char *delimiter;       /* what closed the frame: "present", "fence", "submit", "label", "shutdown" */
	uint64_t cpu_begin_ns, cpu_end_ns; /* first submit call begin to the delimiter */
	struct pp_cpu_cost cpu;      /* recording of its passes, its submit calls, presents and blocking calls, summed */
	struct pp_cpu_cost blocked;  /* the application's blocking calls (fence, idle and WAIT_BIT query waits) */
	size_t nsubmissions;
	struct pp_submission_result *submissions;
	size_t npasses;
	struct pp_pass_result *passes;
	/* Capture windows and sampled GPU timing (docs/settings.md, "Capture windows"): only
	 * captured frames reach the sinks. */
	bool gpu_timed;              /* chosen for GPU timing (gpu_timing_interval); false: passes
	                                have workload and CPU data, no GPU times */
	const char *captured_by;     /* "frames" (the frames setting), "signal", "trigger_file"; static */
	uint32_t recordings_outside_window; /* recordings begun before the window opened and
	                                       submitted in it: their passes are not in this frame */
	bool renderdoc;              /* RenderDoc captured this frame (docs/frame-debuggers.md) */
	bool renderdoc_requested;    /* passprobe asked RenderDoc to (renderdoc_frames) */
};

/* Appends the pipeline statistics to p's counter set (PP_STAT_* order): value i valid when bit
 * i of `valid` is set, else unavailable with `reason` ("not measured" when NULL). Returns 0 or
 * -ENOMEM (p unchanged). */
int pp_model_pass_statistics_set(struct pp_pass_result *p, const uint64_t v[PP_STAT_COUNT], uint32_t valid,
			   const char *reason);
/* Appends n counters to p's set; returns the first of them (zeroed but for desc), or NULL when
 * out of memory (p unchanged). */
struct pp_counter_value *pp_model_pass_counters_add(struct pp_pass_result *p, const struct pp_gpu_counter_desc *const *descs,
					      uint32_t n);
/* The counter of p from `source` named `name`, or NULL. */
const struct pp_counter_value *pp_model_pass_counter_find(const struct pp_pass_result *p, const char *source,
						    const char *name);

/* A frame, zeroed, with room for nsubmissions submissions (`submissions`, zeroed) in the same
 * allocation: a frame is made every frame, and one allocation costs less than two. NULL without
 * memory. */
struct pp_frame_result *pp_model_frame_result_alloc(size_t nsubmissions);

/* Frees a frame and everything it owns. */
void pp_model_frame_result_free(struct pp_frame_result *f);

/* Turns the passes' pending CPU spans (cpu_pending) into their `cpu` and adds them to the
 * frame's `cpu` (a recording submitted again counted in its first frame, as before). Where a
 * report is made of the frame (`passprobe report`; in the process, report.json's frames)
 * before it is formatted. Idempotent. */
void pp_attr_cpu_frame_result_resolve(struct pp_frame_result *f);

/* Puts the passes' pending timestamps and statistics values (counters_pending) at the front
 * of their `counters`, as pp_model_pass_statistics_set would have. Where a report is made of
 * the frame, as pp_attr_cpu_frame_result_resolve. Out of memory leaves a pass's set without
 * them, which the sinks show as not measured. Idempotent. */
void pp_model_frame_result_counters_resolve(struct pp_frame_result *f);

/* A device as the sinks describe it. */
struct pp_device_info {
	char name[128];
	char driver[128];
	uint32_t vendor_id, device_id;
	double timestamp_period_ns;  /* ns per tick */
	uint32_t timestamp_valid_bits; /* of the first graphics queue family; 0: no timestamps */
	const char *time_domain;     /* "calibrated (VK_EXT_calibrated_timestamps, CLOCK_MONOTONIC)"
	                                or "estimated (aligned to submit time)" or "none" */
	bool pipeline_statistics;
	const char *query_results;   /* static: how GPU query results are read (PP_QUERY_RESULTS_*), or NULL */
	const char *notes;           /* static, may be NULL */
	/* static: why this driver's per-pass GPU times are not pass durations, or NULL (the
	 * summary prints it as a note) */
	const char *gpu_time_caveat;
};
#define PP_QUERY_RESULTS_COPIED "copied to host memory on the GPU (copy_results)"
#define PP_QUERY_RESULTS_READ "read with vkGetQueryPoolResults"


/* The experiment (docs/diagnostics.md, "Experiment mode"): what one arm measured of one
 * experiment site, per frame of the arm in which the site occurred. Percentiles are exact
 * (nearest rank) over the arm's latest PP_EXP_SAMPLES frames; n 0: not measured. */
enum pp_exp_metric {
	PP_EXP_FRAME_GPU = 0, /* the frame's GPU time */
	PP_EXP_PASSES_GPU,    /* GPU time of the passes right after the site's barriers */
	PP_EXP_CPU_RECORD,    /* CPU time recording the frame's passes (the barriers between them included) */
	PP_EXP_METRICS
};
#define PP_EXP_SAMPLES 512
struct pp_exp_stat {
	uint32_t n;
	uint64_t p25, p50, p75;
};
struct pp_exp_arm_stats {
	uint64_t frames; /* frames of the arm in which the site occurred */
	struct pp_exp_stat m[PP_EXP_METRICS];
};
enum pp_diag_exp_state {
	PP_DIAG_EXP_STATE_NONE = 0, /* no experiment here (off, not a barrier finding) */
	PP_DIAG_EXP_STATE_CANDIDATE, /* its fix is proven, not yet in enough frames */
	PP_DIAG_EXP_STATE_IN,        /* in the experiment */
	PP_DIAG_EXP_STATE_OUT,       /* not in the experiment (exp_detail says why) */
	PP_DIAG_EXP_STATE_WITHDRAWN, /* taken out after it was rewritten (exp_detail says why) */
};

/* One deduplicated diagnostic site (attribution/diag/diag_sites.c; docs/diagnostics.md): a rule
 * that fired at one place, with how often and what it cost. */
struct pp_diagnostic {
	char id[48];                 /* stable: "PASSPROBE-Barrier-FullPipelineDrain", ... */
	uint32_t device_id;
	char site[192];              /* barriers: code location, then the first occurrence's pass, command buffer and
	                              * call index; waits: caller + function + waiting thread */
	char message[512];
	char suggestion[384];
	uint64_t count;              /* occurrences (a re-submitted recording counts again) */
	uint64_t frames;             /* distinct frames it occurred in */
	uint64_t first_frame, last_frame;
	/* Cost per frame it was measured in: barriers: the GPU stall at the barrier (TOP_OF_PIPE
	 * timestamps on either side, docs/diagnostics.md); blocking calls: CPU time blocked. */
	bool cost_valid;
	uint64_t cost_ns;
	const char *cost_kind;        /* "gpu_barrier_stall" | "cpu_blocked" (static) */
	const char *cost_unavailable; /* static, when !cost_valid */
	double share_of_frame;        /* cost_ns / mean frame interval; < 0 when unknown */
	/* Blocking calls: GPU idle caused per occurrence (last pass end before the wait to the
	 * next submission's first pass begin), mean over the occurrences measured. */
	bool gpu_idle_valid;
	uint64_t gpu_idle_ns;
	const char *gpu_idle_unavailable; /* static, when !gpu_idle_valid (NULL for barriers) */
	/* Blocking calls: the thread that waited (its first occurrence), 0 / "" for barriers. */
	uint32_t thread_id;
	char thread_name[32];
	/* Barriers keyed by code location: distinct command buffers it was counted in (told
	 * apart up to PP_DIAGNOSTIC_MAX_CBS; that many means at least that many); 0 otherwise. */
	uint32_t command_buffers;
	/* What fixing it would gain (docs/diagnostics.md, "Severity"): "warning" (worth a
	 * developer's time) or "info" (little or nothing to gain), static; and why, for people. */
	const char *severity;
	char verdict[320];
	/* The experiment: exp_state (enum pp_diag_exp_state); exp_detail the fix (candidate, in,
	 * withdrawn) and, out or withdrawn, why; exp_site the experiment site (bit of
	 * pp_pass_result.exp_seen), -1: none; exp_fixed occurrences rewritten. The arms, [0] as
	 * written and [1] fixed, and the frames with the site in neither (partly rewritten, or
	 * recordings of both arms) are the sinks' (attr_experiment.c). */
	uint8_t exp_state;
	int32_t exp_site;
	char exp_detail[256];
	char exp_why[256];
	uint64_t exp_fixed;
	struct pp_exp_arm_stats exp_arms[2];
	uint64_t exp_frames_neither;
};
#define PP_DIAGNOSTIC_MAX_CBS 16

/* One occurrence of a diagnostic in a frame RenderDoc captured (docs/frame-debuggers.md): the
 * call it sits on, so that `passprobe renderdoc annotate` can put it at that call's event in the
 * capture. The texts are its site's (struct pp_diagnostic). */
struct pp_diagnostic_occurrence {
	char id[48];
	char severity[16];           /* "warning" | "info" */
	char message[512];
	char suggestion[384];
	char call[48];               /* the call it sits on: "vkCmdPipelineBarrier", "vkCmdPipelineBarrier2", ... */
	uint32_t call_index;         /* among the calls named `call` in its command buffer, from 0 */
	uint64_t command_buffer;     /* the command buffer's handle; 0: a call outside command buffers */
};
