/* The loader-facing side of the layer: interface negotiation, Get*ProcAddr, instance and
 * device creation (chaining through VK_LAYER_LINK_INFO), tooling info. Contract:
 * Vulkan-Loader docs/LoaderLayerInterface.md. */
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "layer_device_features.h"
#include "layer_internal.h"
#include "pp_gpu_counters.h"
#include "pp_callers.h"
#include "pp_log.h"
#include "vk_hooks.h"

#define PP_EXPORT __attribute__((visibility("default")))
#define PP_LAYER_IMPLEMENTATION_VERSION 1

/* Where calls go for an instance or device passprobe failed to track (out of memory): straight
 * down the chain; the instance one also answers vkGetInstanceProcAddr(VK_NULL_HANDLE, ...).
 * Remembered at every create; the chain below is the same for all of a process's instances in
 * practice. */
static PFN_vkGetInstanceProcAddr g_untracked_gipa;
static PFN_vkGetDeviceProcAddr g_untracked_gdpa;

/* ---- call-down slots with nothing below ------------------------------------------------ */

static void dispatch_fill_missing(struct pp_device_dispatch *vk, PFN_vkGetInstanceProcAddr gipa,
				  VkInstance instance);

/* A device passprobe could not allocate its record for: its dispatch table only
 * (layer_registry.c keeps it). */
static void untracked_fill(struct pp_device *dev, void *ctx)
{
	PFN_vkGetDeviceProcAddr next_gdpa = (PFN_vkGetDeviceProcAddr)ctx;
	VkDevice device = dev->handle;
#define LOAD_UNTRACKED_FN(member, alias, kind)                                              \
	dev->vk.member = (PFN_vk##member)next_gdpa(device, "vk" #member);                   \
	if (!dev->vk.member && (alias))                                                      \
		dev->vk.member = (PFN_vk##member)next_gdpa(device, (const char *)(alias));
	PP_VK_DEVICE_FUNCTIONS(LOAD_UNTRACKED_FN)
#undef LOAD_UNTRACKED_FN
	dispatch_fill_missing(&dev->vk, NULL, VK_NULL_HANDLE);
}

static void untracked_add(VkDevice device, PFN_vkGetDeviceProcAddr next_gdpa)
{
	if (!pp_layer_registry_device_untracked_add(device, untracked_fill, (void *)next_gdpa))
		pp_log_once(PP_LOG_ERROR, "too many devices passprobe could not track; their calls may fail");
}

/* ---- negotiation ---------------------------------------------------------------------- */

PP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Versions 0 and 1 find our entry points by their exported names, which we export too;
	 * from 2 on the loader takes them from this struct. */
	if (v->loaderLayerInterfaceVersion >= 2) {
		v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
		v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
		v->pfnGetPhysicalDeviceProcAddr = NULL;
		v->loaderLayerInterfaceVersion = 2;
	}
	return VK_SUCCESS;
}

/* ---- layer properties ----------------------------------------------------------------- */

static const VkLayerProperties g_layer_props = {
	.layerName = PP_LAYER_NAME,
	.specVersion = VK_HEADER_VERSION_COMPLETE,
	.implementationVersion = PP_LAYER_IMPLEMENTATION_VERSION,
	.description = PP_LAYER_DESCRIPTION,
};

static const VkExtensionProperties g_device_exts[] = {
	{ VK_EXT_TOOLING_INFO_EXTENSION_NAME, VK_EXT_TOOLING_INFO_SPEC_VERSION },
};

static VkResult copy_props(uint32_t *count, void *out, const void *src, uint32_t n, size_t size)
{
	if (!out) {
		*count = n;
		return VK_SUCCESS;
	}
	uint32_t k = *count < n ? *count : n;
	memcpy(out, src, k * size);
	*count = k;
	return k < n ? VK_INCOMPLETE : VK_SUCCESS;
}

PP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceLayerProperties(uint32_t *count,
									VkLayerProperties *props)
{
	return copy_props(count, props, &g_layer_props, 1, sizeof(g_layer_props));
}

PP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *count,
									  VkLayerProperties *props)
{
	return copy_props(count, props, &g_layer_props, 1, sizeof(g_layer_props));
}

PP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
										 VkExtensionProperties *props)
{
	if (layer && !strcmp(layer, PP_LAYER_NAME))
		return copy_props(count, props, NULL, 0, sizeof(*props));
	return VK_ERROR_LAYER_NOT_PRESENT;
}

PP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *layer,
									       uint32_t *count,
									       VkExtensionProperties *props)
{
	if (layer && !strcmp(layer, PP_LAYER_NAME))
		return copy_props(count, props, g_device_exts, 1, sizeof(g_device_exts[0]));
	struct pp_instance *inst = pd ? pp_layer_registry_instance_lookup(pp_dispatch_key(pd)) : NULL;
	if (!inst || !inst->vk.EnumerateDeviceExtensionProperties)
		return VK_ERROR_LAYER_NOT_PRESENT;
	return inst->vk.EnumerateDeviceExtensionProperties(pd, layer, count, props);
}

/* ---- tooling info --------------------------------------------------------------------- */

/* passprobe first, then the tools below. Each name goes down the chain as itself: layers
 * below may implement only one of the two. */
