#pragma once
/* Internals of the CPU counter backend, shared by its files, its tests and its benchmark.
 * Nothing here is part of the interface the layer uses. */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "pp_cpu_counters.h"

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#define PP_CPU_HAVE_USER_READ 1
#else
#define PP_CPU_HAVE_USER_READ 0
#endif

/* Where a configured event's value comes from when perf cannot give it. */
enum pp_cpu_fallback {
	PP_CPU_FB_NONE = 0,
	/* thread_cpu_ns, always: task-clock and cpu-clock are the thread's CPU time, which a perf
	 * group's enabled time already gives; they are never opened (see cpu_counters_perf.c) */
	PP_CPU_FB_CPU_TIME,
	PP_CPU_FB_CSW,    /* ru_nvcsw + ru_nivcsw */
	PP_CPU_FB_FLT,    /* ru_minflt + ru_majflt */
	PP_CPU_FB_MINFLT, /* ru_minflt */
	PP_CPU_FB_MAJFLT, /* ru_majflt */
};

struct pp_cpu_event_desc {
	const char *name;  /* perf list name */
	const char *alias; /* the other perf list name, or NULL */
	uint32_t type;     /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
	/* Still meaningful when perf_event_paranoid forces exclude_kernel: context switches and
	 * migrations only happen in kernel mode, so a user-mode-only count would be a false 0,
	 * and faults taken inside system calls would be missed. */
	bool user_mode_ok;
	uint8_t fallback; /* enum pp_cpu_fallback */
};

/* The known events; *count gets their number. Ids below are indices into this table. */
const struct pp_cpu_event_desc *pp_cpu_counters_events_table(unsigned *count);

struct pp_cpu_config {
	unsigned n;
	uint8_t ids[PP_CPU_MAX_EVENTS]; /* table indices, in value[] order */
	/* Positions the user named, as opposed to those only `default` brought: a thread with
	 * no hardware counters does without the latter rather than open a perf event that has
	 * no other source (cpu_counters_perf.c, accounting_instead). */
	uint32_t named;
};

void pp_cpu_counters_events_config_default(struct pp_cpu_config *out);
/* Pure parser behind pp_cpu_counters_snapshot_configure(). */
int pp_cpu_counters_events_config_parse(const char *spec, struct pp_cpu_config *out, char *err, size_t err_len);

/* ---- per-thread perf state ---- */

enum { PP_CPU_GROUP_HW = 0, PP_CPU_GROUP_SW = 1, PP_CPU_GROUPS = 2 };

struct pp_cpu_group {
	unsigned n;                            /* events opened; fd[0] leads */
	int fd[PP_CPU_MAX_EVENTS];
	uint8_t slot[PP_CPU_MAX_EVENTS];       /* configured index (value[] position) of fd[k] */
	struct perf_event_mmap_page *page[PP_CPU_MAX_EVENTS]; /* hardware only, NULL when unmapped */
};

/* Why a configured event is not counted by perf (positive values are errno). */
#define PP_CPU_ERR_KERNEL_ONLY (-1) /* needs kernel-mode counting, which is refused */
#define PP_CPU_ERR_NO_PMU (-2)      /* software event not opened: no hardware counter on the thread */

/* What a snapshot takes from getrusage(RUSAGE_THREAD). */
struct pp_cpu_rusage {
	uint64_t switches; /* ru_nvcsw + ru_nivcsw */
	uint64_t minflt, majflt;
};

