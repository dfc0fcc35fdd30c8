/* API-heavy benchmark: P render passes x D small draws per frame, headless, one submit per
 * frame, N frames in flight (--in-flight, default 1: each frame waits for its own fence).
 * Prints the median frame time (start of one frame to the start of the next); with
 * --record-only, records K draws into one command buffer (for callgrind:
 * --toggle-collect=bench_record_draws); with --frame-times FILE, writes every frame's time, one
 * line each in frame order (tests/bench/run_window_ab.sh). With --binds-per-draw, every draw is
 * an engine's: a descriptor set bound with a dynamic offset, vertex and index buffers bound,
 * push constants, vkCmdDrawIndexed (what the diagnostics' bind hooks see per draw); draw i uses
 * object i % K of K (descriptor set and vertex buffer offset; K 1: every bind rebinds what is
 * bound). With --twin-layer LAYER, the same frames on two devices of two instances in one
 * process, one instance with LAYER enabled and one without, in blocks of --block frames: block 0
 * without the layer, then blocks 1, 3, 5... with it (--parity 0) or 2, 4, 6... (--parity 1),
 * after --block frames on each device that are not timed. Neighbouring blocks share the
 * machine's state, which whole runs do not (tests/bench/api/run_api_twin.sh). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "../bench_time.h"

static const uint32_t vert_spv[] =
#include "tiny.vert.inc"
	;
static const uint32_t frag_spv[] =
#include "tiny.frag.inc"
	;

#define CHECK(x)                                                                    \
	do {                                                                        \
		VkResult r_ = (x);                                                  \
		if (r_ != VK_SUCCESS) {                                             \
			fprintf(stderr, "bench_api: %s failed: %d\n", #x, r_);       \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

#define BENCH_MAX_IN_FLIGHT 4
#define BENCH_MAX_PIPELINES 64
#define BENCH_MAX_OBJECTS 16

struct bench {
	VkInstance instance;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cb; /* the one being recorded: cbs[frame % in_flight] */
	VkCommandBuffer cbs[BENCH_MAX_IN_FLIGHT];
	VkFence fences[BENCH_MAX_IN_FLIGHT];
	uint32_t in_flight;
	uint32_t frame; /* frames begun on this device: the next uses cbs[frame % in_flight] */
	VkRenderPass rp;
	VkFramebuffer fb;
	/* Pass p binds pipelines[p % npipelines]: with one, every bind after the first rebinds
	 * what is bound (engines often do); with as many as passes, every bind changes it. */
	VkPipeline pipelines[BENCH_MAX_PIPELINES];
	uint32_t npipelines;
	VkPipelineLayout layout;
	VkImage image;
	VkImageView view;
	VkDeviceMemory memory;
	/* --binds-per-draw: one buffer holds the indices, the vertices and the uniforms. */
	uint32_t binds_per_draw; /* K objects, 0: none */
	VkBuffer buffer;
	VkDeviceMemory buffer_memory;
	VkDescriptorSetLayout set_layout;
	VkDescriptorPool descriptor_pool;
	VkDescriptorSet sets[BENCH_MAX_OBJECTS];
	PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT end_label;
};

/* The first memory type of `bits` with all of `flags`. */
static uint32_t memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags flags)
{
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(pd, &mp);
	for (uint32_t type = 0; type < mp.memoryTypeCount; type++)
		if ((bits & (1u << type)) && (mp.memoryTypes[type].propertyFlags & flags) == flags)
			return type;
	fprintf(stderr, "bench_api: no memory type for the benchmark's resources\n");
	exit(1);
}

/* --binds-per-draw's resources: a host-visible buffer (indices at 0, vertices at 256 and up,
 * one 256-byte slot per object; uniforms at 512 + 256 * BENCH_MAX_OBJECTS and up, one 256-byte
 * slot per dynamic offset), K sets of one dynamic uniform buffer each. */
