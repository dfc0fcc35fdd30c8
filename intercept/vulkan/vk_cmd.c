/* Command buffer recording hooks: pass boundaries become model events and get the GPU timer's
 * commands injected around them; draws, dispatches and copies only bump counters. */
#include <string.h>

#include "pp_log.h"
#include "pp_thread.h"
#include "vk_formats.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

/* ---- slots ------------------------------------------------------------------------------ */

uint32_t pp_vk_cmd_slot_take(struct pp_command_buffer *c, enum pp_gpu_slot_kind kind)
{
	uint32_t *chunk = kind == PP_GPU_TIMESTAMP ? &c->ts_chunk : &c->stats_chunk;
	uint32_t *next = kind == PP_GPU_TIMESTAMP ? &c->ts_next : &c->stats_next;
	if (*chunk == PP_GPU_NO_SLOT || *next == PP_GPU_CHUNK_SLOTS) {
		uint32_t k = pp_gpu_vk_timer_chunk_alloc(c->device->timer, kind);
		if (k == PP_GPU_NO_SLOT)
			return PP_NO_SLOT;
		if (pp_attr_record_chunk_add(c->rec, k)) {
			pp_gpu_vk_timer_chunk_free(c->device->timer, k);
			return PP_NO_SLOT;
		}
		*chunk = k;
		*next = 0;
	}
	return pp_gpu_vk_timer_slot(*chunk, (*next)++);
}

/* Inline where a chunk has room, as it has at 63 boundaries of 64: four take a slot per pass. */
static inline uint32_t slot_take(struct pp_command_buffer *c, enum pp_gpu_slot_kind kind)
{
	uint32_t chunk = kind == PP_GPU_TIMESTAMP ? c->ts_chunk : c->stats_chunk;
	uint32_t *next = kind == PP_GPU_TIMESTAMP ? &c->ts_next : &c->stats_next;
	if (__builtin_expect(chunk != PP_GPU_NO_SLOT && *next < PP_GPU_CHUNK_SLOTS, 1))
		return pp_gpu_vk_timer_slot(chunk, (*next)++);
	return pp_vk_cmd_slot_take(c, kind);
}

/* The GPU queries of a pass boundary are inlined into the render pass hooks: one prologue for
 * the boundary rather than one per query (docs/performance.md, "Pass boundaries"). */
#define BOUNDARY_STEP static inline __attribute__((always_inline)) void

/* A pass boundary through the GPU counter interface (pp_gpu_counters.h): timestamps and
 * pipeline statistics are two backends of the device's timer. */
static inline void counters_scope(struct pp_command_buffer *c, enum pp_gpu_slot_kind kind, bool begin, uint32_t slot)
{
	const struct pp_gpu_counter_backend *b = c->device->timer_backends[kind == PP_GPU_STATISTICS];
	(begin ? b->scope_begin : b->scope_end)(b->ctx, (void *)c->vk_cb, slot);
}

/* A query slot of kind taken and its scope begun or ended there; PP_NO_SLOT when the pool has
 * none left, and *reason then says so. */
static inline __attribute__((always_inline)) uint32_t slot_scope(struct pp_command_buffer *c,
								  enum pp_gpu_slot_kind kind, bool begin,
								  const char **reason)
{
	uint32_t slot = slot_take(c, kind);
	if (slot == PP_NO_SLOT)
		*reason = pp_gpu_vk_timer_no_slot_reason(c->device->timer, kind);
	else
		counters_scope(c, kind, begin, slot);
	return slot;
}

BOUNDARY_STEP timestamp_begin(struct pp_command_buffer *c, struct pp_pass_rec *p)
{
	if (!p)
		return;
	if (!c->timestamps) {
		p->ts_reason = c->ts_reason;
		return;
	}
	p->ts_begin = slot_scope(c, PP_GPU_TIMESTAMP, true, &p->ts_reason);
}

BOUNDARY_STEP timestamp_end(struct pp_command_buffer *c, struct pp_pass_rec *p)
{
	if (!p)
		return;
	if (!c->timestamps) {
		/* A resumed pass has no begin of its own: its reason is given here. */
		if (!p->ts_reason)
			p->ts_reason = c->ts_reason;
		return;
	}
	p->ts_end = slot_scope(c, PP_GPU_TIMESTAMP, false, &p->ts_reason);
}

/* ---- quirk_uniforms_before_pipeline --------------------------------------------------------- */

/* lavapipe (Mesa 22.3) brings its gallium state up to date when a query begins, and for
 * stages whose uniforms changed it reads the bound pipeline without checking there is one:
 * uniforms set before the first pipeline of their bind point, then any vkCmdBeginQuery, is a
 * NULL dereference in its queue thread. Statistics queries bring the compute state up to date
 * as well (passprobe's count compute invocations), so either bind point matters. Only passprobe
 * begins the query there; its passes go without statistics instead (docs/timing.md). */
static const char *const reason_uniforms_before_pipeline =
	"lavapipe crashes on a statistics query begun after uniforms were set and before a pipeline was bound";

/* Whether beginning a statistics query now would hit the quirk. A pipeline bound since the
 * uniforms were set makes it safe again: lavapipe then finds one. */
static inline bool quirk_stats_unsafe(const struct pp_command_buffer *c)
{
	return (c->uniforms_unbound[0] && !c->pipeline_bound[0]) || (c->uniforms_unbound[1] && !c->pipeline_bound[1]);
}

