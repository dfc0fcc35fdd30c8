/* The hooks that create and destroy the objects of the layer's per-device tables
 * (layer/vulkan/layer_objects.c): queues, command pools and buffers (a command buffer's
 * recording starts and ends here), and the non-dispatchable objects the profiler and the
 * diagnostics describe. Insert after the call down succeeds; remove before the destroy goes
 * down. Every create hook has one shape (OBJECT_CREATE_HOOK): call down, describe, record. */
#include <stdlib.h>
#include <string.h>

#include "attr_diag.h"
#include "attr_record.h"
#include "pp_log.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

/* ---- queues --------------------------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	dev->vk.GetDeviceQueue(device, family, index, out);
	/* The loader stamps the queue's dispatch pointer after we return: key it by the device. */
	if (*out)
		pp_layer_objects_queue_track(dev, *out, family, index, pp_vk_profiling_queue_created);
}

VKAPI_ATTR void VKAPI_CALL pp_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	dev->vk.GetDeviceQueue2(device, info, out);
	if (*out)
		pp_layer_objects_queue_track(dev, *out, info->queueFamilyIndex, info->queueIndex, pp_vk_profiling_queue_created);
}

/* ---- command pools and buffers -------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
						    const VkAllocationCallbacks *alloc, VkCommandPool *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.CreateCommandPool(device, info, alloc, out);
	if (r != VK_SUCCESS || dev->untracked)
		return r;
	/* A layer above creates its pools while it handles a call of the application's (its
	 * vkCreateDevice, vkCreateSwapchainKHR, a present) or of its own API: what is recorded in
	 * them is that layer's work, not the application's. */
	const char *by = pp_vk_renderdoc_foreign_caller(__builtin_return_address(0));
	if (!pp_layer_objects_command_pool_track(dev, *out, info->queueFamilyIndex, info->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT,
				   by))
		pp_log_once(PP_LOG_ERROR, "out of memory tracking a command pool; its work is not measured");
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks *alloc)
{
	struct pp_device *dev = pp_vk_device_of(device);
	pp_layer_objects_command_pool_untrack(dev, pool, pp_vk_profiling_command_buffer_destroy);
	dev->vk.DestroyCommandPool(device, pool, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags)
{
	struct pp_device *dev = pp_vk_device_of(device);
	/* Every command buffer of the pool goes back to the initial state: read what their last
	 * submissions left, then release their recordings. The records themselves stay. */
	for (struct pp_command_buffer *c = pp_layer_objects_command_pool_buffers(dev, pool); c; c = c->pool_next)
		pp_vk_profiling_recording_release(dev, c);
	return dev->vk.ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
							 VkCommandBuffer *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.AllocateCommandBuffers(device, info, out);
	if (r != VK_SUCCESS || dev->untracked)
		return r;
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct pp_command_buffer *c = calloc(1, sizeof(*c));
		/* Every tracked command buffer has a recording, so the per-draw path never checks. */
		struct pp_recording *rec = c ? pp_attr_record_create(info->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY) : NULL;
		if (!rec) {
			free(c);
			pp_log_once(PP_LOG_ERROR, "out of memory tracking command buffers; their work is not measured");
			break;
		}
		c->handle = (uint64_t)(uintptr_t)out[i];
		c->vk_cb = out[i];
		c->device = dev;
		c->level = info->level;
		c->ts_chunk = c->stats_chunk = UINT32_MAX; /* no chunk yet */
		c->rec = rec;
		if (!pp_layer_objects_command_buffer_track(dev, info->commandPool, c)) {
			pp_attr_record_destroy(c->rec);
			free(c);
			continue;
		}
		/* The application cannot free or reset the pool meanwhile (external synchronization). */
		rec->recorded_by = c->pool ? c->pool->recorded_by : NULL;
	}
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t n,
						 const VkCommandBuffer *cbs)
{
	struct pp_device *dev = pp_vk_device_of(device);
	for (uint32_t i = 0; i < n; i++) {
		struct pp_command_buffer *c = cbs[i] ? pp_layer_objects_command_buffer_untrack(dev, cbs[i]) : NULL;
		if (c)
			pp_vk_profiling_command_buffer_destroy(dev, c);
	}
	dev->vk.FreeCommandBuffers(device, pool, n, cbs);
}

