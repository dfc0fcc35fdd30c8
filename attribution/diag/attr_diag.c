/* Diagnostics rules: barrier analysis over recordings, blocking-wait rules, the site table.
 * What each rule proves and when it stays silent: docs/diagnostics.md. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attr_diag.h"
#include "attr_frame.h"
#include "pp_log.h"
#include "pp_settings.h"
#include "pp_sink.h"

#define NO_INDEX UINT32_MAX
#define NSTAGES 18
#define REC_MAX_BARRIERS 16384u
#define REC_MAX_ENTRIES 65536u
#define REC_MAX_RESOURCES 16384u
#define REC_MAX_QUERIES 1024u
#define REC_MAX_EVENTS 64u
#define REC_MAX_COMPUTE_WRITES 1024u
#define REC_MAX_TAILS 4096u        /* windows open at the end of a recording that are followed on */
#define REC_MAX_FIRST_USES 4096u   /* resources a recording's summary describes */
#define MERGE_MAX_PAIRS 1024u      /* resource comparisons for two back-to-back barrier calls */
#define DEV_MAX_FENCES 4096u
#define DEV_MAX_POOLS 256u
#define DEV_MAX_POOL_QUERIES 65536u
#define DEV_MAX_POLLS 64u
#define DEV_MAX_PENDING 64u
#define DEV_MAX_TAINT 256u
#define DEV_MESSAGES 64u
#define TAINT_FRAMES 2u

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* ---- stages and accesses ---------------------------------------------------------------- */

static const char *const stage_names[NSTAGES] = {
	"TOP_OF_PIPE",          "DRAW_INDIRECT",       "VERTEX_INPUT",   "VERTEX_SHADER",
	"TESSELLATION_CONTROL_SHADER", "TESSELLATION_EVALUATION_SHADER", "GEOMETRY_SHADER",
	"EARLY_FRAGMENT_TESTS", "FRAGMENT_SHADER",     "LATE_FRAGMENT_TESTS", "COLOR_ATTACHMENT_OUTPUT",
	"COMPUTE_SHADER",       "TRANSFER",            "BOTTOM_OF_PIPE", "HOST",
	"ALL_GRAPHICS",         "ALL_COMMANDS",        "OTHER",
};

static const char *const access_names[] = {
	"INDIRECT_COMMAND_READ", "INDEX_READ",         "VERTEX_ATTRIBUTE_READ", "UNIFORM_READ",
	"INPUT_ATTACHMENT_READ", "SHADER_READ",        "SHADER_WRITE",          "COLOR_ATTACHMENT_READ",
	"COLOR_ATTACHMENT_WRITE", "DEPTH_STENCIL_ATTACHMENT_READ", "DEPTH_STENCIL_ATTACHMENT_WRITE",
	"TRANSFER_READ",         "TRANSFER_WRITE",     "HOST_READ",             "HOST_WRITE",
	"MEMORY_READ",           "MEMORY_WRITE",       "OTHER_READ",            "OTHER_WRITE",
};

uint32_t pp_stage_expand(uint32_t s, bool second_scope)
{
	uint32_t out = s & ~(PP_STAGE_ALL_GRAPHICS | PP_STAGE_ALL_COMMANDS | PP_STAGE_TOP | PP_STAGE_BOTTOM);
	if (s & PP_STAGE_ALL_GRAPHICS)
		out |= PP_STAGE_GRAPHICS;
	if (s & PP_STAGE_ALL_COMMANDS)
		out |= PP_STAGE_WORK;
	if (second_scope ? (s & PP_STAGE_TOP) : (s & PP_STAGE_BOTTOM))
		out |= PP_STAGE_WORK;
	return out;
}

static size_t names_join(uint32_t bits, const char *const *names, uint32_t nnames, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	if (!bits)
		return (size_t)snprintf(buf, len, "NONE");
	for (uint32_t i = 0; i < nnames; i++) {
		if (!(bits & (1u << i)))
			continue;
		int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", n ? "|" : "", names[i]);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}

size_t pp_stage_names(uint32_t stages, char *buf, size_t len)
{
	/* Spelled-out masks read better folded back. */
	if ((stages & PP_STAGE_WORK) == PP_STAGE_WORK)
		stages = (stages & ~PP_STAGE_WORK) | PP_STAGE_ALL_COMMANDS;
	else if ((stages & PP_STAGE_GRAPHICS) == PP_STAGE_GRAPHICS)
		stages = (stages & ~PP_STAGE_GRAPHICS) | PP_STAGE_ALL_GRAPHICS;
	return names_join(stages, stage_names, NSTAGES, buf, len);
}

size_t pp_access_names(uint32_t access, char *buf, size_t len)
{
	return names_join(access, access_names, sizeof(access_names) / sizeof(access_names[0]), buf, len);
}

uint32_t pp_access_stages(uint32_t a)
{
	uint32_t s = 0;
	if (a & PP_ACCESS_INDIRECT_READ)
		s |= PP_STAGE_DRAW_INDIRECT;
	if (a & (PP_ACCESS_INDEX_READ | PP_ACCESS_VERTEX_READ))
		s |= PP_STAGE_VERTEX_INPUT;
	if (a & (PP_ACCESS_UNIFORM_READ | PP_ACCESS_SHADER_READ | PP_ACCESS_SHADER_WRITE))
		s |= PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER | PP_STAGE_COMPUTE;
	if (a & PP_ACCESS_INPUT_ATTACHMENT_READ)
		s |= PP_STAGE_FRAGMENT_SHADER;
	if (a & (PP_ACCESS_COLOR_READ | PP_ACCESS_COLOR_WRITE))
		s |= PP_STAGE_COLOR_OUTPUT;
	if (a & (PP_ACCESS_DEPTH_READ | PP_ACCESS_DEPTH_WRITE))
		s |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	if (a & (PP_ACCESS_TRANSFER_READ | PP_ACCESS_TRANSFER_WRITE))
		s |= PP_STAGE_TRANSFER;
	if (a & (PP_ACCESS_HOST_READ | PP_ACCESS_HOST_WRITE))
		s |= PP_STAGE_HOST;
	if (a & (PP_ACCESS_MEMORY_READ | PP_ACCESS_MEMORY_WRITE))
		s |= PP_STAGE_WORK | PP_STAGE_HOST;
	if (a & (PP_ACCESS_OTHER_READ | PP_ACCESS_OTHER_WRITE))
		s |= PP_STAGE_OTHER;
	return s;
}

/* Logical position of a graphics stage; compute and transfer come right after the top. */
static int stage_order(uint32_t bit)
{
	for (int i = 0; i < NSTAGES; i++)
		if (bit == (1u << i))
			return i;
	return NSTAGES;
}

static uint32_t lowest_bit(uint32_t s)
{
	return s & (~s + 1u);
}

/* ---- rules ------------------------------------------------------------------------------ */

static const char *const rule_ids[PP_DIAG_RULE_COUNT] = {
	[PP_DIAG_FULL_DRAIN] = "PASSPROBE-Barrier-FullPipelineDrain",
	[PP_DIAG_DST_TOO_EARLY] = "PASSPROBE-Barrier-DstStageTooEarly",
	[PP_DIAG_SRC_TOO_LATE] = "PASSPROBE-Barrier-SrcStageTooLate",
	[PP_DIAG_READ_TO_READ] = "PASSPROBE-Barrier-ReadToRead",
	[PP_DIAG_DUPLICATE] = "PASSPROBE-Barrier-Duplicate",
	[PP_DIAG_CHAIN] = "PASSPROBE-Barrier-FragmentComputeVertexChain",
	[PP_DIAG_SET_EVENT_WAIT] = "PASSPROBE-Barrier-SetEventThenWait",
	[PP_DIAG_QUERY_WAIT] = "PASSPROBE-Blocking-QueryWait",
	[PP_DIAG_QUERY_WAIT_UNSUBMITTED] = "PASSPROBE-Blocking-QueryWaitUnsubmitted",
	[PP_DIAG_FENCE_WAIT] = "PASSPROBE-Blocking-FenceWaitSameFrame",
	[PP_DIAG_QUEUE_WAIT_IDLE] = "PASSPROBE-Blocking-QueueWaitIdle",
	[PP_DIAG_DEVICE_WAIT_IDLE] = "PASSPROBE-Blocking-DeviceWaitIdle",
	[PP_DIAG_POLLING] = "PASSPROBE-Blocking-PollingLoop",
	[PP_DIAG_SEMAPHORE_WAIT] = "PASSPROBE-Blocking-SemaphoreWaitSameFrame",
	[PP_DIAG_SUBPASS_NOT_BY_REGION] = "PASSPROBE-Barrier-SubpassDependencyNotByRegion",
	[PP_DIAG_UNUSED] = "PASSPROBE-Barrier-Unused",
	[PP_DIAG_MERGEABLE] = "PASSPROBE-Barrier-Mergeable",
};

const char *pp_diag_rule_id(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_ids[rule] : "PASSPROBE-unknown";
}

bool pp_diag_rule_is_barrier(enum pp_diag_rule rule)
{
	return rule <= PP_DIAG_SET_EVENT_WAIT || rule == PP_DIAG_SUBPASS_NOT_BY_REGION || rule == PP_DIAG_UNUSED ||
	       rule == PP_DIAG_MERGEABLE;
}

/* ---- the site table (process-wide) ---------------------------------------------------------- */

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
};

#define FRAME_STAT_DEVICES 32
struct frame_stat {
	uint32_t device_id;
	uint64_t first_close_ns, last_close_ns, closes;
};

static struct {
	pthread_mutex_t lock;
	struct site **sites;  /* each allocated once: their addresses are stable */
	uint32_t nsites, cap;
	uint32_t *index; /* open addressing: site index + 1, 0 = empty; 2 * PP_DIAG_MAX_SITES */
	uint64_t other;
	bool full_logged;
	struct frame_stat frames[FRAME_STAT_DEVICES];
} g_sites = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define INDEX_SLOTS (2 * PP_DIAG_MAX_SITES)

static struct site *site_find_locked(uint64_t key)
{
	if (!g_sites.index)
		return NULL;
	for (uint32_t i = (uint32_t)(key % INDEX_SLOTS), n = 0; n < INDEX_SLOTS; i = (i + 1) % INDEX_SLOTS, n++) {
		uint32_t v = g_sites.index[i];
		if (!v)
			return NULL;
		if (g_sites.sites[v - 1]->key == key)
			return g_sites.sites[v - 1];
	}
	return NULL;
}

/* NULL when the table is full (counted as other) or memory ran out. */
static struct site *site_insert_locked(uint64_t key)
{
	if (g_sites.nsites >= PP_DIAG_MAX_SITES) {
		if (!g_sites.full_logged)
			pp_log(PP_LOG_WARN, "diagnostics: %u distinct sites recorded; further sites are counted as "
					    "\"other\"", PP_DIAG_MAX_SITES);
		g_sites.full_logged = true;
		g_sites.other++;
		return NULL;
	}
	if (!g_sites.index && !(g_sites.index = calloc(INDEX_SLOTS, sizeof(uint32_t))))
		return NULL;
	if (g_sites.nsites == g_sites.cap) {
		uint32_t cap = g_sites.cap ? g_sites.cap * 2 : 64;
		if (cap > PP_DIAG_MAX_SITES)
			cap = PP_DIAG_MAX_SITES;
		struct site **p = realloc(g_sites.sites, cap * sizeof(*p));
		if (!p)
			return NULL;
		g_sites.sites = p;
		g_sites.cap = cap;
	}
	struct site *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	g_sites.sites[g_sites.nsites] = s;
	s->key = key;
	uint32_t i = (uint32_t)(key % INDEX_SLOTS);
	while (g_sites.index[i])
		i = (i + 1) % INDEX_SLOTS;
	g_sites.index[i] = ++g_sites.nsites;
	return s;
}

static void site_count_locked(struct site *s, uint64_t frame, uint64_t n)
{
	if (!s->counted_any) {
		s->d.first_frame = s->d.last_frame = frame;
		s->counted_any = true;
	}
	if (!s->d.frames || frame != s->last_counted_frame)
		s->d.frames++;
	s->last_counted_frame = frame;
	if (frame > s->d.last_frame)
		s->d.last_frame = frame;
	if (frame < s->d.first_frame)
		s->d.first_frame = frame;
	s->d.count += n;
}

/* A site counted for the first time: its trace event name ("ID @ site", kept in the site, so
 * it stays valid for the sinks) and a copy to announce once the site lock is released. */
static const char *site_first_seen_locked(struct site *s, struct pp_diagnostic *copy)
{
	snprintf(s->trace_name, sizeof(s->trace_name), "%s @ %s", s->d.id, s->d.site);
	*copy = s->d;
	return s->trace_name;
}

void pp_diag_site_cost(uint64_t key, uint64_t ns, uint64_t frame)
{
	pthread_mutex_lock(&g_sites.lock);
	struct site *s = site_find_locked(key);
	if (s) {
		if (!s->cost_frames || s->cost_last_frame != frame)
			s->cost_frames++;
		s->cost_last_frame = frame;
		s->cost_sum += ns;
		s->cost_n++;
	}
	pthread_mutex_unlock(&g_sites.lock);
}

void pp_diag_site_gpu_idle(uint64_t key, uint64_t ns, uint64_t frame)
{
	(void)frame;
	pthread_mutex_lock(&g_sites.lock);
	struct site *s = site_find_locked(key);
	if (s) {
		s->idle_sum += ns;
		s->idle_n++;
	}
	pthread_mutex_unlock(&g_sites.lock);
}

static void frame_stat_close(uint32_t device_id)
{
	uint64_t t = now_ns();
	pthread_mutex_lock(&g_sites.lock);
	struct frame_stat *fs = NULL;
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES && !fs; i++)
		if (g_sites.frames[i].closes && g_sites.frames[i].device_id == device_id)
			fs = &g_sites.frames[i];
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES && !fs; i++)
		if (!g_sites.frames[i].closes)
			fs = &g_sites.frames[i];
	if (fs) {
		if (!fs->closes++) {
			fs->device_id = device_id;
			fs->first_close_ns = t;
		}
		fs->last_close_ns = t;
	}
	pthread_mutex_unlock(&g_sites.lock);
}

