/* Hooks that only follow state for the diagnostics (vk_diag_state.c keeps it): pipeline,
 * descriptor set, vertex and index buffer binds (what work replaces while the rules still need
 * it), and the application's query writes, resets and copies (which query a later
 * vkGetQueryPoolResults waits for). Each passes its call down unchanged. */
#include "vk_diag_internal.h"
#include "vk_hooks.h"

/* BP_GRAPHICS or BP_COMPUTE; -1 for bind points the diagnostics do not follow. */
static inline int bind_point_index(VkPipelineBindPoint bp)
{
	return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? BP_GRAPHICS : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? BP_COMPUTE : -1;
}

/* ---- binds: replaced state held for the rules ------------------------------------------------ */

static bool pending_add(struct pp_vk_diag_cb *s, enum pending_what what, uint64_t handle, uint64_t offset,
			uint32_t stages)
{
	for (uint32_t i = 0; i < s->npending; i++) {
		struct pending_bound *e = &s->pending[i];
		if (e->handle != handle || e->stages != stages || e->what != what)
			continue;
		/* A buffer is used from its bound offset to its end: one entry, from the lowest (a
		 * set's offset is always 0). */
		if (offset < e->offset)
			e->offset = offset;
		return true;
	}
	if (s->npending == MAX_PENDING)
		return false;
	s->pending[s->npending++] = (struct pending_bound){ handle, offset, stages, what };
	return true;
}

/* What is bound to bind point bpi is about to be replaced (its sets, or with pipeline_too its
 * pipeline as well). Where work used it since it began to count and its uses are not with the
 * rules yet, they are held until the next hook that hands the rules what the recording did:
 * engines bind before every draw, and the rules need each resource once per barrier window.
 * What cannot be held (push descriptors, sets past MAX_BOUND_SETS, no room) goes to the
 * rules now with everything else, as at a barrier. What the caller then binds counts from
 * here: dirty, stamped with the serial. */
static inline __attribute__((always_inline)) void bound_replace(struct pp_command_buffer *c, struct pp_vk_diag_cb *s,
								 int bpi, bool pipeline_too)
{
	struct bind_point *b = &s->bp[bpi];
	uint64_t n = vk_diag_serial_bp(s, c->rec, bpi);
	if (pipeline_too && bpi == BP_GRAPHICS && n != b->pipeline_stamp)
		s->pending_draw_stages |= vk_diag_bound_stages(b, bpi) | PP_STAGE_VERTEX_INPUT;
	if (b->dirty && n != b->stamp) {
		uint32_t pstages = vk_diag_bound_stages(b, bpi);
		bool held = !b->npush && !b->push_unknown && !b->sets_overflow;
		for (uint32_t bits = b->sets_bound; held && bits; bits &= bits - 1)
			held = pending_add(s, PENDING_SET, b->sets[__builtin_ctz(bits)], 0, pstages);
		/* Not held (or held in part): the rules take it all now, what is bound with it. */
		if (!held)
			pp_vk_diag_state_observe(c, s);
	}
	b->dirty = true;
	b->stamp = n;
	if (pipeline_too)
		b->pipeline_stamp = n;
}

/* The same for the vertex and index buffers. */
static void buffers_replace(struct pp_command_buffer *c, struct pp_vk_diag_cb *s)
{
	uint64_t n = vk_diag_serial_bp(s, c->rec, BP_GRAPHICS);
	if (s->vb_dirty && n != s->vb_stamp) {
		bool held = true;
		for (uint32_t bits = s->vb_bound; held && bits; bits &= bits - 1) {
			unsigned i = (unsigned)__builtin_ctz(bits);
			held = pending_add(s, PENDING_BUFFER, s->vb[i], s->vb_offset[i], 0);
		}
		if (held && s->ib)
			held = pending_add(s, PENDING_BUFFER, s->ib, s->ib_offset, 0);
		if (!held)
			pp_vk_diag_state_observe(c, s);
	}
	s->vb_dirty = true;
	s->vb_stamp = n;
}

/* After a barrier, whatever is bound is used again by the work that follows. */
void pp_vk_state_hooks_diag_bound_dirty(struct pp_vk_diag_cb *s)
{
	s->bp[BP_GRAPHICS].dirty = s->bp[BP_COMPUTE].dirty = true;
	s->vb_dirty = true;
}


/* ---- binds --------------------------------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline pipeline)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_quirks_pipeline_bound(c, bp);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	int bpi = bind_point_index(bp);
	if (s && bpi >= 0) {
		struct bind_point *b = &s->bp[bpi];
		/* Binding the pipeline that is bound changes nothing the rules judge: the work after
		 * it is observed with the work before, as if the call were not there. Engines rebind
		 * at every pass; a bind that changes the pipeline holds what the work before it used
		 * for the rules first (bound_replace). */
		if (b->pipeline != (uint64_t)pipeline) {
			bound_replace(c, s, bpi, true);
			uint64_t h = (uint64_t)pipeline;
			struct pp_object *p = pp_layer_objects_lookup(c->device, VK_OBJECT_TYPE_PIPELINE, h);
			b->stages = p ? p->u.pipeline.stages : 0;
			b->pipeline = h;
		}
	}
	pp_vk_cb_device(c, cb)->vk.CmdBindPipeline(cb, bp, pipeline);
}

/* Binding the sets that are bound changes nothing the rules judge, as for pipelines: engines
 * bind an object's sets before each of its draws, often the same sets with other dynamic
 * offsets (which the rules do not follow: a dynamic descriptor covers its whole buffer). A
 * slot's bit in sets_bound is whether its handle is not VK_NULL_HANDLE: the handles say it. */