/* Why a pass that may have statistics has none; only for a pass without them. */
static const char *statistics_reason(const struct pp_command_buffer *c, bool allowed, const char *why_not)
{
	if (!c->statistics)
		return !c->device->pipeline_statistics ? "pipeline statistics unsupported or disabled"
		       : c->ts_reason ? c->ts_reason : "not measured in this command buffer";
	if (c->app_stats_query_active)
		return "the application's own pipeline statistics query was active";
	if (!allowed)
		return why_not;
	return reason_uniforms_before_pipeline;
}

BOUNDARY_STEP statistics_begin(struct pp_command_buffer *c, struct pp_pass_rec *p, bool allowed, const char *why_not)
{
	/* VK_KHR_performance_query's hardware counters only where the device has them running:
	 * no call at every pass boundary where it has not. */
	if (c->device->perf)
		pp_vk_perf_begin(c, p, allowed, why_not);
	if (!p)
		return;
	if (__builtin_expect(!c->statistics || !allowed || c->app_stats_query_active || quirk_stats_unsafe(c), 0)) {
		p->stats_reason = statistics_reason(c, allowed, why_not);
		return;
	}
	p->stats_slot = slot_scope(c, PP_GPU_STATISTICS, true, &p->stats_reason);
}

BOUNDARY_STEP statistics_end(struct pp_command_buffer *c, struct pp_pass_rec *p)
{
	if (c->device->perf)
		pp_vk_perf_end(c, p);
	if (p && p->stats_slot != PP_NO_SLOT)
		counters_scope(c, PP_GPU_STATISTICS, false, p->stats_slot);
}

/* ---- pseudo-passes: work outside render passes ---------------------------------------- */

static __attribute__((noinline)) void outside_pass_close(struct pp_command_buffer *c)
{
	struct pp_recording *r = c->rec;
	struct pp_pass_rec *p = pp_attr_record_open_pass(r);
	statistics_end(c, p);
	timestamp_end(c, p);
	pp_attr_record_pass_end(r);
}

/* Closes an open compute/transfer pass: a boundary (render pass, label, execute, end). Most
 * boundaries find none open: that check is inline. */
static inline void outside_close(struct pp_command_buffer *c)
{
	pp_vk_experiment_flush(c);
	if (c->rec->state == PP_REC_OUTSIDE)
		outside_pass_close(c);
}

static __attribute__((noinline)) void outside_open(struct pp_command_buffer *c)
{
	struct pp_recording *r = c->rec;
	if (r->state == PP_REC_RENDER)
		return; /* not valid usage; the work stays stray */
	struct pp_pass_rec *p = pp_attr_record_pass_begin(r, PP_PASS_TRANSFER, "outside-render-pass", PP_REC_OUTSIDE);
	timestamp_begin(c, p);
	/* Statistics need a graphics-capable pool; compute invocations are what they show here. */
	bool graphics = c->family < c->device->nfamilies &&
			(c->device->families[c->family].flags & VK_QUEUE_GRAPHICS_BIT);
	statistics_begin(c, p, graphics, "queue family without graphics");
}

/* The workload of the open compute/transfer pass, opening one if needed. */
static inline struct pp_workload *outside_work(struct pp_command_buffer *c, bool compute)
{
	struct pp_recording *r = c->rec;
	pp_vk_experiment_flush(c);
	if (__builtin_expect(r->state != PP_REC_OUTSIDE, 0))
		outside_open(c);
	if (compute && r->state == PP_REC_OUTSIDE && r->open < r->npasses)
		r->passes[r->open].kind = PP_PASS_COMPUTE;
	return r->cur;
}

/* ---- recording lifetime ----------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c)
		return pp_vk_device_of(cb)->vk.BeginCommandBuffer(cb, info);
	struct pp_device *dev = c->device;
	/* The diagnostics judge a wait on this thread as the frame's (vk_blocking.c). */
	pp_thread_role_note(PP_THREAD_RECORDS);
	/* Beginning implicitly resets: the previous recording's results are read first. */
	pp_vk_profiling_recording_release(dev, c);

	c->simultaneous_use = info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
	c->sim_suspended = false;
	c->in_render_pass = false;
	c->suspended = false;
	c->app_stats_query_active = false;
	memset(c->pipeline_bound, 0, sizeof(c->pipeline_bound));
	memset(c->uniforms_unbound, 0, sizeof(c->uniforms_unbound));
	c->per_draw = false;
	c->submissions = 0;
	c->recording++;
	c->timestamps = false;
	c->statistics = false;
	if (!dev->timer)
		c->ts_reason = !pp_layer_registry_settings.timestamps ? "GPU timestamps disabled (timestamps setting)"
			       : dev->gpu_query_reset_possible ? "GPU timing could not be set up on this device"
							       : "queue family has no timestamp support (timestampValidBits = 0)";
	else if (c->level != VK_COMMAND_BUFFER_LEVEL_PRIMARY)
		c->ts_reason = "recorded in a secondary command buffer: timed by the primary that executes it";
	else if (c->family >= dev->nfamilies || !dev->families[c->family].timestamp_valid_bits)
		c->ts_reason = "queue family has no timestamp support (timestampValidBits = 0)";
	else if (c->simultaneous_use && !pp_vk_simultaneous_possible(c))
		c->ts_reason = "SIMULTANEOUS_USE command buffer that passprobe cannot reset and copy per execution "
			       "(protected, or a queue family without graphics or compute)";
	else if (dev->gpu_query_reset && !pp_vk_simultaneous_possible(c))
		c->ts_reason = "no host query reset, and passprobe cannot reset this command buffer's queries on the "
			       "GPU (protected, or a queue family without graphics or compute)";
	else {
		c->ts_reason = NULL;
		c->timestamps = true;
		c->statistics = __atomic_load_n(&dev->pipeline_statistics, __ATOMIC_RELAXED);
	}

	struct pp_recording *r = c->rec;
	/* Capture windows and sampled GPU timing: decided once per recording, for the frame the
	 * application is building as it begins (docs/settings.md, "Capture windows"). */
	uint32_t frame = pp_attr_device_frame_building(dev->attr);
	if (!(frame & PP_FRAME_CAPTURED)) {
		pp_attr_record_quiet_set(r, true, pp_layer_registry_settings.diagnostics);
		c->timestamps = c->statistics = false;
		c->ts_reason = "recorded outside a capture window";
	} else if (!(frame & PP_FRAME_GPU_TIMED) && c->timestamps) {
		c->timestamps = c->statistics = false;
		c->ts_reason = "not a GPU-timed frame (gpu_timing_interval)";
	}
	/* The experiment's arm of the frame it is begun in: primaries the diagnostics follow, not
	 * SIMULTANEOUS_USE ones (their executions may fall in frames of both arms). */
	if (pp_layer_registry_settings.experiment != PP_EXPERIMENT_OFF && pp_layer_registry_settings.diagnostics &&
	    c->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY && !c->simultaneous_use)
		r->exp_arm = (frame & PP_FRAME_EXP_FIXED)	? PP_EXP_ARM_FIXED
			     : (frame & PP_FRAME_EXP_AS_WRITTEN) ? PP_EXP_ARM_AS_WRITTEN
								 : PP_EXP_ARM_NONE;
	if (c->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY &&
	    (info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT)) {
		/* Its draws belong to whatever pass executes it: counted as the recording's own. */
		r->state = PP_REC_RENDER;
		c->in_render_pass = true;
	}
	return dev->vk.BeginCommandBuffer(cb, info);
}

