/* pp_test_vk.h: the Vulkan set-up the headless test programs share (tests/apps, tests/reliability,
 * tests/gpu_check, tests/layer), header-only so that every program stays one source file.
 *
 * A program that dies on failure defines APP, its name, before including this: it gets die()
 * ("APP: message" on stderr, exit 1), VK_CHECK and VK_CHECK_SUCCESS, and the helpers below that
 * die rather than return. Without APP (the layer tests, which count calls and report failures
 * their own way) only the helpers that return a VkResult are defined.
 *
 * Every helper makes the Vulkan calls its program made before, in the same order: the layer and
 * validation tests count and compare them. */
#ifndef PP_TEST_VK_H
#define PP_TEST_VK_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

/* The first memory type in `bits` with all of `want`; UINT32_MAX where there is none, so that
 * each program keeps its own message for that. */
static inline uint32_t pp_test_vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
					      VkMemoryPropertyFlags want)
{
	for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
			return i;
	return UINT32_MAX;
}

/* A 2D colour view of the whole of a one-level, one-layer image. */
static inline VkResult pp_test_vk_color_view(VkDevice device, VkImage image, VkFormat format, VkImageView *view)
{
	const VkImageViewCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = format,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	return vkCreateImageView(device, &info, NULL, view);
}

/* One colour attachment, cleared and stored, from `initial` to COLOR_ATTACHMENT_OPTIMAL, one
 * subpass. dst_access not 0: an external dependency orders each instance after the previous
 * one's attachment writes (for programs that draw into the same image pass after pass), with
 * the program's own destination access, which the validation tests see; 0: none, for programs
 * whose own barriers are the point. */
static inline VkResult pp_test_vk_color_pass(VkDevice device, VkFormat format, VkImageLayout initial,
					     VkAccessFlags dst_access, VkRenderPass *pass)
{
	const VkAttachmentDescription att = {
		.format = format,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = initial,
		.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
	};
	const VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	const VkSubpassDescription sub = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &ref,
	};
	const VkSubpassDependency dep = {
		.srcSubpass = VK_SUBPASS_EXTERNAL,
		.dstSubpass = 0,
		.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		.dstAccessMask = dst_access,
	};
	const VkRenderPassCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &att,
		.subpassCount = 1,
		.pSubpasses = &sub,
		.dependencyCount = dst_access ? 1 : 0,
		.pDependencies = dst_access ? &dep : NULL,
	};
	return vkCreateRenderPass(device, &info, NULL, pass);
}

/* A one-layer framebuffer of one attachment. */
static inline VkResult pp_test_vk_framebuffer(VkDevice device, VkRenderPass pass, VkImageView view, uint32_t width,
					      uint32_t height, VkFramebuffer *framebuffer)
{
	const VkFramebufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = pass,
		.attachmentCount = 1,
		.pAttachments = &view,
		.width = width,
		.height = height,
		.layers = 1,
	};
	return vkCreateFramebuffer(device, &info, NULL, framebuffer);
}

#ifdef APP

static inline __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(APP ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* Programs differ in what a failure is, and each keeps its own: VK_CHECK lets the positive
 * results through (VK_INCOMPLETE from an enumeration into a fixed array, VK_SUBOPTIMAL_KHR);
 * VK_CHECK_SUCCESS accepts VK_SUCCESS alone. */
#define VK_CHECK(call)                                                                        \
	do {                                                                                  \
		VkResult vk_check_r = (call);                                                 \
		if (vk_check_r < 0)                                                           \
			die("%s failed: VkResult %d (line %d)", #call, vk_check_r, __LINE__); \
	} while (0)

#define VK_CHECK_SUCCESS(call)                                                                \
	do {                                                                                  \
		VkResult vk_check_r = (call);                                                 \
		if (vk_check_r != VK_SUCCESS)                                                 \
			die("%s failed: VkResult %d (line %d)", #call, vk_check_r, __LINE__); \
	} while (0)

/* pp_test_vk_memory_type, dying where no type fits. */
static inline uint32_t pp_test_vk_memory_type_or_die(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits,
						     VkMemoryPropertyFlags want)
{
	uint32_t type = pp_test_vk_memory_type(mp, bits, want);
	if (type == UINT32_MAX)
		die("no memory type with flags 0x%x", want);
	return type;
}

static inline VkShaderModule pp_test_vk_shader_module(VkDevice device, const uint32_t *code, size_t size)
{
	const VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkShaderModule m;
	VK_CHECK(vkCreateShaderModule(device, &info, NULL, &m));
	return m;
}

/* An exclusive buffer bound at offset 0 to memory of its own with all of `want`. */
static inline void pp_test_vk_buffer_create(VkDevice device, const VkPhysicalDeviceMemoryProperties *mp,
					    VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
					    VkBuffer *buffer, VkDeviceMemory *memory)
{
	const VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VK_CHECK(vkCreateBuffer(device, &info, NULL, buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(device, *buffer, &req);
	const VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = pp_test_vk_memory_type_or_die(mp, req.memoryTypeBits, want),
	};
	VK_CHECK(vkAllocateMemory(device, &alloc, NULL, memory));
	VK_CHECK(vkBindBufferMemory(device, *buffer, *memory, 0));
}

/* An image bound at offset 0 to memory of its own, of the first type it can use: the programs
 * never read their images back on the host. */
static inline void pp_test_vk_image_create(VkDevice device, const VkPhysicalDeviceMemoryProperties *mp,
					   const VkImageCreateInfo *info, VkImage *image, VkDeviceMemory *memory)
{
	VK_CHECK(vkCreateImage(device, info, NULL, image));
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(device, *image, &req);
	const VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = pp_test_vk_memory_type_or_die(mp, req.memoryTypeBits, 0),
	};
	VK_CHECK(vkAllocateMemory(device, &alloc, NULL, memory));
	VK_CHECK(vkBindImageMemory(device, *image, *memory, 0));
}

static inline void pp_test_vk_begin(VkCommandBuffer cb)
{
	const VkCommandBufferBeginInfo info = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VK_CHECK(vkBeginCommandBuffer(cb, &info));
}

/* Submits command buffers in one batch with the fence, waits for it and resets it. */
static inline void pp_test_vk_submit_wait(VkDevice device, VkQueue queue, VkFence fence, const VkCommandBuffer *cbs,
					  uint32_t n)
{
	const VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = n,
		.pCommandBuffers = cbs,
	};
	VK_CHECK(vkQueueSubmit(queue, 1, &info, fence));
	VK_CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
	VK_CHECK(vkResetFences(device, 1, &fence));
}

#endif /* APP */

#endif /* PP_TEST_VK_H */
