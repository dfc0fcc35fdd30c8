/* Everything the frames use, created once: render targets, render passes and framebuffers,
 * pipelines, descriptors, and the per-frame-in-flight command buffers, fences and constants. */
#include "demo.h"

#include <stdio.h>
#include <string.h>

#define DEMO_FORMAT_DEPTH VK_FORMAT_D32_SFLOAT
#define DEMO_FORMAT_ALBEDO VK_FORMAT_R8G8B8A8_UNORM
#define DEMO_FORMAT_NORMAL VK_FORMAT_R16G16B16A16_SFLOAT
#define DEMO_FORMAT_HDR VK_FORMAT_R16G16B16A16_SFLOAT
#define DEMO_FORMAT_LDR VK_FORMAT_R8G8B8A8_UNORM

static VkResult demo_format_check(struct demo_context *ctx, VkFormat format, VkFormatFeatureFlags need,
				  const char *what)
{
	VkFormatProperties props;
	vkGetPhysicalDeviceFormatProperties(ctx->physical_device, format, &props);
	if ((props.optimalTilingFeatures & need) != need) {
		fprintf(stderr, DEMO_NAME ": the device cannot use format %d for the %s\n", (int)format, what);
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	}
	return VK_SUCCESS;
}

static VkResult demo_formats_check(struct demo_context *ctx)
{
	const struct {
		VkFormat format;
		VkFormatFeatureFlags need;
		const char *what;
	} checks[] = {
		{ DEMO_FORMAT_DEPTH,
		  VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT,
		  "depth buffers" },
		{ DEMO_FORMAT_ALBEDO,
		  VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
			  VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT,
		  "albedo/final images" },
		{ DEMO_FORMAT_NORMAL,
		  VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
			  VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT,
		  "normal/HDR images" },
	};
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		VkResult r = demo_format_check(ctx, checks[i].format, checks[i].need, checks[i].what);
		if (r != VK_SUCCESS)
			return r;
	}
	return VK_SUCCESS;
}

static VkResult demo_image_create(struct demo_context *ctx, struct demo_image *img, VkFormat format, uint32_t width,
				  uint32_t height, VkImageUsageFlags usage, const char *name)
{
	img->format = format;
	img->extent = (VkExtent2D){ width, height };
	img->aspect = format == DEMO_FORMAT_DEPTH ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
	const VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = format,
		.extent = { width, height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	DEMO_TRY(vkCreateImage, (ctx->device, &info, NULL, &img->image));
	demo_device_object_name(ctx, VK_OBJECT_TYPE_IMAGE, (uint64_t)img->image, name);

	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(ctx->device, img->image, &req);
	VkResult r = demo_device_memory_allocate(ctx, &req, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &img->memory, NULL);
	if (r != VK_SUCCESS)
		return r;
	DEMO_TRY(vkBindImageMemory, (ctx->device, img->image, img->memory, 0));

	const VkImageViewCreateInfo view = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = img->image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = format,
		.subresourceRange = { img->aspect, 0, 1, 0, 1 },
	};
	DEMO_TRY(vkCreateImageView, (ctx->device, &view, NULL, &img->view));
	demo_device_object_name(ctx, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)img->view, name);
	return VK_SUCCESS;
}

static void demo_image_destroy(struct demo_context *ctx, struct demo_image *img)
{
	if (img->view)
		vkDestroyImageView(ctx->device, img->view, NULL);
	if (img->image)
		vkDestroyImage(ctx->device, img->image, NULL);
	if (img->memory)
		vkFreeMemory(ctx->device, img->memory, NULL);
	memset(img, 0, sizeof(*img));
}

