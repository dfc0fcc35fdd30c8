/* Layer discovery through the real loader: the layer is listed with its name, description
 * and versions; it adds no instance extension; it advertises VK_EXT_tooling_info as a device
 * extension, and the instance hands out its tooling-info entry point. */
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"

#define PP_DESCRIPTION "passprobe: per-pass GPU/CPU timing and synchronization diagnostics"

static void check_instance_layers(void)
{
	uint32_t n = 0;
	CHECK_VK(vkEnumerateInstanceLayerProperties(&n, NULL));
	VkLayerProperties *props = calloc(n + 1, sizeof(*props));
	uint32_t got = n;
	CHECK_VK(vkEnumerateInstanceLayerProperties(&got, props));
	const VkLayerProperties *pp = NULL;
	unsigned times = 0;
	for (uint32_t i = 0; i < got; i++)
		if (!strcmp(props[i].layerName, LT_PP_LAYER)) {
			pp = &props[i];
			times++;
		}
	CHECKF(pp && times == 1, "%s listed %u times among %u layers", LT_PP_LAYER, times, got);
	if (pp) {
		CHECKF(!strcmp(pp->description, PP_DESCRIPTION), "description \"%s\"", pp->description);
		CHECKF(pp->specVersion >= VK_MAKE_API_VERSION(0, 1, 3, 0), "specVersion %u.%u.%u",
		       VK_API_VERSION_MAJOR(pp->specVersion), VK_API_VERSION_MINOR(pp->specVersion),
		       VK_API_VERSION_PATCH(pp->specVersion));
		CHECKF(pp->implementationVersion == 1, "implementationVersion %u", pp->implementationVersion);
	}
	/* Asking for fewer than there are: VK_INCOMPLETE. */
	if (n > 1) {
		uint32_t one = 1;
		CHECK(vkEnumerateInstanceLayerProperties(&one, props) == VK_INCOMPLETE && one == 1);
	}
	free(props);

	/* The layer brings no instance extension. */
	n = 123;
	CHECK_VK(vkEnumerateInstanceExtensionProperties(LT_PP_LAYER, &n, NULL));
	CHECKF(n == 0, "%u instance extensions", n);
}

static bool has_extension(const VkExtensionProperties *props, uint32_t n, const char *name, uint32_t *spec)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(props[i].extensionName, name)) {
			*spec = props[i].specVersion;
			return true;
		}
	return false;
}

static void check_device_level(VkInstance instance)
{
	VkPhysicalDevice pd = lt_physical_device(instance);
	CHECK(pd != VK_NULL_HANDLE);
	if (!pd)
		return;

	uint32_t n = 0, spec = 0;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(pd, LT_PP_LAYER, &n, NULL));
	CHECKF(n >= 1, "%u device extensions from the layer", n);
	VkExtensionProperties *props = calloc(n + 1, sizeof(*props));
	uint32_t got = n;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(pd, LT_PP_LAYER, &got, props));
	CHECK(got == n);
	CHECK(has_extension(props, got, VK_EXT_TOOLING_INFO_EXTENSION_NAME, &spec));
	CHECKF(spec == 1, "VK_EXT_tooling_info spec version %u", spec);
	if (n) {
		uint32_t zero = 0;
		CHECK(vkEnumerateDeviceExtensionProperties(pd, LT_PP_LAYER, &zero, props) == VK_INCOMPLETE);
	}
	free(props);

	/* The device's own extension list (no layer name) still comes from the driver. */
	n = 0;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL));
	props = calloc(n + 1, sizeof(*props));
	got = n;
	CHECK_VK(vkEnumerateDeviceExtensionProperties(pd, NULL, &got, props));
	CHECKF(got > 5, "%u driver device extensions", got);
	free(props);

	/* Deprecated device layers: the loader reports the enabled ones. */
	n = 0;
	CHECK_VK(vkEnumerateDeviceLayerProperties(pd, &n, NULL));
	VkLayerProperties *layers = calloc(n + 1, sizeof(*layers));
	got = n;
	CHECK_VK(vkEnumerateDeviceLayerProperties(pd, &got, layers));
	bool listed = false;
	for (uint32_t i = 0; i < got; i++)
		listed |= !strcmp(layers[i].layerName, LT_PP_LAYER);
	CHECKF(listed, "%s not among %u device layers", LT_PP_LAYER, got);
	free(layers);

	CHECK(vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceToolPropertiesEXT") != NULL);
	CHECK(vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceToolProperties") != NULL);
}

int main(void)
{
	check_instance_layers();

	VkInstance instance;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) == VK_SUCCESS) {
		check_device_level(instance);
		lt_instance_destroy(instance);
	}
	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
