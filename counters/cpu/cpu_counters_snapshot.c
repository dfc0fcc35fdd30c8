/* Per-thread counter state, snapshots, deltas, configuration and lifetimes. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cpu_counters_internal.h"
#include "pp_log.h"
#include "pp_thread.h"

/* Everything below that is not thread-local is guarded by g_lock, which the hot path never
 * takes: a snapshot reads its own thread's state and g_gen only. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct pp_cpu_config g_config;
static bool g_config_set;
static struct pp_cpu_thread *g_threads;
static pthread_key_t g_key;
static bool g_key_live;
static uint64_t g_next_id = 1;
static uint32_t g_next_session = 1;
static int g_logged;
/* Bumped whenever states are closed behind their threads' backs (configure, shutdown, fork);
 * a thread whose t_gen differs treats its t_state as gone (already freed) and reopens. */
static uint32_t g_gen = 1;

static bool g_cpu_time_from_perf = true;

/* initial-exec: read at every snapshot, two per pass boundary, where the general model's
 * __tls_get_addr call is a tenth of the snapshot's instructions. It costs no static TLS: both
 * libraries that link this code already have an initial-exec variable of their own
 * (pp_layer_objects_command_buffer_cache_tls, pp_egl_real_tls), which puts their whole TLS block there. */
static __thread struct pp_cpu_thread *t_state __attribute__((tls_model("initial-exec")));
static __thread uint32_t t_gen __attribute__((tls_model("initial-exec")));

static void config_get_locked(struct pp_cpu_config *out)
{
	if (!g_config_set) {
		pp_cpu_counters_events_config_default(&g_config);
		g_config_set = true;
	}
	*out = g_config;
}

static void state_free(struct pp_cpu_thread *st)
{
	pp_cpu_counters_perf_close_thread(st);
	free(st);
}

/* Closes every state and starts a new generation. Caller holds g_lock. */
static void close_all_locked(void)
{
	struct pp_cpu_thread *st = g_threads;
	g_threads = NULL;
	while (st) {
		struct pp_cpu_thread *next = st->next;
		state_free(st);
		st = next;
	}
	__atomic_add_fetch(&g_gen, 1, __ATOMIC_RELEASE);
	t_state = NULL;
}

static struct pp_cpu_thread *unlink_locked(uint64_t id)
{
	for (struct pp_cpu_thread **pp = &g_threads; *pp; pp = &(*pp)->next) {
		if ((*pp)->id == id) {
			struct pp_cpu_thread *st = *pp;
			*pp = st->next;
			return st;
		}
	}
	return NULL;
}

/* The key's value is the state's id, not its address: by the time this runs, configure may
 * have freed the state and a new thread may have been given the same address. */
static void thread_key_destroy(void *value)
{
	pthread_mutex_lock(&g_lock);
	struct pp_cpu_thread *st = unlink_locked((uint64_t)(uintptr_t)value);
	pthread_mutex_unlock(&g_lock);
	if (st) {
		if (t_state == st)
			t_state = NULL;
		state_free(st);
	}
}

/* fork(): the child has copies of the parent threads' fds, which count the parent's threads.
 * g_lock is held across fork so that the list is consistent in the child. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&g_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
	close_all_locked();
	pthread_mutex_unlock(&g_lock);
}

static void init_once(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads the hardware group, in user space when the kernel allows it right now. */
static bool read_hw(const struct pp_cpu_thread *st, struct pp_cpu_snapshot *out)
{
	const struct pp_cpu_group *hw = &st->group[PP_CPU_GROUP_HW];
	if (st->user_read &&
	    pp_cpu_counters_perf_group_read_user(hw, &out->hw_time_enabled, &out->hw_time_running, out->value)) {
		out->flags |= PP_CPU_FLAG_USER_READ;
		return true;
	}
	if (pp_cpu_counters_perf_group_read(hw, &out->hw_time_enabled, &out->hw_time_running, out->value)) {
		out->flags |= PP_CPU_FLAG_PERF_HW;
		return true;
	}
	return false;
}

