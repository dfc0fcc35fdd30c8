/* pp_testapp: headless Vulkan 1.3 program doing exactly-known GPU work, for passprobe's
 * integration tests (tests/integration, docs/testing-integration.md). Each scenario records
 * a known number of passes, draws, vertices, dispatches and copies, so the checkers can
 * compare what the layer reports with what was done.
 *
 *   pp_testapp --scenario NAME [options]
 *
 * Exit 0 on success; on failure one line on stderr and exit 1. Nothing else is printed. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define APP "pp_testapp"
#include "pp_test_vk.h"
#define MAX_LOADS 8
#define MAX_PASSES 256

static const uint32_t tri_vert[] =
#include "tri.vert.inc"
	;
static const uint32_t solid_frag[] =
#include "solid.frag.inc"
	;
static const uint32_t fullscreen_vert[] =
#include "fullscreen.vert.inc"
	;
static const uint32_t load_frag[] =
#include "load.frag.inc"
	;
static const uint32_t fill_comp[] =
#include "fill.comp.inc"
	;

enum app_api { API_RENDER_PASS, API_RENDER_PASS2, API_DYNAMIC };
enum app_naming { NAMING_LABEL, NAMING_OBJECT, NAMING_NONE };
enum app_early { EARLY_PUSH_CONSTANTS, EARLY_UNIFORM, EARLY_STORAGE, EARLY_COMPUTE_UNIFORM };

struct app_options {
	const char *scenario;
	bool proc_title; /* overwrite argv[0] before Vulkan starts, as a process title does */
	uint32_t passes, draws, frames, vertices, instances;
	uint32_t loads[MAX_LOADS], nloads;
	uint32_t base_iterations;
	uint32_t times;
	/* counts: capture triggers (passprobe's capture windows) before recording these frames */
	uint32_t signal_at[8], nsignal_at; /* raise(SIGUSR2) */
	uint32_t trigger_at;               /* create trigger_file (UINT32_MAX: never) */
	const char *trigger_file;
	uint32_t d1, d2;          /* suspend-resume; secondary: draws in the two secondaries */
	uint32_t size;            /* render target width = height */
	enum app_api api;
	enum app_naming naming;
	bool provoke_validation_error;
	bool provoke_sync_hazard;
	bool one_call;   /* multi-submit: the three batches in one vkQueueSubmit; simultaneous: both
			  * executions in one batch */
	bool use_submit2; /* simultaneous: vkQueueSubmit2 */
	bool span_label; /* multi-submit: a label open from the first submit to the third */
	/* waits: 0 fence wait (and a vkQueueWaitIdle); 'q'/'d': no fence, vkQueueWaitIdle or
	 * vkDeviceWaitIdle alone ends each frame's wait */
	char idle_wait;
	/* --vulkan: the instance's apiVersion; below 1.3 the device enables no feature or
	 * extension (what a Vulkan 1.0 program such as vkcube does). */
	uint32_t vulkan;
	enum app_early early; /* state-before-pipeline */
};

struct app_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
};

struct app {
	struct app_options opt;
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkPhysicalDeviceMemoryProperties memory_properties;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT end_label;
	PFN_vkSetDebugUtilsObjectNameEXT set_object_name;

	VkCommandPool pool;
	VkFence fence;

	/* the colour target */
	VkImage image;
	VkDeviceMemory image_memory;
	VkImageView view;
	VkRenderPass render_pass;   /* LOAD_OP_CLEAR, inline contents or secondaries */
	VkFramebuffer framebuffer;
	VkRenderPass named_render_passes[MAX_PASSES]; /* --naming object: one per pass */
	VkFramebuffer named_framebuffers[MAX_PASSES];

	VkPipelineLayout graphics_layout; /* push constant: load iterations */
	VkPipeline tri_pipeline;          /* for render_pass */
	VkPipeline tri_dynamic_pipeline;  /* for dynamic rendering */
	VkPipeline load_pipeline;         /* for render_pass */

	VkDescriptorSetLayout set_layout;
	VkDescriptorPool descriptor_pool;
	VkDescriptorSet set;
	VkPipelineLayout compute_layout;
	VkPipeline compute_pipeline;
	struct app_buffer storage;        /* 4096 bytes, written by fill.comp */
	struct app_buffer staging;        /* 4096 bytes, copy source */
};

/* ---- options -------------------------------------------------------------------------- */

static uint32_t parse_uint(const char *opt, const char *s, uint32_t min, uint32_t max)
{
	char *end = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < min || v > max)
		die("%s %s: expected an integer from %u to %u", opt, s, min, max);
	return (uint32_t)v;
}

static void parse_loads(struct app_options *o, const char *s)
{
	o->nloads = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nloads == MAX_LOADS)
			die("--loads: at most %d factors", MAX_LOADS);
		o->loads[o->nloads++] = parse_uint("--loads", tok, 1, 1024);
	}
	if (!o->nloads)
		die("--loads: empty list");
}

static const char usage_text[] =
	"usage: " APP " --scenario NAME [options]\n"
	"scenarios: counts, counts-unlabeled, counts-anonymous, load, resubmit, secondary,\n"
	"           state-before-pipeline,\n"
	"           suspend-resume, free-pending,\n"
	"           compute-transfer, waits, submit2, multi-submit, cpu-work, cpu-threads,\n"
	"           simultaneous\n"
	"options: --passes P --draws D --frames F --vertices V --instances I\n"
	"         --api renderpass|renderpass2|dynamic --naming label|object|none\n"
	"         --loads 1,4,16 --base-iterations N --times N --d1 N --d2 N --size PIXELS\n"
	"         --one-call --span-label (multi-submit)\n"
	"         --one-call --submit2 (simultaneous)\n"
	"         --idle-wait queue|device (waits: submit without a fence, then vkQueueWaitIdle or\n"
	"           vkDeviceWaitIdle instead of the fence wait, the headless frame of a tutorial)\n"
	"         --vulkan 1.0|1.1|1.3 (instance apiVersion; below 1.3 no device features or\n"
	"           extensions: --api renderpass, no vkQueueSubmit2)\n"
	"         --provoke-validation-error --provoke-sync-hazard (compute-transfer)\n"
	"         --early push-constants|uniform|storage|compute-uniform (state-before-pipeline)\n"
	"         --signal-at 3,7 (counts: raise SIGUSR2 before recording these frames)\n"
	"         --trigger-at N --trigger-file PATH (counts: create PATH before recording frame N)\n"
	"         --proc-title (write a process title over argv[0]'s memory before Vulkan starts, as\n"
	"           Chromium's GPU process does)\n";

