#pragma once
/* What the test spy layer counts, and the two functions a test in the same process may look
 * up (dlopen(path, RTLD_NOLOAD) + dlsym) to read the counts without going through a file. */
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* X(enum suffix, JSON key). The JSON key is also the name in the spy's output lines. */
#define SPY_COUNTERS(X)                                                  \
	X(WAIT_FOR_FENCES, "vkWaitForFences")                            \
	X(QUEUE_WAIT_IDLE, "vkQueueWaitIdle")                            \
	X(DEVICE_WAIT_IDLE, "vkDeviceWaitIdle")                          \
	X(QUERY_RESULTS_WAIT, "vkGetQueryPoolResults_wait")              \
	X(QUERY_RESULTS_NOWAIT, "vkGetQueryPoolResults_nowait")          \
	X(SEMAPHORE_COUNTER_VALUE, "vkGetSemaphoreCounterValue")         \
	X(WAIT_SEMAPHORES, "vkWaitSemaphores")                           \
	X(QUEUE_SUBMIT, "vkQueueSubmit")                                 \
	X(QUEUE_SUBMIT2, "vkQueueSubmit2")                               \
	X(CMD_WRITE_TIMESTAMP, "vkCmdWriteTimestamp")                    \
	X(CMD_WRITE_TIMESTAMP2, "vkCmdWriteTimestamp2")                  \
	X(CMD_BEGIN_QUERY, "vkCmdBeginQuery")                            \
	X(CMD_RESET_QUERY_POOL, "vkCmdResetQueryPool")                   \
	X(CMD_COPY_QUERY_POOL_RESULTS, "vkCmdCopyQueryPoolResults")      \
	X(CREATE_QUERY_POOL, "vkCreateQueryPool")                        \
	X(DESTROY_QUERY_POOL, "vkDestroyQueryPool")                      \
	X(RESET_QUERY_POOL, "vkResetQueryPool")                          \
	X(ALLOCATE_COMMAND_BUFFERS, "vkAllocateCommandBuffers")

enum spy_counter {
#define SPY_ENUM(e, name) SPY_##e,
	SPY_COUNTERS(SPY_ENUM)
#undef SPY_ENUM
	SPY_COUNTER_COUNT
};

#define SPY_MAX_EXTENSIONS 64

/* What the spy saw in the VkDeviceCreateInfo that reached it. */
struct spy_create_record {
	bool host_query_reset;          /* VkPhysicalDeviceVulkan12Features or HostQueryResetFeatures */
	bool pipeline_statistics_query; /* pEnabledFeatures or VkPhysicalDeviceFeatures2 */
	bool enabled_features_ptr;      /* pEnabledFeatures was not NULL */
	bool features2_in_chain;        /* a VkPhysicalDeviceFeatures2 was in the pNext chain */
	uint32_t chain_length;          /* structs in the pNext chain (loader's own ones excluded) */
	uint32_t nextensions;
	char extensions[SPY_MAX_EXTENSIONS][VK_MAX_EXTENSION_NAME_SIZE];
};

struct spy_device_record {
	struct spy_create_record create;
	uint64_t counts[SPY_COUNTER_COUNT];
};

/* Counts over the whole process (every device, live or destroyed). Fills up to n counters and
 * returns SPY_COUNTER_COUNT. */
typedef uint32_t (*PFN_passprobe_spy_totals)(uint64_t *counts, uint32_t n);
/* The record of a live device (the application's VkDevice handle). 0, or -1 if unknown. */
typedef int (*PFN_passprobe_spy_device)(VkDevice device, struct spy_device_record *out);

#define SPY_TOTALS_SYMBOL "passprobe_spy_totals"
#define SPY_DEVICE_SYMBOL "passprobe_spy_device"

static inline const char *spy_counter_name(enum spy_counter c)
{
	static const char *const names[] = {
#define SPY_NAME(e, name) name,
		SPY_COUNTERS(SPY_NAME)
#undef SPY_NAME
	};
	return (unsigned)c < SPY_COUNTER_COUNT ? names[c] : "?";
}
