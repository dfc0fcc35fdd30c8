/* integ_check: reads the outputs passprobe wrote for one pp_testapp run and checks them
 * against the work the scenario is known to have done (docs/testing-integration.md).
 *
 *   integ_check CHECK DIR [--key value ...]
 *
 * CHECK is a scenario (counts, load, resubmit, secondary, suspend-resume, free-pending,
 * compute-transfer, multi-submit), or trace, csv; spy checks the spy layers' JSON lines;
 * shape checks the per-frame passes of a real program (tests/thirdparty).
 * Every report check also runs the structural checks that hold for any report (frames,
 * submissions, pass intervals inside submission intervals, exclusive times).
 * Prints one line per failed assertion; exit 0 when all hold, 1 otherwise, 2 on usage. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"

#define MAX_FAILS_PRINTED 40

typedef struct pp_json_value jv;

static int failures;
static const char *check_name = "?";

static __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	failures++;
	if (failures > MAX_FAILS_PRINTED) {
		if (failures == MAX_FAILS_PRINTED + 1)
			printf("FAIL [%s]: ... (further failures not printed)\n", check_name);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL [%s]: ", check_name);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

/* ---- options ---------------------------------------------------------------------------- */

struct options {
	const char *dir;
	uint64_t frames, passes, draws, vertices, instances, times, d1, d2, size;
	const char *naming;     /* label | object | none */
	const char *api;        /* pass api expected */
	const char *submit_api; /* submission api expected */
	uint64_t loads[16];
	uint32_t nloads;
	double min_factor, max_factor;
	uint64_t skip_frames;
	const char *above, *below; /* spy outputs */
	bool span_label;           /* multi-submit --span-label: the middle pass is "outer" */
	uint64_t submissions;      /* frames: submissions per frame */
	/* shape (real programs): the passes every checked frame holds, in order, each a
	 * comma-separated list of field=value; frames from skip_frames to nframes - skip_last. */
	const char *pass_specs[16];
	uint32_t npass_specs;
	uint64_t min_frames, skip_last;
	double measured_percent; /* share of checked passes that must have a GPU time */
	const char *early;       /* state-before-pipeline: pp_testapp's --early */
	/* shape: passes another layer recorded (recorded_by) are not the application's and not
	 * in its shape; --recorded-by LIB: at least one checked frame has one of LIB's (a layer
	 * that draws its own, e.g. an overlay); --recorded-by none: no frame has any. */
	const char *recorded_by;
};

/* Real programs submit work without command buffers (a semaphore or fence signal alone, as
 * vkd3d does every frame); pp_testapp never does, so only the shape check allows it. */
static bool allow_empty_submissions;

/* What closes every frame (--delimiter; report_load checks it; the trace and csv checks,
 * which are about their files, check it only when given). */
static const char *expected_delimiter = "fence";
/* How the device's query results were read (--query-results copied|read; report_load checks
 * it when given): the copy_results setting's choice for the device. */
static const char *expected_query_results;
/* --no-diagnostics yes: report.json's diagnostics must be empty (report_load checks it). */
static bool expect_no_diagnostics;
/* --absent-diagnostics ID[,ID...]: none of report.json's diagnostics has one of these ids. */
static const char *absent_diagnostics;
/* --findings SPEC|...|SPEC or none: report.json's diagnostics are exactly these (a real
 * program's pinned findings, docs/diagnostics.md "On real programs"): each SPEC is
 * ID:SEVERITY[@TEXT], matched by a site with that id and severity whose site text holds TEXT;
 * every diagnostic must match a SPEC and every SPEC a diagnostic. */
static const char *expected_findings;
/* --site-module NAME: every diagnostic's site is "... called from NAME+0x..." or "NAME (...)" */
static const char *expected_site_module;
/* How GPU times were put on the host time line (--time-domain calibrated|estimated;
 * report_load checks it when given): the prefix of the device's time_domain. */
static const char *expected_time_domain;

static uint64_t opt_uint(const char *key, const char *v)
{
	char *end = NULL;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || !*v || *end) {
		fprintf(stderr, "integ_check: %s %s: not an integer\n", key, v);
		exit(2);
	}
	return x;
}

static double opt_double(const char *key, const char *v)
{
	char *end = NULL;
	double x = strtod(v, &end);
	if (!*v || *end || !(x > 0)) {
		fprintf(stderr, "integ_check: %s %s: not a positive number\n", key, v);
		exit(2);
	}
	return x;
}

static void options_parse(struct options *o, int argc, char **argv)
{
	*o = (struct options){
		.frames = 0, .passes = 3, .draws = 5, .vertices = 3, .instances = 1, .times = 4,
		.d1 = 3, .d2 = 4, .size = 64, .naming = "label", .api = "vkCmdBeginRenderPass",
		.submit_api = "vkQueueSubmit", .loads = { 1, 4, 16 }, .nloads = 3,
		.min_factor = 0.5, .max_factor = 2.0, .skip_frames = 1,
	};
	for (int i = 0; i < argc; i++) {
		const char *k = argv[i];
		if (i + 1 >= argc) {
			fprintf(stderr, "integ_check: %s: missing value\n", k);
			exit(2);
		}
		const char *v = argv[++i];
		if (!strcmp(k, "--frames"))
			o->frames = opt_uint(k, v);
		else if (!strcmp(k, "--passes"))
			o->passes = opt_uint(k, v);
		else if (!strcmp(k, "--draws"))
			o->draws = opt_uint(k, v);
		else if (!strcmp(k, "--vertices"))
			o->vertices = opt_uint(k, v);
		else if (!strcmp(k, "--instances"))
			o->instances = opt_uint(k, v);
		else if (!strcmp(k, "--times"))
			o->times = opt_uint(k, v);
		else if (!strcmp(k, "--d1"))
			o->d1 = opt_uint(k, v);
		else if (!strcmp(k, "--d2"))
			o->d2 = opt_uint(k, v);
		else if (!strcmp(k, "--size"))
			o->size = opt_uint(k, v);
		else if (!strcmp(k, "--naming"))
			o->naming = v;
		else if (!strcmp(k, "--api"))
			o->api = v;
		else if (!strcmp(k, "--submit-api"))
			o->submit_api = v;
		else if (!strcmp(k, "--min-factor"))
			o->min_factor = opt_double(k, v);
		else if (!strcmp(k, "--max-factor"))
			o->max_factor = opt_double(k, v);
		else if (!strcmp(k, "--skip-frames"))
			o->skip_frames = opt_uint(k, v);
		else if (!strcmp(k, "--span-label"))
			o->span_label = !strcmp(v, "yes");
		else if (!strcmp(k, "--delimiter"))
			expected_delimiter = v;
		else if (!strcmp(k, "--no-diagnostics"))
			expect_no_diagnostics = !strcmp(v, "yes");
		else if (!strcmp(k, "--absent-diagnostics"))
			absent_diagnostics = v;
		else if (!strcmp(k, "--findings"))
			expected_findings = v;
		else if (!strcmp(k, "--site-module"))
			expected_site_module = v;
		else if (!strcmp(k, "--query-results"))
			expected_query_results = !strcmp(v, "copied") ? "copied to host memory on the GPU (copy_results)"
						 : !strcmp(v, "read")  ? "read with vkGetQueryPoolResults"
								       : v;
		else if (!strcmp(k, "--time-domain"))
			expected_time_domain = v;
		else if (!strcmp(k, "--submissions"))
			o->submissions = opt_uint(k, v);
		else if (!strcmp(k, "--min-frames"))
			o->min_frames = opt_uint(k, v);
		else if (!strcmp(k, "--skip-last"))
			o->skip_last = opt_uint(k, v);
		else if (!strcmp(k, "--measured-percent"))
			o->measured_percent = opt_double(k, v);
		else if (!strcmp(k, "--early"))
			o->early = v;
		else if (!strcmp(k, "--pass")) {
			if (o->npass_specs == sizeof(o->pass_specs) / sizeof(o->pass_specs[0])) {
				fprintf(stderr, "integ_check: too many --pass\n");
				exit(2);
			}
			o->pass_specs[o->npass_specs++] = v;
		} else if (!strcmp(k, "--recorded-by"))
			o->recorded_by = v;
		else if (!strcmp(k, "--above"))
			o->above = v;
		else if (!strcmp(k, "--below"))
			o->below = v;
		else if (!strcmp(k, "--loads")) {
			char buf[256];
			snprintf(buf, sizeof(buf), "%s", v);
			o->nloads = 0;
			for (char *s = NULL, *t = strtok_r(buf, ",", &s); t && o->nloads < 16; t = strtok_r(NULL, ",", &s))
				o->loads[o->nloads++] = opt_uint(k, t);
		} else {
			fprintf(stderr, "integ_check: unknown option %s\n", k);
			exit(2);
		}
	}
}

/* ---- JSON helpers ----------------------------------------------------------------------- */

static char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	fclose(f);
	*len = n;
	return buf;
}

