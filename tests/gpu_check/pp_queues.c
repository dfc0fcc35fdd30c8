/* pp_queues: compute work on two queues at once, for the real-GPU check (tools/gpu_check,
 * docs/real-gpu.md). Queue a runs two labelled dispatches with no barrier between them
 * ("queue_a_first", "queue_a_second"); queue b runs one ("queue_b"). Each frame submits both
 * command buffers (recorded once) without a semaphore between them, each with its own fence,
 * then waits for both: on a GPU with a second queue (an async compute family, or a second
 * queue of the first family) the two queues' passes may run side by side.
 *
 *   pp_queues [--frames N] [--load K] [--groups G] [--one-queue]
 *
 * --load: K x 64 serial steps per invocation; --groups: workgroups of 64 invocations per
 * dispatch; --one-queue: queue b's work goes to queue a (what happens anyway where the device
 * has one queue). Prints which queues it used, then "pp_queues: done N frames". Exit 0 on
 * success, 2 on a bad command line, 1 on a Vulkan failure (one line on stderr). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define APP "pp_queues"
#include "pp_test_vk.h"
#define WORKGROUP 64

static const uint32_t spin_comp[] =
#include "spin.comp.inc"
	;

struct queues_options {
	uint32_t frames, load, groups;
	bool one_queue;
};

struct queue_slot {
	uint32_t family, index;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence;
};

struct queues_app {
	struct queues_options opt;
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkPhysicalDeviceMemoryProperties memory;
	struct queue_slot a, b;
	bool two_queues;
	VkBuffer buffers[3];
	VkDeviceMemory memories[3];
	VkDescriptorSetLayout set_layout;
	VkDescriptorPool descriptor_pool;
	VkDescriptorSet sets[3];
	VkPipelineLayout layout;
	VkPipeline pipeline;
	PFN_vkCmdBeginDebugUtilsLabelEXT label_begin;
	PFN_vkCmdEndDebugUtilsLabelEXT label_end;
};

static uint32_t option_number(const char *name, const char *value, uint32_t lo, uint32_t hi)
{
	char *end = NULL;
	unsigned long v = value ? strtoul(value, &end, 10) : 0;
	if (!value || !*value || *end || v < lo || v > hi) {
		fprintf(stderr, APP ": %s takes a number from %u to %u, not '%s'\n", name, lo, hi,
			value ? value : "");
		exit(2);
	}
	return (uint32_t)v;
}

static void options_parse(struct queues_options *o, int argc, char **argv)
{
	*o = (struct queues_options){ .frames = 4, .load = 4, .groups = 16 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--one-queue")) {
			o->one_queue = true;
			continue;
		}
		if (!strcmp(a, "--frames"))
			o->frames = option_number(a, v, 1, 100000);
		else if (!strcmp(a, "--load"))
			o->load = option_number(a, v, 1, 100000);
		else if (!strcmp(a, "--groups"))
			o->groups = option_number(a, v, 1, 65535);
		else {
			fprintf(stderr, APP ": unknown option '%s'; usage: " APP
					" [--frames N] [--load K] [--groups G] [--one-queue]\n", a);
			exit(2);
		}
		i++;
	}
}

static bool instance_has_extension(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
	VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
	if (!props)
		die("out of memory");
	vkEnumerateInstanceExtensionProperties(NULL, &n, props);
	bool found = false;
	for (uint32_t i = 0; i < n && !found; i++)
		found = !strcmp(props[i].extensionName, name);
	free(props);
	return found;
}

/* Queue a: the first family with compute and timestamps (graphics too where there is one).
 * Queue b: another family with compute and timestamps (async compute, preferring one without
 * graphics), else a second queue of a's family; none: b is a. */
