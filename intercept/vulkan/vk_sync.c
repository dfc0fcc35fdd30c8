/* Synchronization hooks and the Vulkan side of the diagnostics (tracker issue 5;
 * docs/diagnostics.md): pipeline barriers and events, the descriptor set / bind state the
 * barrier analysis needs to know which resources later commands use, and delivery of
 * findings at submit and present. The objects it reads (set and pipeline layouts, pipelines,
 * buffer and image views, images, render passes) are in the device's object table
 * (layer_objects.c). The rules are API-neutral (attribution/diag/); this
 * file translates Vulkan into them. Blocking waits: vk_blocking.c.
 *
 * Hot path: draws stay in vk_cmd.c, untouched. What draws, dispatches and copies did is read
 * from the recording's workload counters at the next hook of this file (a bind, a barrier, a
 * submit), and the resources bound then are registered as used once per barrier window, not
 * once per draw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_log.h"
#include "pp_sink.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

#define NONE UINT32_MAX
#define MAX_BOUND_SETS 8
#define MAX_VERTEX_BUFFERS 32
#define MAX_PUSH 16
#define MAX_READS 4096
#define MAX_QUEUES 16
/* barrier_cost: flagged barriers are timed in the first COST_FIRST recordings of a command
 * buffer after they were flagged, then in one frame of COST_PERIOD. */
#define COST_FIRST 4
#define COST_PERIOD 8
#define COST_MAX_FLAGGED 1024
/* At most this many barriers of one recording are timed; the others in later samples. */
#define COST_PER_RECORDING 32
#define BARRIER_STACK 32

enum { BP_GRAPHICS = 0, BP_COMPUTE = 1 };

/* ---- device state: descriptor sets ----------------------------------------------------------- */

/* Descriptor set layouts, pipeline layouts, pipelines and buffer views are in the device's
 * object table (layer_objects.c). Descriptor sets stay here, under vd->lock: unlike those
 * objects they change after creation (every vkUpdateDescriptorSets writes them), may be
 * allocated every frame and are freed with their pool (vkResetDescriptorPool walks them all),
 * and are read at every bound-state registration. In the device table each update
 * and pool reset would take the device lock for writing, against every command buffer, queue
 * and object lookup of other threads, and a pool reset would walk every object. A set keeps
 * a copy of its layout's bindings, and its descriptors' resources resolved at the write, so
 * it never looks at another object afterwards. */

struct dslot {
	uint64_t handle;
	struct pp_diag_range range; /* the view's subresources, the descriptor's bytes */
};

struct dset {
	uint64_t handle;
	UT_hash_handle hh;
	uint64_t pool;
	uint32_t nbindings, total;
	bool unknown; /* contents not known (templates, partial layout) */
	struct pp_dsl_binding *b;
	struct dslot *slots;
};

/* A timestamp pair to read once the GPU wrote it (never waiting), guarded against the
 * recording having been reset or re-submitted since. */
enum read_kind { READ_COST, READ_IDLE };
/* A timestamp read waiting for the GPU. It names its command buffer only to be forgotten when
 * that recording's slots are reset or freed (pp_vk_diag_recording_forget, on the thread that
 * owns the command buffer): other threads never look at the command buffer itself. */
struct pending_read {
	enum read_kind kind;
	uint64_t key, frame;
	uint64_t cb;
	uint32_t slot0, slot1;
	uint32_t anchor;  /* the recording's first pass begin, read along (see reads_poll), or PP_NO_SLOT */
	uint64_t base_ns; /* READ_IDLE: when the GPU went idle */
};

struct pp_vk_diag {
	struct pp_diag_device *dd;
	pthread_rwlock_t lock; /* the descriptor sets; taken before dev->lock, never after */
	struct dset *sets;

	pthread_mutex_t cbs_lock;
	struct pp_vk_diag_cb *cbs;
	uint32_t ncbs;

	pthread_mutex_t reads_lock;
	struct pending_read reads[MAX_READS];
	uint32_t nreads;
	/* GPU idle after a blocking wait: the end of the last submitted pass, and a wait that
	 * waits for the next submission's first pass to begin. */
	uint64_t last_cb; /* the last submission's last timed command buffer; 0 once forgotten */
	uint32_t last_end_slot, last_first_slot;
	bool idle_armed;
	uint64_t idle_key, idle_frame, idle_begin_ns;
	bool cost;
};

/* ---- command buffer state ------------------------------------------------------------------ */

struct cursor_work {
	uint64_t draws, indirect, dispatches, dispatches_indirect, transfers, clears, barriers;
	uint32_t secondaries;
};

struct bind_point {
	uint64_t pipeline;
	uint32_t stages;
	uint64_t sets[MAX_BOUND_SETS];
	bool sets_overflow;
	uint32_t npush;
	struct {
		uint64_t handle;
		struct pp_diag_range range;
		enum pp_diag_res_kind kind;
		uint32_t stages;
		bool write;
	} push[MAX_PUSH];
	bool push_unknown;
	uint32_t push_unknown_stages;
	bool dirty;
};

struct pp_vk_diag_cb {
	struct pp_vk_diag_cb *next;
	struct pp_command_buffer *owner;
	uint64_t handle;
	struct pp_diag_rec *rec;
	uint32_t gen;
	bool submitted;
	uint32_t last_subs;   /* the command buffer's submission count when it was last submitted */
	uint32_t barrier_calls;
	/* barrier_cost: the barriers flagged in the last closed recording (call indices, sorted),
	 * whether this recording times them, and how many recordings did */
	uint32_t *flagged;
	uint32_t nflagged;
	bool cost_now;
	uint32_t cost_recordings;
	/* what of the lead's recording has been seen */
	uint32_t npasses_seen, pass_seen;
	struct cursor_work seen_pass, seen_stray;
	/* bound state */
	struct bind_point bp[2];
	uint64_t vb[MAX_VERTEX_BUFFERS];
	VkDeviceSize vb_offset[MAX_VERTEX_BUFFERS];
	uint64_t ib;
	VkDeviceSize ib_offset;
	bool vb_dirty;
};

static bool diag_enabled(void)
{
	return pp_layer_settings.diagnostics;
}

/* The device's diagnostics state: created once by whichever thread needs it first. */
static inline struct pp_vk_diag *diag_of(struct pp_device *dev)
{
	return __atomic_load_n(&dev->diag, __ATOMIC_ACQUIRE);
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
		pp_diag_rec_destroy(c->rec);
		free(c->flagged);
		free(c);
	}
	pp_diag_device_destroy(vd->dd);
	pthread_rwlock_destroy(&vd->lock);
	pthread_mutex_destroy(&vd->cbs_lock);
	pthread_mutex_destroy(&vd->reads_lock);
	free(vd);
}

static struct pp_vk_diag *vk_diag_get(struct pp_device *dev)
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
		.sink_device_id = pp_sink_device_find(dev->props.deviceName, dev->props.vendorID, dev->props.deviceID),
		.frame_delimiter = (int)pp_layer_settings.frame_delimiter,
		.barrier_cost = pp_layer_settings.barrier_cost && dev->timer,
	};
	vd->dd = pp_diag_device_create(&cfg);
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

/* vkDestroyDevice, after its command buffers' states went (pp_vk_diag_cb_release). Findings
 * stay: the site table is process-wide. */
