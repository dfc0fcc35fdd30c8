#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool demo_instance_extension_present(const char *name)
{
	uint32_t count = 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &count, NULL) != VK_SUCCESS || !count)
		return false;
	VkExtensionProperties *props = calloc(count, sizeof(*props));
	if (!props)
		return false;
	bool found = false;
	if (vkEnumerateInstanceExtensionProperties(NULL, &count, props) >= 0)
		for (uint32_t i = 0; i < count && !found; i++)
			found = !strcmp(props[i].extensionName, name);
	free(props);
	return found;
}

static VkResult demo_instance_create(struct demo_context *ctx)
{
	uint32_t loader_version = VK_API_VERSION_1_0;
	DEMO_TRY(vkEnumerateInstanceVersion, (&loader_version));
	if (loader_version < VK_API_VERSION_1_3) {
		fprintf(stderr, DEMO_NAME ": the Vulkan loader offers %u.%u; Vulkan 1.3 is required\n",
			VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
		return VK_ERROR_INCOMPATIBLE_DRIVER;
	}

	/* Labels and object names are how passprobe (and other tools) name passes; the demo
     * still runs without them, just anonymously. */
	ctx->have_debug_utils = demo_instance_extension_present(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	const char *extensions[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };

	const VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = DEMO_NAME,
		.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
		.pEngineName = "passprobe",
		.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
		.apiVersion = VK_API_VERSION_1_3,
	};
	const VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = ctx->have_debug_utils ? 1u : 0u,
		.ppEnabledExtensionNames = extensions,
	};
	DEMO_TRY(vkCreateInstance, (&info, NULL, &ctx->instance));

	if (ctx->have_debug_utils) {
		ctx->cmd_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkCmdBeginDebugUtilsLabelEXT");
		ctx->cmd_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkCmdEndDebugUtilsLabelEXT");
		ctx->set_object_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
			ctx->instance, "vkSetDebugUtilsObjectNameEXT");
		if (!ctx->cmd_begin_label || !ctx->cmd_end_label || !ctx->set_object_name)
			ctx->have_debug_utils = false;
	}
	if (!ctx->have_debug_utils)
		fprintf(stderr, DEMO_NAME ": VK_EXT_debug_utils is not available; passes are unnamed\n");
	return VK_SUCCESS;
}

/* Returns the index of a queue family with graphics and compute, or UINT32_MAX. */
static uint32_t demo_queue_family_find(VkPhysicalDevice pd, uint32_t *timestamp_bits)
{
	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, NULL);
	VkQueueFamilyProperties *props = calloc(count ? count : 1, sizeof(*props));
	if (!props)
		return UINT32_MAX;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, props);
	uint32_t found = UINT32_MAX;
	const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
	for (uint32_t i = 0; i < count && found == UINT32_MAX; i++)
		if ((props[i].queueFlags & want) == want && props[i].queueCount > 0) {
			found = i;
			*timestamp_bits = props[i].timestampValidBits;
		}
	free(props);
	return found;
}

static bool demo_device_extension_present(VkPhysicalDevice pd, const char *name)
{
	uint32_t count = 0;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &count, NULL) != VK_SUCCESS || !count)
		return false;
	VkExtensionProperties *props = calloc(count, sizeof(*props));
	if (!props)
		return false;
	bool found = false;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &count, props) >= 0)
		for (uint32_t i = 0; i < count && !found; i++)
			found = !strcmp(props[i].extensionName, name);
	free(props);
	return found;
}

/* Vulkan 1.3, or 1.2 with what the demo uses of 1.3 as extensions: frame debuggers present
 * devices that way (RenderDoc 1.24 shows lavapipe as 1.2). */
static bool demo_device_suitable(VkPhysicalDevice pd, uint32_t *family, uint32_t *timestamp_bits)
{
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(pd, &props);
	if (props.apiVersion < VK_API_VERSION_1_3 &&
	    (props.apiVersion < VK_API_VERSION_1_2 ||
	     !demo_device_extension_present(pd, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME) ||
	     !demo_device_extension_present(pd, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME)))
		return false;
	*family = demo_queue_family_find(pd, timestamp_bits);
	return *family != UINT32_MAX;
}

