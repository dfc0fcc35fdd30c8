/* Features the profiler needs are enabled on a COPY of the application's VkDeviceCreateInfo.
 * The spy above passprobe records what the application passed, the spy below what reached the
 * driver. For each way an application can state its features:
 *   - VkPhysicalDeviceVulkan12Features{hostQueryReset = FALSE} in the chain,
 *   - pEnabledFeatures{pipelineStatisticsQuery = FALSE},
 *   - VkPhysicalDeviceFeatures2 (+ a Vulkan 1.2 struct behind a Vulkan 1.1 struct) in the chain,
 *   - nothing at all,
 *   - a Vulkan 1.1 instance (host query reset only through VK_EXT_host_query_reset),
 * default settings: below sees hostQueryReset and pipelineStatisticsQuery TRUE (and the
 * extension on 1.1), never both pEnabledFeatures and VkPhysicalDeviceFeatures2; above sees the
 * application's values; after vkCreateDevice every application struct, pointer and extension
 * list still reads as before; the device works.
 * argv[1] "--nothing-added" (CTest sets VK_PASSPROBE_PROFILER_TIMESTAMPS=off, or also
 * PIPELINE_STATISTICS=off): below sees exactly what above sees. */
#include <string.h>

#include "lt_common.h"

static struct lt_spy g_above, g_below;
static bool g_nothing_added;

struct snapshot {
	VkPhysicalDeviceVulkan11Features v11;
	VkPhysicalDeviceVulkan12Features v12;
	VkPhysicalDeviceFeatures2 f2;
	VkPhysicalDeviceFeatures f;
};

static bool same_create_record(const struct spy_create_record *a, const struct spy_create_record *b)
{
	if (a->host_query_reset != b->host_query_reset || a->pipeline_statistics_query != b->pipeline_statistics_query ||
	    a->enabled_features_ptr != b->enabled_features_ptr || a->features2_in_chain != b->features2_in_chain ||
	    a->chain_length != b->chain_length || a->nextensions != b->nextensions)
		return false;
	for (uint32_t i = 0; i < a->nextensions; i++)
		if (strcmp(a->extensions[i], b->extensions[i]))
			return false;
	return true;
}

static bool has_ext(const struct spy_create_record *r, const char *name)
{
	for (uint32_t i = 0; i < r->nextensions; i++)
		if (!strcmp(r->extensions[i], name))
			return true;
	return false;
}

/* Creates a device from the given pieces, then checks both spies' records and that nothing of
 * the application's changed. `app_chain_length` is how many structs the application chained. */
static void run_case(const char *name, VkInstance instance, void *pnext, uint32_t app_chain_length,
		     VkPhysicalDeviceFeatures *features, bool expect_extension)
{
	struct snapshot before = { 0 };
	for (VkBaseOutStructure *s = pnext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
			before.v11 = *(VkPhysicalDeviceVulkan11Features *)s;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
			before.v12 = *(VkPhysicalDeviceVulkan12Features *)s;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2)
			before.f2 = *(VkPhysicalDeviceFeatures2 *)s;
	}
	if (features)
		before.f = *features;

	struct lt_device d;
	VkResult r = lt_device_create(&d, instance, pnext, features, 0, NULL);
	CHECKF(r == VK_SUCCESS, "%s: vkCreateDevice %d", name, r);
	if (r != VK_SUCCESS)
		return;

	/* The application's structs read exactly as before (pNext links included). */
	for (VkBaseOutStructure *s = pnext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
			CHECKF(!memcmp(&before.v11, s, sizeof(before.v11)), "%s: Vulkan11Features changed", name);
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
			CHECKF(!memcmp(&before.v12, s, sizeof(before.v12)), "%s: Vulkan12Features changed", name);
			CHECKF(((VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset == VK_FALSE,
			       "%s: the application's hostQueryReset reads TRUE", name);
		}
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2) {
			CHECKF(!memcmp(&before.f2, s, sizeof(before.f2)), "%s: Features2 changed", name);
			CHECKF(((VkPhysicalDeviceFeatures2 *)s)->features.pipelineStatisticsQuery == VK_FALSE,
			       "%s: the application's Features2.pipelineStatisticsQuery reads TRUE", name);
		}
	}
	if (features) {
		CHECKF(!memcmp(&before.f, features, sizeof(before.f)), "%s: pEnabledFeatures changed", name);
		CHECKF(features->pipelineStatisticsQuery == VK_FALSE,
		       "%s: the application's pipelineStatisticsQuery reads TRUE", name);
	}

	struct spy_device_record above, below;
	bool have = g_above.loaded && g_below.loaded;
	CHECKF(have && g_above.device(d.device, &above) == 0, "%s: device unknown to the spy above", name);
	CHECKF(have && g_below.device(d.device, &below) == 0, "%s: device unknown to the spy below", name);
	if (have) {
		/* Above: the application's create-info, as given. */
		CHECKF(!above.create.host_query_reset, "%s: above sees hostQueryReset", name);
		CHECKF(!above.create.pipeline_statistics_query, "%s: above sees pipelineStatisticsQuery", name);
		CHECKF(above.create.chain_length == app_chain_length, "%s: above sees %u chained structs, app gave %u",
		       name, above.create.chain_length, app_chain_length);
		CHECKF(above.create.enabled_features_ptr == (features != NULL), "%s: above pEnabledFeatures", name);
		CHECKF(above.create.nextensions == 0, "%s: above sees %u extensions", name, above.create.nextensions);

		if (g_nothing_added) {
			CHECKF(same_create_record(&above.create, &below.create),
			       "%s: passprobe changed the create-info (below: hostQueryReset %d, "
			       "pipelineStatisticsQuery %d, %u chained, %u extensions)",
			       name, below.create.host_query_reset, below.create.pipeline_statistics_query,
			       below.create.chain_length, below.create.nextensions);
		} else {
			CHECKF(below.create.host_query_reset, "%s: hostQueryReset not enabled below", name);
			CHECKF(below.create.pipeline_statistics_query, "%s: pipelineStatisticsQuery not enabled below",
			       name);
			CHECKF(!(below.create.enabled_features_ptr && below.create.features2_in_chain),
			       "%s: below has both pEnabledFeatures and VkPhysicalDeviceFeatures2", name);
			CHECKF(below.create.features2_in_chain == above.create.features2_in_chain,
			       "%s: VkPhysicalDeviceFeatures2 added or dropped", name);
			if (expect_extension)
				CHECKF(has_ext(&below.create, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME),
				       "%s: VK_EXT_host_query_reset not enabled below", name);
			else
				CHECKF(!has_ext(&below.create, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME),
				       "%s: VK_EXT_host_query_reset enabled on a Vulkan 1.2+ device", name);
		}
	}
	CHECKF(lt_device_fill(&d, 0x5eed0000u + app_chain_length), "%s: fill result wrong", name);
	lt_device_destroy(&d);
}