static void options_parse(struct app_options *o, int argc, char **argv)
{
	*o = (struct app_options){
		.passes = 3, .draws = 5, .frames = 4, .vertices = 3, .instances = 1,
		.loads = { 1, 4, 16 }, .nloads = 3, .base_iterations = 64, .times = 4,
		.d1 = 3, .d2 = 4, .size = 0, .api = API_RENDER_PASS, .naming = NAMING_LABEL,
		.vulkan = VK_API_VERSION_1_3, .early = EARLY_UNIFORM, .trigger_at = UINT32_MAX,
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--provoke-validation-error")) {
			o->provoke_validation_error = true;
			continue;
		}
		if (!strcmp(a, "--provoke-sync-hazard")) {
			o->provoke_sync_hazard = true;
			continue;
		}
		if (!strcmp(a, "--one-call")) {
			o->one_call = true;
			continue;
		}
		if (!strcmp(a, "--submit2")) {
			o->use_submit2 = true;
			continue;
		}
		if (!strcmp(a, "--span-label")) {
			o->span_label = true;
			continue;
		}
		if (!strcmp(a, "--proc-title")) {
			o->proc_title = true;
			continue;
		}
		if (!strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (i + 1 >= argc)
			die("%s: missing value\n%s", a, usage_text);
		const char *v = argv[++i];
		if (!strcmp(a, "--scenario"))
			o->scenario = v;
		else if (!strcmp(a, "--passes"))
			o->passes = parse_uint(a, v, 1, MAX_PASSES);
		else if (!strcmp(a, "--draws"))
			o->draws = parse_uint(a, v, 0, 100000);
		else if (!strcmp(a, "--frames"))
			o->frames = parse_uint(a, v, 1, 100000);
		else if (!strcmp(a, "--idle-wait")) {
			if (strcmp(v, "queue") && strcmp(v, "device"))
				die("--idle-wait: queue or device, not '%s'\n", v);
			o->idle_wait = v[0] == 'q' ? 'q' : 'd';
		}
		else if (!strcmp(a, "--signal-at")) {
			char buf[128];
			snprintf(buf, sizeof(buf), "%s", v);
			for (char *t = strtok(buf, ","); t && o->nsignal_at < 8; t = strtok(NULL, ","))
				o->signal_at[o->nsignal_at++] = parse_uint(a, t, 0, 100000);
		} else if (!strcmp(a, "--trigger-at"))
			o->trigger_at = parse_uint(a, v, 0, 100000);
		else if (!strcmp(a, "--trigger-file"))
			o->trigger_file = v;
		else if (!strcmp(a, "--vertices"))
			o->vertices = parse_uint(a, v, 1, 1000000);
		else if (!strcmp(a, "--instances"))
			o->instances = parse_uint(a, v, 1, 1000);
		else if (!strcmp(a, "--loads"))
			parse_loads(o, v);
		else if (!strcmp(a, "--base-iterations"))
			o->base_iterations = parse_uint(a, v, 1, 1000000);
		else if (!strcmp(a, "--times"))
			o->times = parse_uint(a, v, 1, 100000);
		else if (!strcmp(a, "--d1"))
			o->d1 = parse_uint(a, v, 0, 100000);
		else if (!strcmp(a, "--d2"))
			o->d2 = parse_uint(a, v, 0, 100000);
		else if (!strcmp(a, "--size"))
			o->size = parse_uint(a, v, 1, 4096);
		else if (!strcmp(a, "--vulkan")) {
			if (!strcmp(v, "1.0"))
				o->vulkan = VK_API_VERSION_1_0;
			else if (!strcmp(v, "1.1"))
				o->vulkan = VK_API_VERSION_1_1;
			else if (!strcmp(v, "1.3"))
				o->vulkan = VK_API_VERSION_1_3;
			else
				die("--vulkan %s: expected 1.0, 1.1 or 1.3", v);
		} else if (!strcmp(a, "--api")) {
			if (!strcmp(v, "renderpass"))
				o->api = API_RENDER_PASS;
			else if (!strcmp(v, "renderpass2"))
				o->api = API_RENDER_PASS2;
			else if (!strcmp(v, "dynamic"))
				o->api = API_DYNAMIC;
			else
				die("--api %s: expected renderpass, renderpass2 or dynamic", v);
		} else if (!strcmp(a, "--early")) {
			if (!strcmp(v, "push-constants"))
				o->early = EARLY_PUSH_CONSTANTS;
			else if (!strcmp(v, "uniform"))
				o->early = EARLY_UNIFORM;
			else if (!strcmp(v, "storage"))
				o->early = EARLY_STORAGE;
			else if (!strcmp(v, "compute-uniform"))
				o->early = EARLY_COMPUTE_UNIFORM;
			else
				die("--early %s: expected push-constants, uniform, storage or compute-uniform", v);
		} else if (!strcmp(a, "--naming")) {
			if (!strcmp(v, "label"))
				o->naming = NAMING_LABEL;
			else if (!strcmp(v, "object"))
				o->naming = NAMING_OBJECT;
			else if (!strcmp(v, "none"))
				o->naming = NAMING_NONE;
			else
				die("--naming %s: expected label, object or none", v);
		} else
			die("unknown option %s\n%s", a, usage_text);
	}
	if (!o->scenario)
		die("--scenario is required\n%s", usage_text);
	/* The counts variants by name: object names only, and neither labels nor names. */
	if (!strcmp(o->scenario, "counts-unlabeled")) {
		o->scenario = "counts";
		o->naming = NAMING_OBJECT;
	} else if (!strcmp(o->scenario, "counts-anonymous")) {
		o->scenario = "counts";
		o->naming = NAMING_NONE;
	}
	if (o->vulkan < VK_API_VERSION_1_3 &&
	    (o->api != API_RENDER_PASS || o->use_submit2 || !strcmp(o->scenario, "submit2") ||
	     !strcmp(o->scenario, "suspend-resume")))
		die("--vulkan below 1.3 needs --api renderpass and no vkQueueSubmit2 or dynamic rendering");
	if (o->naming == NAMING_OBJECT && o->api == API_DYNAMIC)
		die("--naming object needs --api renderpass or renderpass2");
	if (!o->size)
		o->size = !strcmp(o->scenario, "load") ? 256 : 64;
}

/* ---- device --------------------------------------------------------------------------- */

static void instance_create(struct app *a)
{
	uint32_t version = VK_API_VERSION_1_0;
	VK_CHECK(vkEnumerateInstanceVersion(&version));
	if (version < VK_API_VERSION_1_3)
		die("the Vulkan loader offers %u.%u; 1.3 is required", VK_API_VERSION_MAJOR(version),
		    VK_API_VERSION_MINOR(version));
	const char *extensions[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	const VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = APP,
		.apiVersion = a->opt.vulkan,
	};
	const VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = extensions,
	};
	VK_CHECK(vkCreateInstance(&info, NULL, &a->instance));
	a->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(a->instance,
										  "vkCmdBeginDebugUtilsLabelEXT");
	a->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(a->instance,
									      "vkCmdEndDebugUtilsLabelEXT");
	a->set_object_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
		a->instance, "vkSetDebugUtilsObjectNameEXT");
	if (!a->begin_label || !a->end_label || !a->set_object_name)
		die("VK_EXT_debug_utils entry points missing");
}

