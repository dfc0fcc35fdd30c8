#include "attr_stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "pp_hash.h"
#include "pp_summary.h"
#include "attr_sink_internal.h"

/* ---- histogram ---------------------------------------------------------------------- */

static void hist_locate(uint64_t v, unsigned *k_out, unsigned *sub_out)
{
	if (v < PP_HIST_SUB) {
		*k_out = 0;
		*sub_out = (unsigned)v;
		return;
	}
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= PP_HIST_SUB_BITS */
	unsigned k = e - PP_HIST_SUB_BITS + 1;
	if (k >= PP_HIST_OCTAVES) {
		*k_out = PP_HIST_OCTAVES - 1;
		*sub_out = PP_HIST_SUB - 1;
		return;
	}
	*k_out = k;
	*sub_out = (unsigned)(v >> (k - 1)) - PP_HIST_SUB;
}

/* A counter about to overflow halves every counter: the shape, which is all the quantiles
 * need, survives, and this needs 2^32 samples in one bucket first. */
static void hist_halve(struct pp_hist *h)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < PP_HIST_OCTAVES; k++) {
		if (!h->octave[k])
			continue;
		for (unsigned i = 0; i < PP_HIST_SUB; i++) {
			h->octave[k][i] >>= 1;
			n += h->octave[k][i];
		}
	}
	h->n = n;
}

void pp_attr_stats_hist_add(struct pp_hist *h, uint64_t v)
{
	unsigned k, sub;
	hist_locate(v, &k, &sub);
	if (!h->octave[k]) {
		h->octave[k] = calloc(PP_HIST_SUB, sizeof(uint32_t));
		if (!h->octave[k]) {
			h->lost++;
			return;
		}
	}
	if (h->octave[k][sub] == UINT32_MAX)
		hist_halve(h);
	h->octave[k][sub]++;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (h->n == 0 || v > h->max)
		h->max = v;
	h->n++;
}

double pp_attr_stats_hist_quantile(const struct pp_hist *h, double q)
{
	if (!h || h->n == 0)
		return NAN;
	if (!(q >= 0.0))
		q = 0.0;
	if (q > 1.0)
		q = 1.0;
	uint64_t rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	uint64_t cum = 0;
	for (unsigned k = 0; k < PP_HIST_OCTAVES; k++) {
		if (!h->octave[k])
			continue;
		for (unsigned i = 0; i < PP_HIST_SUB; i++) {
			cum += h->octave[k][i];
			if (cum < rank)
				continue;
			double width = k == 0 ? 1.0 : (double)(1ull << (k - 1));
			double lower = k == 0 ? (double)i : (double)((uint64_t)(PP_HIST_SUB + i) << (k - 1));
			double v = lower + (width - 1.0) / 2.0;
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
	}
	return (double)h->max; /* unreachable while n matches the buckets */
}

void pp_attr_stats_hist_free(struct pp_hist *h)
{
	for (unsigned k = 0; k < PP_HIST_OCTAVES; k++) {
		free(h->octave[k]);
		h->octave[k] = NULL;
	}
	h->n = h->lost = h->min = h->max = 0;
}

/* ---- per-name table ----------------------------------------------------------------- */

struct stat_row {
	char name[64];
	enum pp_pass_kind kind;
	uint64_t count, measured;
	uint64_t cpu_measured, cpu_sum_ns; /* thread CPU time of recording, where measured */
	uint64_t sum_ns;        /* of GPU intervals of measured instances */
	uint64_t max_ns;
	uint64_t excl_sum_ns;   /* of exclusive GPU times of measured instances: its share */
	struct pp_hist hist;    /* GPU intervals */
	/* GPU counters without columns of their own: sums over the instances that had them */
	uint32_t nctr;
	struct {
		const struct pp_gpu_counter_desc *desc;
		double sum;
		uint64_t n;
	} ctr[PP_SUMMARY_COUNTERS];
};

#define STATS_HINTS 64

struct pp_stats {
	size_t max_names;
	size_t nrows, cap_rows;
	struct stat_row *rows;
	uint32_t *slots;        /* open addressing: row index + 1, 0 = empty */
	size_t nslots;          /* power of two, > 2 x (max_names + kinds) */
	uint32_t other[3];      /* row index + 1 of "(other)" per kind, 0 = none yet */
	/* The row of the pass at each position of the last frame (row index + 1, 0 = none): a
	 * program names its passes alike every frame, so the row is found by comparing the
	 * name's bytes rather than hashing its text. Never an "(other)" row. */
	uint32_t hint[STATS_HINTS];
	uint64_t names_aggregated; /* pass instances counted under "(other)" because of the cap */
	bool layer_passes;         /* other layers' passes count (layer_passes setting) */
	uint64_t layer_instances;  /* other layers' pass instances left out */
	const char *layer_example; /* the library of one of them, for the notes (static) */
	uint64_t frames;
	uint64_t frames_measured;  /* frames with at least one measured pass */
	uint64_t frame_sum_ns;     /* of the measured frames' summed exclusive pass times */
	struct pp_hist frame_hist;
};

#define STATS_KINDS 3

struct pp_stats *pp_attr_stats_create(size_t max_names)
{
	struct pp_stats *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->max_names = max_names ? max_names : PP_STATS_MAX_NAMES;
	size_t want = 2 * (s->max_names + STATS_KINDS);
	s->nslots = 16;
	while (s->nslots < want)
		s->nslots <<= 1;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	return s;
}

void pp_attr_stats_destroy(struct pp_stats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrows; i++)
		pp_attr_stats_hist_free(&s->rows[i].hist);
	pp_attr_stats_hist_free(&s->frame_hist);
	free(s->rows);
	free(s->slots);
	free(s);
}