void pp_vk_diag_device_destroy(struct pp_device *dev)
{
	struct pp_vk_diag *vd = __atomic_exchange_n(&dev->diag, NULL, __ATOMIC_ACQ_REL);
	if (vd)
		vk_diag_free(vd);
}

struct pp_diag_device *pp_vk_diag_device(struct pp_device *dev)
{
	struct pp_vk_diag *vd = vk_diag_get(dev);
	return vd ? vd->dd : NULL;
}

/* A command buffer is destroyed (freed alone, with its pool, or with its device): its state
 * leaves the device's list under the list lock, so no other thread walks into freed memory. */
void pp_vk_diag_cb_release(struct pp_device *dev, struct pp_command_buffer *c)
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
	pp_diag_rec_destroy(s->rec);
	free(s->flagged);
	free(s);
}

static void cursor_reset(struct pp_vk_diag_cb *s)
{
	s->npasses_seen = 0;
	s->pass_seen = NONE;
	memset(&s->seen_pass, 0, sizeof(s->seen_pass));
	memset(&s->seen_stray, 0, sizeof(s->seen_stray));
	memset(s->bp, 0, sizeof(s->bp));
	memset(s->vb, 0, sizeof(s->vb));
	memset(s->vb_offset, 0, sizeof(s->vb_offset));
	s->ib = 0;
	s->ib_offset = 0;
	s->vb_dirty = false;
	s->barrier_calls = 0;
	s->submitted = false;
	s->last_subs = 0;
}

static void work_of(struct cursor_work *w, const struct pp_workload *wl, uint32_t secondaries)
{
	w->draws = wl->draws + wl->draws_indexed + wl->draws_indirect + wl->draws_indirect_count;
	w->indirect = wl->draws_indirect + wl->draws_indirect_count;
	w->dispatches = wl->dispatches + wl->dispatches_indirect;
	w->dispatches_indirect = wl->dispatches_indirect;
	w->transfers = wl->copies;
	w->clears = wl->clears;
	w->barriers = wl->barriers;
	w->secondaries = secondaries;
}

/* The command buffer's diagnostics state for the recording in progress; NULL when the
 * diagnostics are off or it is a secondary (judged where it is executed: not followed). */
static struct pp_vk_diag_cb *diag_cb(struct pp_command_buffer *c)
{
	if (c->level != VK_COMMAND_BUFFER_LEVEL_PRIMARY || !diag_enabled())
		return NULL;
	struct pp_vk_diag_cb *s = c->diag;
	if (!s) {
		struct pp_vk_diag *vd = vk_diag_get(c->device);
		if (!vd)
			return NULL;
		s = calloc(1, sizeof(*s));
		if (s && !(s->rec = pp_diag_rec_create())) {
			free(s);
			s = NULL;
		}
		if (!s) {
			pp_log_once(PP_LOG_ERROR, "out of memory: some command buffers are not diagnosed");
			return NULL;
		}
		s->owner = c;
		s->handle = c->handle;
		cursor_reset(s);
		pthread_mutex_lock(&vd->cbs_lock);
		s->next = vd->cbs;
		vd->cbs = s;
		vd->ncbs++;
		c->diag = s;
		pthread_mutex_unlock(&vd->cbs_lock);
		return s;
	}
	/* A new recording: nothing can be recorded into a submitted command buffer before it is
	 * begun again, and a re-begun one restarts the lead's counters. */
	struct pp_recording *r = c->rec;
	bool reset = s->submitted || r->npasses < s->npasses_seen;
	if (!reset) {
		struct cursor_work stray;
		work_of(&stray, &r->stray, 0);
		reset = stray.draws < s->seen_stray.draws || stray.transfers < s->seen_stray.transfers ||
			stray.dispatches < s->seen_stray.dispatches || stray.barriers < s->seen_stray.barriers;
		if (!reset && s->pass_seen != NONE && s->pass_seen < r->npasses) {
			struct cursor_work p;
			work_of(&p, &r->passes[s->pass_seen].work, r->passes[s->pass_seen].secondaries);
			reset = p.barriers < s->seen_pass.barriers || p.draws < s->seen_pass.draws;
		}
	}
	if (reset) {
		pp_diag_rec_reset(s->rec);
		cursor_reset(s);
		s->gen++;
		/* Sampled: timestamps cost GPU time (a lot on some drivers, e.g. lavapipe). */
		s->cost_now = s->nflagged && diag_of(c->device)->cost &&
			      (s->cost_recordings < COST_FIRST || pp_diag_frame(diag_of(c->device)->dd) % COST_PERIOD == 0);
		s->cost_recordings += s->cost_now;
	}
	return s;
}

/* ---- what later commands use ---------------------------------------------------------------- */

/* ---- ranges ----------------------------------------------------------------------------- */

static struct pp_diag_range buffer_range(VkDeviceSize offset, VkDeviceSize size)
{
	return (struct pp_diag_range){
		.set = true, .begin = offset,
		.end = size == VK_WHOLE_SIZE || size > PP_DIAG_RANGE_END - offset ? PP_DIAG_RANGE_END : offset + size,
	};
}

/* VK_REMAINING_* reach to the end of the image, whatever its size. A color aspect covers the
 * planes of a multi-planar image; the layers of a 3D image (depth slices through 2D array
 * views) are not told apart. */
static struct pp_diag_range image_range_locked(struct pp_device *dev, uint64_t image,
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
	struct pp_object *o = pp_object_find_locked(dev, VK_OBJECT_TYPE_IMAGE, image);
	if (!o || o->u.image.extent.depth > 1) {
		rg.layer_begin = 0;
		rg.layer_end = UINT32_MAX;
	}
	return rg;
}

static struct pp_diag_range image_range(struct pp_device *dev, uint64_t image, const VkImageSubresourceRange *sr)
{
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_diag_range rg = image_range_locked(dev, image, sr);
	pthread_rwlock_unlock(&dev->lock);
	return rg;
}

/* Registers what the bound state of one bind point makes the work after it use. Returns the
 * stages whose descriptors passprobe cannot see. */
static uint32_t bound_register(struct pp_device *dev, struct pp_vk_diag *vd, struct pp_vk_diag_cb *s, int bpi)
{
	struct bind_point *b = &s->bp[bpi];
	uint32_t pstages = b->stages;
	if (!pstages)
		pstages = bpi == BP_GRAPHICS ? PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER : PP_STAGE_COMPUTE;
	uint32_t unknown = b->sets_overflow ? pstages : 0;
	pthread_rwlock_rdlock(&vd->lock);
	for (uint32_t i = 0; i < MAX_BOUND_SETS; i++) {
		if (!b->sets[i])
			continue;
		struct dset *set;
		HASH_FIND(hh, vd->sets, &b->sets[i], sizeof(uint64_t), set);
		if (!set) {
			unknown |= pstages;
			continue;
		}
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
					pp_diag_rec_use_range(s->rec, bd->kind, sl->handle, &sl->range, st, bd->write);
			}
		}
	}
	pthread_rwlock_unlock(&vd->lock);
	for (uint32_t i = 0; i < b->npush; i++) {
		uint32_t st = b->push[i].stages & pstages;
		if (st)
			pp_diag_rec_use_range(s->rec, b->push[i].kind, b->push[i].handle, &b->push[i].range, st,
					      b->push[i].write);
	}
	if (b->push_unknown)
		unknown |= b->push_unknown_stages & pstages;
	(void)dev;
	return unknown;
}

