/* Snapshots on this machine, with whatever perf offers here: monotone deltas, more work gives
 * larger deltas, threads get their own counters, fds are closed at thread exit, and the
 * hardware and user-space paths where they exist (skipped with a printed reason otherwise). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_counters_internal.h"
#include "cpu_test.h"
#include "pp_cpu_counters.h"
#include "pp_log.h"

static int idx(const char *name)
{
	return pp_cpu_counters_snapshot_event_index(name);
}

static bool has(const struct pp_cpu_delta *d, const char *name)
{
	int i = idx(name);
	return i >= 0 && (d->valid & (1u << i));
}

static uint64_t val(const struct pp_cpu_delta *d, const char *name)
{
	int i = idx(name);
	return i >= 0 ? d->value[i] : 0;
}

/* CPU time of this thread from getrusage: a source independent of the one under test. */
static uint64_t rusage_cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static void busy_cpu_ms(unsigned ms)
{
	uint64_t start = rusage_cpu_ns();
	while (rusage_cpu_ns() - start < (uint64_t)ms * 1000000ull)
		test_spin(20000);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void print_availability(void)
{
	struct pp_cpu_snapshot s;
	pp_cpu_counters_snapshot_take(&s);
	printf("events here:");
	for (unsigned i = 0; i < pp_cpu_counters_snapshot_event_count(); i++) {
		const char *src = !(s.valid & (1u << i)) ? "unavailable"
				  : (s.hw_mask & (1u << i)) ? "perf-hw"
				  : (s.sw_mask & (1u << i)) ? "perf-sw"
				  : s.value[i] == s.thread_cpu_ns ? "thread_cpu_ns"
								  : "getrusage";
		printf(" %s=%s", pp_cpu_counters_snapshot_event_name(i), src);
	}
	printf(" flags=0x%x (thread_cpu_ns from %s)\n", s.flags,
	       (s.flags & PP_CPU_FLAG_CPU_TIME_PERF) ? "perf group enabled time" : "CLOCK_THREAD_CPUTIME_ID");
}

static void test_monotone(void)
{
	struct pp_cpu_snapshot prev, cur;
	struct pp_cpu_delta d;
	bool ok_wall = true, ok_cpu = true, ok_values = true, ok_session = true;

	pp_cpu_counters_snapshot_take(&prev);
	CHECK(prev.session != 0);
	CHECK(prev.tid == (uint32_t)syscall(SYS_gettid));
	CHECK(prev.wall_ns > 0 && prev.thread_cpu_ns > 0);
	for (int i = 0; i < 200; i++) {
		test_spin(1000);
		pp_cpu_counters_snapshot_take(&cur);
		ok_wall &= cur.wall_ns >= prev.wall_ns;
		ok_cpu &= cur.thread_cpu_ns >= prev.thread_cpu_ns;
		ok_session &= cur.session == prev.session;
		for (unsigned k = 0; k < PP_CPU_MAX_EVENTS; k++) {
			if ((prev.valid & cur.valid) & (1u << k))
				ok_values &= cur.value[k] >= prev.value[k];
		}
		pp_cpu_counters_snapshot_delta(&prev, &cur, &d);
		ok_values &= !(d.flags & PP_CPU_FLAG_MISMATCH);
		prev = cur;
	}
	CHECK(ok_wall);
	CHECK(ok_cpu);
	CHECK(ok_values);
	CHECK(ok_session);
}

static void test_busy_loop(void)
{
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	uint64_t c0 = test_now_ns(CLOCK_THREAD_CPUTIME_ID);
	pp_cpu_counters_snapshot_take(&a);
	busy_cpu_ms(50);
	pp_cpu_counters_snapshot_take(&b);
	uint64_t c1 = test_now_ns(CLOCK_THREAD_CPUTIME_ID);
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(d.thread_cpu_ns >= 40000000ull, "thread_cpu_ns %llu", (unsigned long long)d.thread_cpu_ns);
	/* Whatever its source (flags say), thread_cpu_ns is CLOCK_THREAD_CPUTIME_ID's time: same
	 * zero point, same rate, within wide margins. */
	uint64_t slack = (c1 - c0) / 20 + 2000000ull;
	CHECK(d.thread_cpu_ns <= c1 - c0 + slack && d.thread_cpu_ns + slack >= c1 - c0,
	      "%llu vs clock %llu", (unsigned long long)d.thread_cpu_ns, (unsigned long long)(c1 - c0));
	CHECK(b.thread_cpu_ns <= c1 + slack && b.thread_cpu_ns + slack >= c1, "%llu vs clock %llu",
	      (unsigned long long)b.thread_cpu_ns, (unsigned long long)c1);
	printf("busy 50 ms: thread_cpu_ns delta %llu (%s), CLOCK_THREAD_CPUTIME_ID delta %llu\n",
	       (unsigned long long)d.thread_cpu_ns,
	       (b.flags & PP_CPU_FLAG_CPU_TIME_PERF) ? "perf enabled time" : "clock",
	       (unsigned long long)(c1 - c0));
	if (b.flags & PP_CPU_FLAG_PERF_SW)
		CHECK(b.flags & PP_CPU_FLAG_CPU_TIME_PERF, "software group open: CPU time from it");
	CHECK(d.wall_ns + 1000000ull >= d.thread_cpu_ns, "one thread cannot use more CPU than wall time");
	/* task-clock is in every default configuration: from perf or from the clock */
	CHECK(has(&d, "task-clock"));
	CHECK(val(&d, "task-clock") >= 40000000ull, "task-clock %llu",
	      (unsigned long long)val(&d, "task-clock"));
	CHECK(has(&d, "context-switches") && has(&d, "page-faults"),
	      "perf or getrusage always give these");
	/* Never 0 for an unmeasured value: invalid bits carry no value */
	for (unsigned i = 0; i < pp_cpu_counters_snapshot_event_count(); i++)
		CHECK((d.valid & (1u << i)) || d.value[i] == 0);
}

/* Without perf events (cpu_counters=none here, the default list on a machine without a PMU),
 * thread_cpu_ns between two context switches is the last clock read plus the wall time since
 * (PP_CPU_FLAG_CPU_TIME_WALL); a sleep in between makes the next snapshot read the clock
 * again, so the sleep never counts as CPU time. */
static void test_cpu_time_between_switches(void)
{
	char err[512];
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	CHECK(pp_cpu_counters_snapshot_configure("none", err, sizeof(err)) == 0);
	/* Short spins, many tries: on a loaded machine (the sanitizer suites run two tests at a
	 * time on two cores) a spin of milliseconds is preempted nearly every time, and a
	 * preempted interval reads the clock again, as it should. */
	unsigned extended = 0, tries = 0;
	for (int i = 0; i < 400 && extended < 10; i++, tries++) {
		pp_cpu_counters_snapshot_take(&a);
		uint64_t c0 = test_now_ns(CLOCK_THREAD_CPUTIME_ID);
		test_spin(20000);
		uint64_t c1 = test_now_ns(CLOCK_THREAD_CPUTIME_ID);
		pp_cpu_counters_snapshot_take(&b);
		pp_cpu_counters_snapshot_delta(&a, &b, &d);
		extended += (b.flags & PP_CPU_FLAG_CPU_TIME_WALL) != 0;
		/* Either way (a preemption in between reads the clock again), it is the clock's time. */
		uint64_t slack = (c1 - c0) / 10 + 500000ull;
		CHECK(d.thread_cpu_ns + slack >= c1 - c0 && d.thread_cpu_ns <= d.wall_ns,
		      "spin %d: %llu ns of CPU, the clock %llu, wall %llu", i, (unsigned long long)d.thread_cpu_ns,
		      (unsigned long long)(c1 - c0), (unsigned long long)d.wall_ns);
	}
	CHECK(extended > 0, "no snapshot of %u after a short spin was extended by the wall clock", tries);
	printf("cpu time between switches: %u of %u snapshots extended by the wall clock\n", extended, tries);

	pp_cpu_counters_snapshot_take(&a);
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	pp_cpu_counters_snapshot_take(&b);
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(!(b.flags & PP_CPU_FLAG_CPU_TIME_WALL), "a sleep switches: the clock is read again");
	CHECK(d.wall_ns >= 20000000ull && d.thread_cpu_ns < 5000000ull,
	      "20 ms asleep: %llu ns of CPU over %llu ns", (unsigned long long)d.thread_cpu_ns,
	      (unsigned long long)d.wall_ns);
	/* and the time after the sleep extends again from the new read */
	pp_cpu_counters_snapshot_take(&a);
	busy_cpu_ms(1);
	pp_cpu_counters_snapshot_take(&b);
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(b.thread_cpu_ns >= a.thread_cpu_ns && d.thread_cpu_ns <= d.wall_ns);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
}

static void measure_spin(uint64_t iterations, struct pp_cpu_delta *d)
{
	struct pp_cpu_snapshot a, b;
	pp_cpu_counters_snapshot_take(&a);
	test_spin(iterations);
	pp_cpu_counters_snapshot_take(&b);
	pp_cpu_counters_snapshot_delta(&a, &b, d);
}

static void test_more_work(void)
{
	struct pp_cpu_delta small, big;
	uint64_t n = 2000000; /* a few ms */

	measure_spin(n, &small); /* warm */
	measure_spin(n, &small);
	measure_spin(10 * n, &big);
	CHECK(big.thread_cpu_ns > small.thread_cpu_ns, "%llu vs %llu",
	      (unsigned long long)big.thread_cpu_ns, (unsigned long long)small.thread_cpu_ns);
	/* 10x the work; preemption only adds noise to the small one's side of a ratio > 2 */
	CHECK(big.thread_cpu_ns > 2 * small.thread_cpu_ns, "%llu vs %llu",
	      (unsigned long long)big.thread_cpu_ns, (unsigned long long)small.thread_cpu_ns);
	CHECK(val(&big, "task-clock") > 2 * val(&small, "task-clock"));
	if (has(&big, "instructions") && has(&small, "instructions")) {
		CHECK(val(&small, "instructions") > 0);
		CHECK(val(&big, "instructions") > 5 * val(&small, "instructions"), "%llu vs %llu",
		      (unsigned long long)val(&big, "instructions"),
		      (unsigned long long)val(&small, "instructions"));
	}
}

/* ---- two threads at once ---- */

struct worker {
	bool busy;
	pthread_barrier_t *barrier;
	struct pp_cpu_delta d;
	uint32_t tid, session;
	bool current_here;            /* pp_cpu_counters_snapshot_is_current(last) on its own thread */
	struct pp_cpu_snapshot last;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pp_cpu_snapshot a, b;

	pp_cpu_counters_snapshot_take(&a); /* opens this thread's counters */
	pthread_barrier_wait(w->barrier);
	pp_cpu_counters_snapshot_take(&a);
	if (w->busy) {
		busy_cpu_ms(80);
	} else {
		for (int i = 0; i < 8; i++) {
			struct timespec ts = { 0, 10000000 };
			nanosleep(&ts, NULL);
		}
	}
	pp_cpu_counters_snapshot_take(&b);
	pthread_barrier_wait(w->barrier);
	pp_cpu_counters_snapshot_delta(&a, &b, &w->d);
	w->tid = b.tid;
	w->session = b.session;
	w->current_here = pp_cpu_counters_snapshot_is_current(&b);
	w->last = b;
	return NULL;
}

static void test_two_threads(void)
{
	pthread_barrier_t barrier;
	pthread_t ta, tb;
	struct worker a = { .busy = true, .barrier = &barrier };
	struct worker b = { .busy = false, .barrier = &barrier };

	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&ta, NULL, worker_main, &a);
	pthread_create(&tb, NULL, worker_main, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&barrier);

	CHECK(a.tid != b.tid && a.session != b.session);
	/* A pass may begin at the previous pass's end snapshot only on the thread that took it
	 * (pp_attr_record_pass_begin). */
	CHECK(a.current_here && b.current_here, "a thread's own snapshot stands for one it would take now");
	CHECK(!pp_cpu_counters_snapshot_is_current(&a.last) && !pp_cpu_counters_snapshot_is_current(&b.last),
	      "another thread's snapshot does not");
	CHECK(!(a.d.flags & PP_CPU_FLAG_MISMATCH) && !(b.d.flags & PP_CPU_FLAG_MISMATCH));
	CHECK(a.d.thread_cpu_ns >= 60000000ull, "busy %llu", (unsigned long long)a.d.thread_cpu_ns);
	CHECK(b.d.thread_cpu_ns < 20000000ull, "sleeping %llu", (unsigned long long)b.d.thread_cpu_ns);
	CHECK(b.d.thread_cpu_ns * 4 < a.d.thread_cpu_ns);
	CHECK(has(&a.d, "task-clock") && has(&b.d, "task-clock"));
	CHECK(val(&a.d, "task-clock") >= 60000000ull);
	CHECK(val(&b.d, "task-clock") < 20000000ull, "sleeping task-clock %llu",
	      (unsigned long long)val(&b.d, "task-clock"));
	/* The sleeper switched out at each of its 8 sleeps; the spinner needs not have. */
	CHECK(has(&b.d, "context-switches") && val(&b.d, "context-switches") >= 8, "%llu",
	      (unsigned long long)val(&b.d, "context-switches"));
	if (has(&a.d, "instructions") && has(&b.d, "instructions"))
		CHECK(val(&b.d, "instructions") * 10 < val(&a.d, "instructions"));
}

