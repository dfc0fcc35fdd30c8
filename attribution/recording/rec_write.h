#pragma once
/* Writing the recording (rec_format.h): records appended to a buffer the caller writes out
 * whole. Strings and GPU counter descriptions are written once, as records of their own before
 * the first record that refers to them. No text is formatted: a frame becomes a copy of its
 * values. Not thread-safe: the sinks' writer thread owns one. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_model.h"

struct pp_rec_writer;

/* NULL when out of memory. The buffer starts with the file's header; pp_rec_write_take hands
 * out what was appended since the last call. */
struct pp_rec_writer *pp_rec_write_create(void);
void pp_rec_write_destroy(struct pp_rec_writer *w);

/* The bytes appended since the last take (header included the first time), valid until the
 * next write; the writer forgets them. */
const uint8_t *pp_rec_write_take(struct pp_rec_writer *w, size_t *len);
/* How many bytes the next take hands out: appended, not yet written to the file. */
size_t pp_rec_write_pending(const struct pp_rec_writer *w);
/* Whether a write ran out of memory since the writer was created (what was lost is lost:
 * records are never written half). */
bool pp_rec_write_failed(const struct pp_rec_writer *w);

/* The payload of the last record appended, where it was a frame (one that could be written):
 * valid until the next write or take. NULL otherwise. */
const uint8_t *pp_rec_write_last_frame(const struct pp_rec_writer *w, size_t *len);

/* Frames kept as their records' bytes and read back later (report.json's window, at exit):
 * the strings they refer to may have left the string table (emptied when full) and the file
 * is not read back. pp_rec_write_strings_keep says which string table generations are still
 * wanted (a frame written while pp_rec_write_generation said g refers to strings of g and of
 * later generations: the table may be emptied while it is written): from `oldest` on, the
 * tables emptied are kept, and older ones freed; UINT32_MAX (the default) keeps none. Call it
 * before the first frame: the counter descriptions are kept from then on.
 * pp_rec_write_dictionary makes a recording of those strings and every counter description
 * (a file header, then their records), malloc'd, that a reader (pp_rec_read_open) takes in
 * before it decodes such frames; NULL when out of memory, or where a table that was wanted could
 * not be kept. Strings longer than the table keeps (4 KiB) are never in it. */
uint32_t pp_rec_write_generation(const struct pp_rec_writer *w);
void pp_rec_write_strings_keep(struct pp_rec_writer *w, uint32_t oldest);
uint8_t *pp_rec_write_dictionary(const struct pp_rec_writer *w, size_t *len);

void pp_rec_write_process(struct pp_rec_writer *w, uint32_t pid, const char *name, uint64_t trace_origin_ns,
			  const char *const *cpu_counters, unsigned ncpu_counters);
void pp_rec_write_settings(struct pp_rec_writer *w, const char *text, size_t len);
void pp_rec_write_device(struct pp_rec_writer *w, uint32_t id, const struct pp_device_info *info);
/* A frame whose CPU spans and counters are resolved (pp_attr_cpu_frame_result_resolve,
 * pp_model_frame_result_counters_resolve). ncpu_counters: how many of pp_cpu_cost.counter[] are
 * configured. Returns the bytes the frame record takes. */
/* report_only: a PP_REC_REPORT_FRAME (report.json's window only) rather than a PP_REC_FRAME. */
size_t pp_rec_write_frame(struct pp_rec_writer *w, const struct pp_frame_result *f, unsigned ncpu_counters,
			  bool report_only);
void pp_rec_write_cpu_event(struct pp_rec_writer *w, const char *name, const char *category, uint32_t tid,
			    uint64_t begin_ns, uint64_t end_ns, uint64_t flow_id);
void pp_rec_write_diagnostics(struct pp_rec_writer *w, const struct pp_diagnostic *d, size_t n, uint64_t other);
void pp_rec_write_renderdoc(struct pp_rec_writer *w, const char *library, const char *api_version);
/* A RenderDoc capture, with the diagnostic occurrences of its frame (occ[n]; dropped: those
 * past the sinks' bound). */
void pp_rec_write_capture(struct pp_rec_writer *w, uint32_t device, const uint64_t *frame, bool requested,
			  const char *path, uint64_t timestamp, const struct pp_diagnostic_occurrence *occ, uint32_t n,
			  uint64_t dropped);
/* Counts so far (PP_REC_STATUS), or at a clean end (PP_REC_END). */
struct pp_rec_status {
	uint64_t frames_total;   /* frames that reached the writer */
	uint64_t frames_dropped; /* the writer's queue was full */
	uint64_t events_dropped;
	uint64_t frames_left_out; /* not recorded: output_limit_mb reached */
	uint64_t first_left_out;  /* index of the first of them (its device's) */
	bool limit_reached;
	uint64_t bytes; /* the recording's size when the record was made, less the report frames
			 * written at exit: what output_limit_mb bounds */
};
void pp_rec_write_status(struct pp_rec_writer *w, bool end, const struct pp_rec_status *s);
/* The summary the process keeps over every frame (also those output_limit_mb left out of
 * the recording). */
struct pp_summary;
void pp_rec_write_summary(struct pp_rec_writer *w, const struct pp_summary *s);
