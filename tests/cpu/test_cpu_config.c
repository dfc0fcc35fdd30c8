/* The cpu_counters setting and the delta arithmetic, without touching perf. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_counters_internal.h"
#include "cpu_test.h"
#include "pp_cpu_counters.h"

static void test_configure(void)
{
	char err[1024];

	/* Without configure: the default list. */
	CHECK(pp_cpu_counters_snapshot_event_count() == 8, "%u", pp_cpu_counters_snapshot_event_count());
	CHECK(pp_cpu_counters_snapshot_event_name(0) && strcmp(pp_cpu_counters_snapshot_event_name(0), "cycles") == 0);
	CHECK(pp_cpu_counters_snapshot_event_index("task-clock") >= 0);

	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0, "%s", err);
	CHECK(pp_cpu_counters_snapshot_event_count() == 8);
	CHECK(pp_cpu_counters_snapshot_configure(NULL, err, sizeof(err)) == 0);
	CHECK(pp_cpu_counters_snapshot_event_count() == 8);

	CHECK(pp_cpu_counters_snapshot_configure("none", err, sizeof(err)) == 0);
	CHECK(pp_cpu_counters_snapshot_event_count() == 0);
	CHECK(pp_cpu_counters_snapshot_event_name(0) == NULL);
	CHECK(pp_cpu_counters_snapshot_configure(" NONE ", err, sizeof(err)) == 0);
	CHECK(pp_cpu_counters_snapshot_event_count() == 0);

	/* Lists keep their order; whitespace, empty entries, case and duplicates are tolerated. */
	CHECK(pp_cpu_counters_snapshot_configure("  instructions ,\tcycles ,, task-clock,", err,
					sizeof(err)) == 0, "%s", err);
	CHECK(pp_cpu_counters_snapshot_event_count() == 3);
	CHECK(strcmp(pp_cpu_counters_snapshot_event_name(0), "instructions") == 0);
	CHECK(strcmp(pp_cpu_counters_snapshot_event_name(1), "cycles") == 0);
	CHECK(strcmp(pp_cpu_counters_snapshot_event_name(2), "task-clock") == 0);
	CHECK(pp_cpu_counters_snapshot_event_name(3) == NULL);

	CHECK(pp_cpu_counters_snapshot_configure("cs,context-switches,CS,page-faults,faults", err,
					sizeof(err)) == 0);
	CHECK(pp_cpu_counters_snapshot_event_count() == 2, "aliases and duplicates count once: %u", pp_cpu_counters_snapshot_event_count());
	CHECK(pp_cpu_counters_snapshot_event_index("cs") == 0 && pp_cpu_counters_snapshot_event_index("context-switches") == 0);
	CHECK(pp_cpu_counters_snapshot_event_index("faults") == 1);
	CHECK(pp_cpu_counters_snapshot_event_index("cycles") == -ENOENT);
	CHECK(pp_cpu_counters_snapshot_event_index(NULL) == -ENOENT);

	CHECK(pp_cpu_counters_snapshot_configure("default, cache-references, cycles", err, sizeof(err)) == 0);
	CHECK(pp_cpu_counters_snapshot_event_count() == 9);
	CHECK(strcmp(pp_cpu_counters_snapshot_event_name(8), "cache-references") == 0);

	/* Errors leave the configuration as it was and name the valid events. */
	CHECK(pp_cpu_counters_snapshot_configure("cycles,bogus-event,instructions", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bogus-event") != NULL, "%s", err);
	CHECK(strstr(err, "cycles") && strstr(err, "instructions") && strstr(err, "task-clock") &&
	      strstr(err, "context-switches") && strstr(err, "cpu-migrations") &&
	      strstr(err, "page-faults") && strstr(err, "cache-misses") && strstr(err, "branch-misses"),
	      "%s", err);
	CHECK(strstr(err, "default") && strstr(err, "none"), "%s", err);
	CHECK(pp_cpu_counters_snapshot_event_count() == 9, "unchanged after an error");

	CHECK(pp_cpu_counters_snapshot_configure("", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "empty"), "%s", err);
	CHECK(pp_cpu_counters_snapshot_configure(" , ,", err, sizeof(err)) == -EINVAL);
	CHECK(pp_cpu_counters_snapshot_configure("none,cycles", err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "none"), "%s", err);
	CHECK(pp_cpu_counters_snapshot_configure("cyc les", err, sizeof(err)) == -EINVAL);
	CHECK(pp_cpu_counters_snapshot_configure("cycles;instructions", err, sizeof(err)) == -EINVAL);

	/* Too many: 17 distinct events. 16 fit. */
	const char *seventeen =
		"cycles,instructions,cache-references,cache-misses,branches,branch-misses,"
		"bus-cycles,ref-cycles,stalled-cycles-frontend,stalled-cycles-backend,task-clock,"
		"cpu-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults";
	CHECK(pp_cpu_counters_snapshot_configure(seventeen, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "17") && strstr(err, "16"), "%s", err);
	const char *sixteen =
		"cycles,instructions,cache-references,cache-misses,branches,branch-misses,"
		"bus-cycles,ref-cycles,stalled-cycles-frontend,stalled-cycles-backend,task-clock,"
		"cpu-clock,context-switches,cpu-migrations,page-faults,minor-faults,cycles";
	CHECK(pp_cpu_counters_snapshot_configure(sixteen, err, sizeof(err)) == 0, "%s", err);
	CHECK(pp_cpu_counters_snapshot_event_count() == 16);

	/* Message buffers: NULL is fine, a short one is truncated and terminated. */
	CHECK(pp_cpu_counters_snapshot_configure("nope", NULL, 0) == -EINVAL);
	char small[24];
	memset(small, 'x', sizeof(small));
	CHECK(pp_cpu_counters_snapshot_configure("nope", small, sizeof(small)) == -EINVAL);
	CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	CHECK(strncmp(small, "cpu_counters: unknown", 21) == 0, "%s", small);

	/* Every table name parses, alone. */
	unsigned n;
	const struct pp_cpu_event_desc *t = pp_cpu_counters_events_table(&n);
	for (unsigned i = 0; i < n; i++) {
		struct pp_cpu_config c;
		CHECK(pp_cpu_counters_events_config_parse(t[i].name, &c, err, sizeof(err)) == 0 && c.n == 1 &&
		      c.ids[0] == i, "%s", t[i].name);
		if (t[i].alias)
			CHECK(pp_cpu_counters_events_config_parse(t[i].alias, &c, err, sizeof(err)) == 0 && c.n == 1 &&
			      c.ids[0] == i, "%s", t[i].alias);
	}
	CHECK(pp_cpu_counters_snapshot_configure("default", err, sizeof(err)) == 0);
}

static void test_delta(void)
{
	struct pp_cpu_snapshot a, b;
	struct pp_cpu_delta d;

	memset(&a, 0, sizeof(a));
	a.wall_ns = 1000;
	a.thread_cpu_ns = 500;
	a.tid = 7;
	a.session = 3;
	a.valid = 0x7;   /* 0: hw, 1: sw, 2: fallback */
	a.hw_mask = 0x1;
	a.sw_mask = 0x2;
	a.value[0] = 100;
	a.value[1] = 10;
	a.value[2] = 4;
	a.hw_time_enabled = 1000;
	a.hw_time_running = 1000;
	a.sw_time_enabled = 1000;
	a.sw_time_running = 1000;
	b = a;
	b.wall_ns = 3000;
	b.thread_cpu_ns = 1500;
	b.value[0] = 300;
	b.value[1] = 30;
	b.value[2] = 9;
	b.hw_time_enabled = 3000;
	b.hw_time_running = 2000; /* on the PMU half of the interval */
	b.sw_time_enabled = 3000;
	b.sw_time_running = 3000;

	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(d.wall_ns == 2000 && d.thread_cpu_ns == 1000);
	CHECK(d.valid == 0x7, "%x", d.valid);
	CHECK(d.value[0] == 400, "scaled 200 * 2000/1000: %llu", (unsigned long long)d.value[0]);
	CHECK(d.scaled == 0x1, "%x", d.scaled);
	CHECK(d.value[1] == 20 && d.value[2] == 5);
	CHECK(!(d.flags & PP_CPU_FLAG_MISMATCH));

	/* Never on the PMU during the interval: unknown, not 0. */
	b.hw_time_running = a.hw_time_running;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(!(d.valid & 0x1) && (d.valid & 0x6) == 0x6);

	/* A value measured in only one snapshot, or going backwards, is not valid. */
	b.hw_time_running = 3000;
	b.valid = 0x5;
	b.value[2] = 3;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(d.valid == 0x1, "%x", d.valid);
	CHECK(d.scaled == 0);

	/* Other thread: only wall time. */
	b = a;
	b.tid = 8;
	b.wall_ns = 2000;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK((d.flags & PP_CPU_FLAG_MISMATCH) && d.valid == 0 && d.thread_cpu_ns == 0 && d.wall_ns == 1000);

	/* Same thread, reopened counters: CPU time yes, counter values no. */
	b = a;
	b.session = 4;
	b.wall_ns = 2000;
	b.thread_cpu_ns = 900;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK((d.flags & PP_CPU_FLAG_MISMATCH) && d.valid == 0 && d.thread_cpu_ns == 400);

	/* More CPU time than wall time (two clocks read apart at each end): at most the wall's. */
	b = a;
	b.wall_ns = 1300;
	b.thread_cpu_ns = 850;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(d.wall_ns == 300 && d.thread_cpu_ns == 300, "%llu ns of CPU over %llu", (unsigned long long)d.thread_cpu_ns,
	      (unsigned long long)d.wall_ns);

	/* A value from perf in one snapshot and from a fallback in the other: no common zero. */
	b = a;
	b.value[0] = 300;
	b.hw_mask = 0;
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(!(d.valid & 0x1) && (d.valid & 0x6) == 0x6, "%x", d.valid);

	/* No perf group in either (most virtual machines): the values both hold subtract, one
	 * going backwards is unknown, and every value not valid is 0 whatever out held. */
	b = a;
	a.hw_mask = a.sw_mask = b.hw_mask = b.sw_mask = 0;
	b.value[0] = 150;
	b.value[1] = 5;
	b.value[2] = 4;
	memset(d.value, 0x5a, sizeof(d.value));
	pp_cpu_counters_snapshot_delta(&a, &b, &d);
	CHECK(d.valid == 0x5 && d.scaled == 0 && d.value[0] == 50 && d.value[2] == 0, "%x", d.valid);
	CHECK(d.value[1] == 0 && d.value[3] == 0 && d.value[PP_CPU_MAX_EVENTS - 1] == 0, "values not valid are 0");

	/* NULLs are ignored. */
	pp_cpu_counters_snapshot_delta(NULL, &b, &d);
	CHECK(d.valid == 0 && d.wall_ns == 0);
	pp_cpu_counters_snapshot_delta(&a, &b, NULL);
	pp_cpu_counters_snapshot_take(NULL);
}

/* The user-space read cannot run on a machine without a PMU, so its arithmetic and its
 * refusals are checked here against hand-made pages. */
static void test_user_read_math(void)
{
	/* 48-bit counter that wrapped: raw 0xFFFFFFFFFF00 is -256 */
	CHECK(pp_cpu_counters_perf_pmc_count(1000, 0xFFFFFFFFFF00ull, 48) == 744);
	CHECK(pp_cpu_counters_perf_pmc_count(1000, 0x10, 48) == 1016);
	/* upper bits the hardware does not have are ignored */
	CHECK(pp_cpu_counters_perf_pmc_count(0, 0xABCD000000000010ull, 48) == 0x10);
	CHECK(pp_cpu_counters_perf_pmc_count(5, 7, 64) == 12);
	CHECK(pp_cpu_counters_perf_pmc_count(0, 0xFFFFFFFFull, 32) == UINT64_MAX); /* -1 */

	/* mult / 2^shift is ns per cycle: 1024/1024 = 1, 512/1024 = 0.5 */
	CHECK(pp_cpu_counters_perf_time_delta(5000, 100, 1024, 10, false, 0, 0) == 5100);
	CHECK(pp_cpu_counters_perf_time_delta(5000, 0, 512, 10, false, 0, 0) == 2500);
	CHECK(pp_cpu_counters_perf_time_delta(3, 0, 512, 10, false, 0, 0) == 1); /* remainder kept */
	/* time_offset is negative in practice (page update time minus its cycles) */
	CHECK(pp_cpu_counters_perf_time_delta(10000, (uint64_t)-9000, 1024, 10, false, 0, 0) == 1000);
	/* cap_user_time_short: only the low bits of cyc past time_cycles count */
	CHECK(pp_cpu_counters_perf_time_delta(1000 + 0x1234, 0, 1, 0, true, 1000, 0xFF) == 1000 + 0x34);
	/* large cycle values, shift 31: no overflow in the split multiply */
	uint64_t cyc = 1ull << 50;
	CHECK(pp_cpu_counters_perf_time_delta(cyc, 0, 1u << 31, 31, false, 0, 0) == cyc);

	/* Pages that do not allow the read make it refuse, so that read(2) is used. */
	struct perf_event_mmap_page *page = calloc(1, sizeof(*page));
	struct pp_cpu_group g;
	uint64_t en = 1, run = 1, value[PP_CPU_MAX_EVENTS] = { 0 };
	memset(&g, 0, sizeof(g));
	g.n = 1;
	g.fd[0] = -1;
	g.page[0] = page;
	CHECK(page != NULL);
	if (!page)
		return;
	page->cap_user_rdpmc = 0;
	page->index = 1;
	CHECK(!pp_cpu_counters_perf_group_read_user(&g, &en, &run, value), "no cap_user_rdpmc");
	page->cap_user_rdpmc = 1;
	page->index = 0;
	CHECK(!pp_cpu_counters_perf_group_read_user(&g, &en, &run, value), "index 0: not on the PMU now");
	CHECK(en == 1 && run == 1 && value[0] == 0, "outputs untouched on refusal");
	g.page[0] = NULL;
	CHECK(!pp_cpu_counters_perf_group_read_user(&g, &en, &run, value), "unmapped");
	free(page);
}

int main(void)
{
	test_configure();
	test_delta();
	test_user_read_math();
	pp_cpu_counters_snapshot_shutdown();
	return check_finish();
}
