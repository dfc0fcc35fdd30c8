#pragma once
/* What the files of the Vulkan side of the diagnostics share (vk_diag_state.c,
 * vk_barriers.c, vk_descriptors.c, vk_diag_submit.c): bounds, per-device and per-command-buffer
 * state. The rules they feed are API-neutral (attribution/diag/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_log.h"
#include "pp_sink.h"
#include "pp_spare.h"
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
 * that recording's slots are reset or freed (pp_vk_diag_submit_recording_forget, on the thread that
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
	uint64_t frame; /* the latest submission's frame (atomic): what the rules hold as theirs */
	struct pp_spare *spare; /* a submission's observations' block, for the next (pp_spare.h) */
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
	uint32_t sets_bound; /* bit i: sets[i] is not VK_NULL_HANDLE (nothing bound: no set looked up) */
	bool sets_overflow;
	uint32_t npush;
	bool push_unknown;
	uint32_t push_unknown_stages;
	bool dirty;
	/* The recording's work serial (draws for graphics, dispatches for compute) when what is
	 * bound began to count (its bind, or the last hand-over to the rules): work since then
	 * used it. pipeline_stamp (graphics): the same for the pipeline alone (the draws'
	 * stages). */
	uint64_t stamp, pipeline_stamp;
	/* The first npush only (last: a reset clears what is above, BIND_POINT_HEAD). */
	struct {
		uint64_t handle;
		struct pp_diag_range range;
		enum pp_diag_res_kind kind;
		uint32_t stages;
		bool write;
	} push[MAX_PUSH];
};
#define BIND_POINT_HEAD offsetof(struct bind_point, push)

/* Bound state that work used and a bind replaced, held for the rules until the next hook that
 * hands them what the recording did (pp_vk_diag_state_collect): engines bind before every draw,
 * and one hand-over per barrier window is what the rules need (docs/performance.md). */
#define MAX_PENDING 32
enum pending_what { PENDING_SET, PENDING_BUFFER };
struct pending_bound {
	uint64_t handle, offset; /* a descriptor set, or a vertex/index buffer from offset on */
	uint32_t stages;         /* a set: the bound pipeline's stages then */
	enum pending_what what;
};

struct pp_vk_diag_cb {
	struct pp_vk_diag_cb *next;
	struct pp_command_buffer *owner;
	uint64_t handle;
	struct pp_diag_rec *rec;
	uint32_t gen;
	uint32_t recording;   /* the owner's recording (pp_command_buffer.recording) this state follows */
	bool submitted;       /* since the last reset; the rules closed rec then (pp_diag_device_submitted) */
	bool rec_anew;        /* rec is to be forgotten before the next events go to the rules */
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
	uint32_t vb_bound; /* bit i: vb[i] is not VK_NULL_HANDLE */
	bool vb_dirty;
	uint64_t vb_stamp; /* draw serial, as bind_point.stamp */
	/* replaced bound state that work used (struct pending_bound), and the stages of draws
	 * made with pipelines bound since replaced */
	struct pending_bound pending[MAX_PENDING];
	uint32_t npending;
	uint32_t pending_draw_stages;
	/* the work serial: the closed passes' draws and dispatches, summed up to pass ser_n */
	uint64_t ser_draws, ser_dispatches;
	uint32_t ser_n;
};


/* The device's diagnostics state: created once by whichever thread needs it first. */
static inline struct pp_vk_diag *diag_of(struct pp_device *dev)
{
	return __atomic_load_n(&dev->diag, __ATOMIC_ACQUIRE);
}


/* Shared between these files; each is defined in the file its prefix names. */
/* vk_diag_state.c */
struct pp_vk_diag_cb *pp_vk_diag_state_cb_slow(struct pp_command_buffer *c);
/* The command buffer's diagnostics state for the recording in progress; NULL when the
 * diagnostics are off or it is a secondary (judged where it is executed: not followed).
 * Inline for the state already following this recording: every bind asks. */
static inline struct pp_vk_diag_cb *vk_diag_state_cb(struct pp_command_buffer *c)
{
	struct pp_vk_diag_cb *s = c->diag;
	if (__builtin_expect(s && s->recording == c->recording && pp_layer_registry_settings.diagnostics, 1))
		return s;
	return pp_vk_diag_state_cb_slow(c);
}
/* What a recording did between two diagnostics hooks, translated for the rules (struct
 * pp_diag_observed, pp_vk_diag_state_collect): in place, growing onto the heap; where it cannot grow, what it holds goes to the rules early (the order of the uses
 * and of the render passes is kept, and the work comes last). */
struct vk_diag_observed {
	struct pp_diag_rec *rec;
	bool reset; /* forget rec first (pp_diag_observed.reset) */
	struct pp_diag_use *uses;
	uint32_t nuses, cap_uses;
	struct pp_diag_render_pass_begun *rps;
	uint32_t nrps, cap_rps;
	struct pp_diag_subpass_dep *deps;
	uint32_t ndeps, cap_deps;
	const char **formats; /* attachment formats of the render passes begun */
	uint32_t nformats, cap_formats;
	bool formats_lost;    /* some did not fit: any format */
	uint32_t work, draw_stages, unknown, attachment_formats; /* work 0: none */
	/* the experiment: the attachment images of the render passes begun (and of the one whose
	 * attachments were cleared), atts_unnamed: some not known */
	struct pp_diag_use *atts;
	uint32_t natts, cap_atts;
	bool atts_unnamed;
	struct pp_diag_use atts_stack[8];
	struct pp_diag_use uses_stack[32];
	const char *formats_stack[16];
	struct pp_diag_render_pass_begun rps_stack[2];
	struct pp_diag_subpass_dep deps_stack[PP_RP_MAX_DEPENDENCIES];
};

