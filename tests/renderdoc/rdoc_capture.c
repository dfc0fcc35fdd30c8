/* rdoc_capture: an LD_PRELOAD library that makes RenderDoc capture one frame of a program that
 * knows nothing of RenderDoc, through RenderDoc's in-application API, and says which frame it
 * was, so that a test can find that frame in passprobe's report.json.
 *
 *   PP_RDOC_PRESENT=N  (programs that present) TriggerCapture at the N-th vkQueuePresentKHR:
 *                      RenderDoc captures the frame between presents N and N+1.
 *   PP_RDOC_SUBMIT=N   (headless programs, one fence-signalling submit a frame)
 *                      StartFrameCapture once submit N-1 has returned (before the first
 *                      submit when N is 1) and EndFrameCapture once submit N has returned, so
 *                      the capture holds that frame's recording, waits and submit.
 *   PP_RDOC_CAPTURE    the capture path template (RenderDoc appends _frame<N>.rdc).
 *   PP_RDOC_INFO       where to write, once the capture is written, one line of JSON:
 *                      {"path": ..., "timestamp": ..., "after_ns": ..., "before_ns": ...}:
 *                      RenderDoc's path and timestamp (unix seconds) of the capture, and a
 *                      CLOCK_MONOTONIC interval (passprobe's clock) that holds the captured
 *                      frame's application submits and nothing of the frames around it.
 *
 * RenderDoc's in-application overlay is turned off at the first present or submit: drawn with
 * a render pass and a submit of its own into every presented image, it would be work of the
 * application's to passprobe below RenderDoc. Vulkan entry points are interposed by name
 * (programs linked to the loader) and through vkGet*ProcAddr (programs that fetch them). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

/* RENDERDOC_API_1_0_0 (renderdoc_app.h): a table of function pointers; the indices used. */
enum {
	RDOC_API_1_0_0 = 10000,
	RDOC_MASK_OVERLAY_BITS = 8,
	RDOC_SET_CAPTURE_PATH = 11,
	RDOC_GET_NUM_CAPTURES = 13,
	RDOC_GET_CAPTURE = 14,
	RDOC_TRIGGER_CAPTURE = 15,
	RDOC_START_FRAME_CAPTURE = 19,
	RDOC_END_FRAME_CAPTURE = 21,
};
typedef int (*rdoc_get_api_fn)(int version, void **out);

#define EXPORT __attribute__((visibility("default")))
EXPORT PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *name);
EXPORT PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *name);
EXPORT VkResult vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits, VkFence fence);
EXPORT VkResult vkQueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits, VkFence fence);
EXPORT VkResult vkQueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);

static PFN_vkQueuePresentKHR real_present;
static PFN_vkQueueSubmit real_submit;
static PFN_vkQueueSubmit2 real_submit2;
static int presents, submits, started;
static unsigned long long after_ns, before_ns;

static unsigned long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int env_int(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : 0;
}

static void **rdoc_api(void)
{
	static void **api;
	static int said;
	if (api)
		return api;
	void *lib = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
	rdoc_get_api_fn get = lib ? (rdoc_get_api_fn)dlsym(lib, "RENDERDOC_GetAPI") : NULL;
	if (!get || !get(RDOC_API_1_0_0, (void **)&api) || !api) {
		api = NULL;
		if (!said++)
			fprintf(stderr, "rdoc_capture: RenderDoc is not loaded in this process; no capture\n");
	}
	return api;
}

static void rdoc_first_call(void)
{
	static int done;
	void **api = rdoc_api();
	if (done++ || !api)
		return;
	((void (*)(uint32_t, uint32_t))api[RDOC_MASK_OVERLAY_BITS])(0, 0);
	const char *path = getenv("PP_RDOC_CAPTURE");
	if (path && *path)
		((void (*)(const char *))api[RDOC_SET_CAPTURE_PATH])(path);
}

/* Writes PP_RDOC_INFO from RenderDoc's newest capture. */
static void rdoc_info_write(void)
{
	void **api = rdoc_api();
	const char *out = getenv("PP_RDOC_INFO");
	if (!api)
		return;
	uint32_t n = ((uint32_t (*)(void))api[RDOC_GET_NUM_CAPTURES])();
	char path[4096] = "";
	uint32_t len = sizeof(path);
	uint64_t timestamp = 0;
	if (!n || !((uint32_t (*)(uint32_t, char *, uint32_t *, uint64_t *))api[RDOC_GET_CAPTURE])(
			  n - 1, path, &len, &timestamp)) {
		fprintf(stderr, "rdoc_capture: RenderDoc wrote no capture\n");
		return;
	}
	fprintf(stderr, "rdoc_capture: captured %s\n", path);
	FILE *f = out && *out ? fopen(out, "w") : NULL;
	if (!f)
		return;
	fputs("{\"path\": \"", f);
	for (const char *p = path; *p; p++)
		fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
	fprintf(f, "\", \"timestamp\": %llu, \"after_ns\": %llu, \"before_ns\": %llu}\n",
		(unsigned long long)timestamp, after_ns, before_ns);
	fclose(f);
}