static double frame_interval_locked(uint32_t device_id)
{
	for (uint32_t i = 0; i < FRAME_STAT_DEVICES; i++) {
		const struct frame_stat *fs = &g_sites.frames[i];
		if (fs->closes > 1 && fs->device_id == device_id)
			return (double)(fs->last_close_ns - fs->first_close_ns) / (double)(fs->closes - 1);
	}
	return -1.0;
}

size_t pp_diag_snapshot(struct pp_diagnostic *out, size_t max, uint64_t *other)
{
	pthread_mutex_lock(&g_sites.lock);
	size_t n = 0;
	for (uint32_t i = 0; !out && i < g_sites.nsites; i++)
		n += g_sites.sites[i]->d.count != 0;
	for (uint32_t i = 0; out && i < g_sites.nsites && n < max; i++) {
		struct site *s = g_sites.sites[i];
		if (!s->d.count)
			continue;
		struct pp_diagnostic *d = &out[n++];
		*d = s->d;
		d->share_of_frame = -1.0;
		if (s->cost_frames) {
			d->cost_valid = true;
			d->cost_ns = s->cost_sum / s->cost_frames;
			/* A barrier site is sampled: some of its occurrences in some frames (a loop's
			 * barriers rotate, at most 32 per recording). Per frame: the mean stall of one
			 * occurrence times its occurrences per frame. */
			if (s->cost_n && s->d.frames && d->cost_kind && !strcmp(d->cost_kind, "gpu_barrier_stall"))
				d->cost_ns = (uint64_t)((double)s->cost_sum / (double)s->cost_n * (double)s->d.count /
							(double)s->d.frames);
			d->cost_unavailable = NULL;
			double interval = frame_interval_locked(d->device_id);
			if (interval > 0)
				d->share_of_frame = (double)d->cost_ns / interval;
		} else {
			d->cost_valid = false;
			d->cost_ns = 0;
			if (!d->cost_unavailable)
				d->cost_unavailable = "not measured yet";
		}
		if (s->idle_n) {
			d->gpu_idle_valid = true;
			d->gpu_idle_ns = s->idle_sum / s->idle_n;
			d->gpu_idle_unavailable = NULL;
		}
	}
	if (other)
		*other = g_sites.other;
	pthread_mutex_unlock(&g_sites.lock);
	return n;
}

void pp_diag_sites_clear(void)
{
	pthread_mutex_lock(&g_sites.lock);
	for (uint32_t i = 0; i < g_sites.nsites; i++)
		free(g_sites.sites[i]);
	free(g_sites.sites);
	free(g_sites.index);
	g_sites.sites = NULL;
	g_sites.index = NULL;
	g_sites.nsites = g_sites.cap = 0;
	g_sites.other = 0;
	g_sites.full_logged = false;
	memset(g_sites.frames, 0, sizeof(g_sites.frames));
	pthread_mutex_unlock(&g_sites.lock);
}

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
};

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
	uint64_t key;          /* res_key(); 0: empty slot */
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
	uint64_t gen;                  /* unique per recording (process-wide) */

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
};

static uint64_t rec_gen_next(void)
{
	static uint64_t g_gen;
	return __atomic_add_fetch(&g_gen, 1, __ATOMIC_RELAXED);
}

struct pp_diag_rec *pp_diag_rec_create(void)
{
	struct pp_diag_rec *r = calloc(1, sizeof(*r));
	if (r) {
		r->global_open = NO_INDEX;
		r->first_global_tick = UINT64_MAX;
		r->gen = rec_gen_next();
	}
	return r;
}

void pp_diag_rec_destroy(struct pp_diag_rec *r)
{
	if (!r)
		return;
	free(r->barriers);
	free(r->entries);
	free(r->map);
	free(r->map_keys);
	free(r->cwrites);
	free(r->queries);
	free(r->events);
	free(r->subpasses);
	free(r->tails);
	free(r->first_uses);
	free(r->first_recs);
	free(r);
}

void pp_diag_rec_reset(struct pp_diag_rec *r)
{
	r->tick = 0;
	r->closed = r->incomplete = false;
	memset(r->work_tick, 0, sizeof(r->work_tick));
	memset(r->draw_stage_tick, 0, sizeof(r->draw_stage_tick));
	memset(r->unknown_stage_tick, 0, sizeof(r->unknown_stage_tick));
	memset(r->use_stage_tick, 0, sizeof(r->use_stage_tick));
	memset(r->format_tick, 0, sizeof(r->format_tick));
	memset(r->first_work_tick, 0, sizeof(r->first_work_tick));
	memset(r->first_draw_stage_tick, 0, sizeof(r->first_draw_stage_tick));
	memset(r->first_unknown_stage_tick, 0, sizeof(r->first_unknown_stage_tick));
	memset(r->first_use_stage_tick, 0, sizeof(r->first_use_stage_tick));
	memset(r->first_format_tick, 0, sizeof(r->first_format_tick));
	r->first_global_tick = UINT64_MAX;
	r->last_work_tick = r->last_cmd_tick = r->last_barrier_tick = r->last_barrier_hash = 0;
	r->have_barrier = false;
	r->gen = rec_gen_next();
	free(r->tails);
	free(r->first_uses);
	free(r->first_recs);
	r->tails = NULL;
	r->first_uses = NULL;
	r->first_recs = NULL;
	r->ntails = r->first_uses_cap = 0;
	r->tails_overflow = r->first_uses_overflow = r->sub_valid = false;
	r->nbarriers = r->nentries = 0;
	r->global_open = NO_INDEX;
	if (r->map)
		memset(r->map, 0, r->map_cap * sizeof(*r->map));
	r->map_used = 0;
	r->ncwrites = r->nqueries = r->nevents = r->nsubpasses = 0;
}

bool pp_diag_rec_closed(const struct pp_diag_rec *r)
{
	return r->closed;
}

static bool grow(void **a, uint32_t *cap, uint32_t need, size_t elem, uint32_t limit)
{
	if (need <= *cap)
		return true;
	if (need > limit)
		return false;
	uint32_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	if (n > limit)
		n = limit;
	void *p = realloc(*a, (size_t)n * elem);
	if (!p)
		return false;
	*a = p;
	*cap = n;
	return true;
}

static uint64_t res_key(enum pp_diag_res_kind kind, uint64_t handle)
{
	return mix64(handle, kind);
}

/* ---- ranges: which part of a resource a barrier or a use covers ---- */

/* Empty layer / byte ranges are invalid in Vulkan: an end of 0 means "to the end". */
static struct pp_diag_range range_norm(const struct pp_diag_range *in)
{
	struct pp_diag_range rg = { 0 };
	if (!in || !in->set)
		return rg;
	rg = *in;
	if (!rg.end)
		rg.end = PP_DIAG_RANGE_END;
	if (!rg.layer_end)
		rg.layer_end = UINT32_MAX;
	return rg;
}

bool pp_diag_range_overlap(const struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a || !b || !a->set || !b->set)
		return true;
	if (a->aspects && b->aspects && !(a->aspects & b->aspects))
		return false;
	struct pp_diag_range x = range_norm(a), y = range_norm(b);
	return x.begin < y.end && y.begin < x.end && x.layer_begin < y.layer_end && y.layer_begin < x.layer_end;
}

/* Whether a covers all of b (both normalized). */
static bool range_contains(const struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a->set)
		return true;
	if (!b->set || (a->aspects && (!b->aspects || (b->aspects & ~a->aspects))))
		return false;
	return a->begin <= b->begin && b->end <= a->end && a->layer_begin <= b->layer_begin &&
	       b->layer_end <= a->layer_end;
}

/* a becomes the bounding range of a and b (both normalized). */
static void range_bound(struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a->set)
		return;
	if (!b->set) {
		*a = *b;
		return;
	}
	a->aspects = a->aspects && b->aspects ? a->aspects | b->aspects : 0;
	a->begin = b->begin < a->begin ? b->begin : a->begin;
	a->end = b->end > a->end ? b->end : a->end;
	a->layer_begin = b->layer_begin < a->layer_begin ? b->layer_begin : a->layer_begin;
	a->layer_end = b->layer_end > a->layer_end ? b->layer_end : a->layer_end;
}

/* The map holds, per image or buffer, its open entries (barrier windows by range, and at most
 * one entry of uses no window contains): a list through next_open, index + 1, 0 ends it. */
static uint32_t *map_slot(struct pp_diag_rec *r, uint64_t key, bool insert)
{
	if (insert && (r->map_used + 1) * 2 > r->map_cap) {
		uint32_t cap = r->map_cap ? r->map_cap * 2 : 256;
		if (cap / 2 > REC_MAX_RESOURCES)
			return NULL;
		uint32_t *m = calloc(cap, sizeof(*m));
		uint64_t *k = calloc(cap, sizeof(*k));
		if (!m || !k) {
			free(m);
			free(k);
			return NULL;
		}
		for (uint32_t i = 0; i < r->map_cap; i++) {
			if (!r->map[i])
				continue;
			uint32_t j = (uint32_t)(r->map_keys[i] & (cap - 1));
			while (m[j])
				j = (j + 1) & (cap - 1);
			m[j] = r->map[i];
			k[j] = r->map_keys[i];
		}
		free(r->map);
		free(r->map_keys);
		r->map = m;
		r->map_keys = k;
		r->map_cap = cap;
	}
	if (!r->map_cap)
		return NULL;
	for (uint32_t j = (uint32_t)(key & (r->map_cap - 1));; j = (j + 1) & (r->map_cap - 1)) {
		if (!r->map[j]) {
			if (!insert)
				return NULL;
			r->map_keys[j] = key;
			r->map_used++;
			return &r->map[j];
		}
		if (r->map_keys[j] == key)
			return &r->map[j];
	}
}

static struct rec_entry *entry_new(struct pp_diag_rec *r)
{
	if (!grow((void **)&r->entries, &r->cap_entries, r->nentries + 1, sizeof(*r->entries), REC_MAX_ENTRIES)) {
		r->incomplete = true;
		return NULL;
	}
	struct rec_entry *e = &r->entries[r->nentries++];
	memset(e, 0, sizeof(*e));
	e->barrier = NO_INDEX;
	e->prev = NO_INDEX;
	e->next_open = 0;
	e->open = true;
	e->opened = r->tick;
	return e;
}

static uint32_t ticks_since(const uint64_t *ticks, uint32_t n, uint64_t since)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ticks[i] > since)
			out |= 1u << i;
	return out;
}

/* The anonymous work a window saw: PP_WORK_* bits, the stages of draws, of precise uses (of
 * any resource) and of descriptors with unknown contents, the attachment format buckets. */
struct work_view {
	uint32_t work, draw_stages, use_stages, unknown_stages, formats;
};

/* In a recording, after a window opened. */
static void view_since(const struct pp_diag_rec *r, uint64_t opened, struct work_view *v)
{
	v->work = ticks_since(r->work_tick, PP_WORK_BITS, opened);
	v->draw_stages = ticks_since(r->draw_stage_tick, NSTAGES, opened);
	v->use_stages = ticks_since(r->use_stage_tick, NSTAGES, opened);
	v->unknown_stages = ticks_since(r->unknown_stage_tick, NSTAGES, opened);
	v->formats = ticks_since(r->format_tick, 32, opened);
}

static uint32_t ticks_before(const uint64_t *ticks, uint32_t n, uint64_t until)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ticks[i] && ticks[i] < until)
			out |= 1u << i;
	return out;
}

/* In a later recording of the submission, before `until` (its own barrier on the resource). */
static void view_before(const struct pp_diag_rec *r, uint64_t until, struct work_view *v)
{
	v->work = ticks_before(r->first_work_tick, PP_WORK_BITS, until);
	v->draw_stages = ticks_before(r->first_draw_stage_tick, NSTAGES, until);
	v->use_stages = ticks_before(r->first_use_stage_tick, NSTAGES, until);
	v->unknown_stages = ticks_before(r->first_unknown_stage_tick, NSTAGES, until);
	v->formats = ticks_before(r->first_format_tick, 32, until);
}

/* Stages of the anonymous work that may have touched a resource (kind, the layout a barrier
 * left it in, its format bucket). */