static void queues_choose(struct queues_app *app, VkQueueFamilyProperties *fam, uint32_t n)
{
	const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
	uint32_t a = UINT32_MAX, b = UINT32_MAX;
	for (uint32_t f = 0; f < n; f++)
		if ((fam[f].queueFlags & gc) == gc && fam[f].timestampValidBits && a == UINT32_MAX)
			a = f;
	for (uint32_t f = 0; f < n && a == UINT32_MAX; f++)
		if ((fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[f].timestampValidBits)
			a = f;
	if (a == UINT32_MAX)
		die("no queue family with compute and timestamps");
	for (int pass = 0; pass < 2 && b == UINT32_MAX; pass++)
		for (uint32_t f = 0; f < n && b == UINT32_MAX; f++)
			if (f != a && (fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam[f].timestampValidBits &&
			    (pass == 1 || !(fam[f].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
				b = f;
	/* Each slot gets its own pool, command buffer and fence, also where b shares a's queue. */
	app->a = (struct queue_slot){ .family = a, .index = 0 };
	app->two_queues = !app->opt.one_queue;
	if (app->opt.one_queue)
		app->b = app->a;
	else if (b != UINT32_MAX)
		app->b = (struct queue_slot){ .family = b, .index = 0 };
	else if (fam[a].queueCount >= 2)
		app->b = (struct queue_slot){ .family = a, .index = 1 };
	else {
		app->b = app->a;
		app->two_queues = false;
	}
}

static void device_create(struct queues_app *app)
{
	bool labels = instance_has_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	const VkApplicationInfo ai = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = APP,
		.apiVersion = VK_API_VERSION_1_1,
	};
	const VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &ai,
		.enabledExtensionCount = labels ? 1 : 0,
		.ppEnabledExtensionNames = &ext,
	};
	VK_CHECK_SUCCESS(vkCreateInstance(&ici, NULL, &app->instance));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(app->instance, &n, &app->physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
		die("no Vulkan device");
	uint32_t nf = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(app->physical, &nf, NULL);
	VkQueueFamilyProperties *fam = calloc(nf ? nf : 1, sizeof(*fam));
	if (!fam)
		die("out of memory");
	vkGetPhysicalDeviceQueueFamilyProperties(app->physical, &nf, fam);
	queues_choose(app, fam, nf);
	free(fam);
	vkGetPhysicalDeviceMemoryProperties(app->physical, &app->memory);

	const float priorities[2] = { 1.0f, 1.0f };
	VkDeviceQueueCreateInfo qci[2] = {
		{ .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = app->a.family,
		  .queueCount = 1, .pQueuePriorities = priorities },
		{ .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = app->b.family,
		  .queueCount = 1, .pQueuePriorities = priorities },
	};
	uint32_t nq = 1;
	if (app->two_queues && app->b.family == app->a.family)
		qci[0].queueCount = 2;
	else if (app->two_queues)
		nq = 2;
	const VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = nq,
		.pQueueCreateInfos = qci,
	};
	VK_CHECK_SUCCESS(vkCreateDevice(app->physical, &dci, NULL, &app->device));
	struct queue_slot *slots[2] = { &app->a, &app->b };
	for (int s = 0; s < 2; s++) {
		struct queue_slot *q = slots[s];
		vkGetDeviceQueue(app->device, q->family, q->index, &q->queue);
		const VkCommandPoolCreateInfo pci = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.queueFamilyIndex = q->family,
		};
		VK_CHECK_SUCCESS(vkCreateCommandPool(app->device, &pci, NULL, &q->pool));
		const VkCommandBufferAllocateInfo cai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = q->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		VK_CHECK_SUCCESS(vkAllocateCommandBuffers(app->device, &cai, &q->cb));
		const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
		VK_CHECK_SUCCESS(vkCreateFence(app->device, &fci, NULL, &q->fence));
	}
	if (labels) {
		app->label_begin = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetDeviceProcAddr(
			app->device, "vkCmdBeginDebugUtilsLabelEXT");
		app->label_end = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetDeviceProcAddr(app->device,
										  "vkCmdEndDebugUtilsLabelEXT");
	}
}

static uint32_t memory_type(struct queues_app *app, uint32_t bits)
{
	uint32_t type = pp_test_vk_memory_type(&app->memory, bits, 0);
	if (type == UINT32_MAX)
		die("no memory type for a storage buffer");
	return type;
}

static void pipeline_create(struct queues_app *app)
{
	VkDeviceSize size = (VkDeviceSize)app->opt.groups * WORKGROUP * sizeof(float);
	for (int i = 0; i < 3; i++) {
		const VkBufferCreateInfo bci = {
			.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
			.size = size,
			.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
			.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		};
		VK_CHECK_SUCCESS(vkCreateBuffer(app->device, &bci, NULL, &app->buffers[i]));
		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(app->device, app->buffers[i], &req);
		const VkMemoryAllocateInfo mai = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = req.size,
			.memoryTypeIndex = memory_type(app, req.memoryTypeBits),
		};
		VK_CHECK_SUCCESS(vkAllocateMemory(app->device, &mai, NULL, &app->memories[i]));
		VK_CHECK_SUCCESS(vkBindBufferMemory(app->device, app->buffers[i], app->memories[i], 0));
	}
	const VkDescriptorSetLayoutBinding binding = {
		.binding = 0,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.descriptorCount = 1,
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
	};
	const VkDescriptorSetLayoutCreateInfo slci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 1,
		.pBindings = &binding,
	};
	VK_CHECK_SUCCESS(vkCreateDescriptorSetLayout(app->device, &slci, NULL, &app->set_layout));
	const VkDescriptorPoolSize ps = { .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 3 };
	const VkDescriptorPoolCreateInfo dpci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 3,
		.poolSizeCount = 1,
		.pPoolSizes = &ps,
	};
	VK_CHECK_SUCCESS(vkCreateDescriptorPool(app->device, &dpci, NULL, &app->descriptor_pool));
	const VkDescriptorSetLayout layouts[3] = { app->set_layout, app->set_layout, app->set_layout };
	const VkDescriptorSetAllocateInfo dsai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = app->descriptor_pool,
		.descriptorSetCount = 3,
		.pSetLayouts = layouts,
	};
	VK_CHECK_SUCCESS(vkAllocateDescriptorSets(app->device, &dsai, app->sets));
	for (int i = 0; i < 3; i++) {
		const VkDescriptorBufferInfo bi = { .buffer = app->buffers[i], .range = VK_WHOLE_SIZE };
		const VkWriteDescriptorSet w = {
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = app->sets[i],
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &bi,
		};
		vkUpdateDescriptorSets(app->device, 1, &w, 0, NULL);
	}
	const VkPushConstantRange pcr = { .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = 8 };
	const VkPipelineLayoutCreateInfo plci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &app->set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &pcr,
	};
	VK_CHECK_SUCCESS(vkCreatePipelineLayout(app->device, &plci, NULL, &app->layout));
	VkShaderModule module = pp_test_vk_shader_module(app->device, spin_comp, sizeof(spin_comp));
	const VkComputePipelineCreateInfo cpci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			   .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main" },
		.layout = app->layout,
	};
	VK_CHECK_SUCCESS(vkCreateComputePipelines(app->device, VK_NULL_HANDLE, 1, &cpci, NULL, &app->pipeline));
	vkDestroyShaderModule(app->device, module, NULL);
}