static void submit_before(void)
{
	int at = env_int("PP_RDOC_SUBMIT");
	rdoc_first_call();
	if (at > 0 && submits + 1 == at && !started) {
		void **api = rdoc_api();
		if (api) {
			((void (*)(void *, void *))api[RDOC_START_FRAME_CAPTURE])(NULL, NULL);
			started = 1;
		}
		after_ns = mono_ns();
	}
}

static void submit_after(void)
{
	int at = env_int("PP_RDOC_SUBMIT");
	if (at > 0 && ++submits == at) {
		before_ns = mono_ns();
		void **api = rdoc_api();
		if (api && started) {
			((uint32_t (*)(void *, void *))api[RDOC_END_FRAME_CAPTURE])(NULL, NULL);
			rdoc_info_write();
		}
	} else if (at > 1 && submits == at - 1) {
		/* Start here, so the capture holds frame N's recording and waits too. */
		void **api = rdoc_api();
		if (api) {
			((void (*)(void *, void *))api[RDOC_START_FRAME_CAPTURE])(NULL, NULL);
			started = 1;
		}
		after_ns = mono_ns();
	}
}

static VkResult rdoc_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits_, VkFence fence)
{
	submit_before();
	VkResult r = real_submit(queue, count, submits_, fence);
	submit_after();
	return r;
}

static VkResult rdoc_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits_, VkFence fence)
{
	submit_before();
	VkResult r = real_submit2(queue, count, submits_, fence);
	submit_after();
	return r;
}

static VkResult rdoc_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	int at = env_int("PP_RDOC_PRESENT");
	rdoc_first_call();
	++presents;
	if (at > 0 && presents == at) {
		/* Before the present: RenderDoc starts capturing when this present goes through it. */
		after_ns = mono_ns();
		void **api = rdoc_api();
		if (api)
			((void (*)(void))api[RDOC_TRIGGER_CAPTURE])();
	} else if (at > 0 && presents == at + 1) {
		before_ns = mono_ns();
	}
	VkResult r = real_present(queue, info);
	if (at > 0 && presents == at + 1)
		rdoc_info_write();
	return r;
}

/* The loader's exports, for programs linked to it. */
static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

VkResult vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits_, VkFence fence)
{
	if (!real_submit)
		real_submit = (PFN_vkQueueSubmit)next_sym("vkQueueSubmit");
	return rdoc_QueueSubmit(queue, count, submits_, fence);
}

VkResult vkQueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits_, VkFence fence)
{
	if (!real_submit2)
		real_submit2 = (PFN_vkQueueSubmit2)next_sym("vkQueueSubmit2");
	return rdoc_QueueSubmit2(queue, count, submits_, fence);
}

VkResult vkQueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	if (!real_present)
		real_present = (PFN_vkQueuePresentKHR)next_sym("vkQueuePresentKHR");
	return rdoc_QueuePresentKHR(queue, info);
}

static PFN_vkVoidFunction wrap(const char *name, PFN_vkVoidFunction f)
{
	if (!f)
		return NULL;
	if (!strcmp(name, "vkQueuePresentKHR")) {
		real_present = (PFN_vkQueuePresentKHR)f;
		return (PFN_vkVoidFunction)rdoc_QueuePresentKHR;
	}
	if (!strcmp(name, "vkQueueSubmit")) {
		real_submit = (PFN_vkQueueSubmit)f;
		return (PFN_vkVoidFunction)rdoc_QueueSubmit;
	}
	if (!strcmp(name, "vkQueueSubmit2") || !strcmp(name, "vkQueueSubmit2KHR")) {
		real_submit2 = (PFN_vkQueueSubmit2)f;
		return (PFN_vkVoidFunction)rdoc_QueueSubmit2;
	}
	return f;
}

PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *name)
{
	static PFN_vkGetDeviceProcAddr next;
	if (!next)
		next = (PFN_vkGetDeviceProcAddr)next_sym("vkGetDeviceProcAddr");
	return wrap(name, next(device, name));
}

PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
	static PFN_vkGetInstanceProcAddr next;
	if (!next)
		next = (PFN_vkGetInstanceProcAddr)next_sym("vkGetInstanceProcAddr");
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	return wrap(name, next(instance, name));
}
