/* pp_diagapp: a headless Vulkan 1.3 program whose cases are valid but performance-bad uses of
 * synchronization, each beside a well-behaved control, for passprobe's diagnostics tests
 * (tests/diagnostics, docs/diagnostics.md). Every case is clean under the Khronos validation
 * layer's core checks and synchronization validation.
 *
 *   pp_diagapp --case NAME [--frames N] [--barriers N] [--load N] [--variant conservative|narrow]
 *              [--report-callback]
 *
 * At exit it prints what reached its debug messenger, one line per message ID:
 *   message <severity> <ID> <count> <objects of the first> :: <text of the first>
 * then, for some cases, measurements (polls-max, frame-ms, app-barrier-ns), and finally
 *   done <case> <frames>
 * Exit 0 on success; on a Vulkan failure one line on stderr and exit 1. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define APP "pp_diagapp"
#include "pp_test_vk.h"

#define SIZE 64
#define SLOTS 2
#define COST_ROUNDS 8
#define MIP_LEVELS 4
#define RANGE_HI 128 /* v: [0, RANGE_HI) vertices, [RANGE_HI, 256) shader data */
#define REDUNDANT_MAX 64 /* passes per frame of the redundant case */

#define ST(x) VK_PIPELINE_STAGE_##x##_BIT
#define AC(x) VK_ACCESS_##x##_BIT
#define LY(x) VK_IMAGE_LAYOUT_##x

static const uint32_t fullscreen_vert[] =
#include "fullscreen.vert.inc"
	;
static const uint32_t solid_frag[] =
#include "solid.frag.inc"
	;
static const uint32_t sample_frag[] =
#include "sample.frag.inc"
	;
static const uint32_t sample_vs_vert[] =
#include "sample_vs.vert.inc"
	;
static const uint32_t sample_vs_frag[] =
#include "sample_vs.frag.inc"
	;
static const uint32_t vertex_vert[] =
#include "vertex.vert.inc"
	;
static const uint32_t storage_frag[] =
#include "storage.frag.inc"
	;
static const uint32_t chain_comp[] =
#include "chain.comp.inc"
	;
static const uint32_t input_frag[] =
#include "input.frag.inc"
	;

struct buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *map;
};

struct image {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
};

struct pipeline {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorSet set;
};

struct app {
	const char *kase;
	uint32_t frames, barriers, load;
	bool conservative, report_callback;

	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkDebugUtilsMessengerEXT messenger_info; /* information about performance (passprobe's, by severity) */
	VkDebugReportCallbackEXT report;
	VkPhysicalDevice physical;
	VkPhysicalDeviceMemoryProperties memory;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cbs[SLOTS];
	VkCommandBuffer cbs2[SLOTS]; /* the second command buffer of a submission (two-command-buffer cases) */
	VkFence fences[SLOTS];
	VkEvent events[SLOTS];
	VkQueryPool queries;    /* 2 per slot: the query cases */
	VkQueryPool cost_pool;  /* 2 * COST_ROUNDS per slot: app-side barrier timing */
	double timestamp_period;

	struct image a, b;      /* a: the G-buffer (pass A writes it, pass B reads it); b: pass B's target */
	VkSampler sampler;
	VkRenderPass rp_a, rp_b;
	VkFramebuffer fb_a, fb_b;
	struct buffer v, s, t1, t2, t3, t4;
	VkDescriptorPool descriptor_pool;
	struct pipeline solid;     /* pass A: writes a */
	struct pipeline sample;    /* pass B: a sampled in the fragment shader only */
	struct pipeline sample_vs; /* pass B: a sampled in the vertex and fragment shaders */
	struct pipeline vertices;  /* pass B: positions from the vertex buffer v */
	struct pipeline storage;   /* pass B: v read as a storage buffer in the fragment shader */
	struct pipeline chain;     /* compute: samples a, writes v */

	/* the subpass cases: subpass 0 writes in0, subpass 1 reads it as an input attachment and
	 * writes b */
	struct image in0;
	VkRenderPass rp_sub;
	VkFramebuffer fb_sub;
	bool rp_sub_v2;
	struct pipeline sub0, sub1;

	/* the range cases: mip is a MIP_LEVELS-level texture (mip_view: all levels) sampled by
	 * pass B; storage_hi / chain_hi name v from RANGE_HI on (the upper half), storage_lo
	 * [0, RANGE_HI) */
	struct image mip;
	VkDescriptorSet sample_mip, storage_lo, storage_hi, chain_hi, storage_s;

	/* the timeline semaphore cases: frame f signals timeline = f + 1 */
	VkSemaphore timeline, host_timeline;
	PFN_vkWaitSemaphores wait_semaphores;

	/* the redundant case: --barriers passes per frame, each into a target of its own */
	struct image targets[REDUNDANT_MAX];
	VkFramebuffer target_fbs[REDUNDANT_MAX];
	uint32_t ntargets;

	uint32_t polls_max;
	uint64_t app_barrier_ns, app_barrier_n;
	uint64_t record_ns_total; /* vkBeginCommandBuffer .. vkEndCommandBuffer: the CPU cost of recording */
	uint64_t submit_ns_total;
};

/* ---- what reaches the messengers --------------------------------------------------------- */

#define MAX_IDS 64
struct seen {
	char id[96];
	const char *severity;
	uint32_t count;
	uint32_t objects;
	char first[400];
};
static struct seen g_seen[MAX_IDS];
static uint32_t g_nseen;
static uint32_t g_report_callbacks;

static void seen_add(const char *severity, const char *id, const char *text, uint32_t objects)
{
	for (uint32_t i = 0; i < g_nseen; i++)
		if (!strcmp(g_seen[i].id, id) && g_seen[i].severity == severity) {
			g_seen[i].count++;
			return;
		}
	if (g_nseen == MAX_IDS)
		return;
	struct seen *s = &g_seen[g_nseen++];
	snprintf(s->id, sizeof(s->id), "%s", id);
	s->severity = severity;
	s->count = 1;
	s->objects = objects;
	snprintf(s->first, sizeof(s->first), "%s", text ? text : "");
	for (char *p = s->first; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
						 VkDebugUtilsMessageTypeFlagsEXT types,
						 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)types;
	(void)user;
	const char *sev = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT     ? "error"
			  : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ? "warning"
											: "info";
	seen_add(sev, data->pMessageIdName ? data->pMessageIdName : "(no id)", data->pMessage, data->objectCount);
	return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_report(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
						uint64_t object, size_t location, int32_t code, const char *prefix,
						const char *message, void *user)
{
	(void)type;
	(void)object;
	(void)location;
	(void)code;
	(void)user;
	if ((flags & VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT) && prefix && !strcmp(prefix, "passprobe") &&
	    !strncmp(message, "PASSPROBE-", 10))
		g_report_callbacks++;
	return VK_FALSE;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void instance_create(struct app *a)
{
	const char *exts[2] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_DEBUG_REPORT_EXTENSION_NAME };
	const VkApplicationInfo info = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = APP,
		.apiVersion = VK_API_VERSION_1_3,
	};
	const VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &info,
		.enabledExtensionCount = a->report_callback ? 2 : 1,
		.ppEnabledExtensionNames = exts,
	};
	VK_CHECK(vkCreateInstance(&ci, NULL, &a->instance));
	PFN_vkCreateDebugUtilsMessengerEXT create =
		(PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
	if (!create)
		die("vkCreateDebugUtilsMessengerEXT missing");
	const VkDebugUtilsMessengerCreateInfoEXT mi = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
				   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VK_CHECK(create(a->instance, &mi, NULL, &a->messenger));
	/* passprobe sends findings with little to gain at information severity: a messenger of its
	 * own, so that the one above sees what it always saw. */
	const VkDebugUtilsMessengerCreateInfoEXT ii = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VK_CHECK(create(a->instance, &ii, NULL, &a->messenger_info));
	if (a->report_callback) {
		PFN_vkCreateDebugReportCallbackEXT create_report = (PFN_vkCreateDebugReportCallbackEXT)vkGetInstanceProcAddr(
			a->instance, "vkCreateDebugReportCallbackEXT");
		if (!create_report)
			die("vkCreateDebugReportCallbackEXT missing");
		const VkDebugReportCallbackCreateInfoEXT ri = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
			.flags = VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT,
			.pfnCallback = on_report,
		};
		VK_CHECK(create_report(a->instance, &ri, NULL, &a->report));
	}
}

static void device_create(struct app *a)
{
	uint32_t n = 8;
	VkPhysicalDevice devs[8];
	VK_CHECK(vkEnumeratePhysicalDevices(a->instance, &n, devs));
	a->family = UINT32_MAX;
	for (uint32_t d = 0; d < n && a->family == UINT32_MAX; d++) {
		VkPhysicalDeviceProperties props;
		vkGetPhysicalDeviceProperties(devs[d], &props);
		if (props.apiVersion < VK_API_VERSION_1_3)
			continue;
		uint32_t nf = 8;
		VkQueueFamilyProperties fam[8];
		vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nf, fam);
		for (uint32_t f = 0; f < nf; f++)
			if ((fam[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
				    (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT) &&
			    fam[f].timestampValidBits) {
				a->family = f;
				a->physical = devs[d];
				a->timestamp_period = props.limits.timestampPeriod;
				break;
			}
	}
	if (a->family == UINT32_MAX)
		die("no Vulkan 1.3 device with a graphics+compute queue with timestamps");
	vkGetPhysicalDeviceMemoryProperties(a->physical, &a->memory);
	VkPhysicalDeviceVulkan13Features f13 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
		.synchronization2 = VK_TRUE,
	};
	VkPhysicalDeviceVulkan12Features f12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.pNext = &f13,
		.hostQueryReset = VK_TRUE,
		.timelineSemaphore = VK_TRUE,
	};
	/* One case reaches the timeline functions through their VK_KHR_timeline_semaphore names. */
	const char *khr_timeline = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
	bool use_khr = !strcmp(a->kase, "semaphore-this-frame2");
	const float prio = 1.0f;
	const VkDeviceQueueCreateInfo q = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = a->family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	const VkDeviceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &f12,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &q,
		.enabledExtensionCount = use_khr ? 1 : 0,
		.ppEnabledExtensionNames = &khr_timeline,
	};
	VK_CHECK(vkCreateDevice(a->physical, &ci, NULL, &a->device));
	vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
	a->wait_semaphores = (PFN_vkWaitSemaphores)vkGetDeviceProcAddr(a->device, use_khr ? "vkWaitSemaphoresKHR"
												 : "vkWaitSemaphores");
	if (!a->wait_semaphores)
		die("vkWaitSemaphores%s missing", use_khr ? "KHR" : "");
	if (!strncmp(a->kase, "semaphore-", 10)) {
		VkSemaphoreTypeCreateInfo ti = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
			.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		};
		const VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti };
		VK_CHECK(vkCreateSemaphore(a->device, &si, NULL, &a->timeline));
		VK_CHECK(vkCreateSemaphore(a->device, &si, NULL, &a->host_timeline));
	}
	const VkCommandPoolCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = a->family,
	};
	VK_CHECK(vkCreateCommandPool(a->device, &pi, NULL, &a->pool));
	const VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = a->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = SLOTS,
	};
	VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, a->cbs));
	VK_CHECK(vkAllocateCommandBuffers(a->device, &ai, a->cbs2));
	for (uint32_t i = 0; i < SLOTS; i++) {
		const VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
		VK_CHECK(vkCreateFence(a->device, &fi, NULL, &a->fences[i]));
		const VkEventCreateInfo ei = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
		VK_CHECK(vkCreateEvent(a->device, &ei, NULL, &a->events[i]));
	}
	const VkQueryPoolCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 2 * SLOTS,
	};
	VK_CHECK(vkCreateQueryPool(a->device, &qi, NULL, &a->queries));
	VkQueryPoolCreateInfo ci2 = qi;
	ci2.queryCount = 2 * COST_ROUNDS * SLOTS;
	VK_CHECK(vkCreateQueryPool(a->device, &ci2, NULL, &a->cost_pool));
	vkResetQueryPool(a->device, a->queries, 0, 2 * SLOTS);
	vkResetQueryPool(a->device, a->cost_pool, 0, 2 * COST_ROUNDS * SLOTS);
}