static void labelled_dispatch(struct queues_app *app, VkCommandBuffer cb, const char *name, int set)
{
	if (app->label_begin) {
		const VkDebugUtilsLabelEXT label = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
						     .pLabelName = name };
		app->label_begin(cb, &label);
	}
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, app->layout, 0, 1, &app->sets[set], 0, NULL);
	vkCmdDispatch(cb, app->opt.groups, 1, 1);
	if (app->label_end)
		app->label_end(cb);
}

static void record(struct queues_app *app, VkCommandBuffer cb, bool queue_a)
{
	pp_test_vk_begin(cb);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, app->pipeline);
	const struct {
		uint32_t iterations;
		float weight;
	} push = { app->opt.load * 64, 0.0f };
	vkCmdPushConstants(cb, app->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
	if (queue_a) {
		/* Two dispatches on different buffers: nothing orders them, so they may overlap. */
		labelled_dispatch(app, cb, "queue_a_first", 0);
		labelled_dispatch(app, cb, "queue_a_second", 1);
	} else {
		labelled_dispatch(app, cb, "queue_b", 2);
	}
	VK_CHECK_SUCCESS(vkEndCommandBuffer(cb));
}

static void submit(struct queue_slot *q)
{
	const VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &q->cb,
	};
	VK_CHECK_SUCCESS(vkQueueSubmit(q->queue, 1, &si, q->fence));
}

int main(int argc, char **argv)
{
	static struct queues_app app;
	options_parse(&app.opt, argc, argv);
	device_create(&app);
	pipeline_create(&app);
	record(&app, app.a.cb, true);
	record(&app, app.b.cb, false);
	printf(APP ": queue a family %u index %u\n", app.a.family, app.a.index);
	if (app.two_queues)
		printf(APP ": queue b family %u index %u\n", app.b.family, app.b.index);
	else
		printf(APP ": queue b is queue a (%s)\n", app.opt.one_queue ? "--one-queue" : "the device has one queue");
	for (uint32_t f = 0; f < app.opt.frames; f++) {
		submit(&app.a);
		submit(&app.b);
		const VkFence fences[2] = { app.a.fence, app.b.fence };
		VK_CHECK_SUCCESS(vkWaitForFences(app.device, 2, fences, VK_TRUE, UINT64_MAX));
		VK_CHECK_SUCCESS(vkResetFences(app.device, 2, fences));
	}
	VK_CHECK_SUCCESS(vkDeviceWaitIdle(app.device));
	vkDestroyPipeline(app.device, app.pipeline, NULL);
	vkDestroyPipelineLayout(app.device, app.layout, NULL);
	vkDestroyDescriptorPool(app.device, app.descriptor_pool, NULL);
	vkDestroyDescriptorSetLayout(app.device, app.set_layout, NULL);
	for (int i = 0; i < 3; i++) {
		vkDestroyBuffer(app.device, app.buffers[i], NULL);
		vkFreeMemory(app.device, app.memories[i], NULL);
	}
	struct queue_slot *slots[2] = { &app.a, &app.b };
	for (int s = 0; s < 2; s++) {
		vkDestroyFence(app.device, slots[s]->fence, NULL);
		vkDestroyCommandPool(app.device, slots[s]->pool, NULL);
	}
	vkDestroyDevice(app.device, NULL);
	vkDestroyInstance(app.instance, NULL);
	printf(APP ": done %u frames\n", app.opt.frames);
	return 0;
}