static VkResult demo_physical_device_pick(struct demo_context *ctx)
{
	uint32_t count = 0;
	DEMO_TRY(vkEnumeratePhysicalDevices, (ctx->instance, &count, NULL));
	if (!count) {
		fprintf(stderr, DEMO_NAME ": no Vulkan physical device found\n");
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	VkPhysicalDevice *devices = calloc(count, sizeof(*devices));
	if (!devices)
		return demo_util_fail("calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
	VkResult result = vkEnumeratePhysicalDevices(ctx->instance, &count, devices);
	if (result < 0) {
		free(devices);
		return demo_util_fail("vkEnumeratePhysicalDevices", result);
	}

	const char *env = getenv("PASSPROBE_DEMO_DEVICE");
	uint32_t family = UINT32_MAX, ts_bits = 0;
	result = VK_ERROR_INITIALIZATION_FAILED;
	if (env && *env) {
		char *end = NULL;
		unsigned long index = strtoul(env, &end, 10);
		if (*end || index >= count)
			fprintf(stderr, DEMO_NAME ": PASSPROBE_DEMO_DEVICE=%s: not a device index (0..%u)\n", env,
				count - 1);
		else if (!demo_device_suitable(devices[index], &family, &ts_bits))
			fprintf(stderr,
				DEMO_NAME
				": PASSPROBE_DEMO_DEVICE=%s: device lacks Vulkan 1.3 (or 1.2 with dynamic rendering and synchronization2) or a "
				"graphics+compute queue\n",
				env);
		else {
			ctx->physical_device = devices[index];
			result = VK_SUCCESS;
		}
	} else {
		for (uint32_t i = 0; i < count && result != VK_SUCCESS; i++)
			if (demo_device_suitable(devices[i], &family, &ts_bits)) {
				ctx->physical_device = devices[i];
				result = VK_SUCCESS;
			}
		if (result != VK_SUCCESS)
			fprintf(stderr, DEMO_NAME
				": no device with Vulkan 1.3 (or 1.2 with dynamic rendering and synchronization2) and a graphics+compute queue\n");
	}
	free(devices);
	if (result != VK_SUCCESS)
		return result;
	ctx->queue_family = family;
	ctx->timestamp_valid_bits = ts_bits;
	vkGetPhysicalDeviceProperties(ctx->physical_device, &ctx->properties);
	vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->memory_properties);
	return VK_SUCCESS;
}

static bool demo_uses_dynamic_rendering(const struct demo_context *ctx)
{
	for (int p = 0; p < DEMO_PASS_COUNT; p++)
		if (ctx->api[p] == DEMO_API_DYNAMIC)
			return true;
	return false;
}

VkResult demo_device_create(struct demo_context *ctx)
{
	VkResult result = demo_instance_create(ctx);
	if (result != VK_SUCCESS)
		return result;
	result = demo_physical_device_pick(ctx);
	if (result != VK_SUCCESS)
		return result;

	if ((ctx->opt.timings || ctx->opt.misuse_query_wait) &&
	    (!ctx->timestamp_valid_bits || !ctx->properties.limits.timestampComputeAndGraphics)) {
		fprintf(stderr, DEMO_NAME ": the device's queue has no timestamps (--timings, "
					  "--misuse-query-wait)\n");
		return VK_ERROR_FEATURE_NOT_PRESENT;
	}

	bool need_dynamic = demo_uses_dynamic_rendering(ctx);
	bool need_sync2 = ctx->opt.submit2 || ctx->opt.barrier2;
	bool core13 = ctx->properties.apiVersion >= VK_API_VERSION_1_3;
	VkPhysicalDeviceVulkan13Features have13 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES };
	VkPhysicalDeviceDynamicRenderingFeaturesKHR have_dynamic = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR
	};
	VkPhysicalDeviceSynchronization2FeaturesKHR have_sync2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES_KHR, .pNext = &have_dynamic
	};
	VkPhysicalDeviceFeatures2 have = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
					   .pNext = core13 ? (void *)&have13 : (void *)&have_sync2 };
	vkGetPhysicalDeviceFeatures2(ctx->physical_device, &have);
	bool has_dynamic = core13 ? have13.dynamicRendering : have_dynamic.dynamicRendering;
	bool has_sync2 = core13 ? have13.synchronization2 : have_sync2.synchronization2;
	if ((need_dynamic && !has_dynamic) || (need_sync2 && !has_sync2)) {
		fprintf(stderr, DEMO_NAME ": the device lacks %s\n",
			need_dynamic && !has_dynamic ? "dynamicRendering" : "synchronization2");
		return VK_ERROR_FEATURE_NOT_PRESENT;
	}

	/* Enable only what this run uses, so --renderpass-only really exercises a device
     * without dynamic rendering from the layer's point of view. */
	VkPhysicalDeviceVulkan13Features want13 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
		.dynamicRendering = need_dynamic ? VK_TRUE : VK_FALSE,
		.synchronization2 = need_sync2 ? VK_TRUE : VK_FALSE,
	};
	VkPhysicalDeviceDynamicRenderingFeaturesKHR want_dynamic = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR, .dynamicRendering = VK_TRUE
	};
	VkPhysicalDeviceSynchronization2FeaturesKHR want_sync2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES_KHR, .synchronization2 = VK_TRUE
	};
	const char *extensions[2];
	uint32_t nextensions = 0;
	void *features = &want13;
	if (!core13) {
		features = NULL;
		if (need_dynamic) {
			want_dynamic.pNext = features;
			features = &want_dynamic;
			extensions[nextensions++] = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
		}
		if (need_sync2) {
			want_sync2.pNext = features;
			features = &want_sync2;
			extensions[nextensions++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
		}
	}
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = ctx->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = features,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue_info,
		.enabledExtensionCount = nextensions,
		.ppEnabledExtensionNames = extensions,
	};
	DEMO_TRY(vkCreateDevice, (ctx->physical_device, &info, NULL, &ctx->device));
	vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);

	const char *suffix = core13 ? "" : "KHR";
	char name[64];
