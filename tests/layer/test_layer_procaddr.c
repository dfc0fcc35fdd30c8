/* vkGetDeviceProcAddr / vkGetInstanceProcAddr answers. Asked through the loader, and asked of
 * passprobe's own exported vkGetDeviceProcAddr (found with dlopen(RTLD_NOLOAD) in the library
 * the loader loaded) compared with the answer of the chain below it (the spy below's
 * vkGetDeviceProcAddr, which passes every name straight down):
 *   - an unknown name ("vkFooBar") and a command the driver lacks (vkCmdDrawMeshTasksNV): NULL;
 *   - a command of an extension the device supports but the application did not enable: NULL
 *     wherever the chain below says NULL (passprobe never invents an entry point);
 *   - vkQueueSubmit2 and vkQueueSubmit2KHR: the same pointer, passprobe's hook (not the one
 *     below), and both work;
 *   - vkGetDeviceProcAddr: passprobe's own;
 *   - the binds engines make before every draw: passprobe's hooks only where they serve the
 *     device (the diagnostics, lavapipe's quirk with pipeline statistics), else the function
 *     below (argv[2]: "diagnostics", "no-diagnostics"; the statistics setting is read from the
 *     environment, as passprobe reads it). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"

static PFN_vkGetDeviceProcAddr find_gdpa(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return NULL;
	PFN_vkGetDeviceProcAddr f = (PFN_vkGetDeviceProcAddr)dlsym(h, "vkGetDeviceProcAddr");
	dlclose(h);
	return f;
}

static PFN_vkGetInstanceProcAddr find_gipa(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return NULL;
	PFN_vkGetInstanceProcAddr f = (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
	dlclose(h);
	return f;
}

static bool submit2(struct lt_device *d, PFN_vkQueueSubmit2 fn, uint32_t value)
{
	VkCommandBuffer cb;
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = d->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	if (vkAllocateCommandBuffers(d->device, &ai, &cb) != VK_SUCCESS)
		return false;
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	vkBeginCommandBuffer(cb, &bi);
	vkCmdFillBuffer(cb, d->buffer, 0, VK_WHOLE_SIZE, value);
	vkEndCommandBuffer(cb);
	VkFence fence;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	vkCreateFence(d->device, &fci, NULL, &fence);
	VkCommandBufferSubmitInfo cbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb };
	VkSubmitInfo2 si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
		.commandBufferInfoCount = 1,
		.pCommandBufferInfos = &cbi,
	};
	bool ok = fn(d->queue, 1, &si, fence) == VK_SUCCESS &&
		  vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS && d->map[0] == value;
	vkDestroyFence(d->device, fence, NULL);
	vkFreeCommandBuffers(d->device, d->pool, 1, &cb);
	return ok;
}

/* What each bind hook serves: the diagnostics (D), lavapipe's quirk (Q). */
enum { SERVES_DIAG = 1, SERVES_QUIRK = 2 };
static const struct {
	const char *name;
	unsigned serves;
} bind_hooks[] = {
	{ "vkCmdBindPipeline", SERVES_DIAG | SERVES_QUIRK },
	{ "vkCmdBindDescriptorSets", SERVES_DIAG | SERVES_QUIRK },
	{ "vkCmdPushConstants", SERVES_QUIRK },
	{ "vkCmdBindVertexBuffers", SERVES_DIAG },
	{ "vkCmdBindVertexBuffers2", SERVES_DIAG },
	{ "vkCmdBindIndexBuffer", SERVES_DIAG },
};

