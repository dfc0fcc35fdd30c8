/* `passprobe compare A B`: per pass (name and kind), the GPU time and CPU recording cost of
 * two runs side by side, whether each change is beyond the runs' frame-to-frame noise, the
 * passes only one run has, the diagnostics that appeared or disappeared; an exit status for
 * CI (--fail-above). The noise rule is written in docs/cli.md. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"
#include "pp_summary.h"
#include "passprobe_compare.h"
#include "pp_noise.h"

/* compare's own exit statuses (docs/cli.md): 1 is a regression beyond the limits asked for,
 * so a report that cannot be read or compared gets its own. */
#define CMP_EXIT_REGRESSION 1
#define CMP_EXIT_UNREADABLE 3

#define CMP_DEFAULT_NOISE_K 1.0
#define CMP_DEFAULT_MIN_CHANGE 0.05

void passprobe_compare_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe compare [options] A B\n"
		"\n"
		"Compares two passprobe runs (A the baseline, B the new one; each an output\n"
		"directory or a report.json): per pass, instances per frame, p50/p95 GPU time and\n"
		"CPU recording cost in both, the change, and whether it is beyond the runs'\n"
		"frame-to-frame noise; passes only in one run; diagnostics that appeared or\n"
		"disappeared.\n"
		"\n"
		"options:\n"
		"  --fail-above P%%    exit 1 when a pass's METRIC grew by more than P percent and\n"
		"                     beyond noise (e.g. --fail-above 10%%)\n"
		"  --metric METRIC    what --fail-above checks: gpu-p50 (default), gpu-p95,\n"
		"                     cpu-p50 (CPU recording cost)\n"
		"  --fail-on-new-diagnostics\n"
		"                     exit 1 when B has a warning A does not (information\n"
		"                     does not count)\n"
		"  --noise K          a change must exceed K times the larger spread of the two\n"
		"                     runs (p50: interquartile range; p95: p95 - p50; default %g)\n"
		"  --min-change P%%    and at least P percent of A's value (default %g%%)\n"
		"  --same-device      refuse (exit 3) runs on different devices instead of warning\n"
		"  --json             write the comparison as JSON on stdout\n"
		"  -h, --help         show this help\n"
		"\n"
		"exit status: 0 nothing beyond the limits, 1 a regression beyond them, 2 a usage\n"
		"error, 3 a report that cannot be read or compared\n",
		CMP_DEFAULT_NOISE_K, CMP_DEFAULT_MIN_CHANGE * 100);
}

/* ------------------------------------------------------------------------------------------
 * Samples and their statistics
 * ----------------------------------------------------------------------------------------*/
static int samples_add(struct cmp_samples *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static int double_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b;
}

/* Nearest rank: the smallest value with at least ceil(q n) samples at or below it, as the
 * summary's percentiles are defined (there from a histogram, here exact). */
