/* Barrier and event hooks, and the translation of Vulkan into the rules' vocabulary: stage and
 * access masks, image layouts and ranges, render pass subpass dependencies, call sites,
 * barrier-cost timestamps. */
#include "vk_diag_internal.h"

/* ---- Vulkan to the neutral model ------------------------------------------------------------ */

uint32_t pp_vk_barriers_stages_of(VkPipelineStageFlags2 f)
{
	uint32_t s = 0;
	if (f & VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT)
		s |= PP_STAGE_TOP;
	if (f & VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT)
		s |= PP_STAGE_DRAW_INDIRECT;
	if (f & (VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
		 VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT))
		s |= PP_STAGE_VERTEX_INPUT;
	if (f & VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT)
		s |= PP_STAGE_VERTEX_SHADER;
	if (f & VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT)
		s |= PP_STAGE_TESS_CONTROL;
	if (f & VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT)
		s |= PP_STAGE_TESS_EVAL;
	if (f & VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT)
		s |= PP_STAGE_GEOMETRY;
	if (f & VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT)
		s |= PP_STAGE_PRE_RASTER;
	if (f & VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT)
		s |= PP_STAGE_EARLY_FRAGMENT_TESTS;
	if (f & VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT)
		s |= PP_STAGE_FRAGMENT_SHADER;
	if (f & VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT)
		s |= PP_STAGE_LATE_FRAGMENT_TESTS;
	if (f & VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT)
		s |= PP_STAGE_COLOR_OUTPUT;
	if (f & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT)
		s |= PP_STAGE_COMPUTE;
	if (f & (VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT |
		 VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT))
		s |= PP_STAGE_TRANSFER;
	if (f & VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT)
		s |= PP_STAGE_BOTTOM;
	if (f & VK_PIPELINE_STAGE_2_HOST_BIT)
		s |= PP_STAGE_HOST;
	if (f & VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT)
		s |= PP_STAGE_ALL_GRAPHICS;
	if (f & VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT)
		s |= PP_STAGE_ALL_COMMANDS;
	const VkPipelineStageFlags2 known =
		VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
		VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
		VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
		VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT | VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT |
		VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT | VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT |
		VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
		VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
		VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
		VK_PIPELINE_STAGE_2_RESOLVE_BIT | VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT |
		VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT | VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT |
		VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
	if (f & ~known)
		s |= PP_STAGE_OTHER;
	return s;
}

#define stages_of pp_vk_barriers_stages_of

static uint32_t access_of(VkAccessFlags2 a)
{
	uint32_t s = 0;
	const VkAccessFlags2 shader_read = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT |
					   VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
	const VkAccessFlags2 shader_write = VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
	if (a & VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT)
		s |= PP_ACCESS_INDIRECT_READ;
	if (a & VK_ACCESS_2_INDEX_READ_BIT)
		s |= PP_ACCESS_INDEX_READ;
	if (a & VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT)
		s |= PP_ACCESS_VERTEX_READ;
	if (a & VK_ACCESS_2_UNIFORM_READ_BIT)
		s |= PP_ACCESS_UNIFORM_READ;
	if (a & VK_ACCESS_2_INPUT_ATTACHMENT_READ_BIT)
		s |= PP_ACCESS_INPUT_ATTACHMENT_READ;
	if (a & shader_read)
		s |= PP_ACCESS_SHADER_READ;
	if (a & shader_write)
		s |= PP_ACCESS_SHADER_WRITE;
	if (a & VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT)
		s |= PP_ACCESS_COLOR_READ;
	if (a & VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT)
		s |= PP_ACCESS_COLOR_WRITE;
	if (a & VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT)
		s |= PP_ACCESS_DEPTH_READ;
	if (a & VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT)
		s |= PP_ACCESS_DEPTH_WRITE;
	if (a & VK_ACCESS_2_TRANSFER_READ_BIT)
		s |= PP_ACCESS_TRANSFER_READ;
	if (a & VK_ACCESS_2_TRANSFER_WRITE_BIT)
		s |= PP_ACCESS_TRANSFER_WRITE;
	if (a & VK_ACCESS_2_HOST_READ_BIT)
		s |= PP_ACCESS_HOST_READ;
	if (a & VK_ACCESS_2_HOST_WRITE_BIT)
		s |= PP_ACCESS_HOST_WRITE;
	if (a & VK_ACCESS_2_MEMORY_READ_BIT)
		s |= PP_ACCESS_MEMORY_READ;
	if (a & VK_ACCESS_2_MEMORY_WRITE_BIT)
		s |= PP_ACCESS_MEMORY_WRITE;
	const VkAccessFlags2 known =
		VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT |
		VK_ACCESS_2_UNIFORM_READ_BIT | VK_ACCESS_2_INPUT_ATTACHMENT_READ_BIT | shader_read | shader_write |
		VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
		VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
		VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_READ_BIT |
		VK_ACCESS_2_HOST_WRITE_BIT | VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
	/* Accesses of extensions not modelled: counted as writes, so no read-only rule fires. */
	if (a & ~known)
		s |= PP_ACCESS_OTHER_WRITE;
	return s;
}