/* Lines the perf groups' enabled time up with CLOCK_THREAD_CPUTIME_ID, so that thread_cpu_ns
 * has the same zero point (thread start) whichever source a snapshot used. */
static void calibrate_cpu_time(struct pp_cpu_thread *st)
{
	struct pp_cpu_snapshot tmp;
	uint64_t enabled = 0, running;

	st->cpu_group = -1;
	if (!__atomic_load_n(&g_cpu_time_from_perf, __ATOMIC_RELAXED))
		return;
	memset(&tmp, 0, sizeof(tmp));
	if (st->group[PP_CPU_GROUP_SW].n &&
	    pp_cpu_counters_perf_group_read(&st->group[PP_CPU_GROUP_SW], &enabled, &running, tmp.value))
		st->cpu_group = PP_CPU_GROUP_SW;
	else if (st->group[PP_CPU_GROUP_HW].n && read_hw(st, &tmp)) {
		enabled = tmp.hw_time_enabled;
		st->cpu_group = PP_CPU_GROUP_HW;
	}
	if (st->cpu_group < 0)
		return;
	uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!now) {
		st->cpu_group = -1;
		return;
	}
	st->cpu_base = (int64_t)now - (int64_t)enabled;
}

static struct pp_cpu_thread *thread_open(void)
{
	struct pp_cpu_config cfg;
	uint32_t gen;

	pthread_once(&g_once, init_once);
	/* Whatever t_state pointed to belongs to an older generation and was freed with it. */
	t_state = NULL;

	struct pp_cpu_thread *st = calloc(1, sizeof(*st));
	if (!st) {
		pp_log_once(PP_LOG_WARN, "cpu counters: out of memory for thread state; CPU time "
			    "only on this thread");
		return NULL;
	}
	st->tid = pp_thread_id();

	pthread_mutex_lock(&g_lock);
	config_get_locked(&cfg);
	gen = __atomic_load_n(&g_gen, __ATOMIC_ACQUIRE);
	st->id = g_next_id++;
	st->session = g_next_session++;
	if (!st->session)
		st->session = g_next_session++;
	if (!g_key_live && pthread_key_create(&g_key, thread_key_destroy) == 0)
		g_key_live = true;
	pthread_mutex_unlock(&g_lock);

	/* The syscalls happen outside the lock: opening takes tens of microseconds. */
	pp_cpu_counters_perf_open_thread(st, &cfg);
	calibrate_cpu_time(st);
	st->sw_only = !st->group[PP_CPU_GROUP_HW].n && st->group[PP_CPU_GROUP_SW].n && !st->rusage_mask &&
		      st->cpu_group == PP_CPU_GROUP_SW;
	st->no_perf = !st->group[PP_CPU_GROUP_HW].n && !st->group[PP_CPU_GROUP_SW].n;
	st->anchor_switches = UINT64_MAX;
	st->anchor_mark = UINT64_MAX;

	/* Something not counted by perf is worth one warning, unless all of it is the kernel's
	 * accounting read instead of a software group (accounting_instead): the same counts. */
	bool need_log = false;
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
	for (unsigned i = 0; i < cfg.n; i++)
		need_log |= st->err[i] != 0 &&
			    !(st->err[i] == PP_CPU_ERR_NO_PMU && table[cfg.ids[i]].fallback != PP_CPU_FB_NONE);
	need_log |= (st->flags & PP_CPU_FLAG_USER_ONLY) != 0;

	pthread_mutex_lock(&g_lock);
	if (__atomic_load_n(&g_gen, __ATOMIC_RELAXED) != gen) {
		/* configure or shutdown ran meanwhile, against the documented contract; the state
		 * was made for the old configuration, so drop it and try again next time. */
		pthread_mutex_unlock(&g_lock);
		state_free(st);
		return NULL;
	}
	st->next = g_threads;
	g_threads = st;
	bool key_live = g_key_live;
	pthread_key_t key = g_key;
	if (need_log)
		need_log = !__atomic_exchange_n(&g_logged, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g_lock);

