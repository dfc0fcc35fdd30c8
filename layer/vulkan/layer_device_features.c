/* Enabling what the profiler needs (host query reset, pipeline statistics, calibrated
 * timestamps) on a *copy* of the application's VkDeviceCreateInfo. The application's structs
 * are never written: a struct we must change is copied, and so is every struct in front of it
 * in the pNext chain (their pNext must point at our copy). Structs behind it stay shared. */
#include <stdlib.h>
#include <string.h>

#include <vulkan/vk_layer.h>

#include "layer_device_features.h"
#include "pp_log.h"

/* Sizes of the structs that may stand in front of one we patch. An unknown struct in front
 * means we cannot patch behind it: we then leave the feature off and say so. */
static size_t chain_struct_size(VkStructureType type)
{
	switch (type) {
	/* The loader's own link structs stand at the head of every chain a layer sees. Our copy
	 * carries the already-advanced link, so the layers below find their own. */
	case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return sizeof(VkLayerDeviceCreateInfo);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2: return sizeof(VkPhysicalDeviceFeatures2);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: return sizeof(VkPhysicalDeviceVulkan11Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: return sizeof(VkPhysicalDeviceVulkan12Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: return sizeof(VkPhysicalDeviceVulkan13Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES: return sizeof(VkPhysicalDeviceHostQueryResetFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES: return sizeof(VkPhysicalDeviceDynamicRenderingFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES: return sizeof(VkPhysicalDeviceSynchronization2Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES: return sizeof(VkPhysicalDeviceTimelineSemaphoreFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES: return sizeof(VkPhysicalDeviceBufferDeviceAddressFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_INDEXING_FEATURES: return sizeof(VkPhysicalDeviceDescriptorIndexingFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES: return sizeof(VkPhysicalDeviceMultiviewFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES: return sizeof(VkPhysicalDeviceShaderDrawParametersFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES: return sizeof(VkPhysicalDevice16BitStorageFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES: return sizeof(VkPhysicalDevice8BitStorageFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES: return sizeof(VkPhysicalDeviceScalarBlockLayoutFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: return sizeof(VkPhysicalDeviceShaderFloat16Int8Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES: return sizeof(VkPhysicalDeviceMaintenance4Features);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES: return sizeof(VkPhysicalDeviceImagelessFramebufferFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SEPARATE_DEPTH_STENCIL_LAYOUTS_FEATURES: return sizeof(VkPhysicalDeviceSeparateDepthStencilLayoutsFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES: return sizeof(VkPhysicalDeviceUniformBufferStandardLayoutFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES: return sizeof(VkPhysicalDeviceVulkanMemoryModelFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES: return sizeof(VkPhysicalDeviceSamplerYcbcrConversionFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES: return sizeof(VkPhysicalDeviceProtectedMemoryFeatures);
	case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES: return sizeof(VkPhysicalDeviceVariablePointersFeatures);
	case VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO: return sizeof(VkDeviceGroupDeviceCreateInfo);
	default: return 0;
	}
}

void pp_layer_device_features_create_info_init(struct pp_device_create_info *p, const VkDeviceCreateInfo *app)
{
	memset(p, 0, sizeof(*p));
	p->info = *app;
}

/* Finds the struct of `type` in the (possibly already patched) chain and returns a writable
 * copy of it, copying the structs in front of it. NULL when absent or not patchable. */
static VkBaseOutStructure *chain_make_writable(struct pp_device_create_info *p, VkStructureType type,
					       bool *unpatchable)
{
	VkBaseOutStructure **link = (VkBaseOutStructure **)&p->info.pNext;
	for (VkBaseOutStructure *s = *link; s; link = &s->pNext, s = *link) {
		bool ours = false;
		for (unsigned i = 0; i < p->ncopies; i++)
			ours |= p->copies[i] == (void *)s;
		if (s->sType == type && ours)
			return s;
		if (!ours) {
			size_t size = chain_struct_size(s->sType);
			bool wanted = s->sType == type;
			if (!wanted) {
				/* Only copy the prefix if the target is further down. */
				bool found = false;
				for (const VkBaseInStructure *t = (const VkBaseInStructure *)s->pNext; t; t = t->pNext)
					found |= t->sType == type;
				if (!found)
					return NULL;
			}
			if (!size || p->ncopies == PP_CHAIN_MAX_COPIES) {
				*unpatchable = true;
				return NULL;
			}
			void *copy = malloc(size);
			if (!copy) {
				*unpatchable = true;
				return NULL;
			}
			memcpy(copy, s, size);
			p->copies[p->ncopies++] = copy;
			*link = copy;
			s = copy;
			if (wanted)
				return s;
		}
	}
	return NULL;
}

static bool chain_has(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *s = chain; s; s = s->pNext)
		if (s->sType == type)
			return true;
	return false;
}

bool pp_layer_device_features_create_info_enable_host_query_reset(struct pp_device_create_info *p, bool core12)
{
	bool unpatchable = false;
	VkBaseOutStructure *s;

	if ((s = chain_make_writable(p, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &unpatchable))) {
		((VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset = VK_TRUE;
		return true;
	}
	if (unpatchable)
		return false;
	if ((s = chain_make_writable(p, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES, &unpatchable))) {
		((VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset = VK_TRUE;
		return true;
	}
	if (unpatchable)
		return false;
	/* Not in the chain: put our own struct at its head. */
	p->host_query_reset.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES;
	p->host_query_reset.pNext = (void *)p->info.pNext;
	p->host_query_reset.hostQueryReset = VK_TRUE;
	p->info.pNext = &p->host_query_reset;
	if (!core12)
		return pp_layer_device_features_create_info_enable_extension(p, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
	return true;
}

bool pp_layer_device_features_create_info_enable_pipeline_statistics(struct pp_device_create_info *p)
{
	bool unpatchable = false;
	VkBaseOutStructure *s;

	if (p->info.pEnabledFeatures) {
		p->features = *p->info.pEnabledFeatures;
		p->features.pipelineStatisticsQuery = VK_TRUE;
		p->info.pEnabledFeatures = &p->features;
		return true;
	}
	if ((s = chain_make_writable(p, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &unpatchable))) {
		((VkPhysicalDeviceFeatures2 *)s)->features.pipelineStatisticsQuery = VK_TRUE;
		return true;
	}
	if (unpatchable || chain_has(p->info.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2))
		return false;
	memset(&p->features, 0, sizeof(p->features));
	p->features.pipelineStatisticsQuery = VK_TRUE;
	p->info.pEnabledFeatures = &p->features;
	return true;
}

bool pp_layer_device_features_create_info_enable_extension(struct pp_device_create_info *p, const char *name)
{
	for (uint32_t i = 0; i < p->info.enabledExtensionCount; i++)
		if (!strcmp(p->info.ppEnabledExtensionNames[i], name))
			return true;
	const char **names = malloc((p->info.enabledExtensionCount + 1) * sizeof(*names));
	if (!names)
		return false;
	if (p->info.enabledExtensionCount)
		memcpy(names, p->info.ppEnabledExtensionNames, p->info.enabledExtensionCount * sizeof(*names));
	names[p->info.enabledExtensionCount] = name;
	free(p->extension_names);
	p->extension_names = names;
	p->info.ppEnabledExtensionNames = names;
	p->info.enabledExtensionCount++;
	return true;
}

bool pp_layer_device_features_create_info_enable_performance_query(struct pp_device_create_info *p)
{
	if (chain_has(p->info.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR))
		return false; /* the application's own: its choice, not ours */
	p->performance_query = (VkPhysicalDevicePerformanceQueryFeaturesKHR){
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR,
		.pNext = (void *)p->info.pNext,
		.performanceCounterQueryPools = VK_TRUE,
	};
	p->info.pNext = &p->performance_query;
	return pp_layer_device_features_create_info_enable_extension(p, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME);
}

bool pp_layer_device_features_create_info_has_extension(const VkDeviceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (!strcmp(info->ppEnabledExtensionNames[i], name))
			return true;
	return false;
}

bool pp_layer_device_features_create_info_sync2(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES &&
		    ((const VkPhysicalDeviceVulkan13Features *)s)->synchronization2)
			return true;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES &&
		    ((const VkPhysicalDeviceSynchronization2Features *)s)->synchronization2)
			return true;
	}
	return false;
}

/* Extensions whose commands are state, binds, work inside render passes, or hooked by passprobe
 * (names and name prefixes): nothing of theirs can come between two barrier calls unseen. */
static const char *const exp_known_extensions[] = {
	"VK_KHR_swapchain", "VK_KHR_dynamic_rendering", "VK_KHR_synchronization2", "VK_KHR_timeline_semaphore",
	"VK_KHR_maintenance1", "VK_KHR_maintenance2", "VK_KHR_maintenance3", "VK_KHR_maintenance4",
	"VK_KHR_maintenance5", "VK_KHR_maintenance6", "VK_KHR_create_renderpass2", "VK_KHR_depth_stencil_resolve", "VK_KHR_multiview",
	"VK_KHR_push_descriptor", "VK_KHR_descriptor_update_template", "VK_KHR_get_memory_requirements2",
	"VK_KHR_dedicated_allocation", "VK_KHR_bind_memory2", "VK_KHR_image_format_list",
	"VK_KHR_sampler_mirror_clamp_to_edge", "VK_KHR_sampler_ycbcr_conversion", "VK_KHR_shader_", "VK_KHR_spirv_1_4",
	"VK_KHR_8bit_storage", "VK_KHR_16bit_storage", "VK_KHR_storage_buffer_storage_class",
	"VK_KHR_variable_pointers", "VK_KHR_vulkan_memory_model", "VK_KHR_imageless_framebuffer",
	"VK_KHR_separate_depth_stencil_layouts", "VK_KHR_uniform_buffer_standard_layout",
	"VK_KHR_buffer_device_address", "VK_KHR_external_", "VK_KHR_driver_properties", "VK_KHR_copy_commands2",
	"VK_KHR_format_feature_flags2", "VK_KHR_zero_initialize_workgroup_memory", "VK_KHR_global_priority",
	"VK_KHR_incremental_present", "VK_KHR_portability_subset", "VK_KHR_relaxed_block_layout",
	"VK_KHR_pipeline_executable_properties", "VK_KHR_pipeline_library", "VK_KHR_load_store_op_none",
	"VK_KHR_index_type_uint8", "VK_KHR_line_rasterization", "VK_KHR_vertex_attribute_divisor",
	"VK_KHR_calibrated_timestamps", "VK_KHR_performance_query", "VK_KHR_draw_indirect_count",
	"VK_EXT_extended_dynamic_state", "VK_EXT_vertex_input_dynamic_state", "VK_EXT_host_query_reset",
	"VK_EXT_calibrated_timestamps", "VK_EXT_memory_budget", "VK_EXT_memory_priority",
	"VK_EXT_pageable_device_local_memory", "VK_EXT_descriptor_indexing", "VK_EXT_scalar_block_layout",
	"VK_EXT_robustness2", "VK_EXT_image_robustness", "VK_EXT_custom_border_color", "VK_EXT_index_type_uint8",
	"VK_EXT_line_rasterization", "VK_EXT_depth_clip_enable", "VK_EXT_depth_clip_control",
	"VK_EXT_provoking_vertex", "VK_EXT_vertex_attribute_divisor", "VK_EXT_4444_formats",
	"VK_EXT_sampler_filter_minmax", "VK_EXT_shader_", "VK_EXT_subgroup_size_control",
	"VK_EXT_pipeline_creation_cache_control", "VK_EXT_pipeline_creation_feedback", "VK_EXT_private_data",
	"VK_EXT_texel_buffer_alignment", "VK_EXT_inline_uniform_block", "VK_EXT_separate_stencil_usage",
	"VK_EXT_tooling_info", "VK_EXT_color_write_enable", "VK_EXT_primitive_topology_list_restart",
	"VK_EXT_image_2d_view_of_3d", "VK_EXT_multi_draw", "VK_EXT_non_seamless_cube_map",
	"VK_EXT_graphics_pipeline_library", "VK_EXT_pipeline_robustness", "VK_EXT_attachment_feedback_loop_layout",
	"VK_EXT_border_color_swizzle", "VK_EXT_swapchain_maintenance1", "VK_EXT_hdr_metadata",
	"VK_EXT_load_store_op_none", "VK_EXT_depth_range_unrestricted", "VK_EXT_post_depth_coverage",
	"VK_EXT_conservative_rasterization", "VK_EXT_mutable_descriptor_type", "VK_EXT_image_view_min_lod",
	"VK_EXT_ycbcr_image_arrays", "VK_EXT_queue_family_foreign", "VK_EXT_external_memory_",
	"VK_EXT_global_priority", "VK_EXT_dynamic_rendering_unused_attachments", "VK_EXT_filter_cubic",
	"VK_EXT_validation_cache", "VK_EXT_rasterization_order_attachment_access", "VK_EXT_fragment_shader_interlock",
	"VK_EXT_physical_device_drm", "VK_EXT_image_drm_format_modifier", "VK_EXT_primitives_generated_query",
	"VK_EXT_depth_clamp_zero_one", "VK_EXT_legacy_dithering", "VK_EXT_multisampled_render_to_single_sampled",
};

const char *pp_layer_device_features_create_info_unhooked_extension(const VkDeviceCreateInfo *info)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
		const char *name = info->ppEnabledExtensionNames[i];
		bool known = false;
		for (size_t k = 0; k < sizeof(exp_known_extensions) / sizeof(exp_known_extensions[0]) && !known; k++) {
			size_t n = strlen(exp_known_extensions[k]);
			/* a name ending in "_" is a family */
			known = !strncmp(name, exp_known_extensions[k], n) && (!name[n] || exp_known_extensions[k][n - 1] == '_');
		}
		if (!known)
			return name;
	}
	return NULL;
}

void pp_layer_device_features_create_info_finish(struct pp_device_create_info *p)
{
	for (unsigned i = 0; i < p->ncopies; i++)
		free(p->copies[i]);
	free(p->extension_names);
	memset(p, 0, sizeof(*p));
}
