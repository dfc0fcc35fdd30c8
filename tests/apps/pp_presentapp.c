/* pp_presentapp: a windowed Vulkan program for the tests of present-delimited frames
 * (tests/integration, docs/testing-integration.md). An X11 window (xcb; run it under Xvfb), a
 * swapchain, and per frame: acquire, --passes render passes of --draws triangles into the
 * acquired image (labelled "pass<i>"), one submit waiting on the acquire and signalling the
 * render semaphore, present. --in-flight frames in flight (fences waited on before their
 * command buffer is reused). --recreate-at N: after frame N the swapchain is re-created the
 * common way, with vkDeviceWaitIdle first.
 *
 * Prints "presented F frames" at the end; exit 0, 1 on a Vulkan error, 77 when no X display
 * or no xcb surface support (the test is skipped). */
#define VK_USE_PLATFORM_XCB_KHR
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>
#include <xcb/xcb.h>

static const uint32_t vert_spv[] =
#include "tri.vert.inc"
	;
static const uint32_t frag_spv[] =
#include "solid.frag.inc"
	;

#define APP_NAME "pp_presentapp"
#define MAX_IN_FLIGHT 3
#define MAX_IMAGES 8
#define WIDTH 128
#define HEIGHT 96

#define VK_CHECK(x)                                                                         \
	do {                                                                                \
		VkResult r_ = (x);                                                          \
		if (r_ != VK_SUCCESS) {                                                     \
			fprintf(stderr, APP_NAME ": %s failed: %d (line %d)\n", #x, r_, __LINE__); \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

static void skip(const char *why)
{
	printf("SKIP: %s\n", why);
	exit(77);
}

struct app {
	uint32_t frames, passes, draws, in_flight, recreate_at;
	uint32_t setup_submits; /* fenced submits after the swapchain exists, before the first present */
	bool wait_idle;         /* vkQueueWaitIdle after every present */
	xcb_connection_t *conn;
	xcb_window_t window;
	VkInstance instance;
	VkPhysicalDevice pd;
	VkSurfaceKHR surface;
	uint32_t family;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cbs[MAX_IN_FLIGHT];
	VkFence fences[MAX_IN_FLIGHT];
	VkSemaphore acquired[MAX_IN_FLIGHT], rendered[MAX_IN_FLIGHT];
	VkRenderPass first_rp, load_rp; /* clear / load the swapchain image */
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkSwapchainKHR swapchain;
	VkFormat format;
	uint32_t nimages;
	VkImage images[MAX_IMAGES];
	VkImageView views[MAX_IMAGES];
	VkFramebuffer fbs[MAX_IMAGES];
	PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT end_label;
};

static uint32_t parse_uint(const char *key, const char *v, uint32_t min, uint32_t max)
{
	char *end = NULL;
	unsigned long x = strtoul(v, &end, 10);
	if (!*v || *end || x < min || x > max) {
		fprintf(stderr, APP_NAME ": %s: %s is not an integer from %u to %u\n", key, v, min, max);
		exit(2);
	}
	return (uint32_t)x;
}

static void window_create(struct app *a)
{
	int screen_index = 0;
	a->conn = xcb_connect(NULL, &screen_index);
	if (!a->conn || xcb_connection_has_error(a->conn))
		skip("no X display (run under Xvfb)");
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(a->conn));
	for (int i = 0; i < screen_index; i++)
		xcb_screen_next(&it);
	a->window = xcb_generate_id(a->conn);
	xcb_create_window(a->conn, XCB_COPY_FROM_PARENT, a->window, it.data->root, 0, 0, WIDTH, HEIGHT, 0,
			  XCB_WINDOW_CLASS_INPUT_OUTPUT, it.data->root_visual, 0, NULL);
	xcb_map_window(a->conn, a->window);
	xcb_flush(a->conn);
}

static void instance_create(struct app *a)
{
	const char *exts[] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME,
			       VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = APP_NAME,
				  .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
				     .enabledExtensionCount = 3, .ppEnabledExtensionNames = exts };
	if (vkCreateInstance(&ici, NULL, &a->instance) != VK_SUCCESS)
		skip("no Vulkan instance with VK_KHR_xcb_surface");
	VkXcbSurfaceCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
					  .connection = a->conn, .window = a->window };
	VK_CHECK(vkCreateXcbSurfaceKHR(a->instance, &sci, NULL, &a->surface));
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(a->instance, &n, &a->pd);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n)
		skip("no Vulkan device");
	uint32_t nf = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(a->pd, &nf, NULL);
	VkQueueFamilyProperties fam[16];
	if (nf > 16)
		nf = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(a->pd, &nf, fam);
	for (a->family = 0; a->family < nf; a->family++) {
		VkBool32 present = VK_FALSE;
		vkGetPhysicalDeviceSurfaceSupportKHR(a->pd, a->family, a->surface, &present);
		if ((fam[a->family].queueFlags & VK_QUEUE_GRAPHICS_BIT) && present)
			break;
	}
	if (a->family == nf)
		skip("no queue family that renders and presents to the window");
}