static void delta_add(struct cursor_work *acc, const struct cursor_work *now, const struct cursor_work *seen)
{
	acc->draws += now->draws - seen->draws;
	acc->indirect += now->indirect - seen->indirect;
	acc->dispatches += now->dispatches - seen->dispatches;
	acc->dispatches_indirect += now->dispatches_indirect - seen->dispatches_indirect;
	acc->transfers += now->transfers - seen->transfers;
	acc->clears += now->clears - seen->clears;
	acc->secondaries += now->secondaries - seen->secondaries;
}

static void subpass_deps_register(struct pp_device *dev, struct pp_vk_diag_cb *s, uint64_t render_pass);

/* Reads what the recording did since the previous hook of this file and tells the rules:
 * anonymous work, and the bound resources the draws and dispatches used. */
static void observe(struct pp_command_buffer *c, struct pp_vk_diag_cb *s)
{
	struct pp_recording *r = c->rec;
	struct cursor_work d = { 0 }, now, zero = { 0 };
	uint32_t work = 0, formats = 0;
	bool render_clears = false;

	if (s->pass_seen != NONE && s->pass_seen < r->npasses) {
		const struct pp_pass_rec *p = &r->passes[s->pass_seen];
		work_of(&now, &p->work, p->secondaries);
		struct cursor_work one = { 0 };
		delta_add(&one, &now, &s->seen_pass);
		if (p->kind == PP_PASS_RENDER && one.clears)
			render_clears = true;
		delta_add(&d, &one, &zero);
	}
	work_of(&now, &r->stray, 0);
	delta_add(&d, &now, &s->seen_stray);
	s->seen_stray = now;
	for (uint32_t i = s->npasses_seen; i < r->npasses; i++) {
		const struct pp_pass_rec *p = &r->passes[i];
		work_of(&now, &p->work, p->secondaries);
		if (p->kind == PP_PASS_RENDER && p->render_pass)
			subpass_deps_register(c->device, s, p->render_pass);
		if (p->kind == PP_PASS_RENDER) {
			for (uint32_t a = 0; a < p->nattachments; a++) {
				work |= p->attachments[a].depth_stencil ? PP_WORK_DEPTH_ATTACHMENT : PP_WORK_COLOR_ATTACHMENT;
				formats |= pp_diag_format_bucket(p->attachments[a].format);
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
		delta_add(&d, &now, &zero);
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
	if (d.draws) {
		draw_stages = s->bp[BP_GRAPHICS].stages ? s->bp[BP_GRAPHICS].stages
							 : PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER;
		draw_stages |= PP_STAGE_VERTEX_INPUT;
		if (s->bp[BP_GRAPHICS].dirty) {
			unknown |= bound_register(c->device, vd, s, BP_GRAPHICS);
			s->bp[BP_GRAPHICS].dirty = false;
		}
		if (s->vb_dirty) {
			/* From the bound offset to the end: what a draw fetches is not known here. */
			for (uint32_t i = 0; i < MAX_VERTEX_BUFFERS; i++)
				if (s->vb[i]) {
					struct pp_diag_range rg = buffer_range(s->vb_offset[i], VK_WHOLE_SIZE);
					pp_diag_rec_use_range(s->rec, PP_RES_BUFFER, s->vb[i], &rg, PP_STAGE_VERTEX_INPUT, false);
				}
			if (s->ib) {
				struct pp_diag_range rg = buffer_range(s->ib_offset, VK_WHOLE_SIZE);
				pp_diag_rec_use_range(s->rec, PP_RES_BUFFER, s->ib, &rg, PP_STAGE_VERTEX_INPUT, false);
			}
			s->vb_dirty = false;
		}
	}
	if (d.dispatches && s->bp[BP_COMPUTE].dirty) {
		unknown |= bound_register(c->device, vd, s, BP_COMPUTE);
		s->bp[BP_COMPUTE].dirty = false;
	}
	if (unknown)
		work |= PP_WORK_UNKNOWN_DESCRIPTORS;
	if (render_clears)
		formats = UINT32_MAX;
	pp_diag_rec_work(s->rec, work, draw_stages, unknown, formats);
}

/* After a barrier, whatever is bound is used again by the work that follows. */
static void bound_dirty(struct pp_vk_diag_cb *s)
{
	s->bp[BP_GRAPHICS].dirty = s->bp[BP_COMPUTE].dirty = true;
	s->vb_dirty = true;
}

/* ---- Vulkan to the neutral model ------------------------------------------------------------ */

static uint32_t stages_of(VkPipelineStageFlags2 f)
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

/* A render pass instance began: the dependencies of its render pass that the subpass rule
 * flags go with the recording, counted at each of its submissions. */
static void subpass_deps_register(struct pp_device *dev, struct pp_vk_diag_cb *s, uint64_t render_pass)
{
	struct pp_object *o = pp_object_lookup(dev, VK_OBJECT_TYPE_RENDER_PASS, render_pass);
	if (!o || !o->u.render_pass.ndependencies)
		return;
	struct pp_diag_subpass_dep flagged[PP_RP_MAX_DEPENDENCIES];
	uint32_t n = 0;
	for (uint32_t i = 0; i < o->u.render_pass.ndependencies && n < PP_RP_MAX_DEPENDENCIES; i++) {
		const struct pp_rp_dependency *v = &o->u.render_pass.dependencies[i];
		const struct pp_diag_subpass_dep d = {
			.index = v->index,
			.src_subpass = v->src_subpass == VK_SUBPASS_EXTERNAL ? PP_DIAG_SUBPASS_EXTERNAL : v->src_subpass,
			.dst_subpass = v->dst_subpass == VK_SUBPASS_EXTERNAL ? PP_DIAG_SUBPASS_EXTERNAL : v->dst_subpass,
			.src_stages = stages_of(v->src_stages),
			.dst_stages = stages_of(v->dst_stages),
			.src_access = access_of(v->src_access),
			.dst_access = access_of(v->dst_access),
			.dst_reads_other_samples = v->dst_multisampled_input,
		};
		if (pp_diag_subpass_dep_not_by_region(&d))
			flagged[n++] = d;
	}
	if (n)
		pp_diag_rec_render_pass(s->rec, render_pass, o->name[0] ? o->name : NULL, n, flagged);
}

static bool format_is_depth(VkFormat f)
{
	return f >= VK_FORMAT_D16_UNORM && f <= VK_FORMAT_D32_SFLOAT_S8_UINT;
}

static uint32_t image_format_bucket(struct pp_device *dev, VkImage image)
{
	struct pp_object *o = pp_object_lookup(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)image);
	return o ? pp_diag_format_bucket(pp_vk_format_name(o->u.image.format)) : 0;
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
		struct pp_object *o = pp_object_lookup(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)image);
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
	uint64_t loc = pp_vk_call_site(ra, where, sizeof(where));
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
	if (!vd->cost || !s->cost_now || !c->timestamps || c->in_render_pass || !c->device->timer ||
	    c->simultaneous_use)
		return PP_DIAG_NO_SLOT;
	const uint32_t *hit = bsearch(&s->barrier_calls, s->flagged, s->nflagged, sizeof(uint32_t), index_cmp);
	uint32_t stride = (s->nflagged + COST_PER_RECORDING - 1) / COST_PER_RECORDING;
	if (!hit || (uint32_t)(hit - s->flagged) % stride != s->cost_recordings % stride)
		return PP_DIAG_NO_SLOT;
	uint32_t slot = pp_vk_slot_take(c, PP_GPU_TIMESTAMP);
	if (slot == PP_NO_SLOT)
		return PP_DIAG_NO_SLOT;
	pp_gpu_timer_write(c->device->timer, c->vk_cb, slot, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
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

static void barrier_record(struct pp_command_buffer *c, struct pp_vk_diag_cb *s, const char *api, uint32_t src,
			   uint32_t dst, bool by_region, uint32_t nres, const struct pp_diag_barrier_res *res,
			   uint32_t nevents, const VkEvent *events, uint32_t ts_before, uint32_t ts_after, void *ra)
{
	char site[192];
	uint64_t loc = site_describe(site, sizeof(site), c, s, api, ra);
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
	pp_diag_rec_barrier(diag_of(c->device)->dd, s->rec, &b);
	if (ev != ev_stack)
		free(ev);
	s->barrier_calls++;
	bound_dirty(s);
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
			.range = buffer_range(buf[i].offset, buf[i].size),
		};
	for (uint32_t i = 0; i < nimg; i++)
		out[k++] = (struct pp_diag_barrier_res){
			.kind = PP_RES_IMAGE, .handle = (uint64_t)img[i].image, .src_stages = src, .dst_stages = dst,
			.src_access = access_of(img[i].srcAccessMask), .dst_access = access_of(img[i].dstAccessMask),
			.old_layout = layout_of(dev, img[i].image, img[i].oldLayout),
			.new_layout = layout_of(dev, img[i].image, img[i].newLayout),
			.queue_transfer = img[i].srcQueueFamilyIndex != img[i].dstQueueFamilyIndex,
			.format_bucket = image_format_bucket(dev, img[i].image),
			.range = image_range(dev, (uint64_t)img[i].image, &img[i].subresourceRange),
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
			.range = buffer_range(b->offset, b->size),
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
			.range = image_range(dev, (uint64_t)b->image, &b->subresourceRange),
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

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
						 VkPipelineStageFlags dst, VkDependencyFlags deps, uint32_t nmem,
						 const VkMemoryBarrier *mem, uint32_t nbuf,
						 const VkBufferMemoryBarrier *buf, uint32_t nimg,
						 const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdPipelineBarrier(cb, src, dst, deps, nmem, mem, nbuf, buf, nimg, img);
		return;
	}
	struct pp_vk_diag_cb *s = diag_cb(c);
	uint32_t ts0 = PP_DIAG_NO_SLOT, ts1 = PP_DIAG_NO_SLOT;
	if (s) {
		observe(c, s);
		ts0 = cost_timestamp(c, diag_of(c->device), s);
	}
	c->rec->cur->barriers++;
	c->device->vk.CmdPipelineBarrier(cb, src, dst, deps, nmem, mem, nbuf, buf, nimg, img);
	if (!s)
		return;
	if (ts0 != PP_DIAG_NO_SLOT)
		ts1 = cost_timestamp(c, diag_of(c->device), s);
	struct barrier_scratch sc;
	uint32_t n = nmem + nbuf + nimg;
	if (!scratch_get(&sc, n ? n : 1))
		return;
	barriers1_translate(c->device, sc.res, stages_of(src), stages_of(dst), nmem, mem, nbuf, buf, nimg, img);
	barrier_record(c, s, "vkCmdPipelineBarrier", stages_of(src), stages_of(dst), deps & VK_DEPENDENCY_BY_REGION_BIT,
		       n, sc.res, 0, NULL, ts0, ts1, __builtin_return_address(0));
	scratch_put(&sc);
	s->seen_stray.barriers = c->rec->stray.barriers;
	if (s->pass_seen != NONE && s->pass_seen < c->rec->npasses)
		s->seen_pass.barriers = c->rec->passes[s->pass_seen].work.barriers;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdPipelineBarrier2(cb, info);
		return;
	}
	struct pp_vk_diag_cb *s = diag_cb(c);
	uint32_t ts0 = PP_DIAG_NO_SLOT, ts1 = PP_DIAG_NO_SLOT;
	if (s) {
		observe(c, s);
		ts0 = cost_timestamp(c, diag_of(c->device), s);
	}
	c->rec->cur->barriers++;
	c->device->vk.CmdPipelineBarrier2(cb, info);
	if (!s)
		return;
	if (ts0 != PP_DIAG_NO_SLOT)
		ts1 = cost_timestamp(c, diag_of(c->device), s);
	struct barrier_scratch sc;
	uint32_t n = dependency_count(info), src, dst;
	if (!scratch_get(&sc, n ? n : 1))
		return;
	barriers2_translate(c->device, sc.res, info, &src, &dst);
	barrier_record(c, s, "vkCmdPipelineBarrier2", src, dst, info->dependencyFlags & VK_DEPENDENCY_BY_REGION_BIT, n,
		       sc.res, 0, NULL, ts0, ts1, __builtin_return_address(0));
	scratch_put(&sc);
	s->seen_stray.barriers = c->rec->stray.barriers;
	if (s->pass_seen != NONE && s->pass_seen < c->rec->npasses)
		s->seen_pass.barriers = c->rec->passes[s->pass_seen].work.barriers;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					    VkPipelineStageFlags src, VkPipelineStageFlags dst, uint32_t nmem,
					    const VkMemoryBarrier *mem, uint32_t nbuf, const VkBufferMemoryBarrier *buf,
					    uint32_t nimg, const VkImageMemoryBarrier *img)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdWaitEvents(cb, nev, ev, src, dst, nmem, mem, nbuf, buf, nimg, img);
		return;
	}
	struct pp_vk_diag_cb *s = diag_cb(c);
	if (s)
		observe(c, s);
	c->rec->cur->barriers++;
	c->device->vk.CmdWaitEvents(cb, nev, ev, src, dst, nmem, mem, nbuf, buf, nimg, img);
	if (!s)
		return;
	struct barrier_scratch sc;
	uint32_t n = nmem + nbuf + nimg;
	if (!scratch_get(&sc, n ? n : 1))
		return;
	barriers1_translate(c->device, sc.res, stages_of(src), stages_of(dst), nmem, mem, nbuf, buf, nimg, img);
	barrier_record(c, s, "vkCmdWaitEvents", stages_of(src), stages_of(dst), false, n, sc.res, nev, ev,
		       PP_DIAG_NO_SLOT, PP_DIAG_NO_SLOT, __builtin_return_address(0));
	scratch_put(&sc);
	s->seen_stray.barriers = c->rec->stray.barriers;
	if (s->pass_seen != NONE && s->pass_seen < c->rec->npasses)
		s->seen_pass.barriers = c->rec->passes[s->pass_seen].work.barriers;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWaitEvents2(VkCommandBuffer cb, uint32_t nev, const VkEvent *ev,
					     const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (!c) {
		pp_vk_device_of(cb)->vk.CmdWaitEvents2(cb, nev, ev, info);
		return;
	}
	struct pp_vk_diag_cb *s = diag_cb(c);
	if (s)
		observe(c, s);
	c->rec->cur->barriers++;
	c->device->vk.CmdWaitEvents2(cb, nev, ev, info);
	if (!s)
		return;
	/* One dependency info per event; analysed as one call. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < nev; i++)
		n += dependency_count(&info[i]);
	struct barrier_scratch sc;
	if (!scratch_get(&sc, n ? n : 1))
		return;
	uint32_t src = 0, dst = 0, k = 0;
	for (uint32_t i = 0; i < nev; i++) {
		uint32_t s1, d1;
		barriers2_translate(c->device, sc.res + k, &info[i], &s1, &d1);
		k += dependency_count(&info[i]);
		src |= s1;
		dst |= d1;
	}
	barrier_record(c, s, "vkCmdWaitEvents2", src, dst, false, n, sc.res, nev, ev, PP_DIAG_NO_SLOT,
		       PP_DIAG_NO_SLOT, __builtin_return_address(0));
	scratch_put(&sc);
	s->seen_stray.barriers = c->rec->stray.barriers;
	if (s->pass_seen != NONE && s->pass_seen < c->rec->npasses)
		s->seen_pass.barriers = c->rec->passes[s->pass_seen].work.barriers;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdSetEvent(VkCommandBuffer cb, VkEvent event, VkPipelineStageFlags stage)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s) {
		observe(c, s);
		pp_diag_rec_event_set(s->rec, (uint64_t)event);
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdSetEvent(cb, event, stage);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdSetEvent2(VkCommandBuffer cb, VkEvent event, const VkDependencyInfo *info)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s) {
		observe(c, s);
		pp_diag_rec_event_set(s->rec, (uint64_t)event);
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdSetEvent2(cb, event, info);
}

/* ---- binds --------------------------------------------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL pp_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline pipeline)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s && (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE)) {
		observe(c, s);
		struct bind_point *b = &s->bp[bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? BP_GRAPHICS : BP_COMPUTE];
		if (b->pipeline != (uint64_t)pipeline) {
			struct pp_device *dev = c->device;
			uint64_t h = (uint64_t)pipeline;
			pthread_rwlock_rdlock(&dev->lock);
			struct pp_object *p = pp_object_find_locked(dev, VK_OBJECT_TYPE_PIPELINE, h);
			b->stages = p ? p->u.pipeline.stages : 0;
			pthread_rwlock_unlock(&dev->lock);
			b->pipeline = h;
			b->dirty = true;
		}
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdBindPipeline(cb, bp, pipeline);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout layout,
						    uint32_t first, uint32_t n, const VkDescriptorSet *sets,
						    uint32_t ndyn, const uint32_t *dyn)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s && (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE)) {
		observe(c, s);
		struct bind_point *b = &s->bp[bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? BP_GRAPHICS : BP_COMPUTE];
		for (uint32_t i = 0; i < n; i++) {
			if (first + i < MAX_BOUND_SETS)
				b->sets[first + i] = (uint64_t)sets[i];
			else
				b->sets_overflow = true;
		}
		b->dirty = true;
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdBindDescriptorSets(cb, bp, layout, first, n, sets, ndyn, dyn);
}

static void vertex_buffers_bind(struct pp_command_buffer *c, uint32_t first, uint32_t n, const VkBuffer *buffers,
				const VkDeviceSize *offsets)
{
	struct pp_vk_diag_cb *s = diag_cb(c);
	if (!s)
		return;
	observe(c, s);
	for (uint32_t i = 0; i < n; i++)
		if (first + i < MAX_VERTEX_BUFFERS) {
			s->vb[first + i] = (uint64_t)buffers[i];
			s->vb_offset[first + i] = offsets ? offsets[i] : 0;
		}
	s->vb_dirty = true;
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindVertexBuffers(VkCommandBuffer cb, uint32_t first, uint32_t n,
						   const VkBuffer *buffers, const VkDeviceSize *offsets)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		vertex_buffers_bind(c, first, n, buffers, offsets);
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdBindVertexBuffers(cb, first, n, buffers, offsets);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindVertexBuffers2(VkCommandBuffer cb, uint32_t first, uint32_t n,
						    const VkBuffer *buffers, const VkDeviceSize *offsets,
						    const VkDeviceSize *sizes, const VkDeviceSize *strides)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	if (c)
		vertex_buffers_bind(c, first, n, buffers, offsets);
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdBindVertexBuffers2(cb, first, n, buffers, offsets, sizes, strides);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdBindIndexBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
						 VkIndexType type)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s) {
		observe(c, s);
		s->ib = (uint64_t)buffer;
		s->ib_offset = offset;
		s->vb_dirty = true;
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdBindIndexBuffer(cb, buffer, offset, type);
}

/* ---- descriptor sets and their contents ------------------------------------------------------- */

static void set_free(struct dset *s)
{
	free(s->b);
	free(s->slots);
	free(s);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo *info,
							 VkDescriptorSet *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.AllocateDescriptorSets(device, info, out);
	struct pp_vk_diag *vd = r == VK_SUCCESS ? vk_diag_get(dev) : NULL;
	if (!vd)
		return r;
	pthread_rwlock_wrlock(&vd->lock);
	for (uint32_t i = 0; i < info->descriptorSetCount; i++) {
		struct dset *s = calloc(1, sizeof(*s));
		if (!s)
			break;
		s->handle = (uint64_t)out[i];
		s->pool = (uint64_t)info->descriptorPool;
		pthread_rwlock_rdlock(&dev->lock);
		struct pp_object *l = pp_object_find_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
							    (uint64_t)info->pSetLayouts[i]);
		s->unknown = !l || l->u.set_layout.partial;
		if (l) {
			s->nbindings = l->u.set_layout.nbindings;
			s->total = l->u.set_layout.total;
			s->b = malloc((s->nbindings ? s->nbindings : 1) * sizeof(*s->b));
			s->slots = calloc(s->total ? s->total : 1, sizeof(*s->slots));
			if (s->b)
				memcpy(s->b, l->u.set_layout.bindings, s->nbindings * sizeof(*s->b));
		}
		pthread_rwlock_unlock(&dev->lock);
		if (l && (!s->b || !s->slots)) {
			set_free(s);
			continue;
		}
		struct dset *old;
		HASH_FIND(hh, vd->sets, &s->handle, sizeof(s->handle), old);
		if (old) {
			HASH_DEL(vd->sets, old);
			set_free(old);
		}
		pp_hash_oom_ = false;
		HASH_ADD(hh, vd->sets, handle, sizeof(s->handle), s);
		if (pp_hash_oom_)
			set_free(s);
	}
	pthread_rwlock_unlock(&vd->lock);
	return r;
}

