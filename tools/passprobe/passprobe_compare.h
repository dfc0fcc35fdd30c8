#pragma once
/* `passprobe compare`: what the command (passprobe_compare.c) hands its output
 * (passprobe_compare_print.c): the two runs, the matched rows and their judged changes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "passprobe_cli.h"
#include "pp_noise.h"

/* Fewer samples than this in either run: the interquartile range says nothing, so the
 * change is not judged. */
#define CMP_MIN_SAMPLES PP_NOISE_MIN_SAMPLES

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
	bool info;         /* severity "info" (a report from before severities: every site a warning) */
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

/* pp_noise.h's verdicts, in its order. */
enum cmp_verdict { CMP_UNAVAILABLE, CMP_UNJUDGED, CMP_NOISE, CMP_UP, CMP_DOWN };

extern const char *const passprobe_compare_verdict_names[];

struct cmp_opts {
	double noise_k, min_change, fail_above; /* fail_above NAN: not asked */
	int metric;                             /* 0 gpu-p50, 1 gpu-p95, 2 cpu-p50 */
	bool fail_new_diag, same_device, json;
};

extern const char *const passprobe_compare_metric_names[];

struct cmp_change {
	double a, b, delta, rel, noise; /* noise: the threshold the delta had to pass */
	enum cmp_verdict v;
};

struct cmp_row {
	const struct cmp_pass *a, *b;
	struct cmp_change g50, g95, c50;
	double weight; /* |change of GPU time per frame|, the order of the table */
};

/* The metric --fail-above checks crossed the limit. */
bool passprobe_compare_regressed(const struct cmp_change *c, const struct cmp_opts *o);
/* The change of the metric --fail-above checks. */
const struct cmp_change *passprobe_compare_metric_change(const struct cmp_row *r, const struct cmp_opts *o);

void passprobe_compare_print_text(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		    size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o);
/* Returns the writer's error. */
int passprobe_compare_print_json(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		   size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o,
		   size_t nregressed, size_t nnew);