static uint32_t anon_consumers(const struct work_view *v, enum pp_diag_res_kind kind, enum pp_diag_layout l,
			       uint32_t format_bucket, const char **unproven)
{
	uint32_t work = v->work;
	uint32_t c = 0;
	if (work & PP_WORK_UNKNOWN)
		*unproven = "secondary command buffers executed after it may use anything";
	if (kind == PP_RES_GLOBAL) {
		c |= v->draw_stages | v->use_stages | v->unknown_stages;
		if (work & PP_WORK_TRANSFER)
			c |= PP_STAGE_TRANSFER;
		if (work & PP_WORK_DISPATCH)
			c |= PP_STAGE_COMPUTE;
		if (work & PP_WORK_INDIRECT)
			c |= PP_STAGE_DRAW_INDIRECT;
		if (work & PP_WORK_COLOR_ATTACHMENT)
			c |= PP_STAGE_COLOR_OUTPUT;
		if (work & PP_WORK_DEPTH_ATTACHMENT)
			c |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
		return c;
	}
	uint32_t unknown = (work & PP_WORK_UNKNOWN_DESCRIPTORS) ? v->unknown_stages : 0;
	if (kind == PP_RES_BUFFER) {
		if (work & PP_WORK_TRANSFER)
			c |= PP_STAGE_TRANSFER;
		if (work & PP_WORK_INDIRECT)
			c |= PP_STAGE_DRAW_INDIRECT;
		return c | unknown;
	}
	bool general = l == PP_LAYOUT_GENERAL || l == PP_LAYOUT_OTHER;
	/* An attachment of its format must have begun for the image to be one. */
	if (format_bucket && !(format_bucket & v->formats))
		work &= ~(uint32_t)(PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT);
	if ((work & PP_WORK_TRANSFER) && (general || l == PP_LAYOUT_TRANSFER_SRC || l == PP_LAYOUT_TRANSFER_DST))
		c |= PP_STAGE_TRANSFER;
	if ((work & PP_WORK_COLOR_ATTACHMENT) && (general || l == PP_LAYOUT_COLOR_ATTACHMENT))
		c |= PP_STAGE_COLOR_OUTPUT | (general ? PP_STAGE_FRAGMENT_SHADER : 0);
	if ((work & PP_WORK_DEPTH_ATTACHMENT) &&
	    (general || l == PP_LAYOUT_DEPTH_ATTACHMENT || l == PP_LAYOUT_DEPTH_READ_ONLY))
		c |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	if (general || l == PP_LAYOUT_SHADER_READ || l == PP_LAYOUT_DEPTH_READ_ONLY)
		c |= unknown;
	return c;
}

#define UNPROVEN_NO_USER "nothing after it in this submission uses what it covers (the user may be in a later submission)"

/* The consumers a window saw in its own recording; no default reason when there are none. */
static uint32_t entry_consumers(const struct pp_diag_rec *r, const struct rec_entry *e, const char **unproven)
{
	struct work_view v;
	view_since(r, e->opened, &v);
	*unproven = NULL;
	uint32_t c = e->uses | anon_consumers(&v, e->kind, e->new_layout, e->format_bucket, unproven);
	if (e->dst_access & (PP_ACCESS_HOST_READ | PP_ACCESS_HOST_WRITE))
		c |= PP_STAGE_HOST;
	return c;
}

static void entry_close(struct pp_diag_rec *r, struct rec_entry *e)
{
	if (!e->open)
		return;
	e->open = false;
	const char *unproven;
	uint32_t c = entry_consumers(r, e, &unproven);
	if (!c && !unproven)
		unproven = e->tail ? UNPROVEN_NO_USER : "nothing uses what it covers before the next barrier on it";
	e->consumers = c;
	e->unproven = unproven;
}

#define UNPROVEN_RANGES "more ranges of its resource were in flight at once than passprobe follows"


static uint32_t layout_producers(enum pp_diag_layout l)
{
	switch (l) {
	case PP_LAYOUT_COLOR_ATTACHMENT: return PP_STAGE_COLOR_OUTPUT;
	case PP_LAYOUT_DEPTH_ATTACHMENT: return PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	case PP_LAYOUT_TRANSFER_SRC:
	case PP_LAYOUT_TRANSFER_DST: return PP_STAGE_TRANSFER;
	default: return 0;
	}
}

static bool access_specific(uint32_t a)
{
	return a && !(a & (PP_ACCESS_MEMORY_READ | PP_ACCESS_MEMORY_WRITE));
}

/* The earlier stages the barrier's first scope really has to wait for. */
static uint32_t barrier_producers(const struct pp_diag_rec *r, const struct rec_barrier *b, const char **why)
{
	uint32_t p = 0;
	*why = NULL;
	for (uint32_t i = b->first; i < b->first + b->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		uint32_t q = 0;
		if (access_specific(e->src_access))
			q |= pp_access_stages(e->src_access);
		if (e->kind == PP_RES_IMAGE)
			q |= layout_producers(e->old_layout);
		const struct rec_entry *prev = e->prev != NO_INDEX ? &r->entries[e->prev] : NULL;
		if (e->kind != PP_RES_GLOBAL)
			q |= e->prev_uses;
		else if (prev)
			q |= prev->consumers;
		else
			q |= ticks_since(r->draw_stage_tick, NSTAGES, 0) | ticks_since(r->use_stage_tick, NSTAGES, 0);
		if (e->kind == PP_RES_GLOBAL && !prev) {
			/* Pure execution dependency on the work before it. */
			uint32_t work = ticks_since(r->work_tick, PP_WORK_BITS, 0);
			if (work & PP_WORK_TRANSFER)
				q |= PP_STAGE_TRANSFER;
			if (work & PP_WORK_DISPATCH)
				q |= PP_STAGE_COMPUTE;
			if (work & PP_WORK_COLOR_ATTACHMENT)
				q |= PP_STAGE_COLOR_OUTPUT;
			if (work & PP_WORK_DEPTH_ATTACHMENT)
				q |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
			if (work & PP_WORK_UNKNOWN)
				*why = "secondary command buffers executed before it";
		}
		if (!q && !*why)
			*why = e->kind == PP_RES_GLOBAL ? "what it waits for was recorded before this command buffer"
				: "the last use of one of its resources was recorded before this command buffer";
		p |= q;
	}
	return p;
}

static void finding(struct rec_barrier *b, enum pp_diag_rule rule)
{
	b->fired |= 1u << rule;
}

static bool dst_too_early(uint32_t dst_raw, uint32_t dst, uint32_t consumers)
{
	if (!consumers)
		return false;
	if (dst_raw & (PP_STAGE_TOP | PP_STAGE_ALL_COMMANDS))
		return true; /* every later command waits, whatever it is */
	if (consumers & ~PP_STAGE_GRAPHICS)
		return (dst_raw & PP_STAGE_ALL_GRAPHICS) && !(consumers & PP_STAGE_GRAPHICS);
	uint32_t dst_g = dst & PP_STAGE_GRAPHICS;
	if (!dst_g)
		return false;
	return stage_order(lowest_bit(dst_g)) < stage_order(lowest_bit(consumers));
}

/* The verdicts that depend on a barrier's consumers: the suggested destination, and whether
 * it starts too early. Returns the findings (bits per enum pp_diag_rule). The suggestion keeps
 * only consumers the destination access mask can reach (the others' accesses are not made
 * visible by this barrier anyway), except consumers that write: a write after the barrier
 * needs its execution dependency whatever the access mask says. */
static uint32_t dst_judge(const struct rec_barrier *b, uint32_t consumers, uint32_t writes, const char *unproven,
			  uint32_t *dst_suggested)
{
	uint32_t sug = consumers;
	if (access_specific(b->dst_access) && (sug & pp_access_stages(b->dst_access)))
		sug = (sug & (pp_access_stages(b->dst_access) | PP_STAGE_HOST)) | (writes & consumers);
	*dst_suggested = unproven ? 0 : sug;
	if (b->acquire || b->drain || unproven)
		return 0;
	return dst_too_early(b->dst_raw, pp_stage_expand(b->dst_raw, true), *dst_suggested)
		       ? 1u << PP_DIAG_DST_TOO_EARLY : 0;
}

static void barrier_evaluate(struct pp_diag_rec *r, struct rec_barrier *b)
{
	if (b->evaluated)
		return;
	b->evaluated = true;
	uint32_t consumers = 0;
	const char *unproven = NULL;
	for (uint32_t i = b->first; i < b->first + b->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		consumers |= e->consumers;
		b->writes |= e->write_uses;
		if (e->unproven && !unproven)
			unproven = e->unproven;
		if (e->tail) {
			b->tail = true;
			continue;
		}
		b->closed_consumers |= e->consumers;
		b->closed_writes |= e->write_uses;
		if (e->unproven && !b->closed_unproven)
			b->closed_unproven = e->unproven;
	}
	if (!b->n) {
		/* An execution-only barrier: its window is the whole rest of the recording, judged
		 * like a global memory barrier through the entry created for it. */
		unproven = "no resources";
	}
	const char *pwhy;
	uint32_t src = pp_stage_expand(b->src_raw, false);
	uint32_t producers = barrier_producers(r, b, &pwhy) & src;
	b->producers = pwhy ? 0 : producers;
	b->producers_partial = pwhy ? producers : 0;
	b->producers_unproven = pwhy;
	b->consumers = unproven ? 0 : consumers;
	b->consumers_unproven = unproven;
	b->fired |= dst_judge(b, consumers, b->writes, unproven, &b->dst_suggested);
	if (b->acquire)
		return;
	if (b->drain) {
		finding(b, PP_DIAG_FULL_DRAIN);
		return;
	}
	if ((b->src_raw & (PP_STAGE_BOTTOM | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS)) && b->producers &&
	    (b->producers & PP_STAGE_WORK) != (src & PP_STAGE_WORK))
		finding(b, PP_DIAG_SRC_TOO_LATE);
}

static void barrier_entry_closed(struct pp_diag_rec *r, uint32_t bi)
{
	if (bi == NO_INDEX)
		return;
	struct rec_barrier *b = &r->barriers[bi];
	if (b->open && --b->open == 0)
		barrier_evaluate(r, b);
}

/* Drops the closed entries from a resource's open list. */
static void slot_prune(struct pp_diag_rec *r, uint32_t *slot)
{
	uint32_t *link = slot;
	while (*link) {
		struct rec_entry *o = &r->entries[*link - 1];
		if (!o->open)
			*link = o->next_open;
		else
			link = &o->next_open;
	}
}

/* A barrier on rg (NULL: closing them all) meets the open entries of a resource, except those
 * of barrier call `keep`: those it covers entirely close; those it covers in part stay open
 * (the rest of their range is still in their window: they go on seeing every use that meets
 * their range, more consumers, never fewer) and only give it their uses. why: the reason the
 * closed ones' consumers are not complete (NULL: judged as they are). Returns the uses of the
 * entries it meets; *nwindows: the barrier windows left open. */
static uint32_t slot_close(struct pp_diag_rec *r, uint32_t *slot, const struct pp_diag_range *rg, uint32_t keep,
			   const char *why, uint32_t *nwindows)
{
	uint32_t uses = 0, n = 0;
	for (uint32_t l = *slot; l; l = r->entries[l - 1].next_open) {
		struct rec_entry *o = &r->entries[l - 1];
		if ((keep != NO_INDEX && o->barrier == keep) || (rg && !pp_diag_range_overlap(&o->range, rg))) {
			n += o->barrier != NO_INDEX;
			continue;
		}
		uses |= o->uses;
		if (rg && !range_contains(rg, &o->range)) {
			n += o->barrier != NO_INDEX;
			o->met = true;
			continue;
		}
		entry_close(r, o);
		if (why) {
			o->consumers = 0;
			o->unproven = why;
		}
		barrier_entry_closed(r, o->barrier);
	}
	slot_prune(r, slot);
	if (nwindows)
		*nwindows = n;
	return uses;
}

static void advance(struct pp_diag_rec *r)
{
	r->tick++;
}

/* Sets the ticks of the bits, and their first ticks when not set yet. */
static void ticks_mark(uint64_t *last, uint64_t *first, uint32_t bits, uint32_t n, uint64_t tick)
{
	for (uint32_t i = 0; i < n; i++)
		if (bits & (1u << i)) {
			last[i] = tick;
			if (!first[i])
				first[i] = tick;
		}
}

uint32_t pp_diag_format_bucket(const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name ? name : ""; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return 1u << (h % 32);
}

void pp_diag_rec_work(struct pp_diag_rec *r, uint32_t work, uint32_t draw_stages, uint32_t unknown_stages,
		      uint32_t attachment_formats)
{
	if (!r || r->closed || !(work | draw_stages | unknown_stages))
		return;
	advance(r);
	if ((work & (PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT)) && !attachment_formats)
		attachment_formats = UINT32_MAX;
	ticks_mark(r->format_tick, r->first_format_tick, attachment_formats, 32, r->tick);
	ticks_mark(r->work_tick, r->first_work_tick, work, PP_WORK_BITS, r->tick);
	ticks_mark(r->draw_stage_tick, r->first_draw_stage_tick, draw_stages, NSTAGES, r->tick);
	ticks_mark(r->unknown_stage_tick, r->first_unknown_stage_tick, unknown_stages, NSTAGES, r->tick);
	r->last_cmd_tick = r->tick;
	if (work & (PP_WORK_TRANSFER | PP_WORK_DRAW | PP_WORK_DISPATCH | PP_WORK_COLOR_ATTACHMENT |
		    PP_WORK_DEPTH_ATTACHMENT | PP_WORK_UNKNOWN))
		r->last_work_tick = r->tick;
}

void pp_diag_rec_use(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle, uint32_t stages, bool write)
{
	pp_diag_rec_use_range(r, kind, handle, NULL, stages, write);
}

void pp_diag_rec_use_range(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle,
			   const struct pp_diag_range *range, uint32_t stages, bool write)
{
	if (!r || r->closed || !handle)
		return;
	advance(r);
	ticks_mark(r->use_stage_tick, r->first_use_stage_tick, stages, NSTAGES, r->tick);
	r->last_cmd_tick = r->tick;
	uint32_t *slot = map_slot(r, res_key(kind, handle), true);
	if (!slot) {
		r->incomplete = true;
		return;
	}
	struct pp_diag_range rg = range_norm(range);
	/* Every window it overlaps sees it; what no single window contains is also kept as a use
	 * outside the windows (what a later barrier on that part waits for). */
	bool contained = false;
	struct rec_entry *loose = NULL;
	for (uint32_t l = *slot; l; l = r->entries[l - 1].next_open) {
		struct rec_entry *o = &r->entries[l - 1];
		if (o->barrier == NO_INDEX)
			loose = o;
		else if (pp_diag_range_overlap(&o->range, &rg)) {
			o->uses |= stages;
			if (write)
				o->write_uses |= stages;
			contained |= range_contains(&o->range, &rg);
		}
	}
	if (!contained) {
		if (!loose) {
			loose = entry_new(r);
			if (!loose)
				return;
			loose->kind = kind;
			loose->handle = handle;
			loose->range = rg;
			loose->next_open = *slot;
			*slot = (uint32_t)(loose - r->entries) + 1;
		}
		range_bound(&loose->range, &rg);
		loose->uses |= stages;
		if (write)
			loose->write_uses |= stages;
	}
	if (write && (stages & PP_STAGE_COMPUTE) &&
	    grow((void **)&r->cwrites, &r->cap_cwrites, r->ncwrites + 1, sizeof(*r->cwrites), REC_MAX_COMPUTE_WRITES))
		r->cwrites[r->ncwrites++] = (struct compute_write){ handle, kind, r->tick };
}