static void sets_forget(struct pp_vk_diag *vd, uint32_t n, const VkDescriptorSet *sets, uint64_t pool)
{
	pthread_rwlock_wrlock(&vd->lock);
	if (sets) {
		for (uint32_t i = 0; i < n; i++) {
			uint64_t h = (uint64_t)sets[i];
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s) {
				HASH_DEL(vd->sets, s);
				set_free(s);
			}
		}
	} else {
		struct dset *s, *tmp;
		HASH_ITER(hh, vd->sets, s, tmp)
			if (s->pool == pool) {
				HASH_DEL(vd->sets, s);
				set_free(s);
			}
	}
	pthread_rwlock_unlock(&vd->lock);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_FreeDescriptorSets(VkDevice device, VkDescriptorPool pool, uint32_t n,
						     const VkDescriptorSet *sets)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev))
		sets_forget(diag_of(dev), n, sets, 0);
	return dev->vk.FreeDescriptorSets(device, pool, n, sets);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
						      VkDescriptorPoolResetFlags flags)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev))
		sets_forget(diag_of(dev), 0, NULL, (uint64_t)pool);
	return dev->vk.ResetDescriptorPool(device, pool, flags);
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
						    const VkAllocationCallbacks *alloc)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (diag_of(dev) && pool)
		sets_forget(diag_of(dev), 0, NULL, (uint64_t)pool);
	dev->vk.DestroyDescriptorPool(device, pool, alloc);
}

