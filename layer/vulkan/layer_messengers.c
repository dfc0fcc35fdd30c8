/* The application's debug messengers (VK_EXT_debug_utils) and debug report callbacks
 * (VK_EXT_debug_report), kept per instance so that passprobe's diagnostics reach them as
 * PERFORMANCE / WARNING messages (docs/diagnostics.md). Delivery happens on the application
 * thread that called a queue hook (submit, present), never on the writer thread, and never
 * with our lock held while the application's callback runs.
 *
 * Messengers chained in VkInstanceCreateInfo::pNext are not kept: the specification makes
 * them valid only for the duration of vkCreateInstance and vkDestroyInstance. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_log.h"

struct messenger {
	struct messenger *next;
	bool report;                     /* a debug report callback, not a debug utils messenger */
	uint64_t handle;
	VkDebugUtilsMessageSeverityFlagsEXT severity;
	VkDebugUtilsMessageTypeFlagsEXT types;
	PFN_vkDebugUtilsMessengerCallbackEXT utils_fn;
	VkDebugReportFlagsEXT report_flags;
	PFN_vkDebugReportCallbackEXT report_fn;
	void *user;
};

struct pp_messengers {
	struct messenger *list;
};

/* One lock for every instance's list: messengers change rarely. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void messenger_add(struct pp_instance *inst, struct messenger *m)
{
	pthread_mutex_lock(&g_lock);
	if (!inst->messengers)
		inst->messengers = calloc(1, sizeof(*inst->messengers));
	if (inst->messengers) {
		m->next = inst->messengers->list;
		inst->messengers->list = m;
		m = NULL;
	}
	pthread_mutex_unlock(&g_lock);
	if (m) {
		pp_log_once(PP_LOG_WARN, "out of memory tracking a debug messenger; diagnostics will not reach it");
		free(m);
	}
}

static void messenger_remove(struct pp_instance *inst, bool report, uint64_t handle)
{
	struct messenger *gone = NULL;
	pthread_mutex_lock(&g_lock);
	if (inst->messengers) {
		for (struct messenger **p = &inst->messengers->list; *p; p = &(*p)->next)
			if ((*p)->report == report && (*p)->handle == handle) {
				gone = *p;
				*p = gone->next;
				break;
			}
		/* The list goes with its last messenger: an instance destroyed after its
		 * messengers (the valid order) leaves nothing behind. */
		if (!inst->messengers->list) {
			free(inst->messengers);
			inst->messengers = NULL;
		}
	}
	pthread_mutex_unlock(&g_lock);
	free(gone);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDebugUtilsMessengerEXT(VkInstance instance,
							       const VkDebugUtilsMessengerCreateInfoEXT *info,
							       const VkAllocationCallbacks *alloc,
							       VkDebugUtilsMessengerEXT *out)
{
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(instance));
	if (!inst || !inst->vk.CreateDebugUtilsMessengerEXT)
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	VkResult r = inst->vk.CreateDebugUtilsMessengerEXT(instance, info, alloc, out);
	if (r != VK_SUCCESS || !info->pfnUserCallback)
		return r;
	struct messenger *m = calloc(1, sizeof(*m));
	if (m) {
		m->handle = (uint64_t)*out;
		m->severity = info->messageSeverity;
		m->types = info->messageType;
		m->utils_fn = info->pfnUserCallback;
		m->user = info->pUserData;
	}
	messenger_add(inst, m);
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT m,
							    const VkAllocationCallbacks *alloc)
{
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(instance));
	if (!inst || !inst->vk.DestroyDebugUtilsMessengerEXT)
		return;
	if (m)
		messenger_remove(inst, false, (uint64_t)m);
	inst->vk.DestroyDebugUtilsMessengerEXT(instance, m, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDebugReportCallbackEXT(VkInstance instance,
							       const VkDebugReportCallbackCreateInfoEXT *info,
							       const VkAllocationCallbacks *alloc,
							       VkDebugReportCallbackEXT *out)
{
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(instance));
	if (!inst || !inst->vk.CreateDebugReportCallbackEXT)
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	VkResult r = inst->vk.CreateDebugReportCallbackEXT(instance, info, alloc, out);
	if (r != VK_SUCCESS || !info->pfnCallback)
		return r;
	struct messenger *m = calloc(1, sizeof(*m));
	if (m) {
		m->report = true;
		m->handle = (uint64_t)*out;
		m->report_flags = info->flags;
		m->report_fn = info->pfnCallback;
		m->user = info->pUserData;
	}
	messenger_add(inst, m);
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyDebugReportCallbackEXT(VkInstance instance, VkDebugReportCallbackEXT cb,
							    const VkAllocationCallbacks *alloc)
{
	struct pp_instance *inst = pp_layer_registry_instance_lookup(pp_dispatch_key(instance));
	if (!inst || !inst->vk.DestroyDebugReportCallbackEXT)
		return;
	if (cb)
		messenger_remove(inst, true, (uint64_t)cb);
	inst->vk.DestroyDebugReportCallbackEXT(instance, cb, alloc);
}

bool pp_layer_messengers_any(struct pp_instance *inst)
{
	pthread_mutex_lock(&g_lock);
	bool any = inst && inst->messengers && inst->messengers->list;
	pthread_mutex_unlock(&g_lock);
	return any;
}

/* VK_EXT_debug_report names objects by its own enumeration. */
static VkDebugReportObjectTypeEXT report_object_type(VkObjectType t)
{
	switch (t) {
	case VK_OBJECT_TYPE_DEVICE: return VK_DEBUG_REPORT_OBJECT_TYPE_DEVICE_EXT;
	case VK_OBJECT_TYPE_QUEUE: return VK_DEBUG_REPORT_OBJECT_TYPE_QUEUE_EXT;
	case VK_OBJECT_TYPE_COMMAND_BUFFER: return VK_DEBUG_REPORT_OBJECT_TYPE_COMMAND_BUFFER_EXT;
	case VK_OBJECT_TYPE_IMAGE: return VK_DEBUG_REPORT_OBJECT_TYPE_IMAGE_EXT;
	case VK_OBJECT_TYPE_BUFFER: return VK_DEBUG_REPORT_OBJECT_TYPE_BUFFER_EXT;
	case VK_OBJECT_TYPE_FENCE: return VK_DEBUG_REPORT_OBJECT_TYPE_FENCE_EXT;
	case VK_OBJECT_TYPE_EVENT: return VK_DEBUG_REPORT_OBJECT_TYPE_EVENT_EXT;
	case VK_OBJECT_TYPE_QUERY_POOL: return VK_DEBUG_REPORT_OBJECT_TYPE_QUERY_POOL_EXT;
	default: return VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT;
	}
}

/* A stable number for an ID string (FNV-1a), as validation layers give messageIdNumber. */
static int32_t id_number(const char *id)
{
	uint32_t h = 2166136261u;
	for (const char *p = id; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return (int32_t)h;
}

#define DELIVER_MAX 16

void pp_layer_messengers_deliver(struct pp_instance *inst, const char *id, bool info, const char *text, uint32_t nobjects,
			   const struct pp_messenger_object *objects)
{
	struct messenger copy[DELIVER_MAX];
	uint32_t n = 0;
	const VkDebugReportFlagsEXT report_flag =
		info ? VK_DEBUG_REPORT_INFORMATION_BIT_EXT : VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT;
	const VkDebugUtilsMessageSeverityFlagBitsEXT severity =
		info ? VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT : VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
	pthread_mutex_lock(&g_lock);
	for (struct messenger *m = inst && inst->messengers ? inst->messengers->list : NULL; m && n < DELIVER_MAX;
	     m = m->next) {
		bool wants = m->report ? (m->report_flags & report_flag) != 0
				       : (m->severity & severity) &&
						 (m->types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT);
		if (wants)
			copy[n++] = *m;
	}
	pthread_mutex_unlock(&g_lock);
	if (!n)
		return;

	VkDebugUtilsObjectNameInfoEXT objs[8];
	if (nobjects > 8)
		nobjects = 8;
	for (uint32_t i = 0; i < nobjects; i++)
		objs[i] = (VkDebugUtilsObjectNameInfoEXT){
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
			.objectType = objects[i].type,
			.objectHandle = objects[i].handle,
		};
	const VkDebugUtilsMessengerCallbackDataEXT data = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
		.pMessageIdName = id,
		.messageIdNumber = id_number(id),
		.pMessage = text,
		.objectCount = nobjects,
		.pObjects = nobjects ? objs : NULL,
	};
	for (uint32_t i = 0; i < n; i++) {
		if (copy[i].report)
			copy[i].report_fn(report_flag,
					  nobjects ? report_object_type(objects[0].type)
						   : VK_DEBUG_REPORT_OBJECT_TYPE_UNKNOWN_EXT,
					  nobjects ? objects[0].handle : 0, 0, id_number(id), "passprobe", text,
					  copy[i].user);
		else
			copy[i].utils_fn(severity,
					 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT, &data, copy[i].user);
	}
}