static jv *json_load(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	size_t len = 0;
	char *text = file_read(path, &len);
	if (!text) {
		fail("%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	jv *root = NULL;
	char err[256];
	int r = pp_json_read_parse(text, len, NULL, &root, err, sizeof(err));
	free(text);
	if (r) {
		fail("%s: not valid JSON: %s", path, err);
		return NULL;
	}
	return root;
}

static const jv *get(const jv *o, const char *key)
{
	return pp_json_read_object_get(o, key);
}

/* A required unsigned integer member; a failure names `what`. */
static uint64_t u64(const jv *o, const char *key, const char *what)
{
	uint64_t v = 0;
	if (!pp_json_read_get_uint64(get(o, key), &v))
		fail("%s: \"%s\" is not an unsigned integer", what, key);
	return v;
}

/* An optional unsigned integer: false when null or absent. */
static bool u64_opt(const jv *o, const char *key, uint64_t *out)
{
	return pp_json_read_get_uint64(get(o, key), out);
}

static const char *str(const jv *o, const char *key)
{
	const char *s = pp_json_read_get_string(get(o, key), NULL);
	return s ? s : "(missing)";
}

static bool boolean(const jv *o, const char *key, const char *what)
{
	bool b = false;
	if (!pp_json_read_get_bool(get(o, key), &b))
		fail("%s: \"%s\" is not a boolean", what, key);
	return b;
}

static void expect_str(const jv *o, const char *key, const char *want, const char *what)
{
	const char *s = str(o, key);
	if (strcmp(s, want))
		fail("%s: %s is \"%s\", expected \"%s\"", what, key, s, want);
}

static void expect_u64(uint64_t got, uint64_t want, const char *what, const char *field)
{
	if (got != want)
		fail("%s: %s is %" PRIu64 ", expected %" PRIu64, what, field, got, want);
}

static void expect_work(const jv *pass, const char *key, uint64_t want, const char *what)
{
	const jv *w = get(pass, "workload");
	char field[64];
	snprintf(field, sizeof(field), "workload.%s", key);
	uint64_t v = 0;
	if (!pp_json_read_get_uint64(get(w, key), &v))
		fail("%s: %s missing", what, field);
	else
		expect_u64(v, want, what, field);
}

/* ---- structure of any report ------------------------------------------------------------ */

struct report {
	jv *root;
	const jv *frames;
	size_t nframes;
	bool stats_supported;
};

static const jv *frame_at(const struct report *r, size_t i)
{
	return pp_json_read_array_at(r->frames, i);
}

static const jv *pass_at(const jv *frame, size_t i)
{
	return pp_json_read_array_at(get(frame, "passes"), i);
}

static size_t frame_passes(const jv *frame)
{
	return pp_json_read_array_size(get(frame, "passes"));
}

static bool pass_gpu(const jv *pass, uint64_t *begin, uint64_t *end)
{
	uint64_t b, e;
	if (!u64_opt(pass, "gpu_begin_ns", &b) || !u64_opt(pass, "gpu_end_ns", &e))
		return false;
	if (begin)
		*begin = b;
	if (end)
		*end = e;
	return true;
}

/* The pass has a valid GPU time (and says why not otherwise). */
static bool expect_measured(const jv *pass, const char *what)
{
	if (pass_gpu(pass, NULL, NULL))
		return true;
	fail("%s: no GPU time (gpu_unavailable: \"%s\")", what, str(pass, "gpu_unavailable"));
	return false;
}

static void check_submission(const jv *frame, const jv *s, size_t si, size_t *next_pass, uint64_t *frame_exclusive,
			     const char *fwhat)
{
	char what[128];
	snprintf(what, sizeof(what), "%s submission %zu", fwhat, si);
	uint64_t first = u64(s, "first_pass", what), n = u64(s, "passes", what);
	if (first != *next_pass)
		fail("%s: first_pass %" PRIu64 ", expected %zu (submissions tile the passes in order)", what, first,
		     *next_pass);
	*next_pass = first + n;
	if (first + n > frame_passes(frame))
		fail("%s: passes [%" PRIu64 ", %" PRIu64 ") beyond the frame's %zu", what, first, first + n,
		     frame_passes(frame));
	if (u64(s, "command_buffers", what) == 0 && !allow_empty_submissions)
		fail("%s: command_buffers is 0", what);
	uint64_t cb = u64(s, "cpu_begin_ns", what), ce = u64(s, "cpu_end_ns", what);
	if (ce < cb)
		fail("%s: cpu_end_ns before cpu_begin_ns", what);

	uint64_t sb, se, span;
	bool timed = u64_opt(s, "gpu_begin_ns", &sb) && u64_opt(s, "gpu_end_ns", &se);
	if (timed) {
		span = u64(s, "gpu_span_ns", what);
		if (se < sb || span != se - sb)
			fail("%s: gpu_span_ns %" PRIu64 " is not gpu_end_ns - gpu_begin_ns (%" PRIu64 " - %" PRIu64 ")",
			     what, span, se, sb);
		/* GPU work cannot start before it was submitted: the host time line mapping. */
		if (sb < cb)
			fail("%s: GPU begin %" PRIu64 " before the submit call began (%" PRIu64 ")", what, sb, cb);
	}
	uint64_t exclusive_sum = 0;
	bool any = false;
	for (uint64_t p = first; p < first + n && p < frame_passes(frame); p++) {
		const jv *pass = pass_at(frame, p);
		char pwhat[192];
		snprintf(pwhat, sizeof(pwhat), "%s pass %" PRIu64 " \"%s\"", fwhat, p, str(pass, "name"));
		expect_u64(u64(pass, "submission", pwhat), si, pwhat, "submission");
		uint64_t pb, pe;
		if (!pass_gpu(pass, &pb, &pe)) {
			if (!pp_json_read_is_null(get(pass, "gpu_ns")))
				fail("%s: gpu_ns not null without gpu_begin_ns/gpu_end_ns", pwhat);
			if (!pp_json_read_is_string(get(pass, "gpu_unavailable")))
				fail("%s: no GPU time and no gpu_unavailable reason", pwhat);
			continue;
		}
		any = true;
		uint64_t gpu = u64(pass, "gpu_ns", pwhat), excl = u64(pass, "gpu_exclusive_ns", pwhat);
		if (pe <= pb || gpu != pe - pb)
			fail("%s: gpu_ns %" PRIu64 " is not gpu_end_ns - gpu_begin_ns (%" PRIu64 " - %" PRIu64 ")", pwhat,
			     gpu, pe, pb);
		if (excl > gpu)
			fail("%s: gpu_exclusive_ns %" PRIu64 " > gpu_ns %" PRIu64, pwhat, excl, gpu);
		bool overlapped = true;
		if (!pp_json_read_get_bool(get(pass, "overlapped"), &overlapped))
			fail("%s: overlapped is not a boolean", pwhat);
		else if (!overlapped && excl != gpu)
			fail("%s: not overlapped, yet gpu_exclusive_ns %" PRIu64 " != gpu_ns %" PRIu64, pwhat, excl, gpu);
		*frame_exclusive += excl;
		exclusive_sum += excl;
		if (!timed) {
			fail("%s: measured, but its submission has no GPU interval", pwhat);
			continue;
		}
		if (pb < sb || pe > se)
			fail("%s: GPU interval [%" PRIu64 ", %" PRIu64 "] not inside its submission's [%" PRIu64 ", %" PRIu64
			     "]",
			     pwhat, pb, pe, sb, se);
	}
	if (timed && exclusive_sum > se - sb)
		fail("%s: sum of gpu_exclusive_ns %" PRIu64 " > gpu_span_ns %" PRIu64, what, exclusive_sum, se - sb);
	if (timed && !any)
		fail("%s: has a GPU interval but no measured pass", what);
}

/* One SPEC of --findings (ID:SEVERITY[@TEXT], ended by '|' or the end) against a diagnostic. */
static bool finding_matches(const char *spec, size_t len, const jv *d)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), spec);
	char *at = strchr(buf, '@');
	const char *text = at ? at + 1 : NULL;
	if (at)
		*at = '\0';
	char *colon = strrchr(buf, ':');
	if (!colon)
		return false;
	*colon = '\0';
	const char *severity = pp_json_read_get_string(get(d, "severity"), NULL);
	return !strcmp(buf, str(d, "id")) && !strcmp(colon + 1, severity ? severity : "(no severity)") &&
	       (!text || strstr(str(d, "site"), text));
}

static void findings_check(const jv *diags, const char *specs)
{
	size_t n = pp_json_read_array_size(diags);
	bool none = !strcmp(specs, "none");
	for (size_t i = 0; i < n; i++) {
		const jv *d = pp_json_read_array_at(diags, i);
		bool matched = false;
		for (const char *p = specs; !none && *p && !matched;) {
			size_t len = strcspn(p, "|");
			matched = finding_matches(p, len, d);
			p += len + (p[len] == '|');
		}
		if (!matched)
			fail("report: diagnostic %s (%s) at %s is not among the expected findings %s", str(d, "id"),
			     str(d, "severity"), str(d, "site"), specs);
	}
	for (const char *p = specs; !none && *p;) {
		size_t len = strcspn(p, "|");
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = finding_matches(p, len, pp_json_read_array_at(diags, i));
		if (!found)
			fail("report: expected finding %.*s is missing", (int)len, p);
		p += len + (p[len] == '|');
	}
}