#define BENCH_UNIFORM_SLOTS 16
static void buffer_init(struct bench *b, VkPhysicalDevice pd)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .size = 512 + 256 * BENCH_MAX_OBJECTS + 256 * BENCH_UNIFORM_SLOTS,
				   .usage = VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
					    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT };
	CHECK(vkCreateBuffer(b->device, &bci, NULL, &b->buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(b->device, b->buffer, &req);
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
				     .memoryTypeIndex = memory_type(pd, req.memoryTypeBits,
								    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) };
	CHECK(vkAllocateMemory(b->device, &mai, NULL, &b->buffer_memory));
	CHECK(vkBindBufferMemory(b->device, b->buffer, b->buffer_memory, 0));
	void *map;
	CHECK(vkMapMemory(b->device, b->buffer_memory, 0, VK_WHOLE_SIZE, 0, &map));
	memset(map, 0, (size_t)bci.size);
	uint16_t indices[3] = { 0, 1, 2 };
	memcpy(map, indices, sizeof(indices));
	vkUnmapMemory(b->device, b->buffer_memory);

	VkDescriptorSetLayoutBinding binding = { 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1,
						 VK_SHADER_STAGE_VERTEX_BIT, NULL };
	VkDescriptorSetLayoutCreateInfo dli = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
						.bindingCount = 1, .pBindings = &binding };
	CHECK(vkCreateDescriptorSetLayout(b->device, &dli, NULL, &b->set_layout));
	VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, b->binds_per_draw };
	VkDescriptorPoolCreateInfo dpi = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
					   .maxSets = b->binds_per_draw, .poolSizeCount = 1, .pPoolSizes = &size };
	CHECK(vkCreateDescriptorPool(b->device, &dpi, NULL, &b->descriptor_pool));
	for (uint32_t i = 0; i < b->binds_per_draw; i++) {
		VkDescriptorSetAllocateInfo dai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
						    .descriptorPool = b->descriptor_pool, .descriptorSetCount = 1,
						    .pSetLayouts = &b->set_layout };
		CHECK(vkAllocateDescriptorSets(b->device, &dai, &b->sets[i]));
		VkDescriptorBufferInfo dbi = { b->buffer, 512 + 256 * BENCH_MAX_OBJECTS, 256 };
		VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = b->sets[i],
					   .descriptorCount = 1,
					   .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, .pBufferInfo = &dbi };
		vkUpdateDescriptorSets(b->device, 1, &w, 0, NULL);
	}
}

/* layer: an instance layer to enable, or NULL. False, having said why, when the loader does not
 * find the layer (nothing created); any other failure exits. */