	if (key_live)
		pthread_setspecific(key, (void *)(uintptr_t)st->id);
	t_state = st;
	t_gen = gen;
	if (need_log)
		pp_cpu_counters_perf_log_fallback(&cfg, st);
	pp_log(PP_LOG_DEBUG, "cpu counters: thread %u: %u hardware, %u software events open%s%s",
	       st->tid, st->group[PP_CPU_GROUP_HW].n, st->group[PP_CPU_GROUP_SW].n,
	       st->user_read ? ", hardware read in user space when allowed" : "",
	       (st->flags & PP_CPU_FLAG_USER_ONLY) ? ", user mode only" : "");
	return st;
}

/* Where no PMU is exposed to the thread (virtual machines, most containers) a snapshot is one
 * read(2) of the software group, with the thread's CPU time from that group's enabled time:
 * what the general path below does, without its branches for the hardware group and the
 * fallbacks (a pass boundary takes one snapshot: docs/performance.md, "Pass boundaries"). False when the read
 * failed: the general path then records what it can. */
static bool snapshot_sw_only(const struct pp_cpu_thread *st, struct pp_cpu_snapshot *out)
{
	uint64_t wall = clock_ns(CLOCK_MONOTONIC);
	/* value[] is not cleared: only the valid ones are ever read (pp_cpu_counters_snapshot_delta). */
	if (!pp_cpu_counters_perf_group_read(&st->group[PP_CPU_GROUP_SW], &out->sw_time_enabled, &out->sw_time_running,
			       out->value))
		return false;
	uint64_t cpu = (uint64_t)((int64_t)out->sw_time_enabled + st->cpu_base);
	for (uint32_t m = st->cpu_time_mask; m; m &= m - 1)
		out->value[__builtin_ctz(m)] = cpu;
	out->wall_ns = wall;
	out->thread_cpu_ns = cpu;
	out->hw_time_enabled = out->hw_time_running = 0;
	out->valid = st->sw_mask | st->cpu_time_mask;
	out->hw_mask = 0;
	out->sw_mask = st->sw_mask;
	out->flags = st->flags | PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_CPU_TIME_PERF;
	out->tid = st->tid;
	out->session = st->session;
	return true;
}

/* getrusage(RUSAGE_THREAD), the fields a snapshot takes. False when the call failed. */
static inline bool rusage_read(struct pp_cpu_rusage *out)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return false;
	out->switches = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	out->minflt = (uint64_t)ru.ru_minflt;
	out->majflt = (uint64_t)ru.ru_majflt;
	return true;
}

/* A getrusage field for a fallback that reads it; false for the others. */
static inline bool rusage_value(uint8_t fallback, const struct pp_cpu_rusage *ru, uint64_t *v)
{
	switch (fallback) {
	case PP_CPU_FB_CSW: *v = ru->switches; return true;
	case PP_CPU_FB_FLT: *v = ru->minflt + ru->majflt; return true;
	case PP_CPU_FB_MINFLT: *v = ru->minflt; return true;
	case PP_CPU_FB_MAJFLT: *v = ru->majflt; return true;
	default: return false;
	}
}

/* The watch's trial, at a snapshot that read getrusage: after PP_CPU_WATCH_TRIAL of them, the
 * thread gets a watch if the snapshots that found no switch since the last (each a getrusage
 * the watch saves) outnumber its switches (each the watch's perf context switch, about 2.5
 * times a getrusage here) 5 to 2. Decided once per thread. */
