/* Time-overlap attribution of sampled GPU counters to passes (attribution/model/attr_overlap.c),
 * on constructed cases whose answers are worked out by hand in the comments. */
#include <stdio.h>

#include "attr_overlap.h"
#include "pp_check.h"

#define SPAN(b, e) { (b), (e), true }

static void expect(const char *what, const struct pp_overlap_share *s, double est, double lo, double hi, bool shared)
{
	CHECK(s->estimate == est && s->lower == lo && s->upper == hi && s->shared == shared,
	      "%s: got estimate %g [%g, %g] shared %d, want %g [%g, %g] shared %d", what, s->estimate, s->lower,
	      s->upper, s->shared, est, lo, hi, shared);
}

/* A sample wholly inside one pass: all of it is that pass's, exactly. */
static void test_inside(void)
{
	struct pp_overlap_span passes[] = { SPAN(100, 200), SPAN(300, 400) };
	struct pp_overlap_span samples[] = { SPAN(120, 180) };
	double v[] = { 60 };
	struct pp_overlap_share out[2];
	pp_attr_overlap_attribute(passes, 2, samples, v, 1, out);
	expect("inside: A", &out[0], 60, 60, 60, false);
	expect("inside: B", &out[1], 0, 0, 0, false);
	CHECK(!out[0].covered, "A is only partly inside a sample");

	/* samples cut exactly at the passes' boundaries: every bound is exact */
	struct pp_overlap_span tiled_passes[] = { SPAN(0, 10), SPAN(10, 30) };
	struct pp_overlap_span tiled[] = { SPAN(0, 10), SPAN(10, 30) };
	double tv[] = { 5, 7 };
	pp_attr_overlap_attribute(tiled_passes, 2, tiled, tv, 2, out);
	expect("tiled: A", &out[0], 5, 5, 5, false);
	expect("tiled: B", &out[1], 7, 7, 7, false);
	CHECK(out[0].covered && out[1].covered, "tiled passes are covered");
}

/* A sample straddling two passes: split by time, each may have had none or all of it. */
static void test_straddle(void)
{
	/* [150, 250] over A = [100, 200] and B = [200, 300]: half the time in each */
	struct pp_overlap_span passes[] = { SPAN(100, 200), SPAN(200, 300) };
	struct pp_overlap_span samples[] = { SPAN(150, 250) };
	double v[] = { 100 };
	struct pp_overlap_share out[2];
	pp_attr_overlap_attribute(passes, 2, samples, v, 1, out);
	expect("straddle: A", &out[0], 50, 0, 100, false);
	expect("straddle: B", &out[1], 50, 0, 100, false);

	/* across a gap: [150, 350] over A = [100, 200], idle [200, 300], B = [300, 400]; a
	 * quarter of the time in each pass, the idle half is nobody's */
	struct pp_overlap_span gap_passes[] = { SPAN(100, 200), SPAN(300, 400) };
	struct pp_overlap_span gap_samples[] = { SPAN(150, 350) };
	double gv[] = { 200 };
	pp_attr_overlap_attribute(gap_passes, 2, gap_samples, gv, 1, out);
	expect("gap: A", &out[0], 50, 0, 200, false);
	expect("gap: B", &out[1], 50, 0, 200, false);

	/* two samples over one pass, one inside, one straddling its end:
	 * A = [0, 100]; [0, 50] v 10 inside; [50, 150] v 40 half in A */
	struct pp_overlap_span one[] = { SPAN(0, 100) };
	struct pp_overlap_span two[] = { SPAN(0, 50), SPAN(50, 150) };
	double tv[] = { 10, 40 };
	pp_attr_overlap_attribute(one, 1, two, tv, 2, out);
	expect("two samples: A", &out[0], 30, 10, 50, false);
	CHECK(out[0].covered, "A covered by the two samples");
}

/* Passes that overlap each other: shared time split evenly, both say so. */
static void test_overlapping_passes(void)
{
	/* A = [100, 300], B = [200, 400], one sample [100, 400] v 300: [100, 200] A alone 100,
	 * [200, 300] both, 50 each, [300, 400] B alone 100 */
	struct pp_overlap_span passes[] = { SPAN(100, 300), SPAN(200, 400) };
	struct pp_overlap_span samples[] = { SPAN(100, 400) };
	double v[] = { 300 };
	struct pp_overlap_share out[3];
	pp_attr_overlap_attribute(passes, 2, samples, v, 1, out);
	expect("overlap: A", &out[0], 150, 0, 300, true);
	expect("overlap: B", &out[1], 150, 0, 300, true);

	/* a sample inside both: no lower bound for either, half each */
	struct pp_overlap_span inner[] = { SPAN(220, 280) };
	double iv[] = { 60 };
	pp_attr_overlap_attribute(passes, 2, inner, iv, 1, out);
	expect("inside both: A", &out[0], 30, 0, 60, true);
	expect("inside both: B", &out[1], 30, 0, 60, true);

	/* a third pass apart from both is not shared, and a sample inside it alone is exact */
	struct pp_overlap_span three[] = { SPAN(100, 300), SPAN(200, 400), SPAN(500, 600) };
	struct pp_overlap_span s3[] = { SPAN(100, 400), SPAN(500, 600) };
	double v3[] = { 300, 9 };
	pp_attr_overlap_attribute(three, 3, s3, v3, 2, out);
	expect("three: C", &out[2], 9, 9, 9, false);
	CHECK(out[0].estimate + out[1].estimate + out[2].estimate == 309, "estimates add up to the samples");
}

/* Passes without an interval, and instant samples. */
static void test_edges(void)
{
	struct pp_overlap_span passes[] = { SPAN(0, 10), { 0, 0, false }, SPAN(10, 20) };
	struct pp_overlap_span samples[] = { SPAN(0, 20), SPAN(5, 5), SPAN(10, 10) };
	double v[] = { 20, 4, 6 };
	struct pp_overlap_share out[3];
	pp_attr_overlap_attribute(passes, 3, samples, v, 3, out);
	/* [0, 20]: 10 each; instant 5 inside A alone: 4 to A exactly; instant 10 on both
	 * boundaries: 3 each, no lower bound */
	expect("edges: A", &out[0], 17, 4, 30, false);
	expect("edges: invalid", &out[1], 0, 0, 0, false);
	expect("edges: B", &out[2], 13, 0, 26, false);
	CHECK(!out[1].covered, "an invalid pass is never covered");
}

int main(void)
{
	test_inside();
	test_straddle();
	test_overlapping_passes();
	test_edges();
	return check_finish();
}