static bool bench_init(struct bench *b, uint32_t api_version, const char *layer)
{
	const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = api_version };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
				     .enabledLayerCount = layer ? 1 : 0, .ppEnabledLayerNames = &layer,
				     .enabledExtensionCount = 1, .ppEnabledExtensionNames = exts };
	VkResult created = vkCreateInstance(&ici, NULL, &b->instance);
	if (created == VK_ERROR_LAYER_NOT_PRESENT && layer) {
		fprintf(stderr, "bench_api: --twin-layer %s: the Vulkan loader finds no such layer (its manifest's "
				"folder in VK_ADD_LAYER_PATH?)\n", layer);
		return false;
	}
	CHECK(created);
	uint32_t n = 1;
	VkPhysicalDevice pd;
	VkResult r = vkEnumeratePhysicalDevices(b->instance, &n, &pd);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n) {
		fprintf(stderr, "bench_api: no Vulkan device\n");
		exit(1);
	}
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
					.pQueuePriorities = &prio };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
				   .pQueueCreateInfos = &qci };
	CHECK(vkCreateDevice(pd, &dci, NULL, &b->device));
	vkGetDeviceQueue(b->device, 0, 0, &b->queue);
	b->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetDeviceProcAddr(b->device, "vkCmdBeginDebugUtilsLabelEXT");
	b->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetDeviceProcAddr(b->device, "vkCmdEndDebugUtilsLabelEXT");

	VkImageCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
				 .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { 64, 64, 1 }, .mipLevels = 1,
				 .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
				 .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT };
	CHECK(vkCreateImage(b->device, &ii, NULL, &b->image));
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(b->device, b->image, &req);
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
				     .memoryTypeIndex = memory_type(pd, req.memoryTypeBits, 0) };
	CHECK(vkAllocateMemory(b->device, &mai, NULL, &b->memory));
	CHECK(vkBindImageMemory(b->device, b->image, b->memory, 0));
	VkImageViewCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = b->image,
				     .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ii.format,
				     .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
	CHECK(vkCreateImageView(b->device, &vi, NULL, &b->view));

	VkAttachmentDescription att = { .format = ii.format, .samples = VK_SAMPLE_COUNT_1_BIT,
					.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
					.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
					.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
					.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
					.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
				     .pColorAttachments = &ref };
	/* Consecutive passes write the same image: order them. */
	VkSubpassDependency dep = { .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
				    .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				    .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				    .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				    .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
				       .pAttachments = &att, .subpassCount = 1, .pSubpasses = &sub,
				       .dependencyCount = 1, .pDependencies = &dep };
	CHECK(vkCreateRenderPass(b->device, &rpi, NULL, &b->rp));
	VkFramebufferCreateInfo fbi = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = b->rp,
					.attachmentCount = 1, .pAttachments = &b->view, .width = 64, .height = 64,
					.layers = 1 };
	CHECK(vkCreateFramebuffer(b->device, &fbi, NULL, &b->fb));

	VkShaderModule vs, fs;
	VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					 .codeSize = sizeof(vert_spv), .pCode = vert_spv };
	CHECK(vkCreateShaderModule(b->device, &smi, NULL, &vs));
	smi.codeSize = sizeof(frag_spv);
	smi.pCode = frag_spv;
	CHECK(vkCreateShaderModule(b->device, &smi, NULL, &fs));
	VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
		  .module = vs, .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
		  .module = fs, .pName = "main" },
	};
	VkPipelineVertexInputStateCreateInfo vin = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
						       .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
	VkViewport vp = { 0, 0, 64, 64, 0, 1 };
	VkRect2D sc = { { 0, 0 }, { 64, 64 } };
	VkPipelineViewportStateCreateInfo vps = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
						  .viewportCount = 1, .pViewports = &vp, .scissorCount = 1, .pScissors = &sc };
	VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
						      .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
						      .lineWidth = 1.0f };
	VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
						    .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
	VkPipelineColorBlendAttachmentState cba = { .colorWriteMask = 0xf };
	VkPipelineColorBlendStateCreateInfo cb = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
						   .attachmentCount = 1, .pAttachments = &cba };
	VkPipelineLayoutCreateInfo pli = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkVertexInputBindingDescription vbind = { 0, 8, VK_VERTEX_INPUT_RATE_VERTEX };
	VkPushConstantRange push = { VK_SHADER_STAGE_VERTEX_BIT, 0, 16 };
	if (b->binds_per_draw) {
		buffer_init(b, pd);
		vin.vertexBindingDescriptionCount = 1;
		vin.pVertexBindingDescriptions = &vbind;
		pli.setLayoutCount = 1;
		pli.pSetLayouts = &b->set_layout;
		pli.pushConstantRangeCount = 1;
		pli.pPushConstantRanges = &push;
	}
	CHECK(vkCreatePipelineLayout(b->device, &pli, NULL, &b->layout));
	VkGraphicsPipelineCreateInfo gpi = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
					     .pStages = stages, .pVertexInputState = &vin, .pInputAssemblyState = &ia,
					     .pViewportState = &vps, .pRasterizationState = &rs, .pMultisampleState = &ms,
					     .pColorBlendState = &cb, .layout = b->layout, .renderPass = b->rp };
	/* Identical pipelines, distinct objects: what a bind costs, not what drawing with it does. */
	for (uint32_t i = 0; i < b->npipelines; i++)
		CHECK(vkCreateGraphicsPipelines(b->device, VK_NULL_HANDLE, 1, &gpi, NULL, &b->pipelines[i]));
	vkDestroyShaderModule(b->device, vs, NULL);
	vkDestroyShaderModule(b->device, fs, NULL);

	VkCommandPoolCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT };
	CHECK(vkCreateCommandPool(b->device, &cpi, NULL, &b->pool));
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = b->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = b->in_flight };
	CHECK(vkAllocateCommandBuffers(b->device, &cai, b->cbs));
	b->cb = b->cbs[0];
	/* Signalled: the first wait on each slot returns at once. */
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT };
	for (uint32_t i = 0; i < b->in_flight; i++)
		CHECK(vkCreateFence(b->device, &fci, NULL, &b->fences[i]));
	return true;
}

