#pragma once
/* Diagnostics rules, API-neutral (docs/diagnostics.md).
 *
 * Barrier analysis. The intercept describes what one command buffer recording does, in
 * order: barriers (with the resources they cover), precise resource uses it can see at bind
 * time (descriptor sets, vertex/index buffers: handle + stages), and anonymous work it can
 * only count (copies, draws, dispatches, render pass attachments whose resources it cannot
 * name). A barrier is judged lazily, when the window of commands it orders has been seen:
 * when a later barrier covers the same resource again, or when the recording is closed at
 * its first submission. Findings stay with the recording and are counted again every time
 * it is submitted. Windows still open at the end of a recording are judged again per
 * submission, followed into the later command buffers of the submit call (a small summary
 * per recording: uses before its first barrier on each resource, open windows).
 *
 * Blocking waits. Submissions get a sequence number and a frame index (mirroring the frame
 * delimiter of attr_device.c); fences and queries remember the submission that last
 * signalled / wrote them; waits are judged against the frame they happen in.
 *
 * Delivery. Findings are deduplicated per site into one process-wide table (bounded:
 * PP_DIAG_MAX_SITES, then counted as "other"); the first occurrence of a site is logged once
 * at warn level and queued for the application's debug messengers; report.json lists the
 * table (pp_diag_sites_snapshot).
 *
 * Threads: a recording is only touched by the thread recording it (Vulkan's rule); a
 * pp_diag_device has one mutex; the site table another. Nothing here blocks on the GPU. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag_rules.h"
#include "pp_model.h"

/* ---- stages and accesses --------------------------------------------------------------- */

/* Pipeline stages in logical order (graphics: TOP..COLOR_OUTPUT..BOTTOM). */
enum {
	PP_STAGE_TOP = 1u << 0,
	PP_STAGE_DRAW_INDIRECT = 1u << 1,
	PP_STAGE_VERTEX_INPUT = 1u << 2,
	PP_STAGE_VERTEX_SHADER = 1u << 3,
	PP_STAGE_TESS_CONTROL = 1u << 4,
	PP_STAGE_TESS_EVAL = 1u << 5,
	PP_STAGE_GEOMETRY = 1u << 6,
	PP_STAGE_EARLY_FRAGMENT_TESTS = 1u << 7,
	PP_STAGE_FRAGMENT_SHADER = 1u << 8,
	PP_STAGE_LATE_FRAGMENT_TESTS = 1u << 9,
	PP_STAGE_COLOR_OUTPUT = 1u << 10,
	PP_STAGE_COMPUTE = 1u << 11,
	PP_STAGE_TRANSFER = 1u << 12,
	PP_STAGE_BOTTOM = 1u << 13,
	PP_STAGE_HOST = 1u << 14,
	PP_STAGE_ALL_GRAPHICS = 1u << 15,
	PP_STAGE_ALL_COMMANDS = 1u << 16,
	PP_STAGE_OTHER = 1u << 17, /* stages not modelled: ray tracing, video, mesh, ... */
};
#define PP_STAGE_PRE_RASTER \
	(PP_STAGE_VERTEX_SHADER | PP_STAGE_TESS_CONTROL | PP_STAGE_TESS_EVAL | PP_STAGE_GEOMETRY)
#define PP_STAGE_FRAGMENT_SIDE                                                                   \
	(PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_FRAGMENT_SHADER | PP_STAGE_LATE_FRAGMENT_TESTS | \
	 PP_STAGE_COLOR_OUTPUT)
#define PP_STAGE_GEOMETRY_SIDE (PP_STAGE_DRAW_INDIRECT | PP_STAGE_VERTEX_INPUT | PP_STAGE_PRE_RASTER)
#define PP_STAGE_GRAPHICS (PP_STAGE_GEOMETRY_SIDE | PP_STAGE_FRAGMENT_SIDE)
/* Every stage that executes work. */
#define PP_STAGE_WORK (PP_STAGE_GRAPHICS | PP_STAGE_COMPUTE | PP_STAGE_TRANSFER | PP_STAGE_OTHER)

/* The stages a mask really covers: ALL_GRAPHICS / ALL_COMMANDS spelled out; in the first
 * scope BOTTOM means everything and TOP nothing, in the second scope TOP means everything
 * and BOTTOM nothing. */
uint32_t pp_diag_vocab_stage_expand(uint32_t stages, bool second_scope);
/* "VERTEX_SHADER|FRAGMENT_SHADER" (Vulkan's names without prefix/suffix); "NONE" for 0. */
size_t pp_diag_vocab_stage_names(uint32_t stages, char *buf, size_t len);