uint64_t pp_attr_stats_frames(const struct pp_stats *s)
{
	return s ? s->frames : 0;
}

static uint64_t name_hash(const char *name, size_t len, enum pp_pass_kind kind)
{
	return pp_hash_bytes(name, len) ^ (((uint64_t)kind + 1) * 0x9e3779b97f4a7c15ull);
}

static struct stat_row *row_new(struct pp_stats *s, const char *name, size_t len,
				enum pp_pass_kind kind)
{
	if (s->nrows == s->cap_rows) {
		size_t cap = s->cap_rows ? s->cap_rows * 2 : 16;
		if (cap > s->max_names + STATS_KINDS)
			cap = s->max_names + STATS_KINDS;
		if (cap <= s->nrows)
			return NULL;
		struct stat_row *rows = realloc(s->rows, cap * sizeof(*rows));
		if (!rows)
			return NULL;
		s->rows = rows;
		s->cap_rows = cap;
	}
	struct stat_row *r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	memcpy(r->name, name, len);
	r->name[len] = '\0';
	r->kind = kind;
	return r;
}

/* Returns the row index, or -1 when even the "(other)" row could not be made (no memory). */
static long row_find(struct pp_stats *s, const char *name, enum pp_pass_kind kind)
{
	size_t len = strnlen(name, 63);
	unsigned k = (unsigned)kind < STATS_KINDS ? (unsigned)kind : 0;
	kind = (enum pp_pass_kind)k;
	size_t mask = s->nslots - 1;
	size_t i = (size_t)name_hash(name, len, kind) & mask;
	for (;;) {
		uint32_t slot = s->slots[i];
		if (slot == 0)
			break;
		struct stat_row *r = &s->rows[slot - 1];
		if (r->kind == kind && r->name[len] == '\0' && memcmp(r->name, name, len) == 0)
			return (long)slot - 1;
		i = (i + 1) & mask;
	}
	size_t named = s->nrows;
	for (unsigned j = 0; j < STATS_KINDS; j++)
		named -= s->other[j] ? 1 : 0;
	if (named < s->max_names) {
		struct stat_row *r = row_new(s, name, len, kind);
		if (r) {
			s->slots[i] = (uint32_t)s->nrows;
			return (long)s->nrows - 1;
		}
	}
	/* Over the cap (or out of memory): one aggregate per kind, never entered in the table so
	 * a real pass called "(other)" stays apart. */
	s->names_aggregated++;
	if (!s->other[k]) {
		struct stat_row *r = row_new(s, "(other)", 7, kind);
		if (!r)
			return -1;
		s->other[k] = (uint32_t)s->nrows;
	}
	return (long)s->other[k] - 1;
}