static VkResult tool_properties(VkPhysicalDevice pd, uint32_t *count, VkPhysicalDeviceToolProperties *tools,
				bool ext)
{
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(pd));
	PFN_vkGetPhysicalDeviceToolProperties next = NULL;
	if (inst) {
		next = ext ? inst->vk.GetPhysicalDeviceToolPropertiesEXT : inst->vk.GetPhysicalDeviceToolProperties;
		if (!next)
			next = ext ? inst->vk.GetPhysicalDeviceToolProperties : inst->vk.GetPhysicalDeviceToolPropertiesEXT;
	}
	uint32_t below = 0;
	VkResult r = VK_SUCCESS;

	if (!tools) {
		if (next && (r = next(pd, &below, NULL)) < 0)
			return r;
		*count = below + 1;
		return VK_SUCCESS;
	}
	if (*count == 0)
		return VK_INCOMPLETE;
	VkPhysicalDeviceToolProperties *ours = &tools[0];
	void *pnext = ours->pNext; /* the app's chain on its output struct stays its own */
	memset(ours, 0, sizeof(*ours));
	ours->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
	ours->pNext = pnext;
	strncpy(ours->name, "passprobe", sizeof(ours->name) - 1);
	strncpy(ours->version, PASSPROBE_VERSION, sizeof(ours->version) - 1);
	ours->purposes = VK_TOOL_PURPOSE_PROFILING_BIT | VK_TOOL_PURPOSE_TRACING_BIT;
	strncpy(ours->description, PP_LAYER_DESCRIPTION, sizeof(ours->description) - 1);
	strncpy(ours->layer, PP_LAYER_NAME, sizeof(ours->layer) - 1);

	below = *count - 1;
	if (next && below > 0)
		r = next(pd, &below, tools + 1);
	else if (next) {
		uint32_t n = 0;
		r = next(pd, &n, NULL);
		if (r >= 0 && n > 0)
			r = VK_INCOMPLETE;
		below = 0;
	} else {
		below = 0;
	}
	*count = below + 1;
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL pp_GetPhysicalDeviceToolProperties(VkPhysicalDevice pd, uint32_t *count,
									  VkPhysicalDeviceToolProperties *tools)
{
	return tool_properties(pd, count, tools, false);
}

static VKAPI_ATTR VkResult VKAPI_CALL pp_GetPhysicalDeviceToolPropertiesEXT(VkPhysicalDevice pd, uint32_t *count,
									     VkPhysicalDeviceToolProperties *tools)
{
	return tool_properties(pd, count, tools, true);
}

/* ---- instance ------------------------------------------------------------------------- */

static VkLayerInstanceCreateInfo *find_instance_link(const VkInstanceCreateInfo *info, VkLayerFunction func)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    ((const VkLayerInstanceCreateInfo *)s)->function == func)
			return (VkLayerInstanceCreateInfo *)s;
	}
	return NULL;
}

static bool instance_info_has_extension(const VkInstanceCreateInfo *info, const char *name)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (!strcmp(info->ppEnabledExtensionNames[i], name))
			return true;
	return false;
}