/* ---- lifetimes ---- */

static void *snapshot_and_exit(void *arg)
{
	struct pp_cpu_snapshot s;
	pp_cpu_counters_snapshot_take(&s);
	*(int *)arg = count_fds();
	return NULL;
}

static void test_thread_lifetimes(void)
{
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;
	int in_thread = -1;
	pthread_t t;

	pp_cpu_counters_snapshot_take(&a); /* main's counters are open before counting */
	int before = count_fds();
	pthread_create(&t, NULL, snapshot_and_exit, &in_thread);
	pthread_join(t, NULL);
	int after = count_fds();
	printf("fds: %d before, %d in a snapshotting thread, %d after it exited\n", before,
	       in_thread, after);
	CHECK(after == before, "the key destructor closes a thread's fds");

	/* Explicit close; the next snapshot reopens with a new session */
	pp_cpu_counters_snapshot_take(&a);
	pp_cpu_counters_snapshot_thread_exit();
	pp_cpu_counters_snapshot_thread_exit(); /* twice is harmless */
	pp_cpu_counters_snapshot_take(&b);
	CHECK(a.session != b.session);
	CHECK(!pp_cpu_counters_snapshot_is_current(&a) && pp_cpu_counters_snapshot_is_current(&b),
	      "a snapshot of counters since reopened is not current");
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK((d.flags & PP_CPU_FLAG_MISMATCH) && d.valid == 0);

	/* shutdown closes everything; snapshots afterwards still work */
	pp_cpu_counters_snapshot_shutdown();
	int closed = count_fds();
	pp_cpu_counters_snapshot_take(&a);
	test_spin(100000);
	pp_cpu_counters_snapshot_take(&b);
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(!(d.flags & PP_CPU_FLAG_MISMATCH) && d.thread_cpu_ns > 0);
	pp_cpu_counters_snapshot_shutdown();
	CHECK(count_fds() == closed);
	if (in_thread >= 0 && (a.flags & (PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW)))
		CHECK(in_thread > before, "the thread had fds of its own");
}