/* The resource a descriptor names, and which part of it: images through their views (their
 * subresource range), texel buffers through their buffer views, buffers with the descriptor's
 * offset and range (dynamic ones: the whole buffer, their offsets move at bind time). Caller
 * holds dev->lock (for reading). */
static uint64_t write_resource(struct pp_device *dev, const VkWriteDescriptorSet *w, uint32_t i,
			       struct pp_diag_range *range)
{
	*range = (struct pp_diag_range){ 0 };
	if (pp_vk_descriptor_is_image(w->descriptorType)) {
		if (!w->pImageInfo || !w->pImageInfo[i].imageView)
			return 0;
		struct pp_object *v = pp_object_find_locked(dev, VK_OBJECT_TYPE_IMAGE_VIEW,
							    (uint64_t)w->pImageInfo[i].imageView);
		if (!v)
			return 0;
		*range = image_range_locked(dev, v->u.image_view.image, &v->u.image_view.range);
		return v->u.image_view.image;
	}
	if (w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ||
	    w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER) {
		if (!w->pTexelBufferView)
			return 0;
		struct pp_object *v = pp_object_find_locked(dev, VK_OBJECT_TYPE_BUFFER_VIEW,
							    (uint64_t)w->pTexelBufferView[i]);
		if (!v)
			return 0;
		*range = buffer_range(v->u.buffer_view.offset, v->u.buffer_view.range);
		return v->u.buffer_view.buffer;
	}
	if (pp_vk_descriptor_is_buffer(w->descriptorType)) {
		if (!w->pBufferInfo)
			return 0;
		if (w->descriptorType != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC &&
		    w->descriptorType != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC)
			*range = buffer_range(w->pBufferInfo[i].offset, w->pBufferInfo[i].range);
		return (uint64_t)w->pBufferInfo[i].buffer;
	}
	return 0;
}