static void buffer_create(struct app *a, struct buffer *b, VkDeviceSize size, VkBufferUsageFlags usage)
{
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	pp_test_vk_buffer_create(a->device, &a->memory, size, usage, host, &b->buffer, &b->memory);
	VK_CHECK(vkMapMemory(a->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
	memset(b->map, 0, size);
}

static void image_create(struct app *a, struct image *i, VkImageUsageFlags usage)
{
	const VkImageCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { SIZE, SIZE, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
	};
	pp_test_vk_image_create(a->device, &a->memory, &ci, &i->image, &i->memory);
	VK_CHECK(pp_test_vk_color_view(a->device, i->image, VK_FORMAT_R8G8B8A8_UNORM, &i->view));
}

/* Both render passes keep their attachment in COLOR_ATTACHMENT_OPTIMAL; every dependency
 * into and out of them is an explicit pipeline barrier of the case (which is the point). */
static VkRenderPass render_pass_create(struct app *a)
{
	VkRenderPass rp;
	VK_CHECK(pp_test_vk_color_pass(a->device, VK_FORMAT_R8G8B8A8_UNORM, LY(COLOR_ATTACHMENT_OPTIMAL), 0, &rp));
	return rp;
}

static VkFramebuffer framebuffer_create(struct app *a, VkRenderPass rp, VkImageView view)
{
	VkFramebuffer fb;
	VK_CHECK(pp_test_vk_framebuffer(a->device, rp, view, SIZE, SIZE, &fb));
	return fb;
}

/* The two-subpass render pass of the subpass cases: subpass 0 writes in0, subpass 1 reads it
 * as an input attachment and writes b; one dependency 0 -> 1 with the given destination stages
 * and flags. Created with vkCreateRenderPass2 when v2. */
static void subpass_render_pass_create(struct app *a, VkPipelineStageFlags dst, VkDependencyFlags flags, bool v2)
{
	const VkAttachmentStoreOp store[2] = { VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_STORE };
	const VkImageLayout final[2] = { LY(SHADER_READ_ONLY_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) };
	a->rp_sub_v2 = v2;
	if (!v2) {
		VkAttachmentDescription att[2];
		for (int i = 0; i < 2; i++)
			att[i] = (VkAttachmentDescription){
				.format = VK_FORMAT_R8G8B8A8_UNORM,
				.samples = VK_SAMPLE_COUNT_1_BIT,
				.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
				.storeOp = store[i],
				.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
				.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
				.initialLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
				.finalLayout = final[i],
			};
		const VkAttachmentReference out0 = { 0, LY(COLOR_ATTACHMENT_OPTIMAL) };
		const VkAttachmentReference in0 = { 0, LY(SHADER_READ_ONLY_OPTIMAL) };
		const VkAttachmentReference out1 = { 1, LY(COLOR_ATTACHMENT_OPTIMAL) };
		const VkSubpassDescription sub[2] = {
			{ .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
			  .pColorAttachments = &out0 },
			{ .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .inputAttachmentCount = 1,
			  .pInputAttachments = &in0, .colorAttachmentCount = 1, .pColorAttachments = &out1 },
		};
		const VkSubpassDependency dep = {
			.srcSubpass = 0,
			.dstSubpass = 1,
			.srcStageMask = ST(COLOR_ATTACHMENT_OUTPUT),
			.dstStageMask = dst,
			.srcAccessMask = AC(COLOR_ATTACHMENT_WRITE),
			.dstAccessMask = AC(INPUT_ATTACHMENT_READ),
			.dependencyFlags = flags,
		};
		const VkRenderPassCreateInfo ci = {
			.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
			.attachmentCount = 2,
			.pAttachments = att,
			.subpassCount = 2,
			.pSubpasses = sub,
			.dependencyCount = 1,
			.pDependencies = &dep,
		};
		VK_CHECK(vkCreateRenderPass(a->device, &ci, NULL, &a->rp_sub));
	} else {
		VkAttachmentDescription2 att[2];
		for (int i = 0; i < 2; i++)
			att[i] = (VkAttachmentDescription2){
				.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
				.format = VK_FORMAT_R8G8B8A8_UNORM,
				.samples = VK_SAMPLE_COUNT_1_BIT,
				.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
				.storeOp = store[i],
				.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
				.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
				.initialLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
				.finalLayout = final[i],
			};
		const VkAttachmentReference2 out0 = { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
						      .layout = LY(COLOR_ATTACHMENT_OPTIMAL),
						      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT };
		const VkAttachmentReference2 in0 = { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
						     .layout = LY(SHADER_READ_ONLY_OPTIMAL),
						     .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT };
		const VkAttachmentReference2 out1 = { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 1,
						      .layout = LY(COLOR_ATTACHMENT_OPTIMAL),
						      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT };
		const VkSubpassDescription2 sub[2] = {
			{ .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
			  .colorAttachmentCount = 1, .pColorAttachments = &out0 },
			{ .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
			  .inputAttachmentCount = 1, .pInputAttachments = &in0, .colorAttachmentCount = 1,
			  .pColorAttachments = &out1 },
		};
		const VkSubpassDependency2 dep = {
			.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2,
			.srcSubpass = 0,
			.dstSubpass = 1,
			.srcStageMask = ST(COLOR_ATTACHMENT_OUTPUT),
			.dstStageMask = dst,
			.srcAccessMask = AC(COLOR_ATTACHMENT_WRITE),
			.dstAccessMask = AC(INPUT_ATTACHMENT_READ),
			.dependencyFlags = flags,
		};
		const VkRenderPassCreateInfo2 ci = {
			.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
			.attachmentCount = 2,
			.pAttachments = att,
			.subpassCount = 2,
			.pSubpasses = sub,
			.dependencyCount = 1,
			.pDependencies = &dep,
		};
		VK_CHECK(vkCreateRenderPass2(a->device, &ci, NULL, &a->rp_sub));
	}
	const VkImageView views[2] = { a->in0.view, a->b.view };
	const VkFramebufferCreateInfo fi = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = a->rp_sub,
		.attachmentCount = 2,
		.pAttachments = views,
		.width = SIZE,
		.height = SIZE,
		.layers = 1,
	};
	VK_CHECK(vkCreateFramebuffer(a->device, &fi, NULL, &a->fb_sub));
}

struct binding_desc {
	VkDescriptorType type;
	VkShaderStageFlags stages;
};

static void layout_create(struct app *a, struct pipeline *p, uint32_t n, const struct binding_desc *b,
			  VkShaderStageFlags push_stages)
{
	VkDescriptorSetLayoutBinding binds[4];
	for (uint32_t i = 0; i < n; i++)
		binds[i] = (VkDescriptorSetLayoutBinding){ i, b[i].type, 1, b[i].stages, NULL };
	const VkDescriptorSetLayoutCreateInfo li = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = n,
		.pBindings = binds,
	};
	VK_CHECK(vkCreateDescriptorSetLayout(a->device, &li, NULL, &p->set_layout));
	const VkPushConstantRange push = { push_stages, 0, 4 };
	const VkPipelineLayoutCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &p->set_layout,
		.pushConstantRangeCount = push_stages ? 1 : 0,
		.pPushConstantRanges = &push,
	};
	VK_CHECK(vkCreatePipelineLayout(a->device, &pi, NULL, &p->layout));
	if (!n)
		return;
	const VkDescriptorSetAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = a->descriptor_pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &p->set_layout,
	};
	VK_CHECK(vkAllocateDescriptorSets(a->device, &ai, &p->set));
}

static void graphics_create_sub(struct app *a, struct pipeline *p, VkRenderPass rp, uint32_t subpass, const uint32_t *vs,
				size_t vs_size, const uint32_t *fs, size_t fs_size, bool vertex_input)
{
	VkShaderModule v = pp_test_vk_shader_module(a->device, vs, vs_size), f = pp_test_vk_shader_module(a->device, fs, fs_size);
	const VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
		  .module = v, .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
		  .module = f, .pName = "main" },
	};
	const VkVertexInputBindingDescription vb = { 0, 8, VK_VERTEX_INPUT_RATE_VERTEX };
	const VkVertexInputAttributeDescription va = { 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 };
	const VkPipelineVertexInputStateCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = vertex_input ? 1 : 0,
		.pVertexBindingDescriptions = &vb,
		.vertexAttributeDescriptionCount = vertex_input ? 1 : 0,
		.pVertexAttributeDescriptions = &va,
	};
	const VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	const VkViewport viewport = { 0, 0, SIZE, SIZE, 0, 1 };
	const VkRect2D scissor = { { 0, 0 }, { SIZE, SIZE } };
	const VkPipelineViewportStateCreateInfo vp = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.pViewports = &viewport,
		.scissorCount = 1,
		.pScissors = &scissor,
	};
	const VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.lineWidth = 1.0f,
	};
	const VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	const VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
	const VkPipelineColorBlendStateCreateInfo cb = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend,
	};
	const VkGraphicsPipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vi,
		.pInputAssemblyState = &ia,
		.pViewportState = &vp,
		.pRasterizationState = &rs,
		.pMultisampleState = &ms,
		.pColorBlendState = &cb,
		.layout = p->layout,
		.renderPass = rp,
		.subpass = subpass,
	};
	VK_CHECK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &ci, NULL, &p->pipeline));
	vkDestroyShaderModule(a->device, v, NULL);
	vkDestroyShaderModule(a->device, f, NULL);
}

static void graphics_create(struct app *a, struct pipeline *p, VkRenderPass rp, const uint32_t *vs, size_t vs_size,
			    const uint32_t *fs, size_t fs_size, bool vertex_input)
{
	graphics_create_sub(a, p, rp, 0, vs, vs_size, fs, fs_size, vertex_input);
}

static void write_image(struct app *a, VkDescriptorSet set, uint32_t binding)
{
	const VkDescriptorImageInfo ii = { a->sampler, a->a.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = set,
		.dstBinding = binding,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.pImageInfo = &ii,
	};
	vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
}