static void device_create(struct app *a)
{
	const char *exts[] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					.queueFamilyIndex = a->family, .queueCount = 1, .pQueuePriorities = &prio };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
				   .pQueueCreateInfos = &qci, .enabledExtensionCount = 1, .ppEnabledExtensionNames = exts };
	VK_CHECK(vkCreateDevice(a->pd, &dci, NULL, &a->device));
	vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
	a->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetDeviceProcAddr(a->device, "vkCmdBeginDebugUtilsLabelEXT");
	a->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetDeviceProcAddr(a->device, "vkCmdEndDebugUtilsLabelEXT");

	VkCommandPoolCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
					.queueFamilyIndex = a->family };
	VK_CHECK(vkCreateCommandPool(a->device, &cpi, NULL, &a->pool));
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = a->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = a->in_flight };
	VK_CHECK(vkAllocateCommandBuffers(a->device, &cai, a->cbs));
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	for (uint32_t i = 0; i < a->in_flight; i++) {
		VK_CHECK(vkCreateFence(a->device, &fci, NULL, &a->fences[i]));
		VK_CHECK(vkCreateSemaphore(a->device, &sci, NULL, &a->acquired[i]));
		VK_CHECK(vkCreateSemaphore(a->device, &sci, NULL, &a->rendered[i]));
	}
}

static VkRenderPass render_pass_create(struct app *a, bool clear)
{
	VkAttachmentDescription att = {
		.format = a->format,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = clear ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
		.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
	};
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
				     .pColorAttachments = &ref };
	/* The acquire semaphore is waited on at COLOR_ATTACHMENT_OUTPUT; earlier passes' writes
	 * come before this pass's. */
	VkSubpassDependency dep = { .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
				    .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				    .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				    .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				    .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
						     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
				       .pAttachments = &att, .subpassCount = 1, .pSubpasses = &sub,
				       .dependencyCount = 1, .pDependencies = &dep };
	VkRenderPass rp;
	VK_CHECK(vkCreateRenderPass(a->device, &rpi, NULL, &rp));
	return rp;
}

static void pipeline_create(struct app *a)
{
	VkShaderModule vs, fs;
	VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					 .codeSize = sizeof(vert_spv), .pCode = vert_spv };
	VK_CHECK(vkCreateShaderModule(a->device, &smi, NULL, &vs));
	smi.codeSize = sizeof(frag_spv);
	smi.pCode = frag_spv;
	VK_CHECK(vkCreateShaderModule(a->device, &smi, NULL, &fs));
	VkPipelineShaderStageCreateInfo stages[2] = {
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
		  .module = vs, .pName = "main" },
		{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
		  .module = fs, .pName = "main" },
	};
	VkPipelineVertexInputStateCreateInfo vin = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
						       .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
	VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
	VkPipelineDynamicStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
						.dynamicStateCount = 2, .pDynamicStates = dyn };
	VkPipelineViewportStateCreateInfo vps = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
						  .viewportCount = 1, .scissorCount = 1 };
	VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
						      .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
						      .lineWidth = 1.0f };
	VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
						    .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
	VkPipelineColorBlendAttachmentState cba = { .colorWriteMask = 0xf };
	VkPipelineColorBlendStateCreateInfo cb = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
						   .attachmentCount = 1, .pAttachments = &cba };
	VkPipelineLayoutCreateInfo pli = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VK_CHECK(vkCreatePipelineLayout(a->device, &pli, NULL, &a->layout));
	VkGraphicsPipelineCreateInfo gpi = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
					     .pStages = stages, .pVertexInputState = &vin, .pInputAssemblyState = &ia,
					     .pViewportState = &vps, .pRasterizationState = &rs, .pMultisampleState = &ms,
					     .pColorBlendState = &cb, .pDynamicState = &ds, .layout = a->layout,
					     .renderPass = a->first_rp };
	VK_CHECK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &gpi, NULL, &a->pipeline));
	vkDestroyShaderModule(a->device, vs, NULL);
	vkDestroyShaderModule(a->device, fs, NULL);
}

static void swapchain_destroy(struct app *a)
{
	for (uint32_t i = 0; i < a->nimages; i++) {
		vkDestroyFramebuffer(a->device, a->fbs[i], NULL);
		vkDestroyImageView(a->device, a->views[i], NULL);
	}
	a->nimages = 0;
}

