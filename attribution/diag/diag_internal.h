#pragma once
/* What the files of attribution/diag share: bounds, the site table, recordings and device
 * state. Not for use outside this folder (attr_diag.h is the public header). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attr_diag.h"
#include "attr_frame.h"
#include "pp_clock.h"
#include "pp_log.h"
#include "pp_settings.h"
#include "pp_thread.h"

#define NO_INDEX UINT32_MAX
#define NSTAGES 18
#define REC_MAX_BARRIERS 16384u
#define REC_MAX_ENTRIES 65536u
#define REC_MAX_RESOURCES 16384u
/* What a closed recording keeps of its resource map and entries (pp_diag_rec_summary_barrier_compact). */
#define REC_MAP_KEPT 256u
#define REC_ENTRIES_KEPT 64u
#define REC_MAX_QUERIES 1024u
#define REC_MAX_EVENTS 64u
#define REC_MAX_COMPUTE_WRITES 1024u
#define REC_API_NAMES 8u          /* barrier call names counted apart (vkCmdPipelineBarrier, ...) */
#define REC_MAX_TAILS 4096u        /* windows open at the end of a recording that are followed on */
#define REC_MAX_FIRST_USES 4096u   /* resources a recording's summary describes */
#define MERGE_MAX_PAIRS 1024u      /* resource comparisons for two back-to-back barrier calls */
#define DEV_MAX_FENCES 4096u
#define DEV_MAX_POOLS 256u
#define DEV_MAX_POOL_QUERIES 65536u
#define DEV_MAX_POLLS 64u
#define DEV_MAX_PENDING 64u
/* A steady-state site is counted once it waits in a third frame within this many frames of the
 * first of the three (docs/diagnostics.md, "Steady state"). */
#define STEADY_FRAMES 3u
#define STEADY_WINDOW 64u
#define DEV_MAX_TAINT 256u
#define DEV_MESSAGES 64u
#define TAINT_FRAMES 2u


/* "Find, else add, else replace the oldest" in a small fixed table (*n of max elements of size
 * bytes): the element same() says is key's, else a new one while there is room, else the one
 * age() says is oldest (lowest). The caller fills it either way. */
static inline void *diag_slot(void *tab, uint32_t *n, uint32_t max, size_t size, const void *key,
			      bool (*same)(const void *elem, const void *key), uint64_t (*age)(const void *elem))
{
	char *t = tab;
	for (uint32_t i = 0; i < *n; i++)
		if (same(t + i * size, key))
			return t + i * size;
	if (*n < max)
		return t + (*n)++ * size;
	char *oldest = t;
	for (uint32_t i = 1; i < *n; i++)
		if (age(t + i * size) < age(oldest))
			oldest = t + i * size;
	return oldest;
}

static inline uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}



struct site {
	uint64_t key;
	struct pp_diagnostic d;
	char trace_name[256]; /* "ID @ site": stays valid for the sinks (sites are never moved) */
	uint64_t last_counted_frame;
	uint64_t cost_sum, cost_frames, cost_last_frame, cost_frame_sum;
	uint64_t cost_n; /* measurements (barriers: one per timed occurrence) */
	uint64_t idle_sum, idle_n;
	bool counted_any;
	uint32_t ncbs;
	uint64_t cbs[PP_DIAGNOSTIC_MAX_CBS];
	/* The experiment (diag_experiment.c, under its lock): whether an occurrence was judged, the
	 * site's experiment entry (NO_INDEX: none), and why it has none. */
	bool exp_counted;
	uint32_t exp_entry;
	char exp_why[256];
};

#define FRAME_STAT_DEVICES 32
struct frame_stat {
	uint32_t device_id;
	uint64_t first_close_ns, last_close_ns, closes;
};

struct diag_site_table {
	pthread_mutex_t lock;
	struct site **sites;  /* each allocated once: their addresses are stable */
	uint32_t nsites, cap;
	uint32_t *index; /* open addressing: site index + 1, 0 = empty; 2 * PP_DIAG_MAX_SITES */
	uint64_t other;
	bool full_logged;
	struct frame_stat frames[FRAME_STAT_DEVICES];
};
extern struct diag_site_table pp_diag_sites_table;

