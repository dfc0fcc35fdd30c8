/* ns per pp_cpu_counters_snapshot_take() for each path the backend can take on this machine, plus the
 * primitives a snapshot is made of. Prints a table; never fails on numbers.
 * Usage: bench_cpu_snapshot [--quick] */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../bench_time.h"
#include "cpu_counters_internal.h"
#include "pp_cpu_counters.h"
#include "pp_log.h"

#define BATCHES 7

static unsigned g_iterations = 200000;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct result {
	double median, min;
};

/* Median and minimum over BATCHES batches of ns per call. */
#define MEASURE(res, body)                                                    \
	do {                                                                  \
		double per[BATCHES];                                          \
		for (int b_ = 0; b_ < BATCHES; b_++) {                        \
			uint64_t t0_ = now_ns();                              \
			for (unsigned i_ = 0; i_ < g_iterations; i_++) {      \
				body;                                         \
			}                                                     \
			per[b_] = (double)(now_ns() - t0_) / g_iterations;   \
		}                                                             \
		qsort(per, BATCHES, sizeof(per[0]), cmp_double);              \
		(res).median = per[BATCHES / 2];                              \
		(res).min = per[0];                                           \
	} while (0)

static void row(const char *what, const char *detail, const struct result *r)
{
	printf("| %-46s | %-40s | %8.0f | %8.0f |\n", what, detail, r->median, r->min);
}

static void row_na(const char *what, const char *why)
{
	printf("| %-46s | %-40s | %8s | %8s |\n", what, why, "n/a", "n/a");
}

static long refuse(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		   unsigned long flags)
{
	errno = EPERM;
	return -1;
}

static void describe(const struct pp_cpu_snapshot *s, char *buf, size_t len)
{
	int hw = __builtin_popcount(s->hw_mask), sw = __builtin_popcount(s->sw_mask);
	snprintf(buf, len, "%d hw, %d sw from perf; flags 0x%x", hw, sw, s->flags);
}

/* Configures spec, checks that a snapshot takes the wanted path, and measures it. */
static void bench_path(const char *what, const char *spec, bool user_read, uint32_t need_flags,
		       uint32_t forbid_flags)
{
	char err[512], detail[64];
	struct pp_cpu_snapshot s;
	struct result r;

	pp_cpu_counters_perf_test_set_user_read(user_read);
	if (pp_cpu_counters_snapshot_configure(spec, err, sizeof(err)) != 0) {
		row_na(what, err);
		return;
	}
	/* opens the counters, and past the trial that decides on the watch */
	for (unsigned i = 0; i < PP_CPU_WATCH_TRIAL + 2; i++)
		pp_cpu_counters_snapshot_take(&s);
	if ((s.flags & need_flags) != need_flags || (s.flags & forbid_flags)) {
		char why[64];
		snprintf(why, sizeof(why), "not available here (flags 0x%x)", s.flags);
		row_na(what, why);
		return;
	}
	describe(&s, detail, sizeof(detail));
	MEASURE(r, pp_cpu_counters_snapshot_take(&s));
	row(what, detail, &r);
}

/* ---- a context switch away and back: a byte through two pipes to a thread on the same CPU ---- */

static int g_ping[2], g_pong[2];

static void *echo_thread(void *arg)
{
	(void)arg;
	char c;
	while (read(g_ping[0], &c, 1) == 1 && c)
		if (write(g_pong[1], &c, 1) != 1)
			break;
	return NULL;
}

/* ns per round trip to the echo thread, both threads on CPU cpu (this thread's affinity
 * restored after). NULL, or why there is no figure. */
static const char *round_trips(int cpu, struct result *r)
{
	cpu_set_t old, one;
	pthread_t t;
	const char *why = NULL;

	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old) != 0)
		return "no affinity";
	if (pipe(g_ping) != 0)
		return "no pipe";
	if (pipe(g_pong) != 0) {
		close(g_ping[0]);
		close(g_ping[1]);
		return "no pipe";
	}
	if (pthread_create(&t, NULL, echo_thread, NULL) != 0) {
		why = "no thread";
	} else {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
		pthread_setaffinity_np(t, sizeof(one), &one);
		unsigned saved = g_iterations;
		g_iterations = saved / 10 ? saved / 10 : 1;
		char c = 1;
		MEASURE(*r, if (write(g_ping[1], &c, 1) != 1 || read(g_pong[0], &c, 1) != 1) break);
		g_iterations = saved;
		c = 0;
		if (write(g_ping[1], &c, 1) == 1)
			pthread_join(t, NULL);
		else
			pthread_detach(t);
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	}
	close(g_pong[0]);
	close(g_pong[1]);
	close(g_ping[0]);
	close(g_ping[1]);
	return why;
}

/* A context switch away and back with the counters configured as spec on this thread (the
 * watch allowed or not). */