static void write_buffer(struct app *a, VkDescriptorSet set, uint32_t binding, VkBuffer buffer)
{
	const VkDescriptorBufferInfo bi = { buffer, 0, VK_WHOLE_SIZE };
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = set,
		.dstBinding = binding,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = &bi,
	};
	vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
}

static VkDescriptorSet set_alloc(struct app *a, VkDescriptorSetLayout layout)
{
	const VkDescriptorSetAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = a->descriptor_pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &layout,
	};
	VkDescriptorSet set;
	VK_CHECK(vkAllocateDescriptorSets(a->device, &ai, &set));
	return set;
}

static void write_buffer_range(struct app *a, VkDescriptorSet set, uint32_t binding, VkBuffer buffer,
			       VkDeviceSize offset, VkDeviceSize range)
{
	const VkDescriptorBufferInfo bi = { buffer, offset, range };
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = set,
		.dstBinding = binding,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = &bi,
	};
	vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
}

/* The range cases: a mip-mapped texture (blitted level by level) sampled through a view of
 * every level, and descriptors naming only the upper part of v. */
static void range_resources_create(struct app *a)
{
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(a->physical, &props);
	if (RANGE_HI % props.limits.minStorageBufferOffsetAlignment)
		die("minStorageBufferOffsetAlignment %llu does not divide %u",
		    (unsigned long long)props.limits.minStorageBufferOffsetAlignment, RANGE_HI);
	const VkImageCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { SIZE, SIZE, 1 },
		.mipLevels = MIP_LEVELS,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
	};
	pp_test_vk_image_create(a->device, &a->memory, &ci, &a->mip.image, &a->mip.memory);
	const VkImageViewCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = a->mip.image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, 1 },
	};
	VK_CHECK(vkCreateImageView(a->device, &vi, NULL, &a->mip.view));
	a->sample_mip = set_alloc(a, a->sample.set_layout);
	const VkDescriptorImageInfo ii = { a->sampler, a->mip.view, LY(SHADER_READ_ONLY_OPTIMAL) };
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = a->sample_mip,
		.dstBinding = 0,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.pImageInfo = &ii,
	};
	vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
	a->storage_lo = set_alloc(a, a->storage.set_layout);
	write_buffer_range(a, a->storage_lo, 0, a->v.buffer, 0, RANGE_HI);
	a->storage_hi = set_alloc(a, a->storage.set_layout);
	write_buffer_range(a, a->storage_hi, 0, a->v.buffer, RANGE_HI, VK_WHOLE_SIZE);
	a->storage_s = set_alloc(a, a->storage.set_layout);
	write_buffer_range(a, a->storage_s, 0, a->s.buffer, 0, RANGE_HI);
	a->chain_hi = set_alloc(a, a->chain.set_layout);
	write_image(a, a->chain_hi, 0);
	write_buffer_range(a, a->chain_hi, 1, a->v.buffer, RANGE_HI, VK_WHOLE_SIZE);
}

static void resources_create(struct app *a)
{
	image_create(a, &a->a,
		     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
	image_create(a, &a->b, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
	const VkSamplerCreateInfo si = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = VK_FILTER_NEAREST,
		.minFilter = VK_FILTER_NEAREST,
	};
	VK_CHECK(vkCreateSampler(a->device, &si, NULL, &a->sampler));
	a->rp_a = render_pass_create(a);
	a->rp_b = render_pass_create(a);
	a->fb_a = framebuffer_create(a, a->rp_a, a->a.view);
	a->fb_b = framebuffer_create(a, a->rp_b, a->b.view);

	const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	buffer_create(a, &a->v, 256, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | xfer);
	buffer_create(a, &a->s, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | xfer);
	buffer_create(a, &a->t1, 65536, xfer);
	buffer_create(a, &a->t2, 65536, xfer);
	buffer_create(a, &a->t3, 65536, xfer);
	buffer_create(a, &a->t4, 65536, xfer);
	const float tri[6] = { -0.5f, -0.5f, 0.5f, -0.5f, 0.0f, 0.5f };
	memcpy(a->s.map, tri, sizeof(tri));
	memcpy(a->v.map, tri, sizeof(tri));

	const VkDescriptorPoolSize sizes[3] = {
		{ VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 8 },
		{ VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8 },
		{ VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 2 },
	};
	const VkDescriptorPoolCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 16,
		.poolSizeCount = 3,
		.pPoolSizes = sizes,
	};
	VK_CHECK(vkCreateDescriptorPool(a->device, &pi, NULL, &a->descriptor_pool));

	const VkShaderStageFlags fs = VK_SHADER_STAGE_FRAGMENT_BIT, vs = VK_SHADER_STAGE_VERTEX_BIT;
	layout_create(a, &a->solid, 0, NULL, fs);
	graphics_create(a, &a->solid, a->rp_a, fullscreen_vert, sizeof(fullscreen_vert), solid_frag, sizeof(solid_frag),
			false);
	layout_create(a, &a->sample, 1, &(struct binding_desc){ VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, fs }, 0);
	graphics_create(a, &a->sample, a->rp_b, fullscreen_vert, sizeof(fullscreen_vert), sample_frag,
			sizeof(sample_frag), false);
	write_image(a, a->sample.set, 0);
	layout_create(a, &a->sample_vs, 1, &(struct binding_desc){ VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, vs | fs },
		      0);
	graphics_create(a, &a->sample_vs, a->rp_b, sample_vs_vert, sizeof(sample_vs_vert), sample_vs_frag,
			sizeof(sample_vs_frag), false);
	write_image(a, a->sample_vs.set, 0);
	layout_create(a, &a->vertices, 0, NULL, fs);
	graphics_create(a, &a->vertices, a->rp_b, vertex_vert, sizeof(vertex_vert), solid_frag, sizeof(solid_frag), true);
	layout_create(a, &a->storage, 1, &(struct binding_desc){ VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, fs }, 0);
	graphics_create(a, &a->storage, a->rp_b, fullscreen_vert, sizeof(fullscreen_vert), storage_frag,
			sizeof(storage_frag), false);
	write_buffer(a, a->storage.set, 0, a->v.buffer);

	const struct binding_desc cb[2] = {
		{ VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_COMPUTE_BIT },
		{ VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_COMPUTE_BIT },
	};
	layout_create(a, &a->chain, 2, cb, 0);
	write_image(a, a->chain.set, 0);
	write_buffer(a, a->chain.set, 1, a->v.buffer);
	VkShaderModule cm = pp_test_vk_shader_module(a->device, chain_comp, sizeof(chain_comp));
	const VkComputePipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			   .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = cm, .pName = "main" },
		.layout = a->chain.layout,
	};
	VK_CHECK(vkCreateComputePipelines(a->device, VK_NULL_HANDLE, 1, &ci, NULL, &a->chain.pipeline));
	vkDestroyShaderModule(a->device, cm, NULL);

	if (!strncmp(a->kase, "range-", 6) || !strncmp(a->kase, "mip-chain", 9))
		range_resources_create(a);
	if (!strcmp(a->kase, "redundant")) {
		a->ntargets = a->barriers < REDUNDANT_MAX ? a->barriers : REDUNDANT_MAX;
		for (uint32_t i = 0; i < a->ntargets; i++) {
			image_create(a, &a->targets[i], VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
			a->target_fbs[i] = framebuffer_create(a, a->rp_b, a->targets[i].view);
		}
	}

	/* The subpass cases: a dependency without BY_REGION (vkCreateRenderPass, and
	 * vkCreateRenderPass2 for ...2), the same with BY_REGION, and one whose destination
	 * includes VERTEX_SHADER (not framebuffer-local). */
	bool sub_v1 = !strcmp(a->kase, "subpass-not-by-region"), sub_v2 = !strcmp(a->kase, "subpass-not-by-region2");
	bool sub_region = !strcmp(a->kase, "subpass-by-region"), sub_vertex = !strcmp(a->kase, "subpass-vertex-stage");
	if (sub_v1 || sub_v2 || sub_region || sub_vertex) {
		image_create(a, &a->in0, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT);
		subpass_render_pass_create(a, sub_vertex ? ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER) : ST(FRAGMENT_SHADER),
					   sub_region ? VK_DEPENDENCY_BY_REGION_BIT : 0, sub_v2);
		layout_create(a, &a->sub0, 0, NULL, fs);
		graphics_create_sub(a, &a->sub0, a->rp_sub, 0, fullscreen_vert, sizeof(fullscreen_vert), solid_frag,
				    sizeof(solid_frag), false);
		layout_create(a, &a->sub1, 1, &(struct binding_desc){ VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, fs }, 0);
		graphics_create_sub(a, &a->sub1, a->rp_sub, 1, fullscreen_vert, sizeof(fullscreen_vert), input_frag,
				    sizeof(input_frag), false);
		const VkDescriptorImageInfo ii = { VK_NULL_HANDLE, a->in0.view, LY(SHADER_READ_ONLY_OPTIMAL) };
		const VkWriteDescriptorSet w = {
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = a->sub1.set,
			.dstBinding = 0,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
			.pImageInfo = &ii,
		};
		vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
	}
}

static void pipeline_destroy(struct app *a, struct pipeline *p)
{
	vkDestroyPipeline(a->device, p->pipeline, NULL);
	vkDestroyPipelineLayout(a->device, p->layout, NULL);
	vkDestroyDescriptorSetLayout(a->device, p->set_layout, NULL);
}

static void buffer_destroy(struct app *a, struct buffer *b)
{
	vkDestroyBuffer(a->device, b->buffer, NULL);
	vkFreeMemory(a->device, b->memory, NULL);
}

static void image_destroy(struct app *a, struct image *i)
{
	vkDestroyImageView(a->device, i->view, NULL);
	vkDestroyImage(a->device, i->image, NULL);
	vkFreeMemory(a->device, i->memory, NULL);
}

