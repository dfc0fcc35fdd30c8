/* Time overlap: passes' exclusive GPU times, and sampled counters attributed to passes
 * (attr_overlap.h). */
#include "attr_overlap.h"
#include "pp_model.h"

#include <stdlib.h>
#include <string.h>

static bool covers(const struct pp_overlap_span *p, uint64_t x, uint64_t y)
{
	return p->valid && p->begin_ns <= x && p->end_ns >= y;
}

static bool intersects(const struct pp_overlap_span *a, const struct pp_overlap_span *b)
{
	return a->valid && b->valid && a->begin_ns < b->end_ns && b->begin_ns < a->end_ns;
}

/* Passes covering the instant t. */
static uint32_t covering_at(const struct pp_overlap_span *passes, uint32_t n, uint64_t t)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += covers(&passes[i], t, t);
	return k;
}

/* One sample of nonzero length: walks its elementary segments, cut at every pass boundary
 * inside it. */
static void sample_attribute(const struct pp_overlap_span *passes, uint32_t n, const struct pp_overlap_span *s,
			     double v, struct pp_overlap_share *out)
{
	double len = (double)(s->end_ns - s->begin_ns);
	for (uint32_t i = 0; i < n; i++) {
		if (!passes[i].valid)
			continue;
		if (intersects(&passes[i], s))
			out[i].upper += v;
		/* wholly the pass's: inside it, and no other pass meets the sample */
		if (covers(&passes[i], s->begin_ns, s->end_ns)) {
			bool alone = true;
			for (uint32_t j = 0; j < n && alone; j++)
				alone = j == i || !intersects(&passes[j], s);
			if (alone)
				out[i].lower += v;
		}
	}
	uint64_t x = s->begin_ns;
	while (x < s->end_ns) {
		/* next cut: the nearest pass boundary after x, or the sample's end */
		uint64_t y = s->end_ns;
		for (uint32_t i = 0; i < n; i++) {
			if (!passes[i].valid)
				continue;
			if (passes[i].begin_ns > x && passes[i].begin_ns < y)
				y = passes[i].begin_ns;
			if (passes[i].end_ns > x && passes[i].end_ns < y)
				y = passes[i].end_ns;
		}
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			k += covers(&passes[i], x, y);
		if (k)
			for (uint32_t i = 0; i < n; i++)
				if (covers(&passes[i], x, y))
					out[i].estimate += v * ((double)(y - x) / len) / k;
		x = y;
	}
}

/* Whether the samples' union covers [b, e]. */
static bool samples_cover(const struct pp_overlap_span *samples, uint32_t m, uint64_t b, uint64_t e)
{
	uint64_t at = b;
	bool progress = true;
	while (at < e && progress) {
		progress = false;
		for (uint32_t s = 0; s < m; s++)
			if (samples[s].valid && samples[s].begin_ns <= at && samples[s].end_ns > at) {
				at = samples[s].end_ns;
				progress = true;
			}
	}
	return at >= e;
}

void pp_attr_overlap_attribute(const struct pp_overlap_span *passes, uint32_t npasses,
			  const struct pp_overlap_span *samples, const double *values, uint32_t nsamples,
			  struct pp_overlap_share *out)
{
	memset(out, 0, npasses * sizeof(*out));
	for (uint32_t i = 0; i < npasses; i++) {
		for (uint32_t j = 0; j < npasses && !out[i].shared; j++)
			out[i].shared = j != i && intersects(&passes[i], &passes[j]);
		out[i].covered = passes[i].valid &&
				 samples_cover(samples, nsamples, passes[i].begin_ns, passes[i].end_ns);
	}
	for (uint32_t s = 0; s < nsamples; s++) {
		const struct pp_overlap_span *sp = &samples[s];
		if (!sp->valid || sp->end_ns < sp->begin_ns)
			continue;
		if (sp->end_ns > sp->begin_ns) {
			sample_attribute(passes, npasses, sp, values[s], out);
			continue;
		}
		uint32_t k = covering_at(passes, npasses, sp->begin_ns);
		for (uint32_t i = 0; i < npasses; i++)
			if (covers(&passes[i], sp->begin_ns, sp->begin_ns)) {
				out[i].estimate += values[s] / k;
				out[i].upper += values[s];
				if (k == 1)
					out[i].lower += values[s];
			}
	}
}