/* A render pass instance began: its render pass's dependencies, translated for the rules
 * (which flag them), and its debug name. out: PP_RP_MAX_DEPENDENCIES entries. Returns how many. */
uint32_t pp_vk_barriers_subpass_deps_of(struct pp_device *dev, uint64_t render_pass, struct pp_diag_subpass_dep *out,
				     char name[64])
{
	struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_RENDER_PASS, render_pass);
	if (!o || !o->u.render_pass.ndependencies)
		return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < o->u.render_pass.ndependencies && n < PP_RP_MAX_DEPENDENCIES; i++) {
		const struct pp_rp_dependency *v = &o->u.render_pass.dependencies[i];
		out[n++] = (struct pp_diag_subpass_dep){
			.index = v->index,
			.src_subpass = v->src_subpass == VK_SUBPASS_EXTERNAL ? PP_DIAG_SUBPASS_EXTERNAL : v->src_subpass,
			.dst_subpass = v->dst_subpass == VK_SUBPASS_EXTERNAL ? PP_DIAG_SUBPASS_EXTERNAL : v->dst_subpass,
			.src_stages = stages_of(v->src_stages),
			.dst_stages = stages_of(v->dst_stages),
			.src_access = access_of(v->src_access),
			.dst_access = access_of(v->dst_access),
			.dst_reads_other_samples = v->dst_multisampled_input,
		};
	}
	snprintf(name, 64, "%s", o->name);
	return n;
}

static bool format_is_depth(VkFormat f)
{
	return f >= VK_FORMAT_D16_UNORM && f <= VK_FORMAT_D32_SFLOAT_S8_UINT;
}

static uint32_t image_format_bucket(struct pp_device *dev, VkImage image)
{
	struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)image);
	return o ? pp_diag_barriers_format_bucket(pp_vk_profiling_format_name(o->u.image.format)) : 0;
}

static enum pp_diag_layout layout_of(struct pp_device *dev, VkImage image, VkImageLayout l)
{
	switch (l) {
	case VK_IMAGE_LAYOUT_UNDEFINED: return PP_LAYOUT_UNDEFINED;
	case VK_IMAGE_LAYOUT_GENERAL: return PP_LAYOUT_GENERAL;
	case VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL: return PP_LAYOUT_COLOR_ATTACHMENT;
	case VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL:
	case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL:
	case VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL:
	case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL:
	case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL: return PP_LAYOUT_DEPTH_ATTACHMENT;
	case VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL:
	case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL:
	case VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL: return PP_LAYOUT_DEPTH_READ_ONLY;
	case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL: return PP_LAYOUT_SHADER_READ;
	case VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL: return PP_LAYOUT_TRANSFER_SRC;
	case VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL: return PP_LAYOUT_TRANSFER_DST;
	case VK_IMAGE_LAYOUT_PRESENT_SRC_KHR:
	case VK_IMAGE_LAYOUT_SHARED_PRESENT_KHR: return PP_LAYOUT_PRESENT;
	case VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL:
	case VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL: {
		/* The generic layouts of synchronization2 mean what the image's format makes them. */
		struct pp_object *o = pp_layer_objects_lookup(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)image);
		bool depth = o && format_is_depth(o->u.image.format);
		if (l == VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL)
			return depth ? PP_LAYOUT_DEPTH_READ_ONLY : PP_LAYOUT_SHADER_READ;
		return depth ? PP_LAYOUT_DEPTH_ATTACHMENT : PP_LAYOUT_COLOR_ATTACHMENT;
	}
	default: return PP_LAYOUT_OTHER;
	}
}

