/* Records one frame: five labelled passes with the barriers between them. */
#include "demo.h"

#include <string.h>

#define STAGE(x) VK_PIPELINE_STAGE_2_##x##_BIT
#define ACCESS(x) VK_ACCESS_2_##x##_BIT
#define FRAGMENT_TESTS (STAGE(EARLY_FRAGMENT_TESTS) | STAGE(LATE_FRAGMENT_TESTS))
#define DEPTH_ATTACHMENT_RW (ACCESS(DEPTH_STENCIL_ATTACHMENT_READ) | ACCESS(DEPTH_STENCIL_ATTACHMENT_WRITE))
#define LAYOUT(x) VK_IMAGE_LAYOUT_##x

/* One image (or, with img == NULL, whole-buffer) dependency, written with synchronization2
 * masks. Only stage and access bits that also exist in Vulkan 1.0 are used, so the same
 * description can be recorded with vkCmdPipelineBarrier (the default) or, with --barrier2,
 * with vkCmdPipelineBarrier2. */
struct demo_barrier {
	const struct demo_image *img;
	VkBuffer buffer;
	VkPipelineStageFlags2 src_stage;
	VkAccessFlags2 src_access;
	VkPipelineStageFlags2 dst_stage;
	VkAccessFlags2 dst_access;
	VkImageLayout old_layout, new_layout;
};

static void demo_barriers_record(struct demo_context *ctx, VkCommandBuffer cmd, const struct demo_barrier *b,
				 uint32_t count)
{
	VkImageMemoryBarrier2 img2[8];
	VkBufferMemoryBarrier2 buf2[2];
	VkImageMemoryBarrier img1[8];
	VkBufferMemoryBarrier buf1[2];
	uint32_t nimg = 0, nbuf = 0;
	VkPipelineStageFlags src_stages = 0, dst_stages = 0;

	for (uint32_t i = 0; i < count; i++) {
		src_stages |= (VkPipelineStageFlags)b[i].src_stage;
		dst_stages |= (VkPipelineStageFlags)b[i].dst_stage;
		if (b[i].img) {
			const VkImageSubresourceRange range = { b[i].img->aspect, 0, 1, 0, 1 };
			img2[nimg] = (VkImageMemoryBarrier2){
				.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
				.srcStageMask = b[i].src_stage,
				.srcAccessMask = b[i].src_access,
				.dstStageMask = b[i].dst_stage,
				.dstAccessMask = b[i].dst_access,
				.oldLayout = b[i].old_layout,
				.newLayout = b[i].new_layout,
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.image = b[i].img->image,
				.subresourceRange = range,
			};
			img1[nimg] = (VkImageMemoryBarrier){
				.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
				.srcAccessMask = (VkAccessFlags)b[i].src_access,
				.dstAccessMask = (VkAccessFlags)b[i].dst_access,
				.oldLayout = b[i].old_layout,
				.newLayout = b[i].new_layout,
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.image = b[i].img->image,
				.subresourceRange = range,
			};
			nimg++;
		} else {
			buf2[nbuf] = (VkBufferMemoryBarrier2){
				.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
				.srcStageMask = b[i].src_stage,
				.srcAccessMask = b[i].src_access,
				.dstStageMask = b[i].dst_stage,
				.dstAccessMask = b[i].dst_access,
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.buffer = b[i].buffer,
				.size = VK_WHOLE_SIZE,
			};
			buf1[nbuf] = (VkBufferMemoryBarrier){
				.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
				.srcAccessMask = (VkAccessFlags)b[i].src_access,
				.dstAccessMask = (VkAccessFlags)b[i].dst_access,
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.buffer = b[i].buffer,
				.size = VK_WHOLE_SIZE,
			};
			nbuf++;
		}
	}

	if (ctx->opt.barrier2) {
		const VkDependencyInfo dep = {
			.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
			.bufferMemoryBarrierCount = nbuf,
			.pBufferMemoryBarriers = buf2,
			.imageMemoryBarrierCount = nimg,
			.pImageMemoryBarriers = img2,
		};
		ctx->cmd_pipeline_barrier2(cmd, &dep);
	} else {
		/* Version 1 takes one stage pair per call: the union widens each image's stages a
         * little (never narrows them), and each image keeps its own access masks. */
		vkCmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 0, NULL, nbuf, buf1, nimg, img1);
	}
}

