#include "lt_common.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool lt_messenger_enabled = true;
static unsigned g_passed, g_failed;
static uint32_t g_debug_errors;

/* Messengers to destroy with their instance (validation reports leaked ones). */
static pthread_mutex_t g_messengers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
} g_messengers[64];

bool lt_check(bool ok, const char *file, int line, const char *what, const char *fmt, ...)
{
	if (ok) {
		__atomic_add_fetch(&g_passed, 1, __ATOMIC_RELAXED);
		return true;
	}
	__atomic_add_fetch(&g_failed, 1, __ATOMIC_RELAXED);
	char msg[512] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "FAIL %s:%d: %s%s%s\n", file, line, what, *msg ? ": " : "", msg);
	return false;
}

int lt_finish(void)
{
	unsigned passed = __atomic_load_n(&g_passed, __ATOMIC_RELAXED);
	unsigned failed = __atomic_load_n(&g_failed, __ATOMIC_RELAXED);
	printf("%u passed, %u failed\n", passed, failed);
	fflush(stdout);
	return failed || !passed ? 1 : 0;
}

_Noreturn void lt_skip(const char *why)
{
	/* Checks that failed before the reason to skip was found are failures all the same: a
	 * skip must not hide them. */
	unsigned failed = __atomic_load_n(&g_failed, __ATOMIC_RELAXED);
	if (failed) {
		printf("not skipped (%s): %u check(s) failed before\n", why, failed);
		exit(lt_finish());
	}
	printf("SKIP: %s\n", why);
	fflush(stdout);
	exit(77);
}

/* ---- instance ------------------------------------------------------------------------------ */

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
						      VkDebugUtilsMessageTypeFlagsEXT types,
						      const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
		__atomic_add_fetch(&g_debug_errors, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "debug error: %s: %s\n", data->pMessageIdName ? data->pMessageIdName : "-",
			data->pMessage ? data->pMessage : "");
	}
	return VK_FALSE;
}

uint32_t lt_debug_errors(void)
{
	return __atomic_load_n(&g_debug_errors, __ATOMIC_RELAXED);
}

static bool instance_extension_available(const char *name)
{
	uint32_t n = 0;
	bool found = false;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
	if (props && vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0)
		for (uint32_t i = 0; i < n && !found; i++)
			found = !strcmp(props[i].extensionName, name);
	free(props);
	return found;
}

bool lt_layer_available(const char *name)
{
	uint32_t n = 0;
	bool found = false;
	if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS)
		return false;
	VkLayerProperties *props = calloc(n ? n : 1, sizeof(*props));
	if (props && vkEnumerateInstanceLayerProperties(&n, props) >= 0)
		for (uint32_t i = 0; i < n && !found; i++)
			found = !strcmp(props[i].layerName, name);
	free(props);
	return found;
}

#if defined(__SANITIZE_ADDRESS__)
static int pin_one(struct dl_phdr_info *info, size_t size, void *data)
{
	if (info->dlpi_name && info->dlpi_name[0])
		dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE); /* never closed: pinned */
	return 0;
}
#endif

/* LeakSanitizer cannot name the library of a leak once that library is unloaded, and the
 * loader unloads the driver (whose LLVM leaks a little) at vkDestroyInstance: in ASan builds
 * every library loaded so far is pinned, so that tests/layer/lsan.supp can suppress leaks of
 * code that is not ours by library name while passprobe's own leaks still fail the test. */
static void pin_loaded_libraries(void)
{
#if defined(__SANITIZE_ADDRESS__)
	dl_iterate_phdr(pin_one, NULL);
#endif
}