static uint64_t label_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* "vkCmdPipelineBarrier called from app+0x1234, after pass 2 (render "gbuffer") (command
 * buffer 0x..., barrier #3)"; returns the site's code location key (0: not found), which
 * includes the debug label the barrier is under and whether it is inside a render pass: one
 * call in a loop over passes is one site, the same helper called for two labelled passes two. */
static uint64_t site_describe(char *buf, size_t len, struct pp_command_buffer *c, struct pp_vk_diag_cb *s,
			      const char *api, void *ra)
{
	const struct pp_recording *r = c->rec;
	/* The innermost debug label open in this recording names where we are. */
	const char *label = NULL;
	const char *stack[16];
	uint32_t depth = 0;
	for (uint32_t i = 0; i < r->nlabels; i++) {
		if (r->labels[i].op == PP_LABEL_PUSH) {
			if (depth < 16)
				stack[depth] = r->labels[i].name;
			depth++;
		} else if (r->labels[i].op == PP_LABEL_POP && depth) {
			depth--;
		}
	}
	if (depth && depth <= 16)
		label = stack[depth - 1];
	const struct pp_pass_rec *last = r->npasses ? &r->passes[r->npasses - 1] : NULL;
	bool inside = c->in_render_pass && last;
	const char *name = label ? label : last && last->object_name[0] ? last->object_name : NULL;
	static const char *const kinds[] = { "render", "compute", "transfer" };
	char where[128];
	uint64_t loc = pp_vk_blocking_call_site(ra, where, sizeof(where));
	if (!loc)
		snprintf(where, sizeof(where), "an unknown location");
	if (last)
		snprintf(buf, len, "%s called from %s, %s pass %u (%s%s%s%s) (command buffer 0x%llx, barrier #%u)", api,
			 where, inside ? "inside" : "after", r->npasses - 1, kinds[last->kind], name ? " \"" : "",
			 name ? name : "", name ? "\"" : "", (unsigned long long)c->handle, s->barrier_calls);
	else
		snprintf(buf, len, "%s called from %s, before any pass%s%s%s (command buffer 0x%llx, barrier #%u)", api,
			 where, name ? " in \"" : "", name ? name : "", name ? "\"" : "", (unsigned long long)c->handle,
			 s->barrier_calls);
	if (!loc)
		return 0;
	return (loc ^ label_hash(name) ^ (inside ? 0x51ull : 0)) | 1;
}

/* Barrier cost: a TOP_OF_PIPE timestamp on each side. The one after is held back by every
 * barrier whose second scope includes TOP_OF_PIPE (drains), so the difference is how long
 * the command stream stood at the barrier (docs/diagnostics.md). */
