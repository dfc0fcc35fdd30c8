/* perf_event groups of one thread: opening with fallbacks, read(2) and user-space reads, and the
 * one log line that says what could not be opened. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_counters_internal.h"
#include "pp_log.h"

#define READ_FORMAT \
	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* arm64 PMUv3 format bit "rdpmc" (config1:1): asks for EL0 access to the counter. */
#define PP_ARM64_CONFIG1_RDPMC 0x2ull

long pp_cpu_counters_perf_open_real(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			   unsigned long flags)
{
#ifdef SYS_perf_event_open
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static pp_cpu_perf_open_fn g_perf_open = pp_cpu_counters_perf_open_real;
static bool g_user_read_allowed = true;

/* What earlier threads of this process learned, so that later threads skip syscalls that are
 * bound to fail. Benign races: at worst a thread tries once more. */
enum { MODE_UNKNOWN, MODE_KERNEL_OK, MODE_USER_ONLY, MODE_REFUSED };
static int g_mode;
static int g_refused_errno;
static uint32_t g_unsupported; /* table ids (bit per id, < 32) with ENOENT/EOPNOTSUPP */

void pp_cpu_counters_perf_reset_memo(void)
{
	__atomic_store_n(&g_mode, MODE_UNKNOWN, __ATOMIC_RELAXED);
	__atomic_store_n(&g_refused_errno, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_unsupported, 0, __ATOMIC_RELAXED);
}

pp_cpu_perf_open_fn pp_cpu_counters_perf_test_set_open(pp_cpu_perf_open_fn fn)
{
	pp_cpu_perf_open_fn old = __atomic_load_n(&g_perf_open, __ATOMIC_RELAXED);
	__atomic_store_n(&g_perf_open, fn ? fn : pp_cpu_counters_perf_open_real, __ATOMIC_RELAXED);
	pp_cpu_counters_snapshot_reset_all();
	return old;
}

void pp_cpu_counters_perf_test_set_user_read(bool allow)
{
	__atomic_store_n(&g_user_read_allowed, allow, __ATOMIC_RELAXED);
	pp_cpu_counters_snapshot_reset_all();
}

static bool g_watch_allowed = true;

void pp_cpu_counters_perf_test_set_watch(bool allow)
{
	__atomic_store_n(&g_watch_allowed, allow, __ATOMIC_RELAXED);
	pp_cpu_counters_snapshot_reset_all();
}

bool pp_cpu_counters_perf_test_user_read_allowed(void)
{
	return __atomic_load_n(&g_user_read_allowed, __ATOMIC_RELAXED);
}

static bool user_read_possible(void)
{
#if defined(__aarch64__)
	/* EL0 access exists only when the administrator enabled kernel.perf_user_access; without
	 * it, asking for it would only cost us 64-bit counters. */
	static int cached = -1;
	int c = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (c < 0) {
		char buf[8] = { 0 };
		int fd = open("/proc/sys/kernel/perf_user_access", O_RDONLY | O_CLOEXEC);
		c = 0;
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) > 0)
				c = buf[0] == '1';
			close(fd);
		}
		__atomic_store_n(&cached, c, __ATOMIC_RELAXED);
	}
	return c == 1 && pp_cpu_counters_perf_test_user_read_allowed();
#else
	return PP_CPU_HAVE_USER_READ && pp_cpu_counters_perf_test_user_read_allowed();
#endif
}

