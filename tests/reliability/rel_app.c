/* rel_app: the Vulkan program of the reliability tests (tests/reliability, docs/reliability.md).
 *
 *   rel_app frames [--frames F] [--passes P] [--draws D] [--end destroy|exit|quick-destroy]
 *                  [--exit-thread-after N] [--app-query-pool] [--frame-ms MS] [--term-handler]
 *   rel_app stress [--recorders R] [--cbs C] [--passes P] [--submitters S]
 *                  [--churn K] [--churn-iterations N]
 *
 * frames: F frames (0 = until killed), each one command buffer of P passes labelled
 * "pass<i>" with D draws each, submitted with a fence that is waited for before the next
 * frame. Every vkQueueSubmit result is printed ("submit <n> <VkResult>"); a failed submit ends
 * the loop (the application handles it: exit status 0). --end: how the program ends after
 * the loop: destroy (wait idle, destroy everything), exit (exit(0) with the device alive),
 * quick-destroy (destroy the pool and the device right after the last fence wait, nothing
 * in between). --exit-thread-after N: a second thread calls exit(0) once N frames were
 * submitted, while the main thread goes on submitting. --app-query-pool: the program creates a
 * timestamp query pool of its own first and prints the result ("app vkCreateQueryPool <r>").
 * --frame-ms: sleep that long after each frame (so that outputs are flushed during the run).
 * --term-handler: a SIGTERM handler of the program's own, installed before Vulkan starts, ends
 * the frame loop (then the --end path as usual): passprobe must leave it alone.
 *
 * stress: R recorder threads each record C command buffers of P passes (label
 * "t<thread>.c<cb>.p<pass>", stress_draws() draws each) and hand them to S submitter threads,
 * which submit them one by one on the same queue under an application mutex, each with its
 * own fence, and wait; meanwhile K threads create and destroy an instance and a device N
 * times each. Prints one line and exits 0 when all command buffers completed.
 *
 * Environment: REL_APP_LAYERS=A:B enables those layers in vkCreateInstance (for a set-uid run,
 * where the loader ignores VK_INSTANCE_LAYERS); REL_APP_SHOW_SECURE=1 prints
 * "AT_SECURE <n>" first.
 *
 * Exit 0 on success; a setup failure prints one line on stderr and exits 1. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define APP "rel_app"
#include "pp_test_vk.h"
#define TARGET_SIZE 16

static const uint32_t tri_vert[] =
#include "tri.vert.inc"
	;
static const uint32_t solid_frag[] =
#include "solid.frag.inc"
	;

/* ---- one device with a render target and a pipeline ---------------------------------- */

struct gpu {
	VkInstance instance;
	VkPhysicalDevice pd;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT end_label;
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	VkRenderPass render_pass;
	VkFramebuffer framebuffer;
	VkPipelineLayout layout;
	VkPipeline pipeline;
};

static void instance_create(struct gpu *g)
{
	const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = APP,
		.apiVersion = VK_API_VERSION_1_3,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = exts,
	};
	/* REL_APP_LAYERS: layers the program enables itself (a set-uid run, where the loader
	 * ignores VK_INSTANCE_LAYERS). */
	const char *layers[4];
	char buf[512];
	const char *env = getenv("REL_APP_LAYERS");
	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s", env);
		for (char *save = NULL, *tok = strtok_r(buf, ":", &save); tok && info.enabledLayerCount < 4;
		     tok = strtok_r(NULL, ":", &save))
			layers[info.enabledLayerCount++] = tok;
		info.ppEnabledLayerNames = layers;
	}
	VK_CHECK(vkCreateInstance(&info, NULL, &g->instance));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(g->instance, &n, &g->pd);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
		die("no Vulkan physical device (VkResult %d)", r);
}