static void device_create(struct app *a)
{
	uint32_t n = 0;
	VK_CHECK(vkEnumeratePhysicalDevices(a->instance, &n, NULL));
	VkPhysicalDevice devices[16];
	if (n > 16)
		n = 16;
	VK_CHECK(vkEnumeratePhysicalDevices(a->instance, &n, devices));
	a->family = UINT32_MAX;
	for (uint32_t d = 0; d < n && a->family == UINT32_MAX; d++) {
		VkPhysicalDeviceProperties props;
		vkGetPhysicalDeviceProperties(devices[d], &props);
		if (props.apiVersion < VK_API_VERSION_1_3)
			continue;
		uint32_t nf = 0;
		vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &nf, NULL);
		VkQueueFamilyProperties fam[16];
		if (nf > 16)
			nf = 16;
		vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &nf, fam);
		const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
		for (uint32_t f = 0; f < nf; f++)
			if ((fam[f].queueFlags & want) == want && fam[f].timestampValidBits) {
				a->family = f;
				a->physical_device = devices[d];
				break;
			}
	}
	if (a->family == UINT32_MAX)
		die("no Vulkan 1.3 device with a graphics+compute queue with timestamps");
	vkGetPhysicalDeviceMemoryProperties(a->physical_device, &a->memory_properties);

	VkPhysicalDeviceVulkan13Features f13 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
		.dynamicRendering = VK_TRUE,
		.synchronization2 = VK_TRUE,
	};
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = a->family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = a->opt.vulkan >= VK_API_VERSION_1_3 ? &f13 : NULL,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
	};
	VK_CHECK(vkCreateDevice(a->physical_device, &info, NULL, &a->device));
	vkGetDeviceQueue(a->device, a->family, 0, &a->queue);

	const VkCommandPoolCreateInfo pool = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = a->family,
	};
	VK_CHECK(vkCreateCommandPool(a->device, &pool, NULL, &a->pool));
	const VkFenceCreateInfo fence = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VK_CHECK(vkCreateFence(a->device, &fence, NULL, &a->fence));
}

static void object_name(struct app *a, VkObjectType type, uint64_t handle, const char *name)
{
	const VkDebugUtilsObjectNameInfoEXT info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = type,
		.objectHandle = handle,
		.pObjectName = name,
	};
	VK_CHECK(a->set_object_name(a->device, &info));
}

static void buffer_create(struct app *a, struct app_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage)
{
	pp_test_vk_buffer_create(a->device, &a->memory_properties, size, usage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
			    &b->buffer, &b->memory);
}

static void buffer_destroy(struct app *a, struct app_buffer *b)
{
	if (b->buffer)
		vkDestroyBuffer(a->device, b->buffer, NULL);
	if (b->memory)
		vkFreeMemory(a->device, b->memory, NULL);
}

/* ---- render target, render passes, pipelines ------------------------------------------ */

/* Consecutive passes write the same image: each is ordered after the previous one's writes. */
static VkRenderPass render_pass_create(struct app *a)
{
	VkRenderPass rp;
	VK_CHECK(pp_test_vk_color_pass(a->device, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_LAYOUT_UNDEFINED,
				  VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT, &rp));
	return rp;
}

static VkFramebuffer framebuffer_create(struct app *a, VkRenderPass rp)
{
	VkFramebuffer fb;
	VK_CHECK(pp_test_vk_framebuffer(a->device, rp, a->view, a->opt.size, a->opt.size, &fb));
	return fb;
}

static void target_create(struct app *a)
{
	const VkImageCreateInfo image = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { a->opt.size, a->opt.size, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	pp_test_vk_image_create(a->device, &a->memory_properties, &image, &a->image, &a->image_memory);
	VK_CHECK(pp_test_vk_color_view(a->device, a->image, VK_FORMAT_R8G8B8A8_UNORM, &a->view));
	a->render_pass = render_pass_create(a);
	a->framebuffer = framebuffer_create(a, a->render_pass);
}

static void graphics_layout_create(struct app *a)
{
	const VkPushConstantRange range = { VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(uint32_t) };
	const VkPipelineLayoutCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &range,
	};
	VK_CHECK(vkCreatePipelineLayout(a->device, &info, NULL, &a->graphics_layout));
}

/* rp == VK_NULL_HANDLE: a pipeline for dynamic rendering into one R8G8B8A8 attachment. */
static VkPipeline graphics_pipeline_create(struct app *a, const uint32_t *vs, size_t vs_size, const uint32_t *fs,
					   size_t fs_size, VkRenderPass rp)
{
	VkShaderModule vm = pp_test_vk_shader_module(a->device, vs, vs_size);
	VkShaderModule fm = pp_test_vk_shader_module(a->device, fs, fs_size);
	const VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		  .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vm, .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		  .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fm, .pName = "main" },
	};
	const VkPipelineVertexInputStateCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	const VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	const VkViewport viewport = { 0, 0, (float)a->opt.size, (float)a->opt.size, 0, 1 };
	const VkRect2D scissor = { { 0, 0 }, { a->opt.size, a->opt.size } };
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
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.lineWidth = 1.0f,
	};
	const VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	const VkPipelineColorBlendAttachmentState blend_att = { .colorWriteMask = 0xf };
	const VkPipelineColorBlendStateCreateInfo cb = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend_att,
	};
	const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
	const VkPipelineRenderingCreateInfo rendering = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
		.colorAttachmentCount = 1,
		.pColorAttachmentFormats = &format,
	};
	const VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.pNext = rp ? NULL : &rendering,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vi,
		.pInputAssemblyState = &ia,
		.pViewportState = &vp,
		.pRasterizationState = &rs,
		.pMultisampleState = &ms,
		.pColorBlendState = &cb,
		.layout = a->graphics_layout,
		.renderPass = rp,
	};
	VkPipeline p;
	VK_CHECK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &info, NULL, &p));
	vkDestroyShaderModule(a->device, vm, NULL);
	vkDestroyShaderModule(a->device, fm, NULL);
	return p;
}

static void graphics_create(struct app *a)
{
	target_create(a);
	graphics_layout_create(a);
	a->tri_pipeline = graphics_pipeline_create(a, tri_vert, sizeof(tri_vert), solid_frag, sizeof(solid_frag),
						   a->render_pass);
	/* Dynamic rendering needs the 1.3 device (--vulkan below 1.3 has --api renderpass). */
	if (a->opt.vulkan >= VK_API_VERSION_1_3)
		a->tri_dynamic_pipeline = graphics_pipeline_create(a, tri_vert, sizeof(tri_vert), solid_frag,
								   sizeof(solid_frag), VK_NULL_HANDLE);
}