/* Overlap-aware exclusive time: every instant covered by k passes of the submission gives
 * 1/k of itself to each, so the exclusive times add up to the union of the intervals.
 * The segments between consecutive interval ends are walked in order, each against the
 * passes that have begun and not yet ended (a sweep: most passes follow each other, so that is
 * one or two), adding the same terms in the same order as testing every pass would. */
void pp_attr_overlap_exclusive_times(struct pp_pass_result *passes, uint32_t n)
{
	uint64_t stack_pts[64];
	uint64_t *pts = 2 * n <= 64 ? stack_pts : malloc(2 * n * sizeof(*pts));
	double acc_stack[32];
	double *acc = n <= 32 ? acc_stack : calloc(n, sizeof(*acc));
	uint32_t idx_stack[64];
	uint32_t *order = 2 * n <= 64 ? idx_stack : malloc(2 * n * sizeof(*order));
	uint32_t *active = order ? order + n : NULL;
	uint32_t m = 0, nv = 0;
	if (!pts || !acc || !order)
		goto out;
	memset(acc, 0, n * sizeof(*acc));
	for (uint32_t i = 0; i < n; i++) {
		passes[i].overlapped = false;
		passes[i].gpu_exclusive_ns = 0;
		if (passes[i].gpu.valid) {
			pts[m++] = passes[i].gpu.begin_ns;
			pts[m++] = passes[i].gpu.end_ns;
			order[nv++] = i;
		}
	}
	/* insertion sorts: m is small (two per pass) and usually nearly sorted already */
	for (uint32_t i = 1; i < m; i++) {
		uint64_t v = pts[i];
		uint32_t j = i;
		for (; j > 0 && pts[j - 1] > v; j--)
			pts[j] = pts[j - 1];
		pts[j] = v;
	}
	for (uint32_t i = 1; i < nv; i++) {
		uint32_t v = order[i], j = i;
		for (; j > 0 && passes[order[j - 1]].gpu.begin_ns > passes[v].gpu.begin_ns; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
	uint32_t next = 0, nactive = 0;
	for (uint32_t s = 0; s + 1 < m; s++) {
		uint64_t a = pts[s], b = pts[s + 1];
		if (a == b)
			continue;
		/* Passes not begun by a cannot cover [a, b]; nor, from here on, those ended by a. */
		while (next < nv && passes[order[next]].gpu.begin_ns <= a)
			active[nactive++] = order[next++];
		uint32_t k = 0, kept = 0;
		for (uint32_t j = 0; j < nactive; j++) {
			const struct pp_pass_result *p = &passes[active[j]];
			if (p->gpu.end_ns <= a)
				continue;
			active[kept++] = active[j];
			k += p->gpu.begin_ns <= a && p->gpu.end_ns >= b;
		}
		nactive = kept;
		if (!k)
			continue;
		for (uint32_t j = 0; j < nactive; j++) {
			struct pp_pass_result *p = &passes[active[j]];
			if (p->gpu.begin_ns <= a && p->gpu.end_ns >= b) {
				acc[active[j]] += (double)(b - a) / k;
				p->overlapped |= k > 1;
			}
		}
	}
	for (uint32_t i = 0; i < n; i++)
		passes[i].gpu_exclusive_ns = (uint64_t)(acc[i] + 0.5);
out:
	if (pts != stack_pts)
		free(pts);
	if (acc != acc_stack)
		free(acc);
	if (order != idx_stack)
		free(order);
}
