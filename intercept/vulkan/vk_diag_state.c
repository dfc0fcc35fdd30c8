/* The Vulkan side of the diagnostics (docs/diagnostics.md): per-device and
 * per-command-buffer state, and what a recording did between two hooks of these files (the
 * work read from the recording's workload counters, the resources bound then); the bind and
 * query hooks that feed it are in vk_state_hooks.c.
 *
 * Hot path: draws stay in vk_cmd.c, untouched. What draws, dispatches and copies did is read
 * from the recording's workload counters at the next hook of these files (a bind, a barrier, a
 * submit), and the resources bound then are registered as used once per barrier window, not
 * once per draw. */
#include "pp_diag_outputs.h"
#include "vk_diag_internal.h"

static bool diag_enabled(void)
{
	return pp_layer_registry_settings.diagnostics;
}


static void vk_diag_free(struct pp_vk_diag *vd)
{
	struct dset *s, *stmp;
	HASH_ITER(hh, vd->sets, s, stmp) {
		HASH_DEL(vd->sets, s);
		free(s->b);
		free(s->slots);
		free(s);
	}
	for (struct pp_vk_diag_cb *c = vd->cbs, *next; c; c = next) {
		next = c->next;
		pp_diag_barriers_rec_destroy(c->rec);
		free(c->flagged);
		free(c);
	}
	pp_spare_free(&vd->spare);
	pp_diag_device_destroy(vd->dd);
	pthread_rwlock_destroy(&vd->lock);
	pthread_mutex_destroy(&vd->cbs_lock);
	pthread_mutex_destroy(&vd->reads_lock);
	free(vd);
}

