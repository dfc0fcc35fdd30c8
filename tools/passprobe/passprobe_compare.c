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
#include "passprobe_cli.h"

/* compare's own exit statuses (docs/cli.md): 1 is a regression beyond the limits asked for,
 * so a report that cannot be read or compared gets its own. */
#define CMP_EXIT_REGRESSION 1
#define CMP_EXIT_UNREADABLE 3

/* Fewer samples than this in either run: the interquartile range says nothing, so the
 * change is not judged. */
#define CMP_MIN_SAMPLES 8
#define CMP_DEFAULT_NOISE_K 1.0
#define CMP_DEFAULT_MIN_CHANGE 0.05

void cli_compare_usage(FILE *f)
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
		"                     exit 1 when B has a diagnostic A does not\n"
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

struct cmp_samples {
	double *v;
	size_t n, cap;
};

/* NAN where there is no sample. */
struct cmp_stat {
	double p50, p95, q1, q3;
	size_t n;
	bool from_summary; /* p50/p95 copied from the summary: no spread known */
};

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

struct cmp_pass {
	char name[64], kind[16];
	uint64_t instances;
	struct cmp_samples gpu, cpu;
	struct cmp_stat g, c;
	double per_frame;
	long other;        /* index of the same pass in the other run, -1 when none */
};

struct cmp_diag {
	const char *id, *site, *message;
	char key[512];     /* id and site without what changes from run to run */
	uint64_t count, frames;
	double cost_ns;    /* NAN when not measured */
	bool matched;
};

struct cmp_run {
	const char *label; /* "A", "B" */
	struct cli_report rep;
	bool from_frames;  /* statistics from the frames kept in report.json, else the summary */
	uint64_t frames, frames_total;
	struct cmp_samples frame_gpu;
	struct cmp_stat fg;
	struct cmp_pass *passes;
	size_t npasses, cap;
	uint32_t *slots;   /* open addressing over passes: index + 1, 0 empty */
	size_t nslots;
	struct cmp_diag *diags;
	size_t ndiags;
	char devices[512]; /* device names, "; "-separated */
	const char *process;
};

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
	cli_report_free(&r->rep);
}

/* A number member, NAN when null or absent; false when it is there with another type. */
static bool get_number_or_null(const struct pp_json_value *obj, const char *key, double *out)
{
	const struct pp_json_value *v = pp_json_object_get(obj, key);
	*out = NAN;
	if (!v || pp_json_is_null(v))
		return true;
	return pp_json_get_double(v, out);
}

