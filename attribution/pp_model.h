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

enum pp_pass_kind {
	PP_PASS_RENDER = 0,
	PP_PASS_COMPUTE,  /* work outside render passes that dispatched */
	PP_PASS_TRANSFER, /* work outside render passes with copies/blits/clears/resolves only */
};

enum pp_name_source {
	PP_NAME_LABEL = 0,  /* innermost open VK_EXT_debug_utils label */
	PP_NAME_OBJECT,     /* debug object name of the render pass / framebuffer / attachment */
	PP_NAME_GENERATED,  /* stable generated name, e.g. "renderpass#3" */
};

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
extern const char *const pp_stat_names[PP_STAT_COUNT]; /* "input_assembly_vertices", ... */

/* A GPU interval on the host time line, or why there is none. */
struct pp_gpu_interval {
	uint64_t begin_ns, end_ns;
	bool valid;
	const char *unavailable_reason; /* static string when !valid */
};

/* One draw's own timing, in per_draw_timing mode. */
struct pp_draw_timing {
	uint32_t index;            /* draw index within the pass */
	struct pp_gpu_interval gpu;
};

/* One measured instance of a pass: a pass recorded once and submitted N times gives N. */
struct pp_pass_result {
	char name[64];
	enum pp_name_source name_source;
	enum pp_pass_kind kind;
	const char *api;             /* "vkCmdBeginRenderPass", "vkCmdBeginRenderPass2",
	                                "vkCmdBeginRendering", "outside-render-pass", "vkCmdExecuteCommands" */
	uint32_t submission;         /* index into the frame's submissions */
	uint32_t command_buffer;     /* index of the command buffer within its submission (queue order) */
	uint64_t command_buffer_handle;
	uint32_t subpasses;
	bool suspended_resumed;      /* dynamic rendering split over command buffers */
	uint32_t secondaries;        /* secondary command buffers executed inside */
	struct pp_workload work;
	uint32_t nattachments;
	struct pp_attachment attachments[PP_MAX_ATTACHMENTS];

	struct pp_gpu_interval gpu;  /* from the pass's begin to end timestamp */
	/* gpu time not shared with another pass of the same submission: where k passes overlap,
	 * each gets 1/k of the overlapped time. NAN-free: meaningful only when gpu.valid. */
	uint64_t gpu_exclusive_ns;
	bool overlapped;             /* another pass's interval intersected this one */

	uint64_t stats[PP_STAT_COUNT];
	uint32_t stats_valid;        /* bit i: stats[i] measured */
	const char *stats_unavailable_reason;

	uint32_t ndraw_timings;      /* per_draw_timing mode only */
	struct pp_draw_timing *draw_timings; /* owned by the frame */
};

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
};

struct pp_frame_result {
	uint64_t index;              /* per device, from 0 */
	uint32_t device_id;          /* from pp_sink_device_register */
	const char *delimiter;       /* what closed the frame: "present", "fence", "submit", "label", "shutdown" */
	uint64_t cpu_begin_ns, cpu_end_ns; /* first submit call begin to the delimiter */
	size_t nsubmissions;
	struct pp_submission_result *submissions;
	size_t npasses;
	struct pp_pass_result *passes;
};

/* Frees a frame and everything it owns. */
void pp_frame_result_free(struct pp_frame_result *f);

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
	const char *notes;           /* static, may be NULL */
};