struct pp_cpu_thread {
	struct pp_cpu_thread *next; /* all open states, under the backend's lock */
	uint64_t id;                /* pthread key value; never reused, unlike addresses */
	uint32_t tid;
	uint32_t session;
	struct pp_cpu_group group[PP_CPU_GROUPS];
	uint32_t hw_mask, sw_mask;  /* value[] positions read from each group */
	uint32_t cpu_time_mask;     /* positions filled with thread_cpu_ns (task-clock, cpu-clock) */
	uint32_t rusage_mask;       /* positions filled from getrusage */
	uint8_t fallback[PP_CPU_MAX_EVENTS]; /* per position, for rusage_mask members */
	uint32_t flags;             /* PP_CPU_FLAG_USER_ONLY */
	bool user_read;             /* hardware pages mapped: try the user-space read */
	int cpu_group;              /* group whose enabled time gives thread_cpu_ns, or -1 */
	bool sw_only;               /* one software group and nothing else: the snapshot's short path */
	bool no_perf;               /* no group at all: the short path of the kernel's accounting */
	/* snapshot_no_perf: the last CLOCK_THREAD_CPUTIME_ID read, the wall clock right after it,
	 * and the thread's context switches then (anchor_switches UINT64_MAX: none yet) */
	uint64_t anchor_cpu, anchor_wall, anchor_switches;
	/* The watch (pp_cpu_counters_perf_open_watch): a perf event whose mapped page changes at
	 * each of the thread's context switches and page faults. anchor_mark is its mark
	 * (pp_cpu_counters_perf_watch_mark) read before the last getrusage (UINT64_MAX: none yet),
	 * whose counts anchor_value keeps at their positions (rusage_mask); while the mark stays
	 * there, those counts have not changed. watch NULL: no watch. */
	const struct perf_event_mmap_page *watch;
	int watch_fd;
	uint64_t anchor_mark;
	uint64_t anchor_value[PP_CPU_MAX_EVENTS];
	/* The trial that decides whether the thread gets a watch (snapshot_no_perf): its first
	 * PP_CPU_WATCH_TRIAL snapshots, how many found no switch since the last, and the
	 * thread's switches when it began. watch_trial false: decided, or not eligible. */
	bool watch_trial;
	uint32_t trial_snapshots, trial_unchanged;
	uint64_t trial_switches;
	uint64_t cpu_given;         /* the largest thread_cpu_ns it gave */
	int64_t cpu_base;           /* CLOCK_THREAD_CPUTIME_ID minus that enabled time */
	size_t page_size;
	int err[PP_CPU_MAX_EVENTS]; /* per position: 0 counted by perf, errno, or PP_CPU_ERR_* */
};

/* Opens the perf groups of the calling thread for cfg into st (zeroed by the caller apart from
 * id/tid/session). Never fails: what cannot be opened is recorded in st->err and given its
 * fallback. */
void pp_cpu_counters_perf_open_thread(struct pp_cpu_thread *st, const struct pp_cpu_config *cfg);
void pp_cpu_counters_perf_close_thread(struct pp_cpu_thread *st);
/* Snapshots a thread without perf groups takes before it decides on a watch. */
#define PP_CPU_WATCH_TRIAL 256
/* The watch's event: page faults of the calling thread, a record at each. Its ring is mapped
 * read-only, one page of header and one of data. */
void pp_cpu_counters_perf_watch_attr(struct perf_event_attr *attr);
/* Opens the watch (st->watch) for a thread whose trial pp_cpu_counters_perf_open_thread began
 * (st->watch_trial: it may have one); leaves st->watch NULL where it cannot. */
void pp_cpu_counters_perf_open_watch(struct pp_cpu_thread *st);
/* The watch's mark: the page's update count (each time the thread is scheduled in) plus its
 * ring's head (a record at each page fault). Both only grow, so the mark has moved since an
 * earlier read whenever the thread switched or faulted since. */
static inline uint64_t pp_cpu_counters_perf_watch_mark(const struct pp_cpu_thread *st)
{
	return (uint64_t)__atomic_load_n(&st->watch->lock, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&st->watch->data_head, __ATOMIC_ACQUIRE);
}
/* Forgets what earlier threads learned about this process (refused, user mode only,
 * unsupported events); after configure or a hook change. */
void pp_cpu_counters_perf_reset_memo(void);

/* One read(2) of a group. Returns false, leaving out untouched, when the read fails. Inline:
 * a pass boundary's snapshot is little more than this. */