static void swapchain_create(struct app *a)
{
	VkSurfaceCapabilitiesKHR caps;
	VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(a->pd, a->surface, &caps));
	uint32_t nformats = 1;
	VkSurfaceFormatKHR sf;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(a->pd, a->surface, &nformats, &sf);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !nformats)
		skip("the surface offers no format");
	a->format = sf.format;
	uint32_t nmodes = 8;
	VkPresentModeKHR modes[8];
	if (vkGetPhysicalDeviceSurfacePresentModesKHR(a->pd, a->surface, &nmodes, modes) < 0)
		nmodes = 0;
	VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
	for (uint32_t i = 0; i < nmodes; i++)
		if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR) /* Xvfb has no vertical blank to wait for */
			mode = modes[i];
	VkExtent2D extent = caps.currentExtent.width == UINT32_MAX ? (VkExtent2D){ WIDTH, HEIGHT } : caps.currentExtent;
	uint32_t count = caps.minImageCount + 1;
	if (caps.maxImageCount && count > caps.maxImageCount)
		count = caps.maxImageCount;
	VkSwapchainKHR old = a->swapchain;
	VkSwapchainCreateInfoKHR sci = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		.surface = a->surface,
		.minImageCount = count,
		.imageFormat = sf.format,
		.imageColorSpace = sf.colorSpace,
		.imageExtent = extent,
		.imageArrayLayers = 1,
		.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
		.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.preTransform = caps.currentTransform,
		.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
		.presentMode = mode,
		.clipped = VK_TRUE,
		.oldSwapchain = old,
	};
	VK_CHECK(vkCreateSwapchainKHR(a->device, &sci, NULL, &a->swapchain));
	if (old)
		vkDestroySwapchainKHR(a->device, old, NULL);
	if (!a->first_rp) {
		a->first_rp = render_pass_create(a, true);
		a->load_rp = render_pass_create(a, false);
		pipeline_create(a);
	}
	a->nimages = MAX_IMAGES;
	VK_CHECK(vkGetSwapchainImagesKHR(a->device, a->swapchain, &a->nimages, a->images));
	for (uint32_t i = 0; i < a->nimages; i++) {
		VkImageViewCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = a->images[i],
					     .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = a->format,
					     .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
		VK_CHECK(vkCreateImageView(a->device, &vi, NULL, &a->views[i]));
		VkFramebufferCreateInfo fbi = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
						.renderPass = a->first_rp, .attachmentCount = 1, .pAttachments = &a->views[i],
						.width = extent.width, .height = extent.height, .layers = 1 };
		VK_CHECK(vkCreateFramebuffer(a->device, &fbi, NULL, &a->fbs[i]));
	}
}

/* Set-up work as a loader does it: after the swapchain is created, before the first frame is
 * presented, submits that each signal a fence, waited on at once. With frame_delimiter=auto
 * they belong to the first (present-delimited) frame. */
static void setup_submits(struct app *a)
{
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = a->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = 1 };
	VkCommandBuffer cb;
	VK_CHECK(vkAllocateCommandBuffers(a->device, &cai, &cb));
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence fence;
	VK_CHECK(vkCreateFence(a->device, &fci, NULL, &fence));
	for (uint32_t i = 0; i < a->setup_submits; i++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
						.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
		VK_CHECK(vkBeginCommandBuffer(cb, &bi));
		VK_CHECK(vkEndCommandBuffer(cb));
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
				    .pCommandBuffers = &cb };
		VK_CHECK(vkQueueSubmit(a->queue, 1, &si, fence));
		VK_CHECK(vkWaitForFences(a->device, 1, &fence, VK_TRUE, UINT64_MAX));
		VK_CHECK(vkResetFences(a->device, 1, &fence));
	}
	vkDestroyFence(a->device, fence, NULL);
	vkFreeCommandBuffers(a->device, a->pool, 1, &cb);
}

static void record(struct app *a, VkCommandBuffer cb, uint32_t image)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	VK_CHECK(vkBeginCommandBuffer(cb, &bi));
	VkViewport vp = { 0, 0, WIDTH, HEIGHT, 0, 1 };
	VkRect2D sc = { { 0, 0 }, { WIDTH, HEIGHT } };
	for (uint32_t p = 0; p < a->passes; p++) {
		char name[32];
		snprintf(name, sizeof(name), "pass%u", p);
		VkDebugUtilsLabelEXT label = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name };
		if (a->begin_label)
			a->begin_label(cb, &label);
		VkClearValue clear = { .color = { { 0.1f, 0.2f, 0.3f, 1.0f } } };
		VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
					      .renderPass = p ? a->load_rp : a->first_rp, .framebuffer = a->fbs[image],
					      .renderArea = sc, .clearValueCount = 1, .pClearValues = &clear };
		vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, a->pipeline);
		vkCmdSetViewport(cb, 0, 1, &vp);
		vkCmdSetScissor(cb, 0, 1, &sc);
		for (uint32_t d = 0; d < a->draws; d++)
			vkCmdDraw(cb, 3, 1, 0, d);
		vkCmdEndRenderPass(cb);
		if (a->end_label)
			a->end_label(cb);
	}
	VK_CHECK(vkEndCommandBuffer(cb));
}