static int index_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static uint32_t cost_timestamp(struct pp_command_buffer *c, struct pp_vk_diag *vd, struct pp_vk_diag_cb *s)
{
	/* SIMULTANEOUS_USE: the recording's own slots are shared by its executions. */
	/* The fixed arm's frames are never measured for the normal figures. */
	if (!vd->cost || !s->cost_now || !c->timestamps || c->in_render_pass || !c->device->timer ||
	    c->simultaneous_use || c->rec->exp_arm == PP_EXP_ARM_FIXED)
		return PP_DIAG_NO_SLOT;
	const uint32_t *hit = bsearch(&s->barrier_calls, s->flagged, s->nflagged, sizeof(uint32_t), index_cmp);
	uint32_t stride = (s->nflagged + COST_PER_RECORDING - 1) / COST_PER_RECORDING;
	if (!hit || (uint32_t)(hit - s->flagged) % stride != s->cost_recordings % stride)
		return PP_DIAG_NO_SLOT;
	uint32_t slot = pp_vk_cmd_slot_take(c, PP_GPU_TIMESTAMP);
	if (slot == PP_NO_SLOT)
		return PP_DIAG_NO_SLOT;
	pp_gpu_vk_timer_write(c->device->timer, c->vk_cb, slot, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
	return slot;
}

struct barrier_scratch {
	struct pp_diag_barrier_res stack[BARRIER_STACK];
	struct pp_diag_barrier_res *res;
};

static struct pp_diag_barrier_res *scratch_get(struct barrier_scratch *s, uint32_t n)
{
	s->res = n <= BARRIER_STACK ? s->stack : calloc(n, sizeof(*s->res));
	return s->res;
}

static void scratch_put(struct barrier_scratch *s)
{
	if (s->res != s->stack)
		free(s->res);
}

/* site, loc: site_describe's. Returns the call's index in the rules' recording. */
static uint32_t barrier_record(struct pp_command_buffer *c, struct pp_vk_diag_cb *s, const char *api, uint32_t src,
			       uint32_t dst, bool by_region, uint32_t nres, const struct pp_diag_barrier_res *res,
			       uint32_t nevents, const VkEvent *events, uint32_t ts_before, uint32_t ts_after,
			       const char *site, uint64_t loc)
{
	uint64_t ev_stack[8], *ev = nevents <= 8 ? ev_stack : calloc(nevents, sizeof(*ev));
	if (!ev)
		nevents = 0;
	for (uint32_t i = 0; i < nevents; i++)
		ev[i] = (uint64_t)events[i];
	const struct pp_diag_barrier b = {
		.api = api,
		.src_stages = src,
		.dst_stages = dst,
		.by_region = by_region,
		.nres = nres,
		.res = res,
		.nevents = nevents,
		.events = ev,
		.site = site,
		.loc_key = loc,
		.untimed = !diag_of(c->device)->cost || !c->timestamps || !c->device->timer || c->simultaneous_use ||
			   c->level != VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.ts_before = ts_before,
		.ts_after = ts_after,
		.in_render_pass = c->in_render_pass,
		.sync2 = api[strlen(api) - 1] == '2', /* vkCmdPipelineBarrier2, vkCmdWaitEvents2 */
	};
	uint32_t bi = pp_diag_barriers_rec(diag_of(c->device)->dd, s->rec, &b);
	if (ev != ev_stack)
		free(ev);
	s->barrier_calls++;
	pp_vk_state_hooks_diag_bound_dirty(s);
	return bi;
}

static void barriers1_translate(struct pp_device *dev, struct pp_diag_barrier_res *out, uint32_t src, uint32_t dst,
				uint32_t nmem, const VkMemoryBarrier *mem, uint32_t nbuf, const VkBufferMemoryBarrier *buf,
				uint32_t nimg, const VkImageMemoryBarrier *img)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < nmem; i++)
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_GLOBAL, .src_stages = src, .dst_stages = dst,
			.src_access = access_of(mem[i].srcAccessMask), .dst_access = access_of(mem[i].dstAccessMask),
		};
	for (uint32_t i = 0; i < nbuf; i++)
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_BUFFER, .handle = (uint64_t)buf[i].buffer, .src_stages = src, .dst_stages = dst,
			.src_access = access_of(buf[i].srcAccessMask), .dst_access = access_of(buf[i].dstAccessMask),
			.queue_transfer = buf[i].srcQueueFamilyIndex != buf[i].dstQueueFamilyIndex,
			.range = pp_vk_diag_state_buffer_range(buf[i].offset, buf[i].size),
		};
	for (uint32_t i = 0; i < nimg; i++)
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_IMAGE, .handle = (uint64_t)img[i].image, .src_stages = src, .dst_stages = dst,
			.src_access = access_of(img[i].srcAccessMask), .dst_access = access_of(img[i].dstAccessMask),
			.old_layout = layout_of(dev, img[i].image, img[i].oldLayout),
			.new_layout = layout_of(dev, img[i].image, img[i].newLayout),
			.queue_transfer = img[i].srcQueueFamilyIndex != img[i].dstQueueFamilyIndex,
			.format_bucket = image_format_bucket(dev, img[i].image),
			.range = pp_vk_diag_state_image_range(dev, (uint64_t)img[i].image, &img[i].subresourceRange),
		};
}