/* What the device's tables hold of intercept, attribution and the diagnostics, at
 * vkDestroyDevice (from pp_vk_profiling_device_finish): whatever the application did not free
 * itself goes with the device. The layer frees the tables afterwards. */
void pp_vk_objects_release(struct pp_device *dev)
{
	pp_layer_objects_command_buffers_untrack_all(dev, pp_vk_profiling_command_buffer_destroy);
	pp_vk_diag_state_device_destroy(dev);
	struct pp_queue *q, *qtmp;
	HASH_ITER(hh, dev->queues, q, qtmp) {
		pp_attr_device_queue_destroy(q->attr);
		q->attr = NULL;
	}
}

/* ---- described objects ---------------------------------------------------------------- */

/* The one shape of a create hook: call down; on success describe the object from its
 * create-info (false: not tracked, e.g. diagnostics off) and record the description. */
#define OBJECT_CREATE_HOOK(name, info_type, handle_type, object_type, describe)                     \
	VKAPI_ATTR VkResult VKAPI_CALL pp_Create##name(VkDevice device, const info_type *info,     \
						       const VkAllocationCallbacks *alloc, handle_type *out) \
	{                                                                                             \
		struct pp_device *dev = pp_vk_device_of(device);                                            \
		VkResult r = dev->vk.Create##name(device, info, alloc, out);                          \
		union pp_object_desc d;                                                               \
		memset(&d, 0, sizeof(d));                                                             \
		if (r == VK_SUCCESS && describe(dev, info, &d))                                       \
			pp_layer_objects_record(dev, object_type, (uint64_t)*out, &d);                        \
		return r;                                                                             \
	}

/* The destroy hook of a tracked non-dispatchable object: its record goes before the object. */
#define OBJECT_DESTROY_HOOK(name, handle_type, object_type)                                         \
	VKAPI_ATTR void VKAPI_CALL pp_Destroy##name(VkDevice device, handle_type handle,              \
						    const VkAllocationCallbacks *alloc)                 \
	{                                                                                             \
		struct pp_device *dev = pp_vk_device_of(device);                                            \
		if (handle)                                                                           \
			pp_layer_objects_remove(dev, object_type, (uint64_t)handle);                          \
		dev->vk.Destroy##name(device, handle, alloc);                                         \
	}

/* The dependencies the diagnostics may flag: between two subpasses, without BY_REGION. */
static struct pp_rp_dependency *render_pass_dependencies(const VkRenderPassCreateInfo *v1,
							 const VkRenderPassCreateInfo2 *v2, uint32_t *n)
{
	uint32_t ndeps = v1 ? v1->dependencyCount : v2->dependencyCount;
	struct pp_rp_dependency *out = NULL;
	*n = 0;
	for (uint32_t i = 0; i < ndeps && *n < PP_RP_MAX_DEPENDENCIES; i++) {
		struct pp_rp_dependency d = { .index = i };
		VkDependencyFlags flags;
		if (v1) {
			const VkSubpassDependency *s = &v1->pDependencies[i];
			d.src_subpass = s->srcSubpass;
			d.dst_subpass = s->dstSubpass;
			d.src_stages = s->srcStageMask;
			d.dst_stages = s->dstStageMask;
			d.src_access = s->srcAccessMask;
			d.dst_access = s->dstAccessMask;
			flags = s->dependencyFlags;
		} else {
			const VkSubpassDependency2 *s = &v2->pDependencies[i];
			d.src_subpass = s->srcSubpass;
			d.dst_subpass = s->dstSubpass;
			d.src_stages = s->srcStageMask;
			d.dst_stages = s->dstStageMask;
			d.src_access = s->srcAccessMask;
			d.dst_access = s->dstAccessMask;
			flags = s->dependencyFlags;
			for (const VkBaseInStructure *p = s->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_MEMORY_BARRIER_2) {
					const VkMemoryBarrier2 *m = (const void *)p;
					d.src_stages = m->srcStageMask;
					d.dst_stages = m->dstStageMask;
					d.src_access = m->srcAccessMask;
					d.dst_access = m->dstAccessMask;
				}
		}
		uint32_t nsub = v1 ? v1->subpassCount : v2->subpassCount;
		if ((flags & VK_DEPENDENCY_BY_REGION_BIT) || d.src_subpass >= nsub || d.dst_subpass >= nsub)
			continue;
		if (v1) {
			const VkSubpassDescription *sp = &v1->pSubpasses[d.dst_subpass];
			for (uint32_t k = 0; k < sp->inputAttachmentCount; k++) {
				uint32_t a = sp->pInputAttachments[k].attachment;
				d.dst_multisampled_input |= a < v1->attachmentCount &&
							    v1->pAttachments[a].samples != VK_SAMPLE_COUNT_1_BIT;
			}
		} else {
			const VkSubpassDescription2 *sp = &v2->pSubpasses[d.dst_subpass];
			for (uint32_t k = 0; k < sp->inputAttachmentCount; k++) {
				uint32_t a = sp->pInputAttachments[k].attachment;
				d.dst_multisampled_input |= a < v2->attachmentCount &&
							    v2->pAttachments[a].samples != VK_SAMPLE_COUNT_1_BIT;
			}
		}
		if (!out && !(out = calloc(PP_RP_MAX_DEPENDENCIES, sizeof(*out))))
			return NULL;
		out[(*n)++] = d;
	}
	return out;
}