static VkResult demo_images_create(struct demo_context *ctx)
{
	const uint32_t w = ctx->opt.width, h = ctx->opt.height, s = DEMO_SHADOW_SIZE;
	const VkImageUsageFlags depth_usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
	const VkImageUsageFlags gbuffer_usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
	const struct {
		struct demo_image *img;
		VkFormat format;
		uint32_t w, h;
		VkImageUsageFlags usage;
		const char *name;
	} list[] = {
		{ &ctx->shadow_depth, DEMO_FORMAT_DEPTH, s, s, depth_usage, "shadow_depth" },
		{ &ctx->gbuffer_albedo, DEMO_FORMAT_ALBEDO, w, h, gbuffer_usage, "gbuffer_albedo" },
		{ &ctx->gbuffer_normal, DEMO_FORMAT_NORMAL, w, h, gbuffer_usage, "gbuffer_normal" },
		{ &ctx->gbuffer_depth, DEMO_FORMAT_DEPTH, w, h, depth_usage, "gbuffer_depth" },
		{ &ctx->lighting_hdr, DEMO_FORMAT_HDR, w, h,
		  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT, "lighting_hdr" },
		{ &ctx->post_out, DEMO_FORMAT_LDR, w, h, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
		  "postprocess_out" },
		{ &ctx->composite_final, DEMO_FORMAT_LDR, w, h,
		  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "composite_final" },
	};
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		VkResult r = demo_image_create(ctx, list[i].img, list[i].format, list[i].w, list[i].h, list[i].usage,
					       list[i].name);
		if (r != VK_SUCCESS)
			return r;
	}

	const VkClearValue black = { .color = { .float32 = { 0.0f, 0.0f, 0.0f, 0.0f } } };
	const VkClearValue far = { .depthStencil = { 1.0f, 0 } };
	const VkExtent2D screen = { w, h };
	ctx->targets[DEMO_PASS_SHADOW] =
		(struct demo_targets){ .depth = &ctx->shadow_depth, .clear = { far }, .extent = { s, s } };
	ctx->targets[DEMO_PASS_GBUFFER] = (struct demo_targets){
		.color_count = 2,
		.color = { &ctx->gbuffer_albedo, &ctx->gbuffer_normal },
		.depth = &ctx->gbuffer_depth,
		.clear = { black, black, far },
		.extent = screen,
	};
	ctx->targets[DEMO_PASS_LIGHTING] = (struct demo_targets){
		.color_count = 1, .color = { &ctx->lighting_hdr }, .clear = { black }, .extent = screen
	};
	ctx->targets[DEMO_PASS_COMPOSITE] = (struct demo_targets){
		.color_count = 1, .color = { &ctx->composite_final }, .clear = { black }, .extent = screen
	};
	return VK_SUCCESS;
}

const struct demo_image *demo_scene_attachment(const struct demo_targets *t, uint32_t i, VkImageLayout *layout)
{
	if (i < t->color_count) {
		*layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
		return t->color[i];
	}
	*layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
	return t->depth;
}

/* Attachments keep one layout for the whole render pass instance (initial == final): every
 * layout transition is an explicit barrier recorded between passes (demo_record.c), which
 * is what the barrier misuse modes modify and what passprobe's diagnostics inspect. */
static VkResult demo_render_pass_create(struct demo_context *ctx, enum demo_pass pass)
{
	const struct demo_targets *t = &ctx->targets[pass];
	uint32_t count = t->color_count + (t->depth ? 1u : 0u);
	VkRenderPass *out = &ctx->render_pass[pass];
	const struct demo_image *img[3];
	VkImageLayout layout[3];
	for (uint32_t i = 0; i < count; i++)
		img[i] = demo_scene_attachment(t, i, &layout[i]);

	if (ctx->api[pass] == DEMO_API_RENDER_PASS) {
		VkAttachmentDescription att[3];
		VkAttachmentReference ref[3];
		for (uint32_t i = 0; i < count; i++) {
			att[i] = (VkAttachmentDescription){
				.format = img[i]->format,
				.samples = VK_SAMPLE_COUNT_1_BIT,
				.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
				.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
				.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
				.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
				.initialLayout = layout[i],
				.finalLayout = layout[i],
			};
			ref[i] = (VkAttachmentReference){ i, layout[i] };
		}
		const VkSubpassDescription subpass = {
			.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
			.colorAttachmentCount = t->color_count,
			.pColorAttachments = ref,
			.pDepthStencilAttachment = t->depth ? &ref[t->color_count] : NULL,
		};
		const VkRenderPassCreateInfo info = {
			.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
			.attachmentCount = count,
			.pAttachments = att,
			.subpassCount = 1,
			.pSubpasses = &subpass,
		};
		DEMO_TRY(vkCreateRenderPass, (ctx->device, &info, NULL, out));
	} else {
		VkAttachmentDescription2 att[3];
		VkAttachmentReference2 ref[3];
		for (uint32_t i = 0; i < count; i++) {
			att[i] = (VkAttachmentDescription2){
				.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
				.format = img[i]->format,
				.samples = VK_SAMPLE_COUNT_1_BIT,
				.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
				.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
				.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
				.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
				.initialLayout = layout[i],
				.finalLayout = layout[i],
			};
			ref[i] = (VkAttachmentReference2){
				.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2,
				.attachment = i,
				.layout = layout[i],
			};
		}
		const VkSubpassDescription2 subpass = {
			.sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
			.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
			.colorAttachmentCount = t->color_count,
			.pColorAttachments = ref,
			.pDepthStencilAttachment = t->depth ? &ref[t->color_count] : NULL,
		};
		const VkRenderPassCreateInfo2 info = {
			.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
			.attachmentCount = count,
			.pAttachments = att,
			.subpassCount = 1,
			.pSubpasses = &subpass,
		};
		DEMO_TRY(vkCreateRenderPass2, (ctx->device, &info, NULL, out));
	}
	char name[64];
	snprintf(name, sizeof(name), "%s_rp", demo_options_pass_names[pass]);
	demo_device_object_name(ctx, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)*out, name);

	VkImageView views[3];
	for (uint32_t i = 0; i < count; i++)
		views[i] = img[i]->view;
	const VkFramebufferCreateInfo fb = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = *out,
		.attachmentCount = count,
		.pAttachments = views,
		.width = t->extent.width,
		.height = t->extent.height,
		.layers = 1,
	};
	DEMO_TRY(vkCreateFramebuffer, (ctx->device, &fb, NULL, &ctx->framebuffer[pass]));
	snprintf(name, sizeof(name), "%s_fb", demo_options_pass_names[pass]);
	demo_device_object_name(ctx, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)ctx->framebuffer[pass], name);
	return VK_SUCCESS;
}

