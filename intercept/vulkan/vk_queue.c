/* Queue hooks: submissions become measured submission instances; presents and fences delimit
 * frames; results are harvested here, at boundaries, without ever waiting. */
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "pp_log.h"
#include "pp_sink.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

/* Recordings of a batch in queue order; untracked command buffers stay NULL. Re-submitted
 * recordings get their queries host-reset first: the application guarantees that their
 * previous execution completed, and attribution has read it (pp_attr_submit). */
static void batch_prepare(struct pp_device *dev, uint32_t n, const VkCommandBuffer *cbs_plain,
			  const VkCommandBufferSubmitInfo *cbs_info, struct pp_recording **recs, uint64_t *handles)
{
	for (uint32_t i = 0; i < n; i++) {
		VkCommandBuffer cb = cbs_plain ? cbs_plain[i] : cbs_info[i].commandBuffer;
		struct pp_command_buffer *c = pp_command_buffer_lookup(dev, cb);
		handles[i] = (uint64_t)(uintptr_t)cb;
		recs[i] = c ? c->rec : NULL;
		if (!c)
			continue;
		if (c->submissions++ > 0 && c->rec->nchunks) {
			pp_attr_recording_release(dev->attr, c->rec);
			for (uint32_t k = 0; k < c->rec->nchunks; k++)
				pp_gpu_timer_chunk_reset(dev->timer, c->rec->chunks[k]);
		}
	}
}

struct batch_scratch {
	struct pp_recording *recs_stack[16];
	uint64_t handles_stack[16];
	struct pp_recording **recs;
	uint64_t *handles;
};

static bool scratch_get(struct batch_scratch *s, uint32_t n)
{
	s->recs = n <= 16 ? s->recs_stack : malloc(n * sizeof(*s->recs));
	s->handles = n <= 16 ? s->handles_stack : malloc(n * sizeof(*s->handles));
	return s->recs && s->handles;
}

