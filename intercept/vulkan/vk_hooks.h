#pragma once
/* Every device-level hook the layer installs: X(vkName, pp_Function). Aliases (KHR/EXT
 * names of promoted functions) map to the same hook. vkGetDeviceProcAddr returns a hook only
 * when the chain below provides that name. */
#include "layer_internal.h"

#define PP_VK_DEVICE_HOOKS(X)                                                             \
	X(vkGetDeviceQueue, pp_GetDeviceQueue)                                          \
	X(vkGetDeviceQueue2, pp_GetDeviceQueue2)                                        \
	X(vkCreateCommandPool, pp_CreateCommandPool)                                    \
	X(vkDestroyCommandPool, pp_DestroyCommandPool)                                  \
	X(vkResetCommandPool, pp_ResetCommandPool)                                      \
	X(vkAllocateCommandBuffers, pp_AllocateCommandBuffers)                          \
	X(vkFreeCommandBuffers, pp_FreeCommandBuffers)                                  \
	X(vkCreateRenderPass, pp_CreateRenderPass)                                      \
	X(vkCreateRenderPass2, pp_CreateRenderPass2)                                    \
	X(vkCreateRenderPass2KHR, pp_CreateRenderPass2)                                 \
	X(vkDestroyRenderPass, pp_DestroyRenderPass)                                    \
	X(vkCreateFramebuffer, pp_CreateFramebuffer)                                    \
	X(vkDestroyFramebuffer, pp_DestroyFramebuffer)                                  \
	X(vkCreateImage, pp_CreateImage)                                                \
	X(vkDestroyImage, pp_DestroyImage)                                              \
	X(vkCreateImageView, pp_CreateImageView)                                        \
	X(vkDestroyImageView, pp_DestroyImageView)                                      \
	X(vkCreateQueryPool, pp_CreateQueryPool)                                        \
	X(vkDestroyQueryPool, pp_DestroyQueryPool)                                      \
	X(vkSetDebugUtilsObjectNameEXT, pp_SetDebugUtilsObjectNameEXT)                  \
	X(vkBeginCommandBuffer, pp_BeginCommandBuffer)                                  \
	X(vkEndCommandBuffer, pp_EndCommandBuffer)                                      \
	X(vkResetCommandBuffer, pp_ResetCommandBuffer)                                  \
	X(vkCmdBeginRenderPass, pp_CmdBeginRenderPass)                                  \
	X(vkCmdBeginRenderPass2, pp_CmdBeginRenderPass2)                                \
	X(vkCmdBeginRenderPass2KHR, pp_CmdBeginRenderPass2)                             \
	X(vkCmdNextSubpass, pp_CmdNextSubpass)                                          \
	X(vkCmdNextSubpass2, pp_CmdNextSubpass2)                                        \
	X(vkCmdNextSubpass2KHR, pp_CmdNextSubpass2)                                     \
	X(vkCmdEndRenderPass, pp_CmdEndRenderPass)                                      \
	X(vkCmdEndRenderPass2, pp_CmdEndRenderPass2)                                    \
	X(vkCmdEndRenderPass2KHR, pp_CmdEndRenderPass2)                                 \
	X(vkCmdBeginRendering, pp_CmdBeginRendering)                                    \
	X(vkCmdBeginRenderingKHR, pp_CmdBeginRendering)                                 \
	X(vkCmdEndRendering, pp_CmdEndRendering)                                        \
	X(vkCmdEndRenderingKHR, pp_CmdEndRendering)                                     \
	X(vkCmdExecuteCommands, pp_CmdExecuteCommands)                                  \
	X(vkCmdBeginQuery, pp_CmdBeginQuery)                                            \
	X(vkCmdEndQuery, pp_CmdEndQuery)                                                \
	X(vkCmdDraw, pp_CmdDraw)                                                        \
	X(vkCmdDrawIndexed, pp_CmdDrawIndexed)                                          \
	X(vkCmdDrawIndirect, pp_CmdDrawIndirect)                                        \
	X(vkCmdDrawIndexedIndirect, pp_CmdDrawIndexedIndirect)                          \
	X(vkCmdDrawIndirectCount, pp_CmdDrawIndirectCount)                              \
	X(vkCmdDrawIndirectCountKHR, pp_CmdDrawIndirectCount)                           \
	X(vkCmdDrawIndexedIndirectCount, pp_CmdDrawIndexedIndirectCount)                \
	X(vkCmdDrawIndexedIndirectCountKHR, pp_CmdDrawIndexedIndirectCount)             \
	X(vkCmdDispatch, pp_CmdDispatch)                                                \
	X(vkCmdDispatchBase, pp_CmdDispatchBase)                                        \
	X(vkCmdDispatchBaseKHR, pp_CmdDispatchBase)                                     \
	X(vkCmdDispatchIndirect, pp_CmdDispatchIndirect)                                \
	X(vkCmdCopyBuffer, pp_CmdCopyBuffer)                                            \
	X(vkCmdCopyBuffer2, pp_CmdCopyBuffer2)                                          \
	X(vkCmdCopyBuffer2KHR, pp_CmdCopyBuffer2)                                       \
	X(vkCmdCopyImage, pp_CmdCopyImage)                                              \
	X(vkCmdCopyImage2, pp_CmdCopyImage2)                                            \
	X(vkCmdCopyImage2KHR, pp_CmdCopyImage2)                                         \
	X(vkCmdBlitImage, pp_CmdBlitImage)                                              \
	X(vkCmdBlitImage2, pp_CmdBlitImage2)                                            \
	X(vkCmdBlitImage2KHR, pp_CmdBlitImage2)                                         \
	X(vkCmdCopyBufferToImage, pp_CmdCopyBufferToImage)                              \
	X(vkCmdCopyBufferToImage2, pp_CmdCopyBufferToImage2)                            \
	X(vkCmdCopyBufferToImage2KHR, pp_CmdCopyBufferToImage2)                         \
	X(vkCmdCopyImageToBuffer, pp_CmdCopyImageToBuffer)                              \
	X(vkCmdCopyImageToBuffer2, pp_CmdCopyImageToBuffer2)                            \
	X(vkCmdCopyImageToBuffer2KHR, pp_CmdCopyImageToBuffer2)                         \
	X(vkCmdResolveImage, pp_CmdResolveImage)                                        \
	X(vkCmdResolveImage2, pp_CmdResolveImage2)                                      \
	X(vkCmdResolveImage2KHR, pp_CmdResolveImage2)                                   \
	X(vkCmdUpdateBuffer, pp_CmdUpdateBuffer)                                        \
	X(vkCmdFillBuffer, pp_CmdFillBuffer)                                            \
	X(vkCmdClearColorImage, pp_CmdClearColorImage)                                  \
	X(vkCmdClearDepthStencilImage, pp_CmdClearDepthStencilImage)                    \
	X(vkCmdClearAttachments, pp_CmdClearAttachments)                                \
	X(vkCmdPipelineBarrier, pp_CmdPipelineBarrier)                                  \
	X(vkCmdPipelineBarrier2, pp_CmdPipelineBarrier2)                                \
	X(vkCmdPipelineBarrier2KHR, pp_CmdPipelineBarrier2)                             \
	X(vkCmdWaitEvents, pp_CmdWaitEvents)                                            \
	X(vkCmdWaitEvents2, pp_CmdWaitEvents2)                                          \
	X(vkCmdWaitEvents2KHR, pp_CmdWaitEvents2)                                       \
	X(vkCmdBeginDebugUtilsLabelEXT, pp_CmdBeginDebugUtilsLabelEXT)                  \
	X(vkCmdEndDebugUtilsLabelEXT, pp_CmdEndDebugUtilsLabelEXT)                      \
	X(vkQueueBeginDebugUtilsLabelEXT, pp_QueueBeginDebugUtilsLabelEXT)              \
	X(vkQueueEndDebugUtilsLabelEXT, pp_QueueEndDebugUtilsLabelEXT)                  \
	X(vkQueueSubmit, pp_QueueSubmit)                                                \
	X(vkQueueSubmit2, pp_QueueSubmit2)                                              \
	X(vkQueueSubmit2KHR, pp_QueueSubmit2)                                           \
	X(vkQueuePresentKHR, pp_QueuePresentKHR)                                        \
	X(vkCreateSwapchainKHR, pp_CreateSwapchainKHR)                                  \
	X(vkCreateDescriptorSetLayout, pp_CreateDescriptorSetLayout)                    \
	X(vkDestroyDescriptorSetLayout, pp_DestroyDescriptorSetLayout)                  \
	X(vkCreatePipelineLayout, pp_CreatePipelineLayout)                              \
	X(vkDestroyPipelineLayout, pp_DestroyPipelineLayout)                            \
	X(vkAllocateDescriptorSets, pp_AllocateDescriptorSets)                          \
	X(vkFreeDescriptorSets, pp_FreeDescriptorSets)                                  \
	X(vkResetDescriptorPool, pp_ResetDescriptorPool)                                \
	X(vkDestroyDescriptorPool, pp_DestroyDescriptorPool)                            \
	X(vkUpdateDescriptorSets, pp_UpdateDescriptorSets)                              \
	X(vkUpdateDescriptorSetWithTemplate, pp_UpdateDescriptorSetWithTemplate)        \
	X(vkUpdateDescriptorSetWithTemplateKHR, pp_UpdateDescriptorSetWithTemplate)     \
	X(vkCreateBufferView, pp_CreateBufferView)                                      \
	X(vkDestroyBufferView, pp_DestroyBufferView)                                    \
	X(vkCreateGraphicsPipelines, pp_CreateGraphicsPipelines)                        \
	X(vkCreateComputePipelines, pp_CreateComputePipelines)                          \
	X(vkDestroyPipeline, pp_DestroyPipeline)                                        \
	X(vkCmdBindPipeline, pp_CmdBindPipeline)                                        \
	X(vkCmdBindDescriptorSets, pp_CmdBindDescriptorSets)                            \
	X(vkCmdPushDescriptorSetKHR, pp_CmdPushDescriptorSetKHR)                        \
	X(vkCmdPushDescriptorSetWithTemplateKHR, pp_CmdPushDescriptorSetWithTemplateKHR) \
	X(vkCmdPushConstants, pp_CmdPushConstants)                                      \
	X(vkCmdBindVertexBuffers, pp_CmdBindVertexBuffers)                              \
	X(vkCmdBindVertexBuffers2, pp_CmdBindVertexBuffers2)                            \
	X(vkCmdBindVertexBuffers2EXT, pp_CmdBindVertexBuffers2)                         \
	X(vkCmdBindIndexBuffer, pp_CmdBindIndexBuffer)                                  \
	X(vkCmdSetEvent, pp_CmdSetEvent)                                                \
	X(vkCmdSetEvent2, pp_CmdSetEvent2)                                              \
	X(vkCmdSetEvent2KHR, pp_CmdSetEvent2)                                           \
	X(vkCmdWriteTimestamp, pp_CmdWriteTimestamp)                                    \
	X(vkCmdWriteTimestamp2, pp_CmdWriteTimestamp2)                                  \
	X(vkCmdWriteTimestamp2KHR, pp_CmdWriteTimestamp2)                               \
	X(vkCmdResetQueryPool, pp_CmdResetQueryPool)                                    \
	X(vkResetQueryPool, pp_ResetQueryPool)                                          \
	X(vkResetQueryPoolEXT, pp_ResetQueryPool)                                       \
	X(vkGetQueryPoolResults, pp_GetQueryPoolResults)                                \
	X(vkWaitForFences, pp_WaitForFences)                                            \
	X(vkGetFenceStatus, pp_GetFenceStatus)                                          \
	X(vkResetFences, pp_ResetFences)                                                \
	X(vkGetEventStatus, pp_GetEventStatus)                                          \
	X(vkQueueWaitIdle, pp_QueueWaitIdle)                                            \
	X(vkDeviceWaitIdle, pp_DeviceWaitIdle)                                          \
	X(vkCreateSemaphore, pp_CreateSemaphore)                                        \
	X(vkDestroySemaphore, pp_DestroySemaphore)                                      \
	X(vkWaitSemaphores, pp_WaitSemaphores)                                          \
	X(vkWaitSemaphoresKHR, pp_WaitSemaphores)                                       \
	X(vkSignalSemaphore, pp_SignalSemaphore)                                        \
	X(vkSignalSemaphoreKHR, pp_SignalSemaphore)                                     \
	X(vkGetSemaphoreCounterValue, pp_GetSemaphoreCounterValue)                      \
	X(vkGetSemaphoreCounterValueKHR, pp_GetSemaphoreCounterValue)

/* Each hook has exactly the prototype of the Vulkan function it stands in for. */
#define PP_VK_DECLARE_HOOK(vkname, fn) extern __typeof__(vkname) fn;
PP_VK_DEVICE_HOOKS(PP_VK_DECLARE_HOOK)
#undef PP_VK_DECLARE_HOOK

/* Profiling state of a device (vk_profiling.c). */
void pp_device_profiling_init(struct pp_device *dev);
void pp_device_profiling_finish(struct pp_device *dev);
/* A command buffer's recording is about to be reset, re-recorded or freed. */
void pp_vk_recording_release(struct pp_device *dev, struct pp_command_buffer *cb);
void pp_vk_command_buffer_destroy(struct pp_device *dev, struct pp_command_buffer *cb);
/* The device's diagnostics state (vk_sync.c), at vkDestroyDevice after its command buffers. */
void pp_vk_diag_device_destroy(struct pp_device *dev);
void pp_vk_queue_created(struct pp_device *dev, struct pp_queue *q);