static void teardown(struct app *a)
{
	struct pipeline *ps[] = { &a->solid, &a->sample, &a->sample_vs, &a->vertices, &a->storage, &a->chain,
				  &a->sub0, &a->sub1 };
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		pipeline_destroy(a, ps[i]);
	vkDestroyDescriptorPool(a->device, a->descriptor_pool, NULL);
	struct buffer *bs[] = { &a->v, &a->s, &a->t1, &a->t2, &a->t3, &a->t4 };
	for (size_t i = 0; i < sizeof(bs) / sizeof(bs[0]); i++)
		buffer_destroy(a, bs[i]);
	vkDestroyFramebuffer(a->device, a->fb_a, NULL);
	vkDestroyFramebuffer(a->device, a->fb_b, NULL);
	vkDestroyRenderPass(a->device, a->rp_a, NULL);
	vkDestroyRenderPass(a->device, a->rp_b, NULL);
	vkDestroyFramebuffer(a->device, a->fb_sub, NULL);
	vkDestroyRenderPass(a->device, a->rp_sub, NULL);
	vkDestroySampler(a->device, a->sampler, NULL);
	image_destroy(a, &a->a);
	image_destroy(a, &a->b);
	image_destroy(a, &a->in0);
	image_destroy(a, &a->mip);
	for (uint32_t i = 0; i < a->ntargets; i++) {
		vkDestroyFramebuffer(a->device, a->target_fbs[i], NULL);
		image_destroy(a, &a->targets[i]);
	}
	vkDestroySemaphore(a->device, a->timeline, NULL);
	vkDestroySemaphore(a->device, a->host_timeline, NULL);
	vkDestroyQueryPool(a->device, a->queries, NULL);
	vkDestroyQueryPool(a->device, a->cost_pool, NULL);
	for (uint32_t i = 0; i < SLOTS; i++) {
		vkDestroyFence(a->device, a->fences[i], NULL);
		vkDestroyEvent(a->device, a->events[i], NULL);
	}
	vkDestroyCommandPool(a->device, a->pool, NULL);
	vkDestroyDevice(a->device, NULL);
	if (a->report) {
		PFN_vkDestroyDebugReportCallbackEXT d = (PFN_vkDestroyDebugReportCallbackEXT)vkGetInstanceProcAddr(
			a->instance, "vkDestroyDebugReportCallbackEXT");
		d(a->instance, a->report, NULL);
	}
	PFN_vkDestroyDebugUtilsMessengerEXT dm =
		(PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
	dm(a->instance, a->messenger, NULL);
	dm(a->instance, a->messenger_info, NULL);
	vkDestroyInstance(a->instance, NULL);
}

/* ---- recording helpers ------------------------------------------------------------------- */


struct img_barrier {
	VkImage image;
	VkPipelineStageFlags src;
	VkAccessFlags src_access;
	VkPipelineStageFlags dst;
	VkAccessFlags dst_access;
	VkImageLayout old_layout, new_layout;
};

/* One vkCmdPipelineBarrier for images (stage masks: the unions). */
static void images_barrier(VkCommandBuffer cmd, uint32_t n, const struct img_barrier *b)
{
	VkImageMemoryBarrier ib[4];
	VkPipelineStageFlags src = 0, dst = 0;
	for (uint32_t i = 0; i < n; i++) {
		ib[i] = (VkImageMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.srcAccessMask = b[i].src_access,
			.dstAccessMask = b[i].dst_access,
			.oldLayout = b[i].old_layout,
			.newLayout = b[i].new_layout,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = b[i].image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
		};
		src |= b[i].src;
		dst |= b[i].dst;
	}
	vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, n, ib);
}

static void buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags src, VkAccessFlags src_access,
			   VkPipelineStageFlags dst, VkAccessFlags dst_access)
{
	const VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = buffer,
		.size = VK_WHOLE_SIZE,
	};
	vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 1, &b, 0, NULL);
}

static void pass_begin(struct app *a, VkCommandBuffer cmd, VkRenderPass rp, VkFramebuffer fb)
{
	const VkClearValue clear = { .color = { { 0.1f, 0.2f, 0.3f, 1.0f } } };
	const VkRenderPassBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = rp,
		.framebuffer = fb,
		.renderArea = { { 0, 0 }, { SIZE, SIZE } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
}

/* Pass A: renders the G-buffer a with --load iterations per fragment. */
static void pass_a(struct app *a, VkCommandBuffer cmd)
{
	pass_begin(a, cmd, a->rp_a, a->fb_a);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->solid.pipeline);
	vkCmdPushConstants(cmd, a->solid.layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4, &a->load);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	vkCmdEndRenderPass(cmd);
}

/* Pass B into b with one of the pass-B pipelines. */
static void pass_b(struct app *a, VkCommandBuffer cmd, struct pipeline *p)
{
	pass_begin(a, cmd, a->rp_b, a->fb_b);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
	if (p->set)
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->layout, 0, 1, &p->set, 0, NULL);
	if (p == &a->vertices) {
		const VkDeviceSize off = 0;
		vkCmdBindVertexBuffers(cmd, 0, 1, &a->v.buffer, &off);
		vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4, &a->load);
	}
	vkCmdDraw(cmd, 3, 1, 0, 0);
	vkCmdEndRenderPass(cmd);
}

static void copy(VkCommandBuffer cmd, struct buffer *from, struct buffer *to, VkDeviceSize size)
{
	const VkBufferCopy r = { 0, 0, size };
	vkCmdCopyBuffer(cmd, from->buffer, to->buffer, 1, &r);
}

/* The first commands of a frame: what the previous frames left in a and b may be overwritten
 * (write-after-read / write-after-write on the same queue). Layouts come from UNDEFINED, so
 * these are the swapchain-acquire pattern the rules leave alone. a_last_read: the stages
 * that read a last frame (0: a is not used). */
static void frame_start_images(struct app *a, VkCommandBuffer cmd, VkPipelineStageFlags a_last_read)
{
	struct img_barrier b[2];
	uint32_t n = 0;
	if (a_last_read)
		b[n++] = (struct img_barrier){ a->a.image, a_last_read, 0, ST(COLOR_ATTACHMENT_OUTPUT),
					       AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED), LY(COLOR_ATTACHMENT_OPTIMAL) };
	b[n++] = (struct img_barrier){ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
				       ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED),
				       LY(COLOR_ATTACHMENT_OPTIMAL) };
	images_barrier(cmd, n, b);
}

/* Transfer buffers of the copy cases: last frame's writes and reads of t1..t4. */
static void frame_start_buffers(struct app *a, VkCommandBuffer cmd)
{
	const VkMemoryBarrier m = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = AC(TRANSFER_WRITE),
		.dstAccessMask = AC(TRANSFER_READ) | AC(TRANSFER_WRITE),
	};
	vkCmdPipelineBarrier(cmd, ST(TRANSFER), ST(TRANSFER), 0, 1, &m, 0, NULL, 0, NULL);
}

/* ---- the cases ----------------------------------------------------------------------------- */

static bool is(const struct app *a, const char *name)
{
	return !strcmp(a->kase, name);
}

static void record_gbuffer(struct app *a, VkCommandBuffer cmd, VkPipelineStageFlags dst, struct pipeline *reader)
{
	frame_start_images(a, cmd, reader == &a->sample_vs ? ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER)
							   : ST(FRAGMENT_SHADER));
	pass_a(a, cmd);
	/* Written as a color attachment, read by the next pass's shaders. dst VERTEX_SHADER alone
	 * would be invalid (access scopes do not extend to later stages), so the misuse keeps
	 * FRAGMENT_SHADER in the mask: VERTEX_SHADER | FRAGMENT_SHADER. */
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->a.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), dst,
					      AC(SHADER_READ), LY(COLOR_ATTACHMENT_OPTIMAL), LY(SHADER_READ_ONLY_OPTIMAL) });
	pass_b(a, cmd, reader);
}

/* Written as a color attachment, but the barrier waits for every earlier stage. */
static void record_src_too_late(struct app *a, VkCommandBuffer cmd)
{
	frame_start_images(a, cmd, ST(FRAGMENT_SHADER));
	pass_a(a, cmd);
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->a.image, ST(ALL_COMMANDS), AC(COLOR_ATTACHMENT_WRITE), ST(FRAGMENT_SHADER),
					      AC(SHADER_READ), LY(COLOR_ATTACHMENT_OPTIMAL), LY(SHADER_READ_ONLY_OPTIMAL) });
	pass_b(a, cmd, &a->sample);
}

static void record_read_to_read(struct app *a, VkCommandBuffer cmd, bool sync2)
{
	record_gbuffer(a, cmd, ST(FRAGMENT_SHADER), &a->sample);
	/* pass B writes b again: a real write-after-write barrier for b... */
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					      ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					      LY(COLOR_ATTACHMENT_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) });
	/* ... and a barrier that orders a's reads after a's reads: nothing to order. */
	if (!sync2) {
		images_barrier(cmd, 1,
			       &(struct img_barrier){ a->a.image, ST(FRAGMENT_SHADER), AC(SHADER_READ), ST(FRAGMENT_SHADER),
						      AC(SHADER_READ), LY(SHADER_READ_ONLY_OPTIMAL),
						      LY(SHADER_READ_ONLY_OPTIMAL) });
	} else {
		const VkImageMemoryBarrier2 b = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
			.srcStageMask = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
			.srcAccessMask = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
			.dstAccessMask = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
			.oldLayout = LY(SHADER_READ_ONLY_OPTIMAL),
			.newLayout = LY(SHADER_READ_ONLY_OPTIMAL),
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = a->a.image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
		};
		const VkDependencyInfo di = {
			.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
			.imageMemoryBarrierCount = 1,
			.pImageMemoryBarriers = &b,
		};
		vkCmdPipelineBarrier2(cmd, &di);
	}
	pass_b(a, cmd, &a->sample);
}

static void record_copy_vertex(struct app *a, VkCommandBuffer cmd, bool all_commands)
{
	frame_start_images(a, cmd, 0);
	/* last frame's draw read v; this copy overwrites it: write-after-read */
	buffer_barrier(cmd, a->v.buffer, ST(VERTEX_INPUT), 0, ST(TRANSFER), 0);
	copy(cmd, &a->s, &a->v, 24);
	if (all_commands)
		buffer_barrier(cmd, a->v.buffer, ST(ALL_COMMANDS), AC(TRANSFER_WRITE), ST(ALL_COMMANDS),
			       AC(VERTEX_ATTRIBUTE_READ));
	else
		buffer_barrier(cmd, a->v.buffer, ST(TRANSFER), AC(TRANSFER_WRITE), ST(VERTEX_INPUT),
			       AC(VERTEX_ATTRIBUTE_READ));
	pass_b(a, cmd, &a->vertices);
}

static void record_duplicate(struct app *a, VkCommandBuffer cmd, bool draw_between)
{
	frame_start_images(a, cmd, 0);
	buffer_barrier(cmd, a->v.buffer, ST(VERTEX_INPUT), 0, ST(TRANSFER), 0);
	copy(cmd, &a->s, &a->v, 24);
	buffer_barrier(cmd, a->v.buffer, ST(TRANSFER), AC(TRANSFER_WRITE), ST(VERTEX_INPUT), AC(VERTEX_ATTRIBUTE_READ));
	if (draw_between)
		pass_b(a, cmd, &a->vertices);
	buffer_barrier(cmd, a->v.buffer, ST(TRANSFER), AC(TRANSFER_WRITE), ST(VERTEX_INPUT), AC(VERTEX_ATTRIBUTE_READ));
	if (draw_between)
		images_barrier(cmd, 1,
			       &(struct img_barrier){ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
						      ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
						      LY(COLOR_ATTACHMENT_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) });
	pass_b(a, cmd, &a->vertices);
}

/* Pass A renders a; compute samples a and writes v; the next frame reads v in its vertex
 * input (the chain) or in a fragment shader (the control). */
