#pragma once
#include <stdbool.h>
#include <vulkan/vulkan.h>

#define PP_CHAIN_MAX_COPIES 16

/* A patched copy of an application's VkDeviceCreateInfo; see layer_device_features.c. */
struct pp_device_create_info {
	VkDeviceCreateInfo info;
	VkPhysicalDeviceFeatures features;
	VkPhysicalDeviceHostQueryResetFeatures host_query_reset;
	VkPhysicalDevicePerformanceQueryFeaturesKHR performance_query;
	const char **extension_names;
	unsigned ncopies;
	void *copies[PP_CHAIN_MAX_COPIES];
};

void pp_layer_device_features_create_info_init(struct pp_device_create_info *p, const VkDeviceCreateInfo *app);
/* Each returns true when the feature will be enabled on the copy. */
bool pp_layer_device_features_create_info_enable_host_query_reset(struct pp_device_create_info *p, bool core12);
bool pp_layer_device_features_create_info_enable_pipeline_statistics(struct pp_device_create_info *p);
bool pp_layer_device_features_create_info_enable_extension(struct pp_device_create_info *p, const char *name);
/* VK_KHR_performance_query with performanceCounterQueryPools, for passprobe's own counters
 * (only where the application does not use the extension itself). */
bool pp_layer_device_features_create_info_enable_performance_query(struct pp_device_create_info *p);
bool pp_layer_device_features_create_info_has_extension(const VkDeviceCreateInfo *info, const char *name);
void pp_layer_device_features_create_info_finish(struct pp_device_create_info *p);
/* The experiment: whether the application's create-info enables synchronization2, and the first
 * extension it enables that is not known to add only commands passprobe hooks or that cannot
 * come between two barrier calls (state, binds, draws inside render passes); NULL: none. */
bool pp_layer_device_features_create_info_sync2(const VkDeviceCreateInfo *info);
const char *pp_layer_device_features_create_info_unhooked_extension(const VkDeviceCreateInfo *info);
