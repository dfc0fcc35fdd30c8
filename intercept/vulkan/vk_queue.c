/* Queue hooks: submissions become measured submission instances; presents and fences delimit
 * frames; results are harvested here, at boundaries, without ever waiting. */
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "pp_callers.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_sink.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

/* Recordings of a batch in queue order; untracked command buffers stay NULL. Re-submitted
 * recordings get their queries host-reset first: the application guarantees that their
 * previous execution completed, and attribution has read it (pp_attr_device_submit). Recordings that
 * may be pending twice (SIMULTANEOUS_USE), and every recording on a device without host query
 * reset, are reset on the GPU instead, by the command buffer their execution gets in front of
 * it (vk_simultaneous.c). Returns how many command buffers are added. */
static uint32_t batch_prepare(struct pp_device *dev, uint32_t n, const VkCommandBuffer *cbs_plain,
			      const VkCommandBufferSubmitInfo *cbs_info, struct pp_command_buffer **tracked,
			      struct pp_recording **recs, uint64_t *handles, struct pp_vk_sim_exec *execs,
			      const struct pp_attr_slot_map **maps)
{
	uint32_t extra = 0;
	for (uint32_t i = 0; i < n; i++) {
		VkCommandBuffer cb = cbs_plain ? cbs_plain[i] : cbs_info[i].commandBuffer;
		struct pp_command_buffer *c = pp_layer_objects_command_buffer_lookup(dev, cb);
		tracked[i] = c;
		handles[i] = (uint64_t)(uintptr_t)cb;
		recs[i] = c ? c->rec : NULL;
		maps[i] = NULL;
		execs[i] = (struct pp_vk_sim_exec){ 0 };
		if (!c)
			continue;
		if (c->submissions > 0 && c->rec->nchunks && !c->simultaneous_use) {
			/* Without host query reset this only clears the host copy; the queries are
			 * reset on the GPU in front of the execution (below). */
			pp_vk_diag_submit_recording_forget(dev, c);
			pp_attr_device_recording_release(dev->attr, c->rec);
			for (uint32_t k = 0; k < c->rec->nchunks; k++)
				pp_gpu_vk_timer_chunk_reset(dev->timer, c->rec->chunks[k]);
			pp_vk_perf_recording_reset(dev, c->rec);
		}
		c->submissions++;
		if (pp_vk_simultaneous_execution(dev, c, &execs[i])) {
			maps[i] = execs[i].map;
			extra += (execs[i].before != VK_NULL_HANDLE) + (execs[i].after != VK_NULL_HANDLE);
		}
	}
	return extra;
}

struct batch_scratch {
	struct pp_command_buffer *tracked_stack[16];
	struct pp_recording *recs_stack[16];
	uint64_t handles_stack[16];
	struct pp_vk_sim_exec execs_stack[16];
	const struct pp_attr_slot_map *maps_stack[16];
	struct pp_command_buffer **tracked; /* the command buffers' records, looked up once a call */
	struct pp_recording **recs;
	uint64_t *handles;
	struct pp_vk_sim_exec *execs;
	const struct pp_attr_slot_map **maps;
	uint32_t n;
	/* The batches as passed down when command buffers were added around SIMULTANEOUS_USE
	 * executions (NULL: the application's own). */
	void *patched_batches;
	void *patched_cbs;
	VkDeviceGroupSubmitInfo *patched_groups;
	uint32_t *patched_masks;
};

static bool scratch_get(struct batch_scratch *s, uint32_t n)
{
	s->tracked = n <= 16 ? s->tracked_stack : malloc(n * sizeof(*s->tracked));
	s->recs = n <= 16 ? s->recs_stack : malloc(n * sizeof(*s->recs));
	s->handles = n <= 16 ? s->handles_stack : malloc(n * sizeof(*s->handles));
	s->execs = n <= 16 ? s->execs_stack : malloc(n * sizeof(*s->execs));
	s->maps = n <= 16 ? s->maps_stack : malloc(n * sizeof(*s->maps));
	s->n = 0;
	s->patched_batches = s->patched_cbs = NULL;
	s->patched_groups = NULL;
	s->patched_masks = NULL;
	return s->tracked && s->recs && s->handles && s->execs && s->maps;
}