static void record_chain(struct app *a, VkCommandBuffer cmd, bool vertex)
{
	frame_start_images(a, cmd, ST(COMPUTE_SHADER));
	if (vertex) {
		buffer_barrier(cmd, a->v.buffer, ST(COMPUTE_SHADER), AC(SHADER_WRITE), ST(VERTEX_INPUT),
			       AC(VERTEX_ATTRIBUTE_READ));
		pass_b(a, cmd, &a->vertices);
	} else {
		buffer_barrier(cmd, a->v.buffer, ST(COMPUTE_SHADER), AC(SHADER_WRITE), ST(FRAGMENT_SHADER),
			       AC(SHADER_READ));
		pass_b(a, cmd, &a->storage);
	}
	pass_a(a, cmd);
	const VkImageMemoryBarrier2 ib = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
		.srcStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
		.srcAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
		.dstAccessMask = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
		.oldLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
		.newLayout = LY(SHADER_READ_ONLY_OPTIMAL),
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = a->a.image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	/* v was just read by pass B: the compute write must wait for that read. */
	const VkBufferMemoryBarrier2 bb = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
		.srcStageMask = vertex ? VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
		.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = a->v.buffer,
		.size = VK_WHOLE_SIZE,
	};
	const VkDependencyInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
		.bufferMemoryBarrierCount = 1,
		.pBufferMemoryBarriers = &bb,
		.imageMemoryBarrierCount = 1,
		.pImageMemoryBarriers = &ib,
	};
	vkCmdPipelineBarrier2(cmd, &di);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->chain.pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->chain.layout, 0, 1, &a->chain.set, 0, NULL);
	vkCmdDispatch(cmd, 1, 1, 1);
}

static void record_set_event(struct app *a, VkCommandBuffer cmd, VkEvent ev, bool work_between)
{
	frame_start_buffers(a, cmd);
	copy(cmd, &a->t1, &a->t2, 4096);
	vkCmdSetEvent(cmd, ev, ST(TRANSFER));
	if (work_between)
		vkCmdFillBuffer(cmd, a->t4.buffer, 0, 4096, 7); /* independent work to overlap */
	const VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = AC(TRANSFER_WRITE),
		.dstAccessMask = AC(TRANSFER_READ),
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = a->t2.buffer,
		.size = VK_WHOLE_SIZE,
	};
	vkCmdWaitEvents(cmd, 1, &ev, ST(TRANSFER), ST(TRANSFER), 0, NULL, 1, &b, 0, NULL);
	copy(cmd, &a->t2, &a->t3, 4096);
}

/* Several hundred barriers: a fill of each region, then a barrier (ALL_COMMANDS both ways
 * when conservative, TRANSFER both ways when narrow): a global memory barrier (stress), or a
 * buffer barrier on the region just filled (stress-ranges). */
static void record_stress(struct app *a, VkCommandBuffer cmd)
{
	frame_start_buffers(a, cmd);
	const VkMemoryBarrier m = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = AC(TRANSFER_WRITE),
		.dstAccessMask = AC(TRANSFER_WRITE),
	};
	VkPipelineStageFlags st = a->conservative ? ST(ALL_COMMANDS) : ST(TRANSFER);
	for (uint32_t i = 0; i < a->barriers; i++) {
		vkCmdFillBuffer(cmd, a->t1.buffer, (i % 4096) * 16, 16, i);
		if (is(a, "stress-ranges")) {
			/* a buffer barrier on the 16 bytes just filled: 300 ranges of one buffer */
			const VkBufferMemoryBarrier b = {
				.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
				.srcAccessMask = AC(TRANSFER_WRITE),
				.dstAccessMask = AC(TRANSFER_WRITE),
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.buffer = a->t1.buffer,
				.offset = (i % 4096) * 16,
				.size = 16,
			};
			vkCmdPipelineBarrier(cmd, st, st, 0, 0, NULL, 1, &b, 0, NULL);
		} else {
			vkCmdPipelineBarrier(cmd, st, st, 0, 1, &m, 0, NULL, 0, NULL);
		}
	}
}

/* The barrier-cost measurement: COST_ROUNDS of pass A -> barrier -> pass B -> barrier, with
 * the application's own TOP_OF_PIPE timestamps around each first barrier. */
static void record_cost(struct app *a, VkCommandBuffer cmd, uint32_t slot)
{
	frame_start_images(a, cmd, ST(FRAGMENT_SHADER));
	uint32_t q0 = slot * 2 * COST_ROUNDS;
	vkCmdResetQueryPool(cmd, a->cost_pool, q0, 2 * COST_ROUNDS);
	for (uint32_t i = 0; i < COST_ROUNDS; i++) {
		pass_a(a, cmd);
		vkCmdWriteTimestamp(cmd, ST(TOP_OF_PIPE), a->cost_pool, q0 + 2 * i);
		if (a->conservative)
			images_barrier(cmd, 1,
				       &(struct img_barrier){ a->a.image, ST(ALL_COMMANDS), AC(MEMORY_WRITE), ST(ALL_COMMANDS),
							      AC(MEMORY_READ) | AC(MEMORY_WRITE), LY(COLOR_ATTACHMENT_OPTIMAL),
							      LY(SHADER_READ_ONLY_OPTIMAL) });
		else
			images_barrier(cmd, 1,
				       &(struct img_barrier){ a->a.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
							      ST(FRAGMENT_SHADER), AC(SHADER_READ), LY(COLOR_ATTACHMENT_OPTIMAL),
							      LY(SHADER_READ_ONLY_OPTIMAL) });
		vkCmdWriteTimestamp(cmd, ST(TOP_OF_PIPE), a->cost_pool, q0 + 2 * i + 1);
		pass_b(a, cmd, &a->sample);
		/* back to an attachment for the next round (write-after-read, and b write-after-write) */
		struct img_barrier back[2] = {
			{ a->a.image, ST(FRAGMENT_SHADER), 0, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
			  LY(SHADER_READ_ONLY_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) },
			{ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), ST(COLOR_ATTACHMENT_OUTPUT),
			  AC(COLOR_ATTACHMENT_WRITE), LY(COLOR_ATTACHMENT_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) },
		};
		if (i + 1 < COST_ROUNDS)
			images_barrier(cmd, 2, back);
	}
}

/* Subpass 0 renders in0, subpass 1 reads it as an input attachment into b. The frame starts
 * from UNDEFINED after last frame's subpass 1 (input read, and in0's store) and b's writes. */
static void record_subpass(struct app *a, VkCommandBuffer cmd)
{
	const struct img_barrier start[2] = {
		{ a->in0.image, ST(FRAGMENT_SHADER) | ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
		  ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED), LY(COLOR_ATTACHMENT_OPTIMAL) },
		{ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), ST(COLOR_ATTACHMENT_OUTPUT),
		  AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED), LY(COLOR_ATTACHMENT_OPTIMAL) },
	};
	images_barrier(cmd, 2, start);
	const VkClearValue clear[2] = { { .color = { { 0.1f, 0.2f, 0.3f, 1.0f } } },
					{ .color = { { 0.0f, 0.0f, 0.0f, 1.0f } } } };
	const VkRenderPassBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = a->rp_sub,
		.framebuffer = a->fb_sub,
		.renderArea = { { 0, 0 }, { SIZE, SIZE } },
		.clearValueCount = 2,
		.pClearValues = clear,
	};
	const VkSubpassBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
					 .contents = VK_SUBPASS_CONTENTS_INLINE };
	const VkSubpassEndInfo sei = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
	if (a->rp_sub_v2)
		vkCmdBeginRenderPass2(cmd, &bi, &sbi);
	else
		vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->sub0.pipeline);
	vkCmdPushConstants(cmd, a->sub0.layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4, &a->load);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	if (a->rp_sub_v2)
		vkCmdNextSubpass2(cmd, &sbi, &sei);
	else
		vkCmdNextSubpass(cmd, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->sub1.pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->sub1.layout, 0, 1, &a->sub1.set, 0, NULL);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	if (a->rp_sub_v2)
		vkCmdEndRenderPass2(cmd, &sei);
	else
		vkCmdEndRenderPass(cmd);
}

/* Two command buffers per submission. split-gbuffer-*: the G-buffer barrier ends the first
 * command buffer, its reader is the second. unused-barrier*: the first command buffer clears a
 * and ends with a barrier that keeps a in TRANSFER_DST_OPTIMAL; the second draws into b only
 * (nothing uses a after that barrier), or clears a again first (the barrier orders that). */
static bool two_command_buffers(const struct app *a)
{
	return !strncmp(a->kase, "split-", 6) || !strncmp(a->kase, "unused-", 7);
}

static void record_first(struct app *a, VkCommandBuffer cmd)
{
	if (!strncmp(a->kase, "split-", 6)) {
		frame_start_images(a, cmd, is(a, "split-gbuffer-vs-reads") ? ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER)
									   : ST(FRAGMENT_SHADER));
		pass_a(a, cmd);
		images_barrier(cmd, 1,
			       &(struct img_barrier){ a->a.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
						      ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER), AC(SHADER_READ),
						      LY(COLOR_ATTACHMENT_OPTIMAL), LY(SHADER_READ_ONLY_OPTIMAL) });
		return;
	}
	/* last frame's clears of a: write-after-write */
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->a.image, ST(TRANSFER), AC(TRANSFER_WRITE), ST(TRANSFER), AC(TRANSFER_WRITE),
					      LY(UNDEFINED), LY(TRANSFER_DST_OPTIMAL) });
	const VkClearColorValue c = { { 0.5f, 0.5f, 0.5f, 1.0f } };
	const VkImageSubresourceRange r = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	vkCmdClearColorImage(cmd, a->a.image, LY(TRANSFER_DST_OPTIMAL), &c, 1, &r);
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->a.image, ST(TRANSFER), AC(TRANSFER_WRITE), ST(TRANSFER), AC(TRANSFER_WRITE),
					      LY(TRANSFER_DST_OPTIMAL), LY(TRANSFER_DST_OPTIMAL) });
}

static void record_second(struct app *a, VkCommandBuffer cmd)
{
	if (!strncmp(a->kase, "split-", 6)) {
		pass_b(a, cmd, is(a, "split-gbuffer-vs-reads") ? &a->sample_vs : &a->sample);
		return;
	}
	if (is(a, "unused-barrier-used-next")) {
		const VkClearColorValue c = { { 0.25f, 0.5f, 0.5f, 1.0f } };
		const VkImageSubresourceRange r = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
		vkCmdClearColorImage(cmd, a->a.image, LY(TRANSFER_DST_OPTIMAL), &c, 1, &r);
	}
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					      ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED),
					      LY(COLOR_ATTACHMENT_OPTIMAL) });
	pass_b(a, cmd, &a->vertices);
}

/* Pass A writes a and a copy writes v; a's barrier (for pass B's fragment shader) and v's (for
 * the vertex input of the pass after) come right after each other: two calls, or one
 * (mergeable-draw: v's barrier after pass B, in one call with b's). */