enum {
	PP_ACCESS_INDIRECT_READ = 1u << 0,
	PP_ACCESS_INDEX_READ = 1u << 1,
	PP_ACCESS_VERTEX_READ = 1u << 2,
	PP_ACCESS_UNIFORM_READ = 1u << 3,
	PP_ACCESS_INPUT_ATTACHMENT_READ = 1u << 4,
	PP_ACCESS_SHADER_READ = 1u << 5,
	PP_ACCESS_SHADER_WRITE = 1u << 6,
	PP_ACCESS_COLOR_READ = 1u << 7,
	PP_ACCESS_COLOR_WRITE = 1u << 8,
	PP_ACCESS_DEPTH_READ = 1u << 9,
	PP_ACCESS_DEPTH_WRITE = 1u << 10,
	PP_ACCESS_TRANSFER_READ = 1u << 11,
	PP_ACCESS_TRANSFER_WRITE = 1u << 12,
	PP_ACCESS_HOST_READ = 1u << 13,
	PP_ACCESS_HOST_WRITE = 1u << 14,
	PP_ACCESS_MEMORY_READ = 1u << 15,
	PP_ACCESS_MEMORY_WRITE = 1u << 16,
	PP_ACCESS_OTHER_READ = 1u << 17,
	PP_ACCESS_OTHER_WRITE = 1u << 18,
};
#define PP_ACCESS_WRITES                                                                     \
	(PP_ACCESS_SHADER_WRITE | PP_ACCESS_COLOR_WRITE | PP_ACCESS_DEPTH_WRITE |             \
	 PP_ACCESS_TRANSFER_WRITE | PP_ACCESS_HOST_WRITE | PP_ACCESS_MEMORY_WRITE | PP_ACCESS_OTHER_WRITE)
/* The stages that can perform these accesses. */
uint32_t pp_diag_vocab_access_stages(uint32_t access);
size_t pp_diag_vocab_access_names(uint32_t access, char *buf, size_t len);

/* Image layouts, by what they allow. */
enum pp_diag_layout {
	PP_LAYOUT_UNDEFINED = 0,
	PP_LAYOUT_GENERAL,
	PP_LAYOUT_COLOR_ATTACHMENT,
	PP_LAYOUT_DEPTH_ATTACHMENT,
	PP_LAYOUT_DEPTH_READ_ONLY,
	PP_LAYOUT_SHADER_READ,
	PP_LAYOUT_TRANSFER_SRC,
	PP_LAYOUT_TRANSFER_DST,
	PP_LAYOUT_PRESENT,
	PP_LAYOUT_OTHER,
};

enum pp_diag_res_kind { PP_RES_GLOBAL = 0, PP_RES_IMAGE, PP_RES_BUFFER };

/* ---- recordings ------------------------------------------------------------------------- */

/* The part of a resource a barrier or a use covers. Images: aspects (any bit mask, 0: every
 * aspect; two aspect masks meet when they share a bit), mip levels [begin, end) and array
 * layers [layer_begin, layer_end); buffers: bytes [begin, end). VK_REMAINING_* and
 * VK_WHOLE_SIZE end at PP_DIAG_RANGE_END: to the end of the resource, whatever its size (the
 * same for telling whether two ranges meet). set false (a zeroed struct): the whole resource. */
struct pp_diag_range {
	bool set;
	uint32_t aspects;
	uint32_t layer_begin, layer_end;
	uint64_t begin, end;
};
#define PP_DIAG_RANGE_END UINT64_MAX
/* Whether two ranges of one resource share a byte / subresource (NULL: the whole resource). */
bool pp_diag_ranges_overlap(const struct pp_diag_range *a, const struct pp_diag_range *b);
/* Open barrier windows and unbarriered uses tracked per resource and recording, and barrier /
 * use records per resource in a closed recording's summary; beyond this they are merged (uses)
 * or the resource is no longer judged by range (barriers: windows closed as "cannot narrow"). */
#define PP_DIAG_RANGES 8u

/* One memory, buffer or image barrier of a barrier call. Stages are per barrier (the call's
 * masks for vkCmdPipelineBarrier, the struct's for vkCmdPipelineBarrier2). */
struct pp_diag_barrier_res {
	enum pp_diag_res_kind kind;
	uint64_t handle;   /* 0 for global memory barriers */
	uint32_t src_stages, dst_stages;
	uint32_t src_access, dst_access;
	enum pp_diag_layout old_layout, new_layout;
	bool queue_transfer; /* a queue family ownership transfer */
	uint32_t format_bucket; /* images: pp_diag_barriers_format_bucket() of the format; 0: unknown */
	struct pp_diag_range range; /* subresource range / buffer range (unset: whole) */
};

struct pp_diag_barrier {
	const char *api;   /* "vkCmdPipelineBarrier", "vkCmdPipelineBarrier2", "vkCmdWaitEvents", ... */
	uint32_t src_stages, dst_stages; /* the call's masks (union over its barriers for *2) */
	bool by_region;
	uint32_t nres;
	const struct pp_diag_barrier_res *res;
	uint32_t nevents;  /* vkCmdWaitEvents: the events waited on */
	const uint64_t *events;
	const char *site;  /* where it is, for people: copied */
	/* The code location that recorded it (the application's call site, with the debug label
	 * it is under): a site is keyed by it, the rule and the masks, whatever command buffer or
	 * call index (one loop is one site). 0: unknown, keyed by command buffer and call index. */
	uint64_t loc_key;
	bool untimed; /* its command buffer can never time it (no GPU timing, secondary, ...) */
	uint32_t ts_before, ts_after; /* barrier_cost timestamp slots, or PP_DIAG_NO_SLOT */
	bool in_render_pass;
	bool sync2;        /* every barrier struct has its own stages (vkCmdPipelineBarrier2) */
};
#define PP_DIAG_NO_SLOT UINT32_MAX

