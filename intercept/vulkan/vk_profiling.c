/* Per-device profiling state: the GPU timer, attribution, and the sink's view of the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_kbase.h"
#include "gpu_vk_perf_query.h"
#include "pp_log.h"
#include "pp_thread.h"
#include "pp_sink.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

uint32_t pp_vk_profiling_thread_id(void)
{
	static _Thread_local uint32_t tid;
	if (!tid)
		tid = pp_thread_id();
	return tid;
}

/* The seam between the GPU timer's statistics and the model's: the same statistics in the
 * same order, so the timer's results are the model's as they are. */
#define SAME_STAT(x) ((int)PP_GPU_STAT_##x == (int)PP_STAT_##x)
_Static_assert(SAME_STAT(COUNT) && SAME_STAT(IA_VERTICES) && SAME_STAT(IA_PRIMITIVES) && SAME_STAT(VS_INVOCATIONS) &&
		       SAME_STAT(CLIP_INVOCATIONS) && SAME_STAT(CLIP_PRIMITIVES) && SAME_STAT(FS_INVOCATIONS) &&
		       SAME_STAT(CS_INVOCATIONS),
	       "the GPU timer's pipeline statistics and the model's differ");
#undef SAME_STAT

void pp_vk_profiling_device_init(struct pp_device *dev)
{
	const struct pp_settings *s = &pp_layer_registry_settings;
	uint32_t valid_bits = 0;
	/* The time line follows the first graphics (else any) family with timestamps; command
	 * buffers of families without timestamps are recorded without them. */
	for (uint32_t i = 0; i < dev->nfamilies && !valid_bits; i++)
		if (dev->families[i].flags & VK_QUEUE_GRAPHICS_BIT)
			valid_bits = dev->families[i].timestamp_valid_bits;
	for (uint32_t i = 0; i < dev->nfamilies && !valid_bits; i++)
		valid_bits = dev->families[i].timestamp_valid_bits;

	pp_attr_sink_init(s); /* on failure it has said why, once; profiling goes on for the summary */
	pthread_mutex_init(&dev->sim_lock, NULL);

	if (s->timestamps && (dev->host_query_reset || dev->gpu_query_reset) && valid_bits && dev->vk.CmdWriteTimestamp &&
	    (dev->host_query_reset || (dev->vk.CmdResetQueryPool && dev->vk.CmdCopyQueryPoolResults))) {
		struct pp_gpu_timer_config cfg = {
			.device = dev->handle,
			.vk = {
				.CreateQueryPool = dev->vk.CreateQueryPool,
				.DestroyQueryPool = dev->vk.DestroyQueryPool,
				.GetQueryPoolResults = dev->vk.GetQueryPoolResults,
				.ResetQueryPool = dev->host_query_reset ? dev->vk.ResetQueryPool : NULL,
				.CmdWriteTimestamp = dev->vk.CmdWriteTimestamp,
				.CmdBeginQuery = dev->vk.CmdBeginQuery,
				.CmdEndQuery = dev->vk.CmdEndQuery,
				.GetCalibratedTimestampsEXT = NULL,
				/* Host copies of results: every recording's with copy_results, and
				 * per execution for SIMULTANEOUS_USE recordings (vk_simultaneous.c). */
				.CmdCopyQueryPoolResults = dev->vk.CmdCopyQueryPoolResults,
				.CmdResetQueryPool = dev->vk.CmdResetQueryPool,
				.CmdPipelineBarrier = dev->vk.CmdPipelineBarrier,
				.CreateBuffer = dev->vk.CreateBuffer,
				.DestroyBuffer = dev->vk.DestroyBuffer,
				.GetBufferMemoryRequirements = dev->vk.GetBufferMemoryRequirements,
				.AllocateMemory = dev->vk.AllocateMemory,
				.FreeMemory = dev->vk.FreeMemory,
				.BindBufferMemory = dev->vk.BindBufferMemory,
				.MapMemory = dev->vk.MapMemory,
			},
			.timestamp_period = dev->props.limits.timestampPeriod,
			.timestamp_valid_bits = valid_bits,
			.pipeline_statistics = dev->pipeline_statistics,
			.copy_results = dev->copy_results,
		};
		if (dev->instance->vk.GetPhysicalDeviceMemoryProperties)
			dev->instance->vk.GetPhysicalDeviceMemoryProperties(dev->physical_device, &cfg.memory);
		if (dev->calibrated_timestamps) {
			uint32_t n = 0;
			VkTimeDomainEXT domains[8];
			bool device_domain = false, mono = false, raw = false;
			PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT get =
				dev->instance->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT;
			if (get && get(dev->physical_device, &n, NULL) >= 0) {
				if (n > 8)
					n = 8;
				get(dev->physical_device, &n, domains);
			}
			for (uint32_t i = 0; i < n; i++) {
				device_domain |= domains[i] == VK_TIME_DOMAIN_DEVICE_EXT;
				mono |= domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
				raw |= domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT;
			}
			if (device_domain && (mono || raw)) {
				cfg.vk.GetCalibratedTimestampsEXT = dev->vk.GetCalibratedTimestampsEXT;
				cfg.host_time_domain_raw = !mono;
			}
		}
		dev->timer = pp_gpu_vk_timer_create(&cfg);
		if (!dev->timer)
			pp_log(PP_LOG_ERROR, "%s: out of memory setting up GPU timing; no GPU pass times",
			       dev->props.deviceName);
		dev->timer_backends[0] = pp_gpu_vk_timer_backend(dev->timer, PP_GPU_TIMESTAMP);
		dev->timer_backends[1] = pp_gpu_vk_timer_backend(dev->timer, PP_GPU_STATISTICS);
	} else {
		dev->pipeline_statistics = false;
	}

	struct pp_device_info info = { 0 };
	snprintf(info.name, sizeof(info.name), "%s", dev->props.deviceName);
	snprintf(info.driver, sizeof(info.driver), "%u.%u.%u", VK_API_VERSION_MAJOR(dev->props.driverVersion),
		 VK_API_VERSION_MINOR(dev->props.driverVersion), VK_API_VERSION_PATCH(dev->props.driverVersion));
	info.vendor_id = dev->props.vendorID;
	info.device_id = dev->props.deviceID;
	info.timestamp_period_ns = dev->props.limits.timestampPeriod;
	info.timestamp_valid_bits = dev->timer ? valid_bits : 0;
	info.time_domain = pp_gpu_vk_timer_time_domain(dev->timer);
	info.pipeline_statistics = dev->pipeline_statistics;
	info.query_results = !dev->timer ? NULL
			     : pp_gpu_vk_timer_copies(dev->timer) ? PP_QUERY_RESULTS_COPIED : PP_QUERY_RESULTS_READ;
	info.notes = dev->timer ? (dev->gpu_query_reset ? "no host query reset: queries are reset on the GPU before "
							  "each execution, results copied on the GPU"
							: NULL)
				: !s->timestamps ? "GPU timestamps disabled by the timestamps setting"
				: !valid_bits	 ? "device has no timestamp support"
						 : "GPU timing could not be set up on this device";
	uint32_t sink_id = pp_attr_sink_device_register(&info);
	dev->sink_id = sink_id;

	pp_vk_perf_device_init(dev);
	pp_vk_perf_kbase_device_init(dev);
	struct pp_attr_gpu_ops ops = {
		.ctx = dev->timer,
		.read_timestamps = pp_gpu_vk_timer_read_timestamps,
		.statistics = pp_gpu_vk_timer_backend(dev->timer, PP_GPU_STATISTICS),
		.perf = pp_gpu_vk_perf_query_backend(dev->perf),
		.sampled = dev->kbase ? pp_gpu_kbase_backend(dev->kbase) : NULL,
		.lost = pp_gpu_vk_timer_lost,
	};
	dev->attr = pp_attr_device_create(&ops, pp_attr_sink_frame_submit, sink_id, s);
	if (!dev->attr)
		pp_log_once(PP_LOG_ERROR, "out of memory setting up profiling; this device is passed through");
}

