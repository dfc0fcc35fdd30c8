#pragma once
/* CPU counters of the calling thread, API-neutral (no Vulkan, no GL, no passes, no frames).
 *
 * A caller takes a snapshot at each boundary it cares about, on the thread whose work it wants
 * to measure, and later subtracts two snapshots of that thread. Values come from
 * perf_event_open(2) counter groups opened lazily per thread (hardware events where the kernel
 * and CPU offer them, software events otherwise), read with one read(2) per group or, for the
 * hardware group, in user space (rdpmc on x86, PMUv3 registers on AArch64) when the kernel
 * allows it. Where perf events are refused (perf_event_paranoid, containers, seccomp, no PMU)
 * a snapshot falls back to CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD); what could not
 * be measured is marked invalid, never reported as 0. The first such fallback in a process is
 * logged once, naming the events and the reason. See docs/cpu-counters.md.
 *
 * Threads: pp_cpu_counters_snapshot_take() and pp_cpu_counters_snapshot_delta() may be called from any number of
 * threads at once; a snapshot takes no lock (its state is thread-local). pp_cpu_counters_snapshot_configure()
 * and pp_cpu_counters_snapshot_shutdown() must not run while another thread is inside
 * pp_cpu_counters_snapshot_take(): call them at set-up and tear-down. Without a configure call the
 * "default" event list is used. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_CPU_MAX_EVENTS 16

/* How a snapshot's values were obtained (pp_cpu_snapshot.flags, pp_cpu_delta.flags). */
enum pp_cpu_flags {
	PP_CPU_FLAG_PERF_SW = 1u << 0,   /* software event group read with read(2) */
	PP_CPU_FLAG_PERF_HW = 1u << 1,   /* hardware event group read with read(2) */
	PP_CPU_FLAG_USER_READ = 1u << 2, /* hardware group read in user space (rdpmc / PMUv3) */
	PP_CPU_FLAG_RUSAGE = 1u << 3,    /* some values from getrusage(RUSAGE_THREAD) */
	PP_CPU_FLAG_USER_ONLY = 1u << 4, /* perf events count user mode only (perf_event_paranoid) */
	/* delta only: the two snapshots are from different threads or counter sessions (see
	 * pp_cpu_snapshot.session); only wall_ns, and thread_cpu_ns for the same thread, mean anything */
	PP_CPU_FLAG_MISMATCH = 1u << 5,
	/* thread_cpu_ns came from a perf group's enabled time (see thread_cpu_ns) */
	PP_CPU_FLAG_CPU_TIME_PERF = 1u << 6,
	/* thread_cpu_ns is the last CLOCK_THREAD_CPUTIME_ID read plus the wall time since, the
	 * thread having run all along: no context switch since that read (see thread_cpu_ns) */
	PP_CPU_FLAG_CPU_TIME_WALL = 1u << 7,
	/* no system call: the kernel's accounting (getrusage) and the thread's CPU time as the last
	 * snapshot that read them left them, the thread having neither switched nor faulted since
	 * (the watch, docs/cpu-counters.md) */
	PP_CPU_FLAG_WATCHED = 1u << 8,
};

/* One thread, one instant. Plain data: copy it, keep it, subtract it later. */
struct pp_cpu_snapshot {
	uint64_t wall_ns;       /* CLOCK_MONOTONIC, the clock the GPU timeline is mapped onto */
	/* CPU time of the thread since it started; always present. Where a perf group is open it
	 * is that group's enabled time (which only advances while the thread runs) plus an offset
	 * taken from CLOCK_THREAD_CPUTIME_ID when the group opened: one system call less per
	 * snapshot. Otherwise CLOCK_THREAD_CPUTIME_ID, read again only after the thread's context
	 * switches (getrusage) changed: between switches the thread ran all along, and its CPU time
	 * grew with the wall clock (PP_CPU_FLAG_CPU_TIME_WALL). Perf's time, and the wall clock's,
	 * also count interrupt and steal time while the thread runs: perf's and the clock agreed
	 * within 0.2% on a quiet machine, 2% on a loaded VM. task-clock and cpu-clock, when
	 * configured, report this value. */
	uint64_t thread_cpu_ns;
	/* By configured event index; cumulative, not deltas; meaningful only where `valid` says so
	 * (the others are not cleared). */
	uint64_t value[PP_CPU_MAX_EVENTS];
	/* Times of each perf group, for scaling counts when the kernel multiplexed the group. */
	uint64_t hw_time_enabled, hw_time_running;
	uint64_t sw_time_enabled, sw_time_running;
	uint32_t valid;   /* bit i: value[i] was measured */
	uint32_t hw_mask; /* bit i: value[i] is from the hardware group (scaled by hw_time_*) */
	uint32_t sw_mask; /* bit i: value[i] is from the software group (scaled by sw_time_*) */
	uint32_t flags;   /* enum pp_cpu_flags */
	uint32_t tid;     /* kernel thread id of the thread that took it */
	uint32_t session; /* counter session of that thread: changes when its counters are reopened
			   * (after configure, shutdown, thread_exit or fork) */
};