/* ---- hardware and user-space reads ---- */

static int open_instructions(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	long fd = pp_cpu_counters_perf_open_real(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void test_hardware(void)
{
	char err[512];
	int fd = open_instructions();
	if (fd < 0) {
		printf("SKIP hardware: perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): %s\n", strerror(-fd));
		printf("SKIP rdpmc: no hardware events\n");
		return;
	}
	close(fd);

	CHECK(pp_cpu_counters_snapshot_configure("instructions,cycles,task-clock", err, sizeof(err)) == 0);
	struct pp_cpu_delta small, big;
	measure_spin(1000000, &small);
	measure_spin(1000000, &small);
	measure_spin(10000000, &big);
	CHECK(has(&small, "instructions") && has(&big, "instructions"));
	CHECK(val(&small, "instructions") > 1000000, "%llu", (unsigned long long)val(&small, "instructions"));
	CHECK(val(&big, "instructions") > 5 * val(&small, "instructions"));
	CHECK(val(&big, "instructions") < 20 * val(&small, "instructions"));
	CHECK(!has(&big, "cycles") || val(&big, "cycles") > val(&small, "cycles"));
	printf("hardware: instructions %llu for 1M iterations, %llu for 10M%s\n",
	       (unsigned long long)val(&small, "instructions"),
	       (unsigned long long)val(&big, "instructions"),
	       (big.flags & PP_CPU_FLAG_USER_READ) ? " (user-space reads)" : " (read(2))");

	/* User-space path: taken when the kernel sets cap_user_rdpmc (and cap_user_time). */
	if (!PP_CPU_HAVE_USER_READ) {
		printf("SKIP rdpmc: no user-space read on this architecture\n");
		return;
	}
	int user_reads = 0;
	struct pp_cpu_snapshot s;
	for (int i = 0; i < 100; i++) {
		pp_cpu_counters_snapshot_take(&s);
		user_reads += (s.flags & PP_CPU_FLAG_USER_READ) != 0;
	}
	if (!user_reads) {
		struct perf_event_mmap_page *pc = NULL;
		fd = open_instructions();
		if (fd >= 0)
			pc = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
		if (pc && pc != MAP_FAILED) {
			printf("SKIP rdpmc: cap_user_rdpmc=%d cap_user_time=%d index=%u\n",
			       (int)pc->cap_user_rdpmc, (int)pc->cap_user_time, pc->index);
			munmap(pc, (size_t)sysconf(_SC_PAGESIZE));
		} else {
			printf("SKIP rdpmc: cannot map the perf page: %s\n", strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		return;
	}
	printf("rdpmc: %d of 100 snapshots read the hardware group in user space\n", user_reads);
	/* Both paths agree: same work, similar instruction counts */
	struct pp_cpu_delta user, kernel;
	measure_spin(5000000, &user);
	pp_cpu_counters_perf_test_set_user_read(false);
	CHECK(pp_cpu_counters_snapshot_configure("instructions,cycles,task-clock", err, sizeof(err)) == 0);
	measure_spin(5000000, &kernel);
	measure_spin(5000000, &kernel);
	CHECK(!(kernel.flags & PP_CPU_FLAG_USER_READ) && (kernel.flags & PP_CPU_FLAG_PERF_HW));
	pp_cpu_counters_perf_test_set_user_read(true);
	CHECK(has(&user, "instructions") && has(&kernel, "instructions"));
	CHECK(val(&user, "instructions") * 2 > val(&kernel, "instructions") &&
	      val(&kernel, "instructions") * 2 > val(&user, "instructions"),
	      "user %llu vs read %llu", (unsigned long long)val(&user, "instructions"),
	      (unsigned long long)val(&kernel, "instructions"));
	/* monotone through the user path, including across migrations */
	CHECK(pp_cpu_counters_snapshot_configure("instructions,cycles,task-clock", err, sizeof(err)) == 0);
	struct pp_cpu_snapshot p, c;
	bool mono = true;
	pp_cpu_counters_snapshot_take(&p);
	for (int i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			sched_yield();
		pp_cpu_counters_snapshot_take(&c);
		mono &= !((p.valid & c.valid & 1u) && c.value[0] < p.value[0]);
		mono &= c.hw_time_enabled >= p.hw_time_enabled && c.hw_time_running >= p.hw_time_running;
		p = c;
	}
	CHECK(mono);
}

int main(void)
{
	char err[512];
	pp_log_set_level(PP_LOG_INFO);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
	print_availability();
	test_monotone();
	test_busy_loop();
	test_cpu_time_between_switches();
	test_more_work();
	test_two_threads();
	test_thread_lifetimes();
	test_hardware();
	pp_cpu_counters_snapshot_shutdown();
	return check_finish();
}