VkResult lt_instance_create(uint32_t api_version, VkInstance *out)
{
	const char *debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	bool have_debug = lt_messenger_enabled && instance_extension_available(debug_utils);
	VkDebugUtilsMessengerCreateInfoEXT messenger = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = debug_callback,
	};
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "passprobe-layer-test",
		.apiVersion = api_version,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		/* Also covers vkCreateInstance/vkDestroyInstance themselves. */
		.pNext = have_debug ? &messenger : NULL,
		.pApplicationInfo = &app,
		.enabledExtensionCount = have_debug ? 1 : 0,
		.ppEnabledExtensionNames = &debug_utils,
	};
	VkResult r = vkCreateInstance(&info, NULL, out);
	if (r != VK_SUCCESS)
		return r;
	if (lt_physical_device(*out))
		pin_loaded_libraries(); /* the driver is loaded once physical devices are enumerated */
	if (!have_debug)
		return r;
	PFN_vkCreateDebugUtilsMessengerEXT create =
		(PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(*out, "vkCreateDebugUtilsMessengerEXT");
	VkDebugUtilsMessengerEXT m;
	if (!create || create(*out, &messenger, NULL, &m) != VK_SUCCESS)
		return r;
	pthread_mutex_lock(&g_messengers_lock);
	for (unsigned i = 0; i < sizeof(g_messengers) / sizeof(g_messengers[0]); i++)
		if (!g_messengers[i].instance) {
			g_messengers[i].instance = *out;
			g_messengers[i].messenger = m;
			m = VK_NULL_HANDLE;
			break;
		}
	pthread_mutex_unlock(&g_messengers_lock);
	if (m) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
			*out, "vkDestroyDebugUtilsMessengerEXT");
		destroy(*out, m, NULL);
	}
	return r;
}

void lt_instance_destroy(VkInstance instance)
{
	VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
	pthread_mutex_lock(&g_messengers_lock);
	for (unsigned i = 0; i < sizeof(g_messengers) / sizeof(g_messengers[0]); i++)
		if (g_messengers[i].instance == instance) {
			m = g_messengers[i].messenger;
			g_messengers[i].instance = VK_NULL_HANDLE;
			break;
		}
	pthread_mutex_unlock(&g_messengers_lock);
	if (m) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
			instance, "vkDestroyDebugUtilsMessengerEXT");
		if (destroy)
			destroy(instance, m, NULL);
	}
	vkDestroyInstance(instance, NULL);
}

VkPhysicalDevice lt_physical_device(VkInstance instance)
{
	uint32_t n = 1;
	VkPhysicalDevice pd = VK_NULL_HANDLE;
	VkResult r = vkEnumeratePhysicalDevices(instance, &n, &pd);
	return (r == VK_SUCCESS || r == VK_INCOMPLETE) && n ? pd : VK_NULL_HANDLE;
}

/* ---- device -------------------------------------------------------------------------------- */

uint32_t lt_memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags want)
{
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(pd, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
			return i;
	return UINT32_MAX;
}

VkResult lt_device_create(struct lt_device *d, VkInstance instance, const void *pnext,
			  const VkPhysicalDeviceFeatures *features, uint32_t next, const char *const *exts)
{
	memset(d, 0, sizeof(*d));
	d->instance = instance;
	d->pd = lt_physical_device(instance);
	if (!d->pd)
		return VK_ERROR_INITIALIZATION_FAILED;

	uint32_t nfam = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(d->pd, &nfam, NULL);
	VkQueueFamilyProperties fams[16];
	if (nfam > 16)
		nfam = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(d->pd, &nfam, fams);
	d->family = UINT32_MAX;
	for (uint32_t i = 0; i < nfam && d->family == UINT32_MAX; i++)
		if (fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			d->family = i;
	if (d->family == UINT32_MAX)
		return VK_ERROR_INITIALIZATION_FAILED;

	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = d->family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = pnext,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = next,
		.ppEnabledExtensionNames = exts,
		.pEnabledFeatures = features,
	};
	VkResult r = vkCreateDevice(d->pd, &dci, NULL, &d->device);
	if (r != VK_SUCCESS)
		return r;
	vkGetDeviceQueue(d->device, d->family, 0, &d->queue);

	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = d->family,
	};
	if ((r = vkCreateCommandPool(d->device, &pci, NULL, &d->pool)) != VK_SUCCESS)
		goto fail;
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = LT_BUFFER_WORDS * sizeof(uint32_t),
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	if ((r = vkCreateBuffer(d->device, &bci, NULL, &d->buffer)) != VK_SUCCESS)
		goto fail;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(d->device, d->buffer, &req);
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = lt_memory_type(d->pd, req.memoryTypeBits,
						  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
							  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
	};
	if (mai.memoryTypeIndex == UINT32_MAX) {
		r = VK_ERROR_INITIALIZATION_FAILED;
		goto fail;
	}
	if ((r = vkAllocateMemory(d->device, &mai, NULL, &d->memory)) != VK_SUCCESS ||
	    (r = vkBindBufferMemory(d->device, d->buffer, d->memory, 0)) != VK_SUCCESS ||
	    (r = vkMapMemory(d->device, d->memory, 0, VK_WHOLE_SIZE, 0, (void **)&d->map)) != VK_SUCCESS)
		goto fail;
	return VK_SUCCESS;
fail:
	lt_device_destroy(d);
	return r;
}