/* Anonymous work the intercept counted between two of its hooks (resources unknown). */
enum {
	PP_WORK_TRANSFER = 1u << 0,         /* copies, blits, resolves, fills, updates, clears */
	PP_WORK_DRAW = 1u << 1,             /* draws; the bound pipeline's stages come along */
	PP_WORK_DISPATCH = 1u << 2,
	PP_WORK_INDIRECT = 1u << 3,         /* some buffer was read as indirect arguments */
	PP_WORK_COLOR_ATTACHMENT = 1u << 4, /* a render pass with color attachments began */
	PP_WORK_DEPTH_ATTACHMENT = 1u << 5, /* ... with a depth/stencil attachment */
	PP_WORK_UNKNOWN = 1u << 6,          /* anything may have been used (secondaries executed) */
	PP_WORK_UNKNOWN_DESCRIPTORS = 1u << 7, /* descriptors with contents not known were bound */
	PP_WORK_BITS = 8,
};

struct pp_diag_rec;
struct pp_diag_device;

/* A barrier finding's timestamp slots, for the intercept to read later (barrier_cost). */
struct pp_diag_cost_probe {
	uint64_t key;
	uint32_t ts_before, ts_after;
};

struct pp_diag_rec *pp_diag_barriers_rec_create(void);
void pp_diag_barriers_rec_destroy(struct pp_diag_rec *r);
/* Forgets everything: the command buffer is being recorded anew. */
void pp_diag_barriers_rec_reset(struct pp_diag_rec *r);
/* Whether the recording was closed (submitted at least once). */
bool pp_diag_barriers_rec_closed(const struct pp_diag_rec *r);
/* Who recorded it: owner names a layer above passprobe that records work of its own (a HUD,
 * RenderDoc: the model's recorded_by), NULL the application. Its findings are information
 * (docs/diagnostics.md, "Severity"): the application's developer cannot change them. Static
 * string; set before the submission that closes the recording. */
void pp_diag_barriers_rec_owner(struct pp_diag_rec *r, const char *owner);

/* Work since the previous call: PP_WORK_* bits; draw_stages: stages the draws ran (bound
 * pipeline); unknown_stages: stages of bound descriptors whose contents are unknown;
 * attachment_formats: pp_diag_barriers_format_bucket() bits of the render pass attachments begun (0
 * with PP_WORK_*_ATTACHMENT: formats unknown, any image may be an attachment). */
void pp_diag_barriers_rec_work(struct pp_diag_rec *r, uint32_t work, uint32_t draw_stages, uint32_t unknown_stages,
		      uint32_t attachment_formats);
/* One of 32 buckets for an image format name ("R8G8B8A8_UNORM"): an image can only be the
 * attachment of a pass with an attachment of its format. */
uint32_t pp_diag_barriers_format_bucket(const char *format_name);
/* A resource used by the work that follows, at these stages (bound descriptors, vertex and
 * index buffers). write: the use may write it (storage descriptors). */
void pp_diag_barriers_rec_use(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle, uint32_t stages,
		     bool write);
/* The same for part of the resource (an image view's subresource range, a descriptor's buffer
 * range, a vertex buffer from its offset); NULL: the whole resource. A use meets every barrier
 * window of the resource whose range it overlaps. */
void pp_diag_barriers_rec_use_range(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle,
			   const struct pp_diag_range *range, uint32_t stages, bool write);
/* A barrier call; returns its index in the recording. vkCmdWaitEvents: b->events set. */
uint32_t pp_diag_barriers_rec(struct pp_diag_device *d, struct pp_diag_rec *r, const struct pp_diag_barrier *b);
void pp_diag_barriers_rec_event_set(struct pp_diag_rec *r, uint64_t event);
/* Queries written (timestamps) or reset in the recording: they belong to its submissions. */
void pp_diag_barriers_rec_queries(struct pp_diag_rec *r, uint64_t pool, uint32_t first, uint32_t count);

/* A subpass dependency of a render pass (VkSubpassDependency[2], or the VkMemoryBarrier2 in
 * its pNext). Stages PP_STAGE_*, accesses PP_ACCESS_*. */
#define PP_DIAG_SUBPASS_EXTERNAL UINT32_MAX
struct pp_diag_subpass_dep {
	uint32_t index;                    /* in pDependencies */
	uint32_t src_subpass, dst_subpass; /* PP_DIAG_SUBPASS_EXTERNAL: VK_SUBPASS_EXTERNAL */
	uint32_t src_stages, dst_stages;
	uint32_t src_access, dst_access;
	bool by_region;
	bool dst_reads_other_samples; /* the destination subpass has a multisampled input attachment */
};
/* The rule of PASSPROBE-Barrier-SubpassDependencyNotByRegion: a dependency between two
 * subpasses whose stages are all framebuffer-space and whose accesses are all attachment
 * accesses, without BY_REGION (adding it is then valid and keeps the data per region). */