static void scratch_put(struct pp_device *dev, struct batch_scratch *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		pp_vk_simultaneous_execution_done(dev, &s->execs[i]);
	if (s->tracked != s->tracked_stack)
		free(s->tracked);
	if (s->recs != s->recs_stack)
		free(s->recs);
	if (s->handles != s->handles_stack)
		free(s->handles);
	if (s->execs != s->execs_stack)
		free(s->execs);
	if (s->maps != s->maps_stack)
		free(s->maps);
	free(s->patched_batches);
	free(s->patched_cbs);
	free(s->patched_groups);
	free(s->patched_masks);
}

static const VkBaseInStructure *chain_find(const void *chain, VkStructureType type, bool *first)
{
	*first = true;
	for (const VkBaseInStructure *p = chain; p; p = p->pNext, *first = false)
		if (p->sType == type)
			return p;
	return NULL;
}

/* The executions of a batch that cannot get command buffers beside them (a
 * VkDeviceGroupSubmitInfo not first in its pNext chain, whose per-command-buffer masks cannot
 * be extended): their queries are reset by a submission of passprobe's own just before;
 * SIMULTANEOUS_USE ones, which would need their copy after them, are not timed. */
static const char *const reason_device_group =
	"SIMULTANEOUS_USE command buffer in a device-group submit passprobe cannot extend: not timed";
static const struct pp_attr_slot_map map_device_group = { .reason = reason_device_group };

static void resets_submit_apart(struct pp_device *dev, VkQueue queue, struct pp_vk_sim_exec *x, uint32_t n,
				const struct pp_attr_slot_map **maps)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!x[i].before)
			continue;
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
				    .pCommandBuffers = &x[i].before };
		if (dev->vk.QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) != VK_SUCCESS)
			pp_log_once(PP_LOG_WARN, "could not submit the query reset of a SIMULTANEOUS_USE command buffer");
		/* Not SIMULTANEOUS_USE (a device without host query reset): the recording copies its
		 * own results, so the reset alone, earlier on the queue, keeps it timed. */
		const struct pp_attr_slot_map *map = x[i].simultaneous_use ? &map_device_group : x[i].map;
		pp_vk_simultaneous_execution_done(dev, &x[i]);
		x[i] = (struct pp_vk_sim_exec){ 0 };
		maps[i] = map;
	}
}

/* vkQueueSubmit's batches with passprobe's command buffers beside SIMULTANEOUS_USE executions.
 * Returns the batches to pass down (the application's own when nothing is added or on failure:
 * then those executions are reset apart and not timed). */
static const VkSubmitInfo *batches_patch(struct pp_device *dev, VkQueue queue, struct batch_scratch *s,
					 uint32_t nsubmits, const VkSubmitInfo *submits, uint32_t total, uint32_t extra)
{
	VkSubmitInfo *out = malloc(nsubmits * sizeof(*out));
	VkCommandBuffer *cbs = malloc((total + extra) * sizeof(*cbs));
	VkDeviceGroupSubmitInfo *groups = calloc(nsubmits, sizeof(*groups));
	uint32_t *masks = malloc((total + extra) * sizeof(*masks));
	s->patched_batches = out;
	s->patched_cbs = cbs;
	s->patched_groups = groups;
	s->patched_masks = masks;
	if (!out || !cbs || !groups || !masks) {
		resets_submit_apart(dev, queue, s->execs, total, s->maps);
		return submits;
	}
	uint32_t k = 0, off = 0;
	for (uint32_t b = 0; b < nsubmits; off += submits[b].commandBufferCount, b++) {
		out[b] = submits[b];
		bool first;
		const VkDeviceGroupSubmitInfo *dg = (const VkDeviceGroupSubmitInfo *)chain_find(
			submits[b].pNext, VK_STRUCTURE_TYPE_DEVICE_GROUP_SUBMIT_INFO, &first);
		if (dg && dg->commandBufferCount && !first) {
			resets_submit_apart(dev, queue, s->execs + off, submits[b].commandBufferCount, s->maps + off);
			continue;
		}
		uint32_t start = k;
		for (uint32_t i = 0; i < submits[b].commandBufferCount; i++) {
			const struct pp_vk_sim_exec *x = &s->execs[off + i];
			uint32_t mask = dg && dg->commandBufferCount ? dg->pCommandBufferDeviceMasks[i] : 0;
			if (x->before) {
				masks[k] = mask;
				cbs[k++] = x->before;
			}
			masks[k] = mask;
			cbs[k++] = submits[b].pCommandBuffers[i];
			if (x->after) {
				masks[k] = mask;
				cbs[k++] = x->after;
			}
		}
		out[b].commandBufferCount = k - start;
		out[b].pCommandBuffers = cbs + start;
		if (dg && dg->commandBufferCount) {
			groups[b] = *dg;
			groups[b].commandBufferCount = k - start;
			groups[b].pCommandBufferDeviceMasks = masks + start;
			out[b].pNext = &groups[b];
		}
	}
	return out;
}