static double sorted_quantile(const double *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static struct cmp_stat samples_stat(struct cmp_samples *s)
{
	struct cmp_stat st = { NAN, NAN, NAN, NAN, s->n, false };
	if (!s->n)
		return st;
	qsort(s->v, s->n, sizeof(*s->v), double_cmp);
	st.p50 = sorted_quantile(s->v, s->n, 0.50);
	st.p95 = sorted_quantile(s->v, s->n, 0.95);
	st.q1 = sorted_quantile(s->v, s->n, 0.25);
	st.q3 = sorted_quantile(s->v, s->n, 0.75);
	return st;
}

/* ------------------------------------------------------------------------------------------
 * One run
 * ----------------------------------------------------------------------------------------*/
static uint64_t pass_hash(const char *name, const char *kind)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = kind; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static long run_pass_find(const struct cmp_run *r, const char *name, const char *kind)
{
	if (!r->nslots)
		return -1;
	size_t mask = r->nslots - 1;
	for (size_t i = (size_t)pass_hash(name, kind) & mask;; i = (i + 1) & mask) {
		uint32_t s = r->slots[i];
		if (!s)
			return -1;
		const struct cmp_pass *p = &r->passes[s - 1];
		if (strcmp(p->name, name) == 0 && strcmp(p->kind, kind) == 0)
			return (long)s - 1;
	}
}

static int run_slots_grow(struct cmp_run *r)
{
	size_t n = r->nslots ? r->nslots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(r->slots);
	r->slots = slots;
	r->nslots = n;
	for (size_t k = 0; k < r->npasses; k++) {
		size_t i = (size_t)pass_hash(r->passes[k].name, r->passes[k].kind) & (n - 1);
		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = (uint32_t)k + 1;
	}
	return 0;
}

/* The pass (name, kind), made when new; NULL when out of memory. */
static struct cmp_pass *run_pass_get(struct cmp_run *r, const char *name, const char *kind)
{
	long i = run_pass_find(r, name, kind);
	if (i >= 0)
		return &r->passes[i];
	if ((r->npasses + 1) * 2 > r->nslots && run_slots_grow(r))
		return NULL;
	if (r->npasses == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct cmp_pass *np = realloc(r->passes, cap * sizeof(*np));
		if (!np)
			return NULL;
		r->passes = np;
		r->cap = cap;
	}
	struct cmp_pass *p = &r->passes[r->npasses++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->kind, sizeof(p->kind), "%s", kind);
	p->per_frame = NAN;
	p->other = -1;
	size_t mask = r->nslots - 1;
	size_t i2 = (size_t)pass_hash(name, kind) & mask;
	while (r->slots[i2])
		i2 = (i2 + 1) & mask;
	r->slots[i2] = (uint32_t)r->npasses;
	return p;
}

static void run_free(struct cmp_run *r)
{
	for (size_t i = 0; i < r->npasses; i++) {
		free(r->passes[i].gpu.v);
		free(r->passes[i].cpu.v);
	}
	free(r->passes);
	free(r->slots);
	free(r->frame_gpu.v);
	free(r->diags);
	passprobe_load_report_free(&r->rep);
}

/* A number member, NAN when null or absent; false when it is there with another type. */
static bool get_number_or_null(const struct pp_json_value *obj, const char *key, double *out)
{
	const struct pp_json_value *v = pp_json_read_object_get(obj, key);
	*out = NAN;
	if (!v || pp_json_read_is_null(v))
		return true;
	return pp_json_read_get_double(v, out);
}

static int run_from_frames(struct cmp_run *r, const struct pp_json_value *frames)
{
	size_t nf = pp_json_read_array_size(frames), kept = 0;
	for (size_t f = 0; f < nf; f++) {
		const struct pp_json_value *fr = pp_json_read_array_at(frames, f);
		double gpu;
		/* Frames passprobe rewrote for its experiment measure a fix, not the program
		 * (docs/diagnostics.md, "Experiment mode"): left out, as from the summary. */
		bool modified = false;
		if (pp_json_read_get_bool(pp_json_read_object_get(fr, "experiment_modified"), &modified) && modified)
			continue;
		kept++;
		if (!pp_json_read_is_object(fr) || !get_number_or_null(fr, "gpu_ns", &gpu)) {
			fprintf(stderr, "passprobe: %s: frames[%zu]: expected an object with a numeric "
					"\"gpu_ns\" (or null)\n",
				r->rep.path, f);
			return -EINVAL;
		}
		if (!isnan(gpu) && samples_add(&r->frame_gpu, gpu))
			return -ENOMEM;
		const struct pp_json_value *passes = pp_json_read_object_get(fr, "passes");
		size_t np = pp_json_read_array_size(passes);
		for (size_t i = 0; i < np; i++) {
			const struct pp_json_value *p = pp_json_read_array_at(passes, i);
			const char *name = pp_json_read_get_string(pp_json_read_object_get(p, "name"), NULL);
			const char *kind = pp_json_read_get_string(pp_json_read_object_get(p, "kind"), NULL);
			double g, c = NAN;
			if (!name || !kind || !get_number_or_null(p, "gpu_ns", &g) ||
			    !get_number_or_null(pp_json_read_object_get(p, "cpu"), "thread_cpu_ns", &c)) {
				fprintf(stderr, "passprobe: %s: frames[%zu].passes[%zu]: expected \"name\" "
						"and \"kind\" strings, numbers (or null) for \"gpu_ns\" and "
						"\"cpu.thread_cpu_ns\"\n",
					r->rep.path, f, i);
				return -EINVAL;
			}
			struct cmp_pass *cp = run_pass_get(r, name, kind);
			if (!cp)
				return -ENOMEM;
			cp->instances++;
			if ((!isnan(g) && samples_add(&cp->gpu, g)) ||
			    (!isnan(c) && samples_add(&cp->cpu, c)))
				return -ENOMEM;
		}
	}
	r->frames = kept;
	r->fg = samples_stat(&r->frame_gpu);
	for (size_t i = 0; i < r->npasses; i++) {
		struct cmp_pass *p = &r->passes[i];
		p->g = samples_stat(&p->gpu);
		p->c = samples_stat(&p->cpu);
		p->per_frame = kept ? (double)p->instances / (double)kept : NAN;
	}
	return 0;
}

/* No frames kept (an empty window): the summary's percentiles, without a spread. */
static int run_from_summary(struct cmp_run *r)
{
	struct pp_summary sum;
	char err[512];
	int rc = pp_summary_read_from_json(r->rep.root, &sum, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "passprobe: %s: %s\n", r->rep.path, err);
		pp_summary_free(&sum);
		return rc;
	}
	r->frames = sum.frames;
	r->fg = (struct cmp_stat){ sum.frame_gpu_p50_ns, sum.frame_gpu_p95_ns, NAN, NAN, 0, true };
	for (size_t i = 0; i < sum.nrows; i++) {
		const struct pp_summary_row *row = &sum.rows[i];
		struct cmp_pass *p = run_pass_get(r, row->name, row->kind);
		if (!p) {
			pp_summary_free(&sum);
			return -ENOMEM;
		}
		p->instances = row->count;
		p->per_frame = row->per_frame;
		p->g = (struct cmp_stat){ row->gpu_p50_ns, row->gpu_p95_ns, NAN, NAN, row->measured,
					  true };
		/* The summary keeps only the mean recording cost: it stands for the p50. */
		p->c = (struct cmp_stat){ row->cpu_record_mean_ns, NAN, NAN, NAN, 0, true };
	}
	pp_summary_free(&sum);
	return 0;
}