bool pp_diag_barriers_subpass_dep_not_by_region(const struct pp_diag_subpass_dep *dep);
/* A render pass instance begun in the recording, with the dependencies of its render pass
 * that the rule above flagged (name: the render pass's debug name or NULL). Counted once per
 * instance at every submission of the recording. At most PP_DIAG_REC_MAX_SUBPASS_DEPS
 * distinct (render pass, dependency) pairs per recording; beyond that, not counted. */
#define PP_DIAG_REC_MAX_SUBPASS_DEPS 64u
void pp_diag_barriers_rec_render_pass(struct pp_diag_rec *r, uint64_t render_pass, const char *name, uint32_t n,
			     const struct pp_diag_subpass_dep *flagged);

/* What a recording did between two hooks of the intercept, already translated, handed over in
 * one call: reset: the recording is forgotten first (pp_diag_barriers_rec_reset: recorded anew); the
 * render passes begun (with every dependency of theirs: the rules flag them, as
 * pp_diag_barriers_rec_render_pass), the resources the work uses (as pp_diag_barriers_rec_use_range, in order),
 * then the work (as pp_diag_barriers_rec_work; work 0: none), whose attachment formats are
 * attachment_formats and the buckets of format_names (static strings, "R8G8B8A8_UNORM"). */
struct pp_diag_use {
	enum pp_diag_res_kind kind;
	uint64_t handle;
	struct pp_diag_range range; /* unset: the whole resource */
	uint32_t stages;
	bool write;
};
struct pp_diag_render_pass_begun {
	uint64_t render_pass;
	char name[64];              /* its debug name; "" when none */
	uint32_t first_dep, ndeps;  /* in pp_diag_observed.deps */
};
struct pp_diag_observed {
	bool reset;
	/* The experiment: the images the render passes begun write as attachments (write uses at
	 * their attachment stages), told apart from the rules' uses; attachments_unnamed: some of
	 * them are not known (their writes are anonymous). */
	uint32_t nattachments;
	const struct pp_diag_use *attachments;
	bool attachments_unnamed;
	uint32_t nrender_passes;
	const struct pp_diag_render_pass_begun *render_passes;
	const struct pp_diag_subpass_dep *deps;
	uint32_t nuses;
	const struct pp_diag_use *uses;
	uint32_t work, draw_stages, unknown_stages, attachment_formats;
	uint32_t nformat_names;
	const char *const *format_names;
};
void pp_diag_barriers_rec_observed(struct pp_diag_rec *r, const struct pp_diag_observed *o);

/* ---- the experiment (docs/diagnostics.md, "Experiment mode") -------------------------------- */

/* What one barrier call of a recording of an experiment arm is (pp_diag_experiment_call). Sites whose
 * fix passprobe proved from what it recorded, in every occurrence, become experiment sites (at
 * most PP_EXP_MAX_SITES per process); in each block of the fixed arm one of them (in turn) is
 * rewritten in every recording begun in it. */
#define PP_DIAG_EXP_NONE UINT32_MAX
enum pp_diag_exp_kind {
	PP_DIAG_EXP_NO_FIX = 0,
	PP_DIAG_EXP_NARROW_DST, /* dstStageMask -> dst_stages (the proven consumers) */
	PP_DIAG_EXP_DROP,       /* not recorded at all (reads after reads) */
	PP_DIAG_EXP_MERGE,      /* one call with the call right before it (held back until this one) */
};
struct pp_diag_exp_call {
	uint32_t site;            /* the experiment site this call is, PP_DIAG_EXP_NONE */
	enum pp_diag_exp_kind kind;
	uint32_t dst_stages;      /* PP_DIAG_EXP_NARROW_DST: the new destination (PP_STAGE_*) */
	uint32_t merge;           /* PP_DIAG_EXP_MERGE: PP_DIAG_MERGE_* the rule proved */
	bool apply;               /* rewrite it in this recording */
	uint32_t hold_site;       /* this call is the first of merge site hold_site, to be rewritten in
				   * this recording: hold it back for the next call; else PP_DIAG_EXP_NONE */
};
/* How two barrier calls become one (PASSPROBE-Barrier-Mergeable). */
enum { PP_DIAG_MERGE_SYNC1 = 1, /* one vkCmdPipelineBarrier with the unions of the masks */
       PP_DIAG_MERGE_SYNC2,     /* one vkCmdPipelineBarrier2, each barrier keeping its stages */
};
/* A barrier call at code location loc_key with the call's masks (pp_diag_barrier's), in a
 * recording of arm (PP_EXP_ARM_* of pp_model.h) begun in the frame the clock gave it. The
 * first recording of a fixed-arm block picks the block's site. */
void pp_diag_experiment_call(struct pp_diag_device *d, uint32_t arm, uint64_t loc_key, uint32_t src_stages,
		      uint32_t dst_stages, struct pp_diag_exp_call *out);