/* copy_results: at the end of a primary recording, its results are copied on the GPU into
 * host memory, so that harvesting reads memory instead of calling vkGetQueryPoolResults, which
 * some drivers (lavapipe) implement with a device idle wait. Not after a suspended render pass (nothing
 * may follow one) nor on families that cannot copy query results: those recordings' results
 * are read with vkGetQueryPoolResults. */
static void results_copy(struct pp_command_buffer *c)
{
	struct pp_device *dev = c->device;
	struct pp_recording *r = c->rec;
	if (!dev->copy_results || c->simultaneous_use || !r->nchunks || c->level != VK_COMMAND_BUFFER_LEVEL_PRIMARY || c->suspended ||
	    !dev->timer ||
	    c->family >= dev->nfamilies ||
	    !(dev->families[c->family].flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
		return;
	bool any = false;
	for (uint32_t i = 0; i < r->nchunks; i++) {
		uint32_t k = r->chunks[i];
		uint32_t used = k == c->ts_chunk ? c->ts_next : k == c->stats_chunk ? c->stats_next : PP_GPU_CHUNK_SLOTS;
		any |= pp_gpu_vk_timer_copy_chunk(dev->timer, c->vk_cb, k, used);
	}
	if (any)
		pp_gpu_vk_timer_copy_barrier(dev->timer, c->vk_cb);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_EndCommandBuffer(VkCommandBuffer cb)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c)
		return pp_vk_device_of(cb)->vk.EndCommandBuffer(cb);
	outside_close(c);
	results_copy(c);
	VkResult r = c->device->vk.EndCommandBuffer(cb);
	/* SIMULTANEOUS_USE: its executions may overlap, so each gets its own reset and copy;
	 * without host resets, every execution of any recording gets a reset in front of it
	 * (vk_simultaneous.c). */
	if (r == VK_SUCCESS && (c->simultaneous_use || c->device->gpu_query_reset) &&
	    c->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY)
		pp_vk_simultaneous_build(c->device, c);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c)
		return pp_vk_device_of(cb)->vk.ResetCommandBuffer(cb, flags);
	pp_vk_profiling_recording_release(c->device, c);
	return c->device->vk.ResetCommandBuffer(cb, flags);
}

/* ---- render passes ---------------------------------------------------------------------- */

/* An object's debug name names a pass that has none yet. */
static void name_from(struct pp_pass_rec *p, const struct pp_object *o)
{
	if (!p->object_name[0] && o && o->name[0])
		memcpy(p->object_name, o->name, sizeof(p->object_name));
}

static void describe_render_pass(struct pp_command_buffer *c, struct pp_pass_rec *p, const VkRenderPassBeginInfo *info)
{
	struct pp_device *dev = c->device;
	uint32_t width = info->renderArea.extent.width, height = info->renderArea.extent.height, layers = 1;
	c->multiview_mask = 0;
	p->subpasses = 1;
	struct pp_object *fb = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)info->framebuffer);
	if (fb)
		layers = fb->u.framebuffer.layers;
	struct pp_object *rp = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)info->renderPass);
	p->render_pass = (uint64_t)info->renderPass;
	if (rp) {
		c->multiview_mask = rp->u.render_pass.multiview_mask;
		p->subpasses = rp->u.render_pass.subpasses;
		if (!rp->u.render_pass.ndependencies)
			p->flags |= PP_PASS_NO_SUBPASS_DEPS;
		/* A pass record begins with no attachments. */
		uint32_t n = rp->u.render_pass.nattachments < PP_MAX_ATTACHMENTS ? rp->u.render_pass.nattachments
										 : PP_MAX_ATTACHMENTS;
		p->nattachments = n;
		for (uint32_t i = 0; i < n; i++) {
			const struct pp_rp_attachment *a = &rp->u.render_pass.attachments[i];

			/* Whole: a pass record's attachments are not cleared when it begins. */
			p->attachments[i] = (struct pp_attachment){
				.format = a->format_name,
				.load_op = a->load_op_name,
				.store_op = a->store_op_name,
				.samples = (uint32_t)a->samples,
				.width = width,
				.height = height,
				.layers = layers,
				.depth_stencil = a->depth_stencil,
				.view = fb && i < fb->u.framebuffer.nviews ? fb->u.framebuffer.views[i] : 0,
			};
		}
	}
	/* The name of the render pass, else of the framebuffer: the objects found above (a
	 * lookup by the same handle would find them again). */
	name_from(p, rp);
	name_from(p, fb);
}