/* Checks that hold for every report; expected_frames 0: any number. */
static bool report_load(struct report *r, const char *dir, uint64_t expected_frames)
{
	memset(r, 0, sizeof(*r));
	r->root = json_load(dir, "report.json");
	if (!r->root)
		return false;
	const jv *root = r->root;
	expect_str(root, "schema", "passprobe-report", "report");
	expect_u64(u64(root, "version", "report"), 1, "report", "version");
	r->frames = get(root, "frames");
	if (!pp_json_read_is_array(r->frames)) {
		fail("report: frames is not an array");
		return false;
	}
	r->nframes = pp_json_read_array_size(r->frames);
	const jv *dev = pp_json_read_array_at(get(root, "devices"), 0);
	bool stats = false;
	pp_json_read_get_bool(get(dev, "pipeline_statistics"), &stats);
	r->stats_supported = stats;
	if (expected_query_results)
		expect_str(dev, "query_results", expected_query_results, "devices[0]");
	if (expect_no_diagnostics) {
		const jv *diags = get(root, "diagnostics");
		for (size_t i = 0; i < pp_json_read_array_size(diags); i++)
			fail("report: diagnostic %s at %s, none expected", str(pp_json_read_array_at(diags, i), "id"),
			     str(pp_json_read_array_at(diags, i), "site"));
	}
	if (absent_diagnostics) {
		const jv *diags = get(root, "diagnostics");
		for (size_t i = 0; i < pp_json_read_array_size(diags); i++) {
			const char *id = str(pp_json_read_array_at(diags, i), "id");
			size_t n = strlen(id);
			for (const char *p = absent_diagnostics; *id && (p = strstr(p, id)); p += n)
				if ((p == absent_diagnostics || p[-1] == ',') && (p[n] == ',' || !p[n])) {
					fail("report: diagnostic %s at %s, not expected", id,
					     str(pp_json_read_array_at(diags, i), "site"));
					break;
				}
		}
	}
	if (expected_findings)
		findings_check(get(root, "diagnostics"), expected_findings);
	if (expected_site_module) {
		const jv *diags = get(root, "diagnostics");
		char plus[160], paren[160];
		snprintf(plus, sizeof(plus), "called from %s+0x", expected_site_module);
		snprintf(paren, sizeof(paren), "called from %s (", expected_site_module);
		if (!pp_json_read_array_size(diags))
			fail("report: no diagnostic, expected some called from %s", expected_site_module);
		for (size_t i = 0; i < pp_json_read_array_size(diags); i++) {
			const char *site = str(pp_json_read_array_at(diags, i), "site");
			if (!strstr(site, plus) && !strstr(site, paren))
				fail("report: diagnostic %s at \"%s\", expected one called from %s",
				     str(pp_json_read_array_at(diags, i), "id"), site, expected_site_module);
		}
	}
	if (expected_time_domain && strncmp(str(dev, "time_domain"), expected_time_domain, strlen(expected_time_domain)))
		fail("devices[0]: time_domain \"%s\" does not begin with \"%s\"", str(dev, "time_domain"),
		     expected_time_domain);

	uint64_t total = u64(root, "frames_total", "report");
	if (expected_frames) {
		expect_u64(total, expected_frames, "report", "frames_total");
		expect_u64(r->nframes, expected_frames, "report", "length of frames[]");
	}
	if (u64(root, "frames_dropped", "report"))
		fail("report: frames_dropped is not 0");
	expect_u64(u64(get(root, "frames_window"), "count", "report frames_window"), r->nframes, "report",
		   "frames_window.count");

	uint64_t last_seq = 0, prev_frame_end = 0;
	bool have_seq = false;
	/* The smallest gap from a submit call's begin to its submission's GPU begin. */
	uint64_t min_lead = UINT64_MAX;
	for (size_t i = 0; i < r->nframes; i++) {
		const jv *f = frame_at(r, i);
		char what[64];
		snprintf(what, sizeof(what), "frame %zu", i);
		/* The window holds every frame here: indices are 0, 1, ... in order. */
		expect_u64(u64(f, "index", what), i, what, "index");
		if (expected_delimiter)
			expect_str(f, "delimiter", expected_delimiter, what);
		const jv *subs = get(f, "submissions");
		size_t ns = pp_json_read_array_size(subs), next_pass = 0;
		uint64_t exclusive = 0;
		if (!ns)
			fail("%s: no submissions", what);
		for (size_t s = 0; s < ns; s++) {
			const jv *sub = pp_json_read_array_at(subs, s);
			uint64_t seq = u64(sub, "seq", what);
			if (have_seq && seq <= last_seq)
				fail("%s submission %zu: seq %" PRIu64 " not after the previous %" PRIu64, what, s, seq,
				     last_seq);
			last_seq = seq;
			have_seq = true;
			check_submission(f, sub, s, &next_pass, &exclusive, what);
			uint64_t gb, cb;
			if (u64_opt(sub, "gpu_begin_ns", &gb) && u64_opt(sub, "cpu_begin_ns", &cb) && gb >= cb &&
			    gb - cb < min_lead)
				min_lead = gb - cb;
		}
		if (next_pass != frame_passes(f))
			fail("%s: submissions cover %zu passes of %zu", what, next_pass, frame_passes(f));
		/* The frame's GPU time is the sum of its passes' exclusive times. */
		uint64_t frame_gpu;
		if (u64_opt(f, "gpu_ns", &frame_gpu)) {
			if (frame_gpu != exclusive)
				fail("%s: gpu_ns %" PRIu64 " is not the sum of its passes' gpu_exclusive_ns %" PRIu64, what,
				     frame_gpu, exclusive);
		} else if (exclusive) {
			fail("%s: gpu_ns is null although passes were measured", what);
		}
		/* pp_testapp waits for each frame's fence before submitting the next, so a frame's
		 * GPU work begins after the previous frame's ended: results read from the wrong
		 * (reused or stale) queries break this. */
		uint64_t fb = UINT64_MAX, fe = 0;
		for (size_t p = 0; p < frame_passes(f); p++) {
			uint64_t b, e;
			if (pass_gpu(pass_at(f, p), &b, &e)) {
				fb = b < fb ? b : fb;
				fe = e > fe ? e : fe;
			}
		}
		if (fb != UINT64_MAX) {
			if (fb <= prev_frame_end)
				fail("%s: GPU work begins at %" PRIu64 ", not after the previous frame's end %" PRIu64, what, fb,
				     prev_frame_end);
			prev_frame_end = fe;
		}
	}
	/* Estimated (docs/timing.md): the offset is the smallest that puts no submission's GPU
	 * work before its submit call, so that bound is met with equality by the submission that
	 * set it (check_submission checks the bound itself, for every submission). A later
	 * placement than the evidence allows fails here. */
	if (expected_time_domain && !strcmp(expected_time_domain, "estimated") && min_lead != 0)
		fail("report: no submission's gpu_begin_ns equals its cpu_begin_ns (smallest gap %" PRIu64
		     " ns): the estimated offset is not the smallest that keeps GPU work after its submit",
		     min_lead);
	return true;
}

static void expect_stat(const jv *pass, const char *stat, uint64_t want, const char *what)
{
	const jv *st = get(pass, "pipeline_statistics");
	if (!pp_json_read_is_object(st)) {
		fail("%s: no pipeline_statistics (%s)", what, str(pass, "pipeline_statistics_unavailable"));
		return;
	}
	uint64_t v = 0;
	if (!pp_json_read_get_uint64(get(st, stat), &v))
		fail("%s: pipeline_statistics.%s missing", what, stat);
	else if (v != want)
		fail("%s: pipeline_statistics.%s is %" PRIu64 ", expected %" PRIu64, what, stat, v, want);
}

/* pp_testapp's one colour attachment: R8G8B8A8_UNORM, size x size, cleared and stored. */
static void expect_attachment(const jv *pass, uint64_t size, const char *what)
{
	const jv *atts = get(pass, "attachments");
	if (pp_json_read_array_size(atts) != 1) {
		fail("%s: %zu attachments, expected 1", what, pp_json_read_array_size(atts));
		return;
	}
	const jv *a = pp_json_read_array_at(atts, 0);
	char awhat[160];
	snprintf(awhat, sizeof(awhat), "%s attachment 0", what);
	expect_str(a, "format", "R8G8B8A8_UNORM", awhat);
	expect_str(a, "load_op", "CLEAR", awhat);
	expect_str(a, "store_op", "STORE", awhat);
	expect_u64(u64(a, "width", awhat), size, awhat, "width");
	expect_u64(u64(a, "height", awhat), size, awhat, "height");
	expect_u64(u64(a, "layers", awhat), 1, awhat, "layers");
	expect_u64(u64(a, "samples", awhat), 1, awhat, "samples");
	if (boolean(a, "depth_stencil", awhat))
		fail("%s: depth_stencil is true", awhat);
}

/* ---- scenarios -------------------------------------------------------------------------- */

/* P render passes of D draws of V vertices x I instances each, in one submission per frame. */
static void check_counts(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	if (!r.stats_supported)
		fail("device: pipeline_statistics is false; lavapipe supports them");
	uint64_t vertices = o->draws * o->vertices * o->instances;
	uint64_t primitives = o->draws * (o->vertices / 3) * o->instances;
	const char *source = !strcmp(o->naming, "label") ? "label" : !strcmp(o->naming, "object") ? "object" : "generated";
	const jv *first_frame = frame_at(&r, 0);
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i);
		expect_u64(pp_json_read_array_size(get(f, "submissions")), 1, fwhat, "submissions");
		expect_str(pp_json_read_array_at(get(f, "submissions"), 0), "api", o->submit_api, fwhat);
		expect_u64(frame_passes(f), o->passes, fwhat, "number of passes");
		for (size_t p = 0; p < frame_passes(f) && p < o->passes; p++) {
			const jv *pass = pass_at(f, p);
			char what[128];
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			char want[32];
			snprintf(want, sizeof(want), !strcmp(source, "label") ? "pass%zu" : "objpass%zu", p);
			expect_str(pass, "name_source", source, what);
			if (strcmp(source, "generated")) {
				expect_str(pass, "name", want, what);
			} else {
				/* Stable: the same name as in the first frame; distinct within the frame. */
				const char *name = str(pass, "name");
				if (!*name)
					fail("%s: empty generated name", what);
				if (i > 0)
					expect_str(pass, "name", str(pass_at(first_frame, p), "name"), what);
				for (size_t q = 0; q < p; q++)
					if (!strcmp(name, str(pass_at(f, q), "name")))
						fail("%s: generated name \"%s\" also names pass %zu", what, name, q);
			}
			expect_str(pass, "kind", "render", what);
			expect_str(pass, "api", o->api, what);
			expect_u64(u64(pass, "subpasses", what), 1, what, "subpasses");
			expect_u64(u64(pass, "secondaries", what), 0, what, "secondaries");
			expect_attachment(pass, o->size, what);
			expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
			expect_work(pass, "draws", o->draws, what);
			expect_work(pass, "instances", o->draws * o->instances, what);
			expect_work(pass, "vertices", vertices, what);
			expect_work(pass, "draws_indexed", 0, what);
			expect_work(pass, "dispatches", 0, what);
			expect_measured(pass, what);
			expect_stat(pass, "input_assembly_vertices", vertices, what);
			expect_stat(pass, "vertex_shader_invocations", vertices, what);
			expect_stat(pass, "input_assembly_primitives", primitives, what);
		}
	}
	pp_json_read_free(r.root);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Passes "load<k>" in order; GPU time grows with k: for every pair (i < j) the median over
 * frames (after skip_frames warm-up frames) of gpu_ns[j] / gpu_ns[i] lies within
 * [min_factor, max_factor] x k_j / k_i, and the median times increase. */