/* The site without what changes between runs or builds of the same program: the code offset
 * ("+0x1a2b"), the command buffer handle and call index, the waiting thread's id. */
static void diag_key(const char *id, const char *site, char *out, size_t len)
{
	size_t o = (size_t)snprintf(out, len, "%s @ ", id);
	if (o >= len)
		return;
	for (const char *p = site ? site : ""; *p && o + 1 < len;) {
		if (strncmp(p, " (command buffer ", 17) == 0 || strncmp(p, " on thread ", 11) == 0)
			break;
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x') {
			p += 3;
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
			       (*p >= 'A' && *p <= 'F'))
				p++;
			continue;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
}

static int run_diagnostics(struct cmp_run *r)
{
	const struct pp_json_value *d = pp_json_read_object_get(r->rep.root, "diagnostics");
	if (d && !pp_json_read_is_array(d)) {
		fprintf(stderr, "passprobe: %s: \"diagnostics\" must be an array\n", r->rep.path);
		return -EINVAL;
	}
	size_t n = pp_json_read_array_size(d);
	r->diags = n ? calloc(n, sizeof(*r->diags)) : NULL;
	if (n && !r->diags)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pp_json_value *x = pp_json_read_array_at(d, i);
		const char *id = pp_json_read_get_string(pp_json_read_object_get(x, "id"), NULL);
		if (!id) {
			fprintf(stderr, "passprobe: %s: diagnostics[%zu].id: expected a string\n",
				r->rep.path, i);
			return -EINVAL;
		}
		const char *site = pp_json_read_get_string(pp_json_read_object_get(x, "site"), NULL);
		char key[512];
		diag_key(id, site, key, sizeof(key));
		/* Sites that differ only in what the key leaves out are one site here. */
		struct cmp_diag *c = NULL;
		for (size_t k = 0; k < r->ndiags; k++)
			if (strcmp(r->diags[k].key, key) == 0)
				c = &r->diags[k];
		uint64_t count = 0, frames = 0;
		double cost = NAN;
		const char *severity = pp_json_read_get_string(pp_json_read_object_get(x, "severity"), NULL);
		bool info = severity && !strcmp(severity, "info");
		pp_json_read_get_uint64(pp_json_read_object_get(x, "count"), &count);
		pp_json_read_get_uint64(pp_json_read_object_get(x, "frames"), &frames);
		pp_json_read_get_double(pp_json_read_object_get(x, "cost_ns"), &cost);
		if (!c) {
			c = &r->diags[r->ndiags++];
			c->id = id;
			c->site = site ? site : "";
			c->message = pp_json_read_get_string(pp_json_read_object_get(x, "message"), NULL);
			memcpy(c->key, key, sizeof(key));
			c->cost_ns = cost;
			c->info = info;
		} else {
			if (!isnan(cost))
				c->cost_ns = isnan(c->cost_ns) ? cost : c->cost_ns + cost;
			/* Sites counted as one: a warning if any of them is. */
			c->info = c->info && info;
		}
		c->count += count;
		c->frames = frames > c->frames ? frames : c->frames;
	}
	return 0;
}