int main(int argc, char **argv)
{
	struct app a = { .frames = 10, .passes = 3, .draws = 2, .in_flight = 2 };
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			fprintf(stderr, "usage: " APP_NAME " [--frames F] [--passes P] [--draws D] [--in-flight 1..%d] "
					"[--recreate-at N] [--setup-submits N] [--wait-idle 0|1]\n", MAX_IN_FLIGHT);
			return 2;
		}
		const char *k = argv[i], *v = argv[++i];
		if (!strcmp(k, "--frames"))
			a.frames = parse_uint(k, v, 1, 100000);
		else if (!strcmp(k, "--passes"))
			a.passes = parse_uint(k, v, 1, 64);
		else if (!strcmp(k, "--draws"))
			a.draws = parse_uint(k, v, 1, 1000);
		else if (!strcmp(k, "--in-flight"))
			a.in_flight = parse_uint(k, v, 1, MAX_IN_FLIGHT);
		else if (!strcmp(k, "--recreate-at"))
			a.recreate_at = parse_uint(k, v, 1, 100000);
		else if (!strcmp(k, "--setup-submits"))
			a.setup_submits = parse_uint(k, v, 0, 1000);
		else if (!strcmp(k, "--wait-idle"))
			a.wait_idle = parse_uint(k, v, 0, 1);
		else {
			fprintf(stderr, APP_NAME ": unknown option %s\n", k);
			return 2;
		}
	}
	window_create(&a);
	instance_create(&a);
	device_create(&a);
	swapchain_create(&a);
	setup_submits(&a);

	uint32_t presented = 0;
	for (uint32_t f = 0; f < a.frames; f++) {
		uint32_t slot = f % a.in_flight;
		VK_CHECK(vkWaitForFences(a.device, 1, &a.fences[slot], VK_TRUE, UINT64_MAX));
		uint32_t image;
		VkResult r = vkAcquireNextImageKHR(a.device, a.swapchain, UINT64_MAX, a.acquired[slot], VK_NULL_HANDLE,
						   &image);
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
			fprintf(stderr, APP_NAME ": vkAcquireNextImageKHR failed: %d\n", r);
			return 1;
		}
		VK_CHECK(vkResetFences(a.device, 1, &a.fences[slot]));
		record(&a, a.cbs[slot], image);
		VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1,
				    .pWaitSemaphores = &a.acquired[slot], .pWaitDstStageMask = &wait_stage,
				    .commandBufferCount = 1, .pCommandBuffers = &a.cbs[slot],
				    .signalSemaphoreCount = 1, .pSignalSemaphores = &a.rendered[slot] };
		VK_CHECK(vkQueueSubmit(a.queue, 1, &si, a.fences[slot]));
		VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
					.pWaitSemaphores = &a.rendered[slot], .swapchainCount = 1,
					.pSwapchains = &a.swapchain, .pImageIndices = &image };
		r = vkQueuePresentKHR(a.queue, &pi);
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
			fprintf(stderr, APP_NAME ": vkQueuePresentKHR failed: %d\n", r);
			return 1;
		}
		presented++;
		if (a.wait_idle)
			VK_CHECK(vkQueueWaitIdle(a.queue));
		if (a.recreate_at && f + 1 == a.recreate_at) {
			/* The usual re-creation: idle the device, then rebuild what depends on it. */
			VK_CHECK(vkDeviceWaitIdle(a.device));
			swapchain_destroy(&a);
			swapchain_create(&a);
		}
	}
	VK_CHECK(vkDeviceWaitIdle(a.device));
	swapchain_destroy(&a);
	vkDestroySwapchainKHR(a.device, a.swapchain, NULL);
	for (uint32_t i = 0; i < a.in_flight; i++) {
		vkDestroyFence(a.device, a.fences[i], NULL);
		vkDestroySemaphore(a.device, a.acquired[i], NULL);
		vkDestroySemaphore(a.device, a.rendered[i], NULL);
	}
	vkDestroyPipeline(a.device, a.pipeline, NULL);
	vkDestroyPipelineLayout(a.device, a.layout, NULL);
	vkDestroyRenderPass(a.device, a.first_rp, NULL);
	vkDestroyRenderPass(a.device, a.load_rp, NULL);
	vkDestroyCommandPool(a.device, a.pool, NULL);
	vkDestroyDevice(a.device, NULL);
	vkDestroySurfaceKHR(a.instance, a.surface, NULL);
	vkDestroyInstance(a.instance, NULL);
	xcb_destroy_window(a.conn, a.window);
	xcb_disconnect(a.conn);
	printf("presented %u frames\n", presented);
	return 0;
}