static void check_load(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	size_t n = r.nframes > o->skip_frames ? r.nframes - o->skip_frames : 0;
	if (n < 3) {
		fail("need at least 3 frames after %" PRIu64 " warm-up frames, have %zu", o->skip_frames, n);
		pp_json_read_free(r.root);
		return;
	}
	double *ns = calloc(n * o->nloads, sizeof(double)), *tmp = calloc(n, sizeof(double));
	if (!ns || !tmp) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const jv *f = frame_at(&r, i + o->skip_frames);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i + o->skip_frames);
		if (frame_passes(f) != o->nloads) {
			fail("%s: %zu passes, expected %u", fwhat, frame_passes(f), o->nloads);
			goto out;
		}
		for (uint32_t k = 0; k < o->nloads; k++) {
			const jv *pass = pass_at(f, k);
			char want[32], what[96];
			snprintf(want, sizeof(want), "load%" PRIu64, o->loads[k]);
			snprintf(what, sizeof(what), "%s pass %u", fwhat, k);
			expect_str(pass, "name", want, what);
			if (!expect_measured(pass, what))
				goto out;
			ns[i * o->nloads + k] = (double)u64(pass, "gpu_ns", what);
		}
	}
	double prev = 0;
	printf("load medians (gpu_ns):");
	for (uint32_t k = 0; k < o->nloads; k++) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = ns[i * o->nloads + k];
		double m = median(tmp, n);
		printf(" load%" PRIu64 "=%.0f", o->loads[k], m);
		if (k && !(m > prev))
			fail("median gpu_ns of load%" PRIu64 " (%.0f) is not above load%" PRIu64 "'s (%.0f)", o->loads[k], m,
			     o->loads[k - 1], prev);
		prev = m;
	}
	printf("\n");
	for (uint32_t a = 0; a < o->nloads; a++)
		for (uint32_t b = a + 1; b < o->nloads; b++) {
			for (size_t i = 0; i < n; i++)
				tmp[i] = ns[i * o->nloads + b] / ns[i * o->nloads + a];
			double m = median(tmp, n), nominal = (double)o->loads[b] / (double)o->loads[a];
			printf("load%" PRIu64 "/load%" PRIu64 ": median ratio %.2f, nominal %.2f (%.2fx)\n", o->loads[b],
			       o->loads[a], m, nominal, m / nominal);
			if (m < o->min_factor * nominal || m > o->max_factor * nominal)
				fail("load%" PRIu64 "/load%" PRIu64 ": median ratio %.2f outside [%.2f, %.2f] (nominal %.2f)",
				     o->loads[b], o->loads[a], m, o->min_factor * nominal, o->max_factor * nominal, nominal);
		}
out:
	free(ns);
	free(tmp);
	pp_json_read_free(r.root);
}

/* One recording ("first", "second") executed `executions` times per frame, --times frames
 * (in --submissions submissions per frame when given): every pass from the same command
 * buffer and measured from its own execution, later in time than the previous pass (lavapipe
 * runs one queue in order), so no result is stale or shared between executions. */
static void check_executions(const struct options *o, uint32_t executions)
{
	struct report r;
	if (!report_load(&r, o->dir, o->times))
		return;
	static const char *const names[2] = { "first", "second" };
	uint64_t prev_end = 0;
	const char *handle = NULL;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i);
		expect_u64(frame_passes(f), 2 * executions, fwhat, "number of passes");
		if (o->submissions)
			expect_u64(pp_json_read_array_size(get(f, "submissions")), o->submissions, fwhat, "submissions");
		for (size_t p = 0; p < 2 * executions && p < frame_passes(f); p++) {
			const jv *pass = pass_at(f, p);
			char what[96];
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			expect_str(pass, "name", names[p % 2], what);
			expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
			if (!handle)
				handle = str(pass, "command_buffer_handle");
			else
				expect_str(pass, "command_buffer_handle", handle, what);
			uint64_t b = 0, e = 0;
			if (!expect_measured(pass, what))
				continue;
			pass_gpu(pass, &b, &e);
			if (b <= prev_end)
				fail("%s: gpu_begin_ns %" PRIu64 " not after the previous pass's end %" PRIu64
				     " (stale or shared results?)",
				     what, b, prev_end);
			prev_end = e;
		}
	}
	pp_json_read_free(r.root);
}

/* "resubmit": one recording submitted --times times, each its own frame. */
static void check_resubmit(const struct options *o)
{
	check_executions(o, 1);
}

/* "simultaneous": per frame two executions of one SIMULTANEOUS_USE recording, pending
 * together. */
static void check_simultaneous(const struct options *o)
{
	check_executions(o, 2);
}

/* "secondary-pass": the draws of two secondaries; "outside-secondary": a dispatch in a
 * secondary executed outside render passes. */
static void check_secondary(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	uint64_t draws = o->d1 + o->d2, vertices = draws * o->vertices;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(frame_passes(f), 2, what, "number of passes");
		if (frame_passes(f) != 2)
			continue;
		const jv *in = pass_at(f, 0), *out = pass_at(f, 1);
		snprintf(what, sizeof(what), "frame %zu pass 0", i);
		expect_str(in, "name", "secondary-pass", what);
		expect_str(in, "name_source", "label", what);
		expect_str(in, "kind", "render", what);
		expect_str(in, "api", o->api, what);
		expect_u64(u64(in, "secondaries", what), 2, what, "secondaries");
		expect_u64(u64(in, "draws", what), draws, what, "draws");
		expect_work(in, "draws", draws, what);
		expect_work(in, "vertices", vertices, what);
		expect_measured(in, what);
		/* Statistics may be left out here (queries and secondaries); if given, exact. */
		if (pp_json_read_is_object(get(in, "pipeline_statistics")))
			expect_stat(in, "input_assembly_vertices", vertices, what);

		snprintf(what, sizeof(what), "frame %zu pass 1", i);
		expect_str(out, "name", "outside-secondary", what);
		expect_str(out, "kind", "compute", what);
		expect_str(out, "api", "vkCmdExecuteCommands", what);
		expect_u64(u64(out, "secondaries", what), 1, what, "secondaries");
		expect_u64(u64(out, "draws", what), 0, what, "draws");
		expect_work(out, "dispatches", 1, what);
		expect_work(out, "workgroups", 24, what);
		expect_measured(out, what);
	}
	pp_json_read_free(r.root);
}

/* Dynamic rendering suspended in one command buffer and resumed in the next: one pass. */
static void check_suspend_resume(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	uint64_t draws = o->d1 + o->d2;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(pp_json_read_array_size(get(f, "submissions")), 1, what, "submissions");
		expect_u64(u64(pp_json_read_array_at(get(f, "submissions"), 0), "command_buffers", what), 2, what,
			   "command_buffers");
		expect_u64(frame_passes(f), 1, what, "number of passes");
		if (!frame_passes(f))
			continue;
		const jv *pass = pass_at(f, 0);
		snprintf(what, sizeof(what), "frame %zu pass 0", i);
		expect_str(pass, "name", "suspended-pass", what);
		expect_str(pass, "name_source", "label", what);
		expect_str(pass, "api", "vkCmdBeginRendering", what);
		if (!boolean(pass, "suspended_resumed", what))
			fail("%s: suspended_resumed is false", what);
		expect_u64(u64(pass, "draws", what), draws, what, "draws");
		expect_work(pass, "vertices", draws * o->vertices, what);
		expect_u64(u64(pass, "command_buffer", what), 0, what, "command_buffer (where it began)");
		expect_measured(pass, what);
	}
	pp_json_read_free(r.root);
}

/* Command buffers A ("a-pass") and B ("b-pass") in one submit; A freed and B reset while
 * their submission was not yet harvested: every frame still complete and measured. */
static void check_free_pending(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	static const char *const names[2] = { "a-pass", "b-pass" };
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(frame_passes(f), 2, what, "number of passes");
		for (size_t p = 0; p < 2 && p < frame_passes(f); p++) {
			const jv *pass = pass_at(f, p);
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			expect_str(pass, "name", names[p], what);
			expect_u64(u64(pass, "command_buffer", what), p, what, "command_buffer");
			expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
			expect_measured(pass, what);
		}
	}
	pp_json_read_free(r.root);
}

/* Labelled work outside render passes: copy 4096 bytes, fill 1024, dispatch 4x3x2, clear;
 * then unlabelled copy 2048 + barrier + dispatch 2x1x1 as one compute pass. */
/* pp_testapp --scenario state-before-pipeline: the application's work counted and timed as in
 * counts; on lavapipe (quirk_uniforms_before_pipeline, docs/timing.md) the passes that begin
 * while uniforms wait for a pipeline have no statistics and say why: pass0 for graphics
 * uniforms or push constants (its pipeline, bound inside it, serves the later passes), every
 * pass for compute uniforms (no compute pipeline is ever bound); storage buffers are not
 * affected. Elsewhere every pass has them. The app having run at all is the crash test. */
static void check_state_before_pipeline(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	if (!r.stats_supported)
		fail("device: pipeline_statistics is false; lavapipe supports them");
	const char *early = o->early ? o->early : "uniform";
	bool lavapipe = !strncmp(str(pp_json_read_array_at(get(r.root, "devices"), 0), "name"), "llvmpipe", 8);
	uint64_t vertices = o->draws * o->vertices;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i);
		expect_u64(frame_passes(f), o->passes, fwhat, "number of passes");
		for (size_t p = 0; p < frame_passes(f) && p < o->passes; p++) {
			const jv *pass = pass_at(f, p);
			char what[128], want[32];
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			snprintf(want, sizeof(want), "pass%zu", p);
			expect_str(pass, "name", want, what);
			expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
			expect_work(pass, "vertices", vertices, what);
			expect_measured(pass, what);
			bool quirk = lavapipe && strcmp(early, "storage") && (p == 0 || !strcmp(early, "compute-uniform"));
			if (!quirk) {
				expect_stat(pass, "input_assembly_vertices", vertices, what);
				expect_stat(pass, "vertex_shader_invocations", vertices, what);
				continue;
			}
			if (pp_json_read_is_object(get(pass, "pipeline_statistics")))
				fail("%s: pipeline_statistics present: lavapipe crashes on that query", what);
			const char *why = str(pass, "pipeline_statistics_unavailable");
			if (!strstr(why, "lavapipe crashes"))
				fail("%s: pipeline_statistics_unavailable \"%s\" does not name the lavapipe quirk", what, why);
		}
	}
	pp_json_read_free(r.root);
}