/* A set layout, pool and set holding a->storage as one buffer descriptor of `type` for
 * `stages`, and a pipeline layout (a->compute_layout) of that one set. */
static void one_buffer_set_create(struct app *a, VkDescriptorType type, VkShaderStageFlags stages)
{
	const VkDescriptorSetLayoutBinding binding = {
		.binding = 0,
		.descriptorType = type,
		.descriptorCount = 1,
		.stageFlags = stages,
	};
	const VkDescriptorSetLayoutCreateInfo sl = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 1,
		.pBindings = &binding,
	};
	VK_CHECK(vkCreateDescriptorSetLayout(a->device, &sl, NULL, &a->set_layout));
	const VkDescriptorPoolSize size = { type, 1 };
	const VkDescriptorPoolCreateInfo dp = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VK_CHECK(vkCreateDescriptorPool(a->device, &dp, NULL, &a->descriptor_pool));
	const VkDescriptorSetAllocateInfo ds = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = a->descriptor_pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &a->set_layout,
	};
	VK_CHECK(vkAllocateDescriptorSets(a->device, &ds, &a->set));
	const VkDescriptorBufferInfo bi = { a->storage.buffer, 0, VK_WHOLE_SIZE };
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = a->set,
		.dstBinding = 0,
		.descriptorCount = 1,
		.descriptorType = type,
		.pBufferInfo = &bi,
	};
	vkUpdateDescriptorSets(a->device, 1, &w, 0, NULL);
	const VkPipelineLayoutCreateInfo pl = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &a->set_layout,
	};
	VK_CHECK(vkCreatePipelineLayout(a->device, &pl, NULL, &a->compute_layout));
}

static void compute_create(struct app *a)
{
	buffer_create(a, &a->storage, 4096,
		      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
	buffer_create(a, &a->staging, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
	one_buffer_set_create(a, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_COMPUTE_BIT);
	VkShaderModule m = pp_test_vk_shader_module(a->device, fill_comp, sizeof(fill_comp));
	const VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			   .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = m, .pName = "main" },
		.layout = a->compute_layout,
	};
	VK_CHECK(vkCreateComputePipelines(a->device, VK_NULL_HANDLE, 1, &info, NULL, &a->compute_pipeline));
	vkDestroyShaderModule(a->device, m, NULL);
}

static void app_destroy(struct app *a)
{
	if (!a->device)
		return;
	VK_CHECK(vkDeviceWaitIdle(a->device));
	VkDevice d = a->device;
	vkDestroyPipeline(d, a->compute_pipeline, NULL);
	vkDestroyPipelineLayout(d, a->compute_layout, NULL);
	vkDestroyDescriptorPool(d, a->descriptor_pool, NULL);
	vkDestroyDescriptorSetLayout(d, a->set_layout, NULL);
	buffer_destroy(a, &a->storage);
	buffer_destroy(a, &a->staging);
	vkDestroyPipeline(d, a->tri_pipeline, NULL);
	vkDestroyPipeline(d, a->tri_dynamic_pipeline, NULL);
	vkDestroyPipeline(d, a->load_pipeline, NULL);
	vkDestroyPipelineLayout(d, a->graphics_layout, NULL);
	for (uint32_t i = 0; i < MAX_PASSES; i++) {
		vkDestroyFramebuffer(d, a->named_framebuffers[i], NULL);
		vkDestroyRenderPass(d, a->named_render_passes[i], NULL);
	}
	vkDestroyFramebuffer(d, a->framebuffer, NULL);
	vkDestroyRenderPass(d, a->render_pass, NULL);
	vkDestroyImageView(d, a->view, NULL);
	vkDestroyImage(d, a->image, NULL);
	vkFreeMemory(d, a->image_memory, NULL);
	vkDestroyFence(d, a->fence, NULL);
	vkDestroyCommandPool(d, a->pool, NULL);
	vkDestroyDevice(d, NULL);
	vkDestroyInstance(a->instance, NULL);
}

/* ---- recording helpers ---------------------------------------------------------------- */

static VkCommandBuffer command_buffer_allocate(struct app *a, VkCommandPool pool, VkCommandBufferLevel level)
{
	const VkCommandBufferAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = level,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cb;
	VK_CHECK(vkAllocateCommandBuffers(a->device, &info, &cb));
	return cb;
}

static void label_begin(struct app *a, VkCommandBuffer cb, const char *name)
{
	const VkDebugUtilsLabelEXT label = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name };
	a->begin_label(cb, &label);
}

static void label_end(struct app *a, VkCommandBuffer cb)
{
	a->end_label(cb);
}

static void render_pass_begin(struct app *a, VkCommandBuffer cb, VkRenderPass rp, VkFramebuffer fb,
			      VkSubpassContents contents)
{
	const VkClearValue clear = { .color = { { 0.0f, 0.0f, 0.0f, 1.0f } } };
	const VkRenderPassBeginInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = rp,
		.framebuffer = fb,
		.renderArea = { { 0, 0 }, { a->opt.size, a->opt.size } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	if (a->opt.api == API_RENDER_PASS2) {
		const VkSubpassBeginInfo sb = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO, .contents = contents };
		vkCmdBeginRenderPass2(cb, &info, &sb);
	} else {
		vkCmdBeginRenderPass(cb, &info, contents);
	}
}

static void render_pass_end(struct app *a, VkCommandBuffer cb)
{
	if (a->opt.api == API_RENDER_PASS2) {
		const VkSubpassEndInfo se = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
		vkCmdEndRenderPass2(cb, &se);
	} else {
		vkCmdEndRenderPass(cb);
	}
}

/* Dynamic rendering needs the target in COLOR_ATTACHMENT_OPTIMAL; its contents are not kept. */
static void target_to_attachment(struct app *a, VkCommandBuffer cb)
{
	const VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT,
		.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = a->image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Later dynamic-rendering passes on the same image: attachment writes ordered, layout kept. */
static void attachment_to_attachment(struct app *a, VkCommandBuffer cb)
{
	const VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			     VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 1, &b, 0, NULL, 0, NULL);
}

static void rendering_begin(struct app *a, VkCommandBuffer cb, VkRenderingFlags flags)
{
	const VkRenderingAttachmentInfo color = {
		.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
		.imageView = a->view,
		.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.clearValue = { .color = { { 0.0f, 0.0f, 0.0f, 1.0f } } },
	};
	const VkRenderingInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
		.flags = flags,
		.renderArea = { { 0, 0 }, { a->opt.size, a->opt.size } },
		.layerCount = 1,
		.colorAttachmentCount = 1,
		.pColorAttachments = &color,
	};
	vkCmdBeginRendering(cb, &info);
}

static void draws(struct app *a, VkCommandBuffer cb, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		vkCmdDraw(cb, a->opt.vertices, a->opt.instances, 0, 0);
}

/* Submits command buffers in one batch with the fence, waits for it and resets it. */
static void submit_wait(struct app *a, const VkCommandBuffer *cbs, uint32_t n)
{
	pp_test_vk_submit_wait(a->device, a->queue, a->fence, cbs, n);
}