#define DEMO_DEVICE_PROC(field, core)                                                        \
	do {                                                                                 \
		snprintf(name, sizeof(name), "%s%s", core, suffix);                          \
		ctx->field = (__typeof__(ctx->field))vkGetDeviceProcAddr(ctx->device, name); \
	} while (0)
	DEMO_DEVICE_PROC(cmd_begin_rendering, "vkCmdBeginRendering");
	DEMO_DEVICE_PROC(cmd_end_rendering, "vkCmdEndRendering");
	DEMO_DEVICE_PROC(cmd_pipeline_barrier2, "vkCmdPipelineBarrier2");
	DEMO_DEVICE_PROC(queue_submit2, "vkQueueSubmit2");
#undef DEMO_DEVICE_PROC
	if ((need_dynamic && (!ctx->cmd_begin_rendering || !ctx->cmd_end_rendering)) ||
	    (need_sync2 && (!ctx->cmd_pipeline_barrier2 || !ctx->queue_submit2))) {
		fprintf(stderr, DEMO_NAME ": vkGetDeviceProcAddr has no %s commands\n",
			need_dynamic && !ctx->cmd_begin_rendering ? "dynamic rendering" : "synchronization2");
		return VK_ERROR_FEATURE_NOT_PRESENT;
	}
	return VK_SUCCESS;
}

void demo_device_destroy(struct demo_context *ctx)
{
	if (ctx->device)
		vkDestroyDevice(ctx->device, NULL);
	if (ctx->instance)
		vkDestroyInstance(ctx->instance, NULL);
	ctx->device = VK_NULL_HANDLE;
	ctx->instance = VK_NULL_HANDLE;
}

void demo_device_object_name(struct demo_context *ctx, VkObjectType type, uint64_t handle, const char *name)
{
	if (!ctx->have_debug_utils || !handle)
		return;
	const VkDebugUtilsObjectNameInfoEXT info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = type,
		.objectHandle = handle,
		.pObjectName = name,
	};
	/* A name is a courtesy to tools; failing to set one is not worth failing the run. */
	(void)ctx->set_object_name(ctx->device, &info);
}

VkResult demo_device_memory_allocate(struct demo_context *ctx, const VkMemoryRequirements *req, VkMemoryPropertyFlags required,
			      VkMemoryPropertyFlags preferred, VkDeviceMemory *memory, VkMemoryPropertyFlags *granted)
{
	const VkPhysicalDeviceMemoryProperties *mp = &ctx->memory_properties;
	uint32_t chosen = UINT32_MAX;
	for (int pass = 0; pass < 2 && chosen == UINT32_MAX; pass++) {
		VkMemoryPropertyFlags want = pass == 0 ? required | preferred : required;
		for (uint32_t i = 0; i < mp->memoryTypeCount && chosen == UINT32_MAX; i++)
			if ((req->memoryTypeBits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
				chosen = i;
	}
	if (chosen == UINT32_MAX) {
		fprintf(stderr, DEMO_NAME ": no suitable memory type\n");
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	}
	const VkMemoryAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req->size,
		.memoryTypeIndex = chosen,
	};
	DEMO_TRY(vkAllocateMemory, (ctx->device, &info, NULL, memory));
	if (granted)
		*granted = mp->memoryTypes[chosen].propertyFlags;
	return VK_SUCCESS;
}