static void run_describe(struct cmp_run *r)
{
	const struct pp_json_value *devs = pp_json_read_object_get(r->rep.root, "devices");
	size_t o = 0;
	for (size_t i = 0; i < pp_json_read_array_size(devs) && o + 1 < sizeof(r->devices); i++) {
		const char *name =
			pp_json_read_get_string(pp_json_read_object_get(pp_json_read_array_at(devs, i), "name"), NULL);
		o += (size_t)snprintf(r->devices + o, sizeof(r->devices) - o, "%s%s", o ? "; " : "",
				      name ? name : "?");
	}
	r->process = pp_json_read_get_string(
		pp_json_read_object_get(pp_json_read_object_get(r->rep.root, "process"), "name"), NULL);
	pp_json_read_get_uint64(pp_json_read_object_get(r->rep.root, "frames_total"), &r->frames_total);
}

/* 0, CMP_EXIT_UNREADABLE after a message. */
static int run_load(struct cmp_run *r, const char *arg)
{
	if (passprobe_load_report(arg, &r->rep) != 0)
		return CMP_EXIT_UNREADABLE;
	run_describe(r);
	const struct pp_json_value *frames = pp_json_read_object_get(r->rep.root, "frames");
	if (frames && !pp_json_read_is_array(frames)) {
		fprintf(stderr, "passprobe: %s: \"frames\" must be an array\n", r->rep.path);
		return CMP_EXIT_UNREADABLE;
	}
	int rc;
	r->from_frames = pp_json_read_array_size(frames) > 0;
	rc = r->from_frames ? run_from_frames(r, frames) : run_from_summary(r);
	if (!rc)
		rc = run_diagnostics(r);
	if (rc == -ENOMEM)
		fprintf(stderr, "passprobe: %s: out of memory while reading it\n", r->rep.path);
	return rc ? CMP_EXIT_UNREADABLE : 0;
}

/* ------------------------------------------------------------------------------------------
 * Judging a change
 * ----------------------------------------------------------------------------------------*/

const char *const passprobe_compare_verdict_names[] = { "unavailable", "not judged", "within noise",
					  "slower", "faster" };
const char *const passprobe_compare_metric_names[] = { "gpu-p50", "gpu-p95", "cpu-p50" };

/* The noise rule of docs/cli.md (pp_noise.c, which the experiment's verdicts share): for a p95,
 * which rests on the few frames of the upper tail, the spread is the tail's width (p95 - p50),
 * for a p50 the middle half's. */