static void submit2_wait(struct app *a, VkCommandBuffer cb)
{
	const VkCommandBufferSubmitInfo cbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
						.commandBuffer = cb };
	const VkSubmitInfo2 info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
		.commandBufferInfoCount = 1,
		.pCommandBufferInfos = &cbi,
	};
	VK_CHECK(vkQueueSubmit2(a->queue, 1, &info, a->fence));
	VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
	VK_CHECK(vkResetFences(a->device, 1, &a->fence));
}

/* ---- scenarios ------------------------------------------------------------------------ */

/* P passes of D draws each; named by labels "pass<i>", object names "objpass<i>", or not. */
static void record_counts(struct app *a, VkCommandBuffer cb)
{
	const struct app_options *o = &a->opt;
	pp_test_vk_begin(cb);
	if (o->api == API_DYNAMIC)
		target_to_attachment(a, cb);
	for (uint32_t p = 0; p < o->passes; p++) {
		char name[32];
		snprintf(name, sizeof(name), "pass%u", p);
		if (o->naming == NAMING_LABEL)
			label_begin(a, cb, name);
		if (o->api == API_DYNAMIC) {
			if (p)
				attachment_to_attachment(a, cb);
			rendering_begin(a, cb, 0);
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_dynamic_pipeline);
			draws(a, cb, o->draws);
			vkCmdEndRendering(cb);
		} else {
			bool named = o->naming == NAMING_OBJECT;
			render_pass_begin(a, cb, named ? a->named_render_passes[p] : a->render_pass,
					  named ? a->named_framebuffers[p] : a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
			draws(a, cb, o->draws);
			render_pass_end(a, cb);
		}
		if (o->naming == NAMING_LABEL)
			label_end(a, cb);
	}
	VK_CHECK(vkEndCommandBuffer(cb));
}

static void scenario_counts(struct app *a, bool use_submit2)
{
	graphics_create(a);
	if (a->opt.naming == NAMING_OBJECT)
		for (uint32_t p = 0; p < a->opt.passes; p++) {
			char name[32];
			snprintf(name, sizeof(name), "objpass%u", p);
			a->named_render_passes[p] = render_pass_create(a);
			a->named_framebuffers[p] = framebuffer_create(a, a->named_render_passes[p]);
			object_name(a, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)a->named_render_passes[p], name);
		}
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		for (uint32_t i = 0; i < a->opt.nsignal_at; i++)
			if (a->opt.signal_at[i] == f)
				raise(SIGUSR2);
		if (f == a->opt.trigger_at && a->opt.trigger_file) {
			FILE *t = fopen(a->opt.trigger_file, "w");
			if (!t)
				die("cannot create %s\n", a->opt.trigger_file);
			fclose(t);
		}
		record_counts(a, cb);
		if (use_submit2)
			submit2_wait(a, cb);
		else
			submit_wait(a, &cb, 1);
	}
}

/* Passes "load<k>" drawing one full-screen triangle whose fragment shader loops
 * k x base-iterations times: GPU time proportional to k on a software rasterizer. */
static void scenario_load(struct app *a)
{
	graphics_create(a);
	a->load_pipeline = graphics_pipeline_create(a, fullscreen_vert, sizeof(fullscreen_vert), load_frag,
						    sizeof(load_frag), a->render_pass);
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		for (uint32_t i = 0; i < a->opt.nloads; i++) {
			char name[32];
			snprintf(name, sizeof(name), "load%u", a->opt.loads[i]);
			uint32_t iterations = a->opt.loads[i] * a->opt.base_iterations;
			label_begin(a, cb, name);
			render_pass_begin(a, cb, a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->load_pipeline);
			vkCmdPushConstants(cb, a->graphics_layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(iterations),
					   &iterations);
			vkCmdDraw(cb, 3, 1, 0, 0);
			render_pass_end(a, cb);
			label_end(a, cb);
		}
		VK_CHECK(vkEndCommandBuffer(cb));
		submit_wait(a, &cb, 1);
	}
}

/* Passes "first" and "second" of --draws draws each, into a begun cb, which it ends. */
static void record_first_second(struct app *a, VkCommandBuffer cb)
{
	const char *names[2] = { "first", "second" };
	for (uint32_t p = 0; p < 2; p++) {
		label_begin(a, cb, names[p]);
		render_pass_begin(a, cb, a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
		draws(a, cb, a->opt.draws);
		render_pass_end(a, cb);
		label_end(a, cb);
	}
	VK_CHECK(vkEndCommandBuffer(cb));
}

/* One recording ("first", "second"), submitted --times times. */
static void scenario_resubmit(struct app *a)
{
	graphics_create(a);
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	pp_test_vk_begin(cb);
	record_first_second(a, cb);
	for (uint32_t t = 0; t < a->opt.times; t++)
		submit_wait(a, &cb, 1);
}

/* One SIMULTANEOUS_USE recording ("first", "second"), executed twice per frame without a wait
 * in between, so that both executions are pending together: in two submit calls (the second
 * with the fence), or with --one-call twice in one batch; --submit2 uses vkQueueSubmit2.
 * --times frames. */
static void scenario_simultaneous(struct app *a)
{
	graphics_create(a);
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					      .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT };
	VK_CHECK(vkBeginCommandBuffer(cb, &bi));
	record_first_second(a, cb);
	const VkCommandBuffer two[2] = { cb, cb };
	const VkCommandBufferSubmitInfo cbi[2] = {
		{ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb },
		{ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb },
	};
	uint32_t per_batch = a->opt.one_call ? 2 : 1;
	for (uint32_t t = 0; t < a->opt.times; t++) {
		for (uint32_t k = 0; k < 2 / per_batch; k++) {
			VkFence fence = k + 1 == 2 / per_batch ? a->fence : VK_NULL_HANDLE;
			if (a->opt.use_submit2) {
				const VkSubmitInfo2 info = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
							     .commandBufferInfoCount = per_batch, .pCommandBufferInfos = cbi };
				VK_CHECK(vkQueueSubmit2(a->queue, 1, &info, fence));
			} else {
				const VkSubmitInfo info = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
							    .commandBufferCount = per_batch, .pCommandBuffers = two };
				VK_CHECK(vkQueueSubmit(a->queue, 1, &info, fence));
			}
		}
		VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
		VK_CHECK(vkResetFences(a->device, 1, &a->fence));
	}
}

/* "secondary-pass": a render pass (or with --api dynamic, dynamic rendering) whose draws
 * (d1 + d2) come from two secondaries;
 * "outside-secondary": a secondary with one 4x3x2 dispatch executed outside render passes. */