/* Returns an fd, or -errno. */
static int event_open(const struct pp_cpu_event_desc *d, bool user_only, int group_fd,
		      bool want_user_read)
{
	struct perf_event_attr attr;
	pp_cpu_perf_open_fn fn = __atomic_load_n(&g_perf_open, __ATOMIC_RELAXED);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = d->type;
	attr.config = d->config;
	attr.read_format = READ_FORMAT;
	attr.exclude_kernel = user_only;
	attr.exclude_hv = user_only;
	(void)want_user_read;
#if defined(__aarch64__)
	if (want_user_read && d->type == PERF_TYPE_HARDWARE)
		attr.config1 = PP_ARM64_CONFIG1_RDPMC;
#endif
	/* pid 0, cpu -1: this thread, whichever CPU it runs on; not inherited by its children. */
	long fd = fn(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
#if defined(__aarch64__)
	if (fd < 0 && attr.config1) {
		attr.config1 = 0;
		fd = fn(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	}
#endif
	if (fd < 0)
		return errno > 0 ? -errno : -EIO;
	return (int)fd;
}

static bool is_refusal(int e)
{
	return e == EACCES || e == EPERM || e == ENOSYS;
}

static bool opened_any(const struct pp_cpu_thread *st)
{
	return st->group[PP_CPU_GROUP_HW].n || st->group[PP_CPU_GROUP_SW].n;
}

/* Opens configured event i into group which, or records why not. */
static void open_event(struct pp_cpu_thread *st, const struct pp_cpu_config *cfg, unsigned i,
		       int which, bool *user_only, bool *attempted, bool want_user_read)
{
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
	struct pp_cpu_group *g = &st->group[which];
	uint8_t id = cfg->ids[i];
	const struct pp_cpu_event_desc *d = &table[id];

	if (__atomic_load_n(&g_mode, __ATOMIC_RELAXED) == MODE_REFUSED) {
		st->err[i] = __atomic_load_n(&g_refused_errno, __ATOMIC_RELAXED);
		return;
	}
	if (id < 32 && (__atomic_load_n(&g_unsupported, __ATOMIC_RELAXED) & (1u << id))) {
		st->err[i] = ENOENT;
		return;
	}
	if (*user_only && !d->user_mode_ok) {
		st->err[i] = PP_CPU_ERR_KERNEL_ONLY;
		return;
	}
	int leader = g->n ? g->fd[0] : -1;
	bool first = !*attempted;
	*attempted = true;
	int fd = event_open(d, *user_only, leader, want_user_read);
	if ((fd == -EACCES || fd == -EPERM) && !*user_only && !opened_any(st)) {
		/* perf_event_paranoid >= 2 refuses kernel-mode counting to unprivileged processes.
		 * Switch to user mode only if that is what this is, and while nothing is open in
		 * kernel mode that would disagree. */
		int fd2 = event_open(d, true, leader, want_user_read);
		if (fd2 >= 0) {
			*user_only = true;
			st->flags |= PP_CPU_FLAG_USER_ONLY;
			if (!d->user_mode_ok) {
				close(fd2);
				st->err[i] = PP_CPU_ERR_KERNEL_ONLY;
				return;
			}
			fd = fd2;
		}
	}
	if (fd < 0) {
		st->err[i] = -fd;
		if (first && is_refusal(-fd)) {
			/* seccomp, a container's policy, Debian's paranoid 3: every other event
			 * would get the same answer, on this thread and the next ones. */
			__atomic_store_n(&g_refused_errno, -fd, __ATOMIC_RELAXED);
			__atomic_store_n(&g_mode, MODE_REFUSED, __ATOMIC_RELAXED);
		}
		if ((fd == -ENOENT || fd == -EOPNOTSUPP) && id < 32)
			__atomic_or_fetch(&g_unsupported, 1u << id, __ATOMIC_RELAXED);
		/* A member that fails leaves the group as it was; a leader that fails lets the
		 * next event lead. */
		return;
	}
	g->fd[g->n] = fd;
	g->slot[g->n] = (uint8_t)i;
	g->page[g->n] = NULL;
	g->n++;
	if (which == PP_CPU_GROUP_HW)
		st->hw_mask |= 1u << i;
	else
		st->sw_mask |= 1u << i;
}

static void open_group(struct pp_cpu_thread *st, const struct pp_cpu_config *cfg, int which,
		       bool *user_only, bool *attempted, bool want_user_read)
{
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);

	for (unsigned i = 0; i < cfg->n; i++) {
		const struct pp_cpu_event_desc *d = &table[cfg->ids[i]];
		if ((d->type == PERF_TYPE_HARDWARE) != (which == PP_CPU_GROUP_HW))
			continue;
		if (d->fallback == PP_CPU_FB_CPU_TIME) {
			/* task-clock and cpu-clock are not opened. In a group with other software
			 * events they misbehaved on Linux 6.18: leading, the group now and then
			 * missed a context switch (about 1 interval in 400, each with 8 sleeps,
			 * under CPU contention); as a member, task-clock now and then read 20% low
			 * (16 ms for 20 ms of CPU), while the group's enabled time and an ungrouped
			 * task-clock were right. The group's enabled time is what task-clock
			 * measures, so thread_cpu_ns gives it without the event. */
			st->cpu_time_mask |= 1u << i;
			continue;
		}
		open_event(st, cfg, i, which, user_only, attempted, want_user_read);
	}
}

static void map_user_pages(struct pp_cpu_thread *st)
{
	struct pp_cpu_group *g = &st->group[PP_CPU_GROUP_HW];

	if (!g->n)
		return;
	for (unsigned k = 0; k < g->n; k++) {
		void *p = mmap(NULL, st->page_size, PROT_READ, MAP_SHARED, g->fd[k], 0);
		if (p == MAP_FAILED) {
			/* Each page counts against perf_event_mlock_kb / RLIMIT_MEMLOCK; without all
			 * of them the group is read with read(2). */
			pp_log(PP_LOG_DEBUG, "cpu counters: mmap of perf page failed (%s); hardware "
			       "group of thread %u read with read(2)", strerror(errno), st->tid);
			for (unsigned j = 0; j < k; j++) {
				munmap(g->page[j], st->page_size);
				g->page[j] = NULL;
			}
			return;
		}
		g->page[k] = p;
	}
	st->user_read = true;
}

/* A thread with perf events attached pays the kernel's perf context switch at each of its own
 * context switches, about 0.5 us per event and switch on the 2-core VM (docs/cpu-counters.md,
 * "What counting costs besides the reads"); a frame that waits for its driver switches dozens
 * of times. Where the thread has no hardware counter, the software group is that cost and
 * nothing else: its CPU time, context switches and faults are the kernel's own accounting,
 * which CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD) read without a perf event, for
 * about what the group's read costs. So the group is closed and those events take their
 * fallbacks, unless it holds an event the user named that has no other source (cpu-migrations,
 * alignment-faults, emulation-faults): such an event that only `default` brought is not
 * measured instead. */
static void accounting_instead(struct pp_cpu_thread *st, const struct pp_cpu_config *cfg)
{
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
	struct pp_cpu_group *g = &st->group[PP_CPU_GROUP_SW];

	if (st->group[PP_CPU_GROUP_HW].n || !g->n)
		return;
	for (unsigned k = 0; k < g->n; k++) {
		unsigned i = g->slot[k];
		if (table[cfg->ids[i]].fallback == PP_CPU_FB_NONE && (cfg->named & (1u << i)))
			return;
	}
	for (unsigned k = 0; k < g->n; k++) {
		close(g->fd[k]);
		st->err[g->slot[k]] = PP_CPU_ERR_NO_PMU;
	}
	g->n = 0;
	st->sw_mask = 0;
}

/* Whether a thread may have the watch (pp_cpu_counters_perf_open_watch): no perf group, counts
 * from the kernel's accounting, kernel mode countable in this process, not forbidden. */
static bool watch_eligible(const struct pp_cpu_thread *st)
{
	return !opened_any(st) && (st->rusage_mask || st->cpu_time_mask) &&
	       __atomic_load_n(&g_mode, __ATOMIC_RELAXED) == MODE_KERNEL_OK &&
	       __atomic_load_n(&g_watch_allowed, __ATOMIC_RELAXED);
}

void pp_cpu_counters_perf_open_thread(struct pp_cpu_thread *st, const struct pp_cpu_config *cfg)
{
	unsigned count;
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(&count);
	bool user_only = __atomic_load_n(&g_mode, __ATOMIC_RELAXED) == MODE_USER_ONLY;
	bool want_user_read = user_read_possible();
	long ps = sysconf(_SC_PAGESIZE);

	st->page_size = ps > 0 ? (size_t)ps : 4096;
	if (user_only)
		st->flags |= PP_CPU_FLAG_USER_ONLY;
	/* Two groups: a software leader would drag hardware members into the hardware context,
	 * where they are multiplexed together with it, and one hardware event that cannot be
	 * scheduled must not take the software counts down. Software first: it almost always
	 * opens, so it settles the paranoid question with one extra syscall at most. */
	bool attempted = false;
	open_group(st, cfg, PP_CPU_GROUP_SW, &user_only, &attempted, want_user_read);
	open_group(st, cfg, PP_CPU_GROUP_HW, &user_only, &attempted, want_user_read);
	/* What opened decides the process's mode (refused, user mode only) even where the
	 * software group is closed again. */
	bool any = opened_any(st), all_refused = true;
	accounting_instead(st, cfg);
	if (want_user_read)
		map_user_pages(st);

	int refused = 0;
	for (unsigned i = 0; i < cfg->n; i++) {
		if (!st->err[i])
			continue;
		if (!is_refusal(st->err[i]))
			all_refused = false;
		else
			refused = st->err[i];
		switch (table[cfg->ids[i]].fallback) {
		case PP_CPU_FB_CSW:
		case PP_CPU_FB_FLT:
		case PP_CPU_FB_MINFLT:
		case PP_CPU_FB_MAJFLT:
			st->rusage_mask |= 1u << i;
			st->fallback[i] = table[cfg->ids[i]].fallback;
			break;
		default:
			break;
		}
	}
	if (!any && cfg->n && all_refused && refused) {
		__atomic_store_n(&g_refused_errno, refused, __ATOMIC_RELAXED);
		__atomic_store_n(&g_mode, MODE_REFUSED, __ATOMIC_RELAXED);
	} else if (any) {
		__atomic_store_n(&g_mode, user_only ? MODE_USER_ONLY : MODE_KERNEL_OK, __ATOMIC_RELAXED);
	}
	st->watch_trial = watch_eligible(st);
}

void pp_cpu_counters_perf_close_thread(struct pp_cpu_thread *st)
{
	for (int g = 0; g < PP_CPU_GROUPS; g++) {
		struct pp_cpu_group *grp = &st->group[g];
		/* Members before the leader: closing a leader first would promote each member to a
		 * singleton group of its own, for nothing. */
		for (unsigned k = grp->n; k-- > 0;) {
			if (grp->page[k])
				munmap(grp->page[k], st->page_size);
			close(grp->fd[k]);
		}
		grp->n = 0;
	}
	st->user_read = false;
	if (st->watch) {
		munmap((void *)st->watch, 2 * st->page_size);
		close(st->watch_fd);
		st->watch = NULL;
	}
}

/* The watch is one software event that counts nothing anyone reads: page faults, sampled at
 * every fault (a record of nothing but its header), its ring mapped read-only so that the
 * kernel overwrites its one data page rather than wait for a reader. The kernel updates the
 * event's page each time the thread is scheduled in, and the ring's head at each fault, so a
 * snapshot that finds both where the last getrusage left them knows the thread has neither
 * switched nor faulted since: it reuses that getrusage's counts and extends its CPU time by the
 * wall clock, without a system call (a getrusage 0.36-0.45 us on the 2-core VM). The event
 * costs the thread the perf context switch of one event at each of its switches (0.6-1.7 us
 * there: docs/cpu-counters.md, "The watch"), so a thread gets it only where its trial found
 * snapshots without a switch outnumbering its switches 5 to 2 (snapshot_no_perf).
 * Only where kernel mode may be counted: faults taken inside system calls must write their
 * record too. Faults the kernel takes for the thread without a trap (get_user_pages inside a
 * system call) and those while the event is throttled (a fault storm beyond
 * perf_event_max_sample_rate) write none: they are counted at the thread's next switch or
 * recorded fault, in a later span. */
void pp_cpu_counters_perf_watch_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_PAGE_FAULTS;
	attr->sample_period = 1;
}

