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

void pp_device_create_info_init(struct pp_device_create_info *p, const VkDeviceCreateInfo *app)
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

bool pp_device_create_info_enable_host_query_reset(struct pp_device_create_info *p, bool core12)
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
		return pp_device_create_info_enable_extension(p, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
	return true;
}

bool pp_device_create_info_enable_pipeline_statistics(struct pp_device_create_info *p)
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

bool pp_device_create_info_enable_extension(struct pp_device_create_info *p, const char *name)
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

bool pp_device_create_info_enable_performance_query(struct pp_device_create_info *p)
{
	if (chain_has(p->info.pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR))
		return false; /* the application's own: its choice, not ours */
	p->performance_query = (VkPhysicalDevicePerformanceQueryFeaturesKHR){
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR,
		.pNext = (void *)p->info.pNext,
		.performanceCounterQueryPools = VK_TRUE,
	};
	p->info.pNext = &p->performance_query;
	return pp_device_create_info_enable_extension(p, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME);
}

bool pp_device_create_info_has_extension(const VkDeviceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (!strcmp(info->ppEnabledExtensionNames[i], name))
			return true;
	return false;
}

void pp_device_create_info_finish(struct pp_device_create_info *p)
{
	for (unsigned i = 0; i < p->ncopies; i++)
		free(p->copies[i]);
	free(p->extension_names);
	memset(p, 0, sizeof(*p));
}