/* Whether the row is a pass name's own, not a kind's "(other)". */
static bool row_named(const struct pp_stats *s, long idx)
{
	for (unsigned j = 0; j < STATS_KINDS; j++)
		if (s->other[j] == (uint32_t)idx + 1)
			return false;
	return true;
}

/* The row of the pass at position `at` when it is the one the pass there had last time. */
static long row_hinted(const struct pp_stats *s, size_t at, const struct pp_pass_result *p)
{
	if (at >= STATS_HINTS || !s->hint[at])
		return -1;
	long idx = (long)s->hint[at] - 1;
	const struct stat_row *r = &s->rows[idx];
	return r->kind == p->kind && pp_model_name_same(r->name, p->name) ? idx : -1;
}

static uint64_t interval_ns(const struct pp_gpu_interval *g)
{
	return g->end_ns > g->begin_ns ? g->end_ns - g->begin_ns : 0;
}

static void row_counters_add(struct stat_row *r, const struct pp_pass_result *p)
{
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_counter_value *c = &p->counters[i];
		double v;
		if (!c->desc || pp_attr_counters_has_own_column(c))
			continue;
		uint32_t k = 0;
		while (k < r->nctr && r->ctr[k].desc != c->desc)
			k++;
		if (k == r->nctr) {
			if (k == PP_SUMMARY_COUNTERS)
				continue;
			r->ctr[k].desc = c->desc;
			r->nctr++;
		}
		/* A value merged from another frame was counted in that frame already. */
		if (!c->other_frame && pp_attr_counters_value(c, &v)) {
			r->ctr[k].sum += v;
			r->ctr[k].n++;
		}
	}
}

void pp_attr_stats_layer_passes_set(struct pp_stats *s, bool include)
{
	if (s)
		s->layer_passes = include;
}

void pp_attr_stats_frame_add(struct pp_stats *s, const struct pp_frame_result *f)
{
	if (!s || !f)
		return;
	s->frames++;
	uint64_t total = 0;
	bool measured = false;
	for (size_t i = 0; i < f->npasses; i++) {
		const struct pp_pass_result *p = &f->passes[i];
		if (p->recorded_by && !s->layer_passes) {
			s->layer_instances++;
			s->layer_example = p->recorded_by;
			continue;
		}
		long idx = row_hinted(s, i, p);
		if (idx < 0) {
			idx = row_find(s, p->name, p->kind);
			if (idx < 0)
				continue;
			if (i < STATS_HINTS)
				s->hint[i] = row_named(s, idx) ? (uint32_t)idx + 1 : 0;
		}
		struct stat_row *r = &s->rows[idx];
		r->count++;
		uint64_t cpu_ns;
		if (pp_attr_cpu_pass_thread_ns(p, &cpu_ns)) {
			r->cpu_measured++;
			r->cpu_sum_ns += cpu_ns;
		}
		row_counters_add(r, p);
		if (!p->gpu.valid)
			continue;
		uint64_t ns = interval_ns(&p->gpu);
		r->measured++;
		r->sum_ns += ns;
		if (ns > r->max_ns)
			r->max_ns = ns;
		pp_attr_stats_hist_add(&r->hist, ns);
		measured = true;
		total += p->gpu_exclusive_ns;
		r->excl_sum_ns += p->gpu_exclusive_ns;
	}
	if (!measured)
		return;
	s->frames_measured++;
	s->frame_sum_ns += total;
	pp_attr_stats_hist_add(&s->frame_hist, total);
}

