/* The experiment's measurements (docs/diagnostics.md, "Experiment mode"): which arm a frame
 * measures, what each arm measured per experiment site, and the verdicts with the noise rule of
 * `passprobe compare` (pp_noise.h). Frames in which passprobe rewrote anything stay out of the
 * run's normal statistics (pp_attr_sink_frame_process). In the application's process the arms are
 * kept here and go into the diagnostics written to report.json and the recording; `passprobe
 * report` takes them from the recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "attr_sink_internal.h"
#include "pp_noise.h"
#include "pp_summary.h"

struct exp_ring {
	uint64_t v[PP_EXP_SAMPLES];
	uint32_t n, head;
};

struct attr_exp_site {
	uint64_t frames[2];
	uint64_t neither;
	struct exp_ring m[2][PP_EXP_METRICS];
};

static const char *const arm_names[2] = { "as_written", "fixed" };
static const char *const metric_names[PP_EXP_METRICS] = { "frame_gpu_ns", "passes_gpu_ns", "cpu_record_ns" };
static const char *const metric_titles[PP_EXP_METRICS] = { "frame GPU time", "GPU time of the passes after it",
							   "CPU recording" };

/* pp_attr_experiment_frame_arm, with the sites any pass saw (*seen_out): one walk of the passes. */
static enum pp_exp_arm frame_arm(const struct pp_frame_result *f, uint64_t *sites, bool *modified, uint64_t *seen_out)
{
	uint64_t seen = 0, fixed = 0;
	bool other_arm = false, reused = false;
	/* A site is fixed only where it was seen: most frames (every frame without the experiment)
	 * saw none, which one field a pass tells. */
	for (size_t i = 0; i < f->npasses; i++)
		seen |= f->passes[i].exp_seen;
	for (size_t i = 0; seen && i < f->npasses; i++) {
		const struct pp_pass_result *p = &f->passes[i];
		fixed |= p->exp_fixed;
		other_arm |= p->exp_arm != PP_EXP_ARM_FIXED;
		reused |= p->recording_reused && p->exp_seen;
	}
	bool partly = false; /* a site rewritten in some passes and not in others */
	for (size_t i = 0; fixed && i < f->npasses; i++)
		partly |= (f->passes[i].exp_seen & fixed & ~f->passes[i].exp_fixed) != 0;
	*modified = fixed != 0;
	*sites = 0;
	*seen_out = seen;
	if (f->renderdoc || !f->gpu_timed || reused)
		return PP_EXP_ARM_NONE;
	/* One site rewritten wherever it occurs, in recordings of the fixed arm only. */
	if (fixed) {
		if ((fixed & (fixed - 1)) || partly || other_arm)
			return PP_EXP_ARM_NONE;
		*sites = fixed;
		return PP_EXP_ARM_FIXED;
	}
	*sites = seen;
	return seen ? PP_EXP_ARM_AS_WRITTEN : PP_EXP_ARM_NONE;
}

enum pp_exp_arm pp_attr_experiment_frame_arm(const struct pp_frame_result *f, uint64_t *sites, bool *modified)
{
	uint64_t seen;
	return frame_arm(f, sites, modified, &seen);
}

static void ring_add(struct exp_ring *r, uint64_t v)
{
	r->v[r->head] = v;
	r->head = (r->head + 1) % PP_EXP_SAMPLES;
	if (r->n < PP_EXP_SAMPLES)
		r->n++;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Exact nearest-rank percentiles, as compare's (the smallest value with at least ceil(q n)
 * samples at or below it). */
static void ring_stat(const struct exp_ring *r, struct pp_exp_stat *out)
{
	*out = (struct pp_exp_stat){ .n = r->n };
	if (!r->n)
		return;
	uint64_t v[PP_EXP_SAMPLES];
	memcpy(v, r->v, r->n * sizeof(v[0]));
	qsort(v, r->n, sizeof(v[0]), u64_cmp);
	const double q[3] = { 0.25, 0.5, 0.75 };
	uint64_t *dst[3] = { &out->p25, &out->p50, &out->p75 };
	for (int i = 0; i < 3; i++) {
		size_t rank = (size_t)ceil(q[i] * (double)r->n);
		*dst[i] = v[(rank ? rank : 1) - 1];
	}
}

/* The frame's GPU time as the experiment measures it: from each submission's first pass
 * begin to its last pass end, summed, so the GPU's waits at barriers between passes count
 * (report.json's frame gpu_ns sums the passes' own times, which leave them out). */
static bool frame_span_ns(const struct pp_frame_result *f, uint64_t *out)
{
	uint64_t sum = 0;
	bool any = false;
	for (size_t i = 0; i < f->nsubmissions; i++) {
		const struct pp_gpu_interval *g = &f->submissions[i].gpu;
		if (!g->valid)
			continue;
		sum += g->end_ns > g->begin_ns ? g->end_ns - g->begin_ns : 0;
		any = true;
	}
	*out = sum;
	return any;
}