static void scenario_secondary(struct app *a)
{
	graphics_create(a);
	compute_create(a);
	VkCommandBuffer sec[2], comp;
	bool dynamic = a->opt.api == API_DYNAMIC;
	const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
	const VkCommandBufferInheritanceRenderingInfo inherit_rendering = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_RENDERING_INFO,
		.colorAttachmentCount = 1,
		.pColorAttachmentFormats = &format,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	const VkCommandBufferInheritanceInfo inherit = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
		.pNext = dynamic ? &inherit_rendering : NULL,
		.renderPass = dynamic ? VK_NULL_HANDLE : a->render_pass,
		.subpass = 0,
		.framebuffer = dynamic ? VK_NULL_HANDLE : a->framebuffer,
	};
	const VkCommandBufferBeginInfo continue_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT,
		.pInheritanceInfo = &inherit,
	};
	for (int i = 0; i < 2; i++) {
		sec[i] = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
		VK_CHECK(vkBeginCommandBuffer(sec[i], &continue_info));
		vkCmdBindPipeline(sec[i], VK_PIPELINE_BIND_POINT_GRAPHICS,
				  dynamic ? a->tri_dynamic_pipeline : a->tri_pipeline);
		draws(a, sec[i], i == 0 ? a->opt.d1 : a->opt.d2);
		VK_CHECK(vkEndCommandBuffer(sec[i]));
	}
	const VkCommandBufferInheritanceInfo no_pass = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	const VkCommandBufferBeginInfo outside_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.pInheritanceInfo = &no_pass,
	};
	comp = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
	VK_CHECK(vkBeginCommandBuffer(comp, &outside_info));
	vkCmdBindPipeline(comp, VK_PIPELINE_BIND_POINT_COMPUTE, a->compute_pipeline);
	vkCmdBindDescriptorSets(comp, VK_PIPELINE_BIND_POINT_COMPUTE, a->compute_layout, 0, 1, &a->set, 0, NULL);
	vkCmdDispatch(comp, 4, 3, 2);
	VK_CHECK(vkEndCommandBuffer(comp));

	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		if (dynamic)
			target_to_attachment(a, cb);
		label_begin(a, cb, "secondary-pass");
		if (dynamic) {
			rendering_begin(a, cb, VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT);
			vkCmdExecuteCommands(cb, 2, sec);
			vkCmdEndRendering(cb);
		} else {
			render_pass_begin(a, cb, a->render_pass, a->framebuffer,
					  VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
			vkCmdExecuteCommands(cb, 2, sec);
			render_pass_end(a, cb);
		}
		label_end(a, cb);
		label_begin(a, cb, "outside-secondary");
		vkCmdExecuteCommands(cb, 1, &comp);
		label_end(a, cb);
		VK_CHECK(vkEndCommandBuffer(cb));
		submit_wait(a, &cb, 1);
	}
}

/* "suspended-pass": dynamic rendering suspended in A after d1 draws, resumed in B for d2
 * draws; the label opens in A and closes in B; A and B in one VkSubmitInfo. */
static void scenario_suspend_resume(struct app *a)
{
	graphics_create(a);
	VkCommandBuffer cbs[2];
	cbs[0] = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	cbs[1] = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cbs[0]);
		target_to_attachment(a, cbs[0]);
		label_begin(a, cbs[0], "suspended-pass");
		rendering_begin(a, cbs[0], VK_RENDERING_SUSPENDING_BIT);
		vkCmdBindPipeline(cbs[0], VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_dynamic_pipeline);
		draws(a, cbs[0], a->opt.d1);
		vkCmdEndRendering(cbs[0]);
		VK_CHECK(vkEndCommandBuffer(cbs[0]));

		pp_test_vk_begin(cbs[1]);
		rendering_begin(a, cbs[1], VK_RENDERING_RESUMING_BIT);
		vkCmdBindPipeline(cbs[1], VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_dynamic_pipeline);
		draws(a, cbs[1], a->opt.d2);
		vkCmdEndRendering(cbs[1]);
		label_end(a, cbs[1]);
		VK_CHECK(vkEndCommandBuffer(cbs[1]));
		submit_wait(a, cbs, 2);
	}
}

/* Command buffers A ("a-pass", pool A) and B ("b-pass", pool B) in one submit. After the
 * fence and before the next submit, A is freed (and a new one allocated) and B is reset:
 * by resetting its pool on even frames, by vkResetCommandBuffer on odd ones. */
static void scenario_free_pending(struct app *a)
{
	graphics_create(a);
	VkCommandPool pools[2];
	for (int i = 0; i < 2; i++) {
		const VkCommandPoolCreateInfo info = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
			.queueFamilyIndex = a->family,
		};
		VK_CHECK(vkCreateCommandPool(a->device, &info, NULL, &pools[i]));
	}
	VkCommandBuffer cb_b = command_buffer_allocate(a, pools[1], VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		VkCommandBuffer cbs[2] = { command_buffer_allocate(a, pools[0], VK_COMMAND_BUFFER_LEVEL_PRIMARY), cb_b };
		for (int i = 0; i < 2; i++) {
			pp_test_vk_begin(cbs[i]);
			label_begin(a, cbs[i], i == 0 ? "a-pass" : "b-pass");
			render_pass_begin(a, cbs[i], a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cbs[i], VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
			draws(a, cbs[i], a->opt.draws);
			render_pass_end(a, cbs[i]);
			label_end(a, cbs[i]);
			VK_CHECK(vkEndCommandBuffer(cbs[i]));
		}
		submit_wait(a, cbs, 2);
		vkFreeCommandBuffers(a->device, pools[0], 1, &cbs[0]);
		if (f % 2 == 0)
			VK_CHECK(vkResetCommandPool(a->device, pools[1], 0));
		else
			VK_CHECK(vkResetCommandBuffer(cb_b, 0));
	}
	VK_CHECK(vkDeviceWaitIdle(a->device));
	for (int i = 0; i < 2; i++)
		vkDestroyCommandPool(a->device, pools[i], NULL);
}

static void buffer_barrier(VkCommandBuffer cb, VkBuffer buf, VkPipelineStageFlags src, VkAccessFlags src_access,
			   VkPipelineStageFlags dst, VkAccessFlags dst_access)
{
	const VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = buf,
		.size = VK_WHOLE_SIZE,
	};
	vkCmdPipelineBarrier(cb, src, dst, 0, 0, NULL, 1, &b, 0, NULL);
}

/* Outside render passes, each under its own label, barriers between (outside labels):
 * "copy" 4096-byte buffer copy, "fill" 1024-byte fill, "dispatch" 4x3x2 workgroups,
 * "clear" one vkCmdClearColorImage; then, unlabelled, a 2048-byte copy, a barrier and a 2x1x1
 * dispatch, which make one more pass (named by the layer). */
