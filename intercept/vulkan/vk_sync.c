/* Synchronization hooks: pipeline barriers and event waits. Counted into the workload of
 * the open pass; the diagnostics work (tracker issue 5) analyses them here. */
#include "vk_hooks.h"
#include "vk_intercept.h"

/* ---- barriers -------------------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
						 VkPipelineStageFlags dst, VkDependencyFlags deps, uint32_t nmem,
						 const VkMemoryBarrier *mem, uint32_t nbuf,
						 const VkBufferMemoryBarrier *buf, uint32_t nimg,
						 const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		c->rec->cur->barriers++;
	(c ? c->device : pp_vk_device_of(cb))
		->vk.CmdPipelineBarrier(cb, src, dst, deps, nmem, mem, nbuf, buf, nimg, img);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		c->rec->cur->barriers++;
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdPipelineBarrier2(cb, info);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					    VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t nmem,
					    const VkMemoryBarrier *mem, uint32_t nbuf, const VkBufferMemoryBarrier *buf,
					    uint32_t nimg, const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		c->rec->cur->barriers++;
	(c ? c->device : pp_vk_device_of(cb))
		->vk.CmdWaitEvents(cb, nev, ev, src, dst, nmem, mem, nbuf, buf, nimg, img);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents2(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					     const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		c->rec->cur->barriers++;
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdWaitEvents2(cb, nev, ev, info);
}