void pp_diag_rec_event_set(struct pp_diag_rec *r, uint64_t event)
{
	if (!r || r->closed)
		return;
	advance(r);
	r->last_cmd_tick = r->tick;
	for (uint32_t i = 0; i < r->nevents; i++)
		if (r->events[i].event == event) {
			r->events[i].tick = r->tick;
			return;
		}
	if (grow((void **)&r->events, &r->cap_events, r->nevents + 1, sizeof(*r->events), REC_MAX_EVENTS))
		r->events[r->nevents++] = (struct set_event){ event, r->tick };
}

void pp_diag_rec_queries(struct pp_diag_rec *r, uint64_t pool, uint32_t first, uint32_t count)
{
	if (!r || r->closed || !count)
		return;
	advance(r);
	r->last_cmd_tick = r->tick; /* a timestamp between two barriers measures something */
	struct query_write *last = r->nqueries ? &r->queries[r->nqueries - 1] : NULL;
	if (last && last->pool == pool && last->first + last->count == first) {
		last->count += count;
		return;
	}
	if (grow((void **)&r->queries, &r->cap_queries, r->nqueries + 1, sizeof(*r->queries), REC_MAX_QUERIES))
		r->queries[r->nqueries++] = (struct query_write){ pool, first, count };
}

bool pp_diag_subpass_dep_not_by_region(const struct pp_diag_subpass_dep *dep)
{
	/* Accesses that only touch the fragment's own attachment location: input attachments
	 * are read at the fragment's position, attachments are written and tested there. */
	const uint32_t local = PP_ACCESS_INPUT_ATTACHMENT_READ | PP_ACCESS_COLOR_READ | PP_ACCESS_COLOR_WRITE |
			       PP_ACCESS_DEPTH_READ | PP_ACCESS_DEPTH_WRITE;
	if (dep->by_region || dep->src_subpass == PP_DIAG_SUBPASS_EXTERNAL ||
	    dep->dst_subpass == PP_DIAG_SUBPASS_EXTERNAL)
		return false;
	if (!dep->src_stages || !dep->dst_stages || ((dep->src_stages | dep->dst_stages) & ~PP_STAGE_FRAGMENT_SIDE))
		return false;
	/* Shader reads and writes may be of other pixels (a framebuffer-local dependency would
	 * then be wrong), and a sample-shaded read of a multisampled input attachment may read
	 * other samples of the pixel than the region a sample-rate dependency covers. */
	if (((dep->src_access | dep->dst_access) & ~local) || dep->dst_reads_other_samples)
		return false;
	return true;
}

void pp_diag_rec_render_pass(struct pp_diag_rec *r, uint64_t render_pass, const char *name, uint32_t n,
			     const struct pp_diag_subpass_dep *flagged)
{
	if (!r || r->closed)
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct rec_subpass *e = NULL;
		for (uint32_t i = 0; i < r->nsubpasses && !e; i++)
			if (r->subpasses[i].render_pass == render_pass && r->subpasses[i].dep.index == flagged[k].index)
				e = &r->subpasses[i];
		if (!e && grow((void **)&r->subpasses, &r->cap_subpasses, r->nsubpasses + 1, sizeof(*r->subpasses),
			       PP_DIAG_REC_MAX_SUBPASS_DEPS)) {
			e = &r->subpasses[r->nsubpasses++];
			*e = (struct rec_subpass){ .render_pass = render_pass, .dep = flagged[k] };
			snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
		}
		if (e)
			e->begins++;
	}
}

static uint64_t barrier_hash(const struct pp_diag_barrier *b)
{
	uint64_t h = mix64(b->src_stages, b->dst_stages);
	h = mix64(h, b->by_region);
	for (uint32_t i = 0; i < b->nres; i++) {
		const struct pp_diag_barrier_res *e = &b->res[i];
		h = mix64(h, e->kind);
		h = mix64(h, e->handle);
		h = mix64(h, ((uint64_t)e->src_stages << 32) | e->dst_stages);
		h = mix64(h, ((uint64_t)e->src_access << 32) | e->dst_access);
		h = mix64(h, ((uint64_t)e->old_layout << 8) | e->new_layout | ((uint64_t)e->queue_transfer << 16));
		if (e->range.set) {
			struct pp_diag_range rg = range_norm(&e->range);
			h = mix64(h, ((uint64_t)rg.layer_begin << 32) | rg.layer_end);
			h = mix64(mix64(h, rg.begin), rg.end ^ ((uint64_t)rg.aspects << 32));
		}
	}
	for (uint32_t i = 0; i < b->nevents; i++)
		h = mix64(h, b->events[i]);
	return h;
}

static bool read_only(uint32_t a)
{
	return a && !(a & PP_ACCESS_WRITES);
}

static bool stages_within(uint32_t a, uint32_t b)
{
	return !(a & ~b);
}

/* Two pipeline barrier calls with no command between them (b right after prev): one call
 * would do unless merging changes what they order. They must cover different resources (two
 * barriers of one image in one call have no order between them) and agree on dependency flags;
 * neither is the acquire pattern or inside a render pass. A single call has no order between
 * its own barriers, so when prev's second scope meets b's first scope (an execution dependency
 * chain: b's later stages wait for prev's earlier ones) only a vkCmdPipelineBarrier whose
 * masks are the unions keeps that; vkCmdPipelineBarrier2 with each barrier's own stages keeps
 * exactly the rest. */
static void merge_check(struct pp_diag_rec *r, struct rec_barrier *prev, struct rec_barrier *b,
			const struct pp_diag_barrier *in)
{
	/* a barrier to remove (reads after reads, a duplicate) is not one to merge */
	const uint32_t removable = 1u << PP_DIAG_READ_TO_READ | 1u << PP_DIAG_DUPLICATE;
	if (prev->events || b->events || prev->acquire || b->acquire || prev->in_render_pass || b->in_render_pass ||
	    prev->by_region != b->by_region || ((prev->fired | b->fired) & removable))
		return;
	if ((uint64_t)prev->n * in->nres > MERGE_MAX_PAIRS)
		return;
	for (uint32_t i = prev->first; i < prev->first + prev->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		for (uint32_t k = 0; e->kind != PP_RES_GLOBAL && k < in->nres; k++)
			if (in->res[k].kind == e->kind && in->res[k].handle == e->handle &&
			    pp_diag_range_overlap(&in->res[k].range, &e->range))
				return;
	}
	uint32_t s1 = pp_stage_expand(prev->src_raw, false), d1 = pp_stage_expand(prev->dst_raw, true);
	uint32_t s2 = pp_stage_expand(b->src_raw, false), d2 = pp_stage_expand(b->dst_raw, true);
	bool chain = (d1 & s2) != 0;
	if (!prev->sync2 && !b->sync2) {
		/* One call with the unions orders s1|s2 -> d1|d2: exactly the two calls when
		 * s1 -> d2 and s2 -> d1 were ordered already (directly, or s1 -> d2 through the chain). */
		bool s1_d2 = stages_within(s1, s2) || stages_within(d2, d1) || chain;
		bool s2_d1 = stages_within(s2, s1) || stages_within(d1, d2);
		if (s1_d2 && s2_d1)
			b->merge = MERGE_SYNC1_EXACT;
		else if (!chain)
			b->merge = MERGE_AS_SYNC2;
	} else if (!chain) {
		b->merge = MERGE_SYNC2;
	}
	if (!b->merge)
		return;
	b->merge_src = prev->src_raw;
	b->merge_dst = prev->dst_raw;
	b->merge_api = prev->api;
	finding(b, PP_DIAG_MERGEABLE);
}

uint32_t pp_diag_rec_barrier(struct pp_diag_device *d, struct pp_diag_rec *r, const struct pp_diag_barrier *in)
{
	(void)d;
	if (!r || r->closed)
		return NO_INDEX;
	if (!grow((void **)&r->barriers, &r->cap_barriers, r->nbarriers + 1, sizeof(*r->barriers), REC_MAX_BARRIERS)) {
		r->incomplete = true;
		return NO_INDEX;
	}
	advance(r);
	uint32_t bi = r->nbarriers++;
	struct rec_barrier *b = &r->barriers[bi];
	memset(b, 0, sizeof(*b));
	b->index = bi;
	snprintf(b->site, sizeof(b->site), "%s", in->site ? in->site : "");
	b->loc_key = in->loc_key;
	b->untimed = in->untimed;
	b->api = in->api;
	b->src_raw = in->src_stages;
	b->dst_raw = in->dst_stages;
	b->tick = r->tick;
	b->hash = barrier_hash(in);
	b->in_render_pass = in->in_render_pass;
	b->ts_before = in->ts_before;
	b->ts_after = in->ts_after;
	b->first = r->nentries;
	b->example_kind = PP_RES_GLOBAL;
	b->sync2 = in->sync2;
	b->by_region = in->by_region;
	b->events = in->nevents > 0;
	b->drain = (in->src_stages & (PP_STAGE_BOTTOM | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS)) &&
		   (in->dst_stages & (PP_STAGE_TOP | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS));

	/* Immediate rules: they need no knowledge of what follows. */
	bool work_since = r->last_work_tick > r->last_barrier_tick;
	if (r->have_barrier && !work_since && r->last_barrier_hash == b->hash && (in->nres || in->nevents))
		finding(b, PP_DIAG_DUPLICATE);
	bool r2r = in->nres > 0;
	bool acquire = in->nres > 0 && r->last_work_tick == 0;
	for (uint32_t i = 0; i < in->nres; i++) {
		const struct pp_diag_barrier_res *e = &in->res[i];
		if (!read_only(e->src_access) || (e->dst_access & PP_ACCESS_WRITES) || e->queue_transfer ||
		    (e->kind == PP_RES_IMAGE && e->old_layout != e->new_layout))
			r2r = false;
		if (e->kind != PP_RES_IMAGE ||
		    (e->old_layout != PP_LAYOUT_UNDEFINED && e->old_layout != PP_LAYOUT_PRESENT))
			acquire = false;
	}
	/* The swapchain-acquire pattern: no earlier stage in the first scope, or only images
	 * coming from UNDEFINED/PRESENT_SRC before any work of the recording. */
	if (!(pp_stage_expand(in->src_stages, false) & PP_STAGE_WORK))
		acquire = true;
	b->acquire = acquire;
	if (r2r)
		finding(b, PP_DIAG_READ_TO_READ);
	if (bi > 0 && r->last_cmd_tick < r->barriers[bi - 1].tick && r->last_barrier_hash != b->hash)
		merge_check(r, &r->barriers[bi - 1], b, in);
	for (uint32_t i = 0; i < in->nevents; i++)
		for (uint32_t k = 0; k < r->nevents; k++)
			if (r->events[k].event == in->events[i] && r->last_work_tick < r->events[k].tick)
				finding(b, PP_DIAG_SET_EVENT_WAIT);
	r->have_barrier = true;
	r->last_barrier_hash = b->hash;
	r->last_barrier_tick = r->tick;

	/* Entries: each resource's previous window closes here and a new one opens. A global
	 * memory barrier (or a barrier with no barrier structs) covers everything. */
	struct rec_entry *global = NULL;
	uint32_t nres = in->nres ? in->nres : 1;
	for (uint32_t i = 0; i < nres; i++) {
		struct pp_diag_barrier_res none = {
			.kind = PP_RES_GLOBAL, .src_stages = in->src_stages, .dst_stages = in->dst_stages,
		};
		const struct pp_diag_barrier_res *e = in->nres ? &in->res[i] : &none;
		b->src_access |= e->src_access;
		b->dst_access |= e->dst_access;
		if (e->kind == PP_RES_GLOBAL) {
			if (global) {
				global->src_access |= e->src_access;
				global->dst_access |= e->dst_access;
				continue;
			}
			uint32_t prev = r->global_open;
			if (prev != NO_INDEX) {
				entry_close(r, &r->entries[prev]);
				barrier_entry_closed(r, r->entries[prev].barrier);
			}
			global = entry_new(r);
			if (!global)
				break;
			if (prev == NO_INDEX)
				r->first_global_tick = r->tick;
			global->kind = PP_RES_GLOBAL;
			global->barrier = bi;
			global->prev = prev;
			global->src_access = e->src_access;
			global->dst_access = e->dst_access;
			r->global_open = (uint32_t)(global - r->entries);
			b->n++;
			b->open++;
			continue;
		}
		uint32_t *slot = map_slot(r, res_key(e->kind, e->handle), true);
		if (!slot) {
			r->incomplete = true;
			continue;
		}
		struct pp_diag_range rg = range_norm(&e->range);
		struct rec_entry *same = NULL;
		for (uint32_t l = *slot; l && !same; l = r->entries[l - 1].next_open)
			if (r->entries[l - 1].barrier == bi)
				same = &r->entries[l - 1];
		if (same) {
			/* The same resource twice in one call (other subresources): one window, over
			 * the bounding range. */
			range_bound(&same->range, &rg);
			same->prev_uses |= slot_close(r, slot, &same->range, bi, NULL, NULL);
			same->src_access |= e->src_access;
			same->dst_access |= e->dst_access;
			continue;
		}
		/* The windows it overlaps close here; the others stay open. */
		uint32_t nwindows;
		uint32_t prev_uses = slot_close(r, slot, &rg, NO_INDEX, NULL, &nwindows);
		if (nwindows >= PP_DIAG_RANGES)
			slot_close(r, slot, NULL, NO_INDEX, UNPROVEN_RANGES, NULL);
		struct rec_entry *n = entry_new(r);
		if (!n)
			break;
		n->kind = e->kind;
		n->handle = e->handle;
		n->old_layout = e->old_layout;
		n->new_layout = e->new_layout;
		n->format_bucket = e->format_bucket;
		n->barrier = bi;
		n->src_access = e->src_access;
		n->dst_access = e->dst_access;
		n->queue_transfer = e->queue_transfer;
		n->range = rg;
		n->prev_uses = prev_uses;
		n->next_open = *slot;
		*slot = (uint32_t)(n - r->entries) + 1;
		if (!b->example) {
			b->example = e->handle;
			b->example_kind = e->kind;
		}
		b->n++;
		b->open++;
	}
	return bi;
}