static const float demo_label_colors[DEMO_PASS_COUNT][4] = {
	{ 0.3f, 0.3f, 0.3f, 1.0f }, { 0.2f, 0.6f, 0.2f, 1.0f }, { 0.9f, 0.8f, 0.2f, 1.0f },
	{ 0.2f, 0.4f, 0.9f, 1.0f }, { 0.8f, 0.3f, 0.8f, 1.0f },
};

static void demo_pass_begin(struct demo_context *ctx, VkCommandBuffer cmd, uint32_t slot_index, enum demo_pass pass)
{
	if (!ctx->opt.no_labels && ctx->have_debug_utils) {
		VkDebugUtilsLabelEXT label = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
			.pLabelName = demo_options_pass_names[pass],
		};
		memcpy(label.color, demo_label_colors[pass], sizeof(label.color));
		ctx->cmd_begin_label(cmd, &label);
	}
	if (ctx->timing_pool)
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->timing_pool,
				    (slot_index * DEMO_PASS_COUNT + pass) * 2);
}

static void demo_pass_end(struct demo_context *ctx, VkCommandBuffer cmd, uint32_t slot_index, enum demo_pass pass)
{
	if (ctx->timing_pool)
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->timing_pool,
				    (slot_index * DEMO_PASS_COUNT + pass) * 2 + 1);
	if (!ctx->opt.no_labels && ctx->have_debug_utils)
		ctx->cmd_end_label(cmd);
}

static void demo_rendering_begin(struct demo_context *ctx, VkCommandBuffer cmd, enum demo_pass pass)
{
	const struct demo_targets *t = &ctx->targets[pass];
	const VkRect2D area = { { 0, 0 }, t->extent };
	const uint32_t count = t->color_count + (t->depth ? 1u : 0u);
	const VkRenderPassBeginInfo rp = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = ctx->render_pass[pass],
		.framebuffer = ctx->framebuffer[pass],
		.renderArea = area,
		.clearValueCount = count,
		.pClearValues = t->clear,
	};

	switch (ctx->api[pass]) {
	case DEMO_API_RENDER_PASS:
		vkCmdBeginRenderPass(cmd, &rp, VK_SUBPASS_CONTENTS_INLINE);
		break;
	case DEMO_API_RENDER_PASS2: {
		const VkSubpassBeginInfo subpass = {
			.sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
			.contents = VK_SUBPASS_CONTENTS_INLINE,
		};
		vkCmdBeginRenderPass2(cmd, &rp, &subpass);
		break;
	}
	case DEMO_API_DYNAMIC:
	default: {
		VkRenderingAttachmentInfo att[3];
		for (uint32_t i = 0; i < count; i++) {
			VkImageLayout layout;
			const struct demo_image *img = demo_scene_attachment(t, i, &layout);
			att[i] = (VkRenderingAttachmentInfo){
				.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
				.imageView = img->view,
				.imageLayout = layout,
				.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
				.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
				.clearValue = t->clear[i],
			};
		}
		const VkRenderingInfo info = {
			.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
			.renderArea = area,
			.layerCount = 1,
			.colorAttachmentCount = t->color_count,
			.pColorAttachments = att,
			.pDepthAttachment = t->depth ? &att[t->color_count] : NULL,
		};
		ctx->cmd_begin_rendering(cmd, &info);
		break;
	}
	}

	const VkViewport viewport = { 0.0f, 0.0f, (float)t->extent.width, (float)t->extent.height, 0.0f, 1.0f };
	vkCmdSetViewport(cmd, 0, 1, &viewport);
	vkCmdSetScissor(cmd, 0, 1, &area);
}

static void demo_rendering_end(struct demo_context *ctx, VkCommandBuffer cmd, enum demo_pass pass)
{
	switch (ctx->api[pass]) {
	case DEMO_API_RENDER_PASS:
		vkCmdEndRenderPass(cmd);
		break;
	case DEMO_API_RENDER_PASS2: {
		const VkSubpassEndInfo end = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
		vkCmdEndRenderPass2(cmd, &end);
		break;
	}
	default:
		ctx->cmd_end_rendering(cmd);
		break;
	}
}

static void demo_push(struct demo_context *ctx, VkCommandBuffer cmd, VkPipelineLayout layout, VkShaderStageFlags stages,
		      enum demo_pass pass)
{
	const struct demo_push push = {
		.load = ctx->opt.load[pass],
		.load_weight = 0.0f,
		.strip_count = ctx->opt.draws,
	};
	vkCmdPushConstants(cmd, layout, stages, 0, sizeof(push), &push);
}