static VkResult demo_shader_module_create(struct demo_context *ctx, enum demo_shader shader, VkShaderModule *module)
{
	size_t size = 0;
	const uint32_t *code = demo_shaders_code(shader, &size);
	const VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	DEMO_TRY(vkCreateShaderModule, (ctx->device, &info, NULL, module));
	return VK_SUCCESS;
}

static VkResult demo_set_layout_create(struct demo_context *ctx, const VkDescriptorSetLayoutBinding *bindings,
				       uint32_t count, VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout,
				       VkShaderStageFlags push_stages)
{
	const VkDescriptorSetLayoutCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = count,
		.pBindings = bindings,
	};
	DEMO_TRY(vkCreateDescriptorSetLayout, (ctx->device, &info, NULL, set_layout));
	const VkPushConstantRange push = { push_stages, 0, sizeof(struct demo_push) };
	const VkPipelineLayoutCreateInfo pl = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	DEMO_TRY(vkCreatePipelineLayout, (ctx->device, &pl, NULL, layout));
	return VK_SUCCESS;
}

static VkResult demo_layouts_create(struct demo_context *ctx)
{
	const VkShaderStageFlags gfx = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
	const VkDescriptorSetLayoutBinding scene[] = {
		{ 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL },
	};
	const VkDescriptorSetLayoutBinding lighting[] = {
		{ 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
		{ 2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
		{ 3, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
		{ 4, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
	};
	const VkDescriptorSetLayoutBinding post[] = {
		{ 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
	};
	const VkDescriptorSetLayoutBinding composite[] = {
		{ 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
	};
	VkResult r;
	if ((r = demo_set_layout_create(ctx, scene, 1, &ctx->scene_set_layout, &ctx->scene_layout, gfx)) !=
		    VK_SUCCESS ||
	    (r = demo_set_layout_create(ctx, lighting, 5, &ctx->lighting_set_layout, &ctx->lighting_layout, gfx)) !=
		    VK_SUCCESS ||
	    (r = demo_set_layout_create(ctx, post, 2, &ctx->post_set_layout, &ctx->post_layout,
					VK_SHADER_STAGE_COMPUTE_BIT)) != VK_SUCCESS ||
	    (r = demo_set_layout_create(ctx, composite, 1, &ctx->composite_set_layout, &ctx->composite_layout, gfx)) !=
		    VK_SUCCESS)
		return r;

	/* Every sampled image is read 1:1 at texel centres, so nearest filtering is exact. */
	const VkSamplerCreateInfo sampler = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = VK_FILTER_NEAREST,
		.minFilter = VK_FILTER_NEAREST,
		.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
		.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
		.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
		.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
		.maxLod = 0.0f,
	};
	DEMO_TRY(vkCreateSampler, (ctx->device, &sampler, NULL, &ctx->sampler));
	return VK_SUCCESS;
}

struct demo_graphics_desc {
	enum demo_pass pass;
	enum demo_shader vert, frag;
	VkPipelineLayout layout;
	bool depth_bias;
};

static VkResult demo_graphics_pipeline_create(struct demo_context *ctx, const struct demo_graphics_desc *d)
{
	const struct demo_targets *t = &ctx->targets[d->pass];
	VkShaderModule vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
	VkResult r = demo_shader_module_create(ctx, d->vert, &vert);
	if (r == VK_SUCCESS)
		r = demo_shader_module_create(ctx, d->frag, &frag);
	if (r != VK_SUCCESS)
		goto out;

	const VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		  .stage = VK_SHADER_STAGE_VERTEX_BIT,
		  .module = vert,
		  .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		  .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
		  .module = frag,
		  .pName = "main" },
	};
	const VkPipelineVertexInputStateCreateInfo vertex_input = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO
	};
	const VkPipelineInputAssemblyStateCreateInfo input_assembly = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	const VkPipelineViewportStateCreateInfo viewport = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.scissorCount = 1,
	};
	const VkPipelineRasterizationStateCreateInfo raster = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.depthBiasEnable = d->depth_bias ? VK_TRUE : VK_FALSE,
		.depthBiasConstantFactor = 1.25f,
		.depthBiasSlopeFactor = 1.75f,
		.lineWidth = 1.0f,
	};
	const VkPipelineMultisampleStateCreateInfo multisample = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	const VkPipelineDepthStencilStateCreateInfo depth = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
		.depthTestEnable = t->depth ? VK_TRUE : VK_FALSE,
		.depthWriteEnable = t->depth ? VK_TRUE : VK_FALSE,
		.depthCompareOp = VK_COMPARE_OP_LESS,
	};
	VkPipelineColorBlendAttachmentState blend[2];
	VkFormat color_formats[2];
	for (uint32_t i = 0; i < t->color_count; i++) {
		blend[i] = (VkPipelineColorBlendAttachmentState){
			.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
					  VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT,
		};
		color_formats[i] = t->color[i]->format;
	}
	const VkPipelineColorBlendStateCreateInfo color_blend = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = t->color_count,
		.pAttachments = blend,
	};
	const VkDynamicState dynamic_states[] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
	const VkPipelineDynamicStateCreateInfo dynamic = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 2,
		.pDynamicStates = dynamic_states,
	};
	const VkPipelineRenderingCreateInfo rendering = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
		.colorAttachmentCount = t->color_count,
		.pColorAttachmentFormats = color_formats,
		.depthAttachmentFormat = t->depth ? t->depth->format : VK_FORMAT_UNDEFINED,
	};
	bool dynamic_rendering = ctx->api[d->pass] == DEMO_API_DYNAMIC;
	const VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.pNext = dynamic_rendering ? &rendering : NULL,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vertex_input,
		.pInputAssemblyState = &input_assembly,
		.pViewportState = &viewport,
		.pRasterizationState = &raster,
		.pMultisampleState = &multisample,
		.pDepthStencilState = &depth,
		.pColorBlendState = &color_blend,
		.pDynamicState = &dynamic,
		.layout = d->layout,
		.renderPass = dynamic_rendering ? VK_NULL_HANDLE : ctx->render_pass[d->pass],
		.subpass = 0,
	};
	r = vkCreateGraphicsPipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &ctx->pipeline[d->pass]);
	if (r != VK_SUCCESS) {
		demo_util_fail("vkCreateGraphicsPipelines", r);
		goto out;
	}
	char name[64];
	snprintf(name, sizeof(name), "%s_pipeline", demo_options_pass_names[d->pass]);
	demo_device_object_name(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)ctx->pipeline[d->pass], name);