#define INDEX_SLOTS (2 * PP_DIAG_MAX_SITES)

/* ---- recordings ------------------------------------------------------------------------ */

struct rec_entry {
	uint64_t handle;
	uint32_t format_bucket;
	enum pp_diag_res_kind kind;
	enum pp_diag_layout old_layout, new_layout;
	uint32_t barrier;      /* NO_INDEX: uses since the recording began, before any barrier */
	uint32_t src_access, dst_access;
	uint64_t opened;       /* tick */
	uint32_t uses;         /* stages of precise uses in the window */
	uint32_t write_uses;   /* ... of those that write (storage descriptors) */
	uint32_t prev;         /* global: the entry whose window this one closed */
	uint32_t prev_window;  /* images, buffers: the one barrier window it closed, covering its
				* range whole (NO_INDEX: none, or several) */
	uint32_t dst_stages;   /* the barrier struct's own (vkCmdPipelineBarrier2), else the call's */
	uint64_t first_use;    /* tick of the first precise use in its window; 0: none */
	uint32_t prev_uses;    /* images, buffers: uses in the windows this one closed */
	struct pp_diag_range range;
	uint32_t next_open;    /* images, buffers: the next open entry of the resource */
	bool met;              /* a later barrier covered part of its range (it may chain through it) */
	bool open;
	uint32_t consumers;    /* at close */
	const char *unproven;  /* at close: why the consumers are not complete */
	bool tail;             /* still open at the end of the recording */
	bool queue_transfer;
};

struct rec_barrier {
	uint64_t loc_key; /* pp_diag_barrier::loc_key */
	bool untimed;
	uint32_t index;        /* call index in the recording (kept when closed recordings are compacted) */
	uint32_t api_index;    /* ... among the calls named `api` only: where a frame debugger finds it */
	char site[160];
	const char *api;
	uint32_t src_raw, dst_raw;
	uint32_t first, n;     /* entries */
	uint32_t open;         /* entries still open */
	uint64_t tick;
	uint64_t hash;
	bool acquire, in_render_pass;
	uint32_t ts_before, ts_after;
	uint32_t fired;        /* bit per enum pp_diag_rule */
	uint32_t src_access, dst_access; /* unions */
	uint64_t example;      /* a resource it covers, for messages */
	enum pp_diag_res_kind example_kind;
	uint32_t producers;    /* proven producer stages (0: none proven) */
	uint32_t producers_partial; /* proven for some of its resources, when others are not */
	const char *producers_unproven;
	uint32_t consumers;
	const char *consumers_unproven;
	uint32_t dst_suggested;
	bool evaluated;
	bool drain, sync2, by_region, events;
	/* Windows open at the end of the recording: judged again per submission, with the
	 * consumers in the later command buffers (the sub_* fields: the latest submission). */
	bool tail;
	uint32_t closed_consumers;      /* of its windows closed inside the recording */
	uint32_t writes, closed_writes; /* consumer stages that write (all windows; closed ones) */
	const char *closed_unproven;
	uint32_t sub_fired;
	uint32_t sub_dst_suggested;
	const char *sub_unproven;
	uint64_t sub_unused;            /* PP_DIAG_UNUSED: a resource nothing later uses */
	enum pp_diag_res_kind sub_unused_kind;
	bool sub_unused_all;            /* ... and so are all the others it covers */
	/* PP_DIAG_MERGEABLE: the call right before it, and how the two become one */
	uint32_t merge_src, merge_dst;
	const char *merge_api;
	enum { MERGE_SYNC1_EXACT = 1, MERGE_AS_SYNC2, MERGE_SYNC2 } merge;
	uint64_t merge_loc;             /* the call right before it: its code location */
	/* The experiment (diag_experiment.c, at close): stages written after it, to the end of its
	 * recording, by work passprobe cannot show a barrier of its own orders (exp_exposed; with the
	 * later command buffers of the submission: sub_exposed); whether removing it is proven
	 * (ReadToRead: exp_drop_why NULL); whether the intercept rewrote this call. */
	uint32_t exp_exposed, sub_exposed;
	const char *exp_drop_why;
	bool exp_fixed;
	/* its barrier structs' distinct (dstAccessMask, dstStageMask) pairs, kept at close for the
	 * check that a narrowed mask still has a stage for each access (the entries are compacted
	 * away before the findings are counted); more than EXP_PAIRS: exp_pairs_overflow */
	uint8_t nexp_pairs;
	bool exp_pairs_overflow;
	struct {
		uint32_t access, stages;
	} exp_pairs[4];
};
#define EXP_PAIRS 4u