static void watch_trial(struct pp_cpu_thread *st, const struct pp_cpu_rusage *ru, bool unchanged)
{
	if (st->trial_snapshots++ == 0)
		st->trial_switches = ru->switches;
	st->trial_unchanged += unchanged;
	if (st->trial_snapshots < PP_CPU_WATCH_TRIAL)
		return;
	st->watch_trial = false;
	uint64_t switches = ru->switches - st->trial_switches;
	if (2 * (uint64_t)st->trial_unchanged > 5 * switches)
		pp_cpu_counters_perf_open_watch(st);
	pp_log(PP_LOG_DEBUG, "cpu counters: thread %u: %u of %u snapshots without a switch, %llu switches: %s",
	       st->tid, st->trial_unchanged, st->trial_snapshots, (unsigned long long)switches,
	       st->watch ? "watched" : "getrusage at every snapshot");
}

/* Where the thread has no perf event (no PMU, cpu_counters=none, perf refused): the wall clock
 * (vDSO) and the kernel's accounting (accounting_instead, cpu_counters_perf.c), without the
 * general path's branches for the groups. The thread's CPU time costs a system call
 * (CLOCK_THREAD_CPUTIME_ID has no vDSO path), which getrusage makes unnecessary most of the
 * time: a thread that has not switched since the last clock read ran all along, so its CPU
 * time grew with the wall clock. getrusage (0.22-0.45 us) replaces the clock (0.38-0.78 us) at
 * every pass boundary without a switch in between; after a switch both are read. With the
 * watch (pp_cpu_counters_perf_open_watch) neither is read while its mark has not moved: no
 * switch and no fault since the last getrusage, whose counts still hold. False when a call
 * failed: the general path then records what it can. */
static bool snapshot_no_perf(struct pp_cpu_thread *st, struct pp_cpu_snapshot *out)
{
	/* The wall clock before the watch's mark: a mark unchanged after the clock read covers it. */
	uint64_t wall = clock_ns(CLOCK_MONOTONIC), cpu;
	uint32_t flags = st->flags | (st->rusage_mask ? PP_CPU_FLAG_RUSAGE : 0);
	if (st->watch && pp_cpu_counters_perf_watch_mark(st) == st->anchor_mark && wall >= st->anchor_wall) {
		cpu = st->anchor_cpu + (wall - st->anchor_wall);
		flags |= PP_CPU_FLAG_CPU_TIME_WALL | PP_CPU_FLAG_WATCHED;
	} else {
		/* The mark before getrusage: a switch or fault after it moves it again. */
		uint64_t mark = st->watch ? pp_cpu_counters_perf_watch_mark(st) : UINT64_MAX;
		struct pp_cpu_rusage ru;
		if (!rusage_read(&ru))
			return false;
		bool unchanged = ru.switches == st->anchor_switches && wall >= st->anchor_wall;
		if (unchanged) {
			cpu = st->anchor_cpu + (wall - st->anchor_wall);
			flags |= PP_CPU_FLAG_CPU_TIME_WALL;
		} else {
			cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
			if (!cpu)
				return false;
			/* The wall clock right after the read: what the thread runs from here on, and
			 * the instant this snapshot stands for (the one read before getrusage would
			 * leave the system calls' time in the CPU time and out of the wall time). */
			wall = clock_ns(CLOCK_MONOTONIC);
			st->anchor_wall = wall;
			st->anchor_cpu = cpu;
			st->anchor_switches = ru.switches;
		}
		st->anchor_mark = mark;
		/* The counts at their positions once here, not at every snapshot they serve. */
		for (uint32_t m = st->rusage_mask; m; m &= m - 1) {
			unsigned i = (unsigned)__builtin_ctz(m);
			rusage_value(st->fallback[i], &ru, &st->anchor_value[i]);
		}
		if (st->watch_trial)
			watch_trial(st, &ru, unchanged);
	}
	/* The wall clock also counts interrupts and steal time while the thread ran, which the
	 * next clock read leaves out: never less than a value already given, so that the
	 * thread's snapshots stay in order. */
	if (cpu < st->cpu_given)
		cpu = st->cpu_given;
	st->cpu_given = cpu;
	/* value[] is not cleared: only the valid ones are ever read (pp_cpu_counters_snapshot_delta). */
	for (uint32_t m = st->cpu_time_mask; m; m &= m - 1)
		out->value[__builtin_ctz(m)] = cpu;
	for (uint32_t m = st->rusage_mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		out->value[i] = st->anchor_value[i];
	}
	out->wall_ns = wall;
	out->thread_cpu_ns = cpu;
	out->hw_time_enabled = out->hw_time_running = out->sw_time_enabled = out->sw_time_running = 0;
	out->valid = st->cpu_time_mask | st->rusage_mask;
	out->hw_mask = out->sw_mask = 0;
	out->flags = flags;
	out->tid = st->tid;
	out->session = st->session;
	return true;
}