static void record_mergeable(struct app *a, VkCommandBuffer cmd)
{
	frame_start_images(a, cmd, ST(FRAGMENT_SHADER));
	buffer_barrier(cmd, a->v.buffer, ST(VERTEX_INPUT), 0, ST(TRANSFER), 0);
	copy(cmd, &a->s, &a->v, 24);
	pass_a(a, cmd);
	const VkImageMemoryBarrier2 ib = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
		.srcStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
		.srcAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
		.dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT,
		.oldLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
		.newLayout = LY(SHADER_READ_ONLY_OPTIMAL),
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = a->a.image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	const VkBufferMemoryBarrier2 vb = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
		.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
		.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT,
		.dstAccessMask = VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = a->v.buffer,
		.size = VK_WHOLE_SIZE,
	};
	const struct img_barrier b_again = { a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					     ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					     LY(COLOR_ATTACHMENT_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) };
	if (is(a, "mergeable2")) {
		vkCmdPipelineBarrier2(cmd, &(VkDependencyInfo){ .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
								.imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &ib });
		vkCmdPipelineBarrier2(cmd, &(VkDependencyInfo){ .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
								.bufferMemoryBarrierCount = 1, .pBufferMemoryBarriers = &vb });
	} else {
		images_barrier(cmd, 1,
			       &(struct img_barrier){ a->a.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
						      ST(FRAGMENT_SHADER), AC(SHADER_READ), LY(COLOR_ATTACHMENT_OPTIMAL),
						      LY(SHADER_READ_ONLY_OPTIMAL) });
		if (is(a, "mergeable"))
			buffer_barrier(cmd, a->v.buffer, ST(TRANSFER), AC(TRANSFER_WRITE), ST(VERTEX_INPUT),
				       AC(VERTEX_ATTRIBUTE_READ));
	}
	pass_b(a, cmd, &a->sample);
	if (is(a, "mergeable-draw")) {
		/* v's barrier and b's write-after-write barrier in one call */
		const VkBufferMemoryBarrier bm = {
			.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
			.srcAccessMask = AC(TRANSFER_WRITE),
			.dstAccessMask = AC(VERTEX_ATTRIBUTE_READ),
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.buffer = a->v.buffer,
			.size = VK_WHOLE_SIZE,
		};
		const VkImageMemoryBarrier im = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.srcAccessMask = b_again.src_access,
			.dstAccessMask = b_again.dst_access,
			.oldLayout = b_again.old_layout,
			.newLayout = b_again.new_layout,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = b_again.image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
		};
		vkCmdPipelineBarrier(cmd, ST(TRANSFER) | ST(COLOR_ATTACHMENT_OUTPUT),
				     ST(VERTEX_INPUT) | ST(COLOR_ATTACHMENT_OUTPUT), 0, 0, NULL, 1, &bm, 1, &im);
	} else {
		images_barrier(cmd, 1, &b_again);
	}
	pass_b(a, cmd, &a->vertices);
}

/* ---- the range cases ---- */

static void mip_barrier(VkCommandBuffer cmd, uint32_t n, const struct img_barrier *b, const uint32_t *level,
			const uint32_t *count, VkImage image)
{
	VkImageMemoryBarrier ib[2];
	VkPipelineStageFlags src = 0, dst = 0;
	for (uint32_t i = 0; i < n; i++) {
		ib[i] = (VkImageMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.srcAccessMask = b[i].src_access,
			.dstAccessMask = b[i].dst_access,
			.oldLayout = b[i].old_layout,
			.newLayout = b[i].new_layout,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, level[i], count[i], 0, 1 },
		};
		src |= b[i].src;
		dst |= b[i].dst;
	}
	vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, n, ib);
}

static void blit_level(struct app *a, VkCommandBuffer cmd, uint32_t to)
{
	int32_t s = SIZE >> (to - 1), d = SIZE >> to;
	const VkImageBlit r = {
		.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, to - 1, 0, 1 },
		.srcOffsets = { { 0, 0, 0 }, { s, s, 1 } },
		.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, to, 0, 1 },
		.dstOffsets = { { 0, 0, 0 }, { d, d, 1 } },
	};
	vkCmdBlitImage(cmd, a->mip.image, LY(TRANSFER_SRC_OPTIMAL), a->mip.image, LY(TRANSFER_DST_OPTIMAL), 1, &r,
		       VK_FILTER_LINEAR);
}

/* A mip chain generated every frame, then sampled by pass B's fragment shader through a view
 * of every level. mip-chain: one barrier per level (TRANSFER_WRITE -> TRANSFER_READ on level
 * i - 1 before the blit into level i), one barrier for all levels at the end: narrow and
 * correct. mip-chain-all: after each blit, level i - 1 goes to SHADER_READ_ONLY at once, with
 * dstStageMask ALL_COMMANDS; its only consumer is pass B's fragment shader, after barriers on
 * the other levels. */
static void record_mip_chain(struct app *a, VkCommandBuffer cmd, bool conservative)
{
	const uint32_t one = 1, all = VK_REMAINING_MIP_LEVELS, zero = 0;
	frame_start_images(a, cmd, 0);
	/* last frame's pass B sampled every level */
	mip_barrier(cmd, 1,
		    &(struct img_barrier){ 0, ST(FRAGMENT_SHADER), 0, ST(TRANSFER), AC(TRANSFER_WRITE), LY(UNDEFINED),
					   LY(TRANSFER_DST_OPTIMAL) },
		    &zero, &all, a->mip.image);
	const VkClearColorValue c = { { 0.5f, 0.25f, 0.75f, 1.0f } };
	const VkImageSubresourceRange r0 = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	vkCmdClearColorImage(cmd, a->mip.image, LY(TRANSFER_DST_OPTIMAL), &c, 1, &r0);
	for (uint32_t i = 1; i < MIP_LEVELS; i++) {
		uint32_t prev = i - 1;
		mip_barrier(cmd, 1,
			    &(struct img_barrier){ 0, ST(TRANSFER), AC(TRANSFER_WRITE), ST(TRANSFER), AC(TRANSFER_READ),
						   LY(TRANSFER_DST_OPTIMAL), LY(TRANSFER_SRC_OPTIMAL) },
			    &prev, &one, a->mip.image);
		blit_level(a, cmd, i);
		if (conservative)
			mip_barrier(cmd, 1,
				    &(struct img_barrier){ 0, ST(TRANSFER), AC(TRANSFER_READ), ST(ALL_COMMANDS),
							   AC(SHADER_READ), LY(TRANSFER_SRC_OPTIMAL),
							   LY(SHADER_READ_ONLY_OPTIMAL) },
				    &prev, &one, a->mip.image);
	}
	const uint32_t last = MIP_LEVELS - 1, below = MIP_LEVELS - 1;
	const struct img_barrier to_read[2] = {
		{ 0, ST(TRANSFER), AC(TRANSFER_WRITE), ST(FRAGMENT_SHADER), AC(SHADER_READ), LY(TRANSFER_DST_OPTIMAL),
		  LY(SHADER_READ_ONLY_OPTIMAL) },
		{ 0, ST(TRANSFER), AC(TRANSFER_READ), ST(FRAGMENT_SHADER), AC(SHADER_READ), LY(TRANSFER_SRC_OPTIMAL),
		  LY(SHADER_READ_ONLY_OPTIMAL) },
	};
	const uint32_t levels[2] = { last, 0 }, counts[2] = { 1, below };
	mip_barrier(cmd, conservative ? 1 : 2, to_read, levels, counts, a->mip.image);
	pass_begin(a, cmd, a->rp_b, a->fb_b);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->sample.pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->sample.layout, 0, 1, &a->sample_mip, 0, NULL);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	vkCmdEndRenderPass(cmd);
}

static void buffer_range_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
				 VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
				 VkAccessFlags dst_access)
{
	const VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = buffer,
		.offset = offset,
		.size = size,
	};
	vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 1, &b, 0, NULL);
}

/* v's lower part holds data copied from s, its upper part what a compute shader writes.
 * range-buffer-missed / range-buffer-narrow: a barrier on [0, RANGE_HI) after the copy, with
 * dstStageMask VERTEX_SHADER | FRAGMENT_SHADER / FRAGMENT_SHADER; then the compute shader
 * writes [RANGE_HI, ...) and pass B's fragment shader reads [0, RANGE_HI): only the fragment
 * shader consumes the barriered range (per whole buffer the compute write counted too, and a
 * compute consumer cannot be narrowed to a graphics stage).
 * range-buffer-rebind: as range-buffer-missed, but the set that reads [0, RANGE_HI) is replaced
 * by one reading s before the pass ends, so the read is known only from the replaced bind
 * (passprobe holds replaced bound state for the rules: the barrier still has its consumer).
 * range-buffer-false: a barrier on [0, RANGE_HI) with dstStageMask VERTEX_INPUT (right), then
 * a pass whose fragment shader reads [RANGE_HI, ...), a barrier and a copy on [RANGE_HI, 256),
 * and the vertex fetch from 0: per whole buffer the fragment read was taken for the first
 * barrier's consumer. */
static void record_range_buffer(struct app *a, VkCommandBuffer cmd)
{
	bool compute = !is(a, "range-buffer-false");
	/* last frame's reads and writes of v and a */
	const struct img_barrier start[2] = {
		{ a->a.image, ST(COMPUTE_SHADER), 0, ST(COMPUTE_SHADER), AC(SHADER_READ), LY(UNDEFINED),
		  LY(SHADER_READ_ONLY_OPTIMAL) },
		{ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE), ST(COLOR_ATTACHMENT_OUTPUT),
		  AC(COLOR_ATTACHMENT_WRITE), LY(UNDEFINED), LY(COLOR_ATTACHMENT_OPTIMAL) },
	};
	images_barrier(cmd, compute ? 2 : 1, compute ? start : &start[1]);
	buffer_range_barrier(cmd, a->v.buffer, 0, VK_WHOLE_SIZE,
			     ST(VERTEX_INPUT) | ST(COMPUTE_SHADER) | ST(FRAGMENT_SHADER) | ST(TRANSFER),
			     AC(SHADER_WRITE) | AC(TRANSFER_WRITE), ST(TRANSFER) | ST(COMPUTE_SHADER),
			     AC(TRANSFER_WRITE) | AC(SHADER_WRITE));
	copy(cmd, &a->s, &a->v, 24);
	if (compute) {
		VkPipelineStageFlags dst = is(a, "range-buffer-narrow") ? ST(FRAGMENT_SHADER)
									  : ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER);
		buffer_range_barrier(cmd, a->v.buffer, 0, RANGE_HI, ST(TRANSFER), AC(TRANSFER_WRITE), dst, AC(SHADER_READ));
		vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->chain.pipeline);
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, a->chain.layout, 0, 1, &a->chain_hi, 0,
					NULL);
		vkCmdDispatch(cmd, 1, 1, 1);
		pass_begin(a, cmd, a->rp_b, a->fb_b);
		vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->storage.pipeline);
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->storage.layout, 0, 1, &a->storage_lo, 0,
					NULL);
		vkCmdDraw(cmd, 3, 1, 0, 0);
		if (is(a, "range-buffer-rebind")) {
			vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->storage.layout, 0, 1,
						&a->storage_s, 0, NULL);
			vkCmdDraw(cmd, 3, 1, 0, 0);
		}
		vkCmdEndRenderPass(cmd);
		return;
	}
	buffer_range_barrier(cmd, a->v.buffer, 0, RANGE_HI, ST(TRANSFER), AC(TRANSFER_WRITE), ST(VERTEX_INPUT),
			     AC(VERTEX_ATTRIBUTE_READ));
	pass_begin(a, cmd, a->rp_b, a->fb_b);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->storage.pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, a->storage.layout, 0, 1, &a->storage_hi, 0, NULL);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	vkCmdEndRenderPass(cmd);
	/* the upper part is rewritten after that read (write-after-read), and the next pass
	 * writes b again */
	buffer_range_barrier(cmd, a->v.buffer, RANGE_HI, VK_WHOLE_SIZE, ST(FRAGMENT_SHADER), 0, ST(TRANSFER),
			     AC(TRANSFER_WRITE));
	const VkBufferCopy r = { 0, RANGE_HI, 24 };
	vkCmdCopyBuffer(cmd, a->s.buffer, a->v.buffer, 1, &r);
	images_barrier(cmd, 1,
		       &(struct img_barrier){ a->b.image, ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					      ST(COLOR_ATTACHMENT_OUTPUT), AC(COLOR_ATTACHMENT_WRITE),
					      LY(COLOR_ATTACHMENT_OPTIMAL), LY(COLOR_ATTACHMENT_OPTIMAL) });
	pass_b(a, cmd, &a->vertices);
}