/* The intercept cannot make the fix of an experiment site (why: static text, e.g. a struct
 * extension it cannot copy): the site leaves the experiment with that reason. */
void pp_diag_experiment_refuse(struct pp_diag_device *d, uint32_t site, const char *why);
/* What the rules decided at once for barrier call bi of the recording (pp_diag_barriers_rec's
 * index): whether it orders reads after reads only (PASSPROBE-Barrier-ReadToRead), and how it
 * merges with the call before it (PP_DIAG_MERGE_*, 0: it does not). */
bool pp_diag_experiment_rec_barrier_reads_only(const struct pp_diag_rec *r, uint32_t bi);
uint32_t pp_diag_experiment_rec_barrier_merge(const struct pp_diag_rec *r, uint32_t bi);
/* The intercept rewrote barrier call bi: its verdict, when judged, must prove the fix again. */
void pp_diag_experiment_rec_barrier_fixed(struct pp_diag_rec *r, uint32_t bi);

/* ---- findings --------------------------------------------------------------------------- */

/* A rule's kind and the front end that detects it (diag_rules.h). */
enum pp_diag_rule_kind { PP_DIAG_KIND_BARRIER, PP_DIAG_KIND_BLOCKING, PP_DIAG_KIND_PASS };
enum pp_diag_rule_api { PP_DIAG_API_VULKAN, PP_DIAG_API_GLES };

enum pp_diag_rule {
#define PP_DIAG_RULE_ENUM(name, ...) PP_DIAG_##name,
	PP_DIAG_RULES(PP_DIAG_RULE_ENUM)
#undef PP_DIAG_RULE_ENUM
	PP_DIAG_RULE_COUNT
};
/* "PASSPROBE-Barrier-FullPipelineDrain", ... */
const char *pp_diag_vocab_rule_id(enum pp_diag_rule rule);
bool pp_diag_vocab_rule_is_barrier(enum pp_diag_rule rule);
enum pp_diag_rule_kind pp_diag_vocab_rule_kind(enum pp_diag_rule rule);
enum pp_diag_rule_api pp_diag_vocab_rule_api(enum pp_diag_rule rule);
/* Its section in docs/diagnostics.md: the anchor ("passprobe-barrier-fullpipelinedrain"). */
const char *pp_diag_vocab_rule_docs(enum pp_diag_rule rule);

/* ---- severity (docs/diagnostics.md, "Severity") -------------------------------------------- */

/* What fixing a finding would gain. A warning is worth a developer's time: the narrower or
 * removed synchronization lets work overlap on a tile-based GPU, or saves a drain, a cache
 * flush, a layout transition or tile bandwidth. Information has little or nothing to gain
 * (a fix that changes no overlap, a wait on a thread the frame does not wait for). */
enum pp_diag_severity { PP_DIAG_WARNING = 0, PP_DIAG_INFO };
/* "warning" | "info" */
const char *pp_diag_severity_name(enum pp_diag_severity s);
/* A rule's severity before what one finding says (the per-finding adjustments are in
 * pp_diag_severity_barrier_gain and the blocking report's thread). */
enum pp_diag_severity pp_diag_severity_rule(enum pp_diag_rule rule);
/* Why a rule has its severity, one sentence (the table of docs/diagnostics.md). */
const char *pp_diag_severity_rule_reason(enum pp_diag_rule rule);
/* What replacing a barrier's stages src -> dst (PP_STAGE_*, as recorded) with src_narrow ->
 * dst_narrow would gain: the dependencies the narrower form keeps (0 -> 0: the barrier
 * removed; a side that cannot be narrowed: pass it as recorded). The phases of a tile-based GPU:
 * the non-fragment queue (vertex shading and tiling, compute, transfers) and the fragment
 * queue. A warning when it stops later non-fragment work from waiting for earlier fragment
 * work (the queues can overlap again), unless a stage the narrower form keeps blocked stops
 * that work right after anyway (a later stage of the same phase of the graphics pipeline);
 * information otherwise. *why: the reason, for people (a verdict). */
enum pp_diag_severity pp_diag_severity_barrier_gain(uint32_t src, uint32_t dst, uint32_t src_narrow, uint32_t dst_narrow,
					   char *why, size_t len);

/* Objects a finding names, for the debug messengers. */
enum pp_diag_object_kind {
	PP_OBJ_NONE = 0,
	PP_OBJ_COMMAND_BUFFER,
	PP_OBJ_QUEUE,
	PP_OBJ_IMAGE,
	PP_OBJ_BUFFER,
	PP_OBJ_QUERY_POOL,
	PP_OBJ_FENCE,
	PP_OBJ_EVENT,
	PP_OBJ_DEVICE,
	PP_OBJ_SEMAPHORE,
	PP_OBJ_RENDER_PASS,
};
#define PP_DIAG_MAX_OBJECTS 4
struct pp_diag_object {
	enum pp_diag_object_kind kind;
	uint64_t handle;
};