void pp_cpu_counters_perf_open_watch(struct pp_cpu_thread *st)
{
	struct perf_event_attr attr;
	pp_cpu_counters_perf_watch_attr(&attr);
	pp_cpu_perf_open_fn fn = __atomic_load_n(&g_perf_open, __ATOMIC_RELAXED);
	long fd = fn(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		pp_log(PP_LOG_DEBUG, "cpu counters: thread %u: no watch (perf_event_open: %s); getrusage at every "
				     "snapshot", st->tid, strerror(errno));
		return;
	}
	void *p = mmap(NULL, 2 * st->page_size, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (p == MAP_FAILED) {
		pp_log(PP_LOG_DEBUG, "cpu counters: thread %u: no watch (mmap: %s); getrusage at every snapshot",
		       st->tid, strerror(errno));
		close((int)fd);
		return;
	}
	st->watch = p;
	st->watch_fd = (int)fd;
}

/* ---- user-space reads ---- */

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t read_pmc(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | ((uint64_t)hi << 32);
}

static inline uint64_t read_cycles(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | ((uint64_t)hi << 32);
}
#elif defined(__aarch64__)
/* The kernel's index is the PMUv3 counter number + 1, with the cycle counter remapped to 32 so
 * that index - 1 == 31 selects PMCCNTR_EL0. The mrs operand is part of the instruction, hence
 * one case per register. */
#define PP_PMEV(n)                                                         \
	case n:                                                            \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		return v
static inline uint64_t read_pmc(uint32_t counter)
{
	uint64_t v = 0;
	switch (counter) {
		PP_PMEV(0); PP_PMEV(1); PP_PMEV(2); PP_PMEV(3); PP_PMEV(4); PP_PMEV(5);
		PP_PMEV(6); PP_PMEV(7); PP_PMEV(8); PP_PMEV(9); PP_PMEV(10); PP_PMEV(11);
		PP_PMEV(12); PP_PMEV(13); PP_PMEV(14); PP_PMEV(15); PP_PMEV(16); PP_PMEV(17);
		PP_PMEV(18); PP_PMEV(19); PP_PMEV(20); PP_PMEV(21); PP_PMEV(22); PP_PMEV(23);
		PP_PMEV(24); PP_PMEV(25); PP_PMEV(26); PP_PMEV(27); PP_PMEV(28); PP_PMEV(29);
		PP_PMEV(30);
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
	default:
		return 0;
	}
}
#undef PP_PMEV

static inline uint64_t read_cycles(void)
{
	uint64_t v;
	/* isb: without it the counter read may be speculated ahead of the seqlock's first load */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#endif

#define compiler_barrier() __asm__ volatile("" : : : "memory")

bool pp_cpu_counters_perf_group_read_user(const struct pp_cpu_group *g, uint64_t *enabled, uint64_t *running,
			    uint64_t *value)
{
#if PP_CPU_HAVE_USER_READ
	uint64_t counts[PP_CPU_MAX_EVENTS];
	uint64_t en = 0, run = 0;

	if (!g->n || !g->page[0])
		return false;
	/* The protocol of include/uapi/linux/perf_event.h: the kernel bumps lock around every
	 * update of the page (at least on each context switch of this thread); a count read
	 * between two equal lock values is consistent even if the thread migrated meanwhile. */
	for (unsigned k = 0; k < g->n; k++) {
		volatile struct perf_event_mmap_page *pc = g->page[k];
		uint32_t seq, idx, width = 0, shift = 0, mult = 0;
		uint64_t count, cyc = 0, time_offset = 0, time_cycles = 0, time_mask = 0;
		int64_t pmc = 0;
		bool cap_time = false, cap_short = false;
		unsigned tries = 0;

		do {
			if (++tries > 64)
				return false; /* kernel updating the page continuously: let read(2) wait */
			seq = pc->lock;
			compiler_barrier();
			idx = pc->index;
			if (!pc->cap_user_rdpmc || !idx)
				return false; /* not on the PMU now (multiplexed out) or no access */
			count = pc->offset;
			width = pc->pmc_width;
			pmc = (int64_t)read_pmc(idx - 1);
			if (k == 0) {
				en = pc->time_enabled;
				run = pc->time_running;
				cap_time = pc->cap_user_time;
				cap_short = pc->cap_user_time_short;
				if (cap_time) {
					cyc = read_cycles();
					time_offset = pc->time_offset;
					mult = pc->time_mult;
					shift = pc->time_shift;
					time_cycles = pc->time_cycles;
					time_mask = pc->time_mask;
				}
			}
			compiler_barrier();
		} while (pc->lock != seq);

		if (width == 0 || width > 64)
			return false;
		counts[k] = pp_cpu_counters_perf_pmc_count(count, (uint64_t)pmc, width);

		if (k == 0) {
			/* Without the time conversion we could not tell whether the group was
			 * multiplexed between two snapshots. The kernel keeps time_shift <= 31 so
			 * that rem * mult cannot overflow. */
			if (!cap_time || shift > 31)
				return false;
			uint64_t delta = pp_cpu_counters_perf_time_delta(cyc, time_offset, mult, shift, cap_short,
								time_cycles, time_mask);
			en += delta;
			run += delta; /* idx != 0: the group is running now */
		}
	}
	*enabled = en;
	*running = run;
	for (unsigned k = 0; k < g->n; k++)
		value[g->slot[k]] = counts[k];
	return true;
#else
	(void)g;
	(void)enabled;
	(void)running;
	(void)value;
	return false;
#endif
}

/* ---- the fallback log line ---- */

static const char *errno_name(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	default: return "errno";
	}
}

static const char *errno_hint(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return "not permitted: perf_event_paranoid, a container or a seccomp filter";
	case ENOSYS:
		return "no perf_event_open: kernel without perf events, or a seccomp filter";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "no such event on this CPU or kernel; virtual machines often have no PMU";
	case EINVAL:
		return "rejected, e.g. more hardware events than the PMU has counters";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	default:
		return NULL;
	}
}