static void bench_fini(struct bench *b)
{
	vkQueueWaitIdle(b->queue);
	for (uint32_t i = 0; i < b->in_flight; i++)
		vkDestroyFence(b->device, b->fences[i], NULL);
	vkDestroyCommandPool(b->device, b->pool, NULL);
	for (uint32_t i = 0; i < b->npipelines; i++)
		vkDestroyPipeline(b->device, b->pipelines[i], NULL);
	vkDestroyPipelineLayout(b->device, b->layout, NULL);
	if (b->binds_per_draw) {
		vkDestroyDescriptorPool(b->device, b->descriptor_pool, NULL);
		vkDestroyDescriptorSetLayout(b->device, b->set_layout, NULL);
		vkDestroyBuffer(b->device, b->buffer, NULL);
		vkFreeMemory(b->device, b->buffer_memory, NULL);
	}
	vkDestroyFramebuffer(b->device, b->fb, NULL);
	vkDestroyRenderPass(b->device, b->rp, NULL);
	vkDestroyImageView(b->device, b->view, NULL);
	vkDestroyImage(b->device, b->image, NULL);
	vkFreeMemory(b->device, b->memory, NULL);
	vkDestroyDevice(b->device, NULL);
	vkDestroyInstance(b->instance, NULL);
}

/* The function callgrind isolates: D draws, nothing else. */
__attribute__((noinline)) void bench_record_draws(VkCommandBuffer cb, uint32_t draws)
{
	for (uint32_t i = 0; i < draws; i++)
		vkCmdDraw(cb, 3, 1, 0, i);
}

/* The same, each draw an engine's: its object's uniforms (a dynamic offset), its mesh (vertex
 * and index buffers) and push constants bound before it. */
__attribute__((noinline)) void bench_record_bound_draws(const struct bench *b, uint32_t draws)
{
	float push[4] = { 0 };
	for (uint32_t i = 0; i < draws; i++) {
		uint32_t object = i % b->binds_per_draw, dyn = 256 * (i % BENCH_UNIFORM_SLOTS);
		VkDeviceSize vb_offset = 256 + 256 * (VkDeviceSize)object;
		vkCmdBindDescriptorSets(b->cb, VK_PIPELINE_BIND_POINT_GRAPHICS, b->layout, 0, 1, &b->sets[object], 1,
					&dyn);
		vkCmdBindVertexBuffers(b->cb, 0, 1, &b->buffer, &vb_offset);
		vkCmdBindIndexBuffer(b->cb, b->buffer, 0, VK_INDEX_TYPE_UINT16);
		push[0] = (float)i;
		vkCmdPushConstants(b->cb, b->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), push);
		vkCmdDrawIndexed(b->cb, 3, 1, 0, 0, i);
	}
}

static void record_frame(struct bench *b, uint32_t passes, uint32_t draws);

/* Begins frame b->frame: waits for the fence of the frame that last used its command buffer
 * (the frame in_flight before it), and returns when that wait returned. */
static uint64_t frame_begin(struct bench *b)
{
	uint32_t slot = b->frame % b->in_flight;
	CHECK(vkWaitForFences(b->device, 1, &b->fences[slot], VK_TRUE, UINT64_MAX));
	return now_ns();
}

