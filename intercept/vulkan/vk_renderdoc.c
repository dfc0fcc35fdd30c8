/* The Vulkan side of frame debuggers and of work other layers record (docs/frame-debuggers.md):
 * who a call comes from, and RenderDoc's captures at passprobe's frame boundaries. */
#include <string.h>

#include "pp_callers.h"
#include "pp_renderdoc.h"
#include "pp_renderdoc_frames.h"
#include "vk_intercept.h"

const char *pp_vk_renderdoc_foreign_caller(const void *ra)
{
	/* Inside passprobe's own call into RenderDoc every call is RenderDoc's. */
	if (pp_renderdoc_calling()) {
		const char *lib = pp_renderdoc_library();
		const char *slash = strrchr(lib, '/');
		return slash ? slash + 1 : lib;
	}
	int layer = pp_callers_own_work(ra);
	return layer >= 0 ? pp_callers_layer_name(layer) : NULL;
}

void pp_vk_renderdoc_between_slow(struct pp_device *dev)
{
	if (dev->attr && dev->instance)
		/* RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE: the instance's dispatch key. */
		pp_renderdoc_frames_between(dev->attr, dev->sink_id, dev->instance->key);
}

void pp_vk_renderdoc_poll(struct pp_device *dev, bool final)
{
	if (dev->attr && pp_renderdoc_present())
		pp_renderdoc_frames_poll(dev->attr, dev->sink_id, final);
}
