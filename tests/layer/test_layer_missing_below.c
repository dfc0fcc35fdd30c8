/* passprobe where the chain below it lacks a command ("Never call a NULL next
 * function"). Walks every device-level entry point passprobe hooks, from the hook list itself
 * (the HOOK entries of PP_VK_DEVICE_FUNCTIONS, vk_functions.h, with their aliases), and for each creates a device with that command hidden by
 * the spy below (PASSPROBE_SPY_BELOW_HIDE_FUNCTIONS, read at every vkCreateDevice), then:
 *   - vkGetDeviceProcAddr answers NULL for it, through the loader and from passprobe's own
 *     exported function, as the chain below does;
 *   - passprobe's vkGetInstanceProcAddr (what a layer above it, RenderDoc say, sees) answers
 *     non-NULL exactly where the chain below does;
 *   - a small workload (a render pass passprobe times, submitted and waited for), with every
 *     command fetched through vkGetDeviceProcAddr, still succeeds call by call wherever it
 *     does not need the hidden command itself: passprobe's own calls of the hidden command
 *     (timestamps, query resets, ...) must not reach a NULL pointer;
 *   - the device commands of VK_EXT_debug_utils, fetched through the loader on an instance
 *     that did not enable the extension (what a libplacebo-based video player does), answer
 *     VK_SUCCESS or do nothing, as the loader's terminators do without passprobe.
 * Without passprobe in the chain (the control run) the same program checks the same answers
 * of the loader alone, so "as the loader would" is measured, not assumed.
 *
 * Options: --no-hide: one device, nothing hidden (the video player's case: debug utils
 * commands without the extension). --only=vkName: walk that command alone. --expect-passprobe: fail unless passprobe is loaded.
 * argv[last]: passprobe's library (found with dlopen(RTLD_NOLOAD) when the loader loaded it). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "lt_common.h"
#include "vk_functions.h"

/* Every name passprobe hands out a device hook of intercept/vulkan for: name and alias (NULL
 * where none) of each HOOK entry. */
static const char *const g_hooked_all[] = {
#define HOOK_NAMES(member, alias, kind) PP_VK_ONLY_HOOK(kind, "vk" #member, alias, )
	PP_VK_DEVICE_FUNCTIONS(HOOK_NAMES)
#undef HOOK_NAMES
};
static const char *g_hooked[sizeof(g_hooked_all) / sizeof(g_hooked_all[0])];
static size_t NHOOKED;

/* The names passprobe loads its call-down slots with: a hook whose name is not among them
 * would keep a NULL slot (layer_dispatch.c, dispatch_fill_missing). */
static const char *const g_loaded[] = {
#define FUNC_NAMES(member, alias, kind) "vk" #member, alias,
	PP_VK_DEVICE_FUNCTIONS(FUNC_NAMES)
#undef FUNC_NAMES
};

static bool hook_has_slot(const char *name)
{
	for (size_t i = 0; i < sizeof(g_loaded) / sizeof(g_loaded[0]); i++)
		if (g_loaded[i] && !strcmp(g_loaded[i], name))
			return true;
	return false;
}

struct procs {
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
};