/* The same for vkQueueSubmit2: each added command buffer takes its neighbour's device mask. */
static const VkSubmitInfo2 *batches2_patch(struct pp_device *dev, VkQueue queue, struct batch_scratch *s,
					   uint32_t nsubmits, const VkSubmitInfo2 *submits, uint32_t total, uint32_t extra)
{
	VkSubmitInfo2 *out = malloc(nsubmits * sizeof(*out));
	VkCommandBufferSubmitInfo *cbs = malloc((total + extra) * sizeof(*cbs));
	s->patched_batches = out;
	s->patched_cbs = cbs;
	if (!out || !cbs) {
		resets_submit_apart(dev, queue, s->execs, total, s->maps);
		return submits;
	}
	uint32_t k = 0, off = 0;
	for (uint32_t b = 0; b < nsubmits; off += submits[b].commandBufferInfoCount, b++) {
		out[b] = submits[b];
		uint32_t start = k;
		for (uint32_t i = 0; i < submits[b].commandBufferInfoCount; i++) {
			const struct pp_vk_sim_exec *x = &s->execs[off + i];
			const VkCommandBufferSubmitInfo *app = &submits[b].pCommandBufferInfos[i];
			VkCommandBufferSubmitInfo mine = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
							   .deviceMask = app->deviceMask };
			if (x->before) {
				cbs[k] = mine;
				cbs[k++].commandBuffer = x->before;
			}
			cbs[k++] = *app;
			if (x->after) {
				cbs[k] = mine;
				cbs[k++].commandBuffer = x->after;
			}
		}
		out[b].commandBufferInfoCount = k - start;
		out[b].pCommandBufferInfos = cbs + start;
	}
	return out;
}

/* Both submit hooks: the batches are v1's (vkQueueSubmit) or, with sync2, v2's
 * (vkQueueSubmit2); either may be NULL when there are none. */
static uint32_t batch_count(const VkSubmitInfo *v1, const VkSubmitInfo2 *v2, uint32_t b)
{
	return v1 ? v1[b].commandBufferCount : v2[b].commandBufferInfoCount;
}

static VkResult submit_down(struct pp_device *dev, VkQueue queue, bool sync2, uint32_t n, const VkSubmitInfo *v1,
			    const VkSubmitInfo2 *v2, VkFence fence)
{
	return sync2 ? dev->vk.QueueSubmit2(queue, n, v2, fence) : dev->vk.QueueSubmit(queue, n, v1, fence);
}

/* A submit call: its batches' recordings are prepared (with the command buffers
 * SIMULTANEOUS_USE executions get beside them), the call down is timed, and each batch goes
 * to attribution, then the call to the diagnostics. */
