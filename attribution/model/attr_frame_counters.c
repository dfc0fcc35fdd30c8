/* GPU counters completed at frame assembly (attr_frame_counters.h). */
#include "attr_frame_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_overlap.h"

#define PERF_MERGE_NAMES 256
#define SAMPLES_KEPT 4096
struct perf_merge {
	char name[64];
	enum pp_pass_kind kind;
	uint32_t n;
	struct {
		bool have;
		uint64_t frame;
		struct pp_gpu_counter_value v;
	} value[];
};

struct attr_frame_counters {
	struct pp_attr_gpu_ops ops;
	/* Counter sets measured over several hardware passes, one per frame: each pass name's
	 * latest value of every counter, merged into the passes of frames that measured another
	 * group (perf_merge). Bounded: PERF_MERGE_NAMES names, later names are not merged. */
	uint32_t nmerge;
	struct perf_merge *merge[PERF_MERGE_NAMES];
	/* Samples of the sampling backend not yet past every pass they may overlap, oldest first;
	 * bounded (SAMPLES_KEPT, the oldest dropped). */
	uint32_t nsamples;
	struct pp_gpu_counter_sample samples[SAMPLES_KEPT];
};


/* ---- counter sets measured over several frames --------------------------------------- */

static struct perf_merge *perf_merge_find(struct attr_frame_counters *d, const struct pp_pass_result *p, uint32_t n)
{
	for (uint32_t i = 0; i < d->nmerge; i++)
		if (d->merge[i]->kind == p->kind && d->merge[i]->n == n &&
		    !strncmp(d->merge[i]->name, p->name, sizeof(d->merge[i]->name)))
			return d->merge[i];
	if (d->nmerge == PERF_MERGE_NAMES)
		return NULL;
	struct perf_merge *m = calloc(1, sizeof(*m) + n * sizeof(m->value[0]));
	if (!m)
		return NULL;
	snprintf(m->name, sizeof(m->name), "%.*s", (int)sizeof(p->name), p->name);
	m->kind = p->kind;
	m->n = n;
	d->merge[d->nmerge++] = m;
	return m;
}

/* Passes in frame order: a counter of another hardware pass takes the latest value measured
 * for the same pass name (and kind) in an earlier frame, saying which; the values measured
 * in this frame become the latest. Instances of one name in one frame share the merge. */
static void perf_merge_frame(struct attr_frame_counters *d, struct pp_frame_result *f)
{
	const struct pp_gpu_counter_backend *b = d->ops.perf;
	if (!b || !b->passes || b->passes(b->ctx) < 2)
		return;
	for (size_t i = 0; i < f->npasses; i++) {
		struct pp_pass_result *p = &f->passes[i];
		uint32_t first = 0, n = 0;
		for (uint32_t k = 0; k < p->ncounters; k++)
			if (p->counters[k].desc && !strcmp(p->counters[k].desc->source, b->name)) {
				if (!n)
					first = k;
				n++;
			}
		if (!n)
			continue;
		struct perf_merge *m = perf_merge_find(d, p, n);
		if (!m)
			continue;
		struct pp_counter_value *c = &p->counters[first];
		for (uint32_t k = 0; k < n; k++) {
			if (c[k].v.valid) {
				m->value[k].have = true;
				m->value[k].frame = f->index;
				m->value[k].v = c[k].v;
			} else if (c[k].v.other_pass && m->value[k].have) {
				c[k].v = m->value[k].v;
				c[k].unavailable_reason = NULL;
				c[k].other_frame = true;
				c[k].frame = m->value[k].frame;
			}
		}
	}
}

/* ---- sampled counters ------------------------------------------------------------------ */

static void samples_drop(struct attr_frame_counters *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(d->samples[i].values);
	memmove(d->samples, d->samples + n, (d->nsamples - n) * sizeof(d->samples[0]));
	d->nsamples -= n;
}

static const char *const reason_uncovered =
	"the counter samples do not cover the pass (sampling stopped, behind, or samples dropped)";

/* The frame's passes get the sampling backend's set, attributed by time overlap of the
 * samples with their GPU intervals: the estimate with its bounds, and whether other passes
 * ran at the same time. Then the samples that ended before every pass of this frame began
 * are let go (later frames' passes begin later). */