static bool procs_find(const char *path, struct procs *p)
{
	memset(p, 0, sizeof(*p));
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return false;
	p->gipa = (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
	p->gdpa = (PFN_vkGetDeviceProcAddr)dlsym(h, "vkGetDeviceProcAddr");
	dlclose(h);
	return p->gipa && p->gdpa;
}

static VkInstance g_instance;
static VkPhysicalDevice g_pd;
static uint32_t g_family;
static struct procs g_pp, g_below;
static bool g_have_pp;
static unsigned g_workloads_run, g_workloads_skipped, g_debug_calls;

#define GET(dev, name) ((PFN_##name)vkGetDeviceProcAddr(dev, #name))

/* What the workload calls. The loader answers some of them itself (vkGetDeviceQueue,
 * vkAllocateCommandBuffers: it must stamp the new handles) and its trampoline would then call
 * the missing command, with or without passprobe: an application cannot run without them. */
static const char *const g_workload_commands[] = {
	"vkGetDeviceQueue",    "vkCreateCommandPool",  "vkDestroyCommandPool", "vkAllocateCommandBuffers",
	"vkBeginCommandBuffer", "vkEndCommandBuffer",  "vkCreateImage",        "vkDestroyImage",
	"vkGetImageMemoryRequirements", "vkAllocateMemory", "vkFreeMemory",    "vkBindImageMemory",
	"vkCreateImageView",   "vkDestroyImageView",   "vkCreateRenderPass",   "vkDestroyRenderPass",
	"vkCreateFramebuffer", "vkDestroyFramebuffer", "vkCmdBeginRenderPass", "vkCmdEndRenderPass",
	"vkCreateFence",       "vkDestroyFence",       "vkQueueSubmit",        "vkWaitForFences",
};

static bool workload_needs(const char *name)
{
	for (size_t i = 0; i < sizeof(g_workload_commands) / sizeof(g_workload_commands[0]); i++)
		if (!strcmp(g_workload_commands[i], name))
			return true;
	return false;
}

/* The workload: a 4x4 color attachment cleared by a render pass (passprobe brackets it with
 * timestamps), labels around it and a name on the image through the debug utils commands
 * fetched from the instance, submitted with a fence and waited for. Returns false and says
 * which call failed; *skipped when a command it needs is the hidden one. */
static bool workload(VkDevice dev, const char *hidden, bool *skipped)
{
	PFN_vkGetDeviceQueue GetDeviceQueue = GET(dev, vkGetDeviceQueue);
	PFN_vkCreateCommandPool CreateCommandPool = GET(dev, vkCreateCommandPool);
	PFN_vkDestroyCommandPool DestroyCommandPool = GET(dev, vkDestroyCommandPool);
	PFN_vkAllocateCommandBuffers AllocateCommandBuffers = GET(dev, vkAllocateCommandBuffers);
	PFN_vkBeginCommandBuffer BeginCommandBuffer = GET(dev, vkBeginCommandBuffer);
	PFN_vkEndCommandBuffer EndCommandBuffer = GET(dev, vkEndCommandBuffer);
	PFN_vkCreateImage CreateImage = GET(dev, vkCreateImage);
	PFN_vkDestroyImage DestroyImage = GET(dev, vkDestroyImage);
	PFN_vkGetImageMemoryRequirements GetImageMemoryRequirements = GET(dev, vkGetImageMemoryRequirements);
	PFN_vkAllocateMemory AllocateMemory = GET(dev, vkAllocateMemory);
	PFN_vkFreeMemory FreeMemory = GET(dev, vkFreeMemory);
	PFN_vkBindImageMemory BindImageMemory = GET(dev, vkBindImageMemory);
	PFN_vkCreateImageView CreateImageView = GET(dev, vkCreateImageView);
	PFN_vkDestroyImageView DestroyImageView = GET(dev, vkDestroyImageView);
	PFN_vkCreateRenderPass CreateRenderPass = GET(dev, vkCreateRenderPass);
	PFN_vkDestroyRenderPass DestroyRenderPass = GET(dev, vkDestroyRenderPass);
	PFN_vkCreateFramebuffer CreateFramebuffer = GET(dev, vkCreateFramebuffer);
	PFN_vkDestroyFramebuffer DestroyFramebuffer = GET(dev, vkDestroyFramebuffer);
	PFN_vkCmdBeginRenderPass CmdBeginRenderPass = GET(dev, vkCmdBeginRenderPass);
	PFN_vkCmdEndRenderPass CmdEndRenderPass = GET(dev, vkCmdEndRenderPass);
	PFN_vkCreateFence CreateFence = GET(dev, vkCreateFence);
	PFN_vkDestroyFence DestroyFence = GET(dev, vkDestroyFence);
	PFN_vkQueueSubmit QueueSubmit = GET(dev, vkQueueSubmit);
	PFN_vkWaitForFences WaitForFences = GET(dev, vkWaitForFences);
	/* As the video player does, although its instance did not enable the extension: the
	 * loader's vkGetDeviceProcAddr answers these from the device's dispatch table, which it
	 * fills through the layers' vkGetInstanceProcAddr. */
	PFN_vkSetDebugUtilsObjectNameEXT SetName = GET(dev, vkSetDebugUtilsObjectNameEXT);
	PFN_vkCmdBeginDebugUtilsLabelEXT CmdBeginLabel = GET(dev, vkCmdBeginDebugUtilsLabelEXT);
	PFN_vkCmdEndDebugUtilsLabelEXT CmdEndLabel = GET(dev, vkCmdEndDebugUtilsLabelEXT);
	PFN_vkQueueBeginDebugUtilsLabelEXT QueueBeginLabel = GET(dev, vkQueueBeginDebugUtilsLabelEXT);
	PFN_vkQueueEndDebugUtilsLabelEXT QueueEndLabel = GET(dev, vkQueueEndDebugUtilsLabelEXT);

	*skipped = workload_needs(hidden) || !GetDeviceQueue || !CreateCommandPool || !DestroyCommandPool || !AllocateCommandBuffers ||
		   !BeginCommandBuffer || !EndCommandBuffer || !CreateImage || !DestroyImage ||
		   !GetImageMemoryRequirements || !AllocateMemory || !FreeMemory || !BindImageMemory ||
		   !CreateImageView || !DestroyImageView || !CreateRenderPass || !DestroyRenderPass ||
		   !CreateFramebuffer || !DestroyFramebuffer || !CmdBeginRenderPass || !CmdEndRenderPass ||
		   !CreateFence || !DestroyFence || !QueueSubmit || !WaitForFences;
	if (*skipped)
		return true;
	bool ok = true;
#define STEP(call)                                                                              \
	do {                                                                                    \
		VkResult r_ = (call);                                                           \
		ok &= CHECKF(r_ == VK_SUCCESS, "%s hidden below: %s gave %d", hidden, #call, r_); \
	} while (0)

	VkQueue queue;
	GetDeviceQueue(dev, g_family, 0, &queue);
	VkCommandPool pool;
	VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = g_family };
	STEP(CreateCommandPool(dev, &pi, NULL, &pool));
	VkCommandBuffer cb;
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	STEP(AllocateCommandBuffers(dev, &ai, &cb));
	VkImageCreateInfo ii = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = { 4, 4, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	};
	VkImage image;
	STEP(CreateImage(dev, &ii, NULL, &image));
	VkMemoryRequirements req;
	GetImageMemoryRequirements(dev, image, &req);
	VkMemoryAllocateInfo mi = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = lt_memory_type(g_pd, req.memoryTypeBits, 0),
	};
	VkDeviceMemory mem;
	STEP(AllocateMemory(dev, &mi, NULL, &mem));
	STEP(BindImageMemory(dev, image, mem, 0));
	VkImageViewCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = ii.format,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	VkImageView view;
	STEP(CreateImageView(dev, &vi, NULL, &view));
	VkAttachmentDescription att = {
		.format = ii.format,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
	};
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &ref,
	};
	VkRenderPassCreateInfo ri = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &att,
		.subpassCount = 1,
		.pSubpasses = &sub,
	};
	VkRenderPass rp;
	STEP(CreateRenderPass(dev, &ri, NULL, &rp));
	VkFramebufferCreateInfo fi = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = rp,
		.attachmentCount = 1,
		.pAttachments = &view,
		.width = 4,
		.height = 4,
		.layers = 1,
	};
	VkFramebuffer fb;
	STEP(CreateFramebuffer(dev, &fi, NULL, &fb));
	if (SetName) {
		VkDebugUtilsObjectNameInfoEXT ni = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
			.objectType = VK_OBJECT_TYPE_IMAGE,
			.objectHandle = (uint64_t)image,
			.pObjectName = "target",
		};
		STEP(SetName(dev, &ni));
		g_debug_calls++;
	}

	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	STEP(BeginCommandBuffer(cb, &bi));
	VkDebugUtilsLabelEXT label = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = "frame" };
	if (CmdBeginLabel)
		CmdBeginLabel(cb, &label);
	VkClearValue clear = { .color = { .float32 = { 0, 0, 0, 1 } } };
	VkRenderPassBeginInfo rbi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = rp,
		.framebuffer = fb,
		.renderArea = { { 0, 0 }, { 4, 4 } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	CmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
	CmdEndRenderPass(cb);
	if (CmdEndLabel)
		CmdEndLabel(cb);
	STEP(EndCommandBuffer(cb));
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence fence;
	STEP(CreateFence(dev, &fci, NULL, &fence));
	if (QueueBeginLabel)
		QueueBeginLabel(queue, &label);
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb };
	STEP(QueueSubmit(queue, 1, &si, fence));
	if (QueueEndLabel)
		QueueEndLabel(queue);
	STEP(WaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));

	DestroyFence(dev, fence, NULL);
	DestroyFramebuffer(dev, fb, NULL);
	DestroyRenderPass(dev, rp, NULL);
	DestroyImageView(dev, view, NULL);
	DestroyImage(dev, image, NULL);
	FreeMemory(dev, mem, NULL);
	DestroyCommandPool(dev, pool, NULL);