static void check_compute_transfer(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	static const struct {
		const char *name, *kind;
		uint64_t copies, copy_bytes, dispatches, workgroups, clears, barriers;
	} want[5] = {
		{ "copy", "transfer", 1, 4096, 0, 0, 0, 0 },
		{ "fill", "transfer", 1, 1024, 0, 0, 0, 0 },
		{ "dispatch", "compute", 0, 0, 1, 24, 0, 0 },
		{ "clear", "transfer", 0, 0, 0, 0, 1, 0 },
		{ NULL, "compute", 1, 2048, 1, 2, 0, 1 }, /* unlabelled: one pass, not split */
	};
	const char *generated = NULL;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(frame_passes(f), 5, what, "number of passes");
		for (size_t p = 0; p < 5 && p < frame_passes(f); p++) {
			const jv *pass = pass_at(f, p);
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			if (want[p].name) {
				expect_str(pass, "name", want[p].name, what);
				expect_str(pass, "name_source", "label", what);
			} else {
				expect_str(pass, "name_source", "generated", what);
				if (!generated)
					generated = str(pass, "name");
				else
					expect_str(pass, "name", generated, what);
			}
			expect_str(pass, "kind", want[p].kind, what);
			expect_str(pass, "api", "outside-render-pass", what);
			expect_u64(u64(pass, "draws", what), 0, what, "draws");
			expect_work(pass, "copies", want[p].copies, what);
			expect_work(pass, "copy_bytes", want[p].copy_bytes, what);
			expect_work(pass, "dispatches", want[p].dispatches, what);
			expect_work(pass, "workgroups", want[p].workgroups, what);
			expect_work(pass, "clears", want[p].clears, what);
			expect_work(pass, "barriers", want[p].barriers, what);
			expect_measured(pass, what);
			/* fill.comp's workgroups have 4 invocations. */
			if (want[p].dispatches)
				expect_stat(pass, "compute_shader_invocations", 4 * want[p].workgroups, what);
		}
	}
	pp_json_read_free(r.root);
}

/* Three submits (or batches of one submit) per frame, the last with the fence: one frame of
 * three submissions. --span-label yes: the second pass is named by a label the first
 * submission opened (labels resolve in queue order, across submissions). */
static void check_multi_submit(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		const jv *subs = get(f, "submissions");
		expect_u64(pp_json_read_array_size(subs), 3, what, "submissions");
		expect_u64(frame_passes(f), 3, what, "number of passes");
		uint64_t prev_seq = 0, prev_begin = 0;
		for (size_t s = 0; s < 3 && s < pp_json_read_array_size(subs); s++) {
			const jv *sub = pp_json_read_array_at(subs, s);
			snprintf(what, sizeof(what), "frame %zu submission %zu", i, s);
			uint64_t seq = u64(sub, "seq", what), b = 0;
			if (s && seq != prev_seq + 1)
				fail("%s: seq %" PRIu64 " does not follow %" PRIu64, what, seq, prev_seq);
			prev_seq = seq;
			expect_u64(u64(sub, "passes", what), 1, what, "passes");
			expect_u64(u64(sub, "first_pass", what), s, what, "first_pass");
			if (!u64_opt(sub, "gpu_begin_ns", &b))
				fail("%s: no GPU interval", what);
			else if (s && b < prev_begin)
				fail("%s: GPU begin %" PRIu64 " before the previous submission's %" PRIu64, what, b,
				     prev_begin);
			prev_begin = b;
			if (s < frame_passes(f)) {
				const jv *pass = pass_at(f, s);
				char want[16];
				snprintf(want, sizeof(want), "sub%zu", s);
				if (o->span_label && s == 1)
					snprintf(want, sizeof(want), "outer");
				snprintf(what, sizeof(what), "frame %zu pass %zu", i, s);
				expect_str(pass, "name", want, what);
				expect_u64(u64(pass, "submission", what), s, what, "submission");
				expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
				expect_measured(pass, what);
			}
		}
	}
	pp_json_read_free(r.root);
}

/* ---- trace.json ------------------------------------------------------------------------- */

static int64_t us_to_ns(double us)
{
	return llround(us * 1000.0);
}

struct slice {
	uint64_t tid, seq;
	int64_t b, e;
	const char *name;
};

static const jv *find_submission_slice(const jv *events, uint64_t tid, uint64_t seq)
{
	for (size_t i = 0; i < pp_json_read_array_size(events); i++) {
		const jv *ev = pp_json_read_array_at(events, i);
		uint64_t t = 0, s = 0;
		if (strcmp(str(ev, "ph"), "X") || strcmp(str(ev, "cat"), "gpu.submission"))
			continue;
		if (u64_opt(ev, "tid", &t) && t == tid && u64_opt(get(ev, "args"), "seq", &s) && s == seq)
			return ev;
	}
	return NULL;
}

static void check_trace(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, 0))
		return;
	jv *root = json_load(o->dir, "trace.json");
	if (!root) {
		pp_json_read_free(r.root);
		return;
	}
	if (!pp_json_read_is_array(root)) {
		fail("trace.json: not a JSON array");
		goto out;
	}
	size_t n = pp_json_read_array_size(root);
	size_t pass_events = 0, submission_slices = 0, flows_s = 0;
	for (size_t i = 0; i < n; i++) {
		const jv *ev = pp_json_read_array_at(root, i);
		char what[64];
		snprintf(what, sizeof(what), "trace event %zu", i);
		if (!pp_json_read_is_object(ev)) {
			fail("%s: not an object", what);
			continue;
		}
		const char *ph = pp_json_read_get_string(get(ev, "ph"), NULL);
		if (!pp_json_read_is_string(get(ev, "name")) || !ph || !pp_json_read_is_number(get(ev, "pid")) ||
		    !pp_json_read_is_number(get(ev, "tid"))) {
			fail("%s: lacks one of name, ph, pid, tid", what);
			continue;
		}
		if (strcmp(ph, "M") && !pp_json_read_is_number(get(ev, "ts")))
			fail("%s (%s \"%s\"): no ts", what, ph, str(ev, "name"));
		if (!strcmp(ph, "X")) {
			double dur = -1;
			if (!pp_json_read_get_double(get(ev, "dur"), &dur) || dur < 0)
				fail("%s (X \"%s\"): dur missing or negative", what, str(ev, "name"));
		}
		const char *cat = str(ev, "cat");
		if (!strcmp(ph, "X") && !strcmp(cat, "gpu.submission"))
			submission_slices++;
		if ((!strcmp(ph, "X") && !strcmp(cat, "gpu.pass")) || (!strcmp(ph, "i") && !strcmp(cat, "gpu.pass.unavailable")))
			pass_events++;
		/* A pass slice lies within its submission's slice on the same track. */
		if (!strcmp(ph, "X") && !strcmp(cat, "gpu.pass")) {
			uint64_t tid = u64(ev, "tid", what), seq = u64(get(ev, "args"), "seq", what);
			const jv *sub = find_submission_slice(root, tid, seq);
			if (!sub) {
				fail("%s: pass slice \"%s\" (seq %" PRIu64 ", tid %" PRIu64 ") has no submission slice on its track",
				     what, str(ev, "name"), seq, tid);
				continue;
			}
			double ts = 0, dur = 0, sts = 0, sdur = 0;
			pp_json_read_get_double(get(ev, "ts"), &ts);
			pp_json_read_get_double(get(ev, "dur"), &dur);
			pp_json_read_get_double(get(sub, "ts"), &sts);
			pp_json_read_get_double(get(sub, "dur"), &sdur);
			int64_t b = us_to_ns(ts), e = b + us_to_ns(dur), sb = us_to_ns(sts), se = sb + us_to_ns(sdur);
			if (b < sb || e > se + 1) /* 1 ns: ts and dur are each rounded to 3 decimals */
				fail("%s: pass slice \"%s\" [%" PRId64 ", %" PRId64 "] ns outside its submission slice [%" PRId64
				     ", %" PRId64 "]",
				     what, str(ev, "name"), b, e, sb, se);
		}
		/* Flows: each "s" has exactly one "f" with its id, at the GPU submission slice. */
		if (!strcmp(ph, "s")) {
			flows_s++;
			uint64_t id = u64(ev, "id", what), stid = u64(ev, "tid", what);
			size_t matches = 0;
			for (size_t j = 0; j < n; j++) {
				const jv *f = pp_json_read_array_at(root, j);
				uint64_t fid = 0;
				if (strcmp(str(f, "ph"), "f") || !u64_opt(f, "id", &fid) || fid != id)
					continue;
				matches++;
				uint64_t ftid = u64(f, "tid", what);
				if (ftid == stid)
					fail("%s: flow %" PRIu64 " starts and ends on the same track", what, id);
				const jv *sub = find_submission_slice(root, ftid, id & ((1ull << 40) - 1));
				double fts = 0, sts = -1;
				pp_json_read_get_double(get(f, "ts"), &fts);
				pp_json_read_get_double(get(sub, "ts"), &sts);
				if (!sub || us_to_ns(fts) != us_to_ns(sts))
					fail("%s: flow %" PRIu64 " does not end at the start of its GPU submission slice", what, id);
				expect_str(f, "bp", "e", what);
			}
			if (matches != 1)
				fail("%s: flow start %" PRIu64 " has %zu ends, expected 1", what, id, matches);
		}
		if (!strcmp(ph, "f")) {
			uint64_t id = u64(ev, "id", what);
			size_t starts = 0;
			for (size_t j = 0; j < n; j++) {
				const jv *s = pp_json_read_array_at(root, j);
				uint64_t sid = 0;
				starts += !strcmp(str(s, "ph"), "s") && u64_opt(s, "id", &sid) && sid == id;
			}
			if (starts != 1)
				fail("%s: flow end %" PRIu64 " has %zu starts, expected 1", what, id, starts);
		}
	}
	/* A clean exit ends the file with passprobe_trace_end, counting every frame. */
	const jv *last = pp_json_read_array_at(root, n ? n - 1 : 0);
	if (strcmp(str(last, "name"), "passprobe_trace_end"))
		fail("trace: last event is \"%s\", not passprobe_trace_end", str(last, "name"));
	else
		expect_u64(u64(get(last, "args"), "frames", "passprobe_trace_end"), r.nframes, "passprobe_trace_end",
			   "args.frames");
	/* Every track holding GPU submission slices is a synthetic one named as a GPU queue. */
	for (size_t i = 0; i < n; i++) {
		const jv *ev = pp_json_read_array_at(root, i);
		if (strcmp(str(ev, "ph"), "X") || strcmp(str(ev, "cat"), "gpu.submission"))
			continue;
		uint64_t tid = 0;
		u64_opt(ev, "tid", &tid);
		if (tid < 4194304)
			fail("trace: GPU submission slice on tid %" PRIu64 ", below the synthetic GPU tids (4194304 + n)", tid);
		bool named = false;
		for (size_t j = 0; j < n && !named; j++) {
			const jv *m = pp_json_read_array_at(root, j);
			uint64_t mt = 0;
			named = !strcmp(str(m, "ph"), "M") && !strcmp(str(m, "name"), "thread_name") &&
				u64_opt(m, "tid", &mt) && mt == tid &&
				!strncmp(str(get(m, "args"), "name"), "GPU queue", 9);
		}
		if (!named) {
			fail("trace: track %" PRIu64 " with GPU submission slices has no thread_name \"GPU queue ...\"", tid);
			break;
		}
	}
	/* As many pass events and submission slices as the report has passes and measured submissions. */
	size_t passes = 0, timed_subs = 0, subs = 0;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		passes += frame_passes(f);
		for (size_t s = 0; s < pp_json_read_array_size(get(f, "submissions")); s++) {
			uint64_t b;
			subs++;
			timed_subs += u64_opt(pp_json_read_array_at(get(f, "submissions"), s), "gpu_begin_ns", &b);
		}
	}
	if (pass_events != passes)
		fail("trace: %zu pass events (gpu.pass slices + unavailable instants), report has %zu passes", pass_events,
		     passes);
	if (submission_slices != timed_subs)
		fail("trace: %zu GPU submission slices, report has %zu measured submissions", submission_slices, timed_subs);
	if (flows_s != timed_subs)
		fail("trace: %zu submit flows, expected one per measured submission (%zu of %zu)", flows_s, timed_subs, subs);
	if (!passes)
		fail("trace: the report has no passes to compare with");