/* Records and submits the frame frame_begin began; returns when its recording ended. */
static uint64_t frame_submit(struct bench *b, uint32_t passes, uint32_t draws)
{
	uint32_t slot = b->frame++ % b->in_flight;
	CHECK(vkResetFences(b->device, 1, &b->fences[slot]));
	b->cb = b->cbs[slot];
	CHECK(vkResetCommandBuffer(b->cb, 0));
	record_frame(b, passes, draws);
	uint64_t recorded = now_ns();
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
			    .pCommandBuffers = &b->cb };
	CHECK(vkQueueSubmit(b->queue, 1, &si, b->fences[slot]));
	return recorded;
}

static void record_frame(struct bench *b, uint32_t passes, uint32_t draws)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	CHECK(vkBeginCommandBuffer(b->cb, &bi));
	for (uint32_t p = 0; p < passes; p++) {
		char name[32];
		snprintf(name, sizeof(name), "pass%u", p);
		VkDebugUtilsLabelEXT label = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name };
		if (b->begin_label)
			b->begin_label(b->cb, &label);
		VkClearValue clear = { .color = { { 0, 0, 0, 1 } } };
		VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = b->rp,
					      .framebuffer = b->fb, .renderArea = { { 0, 0 }, { 64, 64 } },
					      .clearValueCount = 1, .pClearValues = &clear };
		vkCmdBeginRenderPass(b->cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
		vkCmdBindPipeline(b->cb, VK_PIPELINE_BIND_POINT_GRAPHICS, b->pipelines[p % b->npipelines]);
		if (b->binds_per_draw)
			bench_record_bound_draws(b, draws);
		else
			bench_record_draws(b->cb, draws);
		vkCmdEndRenderPass(b->cb);
		if (b->end_label)
			b->end_label(b->cb);
	}
	CHECK(vkEndCommandBuffer(b->cb));
}