static void render_pass_attachments(union pp_object_desc *d, uint32_t natt, const void *atts, size_t stride,
				    bool v2)
{
	struct pp_rp_attachment *a = natt ? calloc(natt, sizeof(*a)) : NULL;
	for (uint32_t i = 0; a && i < natt; i++) {
		const char *base = (const char *)atts + i * stride;
		if (v2) {
			const VkAttachmentDescription2 *s = (const void *)base;
			a[i] = (struct pp_rp_attachment){
				.format = s->format, .samples = s->samples, .load_op = s->loadOp, .store_op = s->storeOp
			};
		} else {
			const VkAttachmentDescription *s = (const void *)base;
			a[i] = (struct pp_rp_attachment){
				.format = s->format, .samples = s->samples, .load_op = s->loadOp, .store_op = s->storeOp
			};
		}
		a[i].format_name = pp_vk_profiling_format_name(a[i].format);
		a[i].load_op_name = pp_vk_profiling_load_op_name(a[i].load_op);
		a[i].store_op_name = pp_vk_profiling_store_op_name(a[i].store_op);
		a[i].depth_stencil = a[i].format >= VK_FORMAT_D16_UNORM && a[i].format <= VK_FORMAT_D32_SFLOAT_S8_UINT;
	}
	d->render_pass.attachments = a;
	d->render_pass.nattachments = a ? natt : 0;
}

/* A render pass of either create-info version (exactly one of v1, v2), its views' union given. */
static bool render_pass_describe(union pp_object_desc *d, const VkRenderPassCreateInfo *v1,
				 const VkRenderPassCreateInfo2 *v2, uint32_t view_mask)
{
	uint32_t ndeps;
	d->render_pass.dependencies = render_pass_dependencies(v1, v2, &ndeps);
	d->render_pass.ndependencies = d->render_pass.dependencies ? ndeps : 0;
	if (v1)
		render_pass_attachments(d, v1->attachmentCount, v1->pAttachments, sizeof(VkAttachmentDescription), false);
	else
		render_pass_attachments(d, v2->attachmentCount, v2->pAttachments, sizeof(VkAttachmentDescription2), true);
	d->render_pass.subpasses = v1 ? v1->subpassCount : v2->subpassCount;
	d->render_pass.multiview_mask = view_mask;
	return true;
}

static bool describe_render_pass(struct pp_device *dev, const VkRenderPassCreateInfo *info, union pp_object_desc *d)
{
	uint32_t view_mask = 0;
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO) {
			const VkRenderPassMultiviewCreateInfo *mv = (const void *)s;
			for (uint32_t i = 0; i < mv->subpassCount; i++)
				view_mask |= mv->pViewMasks[i];
		}
	return render_pass_describe(d, info, NULL, view_mask);
}

static bool describe_render_pass2(struct pp_device *dev, const VkRenderPassCreateInfo2 *info, union pp_object_desc *d)
{
	uint32_t view_mask = 0;
	for (uint32_t i = 0; i < info->subpassCount; i++)
		view_mask |= info->pSubpasses[i].viewMask;
	return render_pass_describe(d, NULL, info, view_mask);
}