static void scenario_compute_transfer(struct app *a)
{
	graphics_create(a);
	compute_create(a);
	const VkPipelineStageFlags all = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
	const VkAccessFlags rw = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		buffer_barrier(cb, a->storage.buffer, all, rw, VK_PIPELINE_STAGE_TRANSFER_BIT,
			       VK_ACCESS_TRANSFER_WRITE_BIT);
		label_begin(a, cb, "copy");
		const VkBufferCopy region = { 0, 0, 4096 };
		vkCmdCopyBuffer(cb, a->staging.buffer, a->storage.buffer, 1, &region);
		label_end(a, cb);
		/* Without this barrier the fill races the copy: a write-after-write hazard. */
		if (!a->opt.provoke_sync_hazard)
			buffer_barrier(cb, a->storage.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
				       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
		label_begin(a, cb, "fill");
		vkCmdFillBuffer(cb, a->storage.buffer, 0, 1024, 0x01020304u);
		label_end(a, cb);
		buffer_barrier(cb, a->storage.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
		label_begin(a, cb, "dispatch");
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->compute_pipeline);
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a->compute_layout, 0, 1, &a->set, 0, NULL);
		vkCmdDispatch(cb, 4, 3, 2);
		label_end(a, cb);
		const VkImageMemoryBarrier to_dst = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = a->image,
			.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
		};
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
				     NULL, 1, &to_dst);
		label_begin(a, cb, "clear");
		const VkClearColorValue color = { { 0.5f, 0.5f, 0.5f, 1.0f } };
		const VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
		vkCmdClearColorImage(cb, a->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &range);
		label_end(a, cb);
		/* No label: a copy, a barrier and a dispatch stay one (compute) pass. */
		buffer_barrier(cb, a->storage.buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
			       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
		const VkBufferCopy half = { 0, 0, 2048 };
		vkCmdCopyBuffer(cb, a->staging.buffer, a->storage.buffer, 1, &half);
		buffer_barrier(cb, a->storage.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
		vkCmdDispatch(cb, 2, 1, 1);
		VK_CHECK(vkEndCommandBuffer(cb));
		submit_wait(a, &cb, 1);
	}
}

/* counts-like frames ("pass0"...; the pipeline bound inside each pass), but each command buffer
 * first sets shader state while no pipeline is bound yet (--early): push constants for the
 * fragment stage, or a descriptor set with one uniform (or storage) buffer for the vertex and
 * fragment stages, or a uniform buffer on the compute bind point. Valid Vulkan; vkd3d-gears does
 * the uniform case with push descriptors. lavapipe 22.3 dereferences the pipeline it has not got
 * when a query begins after such state (docs/timing.md, *Driver quirks*). */
static void scenario_state_before_pipeline(struct app *a)
{
	graphics_create(a);
	bool compute = a->opt.early == EARLY_COMPUTE_UNIFORM;
	VkDescriptorType type = a->opt.early == EARLY_STORAGE ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
							      : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
	buffer_create(a, &a->storage, 4096, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
	one_buffer_set_create(a, type, compute ? VK_SHADER_STAGE_COMPUTE_BIT
					       : VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT);

	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	const uint32_t value = 1;
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		if (a->opt.early == EARLY_PUSH_CONSTANTS)
			vkCmdPushConstants(cb, a->graphics_layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(value), &value);
		else
			vkCmdBindDescriptorSets(cb, compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS,
						a->compute_layout, 0, 1, &a->set, 0, NULL);
		for (uint32_t p = 0; p < a->opt.passes; p++) {
			char name[32];
			snprintf(name, sizeof(name), "pass%u", p);
			label_begin(a, cb, name);
			render_pass_begin(a, cb, a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
			draws(a, cb, a->opt.draws);
			render_pass_end(a, cb);
			label_end(a, cb);
		}
		VK_CHECK(vkEndCommandBuffer(cb));
		submit_wait(a, &cb, 1);
	}
}

/* counts-like frames ("pass0"...), plus per frame exactly one vkWaitForFences, one
 * vkQueueWaitIdle and one vkGetQueryPoolResults with WAIT_BIT on the application's own
 * timestamp query; one vkDeviceWaitIdle at the end (app_destroy). --idle-wait queue|device:
 * the submit signals no fence and vkQueueWaitIdle or vkDeviceWaitIdle is the frame's wait. */
static void scenario_waits(struct app *a)
{
	graphics_create(a);
	const VkQueryPoolCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = 1,
	};
	VkQueryPool qp;
	VK_CHECK(vkCreateQueryPool(a->device, &qi, NULL, &qp));
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		vkCmdResetQueryPool(cb, qp, 0, 1);
		for (uint32_t p = 0; p < a->opt.passes; p++) {
			char name[32];
			snprintf(name, sizeof(name), "pass%u", p);
			label_begin(a, cb, name);
			render_pass_begin(a, cb, a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
			draws(a, cb, a->opt.draws);
			render_pass_end(a, cb);
			label_end(a, cb);
		}
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 0);
		VK_CHECK(vkEndCommandBuffer(cb));
		const VkSubmitInfo info = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &cb,
		};
		VK_CHECK(vkQueueSubmit(a->queue, 1, &info, a->opt.idle_wait ? VK_NULL_HANDLE : a->fence));
		if (!a->opt.idle_wait)
			VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
		if (a->opt.idle_wait == 'd')
			VK_CHECK(vkDeviceWaitIdle(a->device));
		else
			VK_CHECK(vkQueueWaitIdle(a->queue));
		uint64_t ts = 0;
		VK_CHECK(vkGetQueryPoolResults(a->device, qp, 0, 1, sizeof(ts), &ts, sizeof(ts),
					       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
		if (!a->opt.idle_wait)
			VK_CHECK(vkResetFences(a->device, 1, &a->fence));
	}
	vkDestroyQueryPool(a->device, qp, NULL);
}

/* Three submits per frame, passes "sub0", "sub1", "sub2"; only the last signals the fence.
 * --one-call: one vkQueueSubmit with three batches instead. --span-label: label "outer" opens
 * in the first command buffer and closes at the end of the third; the second's pass has no
 * label of its own, so queue-order label resolution names it "outer". */