/* shadow and gbuffer: draw i renders tile i of the grid (DEMO_BOXES_PER_TILE instances). */
static void demo_scene_pass_record(struct demo_context *ctx, VkCommandBuffer cmd, const struct demo_frame_slot *slot,
				   enum demo_pass pass)
{
	const VkShaderStageFlags gfx = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
	demo_rendering_begin(ctx, cmd, pass);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, ctx->pipeline[pass]);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, ctx->scene_layout, 0, 1, &slot->scene_set, 0,
				NULL);
	demo_push(ctx, cmd, ctx->scene_layout, gfx, pass);
	for (uint32_t i = 0; i < ctx->opt.draws; i++)
		vkCmdDraw(cmd, DEMO_BOX_VERTICES, DEMO_BOXES_PER_TILE, 0, i * DEMO_BOXES_PER_TILE);
	demo_rendering_end(ctx, cmd, pass);
}

/* lighting and composite: draw i renders horizontal strip i of the screen. */
static void demo_strip_pass_record(struct demo_context *ctx, VkCommandBuffer cmd, VkPipelineLayout layout,
				   VkDescriptorSet set, enum demo_pass pass)
{
	const VkShaderStageFlags gfx = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
	demo_rendering_begin(ctx, cmd, pass);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, ctx->pipeline[pass]);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, NULL);
	demo_push(ctx, cmd, layout, gfx, pass);
	for (uint32_t i = 0; i < ctx->opt.draws; i++)
		vkCmdDraw(cmd, DEMO_STRIP_VERTICES, 1, 0, i);
	demo_rendering_end(ctx, cmd, pass);
}

/* The barriers below name, for every image, exactly the stage that last touched it and
 * the stage that touches it next. Where a pass overwrites an image read by the previous
 * frame (oldLayout UNDEFINED), the source is that read's stage with no access: a
 * write-after-read hazard needs only an execution dependency. These first barriers also
 * order each frame after the previous one on the same queue, which is what lets all frames
 * in flight share one set of render targets. */

static void demo_barrier_before_shadow(struct demo_context *ctx, VkCommandBuffer cmd)
{
	const struct demo_barrier b[] = {
		{ &ctx->shadow_depth, 0, STAGE(FRAGMENT_SHADER), 0, FRAGMENT_TESTS, DEPTH_ATTACHMENT_RW,
		  LAYOUT(UNDEFINED), LAYOUT(DEPTH_STENCIL_ATTACHMENT_OPTIMAL) },
	};
	demo_barriers_record(ctx, cmd, b, 1);
}

static void demo_barrier_before_gbuffer(struct demo_context *ctx, VkCommandBuffer cmd)
{
	const struct demo_barrier b[] = {
		{ &ctx->gbuffer_albedo, 0, STAGE(FRAGMENT_SHADER), 0, STAGE(COLOR_ATTACHMENT_OUTPUT),
		  ACCESS(COLOR_ATTACHMENT_WRITE), LAYOUT(UNDEFINED), LAYOUT(COLOR_ATTACHMENT_OPTIMAL) },
		{ &ctx->gbuffer_normal, 0, STAGE(FRAGMENT_SHADER), 0, STAGE(COLOR_ATTACHMENT_OUTPUT),
		  ACCESS(COLOR_ATTACHMENT_WRITE), LAYOUT(UNDEFINED), LAYOUT(COLOR_ATTACHMENT_OPTIMAL) },
		{ &ctx->gbuffer_depth, 0, STAGE(FRAGMENT_SHADER), 0, FRAGMENT_TESTS, DEPTH_ATTACHMENT_RW,
		  LAYOUT(UNDEFINED), LAYOUT(DEPTH_STENCIL_ATTACHMENT_OPTIMAL) },
	};
	demo_barriers_record(ctx, cmd, b, 3);
}