/* A message for the application's debug messengers (first occurrence of a site). */
struct pp_diag_message {
	enum pp_diag_rule rule;
	enum pp_diag_severity severity; /* the finding's: the messengers' message severity */
	char text[768];
	uint32_t nobjects;
	struct pp_diag_object objects[PP_DIAG_MAX_OBJECTS];
};

/* ---- devices ---------------------------------------------------------------------------- */

/* Where the rules' results go beyond pp_diag_sites_snapshot and the messages queue: the rules call
 * no output themselves (docs/architecture.md); whoever creates a device connects them
 * (intercept/common/pp_diag_outputs.c: the sinks). A NULL member: that output is not wanted. */
struct pp_diag_outputs {
	/* A new site, first seen now on thread tid: an instant on the trace, named trace_name. */
	void (*site_seen)(const char *trace_name, uint32_t tid, uint64_t now_ns);
	/* A finding in frame `frame` of device device_id, which RenderDoc captures, at its call. */
	void (*captured)(uint32_t device_id, uint64_t frame, const struct pp_diagnostic_occurrence *o);
};

struct pp_diag_config {
	uint32_t sink_device_id;
	int frame_delimiter;  /* enum pp_frame_delimiter: for the device's own frame clock */
	bool barrier_cost;
	uint32_t poll_threshold; /* polls of one object within a frame that make a loop; 0: 8 */
	bool experiment;         /* the experiment setting is not off: prove fixes (diag_experiment.c) */
	struct pp_diag_outputs out;
};

struct pp_diag_device *pp_diag_device_create(const struct pp_diag_config *cfg);
void pp_diag_device_destroy(struct pp_diag_device *d);

/* One submit call (every batch of it, in order): closes the recordings not yet closed, counts
 * their findings, assigns a sequence number (returned) and remembers which queries the
 * recordings write. cb_handles[i] names recs[i]; a NULL rec is a command buffer passprobe
 * did not follow (it may use anything). A barrier's windows still open at the end of its
 * recording are followed into the later recordings of the call (their uses before their own
 * barrier on the resource, their anonymous work), once per distinct set of neighbours. */
uint64_t pp_diag_device_submit(struct pp_diag_device *d, uint64_t queue, uint32_t n, struct pp_diag_rec *const *recs,
			const uint64_t *cb_handles);
/* After a submit call: the fence it signals (0: none) belongs to its last batch. */
void pp_diag_device_submit_done(struct pp_diag_device *d, uint64_t fence, bool saw_frame_label);
void pp_diag_device_present(struct pp_diag_device *d);
/* pp_diag_device_submit, _submit_done and _present above count frames with a frame clock of the
 * device's own (attribution/model/attr_frame.h), for a program that drives the rules alone.
 * Where the model counts frames (the layer), the frame indices come from its clock instead,
 * so the diagnostics' frames are report.json's, and a submit call reaches the rules as one
 * description, pp_diag_device_submitted below. */

/* A cost measured by the API's side from an earlier pp_diag_cost_probe (a barrier's stall) or
 * after a blocking wait (GPU idle), credited to its site and frame (pp_diag_sites_cost,
 * pp_diag_sites_gpu_idle). */
struct pp_diag_measured {
	bool gpu_idle;
	uint64_t key, ns, frame;
};
void pp_diag_device_measured_credit(const struct pp_diag_measured *m, uint32_t n);

/* A timeline semaphore value a submit call signals (pp_diag_waits_semaphore_signal, host false). */
struct pp_diag_signal {
	uint64_t semaphore, value;
};

/* One submit call as the API's side describes it, everything already translated: no API type
 * here, so the Vulkan hooks and the GLES shim feed the same entry point. */
struct pp_diag_submission {
	uint64_t queue;
	uint32_t n;                        /* recordings, every batch of the call, in order */
	struct pp_diag_rec *const *recs;   /* NULL: a command buffer not followed */
	/* What each recording did after the last event fed to it (NULL, or observed[i] NULL:
	 * nothing), taken before it is judged (pp_diag_barriers_rec_observed). */
	const struct pp_diag_observed *const *observed;
	const uint64_t *cb_handles;        /* names recs[i] */
	uint64_t frame;                    /* the frame clock's index of the call (pp_attr_device_submit) */
	uint64_t ended;                    /* the clock's: every frame below it has ended */
	uint64_t fence;                    /* signalled by the last batch; 0: none */
	uint32_t nsignals;
	const struct pp_diag_signal *signals;
	uint32_t nmeasured;                /* costs read since the last boundary, to credit */
	const struct pp_diag_measured *measured;
	uint32_t max_fired;                /* barrier_cost: fired barriers to return per recording;
					    * 0: none, and no cost probes either */
	/* RenderDoc captures the frame (pp_frame_result.renderdoc): each finding of the
	 * application's recordings is also handed to the config's out.captured, with the call it
	 * sits on. */
	bool renderdoc;
};