/* GPU time of the passes right after the site's barriers; false when one of them has none. */
static bool passes_ns(const struct pp_frame_result *f, uint64_t bit, uint64_t *out)
{
	uint64_t sum = 0;
	bool any = false;
	for (size_t i = 0; i < f->npasses; i++) {
		const struct pp_pass_result *p = &f->passes[i];
		if (!(p->exp_seen & bit))
			continue;
		if (!p->gpu.valid)
			return false;
		sum += p->gpu.end_ns > p->gpu.begin_ns ? p->gpu.end_ns - p->gpu.begin_ns : 0;
		any = true;
	}
	*out = sum;
	return any;
}

static bool cpu_record_ns(const struct pp_frame_result *f, uint64_t *out)
{
	uint64_t sum = 0;
	bool any = false;
	for (size_t i = 0; i < f->npasses; i++) {
		const struct pp_pass_result *p = &f->passes[i];
		uint64_t ns;
		if (p->recording_reused || !pp_attr_cpu_pass_thread_ns(p, &ns))
			continue;
		sum += ns;
		any = true;
	}
	*out = sum;
	return any;
}

bool pp_attr_experiment_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	uint64_t sites, seen;
	bool modified;
	enum pp_exp_arm arm = frame_arm(f, &sites, &modified, &seen);
	if (modified)
		c->exp_frames_fixed++;
	/* passprobe report takes the arms from the recording's diagnostics. */
	if (c->offline || !seen)
		return modified;
	if (!c->exp && !(c->exp = calloc(PP_EXP_MAX_SITES, sizeof(*c->exp))))
		return modified;
	uint64_t span = 0, cpu = 0;
	bool have_span = frame_span_ns(f, &span), have_cpu = cpu_record_ns(f, &cpu);
	for (uint32_t k = 0; k < PP_EXP_MAX_SITES; k++) {
		uint64_t bit = 1ull << k;
		if (!(seen & bit))
			continue;
		struct attr_exp_site *s = &c->exp[k];
		if (arm == PP_EXP_ARM_NONE || !(sites & bit)) {
			s->neither += arm == PP_EXP_ARM_NONE && !f->renderdoc && f->gpu_timed;
			continue;
		}
		int a = arm == PP_EXP_ARM_FIXED;
		uint64_t passes;
		s->frames[a]++;
		if (have_span)
			ring_add(&s->m[a][PP_EXP_FRAME_GPU], span);
		if (passes_ns(f, bit, &passes))
			ring_add(&s->m[a][PP_EXP_PASSES_GPU], passes);
		if (have_cpu)
			ring_add(&s->m[a][PP_EXP_CPU_RECORD], cpu);
	}
	return modified;
}

static void measured_severity(struct pp_diagnostic *x);

void pp_attr_experiment_fill(struct attr_sink_ctx *c, struct pp_diagnostic *d, size_t n)
{
	if (c->offline)
		return;
	for (size_t i = 0; i < n; i++) {
		int32_t k = d[i].exp_site;
		memset(d[i].exp_arms, 0, sizeof(d[i].exp_arms));
		d[i].exp_frames_neither = 0;
		if (k < 0 || k >= PP_EXP_MAX_SITES || !c->exp)
			continue;
		const struct attr_exp_site *s = &c->exp[k];
		for (int a = 0; a < 2; a++) {
			d[i].exp_arms[a].frames = s->frames[a];
			for (int m = 0; m < PP_EXP_METRICS; m++)
				ring_stat(&s->m[a][m], &d[i].exp_arms[a].m[m]);
		}
		d[i].exp_frames_neither = s->neither;
		measured_severity(&d[i]);
	}
}

void pp_attr_experiment_free(struct attr_sink_ctx *c)
{
	free(c->exp);
	c->exp = NULL;
}

/* ---- verdicts ---------------------------------------------------------------------------------- */

static struct pp_noise_change metric_change(const struct pp_diagnostic *x, int m)
{
	const struct pp_exp_stat *a = &x->exp_arms[0].m[m], *b = &x->exp_arms[1].m[m];
	if (!a->n || !b->n)
		return pp_noise_judge(NAN, NAN, 0, 0, 0, 0, 1, PP_NOISE_K, PP_NOISE_MIN_CHANGE);
	return pp_noise_judge((double)a->p50, (double)b->p50, (double)(a->p75 - a->p25), (double)(b->p75 - b->p25), a->n,
			      b->n, 1, PP_NOISE_K, PP_NOISE_MIN_CHANGE);
}