out:
	pp_json_read_free(root);
	pp_json_read_free(r.root);
}

/* ---- passes.csv ------------------------------------------------------------------------- */

/* The documented columns (docs/report-format.md), in order. */
static const char *const csv_columns[] = {
	"frame", "device", "submission", "seq", "command_buffer", "pass_index", "name", "name_source", "kind", "api",
	"draws", "draws_indexed", "draws_indirect", "draws_indirect_count", "instances", "vertices", "indices",
	"dispatches", "dispatches_indirect", "workgroups", "copies", "copy_bytes", "clears", "barriers", "attachments",
	"gpu_begin_ns", "gpu_end_ns", "gpu_ns", "gpu_exclusive_ns", "overlapped", "gpu_unavailable",
	"input_assembly_vertices", "input_assembly_primitives", "vertex_shader_invocations", "clipping_invocations",
	"clipping_primitives", "fragment_shader_invocations", "compute_shader_invocations",
	"cpu_record_wall_ns", "cpu_record_thread_cpu_ns",
};
#define CSV_NCOLS (sizeof(csv_columns) / sizeof(csv_columns[0]))
#define CSV_MAX_FIELDS 64

/* Splits one RFC 4180 record starting at *p (quoted fields may hold newlines) into fields
 * (unquoted in place); returns the number of fields, advances *p past the record. */
static size_t csv_record(char **p, char **fields, size_t max)
{
	char *s = *p, *out = s;
	size_t n = 0;
	if (!*s)
		return 0;
	for (;;) {
		char *field = out;
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s)
					break;
				if (*s == '"' && s[1] == '"') {
					*out++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*out++ = *s++;
				}
			}
		}
		while (*s && *s != ',' && *s != '\n')
			*out++ = *s++;
		char sep = *s;
		*out = '\0';
		if (n < max)
			fields[n] = field;
		n++;
		if (sep == ',') {
			s++;
			out = s;
			continue;
		}
		if (sep == '\n')
			s++;
		break;
	}
	*p = s;
	return n;
}

static void check_csv(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, 0))
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/passes.csv", o->dir);
	size_t len = 0;
	char *text = file_read(path, &len);
	if (!text) {
		fail("%s: cannot read", path);
		pp_json_read_free(r.root);
		return;
	}
	char *buf = realloc(text, len + 1);
	if (!buf) {
		free(text);
		fail("out of memory");
		pp_json_read_free(r.root);
		return;
	}
	buf[len] = '\0';
	char *p = buf, *fields[CSV_MAX_FIELDS];
	size_t nf = csv_record(&p, fields, CSV_MAX_FIELDS);
	/* The fixed columns, then one cpu_record_<event> column per configured CPU counter, then
	 * recorded_by (with gpu_counters before it when GPU counters are configured). */
	size_t ncols = nf;
	if (nf < CSV_NCOLS + 1)
		fail("passes.csv: header has %zu columns, documented at least %zu", nf, CSV_NCOLS + 1);
	for (size_t i = 0; i < nf && i < CSV_NCOLS; i++)
		if (strcmp(fields[i], csv_columns[i]))
			fail("passes.csv: column %zu is \"%s\", documented \"%s\"", i, fields[i], csv_columns[i]);
	if (nf > CSV_NCOLS && strcmp(fields[nf - 1], "recorded_by"))
		fail("passes.csv: last column is \"%s\", documented recorded_by", fields[nf - 1]);
	for (size_t i = CSV_NCOLS; i + 1 < nf; i++)
		if (strncmp(fields[i], "cpu_record_", 11) && !(i + 2 == nf && !strcmp(fields[i], "gpu_counters")))
			fail("passes.csv: column %zu is \"%s\", documented cpu_record_<event>", i, fields[i]);

	size_t rows = 0, passes = 0;
	for (size_t i = 0; i < r.nframes; i++)
		passes += frame_passes(frame_at(&r, i));
	while (*p) {
		nf = csv_record(&p, fields, CSV_MAX_FIELDS);
		rows++;
		char what[64];
		snprintf(what, sizeof(what), "passes.csv row %zu", rows);
		if (nf != ncols) {
			fail("%s: %zu fields, header has %zu", what, nf, ncols);
			continue;
		}
		/* The row is the report's pass (frame, pass_index), field for field where shared. */
		char *end;
		unsigned long long frame = strtoull(fields[0], &end, 10), pi = strtoull(fields[5], &end, 10);
		if (frame >= r.nframes || pi >= frame_passes(frame_at(&r, frame))) {
			fail("%s: frame %llu pass %llu not in the report", what, frame, pi);
			continue;
		}
		const jv *pass = pass_at(frame_at(&r, frame), pi);
		if (strcmp(fields[6], str(pass, "name")))
			fail("%s: name \"%s\", report says \"%s\"", what, fields[6], str(pass, "name"));
		if (strcmp(fields[8], str(pass, "kind")))
			fail("%s: kind \"%s\", report says \"%s\"", what, fields[8], str(pass, "kind"));
		char num[32];
		snprintf(num, sizeof(num), "%" PRIu64, u64(get(pass, "workload"), "draws", what));
		if (strcmp(fields[10], num))
			fail("%s: draws %s, report's workload.draws is %s", what, fields[10], num);
		uint64_t gpu;
		if (u64_opt(pass, "gpu_ns", &gpu)) {
			snprintf(num, sizeof(num), "%" PRIu64, gpu);
			if (strcmp(fields[27], num))
				fail("%s: gpu_ns \"%s\", report says %s", what, fields[27], num);
		} else if (*fields[27] || !*fields[30]) {
			fail("%s: unmeasured pass needs an empty gpu_ns and a gpu_unavailable reason", what);
		}
	}
	if (rows != passes)
		fail("passes.csv: %zu rows, the report has %zu passes", rows, passes);
	free(buf);
	pp_json_read_free(r.root);
}

/* ---- spy layers ------------------------------------------------------------------------- */

/* Reads the counters named in `keys` from the spy output's "exit" line: the process-wide
 * totals the spy writes once at exit (its "device" lines repeat per-device subsets). */
static bool spy_counts(const char *path, const char *const *keys, size_t nkeys, uint64_t *out)
{
	size_t len = 0;
	char *text = file_read(path, &len);
	memset(out, 0, nkeys * sizeof(*out));
	if (!text) {
		fail("%s: cannot read", path);
		return false;
	}
	size_t exits = 0;
	for (char *line = text, *next; line < text + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		next = nl ? nl + 1 : text + len;
		size_t ll = (size_t)((nl ? nl : text + len) - line);
		if (!ll)
			continue;
		jv *root = NULL;
		char err[128];
		if (pp_json_read_parse(line, ll, NULL, &root, err, sizeof(err))) {
			fail("%s: a line is not JSON: %s", path, err);
			continue;
		}
		if (!strcmp(str(root, "event"), "exit")) {
			exits++;
			for (size_t k = 0; k < nkeys; k++)
				out[k] = u64(root, keys[k], path);
		}
		pp_json_read_free(root);
	}
	free(text);
	if (exits != 1)
		fail("%s: %zu \"exit\" lines, expected 1 (one process)", path, exits);
	return exits == 1;
}