bool pp_cpu_counters_snapshot_is_current(const struct pp_cpu_snapshot *s)
{
	const struct pp_cpu_thread *st = t_state;
	/* t_gen first: a state of an older generation was freed with it. */
	/* A thread's session is never 0 (thread_open), so 0 (no counters) never matches. */
	return s && st && t_gen == __atomic_load_n(&g_gen, __ATOMIC_ACQUIRE) && s->session == st->session;
}

void pp_cpu_counters_snapshot_take(struct pp_cpu_snapshot *out)
{
	if (!out)
		return;
	struct pp_cpu_thread *st = t_state;
	if (__builtin_expect(!st || t_gen != __atomic_load_n(&g_gen, __ATOMIC_ACQUIRE), 0))
		st = thread_open();

	if (st && st->sw_only && snapshot_sw_only(st, out))
		return;
	if (st && st->no_perf && snapshot_no_perf(st, out))
		return;
	memset(out, 0, sizeof(*out));
	/* Opening (above) comes before the clocks so that its cost is not measured. */
	out->wall_ns = clock_ns(CLOCK_MONOTONIC);
	if (!st) {
		out->thread_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		out->tid = pp_thread_id();
		return;
	}
	out->tid = st->tid;
	out->session = st->session;
	out->flags = st->flags;

	bool hw_ok = false, sw_ok = false;
	if (st->group[PP_CPU_GROUP_HW].n && read_hw(st, out)) {
		hw_ok = true;
		out->valid |= st->hw_mask;
		out->hw_mask = st->hw_mask;
	}
	const struct pp_cpu_group *sw = &st->group[PP_CPU_GROUP_SW];
	if (sw->n && pp_cpu_counters_perf_group_read(sw, &out->sw_time_enabled, &out->sw_time_running, out->value)) {
		sw_ok = true;
		out->valid |= st->sw_mask;
		out->sw_mask = st->sw_mask;
		out->flags |= PP_CPU_FLAG_PERF_SW;
	}
	/* A task-bound group's enabled time only advances while the thread runs: it is the
	 * thread's CPU time since the group opened. Using it saves the CLOCK_THREAD_CPUTIME_ID
	 * system call, which costs about as much as the group read itself
	 * (docs/performance-cpu.md). */
	if (st->cpu_group == PP_CPU_GROUP_SW && sw_ok) {
		out->thread_cpu_ns = (uint64_t)((int64_t)out->sw_time_enabled + st->cpu_base);
		out->flags |= PP_CPU_FLAG_CPU_TIME_PERF;
	} else if (st->cpu_group == PP_CPU_GROUP_HW && hw_ok) {
		out->thread_cpu_ns = (uint64_t)((int64_t)out->hw_time_enabled + st->cpu_base);
		out->flags |= PP_CPU_FLAG_CPU_TIME_PERF;
	} else {
		out->thread_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	}

	for (uint32_t m = st->cpu_time_mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		out->value[i] = out->thread_cpu_ns;
		out->valid |= 1u << i;
	}
	if (st->rusage_mask) {
		struct pp_cpu_rusage ru;
		if (rusage_read(&ru)) {
			for (uint32_t m = st->rusage_mask; m; m &= m - 1) {
				unsigned i = (unsigned)__builtin_ctz(m);
				if (rusage_value(st->fallback[i], &ru, &out->value[i]))
					out->valid |= 1u << i;
			}
			out->flags |= PP_CPU_FLAG_RUSAGE;
		}
	}
}