static struct pp_pass_rec *render_pass_open(struct pp_command_buffer *c, const char *api)
{
	outside_close(c);
	struct pp_pass_rec *p = pp_attr_record_pass_begin(c->rec, PP_PASS_RENDER, api, PP_REC_RENDER);
	c->in_render_pass = true;
	return p;
}

static void render_pass_close(struct pp_command_buffer *c)
{
	struct pp_pass_rec *p = pp_attr_record_open_pass(c->rec);
	statistics_end(c, p);
	timestamp_end(c, p);
	pp_attr_record_pass_end(c->rec);
	c->in_render_pass = false;
	c->per_draw = false;
}

/* Secondaries executed while our statistics query is active would have to inherit its bits
 * (VUID-vkCmdExecuteCommands-commandBuffer-00104), which the application's do not: such passes,
 * and passes whose later subpasses might execute secondaries, go without statistics. */
static const char *const reason_secondary_stats =
	"secondary command buffers may execute inside: a statistics query there would be invalid";

static void begin_render_pass_common(struct pp_command_buffer *c, const VkRenderPassBeginInfo *info,
				     VkSubpassContents contents, const char *api)
{
	struct pp_pass_rec *p = render_pass_open(c, api);
	/* Outside a capture window the record serves the diagnostics alone: they need its render
	 * pass, not its attachments or name (no object lookups). */
	if (p && c->rec->quiet) {
		p->render_pass = (uint64_t)info->renderPass;
		p->subpasses = 1;
		c->multiview_mask = 0;
	} else if (p) {
		describe_render_pass(c, p, info);
	}
	timestamp_begin(c, p);
	statistics_begin(c, p, contents == VK_SUBPASS_CONTENTS_INLINE && p && p->subpasses <= 1,
			 reason_secondary_stats);
	/* Timestamps inside a multiview pass take one query per view: per-draw timing skips them. */
	c->per_draw = p && c->timestamps && pp_layer_registry_settings.per_draw_timing && !c->multiview_mask;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBeginRenderPass(VkCommandBuffer cb, const VkRenderPassBeginInfo *info,
						 VkSubpassContents contents)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdBeginRenderPass(cb, info, contents);
		return;
	}
	begin_render_pass_common(c, info, contents, "vkCmdBeginRenderPass");
	c->device->vk.CmdBeginRenderPass(cb, info, contents);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBeginRenderPass2(VkCommandBuffer cb, const VkRenderPassBeginInfo *info,
						  const VkSubpassBeginInfo *subpass)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdBeginRenderPass2(cb, info, subpass);
		return;
	}
	begin_render_pass_common(c, info, subpass->contents, "vkCmdBeginRenderPass2");
	c->device->vk.CmdBeginRenderPass2(cb, info, subpass);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdNextSubpass(VkCommandBuffer cb, VkSubpassContents contents)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_cb_device(c, cb)->vk.CmdNextSubpass(cb, contents);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdNextSubpass2(VkCommandBuffer cb, const VkSubpassBeginInfo *begin,
					      const VkSubpassEndInfo *end)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	pp_vk_cb_device(c, cb)->vk.CmdNextSubpass2(cb, begin, end);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdEndRenderPass(VkCommandBuffer cb)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdEndRenderPass(cb);
		return;
	}
	c->device->vk.CmdEndRenderPass(cb);
	render_pass_close(c);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdEndRenderPass2(VkCommandBuffer cb, const VkSubpassEndInfo *info)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdEndRenderPass2(cb, info);
		return;
	}
	c->device->vk.CmdEndRenderPass2(cb, info);
	render_pass_close(c);
}

