#pragma once
/* Vulkan GPU timing backend: layer-owned timestamp and pipeline-statistics query pools, carved
 * into chunks that command buffer recordings own; results read without waiting and mapped onto
 * the host CLOCK_MONOTONIC time line. Knows nothing of passes or frames. */
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "pp_gpu_counters.h"

#define PP_GPU_CHUNK_SLOTS 64u
#define PP_GPU_NO_SLOT UINT32_MAX

struct pp_gpu_timer_funcs {
	PFN_vkCreateQueryPool CreateQueryPool;
	PFN_vkDestroyQueryPool DestroyQueryPool;
	PFN_vkGetQueryPoolResults GetQueryPoolResults;
	/* NULL: no host query reset on this device. Chunks are then never reset from the host;
	 * the caller resets them on the GPU before every execution that writes them
	 * (pp_gpu_vk_timer_reset_cmd) and copies every result to host memory. */
	PFN_vkResetQueryPool ResetQueryPool;
	PFN_vkCmdWriteTimestamp CmdWriteTimestamp;
	PFN_vkCmdBeginQuery CmdBeginQuery;
	PFN_vkCmdEndQuery CmdEndQuery;
	PFN_vkGetCalibratedTimestampsEXT GetCalibratedTimestampsEXT; /* NULL: not calibrated */
	/* For results copied on the GPU into host memory (all may be NULL: results are then read
	 * with vkGetQueryPoolResults). */
	PFN_vkCmdCopyQueryPoolResults CmdCopyQueryPoolResults;
	PFN_vkCmdPipelineBarrier CmdPipelineBarrier;
	PFN_vkCreateBuffer CreateBuffer;
	PFN_vkDestroyBuffer DestroyBuffer;
	PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
	PFN_vkAllocateMemory AllocateMemory;
	PFN_vkFreeMemory FreeMemory;
	PFN_vkBindBufferMemory BindBufferMemory;
	PFN_vkMapMemory MapMemory;
	PFN_vkCmdResetQueryPool CmdResetQueryPool; /* GPU-side resets (SIMULTANEOUS_USE recordings) */
};

struct pp_gpu_timer_config {
	VkDevice device;
	struct pp_gpu_timer_funcs vk;
	double timestamp_period;   /* ns per tick */
	uint32_t timestamp_valid_bits; /* of the queue families used; 0 disables timestamps */
	bool pipeline_statistics;
	bool host_time_domain_raw; /* calibrate against CLOCK_MONOTONIC_RAW instead */
	uint32_t max_chunks;       /* bound on layer query memory: chunks of each kind */
	bool copy_results;         /* recordings copy their results at their end (copy_results setting) */
	VkPhysicalDeviceMemoryProperties memory; /* to find host-visible coherent memory */
};

enum pp_gpu_slot_kind { PP_GPU_TIMESTAMP = 0, PP_GPU_STATISTICS = 1 };

/* The pipeline statistics a statistics slot measures, in result order (their
 * VK_QUERY_PIPELINE_STATISTIC_* bits ascending). The timer's own list, so that counters/ needs
 * no attribution header; intercept/vulkan converts to the model's PP_STAT_* at the seam. */
enum pp_gpu_stat {
	PP_GPU_STAT_IA_VERTICES = 0,
	PP_GPU_STAT_IA_PRIMITIVES,
	PP_GPU_STAT_VS_INVOCATIONS,
	PP_GPU_STAT_CLIP_INVOCATIONS,
	PP_GPU_STAT_CLIP_PRIMITIVES,
	PP_GPU_STAT_FS_INVOCATIONS,
	PP_GPU_STAT_CS_INVOCATIONS,
	PP_GPU_STAT_COUNT
};

struct pp_gpu_timer;

struct pp_gpu_timer *pp_gpu_vk_timer_create(const struct pp_gpu_timer_config *cfg);
void pp_gpu_vk_timer_destroy(struct pp_gpu_timer *t);

/* Chunks: a recording takes one when it needs slots, and gives all back when the command
 * buffer is reset, re-recorded or freed (the application guarantees it is no longer pending
 * then, so the host reset is valid). Returns PP_GPU_NO_SLOT when the budget is spent. */
uint32_t pp_gpu_vk_timer_chunk_alloc(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind);
void pp_gpu_vk_timer_chunk_free(struct pp_gpu_timer *t, uint32_t chunk);
/* Why pp_gpu_vk_timer_chunk_alloc gave no chunk. */
const char *pp_gpu_vk_timer_no_slot_reason(const struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind);
/* Host-resets a chunk so it can be written again (re-submission of the same recording), and
 * clears its host copy; without host resets, only the latter. */