out:
	if (vert)
		vkDestroyShaderModule(ctx->device, vert, NULL);
	if (frag)
		vkDestroyShaderModule(ctx->device, frag, NULL);
	return r;
}

static VkResult demo_pipelines_create(struct demo_context *ctx)
{
	const struct demo_graphics_desc graphics[] = {
		{ DEMO_PASS_SHADOW, DEMO_SHADER_SHADOW_VERT, DEMO_SHADER_SHADOW_FRAG, ctx->scene_layout, true },
		{ DEMO_PASS_GBUFFER, DEMO_SHADER_GBUFFER_VERT, DEMO_SHADER_GBUFFER_FRAG, ctx->scene_layout, false },
		{ DEMO_PASS_LIGHTING, DEMO_SHADER_STRIP_VERT, DEMO_SHADER_LIGHTING_FRAG, ctx->lighting_layout, false },
		{ DEMO_PASS_COMPOSITE, DEMO_SHADER_STRIP_VERT, DEMO_SHADER_COMPOSITE_FRAG, ctx->composite_layout,
		  false },
	};
	for (size_t i = 0; i < sizeof(graphics) / sizeof(graphics[0]); i++) {
		VkResult r = demo_graphics_pipeline_create(ctx, &graphics[i]);
		if (r != VK_SUCCESS)
			return r;
	}

	VkShaderModule comp = VK_NULL_HANDLE;
	VkResult r = demo_shader_module_create(ctx, DEMO_SHADER_POSTPROCESS_COMP, &comp);
	if (r != VK_SUCCESS)
		return r;
	const VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			   .stage = VK_SHADER_STAGE_COMPUTE_BIT,
			   .module = comp,
			   .pName = "main" },
		.layout = ctx->post_layout,
	};
	r = vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL,
				     &ctx->pipeline[DEMO_PASS_POSTPROCESS]);
	vkDestroyShaderModule(ctx->device, comp, NULL);
	if (r != VK_SUCCESS)
		return demo_util_fail("vkCreateComputePipelines", r);
	demo_device_object_name(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)ctx->pipeline[DEMO_PASS_POSTPROCESS],
			 "postprocess_pipeline");
	return VK_SUCCESS;
}

