/* Tooling info: vkGetPhysicalDeviceToolProperties (Vulkan 1.3 core) and
 * vkGetPhysicalDeviceToolPropertiesEXT report passprobe first (name "passprobe", purposes
 * PROFILING|TRACING, layer VK_LAYER_PASSPROBE_profiler), then the tools below it. The usual
 * two-call idiom works; a buffer of one gets VK_INCOMPLETE and passprobe alone; a buffer of
 * zero gets VK_INCOMPLETE and nothing written.
 * argv[1] "--with-validation": the validation layer is below passprobe and must be listed after
 * it (skipped, exit 77, where it is not installed); otherwise passprobe is the only tool. */
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"

static void check_passprobe_entry(const VkPhysicalDeviceToolProperties *t, const char *fn)
{
	CHECKF(t->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES, "%s: sType %d", fn, t->sType);
	CHECKF(!strcmp(t->name, "passprobe"), "%s: first tool is \"%s\"", fn, t->name);
	CHECKF(t->purposes == (VK_TOOL_PURPOSE_PROFILING_BIT | VK_TOOL_PURPOSE_TRACING_BIT), "%s: purposes 0x%x", fn,
	       t->purposes);
	CHECKF(!strcmp(t->layer, LT_PP_LAYER), "%s: layer \"%s\"", fn, t->layer);
	CHECKF(t->version[0] != '\0', "%s: empty version", fn);
	CHECKF(t->description[0] != '\0', "%s: empty description", fn);
}

static void check_tools(VkPhysicalDevice pd, PFN_vkGetPhysicalDeviceToolProperties get, const char *fn,
			bool with_validation)
{
	CHECKF(get != NULL, "%s not available", fn);
	if (!get)
		return;

	uint32_t n = 0;
	CHECKF(get(pd, &n, NULL) == VK_SUCCESS, "%s: count query", fn);
	if (with_validation)
		CHECKF(n >= 2, "%s: %u tools, expected passprobe and the validation layer", fn, n);
	else
		CHECKF(n == 1, "%s: %u tools, expected passprobe alone", fn, n);
	if (!n)
		return;

	VkPhysicalDeviceToolProperties *tools = calloc(n + 1, sizeof(*tools));
	for (uint32_t i = 0; i <= n; i++)
		tools[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
	uint32_t got = n;
	VkResult r = get(pd, &got, tools);
	CHECKF(r == VK_SUCCESS, "%s: fill returned %d", fn, r);
	CHECKF(got == n, "%s: filled %u of %u", fn, got, n);
	check_passprobe_entry(&tools[0], fn);
	bool validation_found = false;
	unsigned passprobes = 0;
	for (uint32_t i = 0; i < got; i++) {
		validation_found |= !strcmp(tools[i].layer, LT_VALIDATION);
		passprobes += !strcmp(tools[i].name, "passprobe");
	}
	CHECKF(passprobes == 1, "%s: passprobe listed %u times", fn, passprobes);
	if (with_validation)
		CHECKF(validation_found, "%s: the validation layer is not among the %u tools", fn, got);

	/* A bigger buffer than needed: the count says how many were written. */
	memset(tools, 0, (n + 1) * sizeof(*tools));
	for (uint32_t i = 0; i <= n; i++)
		tools[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
	got = n + 1;
	CHECKF(get(pd, &got, tools) == VK_SUCCESS && got == n, "%s: oversized buffer: count %u", fn, got);

	/* A buffer of one: passprobe only, and VK_INCOMPLETE when there are more. */
	VkPhysicalDeviceToolProperties one[2];
	memset(one, 0, sizeof(one));
	one[0].sType = one[1].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
	strcpy(one[1].name, "untouched");
	got = 1;
	r = get(pd, &got, one);
	CHECKF(r == (n > 1 ? VK_INCOMPLETE : VK_SUCCESS), "%s: buffer of one returned %d with %u tools", fn, r, n);
	CHECKF(got == 1, "%s: buffer of one: count %u", fn, got);
	check_passprobe_entry(&one[0], fn);
	CHECKF(!strcmp(one[1].name, "untouched"), "%s: wrote past a buffer of one", fn);

	/* A buffer of zero. */
	got = 0;
	strcpy(one[0].name, "untouched");
	r = get(pd, &got, one);
	CHECKF(r == VK_INCOMPLETE && got == 0, "%s: buffer of zero: %d, count %u", fn, r, got);
	CHECKF(!strcmp(one[0].name, "untouched"), "%s: wrote into a buffer of zero", fn);
	free(tools);
}

int main(int argc, char **argv)
{
	bool with_validation = argc > 1 && !strcmp(argv[1], "--with-validation");
	if (with_validation && !lt_layer_available(LT_VALIDATION))
		lt_skip("VK_LAYER_KHRONOS_validation is not installed");

	VkInstance instance;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS)
		return lt_finish();
	VkPhysicalDevice pd = lt_physical_device(instance);
	CHECK(pd != VK_NULL_HANDLE);
	if (pd) {
		/* passprobe answers each name with itself followed by what the chain below answers
		 * for that same name. The validation layer of Debian 12 (1.3.239) answers only the
		 * EXT name: without passprobe, the core name lists no tool there (checked by hand:
		 * core 0, EXT 1). So under the core names passprobe is alone, even with validation
		 * below, and must not invent the entry. */
		check_tools(pd,
			    (PFN_vkGetPhysicalDeviceToolProperties)vkGetInstanceProcAddr(
				    instance, "vkGetPhysicalDeviceToolProperties"),
			    "vkGetPhysicalDeviceToolProperties", false);
		check_tools(pd,
			    (PFN_vkGetPhysicalDeviceToolPropertiesEXT)vkGetInstanceProcAddr(
				    instance, "vkGetPhysicalDeviceToolPropertiesEXT"),
			    "vkGetPhysicalDeviceToolPropertiesEXT", with_validation);
		/* The loader-exported core entry point, as an application linking libvulkan uses it. */
		check_tools(pd, vkGetPhysicalDeviceToolProperties, "vkGetPhysicalDeviceToolProperties (linked)",
			    false);
	}
	lt_instance_destroy(instance);
	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