struct pp_vk_diag *pp_vk_diag_state_get(struct pp_device *dev)
{
	struct pp_vk_diag *vd = __atomic_load_n(&dev->diag, __ATOMIC_ACQUIRE);
	if (vd || !diag_enabled() || !dev->attr)
		return vd;
	vd = calloc(1, sizeof(*vd));
	if (!vd) {
		pp_log_once(PP_LOG_ERROR, "out of memory setting up diagnostics; they are off for this device");
		return NULL;
	}
	const struct pp_diag_config cfg = {
		.sink_device_id = pp_attr_sink_device_find(dev->props.deviceName, dev->props.vendorID, dev->props.deviceID),
		.frame_delimiter = (int)pp_layer_registry_settings.frame_delimiter,
		.barrier_cost = pp_layer_registry_settings.barrier_cost && dev->timer,
		.experiment = pp_layer_registry_settings.experiment != PP_EXPERIMENT_OFF,
	};
	vd->dd = pp_diag_outputs_device_create(cfg);
	if (!vd->dd) {
		free(vd);
		return NULL;
	}
	vd->cost = cfg.barrier_cost;
	pthread_rwlock_init(&vd->lock, NULL);
	pthread_mutex_init(&vd->cbs_lock, NULL);
	pthread_mutex_init(&vd->reads_lock, NULL);
	struct pp_vk_diag *expected = NULL;
	if (!__atomic_compare_exchange_n(&dev->diag, &expected, vd, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another thread was first. */
		pp_diag_device_destroy(vd->dd);
		pthread_rwlock_destroy(&vd->lock);
		pthread_mutex_destroy(&vd->cbs_lock);
		pthread_mutex_destroy(&vd->reads_lock);
		free(vd);
		return expected;
	}
	return vd;
}

/* vkDestroyDevice, after its command buffers' states went (pp_vk_diag_state_cb_release). Findings
 * stay: the site table is process-wide. */
void pp_vk_diag_state_device_destroy(struct pp_device *dev)
{
	struct pp_vk_diag *vd = __atomic_exchange_n(&dev->diag, NULL, __ATOMIC_ACQ_REL);
	if (vd)
		vk_diag_free(vd);
}

struct pp_diag_device *pp_vk_diag_state_device(struct pp_device *dev)
{
	struct pp_vk_diag *vd = pp_vk_diag_state_get(dev);
	return vd ? vd->dd : NULL;
}

/* A command buffer is destroyed (freed alone, with its pool, or with its device): its state
 * leaves the device's list under the list lock, so no other thread walks into freed memory. */
void pp_vk_diag_state_cb_release(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_vk_diag_cb *s = c->diag;
	struct pp_vk_diag *vd = __atomic_load_n(&dev->diag, __ATOMIC_ACQUIRE);
	if (!s)
		return;
	c->diag = NULL;
	if (vd) {
		pthread_mutex_lock(&vd->cbs_lock);
		for (struct pp_vk_diag_cb **p = &vd->cbs; *p; p = &(*p)->next)
			if (*p == s) {
				*p = s->next;
				vd->ncbs--;
				break;
			}
		pthread_mutex_unlock(&vd->cbs_lock);
	}
	pp_diag_barriers_rec_destroy(s->rec);
	free(s->flagged);
	free(s);
}

void pp_vk_diag_state_cursor_reset(struct pp_vk_diag_cb *s)
{
	s->npasses_seen = 0;
	s->pass_seen = NONE;
	memset(&s->seen_pass, 0, sizeof(s->seen_pass));
	memset(&s->seen_stray, 0, sizeof(s->seen_stray));
	for (size_t i = 0; i < sizeof(s->bp) / sizeof(s->bp[0]); i++)
		memset(&s->bp[i], 0, BIND_POINT_HEAD);
	memset(s->vb, 0, sizeof(s->vb));
	memset(s->vb_offset, 0, sizeof(s->vb_offset));
	s->vb_bound = 0;
	s->ib = 0;
	s->ib_offset = 0;
	s->vb_dirty = false;
	s->vb_stamp = 0;
	s->npending = 0;
	s->pending_draw_stages = 0;
	s->ser_draws = s->ser_dispatches = 0;
	s->ser_n = 0;
	s->barrier_calls = 0;
	s->submitted = false;
	s->last_subs = 0;
}

static inline __attribute__((always_inline)) void work_of(struct cursor_work *w, const struct pp_workload *wl,
							  uint32_t secondaries)
{
	w->draws = pp_attr_record_workload_draws(wl);
	w->indirect = wl->draws_indirect + wl->draws_indirect_count;
	w->dispatches = pp_attr_record_workload_dispatches(wl);
	w->dispatches_indirect = wl->dispatches_indirect;
	w->transfers = wl->copies;
	w->clears = wl->clears;
	w->barriers = wl->barriers;
	w->secondaries = secondaries;
}

/* vk_diag_state_cb's (vk_diag_internal.h) first call of a recording: the state made, or
 * started over for the new recording. */
struct pp_vk_diag_cb *pp_vk_diag_state_cb_slow(struct pp_command_buffer *c)
{
	if (c->level != VK_COMMAND_BUFFER_LEVEL_PRIMARY || !diag_enabled())
		return NULL;
	struct pp_vk_diag_cb *s = c->diag;
	if (!s) {
		struct pp_vk_diag *vd = pp_vk_diag_state_get(c->device);
		if (!vd)
			return NULL;
		s = calloc(1, sizeof(*s));
		if (s && !(s->rec = pp_diag_barriers_rec_create())) {
			free(s);
			s = NULL;
		}
		if (!s) {
			pp_log_once(PP_LOG_ERROR, "out of memory: some command buffers are not diagnosed");
			return NULL;
		}
		s->owner = c;
		s->handle = c->handle;
		s->recording = c->recording;
		pp_vk_diag_state_cursor_reset(s);
		pthread_mutex_lock(&vd->cbs_lock);
		s->next = vd->cbs;
		vd->cbs = s;
		vd->ncbs++;
		c->diag = s;
		pthread_mutex_unlock(&vd->cbs_lock);
		return s;
	}
	/* A new recording (every one begins with vkBeginCommandBuffer): the rules start over. A
	 * bind is where this is checked, so it is a compare, not a look at the recording. */
	bool reset = s->recording != c->recording;
	if (reset) {
		s->recording = c->recording;
		pp_diag_barriers_rec_reset(s->rec);
		pp_vk_diag_state_cursor_reset(s);
		s->gen++;
		/* Sampled: timestamps cost GPU time (a lot on some drivers, e.g. lavapipe). */
		s->cost_now = s->nflagged && diag_of(c->device)->cost &&
			      (s->cost_recordings < COST_FIRST || pp_diag_device_frame(diag_of(c->device)->dd) % COST_PERIOD == 0);
		s->cost_recordings += s->cost_now;
	}
	return s;
}

/* ---- what later commands use ---------------------------------------------------------------- */

/* ---- ranges ----------------------------------------------------------------------------- */

struct pp_diag_range pp_vk_diag_state_buffer_range(VkDeviceSize offset, VkDeviceSize size)
{
	return (struct pp_diag_range){
		.set = true, .begin = offset,
		.end = size == VK_WHOLE_SIZE || size > PP_DIAG_RANGE_END - offset ? PP_DIAG_RANGE_END : offset + size,
	};
}

/* VK_REMAINING_* reach to the end of the image, whatever its size. A color aspect covers the
 * planes of a multi-planar image; the layers of a 3D image (depth slices through 2D array
 * views) are not told apart. */
struct pp_diag_range pp_vk_diag_state_image_range_locked(struct pp_device *dev, uint64_t image,
					       const VkImageSubresourceRange *sr)
{
	const VkImageAspectFlags planes =
		VK_IMAGE_ASPECT_PLANE_0_BIT | VK_IMAGE_ASPECT_PLANE_1_BIT | VK_IMAGE_ASPECT_PLANE_2_BIT;
	struct pp_diag_range rg = {
		.set = true,
		.aspects = sr->aspectMask & VK_IMAGE_ASPECT_COLOR_BIT ? sr->aspectMask | planes : sr->aspectMask,
		.begin = sr->baseMipLevel,
		.end = sr->levelCount == VK_REMAINING_MIP_LEVELS ? PP_DIAG_RANGE_END
								 : (uint64_t)sr->baseMipLevel + sr->levelCount,
		.layer_begin = sr->baseArrayLayer,
		.layer_end = sr->layerCount == VK_REMAINING_ARRAY_LAYERS || sr->baseArrayLayer + sr->layerCount < sr->baseArrayLayer
				     ? UINT32_MAX : sr->baseArrayLayer + sr->layerCount,
	};
	if (rg.aspects & planes)
		rg.aspects |= VK_IMAGE_ASPECT_COLOR_BIT;
	struct pp_object *o = pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_IMAGE, image);
	if (!o || o->u.image.extent.depth > 1) {
		rg.layer_begin = 0;
		rg.layer_end = UINT32_MAX;
	}
	return rg;
}

