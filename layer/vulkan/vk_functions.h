#pragma once
/* The one list of the Vulkan functions passprobe hooks or calls down to. Everything that names
 * them is made from it: the dispatch tables and their loading (layer_internal.h,
 * layer_dispatch.c), the hook tables of vkGet*ProcAddr (layer_dispatch.c for the layer's own
 * hooks, intercept/vulkan/vk_hooks.c for the rest), the prototype checks of the hooks
 * (vk_hooks.h), the test that hides each hooked command below passprobe
 * (tests/layer/test_layer_missing_below.c) and the names and aliases of the test spy layer
 * (tests/layers/spy/spy_layer.c). Needs nothing but the Vulkan headers, so a test layer can
 * include it alone.
 *
 * X(Member, alias, kind): the function is "vk" #Member (its type PFN_vk##Member, its slot
 * .Member), alias is the other name it has (the KHR/EXT name of a promoted function, a string,
 * tried when the first name answers NULL, and handed out as the same hook) or NULL, and kind is
 *   HOOK   hooked by intercept/vulkan as pp_##Member, whose type is checked against the
 *          prototype (vk_hooks.h); its call-down slot is never left NULL
 *          (layer_dispatch.c, dispatch_fill_missing);
 *   LAYER  hooked by layer/vulkan itself as pp_##Member (layer_dispatch.c, layer_messengers.c),
 *          slot filled as for HOOK where it is a device function;
 *   CALL   only called down to, by passprobe itself. */
#include <stddef.h>
#include <vulkan/vulkan.h>

/* Instance-level functions. */
#define PP_VK_INSTANCE_FUNCTIONS(X) \
	X(DestroyInstance, NULL, LAYER)                                            \
	X(EnumerateDeviceExtensionProperties, NULL, CALL)                          \
	X(GetPhysicalDeviceProperties, NULL, CALL)                                 \
	X(GetPhysicalDeviceFeatures, NULL, CALL)                                   \
	X(GetPhysicalDeviceMemoryProperties, NULL, CALL)                           \
	X(GetPhysicalDeviceFeatures2, "vkGetPhysicalDeviceFeatures2KHR", CALL)     \
	X(GetPhysicalDeviceProperties2, "vkGetPhysicalDeviceProperties2KHR", CALL) \
	X(GetPhysicalDeviceQueueFamilyProperties, NULL, CALL)                      \
	X(GetPhysicalDeviceToolProperties, NULL, LAYER)                            \
	X(GetPhysicalDeviceToolPropertiesEXT, NULL, LAYER)                         \
	X(GetPhysicalDeviceCalibrateableTimeDomainsEXT, NULL, CALL)                \
	X(EnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR, NULL, CALL) \
	X(GetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR, NULL, CALL)      \
	X(CreateDebugUtilsMessengerEXT, NULL, LAYER)                               \
	X(DestroyDebugUtilsMessengerEXT, NULL, LAYER)                              \
	X(CreateDebugReportCallbackEXT, NULL, LAYER)                               \
	X(DestroyDebugReportCallbackEXT, NULL, LAYER)