/* What a recording of the call asks the API's side to do (barrier_cost). */
#define PP_DIAG_MAX_PROBES 64u
struct pp_diag_rec_todo {
	uint32_t nfired;                   /* call indices (recording order) of the barriers with */
	uint32_t *fired;                   /* findings: timed when it is recorded again */
	uint32_t nprobes;                  /* timestamp pairs of this submission to read later */
	struct pp_diag_cost_probe *probes;
};
/* What the API's side must act on after a submit call, as plain data. */
struct pp_diag_submit_todo {
	uint64_t seq;
	uint32_t nrecs;                    /* the submission's n, or 0 (max_fired 0, out of memory) */
	struct pp_diag_rec_todo *recs;
	uint32_t nmessages;                /* for the application's debug messengers, in order */
	struct pp_diag_message *messages;
};
/* One submit call: takes the recordings' last events, closes and judges them, records its semaphore signals and fence,
 * ends the frames the clock ended, credits the measured costs, and fills *todo (free it with
 * pp_diag_device_submit_todo_free). Returns 0, or -ENOMEM when *todo is incomplete (the rules
 * counted the call all the same; messages not returned stay queued). Never calls out of the
 * rules. */
int pp_diag_device_submitted(struct pp_diag_device *d, const struct pp_diag_submission *s, struct pp_diag_submit_todo *todo);
/* A present where the model's clock counts frames (pp_diag_device_present: the device's own clock):
 * ends the frames below `ended`, credits the measured costs, and returns the queued messages
 * in *todo (nothing else of it is set). Return as pp_diag_device_submitted. */
int pp_diag_device_presented(struct pp_diag_device *d, uint64_t ended, const struct pp_diag_measured *measured,
		      uint32_t nmeasured, struct pp_diag_submit_todo *todo);
void pp_diag_device_submit_todo_free(struct pp_diag_submit_todo *todo);
/* A delimiter without a submit call to the rules (a present, a submit without batches). */
void pp_diag_device_frames_ended(struct pp_diag_device *d, uint64_t ended);
/* Index of the latest frame (the open one, or the last closed one before a new submission). */
uint64_t pp_diag_device_frame(struct pp_diag_device *d);

/* A measured cost for a site (barrier stall, GPU idle after a wait), credited to the frame
 * it occurred in. key: from a finding (pp_diag_cost_key) or a blocking report. */
void pp_diag_sites_cost(uint64_t key, uint64_t ns, uint64_t frame);
void pp_diag_sites_gpu_idle(uint64_t key, uint64_t ns, uint64_t frame);

/* Barrier findings of a closed recording that have timestamp slots: for the intercept to
 * read later (barrier_cost; pp_diag_device_submitted returns them). Returns how many were written
 * to out. */
uint32_t pp_diag_findings_rec_cost_probes(struct pp_diag_device *d, const struct pp_diag_rec *r, uint64_t cb_handle,
				 struct pp_diag_cost_probe *out, uint32_t max);

/* Call indices (in recording order) of the barriers of a closed recording that have findings:
 * barrier_cost instruments only those when the command buffer is recorded again
 * (pp_diag_device_submitted returns them). */
uint32_t pp_diag_findings_rec_fired(const struct pp_diag_rec *r, uint32_t *out, uint32_t max);

/* ---- blocking waits ---------------------------------------------------------------------- */

/* Known to have completed: every submission up to seq (a fence or idle wait returned). */
void pp_diag_waits_completed(struct pp_diag_device *d, uint64_t seq);
/* A queue went idle: its submissions completed (known for all only while one queue submits). */
void pp_diag_waits_queue_idle(struct pp_diag_device *d, uint64_t queue);
uint64_t pp_diag_device_last_seq(struct pp_diag_device *d);
/* The application reset a fence (it no longer names a submission). */
void pp_diag_waits_fence_reset(struct pp_diag_device *d, uint64_t fence);
/* Queries reset on the host: no submission writes them any more. */
void pp_diag_waits_queries_host_reset(struct pp_diag_device *d, uint64_t pool, uint32_t first, uint32_t count);

enum pp_diag_wait_verdict {
	PP_WAIT_FINE = 0,
	PP_WAIT_CURRENT_FRAME,  /* the awaited submission belongs to the latest frame */
	PP_WAIT_NOT_COMPLETE,   /* an older submission not known to have completed */
	PP_WAIT_UNSUBMITTED,    /* no submitted command buffer writes it: would never finish */
	PP_WAIT_UNKNOWN,        /* passprobe does not know who writes it */
};
/* Judges a wait on a fence (before it goes down). *seq: the fence's submission. */
enum pp_diag_wait_verdict pp_diag_waits_fence_check(struct pp_diag_device *d, uint64_t fence, uint64_t *seq);
enum pp_diag_wait_verdict pp_diag_waits_query_check(struct pp_diag_device *d, uint64_t pool, uint32_t first,
					      uint32_t count, uint64_t *seq);