/* d counted while the group was enabled for de ns and on the PMU for dr ns. */
static bool scale_count(uint64_t d, uint64_t de, uint64_t dr, uint64_t *out, bool *scaled)
{
	if (dr >= de) {
		*out = d; /* never multiplexed out during the interval: exact */
		return true;
	}
	if (dr == 0)
		return false; /* never counted during the interval: unknown, not 0 */
#ifdef __SIZEOF_INT128__
	unsigned __int128 v = (unsigned __int128)d * de / dr;
	*out = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
#else
	*out = (uint64_t)((double)d * (double)de / (double)dr);
#endif
	*scaled = true;
	return true;
}

void pp_cpu_counters_snapshot_delta(const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b,
			   struct pp_cpu_delta *out)
{
	if (!out)
		return;
	/* Field by field rather than one memset of the whole: a report subtracts a pass's
	 * snapshots for every pass of every frame. Invalid values stay 0. */
	memset(out->value, 0, sizeof(out->value));
	out->wall_ns = 0;
	out->thread_cpu_ns = 0;
	out->valid = 0;
	out->scaled = 0;
	out->flags = 0;
	out->tid = 0;
	if (!a || !b)
		return;
	out->wall_ns = b->wall_ns >= a->wall_ns ? b->wall_ns - a->wall_ns : 0;
	out->flags = a->flags | b->flags;
	out->tid = b->tid;
	if (a->tid != b->tid) {
		out->flags |= PP_CPU_FLAG_MISMATCH;
		return;
	}
	out->thread_cpu_ns = pp_cpu_counters_snapshot_thread_ns(a, b);
	if (a->session != b->session || !a->session) {
		/* Counters were reopened in between: their zero points differ. */
		out->flags |= PP_CPU_FLAG_MISMATCH;
		return;
	}

	uint32_t both = a->valid & b->valid & ((1u << PP_CPU_MAX_EVENTS) - 1);
	uint32_t from_perf = a->hw_mask | a->sw_mask | b->hw_mask | b->sw_mask;
	/* Values that need no scaling, the common case (every value of a pass boundary while the
	 * kernel did not multiplex): values read outside perf in both snapshots, and below a
	 * group that ran the whole interval. One from perf and one from a fallback have
	 * different zero points: never valid. */
	uint32_t exact = both & ~from_perf, scale = 0;
	uint64_t hw_de = 0, hw_dr = 0, sw_de = 0, sw_dr = 0;
	bool hw_ok = false, sw_ok = false;
	uint32_t hw = a->hw_mask & b->hw_mask, sw = a->sw_mask & b->sw_mask;
	if (from_perf) { /* no perf group at all (most virtual machines): nothing to scale */
		hw_de = b->hw_time_enabled - a->hw_time_enabled;
		hw_dr = b->hw_time_running - a->hw_time_running;
		sw_de = b->sw_time_enabled - a->sw_time_enabled;
		sw_dr = b->sw_time_running - a->sw_time_running;
		hw_ok = b->hw_time_enabled >= a->hw_time_enabled && b->hw_time_running >= a->hw_time_running;
		sw_ok = b->sw_time_enabled >= a->sw_time_enabled && b->sw_time_running >= a->sw_time_running;
		if (hw_ok && hw_dr >= hw_de)
			exact |= both & hw;
		if (sw_ok && sw_dr >= sw_de)
			exact |= both & sw;
		scale = both & (hw | sw) & ~exact;
	}
	for (uint32_t m = exact; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		if (b->value[i] >= a->value[i]) {
			out->value[i] = b->value[i] - a->value[i];
			out->valid |= 1u << i;
		}
	}
	/* The rest: scaled by the share of the interval their group spent on the PMU. */
	for (uint32_t m = scale; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		uint32_t bit = 1u << i;
		if (b->value[i] < a->value[i])
			continue;
		uint64_t d = b->value[i] - a->value[i];
		bool scaled = false;
		bool ok = (hw & bit) ? hw_ok && scale_count(d, hw_de, hw_dr, &d, &scaled)
				     : sw_ok && scale_count(d, sw_de, sw_dr, &d, &scaled);
		if (!ok)
			continue;
		out->value[i] = d;
		out->valid |= bit;
		if (scaled)
			out->scaled |= bit;
	}
}