static void device_create(struct gpu *g)
{
	uint32_t n = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(g->pd, &n, NULL);
	VkQueueFamilyProperties props[16];
	if (n > 16)
		n = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(g->pd, &n, props);
	g->family = UINT32_MAX;
	for (uint32_t i = 0; i < n && g->family == UINT32_MAX; i++)
		if (props[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			g->family = i;
	if (g->family == UINT32_MAX)
		die("no graphics queue family");
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = g->family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &q,
	};
	VK_CHECK(vkCreateDevice(g->pd, &info, NULL, &g->device));
	vkGetDeviceQueue(g->device, g->family, 0, &g->queue);
	g->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetDeviceProcAddr(g->device, "vkCmdBeginDebugUtilsLabelEXT");
	g->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetDeviceProcAddr(g->device, "vkCmdEndDebugUtilsLabelEXT");
	if (!g->begin_label || !g->end_label)
		die("VK_EXT_debug_utils command functions missing");
}

static void target_create(struct gpu *g)
{
	VkImageCreateInfo ii = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { TARGET_SIZE, TARGET_SIZE, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(g->pd, &mp);
	pp_test_vk_image_create(g->device, &mp, &ii, &g->image, &g->memory);
	VK_CHECK(pp_test_vk_color_view(g->device, g->image, ii.format, &g->view));
	/* Every pass clears and draws into the same image; the external dependency orders each
	 * render pass instance after the previous one's attachment writes on the queue. */
	VK_CHECK(pp_test_vk_color_pass(g->device, ii.format, VK_IMAGE_LAYOUT_UNDEFINED, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				  &g->render_pass));
	VK_CHECK(pp_test_vk_framebuffer(g->device, g->render_pass, g->view, TARGET_SIZE, TARGET_SIZE, &g->framebuffer));

	VkShaderModule vs = pp_test_vk_shader_module(g->device, tri_vert, sizeof(tri_vert));
	VkShaderModule fs = pp_test_vk_shader_module(g->device, solid_frag, sizeof(solid_frag));
	VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
		  .module = vs, .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
		  .module = fs, .pName = "main" },
	};
	VkPipelineVertexInputStateCreateInfo vin = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	VkViewport viewport = { 0, 0, TARGET_SIZE, TARGET_SIZE, 0, 1 };
	VkRect2D scissor = { { 0, 0 }, { TARGET_SIZE, TARGET_SIZE } };
	VkPipelineViewportStateCreateInfo vp = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.pViewports = &viewport,
		.scissorCount = 1,
		.pScissors = &scissor,
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
	VkPipelineColorBlendStateCreateInfo cb = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend,
	};
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VK_CHECK(vkCreatePipelineLayout(g->device, &li, NULL, &g->layout));
	VkGraphicsPipelineCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vin,
		.pInputAssemblyState = &ia,
		.pViewportState = &vp,
		.pRasterizationState = &rs,
		.pMultisampleState = &ms,
		.pColorBlendState = &cb,
		.layout = g->layout,
		.renderPass = g->render_pass,
	};
	VK_CHECK(vkCreateGraphicsPipelines(g->device, VK_NULL_HANDLE, 1, &pi, NULL, &g->pipeline));
	vkDestroyShaderModule(g->device, vs, NULL);
	vkDestroyShaderModule(g->device, fs, NULL);
}

static void gpu_destroy(struct gpu *g)
{
	vkDestroyPipeline(g->device, g->pipeline, NULL);
	vkDestroyPipelineLayout(g->device, g->layout, NULL);
	vkDestroyFramebuffer(g->device, g->framebuffer, NULL);
	vkDestroyRenderPass(g->device, g->render_pass, NULL);
	vkDestroyImageView(g->device, g->view, NULL);
	vkDestroyImage(g->device, g->image, NULL);
	vkFreeMemory(g->device, g->memory, NULL);
	vkDestroyDevice(g->device, NULL);
	vkDestroyInstance(g->instance, NULL);
}

/* One labelled render pass of `draws` draws. */
static void pass_record(struct gpu *g, VkCommandBuffer cb, const char *label, uint32_t draws)
{
	VkDebugUtilsLabelEXT l = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = label };
	VkClearValue clear = { .color = { .float32 = { 0, 0, 0, 1 } } };
	VkRenderPassBeginInfo rb = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = g->render_pass,
		.framebuffer = g->framebuffer,
		.renderArea = { { 0, 0 }, { TARGET_SIZE, TARGET_SIZE } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	g->begin_label(cb, &l);
	vkCmdBeginRenderPass(cb, &rb, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, g->pipeline);
	for (uint32_t d = 0; d < draws; d++)
		vkCmdDraw(cb, 3, 1, 0, 0);
	vkCmdEndRenderPass(cb);
	g->end_label(cb);
}

static VkCommandPool pool_create(struct gpu *g)
{
	VkCommandPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = g->family,
	};
	VkCommandPool pool;
	VK_CHECK(vkCreateCommandPool(g->device, &info, NULL, &pool));
	return pool;
}

static VkFence fence_create(struct gpu *g)
{
	VkFenceCreateInfo info = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence f;
	VK_CHECK(vkCreateFence(g->device, &info, NULL, &f));
	return f;
}

/* ---- options ---------------------------------------------------------------------------- */

struct options {
	uint32_t frames, passes, draws;
	const char *end;
	uint32_t exit_thread_after;
	uint32_t frame_ms;
	bool app_query_pool, term_handler;
	uint32_t recorders, cbs, submitters, churn, churn_iterations;
};