static void scenario_multi_submit(struct app *a)
{
	graphics_create(a);
	VkCommandBuffer cbs[3];
	for (int i = 0; i < 3; i++)
		cbs[i] = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		for (int i = 0; i < 3; i++) {
			char name[32];
			snprintf(name, sizeof(name), "sub%d", i);
			bool own_label = !(a->opt.span_label && i == 1);
			pp_test_vk_begin(cbs[i]);
			if (a->opt.span_label && i == 0)
				label_begin(a, cbs[i], "outer");
			if (own_label)
				label_begin(a, cbs[i], name);
			render_pass_begin(a, cbs[i], a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
			vkCmdBindPipeline(cbs[i], VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
			draws(a, cbs[i], a->opt.draws);
			render_pass_end(a, cbs[i]);
			if (own_label)
				label_end(a, cbs[i]);
			/* Last in its command buffer: Mesa 22.3's common label code crashes on a
			 * label begun after ending one the command buffer did not begin. */
			if (a->opt.span_label && i == 2)
				label_end(a, cbs[i]);
			VK_CHECK(vkEndCommandBuffer(cbs[i]));
		}
		VkSubmitInfo info[3];
		for (int i = 0; i < 3; i++)
			info[i] = (VkSubmitInfo){
				.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				.commandBufferCount = 1,
				.pCommandBuffers = &cbs[i],
			};
		if (a->opt.one_call)
			VK_CHECK(vkQueueSubmit(a->queue, 3, info, a->fence));
		else
			for (int i = 0; i < 3; i++)
				VK_CHECK(vkQueueSubmit(a->queue, 1, &info[i], i == 2 ? a->fence : VK_NULL_HANDLE));
		VK_CHECK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
		VK_CHECK(vkResetFences(a->device, 1, &a->fence));
	}
}

/* ---- CPU cost of recording ------------------------------------------------------------------- */

/* Spins until this thread has used `ns` more CPU time: known CPU work, whatever the load. */
static void burn_thread_cpu(uint64_t ns)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	uint64_t start = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec, now;
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
	} while (now - start < ns);
}

static void labelled_pass(struct app *a, VkCommandBuffer cb, const char *name, uint32_t ndraws,
			  uint64_t burn_ns, uint64_t sleep_ns)
{
	label_begin(a, cb, name);
	render_pass_begin(a, cb, a->render_pass, a->framebuffer, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->tri_pipeline);
	draws(a, cb, ndraws);
	if (burn_ns)
		burn_thread_cpu(burn_ns);
	if (sleep_ns) {
		struct timespec ts = { (time_t)(sleep_ns / 1000000000ull), (long)(sleep_ns % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
	render_pass_end(a, cb);
	label_end(a, cb);
}

/* "light" (10 draws) and "heavy" (--draws, default 4000) in one command buffer per frame. */
static void scenario_cpu_work(struct app *a)
{
	graphics_create(a);
	VkCommandBuffer cb = command_buffer_allocate(a, a->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pp_test_vk_begin(cb);
		labelled_pass(a, cb, "light", 10, 0, 0);
		labelled_pass(a, cb, "heavy", a->opt.draws, 0, 0);
		VK_CHECK(vkEndCommandBuffer(cb));
		submit_wait(a, &cb, 1);
	}
}

struct recorder {
	struct app *a;
	VkCommandPool pool;
	VkCommandBuffer cb;
	pthread_barrier_t *start;
	bool busy;
};

static void *recorder_main(void *arg)
{
	struct recorder *r = arg;
	pthread_barrier_wait(r->start);
	pp_test_vk_begin(r->cb);
	/* Both threads are inside their pass at the same time: "busy" burns 20 ms of its own
	 * CPU, "idle" sleeps 20 ms. Mixed-up counters would show CPU time on "idle". */
	if (r->busy)
		labelled_pass(r->a, r->cb, "busy", 10, 20000000ull, 0);
	else
		labelled_pass(r->a, r->cb, "idle", 10, 0, 20000000ull);
	VK_CHECK(vkEndCommandBuffer(r->cb));
	return NULL;
}

/* Two threads record at once, each its own pool and command buffer; one submit per frame. */
static void scenario_cpu_threads(struct app *a)
{
	graphics_create(a);
	struct recorder r[2];
	pthread_barrier_t start;
	for (int i = 0; i < 2; i++) {
		const VkCommandPoolCreateInfo info = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
						       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
						       .queueFamilyIndex = a->family };
		r[i] = (struct recorder){ .a = a, .start = &start, .busy = i == 0 };
		VK_CHECK(vkCreateCommandPool(a->device, &info, NULL, &r[i].pool));
		r[i].cb = command_buffer_allocate(a, r[i].pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	}
	for (uint32_t f = 0; f < a->opt.frames; f++) {
		pthread_t t[2];
		pthread_barrier_init(&start, NULL, 2);
		for (int i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, recorder_main, &r[i]))
				die("pthread_create failed\n");
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		VkCommandBuffer cbs[2] = { r[0].cb, r[1].cb };
		submit_wait(a, cbs, 2);
	}
	for (int i = 0; i < 2; i++)
		vkDestroyCommandPool(a->device, r[i].pool, NULL);
}

/* A known validation error (zero-sized buffer), to show a validation run can see one. */
static void provoke_validation_error(struct app *a)
{
	const VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = 0,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkBuffer b = VK_NULL_HANDLE;
	if (vkCreateBuffer(a->device, &info, NULL, &b) == VK_SUCCESS && b)
		vkDestroyBuffer(a->device, b, NULL);
}

int main(int argc, char **argv)
{
	struct app a = { 0 };
	options_parse(&a.opt, argc, argv);
	if (a.opt.proc_title) {
		/* What setproctitle-style code does: argv[0]'s bytes now hold a title with flags. */
		static const char title[] = "gpu-process --flag=1 ";
		for (size_t i = 0, n = strlen(argv[0]); i < n; i++)
			argv[0][i] = title[i % (sizeof(title) - 1)];
	}
	const char *s = a.opt.scenario;
	static const char *const known[] = { "counts", "load", "resubmit", "secondary", "suspend-resume",
					     "free-pending", "compute-transfer", "waits", "submit2",
					     "multi-submit", "cpu-work", "cpu-threads", "simultaneous",
					     "state-before-pipeline" };
	bool ok = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= !strcmp(s, known[i]);
	if (!ok)
		die("unknown scenario %s\n%s", s, usage_text);

	instance_create(&a);
	device_create(&a);
	if (a.opt.provoke_validation_error)
		provoke_validation_error(&a);
	if (!strcmp(s, "counts"))
		scenario_counts(&a, false);
	else if (!strcmp(s, "submit2"))
		scenario_counts(&a, true);
	else if (!strcmp(s, "load"))
		scenario_load(&a);
	else if (!strcmp(s, "resubmit"))
		scenario_resubmit(&a);
	else if (!strcmp(s, "simultaneous"))
		scenario_simultaneous(&a);
	else if (!strcmp(s, "secondary"))
		scenario_secondary(&a);
	else if (!strcmp(s, "suspend-resume"))
		scenario_suspend_resume(&a);
	else if (!strcmp(s, "free-pending"))
		scenario_free_pending(&a);
	else if (!strcmp(s, "compute-transfer"))
		scenario_compute_transfer(&a);
	else if (!strcmp(s, "waits"))
		scenario_waits(&a);
	else if (!strcmp(s, "multi-submit"))
		scenario_multi_submit(&a);
	else if (!strcmp(s, "cpu-work"))
		scenario_cpu_work(&a);
	else if (!strcmp(s, "cpu-threads"))
		scenario_cpu_threads(&a);
	else if (!strcmp(s, "state-before-pipeline"))
		scenario_state_before_pipeline(&a);
	app_destroy(&a);
	return 0;
}