static struct cmp_change judge(const struct cmp_stat *a, const struct cmp_stat *b, bool p95,
			       const struct cmp_opts *o)
{
	struct pp_noise_change n = pp_noise_judge(p95 ? a->p95 : a->p50, p95 ? b->p95 : b->p50,
						  p95 ? a->p95 - a->p50 : a->q3 - a->q1,
						  p95 ? b->p95 - b->p50 : b->q3 - b->q1, a->n, b->n,
						  !a->from_summary && !b->from_summary, o->noise_k, o->min_change);
	return (struct cmp_change){ n.a, n.b, n.delta, n.rel, n.noise, (enum cmp_verdict)n.v };
}

/* The metric --fail-above checks crossed the limit. */
bool passprobe_compare_regressed(const struct cmp_change *c, const struct cmp_opts *o)
{
	return !isnan(o->fail_above) && c->v == CMP_UP && c->rel > o->fail_above;
}

const struct cmp_change *passprobe_compare_metric_change(const struct cmp_row *r, const struct cmp_opts *o)
{
	return o->metric == 0 ? &r->g50 : o->metric == 1 ? &r->g95 : &r->c50;
}

/* ------------------------------------------------------------------------------------------
 * Command
 * ----------------------------------------------------------------------------------------*/

/* "10%", "10" or "0.5%": a fraction >= 0. */
static bool parse_percent(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return false;
	if (*end == '%')
		end++;
	if (*end)
		return false;
	*out = v / 100.0;
	return true;
}