static bool describe_framebuffer(struct pp_device *dev, const VkFramebufferCreateInfo *info, union pp_object_desc *d)
{
	d->framebuffer.width = info->width;
	d->framebuffer.height = info->height;
	d->framebuffer.layers = info->layers;
	d->framebuffer.render_pass = (uint64_t)info->renderPass;
	/* The experiment tells the images a render pass writes apart (vk_diag_state.c). */
	if (pp_layer_registry_settings.experiment != PP_EXPERIMENT_OFF && info->attachmentCount &&
	    !(info->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT) &&
	    (d->framebuffer.views = malloc(info->attachmentCount * sizeof(uint64_t)))) {
		d->framebuffer.nviews = info->attachmentCount;
		for (uint32_t i = 0; i < info->attachmentCount; i++)
			d->framebuffer.views[i] = (uint64_t)info->pAttachments[i];
	}
	return true;
}

static bool describe_image(struct pp_device *dev, const VkImageCreateInfo *info, union pp_object_desc *d)
{
	d->image.format = info->format;
	d->image.samples = info->samples;
	d->image.extent = info->extent;
	d->image.layers = info->arrayLayers;
	return true;
}

static bool describe_image_view(struct pp_device *dev, const VkImageViewCreateInfo *info, union pp_object_desc *d)
{
	d->image_view.image = (uint64_t)info->image;
	d->image_view.format = info->format;
	d->image_view.range = info->subresourceRange;
	return true;
}

static bool describe_query_pool(struct pp_device *dev, const VkQueryPoolCreateInfo *info, union pp_object_desc *d)
{
	d->query_pool.type = info->queryType;
	d->query_pool.count = info->queryCount;
	return true;
}

OBJECT_CREATE_HOOK(RenderPass, VkRenderPassCreateInfo, VkRenderPass, VK_OBJECT_TYPE_RENDER_PASS, describe_render_pass)
OBJECT_CREATE_HOOK(RenderPass2, VkRenderPassCreateInfo2, VkRenderPass, VK_OBJECT_TYPE_RENDER_PASS, describe_render_pass2)
OBJECT_DESTROY_HOOK(RenderPass, VkRenderPass, VK_OBJECT_TYPE_RENDER_PASS)
OBJECT_CREATE_HOOK(Framebuffer, VkFramebufferCreateInfo, VkFramebuffer, VK_OBJECT_TYPE_FRAMEBUFFER, describe_framebuffer)
OBJECT_DESTROY_HOOK(Framebuffer, VkFramebuffer, VK_OBJECT_TYPE_FRAMEBUFFER)
OBJECT_CREATE_HOOK(Image, VkImageCreateInfo, VkImage, VK_OBJECT_TYPE_IMAGE, describe_image)
OBJECT_DESTROY_HOOK(Image, VkImage, VK_OBJECT_TYPE_IMAGE)
OBJECT_CREATE_HOOK(ImageView, VkImageViewCreateInfo, VkImageView, VK_OBJECT_TYPE_IMAGE_VIEW, describe_image_view)
OBJECT_DESTROY_HOOK(ImageView, VkImageView, VK_OBJECT_TYPE_IMAGE_VIEW)
OBJECT_CREATE_HOOK(QueryPool, VkQueryPoolCreateInfo, VkQueryPool, VK_OBJECT_TYPE_QUERY_POOL, describe_query_pool)
OBJECT_DESTROY_HOOK(QueryPool, VkQueryPool, VK_OBJECT_TYPE_QUERY_POOL)

/* Tracked only while the device has diagnostics state (the diagnostics setting on and the
 * device measured); creating one sets that state up, as the first such object always did. */
static bool diag_tracks(struct pp_device *dev)
{
	return pp_vk_diag_state_device(dev) != NULL;
}

/* Set and pipeline layouts: also for quirk_uniforms_before_pipeline (vk_cmd.c). diag_tracks
 * is asked first: it still sets the diagnostics state up at the first such object. */
static bool layouts_tracked(struct pp_device *dev)
{
	return diag_tracks(dev) || dev->quirk_uniforms_before_pipeline;
}