/* A window still open at the end of its recording. */
struct rec_tail {
	uint64_t handle;
	struct pp_diag_range range;
	enum pp_diag_res_kind kind;
	enum pp_diag_layout new_layout;
	uint32_t format_bucket;
	uint32_t barrier;      /* index into barriers */
	uint32_t consumers;    /* in its own recording */
	uint32_t writes;       /* consumers that write */
	const char *unproven;  /* in its own recording (secondaries), or NULL */
	uint32_t work;         /* PP_WORK_* after it in its own recording */
	bool unused_candidate; /* buffer or image, no layout transition, no queue transfer */
};

/* What a recording does with a resource: its unbarriered uses and its barriers, by range
 * (records [first, first + n) of first_recs, in recording order). */
struct rec_first_use {
	uint64_t key;          /* pp_diag_ranges_barrier_res_key(); 0: empty slot */
	uint32_t first, n;
	uint32_t nbarriers, nuses;           /* records of each kind */
	uint32_t fill_barriers, fill_uses;   /* while building */
	bool overflow;         /* more barrier ranges than PP_DIAG_RANGES: not followed by range */
};
struct rec_range_rec {
	struct pp_diag_range range;
	uint64_t tick;         /* the barrier, or the first of the uses */
	uint32_t uses;         /* use stages; barriers: 0 */
	uint32_t writes;       /* use stages that write */
	bool barrier;
};

struct compute_write {
	uint64_t handle;
	enum pp_diag_res_kind kind;
	uint64_t tick;
};

/* A write of a known resource (a storage descriptor; in the experiment, a render pass
 * attachment), for the experiment's proof that work after a barrier writes nothing the
 * barrier alone orders (diag_experiment.c). */
#define REC_MAX_WRITES 1024u
struct write_rec {
	uint64_t handle;
	enum pp_diag_res_kind kind;
	struct pp_diag_range range;
	uint32_t stages;
	uint64_t tick;
};

struct query_write {
	uint64_t pool;
	uint32_t first, count;
};

struct set_event {
	uint64_t event;
	uint64_t tick;
};

/* A flagged subpass dependency of a render pass begun in the recording. */
struct rec_subpass {
	uint64_t render_pass;
	uint32_t begins;  /* render pass instances of it in the recording */
	struct pp_diag_subpass_dep dep;
	char name[64];
};

struct pp_diag_rec {
	uint64_t tick;
	bool closed;
	bool incomplete;           /* a bound was hit: some barriers are not judged */
	uint64_t work_tick[PP_WORK_BITS];
	uint64_t draw_stage_tick[NSTAGES];
	uint64_t unknown_stage_tick[NSTAGES];
	uint64_t use_stage_tick[NSTAGES];
	uint64_t format_tick[32];      /* attachments of these format buckets began */
	/* the first time of each of the above: what a window carried in from an earlier
	 * command buffer of the submission sees before this recording's own barriers */
	uint64_t first_work_tick[PP_WORK_BITS];
	uint64_t first_draw_stage_tick[NSTAGES];
	uint64_t first_unknown_stage_tick[NSTAGES];
	uint64_t first_use_stage_tick[NSTAGES];
	uint64_t first_format_tick[32];
	uint64_t first_global_tick;    /* its first global barrier; UINT64_MAX: none */
	uint64_t last_work_tick;
	uint64_t last_cmd_tick;        /* any command passprobe sees (work, event, query) */
	uint64_t last_barrier_tick;
	uint64_t last_barrier_hash;
	bool have_barrier;
	/* Barrier calls so far by name (pp_diag_barrier::api, one of a few static names). */
	const char *api_names[REC_API_NAMES];
	uint32_t api_calls[REC_API_NAMES];
	uint64_t gen;                  /* unique per recording (process-wide) */
	/* A layer above passprobe recorded it, its own work (pp_diag_barriers_rec_owner); NULL: the
	 * application. */
	const char *owner;

