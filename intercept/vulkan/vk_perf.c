/* Hardware counters of VK_KHR_performance_query around passes (docs/counters.md,
 * "VK_KHR_performance_query"): the backend's set-up per device, its scopes at the pass
 * boundaries next to the statistics queries, its slots' lifetime with the recording's. */
#include <stdio.h>
#include <string.h>

#include "gpu_kbase.h"
#include "gpu_vk_perf_query.h"
#include "pp_log.h"
#include "vk_intercept.h"

void pp_vk_perf_device_init(struct pp_device *dev)
{
	if (!dev->perf_query)
		return;
	/* Its pools count on one queue family: the first with graphics, where passes render. */
	uint32_t family = UINT32_MAX;
	for (uint32_t i = 0; i < dev->nfamilies && family == UINT32_MAX; i++)
		if (dev->families[i].flags & VK_QUEUE_GRAPHICS_BIT)
			family = i;
	if (family == UINT32_MAX)
		return;
	struct pp_gpu_perf_config cfg = {
		.physical_device = dev->physical_device,
		.device = dev->handle,
		.queue_family = family,
		.setting = pp_layer_registry_settings.gpu_counters,
		.vk = {
			.EnumerateCounters = dev->instance->vk.EnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR,
			.GetPasses = dev->instance->vk.GetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR,
			.AcquireProfilingLock = dev->vk.AcquireProfilingLockKHR,
			.ReleaseProfilingLock = dev->vk.ReleaseProfilingLockKHR,
			.CreateQueryPool = dev->vk.CreateQueryPool,
			.DestroyQueryPool = dev->vk.DestroyQueryPool,
			.GetQueryPoolResults = dev->vk.GetQueryPoolResults,
			.ResetQueryPool = dev->host_query_reset ? dev->vk.ResetQueryPool : NULL,
			.CmdBeginQuery = dev->vk.CmdBeginQuery,
			.CmdEndQuery = dev->vk.CmdEndQuery,
		},
	};
	char why[256];
	dev->perf = pp_gpu_vk_perf_query_create(&cfg, why, sizeof(why));
	dev->perf_family = family;
	if (!dev->perf)
		pp_log(PP_LOG_WARN, "%s: VK_KHR_performance_query counters unavailable: %s", dev->props.deviceName, why);
	else
		pp_log(PP_LOG_INFO, "%s: VK_KHR_performance_query: %u counters in %u hardware passes, rotated over frames",
		       dev->props.deviceName, pp_gpu_vk_perf_query_backend(dev->perf)->set_count(pp_gpu_vk_perf_query_backend(dev->perf)->ctx),
		       pp_gpu_vk_perf_query_groups(dev->perf));
}

/* Mali's kernel driver, sampled on a thread of its own: only with gpu_counters set, and where
 * /dev/mali0 is absent (every GPU but Mali's, and Mali under Panfrost) one line says so. */
#define KBASE_DEVICE "/dev/mali0"
#define KBASE_PERIOD_NS 1000000ull

void pp_vk_perf_kbase_device_init(struct pp_device *dev)
{
	if (pp_gpu_counters_setting_choice(pp_layer_registry_settings.gpu_counters) == PP_GPU_COUNTERS_NONE)
		return;
	struct pp_kbase_io io;
	int r = pp_gpu_kbase_ioctl_io_open(KBASE_DEVICE, &io);
	if (r) {
		pp_log(PP_LOG_INFO, "%s: Mali kbase counters unavailable: %s: %s", dev->props.deviceName, KBASE_DEVICE,
		       strerror(-r));
		return;
	}
	char why[256];
	dev->kbase = pp_gpu_kbase_create(&io, pp_layer_registry_settings.gpu_counters, why, sizeof(why));
	if (!dev->kbase) {
		pp_log(PP_LOG_WARN, "%s: Mali kbase counters unavailable: %s", dev->props.deviceName, why);
		return;
	}
	const struct pp_gpu_counter_backend *b = pp_gpu_kbase_backend(dev->kbase);
	if (b->sample_start(b->ctx, KBASE_PERIOD_NS)) {
		pp_log(PP_LOG_WARN, "%s: Mali kbase counters unavailable: the sampler thread did not start",
		       dev->props.deviceName);
		pp_gpu_kbase_destroy(dev->kbase);
		dev->kbase = NULL;
		return;
	}
	pp_log(PP_LOG_INFO, "%s: Mali kbase counters through the %s, %u shader cores, %u L2 slices",
	       dev->props.deviceName, pp_gpu_kbase_interface_name(pp_gpu_kbase_interface(dev->kbase)),
	       pp_gpu_kbase_props(dev->kbase)->shader_cores, pp_gpu_kbase_props(dev->kbase)->l2_slices);
}