static uint32_t parse_uint(const char *opt, const char *s, uint32_t max)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v > max)
		die("%s %s: expected an integer from 0 to %u", opt, s, max);
	return (uint32_t)v;
}

static void options_parse(struct options *o, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--app-query-pool")) {
			o->app_query_pool = true;
			continue;
		}
		if (!strcmp(a, "--term-handler")) {
			o->term_handler = true;
			continue;
		}
		if (i + 1 >= argc)
			die("%s: missing value", a);
		const char *v = argv[++i];
		if (!strcmp(a, "--frames"))
			o->frames = parse_uint(a, v, 10000000);
		else if (!strcmp(a, "--passes"))
			o->passes = parse_uint(a, v, 1000);
		else if (!strcmp(a, "--draws"))
			o->draws = parse_uint(a, v, 100000);
		else if (!strcmp(a, "--end"))
			o->end = v;
		else if (!strcmp(a, "--frame-ms"))
			o->frame_ms = parse_uint(a, v, 10000);
		else if (!strcmp(a, "--exit-thread-after"))
			o->exit_thread_after = parse_uint(a, v, 10000000);
		else if (!strcmp(a, "--recorders"))
			o->recorders = parse_uint(a, v, 64);
		else if (!strcmp(a, "--cbs"))
			o->cbs = parse_uint(a, v, 100000);
		else if (!strcmp(a, "--submitters"))
			o->submitters = parse_uint(a, v, 64);
		else if (!strcmp(a, "--churn"))
			o->churn = parse_uint(a, v, 64);
		else if (!strcmp(a, "--churn-iterations"))
			o->churn_iterations = parse_uint(a, v, 100000);
		else
			die("unknown option %s", a);
	}
	if (strcmp(o->end, "destroy") && strcmp(o->end, "exit") && strcmp(o->end, "quick-destroy"))
		die("--end %s: expected destroy, exit or quick-destroy", o->end);
}

/* ---- frames ----------------------------------------------------------------------------- */

static uint32_t g_submitted; /* atomic: frames submitted so far */
static volatile sig_atomic_t g_term; /* --term-handler: SIGTERM arrived */

static void on_term(int sig)
{
	(void)sig;
	g_term = 1;
}
static uint32_t g_exit_after;

static void *exit_thread_main(void *arg)
{
	(void)arg;
	struct timespec ts = { 0, 1000000 };
	while (__atomic_load_n(&g_submitted, __ATOMIC_ACQUIRE) < g_exit_after)
		nanosleep(&ts, NULL);
	printf("exit from another thread after %u frames\n", __atomic_load_n(&g_submitted, __ATOMIC_ACQUIRE));
	fflush(stdout);
	exit(0);
}