int pp_cpu_counters_snapshot_configure(const char *spec, char *err, size_t err_len)
{
	struct pp_cpu_config cfg;
	int ret = pp_cpu_counters_events_config_parse(spec, &cfg, err, err_len);
	if (ret)
		return ret;
	pthread_mutex_lock(&g_lock);
	close_all_locked();
	g_config = cfg;
	g_config_set = true;
	__atomic_store_n(&g_logged, 0, __ATOMIC_RELAXED);
	pp_cpu_counters_perf_reset_memo();
	pthread_mutex_unlock(&g_lock);
	return 0;
}

void pp_cpu_counters_snapshot_reset_all(void)
{
	pthread_mutex_lock(&g_lock);
	close_all_locked();
	__atomic_store_n(&g_logged, 0, __ATOMIC_RELAXED);
	pp_cpu_counters_perf_reset_memo();
	pthread_mutex_unlock(&g_lock);
}

unsigned pp_cpu_counters_snapshot_event_count(void)
{
	struct pp_cpu_config cfg;
	pthread_mutex_lock(&g_lock);
	config_get_locked(&cfg);
	pthread_mutex_unlock(&g_lock);
	return cfg.n;
}

const char *pp_cpu_counters_snapshot_event_name(unsigned i)
{
	struct pp_cpu_config cfg;
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
	pthread_mutex_lock(&g_lock);
	config_get_locked(&cfg);
	pthread_mutex_unlock(&g_lock);
	return i < cfg.n ? table[cfg.ids[i]].name : NULL;
}

int pp_cpu_counters_snapshot_event_index(const char *name)
{
	struct pp_cpu_config cfg;
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
	if (!name)
		return -ENOENT;
	pthread_mutex_lock(&g_lock);
	config_get_locked(&cfg);
	pthread_mutex_unlock(&g_lock);
	for (unsigned i = 0; i < cfg.n; i++) {
		const struct pp_cpu_event_desc *d = &table[cfg.ids[i]];
		if (strcasecmp(d->name, name) == 0 || (d->alias && strcasecmp(d->alias, name) == 0))
			return (int)i;
	}
	return -ENOENT;
}

void pp_cpu_counters_snapshot_thread_exit(void)
{
	struct pp_cpu_thread *st = t_state;
	if (!st || t_gen != __atomic_load_n(&g_gen, __ATOMIC_ACQUIRE)) {
		t_state = NULL;
		return;
	}
	pthread_mutex_lock(&g_lock);
	st = unlink_locked(st->id);
	bool key_live = g_key_live;
	pthread_key_t key = g_key;
	pthread_mutex_unlock(&g_lock);
	if (key_live)
		pthread_setspecific(key, NULL);
	t_state = NULL;
	if (st)
		state_free(st);
}

void pp_cpu_counters_snapshot_shutdown(void)
{
	pthread_mutex_lock(&g_lock);
	close_all_locked();
	if (g_key_live) {
		/* After this no destructor of ours runs at thread exit, so the code can go away. */
		pthread_key_delete(g_key);
		g_key_live = false;
	}
	pthread_mutex_unlock(&g_lock);
}

void pp_cpu_counters_snapshot_set_time_from_perf(bool from_perf)
{
	__atomic_store_n(&g_cpu_time_from_perf, from_perf, __ATOMIC_RELAXED);
	pp_cpu_counters_snapshot_reset_all();
}