/* Synchronization2: stages per barrier; the call's masks are their unions. */
static void barriers2_translate(struct pp_device *dev, struct pp_diag_barrier_res *out, const VkDependencyInfo *info,
				uint32_t *src, uint32_t *dst)
{
	uint32_t k = 0;
	*src = *dst = 0;
	for (uint32_t i = 0; i < info->memoryBarrierCount; i++) {
		const VkMemoryBarrier2 *m = &info->pMemoryBarriers[i];
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_GLOBAL, .src_stages = stages_of(m->srcStageMask), .dst_stages = stages_of(m->dstStageMask),
			.src_access = access_of(m->srcAccessMask), .dst_access = access_of(m->dstAccessMask),
		};
	}
	for (uint32_t i = 0; i < info->bufferMemoryBarrierCount; i++) {
		const VkBufferMemoryBarrier2 *b = &info->pBufferMemoryBarriers[i];
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_BUFFER, .handle = (uint64_t)b->buffer, .src_stages = stages_of(b->srcStageMask),
			.dst_stages = stages_of(b->dstStageMask), .src_access = access_of(b->srcAccessMask),
			.dst_access = access_of(b->dstAccessMask),
			.queue_transfer = b->srcQueueFamilyIndex != b->dstQueueFamilyIndex,
			.range = pp_vk_diag_state_buffer_range(b->offset, b->size),
		};
	}
	for (uint32_t i = 0; i < info->imageMemoryBarrierCount; i++) {
		const VkImageMemoryBarrier2 *b = &info->pImageMemoryBarriers[i];
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_IMAGE, .handle = (uint64_t)b->image, .src_stages = stages_of(b->srcStageMask),
			.dst_stages = stages_of(b->dstStageMask), .src_access = access_of(b->srcAccessMask),
			.dst_access = access_of(b->dstAccessMask),
			.old_layout = layout_of(dev, b->image, b->oldLayout),
			.new_layout = layout_of(dev, b->image, b->newLayout),
			.queue_transfer = b->srcQueueFamilyIndex != b->dstQueueFamilyIndex,
			.format_bucket = image_format_bucket(dev, b->image),
			.range = pp_vk_diag_state_image_range(dev, (uint64_t)b->image, &b->subresourceRange),
		};
	}
	for (uint32_t i = 0; i < k; i++) {
		*src |= out[i].src_stages;
		*dst |= out[i].dst_stages;
	}
}

static uint32_t dependency_count(const VkDependencyInfo *info)
{
	return info->memoryBarrierCount + info->bufferMemoryBarrierCount + info->imageMemoryBarrierCount;
}

/* ---- barriers and events ---------------------------------------------------------------------- */

/* The four barrier hooks have one shape. barrier_pre, before the call down: the work since
 * the last hook is observed (it comes before the barrier), the recording's barrier count
 * grows, and a flagged barrier gets its first cost timestamp (vkCmdWaitEvents* are not
 * timed). barrier_post, after it: the second timestamp, then the call's barriers, translated
 * once into the rules' vocabulary, go to the rules. */
