/* The watch (cpu_counters_perf.c): where a thread has no perf group and its counts come from
 * the kernel's accounting, a perf event whose page moves at each of the thread's context
 * switches and page faults lets a snapshot skip getrusage and the thread clock. Checked here on
 * the real kernel, with the hardware events refused through the test hook so that the thread
 * takes that path on any machine: the watch opens after its trial where snapshots without a
 * switch dominate and not where switches do; a watched snapshot's counts are those of the last
 * getrusage; a page fault or a context switch in between is always counted (a snapshot after
 * one reads getrusage again); and with the watch forbidden the same counts come without it. */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_counters_internal.h"
#include "cpu_test.h"
#include "pp_cpu_counters.h"
#include "pp_log.h"

static long fail_hardware(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (attr->type == PERF_TYPE_HARDWARE) {
		errno = ENOENT;
		return -1;
	}
	return pp_cpu_counters_perf_open_real(attr, pid, cpu, group_fd, flags);
}

/* Whether this process may open the watch's event, which counts kernel mode (root,
 * CAP_PERFMON or perf_event_paranoid <= 1), and map it. */
static bool watch_possible(void)
{
	struct perf_event_attr attr;
	pp_cpu_counters_perf_watch_attr(&attr);
	long fd = pp_cpu_counters_perf_open_real(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, 2 * (size_t)ps, PROT_READ, MAP_SHARED, (int)fd, 0);
	bool ok = p != MAP_FAILED;
	if (ok)
		munmap(p, 2 * (size_t)ps);
	close((int)fd);
	return ok;
}

static uint64_t val(const struct pp_cpu_delta *d, const char *name)
{
	int i = pp_cpu_counters_snapshot_event_index(name);
	CHECK(i >= 0 && (d->valid & (1u << i)), "%s measured", name);
	return i >= 0 ? d->value[i] : 0;
}

/* Past the trial, in a loop of snapshots with nothing in between: the flags of the first
 * watched one of up to 1,000 more, else the last one's. Not the last one alone: the machine
 * may preempt the thread between two snapshots (a switch, which moves the watch), as it did
 * under ThreadSanitizer beside other tests. */
static uint32_t after_trial(void)
{
	struct pp_cpu_snapshot s;
	for (unsigned i = 0; i < PP_CPU_WATCH_TRIAL + 2; i++)
		pp_cpu_counters_snapshot_take(&s);
	for (unsigned i = 0; i < 1000 && !(s.flags & PP_CPU_FLAG_WATCHED); i++)
		pp_cpu_counters_snapshot_take(&s);
	return s.flags;
}

/* Touches `pages` fresh anonymous pages: one minor fault each, no system call in between. */
static void fault_pages(char *p, size_t pages, size_t ps)
{
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * ps] = (char)i;
}