static int run_frames(const struct options *o)
{
	struct gpu g = { 0 };
	if (getenv("REL_APP_SHOW_SECURE")) /* the set-uid test: is this process in secure mode? */
		printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
	if (o->term_handler) {
		struct sigaction sa = { .sa_handler = on_term };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
	}
	instance_create(&g);
	device_create(&g);
	if (o->app_query_pool) {
		VkQueryPoolCreateInfo qi = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.queryType = VK_QUERY_TYPE_TIMESTAMP,
			.queryCount = 2,
		};
		VkQueryPool qp = VK_NULL_HANDLE;
		VkResult r = vkCreateQueryPool(g.device, &qi, NULL, &qp);
		printf("app vkCreateQueryPool %d\n", r);
		if (r == VK_SUCCESS)
			vkDestroyQueryPool(g.device, qp, NULL);
	}
	target_create(&g);
	VkCommandPool pool = pool_create(&g);
	VkFence fence = fence_create(&g);
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cb;
	VK_CHECK(vkAllocateCommandBuffers(g.device, &ai, &cb));

	if (o->exit_thread_after) {
		pthread_t t;
		g_exit_after = o->exit_thread_after;
		if (pthread_create(&t, NULL, exit_thread_main, NULL))
			die("pthread_create failed");
	}

	uint32_t frames = 0;
	bool failed = false;
	for (uint32_t f = 0; (!o->frames || f < o->frames) && !failed && !g_term; f++) {
		VK_CHECK(vkResetCommandBuffer(cb, 0));
		VkCommandBufferBeginInfo bi = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
			.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
		};
		VK_CHECK(vkBeginCommandBuffer(cb, &bi));
		for (uint32_t p = 0; p < o->passes; p++) {
			char label[32];
			snprintf(label, sizeof(label), "pass%u", p);
			pass_record(&g, cb, label, o->draws);
		}
		VK_CHECK(vkEndCommandBuffer(cb));
		VkSubmitInfo si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &cb,
		};
		VkResult r = vkQueueSubmit(g.queue, 1, &si, fence);
		printf("submit %u %d\n", f + 1, r);
		if (r < 0) {
			failed = true;
			break;
		}
		frames++;
		__atomic_store_n(&g_submitted, frames, __ATOMIC_RELEASE);
		r = vkWaitForFences(g.device, 1, &fence, VK_TRUE, UINT64_MAX);
		if (r < 0) {
			printf("wait %u %d\n", f + 1, r);
			failed = true;
			break;
		}
		VK_CHECK(vkResetFences(g.device, 1, &fence));
		if (o->frame_ms) {
			struct timespec ts = { o->frame_ms / 1000, (long)(o->frame_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	printf("frames %u%s\n", frames, g_term ? " (SIGTERM)" : "");
	fflush(stdout);

	if (!strcmp(o->end, "exit"))
		exit(0); /* with the instance, device and every object alive */
	if (!strcmp(o->end, "quick-destroy")) {
		/* The valid edge of "work in flight": the fence said the work completed; nothing
		 * else happens between that wait and the destruction. */
		vkDestroyCommandPool(g.device, pool, NULL);
		vkDestroyFence(g.device, fence, NULL);
		gpu_destroy(&g);
		return 0;
	}
	VkResult r = vkDeviceWaitIdle(g.device);
	if (r < 0)
		printf("vkDeviceWaitIdle %d\n", r);
	vkDestroyCommandPool(g.device, pool, NULL);
	vkDestroyFence(g.device, fence, NULL);
	gpu_destroy(&g);
	return 0;
}

/* ---- stress ----------------------------------------------------------------------------- */

/* Draws of pass p of command buffer c of recorder t: 1 to 4, different for neighbours, so a
 * pass whose workload was charged to another shows up (tests/reliability/rel_check.py). */
static uint32_t stress_draws(uint32_t t, uint32_t c, uint32_t p)
{
	return 1 + (t * 3 + c * 5 + p) % 4;
}

struct work {
	VkCommandBuffer cb;
	VkFence fence;
	uint32_t done; /* atomic */
};

struct stress {
	const struct options *o;
	struct gpu g;
	pthread_mutex_t queue_lock; /* the application's lock around vkQueueSubmit */

	pthread_mutex_t lock; /* the hand-over list below */
	pthread_cond_t cond;
	struct work **ready;
	uint32_t nready, cap, nrecorders_done, ntaken, total;
	uint32_t failures; /* atomic */
};

struct recorder {
	struct stress *s;
	uint32_t index;
	pthread_t thread;
};

static void *recorder_main(void *arg)
{
	struct recorder *r = arg;
	struct stress *s = r->s;
	const struct options *o = s->o;
	VkCommandPool pool = pool_create(&s->g);
	VkCommandBuffer *cbs = calloc(o->cbs, sizeof(*cbs));
	struct work *works = calloc(o->cbs, sizeof(*works));
	if (!cbs || !works)
		die("out of memory");
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = o->cbs,
	};
	VK_CHECK(vkAllocateCommandBuffers(s->g.device, &ai, cbs));
	for (uint32_t c = 0; c < o->cbs; c++) {
		pp_test_vk_begin(cbs[c]);
		for (uint32_t p = 0; p < o->passes; p++) {
			char label[48];
			snprintf(label, sizeof(label), "t%u.c%u.p%u", r->index, c, p);
			pass_record(&s->g, cbs[c], label, stress_draws(r->index, c, p));
		}
		VK_CHECK(vkEndCommandBuffer(cbs[c]));
		works[c].cb = cbs[c];
		works[c].fence = fence_create(&s->g);
		pthread_mutex_lock(&s->lock);
		s->ready[s->nready++] = &works[c];
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
	/* Command buffers and the pool stay until their work completed. */
	for (uint32_t c = 0; c < o->cbs; c++) {
		struct timespec ts = { 0, 200000 };
		while (!__atomic_load_n(&works[c].done, __ATOMIC_ACQUIRE))
			nanosleep(&ts, NULL);
		vkDestroyFence(s->g.device, works[c].fence, NULL);
	}
	vkFreeCommandBuffers(s->g.device, pool, o->cbs, cbs);
	vkDestroyCommandPool(s->g.device, pool, NULL);
	free(cbs);
	free(works);
	return NULL;
}

static void *submitter_main(void *arg)
{
	struct stress *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (s->ntaken == s->nready && s->ntaken < s->total)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->ntaken == s->total) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		struct work *w = s->ready[s->ntaken++];
		pthread_mutex_unlock(&s->lock);

		VkSubmitInfo si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &w->cb,
		};
		pthread_mutex_lock(&s->queue_lock);
		VkResult r = vkQueueSubmit(s->g.queue, 1, &si, w->fence);
		pthread_mutex_unlock(&s->queue_lock);
		if (r == VK_SUCCESS)
			r = vkWaitForFences(s->g.device, 1, &w->fence, VK_TRUE, UINT64_MAX);
		if (r != VK_SUCCESS) {
			fprintf(stderr, APP ": stress: submit or wait failed: VkResult %d\n", r);
			__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	}
}

