/* The events the backend knows, and the parser of the cpu_counters setting. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cpu_counters_internal.h"

enum {
	EV_CYCLES,
	EV_INSTRUCTIONS,
	EV_CACHE_REFERENCES,
	EV_CACHE_MISSES,
	EV_BRANCHES,
	EV_BRANCH_MISSES,
	EV_BUS_CYCLES,
	EV_REF_CYCLES,
	EV_STALLED_FRONTEND,
	EV_STALLED_BACKEND,
	EV_TASK_CLOCK,
	EV_CPU_CLOCK,
	EV_CONTEXT_SWITCHES,
	EV_CPU_MIGRATIONS,
	EV_PAGE_FAULTS,
	EV_MINOR_FAULTS,
	EV_MAJOR_FAULTS,
	EV_ALIGNMENT_FAULTS,
	EV_EMULATION_FAULTS,
	EV_COUNT
};

#define HW(n, a, c) { n, a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, true, PP_CPU_FB_NONE }
#define SW(n, a, c, user_ok, fb) { n, a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, user_ok, fb }

/* Order is the enum's; names are perf list's so that users can copy them from perf. */
static const struct pp_cpu_event_desc g_events[EV_COUNT] = {
	[EV_CYCLES] = HW("cycles", "cpu-cycles", CPU_CYCLES),
	[EV_INSTRUCTIONS] = HW("instructions", NULL, INSTRUCTIONS),
	[EV_CACHE_REFERENCES] = HW("cache-references", NULL, CACHE_REFERENCES),
	[EV_CACHE_MISSES] = HW("cache-misses", NULL, CACHE_MISSES),
	[EV_BRANCHES] = HW("branches", "branch-instructions", BRANCH_INSTRUCTIONS),
	[EV_BRANCH_MISSES] = HW("branch-misses", NULL, BRANCH_MISSES),
	[EV_BUS_CYCLES] = HW("bus-cycles", NULL, BUS_CYCLES),
	[EV_REF_CYCLES] = HW("ref-cycles", NULL, REF_CPU_CYCLES),
	[EV_STALLED_FRONTEND] = HW("stalled-cycles-frontend", "idle-cycles-frontend",
				   STALLED_CYCLES_FRONTEND),
	[EV_STALLED_BACKEND] = HW("stalled-cycles-backend", "idle-cycles-backend",
				  STALLED_CYCLES_BACKEND),
	[EV_TASK_CLOCK] = SW("task-clock", NULL, TASK_CLOCK, true, PP_CPU_FB_CPU_TIME),
	[EV_CPU_CLOCK] = SW("cpu-clock", NULL, CPU_CLOCK, true, PP_CPU_FB_CPU_TIME),
	[EV_CONTEXT_SWITCHES] = SW("context-switches", "cs", CONTEXT_SWITCHES, false, PP_CPU_FB_CSW),
	[EV_CPU_MIGRATIONS] = SW("cpu-migrations", "migrations", CPU_MIGRATIONS, false, PP_CPU_FB_NONE),
	[EV_PAGE_FAULTS] = SW("page-faults", "faults", PAGE_FAULTS, false, PP_CPU_FB_FLT),
	[EV_MINOR_FAULTS] = SW("minor-faults", NULL, PAGE_FAULTS_MIN, false, PP_CPU_FB_MINFLT),
	[EV_MAJOR_FAULTS] = SW("major-faults", NULL, PAGE_FAULTS_MAJ, false, PP_CPU_FB_MAJFLT),
	[EV_ALIGNMENT_FAULTS] = SW("alignment-faults", NULL, ALIGNMENT_FAULTS, true, PP_CPU_FB_NONE),
	[EV_EMULATION_FAULTS] = SW("emulation-faults", NULL, EMULATION_FAULTS, true, PP_CPU_FB_NONE),
};

/* Four hardware events fit the smallest common PMUs (4 general counters, one of them possibly
 * taken by the NMI watchdog on some machines) without multiplexing. */
static const uint8_t g_default_ids[] = {
	EV_CYCLES,     EV_INSTRUCTIONS,     EV_CACHE_MISSES, EV_BRANCH_MISSES,
	EV_TASK_CLOCK, EV_CONTEXT_SWITCHES, EV_PAGE_FAULTS,  EV_CPU_MIGRATIONS,
};