static void check_counts(bool watched)
{
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), pages = 64;

	/* Nothing in between: where the watch is, no system call; the counts unchanged. */
	unsigned quiet = 0, exact = 0;
	for (int i = 0; i < 50; i++) {
		pp_cpu_counters_snapshot_take(&a);
		test_spin(2000);
		pp_cpu_counters_snapshot_take(&b);
		pp_cpu_counters_snapshot_delta(&a, &b, &d);
		bool w = (b.flags & PP_CPU_FLAG_WATCHED) != 0;
		CHECK(watched || !w, "no watch, no watched snapshot");
		quiet += w;
		if (w) {
			CHECK(val(&d, "context-switches") == 0 && val(&d, "page-faults") == 0,
			      "watched: neither switched nor faulted (%llu, %llu)",
			      (unsigned long long)val(&d, "context-switches"), (unsigned long long)val(&d, "page-faults"));
			/* Extended by the wall clock: by all of it, or by less where an earlier extension
			 * ran ahead of the thread's clock (the wall clock also counts steal time on a
			 * VM), which a snapshot does not take back: its CPU time never goes backwards. */
			CHECK(d.thread_cpu_ns <= d.wall_ns, "watched: CPU time %llu ns over %llu ns of wall clock",
			      (unsigned long long)d.thread_cpu_ns, (unsigned long long)d.wall_ns);
			exact += d.thread_cpu_ns == d.wall_ns;
		}
	}
	if (watched) {
		CHECK(quiet > 0, "no watched snapshot in 50 short spins");
		CHECK(!quiet || exact > 0, "watched: CPU time extended by the wall clock in none of %u", quiet);
	}

	/* Faults in between, without a switch or a system call: always counted. */
	for (int i = 0; i < 20; i++) {
		char *p = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		if (p == MAP_FAILED)
			return;
		pp_cpu_counters_snapshot_take(&a);
		fault_pages(p, pages, ps);
		pp_cpu_counters_snapshot_take(&b);
		pp_cpu_counters_snapshot_delta(&a, &b, &d);
		munmap(p, pages * ps);
		CHECK(!(b.flags & PP_CPU_FLAG_WATCHED), "a fault moves the watch");
		CHECK(val(&d, "page-faults") >= pages, "%zu pages touched, %llu faults counted", pages,
		      (unsigned long long)val(&d, "page-faults"));
	}

	/* A sleep in between: a switch counted, the sleep not CPU time. */
	pp_cpu_counters_snapshot_take(&a);
	struct timespec ts = { 0, 5000000 };
	nanosleep(&ts, NULL);
	pp_cpu_counters_snapshot_take(&b);
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(!(b.flags & PP_CPU_FLAG_WATCHED) && val(&d, "context-switches") >= 1);
	CHECK(d.wall_ns >= 5000000ull && d.thread_cpu_ns < 2000000ull, "5 ms asleep: %llu ns of CPU",
	      (unsigned long long)d.thread_cpu_ns);
	/* and quiet again after it */
	if (watched)
		CHECK(after_trial() & PP_CPU_FLAG_WATCHED, "watched again after the switch");
}

/* A thread that sleeps between most of its snapshots: its trial keeps getrusage. */
static void *switching_thread(void *arg)
{
	uint32_t *flags = arg;
	struct pp_cpu_snapshot s;
	struct timespec ts = { 0, 20000 };
	for (unsigned i = 0; i < PP_CPU_WATCH_TRIAL + 20; i++) {
		pp_cpu_counters_snapshot_take(&s);
		nanosleep(&ts, NULL);
		pp_cpu_counters_snapshot_take(&s);
		*flags |= s.flags;
	}
	pp_cpu_counters_snapshot_thread_exit();
	return NULL;
}

int main(void)
{
	char err[512];
	bool possible = watch_possible();
	printf("watch %s on this machine\n", possible ? "possible" : "not possible (perf refused or paranoid)");
	pp_log_set_level(PP_LOG_ERROR); /* the fallback line is expected */

	pp_cpu_counters_perf_test_set_open(fail_hardware);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
	uint32_t flags = after_trial();
	CHECK(!(flags & (PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW)) && (flags & PP_CPU_FLAG_RUSAGE),
	      "the kernel's accounting, no perf group (flags 0x%x)", flags);
	if (!(flags & PP_CPU_FLAG_USER_ONLY))
		CHECK(possible == ((flags & PP_CPU_FLAG_WATCHED) != 0), "watch %s here, flags 0x%x",
		      possible ? "possible" : "impossible", flags);
	else
		CHECK(!(flags & PP_CPU_FLAG_WATCHED), "user mode only: no watch");
	check_counts((flags & PP_CPU_FLAG_WATCHED) != 0);

	uint32_t thread_flags = 0;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, switching_thread, &thread_flags) == 0);
	pthread_join(t, NULL);
	CHECK(!(thread_flags & PP_CPU_FLAG_WATCHED), "a thread that switches between its snapshots keeps getrusage");

	/* Forbidden: the same counts from getrusage at every snapshot. */
	pp_cpu_counters_perf_test_set_watch(false);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
	CHECK(!(after_trial() & PP_CPU_FLAG_WATCHED));
	check_counts(false);
	pp_cpu_counters_perf_test_set_watch(true);

	/* cpu_counters=none promises no perf event at all. */
	CHECK(pp_cpu_counters_snapshot_configure("none", err, sizeof(err)) == 0);
	CHECK(!(after_trial() & PP_CPU_FLAG_WATCHED), "none: no watch");

	pp_cpu_counters_perf_test_set_open(NULL);
	pp_cpu_counters_snapshot_shutdown();
	return check_finish();
}