int main(int argc, char **argv)
{
	uint32_t frames = 200, passes = 20, draws = 50, record_only = 0, in_flight = 1, pipelines = 1;
	const char *frame_times = NULL;
	uint32_t binds_per_draw = 0, block = 256, parity = 0;
	const char *twin_layer = NULL;
	/* --vulkan 1.0|1.1: the instance's apiVersion (the device enables nothing either way), to
	 * compare passprobe's query reset paths (docs/timing.md, "Resetting queries"). */
	uint32_t api_version = VK_API_VERSION_1_3;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--frames"))
			frames = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--passes"))
			passes = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--draws"))
			draws = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--record-only"))
			record_only = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--in-flight"))
			in_flight = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--pipelines"))
			pipelines = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--binds-per-draw"))
			binds_per_draw = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--frame-times"))
			frame_times = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--twin-layer"))
			twin_layer = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--block"))
			block = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--parity"))
			parity = (uint32_t)atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--vulkan") && !strcmp(argv[i + 1], "1.0") && ++i)
			api_version = VK_API_VERSION_1_0;
		else if (i + 1 < argc && !strcmp(argv[i], "--vulkan") && !strcmp(argv[i + 1], "1.1") && ++i)
			api_version = VK_API_VERSION_1_1;
		else {
			fprintf(stderr, "usage: bench_api [--frames N] [--passes P] [--draws D] [--in-flight 1..%d] "
					"[--pipelines 1..%d] [--record-only K] [--vulkan 1.0|1.1] [--binds-per-draw 1..%d] "
					"[--frame-times FILE] [--twin-layer LAYER [--block N] [--parity 0|1]]\n", BENCH_MAX_IN_FLIGHT,
				BENCH_MAX_PIPELINES, BENCH_MAX_OBJECTS);
			return 2;
		}
	}
	if (frames < 2 || in_flight < 1 || in_flight > BENCH_MAX_IN_FLIGHT || pipelines < 1 ||
	    pipelines > BENCH_MAX_PIPELINES || binds_per_draw > BENCH_MAX_OBJECTS || block < 1 || parity > 1) {
		fprintf(stderr, "bench_api: --frames must be at least 2, --in-flight 1 to %d, --pipelines 1 to %d, "
				"--binds-per-draw 1 to %d, --block at least 1, --parity 0 or 1\n",
			BENCH_MAX_IN_FLIGHT, BENCH_MAX_PIPELINES, BENCH_MAX_OBJECTS);
		return 2;
	}
	struct bench b = { .in_flight = in_flight, .npipelines = pipelines, .binds_per_draw = binds_per_draw };
	bench_init(&b, api_version, NULL);
	if (record_only) {
		/* One pass, K draws, recorded once and never submitted: pure recording cost. */
		record_frame(&b, 1, record_only);
		bench_fini(&b);
		return 0;
	}
	/* --twin-layer: the device of the instance with the layer (b has none), warmed up as b
	 * is by block 0. */
	struct bench twin = { .in_flight = in_flight, .npipelines = pipelines, .binds_per_draw = binds_per_draw };
	if (twin_layer) {
		if (!bench_init(&twin, api_version, twin_layer)) {
			bench_fini(&b); /* what the process made, destroyed before it leaves */
			return 1;
		}
		for (uint32_t f = 0; f < block; f++) {
			frame_begin(&twin);
			frame_submit(&twin, passes, draws);
		}
	}
	/* One more start time than frames: frame f lasts from its start to the next frame's. */
	uint64_t *start_ns = calloc(frames + 1, sizeof(*start_ns));
	uint64_t *frame_ns = calloc(frames, sizeof(*frame_ns));
	uint64_t *record_ns = calloc(frames, sizeof(*record_ns));
	uint32_t layered = 0;
	/* The blocks run on twin, a bit each, for the line printed at the end. */
	uint32_t *layered_block = calloc(frames / block / 32 + 1, sizeof(*layered_block));
	for (uint32_t f = 0; f <= frames; f++) {
		/* f == frames begins no frame: its start time ends the last one, on the device of the
		 * block it would be in. */
		uint32_t k = f / block;
		struct bench *d = twin_layer && k > 0 && (k - 1 + parity) % 2 == 0 ? &twin : &b;
		start_ns[f] = frame_begin(d);
		if (f == frames)
			break;
		if (d == &twin) {
			layered++;
			layered_block[k / 32] |= 1u << k % 32;
		}
		record_ns[f] = frame_submit(d, passes, draws) - start_ns[f];
	}
	for (uint32_t f = 0; f < frames; f++)
		frame_ns[f] = start_ns[f + 1] - start_ns[f];
	/* The mean counts what the median leaves out: work that comes in bursts between frames
	 * (passprobe's writer wakes once per batch of frames), which on one CPU takes frames' time. */
	uint64_t mean_ns = (start_ns[frames] - start_ns[0]) / frames;
	free(start_ns);
	if (frame_times && frame_times_write(frame_times, frame_ns, frames) != 0)
		return 1;
	qsort(frame_ns, frames, sizeof(*frame_ns), cmp_u64);
	qsort(record_ns, frames, sizeof(*record_ns), cmp_u64);
	printf("frames=%u passes=%u draws=%u in_flight=%u median_frame_ns=%llu median_record_ns=%llu record_ns_per_draw=%.1f "
	       "mean_frame_ns=%llu",
	       frames, passes, draws, in_flight, (unsigned long long)frame_ns[frames / 2],
	       (unsigned long long)record_ns[frames / 2], (double)record_ns[frames / 2] / ((double)passes * draws),
	       (unsigned long long)mean_ns);
	if (twin_layer) {
		printf(" twin_layer=%s block=%u parity=%u layered_frames=%u untimed_layered_frames=%u layered_blocks=",
		       twin_layer, block, parity, layered, block);
		for (uint32_t k = 0, n = 0; k * block < frames; k++)
			if (layered_block[k / 32] & 1u << k % 32)
				printf("%s%u", n++ ? "," : "", k);
	}
	printf("\n");
	free(layered_block);
	free(frame_ns);
	free(record_ns);
	if (twin_layer)
		bench_fini(&twin);
	bench_fini(&b);
	return 0;
}