static VKAPI_ATTR VkResult VKAPI_CALL pp_CreateInstance(const VkInstanceCreateInfo *info,
							 const VkAllocationCallbacks *alloc, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = find_instance_link(info, VK_LAYER_LINK_INFO);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;

	pp_layer_init_once();
	/* The libraries between the loader and passprobe on the stack now are the layers above
	 * passprobe: their own work is told apart from the application's (pp_callers.h). */
	pp_callers_layers_learn();
	__atomic_store_n(&g_untracked_gipa, next_gipa, __ATOMIC_RELEASE);
	uint32_t app_version = info->pApplicationInfo && info->pApplicationInfo->apiVersion
				       ? info->pApplicationInfo->apiVersion
				       : VK_API_VERSION_1_0;
	/* A 1.0 instance has no vkGetPhysicalDeviceFeatures2, which passprobe needs to find host
	 * query reset (and driver properties), and device extensions passprobe enables need
	 * VK_KHR_get_physical_device_properties2 on the instance: it is enabled on a copy of the
	 * create-info. The loader implements it for every driver (emulating it where a driver
	 * lacks it), so it is not looked up first; there is no reliable way to: layers answer
	 * vkEnumerateInstanceExtensionProperties only for their own name. If the chain refuses
	 * it, the creation is retried with the application's own create-info. The application
	 * does not see it: vkGetInstanceProcAddr keeps answering NULL for its functions. */
	const char **names = NULL;
	VkInstanceCreateInfo patched = *info;
	if (app_version < VK_API_VERSION_1_1 &&
	    !instance_info_has_extension(info, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) &&
	    (names = malloc((info->enabledExtensionCount + 1) * sizeof(*names)))) {
		if (info->enabledExtensionCount)
			memcpy(names, info->ppEnabledExtensionNames, info->enabledExtensionCount * sizeof(*names));
		names[info->enabledExtensionCount] = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
		patched.enabledExtensionCount = info->enabledExtensionCount + 1;
		patched.ppEnabledExtensionNames = names;
	}
	/* Advance the link for the next layer before calling down (the loader's contract). The
	 * copy shares the application's pNext chain, so it sees the advanced link too. */
	VkLayerInstanceLink *below = link->u.pLayerInfo->pNext;
	link->u.pLayerInfo = below;
	VkResult r = next_create(&patched, alloc, out);
	if (r != VK_SUCCESS && names) {
		/* Our addition must never cost the application its instance. */
		pp_log(PP_LOG_WARN, "instance creation with %s failed (%d); retrying without",
		       VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME, r);
		free(names);
		names = NULL;
		link->u.pLayerInfo = below;
		r = next_create(info, alloc, out);
	}
	bool added_gpdp2 = names != NULL;
	free(names);
	if (r != VK_SUCCESS)
		return r;

	struct pp_instance *inst = calloc(1, sizeof(*inst));
	if (!inst) {
		pp_log_once(PP_LOG_ERROR, "out of memory creating the instance record; passing through");
		return r;
	}
	inst->handle = *out;
	inst->key = pp_dispatch_key(*out);
	inst->api_version = app_version;
	inst->gpdp2 = app_version >= VK_API_VERSION_1_1 || added_gpdp2 ||
		      instance_info_has_extension(info, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
	inst->added_gpdp2 = added_gpdp2;
	inst->vk.GetInstanceProcAddr = next_gipa;
#define LOAD_INSTANCE_FN(member, alias, kind)                                               \
	inst->vk.member = (PFN_vk##member)next_gipa(*out, "vk" #member);                    \
	if (!inst->vk.member && (alias))                                                     \
		inst->vk.member = (PFN_vk##member)next_gipa(*out, (const char *)(alias));
	PP_VK_INSTANCE_FUNCTIONS(LOAD_INSTANCE_FN)
#undef LOAD_INSTANCE_FN
	if (app_version < VK_API_VERSION_1_1) {
		/* The core names are not part of a 1.0 instance (the loader hands them out anyway,
		 * and the validation layer reports calling them): the extension's names. */
		inst->vk.GetPhysicalDeviceFeatures2 =
			(PFN_vkGetPhysicalDeviceFeatures2)next_gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
		inst->vk.GetPhysicalDeviceProperties2 =
			(PFN_vkGetPhysicalDeviceProperties2)next_gipa(*out, "vkGetPhysicalDeviceProperties2KHR");
	}

	if (!pp_layer_registry_instance_register(inst)) {
		pp_log_once(PP_LOG_ERROR, "out of memory tracking an instance; passing through");
		free(inst);
	}
	return r;
}

static VKAPI_ATTR void VKAPI_CALL pp_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	if (!instance)
		return;
	struct pp_instance *inst = pp_layer_registry_instance_unregister(pp_dispatch_key(instance));
	if (!inst)
		return;
	PFN_vkDestroyInstance destroy = inst->vk.DestroyInstance;
	free(inst);
	destroy(instance, alloc);
}

/* ---- device --------------------------------------------------------------------------- */

static VkLayerDeviceCreateInfo *find_device_link(const VkDeviceCreateInfo *info, VkLayerFunction func)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    ((const VkLayerDeviceCreateInfo *)s)->function == func)
			return (VkLayerDeviceCreateInfo *)s;
	}
	return NULL;
}

static bool device_supports_extension(struct pp_instance *inst, VkPhysicalDevice pd, const char *name)
{
	uint32_t n = 0;
	bool found = false;
	if (inst->vk.EnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n)
		return false;
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	if (!props)
		return false;
	if (inst->vk.EnumerateDeviceExtensionProperties(pd, NULL, &n, props) >= 0)
		for (uint32_t i = 0; i < n && !found; i++)
			found = !strcmp(props[i].extensionName, name);
	free(props);
	return found;
}

/* lavapipe: by driver ID where the device reports one, else by vendor and name. */
static bool driver_is_lavapipe(struct pp_instance *inst, VkPhysicalDevice pd, const struct pp_device *dev)
{
	if (inst->vk.GetPhysicalDeviceProperties2 && inst->gpdp2 &&
	    (dev->props.apiVersion >= VK_API_VERSION_1_2 ||
	     device_supports_extension(inst, pd, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))) {
		VkPhysicalDeviceDriverProperties driver = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES };
		VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver };
		inst->vk.GetPhysicalDeviceProperties2(pd, &p2);
		if (driver.driverID)
			return driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
	}
	return dev->props.vendorID == VK_VENDOR_ID_MESA && !strncmp(dev->props.deviceName, "llvmpipe", 8);
}

/* Whether the driver's vkGetQueryPoolResults waits for the device even without WAIT_BIT, so
 * that passprobe must not call it on the application's thread (copy_results=auto turns the
 * GPU-side copies on for these). Known: lavapipe (Mesa's lvp_GetQueryPoolResults begins with
 * a device idle wait). */
static bool driver_result_reads_wait(struct pp_instance *inst, VkPhysicalDevice pd, const struct pp_device *dev)
{
	return driver_is_lavapipe(inst, pd, dev);
}

/* VK_KHR_performance_query for the gpu_counters setting: only with host query reset (its
 * queries are reset from the host), and never where the application enables the extension
 * itself: the profiling lock and the performance query pools are then the application's, and
 * what it measures must not change (docs/counters.md). */