	/* summary kept after closing, for the submissions it is part of */
	struct rec_tail *tails;
	uint32_t ntails;
	bool tails_overflow;
	struct rec_first_use *first_uses; /* open addressing, power-of-two capacity */
	uint32_t first_uses_cap;
	struct rec_range_rec *first_recs;
	bool first_uses_overflow;
	uint64_t sub_sig;              /* the neighbours the sub_* verdicts were made with */
	bool sub_valid;

	struct rec_barrier *barriers;
	uint32_t nbarriers, cap_barriers;
	struct rec_entry *entries;
	uint32_t nentries, cap_entries;
	uint32_t global_open;      /* the open global entry */

	/* resource -> open entry: open addressing, slots hold entry index + 1 */
	uint32_t *map;
	uint64_t *map_keys;
	uint32_t map_cap, map_used;

	struct compute_write *cwrites;
	uint32_t ncwrites, cap_cwrites;
	struct query_write *queries;
	uint32_t nqueries, cap_queries;
	struct set_event *events;
	uint32_t nevents, cap_events;
	struct rec_subpass *subpasses;
	uint32_t nsubpasses, cap_subpasses;

	/* The experiment: writes of known resources in order, and when render pass attachments
	 * whose images are not all known last began (anonymous writes); the stages it writes at,
	 * known or not (what a barrier of an earlier command buffer of the submission is followed
	 * into); whether it was submitted again without being recorded anew. */
	struct write_rec *writes;
	uint32_t nwrites, cap_writes;
	bool writes_overflow;
	uint64_t unnamed_attachment_tick;
	/* since the last work fed: observations named attachment images / had some not named */
	bool attachments_named, attachments_unnamed;
	uint32_t exp_write_stages;
	bool exp;
	bool resubmitted;

	/* pp_diag_barriers_format_bucket() of the attachment format names observed last (format_memo_of):
	 * the names are static strings, so one address is one format for the whole process, and
	 * this survives the recording's resets. A render pass begins at every observation of the
	 * passes, and hashing its formats' names again cost more than the rest of the rules' step. */
	const char *format_memo_name[4];
	uint32_t format_memo_bucket[4];
};


/* ---- devices ------------------------------------------------------------------------------ */

struct fence_rec {
	uint64_t fence, seq, frame;
};

struct pool_rec {
	uint64_t pool;
	uint32_t nqueries;
	uint64_t *seq;   /* per query: submission that last wrote it, 0: none */
	uint64_t *frame;
};

struct poll_rec {
	enum pp_diag_object_kind kind;
	uint64_t handle, frame, since;
	uint32_t count;
};

/* A steady-state site not counted yet: the latest frames in which it waited, oldest first, each
 * with its calls and their CPU time, kept until a further frame confirms the site. */
struct pending_frame {
	uint64_t frame, calls, cpu_ns;
};

struct pending_site {
	uint64_t key;
	struct pending_frame seen[STEADY_FRAMES - 1];
	uint32_t nseen;
	bool used;
};

/* A timeline semaphore's signal: seq 0 for a host signal (or the initial value). */
struct sem_signal {
	uint64_t value, seq, frame;
};

struct sem_rec {
	uint64_t sem;
	bool used;
	uint64_t reached;      /* the counter is known to be at least this */
	uint64_t evicted_max;  /* the highest value of the signals no longer remembered */
	struct sem_signal sig[PP_DIAG_SEMAPHORE_SIGNALS];
	uint32_t nsig, oldest;
};