static VkResult queue_submit(VkQueue queue, bool sync2, uint32_t nsubmits, const VkSubmitInfo *v1,
			     const VkSubmitInfo2 *v2, VkFence fence)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_layer_objects_queue_lookup(dev, queue) : NULL;
	if (!q || !q->attr)
		return submit_down(dev, queue, sync2, nsubmits, v1, v2, fence);

	uint32_t total = 0, extra = 0;
	for (uint32_t b = 0; b < nsubmits; b++)
		total += batch_count(v1, v2, b);
	struct batch_scratch s;
	if (!scratch_get(&s, total ? total : 1)) {
		scratch_put(dev, &s);
		return submit_down(dev, queue, sync2, nsubmits, v1, v2, fence);
	}
	for (uint32_t b = 0, off = 0; b < nsubmits; off += batch_count(v1, v2, b), b++) {
		extra += batch_prepare(dev, batch_count(v1, v2, b), v1 ? v1[b].pCommandBuffers : NULL,
				       v1 ? NULL : v2[b].pCommandBufferInfos, s.tracked + off, s.recs + off, s.handles + off,
				       s.execs + off, s.maps + off);
		s.n = off + batch_count(v1, v2, b);
	}
	const VkSubmitInfo *down1 = v1;
	const VkSubmitInfo2 *down2 = v2;
	if (extra && !sync2)
		down1 = batches_patch(dev, queue, &s, nsubmits, v1, total, extra);
	else if (extra)
		down2 = batches2_patch(dev, queue, &s, nsubmits, v2, total, extra);

	struct pp_cpu_snapshot cpu_before, cpu_after;
	pp_cpu_counters_snapshot_take(&cpu_before);
	uint64_t t0 = cpu_before.wall_ns;
	pp_gpu_vk_timer_note_submit(dev->timer, t0);
	VkResult r = submit_down(dev, queue, sync2, nsubmits, down1, down2, fence);
	pp_cpu_counters_snapshot_take(&cpu_after);
	if (r == VK_ERROR_DEVICE_LOST)
		pp_gpu_vk_timer_note_device_lost(dev->timer, "vkQueueSubmit");
	uint64_t t1 = cpu_after.wall_ns;
	struct pp_cpu_cost call_cpu = { 0 };
	pp_attr_cpu_cost_add_span(&call_cpu, &cpu_before, &cpu_after);

	if (r == VK_SUCCESS) {
		bool label = false;
		uint64_t frame = 0;
		/* A layer above submitting work of its own: inside passprobe's call into RenderDoc,
		 * or every command buffer of the call recorded in a pool of a layer's own. */
		bool foreign = pp_renderdoc_calling();
		if (!foreign && total) {
			foreign = true;
			for (uint32_t i = 0; i < total && foreign; i++)
				foreign = s.recs[i] && s.recs[i]->recorded_by;
		}
		for (uint32_t b = 0, off = 0; b < nsubmits; off += batch_count(v1, v2, b), b++) {
			struct pp_attr_submit_info info = {
				.api = sync2 ? "vkQueueSubmit2" : "vkQueueSubmit",
				.cpu_begin_ns = t0,
				.cpu_end_ns = t1,
				.tid = pp_vk_profiling_thread_id(),
				.nrecordings = batch_count(v1, v2, b),
				.recordings = s.recs + off,
				.command_buffer_handles = s.handles + off,
				.maps = s.maps + off,
				.foreign = foreign,
			};
			/* The call's cost goes with its first batch, so frame totals count it once. */
			if (b == 0)
				info.cpu = call_cpu;
			frame = pp_attr_device_submit(dev->attr, q->attr, &info);
			label |= pp_attr_device_recordings_have_label(dev->attr, info.recordings, info.nrecordings);
		}
		/* Whether RenderDoc captures the frame, asked while it is still open: the diagnostics
		 * then say where in it each finding sits (docs/frame-debuggers.md). */
		bool rdoc_frame = pp_renderdoc_present() && (pp_attr_device_frame_building(dev->attr) & PP_FRAME_RENDERDOC);
		/* A counter sample at the submission boundary (taken on the sampler's thread). */
		pp_vk_perf_kbase_submitted(dev);
		/* One frame clock (the model's) decides for the diagnostics too. */
		enum pp_submit_sync sync = foreign ? PP_SUBMIT_FOREIGN
					   : fence != VK_NULL_HANDLE ? PP_SUBMIT_FENCE : PP_SUBMIT_ASYNC;
		uint64_t ended = pp_attr_device_submit_done(dev->attr, sync, label);
		pp_vk_renderdoc_poll(dev, false);
		if (nsubmits) {
			pp_vk_diag_submit_submitted(dev, q, total, s.handles, s.tracked, fence, frame, rdoc_frame, ended,
						    nsubmits, v1, v2);
		} else {
			pp_vk_diag_submit_frames_ended(dev, ended);
		}
	}
	scratch_put(dev, &s);
	return r;
}