/* Device-level functions. */
#define PP_VK_DEVICE_FUNCTIONS(X) \
	X(GetDeviceProcAddr, NULL, CALL)                                                 \
	X(DestroyDevice, NULL, LAYER)                                                    \
	X(GetDeviceQueue, NULL, HOOK)                                                    \
	X(GetDeviceQueue2, NULL, HOOK)                                                   \
	X(QueueSubmit, NULL, HOOK)                                                       \
	X(QueueSubmit2, "vkQueueSubmit2KHR", HOOK)                                       \
	X(QueuePresentKHR, NULL, HOOK)                                                   \
	X(CreateSwapchainKHR, NULL, HOOK)                                                \
	X(QueueWaitIdle, NULL, HOOK)                                                     \
	X(DeviceWaitIdle, NULL, HOOK)                                                    \
	X(WaitForFences, NULL, HOOK)                                                     \
	X(CreateCommandPool, NULL, HOOK)                                                 \
	X(DestroyCommandPool, NULL, HOOK)                                                \
	X(ResetCommandPool, NULL, HOOK)                                                  \
	X(AllocateCommandBuffers, NULL, HOOK)                                            \
	X(FreeCommandBuffers, NULL, HOOK)                                                \
	X(BeginCommandBuffer, NULL, HOOK)                                                \
	X(EndCommandBuffer, NULL, HOOK)                                                  \
	X(ResetCommandBuffer, NULL, HOOK)                                                \
	X(CreateQueryPool, NULL, HOOK)                                                   \
	X(DestroyQueryPool, NULL, HOOK)                                                  \
	X(GetQueryPoolResults, NULL, HOOK)                                               \
	X(CmdCopyQueryPoolResults, NULL, HOOK)                                           \
	X(CreateBuffer, NULL, CALL)                                                      \
	X(DestroyBuffer, NULL, CALL)                                                     \
	X(GetBufferMemoryRequirements, NULL, CALL)                                       \
	X(AllocateMemory, NULL, CALL)                                                    \
	X(FreeMemory, NULL, CALL)                                                        \
	X(BindBufferMemory, NULL, CALL)                                                  \
	X(MapMemory, NULL, CALL)                                                         \
	X(ResetQueryPool, "vkResetQueryPoolEXT", HOOK)                                   \
	X(GetCalibratedTimestampsEXT, NULL, CALL)                                        \
	X(AcquireProfilingLockKHR, NULL, CALL)                                           \
	X(ReleaseProfilingLockKHR, NULL, CALL)                                           \
	X(CreateRenderPass, NULL, HOOK)                                                  \
	X(CreateRenderPass2, "vkCreateRenderPass2KHR", HOOK)                             \
	X(DestroyRenderPass, NULL, HOOK)                                                 \
	X(CreateFramebuffer, NULL, HOOK)                                                 \
	X(DestroyFramebuffer, NULL, HOOK)                                                \
	X(CreateImage, NULL, HOOK)                                                       \
	X(DestroyImage, NULL, HOOK)                                                      \
	X(CreateImageView, NULL, HOOK)                                                   \
	X(DestroyImageView, NULL, HOOK)                                                  \
	X(SetDebugUtilsObjectNameEXT, NULL, HOOK)                                        \
	X(QueueBeginDebugUtilsLabelEXT, NULL, HOOK)                                      \
	X(QueueEndDebugUtilsLabelEXT, NULL, HOOK)                                        \
	X(CmdBeginDebugUtilsLabelEXT, NULL, HOOK)                                        \
	X(CmdEndDebugUtilsLabelEXT, NULL, HOOK)                                          \
	X(CmdInsertDebugUtilsLabelEXT, NULL, CALL)                                       \
	X(CmdWriteTimestamp, NULL, HOOK)                                                 \
	X(CmdBeginQuery, NULL, HOOK)                                                     \
	X(CmdEndQuery, NULL, HOOK)                                                       \
	X(CmdBeginRenderPass, NULL, HOOK)                                                \
	X(CmdBeginRenderPass2, "vkCmdBeginRenderPass2KHR", HOOK)                         \
	X(CmdNextSubpass, NULL, HOOK)                                                    \
	X(CmdNextSubpass2, "vkCmdNextSubpass2KHR", HOOK)                                 \
	X(CmdEndRenderPass, NULL, HOOK)                                                  \
	X(CmdEndRenderPass2, "vkCmdEndRenderPass2KHR", HOOK)                             \
	X(CmdBeginRendering, "vkCmdBeginRenderingKHR", HOOK)                             \
	X(CmdEndRendering, "vkCmdEndRenderingKHR", HOOK)                                 \
	X(CmdExecuteCommands, NULL, HOOK)                                                \
	X(CmdDraw, NULL, HOOK)                                                           \
	X(CmdDrawIndexed, NULL, HOOK)                                                    \
	X(CmdDrawIndirect, NULL, HOOK)                                                   \
	X(CmdDrawIndexedIndirect, NULL, HOOK)                                            \
	X(CmdDrawIndirectCount, "vkCmdDrawIndirectCountKHR", HOOK)                       \
	X(CmdDrawIndexedIndirectCount, "vkCmdDrawIndexedIndirectCountKHR", HOOK)         \
	X(CmdDispatch, NULL, HOOK)                                                       \
	X(CmdDispatchBase, "vkCmdDispatchBaseKHR", HOOK)                                 \
	X(CmdDispatchIndirect, NULL, HOOK)                                               \
	X(CmdCopyBuffer, NULL, HOOK)                                                     \
	X(CmdCopyBuffer2, "vkCmdCopyBuffer2KHR", HOOK)                                   \
	X(CmdCopyImage, NULL, HOOK)                                                      \
	X(CmdCopyImage2, "vkCmdCopyImage2KHR", HOOK)                                     \
	X(CmdBlitImage, NULL, HOOK)                                                      \
	X(CmdBlitImage2, "vkCmdBlitImage2KHR", HOOK)                                     \
	X(CmdCopyBufferToImage, NULL, HOOK)                                              \
	X(CmdCopyBufferToImage2, "vkCmdCopyBufferToImage2KHR", HOOK)                     \
	X(CmdCopyImageToBuffer, NULL, HOOK)                                              \
	X(CmdCopyImageToBuffer2, "vkCmdCopyImageToBuffer2KHR", HOOK)                     \
	X(CmdResolveImage, NULL, HOOK)                                                   \
	X(CmdResolveImage2, "vkCmdResolveImage2KHR", HOOK)                               \
	X(CmdUpdateBuffer, NULL, HOOK)                                                   \
	X(CmdFillBuffer, NULL, HOOK)                                                     \
	X(CmdClearColorImage, NULL, HOOK)                                                \
	X(CmdClearDepthStencilImage, NULL, HOOK)                                         \
	X(CmdClearAttachments, NULL, HOOK)                                               \
	X(CmdPipelineBarrier, NULL, HOOK)                                                \
	X(CmdPipelineBarrier2, "vkCmdPipelineBarrier2KHR", HOOK)                         \
	X(CmdWaitEvents, NULL, HOOK)                                                     \
	X(CmdWaitEvents2, "vkCmdWaitEvents2KHR", HOOK)                                   \
	X(CreateDescriptorSetLayout, NULL, HOOK)                                         \
	X(DestroyDescriptorSetLayout, NULL, HOOK)                                        \
	X(CreatePipelineLayout, NULL, HOOK)                                              \
	X(DestroyPipelineLayout, NULL, HOOK)                                             \
	X(AllocateDescriptorSets, NULL, HOOK)                                            \
	X(FreeDescriptorSets, NULL, HOOK)                                                \
	X(ResetDescriptorPool, NULL, HOOK)                                               \
	X(DestroyDescriptorPool, NULL, HOOK)                                             \
	X(UpdateDescriptorSets, NULL, HOOK)                                              \
	X(UpdateDescriptorSetWithTemplate, "vkUpdateDescriptorSetWithTemplateKHR", HOOK) \
	X(CreateBufferView, NULL, HOOK)                                                  \
	X(DestroyBufferView, NULL, HOOK)                                                 \
	X(CreateGraphicsPipelines, NULL, HOOK)                                           \
	X(CreateComputePipelines, NULL, HOOK)                                            \
	X(DestroyPipeline, NULL, HOOK)                                                   \
	X(CmdBindPipeline, NULL, HOOK)                                                   \
	X(CmdBindDescriptorSets, NULL, HOOK)                                             \
	X(CmdPushDescriptorSetKHR, NULL, HOOK)                                           \
	X(CmdPushConstants, NULL, HOOK)                                                  \
	X(CmdPushDescriptorSetWithTemplateKHR, NULL, HOOK)                               \
	X(CmdBindVertexBuffers, NULL, HOOK)                                              \
	X(CmdBindVertexBuffers2, "vkCmdBindVertexBuffers2EXT", HOOK)                     \
	X(CmdBindIndexBuffer, NULL, HOOK)                                                \
	X(CmdSetEvent, NULL, HOOK)                                                       \
	X(CmdSetEvent2, "vkCmdSetEvent2KHR", HOOK)                                       \
	X(CmdResetEvent, NULL, HOOK)                                                     \
	X(CmdResetEvent2, "vkCmdResetEvent2KHR", HOOK)                                   \
	X(CmdWriteTimestamp2, "vkCmdWriteTimestamp2KHR", HOOK)                           \
	X(CmdResetQueryPool, NULL, HOOK)                                                 \
	X(GetFenceStatus, NULL, HOOK)                                                    \
	X(ResetFences, NULL, HOOK)                                                       \
	X(GetEventStatus, NULL, HOOK)                                                    \
	X(CreateSemaphore, NULL, HOOK)                                                   \
	X(DestroySemaphore, NULL, HOOK)                                                  \
	X(WaitSemaphores, "vkWaitSemaphoresKHR", HOOK)                                   \
	X(SignalSemaphore, "vkSignalSemaphoreKHR", HOOK)                                 \
	X(GetSemaphoreCounterValue, "vkGetSemaphoreCounterValueKHR", HOOK)

/* The kind as a value, for tables: PP_VK_KIND(kind). */
enum pp_vk_kind { PP_VK_KIND_CALL, PP_VK_KIND_HOOK, PP_VK_KIND_LAYER };
#define PP_VK_KIND(kind) PP_VK_KIND_##kind

/* The remaining arguments for entries of one kind only, nothing for the others:
 * PP_VK_ONLY_HOOK(kind, text...), PP_VK_ONLY_LAYER(kind, text...). */
#define PP_VK_ONLY_HOOK(kind, ...) PP_VK_ONLY_HOOK_##kind(__VA_ARGS__)
#define PP_VK_ONLY_HOOK_HOOK(...) __VA_ARGS__
#define PP_VK_ONLY_HOOK_LAYER(...)
#define PP_VK_ONLY_HOOK_CALL(...)
#define PP_VK_ONLY_LAYER(kind, ...) PP_VK_ONLY_LAYER_##kind(__VA_ARGS__)
#define PP_VK_ONLY_LAYER_HOOK(...)
#define PP_VK_ONLY_LAYER_LAYER(...) __VA_ARGS__
#define PP_VK_ONLY_LAYER_CALL(...)
