/* perf_event_open refused: through the test hook (every errno the field produces, partial
 * failures, the paranoid user-mode-only path), through a real seccomp filter in a forked child,
 * and through real perf_event_paranoid with capabilities dropped. The fallback is taken, values
 * that cannot be measured are invalid (never 0), and exactly one line is logged. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_counters_internal.h"
#include "cpu_test.h"
#include "pp_cpu_counters.h"
#include "pp_log.h"

/* ---- captured log lines ---- */

static int g_warn_lines;
static char g_last_line[1024];

static void capture(enum pp_log_level level, const char *line)
{
	if (level <= PP_LOG_WARN) {
		__atomic_add_fetch(&g_warn_lines, 1, __ATOMIC_RELAXED);
		snprintf(g_last_line, sizeof(g_last_line), "%s", line);
	}
}

static void capture_reset(void)
{
	g_warn_lines = 0;
	g_last_line[0] = '\0';
}

/* ---- fake perf_event_open ---- */

static int g_fail_errno;

static long fail_all(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	errno = g_fail_errno;
	return -1;
}

static long fail_hardware(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			  unsigned long flags)
{
	if (attr->type == PERF_TYPE_HARDWARE) {
		errno = ENOENT;
		return -1;
	}
	return pp_cpu_counters_perf_open_real(attr, pid, cpu, group_fd, flags);
}

/* perf_event_paranoid=2 for an unprivileged process: kernel-mode counting refused. */
static long paranoid_two(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			 unsigned long flags)
{
	if (!attr->exclude_kernel) {
		errno = EACCES;
		return -1;
	}
	return fail_hardware(attr, pid, cpu, group_fd, flags);
}

static long fail_context_switches(struct perf_event_attr *attr, pid_t pid, int cpu,
				  int group_fd, unsigned long flags)
{
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES) {
		errno = EINVAL;
		return -1;
	}
	return fail_hardware(attr, pid, cpu, group_fd, flags);
}

static int g_calls;
static long count_and_fail(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			   unsigned long flags)
{
	__atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
	errno = EPERM;
	return -1;
}

static bool real_perf_works(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	long fd = pp_cpu_counters_perf_open_real(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

static bool bit(const struct pp_cpu_delta *d, const char *name)
{
	int i = pp_cpu_counters_snapshot_event_index(name);
	return i >= 0 && (d->valid & (1u << i));
}

static uint64_t val(const struct pp_cpu_delta *d, const char *name)
{
	int i = pp_cpu_counters_snapshot_event_index(name);
	return i >= 0 ? d->value[i] : 0;
}

static void work_delta(struct pp_cpu_snapshot *a, struct pp_cpu_snapshot *b, struct pp_cpu_delta *d)
{
	pp_cpu_counters_snapshot_take(a);
	test_spin(3000000);
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL); /* at least one voluntary context switch */
	/* fresh anonymous pages: at least one fault (malloc might reuse touched memory) */
	size_t len = 1 << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		for (size_t i = 0; i < len; i += 4096)
			p[i] = (char)i;
		munmap(p, len);
	}
	pp_cpu_counters_snapshot_take(b);
	pp_cpu_counters_snapshot_delta(a, b, d);
}

static void *snapshot_thread(void *arg)
{
	struct pp_cpu_snapshot s;
	pp_cpu_counters_snapshot_take(&s);
	*(uint32_t *)arg = s.valid;
	return NULL;
}

/* Everything perf would give is refused: clocks and getrusage carry on. */
static void check_full_fallback(const char *errname, int e)
{
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	work_delta(&a, &b, &d);
	CHECK(!(b.flags & (PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW | PP_CPU_FLAG_USER_READ)));
	CHECK(b.flags & PP_CPU_FLAG_RUSAGE);
	CHECK(d.thread_cpu_ns > 0);
	CHECK(bit(&d, "task-clock") && val(&d, "task-clock") == d.thread_cpu_ns,
	      "task-clock from CLOCK_THREAD_CPUTIME_ID");
	CHECK(bit(&d, "context-switches") && val(&d, "context-switches") >= 1, "from getrusage");
	CHECK(bit(&d, "page-faults") && val(&d, "page-faults") >= 1, "from getrusage");
	CHECK(!bit(&d, "cycles") && !bit(&d, "instructions") && !bit(&d, "cpu-migrations"));
	CHECK(!bit(&d, "cache-misses") && !bit(&d, "branch-misses"));
	CHECK(val(&d, "cycles") == 0 && val(&d, "cpu-migrations") == 0);
	CHECK(d.scaled == 0 && b.sw_mask == 0 && b.hw_mask == 0);

	/* Another thread: same fallback, no second line. */
	uint32_t valid = 0;
	pthread_t t;
	pthread_create(&t, NULL, snapshot_thread, &valid);
	pthread_join(t, NULL);
	CHECK(valid == b.valid, "%x vs %x", valid, b.valid);

	CHECK(g_warn_lines == 1, "exactly one line, got %d", g_warn_lines);
	CHECK(strstr(g_last_line, errname) != NULL, "names the errno: %s", g_last_line);
	char text[128];
	CHECK(strstr(g_last_line, strerror_r(e, text, sizeof(text))) != NULL, "errno text: %s", g_last_line);
	CHECK(strstr(g_last_line, "perf_event_paranoid") != NULL, "%s", g_last_line);
	CHECK(strstr(g_last_line, "cycles") && strstr(g_last_line, "instructions") &&
	      strstr(g_last_line, "cpu-migrations"), "names the events: %s", g_last_line);
	CHECK(strstr(g_last_line, "not measured") != NULL, "%s", g_last_line);
	CHECK(strstr(g_last_line, "getrusage") && strstr(g_last_line, "CLOCK_THREAD_CPUTIME_ID"),
	      "%s", g_last_line);
	CHECK(strncmp(g_last_line, "passprobe: ", 11) == 0);
	printf("log: %s\n", g_last_line);
}