static struct pp_vk_diag_cb *barrier_pre(struct pp_command_buffer *c, bool timed, uint32_t *ts0)
{
	struct pp_vk_diag_cb *s = vk_diag_state_cb(c);
	*ts0 = PP_DIAG_NO_SLOT;
	if (s) {
		pp_vk_diag_state_observe(c, s);
		if (timed)
			*ts0 = cost_timestamp(c, diag_of(c->device), s);
	}
	c->rec->cur->barriers++;
	return s;
}

/* The call's barriers in the rules' vocabulary (sc->res, *n of them) and its masks (for
 * vkCmdPipelineBarrier2 the unions of its barriers'). false: out of memory. */
static bool barrier_translate(struct pp_command_buffer *c, const struct barrier_call *a, struct barrier_scratch *sc,
			      uint32_t *n, uint32_t *src, uint32_t *dst)
{
	*n = 0;
	if (a->sync2)
		for (uint32_t i = 0; i < a->ninfo; i++)
			*n += dependency_count(&a->info[i]);
	else
		*n = a->nmem + a->nbuf + a->nimg;
	if (!scratch_get(sc, *n ? *n : 1))
		return false;
	*src = *dst = 0;
	if (a->sync2) {
		for (uint32_t i = 0, k = 0; i < a->ninfo; i++) {
			uint32_t s1, d1;
			barriers2_translate(c->device, sc->res + k, &a->info[i], &s1, &d1);
			k += dependency_count(&a->info[i]);
			*src |= s1;
			*dst |= d1;
		}
	} else {
		*src = stages_of(a->src);
		*dst = stages_of(a->dst);
		barriers1_translate(c->device, sc->res, *src, *dst, a->nmem, a->mem, a->nbuf, a->buf, a->nimg, a->img);
	}
	return true;
}

/* What the rules have seen of the recording now includes this barrier. */
static void barrier_seen(struct pp_command_buffer *c, struct pp_vk_diag_cb *s)
{
	s->seen_stray.barriers = c->rec->stray.barriers;
	if (s->pass_seen != NONE && s->pass_seen < c->rec->npasses)
		s->seen_pass.barriers = c->rec->passes[s->pass_seen].work.barriers;
}

static void barrier_post(struct pp_command_buffer *c, struct pp_vk_diag_cb *s, uint32_t ts0,
			 const struct barrier_call *a)
{
	uint32_t ts1 = PP_DIAG_NO_SLOT;
	if (ts0 != PP_DIAG_NO_SLOT)
		ts1 = cost_timestamp(c, diag_of(c->device), s);
	struct barrier_scratch sc;
	uint32_t n, src, dst;
	if (!barrier_translate(c, a, &sc, &n, &src, &dst))
		return;
	char site[192];
	uint64_t loc = site_describe(site, sizeof(site), c, s, a->api, a->ra);
	barrier_record(c, s, a->api, src, dst, a->by_region, n, sc.res, a->nevents, a->events, ts0, ts1, site, loc);
	scratch_put(&sc);
	barrier_seen(c, s);
}

/* ---- the experiment: a pipeline barrier call of a recording of one of its arms ------------ */

/* Says what the call is for the experiment, marks it for the pass after it, and makes the
 * fix of the block's site where the call is that site's (docs/diagnostics.md, "Experiment
 * mode"). The rules always see the call as the application made it. Returns false when the
 * caller is to go on as without the experiment (diagnostics state missing). */