static void plan_performance_query(struct pp_instance *inst, VkPhysicalDevice pd, struct pp_device *dev,
				   const VkDeviceCreateInfo *app, struct pp_device_create_info *patched)
{
	if (pp_gpu_counters_setting_choice(pp_layer_registry_settings.gpu_counters) == PP_GPU_COUNTERS_NONE ||
	    !dev->host_query_reset)
		return;
	if (!device_supports_extension(inst, pd, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME) ||
	    !inst->vk.EnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR ||
	    !inst->vk.GetPhysicalDeviceFeatures2 || !inst->gpdp2) {
		pp_log(PP_LOG_INFO, "%s: no VK_KHR_performance_query: no GPU hardware counters from it",
		       dev->props.deviceName);
		return;
	}
	if (pp_layer_device_features_create_info_has_extension(app, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME)) {
		pp_log(PP_LOG_WARN, "%s: the application uses VK_KHR_performance_query itself: passprobe leaves it "
				    "(and its profiling lock) to the application and measures no hardware counters",
		       dev->props.deviceName);
		return;
	}
	VkPhysicalDevicePerformanceQueryFeaturesKHR pq = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR,
	};
	VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pq };
	inst->vk.GetPhysicalDeviceFeatures2(pd, &f2);
	if (!pq.performanceCounterQueryPools) {
		pp_log(PP_LOG_INFO, "%s: VK_KHR_performance_query without performanceCounterQueryPools: no GPU "
				    "hardware counters from it",
		       dev->props.deviceName);
		return;
	}
	dev->perf_query = pp_layer_device_features_create_info_enable_performance_query(patched);
}