static void check_spy(const struct options *o)
{
	if (!o->above || !o->below) {
		fprintf(stderr, "integ_check spy: --above and --below are required\n");
		exit(2);
	}
	static const char *const keys[] = {
		"vkWaitForFences", "vkQueueWaitIdle", "vkDeviceWaitIdle", "vkGetQueryPoolResults_wait",
		"vkGetQueryPoolResults_nowait", "vkCmdWriteTimestamp",
	};
	enum { FENCES, QUEUE_IDLE, DEVICE_IDLE, GQPR_WAIT, GQPR_NOWAIT, TIMESTAMPS, NKEYS };
	uint64_t above[NKEYS], below[NKEYS];
	if (!spy_counts(o->above, keys, NKEYS, above) || !spy_counts(o->below, keys, NKEYS, below))
		return;
	for (int k = 0; k < NKEYS; k++)
		printf("%s: above %" PRIu64 ", below %" PRIu64 "\n", keys[k], above[k], below[k]);
	/* The application's own calls, known per frame, reach the spy above unchanged. */
	if (o->frames) {
		expect_u64(above[FENCES], o->frames, "spy above", keys[FENCES]);
		expect_u64(above[QUEUE_IDLE], o->frames, "spy above", keys[QUEUE_IDLE]);
		expect_u64(above[GQPR_WAIT], o->frames, "spy above", keys[GQPR_WAIT]);
		expect_u64(above[DEVICE_IDLE], 1, "spy above", keys[DEVICE_IDLE]);
	}
	/* passprobe adds no blocking call of its own ... */
	for (int k = FENCES; k <= GQPR_WAIT; k++)
		if (above[k] != below[k])
			fail("%s: %" PRIu64 " calls reach the spy below passprobe, %" PRIu64 " above: passprobe added or removed "
			     "blocking calls",
			     keys[k], below[k], above[k]);
	/* ... while the spy below does see passprobe's own commands ... */
	if (!(below[TIMESTAMPS] > above[TIMESTAMPS]))
		fail("vkCmdWriteTimestamp: below %" PRIu64 " not above %" PRIu64 ": the spy below does not see passprobe's calls",
		     below[TIMESTAMPS], above[TIMESTAMPS]);
	/* ... and its own result reads: non-waiting vkGetQueryPoolResults, or none at all where the
	 * results are copied on the GPU (copy_results; auto on lavapipe, whose reads wait). */
	jv *report = json_load(o->dir, "report.json");
	const char *how = report ? str(pp_json_read_array_at(get(report, "devices"), 0), "query_results") : "";
	if (!strncmp(how, "copied", 6)) {
		if (below[GQPR_NOWAIT] != above[GQPR_NOWAIT])
			fail("vkGetQueryPoolResults without WAIT_BIT: below %" PRIu64 ", above %" PRIu64
			     ": results are copied (%s), yet passprobe read them through the driver",
			     below[GQPR_NOWAIT], above[GQPR_NOWAIT], how);
	} else if (!(below[GQPR_NOWAIT] > above[GQPR_NOWAIT])) {
		fail("vkGetQueryPoolResults without WAIT_BIT: below %" PRIu64 " not above %" PRIu64
		     ": the spy below does not see passprobe's reads (query_results: %s)",
		     below[GQPR_NOWAIT], above[GQPR_NOWAIT], how);
	}
	pp_json_read_free(report);
}

/* ---- main ------------------------------------------------------------------------------- */

/* Frame delimiters (frame_delimiter setting): --frames frames, each closed by --delimiter
 * (report_load), each holding exactly --submissions submissions and every pass measured. */
static void check_frames(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(pp_json_read_array_size(get(f, "submissions")), o->submissions, what, "submissions");
		for (size_t p = 0; p < frame_passes(f); p++) {
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			expect_measured(pass_at(f, p), what);
		}
	}
	pp_json_read_free(r.root);
}

/* One field=value of a --pass spec against a pass: the field is looked up in the pass, then
 * in its workload; a string compares as a string, a number as an integer, an array by its
 * length (attachments=2). */
static void expect_field(const jv *pass, const char *field, const char *want, const char *what)
{
	const jv *v = get(pass, field);
	if (!v)
		v = get(get(pass, "workload"), field);
	if (!v) {
		fail("%s: no field %s", what, field);
		return;
	}
	if (pp_json_read_is_string(v)) {
		if (strcmp(pp_json_read_get_string(v, NULL), want))
			fail("%s: %s is \"%s\", expected \"%s\"", what, field, pp_json_read_get_string(v, NULL), want);
		return;
	}
	uint64_t got = 0;
	if (pp_json_read_is_array(v))
		got = pp_json_read_array_size(v);
	else if (!pp_json_read_get_uint64(v, &got)) {
		fail("%s: %s is neither a string, an unsigned integer nor an array", what, field);
		return;
	}
	expect_u64(got, opt_uint(field, want), what, field);
}

/* Real programs (tests/thirdparty): the pass/draw shape of every frame from --skip-frames to
 * the last but --skip-last, each holding exactly the --pass specs in order (and --submissions
 * submissions when given) and closed by --delimiter; --frames exact or at least --min-frames
 * frames; at least --measured-percent of those frames' passes with a GPU time. The first
 * frames (uploads, pipeline creation) and a last one closed at shutdown differ from a steady
 * frame, so they are left to the structural checks only. */
static void check_shape(const struct options *o)
{
	const char *delimiter = expected_delimiter;
	expected_delimiter = NULL;
	allow_empty_submissions = true;
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	if (r.nframes < o->min_frames)
		fail("report: %zu frames, expected at least %" PRIu64, r.nframes, o->min_frames);
	if (r.nframes <= o->skip_frames + o->skip_last) {
		fail("report: %zu frames, none left to check after skipping %" PRIu64 " + %" PRIu64, r.nframes,
		     o->skip_frames, o->skip_last);
		pp_json_read_free(r.root);
		return;
	}
	size_t checked = 0, measured = 0, foreign = 0, foreign_frames = 0;
	for (size_t i = o->skip_frames; i < r.nframes - o->skip_last; i++) {
		const jv *f = frame_at(&r, i);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i);
		if (delimiter)
			expect_str(f, "delimiter", delimiter, fwhat);
		/* The application's passes, in order; another layer's are counted apart. */
		const jv *app[64];
		size_t napp = 0, nforeign = 0;
		for (size_t p = 0; p < frame_passes(f); p++) {
			const jv *pass = pass_at(f, p);
			const char *by = pp_json_read_get_string(get(pass, "recorded_by"), NULL);
			if (by) {
				nforeign++;
				if (o->recorded_by && strcmp(o->recorded_by, "none") && strcmp(by, o->recorded_by))
					fail("%s pass %zu: recorded by %s, expected only %s's besides the application's", fwhat,
					     p, by, o->recorded_by);
			} else if (napp < 64) {
				app[napp++] = pass;
			}
		}
		foreign += nforeign;
		foreign_frames += nforeign > 0;
		if (o->submissions && !nforeign)
			expect_u64(pp_json_read_array_size(get(f, "submissions")), o->submissions, fwhat, "submissions");
		if (napp != o->npass_specs)
			fail("%s: %zu passes of the application's, expected %u", fwhat, napp, o->npass_specs);
		for (size_t p = 0; p < napp && p < o->npass_specs; p++) {
			const jv *pass = app[p];
			char what[160], spec[512];
			snprintf(what, sizeof(what), "frame %zu pass %zu \"%s\"", i, p, str(pass, "name"));
			snprintf(spec, sizeof(spec), "%s", o->pass_specs[p]);
			for (char *save = NULL, *kv = strtok_r(spec, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
				char *eq = strchr(kv, '=');
				if (!eq) {
					fprintf(stderr, "integ_check: --pass %s: expected field=value\n", o->pass_specs[p]);
					exit(2);
				}
				*eq = '\0';
				expect_field(pass, kv, eq + 1, what);
			}
		}
		for (size_t p = 0; p < napp; p++) {
			checked++;
			measured += pass_gpu(app[p], NULL, NULL);
		}
	}
	printf("shape: %zu frames, %zu passes checked (frames %" PRIu64 "..%zu), %zu with a GPU time; %zu passes "
	       "of other layers in %zu frames\n",
	       r.nframes, checked, o->skip_frames, r.nframes - o->skip_last - 1, measured, foreign, foreign_frames);
	if (o->recorded_by && !strcmp(o->recorded_by, "none") && foreign)
		fail("%zu passes recorded by other layers, expected none", foreign);
	if (o->recorded_by && strcmp(o->recorded_by, "none") && !foreign)
		fail("no pass recorded by %s in the frames checked", o->recorded_by);
	if (o->measured_percent > 0 && (double)measured < (double)checked * o->measured_percent / 100.0) {
		const jv *first = pass_at(frame_at(&r, o->skip_frames), 0);
		fail("%zu of %zu passes have a GPU time, below %.1f%% (frame %" PRIu64 " pass 0: gpu_unavailable \"%s\")",
		     measured, checked, o->measured_percent, o->skip_frames, first ? str(first, "gpu_unavailable") : "");
	}
	pp_json_read_free(r.root);
}

/* pp_presentapp: --frames frames, each ended by its present (report_load checks the
 * delimiter), each one submission of --passes passes "pass<i>" of --draws draws into the
 * swapchain image (the first clears it, the others load it), every pass measured inside its
 * submission's GPU span; each frame's CPU cost includes its present call. */