static bool exp_barrier(struct pp_command_buffer *c, const struct barrier_call *a)
{
	struct pp_vk_diag_cb *s = vk_diag_state_cb(c);
	struct pp_vk_diag *vd = diag_of(c->device);
	if (!s || !vd) {
		pp_vk_experiment_flush(c);
		return false;
	}
	struct barrier_scratch sc;
	uint32_t n, src, dst;
	if (!barrier_translate(c, a, &sc, &n, &src, &dst)) {
		pp_vk_experiment_flush(c);
		return false;
	}
	char site[192];
	uint64_t loc = site_describe(site, sizeof(site), c, s, a->api, a->ra);
	struct pp_diag_exp_call call;
	pp_diag_experiment_call(vd->dd, c->rec->exp_arm, loc, src, dst, &call);
	if (c->in_render_pass)
		call.apply = false, call.hold_site = PP_DIAG_EXP_NONE;
	bool merging = c->exp_held && call.apply && call.kind == PP_DIAG_EXP_MERGE && pp_vk_experiment_held_site(c) == call.site;
	bool rewrite = call.apply || call.hold_site != PP_DIAG_EXP_NONE;
	if (!merging)
		pp_vk_experiment_flush(c);
	uint32_t ts0, ts1 = PP_DIAG_NO_SLOT;
	barrier_pre(c, !rewrite, &ts0);
	bool fixed = false, emitted = false;
	uint32_t bi = NONE;
	if (rewrite) {
		/* The rules' verdict on this very call decides the rewrite: record it first. */
		bi = barrier_record(c, s, a->api, src, dst, a->by_region, n, sc.res, 0, NULL, PP_DIAG_NO_SLOT,
				    PP_DIAG_NO_SLOT, site, loc);
		const char *why = NULL;
		if (merging) {
			fixed = pp_diag_experiment_rec_barrier_merge(s->rec, bi) == call.merge && pp_vk_experiment_merge(c, a, call.merge, &why);
			if (!fixed)
				pp_vk_experiment_flush(c);
		} else if (call.hold_site != PP_DIAG_EXP_NONE) {
			emitted = !(why = pp_vk_experiment_hold(c, a, call.hold_site));
		} else if (call.kind == PP_DIAG_EXP_DROP) {
			fixed = pp_diag_experiment_rec_barrier_reads_only(s->rec, bi);
		} else if (call.kind == PP_DIAG_EXP_NARROW_DST) {
			fixed = !(why = pp_vk_experiment_narrow(c, a, call.dst_stages));
		}
		if (why)
			pp_diag_experiment_refuse(vd->dd, call.hold_site != PP_DIAG_EXP_NONE ? call.hold_site : call.site, why);
		if (fixed)
			pp_diag_experiment_rec_barrier_fixed(s->rec, bi);
		if (!fixed && !emitted)
			pp_vk_experiment_emit(c, a);
	} else {
		pp_vk_experiment_emit(c, a);
		if (ts0 != PP_DIAG_NO_SLOT)
			ts1 = cost_timestamp(c, vd, s);
		barrier_record(c, s, a->api, src, dst, a->by_region, n, sc.res, 0, NULL, ts0, ts1, site, loc);
	}
	scratch_put(&sc);
	barrier_seen(c, s);
	if (call.site != PP_DIAG_EXP_NONE && call.site < PP_EXP_MAX_SITES) {
		c->rec->exp_seen |= 1ull << call.site;
		if (fixed)
			c->rec->exp_fixed |= 1ull << call.site;
	}
	return true;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
						 VkPipelineStageFlags dst, VkDependencyFlags deps, uint32_t nmem,
						 const VkMemoryBarrier *mem, uint32_t nbuf,
						 const VkBufferMemoryBarrier *buf, uint32_t nimg,
						 const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdPipelineBarrier(cb, src, dst, deps, nmem, mem, nbuf, buf, nimg, img);
		return;
	}
	const struct barrier_call a = { .api = "vkCmdPipelineBarrier", .ra = __builtin_return_address(0),
					.by_region = deps & VK_DEPENDENCY_BY_REGION_BIT, .deps = deps, .src = src,
					.dst = dst, .nmem = nmem, .mem = mem, .nbuf = nbuf, .buf = buf, .nimg = nimg,
					.img = img };
	if ((c->rec->exp_arm || c->exp_held) && exp_barrier(c, &a))
		return;
	uint32_t ts0;
	struct pp_vk_diag_cb *s = barrier_pre(c, true, &ts0);
	c->device->vk.CmdPipelineBarrier(cb, src, dst, deps, nmem, mem, nbuf, buf, nimg, img);
	if (s)
		barrier_post(c, s, ts0, &a);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdPipelineBarrier2(cb, info);
		return;
	}
	const struct barrier_call a = { .api = "vkCmdPipelineBarrier2", .ra = __builtin_return_address(0),
					.by_region = info->dependencyFlags & VK_DEPENDENCY_BY_REGION_BIT,
					.deps = info->dependencyFlags, .sync2 = true, .ninfo = 1, .info = info };
	if ((c->rec->exp_arm || c->exp_held) && exp_barrier(c, &a))
		return;
	uint32_t ts0;
	struct pp_vk_diag_cb *s = barrier_pre(c, true, &ts0);
	c->device->vk.CmdPipelineBarrier2(cb, info);
	if (s)
		barrier_post(c, s, ts0, &a);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					    VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t nmem,
					    const VkMemoryBarrier *mem, uint32_t nbuf, const VkBufferMemoryBarrier *buf,
					    uint32_t nimg, const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdWaitEvents(cb, nev, ev, src, dst, nmem, mem, nbuf, buf, nimg, img);
		return;
	}
	pp_vk_experiment_flush(c);
	uint32_t ts0;
	struct pp_vk_diag_cb *s = barrier_pre(c, false, &ts0);
	c->device->vk.CmdWaitEvents(cb, nev, ev, src, dst, nmem, mem, nbuf, buf, nimg, img);
	if (s)
		barrier_post(c, s, ts0,
			     &(struct barrier_call){ .api = "vkCmdWaitEvents", .ra = __builtin_return_address(0),
						     .nevents = nev, .events = ev, .src = src, .dst = dst,
						     .nmem = nmem, .mem = mem, .nbuf = nbuf, .buf = buf, .nimg = nimg,
						     .img = img });
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents2(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					     const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdWaitEvents2(cb, nev, ev, info);
		return;
	}
	pp_vk_experiment_flush(c);
	uint32_t ts0;
	struct pp_vk_diag_cb *s = barrier_pre(c, false, &ts0);
	c->device->vk.CmdWaitEvents2(cb, nev, ev, info);
	if (s)
		barrier_post(c, s, ts0,
			     &(struct barrier_call){ .api = "vkCmdWaitEvents2", .ra = __builtin_return_address(0),
						     .nevents = nev, .events = ev, .sync2 = true, .ninfo = nev, .info = info });
}

