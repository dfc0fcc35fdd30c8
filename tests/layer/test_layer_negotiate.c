/* The loader-facing entry points called directly, without a loader: the layer library is
 * dlopen()ed by path (argv[1]) and vkNegotiateLoaderLayerInterfaceVersion is driven the way
 * loaders of every interface version do (Vulkan-Loader docs/LoaderLayerInterface.md, "Layer
 * Version Negotiation"):
 *   - version 2 (today's loaders): VK_SUCCESS, answer 2, both Get*ProcAddr filled in, no
 *     vk_layerGetPhysicalDeviceProcAddr (the layer adds no unknown physical-device command);
 *   - a newer loader (3, 7, UINT32_MAX): VK_SUCCESS, the layer answers its own version 2;
 *   - versions 0 and 1 (loaders before negotiation existed, which find vkGetInstanceProcAddr
 *     and vkGetDeviceProcAddr by their exported names): VK_SUCCESS, the struct left as it was;
 *   - a struct that is not a negotiation struct, or NULL: VK_ERROR_INITIALIZATION_FAILED. */
#include <dlfcn.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#include "lt_common.h"

#define SENTINEL_GIPA ((PFN_vkGetInstanceProcAddr)(uintptr_t)0x1111)
#define SENTINEL_GDPA ((PFN_vkGetDeviceProcAddr)(uintptr_t)0x2222)
#define SENTINEL_GPDPA ((PFN_GetPhysicalDeviceProcAddr)(uintptr_t)0x3333)

static VkNegotiateLayerInterface fresh(uint32_t version)
{
	return (VkNegotiateLayerInterface){
		.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT,
		.pNext = NULL,
		.loaderLayerInterfaceVersion = version,
		.pfnGetInstanceProcAddr = SENTINEL_GIPA,
		.pfnGetDeviceProcAddr = SENTINEL_GDPA,
		.pfnGetPhysicalDeviceProcAddr = SENTINEL_GPDPA,
	};
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s path/to/libVkLayer_passprobe.so\n", argv[0]);
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECKF(lib != NULL, "dlopen: %s", dlerror());
	if (!lib)
		return lt_finish();

	PFN_vkNegotiateLoaderLayerInterfaceVersion negotiate =
		(PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(lib, "vkNegotiateLoaderLayerInterfaceVersion");
	PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)dlsym(lib, "vkGetDeviceProcAddr");
	PFN_vkEnumerateInstanceLayerProperties enum_layers =
		(PFN_vkEnumerateInstanceLayerProperties)dlsym(lib, "vkEnumerateInstanceLayerProperties");
	CHECK(negotiate && gipa && gdpa && enum_layers);
	if (!negotiate || !gipa || !gdpa || !enum_layers)
		return lt_finish();

	/* Today's loader. */
	VkNegotiateLayerInterface v = fresh(2);
	CHECK(negotiate(&v) == VK_SUCCESS);
	CHECKF(v.loaderLayerInterfaceVersion == 2, "answered %u", v.loaderLayerInterfaceVersion);
	CHECK(v.pfnGetInstanceProcAddr == gipa);
	CHECK(v.pfnGetDeviceProcAddr == gdpa);
	CHECK(v.pfnGetPhysicalDeviceProcAddr == NULL);
	CHECK(v.sType == LAYER_NEGOTIATE_INTERFACE_STRUCT && v.pNext == NULL);

	/* Newer loaders: the layer answers the version it implements. */
	const uint32_t newer[] = { 3, 7, UINT32_MAX };
	for (unsigned i = 0; i < sizeof(newer) / sizeof(newer[0]); i++) {
		v = fresh(newer[i]);
		CHECKF(negotiate(&v) == VK_SUCCESS, "loader version %u", newer[i]);
		CHECKF(v.loaderLayerInterfaceVersion == 2, "loader version %u: answered %u", newer[i],
		       v.loaderLayerInterfaceVersion);
		CHECK(v.pfnGetInstanceProcAddr == gipa && v.pfnGetDeviceProcAddr == gdpa);
		CHECK(v.pfnGetPhysicalDeviceProcAddr == NULL);
	}

	/* Older loaders: nothing to fill in; they use the exported names (checked below). */
	const uint32_t older[] = { 1, 0 };
	for (unsigned i = 0; i < 2; i++) {
		v = fresh(older[i]);
		CHECKF(negotiate(&v) == VK_SUCCESS, "loader version %u", older[i]);
		CHECKF(v.loaderLayerInterfaceVersion == older[i], "loader version %u: answered %u", older[i],
		       v.loaderLayerInterfaceVersion);
		CHECKF(v.pfnGetInstanceProcAddr == SENTINEL_GIPA && v.pfnGetDeviceProcAddr == SENTINEL_GDPA &&
			       v.pfnGetPhysicalDeviceProcAddr == SENTINEL_GPDPA,
		       "loader version %u: pointers were written", older[i]);
	}

	/* Not a negotiation struct. */
	v = fresh(2);
	v.sType = LAYER_NEGOTIATE_UNINTIALIZED;
	CHECK(negotiate(&v) == VK_ERROR_INITIALIZATION_FAILED);
	CHECK(v.loaderLayerInterfaceVersion == 2 && v.pfnGetInstanceProcAddr == SENTINEL_GIPA);
	v = fresh(2);
	v.sType = (VkNegotiateLayerStructType)7;
	CHECK(negotiate(&v) == VK_ERROR_INITIALIZATION_FAILED);
	CHECK(negotiate(NULL) == VK_ERROR_INITIALIZATION_FAILED);

	/* What an interface-0/1 loader relies on: the exported entry points work on their own. */
	CHECK(gipa(VK_NULL_HANDLE, "vkGetInstanceProcAddr") == (PFN_vkVoidFunction)gipa);
	CHECK(gipa(VK_NULL_HANDLE, "vkCreateInstance") != NULL);
	CHECK(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties") != NULL);
	CHECK(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties") != NULL);
	CHECK(gipa(VK_NULL_HANDLE, "vkFooBar") == NULL);
	CHECK(gipa(VK_NULL_HANDLE, NULL) == NULL);
	CHECK(gdpa(VK_NULL_HANDLE, "vkQueueSubmit") == NULL);
	uint32_t n = 0;
	CHECK(enum_layers(&n, NULL) == VK_SUCCESS && n == 1);
	VkLayerProperties props;
	n = 1;
	CHECK(enum_layers(&n, &props) == VK_SUCCESS && n == 1);
	CHECKF(!strcmp(props.layerName, LT_PP_LAYER), "layer name \"%s\"", props.layerName);
	PFN_vkEnumerateInstanceExtensionProperties enum_exts =
		(PFN_vkEnumerateInstanceExtensionProperties)dlsym(lib, "vkEnumerateInstanceExtensionProperties");
	n = 99;
	CHECK(enum_exts && enum_exts(LT_PP_LAYER, &n, NULL) == VK_SUCCESS && n == 0);
	CHECK(enum_exts && enum_exts("VK_LAYER_not_us", &n, NULL) == VK_ERROR_LAYER_NOT_PRESENT);

	/* Negotiation does not call down the chain or depend on state: it can be repeated. */
	v = fresh(2);
	CHECK(negotiate(&v) == VK_SUCCESS && v.loaderLayerInterfaceVersion == 2);

	dlclose(lib);
	return lt_finish();
}
