#pragma once
/* VK_KHR_performance_query emulated by the spy layer (spy_perf_query.c), for the tests of
 * passprobe's performance query backend on lavapipe, which lacks the extension. Enabled by
 * $SPY_PERF_ENV=N (N >= 1: the counters need N hardware passes between them). */
#include <stdbool.h>
#include <vulkan/vulkan.h>

bool spy_perf_on(void);

/* Instance level. */
typedef VkResult (*spy_ext_list_fn)(PFN_vkEnumerateDeviceExtensionProperties down, VkPhysicalDevice pd,
				    const char *layer, uint32_t *n, VkExtensionProperties *props);
VkResult spy_perf_extensions(spy_ext_list_fn list, PFN_vkEnumerateDeviceExtensionProperties down, VkPhysicalDevice pd,
			     uint32_t *n, VkExtensionProperties *props);
void spy_perf_features(VkPhysicalDeviceFeatures2 *f);
PFN_vkVoidFunction spy_perf_instance_proc(const char *name);
/* The create-info the driver gets: without the extension and its feature struct. *info is
 * the caller's copy; restore with spy_perf_create_done. */
void spy_perf_create_strip(VkDeviceCreateInfo *info, const char **names_buf, uint32_t cap);
void spy_perf_create_done(void);

/* Device level: hooks answered when the chain below has nothing (the extension's commands). */
PFN_vkVoidFunction spy_perf_device_proc(const char *name);
/* Pools and queries: true when the call was about an emulated pool (and was handled). */
bool spy_perf_create_pool(const VkQueryPoolCreateInfo *info, VkQueryPool *out, VkResult *r);
bool spy_perf_destroy_pool(VkQueryPool pool);
bool spy_perf_reset(VkQueryPool pool, uint32_t first, uint32_t n);
bool spy_perf_results(VkQueryPool pool, uint32_t first, uint32_t n, size_t size, void *data, VkDeviceSize stride,
		      VkQueryResultFlags flags, VkResult *r);
bool spy_perf_begin(VkCommandBuffer cb, VkQueryPool pool, uint32_t query);
bool spy_perf_end(VkCommandBuffer cb, VkQueryPool pool, uint32_t query);
void spy_perf_draw(VkCommandBuffer cb, uint64_t vertices, uint64_t indices);
void spy_perf_cb_reset(VkCommandBuffer cb);
void spy_perf_submitted(uint32_t n, const VkCommandBuffer *cbs);
