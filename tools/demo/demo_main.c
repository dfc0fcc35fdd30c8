/* passprobe-demo: renders shadow, gbuffer, lighting, postprocess and composite passes
 * offscreen every frame; see docs/demo.md. */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>

#include "tool_options.h"

static void demo_api_select(struct demo_context *ctx)
{
	enum demo_api *api = ctx->api;
	api[DEMO_PASS_POSTPROCESS] = DEMO_API_NONE;
	switch (ctx->opt.style) {
	case DEMO_STYLE_DYNAMIC_ONLY:
		api[DEMO_PASS_SHADOW] = api[DEMO_PASS_GBUFFER] = DEMO_API_DYNAMIC;
		api[DEMO_PASS_LIGHTING] = api[DEMO_PASS_COMPOSITE] = DEMO_API_DYNAMIC;
		break;
	case DEMO_STYLE_RENDERPASS_ONLY:
		api[DEMO_PASS_SHADOW] = api[DEMO_PASS_GBUFFER] = DEMO_API_RENDER_PASS;
		api[DEMO_PASS_LIGHTING] = api[DEMO_PASS_COMPOSITE] = DEMO_API_RENDER_PASS2;
		break;
	case DEMO_STYLE_MIXED:
	default:
		api[DEMO_PASS_SHADOW] = DEMO_API_RENDER_PASS;
		api[DEMO_PASS_GBUFFER] = DEMO_API_DYNAMIC;
		api[DEMO_PASS_LIGHTING] = DEMO_API_RENDER_PASS2;
		api[DEMO_PASS_COMPOSITE] = DEMO_API_DYNAMIC;
		break;
	}
}

/* Called once the slot's fence has signalled, so its queries are available: reading them
 * here never waits (the well-behaved counterpart of --misuse-query-wait). */
static VkResult demo_timings_collect(struct demo_context *ctx, uint32_t slot_index)
{
	uint64_t ticks[DEMO_PASS_COUNT * 2];
	VkResult r = vkGetQueryPoolResults(ctx->device, ctx->timing_pool, slot_index * DEMO_PASS_COUNT * 2,
					   DEMO_PASS_COUNT * 2, sizeof(ticks), ticks, sizeof(uint64_t),
					   VK_QUERY_RESULT_64_BIT);
	if (r == VK_NOT_READY)
		return VK_SUCCESS;
	if (r != VK_SUCCESS)
		return demo_util_fail("vkGetQueryPoolResults", r);
	uint64_t mask = ctx->timestamp_valid_bits >= 64 ? UINT64_MAX : (1ull << ctx->timestamp_valid_bits) - 1;
	double period = ctx->properties.limits.timestampPeriod;
	for (int p = 0; p < DEMO_PASS_COUNT; p++) {
		uint64_t delta = ((ticks[2 * p + 1] & mask) - (ticks[2 * p] & mask)) & mask;
		ctx->timing_ns[p] += (uint64_t)((double)delta * period);
	}
	ctx->timing_frames++;
	return VK_SUCCESS;
}

static VkResult demo_submit(struct demo_context *ctx, struct demo_frame_slot *slot)
{
	if (ctx->opt.submit2) {
		const VkCommandBufferSubmitInfo cmd = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
			.commandBuffer = slot->cmd,
		};
		const VkSubmitInfo2 submit = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
			.commandBufferInfoCount = 1,
			.pCommandBufferInfos = &cmd,
		};
		VkResult result = ctx->queue_submit2(ctx->queue, 1, &submit, slot->fence);
		if (result < 0)
			return demo_util_fail("vkQueueSubmit2", result);
	} else {
		const VkSubmitInfo submit = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &slot->cmd,
		};
		DEMO_TRY(vkQueueSubmit, (ctx->queue, 1, &submit, slot->fence));
	}
	slot->submitted = true;
	return VK_SUCCESS;
}

/* Waits for the frame last submitted in the slot, if it has not been waited for, and collects
 * its timings. */
static VkResult demo_slot_wait(struct demo_context *ctx, uint32_t slot_index)
{
	struct demo_frame_slot *slot = &ctx->slots[slot_index];
	if (!slot->submitted)
		return VK_SUCCESS;
	DEMO_TRY(vkWaitForFences, (ctx->device, 1, &slot->fence, VK_TRUE, UINT64_MAX));
	slot->submitted = false;
	return ctx->timing_pool ? demo_timings_collect(ctx, slot_index) : VK_SUCCESS;
}