/* A frame of small passes that all sample a, each into a target of its own (--barriers N
 * passes). conservative: between two of them a barrier orders a's reads after a's reads
 * (ReadToRead, one call site in the loop), and a's barrier for the passes and the vertex
 * buffer's for the last pass are two calls right after each other (Mergeable). narrow: no
 * barrier between the passes, and the two barriers as one call. */
static void record_redundant(struct app *a, VkCommandBuffer cmd)
{
	/* Last frame's passes sampled a and wrote the targets, its last pass read v. */
	VkImageMemoryBarrier start[REDUNDANT_MAX + 1];
	for (uint32_t i = 0; i <= a->ntargets; i++)
		start[i] = (VkImageMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.srcAccessMask = i ? AC(COLOR_ATTACHMENT_WRITE) : 0,
			.dstAccessMask = AC(COLOR_ATTACHMENT_WRITE),
			.oldLayout = LY(UNDEFINED),
			.newLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = i ? a->targets[i - 1].image : a->a.image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
		};
	vkCmdPipelineBarrier(cmd, ST(FRAGMENT_SHADER) | ST(COLOR_ATTACHMENT_OUTPUT), ST(COLOR_ATTACHMENT_OUTPUT), 0, 0,
			     NULL, 0, NULL, a->ntargets + 1, start);
	buffer_barrier(cmd, a->v.buffer, ST(VERTEX_INPUT), 0, ST(TRANSFER), 0);
	copy(cmd, &a->s, &a->v, 24);
	pass_a(a, cmd);
	const VkImageMemoryBarrier ab = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = AC(COLOR_ATTACHMENT_WRITE),
		.dstAccessMask = AC(SHADER_READ),
		.oldLayout = LY(COLOR_ATTACHMENT_OPTIMAL),
		.newLayout = LY(SHADER_READ_ONLY_OPTIMAL),
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = a->a.image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	const VkBufferMemoryBarrier vb = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = AC(TRANSFER_WRITE),
		.dstAccessMask = AC(VERTEX_ATTRIBUTE_READ),
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = a->v.buffer,
		.size = VK_WHOLE_SIZE,
	};
	if (a->conservative) {
		vkCmdPipelineBarrier(cmd, ST(COLOR_ATTACHMENT_OUTPUT), ST(FRAGMENT_SHADER), 0, 0, NULL, 0, NULL, 1, &ab);
		vkCmdPipelineBarrier(cmd, ST(TRANSFER), ST(VERTEX_INPUT), 0, 0, NULL, 1, &vb, 0, NULL);
	} else {
		vkCmdPipelineBarrier(cmd, ST(COLOR_ATTACHMENT_OUTPUT) | ST(TRANSFER), ST(VERTEX_INPUT) | ST(FRAGMENT_SHADER),
				     0, 0, NULL, 1, &vb, 1, &ab);
	}
	for (uint32_t i = 0; i < a->ntargets; i++) {
		bool last = i + 1 == a->ntargets;
		struct pipeline *p = last ? &a->vertices : &a->sample;
		pass_begin(a, cmd, a->rp_b, a->target_fbs[i]);
		vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
		if (last) {
			const VkDeviceSize off = 0;
			vkCmdBindVertexBuffers(cmd, 0, 1, &a->v.buffer, &off);
			vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4, &a->load);
		} else {
			vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->layout, 0, 1, &p->set, 0, NULL);
		}
		/* --load full-screen triangles: geometry work for the next pass to overlap with */
		vkCmdDraw(cmd, last ? 3 : 3 * (a->load ? a->load : 1), 1, 0, 0);
		vkCmdEndRenderPass(cmd);
		if (a->conservative && i + 2 < a->ntargets)
			vkCmdPipelineBarrier(cmd, ST(FRAGMENT_SHADER), ST(FRAGMENT_SHADER), 0, 0, NULL, 0, NULL, 1,
					     &(VkImageMemoryBarrier){
						     .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
						     .srcAccessMask = AC(SHADER_READ),
						     .dstAccessMask = AC(SHADER_READ),
						     .oldLayout = LY(SHADER_READ_ONLY_OPTIMAL),
						     .newLayout = LY(SHADER_READ_ONLY_OPTIMAL),
						     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
						     .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
						     .image = a->a.image,
						     .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
					     });
	}
}

/* What most renderers do: RENDERER_PASSES render passes with a full barrier
 * between each two, all from this one loop: one code location, seven barriers per recording.
 * Each pass renders a again (write-after-write), which the barrier orders. */
#define RENDERER_PASSES 8
static void record_renderer(struct app *a, VkCommandBuffer cmd)
{
	frame_start_images(a, cmd, ST(COLOR_ATTACHMENT_OUTPUT));
	const VkMemoryBarrier m = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = AC(COLOR_ATTACHMENT_WRITE),
		.dstAccessMask = AC(COLOR_ATTACHMENT_READ) | AC(COLOR_ATTACHMENT_WRITE),
	};
	for (uint32_t i = 0; i < RENDERER_PASSES; i++) {
		if (i)
			vkCmdPipelineBarrier(cmd, ST(BOTTOM_OF_PIPE) | ST(ALL_COMMANDS), ST(TOP_OF_PIPE) | ST(ALL_COMMANDS),
					     0, 1, &m, 0, NULL, 0, NULL);
		pass_a(a, cmd);
	}
}

static void record_baseline(struct app *a, VkCommandBuffer cmd)
{
	frame_start_images(a, cmd, ST(COLOR_ATTACHMENT_OUTPUT));
	pass_a(a, cmd);
}

static void record(struct app *a, VkCommandBuffer cmd, uint32_t slot, uint32_t frame)
{
	if (is(a, "rerecord-plain")) {
		/* The command buffers' first recordings have a finding; later ones only a fill,
		 * which none of passprobe's diagnostics hooks sees: nothing may be counted then. */
		if (frame < SLOTS)
			record_gbuffer(a, cmd, ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER), &a->sample);
		else
			vkCmdFillBuffer(cmd, a->t4.buffer, 0, 256, frame);
	} else if (is(a, "gbuffer-vs"))
		record_gbuffer(a, cmd, ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER), &a->sample);
	else if (is(a, "gbuffer-fs"))
		record_gbuffer(a, cmd, ST(FRAGMENT_SHADER), &a->sample);
	else if (is(a, "gbuffer-vs-reads"))
		record_gbuffer(a, cmd, ST(VERTEX_SHADER) | ST(FRAGMENT_SHADER), &a->sample_vs);
	else if (is(a, "src-too-late"))
		record_src_too_late(a, cmd);
	else if (is(a, "drain-copy")) {
		frame_start_buffers(a, cmd);
		copy(cmd, &a->t1, &a->t2, 4096);
		/* A pure execution dependency: all earlier work, then all later work. */
		vkCmdPipelineBarrier(cmd, ST(BOTTOM_OF_PIPE), ST(TOP_OF_PIPE), 0, 0, NULL, 0, NULL, 0, NULL);
		copy(cmd, &a->t3, &a->t1, 4096); /* overwrites what the first copy read */
	} else if (is(a, "acquire")) {
		images_barrier(cmd, 1,
			       &(struct img_barrier){ a->a.image, ST(ALL_COMMANDS), AC(MEMORY_WRITE), ST(ALL_COMMANDS),
						      AC(TRANSFER_WRITE), LY(UNDEFINED), LY(TRANSFER_DST_OPTIMAL) });
		const VkClearColorValue c = { { 0.5f, 0.5f, 0.5f, 1.0f } };
		const VkImageSubresourceRange r = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
		vkCmdClearColorImage(cmd, a->a.image, LY(TRANSFER_DST_OPTIMAL), &c, 1, &r);
	} else if (is(a, "copy-vertex-all"))
		record_copy_vertex(a, cmd, true);
	else if (is(a, "copy-vertex-narrow"))
		record_copy_vertex(a, cmd, false);
	else if (is(a, "read-to-read"))
		record_read_to_read(a, cmd, false);
	else if (is(a, "read-to-read2"))
		record_read_to_read(a, cmd, true);
	else if (is(a, "duplicate"))
		record_duplicate(a, cmd, false);
	else if (is(a, "duplicate-draw"))
		record_duplicate(a, cmd, true);
	else if (is(a, "frag-compute-vertex"))
		record_chain(a, cmd, true);
	else if (is(a, "frag-compute-fragment"))
		record_chain(a, cmd, false);
	else if (is(a, "set-event-wait"))
		record_set_event(a, cmd, a->events[slot], false);
	else if (is(a, "set-event-work-wait"))
		record_set_event(a, cmd, a->events[slot], true);
	else if (is(a, "stress") || is(a, "stress-ranges"))
		record_stress(a, cmd);
	else if (is(a, "mip-chain") || is(a, "mip-chain-all"))
		record_mip_chain(a, cmd, is(a, "mip-chain-all"));
	else if (!strncmp(a->kase, "range-buffer-", 13))
		record_range_buffer(a, cmd);
	else if (is(a, "cost"))
		record_cost(a, cmd, slot);
	else if (is(a, "redundant"))
		record_redundant(a, cmd);
	else if (is(a, "renderer") || is(a, "renderer-query-wait")) {
		if (is(a, "renderer-query-wait")) {
			vkCmdResetQueryPool(cmd, a->queries, slot * 2, 2);
			vkCmdWriteTimestamp(cmd, ST(TOP_OF_PIPE), a->queries, slot * 2);
		}
		record_renderer(a, cmd);
		if (is(a, "renderer-query-wait"))
			vkCmdWriteTimestamp(cmd, ST(BOTTOM_OF_PIPE), a->queries, slot * 2 + 1);
	}
	else if (a->rp_sub)
		record_subpass(a, cmd);
	else if (two_command_buffers(a))
		record_first(a, cmd);
	else if (!strncmp(a->kase, "mergeable", 9))
		record_mergeable(a, cmd);
	else {
		bool queries = is(a, "query-wait-this-frame") || is(a, "query-poll-two-back");
		if (queries) {
			vkCmdResetQueryPool(cmd, a->queries, slot * 2, 2);
			vkCmdWriteTimestamp(cmd, ST(TOP_OF_PIPE), a->queries, slot * 2);
		}
		record_baseline(a, cmd);
		if (queries)
			vkCmdWriteTimestamp(cmd, ST(BOTTOM_OF_PIPE), a->queries, slot * 2 + 1);
	}
}

