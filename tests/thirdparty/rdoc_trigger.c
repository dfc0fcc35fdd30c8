/* rdoc_trigger: an LD_PRELOAD library that makes RenderDoc take a capture of a program that
 * knows nothing of RenderDoc (vkcube), through RenderDoc's in-application API: at the
 * program's PP_RDOC_TRIGGER_AT-th vkQueuePresentKHR (default 3) it sets the capture path
 * template to PP_RDOC_CAPTURE (when given) and calls TriggerCapture, so RenderDoc captures the
 * next frame. At the first present it turns RenderDoc's in-application overlay off: drawn
 * with a render pass and a submit of its own into every presented image, with a text (and a
 * draw count) that changes once a capture is taken, it would be work of varying shape in
 * every frame to the layers below RenderDoc. The program reaches vkQueuePresentKHR through vkGetDeviceProcAddr, which it
 * gets from vkGetInstanceProcAddr, so both are interposed here; an OpenGL ES program's
 * eglSwapBuffers too. One line on stderr says what happened (docs/testing-integration.md,
 * *Real programs*). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

/* RENDERDOC_API_1_0_0 (renderdoc_app.h): a table of function pointers; the indices used. */
enum { RDOC_API_1_0_0 = 10000, RDOC_MASK_OVERLAY_BITS = 8, RDOC_SET_CAPTURE_PATH = 11, RDOC_TRIGGER_CAPTURE = 15 };
typedef int (*rdoc_get_api_fn)(int version, void **out);

__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *name);
__attribute__((visibility("default"))) PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *name);

static PFN_vkQueuePresentKHR real_present;
static int presents;

static void **rdoc_api(void)
{
	void *lib = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
	if (!lib)
		lib = dlopen("/usr/lib/librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
	rdoc_get_api_fn get = lib ? (rdoc_get_api_fn)dlsym(lib, "RENDERDOC_GetAPI") : NULL;
	void **api = NULL;
	if (!get || !get(RDOC_API_1_0_0, (void **)&api) || !api) {
		fprintf(stderr, "rdoc_trigger: RenderDoc is not loaded in this process; no capture\n");
		return NULL;
	}
	return api;
}

static void rdoc_overlay_off(void)
{
	void **api = rdoc_api();
	if (api)
		((void (*)(uint32_t, uint32_t))api[RDOC_MASK_OVERLAY_BITS])(0, 0);
}

static void rdoc_trigger(void)
{
	void **api = rdoc_api();
	if (!api)
		return;
	const char *path = getenv("PP_RDOC_CAPTURE");
	if (path && *path)
		((void (*)(const char *))api[RDOC_SET_CAPTURE_PATH])(path);
	((void (*)(void))api[RDOC_TRIGGER_CAPTURE])();
	fprintf(stderr, "rdoc_trigger: capture triggered at present %d\n", presents);
}

static VKAPI_ATTR VkResult VKAPI_CALL rdoc_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	const char *at = getenv("PP_RDOC_TRIGGER_AT");
	if (++presents == 1)
		rdoc_overlay_off();
	if (presents == (at ? atoi(at) : 3))
		rdoc_trigger();
	return real_present(queue, info);
}

PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *name)
{
	static PFN_vkGetDeviceProcAddr next;
	if (!next)
		next = (PFN_vkGetDeviceProcAddr)dlsym(RTLD_NEXT, "vkGetDeviceProcAddr");
	PFN_vkVoidFunction f = next(device, name);
	if (f && !strcmp(name, "vkQueuePresentKHR")) {
		real_present = (PFN_vkQueuePresentKHR)f;
		return (PFN_vkVoidFunction)rdoc_QueuePresentKHR;
	}
	return f;
}

PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
	static PFN_vkGetInstanceProcAddr next;
	if (!next)
		next = (PFN_vkGetInstanceProcAddr)dlsym(RTLD_NEXT, "vkGetInstanceProcAddr");
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	if (!strcmp(name, "vkQueuePresentKHR")) {
		PFN_vkVoidFunction f = next(instance, name);
		if (f)
			real_present = (PFN_vkQueuePresentKHR)f;
		return f ? (PFN_vkVoidFunction)rdoc_QueuePresentKHR : NULL;
	}
	return next(instance, name);
}

/* OpenGL ES programs: preloaded before the GLES shim and RenderDoc, this is the application's
 * eglSwapBuffers: the same trigger at its PP_RDOC_TRIGGER_AT-th swap, RenderDoc's overlay left
 * on (the shim marks it as RenderDoc's own work). */
__attribute__((visibility("default"))) unsigned eglSwapBuffers(void *dpy, void *surface);
unsigned eglSwapBuffers(void *dpy, void *surface)
{
	static unsigned (*next)(void *, void *);
	if (!next)
		next = (unsigned (*)(void *, void *))dlsym(RTLD_NEXT, "eglSwapBuffers");
	const char *at = getenv("PP_RDOC_TRIGGER_AT");
	if (++presents == (at ? atoi(at) : 3))
		rdoc_trigger();
	return next ? next(dpy, surface) : 0;
}