static VkResult demo_buffer_create(struct demo_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
				   VkMemoryPropertyFlags preferred, VkBuffer *buffer, VkDeviceMemory *memory,
				   VkMemoryPropertyFlags *granted, const char *name)
{
	const VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	DEMO_TRY(vkCreateBuffer, (ctx->device, &info, NULL, buffer));
	demo_device_object_name(ctx, VK_OBJECT_TYPE_BUFFER, (uint64_t)*buffer, name);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
	VkResult r = demo_device_memory_allocate(ctx, &req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, preferred, memory, granted);
	if (r != VK_SUCCESS)
		return r;
	DEMO_TRY(vkBindBufferMemory, (ctx->device, *buffer, *memory, 0));
	return VK_SUCCESS;
}

static VkResult demo_descriptors_create(struct demo_context *ctx)
{
	const uint32_t n = ctx->opt.frames_in_flight;
	VkDeviceSize align = ctx->properties.limits.minUniformBufferOffsetAlignment;
	if (align < 16)
		align = 16;
	VkDeviceSize stride = (sizeof(struct demo_frame_constants) + align - 1) / align * align;

	/* Host-coherent is required, not preferred: the constants are written by the CPU every
     * frame and must be visible at submit without an explicit flush. */
	VkMemoryPropertyFlags granted = 0;
	VkResult r = demo_buffer_create(ctx, stride * n, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
					VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &ctx->constants_buffer,
					&ctx->constants_memory, &granted, "frame_constants");
	if (r != VK_SUCCESS)
		return r;
	if (!(granted & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
		fprintf(stderr, DEMO_NAME ": no host-coherent memory for the frame constants\n");
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	}
	DEMO_TRY(vkMapMemory, (ctx->device, ctx->constants_memory, 0, VK_WHOLE_SIZE, 0, &ctx->constants_map));

	const VkDescriptorPoolSize sizes[] = {
		{ VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 * n },
		{ VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 5 * n },
		{ VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * n },
	};
	const VkDescriptorPoolCreateInfo pool = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 4 * n,
		.poolSizeCount = 3,
		.pPoolSizes = sizes,
	};
	DEMO_TRY(vkCreateDescriptorPool, (ctx->device, &pool, NULL, &ctx->descriptor_pool));

	for (uint32_t i = 0; i < n; i++) {
		struct demo_frame_slot *slot = &ctx->slots[i];
		slot->constants_offset = stride * i;
		slot->constants = (struct demo_frame_constants *)((char *)ctx->constants_map + slot->constants_offset);
		const VkDescriptorSetLayout layouts[4] = { ctx->scene_set_layout, ctx->lighting_set_layout,
							   ctx->post_set_layout, ctx->composite_set_layout };
		VkDescriptorSet sets[4];
		const VkDescriptorSetAllocateInfo alloc = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
			.descriptorPool = ctx->descriptor_pool,
			.descriptorSetCount = 4,
			.pSetLayouts = layouts,
		};
		DEMO_TRY(vkAllocateDescriptorSets, (ctx->device, &alloc, sets));
		slot->scene_set = sets[0];
		slot->lighting_set = sets[1];
		slot->post_set = sets[2];
		slot->composite_set = sets[3];

		const VkDescriptorBufferInfo ubo = { ctx->constants_buffer, slot->constants_offset,
						     sizeof(struct demo_frame_constants) };
		const VkImageLayout read = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
		const VkDescriptorImageInfo lighting_images[4] = {
			{ ctx->sampler, ctx->gbuffer_albedo.view, read },
			{ ctx->sampler, ctx->gbuffer_normal.view, read },
			{ ctx->sampler, ctx->gbuffer_depth.view, read },
			{ ctx->sampler, ctx->shadow_depth.view, read },
		};
		const VkDescriptorImageInfo storage[2] = {
			{ VK_NULL_HANDLE, ctx->lighting_hdr.view, VK_IMAGE_LAYOUT_GENERAL },
			{ VK_NULL_HANDLE, ctx->post_out.view, VK_IMAGE_LAYOUT_GENERAL },
		};
		const VkDescriptorImageInfo composite_image = { ctx->sampler, ctx->post_out.view, read };
		const VkWriteDescriptorSet writes[] = {
			{ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			  .dstSet = slot->scene_set,
			  .descriptorCount = 1,
			  .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
			  .pBufferInfo = &ubo },
			{ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			  .dstSet = slot->lighting_set,
			  .descriptorCount = 1,
			  .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
			  .pBufferInfo = &ubo },
			{ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			  .dstSet = slot->lighting_set,
			  .dstBinding = 1,
			  .descriptorCount = 4,
			  .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
			  .pImageInfo = lighting_images },
			{ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			  .dstSet = slot->post_set,
			  .descriptorCount = 2,
			  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
			  .pImageInfo = storage },
			{ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			  .dstSet = slot->composite_set,
			  .descriptorCount = 1,
			  .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
			  .pImageInfo = &composite_image },
		};
		vkUpdateDescriptorSets(ctx->device, sizeof(writes) / sizeof(writes[0]), writes, 0, NULL);
	}
	return VK_SUCCESS;
}