static void describe_rendering_attachment(struct pp_command_buffer *c, struct pp_pass_rec *p,
					  const VkRenderingAttachmentInfo *a, const VkRenderingInfo *info, bool depth)
{
	if (!a || !a->imageView || p->nattachments >= PP_MAX_ATTACHMENTS)
		return;
	struct pp_device *dev = c->device;
	struct pp_attachment *o = &p->attachments[p->nattachments++];
	struct pp_object *view = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)a->imageView);
	struct pp_object *image = view ? pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_IMAGE, view->u.image_view.image) : NULL;
	/* Whole: a pass record's attachments are not cleared when it begins. */
	*o = (struct pp_attachment){
		.format = view ? pp_vk_profiling_format_name(view->u.image_view.format) : "unknown",
		.samples = image ? (uint32_t)image->u.image.samples : 0,
		.load_op = pp_vk_profiling_load_op_name(a->loadOp),
		.store_op = pp_vk_profiling_store_op_name(a->storeOp),
		.width = info->renderArea.extent.width,
		.height = info->renderArea.extent.height,
		.layers = info->layerCount,
		.depth_stencil = depth,
		.view = (uint64_t)a->imageView,
	};
	/* The view's name, else its image's: the objects found above. */
	if (view)
		name_from(p, view);
	if (view && view->u.image_view.image)
		name_from(p, image);
	if (a->resolveImageView && a->resolveMode && p->nattachments < PP_MAX_ATTACHMENTS) {
		struct pp_attachment *res = &p->attachments[p->nattachments++];
		*res = *o;
		res->resolve = true;
		res->samples = 1;
		res->view = (uint64_t)a->resolveImageView;
	}
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBeginRendering(VkCommandBuffer cb, const VkRenderingInfo *info)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdBeginRendering(cb, info);
		return;
	}
	bool resuming = info->flags & VK_RENDERING_RESUMING_BIT;
	bool suspending = info->flags & VK_RENDERING_SUSPENDING_BIT;
	if ((c->simultaneous_use || c->device->gpu_query_reset) && (resuming || suspending) && !c->sim_suspended) {
		/* Nothing may be submitted between a suspended pass and its resumption, so this
		 * recording cannot get a reset before or a copy after each execution: it is timed
		 * no further. */
		c->sim_suspended = true;
		c->timestamps = c->statistics = false;
		c->ts_reason = pp_vk_simultaneous_suspended_reason(c->simultaneous_use);
	}
	struct pp_pass_rec *p = render_pass_open(c, "vkCmdBeginRendering");
	c->rendering_flags = info->flags;
	c->suspended = false;
	c->multiview_mask = info->viewMask;
	if (p) {
		p->subpasses = 1;
		p->flags |= (resuming ? PP_PASS_RESUMING : 0) | (suspending ? PP_PASS_SUSPENDING : 0);
	}
	if (p && !c->rec->quiet) {
		for (uint32_t i = 0; i < info->colorAttachmentCount; i++)
			describe_rendering_attachment(c, p, &info->pColorAttachments[i], info, false);
		describe_rendering_attachment(c, p, info->pDepthAttachment, info, true);
		if (info->pStencilAttachment &&
		    (!info->pDepthAttachment || info->pStencilAttachment->imageView != info->pDepthAttachment->imageView))
			describe_rendering_attachment(c, p, info->pStencilAttachment, info, true);
	}
	/* Between a suspended pass and its resumption nothing may be recorded, so a pass split
	 * over command buffers is timed from its first begin to its last end, and its queries
	 * cannot stay open across the split. */
	if (!resuming)
		timestamp_begin(c, p);
	if (info->flags & VK_RENDERING_CONTENTS_SECONDARY_COMMAND_BUFFERS_BIT)
		statistics_begin(c, p, false, reason_secondary_stats);
	else
		statistics_begin(c, p, !resuming && !suspending,
				 "render pass suspended or resumed across command buffers");
	c->per_draw = p && c->timestamps && pp_layer_registry_settings.per_draw_timing && !info->viewMask;
	c->device->vk.CmdBeginRendering(cb, info);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdEndRendering(VkCommandBuffer cb)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdEndRendering(cb);
		return;
	}
	c->device->vk.CmdEndRendering(cb);
	struct pp_pass_rec *p = pp_attr_record_open_pass(c->rec);
	statistics_end(c, p);
	if (!(c->rendering_flags & VK_RENDERING_SUSPENDING_BIT))
		timestamp_end(c, p);
	c->suspended = c->rendering_flags & VK_RENDERING_SUSPENDING_BIT;
	pp_attr_record_pass_end(c->rec);
	c->in_render_pass = false;
	c->per_draw = false;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdExecuteCommands(VkCommandBuffer cb, uint32_t n, const VkCommandBuffer *secondaries)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdExecuteCommands(cb, n, secondaries);
		return;
	}
	struct pp_device *dev = c->device;
	struct pp_recording *r = c->rec;
	if (r->state == PP_REC_RENDER) {
		struct pp_pass_rec *p = pp_attr_record_open_pass(r);
		for (uint32_t i = 0; p && i < n; i++) {
			struct pp_command_buffer *s = pp_layer_objects_command_buffer_lookup(dev, secondaries[i]);
			if (s)
				pp_attr_record_merge_secondary(p, s->rec);
		}
		dev->vk.CmdExecuteCommands(cb, n, secondaries);
		return;
	}
	/* Outside a render pass the executed command buffers form one pass of their own. */
	outside_close(c);
	enum pp_pass_kind kind = PP_PASS_TRANSFER;
	struct pp_pass_rec *p = pp_attr_record_pass_begin(r, kind, "vkCmdExecuteCommands", PP_REC_OUTSIDE);
	for (uint32_t i = 0; p && i < n; i++) {
		struct pp_command_buffer *s = pp_layer_objects_command_buffer_lookup(dev, secondaries[i]);
		if (!s)
			continue;
		for (uint32_t j = 0; j < s->rec->npasses; j++) {
			if (s->rec->passes[j].kind == PP_PASS_RENDER)
				kind = PP_PASS_RENDER;
			else if (s->rec->passes[j].kind == PP_PASS_COMPUTE && kind != PP_PASS_RENDER)
				kind = PP_PASS_COMPUTE;
			if (!p->object_name[0] && s->rec->passes[j].object_name[0])
				memcpy(p->object_name, s->rec->passes[j].object_name, sizeof(p->object_name));
		}
		pp_attr_record_merge_secondary(p, s->rec);
	}
	if (p) {
		p->kind = kind;
		p->flags |= PP_PASS_EXECUTE;
	}
	timestamp_begin(c, p);
	statistics_begin(c, p, false, reason_secondary_stats);
	dev->vk.CmdExecuteCommands(cb, n, secondaries);
	statistics_end(c, p);
	timestamp_end(c, p);
	pp_attr_record_pass_end(r);
}