/* Closes every open window: the recording is complete. */
static struct rec_first_use *first_use_slot(const struct pp_diag_rec *r, uint64_t key)
{
	if (!r->first_uses_cap)
		return NULL;
	key |= 1; /* 0 marks an empty slot */
	for (uint32_t j = (uint32_t)(key & (r->first_uses_cap - 1));; j = (j + 1) & (r->first_uses_cap - 1))
		if (!r->first_uses[j].key || r->first_uses[j].key == key)
			return &r->first_uses[j];
}

/* The summary later recordings' carried windows are judged against: per resource, its
 * barriers (range, when) and its uses outside barrier windows (range, stages, when first), at
 * most PP_DIAG_RANGES of each (more uses: merged into the last; more barriers: the resource is
 * not followed by range). */
static void first_uses_build(struct pp_diag_rec *r)
{
	uint32_t n = r->map_used;
	if (n > REC_MAX_FIRST_USES) {
		r->first_uses_overflow = true;
		return;
	}
	if (!n)
		return;
	uint32_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	if (!(r->first_uses = calloc(cap, sizeof(*r->first_uses)))) {
		r->first_uses_overflow = true;
		return;
	}
	r->first_uses_cap = cap;
	uint32_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < r->nentries; i++) {
			const struct rec_entry *e = &r->entries[i];
			if (e->kind == PP_RES_GLOBAL)
				continue;
			uint64_t key = res_key(e->kind, e->handle) | 1;
			struct rec_first_use *f = first_use_slot(r, key);
			bool barrier = e->barrier != NO_INDEX;
			if (pass == 0) {
				if (!f->key)
					f->key = key;
				uint32_t *cnt = barrier ? &f->nbarriers : &f->nuses;
				if (*cnt < PP_DIAG_RANGES)
					(*cnt)++;
				else if (barrier)
					f->overflow = true;
				continue;
			}
			if (f->overflow)
				continue;
			struct rec_range_rec *rr = &r->first_recs[f->first];
			if (barrier) {
				if (f->fill_barriers++ < f->nbarriers)
					rr[f->n++] = (struct rec_range_rec){ .range = e->range, .tick = e->opened, .barrier = true };
			} else if (f->fill_uses++ < f->nuses) {
				rr[f->n++] = (struct rec_range_rec){ .range = e->range, .tick = e->opened, .uses = e->uses,
								     .writes = e->write_uses };
			} else {
				/* The last use record takes the later ones: bounding range, earliest tick
				 * (more consumers, never fewer). */
				uint32_t k = f->n;
				while (k && rr[k - 1].barrier)
					k--;
				if (k) {
					range_bound(&rr[k - 1].range, &e->range);
					rr[k - 1].uses |= e->uses;
					rr[k - 1].writes |= e->write_uses;
				}
			}
		}
		if (pass == 0) {
			for (uint32_t j = 0; j < cap; j++) {
				struct rec_first_use *f = &r->first_uses[j];
				if (!f->key)
					continue;
				f->first = total;
				total += f->overflow ? 0 : f->nbarriers + f->nuses;
			}
			if (total && !(r->first_recs = calloc(total, sizeof(*r->first_recs)))) {
				free(r->first_uses);
				r->first_uses = NULL;
				r->first_uses_cap = 0;
				r->first_uses_overflow = true;
				return;
			}
		}
	}
}

/* Closes every open window: the recording is complete. Windows still open are kept (tails)
 * to be followed into the later command buffers of each submission. */
static void rec_close(struct pp_diag_rec *r)
{
	if (r->closed)
		return;
	advance(r);
	uint32_t ntails = 0;
	for (uint32_t i = 0; i < r->nentries; i++)
		ntails += r->entries[i].open && r->entries[i].barrier != NO_INDEX;
	if (ntails > REC_MAX_TAILS || (ntails && !(r->tails = calloc(ntails, sizeof(*r->tails)))))
		r->tails_overflow = true; /* judged on this recording alone */
	for (uint32_t i = 0; i < r->nentries; i++) {
		struct rec_entry *e = &r->entries[i];
		if (!e->open)
			continue;
		e->tail = e->barrier != NO_INDEX;
		if (e->tail && r->tails) {
			struct rec_tail *t = &r->tails[r->ntails++];
			struct work_view v;
			view_since(r, e->opened, &v);
			*t = (struct rec_tail){
				.handle = e->handle, .range = e->range, .kind = e->kind, .new_layout = e->new_layout,
				.format_bucket = e->format_bucket, .barrier = e->barrier, .work = v.work,
				.unused_candidate = e->kind != PP_RES_GLOBAL && !e->queue_transfer && !e->met &&
						    (e->kind != PP_RES_IMAGE || e->old_layout == e->new_layout),
			};
			t->consumers = entry_consumers(r, e, &t->unproven);
			t->writes = e->write_uses;
		}
		entry_close(r, e);
		barrier_entry_closed(r, e->barrier);
	}
	for (uint32_t i = 0; i < r->nbarriers; i++)
		barrier_evaluate(r, &r->barriers[i]);
	first_uses_build(r);
	r->closed = true;
}

/* A closed recording keeps only what re-submissions need: its barriers with findings, those
 * with windows open at its end, and the summary of what it uses. */
static void rec_compact(struct pp_diag_rec *r)
{
	uint32_t n = 0;
	for (uint32_t i = 0, t = 0; i < r->nbarriers; i++) {
		if (!r->barriers[i].fired && !r->barriers[i].tail)
			continue;
		/* tails are in barrier order */
		for (; t < r->ntails && r->tails[t].barrier <= i; t++)
			if (r->tails[t].barrier == i)
				r->tails[t].barrier = n;
		r->barriers[n++] = r->barriers[i];
	}
	r->nbarriers = n;
	if (!n) {
		free(r->barriers);
		r->barriers = NULL;
		r->cap_barriers = 0;
	}
	free(r->entries);
	r->entries = NULL;
	r->nentries = r->cap_entries = 0;
	free(r->map);
	free(r->map_keys);
	r->map = NULL;
	r->map_keys = NULL;
	r->map_cap = r->map_used = 0;
	free(r->cwrites);
	r->cwrites = NULL;
	r->ncwrites = r->cap_cwrites = 0;
	free(r->events);
	r->events = NULL;
	r->nevents = r->cap_events = 0;
	r->global_open = NO_INDEX;
}

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

struct pending_site {
	uint64_t key, frame;
	uint64_t cpu_ns;
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
	/* Frame indices come from a frame clock (attribution/model/attr_frame.h): the model's,
	 * handed in through the *_in_frame / _ended calls (the layer does), so they are
	 * report.json's; or, for a program that drives the rules alone (the unit tests), this
	 * device's own, through pp_diag_submit, _submit_done and _present. */
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
};

struct pp_diag_device *pp_diag_device_create(const struct pp_diag_config *cfg)
{
	struct pp_diag_device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	d->cfg = *cfg;
	pp_frame_clock_init(&d->own_clock, (enum pp_frame_delimiter)cfg->frame_delimiter);
	if (!d->cfg.poll_threshold)
		d->cfg.poll_threshold = 8;
	pp_sink_diagnostics_source(pp_diag_snapshot);
	return d;
}

void pp_diag_device_destroy(struct pp_diag_device *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->npools; i++) {
		free(d->pools[i].seq);
		free(d->pools[i].frame);
	}
	pthread_mutex_destroy(&d->lock);
	free(d);
}

uint64_t pp_diag_frame(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	uint64_t f = d->frame;
	pthread_mutex_unlock(&d->lock);
	return f;
}

uint64_t pp_diag_last_seq(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	uint64_t s = d->next_seq;
	pthread_mutex_unlock(&d->lock);
	return s;
}

uint32_t pp_diag_poll_threshold(const struct pp_diag_device *d)
{
	return d->cfg.poll_threshold;
}

/* Caller holds d->lock. */
static void message_queue(struct pp_diag_device *d, const struct pp_diag_message *m)
{
	if (d->msg_count == DEV_MESSAGES) {
		d->messages_dropped++;
		return;
	}
	d->messages[(d->msg_head + d->msg_count++) % DEV_MESSAGES] = *m;
}

uint32_t pp_diag_messages_take(struct pp_diag_device *d, struct pp_diag_message *out, uint32_t max)
{
	uint32_t n = 0;
	pthread_mutex_lock(&d->lock);
	while (d->msg_count && n < max) {
		out[n++] = d->messages[d->msg_head];
		d->msg_head = (d->msg_head + 1) % DEV_MESSAGES;
		d->msg_count--;
	}
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* A new site: logged once, queued for the messengers, marked in the trace. Caller holds
 * d->lock (not the site table's). */
static void site_announce(struct pp_diag_device *d, const struct pp_diagnostic *s, const char *trace_name,
			  const struct pp_diag_object *objs, uint32_t nobjs, enum pp_diag_rule rule, uint64_t frame)
{
	pp_log(PP_LOG_WARN, "%s (frame %llu, %s): %s Suggestion: %s", s->id, (unsigned long long)frame, s->site,
	       s->message, s->suggestion);
	struct pp_diag_message m = { .rule = rule };
	snprintf(m.text, sizeof(m.text), "%s: %s Suggestion: %s [%s]", s->id, s->message, s->suggestion, s->site);
	for (uint32_t i = 0; i < nobjs && m.nobjects < PP_DIAG_MAX_OBJECTS; i++)
		if (objs[i].handle)
			m.objects[m.nobjects++] = objs[i];
	message_queue(d, &m);
	if (trace_name)
		pp_sink_diagnostic(trace_name, (uint32_t)syscall(SYS_gettid), now_ns());
}

/* ---- barrier findings -> sites ------------------------------------------------------------ */

static void describe_resource(char *buf, size_t len, enum pp_diag_res_kind kind, uint64_t handle)
{
	if (kind == PP_RES_GLOBAL || !handle)
		snprintf(buf, len, "memory");
	else
		snprintf(buf, len, "%s 0x%llx", kind == PP_RES_IMAGE ? "image" : "buffer", (unsigned long long)handle);
}

static void barrier_texts(const struct rec_barrier *b, enum pp_diag_rule rule, struct pp_diagnostic *out,
			  const char *chain_site)
{
	char src[160], dst[160], sp[160], sc[160], res[64], sa[160], da[160], part[160];
	pp_stage_names(b->src_raw, src, sizeof(src));
	pp_stage_names(b->dst_raw, dst, sizeof(dst));
	pp_stage_names(b->producers, sp, sizeof(sp));
	pp_stage_names(b->dst_suggested, sc, sizeof(sc));
	pp_access_names(b->src_access, sa, sizeof(sa));
	pp_access_names(b->dst_access, da, sizeof(da));
	describe_resource(res, sizeof(res), b->example_kind, b->example);
	char src_sug[256], dst_sug[256];
	pp_stage_names(b->producers_partial, part, sizeof(part));
	if (b->producers)
		snprintf(src_sug, sizeof(src_sug), "srcStageMask = %s", sp);
	else if (b->producers_partial)
		snprintf(src_sug, sizeof(src_sug),
			 "srcStageMask = %s plus the stages that last used it before (the narrowest mask cannot be "
			 "proven: %s)", part, b->producers_unproven);
	else
		snprintf(src_sug, sizeof(src_sug), "srcStageMask: the narrowest mask cannot be proven (%s)",
			 b->producers_unproven ? b->producers_unproven : "no producer seen");
	if (b->dst_suggested)
		snprintf(dst_sug, sizeof(dst_sug), "dstStageMask = %s", sc);
	else
		snprintf(dst_sug, sizeof(dst_sug), "dstStageMask: the narrowest mask cannot be proven (%s)",
			 b->consumers_unproven ? b->consumers_unproven : "no consumer seen");

	switch (rule) {
	case PP_DIAG_FULL_DRAIN:
		snprintf(out->message, sizeof(out->message),
			 "%s with srcStageMask %s -> dstStageMask %s is a full pipeline drain: every later command waits "
			 "until every earlier command has finished, so no work on either side overlaps (on tile-based "
			 "GPUs both hardware queues run dry).",
			 b->api, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s; %s.", src_sug, dst_sug);
		break;
	case PP_DIAG_DST_TOO_EARLY:
		snprintf(out->message, sizeof(out->message),
			 "%s with dstStageMask %s blocks stages earlier than the first real consumer of %s (%s): later "
			 "work in those stages waits for nothing (on tile-based GPUs the next pass's vertex work waits for "
			 "this pass's fragment work).",
			 b->api, dst, res, sc);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s (keep dstAccessMask %s).", dst_sug, da);
		break;
	case PP_DIAG_SRC_TOO_LATE:
		snprintf(out->message, sizeof(out->message),
			 "%s with srcStageMask %s waits for every earlier stage, but the only producers of %s are %s.",
			 b->api, src, res, sp);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s (keep srcAccessMask %s).", src_sug, sa);
		break;
	case PP_DIAG_READ_TO_READ:
		snprintf(out->message, sizeof(out->message),
			 "%s orders reads after reads (srcAccessMask %s, dstAccessMask %s) with no layout change: reads "
			 "need no ordering between them, so this barrier only stalls (%s -> %s).",
			 b->api, sa, da, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Remove it; order the reads after the last write with one barrier instead.");
		break;
	case PP_DIAG_DUPLICATE:
		snprintf(out->message, sizeof(out->message),
			 "%s is identical to the barrier right before it and no command was recorded in between: it "
			 "has nothing left to order (%s -> %s).",
			 b->api, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion), "Remove the second barrier.");
		break;
	case PP_DIAG_CHAIN:
		snprintf(out->message, sizeof(out->message),
			 "%s makes vertex-side work (%s) wait for %s, which compute wrote after waiting for fragment work "
			 "(%s): a fragment -> compute -> vertex chain serializes the fragment and non-fragment hardware "
			 "queues of tile-based GPUs across frames.",
			 b->api, sc[0] ? sc : dst, res, chain_site ? chain_site : "an earlier barrier");
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Consume the compute result in a FRAGMENT_SHADER, use the result of the frame before, or run "
			 "the compute work so it does not depend on this frame's fragment output (async compute queue).");
		break;
	case PP_DIAG_SET_EVENT_WAIT:
		snprintf(out->message, sizeof(out->message),
			 "%s waits on an event set right before it with no command in between: a split barrier with "
			 "nothing to overlap costs more than a pipeline barrier.",
			 b->api);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Record independent work between vkCmdSetEvent and the wait, or use vkCmdPipelineBarrier.");
		break;
	case PP_DIAG_UNUSED:
		snprintf(out->message, sizeof(out->message),
			 "%s covers %s, which nothing after it uses: no later command of this command buffer or of the "
			 "later command buffers of this submission reads or writes it, and no work passprobe cannot see "
			 "into could (%s -> %s, dstAccessMask %s). It makes later work wait for nothing here.",
			 b->api, res, src, dst, da);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Remove the barrier%s%s; if a later submission uses it, record the barrier there, right before "
			 "that use (a pipeline barrier's first scope reaches every earlier submission of the queue).",
			 b->sub_unused_all ? "" : " of ", b->sub_unused_all ? "" : res);
		break;
	case PP_DIAG_MERGEABLE: {
		char ps[160], pd[160], us[160], ud[160];
		pp_stage_names(b->merge_src, ps, sizeof(ps));
		pp_stage_names(b->merge_dst, pd, sizeof(pd));
		pp_stage_names(b->merge_src | b->src_raw, us, sizeof(us));
		pp_stage_names(b->merge_dst | b->dst_raw, ud, sizeof(ud));
		snprintf(out->message, sizeof(out->message),
			 "%s comes right after %s with no command in between (%s -> %s, then %s -> %s): each call is a "
			 "synchronization point of its own for the driver (a wait and cache maintenance each) where one "
			 "call would do.",
			 b->api, b->merge_api ? b->merge_api : "another barrier", ps, pd, src, dst);
		if (b->merge == MERGE_SYNC1_EXACT)
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier with srcStageMask = %s, dstStageMask = %s and "
				 "the barriers of both: it orders exactly what the two calls order.",
				 us, ud);
		else if (b->merge == MERGE_AS_SYNC2)
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier2 in which each barrier keeps its own stages (one "
				 "vkCmdPipelineBarrier would need srcStageMask = %s -> dstStageMask = %s, a wider dependency "
				 "than the two calls).",
				 us, ud);
		else
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier2 with the barriers of both, each keeping its own "
				 "stages: the same dependencies, one synchronization point.");
		break;
	}
	default:
		break;
	}
}