static void demo_barrier_before_lighting(struct demo_context *ctx, VkCommandBuffer cmd)
{
	/* --misuse-barriers: the G-buffer and shadow map are first read by the lighting
     * fragment shader, but this waits before lighting's vertex shading too. Still a valid
     * dependency: FRAGMENT_SHADER stays in the destination (access scopes, unlike execution
     * scopes, do not extend to logically later stages, so VERTEX_SHADER alone would leave
     * the fragment reads unsynchronised). */
	const VkPipelineStageFlags2 read_stage =
		ctx->opt.misuse_barriers ? STAGE(VERTEX_SHADER) | STAGE(FRAGMENT_SHADER) : STAGE(FRAGMENT_SHADER);
	const struct demo_barrier b[] = {
		{ &ctx->gbuffer_albedo, 0, STAGE(COLOR_ATTACHMENT_OUTPUT), ACCESS(COLOR_ATTACHMENT_WRITE), read_stage,
		  ACCESS(SHADER_READ), LAYOUT(COLOR_ATTACHMENT_OPTIMAL), LAYOUT(SHADER_READ_ONLY_OPTIMAL) },
		{ &ctx->gbuffer_normal, 0, STAGE(COLOR_ATTACHMENT_OUTPUT), ACCESS(COLOR_ATTACHMENT_WRITE), read_stage,
		  ACCESS(SHADER_READ), LAYOUT(COLOR_ATTACHMENT_OPTIMAL), LAYOUT(SHADER_READ_ONLY_OPTIMAL) },
		{ &ctx->gbuffer_depth, 0, FRAGMENT_TESTS, ACCESS(DEPTH_STENCIL_ATTACHMENT_WRITE), read_stage,
		  ACCESS(SHADER_READ), LAYOUT(DEPTH_STENCIL_ATTACHMENT_OPTIMAL), LAYOUT(SHADER_READ_ONLY_OPTIMAL) },
		{ &ctx->shadow_depth, 0, FRAGMENT_TESTS, ACCESS(DEPTH_STENCIL_ATTACHMENT_WRITE), read_stage,
		  ACCESS(SHADER_READ), LAYOUT(DEPTH_STENCIL_ATTACHMENT_OPTIMAL), LAYOUT(SHADER_READ_ONLY_OPTIMAL) },
		{ &ctx->lighting_hdr, 0, STAGE(COMPUTE_SHADER), 0, STAGE(COLOR_ATTACHMENT_OUTPUT),
		  ACCESS(COLOR_ATTACHMENT_WRITE), LAYOUT(UNDEFINED), LAYOUT(COLOR_ATTACHMENT_OPTIMAL) },
	};
	demo_barriers_record(ctx, cmd, b, 5);
}

static void demo_barrier_before_postprocess(struct demo_context *ctx, VkCommandBuffer cmd)
{
	struct demo_barrier b[] = {
		{ &ctx->lighting_hdr, 0, STAGE(COLOR_ATTACHMENT_OUTPUT), ACCESS(COLOR_ATTACHMENT_WRITE),
		  STAGE(COMPUTE_SHADER), ACCESS(SHADER_READ), LAYOUT(COLOR_ATTACHMENT_OPTIMAL), LAYOUT(GENERAL) },
		{ &ctx->post_out, 0, STAGE(FRAGMENT_SHADER), 0, STAGE(COMPUTE_SHADER), ACCESS(SHADER_WRITE),
		  LAYOUT(UNDEFINED), LAYOUT(GENERAL) },
	};
	/* --misuse-barriers: a full pipeline drain. Valid (it includes every real dependency)
     * but it waits for all prior work of every kind and flushes/invalidates all caches. */
	if (ctx->opt.misuse_barriers)
		for (int i = 0; i < 2; i++) {
			b[i].src_stage = STAGE(ALL_COMMANDS);
			b[i].src_access = ACCESS(MEMORY_WRITE);
			b[i].dst_stage = STAGE(ALL_COMMANDS);
			b[i].dst_access = ACCESS(MEMORY_READ) | ACCESS(MEMORY_WRITE);
		}
	demo_barriers_record(ctx, cmd, b, 2);
}

static void demo_barrier_before_composite(struct demo_context *ctx, VkCommandBuffer cmd)
{
	/* composite_final was last written by the previous frame's composite (or never): a
     * write-after-write, so the source names the write access as well. */
	const struct demo_barrier b[] = {
		{ &ctx->post_out, 0, STAGE(COMPUTE_SHADER), ACCESS(SHADER_WRITE), STAGE(FRAGMENT_SHADER),
		  ACCESS(SHADER_READ), LAYOUT(GENERAL), LAYOUT(SHADER_READ_ONLY_OPTIMAL) },
		{ &ctx->composite_final, 0, STAGE(COLOR_ATTACHMENT_OUTPUT), ACCESS(COLOR_ATTACHMENT_WRITE),
		  STAGE(COLOR_ATTACHMENT_OUTPUT), ACCESS(COLOR_ATTACHMENT_WRITE), LAYOUT(UNDEFINED),
		  LAYOUT(COLOR_ATTACHMENT_OPTIMAL) },
	};
	demo_barriers_record(ctx, cmd, b, 2);
}

