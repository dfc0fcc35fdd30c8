#pragma once
/* The noise rule of `passprobe compare` (docs/cli.md, "The noise rule"), shared with the
 * experiment's verdicts (docs/diagnostics.md, "Experiment mode"): a change of a median from A to
 * B counts when it exceeds K times the larger spread of the two runs and is at least a given
 * fraction of A, each run having at least PP_NOISE_MIN_SAMPLES samples. */
#include <stddef.h>

#define PP_NOISE_MIN_SAMPLES 8
#define PP_NOISE_K 1.0           /* compare's --noise default */
#define PP_NOISE_MIN_CHANGE 0.05 /* compare's --min-change default */

/* In this order: compare prints them by index. */
enum pp_noise_verdict { PP_NOISE_UNAVAILABLE, PP_NOISE_UNJUDGED, PP_NOISE_WITHIN, PP_NOISE_UP, PP_NOISE_DOWN };

struct pp_noise_change {
	double a, b, delta, rel, noise; /* noise: the threshold |delta| had to pass; NAN when not judged */
	enum pp_noise_verdict v;
};

/* a, b: the values compared (medians, or p95s); spread_a, spread_b: each run's spread of them
 * (the interquartile range for a median); na, nb: samples behind each; judged: false when
 * either comes without a spread (PP_NOISE_UNJUDGED). NAN a or b: PP_NOISE_UNAVAILABLE. */
struct pp_noise_change pp_noise_judge(double a, double b, double spread_a, double spread_b, size_t na, size_t nb,
				      int judged, double k, double min_change);