static uint32_t shader_stages_of(VkShaderStageFlags f)
{
	uint32_t s = 0;
	if (f & VK_SHADER_STAGE_VERTEX_BIT)
		s |= PP_STAGE_VERTEX_SHADER;
	if (f & VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT)
		s |= PP_STAGE_TESS_CONTROL;
	if (f & VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT)
		s |= PP_STAGE_TESS_EVAL;
	if (f & VK_SHADER_STAGE_GEOMETRY_BIT)
		s |= PP_STAGE_GEOMETRY;
	if (f & VK_SHADER_STAGE_FRAGMENT_BIT)
		s |= PP_STAGE_FRAGMENT_SHADER;
	if (f & VK_SHADER_STAGE_COMPUTE_BIT)
		s |= PP_STAGE_COMPUTE;
	if (f & ~(VkShaderStageFlags)(VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT))
		s |= PP_STAGE_OTHER;
	return s;
}

static bool descriptor_writes(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
	       t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC || t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
}

static bool describe_set_layout(struct pp_device *dev, const VkDescriptorSetLayoutCreateInfo *info,
				union pp_object_desc *d)
{
	if (!layouts_tracked(dev))
		return false;
	struct pp_dsl_binding *b = calloc(info->bindingCount ? info->bindingCount : 1, sizeof(*b));
	if (!b)
		return false;
	uint32_t n = info->bindingCount, total = 0;
	VkShaderStageFlags uniform_stages = 0;
	/* Bindless: sets of such a layout may be written after they are bound, up to the submit,
	 * so what they held at the draw says nothing. */
	bool partial = info->flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
	for (uint32_t i = 0; i < n; i++) {
		const VkDescriptorSetLayoutBinding *s = &info->pBindings[i];
		if (s->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ||
		    s->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
		    s->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK)
			uniform_stages |= s->stageFlags;
		b[i].binding = s->binding;
		b[i].count = s->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK ? 0 : s->descriptorCount;
		b[i].stages = shader_stages_of(s->stageFlags);
		b[i].write = descriptor_writes(s->descriptorType);
		b[i].kind = pp_vk_descriptor_is_image(s->descriptorType)    ? PP_RES_IMAGE
			    : pp_vk_descriptor_is_buffer(s->descriptorType) ? PP_RES_BUFFER
									    : PP_RES_GLOBAL;
		if (b[i].kind == PP_RES_GLOBAL)
			b[i].count = 0; /* samplers, inline uniforms, acceleration structures: no resource */
		if (s->descriptorType != VK_DESCRIPTOR_TYPE_SAMPLER && b[i].kind == PP_RES_GLOBAL &&
		    s->descriptorType != VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK)
			partial = true;
	}
	/* Binding numbers may come in any order: lay the descriptors out by binding number. */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && b[j - 1].binding > b[j].binding; j--) {
			struct pp_dsl_binding t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++) {
		b[i].base = total;
		if (total + b[i].count > PP_DSL_MAX_DESCRIPTORS) {
			b[i].count = total < PP_DSL_MAX_DESCRIPTORS ? PP_DSL_MAX_DESCRIPTORS - total : 0;
			partial = true;
		}
		total += b[i].count;
	}
	d->set_layout.bindings = b;
	d->set_layout.nbindings = n;
	d->set_layout.total = total;
	d->set_layout.partial = partial;
	d->set_layout.uniform_stages = uniform_stages;
	return true;
}

static bool describe_pipeline_layout(struct pp_device *dev, const VkPipelineLayoutCreateInfo *info,
				     union pp_object_desc *d)
{
	if (!layouts_tracked(dev))
		return false;
	uint32_t n = info->setLayoutCount < PP_PIPELINE_LAYOUT_MAX_SETS ? info->setLayoutCount
									  : PP_PIPELINE_LAYOUT_MAX_SETS;
	uint64_t *sets = n ? malloc(n * sizeof(*sets)) : NULL;
	if (n && !sets)
		return false;
	for (uint32_t i = 0; i < n; i++)
		sets[i] = (uint64_t)info->pSetLayouts[i];
	d->pipeline_layout.set_layouts = sets;
	d->pipeline_layout.nsets = n;
	return true;
}

static bool describe_buffer_view(struct pp_device *dev, const VkBufferViewCreateInfo *info, union pp_object_desc *d)
{
	if (!diag_tracks(dev))
		return false;
	d->buffer_view.buffer = (uint64_t)info->buffer;
	d->buffer_view.offset = info->offset;
	d->buffer_view.range = info->range;
	return true;
}