static void demo_readback_record(struct demo_context *ctx, VkCommandBuffer cmd)
{
	const struct demo_barrier to_transfer = { &ctx->composite_final,
						  0,
						  STAGE(COLOR_ATTACHMENT_OUTPUT),
						  ACCESS(COLOR_ATTACHMENT_WRITE),
						  STAGE(TRANSFER),
						  ACCESS(TRANSFER_READ),
						  LAYOUT(COLOR_ATTACHMENT_OPTIMAL),
						  LAYOUT(TRANSFER_SRC_OPTIMAL) };
	demo_barriers_record(ctx, cmd, &to_transfer, 1);
	const VkBufferImageCopy region = {
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { ctx->opt.width, ctx->opt.height, 1 },
	};
	vkCmdCopyImageToBuffer(cmd, ctx->composite_final.image, LAYOUT(TRANSFER_SRC_OPTIMAL), ctx->readback_buffer, 1,
			       &region);
	const struct demo_barrier to_host = {
		NULL,        ctx->readback_buffer, STAGE(TRANSFER),   ACCESS(TRANSFER_WRITE),
		STAGE(HOST), ACCESS(HOST_READ),    LAYOUT(UNDEFINED), LAYOUT(UNDEFINED)
	};
	demo_barriers_record(ctx, cmd, &to_host, 1);
}

VkResult demo_record_frame(struct demo_context *ctx, struct demo_frame_slot *slot, uint32_t slot_index, uint32_t frame)
{
	VkCommandBuffer cmd = slot->cmd;
	const VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	DEMO_TRY(vkBeginCommandBuffer, (cmd, &begin));

	if (ctx->timing_pool)
		vkCmdResetQueryPool(cmd, ctx->timing_pool, slot_index * DEMO_PASS_COUNT * 2, DEMO_PASS_COUNT * 2);
	if (ctx->misuse_pool) {
		vkCmdResetQueryPool(cmd, ctx->misuse_pool, slot_index * 2, 2);
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->misuse_pool, slot_index * 2);
	}

	demo_barrier_before_shadow(ctx, cmd);
	demo_pass_begin(ctx, cmd, slot_index, DEMO_PASS_SHADOW);
	demo_scene_pass_record(ctx, cmd, slot, DEMO_PASS_SHADOW);
	demo_pass_end(ctx, cmd, slot_index, DEMO_PASS_SHADOW);

	demo_barrier_before_gbuffer(ctx, cmd);
	demo_pass_begin(ctx, cmd, slot_index, DEMO_PASS_GBUFFER);
	demo_scene_pass_record(ctx, cmd, slot, DEMO_PASS_GBUFFER);
	demo_pass_end(ctx, cmd, slot_index, DEMO_PASS_GBUFFER);

	demo_barrier_before_lighting(ctx, cmd);
	demo_pass_begin(ctx, cmd, slot_index, DEMO_PASS_LIGHTING);
	demo_strip_pass_record(ctx, cmd, ctx->lighting_layout, slot->lighting_set, DEMO_PASS_LIGHTING);
	demo_pass_end(ctx, cmd, slot_index, DEMO_PASS_LIGHTING);

	demo_barrier_before_postprocess(ctx, cmd);
	demo_pass_begin(ctx, cmd, slot_index, DEMO_PASS_POSTPROCESS);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline[DEMO_PASS_POSTPROCESS]);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->post_layout, 0, 1, &slot->post_set, 0, NULL);
	demo_push(ctx, cmd, ctx->post_layout, VK_SHADER_STAGE_COMPUTE_BIT, DEMO_PASS_POSTPROCESS);
	vkCmdDispatch(cmd, (ctx->opt.width + 7) / 8, (ctx->opt.height + 7) / 8, 1);
	demo_pass_end(ctx, cmd, slot_index, DEMO_PASS_POSTPROCESS);

	demo_barrier_before_composite(ctx, cmd);
	demo_pass_begin(ctx, cmd, slot_index, DEMO_PASS_COMPOSITE);
	demo_strip_pass_record(ctx, cmd, ctx->composite_layout, slot->composite_set, DEMO_PASS_COMPOSITE);
	demo_pass_end(ctx, cmd, slot_index, DEMO_PASS_COMPOSITE);

	/* The readback belongs to the last frame's command buffer so that every frame is still
     * exactly one submit; it is outside every label, so it is no pass of its own. */
	if (ctx->readback_buffer && frame + 1 == ctx->opt.frames)
		demo_readback_record(ctx, cmd);

	if (ctx->misuse_pool)
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->misuse_pool, slot_index * 2 + 1);
	DEMO_TRY(vkEndCommandBuffer, (cmd));
	return VK_SUCCESS;
}