/* ---- the application's own queries ------------------------------------------------------ */

VKAPI_ATTR void VKAPI_CALL pp_CmdBeginQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
					    VkQueryControlFlags flags)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	struct pp_device *dev = pp_vk_cb_device(c, cb);
	if (c) {
		pp_vk_experiment_flush(c);
		struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)pool);
		/* Two queries of one type may not be active at once (VUID-vkCmdBeginQuery-queryPool-01922):
		 * ours step aside. */
		if (o && o->u.query_pool.type == VK_QUERY_TYPE_PIPELINE_STATISTICS) {
			c->app_stats_query_active = true;
			struct pp_pass_rec *p = pp_attr_record_open_pass(c->rec);
			if (p && p->stats_slot != PP_NO_SLOT) {
				if (c->rec->state == PP_REC_OUTSIDE) {
					statistics_end(c, p);
					p->stats_slot = PP_NO_SLOT;
					p->stats_reason = "the application began its own pipeline statistics query";
				} else {
					/* Ours began outside the render pass and cannot end inside it. */
					pp_log_once(PP_LOG_WARN, "the application began a pipeline statistics query "
								 "inside a render pass that passprobe measures with its own; "
								 "pipeline statistics are off for this device from now on "
								 "(set pipeline_statistics=off to avoid this)");
					__atomic_store_n(&dev->pipeline_statistics, false, __ATOMIC_RELAXED);
				}
			}
		}
	}
	dev->vk.CmdBeginQuery(cb, pool, query, flags);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdEndQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	struct pp_device *dev = pp_vk_cb_device(c, cb);
	if (c) {
		pp_vk_experiment_flush(c);
		struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)pool);
		if (o && o->u.query_pool.type == VK_QUERY_TYPE_PIPELINE_STATISTICS)
			c->app_stats_query_active = false;
	}
	dev->vk.CmdEndQuery(cb, pool, query);
}

/* ---- draws and dispatches: the hot path -------------------------------------------------- */