struct pp_diag_range pp_vk_diag_state_image_range(struct pp_device *dev, uint64_t image, const VkImageSubresourceRange *sr)
{
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_diag_range rg = pp_vk_diag_state_image_range_locked(dev, image, sr);
	pthread_rwlock_unlock(&dev->lock);
	return rg;
}

static void observed_init(struct vk_diag_observed *o, struct pp_diag_rec *rec)
{
	o->rec = rec;
	o->uses = o->uses_stack;
	o->cap_uses = sizeof(o->uses_stack) / sizeof(o->uses_stack[0]);
	o->rps = o->rps_stack;
	o->cap_rps = sizeof(o->rps_stack) / sizeof(o->rps_stack[0]);
	o->deps = o->deps_stack;
	o->cap_deps = PP_RP_MAX_DEPENDENCIES;
	o->formats = o->formats_stack;
	o->cap_formats = sizeof(o->formats_stack) / sizeof(o->formats_stack[0]);
	o->atts = o->atts_stack;
	o->cap_atts = sizeof(o->atts_stack) / sizeof(o->atts_stack[0]);
	o->natts = 0;
	o->atts_unnamed = false;
	o->nuses = o->nrps = o->ndeps = o->nformats = 0;
	o->formats_lost = false;
	o->reset = false;
	o->work = o->draw_stages = o->unknown = o->attachment_formats = 0;
}

/* What is held, as the rules take it; final: with the work (else it is still being collected). */
static void observed_view(const struct vk_diag_observed *o, bool final, struct pp_diag_observed *b)
{
	*b = (struct pp_diag_observed){
		.reset = o->reset,
		.nrender_passes = o->nrps, .render_passes = o->rps, .deps = o->deps,
		.nuses = o->nuses, .uses = o->uses,
		.nattachments = o->natts, .attachments = o->atts, .attachments_unnamed = o->atts_unnamed,
	};
	if (final && o->work) {
		b->work = o->work;
		b->draw_stages = o->draw_stages;
		b->unknown_stages = o->unknown;
		b->attachment_formats = o->formats_lost ? UINT32_MAX : o->attachment_formats;
		b->nformat_names = o->nformats;
		b->format_names = o->formats;
	}
}

