#pragma once
/* The device-level hooks: pp_<Member> for every HOOK entry of PP_VK_DEVICE_FUNCTIONS
 * (layer/vulkan/vk_functions.h). vk_hooks.c makes their table for vkGet*ProcAddr; a hook is
 * handed out only when the chain below provides its name. */
#include "layer_internal.h"

/* Each hook has exactly the prototype of the Vulkan function it stands in for (its alias has
 * the same one: the registry makes it so). */
#define PP_VK_DECLARE_HOOK(member, alias, kind) PP_VK_ONLY_HOOK(kind, extern __typeof__(vk##member) pp_##member;)
PP_VK_DEVICE_FUNCTIONS(PP_VK_DECLARE_HOOK)
#undef PP_VK_DECLARE_HOOK

/* Profiling state of a device (vk_profiling.c). */
void pp_vk_profiling_device_init(struct pp_device *dev);
void pp_vk_profiling_device_finish(struct pp_device *dev);
/* A command buffer's recording is about to be reset, re-recorded or freed. */
void pp_vk_profiling_recording_release(struct pp_device *dev, struct pp_command_buffer *cb);
void pp_vk_profiling_command_buffer_destroy(struct pp_device *dev, struct pp_command_buffer *cb);
/* The device's diagnostics state (vk_diag_state.c), at vkDestroyDevice after its command buffers. */
void pp_vk_diag_state_device_destroy(struct pp_device *dev);
void pp_vk_profiling_queue_created(struct pp_device *dev, struct pp_queue *q);