/* b - a for one thread. */
struct pp_cpu_delta {
	uint64_t wall_ns;
	uint64_t thread_cpu_ns; /* 0 with PP_CPU_FLAG_MISMATCH when a and b are from different threads */
	uint64_t value[PP_CPU_MAX_EVENTS];
	uint32_t valid;  /* bit i: value[i] measured in both snapshots and meaningful as a difference */
	uint32_t scaled; /* bit i: value[i] is an estimate, count * enabled / running, because the
			  * kernel multiplexed the group during the interval */
	uint32_t flags;  /* a.flags | b.flags, plus PP_CPU_FLAG_MISMATCH */
	uint32_t tid;
};

/* Chooses the events, by perf list names: "default", "none", or a comma-separated list of names
 * (whitespace around names ignored, empty entries and duplicates skipped, "default" may appear
 * in a list and stands for the default events). NULL means "default".
 * Valid names: cycles, instructions, cache-references, cache-misses, branches
 * (branch-instructions), branch-misses, bus-cycles, ref-cycles, stalled-cycles-frontend,
 * stalled-cycles-backend, task-clock, cpu-clock, context-switches (cs), cpu-migrations
 * (migrations), page-faults (faults), minor-faults, major-faults, alignment-faults,
 * emulation-faults. Default: cycles, instructions, cache-misses, branch-misses, task-clock,
 * context-switches, page-faults, cpu-migrations.
 * Returns 0, or -EINVAL (configuration unchanged) after writing one message into err (when err
 * is not NULL) that names the problem and the valid names.
 * Closes every thread's counters; each thread reopens them at its next snapshot, and the next
 * fallback is logged again. Not concurrently with pp_cpu_counters_snapshot_take() on other threads. */
int pp_cpu_counters_snapshot_configure(const char *spec, char *err, size_t err_len);

/* Fills *out for the calling thread. Never fails; the first call on a thread opens its counters
 * (about 0.1 ms), later calls cost one read(2) per perf group read through the kernel, or a
 * clock read and getrusage() in the fallback (docs/performance-cpu.md). NULL out is ignored. */
void pp_cpu_counters_snapshot_take(struct pp_cpu_snapshot *out);
/* Whether s was taken on the calling thread with the counters it has open now (same counter
 * session): a snapshot that can stand for one this thread would take now, at the cost of a
 * few loads. False for a snapshot of another thread, of counters since reopened, or of a
 * thread without counters. */
bool pp_cpu_counters_snapshot_is_current(const struct pp_cpu_snapshot *s);

/* *out = b - a, scaled for multiplexing. a and b should be from the same thread, a taken first;
 * a value is valid only when valid in both and not decreasing. */
void pp_cpu_counters_snapshot_delta(const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b,
			   struct pp_cpu_delta *out);

/* The delta's thread_cpu_ns alone, without the counters' arithmetic: what the exit summary
 * needs of every pass while the rest of the delta waits for the report. 0 for snapshots of
 * different threads; at most the span's wall time (a thread runs at most that long; the two
 * clocks, read a few instructions apart at each end, can say a little more). */
static inline uint64_t pp_cpu_counters_snapshot_thread_ns(const struct pp_cpu_snapshot *a,
							  const struct pp_cpu_snapshot *b)
{
	if (a->tid != b->tid)
		return 0;
	uint64_t wall = b->wall_ns >= a->wall_ns ? b->wall_ns - a->wall_ns : 0;
	uint64_t ns = b->thread_cpu_ns >= a->thread_cpu_ns ? b->thread_cpu_ns - a->thread_cpu_ns : 0;
	return ns < wall ? ns : wall;
}

/* The configured events: index i of value[] is event i. */
unsigned pp_cpu_counters_snapshot_event_count(void);
/* Its perf list name, or NULL past the end. The string is static. */
const char *pp_cpu_counters_snapshot_event_name(unsigned i);
/* Index of a configured event by name (aliases accepted), or -ENOENT. */
int pp_cpu_counters_snapshot_event_index(const char *name);

/* Closes the calling thread's counters now. Optional: a thread's counters are also closed when
 * it exits (pthread key destructor). A later snapshot on the thread reopens them. */
void pp_cpu_counters_snapshot_thread_exit(void);

/* Closes every thread's counters and drops the thread-exit hook, so that the code holding this
 * library can be unloaded. Later snapshots reopen counters. Not concurrently with snapshots. */
void pp_cpu_counters_snapshot_shutdown(void);
