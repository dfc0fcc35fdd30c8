#pragma once
/* Vulkan GPU timing backend: layer-owned timestamp and pipeline-statistics query pools, carved
 * into chunks that command buffer recordings own; results read without waiting and mapped onto
 * the host CLOCK_MONOTONIC time line. Knows nothing of passes or frames. */
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "pp_model.h"

#define PP_GPU_CHUNK_SLOTS 64u
#define PP_GPU_NO_SLOT UINT32_MAX

struct pp_gpu_timer_funcs {
	PFN_vkCreateQueryPool CreateQueryPool;
	PFN_vkDestroyQueryPool DestroyQueryPool;
	PFN_vkGetQueryPoolResults GetQueryPoolResults;
	PFN_vkResetQueryPool ResetQueryPool;
	PFN_vkCmdWriteTimestamp CmdWriteTimestamp;
	PFN_vkCmdBeginQuery CmdBeginQuery;
	PFN_vkCmdEndQuery CmdEndQuery;
	PFN_vkGetCalibratedTimestampsEXT GetCalibratedTimestampsEXT; /* NULL: not calibrated */
};

struct pp_gpu_timer_config {
	VkDevice device;
	struct pp_gpu_timer_funcs vk;
	double timestamp_period;   /* ns per tick */
	uint32_t timestamp_valid_bits; /* of the queue families used; 0 disables timestamps */
	bool pipeline_statistics;
	bool host_time_domain_raw; /* calibrate against CLOCK_MONOTONIC_RAW instead */
	uint32_t max_chunks;       /* bound on layer query memory: chunks of each kind */
};

enum pp_gpu_slot_kind { PP_GPU_TIMESTAMP = 0, PP_GPU_STATISTICS = 1 };

struct pp_gpu_timer;

struct pp_gpu_timer *pp_gpu_timer_create(const struct pp_gpu_timer_config *cfg);
void pp_gpu_timer_destroy(struct pp_gpu_timer *t);

/* Chunks: a recording takes one when it needs slots, and gives all back when the command
 * buffer is reset, re-recorded or freed (the application guarantees it is no longer pending
 * then, so the host reset is valid). Returns PP_GPU_NO_SLOT when the budget is spent. */
uint32_t pp_gpu_timer_chunk_alloc(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind);
void pp_gpu_timer_chunk_free(struct pp_gpu_timer *t, uint32_t chunk);
/* Host-resets a chunk so it can be written again (re-submission of the same recording). */
void pp_gpu_timer_chunk_reset(struct pp_gpu_timer *t, uint32_t chunk);
static inline uint32_t pp_gpu_slot(uint32_t chunk, uint32_t i)
{
	return chunk * PP_GPU_CHUNK_SLOTS + i;
}

/* Recording commands into an application command buffer. */
void pp_gpu_timer_write(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot, VkPipelineStageFlagBits stage);
void pp_gpu_timer_stats_begin(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot);
void pp_gpu_timer_stats_end(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot);

/* Non-blocking reads, for attribution (struct pp_attr_gpu_ops). */
void pp_gpu_timer_read_timestamps(void *timer, const uint32_t *slots, uint32_t n, uint64_t *ns, uint8_t *avail);
bool pp_gpu_timer_read_statistics(void *timer, uint32_t slot, uint64_t out[PP_STAT_COUNT], uint32_t *valid);

/* Whether a read returned VK_ERROR_DEVICE_LOST: no further result will arrive. */
bool pp_gpu_timer_lost(void *timer);

/* "calibrated (...)" or "estimated (...)": how GPU times were put on the host time line. */
const char *pp_gpu_timer_time_domain(const struct pp_gpu_timer *t);
/* Tells the estimator when work was submitted, for the uncalibrated fallback. */
void pp_gpu_timer_note_submit(struct pp_gpu_timer *t, uint64_t host_ns);