int main(int argc, char **argv)
{
	g_nothing_added = argc > 1 && !strcmp(argv[1], "--nothing-added");
	VkInstance instance;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS)
		return lt_finish();
	CHECKF(lt_spy_get("above", &g_above), "the spy above passprobe is not loaded");
	CHECKF(lt_spy_get("below", &g_below), "the spy below passprobe is not loaded");

	/* 1. A Vulkan 1.2 features struct with hostQueryReset off. */
	VkPhysicalDeviceVulkan12Features v12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.hostQueryReset = VK_FALSE,
		.timelineSemaphore = VK_TRUE,
	};
	run_case("Vulkan12Features", instance, &v12, 1, NULL, false);

	/* 2. pEnabledFeatures with pipelineStatisticsQuery off. */
	VkPhysicalDeviceFeatures features = { .pipelineStatisticsQuery = VK_FALSE, .shaderInt16 = VK_FALSE };
	run_case("pEnabledFeatures", instance, NULL, 0, &features, false);

	/* 3. Features2 at the head, then 1.1, then 1.2 at the tail: every struct in front of
	 *    the one patched is copied too. */
	VkPhysicalDeviceVulkan12Features v12b = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.hostQueryReset = VK_FALSE,
	};
	VkPhysicalDeviceVulkan11Features v11 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
		.pNext = &v12b,
	};
	VkPhysicalDeviceFeatures2 f2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
		.pNext = &v11,
		.features = { .pipelineStatisticsQuery = VK_FALSE },
	};
	run_case("Features2+Vulkan11+Vulkan12", instance, &f2, 3, NULL, false);
	CHECK(f2.pNext == &v11 && v11.pNext == &v12b && v12b.pNext == NULL);

	/* 4. Features2 alone (hostQueryReset goes in as a struct of passprobe's own). */
	VkPhysicalDeviceFeatures2 f2b = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
	run_case("Features2", instance, &f2b, 1, NULL, false);

	/* 5. Nothing. */
	run_case("nothing", instance, NULL, 0, NULL, false);
	lt_instance_destroy(instance);

	/* 6. A Vulkan 1.1 instance: host query reset is the extension's. */
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_1, &instance)) == VK_SUCCESS) {
		VkPhysicalDeviceFeatures f11 = { 0 };
		run_case("Vulkan 1.1 + pEnabledFeatures", instance, NULL, 0, &f11, true);
		lt_instance_destroy(instance);
	}

	/* 7. A Vulkan 1.0 instance without VK_KHR_get_physical_device_properties2 (vkcube, vkd3d):
	 *    passprobe enables that extension on its copy of the instance create-info, so host
	 *    query reset is found and is the device extension's too. */
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_0, &instance)) == VK_SUCCESS) {
		VkPhysicalDeviceFeatures f10 = { 0 };
		run_case("Vulkan 1.0 + pEnabledFeatures", instance, NULL, 0, &f10, true);
		run_case("Vulkan 1.0, nothing", instance, NULL, 0, NULL, true);
		lt_instance_destroy(instance);
	}

	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