static void check_bind_hooks(struct lt_device *d, PFN_vkGetDeviceProcAddr pp, PFN_vkGetDeviceProcAddr below,
			     bool diagnostics)
{
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(d->pd, &props);
	const char *stats = getenv("VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS");
	bool quirk = strstr(props.deviceName, "llvmpipe") && !(stats && !strcmp(stats, "off"));
	unsigned serving = (diagnostics ? SERVES_DIAG : 0) | (quirk ? SERVES_QUIRK : 0);
	for (unsigned i = 0; i < sizeof(bind_hooks) / sizeof(bind_hooks[0]); i++) {
		const char *name = bind_hooks[i].name;
		PFN_vkVoidFunction b = below(d->device, name), p = pp(d->device, name);
		bool hooked = bind_hooks[i].serves & serving;
		CHECKF(b != NULL, "%s: nothing below passprobe", name);
		CHECKF(hooked ? p != b : p == b, "%s: %s, expected %s (diagnostics %s, quirk %s)", name,
		       p == b ? "the function below" : "passprobe's hook", hooked ? "passprobe's hook" : "the function below",
		       diagnostics ? "on" : "off", quirk ? "on" : "off");
		/* The application's dispatch (the loader) holds the same answer. */
		CHECKF(vkGetDeviceProcAddr(d->device, name) == p, "%s: the loader answers another function", name);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "diagnostics") && strcmp(argv[2], "no-diagnostics"))) {
		fprintf(stderr, "usage: %s path/to/libVkLayer_passprobe.so diagnostics|no-diagnostics\n", argv[0]);
		return 2;
	}
	VkInstance instance;
	struct lt_device d;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS)
		return lt_finish();
	/* VK_KHR_synchronization2 enabled: vkQueueSubmit2KHR is a valid name on this device. */
	const char *sync2 = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
	VkPhysicalDeviceVulkan13Features v13 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
		.synchronization2 = VK_TRUE,
	};
	if (CHECK_VK(lt_device_create(&d, instance, &v13, NULL, 1, &sync2)) != VK_SUCCESS)
		return lt_finish();

	PFN_vkGetDeviceProcAddr pp = find_gdpa(argv[1]);
	PFN_vkGetDeviceProcAddr below = find_gdpa(LT_SPY_BELOW_PATH);
	CHECKF(pp != NULL, "passprobe is not loaded from %s", argv[1]);
	CHECKF(below != NULL, "the spy below passprobe is not loaded");
	if (!pp || !below)
		return lt_finish();

	/* Through the loader. */
	CHECK(vkGetDeviceProcAddr(d.device, "vkFooBar") == NULL);
	CHECK(vkGetDeviceProcAddr(d.device, "vkCmdDrawMeshTasksNV") == NULL);
	CHECK(vkGetDeviceProcAddr(d.device, "vkQueueSubmit2") != NULL);
	CHECK(vkGetDeviceProcAddr(d.device, "vkQueueSubmit2KHR") != NULL);
	CHECK(vkGetInstanceProcAddr(instance, "vkFooBar") == NULL);

	/* passprobe's answers against the chain below it. */
	CHECK(pp(d.device, "vkFooBar") == NULL);
	CHECK(pp(d.device, "vkCmdDrawMeshTasksNV") == NULL);
	CHECK(pp(d.device, NULL) == NULL);
	CHECK(pp(VK_NULL_HANDLE, "vkQueueSubmit") == NULL);
	CHECK(pp(d.device, "vkGetDeviceProcAddr") == (PFN_vkVoidFunction)pp);
	/* Commands of extensions this device has but the application did not enable, and ones
	 * passprobe hooks among them. */
	static const char *const not_enabled[] = {
		"vkCmdSetLineStippleEXT",       "vkCmdDrawMultiEXT",        "vkCmdBeginConditionalRenderingEXT",
		"vkCmdDrawIndirectCountAMD",    "vkCmdBeginRenderingKHR",   "vkCmdDrawIndirectCountKHR",
		"vkCmdCopyBuffer2KHR",          "vkGetCalibratedTimestampsEXT", "vkCmdBeginDebugUtilsLabelEXT",
		"vkQueuePresentKHR",            "vkCreateSwapchainKHR",     "vkCmdDrawMeshTasksEXT",
	};
	for (unsigned i = 0; i < sizeof(not_enabled) / sizeof(not_enabled[0]); i++) {
		const char *name = not_enabled[i];
		PFN_vkVoidFunction b = below(d.device, name), p = pp(d.device, name);
		/* passprobe enables VK_EXT_calibrated_timestamps for itself, so the chain below has
		 * the function; the application did not enable it and must get NULL, as it would
		 * without passprobe. */
		if (!strcmp(name, "vkGetCalibratedTimestampsEXT")) {
			CHECKF(p == NULL, "%s: passprobe hands out a function of an extension it enabled for itself",
			       name);
			continue;
		}
		CHECKF((b == NULL) == (p == NULL), "%s: below %s, passprobe %s", name, b ? "non-NULL" : "NULL",
		       p ? "non-NULL" : "NULL");
	}
	CHECKF(below(d.device, "vkCmdSetLineStippleEXT") == NULL,
	       "the driver hands out a command of an extension that is not enabled; this check is moot");

	/* vkQueueSubmit2 and its KHR alias: one hook, not the function below. */
	PFN_vkVoidFunction s2 = pp(d.device, "vkQueueSubmit2");
	PFN_vkVoidFunction s2khr = pp(d.device, "vkQueueSubmit2KHR");
	CHECK(s2 != NULL && s2khr != NULL);
	CHECK(s2 == s2khr);
	CHECK(s2 != below(d.device, "vkQueueSubmit2"));
	/* Other hooked aliases likewise. */
	CHECK(pp(d.device, "vkCmdPipelineBarrier2") == pp(d.device, "vkCmdPipelineBarrier2KHR") ||
	      below(d.device, "vkCmdPipelineBarrier2KHR") == NULL);
	/* A command passprobe does not hook comes straight from below. */
	CHECK(pp(d.device, "vkCmdSetViewport") == below(d.device, "vkCmdSetViewport"));
	check_bind_hooks(&d, pp, below, !strcmp(argv[2], "diagnostics"));

	/* Both submit entry points work, through the loader and through passprobe's pointers. */
	CHECK(submit2(&d, (PFN_vkQueueSubmit2)vkGetDeviceProcAddr(d.device, "vkQueueSubmit2"), 0xa1));
	CHECK(submit2(&d, (PFN_vkQueueSubmit2)vkGetDeviceProcAddr(d.device, "vkQueueSubmit2KHR"), 0xa2));
	CHECK(submit2(&d, (PFN_vkQueueSubmit2)s2, 0xa3));
	CHECK(submit2(&d, (PFN_vkQueueSubmit2)s2khr, 0xa4));
	CHECK(lt_device_fill(&d, 0xa5));
	struct lt_spy spy;
	struct spy_device_record rec;
	if (CHECK(lt_spy_get("below", &spy)) && CHECK(spy.device(d.device, &rec) == 0))
		CHECKF(rec.counts[SPY_QUEUE_SUBMIT2] == 4 && rec.counts[SPY_QUEUE_SUBMIT] == 1,
		       "below saw %llu vkQueueSubmit2 and %llu vkQueueSubmit",
		       (unsigned long long)rec.counts[SPY_QUEUE_SUBMIT2], (unsigned long long)rec.counts[SPY_QUEUE_SUBMIT]);

	lt_device_destroy(&d);
	lt_instance_destroy(instance);

	/* A Vulkan 1.0 instance and device without extensions: passprobe enables
	 * VK_KHR_get_physical_device_properties2 and VK_EXT_host_query_reset for itself,
	 * and answers NULL for their commands, as the chain would without it. (The loader, 1.3.239,
	 * answers the instance extension's names itself from what reached the driver, so through
	 * the loader they are not NULL: docs/timing.md, "Resetting queries".) */
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_0, &instance)) == VK_SUCCESS) {
		static const char *const gpdp2[] = { "vkGetPhysicalDeviceFeatures2KHR", "vkGetPhysicalDeviceProperties2KHR",
						     "vkGetPhysicalDeviceMemoryProperties2KHR" };
		PFN_vkGetInstanceProcAddr pp_gipa = find_gipa(argv[1]);
		for (unsigned i = 0; i < sizeof(gpdp2) / sizeof(gpdp2[0]); i++) {
			CHECKF(pp_gipa && pp_gipa(instance, gpdp2[i]) == NULL, "%s from passprobe", gpdp2[i]);
		}
		if (CHECK_VK(lt_device_create(&d, instance, NULL, NULL, 0, NULL)) == VK_SUCCESS) {
			CHECK(vkGetDeviceProcAddr(d.device, "vkResetQueryPoolEXT") == NULL);
			CHECK(pp(d.device, "vkResetQueryPoolEXT") == NULL);
			CHECK(vkGetDeviceProcAddr(d.device, "vkGetCalibratedTimestampsEXT") == NULL);
			CHECK(lt_device_fill(&d, 0xb1));
			lt_device_destroy(&d);
		}
		lt_instance_destroy(instance);
	}
	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