static void scratch_put(struct batch_scratch *s)
{
	if (s->recs != s->recs_stack)
		free(s->recs);
	if (s->handles != s->handles_stack)
		free(s->handles);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueueSubmit(VkQueue queue, uint32_t nsubmits, const VkSubmitInfo *submits,
					      VkFence fence)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_queue_lookup(dev, queue) : NULL;
	if (!q || !q->attr)
		return dev->vk.QueueSubmit(queue, nsubmits, submits, fence);

	uint32_t total = 0;
	for (uint32_t b = 0; b < nsubmits; b++)
		total += submits[b].commandBufferCount;
	struct batch_scratch s;
	if (!scratch_get(&s, total ? total : 1)) {
		scratch_put(&s);
		return dev->vk.QueueSubmit(queue, nsubmits, submits, fence);
	}
	for (uint32_t b = 0, off = 0; b < nsubmits; off += submits[b].commandBufferCount, b++)
		batch_prepare(dev, submits[b].commandBufferCount, submits[b].pCommandBuffers, NULL, s.recs + off,
			      s.handles + off);

	struct pp_cpu_snapshot cpu_before, cpu_after;
	pp_cpu_snapshot_take(&cpu_before);
	uint64_t t0 = cpu_before.wall_ns;
	pp_gpu_timer_note_submit(dev->timer, t0);
	VkResult r = dev->vk.QueueSubmit(queue, nsubmits, submits, fence);
	pp_cpu_snapshot_take(&cpu_after);
	if (r == VK_ERROR_DEVICE_LOST)
		pp_gpu_timer_note_device_lost(dev->timer, "vkQueueSubmit");
	uint64_t t1 = cpu_after.wall_ns;
	struct pp_cpu_cost call_cpu = { 0 };
	pp_cpu_cost_add_span(&call_cpu, &cpu_before, &cpu_after);

	if (r == VK_SUCCESS) {
		bool label = false;
		for (uint32_t b = 0, off = 0; b < nsubmits; off += submits[b].commandBufferCount, b++) {
			struct pp_attr_submit_info info = {
				.api = "vkQueueSubmit",
				.cpu_begin_ns = t0,
				.cpu_end_ns = t1,
				.tid = pp_vk_thread_id(),
				.nrecordings = submits[b].commandBufferCount,
				.recordings = s.recs + off,
				.command_buffer_handles = s.handles + off,
			};
			/* The call's cost goes with its first batch, so frame totals count it once. */
			if (b == 0)
				info.cpu = call_cpu;
			pp_attr_submit(dev->attr, q->attr, &info);
			label |= pp_attr_recordings_have_label(dev->attr, info.recordings, info.nrecordings);
		}
		pp_attr_submit_done(dev->attr, fence != VK_NULL_HANDLE, label);
		if (nsubmits) {
			pp_vk_diag_submitted(dev, q, total, s.handles, fence, label);
			pp_vk_diag_semaphores_submitted(dev, nsubmits, submits, NULL);
		}
	}
	scratch_put(&s);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueueSubmit2(VkQueue queue, uint32_t nsubmits, const VkSubmitInfo2 *submits,
					       VkFence fence)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_queue_lookup(dev, queue) : NULL;
	if (!q || !q->attr)
		return dev->vk.QueueSubmit2(queue, nsubmits, submits, fence);

	uint32_t total = 0;
	for (uint32_t b = 0; b < nsubmits; b++)
		total += submits[b].commandBufferInfoCount;
	struct batch_scratch s;
	if (!scratch_get(&s, total ? total : 1)) {
		scratch_put(&s);
		return dev->vk.QueueSubmit2(queue, nsubmits, submits, fence);
	}
	for (uint32_t b = 0, off = 0; b < nsubmits; off += submits[b].commandBufferInfoCount, b++)
		batch_prepare(dev, submits[b].commandBufferInfoCount, NULL, submits[b].pCommandBufferInfos,
			      s.recs + off, s.handles + off);

	struct pp_cpu_snapshot cpu_before, cpu_after;
	pp_cpu_snapshot_take(&cpu_before);
	uint64_t t0 = cpu_before.wall_ns;
	pp_gpu_timer_note_submit(dev->timer, t0);
	VkResult r = dev->vk.QueueSubmit2(queue, nsubmits, submits, fence);
	pp_cpu_snapshot_take(&cpu_after);
	if (r == VK_ERROR_DEVICE_LOST)
		pp_gpu_timer_note_device_lost(dev->timer, "vkQueueSubmit");
	uint64_t t1 = cpu_after.wall_ns;
	struct pp_cpu_cost call_cpu = { 0 };
	pp_cpu_cost_add_span(&call_cpu, &cpu_before, &cpu_after);

	if (r == VK_SUCCESS) {
		bool label = false;
		for (uint32_t b = 0, off = 0; b < nsubmits; off += submits[b].commandBufferInfoCount, b++) {
			struct pp_attr_submit_info info = {
				.api = "vkQueueSubmit2",
				.cpu_begin_ns = t0,
				.cpu_end_ns = t1,
				.tid = pp_vk_thread_id(),
				.nrecordings = submits[b].commandBufferInfoCount,
				.recordings = s.recs + off,
				.command_buffer_handles = s.handles + off,
			};
			/* The call's cost goes with its first batch, so frame totals count it once. */
			if (b == 0)
				info.cpu = call_cpu;
			pp_attr_submit(dev->attr, q->attr, &info);
			label |= pp_attr_recordings_have_label(dev->attr, info.recordings, info.nrecordings);
		}
		pp_attr_submit_done(dev->attr, fence != VK_NULL_HANDLE, label);
		if (nsubmits) {
			pp_vk_diag_submitted(dev, q, total, s.handles, fence, label);
			pp_vk_diag_semaphores_submitted(dev, nsubmits, NULL, submits);
		}
	}
	scratch_put(&s);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_cpu_snapshot before, after;
	pp_cpu_snapshot_take(&before);
	VkResult r = dev->vk.QueuePresentKHR(queue, info);
	pp_cpu_snapshot_take(&after);
	struct pp_cpu_cost cost = { 0 };
	pp_cpu_cost_add_span(&cost, &before, &after);
	struct pp_cpu_event ev = { .name = "vkQueuePresentKHR", .category = "present", .tid = after.tid,
				   .begin_ns = before.wall_ns, .end_ns = after.wall_ns };
	pp_sink_cpu_event(&ev);
	/* Whatever the result (SUBOPTIMAL, OUT_OF_DATE), the application's frame ended here. */
	pp_attr_present(dev->attr, &cost);
	pp_vk_diag_presented(dev);
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_QueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_queue_lookup(dev, queue) : NULL;
	if (q && q->attr)
		pp_attr_queue_label(q->attr, PP_LABEL_PUSH, label ? label->pLabelName : NULL);
	dev->vk.QueueBeginDebugUtilsLabelEXT(queue, label);
}

VKAPI_ATTR void VKAPI_CALL pp_QueueEndDebugUtilsLabelEXT(VkQueue queue)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_queue_lookup(dev, queue) : NULL;
	if (q && q->attr)
		pp_attr_queue_label(q->attr, PP_LABEL_POP, NULL);
	dev->vk.QueueEndDebugUtilsLabelEXT(queue);
}