#undef STEP
	return ok;
}

/* Whether the loader's vkGetDeviceProcAddr answers a command the chain below lacks: its own
 * trampolines for the commands whose new handles it must stamp, and the dispatch-table entries
 * of VK_EXT_debug_utils's device commands (filled through vkGetInstanceProcAddr, which the
 * loader's terminator answers). The control run checks this list against the loader alone. */
static bool loader_answers(const char *name)
{
	return !strcmp(name, "vkGetDeviceQueue") || !strcmp(name, "vkGetDeviceQueue2") ||
	       !strcmp(name, "vkAllocateCommandBuffers") || strstr(name, "DebugUtils") != NULL;
}

/* One device with `hidden` (a hooked command, or "" for none) hidden below passprobe. */
static void walk_one(const char *hidden)
{
	setenv("PASSPROBE_SPY_BELOW_HIDE_FUNCTIONS", hidden, 1);
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = g_family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qi,
	};
	VkDevice dev;
	if (!CHECKF(vkCreateDevice(g_pd, &di, NULL, &dev) == VK_SUCCESS, "%s hidden below: vkCreateDevice", hidden))
		return;

	if (*hidden) {
		CHECKF(!g_below.gdpa(dev, hidden), "the spy below hides %s", hidden);
		bool loader = vkGetDeviceProcAddr(dev, hidden) != NULL;
		CHECKF(loader == loader_answers(hidden), "%s hidden below: the loader's vkGetDeviceProcAddr answers %s",
		       hidden, loader ? "non-NULL" : "NULL");
		if (g_have_pp) {
			CHECKF(!g_pp.gdpa(dev, hidden), "%s hidden below: passprobe's vkGetDeviceProcAddr is NULL",
			       hidden);
			bool below = g_below.gipa(g_instance, hidden) != NULL;
			bool ours = g_pp.gipa(g_instance, hidden) != NULL;
			CHECKF(ours == below, "%s hidden below: passprobe's vkGetInstanceProcAddr answers %s, the chain below %s",
			       hidden, ours ? "non-NULL" : "NULL", below ? "non-NULL" : "NULL");
		}
	}
	bool skipped;
	workload(dev, *hidden ? hidden : "nothing", &skipped);
	if (skipped)
		g_workloads_skipped++;
	else
		g_workloads_run++;
	PFN_vkDestroyDevice destroy = GET(dev, vkDestroyDevice);
	if (destroy)
		destroy(dev, NULL);
}