/* Decides what the profiler can turn on for this device and patches the copy accordingly. */
static void plan_device_features(struct pp_instance *inst, VkPhysicalDevice pd, struct pp_device *dev,
				 const VkDeviceCreateInfo *app, struct pp_device_create_info *patched)
{
	const struct pp_settings *s = &pp_layer_registry_settings;
	bool core12 = dev->api_version >= VK_API_VERSION_1_2;
	bool have_gpdp2 = inst->vk.GetPhysicalDeviceFeatures2 && inst->gpdp2;
	bool any_timestamps = false;
	for (uint32_t i = 0; i < dev->nfamilies; i++)
		any_timestamps |= dev->families[i].timestamp_valid_bits > 0;

	if (s->timestamps) {
		VkPhysicalDeviceHostQueryResetFeatures hqr = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES,
		};
		VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &hqr };
		bool ext = !core12 && device_supports_extension(inst, pd, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
		if (have_gpdp2 && (core12 || ext)) {
			inst->vk.GetPhysicalDeviceFeatures2(pd, &f2);
			if (hqr.hostQueryReset) {
				dev->host_query_reset = pp_layer_device_features_create_info_enable_host_query_reset(patched, core12);
				dev->added_host_query_reset =
					dev->host_query_reset && !core12 &&
					!pp_layer_device_features_create_info_has_extension(app, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
			}
		}
		/* Without host resets, every execution of a recording gets a reset recorded by
		 * passprobe in front of it, and its results are copied on the GPU (docs/timing.md,
		 * "Resetting queries"). */
		dev->gpu_query_reset_possible = any_timestamps;
		if (!any_timestamps)
			pp_log(PP_LOG_INFO, "%s: no queue family has timestamps (timestampValidBits = 0): no GPU pass "
					    "timing or pipeline statistics", dev->props.deviceName);
		dev->gpu_query_reset = !dev->host_query_reset && any_timestamps;
		if (dev->gpu_query_reset)
			pp_log(PP_LOG_INFO, "%s: no host query reset (%s): queries are reset on the GPU before each "
					    "execution and results copied on the GPU",
			       dev->props.deviceName,
			       !have_gpdp2 ? "no vkGetPhysicalDeviceFeatures2 on this instance"
			       : core12 || ext ? "hostQueryReset feature not supported"
					       : "neither Vulkan 1.2 nor VK_EXT_host_query_reset");
		dev->copy_results = dev->gpu_query_reset || s->copy_results == PP_SWITCH_ON ||
				    (s->copy_results == PP_SWITCH_AUTO && driver_result_reads_wait(inst, pd, dev));
		if (s->copy_results == PP_SWITCH_AUTO && !dev->gpu_query_reset)
			pp_log(PP_LOG_INFO, "%s: copy_results=auto: %s", dev->props.deviceName,
			       dev->copy_results ? "on (this driver's vkGetQueryPoolResults waits for the device)"
						 : "off (results are read with vkGetQueryPoolResults)");
		/* The extension requires VK_KHR_get_physical_device_properties2 on a 1.0 instance. */
		if (inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT && inst->gpdp2 &&
		    device_supports_extension(inst, pd, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME)) {
			dev->calibrated_timestamps = pp_layer_device_features_create_info_enable_extension(
				patched, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
			dev->added_calibrated_timestamps =
				dev->calibrated_timestamps &&
				!pp_layer_device_features_create_info_has_extension(app, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
		} else {
			pp_log(PP_LOG_INFO, "%s: GPU times are estimated, not calibrated (%s)", dev->props.deviceName,
			       !inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT
				       ? "no vkGetPhysicalDeviceCalibrateableTimeDomainsEXT below passprobe"
			       : !inst->gpdp2 ? "it needs VK_KHR_get_physical_device_properties2, which this Vulkan 1.0 "
						"instance does not have"
					      : "the device lacks VK_EXT_calibrated_timestamps");
		}
	}
	plan_performance_query(inst, pd, dev, app, patched);
	if (s->experiment != PP_EXPERIMENT_OFF) {
		dev->exp_sync2 = pp_layer_device_features_create_info_sync2(app);
		const char *ext = pp_layer_device_features_create_info_unhooked_extension(app);
		snprintf(dev->exp_unhooked_extension, sizeof(dev->exp_unhooked_extension), "%s", ext ? ext : "");
	}
	/* Statistics queries live in the GPU timer's pools, which need timestamps on; they are
	 * reset the way the timestamps are (host or GPU). */
	if (s->pipeline_statistics && (dev->host_query_reset || dev->gpu_query_reset)) {
		VkPhysicalDeviceFeatures f;
		inst->vk.GetPhysicalDeviceFeatures(pd, &f);
		if (f.pipelineStatisticsQuery)
			dev->pipeline_statistics = pp_layer_device_features_create_info_enable_pipeline_statistics(patched);
		/* Every lavapipe: the Mesa release that checks for the missing pipeline is not known
		 * (docs/timing.md, "Driver quirks"). */
		dev->quirk_uniforms_before_pipeline = dev->pipeline_statistics && driver_is_lavapipe(inst, pd, dev);
		if (!dev->pipeline_statistics)
			pp_log(PP_LOG_INFO, "%s: pipeline statistics queries unavailable (%s)", dev->props.deviceName,
			       f.pipelineStatisticsQuery ? "the application's feature structs cannot be patched"
							 : "the device lacks pipelineStatisticsQuery");
	}
}

/* The commands passprobe records or calls itself for a feature must exist below before the
 * feature is on: once the missing ones are stubbed (dispatch_fill_missing), a query begun
 * without its end would reach the driver. */
static void features_need_commands(struct pp_device *dev)
{
	const struct pp_device_dispatch *vk = &dev->vk;
	const char *missing = !vk->CreateQueryPool       ? "vkCreateQueryPool"
			      : !vk->DestroyQueryPool    ? "vkDestroyQueryPool"
			      : !vk->GetQueryPoolResults ? "vkGetQueryPoolResults"
			      : !vk->CmdWriteTimestamp   ? "vkCmdWriteTimestamp"
			      : !vk->CmdResetQueryPool   ? "vkCmdResetQueryPool"
			      /* copy_results: reading results on this thread would wait instead */
			      : dev->copy_results && !vk->CmdCopyQueryPoolResults ? "vkCmdCopyQueryPoolResults"
			      : dev->copy_results && !vk->CmdPipelineBarrier      ? "vkCmdPipelineBarrier"
										  : NULL;
	/* The GPU-side reset path records and submits command buffers of its own. */
	if (!missing && dev->gpu_query_reset)
		missing = !vk->CreateCommandPool	? "vkCreateCommandPool"
			  : !vk->DestroyCommandPool	? "vkDestroyCommandPool"
			  : !vk->AllocateCommandBuffers ? "vkAllocateCommandBuffers"
			  : !vk->FreeCommandBuffers	? "vkFreeCommandBuffers"
			  : !vk->BeginCommandBuffer	? "vkBeginCommandBuffer"
			  : !vk->EndCommandBuffer	? "vkEndCommandBuffer"
							: NULL;
	if (missing && (dev->host_query_reset || dev->gpu_query_reset)) {
		pp_log(PP_LOG_WARN, "%s: the chain below passprobe has no %s; GPU pass timing disabled",
		       dev->props.deviceName, missing);
		dev->host_query_reset = dev->gpu_query_reset = false;
	}
	if ((!vk->CmdBeginQuery || !vk->CmdEndQuery) && dev->pipeline_statistics) {
		pp_log(PP_LOG_WARN, "%s: the chain below passprobe has no %s; pipeline statistics disabled",
		       dev->props.deviceName, vk->CmdBeginQuery ? "vkCmdEndQuery" : "vkCmdBeginQuery");
		dev->pipeline_statistics = false;
	}
}

static VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *info,
						       const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = find_device_link(info, VK_LAYER_LINK_INFO);
	VkLayerDeviceCreateInfo *loader_data = find_device_link(info, VK_LOADER_DATA_CALLBACK);
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(pd));
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice next_create =
		(PFN_vkCreateDevice)next_gipa(inst ? inst->handle : VK_NULL_HANDLE, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;
	__atomic_store_n(&g_untracked_gdpa, next_gdpa, __ATOMIC_RELEASE);
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	pp_callers_layers_learn();
	/* A layer above sets up work of its own once the device exists (RenderDoc's internal
	 * command pools, an overlay's): remembered as its handling of this call. */
	pp_callers_entry_note(__builtin_return_address(0));

	struct pp_device *dev = inst ? calloc(1, sizeof(*dev)) : NULL;
	if (!dev) {
		pp_log_once(PP_LOG_ERROR, "cannot track a device (%s); passing through",
			    inst ? "out of memory" : "unknown instance");
		VkResult r = next_create(pd, info, alloc, out);
		if (r == VK_SUCCESS)
			untracked_add(*out, next_gdpa);
		return r;
	}

	inst->vk.GetPhysicalDeviceProperties(pd, &dev->props);
	dev->instance = inst;
	dev->physical_device = pd;
	dev->api_version = dev->props.apiVersion < inst->api_version ? dev->props.apiVersion : inst->api_version;
	dev->api_version = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(dev->api_version),
					       VK_API_VERSION_MINOR(dev->api_version), 0);
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(pd, &dev->nfamilies, NULL);
	VkQueueFamilyProperties *qf = calloc(dev->nfamilies ? dev->nfamilies : 1, sizeof(*qf));
	dev->families = calloc(dev->nfamilies ? dev->nfamilies : 1, sizeof(*dev->families));
	if (qf && dev->families) {
		inst->vk.GetPhysicalDeviceQueueFamilyProperties(pd, &dev->nfamilies, qf);
		for (uint32_t i = 0; i < dev->nfamilies; i++) {
			dev->families[i].flags = qf[i].queueFlags;
			dev->families[i].timestamp_valid_bits = qf[i].timestampValidBits;
		}
	} else {
		dev->nfamilies = 0;
	}
	free(qf);

	struct pp_device_create_info patched;
	pp_layer_device_features_create_info_init(&patched, info);
	plan_device_features(inst, pd, dev, info, &patched);

	VkResult r = next_create(pd, &patched.info, alloc, out);
	if (r != VK_SUCCESS && patched.info.pNext != info->pNext) {
		/* Our additions must never cost the application its device. */
		pp_log(PP_LOG_WARN, "device creation with profiler features failed (%d); retrying without", r);
		dev->host_query_reset = dev->pipeline_statistics = dev->calibrated_timestamps = false;
		dev->perf_query = false;
		dev->added_host_query_reset = dev->added_calibrated_timestamps = false;
		dev->gpu_query_reset = dev->gpu_query_reset_possible;
		r = next_create(pd, info, alloc, out);
	}
	pp_layer_device_features_create_info_finish(&patched);
	if (r != VK_SUCCESS) {
		free(dev->families);
		free(dev);
		return r;
	}

	dev->handle = *out;
	dev->key = pp_dispatch_key(*out);
	dev->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
#define LOAD_DEVICE_FN(member, alias, kind)                                                 \
	dev->vk.member = (PFN_vk##member)next_gdpa(*out, "vk" #member);                     \
	if (!dev->vk.member && (alias))                                                      \
		dev->vk.member = (PFN_vk##member)next_gdpa(*out, (const char *)(alias));
	PP_VK_DEVICE_FUNCTIONS(LOAD_DEVICE_FN)
#undef LOAD_DEVICE_FN
	if (!dev->vk.ResetQueryPool && dev->host_query_reset) {
		dev->host_query_reset = false;
		dev->gpu_query_reset = dev->gpu_query_reset_possible;
	}
	if (!dev->vk.GetCalibratedTimestampsEXT)
		dev->calibrated_timestamps = false;
	features_need_commands(dev);
	/* After the checks above, which ask what the device itself has. */
	dispatch_fill_missing(&dev->vk, inst->vk.GetInstanceProcAddr, inst->handle);
	pthread_rwlock_init(&dev->lock, NULL);

	pp_vk_profiling_device_init(dev);

	if (!pp_layer_registry_device_register(dev)) {
		pp_log_once(PP_LOG_ERROR, "out of memory tracking a device; passing through");
		pp_vk_profiling_device_finish(dev);
		pthread_rwlock_destroy(&dev->lock);
		free(dev->families);
		free(dev);
		untracked_add(*out, next_gdpa);
	}
	return r;
}

static VKAPI_ATTR void VKAPI_CALL pp_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
	if (!device)
		return;
	void *key = pp_dispatch_key(device);
	struct pp_device *dev = pp_layer_registry_device_unregister(key);
	if (!dev) {
		PFN_vkDestroyDevice destroy = pp_layer_registry_device_untracked_remove(key);
		if (destroy)
			destroy(device, alloc);
		return;
	}
	/* The application has waited for its work (a valid-usage rule of vkDestroyDevice), so
	 * every result is readable now without waiting. Layer objects go before the device. */
	pp_vk_profiling_device_finish(dev);
	pp_layer_objects_device_destroy(dev);
	PFN_vkDestroyDevice destroy = dev->vk.DestroyDevice;
	pthread_rwlock_destroy(&dev->lock);
	free(dev->families);
	free(dev);
	destroy(device, alloc);
}

/* ---- proc address --------------------------------------------------------------------- */

#define PP_GLOBAL_HOOKS(X)                                                                    \
	X("vkGetInstanceProcAddr", vkGetInstanceProcAddr)                                     \
	X("vkGetDeviceProcAddr", vkGetDeviceProcAddr)                                         \
	X("vkCreateInstance", pp_CreateInstance)                                              \
	X("vkEnumerateInstanceLayerProperties", vkEnumerateInstanceLayerProperties)           \
	X("vkEnumerateInstanceExtensionProperties", vkEnumerateInstanceExtensionProperties)

/* Instance hooks outside the list of functions passprobe calls down to (vk_functions.h). */
#define PP_INSTANCE_HOOKS(X)                                                                  \
	X("vkCreateDevice", pp_CreateDevice)                                                  \
	X("vkEnumerateDeviceLayerProperties", vkEnumerateDeviceLayerProperties)               \
	X("vkEnumerateDeviceExtensionProperties", vkEnumerateDeviceExtensionProperties)

/* The LAYER entries of the list are hooked here (and in layer_messengers.c), the device's
 * HOOK entries by intercept/vulkan (pp_vk_hooks_device). Each has its Vulkan prototype. */
#define PP_LAYER_CHECK_HOOK(member, alias, kind)                                              \
	PP_VK_ONLY_LAYER(kind, _Static_assert(__builtin_types_compatible_p(__typeof__(&pp_##member), \
									     PFN_vk##member),       \
					      "pp_" #member " has the prototype of vk" #member);)
PP_VK_INSTANCE_FUNCTIONS(PP_LAYER_CHECK_HOOK)
PP_VK_DEVICE_FUNCTIONS(PP_LAYER_CHECK_HOOK)
#undef PP_LAYER_CHECK_HOOK

#define PP_HOOK_ENTRY(name, fn) { name, NULL, (PFN_vkVoidFunction)fn },
#define PP_LAYER_HOOK_ENTRY(member, alias, kind) \
	PP_VK_ONLY_LAYER(kind, { "vk" #member, alias, (PFN_vkVoidFunction)pp_##member },)
static const struct pp_hook g_global_hooks[] = { PP_GLOBAL_HOOKS(PP_HOOK_ENTRY) };
static const struct pp_hook g_instance_hooks[] = { PP_INSTANCE_HOOKS(PP_HOOK_ENTRY)
							   PP_VK_INSTANCE_FUNCTIONS(PP_LAYER_HOOK_ENTRY) };
static const struct pp_hook g_device_hooks[] = { PP_VK_DEVICE_FUNCTIONS(PP_LAYER_HOOK_ENTRY) };
#undef PP_LAYER_HOOK_ENTRY
#undef PP_HOOK_ENTRY

static PFN_vkVoidFunction find_hook(const struct pp_hook *hooks, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(hooks[i].name, name) || (hooks[i].alias && !strcmp(hooks[i].alias, name)))
			return hooks[i].fn;
	return NULL;
}

/* The commands of VK_KHR_get_physical_device_properties2 (hidden where passprobe enabled it);
 * the pointer is only a found-marker. */
#define PP_GPDP2_NAME(name) { name, NULL, (PFN_vkVoidFunction)vkGetInstanceProcAddr },
static const struct pp_hook g_gpdp2_names[] = {
	PP_GPDP2_NAME("vkGetPhysicalDeviceFeatures2KHR") PP_GPDP2_NAME("vkGetPhysicalDeviceProperties2KHR")
	PP_GPDP2_NAME("vkGetPhysicalDeviceFormatProperties2KHR")
	PP_GPDP2_NAME("vkGetPhysicalDeviceImageFormatProperties2KHR")
	PP_GPDP2_NAME("vkGetPhysicalDeviceQueueFamilyProperties2KHR")
	PP_GPDP2_NAME("vkGetPhysicalDeviceMemoryProperties2KHR")
	PP_GPDP2_NAME("vkGetPhysicalDeviceSparseImageFormatProperties2KHR")
};
#undef PP_GPDP2_NAME

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The device hooks: ours, then intercept's. */
static PFN_vkVoidFunction device_hook_find(const char *name)
{
	PFN_vkVoidFunction hook = find_hook(g_device_hooks, COUNT(g_device_hooks), name);
	return hook ? hook : find_hook(pp_vk_hooks_device, pp_vk_hooks_device_count, name);
}

/* Where each device-level function passprobe calls down to sits in the dispatch table. */
struct pp_device_func {
	const char *name;
	size_t offset;
	enum pp_vk_kind kind;
};
#define PP_DEVICE_FUNC_ENTRY(member, alias, kind) \
	{ "vk" #member, offsetof(struct pp_device_dispatch, member), PP_VK_KIND(kind) },
static const struct pp_device_func g_device_funcs[] = { PP_VK_DEVICE_FUNCTIONS(PP_DEVICE_FUNC_ENTRY) };
#undef PP_DEVICE_FUNC_ENTRY

/* The device commands of an instance extension (VK_EXT_debug_utils). The loader fills their
 * slots of a device's dispatch table through vkGetInstanceProcAddr, not vkGetDeviceProcAddr,
 * so an application gets them even where its instance did not enable the extension (a
 * libplacebo-based video player does exactly that), and the loader's trampolines and
 * terminators answer VK_SUCCESS (or do nothing) when no driver implements them. */
static const char *const g_instance_extension_device_commands[] = {
	"vkSetDebugUtilsObjectNameEXT",   "vkSetDebugUtilsObjectTagEXT",
	"vkQueueBeginDebugUtilsLabelEXT", "vkQueueEndDebugUtilsLabelEXT",
	"vkQueueInsertDebugUtilsLabelEXT", "vkCmdBeginDebugUtilsLabelEXT",
	"vkCmdEndDebugUtilsLabelEXT",     "vkCmdInsertDebugUtilsLabelEXT",
};

/* Stand-ins for a function the chain below does not have, answering what the loader answers
 * without passprobe. One stub serves every signature, as the loader's own vkDevExtError does
 * for its dispatch slots without a destination: every hooked command returns void or
 * VkResult, and the calling conventions Vulkan uses let a callee ignore arguments it does not
 * declare. The casts below go through PFN_vkVoidFunction for that reason. */
static VKAPI_ATTR VkResult VKAPI_CALL next_missing_success(void)
{
	return VK_SUCCESS;
}

/* vkDevExtError's answer: "Bad destination in loader trampoline dispatch". */
static VKAPI_ATTR VkResult VKAPI_CALL next_missing_error(void)
{
	pp_log_once(PP_LOG_WARN, "the application called a Vulkan command that nothing below passprobe "
				 "implements; answered VK_ERROR_EXTENSION_NOT_PRESENT, as the loader does");
	return VK_ERROR_EXTENSION_NOT_PRESENT;
}

static bool is_instance_extension_device_command(const char *name)
{
	for (size_t i = 0; i < COUNT(g_instance_extension_device_commands); i++)
		if (!strcmp(g_instance_extension_device_commands[i], name))
			return true;
	return false;
}

/* A hook is handed out wherever the chain below answers its name: through
 * vkGetDeviceProcAddr, and through vkGetInstanceProcAddr, where the loader (for the commands
 * of instance extensions) and layers above passprobe look device commands up too, and where
 * the answer below can be non-NULL although the device's own is NULL. So no hook's call-down
 * slot may stay NULL. A command of an instance extension takes what the instance chain
 * answers, as the loader's dispatch table does (the loader's terminator then asks the driver);
 * any other takes the stub. Only those commands are asked of the instance chain: the loader
 * (1.3.239) crashes when its instance terminator is asked for some device commands
 * (vkCreateRenderPass2 on a Vulkan 1.0 instance), and it never asks that itself. */
static void dispatch_fill_missing(struct pp_device_dispatch *vk, PFN_vkGetInstanceProcAddr gipa,
				  VkInstance instance)
{
	for (size_t i = 0; i < COUNT(g_device_funcs); i++) {
		const struct pp_device_func *f = &g_device_funcs[i];
		if (f->kind == PP_VK_KIND_CALL) /* nothing hands out a hook that calls it */
			continue;
		PFN_vkVoidFunction *slot = (PFN_vkVoidFunction *)((char *)vk + f->offset);
		if (*slot)
			continue;
		bool instance_ext = is_instance_extension_device_command(f->name);
		if (instance_ext && gipa && instance)
			*slot = gipa(instance, f->name);
		if (!*slot)
			*slot = instance_ext ? (PFN_vkVoidFunction)next_missing_success
					     : (PFN_vkVoidFunction)next_missing_error;
	}
}

PP_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name)
{
	if (!device || !name)
		return NULL;
	struct pp_device *dev = pp_layer_registry_device_lookup(pp_dispatch_key(device));
	if (!dev) {
		/* Not tracked (our own failure): the device works without passprobe. */
		PFN_vkGetDeviceProcAddr gdpa = __atomic_load_n(&g_untracked_gdpa, __ATOMIC_ACQUIRE);
		return gdpa ? gdpa(device, name) : NULL;
	}
	PFN_vkVoidFunction next = dev->vk.GetDeviceProcAddr(device, name);
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	/* Extensions passprobe enabled for itself: their functions do not exist for the
	 * application, as without passprobe. */
	if ((dev->added_host_query_reset && !strcmp(name, "vkResetQueryPoolEXT")) ||
	    (dev->added_calibrated_timestamps && !strcmp(name, "vkGetCalibratedTimestampsEXT")) ||
	    (dev->perf_query && (!strcmp(name, "vkAcquireProfilingLockKHR") || !strcmp(name, "vkReleaseProfilingLockKHR"))))
		return NULL;
	/* A hook only where the chain below provides the function: the application must see
	 * NULL for what the device does not support. */
	if (!next)
		return NULL;
	PFN_vkVoidFunction hook = device_hook_find(name);
	return hook && pp_vk_hooks_serves(dev, hook) ? hook : next;
}

PP_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
	PFN_vkVoidFunction hook;
	if (!name)
		return NULL;
	if ((hook = find_hook(g_global_hooks, COUNT(g_global_hooks), name)))
		return hook;
	if (!instance) {
		/* Layers above ask for instance commands without an instance too: RenderDoc's
		 * vkCreateDevice fetches vkCreateDevice with VK_NULL_HANDLE, the pattern of the
		 * loader's layer-interface examples (and Mesa's device-select layer answers so).
		 * Our instance hooks work for any instance, and vkCreateDevice must be ours to
		 * advance the loader's link past this layer. Anything else is what the chain
		 * below answers, with our hook in place of a device command it has. */
		if ((hook = find_hook(g_instance_hooks, COUNT(g_instance_hooks), name)))
			return hook;
		PFN_vkGetInstanceProcAddr gipa = __atomic_load_n(&g_untracked_gipa, __ATOMIC_ACQUIRE);
		PFN_vkVoidFunction next = gipa ? gipa(VK_NULL_HANDLE, name) : NULL;
		if (next && (hook = device_hook_find(name)))
			return hook;
		return next;
	}
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(instance));
	if (!inst) {
		/* Not tracked (our own failure): pass through, except vkCreateDevice, which must
		 * still advance the loader's link past this layer. */
		if (!strcmp(name, "vkCreateDevice"))
			return (PFN_vkVoidFunction)pp_CreateDevice;
		PFN_vkGetInstanceProcAddr gipa = __atomic_load_n(&g_untracked_gipa, __ATOMIC_ACQUIRE);
		return gipa ? gipa(instance, name) : NULL;
	}
	/* VK_KHR_get_physical_device_properties2 enabled by passprobe, not the application. */
	if (inst->added_gpdp2 && find_hook(g_gpdp2_names, COUNT(g_gpdp2_names), name))
		return NULL;
	PFN_vkVoidFunction next = inst->vk.GetInstanceProcAddr(instance, name);
	if ((hook = find_hook(g_instance_hooks, COUNT(g_instance_hooks), name))) {
		/* Tooling info is ours to answer even where nothing below implements it. */
		if (next || !strncmp(name, "vkGetPhysicalDeviceToolProperties", 33))
			return hook;
		return NULL;
	}
	if (next && (hook = device_hook_find(name)))
		return hook;
	return next;
}