void pp_vk_profiling_device_finish(struct pp_device *dev)
{
	/* Recordings may still point at attribution's submissions: forget those links first. */
	struct pp_command_buffer *c, *tmp;
	HASH_ITER(hh, dev->command_buffers, c, tmp)
		pp_vk_simultaneous_release(dev, c);
	pp_vk_simultaneous_device_finish(dev);
	pthread_mutex_destroy(&dev->sim_lock);
	HASH_ITER(hh, dev->command_buffers, c, tmp)
		if (c->rec)
			pp_attr_device_recording_release(dev->attr, c->rec);
	pp_vk_renderdoc_poll(dev, true);
	pp_attr_device_destroy(dev->attr);
	dev->attr = NULL;
	HASH_ITER(hh, dev->command_buffers, c, tmp)
		if (c->rec)
			c->rec->nchunks = 0; /* the pools go with the timer */
	pp_gpu_vk_timer_destroy(dev->timer);
	dev->timer = NULL;
	dev->timer_backends[0] = dev->timer_backends[1] = NULL;
	pp_vk_perf_device_finish(dev);
	pp_vk_objects_release(dev);
}

void pp_vk_profiling_queue_created(struct pp_device *dev, struct pp_queue *q)
{
	if (dev->attr)
		q->attr = pp_attr_device_queue_create(dev->attr, q->handle, q->family, q->index);
}