static inline bool pp_cpu_counters_perf_group_read(const struct pp_cpu_group *g, uint64_t *enabled, uint64_t *running,
				     uint64_t *value)
{
	uint64_t buf[3 + PP_CPU_MAX_EVENTS];
	size_t want = (3 + (size_t)g->n) * sizeof(uint64_t);

	if (!g->n)
		return false;
	/* The system call itself, not libc's read(): that one is a cancellation point (the
	 * application's pthread_cancel must not land inside passprobe) and its cancellation
	 * bookkeeping costs as much as the rest of a snapshot's user-space instructions. */
	long r = syscall(SYS_read, g->fd[0], buf, want);
	if (r != (long)want || buf[0] != g->n)
		return false;
	*enabled = buf[1];
	*running = buf[2];
	for (unsigned k = 0; k < g->n; k++)
		value[g->slot[k]] = buf[3 + k];
	return true;
}
/* Reads the hardware group in user space. Returns false when the kernel does not allow it right
 * now (no cap_user_rdpmc or cap_user_time, or the group is not on the PMU: multiplexed out); the
 * caller then uses pp_cpu_counters_perf_group_read(). */
bool pp_cpu_counters_perf_group_read_user(const struct pp_cpu_group *g, uint64_t *enabled, uint64_t *running,
			    uint64_t *value);

/* The user-space read's arithmetic, from include/uapi/linux/perf_event.h; here for the tests.
 * A width-bit hardware counter plus the kernel's offset is the 64-bit count. */
static inline uint64_t pp_cpu_counters_perf_pmc_count(uint64_t offset, uint64_t pmc, uint32_t width)
{
	if (width < 64) /* sign-extend: the kernel biases offset so that the sum comes out right */
		pmc = (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
	return offset + pmc;
}

/* Nanoseconds of perf time since the page was last updated, from the cycle counter value cyc
 * (TSC on x86, CNTVCT_EL0 on AArch64); shift <= 31. */
static inline uint64_t pp_cpu_counters_perf_time_delta(uint64_t cyc, uint64_t time_offset, uint32_t mult,
					      uint32_t shift, bool cap_short, uint64_t time_cycles,
					      uint64_t time_mask)
{
	if (cap_short)
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc & ((1ull << shift) - 1);
	return time_offset + quot * mult + ((rem * mult) >> shift);
}

/* Writes the one fallback line (for the first thread per configuration that needs one). */
void pp_cpu_counters_perf_log_fallback(const struct pp_cpu_config *cfg, const struct pp_cpu_thread *st);

/* ---- test hooks ---- */

/* Same contract as syscall(SYS_perf_event_open, ...): an fd, or -1 with errno set. */
typedef long (*pp_cpu_perf_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu,
				    int group_fd, unsigned long flags);
/* Replaces the perf_event_open call (NULL restores the real one) and returns the previous one.
 * Closes every thread's counters and resets what was learned, like configure. */
pp_cpu_perf_open_fn pp_cpu_counters_perf_test_set_open(pp_cpu_perf_open_fn fn);
/* The real call, for hooks that pass some events through. */
long pp_cpu_counters_perf_open_real(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			   unsigned long flags);
/* Allows (default) or forbids the user-space read of the hardware group; closes every thread's
 * counters like configure. For the benchmark and tests. */
void pp_cpu_counters_perf_test_set_user_read(bool allow);
bool pp_cpu_counters_perf_test_user_read_allowed(void);
/* Whether threads may open the watch (default true); resets the counters like configure. For
 * the benchmark and tests, which measure and check both paths. */
void pp_cpu_counters_perf_test_set_watch(bool allow);

/* Where thread_cpu_ns comes from when a perf group is open: its enabled time (default: no
 * extra system call) or CLOCK_THREAD_CPUTIME_ID always. Closes every thread's counters like
 * configure. For the benchmark, and for a caller that prefers the scheduler's accounting
 * (which leaves out steal and interrupt time) to perf's. */
void pp_cpu_counters_snapshot_set_time_from_perf(bool from_perf);

/* Called by the hooks above: closes all threads' counters and starts a new generation. */
void pp_cpu_counters_snapshot_reset_all(void);