bool lt_device_fill(struct lt_device *d, uint32_t value)
{
	VkCommandBuffer cbs[2];
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = d->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 2,
	};
	if (vkAllocateCommandBuffers(d->device, &ai, cbs) != VK_SUCCESS)
		return false;
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	bool ok = true;
	memset(d->map, 0, LT_BUFFER_WORDS * sizeof(uint32_t));
	ok &= vkBeginCommandBuffer(cbs[0], &bi) == VK_SUCCESS;
	ok &= vkEndCommandBuffer(cbs[0]) == VK_SUCCESS;
	ok &= vkBeginCommandBuffer(cbs[1], &bi) == VK_SUCCESS;
	vkCmdFillBuffer(cbs[1], d->buffer, 0, VK_WHOLE_SIZE, value);
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cbs[1], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
			     NULL, 0, NULL);
	ok &= vkEndCommandBuffer(cbs[1]) == VK_SUCCESS;

	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence fence;
	if (vkCreateFence(d->device, &fci, NULL, &fence) != VK_SUCCESS) {
		vkFreeCommandBuffers(d->device, d->pool, 2, cbs);
		return false;
	}
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 2,
		.pCommandBuffers = cbs,
	};
	ok &= ok && vkQueueSubmit(d->queue, 1, &si, fence) == VK_SUCCESS;
	ok &= ok && vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
	for (uint32_t i = 0; ok && i < LT_BUFFER_WORDS; i++)
		ok &= d->map[i] == value;
	vkDestroyFence(d->device, fence, NULL);
	vkFreeCommandBuffers(d->device, d->pool, 2, cbs);
	return ok;
}

void lt_device_destroy(struct lt_device *d)
{
	if (!d->device)
		return;
	vkDeviceWaitIdle(d->device);
	if (d->map)
		vkUnmapMemory(d->device, d->memory);
	vkDestroyBuffer(d->device, d->buffer, NULL);
	vkFreeMemory(d->device, d->memory, NULL);
	vkDestroyCommandPool(d->device, d->pool, NULL);
	vkDestroyDevice(d->device, NULL);
	memset(d, 0, sizeof(*d));
}

/* ---- spies ----------------------------------------------------------------------------------- */

bool lt_spy_get(const char *which, struct lt_spy *spy)
{
	memset(spy, 0, sizeof(*spy));
	const char *path = !strcmp(which, "above") ? LT_SPY_ABOVE_PATH : LT_SPY_BELOW_PATH;
	/* RTLD_NOLOAD: only a library the loader loaded counts; the reference is dropped again
	 * at once (the spies are linked -z nodelete, so their code stays mapped). */
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return false;
	spy->totals = (PFN_passprobe_spy_totals)dlsym(h, SPY_TOTALS_SYMBOL);
	spy->device = (PFN_passprobe_spy_device)dlsym(h, SPY_DEVICE_SYMBOL);
	dlclose(h);
	spy->loaded = spy->totals && spy->device;
	return spy->loaded;
}

void lt_spy_totals(const struct lt_spy *spy, uint64_t counts[SPY_COUNTER_COUNT])
{
	memset(counts, 0, SPY_COUNTER_COUNT * sizeof(counts[0]));
	if (spy->loaded)
		spy->totals(counts, SPY_COUNTER_COUNT);
}