static void switch_cost(const char *what, const char *spec, bool watch)
{
	char err[512], detail[64];
	struct pp_cpu_snapshot s = { 0 };
	struct result r;
	int cpu = sched_getcpu();
	const char *why = NULL;

	pp_cpu_counters_perf_test_set_watch(watch);
	if (cpu < 0 || pp_cpu_counters_snapshot_configure(spec, err, sizeof(err)) != 0)
		why = "not available here";
	/* opens this thread's counters, and past the trial that decides on the watch */
	for (unsigned i = 0; !why && i < PP_CPU_WATCH_TRIAL + 2; i++)
		pp_cpu_counters_snapshot_take(&s);
	if (!why && watch && !(s.flags & PP_CPU_FLAG_WATCHED))
		why = "no watch on this machine";
	if (!why)
		why = round_trips(cpu, &r);
	if (why) {
		row_na(what, why);
	} else {
		snprintf(detail, sizeof(detail), "both threads on CPU %d; flags 0x%x", cpu, s.flags);
		row(what, detail, &r);
	}
	pp_cpu_counters_perf_test_set_watch(true);
}

int main(int argc, char **argv)
{
	struct result r;
	struct timespec ts;
	struct rusage ru;
	char err[512];

	if (argc > 1 && strcmp(argv[1], "--quick") == 0)
		g_iterations = 5000;
	pp_log_set_level(PP_LOG_ERROR); /* the fallback line is expected here */

	printf("bench_cpu_snapshot: %u iterations x %d batches; ns per call, median and min of batches\n\n",
	       g_iterations, BATCHES);
	printf("| %-46s | %-40s | %8s | %8s |\n", "path", "what was read", "median", "min");
	printf("|%s|%s|%s|%s|\n", "------------------------------------------------",
	       "------------------------------------------", "----------", "----------");

	MEASURE(r, clock_gettime(CLOCK_MONOTONIC, &ts));
	row("primitive: clock_gettime(MONOTONIC)", "vDSO", &r);
	MEASURE(r, clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts));
	row("primitive: clock_gettime(THREAD_CPUTIME_ID)", "system call", &r);
	MEASURE(r, getrusage(RUSAGE_THREAD, &ru));
	row("primitive: getrusage(RUSAGE_THREAD)", "system call", &r);

	bench_path("snapshot: clocks only", "none", true, 0,
		   PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW | PP_CPU_FLAG_RUSAGE);

	pp_cpu_counters_perf_test_set_open(refuse);
	bench_path("snapshot: fallback, perf refused (default)", "default", true, PP_CPU_FLAG_RUSAGE,
		   PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW);
	pp_cpu_counters_perf_test_set_open(NULL);

	bench_path("snapshot: read(2), software group (3)",
		   "task-clock,context-switches,page-faults,cpu-migrations", true, PP_CPU_FLAG_PERF_SW,
		   PP_CPU_FLAG_RUSAGE);
	/* Named: cpu-migrations has no source outside perf, so its group stays open (a software
	 * event with one, alone, is read from the kernel's accounting instead). */
	bench_path("snapshot: read(2), software group (1)", "cpu-migrations", true,
		   PP_CPU_FLAG_PERF_SW, 0);
	bench_path("snapshot: default without a PMU, watched", "default", true,
		   PP_CPU_FLAG_RUSAGE | PP_CPU_FLAG_WATCHED, PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW);
	pp_cpu_counters_perf_test_set_watch(false);
	bench_path("snapshot: default without a PMU, no watch", "default", true, PP_CPU_FLAG_RUSAGE,
		   PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW | PP_CPU_FLAG_WATCHED);
	pp_cpu_counters_perf_test_set_watch(true);
	pp_cpu_counters_snapshot_set_time_from_perf(false);
	bench_path("same (3), CPU time from the clock",
		   "task-clock,context-switches,page-faults,cpu-migrations", true, PP_CPU_FLAG_PERF_SW,
		   PP_CPU_FLAG_CPU_TIME_PERF);
	pp_cpu_counters_snapshot_set_time_from_perf(true);
	bench_path("snapshot: read(2), sw + hw groups (default)", "default", false,
		   PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW, 0);
	bench_path("snapshot: read(2), hardware group (2)", "cycles,instructions", false,
		   PP_CPU_FLAG_PERF_HW, 0);
	bench_path("snapshot: sw read(2) + hw user read (default)", "default", true,
		   PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_USER_READ, 0);
	bench_path("snapshot: hw user read only (2)", "cycles,instructions", true,
		   PP_CPU_FLAG_USER_READ, 0);

	/* What the watch costs the thread: the perf context switch of one event at each switch. */
	switch_cost("context switch away and back, no perf event", "none", false);
	switch_cost("context switch away and back, with the watch", "default", true);

	/* The arithmetic side. */
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;
	pp_cpu_counters_perf_test_set_user_read(true);
	pp_cpu_counters_snapshot_configure("default", err, sizeof(err));
	pp_cpu_counters_snapshot_take(&a);
	pp_cpu_counters_snapshot_take(&b);
	MEASURE(r, pp_cpu_counters_snapshot_delta(&a, &b, &d));
	row("pp_cpu_counters_snapshot_delta", "default events", &r);

	/* First snapshot on a thread: opens the groups. */
	double open_us[BATCHES];
	for (int i = 0; i < BATCHES; i++) {
		pp_cpu_counters_snapshot_thread_exit();
		uint64_t t0 = now_ns();
		pp_cpu_counters_snapshot_take(&a);
		open_us[i] = (double)(now_ns() - t0) / 1000.0;
	}
	qsort(open_us, BATCHES, sizeof(open_us[0]), cmp_double);
	printf("\nfirst snapshot on a thread (opens its counters, default events): median %.1f us, "
	       "min %.1f us\n", open_us[BATCHES / 2], open_us[0]);
	pp_cpu_counters_snapshot_shutdown();
	return 0;
}