static bool sets_same(const struct bind_point *b, uint32_t first, uint32_t n, const VkDescriptorSet *sets)
{
	if (first >= MAX_BOUND_SETS || n > MAX_BOUND_SETS - first)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (b->sets[first + i] != (uint64_t)sets[i])
			return false;
	return true;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout layout,
						    uint32_t first, uint32_t n, const VkDescriptorSet *sets,
						    uint32_t ndyn, const uint32_t *dyn)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_quirks_sets_bound(c, bp, layout, first, n);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	int bpi = bind_point_index(bp);
	if (s && bpi >= 0 && !sets_same(&s->bp[bpi], first, n, sets)) {
		struct bind_point *b = &s->bp[bpi];
		bound_replace(c, s, bpi, false);
		for (uint32_t i = 0; i < n; i++) {
			if (first + i < MAX_BOUND_SETS) {
				b->sets[first + i] = (uint64_t)sets[i];
				if (sets[i])
					b->sets_bound |= 1u << (first + i);
				else
					b->sets_bound &= ~(1u << (first + i));
			} else {
				b->sets_overflow = true;
			}
		}
	}
	pp_vk_cb_device(c, cb)->vk.CmdBindDescriptorSets(cb, bp, layout, first, n, sets, ndyn, dyn);
}

static void vertex_buffers_bind(struct pp_command_buffer *c, uint32_t first, uint32_t n, const VkBuffer *buffers,
				const VkDeviceSize *offsets)
{
	struct pp_vk_diag_cb *s = vk_diag_state_cb(c);
	if (!s)
		return;
	/* The buffers that are bound, at their offsets: nothing changes (as for pipelines). */
	bool same = first < MAX_VERTEX_BUFFERS && n <= MAX_VERTEX_BUFFERS - first;
	for (uint32_t i = 0; same && i < n; i++)
		same = s->vb[first + i] == (uint64_t)buffers[i] && s->vb_offset[first + i] == (offsets ? offsets[i] : 0);
	if (same)
		return;
	buffers_replace(c, s);
	for (uint32_t i = 0; i < n; i++)
		if (first + i < MAX_VERTEX_BUFFERS) {
			s->vb[first + i] = (uint64_t)buffers[i];
			s->vb_offset[first + i] = offsets ? offsets[i] : 0;
			if (buffers[i])
				s->vb_bound |= 1u << (first + i);
			else
				s->vb_bound &= ~(1u << (first + i));
		}
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindVertexBuffers(VkCommandBuffer cb, uint32_t first, uint32_t n,
						   const VkBuffer *buffers, const VkDeviceSize *offsets)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		vertex_buffers_bind(c, first, n, buffers, offsets);
	pp_vk_cb_device(c, cb)->vk.CmdBindVertexBuffers(cb, first, n, buffers, offsets);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindVertexBuffers2(VkCommandBuffer cb, uint32_t first, uint32_t n,
						    const VkBuffer *buffers, const VkDeviceSize *offsets,
						    const VkDeviceSize *sizes, const VkDeviceSize *strides)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		vertex_buffers_bind(c, first, n, buffers, offsets);
	pp_vk_cb_device(c, cb)->vk.CmdBindVertexBuffers2(cb, first, n, buffers, offsets, sizes, strides);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindIndexBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
						 VkIndexType type)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	if (s && (s->ib != (uint64_t)buffer || s->ib_offset != offset)) {
		buffers_replace(c, s);
		s->ib = (uint64_t)buffer;
		s->ib_offset = offset;
	}
	pp_vk_cb_device(c, cb)->vk.CmdBindIndexBuffer(cb, buffer, offset, type);
}


/* ---- queries written by recordings ------------------------------------------------------------ */

/* A query command: a barrier held back for the experiment goes first. */
static struct pp_vk_diag_cb *query_hook(struct pp_command_buffer *c)
{
	if (!c)
		return NULL;
	pp_vk_experiment_flush(c);
	return vk_diag_state_cb(c);
}

/* Queries first..first+count of pool written (a timestamp) or reset in this command buffer: they
 * belong to its submissions (vkCmdBeginQuery/EndQuery are not seen here). The device to call. */
static struct pp_device *queries_written(VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = query_hook(c);
	if (s)
		pp_diag_barriers_rec_queries(s->rec, (uint64_t)pool, first, count);
	return pp_vk_cb_device(c, cb);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
						uint32_t query)
{
	queries_written(cb, pool, query, 1)->vk.CmdWriteTimestamp(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
						 uint32_t query)
{
	queries_written(cb, pool, query, 1)->vk.CmdWriteTimestamp2(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdResetQueryPool(VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count)
{
	queries_written(cb, pool, first, count)->vk.CmdResetQueryPool(cb, pool, first, count);
}

/* Query results copied into a buffer: a transfer write of a buffer the rules cannot name
 * (anonymous transfer work, like a copy whose regions are not seen). */
VKAPI_ATTR void VKAPI_CALL pp_CmdCopyQueryPoolResults(VkCommandBuffer cb, VkQueryPool pool, uint32_t first,
						      uint32_t count, VkBuffer dst, VkDeviceSize offset,
						      VkDeviceSize stride, VkQueryResultFlags flags)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = query_hook(c);
	if (s) {
		pp_vk_diag_state_observe(c, s);
		pp_diag_barriers_rec_work(s->rec, PP_WORK_TRANSFER, 0, 0, 0);
	}
	pp_vk_cb_device(c, cb)->vk.CmdCopyQueryPoolResults(cb, pool, first, count, dst, offset, stride,
									   flags);
}