/* What the user fixes: the code location (and label) that recorded the barrier, with its
 * masks; every command buffer and loop iteration recorded there is the same site. Without a
 * code location: the command buffer and the call index. */
static uint64_t barrier_site_key(const struct pp_diag_device *d, enum pp_diag_rule rule, uint64_t cb,
				 const struct rec_barrier *b)
{
	uint64_t k = mix64(d->cfg.sink_device_id + 1, rule + 1);
	if (b->loc_key)
		return mix64(mix64(mix64(k, b->loc_key), b->src_raw), (uint64_t)b->dst_raw + 1);
	return mix64(mix64(k, cb), b->index + 1);
}

/* Distinct command buffers a site was counted in, told apart up to PP_DIAGNOSTIC_MAX_CBS. */
static void site_note_cb_locked(struct site *s, uint64_t cb)
{
	for (uint32_t i = 0; i < s->ncbs; i++)
		if (s->cbs[i] == cb)
			return;
	if (s->ncbs < PP_DIAGNOSTIC_MAX_CBS)
		s->cbs[s->ncbs++] = cb;
	s->d.command_buffers = s->ncbs;
}

/* fragment -> compute -> vertex: walks the recording's barriers and compute writes in order.
 * Caller holds d->lock. */
static void chain_evaluate(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t frame)
{
	uint32_t w = 0;
	const char *frag_site = NULL;
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		struct rec_barrier *b = &r->barriers[bi];
		/* Tainted resources whose geometry-side consumers this barrier makes wait. */
		uint32_t dst = pp_stage_expand(b->dst_raw, true);
		for (uint32_t i = b->first; i < b->first + b->n && (dst & PP_STAGE_GEOMETRY_SIDE); i++) {
			const struct rec_entry *e = &r->entries[i];
			if (!(e->consumers & PP_STAGE_GEOMETRY_SIDE) ||
			    !(pp_stage_expand(b->src_raw, false) & PP_STAGE_COMPUTE))
				continue;
			for (uint32_t t = 0; t < d->ntaints; t++) {
				struct taint *tn = &d->taints[t];
				if ((e->kind == PP_RES_GLOBAL && tn->frame + TAINT_FRAMES >= frame) ||
				    (tn->handle == e->handle && tn->kind == e->kind)) {
					if (!(b->fired & (1u << PP_DIAG_CHAIN))) {
						finding(b, PP_DIAG_CHAIN);
						b->example = tn->handle;
						b->example_kind = tn->kind;
						b->dst_suggested = e->consumers & PP_STAGE_GEOMETRY_SIDE;
					}
					break;
				}
			}
		}
		/* Every compute dispatch after a fragment -> compute dependency waits for that
		 * fragment work (the barrier's second scope covers all later compute work), so
		 * what those dispatches write is tainted. */
		if ((b->producers & PP_STAGE_FRAGMENT_SIDE) && (b->consumers & PP_STAGE_COMPUTE) &&
		    (pp_stage_expand(b->dst_raw, true) & PP_STAGE_COMPUTE) && !frag_site)
			frag_site = b->site;
		uint64_t until = bi + 1 < r->nbarriers ? r->barriers[bi + 1].tick : UINT64_MAX;
		for (; w < r->ncwrites && r->cwrites[w].tick < until; w++) {
			if (!frag_site || r->cwrites[w].tick < b->tick)
				continue;
			const struct compute_write *cw = &r->cwrites[w];
			struct taint *slot = NULL;
			for (uint32_t t = 0; t < d->ntaints && !slot; t++)
				if (d->taints[t].handle == cw->handle && d->taints[t].kind == cw->kind)
					slot = &d->taints[t];
			if (!slot && d->ntaints < DEV_MAX_TAINT)
				slot = &d->taints[d->ntaints++];
			if (!slot) {
				/* Full: replace the oldest. */
				slot = &d->taints[0];
				for (uint32_t t = 1; t < d->ntaints; t++)
					if (d->taints[t].frame < slot->frame)
						slot = &d->taints[t];
			}
			slot->handle = cw->handle;
			slot->kind = cw->kind;
			slot->frame = frame;
			snprintf(slot->site, sizeof(slot->site), "%s", frag_site);
		}
	}
	/* Forget taints older than the chain can reach. */
	for (uint32_t t = 0; t < d->ntaints;)
		if (d->taints[t].frame + TAINT_FRAMES < frame)
			d->taints[t] = d->taints[--d->ntaints];
		else
			t++;
}

static const char *chain_site_of(const struct pp_diag_device *d, const struct rec_barrier *b)
{
	for (uint32_t t = 0; t < d->ntaints; t++)
		if (d->taints[t].handle == b->example && d->taints[t].kind == b->example_kind)
			return d->taints[t].site;
	return NULL;
}

uint32_t pp_diag_rec_cost_probes(struct pp_diag_device *d, const struct pp_diag_rec *r, uint64_t cb,
				 struct pp_diag_cost_probe *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		const struct rec_barrier *b = &r->barriers[bi];
		if (!b->sub_fired || b->ts_before == PP_DIAG_NO_SLOT || b->ts_after == PP_DIAG_NO_SLOT)
			continue;
		for (uint32_t rule = 0; rule < PP_DIAG_RULE_COUNT && n < max; rule++)
			if (b->sub_fired & (1u << rule))
				out[n++] = (struct pp_diag_cost_probe){ barrier_site_key(d, rule, cb, b), b->ts_before,
									b->ts_after };
	}
	return n;
}

uint32_t pp_diag_rec_fired(const struct pp_diag_rec *r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; r->closed && i < r->nbarriers && n < max; i++)
		if (r->barriers[i].fired | r->barriers[i].sub_fired)
			out[n++] = r->barriers[i].index;
	return n;
}

/* Follows a window open at the end of recs[i] into recs[i+1..n-1], adding what it finds there
 * to *consumers / *unproven / *work (PP_WORK_*). Returns whether it stays open to the end of
 * the submission (no later barrier on its resource). */
static bool tail_follow(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i, const struct rec_tail *t,
			uint32_t *consumers, uint32_t *writes, const char **unproven, uint32_t *work)
{
	for (uint32_t j = i + 1; j < n; j++) {
		const struct pp_diag_rec *q = recs[j];
		const char *why = !q ? "a later command buffer of the submission is not followed (it may use anything)"
			: q->incomplete ? "a later command buffer of the submission was too large to follow"
			: NULL;
		uint64_t until = UINT64_MAX;
		uint32_t uses = 0;
		if (!why && t->kind == PP_RES_GLOBAL) {
			until = q->first_global_tick;
		} else if (!why) {
			const struct rec_first_use *f = first_use_slot(q, res_key(t->kind, t->handle));
			if (f && f->key && f->overflow) {
				why = "a later command buffer of the submission barriers more ranges of it than passprobe follows";
			} else if (f && f->key) {
				/* Its first barrier on an overlapping range closes the window; the uses of
				 * overlapping ranges before it are consumers. */
				const struct rec_range_rec *rr = &q->first_recs[f->first];
				for (uint32_t k = 0; k < f->n; k++)
					if (rr[k].barrier && rr[k].tick < until && pp_diag_range_overlap(&rr[k].range, &t->range))
						until = rr[k].tick;
				for (uint32_t k = 0; k < f->n; k++)
					if (!rr[k].barrier && rr[k].tick < until && pp_diag_range_overlap(&rr[k].range, &t->range)) {
						uses |= rr[k].uses;
						*writes |= rr[k].writes;
					}
			} else if (q->first_uses_overflow) {
				why = "a later command buffer of the submission uses too many resources to follow";
			}
		}
		if (why) {
			if (!*unproven)
				*unproven = why;
			return true;
		}
		struct work_view v;
		view_before(q, until, &v);
		*consumers |= uses | anon_consumers(&v, t->kind, t->new_layout, t->format_bucket, &why);
		if (why && !*unproven)
			*unproven = why;
		*work |= v.work;
		if (until != UINT64_MAX)
			return false;
	}
	return true;
}

static uint64_t neighbours_sig(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i)
{
	uint64_t h = mix64(n - i, 0x5eed);
	for (uint32_t j = i + 1; j < n; j++)
		h = mix64(h, recs[j] ? recs[j]->gen : 0);
	return h;
}

/* The verdicts of recs[i]'s barriers in this submission (sub_*): the windows open at the end
 * of its recording followed into the later command buffers. Made once per distinct sequence of
 * later recordings; a recording submitted the same way every frame is judged once. */