/* Per-draw timing (opt-in): a timestamp pair around the draw. */
static __attribute__((noinline)) uint32_t draw_timed_begin(struct pp_command_buffer *c)
{
	uint32_t b = pp_vk_cmd_slot_take(c, PP_GPU_TIMESTAMP);
	if (b != PP_NO_SLOT)
		pp_gpu_vk_timer_write(c->device->timer, c->vk_cb, b, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
	return b;
}

static __attribute__((noinline)) void draw_timed_end(struct pp_command_buffer *c, uint32_t b)
{
	uint32_t e = pp_vk_cmd_slot_take(c, PP_GPU_TIMESTAMP);
	if (e != PP_NO_SLOT)
		pp_gpu_vk_timer_write(c->device->timer, c->vk_cb, e, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
	pp_attr_record_draw_slot_add(c->rec, b, e);
}

/* A hot hook has three paths, each ending in a tail call so the common one saves no
 * registers: the cached command buffer (count, call down), per-draw timing (noinline), and
 * the slow path (look the command buffer up, then the same again, or pass an untracked one
 * straight through). COUNT is the workload update, with `c` in scope. */
#define HOT_HOOK(fn, params, args, COUNT)                                                   \
	static __attribute__((noinline)) void fn##_timed(struct pp_command_buffer *c, params) \
	{                                                                                   \
		uint32_t b = draw_timed_begin(c);                                           \
		c->device->vk.fn args;                                                      \
		draw_timed_end(c, b);                                                       \
	}                                                                                   \
	static inline void fn##_counted(struct pp_command_buffer *c, params)                 \
	{                                                                                   \
		COUNT;                                                                      \
		if (__builtin_expect(c->per_draw, 0))                                       \
			fn##_timed(c, args_of_##fn);                                       \
		else                                                                        \
			c->device->vk.fn args;                                              \
	}                                                                                   \
	static __attribute__((noinline)) void fn##_slow(params)                             \
	{                                                                                   \
		struct pp_command_buffer *c = pp_layer_objects_command_buffer_get_slow(cb);               \
		if (c)                                                                      \
			fn##_counted(c, args_of_##fn);                                     \
		else                                                                        \
			pp_vk_device_of(cb)->vk.fn args;                                    \
	}                                                                                   \
	VKAPI_ATTR void VKAPI_CALL pp_##fn(params)                                          \
	{                                                                                   \
		const struct pp_command_buffer_cache *k = &pp_layer_objects_command_buffer_cache_tls; \
		if (__builtin_expect(!pp_layer_objects_command_buffer_hit(k, cb), 0))       \
			fn##_slow(args_of_##fn);                                           \
		else                                                                        \
			fn##_counted(k->record, args_of_##fn);                             \
	}

#define P(...) __VA_ARGS__

#define args_of_CmdDraw cb, vertex_count, instance_count, first_vertex, first_instance
HOT_HOOK(CmdDraw,
	 P(VkCommandBuffer cb, uint32_t vertex_count, uint32_t instance_count, uint32_t first_vertex,
	   uint32_t first_instance),
	 (cb, vertex_count, instance_count, first_vertex, first_instance), {
		 struct pp_workload *w = c->rec->cur;
		 w->draws++;
		 w->instances += instance_count;
		 w->vertices += (uint64_t)vertex_count * instance_count;
	 })

#define args_of_CmdDrawIndexed cb, index_count, instance_count, first_index, vertex_offset, first_instance
HOT_HOOK(CmdDrawIndexed,
	 P(VkCommandBuffer cb, uint32_t index_count, uint32_t instance_count, uint32_t first_index,
	   int32_t vertex_offset, uint32_t first_instance),
	 (cb, index_count, instance_count, first_index, vertex_offset, first_instance), {
		 struct pp_workload *w = c->rec->cur;
		 w->draws_indexed++;
		 w->instances += instance_count;
		 w->indices += (uint64_t)index_count * instance_count;
	 })

#define args_of_CmdDrawIndirect cb, buf, off, count, stride
HOT_HOOK(CmdDrawIndirect, P(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off, uint32_t count, uint32_t stride),
	 (cb, buf, off, count, stride), c->rec->cur->draws_indirect++)

#define args_of_CmdDrawIndexedIndirect cb, buf, off, count, stride
HOT_HOOK(CmdDrawIndexedIndirect,
	 P(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off, uint32_t count, uint32_t stride),
	 (cb, buf, off, count, stride), c->rec->cur->draws_indirect++)

#define args_of_CmdDrawIndirectCount cb, buf, off, count_buf, count_off, max, stride
HOT_HOOK(CmdDrawIndirectCount,
	 P(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off, VkBuffer count_buf, VkDeviceSize count_off,
	   uint32_t max, uint32_t stride),
	 (cb, buf, off, count_buf, count_off, max, stride), c->rec->cur->draws_indirect_count++)

#define args_of_CmdDrawIndexedIndirectCount cb, buf, off, count_buf, count_off, max, stride
HOT_HOOK(CmdDrawIndexedIndirectCount,
	 P(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off, VkBuffer count_buf, VkDeviceSize count_off,
	   uint32_t max, uint32_t stride),
	 (cb, buf, off, count_buf, count_off, max, stride), c->rec->cur->draws_indirect_count++)

VKAPI_ATTR void VKAPI_CALL pp_CmdClearAttachments(VkCommandBuffer cb, uint32_t n, const VkClearAttachment *a,
						  uint32_t nrects, const VkClearRect *rects)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		c->rec->cur->clears++;
	pp_vk_cb_device(c, cb)->vk.CmdClearAttachments(cb, n, a, nrects, rects);
}

/* ---- work outside render passes --------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (__builtin_expect(!c, 0)) {
		pp_vk_device_of(cb)->vk.CmdDispatch(cb, x, y, z);
		return;
	}
	struct pp_workload *w = outside_work(c, true);
	w->dispatches++;
	w->workgroups += (uint64_t)x * y * z;
	c->device->vk.CmdDispatch(cb, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
					      uint32_t y, uint32_t z)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (__builtin_expect(!c, 0)) {
		pp_vk_device_of(cb)->vk.CmdDispatchBase(cb, bx, by, bz, x, y, z);
		return;
	}
	struct pp_workload *w = outside_work(c, true);
	w->dispatches++;
	w->workgroups += (uint64_t)x * y * z;
	c->device->vk.CmdDispatchBase(cb, bx, by, bz, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (__builtin_expect(!c, 0)) {
		pp_vk_device_of(cb)->vk.CmdDispatchIndirect(cb, buf, off);
		return;
	}
	outside_work(c, true)->dispatches_indirect++;
	c->device->vk.CmdDispatchIndirect(cb, buf, off);
}

/* Transfer-like commands: one counter bump and, where the size is known, the bytes. */
#define TRANSFER_HOOK(fn, bytes_expr, params, args)                               \
	VKAPI_ATTR void VKAPI_CALL pp_##fn params                                  \
	{                                                                          \
		struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);           \
		if (__builtin_expect(!c, 0)) {                                     \
			pp_vk_device_of(cb)->vk.fn args;                           \
			return;                                                    \
		}                                                                  \
		struct pp_workload *w = outside_work(c, false);                    \
		w->copies++;                                                       \
		w->copy_bytes += (bytes_expr);                                     \
		c->device->vk.fn args;                                             \
	}

static uint64_t buffer_copy_bytes(uint32_t n, const VkBufferCopy *r)
{
	uint64_t b = 0;
	for (uint32_t i = 0; i < n; i++)
		b += r[i].size;
	return b;
}

static uint64_t buffer_copy2_bytes(const VkCopyBufferInfo2 *info)
{
	uint64_t b = 0;
	for (uint32_t i = 0; i < info->regionCount; i++)
		b += info->pRegions[i].size;
	return b;
}

/* Copies that touch images: the bytes of the regions by the image's format, one aspect or
 * plane at a time (vk_formats.c); 0 where the image, its format or a layer count
 * (VK_REMAINING_ARRAY_LAYERS) is not known here. Blits and resolves are counted as copies
 * without bytes: a scaled blit reads and writes different amounts. */
static VkFormat image_format(struct pp_device *dev, VkImage image)
{
	struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)image);
	return o ? o->u.image.format : VK_FORMAT_UNDEFINED;
}

static uint64_t aspects_bytes(VkFormat f, VkImageAspectFlags aspects, VkExtent3D extent, uint32_t layers)
{
	uint64_t b = 0;
	struct pp_vk_block blk;
	if (f == VK_FORMAT_UNDEFINED || layers == VK_REMAINING_ARRAY_LAYERS)
		return 0;
	for (VkImageAspectFlags m = aspects; m; m &= m - 1)
		if (pp_vk_formats_copy_block(f, m & -m, &blk))
			b += pp_vk_formats_copy_region_bytes(&blk, extent, layers);
	return b;
}