void pp_vk_diag_state_observed_view(const struct vk_diag_observed *o, struct pp_diag_observed *b)
{
	observed_view(o, true, b);
}

/* Where the buffers cannot grow: what is held goes to the rules now, in order, and is emptied
 * (the work comes with the rest). */
static void observed_flush_early(struct vk_diag_observed *o)
{
	struct pp_diag_observed b;
	observed_view(o, false, &b);
	if (o->reset || o->nrps || o->nuses || o->natts || o->atts_unnamed)
		pp_diag_barriers_rec_observed(o->rec, &b);
	o->nuses = o->nrps = o->ndeps = o->natts = 0;
	o->reset = o->atts_unnamed = false;
}

void pp_vk_diag_state_observed_free(struct vk_diag_observed *o)
{
	if (o->uses != o->uses_stack)
		free(o->uses);
	if (o->rps != o->rps_stack)
		free(o->rps);
	if (o->deps != o->deps_stack)
		free(o->deps);
	if (o->formats != o->formats_stack)
		free(o->formats);
	if (o->atts != o->atts_stack)
		free(o->atts);
}

/* observed_room's growth, past the stack arrays (rare: more than 32 uses, 16 attachment formats
 * or 2 render passes between two hooks). */
static bool observed_grow(void **arr, const void *stack, uint32_t *cap, uint32_t n, uint32_t more, size_t size)
{
	uint32_t cap2 = *cap * 2 > n + more ? *cap * 2 : n + more;
	void *p = *arr == stack ? malloc(cap2 * size) : realloc(*arr, cap2 * size);
	if (!p)
		return false;
	if (*arr == stack)
		memcpy(p, stack, n * size);
	*arr = p;
	*cap = cap2;
	return true;
}

/* Room for `more` elements of size `size` in *arr (which starts at `stack`). */
static inline bool observed_room(void **arr, const void *stack, uint32_t *cap, uint32_t n, uint32_t more, size_t size)
{
	return n + more <= *cap || observed_grow(arr, stack, cap, n, more, size);
}

static void observed_format(struct vk_diag_observed *o, const char *name)
{
	if (observed_room((void **)&o->formats, o->formats_stack, &o->cap_formats, o->nformats, 1, sizeof(*o->formats)))
		o->formats[o->nformats++] = name;
	else
		o->formats_lost = true;
}

static void observed_use(struct vk_diag_observed *o, enum pp_diag_res_kind kind, uint64_t handle,
			 const struct pp_diag_range *range, uint32_t stages, bool write)
{
	if (!observed_room((void **)&o->uses, o->uses_stack, &o->cap_uses, o->nuses, 1, sizeof(*o->uses)))
		observed_flush_early(o);
	o->uses[o->nuses++] = (struct pp_diag_use){ kind, handle, *range, stages, write };
}

/* The experiment: the images a render pass writes as attachments, where known (their views'
 * subresources). */
static void observed_attachments(struct vk_diag_observed *o, struct pp_device *dev, const struct pp_pass_rec *p)
{
	if (pp_layer_registry_settings.experiment == PP_EXPERIMENT_OFF)
		return;
	if (!p->nattachments || p->nattachments == PP_MAX_ATTACHMENTS) {
		o->atts_unnamed = true;
		return;
	}
	for (uint32_t a = 0; a < p->nattachments; a++) {
		uint64_t image = 0;
		VkImageSubresourceRange sr = { 0 };
		pthread_rwlock_rdlock(&dev->lock);
		struct pp_object *v = p->attachments[a].view
					      ? pp_layer_objects_find_locked(dev, VK_OBJECT_TYPE_IMAGE_VIEW, p->attachments[a].view)
					      : NULL;
		if (v) {
			image = v->u.image_view.image;
			sr = v->u.image_view.range;
		}
		pthread_rwlock_unlock(&dev->lock);
		if (!image ||
		    !observed_room((void **)&o->atts, o->atts_stack, &o->cap_atts, o->natts, 1, sizeof(*o->atts))) {
			o->atts_unnamed = true;
			continue;
		}
		o->atts[o->natts++] = (struct pp_diag_use){
			.kind = PP_RES_IMAGE, .handle = image, .write = true,
			.range = pp_vk_diag_state_image_range(dev, image, &sr),
			.stages = p->attachments[a].depth_stencil ? PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS
								  : PP_STAGE_COLOR_OUTPUT,
		};
	}
}