static void test_hook_refused(void)
{
	static const struct { int e; const char *name; } cases[] = {
		{ EACCES, "EACCES" }, { EPERM, "EPERM" }, { ENOSYS, "ENOSYS" },
		{ ENOENT, "ENOENT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g_fail_errno = cases[i].e;
		pp_cpu_counters_perf_test_set_open(fail_all);
		CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
		capture_reset();
		check_full_fallback(cases[i].name, cases[i].e);
	}

	/* Once refused, later threads do not ask again. */
	g_calls = 0;
	pp_cpu_counters_perf_test_set_open(count_and_fail);
	capture_reset();
	struct pp_cpu_snapshot s;
	pp_cpu_counters_snapshot_take(&s);
	int first = g_calls;
	uint32_t valid;
	pthread_t t;
	pthread_create(&t, NULL, snapshot_thread, &valid);
	pthread_join(t, NULL);
	CHECK(first > 0 && g_calls == first, "%d then %d", first, g_calls);
	CHECK(g_warn_lines == 1);

	/* configure starts over: one more line */
	CHECK(pp_cpu_counters_snapshot_configure("task-clock,cpu-migrations", err, sizeof(err)) == 0);
	pp_cpu_counters_snapshot_take(&s);
	CHECK(g_warn_lines == 2);
	CHECK(strstr(g_last_line, "cpu-migrations") && !strstr(g_last_line, "cycles"), "%s", g_last_line);

	/* none: nothing to refuse, nothing logged, CPU time still there */
	capture_reset();
	CHECK(pp_cpu_counters_snapshot_configure("none", err, sizeof(err)) == 0);
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;
	work_delta(&a, &b, &d);
	CHECK(g_warn_lines == 0 && d.thread_cpu_ns > 0 && d.valid == 0);
	pp_cpu_counters_perf_test_set_open(NULL);
}

static void test_hook_partial(void)
{
	char err[256];
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	if (!real_perf_works()) {
		printf("SKIP partial failures: perf_event_open refused here\n");
		return;
	}
	/* No hardware and the default list: no perf event at all (a software group would only
	 * slow the thread's context switches); CPU time, context switches and faults from the
	 * kernel's accounting, cpu-migrations (perf only, brought by `default`) not measured. */
	pp_cpu_counters_perf_test_set_open(fail_hardware);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
	capture_reset();
	work_delta(&a, &b, &d);
	CHECK(!(b.flags & (PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW)) && (b.flags & PP_CPU_FLAG_RUSAGE));
	CHECK(b.sw_mask == 0 && b.hw_mask == 0);
	CHECK(bit(&d, "task-clock") && bit(&d, "context-switches") && bit(&d, "page-faults"));
	CHECK(val(&d, "context-switches") >= 1, "work_delta sleeps: %llu",
	      (unsigned long long)val(&d, "context-switches"));
	CHECK(val(&d, "task-clock") == d.thread_cpu_ns && !(b.flags & PP_CPU_FLAG_CPU_TIME_PERF));
	CHECK(!bit(&d, "cpu-migrations") && !bit(&d, "cycles") && !bit(&d, "instructions"));
	CHECK(g_warn_lines == 1 && strstr(g_last_line, "ENOENT") && strstr(g_last_line, "PMU") &&
	      strstr(g_last_line, "no perf event without hardware counters") &&
	      strstr(g_last_line, "name cpu-migrations in cpu_counters") &&
	      strstr(g_last_line, "context-switches, page-faults from getrusage"),
	      "%s", g_last_line);
	printf("log: %s\n", g_last_line);

	/* Only software events named, all with a source outside perf: the same, without a
	 * warning (every count is measured). */
	CHECK(pp_cpu_counters_snapshot_configure("task-clock,context-switches,page-faults", err, sizeof(err)) == 0);
	capture_reset();
	work_delta(&a, &b, &d);
	CHECK(!(b.flags & PP_CPU_FLAG_PERF_SW) && (b.flags & PP_CPU_FLAG_RUSAGE));
	CHECK(bit(&d, "task-clock") && bit(&d, "context-switches") && bit(&d, "page-faults"));
	CHECK(g_warn_lines == 0, "%s", g_last_line);

	/* cpu-migrations named (it has no other source): the software group stays, every software
	 * count from perf, hardware invalid. */
	CHECK(pp_cpu_counters_snapshot_configure("default,cpu-migrations", err, sizeof(err)) == 0);
	capture_reset();
	work_delta(&a, &b, &d);
	CHECK((b.flags & PP_CPU_FLAG_PERF_SW) && !(b.flags & PP_CPU_FLAG_PERF_HW));
	CHECK(!(b.flags & PP_CPU_FLAG_RUSAGE));
	CHECK(bit(&d, "task-clock") && bit(&d, "context-switches") && bit(&d, "page-faults") &&
	      bit(&d, "cpu-migrations"));
	int tc = pp_cpu_counters_snapshot_event_index("task-clock");
	CHECK(b.sw_mask == (b.valid & ~(1u << tc)), "all from the software group but task-clock");
	CHECK(val(&d, "task-clock") == d.thread_cpu_ns && (b.flags & PP_CPU_FLAG_CPU_TIME_PERF),
	      "task-clock is the group's enabled time");
	CHECK(!bit(&d, "cycles") && !bit(&d, "instructions"));
	CHECK(g_warn_lines == 1 && strstr(g_last_line, "ENOENT") && strstr(g_last_line, "PMU"),
	      "%s", g_last_line);
	CHECK(!strstr(g_last_line, "task-clock"), "task-clock is fine: %s", g_last_line);

	/* perf_event_paranoid=2: retried with exclude_kernel; kernel-only events from getrusage or
	 * invalid, never a false 0 from a user-mode count. */
	pp_cpu_counters_perf_test_set_open(paranoid_two);
	capture_reset();
	work_delta(&a, &b, &d);
	int cs = pp_cpu_counters_snapshot_event_index("context-switches"), pf = pp_cpu_counters_snapshot_event_index("page-faults");
	CHECK(b.flags & PP_CPU_FLAG_USER_ONLY);
	CHECK(b.flags & PP_CPU_FLAG_RUSAGE);
	CHECK(!(b.sw_mask & (1u << cs)) && bit(&d, "context-switches") && val(&d, "context-switches") >= 1);
	CHECK(!(b.sw_mask & (1u << pf)) && bit(&d, "page-faults") && val(&d, "page-faults") >= 1);
	CHECK(!bit(&d, "cpu-migrations"));
	CHECK(bit(&d, "task-clock") && val(&d, "task-clock") > 0);
	CHECK(g_warn_lines == 1 && strstr(g_last_line, "user mode only") &&
	      strstr(g_last_line, "cpu-migrations"), "%s", g_last_line);
	printf("log: %s\n", g_last_line);
	/* an event that is fine in user mode is still counted by perf */
	CHECK(pp_cpu_counters_snapshot_configure("alignment-faults,context-switches,task-clock", err,
					sizeof(err)) == 0);
	work_delta(&a, &b, &d);
	CHECK((b.flags & PP_CPU_FLAG_USER_ONLY) && (b.flags & PP_CPU_FLAG_PERF_SW));
	CHECK(b.sw_mask == 1u, "alignment-faults from perf: %x", b.sw_mask);
	CHECK(bit(&d, "context-switches") && bit(&d, "task-clock"));
	CHECK(b.flags & PP_CPU_FLAG_CPU_TIME_PERF);

	/* The software leader fails: the next event leads, context-switches from getrusage (the
	 * group kept open by the named cpu-migrations). */
	pp_cpu_counters_perf_test_set_open(fail_context_switches);
	CHECK(pp_cpu_counters_snapshot_configure("default,cpu-migrations", err, sizeof(err)) == 0);
	capture_reset();
	work_delta(&a, &b, &d);
	cs = pp_cpu_counters_snapshot_event_index("context-switches");
	pf = pp_cpu_counters_snapshot_event_index("page-faults");
	int mig = pp_cpu_counters_snapshot_event_index("cpu-migrations");
	CHECK(!(b.sw_mask & (1u << cs)) && bit(&d, "context-switches") && (b.flags & PP_CPU_FLAG_RUSAGE));
	CHECK((b.sw_mask & (1u << pf)) && (b.sw_mask & (1u << mig)), "group kept its members");
	CHECK(bit(&d, "cpu-migrations") && bit(&d, "task-clock"));
	CHECK(g_warn_lines == 1 && strstr(g_last_line, "EINVAL") &&
	      strstr(g_last_line, "context-switches"), "%s", g_last_line);
	pp_cpu_counters_perf_test_set_open(NULL);
}

/* ---- real refusals in forked children ---- */

static int child_checks(const char *expect_errno, bool expect_user_only)
{
	char err[256];
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	check_passed = check_failed = 0;
	capture_reset();
	pp_log_set_callback(capture);
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
	work_delta(&a, &b, &d);
	CHECK(d.thread_cpu_ns > 0 && bit(&d, "task-clock"));
	CHECK(bit(&d, "context-switches") && bit(&d, "page-faults"));
	CHECK(!bit(&d, "cpu-migrations"));
	CHECK(g_warn_lines == 1, "%d lines", g_warn_lines);
	if (expect_errno)
		CHECK(strstr(g_last_line, expect_errno) != NULL, "%s", g_last_line);
	if (expect_user_only)
		CHECK((b.flags & PP_CPU_FLAG_USER_ONLY) && strstr(g_last_line, "user mode only"), "%s",
		      g_last_line);
	else
		CHECK(!(b.flags & (PP_CPU_FLAG_PERF_SW | PP_CPU_FLAG_PERF_HW)));
	printf("child log: %s\n", g_last_line);
	printf("child: ");
	return check_finish();
}

static int install_seccomp_filter(void)
{
#if defined(__x86_64__)
	const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const unsigned arch = AUDIT_ARCH_AARCH64;
#elif defined(__i386__)
	const unsigned arch = AUDIT_ARCH_I386;
#else
	const unsigned arch = 0;
	return -ENOTSUP;
#endif
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -errno;
	return 0;
}

static int run_child(int (*body)(void))
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int r = body();
		fflush(stdout); /* _exit does not flush, and stdout is a pipe under ctest */
		fflush(stderr);
		_exit(r);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int seccomp_child(void)
{
	int r = install_seccomp_filter();
	if (r) {
		printf("SKIP seccomp: cannot install filter: %s\n", strerror(-r));
		return 77;
	}
	return child_checks("EPERM", false);
}

static void test_seccomp(void)
{
	/* Counters opened in the parent must not leak into the child either. */
	struct pp_cpu_snapshot s;
	pp_cpu_counters_snapshot_take(&s);
	int r = run_child(seccomp_child);
	if (r == 77)
		return;
	CHECK(r == 0, "seccomp child exit %d", r);
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

static int unprivileged_child(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return 77;
	/* CAP_SYS_ADMIN (21) and CAP_PERFMON (38) bypass perf_event_paranoid. */
	data[0].effective &= ~(1u << 21);
	data[1].effective &= ~(1u << (38 - 32));
	if (syscall(SYS_capset, &hdr, data) != 0)
		return 77;
	int paranoid = read_paranoid();
	if (!real_perf_works())
		return child_checks("EACCES", false); /* e.g. Debian's perf_event_paranoid=3 */
	return child_checks(NULL, paranoid >= 2);
}

static void test_paranoid(void)
{
	int paranoid = read_paranoid();
	if (paranoid < 2) {
		printf("SKIP paranoid: perf_event_paranoid=%d lets unprivileged processes count kernel mode\n",
		       paranoid);
		return;
	}
	if (!real_perf_works()) {
		printf("SKIP paranoid: perf_event_open refused even for this process\n");
		return;
	}
	int r = run_child(unprivileged_child);
	if (r == 77) {
		printf("SKIP paranoid: cannot drop capabilities\n");
		return;
	}
	CHECK(r == 0, "unprivileged child exit %d", r);
}

static int fork_child(void)
{
	/* The parent's counters count the parent's threads; the child must open its own. */
	struct pp_cpu_snapshot s;
	check_passed = check_failed = 0;
	pp_cpu_counters_snapshot_take(&s);
	CHECK(s.tid == (uint32_t)syscall(SYS_gettid));
	CHECK(s.session != 0);
	printf("fork child: ");
	return check_finish();
}

static void test_fork(void)
{
	struct pp_cpu_snapshot a, b;
	pp_cpu_counters_snapshot_take(&a);
	CHECK(run_child(fork_child) == 0);
	pp_cpu_counters_snapshot_take(&b);
	CHECK(a.session == b.session, "the parent keeps its counters");
}

int main(void)
{
	pp_log_set_level(PP_LOG_INFO);
	pp_log_set_callback(capture);
	test_hook_refused();
	test_hook_partial();
	/* Forks last, and with no other thread alive. */
	pp_cpu_counters_snapshot_shutdown();
	test_fork();
	test_seccomp();
	test_paranoid();
	pp_cpu_counters_snapshot_shutdown();
	return check_finish();
}