static const char *kind_name(enum pp_pass_kind k)
{
	switch (k) {
	case PP_PASS_RENDER: return "render";
	case PP_PASS_COMPUTE: return "compute";
	case PP_PASS_TRANSFER: return "transfer";
	}
	return "render";
}

int pp_attr_stats_summary_make(const struct pp_stats *s, struct pp_summary *out)
{
	pp_summary_init(out);
	if (!s)
		return 0;
	out->frames = s->frames;
	out->frames_gpu_timed = s->frames_measured;
	if (s->frames_measured) {
		out->frame_gpu_mean_ns = (double)s->frame_sum_ns / (double)s->frames_measured;
		out->frame_gpu_p50_ns = pp_attr_stats_hist_quantile(&s->frame_hist, 0.50);
		out->frame_gpu_p95_ns = pp_attr_stats_hist_quantile(&s->frame_hist, 0.95);
	}
	size_t at = 0;
	if (s->names_aggregated)
		at += (size_t)snprintf(out->notes, sizeof(out->notes),
				       "more than %zu pass names: %llu pass instances counted under \"(other)\"",
				       s->max_names, (unsigned long long)s->names_aggregated);
	if (s->layer_instances && at < sizeof(out->notes))
		snprintf(out->notes + at, sizeof(out->notes) - at,
			 "%s%llu pass instances recorded by other layers (%s) left out (layer_passes=on counts them)",
			 at ? "; " : "", (unsigned long long)s->layer_instances, s->layer_example);
	if (s->nrows == 0)
		return 0;
	out->rows = malloc(s->nrows * sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	out->nrows = s->nrows;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct stat_row *r = &s->rows[i];
		struct pp_summary_row *o = &out->rows[i];
		pp_summary_row_init(o);
		snprintf(o->name, sizeof(o->name), "%s", r->name);
		snprintf(o->kind, sizeof(o->kind), "%s", kind_name(r->kind));
		o->count = r->count;
		o->measured = r->measured;
		o->per_frame = s->frames ? (double)r->count / (double)s->frames : NAN;
		if (r->cpu_measured)
			o->cpu_record_mean_ns = (double)r->cpu_sum_ns / (double)r->cpu_measured;
		o->ncounters = r->nctr;
		for (uint32_t k = 0; k < r->nctr; k++) {
			struct pp_summary_counter *oc = &o->counters[k];
			snprintf(oc->name, sizeof(oc->name), "%s/%s", r->ctr[k].desc->source, r->ctr[k].desc->name);
			snprintf(oc->unit, sizeof(oc->unit), "%s", r->ctr[k].desc->unit);
			oc->measured = r->ctr[k].n;
			oc->mean = r->ctr[k].n ? r->ctr[k].sum / (double)r->ctr[k].n : NAN;
		}
		if (r->measured) {
			o->gpu_mean_ns = (double)r->sum_ns / (double)r->measured;
			o->gpu_p50_ns = pp_attr_stats_hist_quantile(&r->hist, 0.50);
			o->gpu_p95_ns = pp_attr_stats_hist_quantile(&r->hist, 0.95);
			o->gpu_max_ns = (double)r->max_ns;
			/* Its part of all the GPU time measured, not a mean of per-frame fractions:
			 * where frames differ (a headless program's "frames" are its fenced
			 * submits, each with other passes) a mean of fractions counts frames, and
			 * a 1 ms pass alone in half the frames would show 50% beside a 100 ms one. */
			if (s->frame_sum_ns)
				o->share_of_frame = (double)r->excl_sum_ns / (double)s->frame_sum_ns;
		}
	}
	pp_summary_sort(out);
	return 0;
}