static VkResult demo_slots_create(struct demo_context *ctx)
{
	for (uint32_t i = 0; i < ctx->opt.frames_in_flight; i++) {
		struct demo_frame_slot *slot = &ctx->slots[i];
		const VkCommandPoolCreateInfo pool = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
			.queueFamilyIndex = ctx->queue_family,
		};
		DEMO_TRY(vkCreateCommandPool, (ctx->device, &pool, NULL, &slot->pool));
		const VkCommandBufferAllocateInfo alloc = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = slot->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		DEMO_TRY(vkAllocateCommandBuffers, (ctx->device, &alloc, &slot->cmd));
		char name[32];
		snprintf(name, sizeof(name), "frame_cmd%u", i);
		demo_device_object_name(ctx, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)slot->cmd, name);
		const VkFenceCreateInfo fence = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
		DEMO_TRY(vkCreateFence, (ctx->device, &fence, NULL, &slot->fence));
	}

	const VkQueryPoolCreateInfo timing = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = ctx->opt.frames_in_flight * DEMO_PASS_COUNT * 2,
	};
	if (ctx->opt.timings) {
		DEMO_TRY(vkCreateQueryPool, (ctx->device, &timing, NULL, &ctx->timing_pool));
		demo_device_object_name(ctx, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)ctx->timing_pool, "demo_timings");
	}
	const VkQueryPoolCreateInfo misuse = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = ctx->opt.frames_in_flight * 2,
	};
	if (ctx->opt.misuse_query_wait) {
		DEMO_TRY(vkCreateQueryPool, (ctx->device, &misuse, NULL, &ctx->misuse_pool));
		demo_device_object_name(ctx, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)ctx->misuse_pool, "demo_frame_timestamps");
	}

	if (ctx->opt.output) {
		VkMemoryPropertyFlags granted = 0;
		VkResult r = demo_buffer_create(
			ctx, (VkDeviceSize)ctx->opt.width * ctx->opt.height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
			VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
			&ctx->readback_buffer, &ctx->readback_memory, &granted, "readback");
		if (r != VK_SUCCESS)
			return r;
		ctx->readback_coherent = granted & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	}
	return VK_SUCCESS;
}