/* One occurrence of a blocking call that a rule flagged. */
struct pp_diag_blocking {
	enum pp_diag_rule rule;
	uint64_t site_key;    /* call site (return address) and function */
	const char *site;     /* for people */
	const char *detail;   /* what was waited on, e.g. "fence of submission 12 (frame 3)" */
	uint64_t cpu_ns;      /* CPU time blocked in the call */
	bool steady_state;    /* count only once the site recurs in the frame loop (three frames) */
	uint32_t thread_id;   /* the thread that waited (kernel id) and its name, for people */
	const char *thread_name;
	/* The waiting thread records, submits and presents nothing (docs/diagnostics.md, "Whose
	 * wait it is"): its wait holds back that thread, not the frame. Information, not a
	 * warning (a site waited on by such a thread and by one of the frame's is a warning). */
	bool worker_thread;
	uint32_t nobjects;
	struct pp_diag_object objects[PP_DIAG_MAX_OBJECTS];
	/* Static: no CPU time belongs to the finding (cpu_ns ignored, the site's cost is
	 * unavailable with this reason), e.g. a pass's attachment traffic; NULL: cpu_ns counts. */
	const char *cost_unavailable;
	/* In a frame RenderDoc captures (docs/frame-debuggers.md): the call the finding sits on,
	 * its index among the frame's calls of that name (from 0, as the capture holds them) and
	 * the frame, listed with the capture once the site is counted. NULL: not such a frame. */
	const char *capture_call;
	uint32_t capture_call_index;
	uint64_t capture_frame;
};
/* Returns the site's key (for pp_diag_sites_gpu_idle), 0 when not counted (yet). */
uint64_t pp_diag_waits_blocking_report(struct pp_diag_device *d, const struct pp_diag_blocking *b);

/* The calls findings may sit on (waits, read-backs, uploads), counted per frame: a finding in
 * a frame RenderDoc captures names its call's index among the frame's calls of that name,
 * which is how the capture's event is found (docs/frame-debuggers.md). Every call of a
 * counted name is counted, flagged or not. `call` is the caller's number for the name
 * (< PP_DIAG_COUNTED_CALLS); returns the index of this call in `frame` (the model's index),
 * from 0. Safe from any thread. */
#define PP_DIAG_COUNTED_CALLS 16u
uint32_t pp_diag_waits_call_count(struct pp_diag_device *d, uint32_t call, uint64_t frame);

/* A non-blocking status poll of an object that was not ready (kind: PP_OBJ_FENCE, ...).
 * Returns the number of such polls of this object in the current frame; *since: when the
 * first of them happened. */
uint32_t pp_diag_waits_poll(struct pp_diag_device *d, enum pp_diag_object_kind kind, uint64_t handle, uint64_t now_ns,
		      uint64_t *since_ns);
uint32_t pp_diag_device_poll_threshold(const struct pp_diag_device *d);

/* Timeline semaphores. At most PP_DIAG_MAX_SEMAPHORES per device are tracked (later ones are
 * not judged: their waits stay silent), each with its PP_DIAG_SEMAPHORE_SIGNALS latest
 * signals; an older signal is remembered only as the highest value evicted. */
#define PP_DIAG_MAX_SEMAPHORES 256u
#define PP_DIAG_SEMAPHORE_SIGNALS 8u
/* A timeline semaphore was created with this initial value. Returns false when not tracked. */
bool pp_diag_waits_semaphore_create(struct pp_diag_device *d, uint64_t sem, uint64_t initial);
void pp_diag_waits_semaphore_destroy(struct pp_diag_device *d, uint64_t sem);
/* A signal of a tracked semaphore (others are ignored): by the submission just made
 * (pp_diag_device_submit; host false), or by the host (vkSignalSemaphore; host true), which is
 * not from a submission. */
void pp_diag_waits_semaphore_signal(struct pp_diag_device *d, uint64_t sem, uint64_t value, bool host);
/* Judges a wait for the semaphore to reach value (before it goes down): the submission
 * whose signal first reaches it (*seq); PP_WAIT_FINE for a host signal, a value known
 * reached or one older than the signals remembered; PP_WAIT_UNKNOWN when untracked or no
 * known signal reaches it. */
enum pp_diag_wait_verdict pp_diag_waits_semaphore_check(struct pp_diag_device *d, uint64_t sem, uint64_t value,
						  uint64_t *seq);
/* The semaphore was seen at this value (a counter read, a wait that returned): the
 * submissions whose signals it covers have completed. Returns true when a submitted signal
 * beyond the value is still pending (a read that found the GPU not done). */
bool pp_diag_waits_semaphore_reached(struct pp_diag_device *d, uint64_t sem, uint64_t value);

/* ---- delivery --------------------------------------------------------------------------- */

/* Takes up to max queued messenger messages of this device (app thread, at a boundary). */
uint32_t pp_diag_device_messages_take(struct pp_diag_device *d, struct pp_diag_message *out, uint32_t max);

#define PP_DIAG_MAX_SITES 4096
/* A copy of the site table, for report.json (the writer thread). Returns the number of
 * entries written (at most max); *other: occurrences that found the table full. */
size_t pp_diag_sites_snapshot(struct pp_diagnostic *out, size_t max, uint64_t *other);
/* For tests: forgets every site. */
void pp_diag_sites_clear(void);
