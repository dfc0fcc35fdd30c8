#pragma once
/* Time overlap between passes: their exclusive GPU times (pp_attr_overlap_exclusive_times), and
 * sampled GPU counters attributed to them (docs/counters.md, "Sampled counters"). Pure: no
 * state, no clock (the exclusive times allocate only for submissions of over 32 passes), so
 * every case can be constructed in a test.
 *
 * A sample says "the counter grew by v over [begin, end]" (host time line); a pass ran over
 * [begin, end] (its calibrated GPU interval). For each pass and sample:
 *   estimate  v x (the time of the sample the pass covers) / (the sample's length), where an
 *             instant covered by k passes gives each 1/k of itself (as gpu_exclusive_ns does);
 *             time of the sample covered by no pass is nobody's;
 *   lower     v when the sample lies wholly inside the pass and no other pass runs during it
 *             (then every event of it was the pass's), else 0;
 *   upper     v when the pass covers any of the sample (all its events may have been the
 *             pass's), else 0;
 * summed over the samples. A sample of zero length counts for the passes that contain its
 * instant. So lower <= estimate <= upper, and estimate == lower == upper when samples are
 * taken exactly at the boundaries of passes that do not overlap. `shared` says that another
 * pass ran at the same time as this one: the samples cannot tell them apart. */
#include <stdbool.h>
#include <stdint.h>

struct pp_pass_result; /* pp_model.h: this header stays includable alone (the kbase fuzz target) */

struct pp_overlap_span {
	uint64_t begin_ns, end_ns;
	bool valid; /* passes without a GPU interval get a zero share */
};

struct pp_overlap_share {
	double estimate, lower, upper;
	bool covered; /* every instant of the pass lies in some sample: nothing of it was missed */
	bool shared;  /* another valid pass's interval intersects this one's */
};

/* out[npasses]; values[nsamples] is one counter's growth over each sample. */
void pp_attr_overlap_attribute(const struct pp_overlap_span *passes, uint32_t npasses,
			  const struct pp_overlap_span *samples, const double *values, uint32_t nsamples,
			  struct pp_overlap_share *out);

/* Each valid pass's gpu_exclusive_ns: every instant covered by k of the passes gives 1/k of
 * itself to each, so the exclusive times add up to the union of the intervals; overlapped set
 * where k > 1. Passes without a GPU interval get 0. */
void pp_attr_overlap_exclusive_times(struct pp_pass_result *passes, uint32_t n);
