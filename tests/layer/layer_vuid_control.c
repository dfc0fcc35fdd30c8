/* The positive control of the validation test: an application that deliberately breaks two
 * rules, so that a validation run that reports nothing proves something. Installs no debug
 * messenger (like passprobe-demo), so the validation layer prints to stdout.
 *   - VUID-vkCmdFillBuffer-dstOffset-00025: a fill at offset 2 (must be a multiple of 4),
 *     recorded and never submitted;
 *   - SYNC-HAZARD-WRITE-AFTER-WRITE (synchronization validation only): two fills of one buffer
 *     with no barrier between them, submitted (harmless to execute).
 * Exits 0 when the Vulkan calls themselves succeed. */
#include "lt_common.h"

int main(void)
{
	lt_messenger_enabled = false;
	VkInstance instance;
	struct lt_device d;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &instance)) != VK_SUCCESS ||
	    CHECK_VK(lt_device_create(&d, instance, NULL, NULL, 0, NULL)) != VK_SUCCESS)
		return lt_finish();

	VkCommandBuffer cbs[2];
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = d.pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 2,
	};
	CHECK_VK(vkAllocateCommandBuffers(d.device, &ai, cbs));
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };

	CHECK_VK(vkBeginCommandBuffer(cbs[0], &bi));
	vkCmdFillBuffer(cbs[0], d.buffer, 2, 4, 0xdead); /* dstOffset not a multiple of 4 */
	CHECK_VK(vkEndCommandBuffer(cbs[0]));

	CHECK_VK(vkBeginCommandBuffer(cbs[1], &bi));
	vkCmdFillBuffer(cbs[1], d.buffer, 0, VK_WHOLE_SIZE, 1);
	vkCmdFillBuffer(cbs[1], d.buffer, 0, VK_WHOLE_SIZE, 2); /* write after write, no barrier */
	CHECK_VK(vkEndCommandBuffer(cbs[1]));
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cbs[1] };
	CHECK_VK(vkQueueSubmit(d.queue, 1, &si, VK_NULL_HANDLE));
	CHECK_VK(vkQueueWaitIdle(d.queue));

	vkFreeCommandBuffers(d.device, d.pool, 2, cbs);
	lt_device_destroy(&d);
	lt_instance_destroy(instance);
	return lt_finish();
}