static VkResult demo_frame_run(struct demo_context *ctx, uint32_t frame)
{
	uint32_t slot_index = frame % ctx->opt.frames_in_flight;
	struct demo_frame_slot *slot = &ctx->slots[slot_index];

	/* Reuse the slot of frame (frame - frames_in_flight) only once the GPU is done with it. */
	VkResult r = demo_slot_wait(ctx, slot_index);
	if (r != VK_SUCCESS)
		return r;
	DEMO_TRY(vkResetFences, (ctx->device, 1, &slot->fence));
	demo_math_frame_constants_fill(slot->constants, &ctx->opt, frame);
	DEMO_TRY(vkResetCommandPool, (ctx->device, slot->pool, 0));
	r = demo_record_frame(ctx, slot, slot_index, frame);
	if (r != VK_SUCCESS)
		return r;
	r = demo_submit(ctx, slot);
	if (r != VK_SUCCESS)
		return r;

	if (ctx->opt.misuse_query_wait) {
		/* Deliberately blocks the CPU until the frame just submitted has finished. */
		uint64_t ts[2];
		DEMO_TRY(vkGetQueryPoolResults, (ctx->device, ctx->misuse_pool, slot_index * 2, 2, sizeof(ts), ts,
						 sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	}
	if (ctx->opt.misuse_wait_idle)
		DEMO_TRY(vkQueueWaitIdle, (ctx->queue));
	return VK_SUCCESS;
}

/* Waits for every frame still in flight (collecting its timings) and writes the PPM. */
static VkResult demo_finish(struct demo_context *ctx)
{
	for (uint32_t i = 0; i < ctx->opt.frames_in_flight; i++) {
		VkResult r = demo_slot_wait(ctx, i);
		if (r != VK_SUCCESS)
			return r;
	}
	if (!ctx->opt.output)
		return VK_SUCCESS;

	void *data = NULL;
	DEMO_TRY(vkMapMemory, (ctx->device, ctx->readback_memory, 0, VK_WHOLE_SIZE, 0, &data));
	if (!ctx->readback_coherent) {
		const VkMappedMemoryRange range = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = ctx->readback_memory,
			.size = VK_WHOLE_SIZE,
		};
		VkResult r = vkInvalidateMappedMemoryRanges(ctx->device, 1, &range);
		if (r != VK_SUCCESS) {
			vkUnmapMemory(ctx->device, ctx->readback_memory);
			return demo_util_fail("vkInvalidateMappedMemoryRanges", r);
		}
	}
	int rc = demo_util_ppm_write(ctx->output_file, ctx->opt.output, data, ctx->opt.width, ctx->opt.height);
	ctx->output_file = NULL;
	if (rc != 0)
		remove(ctx->opt.output);
	vkUnmapMemory(ctx->device, ctx->readback_memory);
	return rc == 0 ? VK_SUCCESS : VK_ERROR_UNKNOWN;
}

static void demo_timings_print(const struct demo_context *ctx)
{
	if (!ctx->timing_frames)
		return;
	printf(DEMO_NAME ": gpu time per frame (mean of %u frames, own timestamps):", ctx->timing_frames);
	for (int p = 0; p < DEMO_PASS_COUNT; p++)
		printf(" %s %.3f ms", demo_options_pass_names[p], (double)ctx->timing_ns[p] / ctx->timing_frames / 1e6);
	printf("\n");
}

int main(int argc, char **argv)
{
	static struct demo_context ctx; /* large; zeroed so cleanup can test every handle */
	int parsed = demo_options_parse(&ctx.opt, argc, argv);
	if (parsed != 0)
		return parsed > 0 ? 0 : 2;
	demo_api_select(&ctx);
	if (ctx.opt.output) {
		ctx.output_file = tool_options_file_open(DEMO_NAME, ctx.opt.output, "wb");
		if (!ctx.output_file)
			return 1;
	}

	VkResult r = demo_device_create(&ctx);
	if (r == VK_SUCCESS)
		r = demo_scene_create(&ctx);
	for (uint32_t frame = 0; r == VK_SUCCESS && frame < ctx.opt.frames; frame++)
		r = demo_frame_run(&ctx, frame);
	if (r == VK_SUCCESS)
		r = demo_finish(&ctx);

	/* The app may idle the device at shutdown: nothing may be destroyed while in use. */
	if (ctx.device)
		vkDeviceWaitIdle(ctx.device);
	demo_scene_destroy(&ctx);
	demo_device_destroy(&ctx);
	if (ctx.output_file) {
		/* Rendering failed before the image existed: leave no truncated PPM behind. */
		fclose(ctx.output_file);
		remove(ctx.opt.output);
	}
	if (r != VK_SUCCESS)
		return 1;

	demo_timings_print(&ctx);
	printf(DEMO_NAME ": rendered %u frames (%d passes, %u draws per render pass)\n", ctx.opt.frames,
	       DEMO_PASS_COUNT, ctx.opt.draws);
	return 0;
}