static int row_weight_cmp(const void *pa, const void *pb)
{
	const struct cmp_row *a = pa, *b = pb;
	bool na = isnan(a->weight), nb = isnan(b->weight);
	if (na != nb)
		return na ? 1 : -1;
	if (!na && a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return 0;
}

static double gpu_per_frame(const struct cmp_pass *p)
{
	return p ? p->g.p50 * p->per_frame : NAN;
}

static int compare_parse(int argc, char **argv, struct cmp_opts *o, const char **paths)
{
	size_t npaths = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			passprobe_compare_usage(stdout);
			return -1;
		}
		const char *val = NULL;
		static const char *const with_value[] = { "--fail-above", "--metric", "--noise",
							  "--min-change" };
		int opt = -1;
		for (int k = 0; k < 4; k++) {
			size_t l = strlen(with_value[k]);
			if (strncmp(a, with_value[k], l) == 0 && (a[l] == '=' || !a[l])) {
				opt = k;
				if (a[l] == '=') {
					val = a + l + 1;
				} else if (i + 1 < argc) {
					val = argv[++i];
				} else {
					fprintf(stderr, "passprobe compare: %s needs a value\n\n", a);
					passprobe_compare_usage(stderr);
					return CLI_EXIT_USAGE;
				}
			}
		}
		bool ok = true;
		if (opt == 0) {
			ok = parse_percent(val, &o->fail_above);
		} else if (opt == 1) {
			o->metric = -1;
			for (int k = 0; k < 3; k++)
				if (strcmp(val, passprobe_compare_metric_names[k]) == 0)
					o->metric = k;
			ok = o->metric >= 0;
		} else if (opt == 2) {
			char *end;
			o->noise_k = strtod(val, &end);
			ok = end != val && !*end && isfinite(o->noise_k) && o->noise_k >= 0;
		} else if (opt == 3) {
			ok = parse_percent(val, &o->min_change);
		} else if (strcmp(a, "--fail-on-new-diagnostics") == 0) {
			o->fail_new_diag = true;
		} else if (strcmp(a, "--same-device") == 0) {
			o->same_device = true;
		} else if (strcmp(a, "--json") == 0) {
			o->json = true;
		} else if (strcmp(a, "--") == 0) {
			while (++i < argc && npaths < 3)
				paths[npaths++] = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "passprobe compare: unknown option '%s'\n\n", a);
			passprobe_compare_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (npaths < 3) {
			paths[npaths++] = a;
		}
		if (!ok) {
			static const char *const allowed[] = {
				"a percentage >= 0 such as 10%", "gpu-p50, gpu-p95 or cpu-p50",
				"a number >= 0", "a percentage >= 0 such as 5%",
			};
			fprintf(stderr, "passprobe compare: %s: '%s' is not valid; allowed: %s\n",
				with_value[opt], val, allowed[opt]);
			return CLI_EXIT_USAGE;
		}
	}
	if (npaths != 2) {
		fprintf(stderr, "passprobe compare: expected two reports (A B), got %zu\n\n", npaths);
		passprobe_compare_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static bool scalar_equal(const struct pp_json_value *x, const struct pp_json_value *y)
{
	double dx, dy;
	bool bx, by;
	if (pp_json_read_type_of(x) != pp_json_read_type_of(y))
		return false;
	if (pp_json_read_get_double(x, &dx) && pp_json_read_get_double(y, &dy))
		return dx == dy;
	if (pp_json_read_get_bool(x, &bx) && pp_json_read_get_bool(y, &by))
		return bx == by;
	if (pp_json_read_is_string(x)) {
		size_t lx, ly;
		const char *sx = pp_json_read_get_string(x, &lx), *sy = pp_json_read_get_string(y, &ly);
		return lx == ly && memcmp(sx, sy, lx) == 0;
	}
	return pp_json_read_is_null(x);
}

/* One warning naming the settings that change what is measured and differ between the runs
 * (report.json's "settings"; older reports have none). */
static void compare_settings(const struct cmp_run *a, const struct cmp_run *b)
{
	static const char *const no_effect[] = { "log_level", "flush_interval_ms", "trace", "csv",
						 "summary" };
	const struct pp_json_value *sa = pp_json_read_object_get(a->rep.root, "settings");
	const struct pp_json_value *sb = pp_json_read_object_get(b->rep.root, "settings");
	char list[512] = "";
	size_t o = 0;
	for (size_t i = 0; i < pp_json_read_object_size(sa) && o + 1 < sizeof(list); i++) {
		const struct pp_json_member *m = pp_json_read_object_at(sa, i);
		bool skip = false;
		for (size_t k = 0; k < sizeof(no_effect) / sizeof(no_effect[0]); k++)
			skip |= strcmp(m->key, no_effect[k]) == 0;
		const struct pp_json_value *vb = pp_json_read_object_get(sb, m->key);
		if (skip || !vb || scalar_equal(&m->value, vb))
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " : "", m->key);
	}
	if (o)
		fprintf(stderr, "passprobe: warning: the runs used different settings (%s): the "
				"differences include theirs\n",
			list);
}

/* Warnings for runs that may not be comparable; CMP_EXIT_UNREADABLE when refused. */
static int compare_check_match(const struct cmp_run *a, const struct cmp_run *b,
			       const struct cmp_opts *o)
{
	if (a->rep.version != b->rep.version)
		fprintf(stderr, "passprobe: warning: A (%s) is report format version %lld, B (%s) "
				"version %lld; comparing what both have\n",
			a->rep.path, (long long)a->rep.version, b->rep.path,
			(long long)b->rep.version);
	if (strcmp(a->devices, b->devices) != 0) {
		if (o->same_device) {
			fprintf(stderr, "passprobe: A (%s) ran on '%s', B (%s) on '%s'; --same-device "
					"refuses runs on different devices\n",
				a->rep.path, a->devices, b->rep.path, b->devices);
			return CMP_EXIT_UNREADABLE;
		}
		fprintf(stderr, "passprobe: warning: A ran on '%s', B on '%s': the differences include "
				"the device's\n",
			a->devices, b->devices);
	}
	compare_settings(a, b);
	if (a->process && b->process && strcmp(a->process, b->process) != 0)
		fprintf(stderr, "passprobe: warning: A profiled process '%s', B '%s'\n", a->process,
			b->process);
	return 0;
}

int passprobe_compare_main(int argc, char **argv)
{
	struct cmp_opts o = { CMP_DEFAULT_NOISE_K, CMP_DEFAULT_MIN_CHANGE, NAN, 0, false, false,
			      false };
	const char *paths[3] = { NULL, NULL, NULL };
	int rc = compare_parse(argc, argv, &o, paths);
	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;

	struct cmp_run a = { .label = "A" }, b = { .label = "B" };
	struct cmp_row *rows = NULL;
	rc = run_load(&a, paths[0]);
	if (!rc)
		rc = run_load(&b, paths[1]);
	if (!rc)
		rc = compare_check_match(&a, &b, &o);
	if (rc)
		goto out;

	rows = calloc(a.npasses + b.npasses + 1, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "passprobe: out of memory\n");
		rc = CMP_EXIT_UNREADABLE;
		goto out;
	}
	size_t nrows = 0, nregressed = 0, nnew = 0;
	for (size_t i = 0; i < a.npasses; i++) {
		struct cmp_row *r = &rows[nrows++];
		r->a = &a.passes[i];
		long k = run_pass_find(&b, r->a->name, r->a->kind);
		if (k >= 0) {
			b.passes[k].other = (long)i;
			r->b = &b.passes[k];
		}
	}
	for (size_t i = 0; i < b.npasses; i++)
		if (b.passes[i].other < 0)
			rows[nrows++].b = &b.passes[i];
	for (size_t i = 0; i < nrows; i++) {
		struct cmp_row *r = &rows[i];
		if (r->a && r->b) {
			r->g50 = judge(&r->a->g, &r->b->g, false, &o);
			r->g95 = judge(&r->a->g, &r->b->g, true, &o);
			r->c50 = judge(&r->a->c, &r->b->c, false, &o);
			r->weight = fabs(gpu_per_frame(r->b) - gpu_per_frame(r->a));
			nregressed += passprobe_compare_regressed(passprobe_compare_metric_change(r, &o), &o);
		} else {
			r->weight = fabs(gpu_per_frame(r->a ? r->a : r->b));
			struct cmp_change none = { NAN, NAN, NAN, NAN, NAN, CMP_UNAVAILABLE };
			r->g50 = r->g95 = r->c50 = none;
		}
	}
	qsort(rows, nrows, sizeof(*rows), row_weight_cmp);
	struct cmp_row frame = { .g50 = judge(&a.fg, &b.fg, false, &o),
				 .g95 = judge(&a.fg, &b.fg, true, &o) };
	/* New warnings: B's warnings that A had not, or had as information. Information that
	 * appears does not fail a build (docs/diagnostics.md, "Severity"). */
	for (size_t i = 0; i < b.ndiags; i++) {
		bool warned_in_a = false;
		for (size_t k = 0; k < a.ndiags; k++) {
			if (strcmp(a.diags[k].key, b.diags[i].key) == 0) {
				a.diags[k].matched = b.diags[i].matched = true;
				warned_in_a = !a.diags[k].info;
				break;
			}
		}
		nnew += !b.diags[i].info && !warned_in_a;
	}

	if (o.json) {
		if (passprobe_compare_print_json(&a, &b, rows, nrows, &frame, &o, nregressed, nnew))
			fprintf(stderr, "passprobe: writing the comparison failed\n");
	} else {
		passprobe_compare_print_text(&a, &b, rows, nrows, &frame, &o);
	}
	rc = CLI_EXIT_OK;
	if (!isnan(o.fail_above)) {
		fprintf(o.json ? stderr : stdout, "\n%s: %zu pass%s grew more than %g%% beyond noise "
						   "(%s)\n",
			nregressed ? "FAIL" : "ok", nregressed, nregressed == 1 ? "" : "es",
			o.fail_above * 100, passprobe_compare_metric_names[o.metric]);
		if (nregressed)
			rc = CMP_EXIT_REGRESSION;
	}
	if (o.fail_new_diag) {
		fprintf(o.json ? stderr : stdout, "%s: %zu new warning%s in B (information not counted)\n",
			nnew ? "FAIL" : "ok", nnew, nnew == 1 ? "" : "s");
		if (nnew)
			rc = CMP_EXIT_REGRESSION;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "passprobe: writing the comparison failed: %s\n", strerror(errno));
		rc = CMP_EXIT_UNREADABLE;
	}
out:
	free(rows);
	run_free(&a);
	run_free(&b);
	return rc;
}
