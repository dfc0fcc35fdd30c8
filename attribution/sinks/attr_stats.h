#pragma once
/* Per-pass-name statistics for the summary (stderr table and report.json "summary"), kept in
 * bounded memory however long the program runs.
 *
 * Percentiles come from a log-bucketed histogram: values below 64 ns are counted exactly;
 * above, every power of two is split into 64 equal buckets, so a bucket [L, L + w) has
 * w <= L / 64. A percentile reports the bucket's midpoint (clamped to the observed min and
 * max), hence its relative error against the exact nearest-rank percentile of the samples is
 * at most (w - 1) / 2 / L < 1/128, about 0.8 %. Values of 2^46 ns (19.5 hours) and more share
 * the top bucket; the max is kept exactly.
 *
 * Memory: a histogram allocates 64 counters (256 bytes) per power of two it has seen (at most
 * 41 of them, 10.5 KiB); the name table holds at most max_names names per statistics object,
 * further names are aggregated into one "(other)" row per kind and counted in the notes.
 *
 * Not thread-safe: the sinks' writer thread owns the object. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_model.h"

struct pp_summary;

#define PP_HIST_SUB_BITS 6
#define PP_HIST_SUB (1u << PP_HIST_SUB_BITS) /* buckets per power of two */
#define PP_HIST_OCTAVES 41                   /* octave 0: 0..63 exact; k: [64<<(k-1), 64<<k) */

struct pp_hist {
	uint64_t n;        /* samples held in the buckets */
	uint64_t lost;     /* samples not held because a bucket group could not be allocated */
	uint64_t min, max; /* exact, over held samples */
	uint32_t *octave[PP_HIST_OCTAVES]; /* NULL until a value in that power of two arrives */
};

/* A zeroed struct is an empty histogram. */
void pp_attr_stats_hist_add(struct pp_hist *h, uint64_t v);
/* Nearest-rank quantile, q in [0, 1]: the smallest bucket holding at least ceil(q * n)
 * samples, reported as described above. NAN when empty. */
double pp_attr_stats_hist_quantile(const struct pp_hist *h, double q);
void pp_attr_stats_hist_free(struct pp_hist *h);

/* Default cap on distinct (name, kind) pairs. */
#define PP_STATS_MAX_NAMES 1024

struct pp_stats;

/* max_names: 0 for PP_STATS_MAX_NAMES. NULL when out of memory. */
struct pp_stats *pp_attr_stats_create(size_t max_names);
void pp_attr_stats_destroy(struct pp_stats *s);

/* Passes other layers recorded themselves (pp_pass_result.recorded_by) count like the
 * application's (the layer_passes setting); by default they are left out of every row and of
 * the frames' GPU time, and only counted for the notes. */
void pp_attr_stats_layer_passes_set(struct pp_stats *s, bool include);

/* Counts one frame: every pass instance under its (name, kind); the frame's GPU time as the
 * sum of its measured passes' exclusive times (unmeasured when no pass was measured). */
void pp_attr_stats_frame_add(struct pp_stats *s, const struct pp_frame_result *f);

/* Fills *out (initialised here; free with pp_summary_free) with one row per (name, kind),
 * sorted with pp_summary_sort. Row semantics:
 *   gpu_mean/p50/p95/max_ns  the pass's GPU interval (begin to end timestamp) over its
 *                            measured instances; NAN when none was measured
 *   share_of_frame           mean over measured frames of (this name's exclusive GPU time in
 *                            the frame / the frame's summed exclusive pass time)
 *   per_frame                instances / frames
 *   cpu_record_mean_ns       NAN: the model carries no CPU recording time yet
 * device and notes are left for the caller, except a note when names were aggregated.
 * Returns 0 or -ENOMEM (then out holds no rows but its frame values). */
int pp_attr_stats_summary_make(const struct pp_stats *s, struct pp_summary *out);

/* Frames counted so far. */
uint64_t pp_attr_stats_frames(const struct pp_stats *s);