OBJECT_CREATE_HOOK(DescriptorSetLayout, VkDescriptorSetLayoutCreateInfo, VkDescriptorSetLayout,
		   VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, describe_set_layout)
OBJECT_DESTROY_HOOK(DescriptorSetLayout, VkDescriptorSetLayout, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT)
OBJECT_CREATE_HOOK(PipelineLayout, VkPipelineLayoutCreateInfo, VkPipelineLayout, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
		   describe_pipeline_layout)
OBJECT_DESTROY_HOOK(PipelineLayout, VkPipelineLayout, VK_OBJECT_TYPE_PIPELINE_LAYOUT)
OBJECT_CREATE_HOOK(BufferView, VkBufferViewCreateInfo, VkBufferView, VK_OBJECT_TYPE_BUFFER_VIEW, describe_buffer_view)
OBJECT_DESTROY_HOOK(BufferView, VkBufferView, VK_OBJECT_TYPE_BUFFER_VIEW)

/* Pipelines come n at a time; each is recorded as the other objects are, with the shader
 * stages it runs (what the diagnostics' bind tracking reads). */
static void pipeline_track(struct pp_device *dev, VkPipeline pipeline, uint32_t stages)
{
	if (!pipeline)
		return;
	union pp_object_desc d;
	memset(&d, 0, sizeof(d));
	d.pipeline.stages = stages;
	pp_layer_objects_record(dev, VK_OBJECT_TYPE_PIPELINE, (uint64_t)pipeline, &d);
}

static uint32_t graphics_pipeline_stages(const VkGraphicsPipelineCreateInfo *info)
{
	VkShaderStageFlags f = 0;
	for (uint32_t k = 0; k < info->stageCount; k++)
		f |= info->pStages[k].stage;
	uint32_t stages = shader_stages_of(f);
	/* Pipeline libraries link stages passprobe does not see here: assume them all. */
	for (const VkBaseInStructure *e = info->pNext; e; e = e->pNext)
		if (e->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR)
			stages |= PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER;
	return stages ? stages : PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER;
}

/* Whether the pipelines a create call returned are followed: the call did not fail, and the
 * diagnostics look at binds on this device. */
static bool pipelines_followed(struct pp_device *dev, VkResult r)
{
	return r >= 0 && pp_layer_registry_settings.diagnostics && diag_tracks(dev);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
							  const VkGraphicsPipelineCreateInfo *info,
							  const VkAllocationCallbacks *alloc, VkPipeline *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.CreateGraphicsPipelines(device, cache, n, info, alloc, out);
	if (pipelines_followed(dev, r))
		for (uint32_t i = 0; i < n; i++)
			pipeline_track(dev, out[i], graphics_pipeline_stages(&info[i]));
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
							 const VkComputePipelineCreateInfo *info,
							 const VkAllocationCallbacks *alloc, VkPipeline *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.CreateComputePipelines(device, cache, n, info, alloc, out);
	if (pipelines_followed(dev, r))
		for (uint32_t i = 0; i < n; i++)
			pipeline_track(dev, out[i], PP_STAGE_COMPUTE);
	return r;
}

OBJECT_DESTROY_HOOK(Pipeline, VkPipeline, VK_OBJECT_TYPE_PIPELINE)

VKAPI_ATTR VkResult VKAPI_CALL pp_SetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.SetDebugUtilsObjectNameEXT(device, info);
	if (r != VK_SUCCESS)
		return r;
	switch (info->objectType) {
	case VK_OBJECT_TYPE_RENDER_PASS:
	case VK_OBJECT_TYPE_FRAMEBUFFER:
	case VK_OBJECT_TYPE_IMAGE:
	case VK_OBJECT_TYPE_IMAGE_VIEW: {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_layer_objects_insert_locked(dev, info->objectType, info->objectHandle);
		if (o) {
			o->name[0] = '\0';
			if (info->pObjectName)
				strncat(o->name, info->pObjectName, sizeof(o->name) - 1);
		}
		pthread_rwlock_unlock(&dev->lock);
		break;
	}
	default:
		break;
	}
	return r;
}

