#pragma once
/* The per-pass summary: one table printed by the layer at process exit (stderr) and by
 * `passprobe report DIR`, and the "summary" object of report.json (docs/report-format.md).
 *
 * Units are nanoseconds. A value that could not be measured is NAN in the structs, null in
 * JSON and "n/a" in the table; it is never 0. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pp_json_writer;
struct pp_json_value;

#define PP_SUMMARY_COUNTERS 8

struct pp_summary_row {
	char name[64];             /* pass name */
	char kind[16];             /* "render" | "compute" | "transfer" */
	uint64_t count;            /* pass instances with this name (and kind) */
	uint64_t measured;         /* how many of them had a GPU time */
	double gpu_mean_ns, gpu_p50_ns, gpu_p95_ns, gpu_max_ns; /* NAN when measured == 0 */
	double share_of_frame;     /* its part of all the pass GPU time measured (exclusive
	                              times summed over timed frames), 0..1, NAN if unmeasured */
	double per_frame;          /* mean instances per frame */
	double cpu_record_mean_ns; /* NAN when unavailable */
	/* GPU hardware counters (any backend but timestamps and pipeline statistics, which have
	 * columns of their own): mean per pass instance that measured them. The first
	 * PP_SUMMARY_COUNTERS a pass name had. */
	uint32_t ncounters;
	struct pp_summary_counter {
		char name[96];     /* "source/name" */
		char unit[24];
		double mean;
		uint64_t measured; /* instances with a value */
	} counters[PP_SUMMARY_COUNTERS];
};

/* The diagnostics in a few lines (docs/diagnostics.md): how many sites of each severity, and
 * the warnings that cost most per frame. */
#define PP_SUMMARY_DIAGNOSTICS 5
struct pp_summary_diag {
	char id[48];
	char site[192];
	double cost_ns;            /* per frame it occurred in; NAN when not measured */
	uint64_t count, frames;
};

struct pp_summary {
	uint64_t frames;           /* frames reported */
	uint64_t frames_gpu_timed; /* of them, frames with a GPU time: the GPU statistics are over
	                              these only (sampled timing, passes without timestamps) */
	double frame_gpu_mean_ns, frame_gpu_p50_ns, frame_gpu_p95_ns; /* NAN when unavailable */
	size_t nrows;
	struct pp_summary_row *rows; /* owned (malloc); sorted as pp_summary_sort() does */
	char device[128];          /* device name, may be empty */
	char notes[512];           /* e.g. "timestamps unavailable: ..."; may be empty */
	uint64_t diag_warnings, diag_info; /* diagnostic sites of each severity */
	uint32_t ndiags;           /* the costliest warnings: most cost per frame first, unmeasured last */
	struct pp_summary_diag diags[PP_SUMMARY_DIAGNOSTICS];
	/* The experiment's sites and verdicts (docs/diagnostics.md, "Experiment mode"): one line
	 * each, '\n' between them; may be empty. */
	char experiment[2048];
};

/* Sets every duration and share to NAN and the rest to zero/empty (rows NULL). */
void pp_summary_init(struct pp_summary *s);
/* Sets a row's GPU and CPU values to NAN and the rest to zero/empty. */
void pp_summary_row_init(struct pp_summary_row *r);

/* Counts one diagnostic site of report.json (severity "info", else a warning) and keeps it
 * among the costliest warnings. */
void pp_summary_diagnostic_add(struct pp_summary *s, const char *id, const char *severity, const char *site,
			       double cost_ns, uint64_t count, uint64_t frames);

/* Sorts rows by GPU time per frame (gpu_mean_ns x per_frame) descending; rows without a GPU
 * time go last in their original order. Stable, so equal rows keep their order. */
void pp_summary_sort(struct pp_summary *s);

/* Prints the table: a header line "passprobe: per-pass GPU time over N frames (device)",
 * the frame line, then columns pass, kind, per frame, mean, p50, p95, max, share for the
 * max_rows passes with the most GPU time per frame (0: all), then a line counting the rows
 * left out, the shown passes' GPU counters (when any has some: one line per pass,
 * "passprobe:   NAME: source/counter MEAN UNIT, ..."), the notes, and where there are
 * diagnostics, how many of each severity and the costliest warnings, one line each
 * ("passprobe:   warning  COST/frame  ID  SITE"). Durations use ns/µs/ms/s with 3 significant digits; unavailable
 * values print "n/a". Does not reorder s. */
void pp_summary_print(FILE *f, const struct pp_summary *s, size_t max_rows);

/* Formats a duration like the table does ("1.23 ms", "n/a" for NAN) into buf. */
const char *pp_summary_format_ns(double ns, char *buf, size_t len);

/* Writes the "summary" object (the value only: the caller writes the "summary" key).
 * Returns the writer's latched error. */
int pp_summary_write_json(struct pp_json_writer *w, const struct pp_summary *s);

/* In pp_summary_read.c, library pp_attribution_json_read (the rest is pp_summary.c, library
 * pp_attribution_json).
 * Reads report_root["summary"] into *out (which it initialises; free with pp_summary_free
 * even on failure); its diagnostics digest from summary.diagnostics, or, in a report written
 * before there was one, from report_root["diagnostics"] (every site a warning there). Returns 0, -EINVAL with a message naming the offending field in err
 * ("summary.passes[2].count: expected a non-negative integer"), or -ENOMEM.
 * Rows keep the file's order; strings longer than the struct's fields are cut at a UTF-8
 * character boundary. */
int pp_summary_read_from_json(const struct pp_json_value *report_root, struct pp_summary *out,
			 char *err, size_t err_len);

void pp_summary_free(struct pp_summary *s);