static const char *state_name(uint8_t state)
{
	switch (state) {
	case PP_DIAG_EXP_STATE_CANDIDATE: return "candidate";
	case PP_DIAG_EXP_STATE_IN: return "in";
	case PP_DIAG_EXP_STATE_OUT: return "out";
	case PP_DIAG_EXP_STATE_WITHDRAWN: return "withdrawn";
	default: return "none";
	}
}

/* The site's verdict, into buf. */
static const char *verdict(const struct pp_diagnostic *x, char *buf, size_t len)
{
	if (x->exp_state == PP_DIAG_EXP_STATE_OUT) {
		snprintf(buf, len, "not in the experiment: %s", x->exp_why);
		return buf;
	}
	if (x->exp_state == PP_DIAG_EXP_STATE_CANDIDATE) {
		snprintf(buf, len, "not in the experiment: its fix was proven in fewer frames than it needs (2)");
		return buf;
	}
	bool up = false, down = false, judged = false;
	for (int m = 0; m < PP_EXP_METRICS; m++) {
		struct pp_noise_change ch = metric_change(x, m);
		judged |= ch.v != PP_NOISE_UNAVAILABLE && ch.v != PP_NOISE_UNJUDGED;
		up |= ch.v == PP_NOISE_UP;
		down |= ch.v == PP_NOISE_DOWN;
	}
	const char *v = !judged ? "not judged: too few frames in an arm (8 of each needed)"
			: down && up ? "mixed: faster in one measure, slower in another"
			: down ? "saving"
			: up ? "slower with the fix"
			     : "no measurable effect on this device";
	if (x->exp_state == PP_DIAG_EXP_STATE_WITHDRAWN)
		snprintf(buf, len, "withdrawn (%s); measured before: %s", x->exp_why, v);
	else
		snprintf(buf, len, "%s", v);
	return buf;
}

/* A fix the experiment measured as a saving on this device is worth a developer's time,
 * whatever the rule's judgement by the phases of a tile-based GPU said (docs/diagnostics.md,
 * "Severity"): the finding becomes a warning, its verdict the measured savings. The other
 * outcomes leave the severity as judged: "no measurable effect on this device" may not hold on
 * another (lavapipe ignores stage masks). */
static void measured_severity(struct pp_diagnostic *x)
{
	char v[512];
	if (x->exp_state != PP_DIAG_EXP_STATE_IN || strcmp(verdict(x, v, sizeof(v)), "saving"))
		return;
	size_t used = (size_t)snprintf(x->verdict, sizeof(x->verdict),
				       "worth fixing: passprobe's experiment measured the fix on this device:");
	for (int m = 0, k = 0; m < PP_EXP_METRICS && used < sizeof(x->verdict); m++) {
		struct pp_noise_change ch = metric_change(x, m);
		char a[32], b[32];
		if (ch.v != PP_NOISE_DOWN)
			continue;
		used += (size_t)snprintf(x->verdict + used, sizeof(x->verdict) - used, "%s %s %s less (noise %s)",
					 k++ ? "," : "", metric_titles[m], pp_summary_format_ns(fabs(ch.delta), a, sizeof(a)),
					 pp_summary_format_ns(ch.noise, b, sizeof(b)));
	}
	x->severity = "warning";
}

static void stat_write(struct pp_json_writer *w, const char *name, const struct pp_exp_stat *s)
{
	pp_json_write_key(w, name);
	if (!s->n) {
		pp_json_write_null(w);
		return;
	}
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "frames", s->n);
	pp_json_write_kv_uint_lit(w, "p25", s->p25);
	pp_json_write_kv_uint_lit(w, "p50", s->p50);
	pp_json_write_kv_uint_lit(w, "p75", s->p75);
	pp_json_write_end_object(w);
}

static const char *change_name(enum pp_noise_verdict v)
{
	switch (v) {
	case PP_NOISE_DOWN: return "saving";
	case PP_NOISE_UP: return "slower";
	case PP_NOISE_WITHIN: return "within noise";
	case PP_NOISE_UNJUDGED: return "not judged";
	default: return "unavailable";
	}
}