static int run_from_frames(struct cmp_run *r, const struct pp_json_value *frames)
{
	size_t nf = pp_json_array_size(frames);
	for (size_t f = 0; f < nf; f++) {
		const struct pp_json_value *fr = pp_json_array_at(frames, f);
		double gpu;
		if (!pp_json_is_object(fr) || !get_number_or_null(fr, "gpu_ns", &gpu)) {
			fprintf(stderr, "passprobe: %s: frames[%zu]: expected an object with a numeric "
					"\"gpu_ns\" (or null)\n",
				r->rep.path, f);
			return -EINVAL;
		}
		if (!isnan(gpu) && samples_add(&r->frame_gpu, gpu))
			return -ENOMEM;
		const struct pp_json_value *passes = pp_json_object_get(fr, "passes");
		size_t np = pp_json_array_size(passes);
		for (size_t i = 0; i < np; i++) {
			const struct pp_json_value *p = pp_json_array_at(passes, i);
			const char *name = pp_json_get_string(pp_json_object_get(p, "name"), NULL);
			const char *kind = pp_json_get_string(pp_json_object_get(p, "kind"), NULL);
			double g, c = NAN;
			if (!name || !kind || !get_number_or_null(p, "gpu_ns", &g) ||
			    !get_number_or_null(pp_json_object_get(p, "cpu"), "thread_cpu_ns", &c)) {
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
	r->frames = nf;
	r->fg = samples_stat(&r->frame_gpu);
	for (size_t i = 0; i < r->npasses; i++) {
		struct cmp_pass *p = &r->passes[i];
		p->g = samples_stat(&p->gpu);
		p->c = samples_stat(&p->cpu);
		p->per_frame = nf ? (double)p->instances / (double)nf : NAN;
	}
	return 0;
}

/* No frames kept (an empty window): the summary's percentiles, without a spread. */
static int run_from_summary(struct cmp_run *r)
{
	struct pp_summary sum;
	char err[512];
	int rc = pp_summary_from_json(r->rep.root, &sum, err, sizeof(err));
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
	const struct pp_json_value *d = pp_json_object_get(r->rep.root, "diagnostics");
	if (d && !pp_json_is_array(d)) {
		fprintf(stderr, "passprobe: %s: \"diagnostics\" must be an array\n", r->rep.path);
		return -EINVAL;
	}
	size_t n = pp_json_array_size(d);
	r->diags = n ? calloc(n, sizeof(*r->diags)) : NULL;
	if (n && !r->diags)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pp_json_value *x = pp_json_array_at(d, i);
		const char *id = pp_json_get_string(pp_json_object_get(x, "id"), NULL);
		if (!id) {
			fprintf(stderr, "passprobe: %s: diagnostics[%zu].id: expected a string\n",
				r->rep.path, i);
			return -EINVAL;
		}
		const char *site = pp_json_get_string(pp_json_object_get(x, "site"), NULL);
		char key[512];
		diag_key(id, site, key, sizeof(key));
		/* Sites that differ only in what the key leaves out are one site here. */
		struct cmp_diag *c = NULL;
		for (size_t k = 0; k < r->ndiags; k++)
			if (strcmp(r->diags[k].key, key) == 0)
				c = &r->diags[k];
		uint64_t count = 0, frames = 0;
		double cost = NAN;
		pp_json_get_uint64(pp_json_object_get(x, "count"), &count);
		pp_json_get_uint64(pp_json_object_get(x, "frames"), &frames);
		pp_json_get_double(pp_json_object_get(x, "cost_ns"), &cost);
		if (!c) {
			c = &r->diags[r->ndiags++];
			c->id = id;
			c->site = site ? site : "";
			c->message = pp_json_get_string(pp_json_object_get(x, "message"), NULL);
			memcpy(c->key, key, sizeof(key));
			c->cost_ns = cost;
		} else if (!isnan(cost)) {
			c->cost_ns = isnan(c->cost_ns) ? cost : c->cost_ns + cost;
		}
		c->count += count;
		c->frames = frames > c->frames ? frames : c->frames;
	}
	return 0;
}

static void run_describe(struct cmp_run *r)
{
	const struct pp_json_value *devs = pp_json_object_get(r->rep.root, "devices");
	size_t o = 0;
	for (size_t i = 0; i < pp_json_array_size(devs) && o + 1 < sizeof(r->devices); i++) {
		const char *name =
			pp_json_get_string(pp_json_object_get(pp_json_array_at(devs, i), "name"), NULL);
		o += (size_t)snprintf(r->devices + o, sizeof(r->devices) - o, "%s%s", o ? "; " : "",
				      name ? name : "?");
	}
	r->process = pp_json_get_string(
		pp_json_object_get(pp_json_object_get(r->rep.root, "process"), "name"), NULL);
	pp_json_get_uint64(pp_json_object_get(r->rep.root, "frames_total"), &r->frames_total);
}

/* 0, CMP_EXIT_UNREADABLE after a message. */
static int run_load(struct cmp_run *r, const char *arg)
{
	if (cli_report_load(arg, &r->rep) != 0)
		return CMP_EXIT_UNREADABLE;
	run_describe(r);
	const struct pp_json_value *frames = pp_json_object_get(r->rep.root, "frames");
	if (frames && !pp_json_is_array(frames)) {
		fprintf(stderr, "passprobe: %s: \"frames\" must be an array\n", r->rep.path);
		return CMP_EXIT_UNREADABLE;
	}
	int rc;
	r->from_frames = pp_json_array_size(frames) > 0;
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

enum cmp_verdict { CMP_UNAVAILABLE, CMP_UNJUDGED, CMP_NOISE, CMP_UP, CMP_DOWN };

static const char *const verdict_names[] = { "unavailable", "not judged", "within noise",
					     "slower", "faster" };

struct cmp_opts {
	double noise_k, min_change, fail_above; /* fail_above NAN: not asked */
	int metric;                             /* 0 gpu-p50, 1 gpu-p95, 2 cpu-p50 */
	bool fail_new_diag, same_device, json;
};

static const char *const metric_names[] = { "gpu-p50", "gpu-p95", "cpu-p50" };

struct cmp_change {
	double a, b, delta, rel, noise; /* noise: the threshold the delta had to pass */
	enum cmp_verdict v;
};

/* The noise rule of docs/cli.md. */
static struct cmp_change judge(const struct cmp_stat *a, const struct cmp_stat *b, bool p95,
			       const struct cmp_opts *o)
{
	struct cmp_change c = { p95 ? a->p95 : a->p50, p95 ? b->p95 : b->p50, NAN, NAN, NAN,
				CMP_UNAVAILABLE };
	if (isnan(c.a) || isnan(c.b))
		return c;
	c.delta = c.b - c.a;
	c.rel = c.a > 0 ? c.delta / c.a : (c.delta == 0 ? 0 : INFINITY);
	if (a->from_summary || b->from_summary || a->n < CMP_MIN_SAMPLES || b->n < CMP_MIN_SAMPLES) {
		c.v = CMP_UNJUDGED;
		return c;
	}
	/* The middle half's width for a p50; for a p95, which rests on the few frames of the
	 * upper tail, the tail's width (p95 - p50). */
	double sa = p95 ? a->p95 - a->p50 : a->q3 - a->q1;
	double sb = p95 ? b->p95 - b->p50 : b->q3 - b->q1;
	c.noise = o->noise_k * (sa > sb ? sa : sb);
	bool beyond = fabs(c.delta) > c.noise && fabs(c.rel) >= o->min_change;
	c.v = !beyond ? CMP_NOISE : c.delta > 0 ? CMP_UP : CMP_DOWN;
	return c;
}

/* The metric --fail-above checks crossed the limit. */
static bool regressed(const struct cmp_change *c, const struct cmp_opts *o)
{
	return !isnan(o->fail_above) && c->v == CMP_UP && c->rel > o->fail_above;
}

/* ------------------------------------------------------------------------------------------
 * Output
 * ----------------------------------------------------------------------------------------*/

static void format_rel(const struct cmp_change *c, char *buf, size_t len)
{
	if (c->v == CMP_UNAVAILABLE)
		snprintf(buf, len, "n/a");
	else if (isinf(c->rel))
		snprintf(buf, len, "new");
	else if (fabs(c->rel) < 0.0995)
		snprintf(buf, len, "%+.1f%%", c->rel * 100);
	else
		snprintf(buf, len, "%+.0f%%", c->rel * 100);
	size_t l = strlen(buf);
	if (c->v == CMP_UP || c->v == CMP_DOWN)
		snprintf(buf + l, len - l, " *");
	else if (c->v == CMP_UNJUDGED)
		snprintf(buf + l, len - l, " ?");
}

static void format_per_frame(double a, double b, char *buf, size_t len)
{
	char sa[24], sb[24];
	snprintf(sa, sizeof(sa), isnan(a) ? "n/a" : "%.3g", a);
	snprintf(sb, sizeof(sb), isnan(b) ? "n/a" : "%.3g", b);
	if (strcmp(sa, sb) == 0)
		snprintf(buf, len, "%s", sa);
	else
		snprintf(buf, len, "%s -> %s", sa, sb);
}

enum { COL_PASS, COL_KIND, COL_PF, COL_GA, COL_GB, COL_GC, COL_G95A, COL_G95B, COL_G95C,
       COL_CA, COL_CB, COL_CC, NCOLS };

static const char *const col_titles[NCOLS] = {
	"pass", "kind", "per frame", "gpu p50 A", "gpu p50 B", "change", "gpu p95 A", "gpu p95 B",
	"change", "cpu rec A", "cpu rec B", "change",
};

struct cmp_row {
	const struct cmp_pass *a, *b;
	struct cmp_change g50, g95, c50;
	double weight; /* |change of GPU time per frame|, the order of the table */
};

struct cmp_cells {
	char text[NCOLS][64];
};

static size_t utf8_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void row_cells(const struct cmp_row *r, struct cmp_cells *c)
{
	const struct cmp_pass *p = r->a ? r->a : r->b;
	snprintf(c->text[COL_PASS], sizeof(c->text[0]), "%.40s", p->name);
	snprintf(c->text[COL_KIND], sizeof(c->text[0]), "%s", p->kind);
	format_per_frame(r->a ? r->a->per_frame : NAN, r->b ? r->b->per_frame : NAN,
			 c->text[COL_PF], sizeof(c->text[0]));
	const struct cmp_change *ch[3] = { &r->g50, &r->g95, &r->c50 };
	for (int k = 0; k < 3; k++) {
		pp_summary_format_ns(ch[k]->a, c->text[COL_GA + 3 * k], sizeof(c->text[0]));
		pp_summary_format_ns(ch[k]->b, c->text[COL_GB + 3 * k], sizeof(c->text[0]));
		format_rel(ch[k], c->text[COL_GC + 3 * k], sizeof(c->text[0]));
	}
}

static void print_cells(const struct cmp_cells *c, const size_t *width)
{
	fputs("  ", stdout);
	for (int col = 0; col < NCOLS; col++) {
		size_t w = utf8_width(c->text[col]);
		size_t pad = width[col] > w ? width[col] - w : 0;
		if (col)
			fputs("  ", stdout);
		if (col <= COL_KIND) {
			fputs(c->text[col], stdout);
			if (col + 1 < NCOLS)
				printf("%*s", (int)pad, "");
		} else {
			printf("%*s%s", (int)pad, "", c->text[col]);
		}
	}
	fputc('\n', stdout);
}

static void print_header(const struct cmp_run *r)
{
	printf("  %s: %s: %llu frames", r->label, r->rep.path, (unsigned long long)r->frames);
	if (r->from_frames && r->frames_total > r->frames)
		printf(" (the last kept of %llu)", (unsigned long long)r->frames_total);
	if (!r->from_frames)
		printf(" (no frames kept: values from its summary, noise not judged)");
	printf(", %s%s%s\n", r->devices[0] ? r->devices : "no device",
	       r->process ? ", process " : "", r->process ? r->process : "");
}

static void print_diag(char mark, const struct cmp_diag *d, const struct cmp_diag *other)
{
	char cost[24], cost2[24];
	pp_summary_format_ns(d->cost_ns, cost, sizeof(cost));
	printf("  %c %s  %s\n", mark, d->id, d->site);
	if (other) {
		pp_summary_format_ns(other->cost_ns, cost2, sizeof(cost2));
		printf("      frames %llu -> %llu, cost per frame %s -> %s\n",
		       (unsigned long long)d->frames, (unsigned long long)other->frames, cost, cost2);
	} else {
		printf("      %llu occurrences in %llu frames, cost per frame %s\n",
		       (unsigned long long)d->count, (unsigned long long)d->frames, cost);
	}
}

static void print_text(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		       size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o)
{
	char buf[3][64];
	printf("passprobe compare: A (baseline) -> B\n");
	print_header(a);
	print_header(b);
	printf("  a change counts (*) when |B - A| > %g x the larger spread of the two runs (p50: "
	       "interquartile range, p95: p95 - p50) and >= %g%% of A; ? too few frames to judge\n\n",
	       o->noise_k, o->min_change * 100);
	format_rel(&frame->g50, buf[2], sizeof(buf[2]));
	printf("frame GPU time p50: %s -> %s (%s)", pp_summary_format_ns(frame->g50.a, buf[0], 64),
	       pp_summary_format_ns(frame->g50.b, buf[1], 64), buf[2]);
	format_rel(&frame->g95, buf[2], sizeof(buf[2]));
	printf(", p95: %s -> %s (%s)\n\n", pp_summary_format_ns(frame->g95.a, buf[0], 64),
	       pp_summary_format_ns(frame->g95.b, buf[1], 64), buf[2]);

	size_t width[NCOLS], nboth = 0;
	for (int col = 0; col < NCOLS; col++)
		width[col] = utf8_width(col_titles[col]);
	struct cmp_cells cells;
	for (size_t i = 0; i < nrows; i++) {
		if (!rows[i].a || !rows[i].b)
			continue;
		nboth++;
		row_cells(&rows[i], &cells);
		for (int col = 0; col < NCOLS; col++) {
			size_t w = utf8_width(cells.text[col]);
			width[col] = w > width[col] ? w : width[col];
		}
	}
	if (nboth) {
		struct cmp_cells t;
		for (int col = 0; col < NCOLS; col++)
			snprintf(t.text[col], sizeof(t.text[0]), "%s", col_titles[col]);
		print_cells(&t, width);
		for (size_t i = 0; i < nrows; i++) {
			if (!rows[i].a || !rows[i].b)
				continue;
			row_cells(&rows[i], &cells);
			print_cells(&cells, width);
		}
	} else {
		printf("no pass is in both runs\n");
	}
	for (int side = 0; side < 2; side++) {
		bool any = false;
		for (size_t i = 0; i < nrows; i++) {
			const struct cmp_pass *p = side ? rows[i].b : rows[i].a;
			if (!p || (side ? rows[i].a : rows[i].b))
				continue;
			if (!any)
				printf("\npasses only in %s:\n", side ? "B" : "A");
			any = true;
			printf("  %s (%s): %.3g per frame, gpu p50 %s, cpu rec %s\n", p->name, p->kind,
			       p->per_frame, pp_summary_format_ns(p->g.p50, buf[0], 64),
			       pp_summary_format_ns(p->c.p50, buf[1], 64));
		}
	}
	size_t kept = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		if (b->diags[i].matched)
			continue;
		if (!kept++)
			printf("\ndiagnostics that appeared in B:\n");
		print_diag('+', &b->diags[i], NULL);
	}
	kept = 0;
	for (size_t i = 0; i < a->ndiags; i++) {
		if (a->diags[i].matched)
			continue;
		if (!kept++)
			printf("\ndiagnostics that disappeared (only in A):\n");
		print_diag('-', &a->diags[i], NULL);
	}
	kept = 0;
	for (size_t i = 0; i < a->ndiags; i++) {
		if (!a->diags[i].matched)
			continue;
		for (size_t k = 0; k < b->ndiags; k++) {
			if (!b->diags[k].matched || strcmp(a->diags[i].key, b->diags[k].key) != 0)
				continue;
			if (!kept++)
				printf("\ndiagnostics in both runs:\n");
			print_diag('=', &a->diags[i], &b->diags[k]);
		}
	}
	if (!a->ndiags && !b->ndiags)
		printf("\nno diagnostics in either run\n");
}

static void json_stat(struct pp_json_writer *w, const char *key, const struct cmp_stat *s)
{
	pp_json_write_key(w, key);
	pp_json_begin_object(w);
	pp_json_write_key(w, "p50");
	pp_json_write_double(w, s->p50);
	pp_json_write_key(w, "p95");
	pp_json_write_double(w, s->p95);
	pp_json_write_key(w, "iqr");
	pp_json_write_double(w, s->q3 - s->q1);
	pp_json_write_key(w, "tail");
	pp_json_write_double(w, s->p95 - s->p50);
	pp_json_kv_uint(w, "samples", s->n);
	pp_json_kv_str(w, "source", s->from_summary ? "summary" : "frames");
	pp_json_end_object(w);
}

static void json_change(struct pp_json_writer *w, const char *key, const struct cmp_change *c)
{
	pp_json_write_key(w, key);
	pp_json_begin_object(w);
	pp_json_write_key(w, "a");
	pp_json_write_double(w, c->a);
	pp_json_write_key(w, "b");
	pp_json_write_double(w, c->b);
	pp_json_write_key(w, "change");
	pp_json_write_double(w, c->delta);
	pp_json_write_key(w, "relative");
	pp_json_write_double(w, c->rel);
	pp_json_write_key(w, "noise");
	pp_json_write_double(w, c->noise);
	pp_json_kv_str(w, "verdict", verdict_names[c->v]);
	pp_json_end_object(w);
}

static void json_measures(struct pp_json_writer *w, const char *key, const struct cmp_stat *a,
			  const struct cmp_stat *b, const struct cmp_change *c50,
			  const struct cmp_change *c95)
{
	pp_json_write_key(w, key);
	pp_json_begin_object(w);
	if (a)
		json_stat(w, "a", a);
	if (b)
		json_stat(w, "b", b);
	if (a && b) {
		json_change(w, "p50", c50);
		if (c95)
			json_change(w, "p95", c95);
	}
	pp_json_end_object(w);
}

static void json_run(struct pp_json_writer *w, const char *key, const struct cmp_run *r)
{
	pp_json_write_key(w, key);
	pp_json_begin_object(w);
	pp_json_kv_str(w, "path", r->rep.path);
	pp_json_kv_uint(w, "frames", r->frames);
	pp_json_kv_uint(w, "frames_total", r->frames_total);
	pp_json_kv_str(w, "source", r->from_frames ? "frames" : "summary");
	pp_json_kv_str(w, "devices", r->devices);
	pp_json_kv_str(w, "process", r->process);
	pp_json_end_object(w);
}

static void json_diags(struct pp_json_writer *w, const char *key, const struct cmp_run *r,
		       bool matched)
{
	pp_json_write_key(w, key);
	pp_json_begin_array(w);
	for (size_t i = 0; i < r->ndiags; i++) {
		const struct cmp_diag *d = &r->diags[i];
		if (d->matched != matched)
			continue;
		pp_json_begin_object(w);
		pp_json_kv_str(w, "id", d->id);
		pp_json_kv_str(w, "site", d->site);
		pp_json_kv_str(w, "key", d->key);
		pp_json_kv_uint(w, "count", d->count);
		pp_json_kv_uint(w, "frames", d->frames);
		pp_json_write_key(w, "cost_ns");
		pp_json_write_double(w, d->cost_ns);
		pp_json_end_object(w);
	}
	pp_json_end_array(w);
}

static int print_json(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		      size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o,
		      size_t nregressed, size_t nnew)
{
	struct pp_json_writer w;
	pp_json_writer_init_file(&w, stdout, 1);
	pp_json_begin_object(&w);
	pp_json_kv_str(&w, "schema", "passprobe-compare");
	pp_json_kv_uint(&w, "version", 1);
	json_run(&w, "a", a);
	json_run(&w, "b", b);
	pp_json_write_key(&w, "noise");
	pp_json_begin_object(&w);
	pp_json_write_key(&w, "k");
	pp_json_write_double(&w, o->noise_k);
	pp_json_write_key(&w, "min_change");
	pp_json_write_double(&w, o->min_change);
	pp_json_kv_uint(&w, "min_samples", CMP_MIN_SAMPLES);
	pp_json_end_object(&w);
	pp_json_kv_str(&w, "metric", metric_names[o->metric]);
	pp_json_write_key(&w, "fail_above");
	pp_json_write_double(&w, o->fail_above);
	json_measures(&w, "frame_gpu_ns", &a->fg, &b->fg, &frame->g50, &frame->g95);
	pp_json_write_key(&w, "passes");
	pp_json_begin_array(&w);
	for (size_t i = 0; i < nrows; i++) {
		const struct cmp_row *r = &rows[i];
		const struct cmp_pass *p = r->a ? r->a : r->b;
		pp_json_begin_object(&w);
		pp_json_kv_str(&w, "name", p->name);
		pp_json_kv_str(&w, "kind", p->kind);
		pp_json_kv_str(&w, "in", r->a && r->b ? "both" : r->a ? "a" : "b");
		pp_json_write_key(&w, "per_frame");
		pp_json_begin_object(&w);
		if (r->a) {
			pp_json_write_key(&w, "a");
			pp_json_write_double(&w, r->a->per_frame);
		}
		if (r->b) {
			pp_json_write_key(&w, "b");
			pp_json_write_double(&w, r->b->per_frame);
		}
		pp_json_end_object(&w);
		json_measures(&w, "gpu_ns", r->a ? &r->a->g : NULL, r->b ? &r->b->g : NULL, &r->g50,
			      &r->g95);
		json_measures(&w, "cpu_record_ns", r->a ? &r->a->c : NULL, r->b ? &r->b->c : NULL,
			      &r->c50, NULL);
		const struct cmp_change *m = o->metric == 0 ? &r->g50 : o->metric == 1 ? &r->g95 : &r->c50;
		pp_json_kv_bool(&w, "over_limit", r->a && r->b && regressed(m, o));
		pp_json_end_object(&w);
	}
	pp_json_end_array(&w);
	pp_json_write_key(&w, "diagnostics");
	pp_json_begin_object(&w);
	json_diags(&w, "appeared", b, false);
	json_diags(&w, "disappeared", a, false);
	json_diags(&w, "both", b, true);
	pp_json_end_object(&w);
	pp_json_kv_uint(&w, "passes_over_limit", nregressed);
	pp_json_kv_uint(&w, "new_diagnostics", nnew);
	pp_json_end_object(&w);
	int rc = pp_json_writer_finish(&w);
	fputc('\n', stdout);
	return rc;
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
			cli_compare_usage(stdout);
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
					cli_compare_usage(stderr);
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
				if (strcmp(val, metric_names[k]) == 0)
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
			cli_compare_usage(stderr);
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
		cli_compare_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return 0;
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
	if (a->process && b->process && strcmp(a->process, b->process) != 0)
		fprintf(stderr, "passprobe: warning: A profiled process '%s', B '%s'\n", a->process,
			b->process);
	return 0;
}

int cli_compare_main(int argc, char **argv)
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
			const struct cmp_change *m = o.metric == 0 ? &r->g50 : o.metric == 1 ? &r->g95 : &r->c50;
			nregressed += regressed(m, &o);
		} else {
			r->weight = fabs(gpu_per_frame(r->a ? r->a : r->b));
			struct cmp_change none = { NAN, NAN, NAN, NAN, NAN, CMP_UNAVAILABLE };
			r->g50 = r->g95 = r->c50 = none;
		}
	}
	qsort(rows, nrows, sizeof(*rows), row_weight_cmp);
	struct cmp_row frame = { .g50 = judge(&a.fg, &b.fg, false, &o),
				 .g95 = judge(&a.fg, &b.fg, true, &o) };
	for (size_t i = 0; i < b.ndiags; i++) {
		for (size_t k = 0; k < a.ndiags; k++) {
			if (strcmp(a.diags[k].key, b.diags[i].key) == 0) {
				a.diags[k].matched = b.diags[i].matched = true;
				break;
			}
		}
		nnew += !b.diags[i].matched;
	}

	if (o.json) {
		if (print_json(&a, &b, rows, nrows, &frame, &o, nregressed, nnew))
			fprintf(stderr, "passprobe: writing the comparison failed\n");
	} else {
		print_text(&a, &b, rows, nrows, &frame, &o);
	}
	rc = CLI_EXIT_OK;
	if (!isnan(o.fail_above)) {
		fprintf(o.json ? stderr : stdout, "\n%s: %zu pass%s grew more than %g%% beyond noise "
						   "(%s)\n",
			nregressed ? "FAIL" : "ok", nregressed, nregressed == 1 ? "" : "es",
			o.fail_above * 100, metric_names[o.metric]);
		if (nregressed)
			rc = CMP_EXIT_REGRESSION;
	}
	if (o.fail_new_diag) {
		fprintf(o.json ? stderr : stdout, "%s: %zu new diagnostic%s in B\n",
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
