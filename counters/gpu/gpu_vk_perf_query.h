#pragma once
/* VK_KHR_performance_query as a bracketing GPU counter backend (pp_gpu_counters.h;
 * docs/counters.md, "VK_KHR_performance_query").
 *
 * At creation: the counters of one queue family are enumerated, the gpu_counters setting
 * picks a set (counters of COMMAND_BUFFER scope cannot bracket a pass and are left out, said
 * once), the set is split into groups that each need one hardware pass
 * (vkGetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR, first fit), the device's
 * profiling lock is taken without waiting (timeout 0) and one query pool is made per group.
 * A recording uses one group (the caller rotates groups over frames); its passes take query
 * slots of that group, bracketed with vkCmdBeginQuery/vkCmdEndQuery, read with
 * vkGetQueryPoolResults without WAIT_BIT. Every value of the set comes back from scope_read in
 * the set's order; those of other groups are marked other_pass. */
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "pp_gpu_counters.h"

struct pp_gpu_perf_funcs {
	PFN_vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR EnumerateCounters;
	PFN_vkGetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR GetPasses;
	PFN_vkAcquireProfilingLockKHR AcquireProfilingLock;
	PFN_vkReleaseProfilingLockKHR ReleaseProfilingLock;
	PFN_vkCreateQueryPool CreateQueryPool;
	PFN_vkDestroyQueryPool DestroyQueryPool;
	PFN_vkGetQueryPoolResults GetQueryPoolResults;
	PFN_vkResetQueryPool ResetQueryPool; /* host reset is required */
	PFN_vkCmdBeginQuery CmdBeginQuery;
	PFN_vkCmdEndQuery CmdEndQuery;
};

struct pp_gpu_perf_config {
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t queue_family;
	const char *setting; /* the gpu_counters setting: default or a list */
	struct pp_gpu_perf_funcs vk;
};

#define PP_GPU_PERF_GROUPS_MAX 16
#define PP_GPU_PERF_SET_MAX 64
#define PP_GPU_PERF_POOL_QUERIES 1024u

struct pp_gpu_perf;

/* NULL when the backend cannot run, with the reason in why (one line). */
struct pp_gpu_perf *pp_gpu_vk_perf_query_create(const struct pp_gpu_perf_config *cfg, char *why, size_t why_len);
/* Releases the profiling lock and the pools (the device is idle: the application is
 * destroying it). */
void pp_gpu_vk_perf_query_destroy(struct pp_gpu_perf *p);
const struct pp_gpu_counter_backend *pp_gpu_vk_perf_query_backend(struct pp_gpu_perf *p);
uint32_t pp_gpu_vk_perf_query_groups(const struct pp_gpu_perf *p);
/* A query slot of group g, PP_GPU_PERF_NO_SLOT when the group's pool is full. Thread-safe. */
#define PP_GPU_PERF_NO_SLOT UINT32_MAX
uint32_t pp_gpu_vk_perf_query_slot_take(struct pp_gpu_perf *p, uint32_t group);
/* Host-resets a slot for another execution of the same recording (its result was read, or
 * will never be). */
void pp_gpu_vk_perf_query_slot_reset(struct pp_gpu_perf *p, uint32_t slot);
/* Gives a slot back (its recording is no longer pending), reset. */
void pp_gpu_vk_perf_query_slot_free(struct pp_gpu_perf *p, uint32_t slot);
