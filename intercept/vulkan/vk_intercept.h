#pragma once
/* Shared by the Vulkan intercept files. */
#include "attr_device.h"
#include "attr_record.h"
#include "gpu_vk_timer.h"
#include "layer_internal.h"

static inline struct pp_device *pp_vk_device_of(const void *dispatchable)
{
	return pp_device_lookup(pp_dispatch_key(dispatchable));
}

uint32_t pp_vk_thread_id(void);
uint64_t pp_vk_now_ns(void);
const char *pp_vk_format_name(VkFormat f);
const char *pp_vk_load_op_name(VkAttachmentLoadOp op);
const char *pp_vk_store_op_name(VkAttachmentStoreOp op);