/* Writes consecutive descriptors, rolling over into the next bindings as Vulkan does. */
static void set_write(struct pp_device *dev, struct dset *s, const VkWriteDescriptorSet *w)
{
	if (s->unknown)
		return;
	uint32_t k = 0;
	while (k < s->nbindings && s->b[k].binding < w->dstBinding)
		k++;
	if (k == s->nbindings || s->b[k].binding != w->dstBinding)
		return;
	uint32_t elem = w->dstArrayElement;
	for (uint32_t i = 0; i < w->descriptorCount; i++, elem++) {
		while (k < s->nbindings && elem >= s->b[k].count) {
			elem -= s->b[k].count;
			k++;
		}
		if (k == s->nbindings)
			return;
		struct dslot *sl = &s->slots[s->b[k].base + elem];
		sl->handle = write_resource(dev, w, i, &sl->range);
	}
}

VKAPI_ATTR void VKAPI_CALL pp_UpdateDescriptorSets(VkDevice device, uint32_t nw, const VkWriteDescriptorSet *writes,
						   uint32_t nc, const VkCopyDescriptorSet *copies)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd) {
		pthread_rwlock_wrlock(&vd->lock);
		pthread_rwlock_rdlock(&dev->lock); /* the views the writes name */
		for (uint32_t i = 0; i < nw; i++) {
			uint64_t h = (uint64_t)writes[i].dstSet;
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s)
				set_write(dev, s, &writes[i]);
		}
		pthread_rwlock_unlock(&dev->lock);
		for (uint32_t i = 0; i < nc; i++) {
			/* Copies are rare: the destination's contents become unknown. */
			uint64_t h = (uint64_t)copies[i].dstSet;
			struct dset *s;
			HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
			if (s)
				s->unknown = true;
		}
		pthread_rwlock_unlock(&vd->lock);
	}
	dev->vk.UpdateDescriptorSets(device, nw, writes, nc, copies);
}

VKAPI_ATTR void VKAPI_CALL pp_UpdateDescriptorSetWithTemplate(VkDevice device, VkDescriptorSet set,
							      VkDescriptorUpdateTemplate tmpl, const void *data)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd) {
		/* Templates are not followed: whatever the set holds is unknown from now on. */
		uint64_t h = (uint64_t)set;
		struct dset *s;
		pthread_rwlock_wrlock(&vd->lock);
		HASH_FIND(hh, vd->sets, &h, sizeof(h), s);
		if (s)
			s->unknown = true;
		pthread_rwlock_unlock(&vd->lock);
	}
	dev->vk.UpdateDescriptorSetWithTemplate(device, set, tmpl, data);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bp,
						      VkPipelineLayout layout, uint32_t set, uint32_t nw,
						      const VkWriteDescriptorSet *writes)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s && (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE)) {
		observe(c, s);
		struct bind_point *b = &s->bp[bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? BP_GRAPHICS : BP_COMPUTE];
		struct pp_device *dev = c->device;
		pthread_rwlock_rdlock(&dev->lock);
		struct pp_object *pl = pp_object_find_locked(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)layout);
		struct pp_object *l = NULL;
		if (pl && set < pl->u.pipeline_layout.nsets)
			l = pp_object_find_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
						  pl->u.pipeline_layout.set_layouts[set]);
		/* A push replaces what was pushed before for this bind point. */
		b->npush = 0;
		b->push_unknown = !l;
		b->push_unknown_stages = PP_STAGE_WORK;
		for (uint32_t i = 0; l && i < nw; i++) {
			const struct pp_dsl_binding *bd = NULL;
			for (uint32_t k = 0; k < l->u.set_layout.nbindings && !bd; k++)
				if (l->u.set_layout.bindings[k].binding == writes[i].dstBinding)
					bd = &l->u.set_layout.bindings[k];
			for (uint32_t e = 0; bd && e < writes[i].descriptorCount; e++) {
				struct pp_diag_range rg;
				uint64_t h = write_resource(dev, &writes[i], e, &rg);
				if (!h)
					continue;
				if (b->npush == MAX_PUSH) {
					b->push_unknown = true;
					break;
				}
				b->push[b->npush].handle = h;
				b->push[b->npush].range = rg;
				b->push[b->npush].kind = bd->kind;
				b->push[b->npush].stages = bd->stages;
				b->push[b->npush].write = bd->write;
				b->npush++;
			}
		}
		pthread_rwlock_unlock(&dev->lock);
		b->dirty = true;
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdPushDescriptorSetKHR(cb, bp, layout, set, nw, writes);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb, VkDescriptorUpdateTemplate tmpl,
								  VkPipelineLayout layout, uint32_t set, const void *data)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s) {
		/* Not followed; the bind point is not known either: both become unknown. */
		observe(c, s);
		for (int i = 0; i < 2; i++) {
			s->bp[i].push_unknown = true;
			s->bp[i].push_unknown_stages = PP_STAGE_WORK;
			s->bp[i].dirty = true;
		}
	}
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdPushDescriptorSetWithTemplateKHR(cb, tmpl, layout, set, data);
}

/* ---- queries written by recordings ------------------------------------------------------------ */

VKAPI_ATTR void VKAPI_CALL pp_CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool pool,
						uint32_t query)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s)
		pp_diag_rec_queries(s->rec, (uint64_t)pool, query, 1);
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdWriteTimestamp(cb, stage, pool, query);
}