static void observed_render_pass(struct vk_diag_observed *o, struct pp_device *dev, uint64_t render_pass)
{
	if (!observed_room((void **)&o->rps, o->rps_stack, &o->cap_rps, o->nrps, 1, sizeof(*o->rps)) ||
	    !observed_room((void **)&o->deps, o->deps_stack, &o->cap_deps, o->ndeps, PP_RP_MAX_DEPENDENCIES,
			   sizeof(*o->deps)))
		observed_flush_early(o);
	struct pp_diag_render_pass_begun *b = &o->rps[o->nrps];
	b->render_pass = render_pass;
	b->first_dep = o->ndeps;
	b->ndeps = pp_vk_barriers_subpass_deps_of(dev, render_pass, o->deps + o->ndeps, b->name);
	if (b->ndeps) {
		o->ndeps += b->ndeps;
		o->nrps++;
	}
}

/* The uses of one descriptor set by work of stages pstages. Caller holds the sets' lock.
 * Returns the stages whose descriptors passprobe cannot see. */
static uint32_t set_register_locked(struct pp_vk_diag *vd, uint64_t handle, uint32_t pstages,
				    struct vk_diag_observed *obs)
{
	struct dset *set;
	HASH_FIND(hh, vd->sets, &handle, sizeof(uint64_t), set);
	if (!set)
		return pstages;
	uint32_t unknown = 0;
	for (uint32_t k = 0; k < set->nbindings; k++) {
		const struct pp_dsl_binding *bd = &set->b[k];
		uint32_t st = bd->stages & pstages;
		if (!st)
			continue;
		if (set->unknown) {
			unknown |= st;
			continue;
		}
		for (uint32_t e = 0; e < bd->count && bd->base + e < set->total; e++) {
			const struct dslot *sl = &set->slots[bd->base + e];
			if (sl->handle)
				observed_use(obs, bd->kind, sl->handle, &sl->range, st, bd->write);
		}
	}
	return unknown;
}

/* The uses of one bind point's descriptor sets. */
static uint32_t bound_sets_register(struct pp_vk_diag *vd, const struct bind_point *b, uint32_t pstages,
				    struct vk_diag_observed *obs)
{
	uint32_t unknown = 0;
	pthread_rwlock_rdlock(&vd->lock);
	for (uint32_t bits = b->sets_bound; bits; bits &= bits - 1)
		unknown |= set_register_locked(vd, b->sets[__builtin_ctz(bits)], pstages, obs);
	pthread_rwlock_unlock(&vd->lock);
	return unknown;
}

/* What replaced bound state held for the rules (pending) registers: the uses of its sets and
 * buffers. Returns the stages whose descriptors passprobe cannot see. */
static uint32_t pending_register(struct pp_vk_diag *vd, struct pp_vk_diag_cb *s, struct vk_diag_observed *obs)
{
	uint32_t unknown = 0;
	bool locked = false;
	for (uint32_t i = 0; i < s->npending; i++) {
		const struct pending_bound *e = &s->pending[i];
		if (e->what == PENDING_BUFFER) {
			struct pp_diag_range rg = pp_vk_diag_state_buffer_range(e->offset, VK_WHOLE_SIZE);
			observed_use(obs, PP_RES_BUFFER, e->handle, &rg, PP_STAGE_VERTEX_INPUT, false);
			continue;
		}
		if (!locked) {
			pthread_rwlock_rdlock(&vd->lock);
			locked = true;
		}
		unknown |= set_register_locked(vd, e->handle, e->stages, obs);
	}
	if (locked)
		pthread_rwlock_unlock(&vd->lock);
	s->npending = 0;
	return unknown;
}

/* Registers what the bound state of one bind point makes the work after it use. Returns the
 * stages whose descriptors passprobe cannot see. */