static int read_paranoid(void)
{
	char buf[16] = { 0 };
	int v = -100;
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return v;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, "%d", &v);
	close(fd);
	return v;
}

struct line {
	char buf[1000]; /* pp_log's line is 1024 with its prefix */
	size_t used;
};

__attribute__((format(printf, 2, 3))) static void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	if (l->used >= sizeof(l->buf))
		return;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->used, sizeof(l->buf) - l->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->used += (size_t)n;
}

static void line_add_names(struct line *l, const struct pp_cpu_config *cfg, uint32_t mask)
{
	unsigned count;
	const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(&count);
	bool first = true;
	for (unsigned i = 0; i < cfg->n; i++) {
		if (mask & (1u << i)) {
			line_add(l, "%s%s", first ? "" : ", ", table[cfg->ids[i]].name);
			first = false;
		}
	}
}

static void line_sep(struct line *l, bool *first)
{
	if (!*first)
		line_add(l, "; ");
	*first = false;
}

void pp_cpu_counters_perf_log_fallback(const struct pp_cpu_config *cfg, const struct pp_cpu_thread *st)
{
	struct line l = { .used = 0 };
	uint32_t done = 0, not_measured = 0, kernel_only = 0;
	int paranoid = read_paranoid();
	char para[48] = "perf_event_paranoid unreadable";
	bool first = true;

	if (paranoid != -100)
		snprintf(para, sizeof(para), "perf_event_paranoid=%d", paranoid);
	l.buf[0] = '\0';
	line_add(&l, "cpu counters: ");
	/* One clause per errno, naming its events. */
	for (unsigned i = 0; i < cfg->n; i++) {
		int e = st->err[i];
		if (!e || (done & (1u << i)))
			continue;
		uint32_t same = 0;
		for (unsigned j = i; j < cfg->n; j++) {
			if (st->err[j] == e)
				same |= 1u << j;
		}
		done |= same;
		if (e == PP_CPU_ERR_KERNEL_ONLY) {
			kernel_only |= same;
			continue;
		}
		if (e == PP_CPU_ERR_NO_PMU) {
			line_sep(&l, &first);
			line_add_names(&l, cfg, same);
			line_add(&l, ": no perf event without hardware counters (each would slow the "
				     "thread's context switches)");
			const struct pp_cpu_event_desc *table = pp_cpu_counters_events_table(NULL);
			uint32_t only_perf = 0;
			for (uint32_t m = same; m; m &= m - 1) {
				unsigned j = (unsigned)__builtin_ctz(m);
				if (table[cfg->ids[j]].fallback == PP_CPU_FB_NONE)
					only_perf |= 1u << j;
			}
			if (only_perf) {
				line_add(&l, ", name ");
				line_add_names(&l, cfg, only_perf);
				line_add(&l, " in cpu_counters to count it with perf anyway");
			}
			continue;
		}
		char msg[128];
		const char *hint = errno_hint(e);
		line_sep(&l, &first);
		line_add_names(&l, cfg, same);
		line_add(&l, ": perf_event_open failed (%s: %s%s%s)", errno_name(e),
			 strerror_r(e, msg, sizeof(msg)), hint ? "; " : "", hint ? hint : "");
	}
	line_sep(&l, &first);
	if (st->flags & PP_CPU_FLAG_USER_ONLY) {
		line_add(&l, "counting user mode only (%s refuses kernel-mode counting)", para);
		if (kernel_only) {
			line_add(&l, "; ");
			line_add_names(&l, cfg, kernel_only);
			line_add(&l, " happen in kernel mode");
		}
	} else {
		line_add(&l, "%s", para);
	}
	if (st->cpu_time_mask && st->cpu_group < 0) {
		line_sep(&l, &first);
		line_add_names(&l, cfg, st->cpu_time_mask);
		line_add(&l, " from CLOCK_THREAD_CPUTIME_ID");
	}
	if (st->rusage_mask) {
		line_sep(&l, &first);
		line_add_names(&l, cfg, st->rusage_mask);
		line_add(&l, " from getrusage(RUSAGE_THREAD)");
	}
	for (unsigned i = 0; i < cfg->n; i++) {
		if (st->err[i] && !(st->rusage_mask & (1u << i)))
			not_measured |= 1u << i;
	}
	if (not_measured) {
		line_sep(&l, &first);
		line_add(&l, "not measured: ");
		line_add_names(&l, cfg, not_measured);
	}
	pp_log(PP_LOG_WARN, "%s", l.buf);
}