/* Instances and devices that come and go while the others work: the layer's instance and
 * device tables change under the recorders' and submitters' lookups. */
static void *churn_main(void *arg)
{
	struct stress *s = arg;
	for (uint32_t i = 0; i < s->o->churn_iterations; i++) {
		struct gpu g = { 0 };
		instance_create(&g);
		device_create(&g);
		VkCommandPool pool = pool_create(&g);
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		VkCommandBuffer cb;
		VK_CHECK(vkAllocateCommandBuffers(g.device, &ai, &cb));
		pp_test_vk_begin(cb);
		VkDebugUtilsLabelEXT l = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = "churn" };
		g.begin_label(cb, &l);
		g.end_label(cb);
		VK_CHECK(vkEndCommandBuffer(cb));
		vkDestroyCommandPool(g.device, pool, NULL); /* frees cb, never submitted */
		vkDestroyDevice(g.device, NULL);
		vkDestroyInstance(g.instance, NULL);
	}
	return NULL;
}

static int run_stress(const struct options *o)
{
	struct stress *s = calloc(1, sizeof(*s));
	if (!s)
		die("out of memory");
	s->o = o;
	instance_create(&s->g);
	device_create(&s->g);
	target_create(&s->g);
	pthread_mutex_init(&s->queue_lock, NULL);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->total = o->recorders * o->cbs;
	s->ready = calloc(s->total ? s->total : 1, sizeof(*s->ready));
	struct recorder *rec = calloc(o->recorders ? o->recorders : 1, sizeof(*rec));
	pthread_t *sub = calloc(o->submitters ? o->submitters : 1, sizeof(*sub));
	pthread_t *churn = calloc(o->churn ? o->churn : 1, sizeof(*churn));
	if (!s->ready || !rec || !sub || !churn)
		die("out of memory");

	for (uint32_t i = 0; i < o->churn; i++)
		if (pthread_create(&churn[i], NULL, churn_main, s))
			die("pthread_create failed");
	for (uint32_t i = 0; i < o->submitters; i++)
		if (pthread_create(&sub[i], NULL, submitter_main, s))
			die("pthread_create failed");
	for (uint32_t i = 0; i < o->recorders; i++) {
		rec[i] = (struct recorder){ .s = s, .index = i };
		if (pthread_create(&rec[i].thread, NULL, recorder_main, &rec[i]))
			die("pthread_create failed");
	}
	for (uint32_t i = 0; i < o->recorders; i++)
		pthread_join(rec[i].thread, NULL);
	for (uint32_t i = 0; i < o->submitters; i++)
		pthread_join(sub[i], NULL);
	for (uint32_t i = 0; i < o->churn; i++)
		pthread_join(churn[i], NULL);

	uint32_t failures = __atomic_load_n(&s->failures, __ATOMIC_RELAXED);
	VK_CHECK(vkDeviceWaitIdle(s->g.device));
	gpu_destroy(&s->g);
	printf("stress: %u recorders x %u command buffers x %u passes, %u submitters, %u churn threads x %u "
	       "instances and devices; %u failures\n",
	       o->recorders, o->cbs, o->passes, o->submitters, o->churn, o->churn_iterations, failures);
	free(s->ready);
	free(rec);
	free(sub);
	free(churn);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->queue_lock);
	free(s);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct options o = {
		.frames = 4, .passes = 3, .draws = 2, .end = "destroy",
		.recorders = 4, .cbs = 50, .submitters = 2, .churn = 2, .churn_iterations = 5,
	};
	if (argc < 2)
		die("usage: rel_app frames|stress [options] (see rel_app.c)");
	if (!strcmp(argv[1], "stress")) {
		o.passes = 20;
		options_parse(&o, argc, argv, 2);
		return run_stress(&o);
	}
	if (!strcmp(argv[1], "frames")) {
		options_parse(&o, argc, argv, 2);
		return run_frames(&o);
	}
	die("unknown scenario %s", argv[1]);
}