static uint32_t bound_register(struct pp_device *dev, struct pp_vk_diag *vd, struct pp_vk_diag_cb *s, int bpi,
			       struct vk_diag_observed *obs)
{
	struct bind_point *b = &s->bp[bpi];
	uint32_t pstages = vk_diag_bound_stages(b, bpi);
	uint32_t unknown = b->sets_overflow ? pstages : 0;
	/* Nothing bound: no set to look up, no lock to take. */
	if (b->sets_bound)
		unknown |= bound_sets_register(vd, b, pstages, obs);
	for (uint32_t i = 0; i < b->npush; i++) {
		uint32_t st = b->push[i].stages & pstages;
		if (st)
			observed_use(obs, b->push[i].kind, b->push[i].handle, &b->push[i].range, st, b->push[i].write);
	}
	if (b->push_unknown)
		unknown |= b->push_unknown_stages & pstages;
	(void)dev;
	return unknown;
}

static inline __attribute__((always_inline)) void delta_add(struct cursor_work *acc, const struct cursor_work *now,
							    const struct cursor_work *seen)
{
	acc->draws += now->draws - seen->draws;
	acc->indirect += now->indirect - seen->indirect;
	acc->dispatches += now->dispatches - seen->dispatches;
	acc->dispatches_indirect += now->dispatches_indirect - seen->dispatches_indirect;
	acc->transfers += now->transfers - seen->transfers;
	acc->clears += now->clears - seen->clears;
	acc->secondaries += now->secondaries - seen->secondaries;
}

static inline __attribute__((always_inline)) void work_add(struct cursor_work *acc, const struct cursor_work *now)
{
	acc->draws += now->draws;
	acc->indirect += now->indirect;
	acc->dispatches += now->dispatches;
	acc->dispatches_indirect += now->dispatches_indirect;
	acc->transfers += now->transfers;
	acc->clears += now->clears;
	acc->secondaries += now->secondaries;
}


/* Reads what the recording did since the previous hook of this file, translated into *out:
 * render passes begun, anonymous work, and the bound resources the draws and dispatches used
 * (pp_vk_diag_state_observed_view: for the rules; then pp_vk_diag_state_observed_free). */