/* Before vkCmdSetEvent[2]: a barrier held back for the experiment is recorded first, and the
 * diagnostics' recording notes the event set at this point. */
static struct pp_command_buffer *event_set(VkCommandBuffer cb, VkEvent event)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		pp_vk_experiment_flush(c);
	struct pp_vk_diag_cb *s = c ? vk_diag_state_cb(c) : NULL;
	if (s) {
		pp_vk_diag_state_observe(c, s);
		pp_diag_barriers_rec_event_set(s->rec, (uint64_t)event);
	}
	return c;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdSetEvent(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags stage)
{
	pp_vk_cb_device(event_set(cb, event), cb)->vk.CmdSetEvent(cb, event, stage);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdSetEvent2(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo *info)
{
	pp_vk_cb_device(event_set(cb, event), cb)->vk.CmdSetEvent2(cb, event, info);
}


/* vkCmdResetEvent[2] are hooked so that a barrier held back for the experiment is recorded
 * before them. */
VKAPI_ATTR void VKAPI_CALL pp_CmdResetEvent(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags stage)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		pp_vk_experiment_flush(c);
	pp_vk_cb_device(c, cb)->vk.CmdResetEvent(cb, event, stage);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdResetEvent2(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags2 stage)
{
	struct pp_command_buffer *c = pp_layer_objects_command_buffer_get(cb);
	if (c)
		pp_vk_experiment_flush(c);
	pp_vk_cb_device(c, cb)->vk.CmdResetEvent2(cb, event, stage);
}