int main(int argc, char **argv)
{
	bool no_hide = false, expect_pp = false;
	const char *pp_path = NULL, *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--only=", 7))
			only = argv[i] + 7;
		else if (!strcmp(argv[i], "--no-hide"))
			no_hide = true;
		else if (!strcmp(argv[i], "--expect-passprobe"))
			expect_pp = true;
		else
			pp_path = argv[i];
	}
	for (size_t i = 0; i < sizeof(g_hooked_all) / sizeof(g_hooked_all[0]); i++)
		if (g_hooked_all[i])
			g_hooked[NHOOKED++] = g_hooked_all[i];
	for (size_t i = 0; i < NHOOKED; i++)
		CHECKF(hook_has_slot(g_hooked[i]), "%s (hooked) is loaded into a dispatch slot (PP_VK_DEVICE_FUNCTIONS)",
		       g_hooked[i]);
	lt_messenger_enabled = false; /* an instance without VK_EXT_debug_utils, like the video player's */
	if (lt_instance_create(VK_API_VERSION_1_3, &g_instance) != VK_SUCCESS)
		lt_skip("no Vulkan instance");
	g_pd = lt_physical_device(g_instance);
	if (!g_pd)
		lt_skip("no physical device");
	uint32_t nqf = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(g_pd, &nqf, NULL);
	VkQueueFamilyProperties qf[16];
	nqf = nqf > 16 ? 16 : nqf;
	vkGetPhysicalDeviceQueueFamilyProperties(g_pd, &nqf, qf);
	for (g_family = 0; g_family < nqf && !(qf[g_family].queueFlags & VK_QUEUE_GRAPHICS_BIT); g_family++)
		;
	if (g_family == nqf)
		lt_skip("no graphics queue");

	g_have_pp = pp_path && procs_find(pp_path, &g_pp);
	if (expect_pp)
		CHECKF(g_have_pp, "passprobe is loaded (%s)", pp_path ? pp_path : "no path given");
	bool have_below = procs_find(LT_SPY_BELOW_PATH, &g_below);
	if (!no_hide && !CHECKF(have_below, "the spy below is loaded"))
		return lt_finish();

	if (g_have_pp) {
		/* What a layer above asking without an instance gets (RenderDoc's pattern): our
		 * vkCreateDevice, and for device commands no crash, whatever lies below. */
		CHECK(g_pp.gipa(VK_NULL_HANDLE, "vkCreateDevice") != NULL);
		unsigned answered = 0;
		for (size_t i = 0; i < NHOOKED; i++)
			answered += g_pp.gipa(VK_NULL_HANDLE, g_hooked[i]) != NULL;
		printf("passprobe's vkGetInstanceProcAddr(VK_NULL_HANDLE, ...) answers %u of %zu hooked device "
		       "commands\n", answered, NHOOKED);
	}
	if (no_hide) {
		walk_one("");
		CHECKF(g_workloads_run == 1, "the workload ran");
		CHECKF(g_debug_calls == 1, "the loader answered vkSetDebugUtilsObjectNameEXT");
	} else {
		for (size_t i = 0; i < NHOOKED; i++)
			if (!only || !strcmp(only, g_hooked[i]))
				walk_one(g_hooked[i]);
		printf("%zu hooked commands hidden in turn; workload ran %u times, skipped %u (it needs the hidden "
		       "command)\n",
		       NHOOKED, g_workloads_run, g_workloads_skipped);
		/* The walk means something only if most commands left the workload running. */
		CHECK(only || g_workloads_run > NHOOKED / 2);
	}
	lt_instance_destroy(g_instance);
	return lt_finish();
}