void pp_vk_diag_state_collect(struct pp_command_buffer *c, struct pp_vk_diag_cb *s, struct vk_diag_observed *out)
{
	observed_init(out, s->rec);
	out->reset = s->rec_anew;
	s->rec_anew = false;
	struct pp_recording *r = c->rec;
	struct cursor_work d = { 0 }, now;
	uint32_t work = 0, formats = 0;
	bool render_clears = false;
	uint64_t serial_draws = vk_diag_serial_bp(s, r, BP_GRAPHICS), serial_dispatches = vk_diag_serial_bp(s, r, BP_COMPUTE);

	if (s->pass_seen != NONE && s->pass_seen < r->npasses) {
		const struct pp_pass_rec *p = &r->passes[s->pass_seen];
		work_of(&now, &p->work, p->secondaries);
		if (p->kind == PP_PASS_RENDER && now.clears != s->seen_pass.clears) {
			render_clears = true;
			observed_attachments(out, c->device, p);
		}
		delta_add(&d, &now, &s->seen_pass);
	}
	work_of(&now, &r->stray, 0);
	delta_add(&d, &now, &s->seen_stray);
	s->seen_stray = now;
	for (uint32_t i = s->npasses_seen; i < r->npasses; i++) {
		const struct pp_pass_rec *p = &r->passes[i];
		work_of(&now, &p->work, p->secondaries);
		if (p->kind == PP_PASS_RENDER && p->render_pass && !(p->flags & PP_PASS_NO_SUBPASS_DEPS))
			observed_render_pass(out, c->device, p->render_pass);
		if (p->kind == PP_PASS_RENDER) {
			observed_attachments(out, c->device, p);
			for (uint32_t a = 0; a < p->nattachments; a++) {
				work |= p->attachments[a].depth_stencil ? PP_WORK_DEPTH_ATTACHMENT : PP_WORK_COLOR_ATTACHMENT;
				observed_format(out, p->attachments[a].format);
			}
			if (!p->nattachments || p->nattachments == PP_MAX_ATTACHMENTS) {
				work |= PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT;
				formats = UINT32_MAX; /* not described (or not all): any image may be one */
			}
			if (now.clears)
				render_clears = true;
		}
		if (p->flags & PP_PASS_EXECUTE)
			work |= PP_WORK_UNKNOWN;
		work_add(&d, &now);
	}
	s->npasses_seen = r->npasses;
	if (r->cur != &r->stray && r->open < r->npasses) {
		s->pass_seen = r->open;
		work_of(&s->seen_pass, &r->passes[r->open].work, r->passes[r->open].secondaries);
	} else {
		s->pass_seen = NONE;
	}

	if (d.draws)
		work |= PP_WORK_DRAW;
	if (d.indirect || d.dispatches_indirect)
		work |= PP_WORK_INDIRECT;
	if (d.dispatches)
		work |= PP_WORK_DISPATCH;
	if (d.transfers || (d.clears && !render_clears))
		work |= PP_WORK_TRANSFER;
	if (d.clears && render_clears)
		work |= PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT;
	if (d.secondaries)
		work |= PP_WORK_UNKNOWN;
	if (!work)
		return;

	struct pp_vk_diag *vd = diag_of(c->device);
	uint32_t unknown = 0, draw_stages = 0;
	/* What the binds since the last hook replaced after work used it (bound_replace), then what
	 * is bound now where work used it since it was bound. */
	unknown |= pending_register(vd, s, out);
	if (d.draws) {
		draw_stages = s->pending_draw_stages;
		if (serial_draws != s->bp[BP_GRAPHICS].pipeline_stamp || !draw_stages)
			draw_stages |= vk_diag_bound_stages(&s->bp[BP_GRAPHICS], BP_GRAPHICS) | PP_STAGE_VERTEX_INPUT;
		if (s->bp[BP_GRAPHICS].dirty && serial_draws != s->bp[BP_GRAPHICS].stamp) {
			unknown |= bound_register(c->device, vd, s, BP_GRAPHICS, out);
			s->bp[BP_GRAPHICS].dirty = false;
		}
		if (s->vb_dirty && serial_draws != s->vb_stamp) {
			/* From the bound offset to the end: what a draw fetches is not known here. */
			for (uint32_t bits = s->vb_bound; bits; bits &= bits - 1) {
				unsigned i = (unsigned)__builtin_ctz(bits);
				struct pp_diag_range rg = pp_vk_diag_state_buffer_range(s->vb_offset[i], VK_WHOLE_SIZE);
				observed_use(out, PP_RES_BUFFER, s->vb[i], &rg, PP_STAGE_VERTEX_INPUT, false);
			}
			if (s->ib) {
				struct pp_diag_range rg = pp_vk_diag_state_buffer_range(s->ib_offset, VK_WHOLE_SIZE);
				observed_use(out, PP_RES_BUFFER, s->ib, &rg, PP_STAGE_VERTEX_INPUT, false);
			}
			s->vb_dirty = false;
		}
	}
	if (d.dispatches && s->bp[BP_COMPUTE].dirty && serial_dispatches != s->bp[BP_COMPUTE].stamp) {
		unknown |= bound_register(c->device, vd, s, BP_COMPUTE, out);
		s->bp[BP_COMPUTE].dirty = false;
	}
	/* Everything up to here is with the rules: work from now on counts anew. */
	s->pending_draw_stages = 0;
	s->bp[BP_GRAPHICS].stamp = s->bp[BP_GRAPHICS].pipeline_stamp = s->vb_stamp = serial_draws;
	s->bp[BP_COMPUTE].stamp = serial_dispatches;
	if (unknown)
		work |= PP_WORK_UNKNOWN_DESCRIPTORS;
	if (render_clears)
		formats = UINT32_MAX;
	out->work = work;
	out->draw_stages = draw_stages;
	out->unknown = unknown;
	out->attachment_formats = formats;
}

/* The same, told to the rules at once (a hook while recording). */
void pp_vk_diag_state_observe(struct pp_command_buffer *c, struct pp_vk_diag_cb *s)
{
	struct vk_diag_observed obs;
	pp_vk_diag_state_collect(c, s, &obs);
	struct pp_diag_observed b;
	pp_vk_diag_state_observed_view(&obs, &b);
	if (b.reset || b.nrender_passes || b.nuses || b.work)
		pp_diag_barriers_rec_observed(obs.rec, &b);
	pp_vk_diag_state_observed_free(&obs);
}