void pp_gpu_vk_timer_chunk_reset(struct pp_gpu_timer *t, uint32_t chunk);
static inline uint32_t pp_gpu_vk_timer_slot(uint32_t chunk, uint32_t i)
{
	return chunk * PP_GPU_CHUNK_SLOTS + i;
}

/* Copies a chunk's first `count` results into host memory at the end of a command buffer, so
 * they are read from memory, not with vkGetQueryPoolResults (which some drivers, lavapipe
 * among them, implement with a device idle wait). The copy waits on the GPU for each query,
 * so every one of those slots must be written by the same command buffer. Returns false when
 * the chunk has no host copy (its results are then read with vkGetQueryPoolResults). */
bool pp_gpu_vk_timer_copy_chunk(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t chunk, uint32_t count);
/* Whether recordings copy their results at their end (the copy_results setting as decided for
 * the device); a pool whose host buffer cannot be made still falls back to
 * vkGetQueryPoolResults (logged). */
bool pp_gpu_vk_timer_copies(const struct pp_gpu_timer *t);
/* Copies `src`'s first `count` results into the host memory of chunk `dst` (same kind)
 * instead of src's own: per-execution copies of a recording whose executions may overlap
 * (SIMULTANEOUS_USE). dst's queries are never used; only its host memory is. False when dst
 * has no host memory or the kinds differ. */
bool pp_gpu_vk_timer_copy_chunk_to(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t src, uint32_t count,
				uint32_t dst);
/* Records a GPU-side reset of a chunk's queries (vkCmdResetQueryPool), for recordings that
 * cannot be host-reset because an execution may still be pending. False without the function. */
bool pp_gpu_vk_timer_reset_cmd(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t chunk);
enum pp_gpu_slot_kind pp_gpu_vk_timer_chunk_kind(struct pp_gpu_timer *t, uint32_t chunk);
/* Whether chunk has host memory for copied results. */
bool pp_gpu_vk_timer_chunk_has_host_copy(struct pp_gpu_timer *t, uint32_t chunk);
/* After the copies of a command buffer: makes them visible to host reads. */
void pp_gpu_vk_timer_copy_barrier(struct pp_gpu_timer *t, VkCommandBuffer cb);

/* Recording commands into an application command buffer. */
void pp_gpu_vk_timer_write(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot, VkPipelineStageFlagBits stage);
void pp_gpu_vk_timer_stats_begin(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot);
void pp_gpu_vk_timer_stats_end(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot);

/* Non-blocking reads, for attribution (struct pp_attr_gpu_ops). submitted_ns: when the
 * slots' work was submitted (the submit call's begin, host time line), 0 when unknown; the
 * uncalibrated estimate never places that work before it. */
void pp_gpu_vk_timer_read_timestamps(void *timer, const uint32_t *slots, uint32_t n, uint64_t submitted_ns, uint64_t *ns,
				  uint8_t *avail);
bool pp_gpu_vk_timer_read_statistics(void *timer, uint32_t slot, uint64_t out[PP_GPU_STAT_COUNT], uint32_t *valid);

/* Whether the device was lost (a read, or a call of the application's, returned
 * VK_ERROR_DEVICE_LOST): no further result will arrive. */
bool pp_gpu_vk_timer_lost(void *timer);
/* An application call returned VK_ERROR_DEVICE_LOST: says so once, results stop arriving. */
void pp_gpu_vk_timer_note_device_lost(struct pp_gpu_timer *t, const char *call);

/* "calibrated (...)" or "estimated (...)": how GPU times were put on the host time line. */
const char *pp_gpu_vk_timer_time_domain(const struct pp_gpu_timer *t);
/* Tells the estimator when work was submitted, for the uncalibrated fallback. */
void pp_gpu_vk_timer_note_submit(struct pp_gpu_timer *t, uint64_t host_ns);

/* The timer's two GPU counter backends (pp_gpu_counters.h): PP_GPU_TIMESTAMP, one counter (the
 * scope's GPU time; its scope_begin/scope_end write the TOP_OF_PIPE / BOTTOM_OF_PIPE
 * timestamps, read in pairs with pp_gpu_vk_timer_read_timestamps, which puts them on the host
 * time line), and PP_GPU_STATISTICS, the seven pipeline statistics (scope_begin/end: the
 * query's begin and end; scope_read reads them). Their slots are the timer's slots of that
 * kind. Owned by the timer; NULL when t is. */
const struct pp_gpu_counter_backend *pp_gpu_vk_timer_backend(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind);
/* Fills the two (gpu_vk_backends.c), for pp_gpu_vk_timer_create. */
void pp_gpu_vk_backends_init(struct pp_gpu_timer *t, struct pp_gpu_counter_backend out[2]);