static void sampled_attribute_frame(struct attr_frame_counters *d, struct pp_frame_result *f)
{
	const struct pp_gpu_counter_backend *b = d->ops.sampled;
	if (!b || !b->samples_take || !f->npasses)
		return;
	if (d->nsamples == SAMPLES_KEPT)
		samples_drop(d, SAMPLES_KEPT / 4);
	d->nsamples += b->samples_take(b->ctx, d->samples + d->nsamples, SAMPLES_KEPT - d->nsamples);
	uint32_t n = b->set_count(b->ctx);
	if (!n || n > PP_ATTR_PERF_SET_MAX)
		return;
	const struct pp_gpu_counter_desc *descs[PP_ATTR_PERF_SET_MAX];
	for (uint32_t k = 0; k < n; k++)
		descs[k] = b->set_desc(b->ctx, k);

	struct pp_overlap_span *spans = calloc(f->npasses, sizeof(*spans));
	struct pp_overlap_span *sspans = calloc(d->nsamples ? d->nsamples : 1, sizeof(*sspans));
	double *vals = calloc(d->nsamples ? d->nsamples : 1, sizeof(*vals));
	struct pp_overlap_share *share = calloc(f->npasses, sizeof(*share));
	struct pp_counter_value **set = calloc(f->npasses, sizeof(*set));
	if (!spans || !sspans || !vals || !share || !set)
		goto out;
	uint64_t first_begin = UINT64_MAX;
	for (size_t i = 0; i < f->npasses; i++) {
		const struct pp_gpu_interval *g = &f->passes[i].gpu;
		spans[i] = (struct pp_overlap_span){ g->begin_ns, g->end_ns, g->valid };
		if (g->valid && g->begin_ns < first_begin)
			first_begin = g->begin_ns;
		set[i] = pp_model_pass_counters_add(&f->passes[i], descs, n);
	}
	for (uint32_t s = 0; s < d->nsamples; s++)
		sspans[s] = (struct pp_overlap_span){ d->samples[s].begin_ns, d->samples[s].end_ns, true };
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t s = 0; s < d->nsamples; s++) {
			const struct pp_gpu_counter_sample *sm = &d->samples[s];
			sspans[s].valid = k < sm->nvalues && sm->values[k].valid;
			vals[s] = sspans[s].valid ? pp_gpu_counters_value_double(&sm->values[k]) : 0;
		}
		pp_attr_overlap_attribute(spans, (uint32_t)f->npasses, sspans, vals, d->nsamples, share);
		for (size_t i = 0; i < f->npasses; i++) {
			struct pp_counter_value *c = set[i] ? &set[i][k] : NULL;
			if (!c)
				continue;
			if (!f->passes[i].gpu.valid) {
				c->unavailable_reason = "no GPU interval to attribute samples to";
			} else if (!share[i].covered) {
				c->unavailable_reason = reason_uncovered;
			} else {
				c->v = (struct pp_gpu_counter_value){ .valid = true, .is_float = true, .f = share[i].estimate };
				c->estimated = true;
				c->lower = share[i].lower;
				c->upper = share[i].upper;
				c->shared = share[i].shared;
			}
		}
	}
	uint32_t done = 0;
	while (done < d->nsamples && first_begin != UINT64_MAX && d->samples[done].end_ns <= first_begin)
		done++;
	samples_drop(d, done);
out:
	free(spans);
	free(sspans);
	free(vals);
	free(share);
	free(set);
}

struct attr_frame_counters *pp_attr_frame_counters_create(const struct pp_attr_gpu_ops *ops)
{
	struct attr_frame_counters *c = calloc(1, sizeof(*c));
	if (c)
		c->ops = *ops;
	return c;
}

void pp_attr_frame_counters_destroy(struct attr_frame_counters *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nmerge; i++)
		free(c->merge[i]);
	for (uint32_t i = 0; i < c->nsamples; i++)
		free(c->samples[i].values);
	free(c);
}

void pp_attr_frame_counters_add(struct attr_frame_counters *c, struct pp_frame_result *f)
{
	if (!c)
		return;
	perf_merge_frame(c, f);
	sampled_attribute_frame(c, f);
}