static void rec_judge_submission(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i)
{
	struct pp_diag_rec *r = recs[i];
	uint64_t sig = neighbours_sig(recs, n, i);
	if (r->sub_valid && r->sub_sig == sig)
		return;
	r->sub_valid = true;
	r->sub_sig = sig;
	for (uint32_t bi = 0, t = 0; bi < r->nbarriers; bi++) {
		struct rec_barrier *b = &r->barriers[bi];
		b->sub_fired = b->fired;
		b->sub_dst_suggested = b->dst_suggested;
		b->sub_unproven = b->consumers_unproven;
		b->sub_unused = 0;
		if (!b->tail || r->tails_overflow)
			continue;
		uint32_t consumers = b->closed_consumers, writes = b->closed_writes, nunused = 0;
		const char *unproven = b->closed_unproven;
		for (; t < r->ntails && r->tails[t].barrier == bi; t++) {
			const struct rec_tail *tl = &r->tails[t];
			uint32_t c = tl->consumers, w = tl->writes, work = tl->work;
			const char *why = tl->unproven;
			bool open = tail_follow(recs, n, i, tl, &c, &w, &why, &work);
			writes |= w;
			/* Shaders may reach any buffer through its device address. */
			bool maybe_addressed = tl->kind == PP_RES_BUFFER && (work & (PP_WORK_DRAW | PP_WORK_DISPATCH));
			if (!c && !why && open && tl->unused_candidate && !maybe_addressed && nunused++ == 0) {
				b->sub_unused = tl->handle;
				b->sub_unused_kind = tl->kind;
			}
			if (!c && !why)
				why = open ? UNPROVEN_NO_USER : "nothing uses what it covers before the next barrier on it";
			consumers |= c;
			if (why && !unproven)
				unproven = why;
		}
		uint32_t sug;
		b->sub_fired = (b->fired & ~(1u << PP_DIAG_DST_TOO_EARLY)) | dst_judge(b, consumers, writes, unproven, &sug);
		b->sub_dst_suggested = sug;
		b->sub_unproven = unproven;
		/* Inside a render pass the attachments begun before it are its users. */
		if (b->sub_unused && !b->acquire && !b->in_render_pass &&
		    !(pp_stage_expand(b->dst_raw, true) & PP_STAGE_HOST)) {
			b->sub_fired |= 1u << PP_DIAG_UNUSED;
			b->sub_unused_all = nunused == b->n;
		} else {
			b->sub_unused = 0;
		}
	}
}

/* Counts the findings of one submitted recording (after rec_judge_submission). Caller holds
 * d->lock. */
static void rec_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame)
{
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		const struct rec_barrier *rb = &r->barriers[bi];
		if (!rb->sub_fired)
			continue;
		/* this submission's view of it */
		struct rec_barrier view = *rb, *b = &view;
		view.dst_suggested = rb->sub_dst_suggested;
		view.consumers_unproven = rb->sub_unproven;
		for (uint32_t rule = 0; rule < PP_DIAG_RULE_COUNT; rule++) {
			if (!(rb->sub_fired & (1u << rule)))
				continue;
			view.example = rule == PP_DIAG_UNUSED ? rb->sub_unused : rb->example;
			view.example_kind = rule == PP_DIAG_UNUSED ? rb->sub_unused_kind : rb->example_kind;
			uint64_t key = barrier_site_key(d, rule, cb, b);
			pthread_mutex_lock(&g_sites.lock);
			struct site *s = site_find_locked(key);
			bool created = false;
			if (!s && (s = site_insert_locked(key))) {
				created = true;
				snprintf(s->d.id, sizeof(s->d.id), "%s", rule_ids[rule]);
				s->d.device_id = d->cfg.sink_device_id;
				snprintf(s->d.site, sizeof(s->d.site), "%s", b->site);
				barrier_texts(b, rule, &s->d, rule == PP_DIAG_CHAIN ? chain_site_of(d, b) : NULL);
				s->d.cost_kind = "gpu_barrier_stall";
				s->d.cost_unavailable = !d->cfg.barrier_cost ? "barrier_cost setting is off"
							: b->in_render_pass ? "barrier inside a render pass: not measured"
							: b->untimed
								? "no timestamps in this command buffer"
								: "not measured yet (a flagged barrier is timed from its "
								  "command buffer's next recording on)";
			}
			struct pp_diagnostic copy;
			const char *trace_name = NULL;
			if (s) {
				site_count_locked(s, frame, 1);
				if (b->loc_key)
					site_note_cb_locked(s, cb);
				if (created)
					trace_name = site_first_seen_locked(s, &copy);
			}
			pthread_mutex_unlock(&g_sites.lock);
			if (created) {
				struct pp_diag_object objs[2] = {
					{ PP_OBJ_COMMAND_BUFFER, cb },
					{ b->example_kind == PP_RES_IMAGE ? PP_OBJ_IMAGE
					  : b->example_kind == PP_RES_BUFFER ? PP_OBJ_BUFFER : PP_OBJ_NONE,
					  b->example_kind == PP_RES_GLOBAL ? 0 : b->example },
				};
				site_announce(d, &copy, trace_name, objs, 2, rule, frame);
			}
		}
	}
}

/* Counts the flagged subpass dependencies of the render pass instances of one submitted
 * recording; the site is the render pass and the dependency. Caller holds d->lock. */
static void subpass_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame)
{
	for (uint32_t i = 0; i < r->nsubpasses; i++) {
		const struct rec_subpass *e = &r->subpasses[i];
		const struct pp_diag_subpass_dep *dep = &e->dep;
		uint64_t key = mix64(mix64(mix64(d->cfg.sink_device_id + 1, PP_DIAG_SUBPASS_NOT_BY_REGION + 1), e->render_pass),
				     dep->index + 1);
		pthread_mutex_lock(&g_sites.lock);
		struct site *s = site_find_locked(key);
		bool created = false;
		if (!s && (s = site_insert_locked(key))) {
			created = true;
			char src[160], dst[160], sa[160], da[160];
			pp_stage_names(dep->src_stages, src, sizeof(src));
			pp_stage_names(dep->dst_stages, dst, sizeof(dst));
			pp_access_names(dep->src_access, sa, sizeof(sa));
			pp_access_names(dep->dst_access, da, sizeof(da));
			snprintf(s->d.id, sizeof(s->d.id), "%s", rule_ids[PP_DIAG_SUBPASS_NOT_BY_REGION]);
			s->d.device_id = d->cfg.sink_device_id;
			snprintf(s->d.site, sizeof(s->d.site), "render pass 0x%llx%s%s%s, pDependencies[%u] (subpass %u -> %u)",
				 (unsigned long long)e->render_pass, e->name[0] ? " \"" : "", e->name, e->name[0] ? "\"" : "",
				 dep->index, dep->src_subpass, dep->dst_subpass);
			if (dep->src_subpass != dep->dst_subpass)
				snprintf(s->d.message, sizeof(s->d.message),
					 "VkSubpassDependency pDependencies[%u] (subpass %u -> %u, %s -> %s, %s -> %s) has only "
					 "framebuffer-space stages and attachment accesses but no VK_DEPENDENCY_BY_REGION_BIT: "
					 "it is framebuffer-global, so subpass %u waits for all of subpass %u over the whole "
					 "framebuffer (a tile-based GPU must finish and write out every tile of subpass %u "
					 "before subpass %u starts, instead of keeping the attachments on-chip).",
					 dep->index, dep->src_subpass, dep->dst_subpass, src, dst, sa, da, dep->dst_subpass,
					 dep->src_subpass, dep->src_subpass, dep->dst_subpass);
			else
				snprintf(s->d.message, sizeof(s->d.message),
					 "VkSubpassDependency pDependencies[%u] (self-dependency of subpass %u, %s -> %s, %s -> "
					 "%s) has only framebuffer-space stages but no VK_DEPENDENCY_BY_REGION_BIT: the "
					 "barriers it allows inside the subpass are framebuffer-global (the specification "
					 "requires BY_REGION for such a self-dependency).",
					 dep->index, dep->src_subpass, src, dst, sa, da);
			snprintf(s->d.suggestion, sizeof(s->d.suggestion),
				 "dependencyFlags |= VK_DEPENDENCY_BY_REGION_BIT in pDependencies[%u] (valid here: every access "
				 "it orders is an attachment access at the fragment's own location).",
				 dep->index);
			s->d.cost_kind = "gpu_barrier_stall";
			s->d.cost_unavailable = "a subpass dependency inside a render pass: not measured";
		}
		struct pp_diagnostic copy;
		const char *trace_name = NULL;
		if (s) {
			site_count_locked(s, frame, e->begins);
			if (created)
				trace_name = site_first_seen_locked(s, &copy);
		}
		pthread_mutex_unlock(&g_sites.lock);
		if (created) {
			const struct pp_diag_object objs[2] = { { PP_OBJ_COMMAND_BUFFER, cb },
								{ PP_OBJ_RENDER_PASS, e->render_pass } };
			site_announce(d, &copy, trace_name, objs, 2, PP_DIAG_SUBPASS_NOT_BY_REGION, frame);
		}
	}
}

static struct pool_rec *pool_find(struct pp_diag_device *d, uint64_t pool, uint32_t need, bool create)
{
	for (uint32_t i = 0; i < d->npools; i++)
		if (d->pools[i].pool == pool) {
			struct pool_rec *p = &d->pools[i];
			if (need > p->nqueries && create && need <= DEV_MAX_POOL_QUERIES) {
				uint64_t *s = realloc(p->seq, need * sizeof(*s));
				uint64_t *f = s ? realloc(p->frame, need * sizeof(*f)) : NULL;
				if (s)
					p->seq = s;
				if (!s || !f)
					return need <= p->nqueries ? p : NULL;
				p->frame = f;
				memset(p->seq + p->nqueries, 0, (need - p->nqueries) * sizeof(*s));
				memset(p->frame + p->nqueries, 0, (need - p->nqueries) * sizeof(*f));
				p->nqueries = need;
			}
			return p;
		}
	if (!create || d->npools == DEV_MAX_POOLS || need > DEV_MAX_POOL_QUERIES)
		return NULL;
	struct pool_rec *p = &d->pools[d->npools];
	p->pool = pool;
	p->seq = calloc(need ? need : 1, sizeof(*p->seq));
	p->frame = calloc(need ? need : 1, sizeof(*p->frame));
	if (!p->seq || !p->frame) {
		free(p->seq);
		free(p->frame);
		return NULL;
	}
	p->nqueries = need;
	d->npools++;
	return p;
}