void pp_vk_perf_kbase_submitted(struct pp_device *dev)
{
	if (dev->kbase) {
		const struct pp_gpu_counter_backend *b = pp_gpu_kbase_backend(dev->kbase);
		b->sample_request(b->ctx);
	}
}

void pp_vk_perf_device_finish(struct pp_device *dev)
{
	pp_gpu_kbase_destroy(dev->kbase);
	dev->kbase = NULL;
	pp_gpu_vk_perf_query_destroy(dev->perf);
	dev->perf = NULL;
}

void pp_vk_perf_begin(struct pp_command_buffer *c, struct pp_pass_rec *p, bool allowed, const char *why_not)
{
	struct pp_device *dev = c->device;
	if (!p || !dev->perf || !dev->attr)
		return;
	struct pp_recording *r = c->rec;
	if (!c->timestamps)
		p->perf_reason = c->ts_reason ? c->ts_reason : "not measured in this command buffer";
	else if (c->simultaneous_use)
		p->perf_reason = "SIMULTANEOUS_USE command buffer: no hardware counters";
	else if (c->family != dev->perf_family)
		p->perf_reason = "queue family other than the one the performance counters count on";
	else if (!allowed)
		p->perf_reason = why_not;
	else {
		/* One group per recording (one performance query pool per command buffer), chosen by
		 * the frame it is recorded for: the groups take turns frame by frame. */
		if (r->perf_group == PP_NO_SLOT)
			r->perf_group = (uint32_t)(pp_attr_device_frame_recording(dev->attr) % pp_gpu_vk_perf_query_groups(dev->perf));
		p->perf_slot = pp_gpu_vk_perf_query_slot_take(dev->perf, r->perf_group);
		if (p->perf_slot == PP_GPU_PERF_NO_SLOT) {
			p->perf_slot = PP_NO_SLOT;
			p->perf_reason = "performance query budget spent";
			return;
		}
		const struct pp_gpu_counter_backend *b = pp_gpu_vk_perf_query_backend(dev->perf);
		b->scope_begin(b->ctx, (void *)c->vk_cb, p->perf_slot);
	}
}

void pp_vk_perf_end(struct pp_command_buffer *c, struct pp_pass_rec *p)
{
	if (!p || p->perf_slot == PP_NO_SLOT || !c->device->perf)
		return;
	const struct pp_gpu_counter_backend *b = pp_gpu_vk_perf_query_backend(c->device->perf);
	b->scope_end(b->ctx, (void *)c->vk_cb, p->perf_slot);
}

void pp_vk_perf_recording_reset(struct pp_device *dev, struct pp_recording *r)
{
	for (uint32_t i = 0; dev->perf && i < r->npasses; i++)
		if (r->passes[i].perf_slot != PP_NO_SLOT)
			pp_gpu_vk_perf_query_slot_reset(dev->perf, r->passes[i].perf_slot);
}

void pp_vk_perf_recording_free(struct pp_device *dev, struct pp_recording *r)
{
	for (uint32_t i = 0; dev->perf && i < r->npasses; i++)
		if (r->passes[i].perf_slot != PP_NO_SLOT) {
			pp_gpu_vk_perf_query_slot_free(dev->perf, r->passes[i].perf_slot);
			r->passes[i].perf_slot = PP_NO_SLOT;
		}
}