void pp_vk_diag_state_collect(struct pp_command_buffer *c, struct pp_vk_diag_cb *s, struct vk_diag_observed *out);
void pp_vk_diag_state_observed_view(const struct vk_diag_observed *o, struct pp_diag_observed *b);
void pp_vk_diag_state_observed_free(struct vk_diag_observed *o);
void pp_vk_diag_state_observe(struct pp_command_buffer *c, struct pp_vk_diag_cb *s);
void pp_vk_state_hooks_diag_bound_dirty(struct pp_vk_diag_cb *s);
struct pp_diag_range pp_vk_diag_state_buffer_range(VkDeviceSize offset, VkDeviceSize size);
struct pp_diag_range pp_vk_diag_state_image_range(struct pp_device *dev, uint64_t image, const VkImageSubresourceRange *sr);
struct pp_diag_range pp_vk_diag_state_image_range_locked(struct pp_device *dev, uint64_t image,
					       const VkImageSubresourceRange *sr);
struct pp_vk_diag *pp_vk_diag_state_get(struct pp_device *dev);
void pp_vk_diag_state_cursor_reset(struct pp_vk_diag_cb *s);

/* One barrier call as the application made it (vk_barriers.c, vk_experiment.c). */
struct barrier_call {
	const char *api;
	void *ra; /* the application's call site: the hook's return address */
	bool by_region;
	VkDependencyFlags deps;
	uint32_t nevents;
	const VkEvent *events;
	/* synchronization 1: the call's masks and barrier arrays */
	VkPipelineStageFlags src, dst;
	uint32_t nmem, nbuf, nimg;
	const VkMemoryBarrier *mem;
	const VkBufferMemoryBarrier *buf;
	const VkImageMemoryBarrier *img;
	/* synchronization 2: ninfo dependency infos, one per event for vkCmdWaitEvents2,
	 * analysed as one call */
	bool sync2;
	uint32_t ninfo;
	const VkDependencyInfo *info;
};


/* vk_barriers.c */
uint32_t pp_vk_barriers_stages_of(VkPipelineStageFlags2 f);

/* vk_experiment.c: the rewrites of barrier calls (docs/diagnostics.md, "Experiment mode").
 * pp_vk_experiment_emit: the call as made. pp_vk_experiment_hold: keeps a copy to merge with the next call, NULL;
 * or why it cannot (nothing kept). pp_vk_experiment_merge: the held call and this one as one call
 * (PP_DIAG_MERGE_*), true; false with *why when it cannot (nothing recorded, the held call
 * kept). pp_vk_experiment_narrow: the call with dstStageMask narrowed to dst (PP_STAGE_*), NULL; or why
 * it cannot (nothing recorded). */
void pp_vk_experiment_emit(struct pp_command_buffer *c, const struct barrier_call *a);
const char *pp_vk_experiment_hold(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t site);
uint32_t pp_vk_experiment_held_site(const struct pp_command_buffer *c);
bool pp_vk_experiment_merge(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t how, const char **why);
const char *pp_vk_experiment_narrow(struct pp_command_buffer *c, const struct barrier_call *a, uint32_t dst);
uint32_t pp_vk_barriers_subpass_deps_of(struct pp_device *dev, uint64_t render_pass, struct pp_diag_subpass_dep *out,
				     char name[64]);

/* The stages of the work on a bind point: its pipeline's, else any it may have. */
static inline uint32_t vk_diag_bound_stages(const struct bind_point *b, int bpi)
{
	if (b->stages)
		return b->stages;
	return bpi == BP_GRAPHICS ? PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER : PP_STAGE_COMPUTE;
}

/* The recording's work serial of one bind point (its draws for graphics, its dispatches for
 * compute): a count that grows with every one recorded, so that a bind tells whether work used
 * what it replaces with a compare. Closed passes do not change: their counts are summed once
 * (up to ser_n). */
static inline __attribute__((always_inline)) uint64_t vk_diag_serial_bp(struct pp_vk_diag_cb *s,
									    const struct pp_recording *r, int bpi)
{
	uint32_t open = r->cur != &r->stray && r->open < r->npasses ? r->open : r->npasses;
	for (; s->ser_n < open; s->ser_n++) {
		s->ser_draws += pp_attr_record_workload_draws(&r->passes[s->ser_n].work);
		s->ser_dispatches += pp_attr_record_workload_dispatches(&r->passes[s->ser_n].work);
	}
	const struct pp_workload *w = open < r->npasses ? &r->passes[open].work : NULL;
	if (bpi == BP_GRAPHICS)
		return s->ser_draws + pp_attr_record_workload_draws(&r->stray) + (w ? pp_attr_record_workload_draws(w) : 0);
	return s->ser_dispatches + pp_attr_record_workload_dispatches(&r->stray) + (w ? pp_attr_record_workload_dispatches(w) : 0);
}