_Static_assert(EV_COUNT < 256, "event ids are stored in uint8_t");
_Static_assert(PP_CPU_MAX_EVENTS <= 32, "masks are uint32_t");
_Static_assert(sizeof(g_default_ids) <= PP_CPU_MAX_EVENTS, "default list fits");

const struct pp_cpu_event_desc *pp_cpu_counters_events_table(unsigned *count)
{
	if (count)
		*count = EV_COUNT;
	return g_events;
}

void pp_cpu_counters_events_config_default(struct pp_cpu_config *out)
{
	memset(out, 0, sizeof(*out));
	out->n = sizeof(g_default_ids);
	memcpy(out->ids, g_default_ids, sizeof(g_default_ids));
}

static int event_lookup(const char *s, size_t len)
{
	for (unsigned i = 0; i < EV_COUNT; i++) {
		const char *names[2] = { g_events[i].name, g_events[i].alias };
		for (int k = 0; k < 2; k++) {
			if (names[k] && strlen(names[k]) == len && strncasecmp(names[k], s, len) == 0)
				return (int)i;
		}
	}
	return -1;
}

/* "cycles, instructions, ..." for messages. */
static void format_valid_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < EV_COUNT && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", g_events[i].name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int parse_error(char *err, size_t err_len, const char *what)
{
	char names[512];

	if (!err || !err_len)
		return -EINVAL;
	format_valid_names(names, sizeof(names));
	/* The problem comes first, so that a short err buffer keeps it. */
	snprintf(err, err_len,
		 "cpu_counters: %s; expected default, none, or a comma-separated list of: %s", what,
		 names);
	return -EINVAL;
}

static bool config_add(struct pp_cpu_config *cfg, uint8_t id, unsigned *wanted, bool named)
{
	for (unsigned i = 0; i < cfg->n; i++) {
		if (cfg->ids[i] == id) {
			/* duplicates (also through aliases or "default") count once */
			if (named)
				cfg->named |= 1u << i;
			return true;
		}
	}
	(*wanted)++;
	if (cfg->n >= PP_CPU_MAX_EVENTS)
		return false;
	if (named)
		cfg->named |= 1u << cfg->n;
	cfg->ids[cfg->n++] = id;
	return true;
}

int pp_cpu_counters_events_config_parse(const char *spec, struct pp_cpu_config *out, char *err, size_t err_len)
{
	struct pp_cpu_config cfg = { 0 };
	unsigned wanted = 0;
	bool none = false, any = false;
	const char *p = spec;

	if (err && err_len)
		err[0] = '\0';
	if (!spec) {
		pp_cpu_counters_events_config_default(out);
		return 0;
	}
	while (*p) {
		const char *start = p;
		while (*p && *p != ',')
			p++;
		const char *end = p;
		if (*p == ',')
			p++;
		while (start < end && isspace((unsigned char)*start))
			start++;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		size_t len = (size_t)(end - start);
		if (!len)
			continue; /* "a,,b" and a trailing comma are harmless */
		any = true;
		if (len == 4 && strncasecmp(start, "none", 4) == 0) {
			none = true;
			continue;
		}
		if (len == 7 && strncasecmp(start, "default", 7) == 0) {
			for (size_t i = 0; i < sizeof(g_default_ids); i++)
				config_add(&cfg, g_default_ids[i], &wanted, false);
			continue;
		}
		int id = event_lookup(start, len);
		if (id < 0) {
			char what[128];
			snprintf(what, sizeof(what), "unknown event '%.*s'", (int)(len > 64 ? 64 : len),
				 start);
			return parse_error(err, err_len, what);
		}
		config_add(&cfg, (uint8_t)id, &wanted, true);
	}
	if (!any)
		return parse_error(err, err_len, "empty value");
	if (none && wanted)
		return parse_error(err, err_len, "'none' cannot be combined with event names");
	if (wanted > PP_CPU_MAX_EVENTS) {
		char what[64];
		snprintf(what, sizeof(what), "%u distinct events given, at most %d", wanted,
			 PP_CPU_MAX_EVENTS);
		return parse_error(err, err_len, what);
	}
	*out = cfg;
	return 0;
}
