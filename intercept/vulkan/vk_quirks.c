/* lavapipe's quirk_uniforms_before_pipeline (docs/timing.md, "Driver quirks"): which stages
 * got uniforms before the first pipeline of their bind point, followed through descriptor set
 * binds, push descriptors and push constants; vk_cmd.c then leaves pipeline statistics out of
 * passes that would begin a query in that state. */
#include "vk_hooks.h"
#include "vk_intercept.h"

static bool descriptor_is_uniform(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
	       t == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK;
}

/* The stages given uniforms by sets [first, first + n) of a pipeline layout; every stage
 * where a layout is not known. */
static VkShaderStageFlags layout_uniform_stages(struct pp_device *dev, VkPipelineLayout layout, uint32_t first,
						uint32_t n)
{
	VkShaderStageFlags stages = 0;
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_object *pl = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)layout);
	for (uint32_t i = first; i < first + n && stages != VK_SHADER_STAGE_ALL; i++) {
		struct pp_object *l = pl && i < pl->u.pipeline_layout.nsets
					      ? pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
								      pl->u.pipeline_layout.set_layouts[i])
					      : NULL;
		stages |= l ? l->u.set_layout.uniform_stages : VK_SHADER_STAGE_ALL;
	}
	pthread_rwlock_unlock(&dev->lock);
	return stages;
}

void pp_vk_quirks_sets_bound_slow(struct pp_command_buffer *c, VkPipelineBindPoint bp, VkPipelineLayout layout,
				 uint32_t first, uint32_t n)
{
	pp_vk_quirks_uniforms_set(c, bp, layout_uniform_stages(c->device, layout, first, n));
}

void pp_vk_quirks_descriptors_pushed(struct pp_command_buffer *c, VkPipelineBindPoint bp, VkPipelineLayout layout,
				    uint32_t set, uint32_t nw, const VkWriteDescriptorSet *writes)
{
	if (!pp_vk_quirks_watches(c, bp))
		return;
	for (uint32_t i = 0; i < nw; i++)
		if (descriptor_is_uniform(writes[i].descriptorType)) {
			pp_vk_quirks_uniforms_set(c, bp, layout_uniform_stages(c->device, layout, set, 1));
			return;
		}
}

/* Hooked for quirk_uniforms_before_pipeline alone. */
VKAPI_ATTR void VKAPI_CALL pp_CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout layout, VkShaderStageFlags stages,
					       uint32_t offset, uint32_t size, const void *values)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_quirks_uniforms_set(c, PP_VK_ANY_BIND_POINT, stages);
	pp_vk_cb_device(c, cb)->vk.CmdPushConstants(cb, layout, stages, offset, size, values);
}