VKAPI_ATTR void VKAPI_CALL pp_CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage, VkQueryPool pool,
						 uint32_t query)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s)
		pp_diag_rec_queries(s->rec, (uint64_t)pool, query, 1);
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdWriteTimestamp2(cb, stage, pool, query);
}

/* Queries reset in a command buffer are written by it (vkCmdBeginQuery/EndQuery are not
 * seen here): they belong to its submissions. */
VKAPI_ATTR void VKAPI_CALL pp_CmdResetQueryPool(VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count)
{
	struct pp_command_buffer *c = pp_command_buffer_get(cb);
	struct pp_vk_diag_cb *s = c ? diag_cb(c) : NULL;
	if (s)
		pp_diag_rec_queries(s->rec, (uint64_t)pool, first, count);
	(c ? c->device : pp_vk_device_of(cb))->vk.CmdResetQueryPool(cb, pool, first, count);
}

/* ---- submit and present --------------------------------------------------------------------- */

/* Reads, without waiting, the timestamp pairs that are ready: one batch of slots in slot order
 * (the timer makes one vkGetQueryPoolResults per run of consecutive slots). Every batch
 * includes the recordings' first pass begins, so that, when such a read is the first, the
 * uncalibrated estimate is anchored on the earliest work read (against the first submit call:
 * these reads do not know their submit call; attribution's reads raise the estimate from
 * there, gpu_vk_timer.c). */
static int slot_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int slot_index(const uint32_t *slots, uint32_t n, uint32_t slot)
{
	const uint32_t *p = bsearch(&slot, slots, n, sizeof(*slots), slot_cmp);
	return p ? (int)(p - slots) : -1;
}

static void reads_poll(struct pp_device *dev, struct pp_vk_diag *vd)
{
	if (!dev->timer)
		return;
	uint64_t frame = pp_diag_frame(vd->dd);
	pthread_mutex_lock(&vd->reads_lock);
	uint32_t cap = 3 * vd->nreads, n = 0;
	uint32_t *slots = cap ? malloc(cap * sizeof(*slots)) : NULL;
	uint64_t *ns = cap ? malloc(cap * sizeof(*ns)) : NULL;
	uint8_t *avail = cap ? malloc(cap) : NULL;
	if (!slots || !ns || !avail)
		goto out;
	/* Reads whose recording was reset or submitted again are gone already
	 * (pp_vk_diag_recording_forget); what never arrives is dropped after 16 frames. */
	for (uint32_t i = 0; i < vd->nreads;) {
		struct pending_read *p = &vd->reads[i];
		if (p->frame + 16 >= frame) {
			if (p->anchor != PP_NO_SLOT)
				slots[n++] = p->anchor;
			slots[n++] = p->slot0;
			if (p->slot1 != PP_NO_SLOT)
				slots[n++] = p->slot1;
			i++;
			continue;
		}
		vd->reads[i] = vd->reads[--vd->nreads];
	}
	qsort(slots, n, sizeof(*slots), slot_cmp);
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!u || slots[i] != slots[u - 1])
			slots[u++] = slots[i];
	if (u)
		pp_gpu_timer_read_timestamps(dev->timer, slots, u, 0, ns, avail);
	for (uint32_t i = 0; u && i < vd->nreads;) {
		struct pending_read *p = &vd->reads[i];
		int k0 = slot_index(slots, u, p->slot0);
		int k1 = p->slot1 == PP_NO_SLOT ? -2 : slot_index(slots, u, p->slot1);
		bool ready = k0 >= 0 && avail[k0] && (k1 == -2 || (k1 >= 0 && avail[k1]));
		if (!ready) {
			i++;
			continue;
		}
		if (p->kind == READ_COST && ns[k1] >= ns[k0])
			pp_diag_site_cost(p->key, ns[k1] - ns[k0], p->frame);
		else if (p->kind == READ_IDLE && ns[k0] >= p->base_ns)
			pp_diag_site_gpu_idle(p->key, ns[k0] - p->base_ns, p->frame);
		vd->reads[i] = vd->reads[--vd->nreads];
	}
out:
	pthread_mutex_unlock(&vd->reads_lock);
	free(slots);
	free(ns);
	free(avail);
}

static void read_add(struct pp_vk_diag *vd, const struct pending_read *r)
{
	pthread_mutex_lock(&vd->reads_lock);
	if (vd->nreads == MAX_READS) {
		pp_log_once(PP_LOG_INFO, "diagnostics: too many barrier-cost timestamps pending; some costs are not measured");
		vd->reads[0] = vd->reads[--vd->nreads];
	}
	vd->reads[vd->nreads++] = *r;
	pthread_mutex_unlock(&vd->reads_lock);
}

static VkObjectType object_type(enum pp_diag_object_kind k)
{
	switch (k) {
	case PP_OBJ_COMMAND_BUFFER: return VK_OBJECT_TYPE_COMMAND_BUFFER;
	case PP_OBJ_QUEUE: return VK_OBJECT_TYPE_QUEUE;
	case PP_OBJ_IMAGE: return VK_OBJECT_TYPE_IMAGE;
	case PP_OBJ_BUFFER: return VK_OBJECT_TYPE_BUFFER;
	case PP_OBJ_QUERY_POOL: return VK_OBJECT_TYPE_QUERY_POOL;
	case PP_OBJ_FENCE: return VK_OBJECT_TYPE_FENCE;
	case PP_OBJ_EVENT: return VK_OBJECT_TYPE_EVENT;
	case PP_OBJ_DEVICE: return VK_OBJECT_TYPE_DEVICE;
	case PP_OBJ_SEMAPHORE: return VK_OBJECT_TYPE_SEMAPHORE;
	case PP_OBJ_RENDER_PASS: return VK_OBJECT_TYPE_RENDER_PASS;
	default: return VK_OBJECT_TYPE_UNKNOWN;
	}
}

/* New sites reach the application's messengers on its own thread, here at a boundary. */
static void messages_deliver(struct pp_device *dev, struct pp_vk_diag *vd)
{
	struct pp_diag_message m[4];
	uint32_t n;
	while ((n = pp_diag_messages_take(vd->dd, m, 4))) {
		if (!pp_messengers_any(dev->instance))
			continue;
		for (uint32_t i = 0; i < n; i++) {
			struct pp_messenger_object objs[PP_DIAG_MAX_OBJECTS];
			for (uint32_t k = 0; k < m[i].nobjects; k++)
				objs[k] = (struct pp_messenger_object){ object_type(m[i].objects[k].kind),
									m[i].objects[k].handle };
			pp_messengers_deliver(dev->instance, pp_diag_rule_id(m[i].rule), m[i].text, m[i].nobjects, objs);
		}
	}
}

