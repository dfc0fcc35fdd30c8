/* Timestamps and pipeline statistics as two backends of the GPU counter interface
 * (pp_gpu_counters.h), over the timer's query pools. */
#include <errno.h>

#include "gpu_vk_timer.h"

_Static_assert(PP_GPU_STAT_COUNT == PP_GPU_PIPELINE_STATISTICS_COUNT, "one statistics list");

static uint32_t ts_count(void *ctx)
{
	(void)ctx;
	return 1;
}

static const struct pp_gpu_counter_desc *ts_desc(void *ctx, uint32_t i)
{
	(void)ctx;
	return i == 0 ? &pp_gpu_counters_timestamp : NULL;
}

static uint32_t one_pass(void *ctx)
{
	(void)ctx;
	return 1;
}

static void ts_begin(void *ctx, void *cmd, uint32_t slot)
{
	pp_gpu_vk_timer_write(ctx, (VkCommandBuffer)cmd, slot, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
}

static void ts_end(void *ctx, void *cmd, uint32_t slot)
{
	pp_gpu_vk_timer_write(ctx, (VkCommandBuffer)cmd, slot, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

static uint32_t stats_count(void *ctx)
{
	(void)ctx;
	return PP_GPU_PIPELINE_STATISTICS_COUNT;
}

static const struct pp_gpu_counter_desc *stats_desc(void *ctx, uint32_t i)
{
	(void)ctx;
	return i < PP_GPU_PIPELINE_STATISTICS_COUNT ? &pp_gpu_counters_pipeline_statistics[i] : NULL;
}

static void stats_begin(void *ctx, void *cmd, uint32_t slot)
{
	pp_gpu_vk_timer_stats_begin(ctx, (VkCommandBuffer)cmd, slot);
}

static void stats_end(void *ctx, void *cmd, uint32_t slot)
{
	pp_gpu_vk_timer_stats_end(ctx, (VkCommandBuffer)cmd, slot);
}

static int stats_read(void *ctx, uint32_t slot, struct pp_gpu_counter_value *out, uint32_t n)
{
	uint64_t v[PP_GPU_STAT_COUNT];
	uint32_t valid = 0;
	if (pp_gpu_vk_timer_lost(ctx))
		return -ENODEV;
	if (!pp_gpu_vk_timer_read_statistics(ctx, slot, v, &valid))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (struct pp_gpu_counter_value){
			.valid = i < PP_GPU_STAT_COUNT && ((valid >> i) & 1),
			.u = i < PP_GPU_STAT_COUNT ? v[i] : 0,
		};
	return 1;
}

void pp_gpu_vk_backends_init(struct pp_gpu_timer *t, struct pp_gpu_counter_backend out[2])
{
	out[PP_GPU_TIMESTAMP] = (struct pp_gpu_counter_backend){
		.name = "timestamps",
		.method = PP_GPU_COUNTERS_BRACKET,
		.ctx = t,
		.counter_count = ts_count,
		.counter_desc = ts_desc,
		.set_count = ts_count,
		.set_desc = ts_desc,
		.passes = one_pass,
		.scope_begin = ts_begin,
		.scope_end = ts_end,
	};
	out[PP_GPU_STATISTICS] = (struct pp_gpu_counter_backend){
		.name = "pipeline_statistics",
		.method = PP_GPU_COUNTERS_BRACKET,
		.ctx = t,
		.counter_count = stats_count,
		.counter_desc = stats_desc,
		.set_count = stats_count,
		.set_desc = stats_desc,
		.passes = one_pass,
		.scope_begin = stats_begin,
		.scope_end = stats_end,
		.scope_read = stats_read,
	};
}