struct taint {
	uint64_t handle;
	enum pp_diag_res_kind kind;
	uint64_t frame;
	char site[160]; /* the fragment->compute barrier */
};

struct pp_diag_device {
	pthread_mutex_t lock;
	struct pp_diag_config cfg;
	/* pp_diag_waits_call_count: per counted call, frame << 24 | calls in that frame (atomic; no lock:
	 * an upload may be counted on every draw's way). */
	uint64_t call_counts[PP_DIAG_COUNTED_CALLS];
	/* Frame indices come from a frame clock (attribution/model/attr_frame.h): the model's,
	 * handed in through pp_diag_device_submitted and pp_diag_device_frames_ended (the layer does), so they are
	 * report.json's; or, for a program that drives the rules alone (the unit tests), this
	 * device's own, through pp_diag_device_submit, _submit_done and _present. */
	struct pp_frame_clock own_clock;
	bool frame_open; /* a submission of `frame` was seen and the frame has not ended */
	uint64_t frame;
	uint64_t next_seq, completed;
	uint64_t only_queue;   /* the queue that submitted, while only one did */
	bool many_queues;
	struct fence_rec fences[DEV_MAX_FENCES];
	uint32_t nfences;
	struct pool_rec pools[DEV_MAX_POOLS];
	uint32_t npools;
	struct poll_rec polls[DEV_MAX_POLLS];
	struct pending_site pending[DEV_MAX_PENDING];
	struct taint taints[DEV_MAX_TAINT];
	uint32_t ntaints;
	struct sem_rec sems[PP_DIAG_MAX_SEMAPHORES];
	struct pp_diag_message messages[DEV_MESSAGES];
	uint32_t msg_head, msg_count;
	uint64_t messages_dropped;
	/* The experiment's blocks (diag_experiment.c, under its lock): the arm of the latest
	 * recording asked about, and the site the fixed arm's block rewrites. */
	uint32_t exp_last_arm;
	uint32_t exp_active;
};


#define UNPROVEN_NO_USER "nothing after it in this submission uses what it covers (the user may be in a later submission)"

struct work_view {
	uint32_t work, draw_stages, use_stages, unknown_stages, formats;
};

/* Shared between the files of this folder; each is defined in the file its prefix names. */
/* diag_vocab.c */
uint32_t pp_diag_vocab_lowest_bit(uint32_t s);
int pp_diag_vocab_stage_order(uint32_t bit);

/* diag_sites.c */
struct site *pp_diag_sites_find_locked(uint64_t key);
struct site *pp_diag_sites_insert_locked(uint64_t key);
void pp_diag_sites_count_locked(struct site *s, uint64_t frame, uint64_t n);
const char *pp_diag_sites_first_seen_locked(struct site *s, struct pp_diagnostic *copy);
void pp_diag_sites_frame_closed(uint32_t device_id);

/* The index of a barrier call among the recording's calls of the same name (counted as they
 * are recorded; first: the recording's first barrier, which starts the counts). A name past
 * the few counted apart shares the last count (an index a frame debugger may not find). */
static inline uint32_t diag_rec_api_call_count(struct pp_diag_rec *r, const char *api, bool first)
{
	if (first)
		memset(r->api_calls, 0, sizeof(r->api_calls));
	uint32_t i = 0;
	for (; i < REC_API_NAMES - 1 && r->api_calls[i]; i++)
		if (r->api_names[i] == api || (api && r->api_names[i] && !strcmp(r->api_names[i], api)))
			break;
	r->api_names[i] = api;
	return r->api_calls[i]++;
}

/* diag_barriers.c */
void pp_diag_barriers_rec_close(struct pp_diag_rec *r);
void pp_diag_rec_summary_barrier_compact(struct pp_diag_rec *r);
uint32_t pp_diag_barriers_anon_consumers(const struct work_view *v, enum pp_diag_res_kind kind, enum pp_diag_layout l,
			       uint32_t format_bucket, const char **unproven);