void pp_vk_profiling_recording_release(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_recording *r = c->rec;
	if (!r)
		return;
	pp_vk_simultaneous_release(dev, c);
	pp_vk_experiment_held_drop(c);
	pp_vk_diag_submit_recording_forget(dev, c);
	pp_attr_device_recording_release(dev->attr, r);
	for (uint32_t i = 0; i < r->nchunks; i++)
		pp_gpu_vk_timer_chunk_free(dev->timer, r->chunks[i]);
	pp_vk_perf_recording_free(dev, r);
	pp_attr_record_clear(r);
	c->ts_chunk = c->stats_chunk = PP_GPU_NO_SLOT;
	c->ts_next = c->stats_next = 0;
	c->submissions = 0;
}

void pp_vk_profiling_command_buffer_destroy(struct pp_device *dev, struct pp_command_buffer *c)
{
	pp_vk_diag_state_cb_release(dev, c);
	pp_vk_profiling_recording_release(dev, c);
	pp_attr_record_destroy(c->rec);
	free(c);
}

/* ---- names for the outputs ------------------------------------------------------------ */

const char *pp_vk_profiling_load_op_name(VkAttachmentLoadOp op)
{
	switch (op) {
	case VK_ATTACHMENT_LOAD_OP_LOAD: return "LOAD";
	case VK_ATTACHMENT_LOAD_OP_CLEAR: return "CLEAR";
	case VK_ATTACHMENT_LOAD_OP_DONT_CARE: return "DONT_CARE";
	case VK_ATTACHMENT_LOAD_OP_NONE_EXT: return "NONE";
	default: return "unknown";
	}
}

const char *pp_vk_profiling_store_op_name(VkAttachmentStoreOp op)
{
	switch (op) {
	case VK_ATTACHMENT_STORE_OP_STORE: return "STORE";
	case VK_ATTACHMENT_STORE_OP_DONT_CARE: return "DONT_CARE";
	case VK_ATTACHMENT_STORE_OP_NONE: return "NONE";
	default: return "unknown";
	}
}

const char *pp_vk_profiling_format_name(VkFormat f)
{
	switch (f) {
#define F(x) \
	case VK_FORMAT_##x: return #x;
	F(UNDEFINED) F(R8_UNORM) F(R8G8_UNORM) F(R8G8B8A8_UNORM) F(R8G8B8A8_SRGB) F(B8G8R8A8_UNORM)
	F(B8G8R8A8_SRGB) F(A2B10G10R10_UNORM_PACK32) F(A2R10G10B10_UNORM_PACK32) F(R16_SFLOAT)
	F(R16G16_SFLOAT) F(R16G16B16A16_SFLOAT) F(R16G16B16A16_UNORM) F(R32_SFLOAT) F(R32G32_SFLOAT)
	F(R32G32B32A32_SFLOAT) F(R32_UINT) F(R32G32_UINT) F(R32G32B32A32_UINT) F(B10G11R11_UFLOAT_PACK32)
	F(E5B9G9R9_UFLOAT_PACK32) F(R8_UINT) F(R16_UINT) F(R16_UNORM) F(R16G16_UNORM)
	F(D16_UNORM) F(X8_D24_UNORM_PACK32) F(D32_SFLOAT) F(S8_UINT) F(D16_UNORM_S8_UINT)
	F(D24_UNORM_S8_UINT) F(D32_SFLOAT_S8_UINT)
#undef F
	default: return "other";
	}
}