static const char *const cases[] = {
	"baseline", "gbuffer-vs", "gbuffer-fs", "gbuffer-vs-reads", "drain-copy", "acquire", "copy-vertex-all",
	"copy-vertex-narrow", "read-to-read", "read-to-read2", "duplicate", "duplicate-draw", "frag-compute-vertex",
	"frag-compute-fragment", "set-event-wait", "set-event-work-wait", "waitidle-every-frame", "waitidle-shutdown",
	"fence-this-frame", "query-wait-this-frame", "query-poll-two-back", "poll-fence", "stress", "cost",
	"devicewaitidle-every-frame", "src-too-late", "rerecord-plain", "semaphore-this-frame", "semaphore-this-frame2",
	"semaphore-two-back", "semaphore-poll", "semaphore-poll-wait0", "subpass-not-by-region", "subpass-not-by-region2",
	"subpass-by-region", "subpass-vertex-stage",
	"split-gbuffer-vs", "split-gbuffer-vs-reads",
	"split-gbuffer-vs-separate", "unused-barrier", "unused-barrier-used-next", "mergeable", "mergeable2",
	"mergeable-draw", "mip-chain", "mip-chain-all", "range-buffer-missed", "range-buffer-narrow",
	"range-buffer-rebind", "range-buffer-false", "stress-ranges", "renderer", "renderer-query-wait", "redundant", NULL,
};

/* ---- the frame loop --------------------------------------------------------------------- */

static void frame(struct app *a, uint32_t f)
{
	uint32_t slot = f % SLOTS;
	VkCommandBuffer cmd = a->cbs[slot];
	if (f >= SLOTS && is(a, "semaphore-two-back")) {
		/* The value frame f - 2 signalled (the well-behaved wait), and a value the host
		 * signals itself (not from a submission). */
		uint64_t old = f - 1, host = f + 1;
		VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
					   .pSemaphores = &a->timeline, .pValues = &old };
		VK_CHECK(a->wait_semaphores(a->device, &wi, UINT64_MAX));
		const VkSemaphoreSignalInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
						   .semaphore = a->host_timeline, .value = host };
		VK_CHECK(vkSignalSemaphore(a->device, &si));
		wi.pSemaphores = &a->host_timeline;
		wi.pValues = &host;
		VK_CHECK(a->wait_semaphores(a->device, &wi, UINT64_MAX));
	}
	if (f >= SLOTS) {
		/* Frames in flight: the fence from two frames back (the well-behaved wait). */
		VK_CHECK(vkWaitForFences(a->device, 1, &a->fences[slot], VK_TRUE, UINT64_MAX));
		VK_CHECK(vkResetFences(a->device, 1, &a->fences[slot]));
		VK_CHECK(vkResetEvent(a->device, a->events[slot]));
		if (is(a, "query-poll-two-back")) {
			/* Results of two frames back, without WAIT_BIT: they are there. */
			uint64_t ts[2];
			VkResult r = vkGetQueryPoolResults(a->device, a->queries, slot * 2, 2, sizeof(ts), ts, 8,
							   VK_QUERY_RESULT_64_BIT);
			if (r != VK_SUCCESS)
				die("query results of two frames back not available (%d)", r);
		}
		if (is(a, "cost")) {
			uint64_t ts[2 * COST_ROUNDS];
			if (vkGetQueryPoolResults(a->device, a->cost_pool, slot * 2 * COST_ROUNDS, 2 * COST_ROUNDS,
						  sizeof(ts), ts, 8, VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
				for (uint32_t i = 0; i < COST_ROUNDS; i++) {
					a->app_barrier_ns += (uint64_t)((double)(ts[2 * i + 1] - ts[2 * i]) * a->timestamp_period);
					a->app_barrier_n++;
				}
		}
	}
	/* The renderer cases re-record each command buffer every frame, implicitly reset by
	 * vkBeginCommandBuffer, for one submission each (the most common engine pattern). */
	const VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = !strncmp(a->kase, "renderer", 8) ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0,
	};
	uint64_t r0 = now_ns();
	VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
	record(a, cmd, slot, f);
	VK_CHECK(vkEndCommandBuffer(cmd));
	VkCommandBuffer both[2] = { cmd, a->cbs2[slot] };
	if (two_command_buffers(a)) {
		VK_CHECK(vkBeginCommandBuffer(both[1], &bi));
		record_second(a, both[1]);
		VK_CHECK(vkEndCommandBuffer(both[1]));
	}
	a->record_ns_total += now_ns() - r0;
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = two_command_buffers(a) ? 2 : 1,
		.pCommandBuffers = both,
	};
	uint64_t s0 = now_ns();
	if (is(a, "split-gbuffer-vs-separate")) {
		/* the same two command buffers, one vkQueueSubmit each */
		si.commandBufferCount = 1;
		VK_CHECK(vkQueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE));
		si.pCommandBuffers = &both[1];
	}
	const uint64_t value = f + 1;
	if (is(a, "semaphore-this-frame2")) {
		const VkCommandBufferSubmitInfo ci = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						       .commandBuffer = cmd };
		const VkSemaphoreSubmitInfo sig = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
						    .semaphore = a->timeline, .value = value,
						    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT };
		const VkSubmitInfo2 s2 = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
					   .pCommandBufferInfos = &ci, .signalSemaphoreInfoCount = 1,
					   .pSignalSemaphoreInfos = &sig };
		VK_CHECK(vkQueueSubmit2(a->queue, 1, &s2, a->fences[slot]));
	} else if (a->timeline) {
		const VkTimelineSemaphoreSubmitInfo ti = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
							   .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &value };
		VkSubmitInfo ts = si;
		ts.pNext = &ti;
		ts.signalSemaphoreCount = 1;
		ts.pSignalSemaphores = &a->timeline;
		VK_CHECK(vkQueueSubmit(a->queue, 1, &ts, a->fences[slot]));
	} else {
		VK_CHECK(vkQueueSubmit(a->queue, 1, &si, a->fences[slot]));
	}
	a->submit_ns_total += now_ns() - s0;
	const VkSemaphoreWaitInfo wait_this = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
						.pSemaphores = &a->timeline, .pValues = &value };

	if (is(a, "waitidle-every-frame")) {
		VK_CHECK(vkQueueWaitIdle(a->queue));
	} else if (is(a, "devicewaitidle-every-frame")) {
		VK_CHECK(vkDeviceWaitIdle(a->device));
	} else if (is(a, "fence-this-frame")) {
		VK_CHECK(vkWaitForFences(a->device, 1, &a->fences[slot], VK_TRUE, UINT64_MAX));
	} else if (is(a, "query-wait-this-frame") || is(a, "renderer-query-wait")) {
		uint64_t ts[2];
		VK_CHECK(vkGetQueryPoolResults(a->device, a->queries, slot * 2, 2, sizeof(ts), ts, 8,
					       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
	} else if (is(a, "semaphore-this-frame") || is(a, "semaphore-this-frame2")) {
		VK_CHECK(a->wait_semaphores(a->device, &wait_this, UINT64_MAX));
	} else if (is(a, "semaphore-poll")) {
		uint32_t polls = 0;
		uint64_t v = 0;
		VK_CHECK(vkGetSemaphoreCounterValue(a->device, a->timeline, &v));
		for (; v < value; polls++)
			VK_CHECK(vkGetSemaphoreCounterValue(a->device, a->timeline, &v));
		if (polls > a->polls_max)
			a->polls_max = polls;
	} else if (is(a, "semaphore-poll-wait0")) {
		uint32_t polls = 0;
		VkResult r;
		while ((r = a->wait_semaphores(a->device, &wait_this, 0)) == VK_TIMEOUT)
			polls++;
		VK_CHECK(r);
		if (polls > a->polls_max)
			a->polls_max = polls;
	} else if (is(a, "poll-fence")) {
		uint32_t polls = 0;
		while (vkGetFenceStatus(a->device, a->fences[slot]) == VK_NOT_READY)
			polls++;
		if (polls > a->polls_max)
			a->polls_max = polls;
	}
}

static uint32_t parse_uint(const char *opt, const char *s, uint32_t min, uint32_t max)
{
	char *end = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < min || v > max)
		die("%s %s: expected an integer from %u to %u", opt, s, min, max);
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	struct app a = { .frames = 6, .barriers = 300, .load = 16, .conservative = true };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--report-callback")) {
			a.report_callback = true;
			continue;
		}
		if (!strcmp(argv[i], "--list")) {
			for (int k = 0; cases[k]; k++)
				puts(cases[k]);
			return 0;
		}
		if (i + 1 >= argc)
			die("%s: missing value", argv[i]);
		const char *v = argv[++i];
		if (!strcmp(argv[i - 1], "--case"))
			a.kase = v;
		else if (!strcmp(argv[i - 1], "--frames"))
			a.frames = parse_uint("--frames", v, 1, 100000);
		else if (!strcmp(argv[i - 1], "--barriers"))
			a.barriers = parse_uint("--barriers", v, 1, 100000);
		else if (!strcmp(argv[i - 1], "--load"))
			a.load = parse_uint("--load", v, 0, 1000000);
		else if (!strcmp(argv[i - 1], "--variant")) {
			if (strcmp(v, "conservative") && strcmp(v, "narrow"))
				die("--variant %s: expected conservative or narrow", v);
			a.conservative = !strcmp(v, "conservative");
		} else
			die("unknown option %s", argv[i - 1]);
	}
	bool known = false;
	for (int k = 0; a.kase && cases[k]; k++)
		known |= !strcmp(cases[k], a.kase);
	if (!known)
		die("--case: one of the names --list prints is required");

	instance_create(&a);
	device_create(&a);
	resources_create(&a);
	uint64_t t0 = now_ns();
	for (uint32_t f = 0; f < a.frames; f++)
		frame(&a, f);
	uint64_t t1 = now_ns();
	/* Shutdown: one idle wait, which no rule may count. */
	if (is(&a, "waitidle-shutdown"))
		VK_CHECK(vkQueueWaitIdle(a.queue));
	else
		VK_CHECK(vkDeviceWaitIdle(a.device));
	teardown(&a);

	for (uint32_t i = 0; i < g_nseen; i++)
		printf("message %s %s %u %u :: %s\n", g_seen[i].severity, g_seen[i].id, g_seen[i].count, g_seen[i].objects,
		       g_seen[i].first);
	if (a.report_callback)
		printf("report-callbacks %u\n", g_report_callbacks);
	if (is(&a, "poll-fence") || is(&a, "semaphore-poll") || is(&a, "semaphore-poll-wait0"))
		printf("polls-max %u\n", a.polls_max);
	printf("frame-ms %.3f\n", (double)(t1 - t0) / 1e6 / a.frames);
	printf("record-us %.1f\n", (double)a.record_ns_total / 1e3 / a.frames);
	printf("submit-us %.1f\n", (double)a.submit_ns_total / 1e3 / a.frames);
	if (a.app_barrier_n)
		printf("app-barrier-ns %llu\n", (unsigned long long)(a.app_barrier_ns / a.app_barrier_n));
	printf("done %s %u\n", a.kase, a.frames);
	return 0;
}