static void check_present(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char fwhat[64];
		snprintf(fwhat, sizeof(fwhat), "frame %zu", i);
		expect_u64(pp_json_read_array_size(get(f, "submissions")), 1, fwhat, "submissions");
		const jv *sub = pp_json_read_array_at(get(f, "submissions"), 0);
		uint64_t sb = u64(sub, "gpu_begin_ns", fwhat), se = u64(sub, "gpu_end_ns", fwhat);
		/* The present call is one of the frame's CPU spans: the submit call, the present. */
		if (u64(get(f, "cpu"), "spans", fwhat) < 2)
			fail("%s: cpu.spans below 2: the present call's cost is not in its frame", fwhat);
		expect_u64(frame_passes(f), o->passes, fwhat, "number of passes");
		for (size_t p = 0; p < frame_passes(f) && p < o->passes; p++) {
			const jv *pass = pass_at(f, p);
			char what[96], want[32];
			snprintf(what, sizeof(what), "frame %zu pass %zu", i, p);
			snprintf(want, sizeof(want), "pass%zu", p);
			expect_str(pass, "name", want, what);
			expect_str(pass, "kind", "render", what);
			expect_u64(u64(pass, "draws", what), o->draws, what, "draws");
			const jv *att = pp_json_read_array_at(get(pass, "attachments"), 0);
			expect_str(att, "load_op", p ? "LOAD" : "CLEAR", what);
			uint64_t b = 0, e = 0;
			if (!expect_measured(pass, what))
				continue;
			pass_gpu(pass, &b, &e);
			if (b < sb || e > se)
				fail("%s: GPU span [%" PRIu64 ", %" PRIu64 "] outside its submission's [%" PRIu64 ", %" PRIu64 "]",
				     what, b, e, sb, se);
		}
	}
	pp_json_read_free(r.root);
}

/* One frame clock: the diagnostics' frame indices are report.json's.
 * pp_presentapp --setup-submits N --wait-idle 1 creates its swapchain, makes N fenced submits
 * before its first present, then presents every frame and idles the queue after it. The
 * set-up submits belong to the first frame (frame_delimiter=auto with a swapchain), so the
 * queue-idle finding of the last frame carries the last frame's index in report.json; a
 * second frame count that closed frames at those fences ran N frames ahead. */
static void check_frame_clock(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	uint64_t last = 0;
	for (size_t i = 0; i < r.nframes; i++) {
		uint64_t idx = u64(frame_at(&r, i), "index", "frame");
		if (idx > last)
			last = idx;
	}
	const jv *diags = get(r.root, "diagnostics");
	bool waited = false;
	for (size_t i = 0; i < pp_json_read_array_size(diags); i++) {
		const jv *x = pp_json_read_array_at(diags, i);
		const char *id = str(x, "id");
		uint64_t first = u64(x, "first_frame", id), lastf = u64(x, "last_frame", id);
		if (first > lastf || lastf > last)
			fail("diagnostic %s: frames %" PRIu64 "..%" PRIu64 " outside report.json's frames 0..%" PRIu64, id,
			     first, lastf, last);
		if (!strcmp(id, "PASSPROBE-Blocking-QueueWaitIdle")) {
			waited = true;
			expect_u64(lastf, last, id, "last_frame (the last frame of report.json)");
		}
	}
	if (!waited)
		fail("no PASSPROBE-Blocking-QueueWaitIdle diagnostic: the per-frame queue idle was not reported");
	pp_json_read_free(r.root);
}

/* Blocking calls: the waits scenario makes 3 per frame after its submit
 * (fence, queue idle, WAIT_BIT query read); each is counted in the frame being built when it
 * happens, so frames 1.. hold 3 spans with wall and CPU time, and the trace has a cpu.wait
 * slice for each. */
static void check_blocked(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 1; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		const jv *b = get(f, "blocked");
		if (!b || !pp_json_read_is_object(b)) {
			fail("%s: no blocked object", what);
			continue;
		}
		expect_u64(u64(b, "spans", what), 3, what, "blocked.spans");
		if (u64(b, "wall_ns", what) == 0)
			fail("%s: blocking calls with no wall time", what);
	}
	pp_json_read_free(r.root);
	jv *trace = json_load(o->dir, "trace.json");
	if (!trace)
		return;
	size_t waits = 0;
	for (size_t i = 0; i < pp_json_read_array_size(trace); i++) {
		const char *cat = pp_json_read_get_string(get(pp_json_read_array_at(trace, i), "cat"), NULL);
		waits += cat && !strcmp(cat, "cpu.wait");
	}
	if (waits < 3 * o->frames)
		fail("trace: %zu cpu.wait slices, expected at least %" PRIu64, waits, 3 * o->frames);
	pp_json_read_free(trace);
}

/* CPU cost of recording. The pass's "cpu" object, or NULL after a failure. */
static const jv *pass_cpu(const jv *pass, const char *what)
{
	const jv *cpu = get(pass, "cpu");
	if (!cpu || !pp_json_read_is_object(cpu)) {
		fail("%s: no cpu object (recording cost not measured)", what);
		return NULL;
	}
	return cpu;
}

/* "light" (10 draws) then "heavy" (--draws) per frame: recording the heavy pass costs more
 * thread CPU time in every frame. The ordering is by a factor of --draws/10, so no timing
 * margin decides it. */
static void check_cpu_work(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(frame_passes(f), 2, what, "number of passes");
		if (frame_passes(f) != 2)
			continue;
		const jv *light = pass_at(f, 0), *heavy = pass_at(f, 1);
		expect_str(light, "name", "light", what);
		expect_str(heavy, "name", "heavy", what);
		const jv *cl = pass_cpu(light, "light"), *ch = pass_cpu(heavy, "heavy");
		if (!cl || !ch)
			continue;
		uint64_t tl = u64(cl, "thread_cpu_ns", what), th = u64(ch, "thread_cpu_ns", what);
		/* One command buffer, one thread: "heavy"'s span begins where "light"'s ended
		 * (docs/report-format.md, "CPU cost objects"), so the labels between them are
		 * "heavy"'s and nothing between the two passes is lost. */
		uint64_t end_light = u64(cl, "begin_ns", what) + u64(cl, "wall_ns", what);
		if (u64(ch, "begin_ns", what) != end_light)
			fail("%s: 'heavy' CPU span begins at %" PRIu64 ", not where 'light' ended (%" PRIu64 ")", what,
			     u64(ch, "begin_ns", what), end_light);
		if (!(th > tl))
			fail("%s: recording 'heavy' (%" PRIu64 " draws) took %" PRIu64 " ns of CPU, not more than "
			     "'light' (10 draws, %" PRIu64 " ns)", what, o->draws, th, tl);
		/* The frame's CPU total holds both recordings and the submit call. */
		const jv *fc = get(f, "cpu");
		if (!fc || !pp_json_read_is_object(fc))
			fail("%s: no frame cpu object", what);
		else if (u64(fc, "thread_cpu_ns", what) < tl + th)
			fail("%s: frame CPU total below the sum of its recordings", what);
		/* Software counters are measured here; hardware ones may be null but never 0 by
		 * convention: a present counter object names every configured event. */
		const jv *counters = get(ch, "counters");
		if (!counters || !pp_json_read_is_object(counters) || pp_json_read_object_size(counters) == 0)
			fail("%s: cpu.counters missing or empty", what);
	}
	pp_json_read_free(r.root);
}

/* Two threads record at once: "busy" burns 20 ms of its own CPU inside its pass, "idle"
 * sleeps 20 ms inside its pass. Each pass carries its own thread's counters. */
static void check_cpu_threads(const struct options *o)
{
	struct report r;
	if (!report_load(&r, o->dir, o->frames))
		return;
	for (size_t i = 0; i < r.nframes; i++) {
		const jv *f = frame_at(&r, i);
		char what[96];
		snprintf(what, sizeof(what), "frame %zu", i);
		expect_u64(frame_passes(f), 2, what, "number of passes");
		if (frame_passes(f) != 2)
			continue;
		const jv *busy = pass_at(f, 0), *idle = pass_at(f, 1);
		expect_str(busy, "name", "busy", what);
		expect_str(idle, "name", "idle", what);
		const jv *cb = pass_cpu(busy, "busy"), *ci = pass_cpu(idle, "idle");
		if (!cb || !ci)
			continue;
		uint64_t tb = u64(cb, "tid", what), ti = u64(ci, "tid", what);
		if (tb == ti)
			fail("%s: both passes report thread %" PRIu64 ": recordings on two threads were mixed", what, tb);
		uint64_t busy_cpu = u64(cb, "thread_cpu_ns", what), idle_cpu = u64(ci, "thread_cpu_ns", what);
		uint64_t idle_wall = u64(ci, "wall_ns", what);
		if (busy_cpu < 18000000)
			fail("%s: 'busy' burnt 20 ms of its thread's CPU, reported %" PRIu64 " ns", what, busy_cpu);
		if (idle_cpu > 10000000)
			fail("%s: 'idle' slept; its thread used %" PRIu64 " ns of CPU: another thread's counts?", what,
			     idle_cpu);
		if (idle_wall < 18000000)
			fail("%s: 'idle' slept 20 ms inside its pass, wall time %" PRIu64 " ns", what, idle_wall);
	}
	pp_json_read_free(r.root);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: integ_check CHECK DIR [--key value ...]\n");
		return 2;
	}
	static const struct {
		const char *name;
		void (*fn)(const struct options *);
	} checks[] = {
		{ "counts", check_counts },
		{ "load", check_load },
		{ "resubmit", check_resubmit },
		{ "simultaneous", check_simultaneous },
		{ "secondary", check_secondary },
		{ "suspend-resume", check_suspend_resume },
		{ "free-pending", check_free_pending },
		{ "compute-transfer", check_compute_transfer },
		{ "state-before-pipeline", check_state_before_pipeline },
		{ "multi-submit", check_multi_submit },
		{ "trace", check_trace },
		{ "csv", check_csv },
		{ "spy", check_spy },
		{ "cpu-work", check_cpu_work },
		{ "frames", check_frames },
		{ "present", check_present },
		{ "frame-clock", check_frame_clock },
		{ "blocked", check_blocked },
		{ "cpu-threads", check_cpu_threads },
		{ "shape", check_shape },
	};
	struct options o;
	if (!strcmp(argv[1], "trace") || !strcmp(argv[1], "csv"))
		expected_delimiter = NULL;
	options_parse(&o, argc - 3, argv + 3);
	o.dir = argv[2];
	check_name = argv[1];
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (!strcmp(argv[1], checks[i].name)) {
			checks[i].fn(&o);
			if (failures)
				printf("%s: %d assertion(s) failed on %s\n", check_name, failures, o.dir);
			return failures ? 1 : 0;
		}
	fprintf(stderr, "integ_check: unknown check %s\n", argv[1]);
	return 2;
}