VkResult demo_scene_create(struct demo_context *ctx)
{
	VkResult r = demo_formats_check(ctx);
	if (r == VK_SUCCESS)
		r = demo_images_create(ctx);
	for (int p = 0; p < DEMO_PASS_COUNT && r == VK_SUCCESS; p++)
		if (ctx->api[p] == DEMO_API_RENDER_PASS || ctx->api[p] == DEMO_API_RENDER_PASS2)
			r = demo_render_pass_create(ctx, (enum demo_pass)p);
	if (r == VK_SUCCESS)
		r = demo_layouts_create(ctx);
	if (r == VK_SUCCESS)
		r = demo_pipelines_create(ctx);
	if (r == VK_SUCCESS)
		r = demo_descriptors_create(ctx);
	if (r == VK_SUCCESS)
		r = demo_slots_create(ctx);
	return r;
}

void demo_scene_destroy(struct demo_context *ctx)
{
	VkDevice dev = ctx->device;
	if (!dev)
		return;
	for (uint32_t i = 0; i < DEMO_FRAMES_IN_FLIGHT_MAX; i++) {
		struct demo_frame_slot *slot = &ctx->slots[i];
		if (slot->fence)
			vkDestroyFence(dev, slot->fence, NULL);
		if (slot->pool)
			vkDestroyCommandPool(dev, slot->pool, NULL); /* frees slot->cmd */
		memset(slot, 0, sizeof(*slot));
	}
	if (ctx->timing_pool)
		vkDestroyQueryPool(dev, ctx->timing_pool, NULL);
	if (ctx->misuse_pool)
		vkDestroyQueryPool(dev, ctx->misuse_pool, NULL);
	if (ctx->readback_buffer)
		vkDestroyBuffer(dev, ctx->readback_buffer, NULL);
	if (ctx->readback_memory)
		vkFreeMemory(dev, ctx->readback_memory, NULL);
	if (ctx->descriptor_pool)
		vkDestroyDescriptorPool(dev, ctx->descriptor_pool, NULL); /* frees the sets */
	if (ctx->constants_buffer)
		vkDestroyBuffer(dev, ctx->constants_buffer, NULL);
	if (ctx->constants_memory)
		vkFreeMemory(dev, ctx->constants_memory, NULL); /* implicitly unmaps */
	for (int p = 0; p < DEMO_PASS_COUNT; p++) {
		if (ctx->pipeline[p])
			vkDestroyPipeline(dev, ctx->pipeline[p], NULL);
		if (ctx->framebuffer[p])
			vkDestroyFramebuffer(dev, ctx->framebuffer[p], NULL);
		if (ctx->render_pass[p])
			vkDestroyRenderPass(dev, ctx->render_pass[p], NULL);
	}
	VkPipelineLayout layouts[] = { ctx->scene_layout, ctx->lighting_layout, ctx->post_layout,
				       ctx->composite_layout };
	VkDescriptorSetLayout set_layouts[] = { ctx->scene_set_layout, ctx->lighting_set_layout, ctx->post_set_layout,
						ctx->composite_set_layout };
	for (int i = 0; i < 4; i++) {
		if (layouts[i])
			vkDestroyPipelineLayout(dev, layouts[i], NULL);
		if (set_layouts[i])
			vkDestroyDescriptorSetLayout(dev, set_layouts[i], NULL);
	}
	if (ctx->sampler)
		vkDestroySampler(dev, ctx->sampler, NULL);
	struct demo_image *images[] = { &ctx->shadow_depth,   &ctx->gbuffer_albedo, &ctx->gbuffer_normal,
					&ctx->gbuffer_depth,  &ctx->lighting_hdr,   &ctx->post_out,
					&ctx->composite_final };
	for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
		demo_image_destroy(ctx, images[i]);
}