void pp_attr_experiment_json(struct pp_json_writer *w, const struct pp_diagnostic *x)
{
	if (x->exp_state == PP_DIAG_EXP_STATE_NONE)
		return;
	char buf[512];
	pp_json_write_key_lit(w, "experiment");
	pp_json_write_begin_object(w);
	pp_json_write_kv_str_lit(w, "state", state_name(x->exp_state));
	if (x->exp_site >= 0)
		pp_json_write_kv_uint_lit(w, "site", (uint64_t)x->exp_site);
	else
		pp_json_write_kv_null_lit(w, "site");
	if (x->exp_detail[0])
		pp_json_write_kv_str_lit(w, "fix", x->exp_detail);
	else
		pp_json_write_kv_null_lit(w, "fix");
	if (x->exp_why[0])
		pp_json_write_kv_str_lit(w, "why", x->exp_why);
	else
		pp_json_write_kv_null_lit(w, "why");
	pp_json_write_kv_uint_lit(w, "rewritten", x->exp_fixed);
	pp_json_write_kv_str_lit(w, "verdict", verdict(x, buf, sizeof(buf)));
	if (x->exp_state == PP_DIAG_EXP_STATE_IN || x->exp_state == PP_DIAG_EXP_STATE_WITHDRAWN) {
		pp_json_write_key_lit(w, "arms");
		pp_json_write_begin_object(w);
		for (int a = 0; a < 2; a++) {
			pp_json_write_key(w, arm_names[a]);
			pp_json_write_begin_object(w);
			pp_json_write_kv_uint_lit(w, "frames", x->exp_arms[a].frames);
			for (int m = 0; m < PP_EXP_METRICS; m++)
				stat_write(w, metric_names[m], &x->exp_arms[a].m[m]);
			pp_json_write_end_object(w);
		}
		pp_json_write_end_object(w);
		pp_json_write_kv_uint_lit(w, "frames_in_neither_arm", x->exp_frames_neither);
		pp_json_write_key_lit(w, "saving");
		pp_json_write_begin_object(w);
		for (int m = 0; m < PP_EXP_METRICS; m++) {
			struct pp_noise_change ch = metric_change(x, m);
			pp_json_write_key(w, metric_names[m]);
			pp_json_write_begin_object(w);
			pp_json_write_key_lit(w, "saving_ns");
			if (isnan(ch.delta))
				pp_json_write_null(w);
			else
				pp_json_write_double(w, -ch.delta);
			pp_json_write_key_lit(w, "relative");
			if (isnan(ch.rel) || isinf(ch.rel))
				pp_json_write_null(w);
			else
				pp_json_write_double(w, -ch.rel);
			pp_json_write_key_lit(w, "noise_ns");
			if (isnan(ch.noise))
				pp_json_write_null(w);
			else
				pp_json_write_double(w, ch.noise);
			pp_json_write_kv_str_lit(w, "verdict", change_name(ch.v));
			pp_json_write_end_object(w);
		}
		pp_json_write_end_object(w);
	}
	pp_json_write_end_object(w);
}

/* "PASSPROBE-Barrier-ReadToRead at pp_diagapp+0x1f2c (removed): saving; frame GPU time 1.47 ms
 * less (noise 1.18 ms), ..., CPU recording within noise, 27.5 µs less (noise 30.5 µs); 24 frames
 * fixed, 51 as written", one line per site that is or was in the experiment, into out ('\n'
 * between lines). */
void pp_attr_experiment_summary(const struct pp_diagnostic *d, size_t n, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		const struct pp_diagnostic *x = &d[i];
		if (x->exp_state != PP_DIAG_EXP_STATE_IN && x->exp_state != PP_DIAG_EXP_STATE_WITHDRAWN)
			continue;
		char where[96] = "", v[512], parts[512] = "";
		const char *from = strstr(x->site, "called from ");
		if (from) {
			from += strlen("called from ");
			size_t k = strcspn(from, ",");
			snprintf(where, sizeof(where), " at %.*s", (int)(k < 80 ? k : 80), from);
		}
		size_t pl = 0;
		for (int m = 0; m < PP_EXP_METRICS; m++) {
			struct pp_noise_change ch = metric_change(x, m);
			char a[32], b[32];
			if (ch.v == PP_NOISE_UNAVAILABLE)
				continue;
			if (ch.v == PP_NOISE_UNJUDGED)
				pl += (size_t)snprintf(parts + pl, pl < sizeof(parts) ? sizeof(parts) - pl : 0, "%s%s not judged",
						       pl ? ", " : "", metric_titles[m]);
			else
				pl += (size_t)snprintf(parts + pl, pl < sizeof(parts) ? sizeof(parts) - pl : 0,
						       "%s%s %s%s %s (noise %s)", pl ? ", " : "", metric_titles[m],
						       ch.v == PP_NOISE_WITHIN ? "within noise, " : "",
						       pp_summary_format_ns(fabs(ch.delta), a, sizeof(a)),
						       ch.delta <= 0 ? "less" : "more", pp_summary_format_ns(ch.noise, b, sizeof(b)));
		}
		int w = snprintf(out + used, len - used, "%s%s%s (%s): %s; %s; %llu frames fixed, %llu as written",
				 used ? "\n" : "", x->id, where, x->exp_detail, verdict(x, v, sizeof(v)),
				 pl ? parts : "nothing measured",
				 (unsigned long long)x->exp_arms[1].frames, (unsigned long long)x->exp_arms[0].frames);
		if (w < 0)
			break;
		used += (size_t)w < len - used ? (size_t)w : len - used - 1;
	}
}
