#pragma once
/* Reading a recording (rec_format.h): the records of a file in memory, one at a time, with the
 * strings and GPU counter descriptions they refer to resolved, and the frames decoded back into
 * the model's pp_frame_result. A file cut short anywhere reads up to its last whole record;
 * records of types this reader does not know are skipped and counted. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_model.h"
#include "rec_format.h"
#include "rec_write.h"

struct pp_rec_reader;

/* A record as read: its type (one this reader knows) and payload, valid while the file's
 * bytes are. */
struct pp_rec_record {
	enum pp_rec_type type;
	const uint8_t *data;
	size_t len;
	uint64_t offset; /* of its header in the file */
};

/* What a read found beyond the records it returned. */
struct pp_rec_read_notes {
	uint64_t unknown_records;     /* of types this reader does not know, skipped */
	char unknown_types[256];      /* their names from the header, comma-separated */
	uint64_t cut_bytes;           /* at the end: a record cut short (or a corrupt length), ignored */
	uint64_t cut_offset;          /* where that record began */
	bool ended;                   /* a PP_REC_END record was read: the process finished */
	uint16_t minor;               /* the file's minor version */
};

/* Checks the header of data[0..len) (which must outlive the reader). 0, or -EINVAL with err
 * saying what is wrong (not a recording, a newer major version, a truncated header), or
 * -ENOMEM. */
int pp_rec_read_open(const uint8_t *data, size_t len, struct pp_rec_reader **out, char *err, size_t err_len);
void pp_rec_read_close(struct pp_rec_reader *r);

/* The next record of a type other than string and counter description (those are taken in),
 * 1; or 0 at the end of the readable part (pp_rec_read_notes_get says whether it was cut). */
int pp_rec_read_next(struct pp_rec_reader *r, struct pp_rec_record *out);
const struct pp_rec_read_notes *pp_rec_read_notes_get(const struct pp_rec_reader *r);

/* A string by id (NULL for 0 or an id never defined); lives as long as the reader. */
const char *pp_rec_read_string(const struct pp_rec_reader *r, uint32_t id);

/* Decoders. Each returns 0, or -EINVAL when the payload is malformed (err says where). */
/* A frame: *out is allocated as the model allocates frames (free with pp_model_frame_result_free);
 * its static strings and counter descriptions belong to the reader. ncpu_counters: how many CPU
 * counter values its costs carry at most (the process record's count). */
int pp_rec_read_decode_frame(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_frame_result **out,
			char *err, size_t err_len);
struct pp_rec_process {
	uint32_t pid;
	const char *name;
	uint64_t trace_origin_ns;
	unsigned ncpu_counters;
	const char *cpu_counters[PP_CPU_COUNTERS_MAX];
};
int pp_rec_read_decode_process(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_rec_process *out);
int pp_rec_read_decode_device(struct pp_rec_reader *r, const struct pp_rec_record *rec, uint32_t *id,
			 struct pp_device_info *out);
struct pp_rec_cpu_event {
	const char *name, *category;
	uint32_t tid;
	uint64_t begin_ns, end_ns, flow_id;
};
int pp_rec_read_decode_cpu_event(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_rec_cpu_event *out);
/* The sites of a diagnostics record: *out (malloc'd, free it) of *n entries. */
int pp_rec_read_decode_diagnostics(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_diagnostic **out,
			      size_t *n, uint64_t *other);
struct pp_rec_renderdoc {
	char library[512];
	char api_version[32];
};
int pp_rec_read_decode_renderdoc(const struct pp_rec_record *rec, struct pp_rec_renderdoc *out);
struct pp_rec_capture {
	uint32_t device;
	bool frame_known, requested;
	uint64_t frame, timestamp;
	char path[4096];
	/* Format 1.3: the diagnostic occurrences of its frame (malloc'd, NULL when none; an older
	 * recording has none), and how many the process did not keep. */
	struct pp_diagnostic_occurrence *diags;
	uint32_t ndiags;
	uint64_t diags_dropped;
};
/* *out is initialised here; free its diagnostics with pp_rec_read_capture_free, even on failure. */
int pp_rec_read_decode_capture(const struct pp_rec_record *rec, struct pp_rec_capture *out);
void pp_rec_read_capture_free(struct pp_rec_capture *c);
int pp_rec_read_decode_status(const struct pp_rec_record *rec, struct pp_rec_status *out);
/* *out is initialised here (free with pp_summary_free even on failure). */
struct pp_summary;
int pp_rec_read_decode_summary(const struct pp_rec_record *rec, struct pp_summary *out);