/* While passprobe drives RenderDoc's captures: RenderDoc's submit hook, capturing, idles the
 * queue itself (vkQueueWaitIdle from its own code, holding its capture lock). Noted as its
 * handling of the application's submit, that wait is RenderDoc's own, not a boundary of the
 * application's where a capture may end (which would wait for that lock for ever). */
static inline void submit_entry_note(void *ra)
{
	if (pp_renderdoc_frames_driving())
		pp_callers_entry_note(ra);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueueSubmit(VkQueue queue, uint32_t nsubmits, const VkSubmitInfo *submits,
					      VkFence fence)
{
	submit_entry_note(__builtin_return_address(0));
	return queue_submit(queue, false, nsubmits, submits, NULL, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueueSubmit2(VkQueue queue, uint32_t nsubmits, const VkSubmitInfo2 *submits,
					       VkFence fence)
{
	submit_entry_note(__builtin_return_address(0));
	return queue_submit(queue, true, nsubmits, NULL, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *info,
						     const VkAllocationCallbacks *alloc, VkSwapchainKHR *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	/* Overlay layers make their HUD's pools and render passes once the swapchain exists. */
	pp_callers_entry_note(__builtin_return_address(0));
	VkResult r = dev->vk.CreateSwapchainKHR(device, info, alloc, out);
	if (r == VK_SUCCESS)
		pp_attr_device_swapchain_created(dev->attr);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	/* RenderDoc ends and starts its own captures, and overlays submit their HUD, in their
	 * present hooks around passprobe's. */
	pp_callers_entry_note(__builtin_return_address(0));
	struct pp_cpu_snapshot before, after;
	bool captured = pp_attr_device_frame_building(dev->attr) & PP_FRAME_CAPTURED; /* the frame it ends */
	pp_cpu_counters_snapshot_take(&before);
	VkResult r = dev->vk.QueuePresentKHR(queue, info);
	pp_cpu_counters_snapshot_take(&after);
	struct pp_cpu_cost cost = { 0 };
	pp_attr_cpu_cost_add_span(&cost, &before, &after);
	struct pp_cpu_event ev = { .name = "vkQueuePresentKHR", .category = "present", .tid = after.tid,
				   .begin_ns = before.wall_ns, .end_ns = after.wall_ns };
	if (captured)
		pp_attr_sink_cpu_event(&ev);
	/* Whatever the result (SUBOPTIMAL, OUT_OF_DATE), the application's frame ended here. */
	pp_vk_diag_submit_presented(dev, pp_attr_device_present(dev->attr, &cost));
	pp_vk_renderdoc_poll(dev, false);
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_QueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_layer_objects_queue_lookup(dev, queue) : NULL;
	if (q && q->attr)
		pp_attr_device_queue_label(q->attr, PP_LABEL_PUSH, label ? label->pLabelName : NULL);
	dev->vk.QueueBeginDebugUtilsLabelEXT(queue, label);
}

VKAPI_ATTR void VKAPI_CALL pp_QueueEndDebugUtilsLabelEXT(VkQueue queue)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	struct pp_queue *q = dev->attr ? pp_layer_objects_queue_lookup(dev, queue) : NULL;
	if (q && q->attr)
		pp_attr_device_queue_label(q->attr, PP_LABEL_POP, NULL);
	dev->vk.QueueEndDebugUtilsLabelEXT(queue);
}