static uint64_t submit_locked(struct pp_diag_device *d, uint64_t frame, uint64_t queue, uint32_t n,
			      struct pp_diag_rec *const *recs, const uint64_t *cbs)
{
	if (!d->only_queue)
		d->only_queue = queue;
	else if (d->only_queue != queue)
		d->many_queues = true;
	d->frame_open = true;
	d->frame = frame;
	uint64_t seq = ++d->next_seq;
	for (uint32_t i = 0; i < n; i++) {
		struct pp_diag_rec *r = recs[i];
		if (r && !r->closed) {
			rec_close(r);
			chain_evaluate(d, r, d->frame);
			rec_compact(r);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct pp_diag_rec *r = recs[i];
		if (!r)
			continue;
		rec_judge_submission(recs, n, i);
		rec_count(d, r, cbs[i], d->frame);
		subpass_count(d, r, cbs[i], d->frame);
		for (uint32_t q = 0; q < r->nqueries; q++) {
			const struct query_write *w = &r->queries[q];
			struct pool_rec *p = pool_find(d, w->pool, w->first + w->count, true);
			for (uint32_t k = w->first; p && k < w->first + w->count && k < p->nqueries; k++) {
				p->seq[k] = seq;
				p->frame[k] = d->frame;
			}
		}
	}
	return seq;
}

uint64_t pp_diag_submit(struct pp_diag_device *d, uint64_t queue, uint32_t n, struct pp_diag_rec *const *recs,
			const uint64_t *cbs)
{
	pthread_mutex_lock(&d->lock);
	uint64_t seq = submit_locked(d, pp_frame_clock_submit(&d->own_clock), queue, n, recs, cbs);
	pthread_mutex_unlock(&d->lock);
	return seq;
}

uint64_t pp_diag_submit_in_frame(struct pp_diag_device *d, uint64_t frame, uint64_t queue, uint32_t n,
				 struct pp_diag_rec *const *recs, const uint64_t *cbs)
{
	pthread_mutex_lock(&d->lock);
	uint64_t seq = submit_locked(d, frame, queue, n, recs, cbs);
	pthread_mutex_unlock(&d->lock);
	return seq;
}

/* The clock says every frame below `ended` is over: the frame of the last submission seen
 * closes (counted for the frame statistics only when a submission of it was seen here). */
static void frames_ended_locked(struct pp_diag_device *d, uint64_t ended)
{
	if (!d->frame_open || d->frame >= ended)
		return;
	d->frame_open = false;
	frame_stat_close(d->cfg.sink_device_id);
}

static void fence_note_locked(struct pp_diag_device *d, uint64_t fence)
{
	if (fence) {
		struct fence_rec *f = NULL;
		for (uint32_t i = 0; i < d->nfences && !f; i++)
			if (d->fences[i].fence == fence)
				f = &d->fences[i];
		if (!f && d->nfences < DEV_MAX_FENCES)
			f = &d->fences[d->nfences++];
		if (!f) {
			f = &d->fences[0];
			for (uint32_t i = 1; i < d->nfences; i++)
				if (d->fences[i].seq < f->seq)
					f = &d->fences[i];
		}
		*f = (struct fence_rec){ fence, d->next_seq, d->frame };
	}
}

void pp_diag_submit_done(struct pp_diag_device *d, uint64_t fence, bool saw_frame_label)
{
	pthread_mutex_lock(&d->lock);
	fence_note_locked(d, fence);
	if (pp_frame_clock_submit_done(&d->own_clock, fence != 0, saw_frame_label))
		frames_ended_locked(d, d->own_clock.ended);
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_submit_done_ended(struct pp_diag_device *d, uint64_t fence, uint64_t ended)
{
	pthread_mutex_lock(&d->lock);
	fence_note_locked(d, fence);
	frames_ended_locked(d, ended);
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_present(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	if (pp_frame_clock_present(&d->own_clock))
		frames_ended_locked(d, d->own_clock.ended);
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_frames_ended(struct pp_diag_device *d, uint64_t ended)
{
	pthread_mutex_lock(&d->lock);
	frames_ended_locked(d, ended);
	pthread_mutex_unlock(&d->lock);
}

/* ---- blocking waits ------------------------------------------------------------------------ */

void pp_diag_completed(struct pp_diag_device *d, uint64_t seq)
{
	pthread_mutex_lock(&d->lock);
	if (seq > d->completed)
		d->completed = seq;
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_queue_idle(struct pp_diag_device *d, uint64_t queue)
{
	pthread_mutex_lock(&d->lock);
	if (!d->many_queues && d->only_queue == queue)
		d->completed = d->next_seq;
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_fence_reset(struct pp_diag_device *d, uint64_t fence)
{
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < d->nfences; i++)
		if (d->fences[i].fence == fence) {
			d->fences[i] = d->fences[--d->nfences];
			break;
		}
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_queries_host_reset(struct pp_diag_device *d, uint64_t pool, uint32_t first, uint32_t count)
{
	pthread_mutex_lock(&d->lock);
	struct pool_rec *p = pool_find(d, pool, 0, false);
	for (uint32_t k = first; p && k < first + count && k < p->nqueries; k++)
		p->seq[k] = p->frame[k] = 0;
	pthread_mutex_unlock(&d->lock);
}

/* Caller holds d->lock. */
static enum pp_diag_wait_verdict verdict_of(const struct pp_diag_device *d, uint64_t seq, uint64_t frame)
{
	if (!seq)
		return PP_WAIT_UNSUBMITTED;
	if (seq <= d->completed)
		return PP_WAIT_FINE;
	if (frame == d->frame)
		return PP_WAIT_CURRENT_FRAME;
	return PP_WAIT_NOT_COMPLETE;
}

enum pp_diag_wait_verdict pp_diag_fence_check(struct pp_diag_device *d, uint64_t fence, uint64_t *seq)
{
	enum pp_diag_wait_verdict v = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < d->nfences; i++)
		if (d->fences[i].fence == fence) {
			*seq = d->fences[i].seq;
			v = verdict_of(d, d->fences[i].seq, d->fences[i].frame);
			break;
		}
	pthread_mutex_unlock(&d->lock);
	return v;
}

enum pp_diag_wait_verdict pp_diag_query_check(struct pp_diag_device *d, uint64_t pool, uint32_t first, uint32_t count,
					      uint64_t *seq)
{
	enum pp_diag_wait_verdict worst = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	struct pool_rec *p = pool_find(d, pool, 0, false);
	if (p) {
		worst = PP_WAIT_FINE;
		for (uint32_t k = first; k < first + count; k++) {
			uint64_t s = k < p->nqueries ? p->seq[k] : 0, f = k < p->nqueries ? p->frame[k] : 0;
			enum pp_diag_wait_verdict v = verdict_of(d, s, f);
			/* Precedence: would-deadlock, then this frame, then not complete. */
			static const int rank[] = { [PP_WAIT_FINE] = 0, [PP_WAIT_NOT_COMPLETE] = 1,
						    [PP_WAIT_CURRENT_FRAME] = 2, [PP_WAIT_UNSUBMITTED] = 3,
						    [PP_WAIT_UNKNOWN] = 0 };
			if (rank[v] > rank[worst]) {
				worst = v;
				*seq = s;
			}
		}
	}
	pthread_mutex_unlock(&d->lock);
	return worst;
}

static const char *blocking_message(enum pp_diag_rule rule)
{
	switch (rule) {
	case PP_DIAG_QUERY_WAIT:
		return "vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT waits for queries whose submission has not "
		       "finished: the CPU stalls until the GPU is done, and the GPU then idles until the next submission "
		       "(the pipeline between CPU and GPU drains, like glFinish).";
	case PP_DIAG_QUERY_WAIT_UNSUBMITTED:
		return "vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT on queries that no submitted command buffer "
		       "writes: the wait cannot finish until such a submission happens (a deadlock if none comes).";
	case PP_DIAG_FENCE_WAIT:
		return "vkWaitForFences on the fence of a submission of the latest frame: the CPU cannot prepare the next "
		       "frame while the GPU works on this one, and the GPU idles while the CPU prepares it.";
	case PP_DIAG_QUEUE_WAIT_IDLE:
		return "vkQueueWaitIdle inside the frame loop (it recurs in later frames): it drains the queue every "
		       "time and serializes CPU and GPU.";
	case PP_DIAG_DEVICE_WAIT_IDLE:
		return "vkDeviceWaitIdle inside the frame loop (it recurs in later frames): it drains every queue every "
		       "time and serializes CPU and GPU.";
	case PP_DIAG_POLLING:
		return "a tight polling loop: the same object was polled repeatedly within one frame while the GPU had "
		       "not finished, burning a CPU core.";
	case PP_DIAG_SEMAPHORE_WAIT:
		return "vkWaitSemaphores waits for a timeline semaphore value signalled by a submission of the latest "
		       "frame: the CPU cannot prepare the next frame while the GPU works on this one, and the GPU idles "
		       "while the CPU prepares it.";
	default:
		return "";
	}
}

static const char *blocking_suggestion(enum pp_diag_rule rule)
{
	switch (rule) {
	case PP_DIAG_QUERY_WAIT:
		return "Read query results two or more frames later without WAIT_BIT (WITH_AVAILABILITY_BIT, retry next "
		       "frame), or after the fence of their submission.";
	case PP_DIAG_QUERY_WAIT_UNSUBMITTED:
		return "Submit the command buffer that writes the queries before waiting on them, or read without "
		       "WAIT_BIT.";
	case PP_DIAG_FENCE_WAIT:
		return "Keep two or more frames in flight: one fence per frame, wait on the fence of frame N-2 before "
		       "reusing its resources.";
	case PP_DIAG_QUEUE_WAIT_IDLE:
	case PP_DIAG_DEVICE_WAIT_IDLE:
		return "Synchronize with per-frame fences (and semaphores between queues); keep idle waits for start-up, "
		       "resize and shutdown.";
	case PP_DIAG_POLLING:
		return "Wait once (vkWaitForFences with a timeout) where the result is needed, or do useful work and "
		       "read results of older frames.";
	case PP_DIAG_SEMAPHORE_WAIT:
		return "Keep two or more frames in flight: wait on the host for the value frame N-2 signalled before "
		       "reusing its resources, and order GPU work with semaphore waits in the next submission instead.";
	default:
		return "";
	}
}

uint64_t pp_diag_blocking_report(struct pp_diag_device *d, const struct pp_diag_blocking *b)
{
	uint64_t key = mix64(mix64(d->cfg.sink_device_id + 1, b->rule + 101), b->site_key);
	uint64_t counted = 0;
	pthread_mutex_lock(&d->lock);
	uint64_t frame = d->frame;
	pthread_mutex_lock(&g_sites.lock);
	struct site *s = site_find_locked(key);
	pthread_mutex_unlock(&g_sites.lock);
	uint64_t extra = 0, extra_cpu = 0, extra_frame = 0;
	if (!s && b->steady_state) {
		/* A wait counts once its site recurs in a later frame: start-up and shutdown waits
		 * happen once. */
		struct pending_site *p = NULL, *free_slot = NULL;
		for (uint32_t i = 0; i < DEV_MAX_PENDING; i++) {
			if (d->pending[i].used && d->pending[i].key == key)
				p = &d->pending[i];
			else if (!d->pending[i].used && !free_slot)
				free_slot = &d->pending[i];
		}
		if (!p) {
			if (!free_slot) {
				free_slot = &d->pending[0];
				for (uint32_t i = 1; i < DEV_MAX_PENDING; i++)
					if (d->pending[i].frame < free_slot->frame)
						free_slot = &d->pending[i];
			}
			*free_slot = (struct pending_site){ key, frame, b->cpu_ns, true };
			pthread_mutex_unlock(&d->lock);
			return 0;
		}
		if (p->frame == frame) {
			p->cpu_ns += b->cpu_ns;
			pthread_mutex_unlock(&d->lock);
			return 0;
		}
		extra = 1;
		extra_cpu = p->cpu_ns;
		extra_frame = p->frame;
		p->used = false;
	}
	pthread_mutex_lock(&g_sites.lock);
	bool created = false;
	if (!s && (s = site_insert_locked(key))) {
		created = true;
		snprintf(s->d.id, sizeof(s->d.id), "%s", rule_ids[b->rule]);
		s->d.device_id = d->cfg.sink_device_id;
		snprintf(s->d.site, sizeof(s->d.site), "%s", b->site ? b->site : "");
		snprintf(s->d.message, sizeof(s->d.message), "%s%s%s", blocking_message(b->rule),
			 b->detail ? " " : "", b->detail ? b->detail : "");
		snprintf(s->d.suggestion, sizeof(s->d.suggestion), "%s", blocking_suggestion(b->rule));
		s->d.cost_kind = "cpu_blocked";
		s->d.gpu_idle_unavailable = "no GPU timestamps around this wait yet";
		s->d.thread_id = b->thread_id;
		snprintf(s->d.thread_name, sizeof(s->d.thread_name), "%s", b->thread_name ? b->thread_name : "");
		if (extra) {
			/* the first occurrence, now confirmed; it belonged to an earlier frame */
			site_count_locked(s, extra_frame, extra);
			s->cost_sum += extra_cpu;
			s->cost_frames++;
			s->cost_last_frame = extra_frame;
		}
	}
	struct pp_diagnostic copy;
	const char *trace_name = NULL;
	if (s) {
		site_count_locked(s, frame, 1);
		if (!s->cost_frames || s->cost_last_frame != frame)
			s->cost_frames++;
		s->cost_last_frame = frame;
		s->cost_sum += b->cpu_ns;
		counted = key;
		if (created)
			trace_name = site_first_seen_locked(s, &copy);
	}
	pthread_mutex_unlock(&g_sites.lock);
	if (created)
		site_announce(d, &copy, trace_name, b->objects, b->nobjects, b->rule, frame);
	pthread_mutex_unlock(&d->lock);
	return counted;
}

uint32_t pp_diag_poll(struct pp_diag_device *d, enum pp_diag_object_kind kind, uint64_t handle, uint64_t now,
		      uint64_t *since)
{
	pthread_mutex_lock(&d->lock);
	struct poll_rec *p = NULL, *victim = &d->polls[0];
	for (uint32_t i = 0; i < DEV_MAX_POLLS && !p; i++) {
		if (d->polls[i].handle == handle && d->polls[i].kind == kind)
			p = &d->polls[i];
		else if (d->polls[i].frame < victim->frame || !d->polls[i].handle)
			victim = &d->polls[i];
	}
	if (!p) {
		p = victim;
		*p = (struct poll_rec){ kind, handle, d->frame, now, 0 };
	}
	if (p->frame != d->frame) {
		p->frame = d->frame;
		p->count = 0;
	}
	if (!p->count)
		p->since = now;
	uint32_t n = ++p->count;
	*since = p->since;
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* ---- timeline semaphores ------------------------------------------------------------------ */

/* Caller holds d->lock. */
static struct sem_rec *sem_find(struct pp_diag_device *d, uint64_t sem)
{
	for (uint32_t i = 0; sem && i < PP_DIAG_MAX_SEMAPHORES; i++)
		if (d->sems[i].used && d->sems[i].sem == sem)
			return &d->sems[i];
	return NULL;
}

bool pp_diag_semaphore_create(struct pp_diag_device *d, uint64_t sem, uint64_t initial)
{
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	for (uint32_t i = 0; !s && i < PP_DIAG_MAX_SEMAPHORES; i++)
		if (!d->sems[i].used)
			s = &d->sems[i];
	if (s)
		*s = (struct sem_rec){ .sem = sem, .used = true, .reached = initial, .evicted_max = initial };
	pthread_mutex_unlock(&d->lock);
	if (!s)
		pp_log_once(PP_LOG_INFO, "diagnostics: more than %u timeline semaphores; waits on the others are not judged",
			    PP_DIAG_MAX_SEMAPHORES);
	return s != NULL;
}

void pp_diag_semaphore_destroy(struct pp_diag_device *d, uint64_t sem)
{
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s)
		s->used = false;
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_semaphore_signal(struct pp_diag_device *d, uint64_t sem, uint64_t value, bool host)
{
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s) {
		struct sem_signal sig = { value, host ? 0 : d->next_seq, d->frame };
		if (s->nsig < PP_DIAG_SEMAPHORE_SIGNALS) {
			s->sig[s->nsig++] = sig;
		} else {
			if (s->sig[s->oldest].value > s->evicted_max)
				s->evicted_max = s->sig[s->oldest].value;
			s->sig[s->oldest] = sig;
			s->oldest = (s->oldest + 1) % PP_DIAG_SEMAPHORE_SIGNALS;
		}
		/* A host signal has happened when the call returns. */
		if (host && value > s->reached)
			s->reached = value;
	}
	pthread_mutex_unlock(&d->lock);
}

enum pp_diag_wait_verdict pp_diag_semaphore_check(struct pp_diag_device *d, uint64_t sem, uint64_t value,
						  uint64_t *seq)
{
	enum pp_diag_wait_verdict v = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s && (value <= s->reached || value <= s->evicted_max)) {
		v = PP_WAIT_FINE;
	} else if (s) {
		/* The wait ends with the first signal that reaches the value. */
		const struct sem_signal *first = NULL;
		for (uint32_t i = 0; i < s->nsig; i++)
			if (s->sig[i].value >= value && (!first || s->sig[i].value < first->value))
				first = &s->sig[i];
		if (first && !first->seq) {
			v = PP_WAIT_FINE;
		} else if (first) {
			*seq = first->seq;
			v = verdict_of(d, first->seq, first->frame);
		}
	}
	pthread_mutex_unlock(&d->lock);
	return v;
}

bool pp_diag_semaphore_reached(struct pp_diag_device *d, uint64_t sem, uint64_t value)
{
	bool pending = false;
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s) {
		if (value > s->reached)
			s->reached = value;
		for (uint32_t i = 0; i < s->nsig; i++) {
			const struct sem_signal *g = &s->sig[i];
			if (!g->seq)
				continue;
			if (g->value > value)
				pending = true;
			else if (g->seq > d->completed)
				d->completed = g->seq;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return pending;
}
