#pragma once
/* Shared pieces of the layer conformance tests: a CHECK macro with a final "N passed, N failed"
 * line, and a tiny Vulkan device that can prove it works (fill a buffer, read it back). The
 * tests go through the real loader; which layers are on comes from the environment CTest sets
 * (tests/layer/CMakeLists.txt). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <vulkan/vulkan.h>

#include "spy_counts.h"

/* ---- checks ----------------------------------------------------------------------------- */

bool lt_check(bool ok, const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Prints "N passed, N failed" and returns the process exit status. */
int lt_finish(void);
/* Skips the whole program (CTest SKIP_RETURN_CODE 77), unless a check failed already: then it
 * ends as lt_finish does, failing. */
_Noreturn void lt_skip(const char *why);

#define CHECK(cond) lt_check(!!(cond), __FILE__, __LINE__, #cond, NULL)
#define CHECKF(cond, ...) lt_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define CHECK_VK(call)                                                                  \
	({                                                                              \
		VkResult lt_r_ = (call);                                                \
		lt_check(lt_r_ == VK_SUCCESS, __FILE__, __LINE__, #call, "VkResult %d", lt_r_); \
		lt_r_;                                                                  \
	})

#define LT_PP_LAYER "VK_LAYER_PASSPROBE_profiler"
#define LT_SPY_ABOVE "VK_LAYER_PASSPROBE_test_spy_above"
#define LT_SPY_BELOW "VK_LAYER_PASSPROBE_test_spy_below"
#define LT_VALIDATION "VK_LAYER_KHRONOS_validation"

/* ---- Vulkan ------------------------------------------------------------------------------- */

/* Creates an instance with VK_EXT_debug_utils where available and a messenger that counts
 * (and prints) every error-severity message: a validation layer below passprobe turns its
 * errors into failures of the test. */
VkResult lt_instance_create(uint32_t api_version, VkInstance *out);
/* false: lt_instance_create installs no messenger, so a validation layer prints to stdout as it
 * does for applications without one. */
extern bool lt_messenger_enabled;
void lt_instance_destroy(VkInstance instance);
VkPhysicalDevice lt_physical_device(VkInstance instance);
/* Error-severity debug messages seen so far, over every instance. */
uint32_t lt_debug_errors(void);
/* Whether the loader knows a layer of that name (its manifest was found). */
bool lt_layer_available(const char *name);

struct lt_device {
	VkInstance instance;
	VkPhysicalDevice pd;
	VkDevice device;
	VkQueue queue;
	uint32_t family;
	VkCommandPool pool;
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint32_t *map; /* LT_BUFFER_WORDS words, host-coherent */
};

#define LT_BUFFER_WORDS 64u

/* Creates a device with one graphics queue. `pnext` and `features` go into the
 * VkDeviceCreateInfo as given; `exts` may be NULL. */
VkResult lt_device_create(struct lt_device *d, VkInstance instance, const void *pnext,
			  const VkPhysicalDeviceFeatures *features, uint32_t next, const char *const *exts);
/* The trivial workload: records an empty command buffer and one that fills the buffer with
 * `value`, submits both with a fence, waits, and reads the buffer back. True if correct. */
bool lt_device_fill(struct lt_device *d, uint32_t value);
void lt_device_destroy(struct lt_device *d);
uint32_t lt_memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags want);

/* ---- the spy layers, when the loader has loaded them into this process ------------------- */

struct lt_spy {
	bool loaded;
	PFN_passprobe_spy_totals totals;
	PFN_passprobe_spy_device device;
};

/* Finds a spy library the loader already loaded (RTLD_NOLOAD). `which`: "above" or "below". */
bool lt_spy_get(const char *which, struct lt_spy *spy);
/* Totals of one spy; zeros if not loaded. */
void lt_spy_totals(const struct lt_spy *spy, uint64_t counts[SPY_COUNTER_COUNT]);