/* The bytes of n regions of one image: the four region types name the image's subresource
 * and extent differently (image to image: the extent is in the source's texels). */
#define IMAGE_REGIONS_BYTES(name, type, sub, ext)                                                          \
	static uint64_t name(struct pp_device *dev, VkImage image, uint32_t n, const type *r)                \
	{                                                                                                  \
		VkFormat f = image_format(dev, image);                                                     \
		uint64_t b = 0;                                                                            \
		for (uint32_t i = 0; i < n; i++)                                                           \
			b += aspects_bytes(f, r[i].sub.aspectMask, r[i].ext, r[i].sub.layerCount);         \
		return b;                                                                                  \
	}
IMAGE_REGIONS_BYTES(buffer_image_bytes, VkBufferImageCopy, imageSubresource, imageExtent)
IMAGE_REGIONS_BYTES(buffer_image2_bytes, VkBufferImageCopy2, imageSubresource, imageExtent)
IMAGE_REGIONS_BYTES(image_copy_bytes, VkImageCopy, srcSubresource, extent)
IMAGE_REGIONS_BYTES(image_copy2_bytes, VkImageCopy2, srcSubresource, extent)

TRANSFER_HOOK(CmdCopyBuffer, buffer_copy_bytes(n, r),
	      (VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n, const VkBufferCopy *r), (cb, src, dst, n, r))
TRANSFER_HOOK(CmdCopyBuffer2, buffer_copy2_bytes(info), (VkCommandBuffer cb, const VkCopyBufferInfo2 *info),
	      (cb, info))
TRANSFER_HOOK(CmdCopyImage, image_copy_bytes(c->device, src, n, r),
	      (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,
	       const VkImageCopy *r),
	      (cb, src, sl, dst, dl, n, r))
TRANSFER_HOOK(CmdCopyImage2, image_copy2_bytes(c->device, info->srcImage, info->regionCount, info->pRegions),
	      (VkCommandBuffer cb, const VkCopyImageInfo2 *info), (cb, info))
TRANSFER_HOOK(CmdBlitImage, 0,
	      (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,
	       const VkImageBlit *r, VkFilter f),
	      (cb, src, sl, dst, dl, n, r, f))
TRANSFER_HOOK(CmdBlitImage2, 0, (VkCommandBuffer cb, const VkBlitImageInfo2 *info), (cb, info))
TRANSFER_HOOK(CmdCopyBufferToImage, buffer_image_bytes(c->device, dst, n, r),
	      (VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout dl, uint32_t n,
	       const VkBufferImageCopy *r),
	      (cb, src, dst, dl, n, r))
TRANSFER_HOOK(CmdCopyBufferToImage2, buffer_image2_bytes(c->device, info->dstImage, info->regionCount, info->pRegions),
	      (VkCommandBuffer cb, const VkCopyBufferToImageInfo2 *info), (cb, info))
TRANSFER_HOOK(CmdCopyImageToBuffer, buffer_image_bytes(c->device, src, n, r),
	      (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkBuffer dst, uint32_t n,
	       const VkBufferImageCopy *r),
	      (cb, src, sl, dst, n, r))
TRANSFER_HOOK(CmdCopyImageToBuffer2, buffer_image2_bytes(c->device, info->srcImage, info->regionCount, info->pRegions),
	      (VkCommandBuffer cb, const VkCopyImageToBufferInfo2 *info), (cb, info))
TRANSFER_HOOK(CmdResolveImage, 0,
	      (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,
	       const VkImageResolve *r),
	      (cb, src, sl, dst, dl, n, r))
TRANSFER_HOOK(CmdResolveImage2, 0, (VkCommandBuffer cb, const VkResolveImageInfo2 *info), (cb, info))
TRANSFER_HOOK(CmdUpdateBuffer, size,
	      (VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, const void *data),
	      (cb, dst, off, size, data))
/* VK_WHOLE_SIZE: the size is not known here. */
TRANSFER_HOOK(CmdFillBuffer, size == VK_WHOLE_SIZE ? 0 : size,
	      (VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t data),
	      (cb, dst, off, size, data))

VKAPI_ATTR void VKAPI_CALL pp_CmdClearColorImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
						 const VkClearColorValue *color, uint32_t n,
						 const VkImageSubresourceRange *ranges)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		outside_work(c, false)->clears++;
	pp_vk_cb_device(c, cb)->vk.CmdClearColorImage(cb, image, layout, color, n, ranges);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdClearDepthStencilImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
							const VkClearDepthStencilValue *ds, uint32_t n,
							const VkImageSubresourceRange *ranges)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		outside_work(c, false)->clears++;
	pp_vk_cb_device(c, cb)->vk.CmdClearDepthStencilImage(cb, image, layout, ds, n, ranges);
}

/* ---- labels ----------------------------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *label)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c) {
		/* A label boundary also ends a run of compute/transfer work: it names what follows. */
		outside_close(c);
		pp_attr_record_label(c->rec, PP_LABEL_PUSH, label ? label->pLabelName : NULL);
	}
	pp_vk_cb_device(c, cb)->vk.CmdBeginDebugUtilsLabelEXT(cb, label);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdEndDebugUtilsLabelEXT(VkCommandBuffer cb)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c) {
		outside_close(c);
		pp_attr_record_label(c->rec, PP_LABEL_POP, NULL);
	}
	pp_vk_cb_device(c, cb)->vk.CmdEndDebugUtilsLabelEXT(cb);
}