void pp_vk_diag_submitted(struct pp_device *dev, struct pp_queue *q, uint32_t n, const uint64_t *cb_handles,
			  VkFence fence, uint64_t frame, uint64_t ended)
{
	struct pp_vk_diag *vd = vk_diag_get(dev);
	if (!vd)
		return;
	struct pp_diag_rec *stack[16], **recs = n <= 16 ? stack : calloc(n, sizeof(*recs));
	struct pp_command_buffer *cstack[16], **cbs = n <= 16 ? cstack : calloc(n, sizeof(*cbs));
	if (!recs || !cbs) {
		if (recs != stack)
			free(recs);
		if (cbs != cstack)
			free(cbs);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct pp_command_buffer *c = pp_command_buffer_lookup(dev, (VkCommandBuffer)(uintptr_t)cb_handles[i]);
		struct pp_vk_diag_cb *s = c && c->diag && c->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY ? c->diag : NULL;
		if (s && c->submissions <= s->last_subs) {
			/* Recorded again without a single hook of this file (the lead's count of
			 * submissions restarts with every recording): nothing of it was seen. */
			pp_diag_rec_reset(s->rec);
			cursor_reset(s);
			s->gen++;
		}
		if (s && !s->submitted && !pp_diag_rec_closed(s->rec))
			observe(c, s); /* the work after the last hook of this file */
		if (s) {
			s->submitted = true;
			s->last_subs = c->submissions;
		}
		recs[i] = s ? s->rec : NULL;
		cbs[i] = s ? c : NULL;
	}
	pp_diag_submit_in_frame(vd->dd, frame, q ? q->handle : 0, n, recs, cb_handles);
	/* What to time when these command buffers are recorded again. */
	for (uint32_t i = 0; i < n && vd->cost; i++) {
		if (!recs[i])
			continue;
		struct pp_vk_diag_cb *s = cbs[i]->diag;
		uint32_t stack_idx[64];
		uint32_t k = pp_diag_rec_fired(recs[i], stack_idx, 64);
		if (k == 64) {
			uint32_t *all = malloc(COST_MAX_FLAGGED * sizeof(*all));
			if (all) {
				k = pp_diag_rec_fired(recs[i], all, COST_MAX_FLAGGED);
				free(s->flagged);
				s->flagged = all;
				s->nflagged = k;
				continue;
			}
		}
		if (k > s->nflagged || !s->flagged) {
			uint32_t *f = realloc(s->flagged, (k ? k : 1) * sizeof(*f));
			if (!f)
				continue;
			s->flagged = f;
		}
		memcpy(s->flagged, stack_idx, k * sizeof(uint32_t));
		s->nflagged = k;
	}

	/* Barrier costs of this submission, read once the GPU wrote them. */
	for (uint32_t i = 0; i < n && vd->cost; i++) {
		if (!recs[i])
			continue;
		struct pp_diag_cost_probe probes[64];
		uint32_t np = pp_diag_rec_cost_probes(vd->dd, recs[i], cb_handles[i], probes, 64);
		for (uint32_t k = 0; k < np; k++)
			read_add(vd, &(struct pending_read){ READ_COST, probes[k].key, frame, cb_handles[i],
							     probes[k].ts_before, probes[k].ts_after,
							     cbs[i]->rec->npasses ? cbs[i]->rec->passes[0].ts_begin : PP_NO_SLOT,
							     0 });
	}

	/* GPU idle after a blocking wait: it ends where this submission's first pass begins. */
	struct pp_command_buffer *first = NULL, *last = NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct pp_command_buffer *c = pp_command_buffer_lookup(dev, (VkCommandBuffer)(uintptr_t)cb_handles[i]);
		if (!c || !c->diag || !c->rec->npasses)
			continue;
		if (!first && c->rec->passes[0].ts_begin != PP_NO_SLOT)
			first = c;
		if (c->rec->passes[c->rec->npasses - 1].ts_end != PP_NO_SLOT)
			last = c;
	}
	pthread_mutex_lock(&vd->reads_lock);
	bool idle = vd->idle_armed;
	struct pending_read idle_read = { READ_IDLE, vd->idle_key, vd->idle_frame, 0, 0, PP_NO_SLOT, PP_NO_SLOT,
					  vd->idle_begin_ns };
	vd->idle_armed = false;
	if (last) {
		vd->last_cb = last->handle;
		vd->last_end_slot = last->rec->passes[last->rec->npasses - 1].ts_end;
		vd->last_first_slot = last->rec->passes[0].ts_begin;
	} else {
		vd->last_cb = 0;
	}
	pthread_mutex_unlock(&vd->reads_lock);
	if (idle && first) {
		idle_read.cb = first->handle;
		idle_read.slot0 = first->rec->passes[0].ts_begin;
		idle_read.anchor = first->rec->passes[0].ts_begin;
		read_add(vd, &idle_read);
	}

	pp_diag_submit_done_ended(vd->dd, (uint64_t)fence, ended);
	reads_poll(dev, vd);
	messages_deliver(dev, vd);
	if (recs != stack)
		free(recs);
	if (cbs != cstack)
		free(cbs);
}

void pp_vk_diag_frames_ended(struct pp_device *dev, uint64_t ended)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd)
		pp_diag_frames_ended(vd->dd, ended);
}

void pp_vk_diag_presented(struct pp_device *dev, uint64_t ended)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd)
		return;
	pp_diag_frames_ended(vd->dd, ended);
	reads_poll(dev, vd);
	messages_deliver(dev, vd);
}

void pp_vk_diag_waited(struct pp_device *dev, uint64_t site_key, uint64_t frame)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd || !site_key || !dev->timer)
		return;
	/* Under the reads lock: the command buffer's owner forgets these slots under it before
	 * resetting or freeing them (pp_vk_diag_recording_forget). */
	pthread_mutex_lock(&vd->reads_lock);
	if (vd->last_cb) {
		/* The wait returned, so the last submission's end is written: a read that cannot wait. */
		uint32_t slots[2] = { vd->last_first_slot, vd->last_end_slot };
		uint64_t ns[2];
		uint8_t avail[2] = { 0 };
		uint32_t first = slots[0] == PP_NO_SLOT ? 1 : 0;
		pp_gpu_timer_read_timestamps(dev->timer, slots + first, 2 - first, 0, ns + first, avail + first);
		if (avail[1]) {
			vd->idle_armed = true;
			vd->idle_key = site_key;
			vd->idle_frame = frame;
			vd->idle_begin_ns = ns[1];
		}
	}
	pthread_mutex_unlock(&vd->reads_lock);
}

/* The recording of c is about to be reset, re-recorded, freed, or host-reset for another
 * submission: timestamp reads still waiting on its slots are dropped. Called on the thread
 * that owns c (the application synchronizes access to it). */
void pp_vk_diag_recording_forget(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd)
		return;
	/* Vulkan forbids resetting, re-recording, freeing or resubmitting (without
	 * SIMULTANEOUS_USE) a command buffer that is still pending, so every timestamp of its
	 * last execution is written by now and a read cannot wait. Harvest them before they are
	 * dropped: an application that re-records each command buffer as soon as its fence
	 * returns (the usual frame ring) reaches this point before any submit-time poll found
	 * them, and its barrier costs and GPU idle times were never measured (issue 10). */
	bool pending = false;
	pthread_mutex_lock(&vd->reads_lock);
	for (uint32_t i = 0; i < vd->nreads && !pending; i++)
		pending = vd->reads[i].cb == c->handle;
	pthread_mutex_unlock(&vd->reads_lock);
	if (pending)
		reads_poll(dev, vd);
	pthread_mutex_lock(&vd->reads_lock);
	for (uint32_t i = 0; i < vd->nreads;) {
		if (vd->reads[i].cb == c->handle)
			vd->reads[i] = vd->reads[--vd->nreads];
		else
			i++;
	}
	if (vd->last_cb == c->handle)
		vd->last_cb = 0;
	pthread_mutex_unlock(&vd->reads_lock);
}