uint32_t pp_diag_barriers_dst_judge(const struct rec_barrier *b, uint32_t consumers, uint32_t writes, const char *unproven,
			  uint32_t *dst_suggested);
void pp_diag_barriers_finding(struct rec_barrier *b, enum pp_diag_rule rule);
struct rec_first_use *pp_diag_rec_summary_barrier_first_use_slot(const struct pp_diag_rec *r, uint64_t key);
uint64_t pp_diag_ranges_barrier_res_key(enum pp_diag_res_kind kind, uint64_t handle);
void pp_diag_barriers_view_before(const struct pp_diag_rec *r, uint64_t until, struct work_view *v);

/* diag_ranges.c: ranges normalized (an end of 0 is "to the end"), containment, bounding. */
struct pp_diag_range pp_diag_ranges_norm(const struct pp_diag_range *in);
bool pp_diag_ranges_contains(const struct pp_diag_range *a, const struct pp_diag_range *b);
void pp_diag_ranges_bound(struct pp_diag_range *a, const struct pp_diag_range *b);

/* diag_rec_summary.c: a closing recording's first uses per resource (pp_diag_barriers_rec_close). */
void pp_diag_rec_summary_first_uses_build(struct pp_diag_rec *r);

/* diag_findings.c */
void pp_diag_findings_chain_evaluate(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t frame);
/* A site's texts with the call it sits on, for the list of a captured frame's diagnostics
 * (pp_diag_outputs.captured); command_buffer 0: a call outside command buffers. */
void pp_diag_findings_occurrence_fill(struct pp_diagnostic_occurrence *o, const struct pp_diagnostic *site, const char *call,
			  uint32_t call_index, uint64_t command_buffer);
/* renderdoc: the frame is one RenderDoc captures (pp_diag_submission.renderdoc). */
void pp_diag_findings_rec_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame,
			    bool renderdoc);
void pp_diag_findings_judge_submission(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i);
void pp_diag_findings_subpass_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame);

/* diag_device.c */
struct pool_rec *pp_diag_device_pool_find(struct pp_diag_device *d, uint64_t pool, uint32_t need, bool create);
void pp_diag_device_site_announce(struct pp_diag_device *d, const struct pp_diagnostic *s, const char *trace_name,
			  const struct pp_diag_object *objs, uint32_t nobjs, enum pp_diag_rule rule, uint64_t frame);

/* diag_experiment.c */
void pp_diag_experiment_rec_work(struct pp_diag_rec *r, uint32_t work, uint32_t unknown_stages);
void pp_diag_experiment_write_note(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle,
			 const struct pp_diag_range *rg, uint32_t stages);
void pp_diag_experiment_rec_close(struct pp_diag_rec *r);
uint32_t pp_diag_experiment_stages_later(const struct pp_diag_rec *q);
void pp_diag_experiment_occurrence(struct pp_diag_device *d, const struct pp_diag_rec *r, const struct rec_barrier *b,
			 enum pp_diag_rule rule, struct site *s, uint64_t frame);
void pp_diag_experiment_snapshot_locked(const struct site *s, struct pp_diagnostic *out);
void pp_diag_experiment_fixed_unproven(struct pp_diag_device *d, const struct rec_barrier *b);
void pp_diag_experiment_site_out(const struct pp_diag_device *d, struct site *s, const char *why);
void pp_diag_experiment_clear(void);

/* diag_severity.c: a site's severity and verdict (the rule's, or what a finding says) */
void pp_diag_severity_set(struct pp_diagnostic *d, enum pp_diag_severity sev, const char *why);
void pp_diag_severity_of_rule(struct pp_diagnostic *d, enum pp_diag_rule rule);
/* A finding in work a layer above passprobe recorded for itself (owner: its library). */
void pp_diag_severity_foreign(struct pp_diagnostic *d, const char *owner);
enum pp_diag_severity pp_diag_severity_of(const struct pp_diagnostic *d);

/* diag_waits.c */
void pp_diag_waits_semaphore_signal_locked(struct pp_diag_device *d, uint64_t sem, uint64_t value, bool host);
