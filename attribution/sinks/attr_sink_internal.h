#pragma once
/* The sinks' shared state and the pieces the output files (attr_report.c, attr_trace.c,
 * attr_csv.c) use. Everything in struct attr_sink_ctx belongs to whoever holds the I/O lock in
 * attr_sink.c: the writer thread while it runs, the thread calling pp_attr_sink_shutdown after. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pp_json.h"
#include "pp_model.h"
#include "pp_settings.h"
#include "pp_sink.h"

struct pp_rec_writer;
struct pp_summary;

struct pp_stats;

/* CPU counter names of pp_cpu_cost.counter[] (pp_attr_sink_cpu_counters_set). */
extern const char *const *pp_attr_sink_cpu_counter_names;
extern unsigned pp_attr_sink_cpu_counter_count;

/* Frames waiting for the writer; a full queue drops (the writer is behind by this many): four
 * of its batches (attr_sink.c, SINK_WAKE_FRAMES). */
#define PP_SINK_QUEUE_FRAMES 128
/* CPU events waiting for the writer. */
#define PP_SINK_CPU_EVENTS 4096
/* Distinct devices remembered; registering an identical device again reuses its id. */
#define PP_SINK_MAX_DEVICES 32
/* GPU queues and CPU threads named in trace.json; more share one "other" track / go unnamed. */
#define PP_SINK_TRACE_QUEUES 64
#define PP_SINK_TRACE_THREADS 256
/* stdio buffer of the streamed files. Writes are line-aligned within it (pp_attr_sink_file_reserve),
 * so a process killed between two writes leaves only whole lines behind. */
#define PP_SINK_FILE_BUFFER (256 * 1024)
/* Rows the stderr summary shows. */
#define PP_SINK_SUMMARY_ROWS 25

/* Trace tids for GPU queues start here: Linux's PID_MAX_LIMIT is 4194304, so no real thread id
 * can collide with them. */
#define PP_SINK_TRACE_GPU_TID 4194304u

struct attr_device {
	uint32_t id;
	struct pp_device_info info; /* time_domain and notes point into the buffers below */
	char time_domain[128];
	char notes[256];
	bool has_notes;
};

struct attr_trace_queue {
	uint32_t device_id;
	uint64_t handle;
	uint32_t tid;
	uint64_t cursor_ns; /* end of the last slice on this track: later slices start no earlier */
};

struct attr_trace_thread {
	uint32_t tid;
	uint64_t submit_cursor_ns; /* end of the last submit-call slice on this thread */
};

/* A frame of report.json's window: report.json is written at the end, so the frames are
 * formatted once, there, not as they arrive. A frame the recording took is kept as its
 * record's bytes (a seventh of the frame's memory: the window of a long run need not hold
 * report_frames frames of results, nor keep them from being reused while hot in the cache),
 * read back at the end with the strings the writer kept for it (pp_rec_write_dictionary); any
 * other (past output_limit_mb, made from a recording by `passprobe report`) as it arrived. */
struct attr_window_frame {
	uint64_t index;
	struct pp_frame_result *frame; /* NULL: bytes */
	uint8_t *bytes;                /* the frame record's payload */
	size_t len, cap;
	uint32_t generation;           /* of the writer's string table when it was written */
	bool recorded; /* in the recording (output_limit_mb may have kept it out) */
};

/* output_limit_mb: one per streamed file. The first frames are kept: a stream cannot drop its
 * head without being rewritten, and the capture window is how a user picks later frames. */
struct attr_output_limit {
	uint64_t bytes;          /* written so far (header included) */
	uint64_t frames;         /* frames written */
	bool reached;            /* the limit stopped it: no frame written since */
	uint64_t first_left_out; /* index of the first frame not written (its device's) */
	uint64_t frames_left_out;
};

/* RenderDoc's captures (attr_renderdoc.c): at most this many are listed in report.json, each
 * with its frame's text kept whatever report_frames keeps. */
#define PP_SINK_RENDERDOC_CAPTURES 64
/* Diagnostic occurrences listed per captured frame (pp_attr_renderdoc_sink_diagnostic); more are
 * counted. */
#define PP_SINK_RENDERDOC_DIAGNOSTICS 64
/* A pass's command buffer, as report.json numbers it: what a diagnostic's command buffer
 * handle becomes. */
struct attr_renderdoc_cb {
	uint64_t handle;
	uint32_t submission, command_buffer;
};
struct attr_renderdoc_frame {
	uint32_t device;
	uint64_t index;
	char *json;
	size_t len;
	struct attr_renderdoc_cb *cbs; /* one per pass with a handle, in frame order */
	uint32_t ncbs;
};
/* A frame's diagnostic occurrences as the recording carries them with its capture. */
struct attr_renderdoc_diags {
	const struct pp_diagnostic_occurrence *occ;
	uint32_t n;
	uint64_t dropped;
};

/* Capture windows seen by the sinks: runs of consecutive captured frames of one device with
 * the same trigger. The latest PP_SINK_WINDOWS are kept (report.json lists them). */
#define PP_SINK_WINDOWS 64
struct attr_capture_window {
	uint32_t device;
	uint64_t first, last;
	const char *by;          /* "frames" | "signal" | "trigger_file" */
	uint64_t frames_gpu_timed;
	uint64_t end_ns;         /* CPU end of its last frame */
};

struct attr_sink_ctx {
	struct pp_settings settings;
	pid_t pid;
	char process_name[64];
	int dirfd;              /* -1: no file outputs (the summary still works) */
	int lockfd;             /* the output directory's claim (outputs_open); -1: none */
	char dir[PATH_MAX];     /* for messages */
	struct pp_stats *stats;
	uint64_t frames_total;  /* frames that reached the writer */

	/* report.json: the last report_frames frames, oldest at window_head */
	struct attr_window_frame *window;
	uint32_t window_cap, window_head, window_count;
	/* Reads the frames kept as bytes back (pp_attr_report_window_seal), over window_dict. */
	struct pp_rec_reader *window_reader;
	uint8_t *window_dict;
	bool report_failed;
	bool report_dirty;      /* frames arrived since the last rewrite */
	uint64_t report_writes;

	/* trace.json */
	FILE *trace;
	char *trace_buf;        /* its stdio buffer */
	size_t trace_buffered;  /* bytes in it since the last flush */
	uint64_t trace_origin_ns;
	uint64_t trace_events;
	struct attr_trace_queue queues[PP_SINK_TRACE_QUEUES];
	uint32_t nqueues;
	struct attr_trace_thread threads[PP_SINK_TRACE_THREADS];
	uint32_t nthreads;
	struct pp_json_writer trace_event; /* one event's text (attr_trace.c); its buffer is kept */

	/* passes.csv */
	FILE *csv;
	char *csv_buf;
	size_t csv_buffered;
	uint64_t csv_rows;

	/* capture windows and output limits (attr_capture.c) */
	uint64_t limit_bytes;   /* output_limit_mb in bytes, 0: none */
	struct attr_output_limit trace_limit, csv_limit;
	struct attr_capture_window windows[PP_SINK_WINDOWS]; /* ring, oldest at windows_head */
	uint32_t windows_head, windows_count;
	uint64_t windows_total;
	uint64_t frames_gpu_timed;

	/* The recording (attr_recording.c), in the application's process: every other output is
	 * made from it by `passprobe report`. */
	int rec_fd;                 /* -1: none */
	struct pp_rec_writer *rec;
	struct attr_output_limit rec_limit;
	size_t rec_devices;         /* devices written to it so far */
	uint64_t rec_captures;      /* RenderDoc captures written to it so far */
	bool rec_failed;            /* a write failed: no more is written */
	uint32_t rec_generation;    /* the writer's string table's when the last frame was written */
	bool rec_renderdoc;         /* RenderDoc's presence written */

	/* Made from a recording by `passprobe report` (attr_replay.c), not in the application's
	 * process: trace.json and passes.csv are written, no recording; what the process said
	 * about itself comes from the recording. */
	bool offline;
	const struct attr_text_outputs *text; /* trace.json, passes.csv (attr_replay.c) */
	struct pp_summary *offline_summary; /* the process's own over every frame, when the
					     * recording lacks frames (output_limit_mb) */
	char offline_notes[512];    /* what reading the recording found (cut, unknown records) */
	/* The experiment (attr_experiment.c): what each arm measured per experiment site, in the
	 * application's process; frames passprobe rewrote, left out of the statistics. */
	struct attr_exp_site *exp;
	uint64_t exp_frames_fixed;
	char renderdoc_library[512], renderdoc_version[32]; /* from the recording */
	bool renderdoc_seen;

	/* frames RenderDoc captured (attr_renderdoc.c), oldest at rdoc_head */
	struct attr_renderdoc_frame rdoc_frames[PP_SINK_RENDERDOC_CAPTURES];
	uint32_t rdoc_head, rdoc_count;

	bool closed;            /* shutdown finished: nothing may touch the files any more */
};

/* RenderDoc's captures (attr_renderdoc.c): keeps a captured frame's report.json text; writes
 * report.json's "renderdoc" member; prints the captures under the summary; frees the kept. */
void pp_attr_renderdoc_frame_keep(struct attr_sink_ctx *c, const struct pp_frame_result *f, const char *json, size_t len);
void pp_attr_renderdoc_report_write(struct attr_sink_ctx *c, struct pp_json_writer *w);
/* Hands the captures not handed yet (from c->rec_captures on) to out, in order. */
void pp_attr_renderdoc_captures_record(struct attr_sink_ctx *c,
				    void (*out)(struct attr_sink_ctx *c, uint32_t device, const uint64_t *frame,
						bool requested, const char *path, uint64_t timestamp,
						const struct attr_renderdoc_diags *diags));
/* A capture read from a recording, with its frame's diagnostic occurrences (attr_replay.c). */
void pp_attr_renderdoc_capture_replayed(uint32_t device, const uint64_t *frame, bool requested, const char *path,
				     uint64_t timestamp, const struct attr_renderdoc_diags *diags);
void pp_attr_renderdoc_summary_print(FILE *out);
void pp_attr_renderdoc_free(struct attr_sink_ctx *c);

/* Where report.json's diagnostics come from (pp_attr_sink_diagnostics_source_set); NULL: none. */
pp_sink_diagnostics_fn pp_attr_sink_diagnostics_source(void);
/* Every diagnostic site now, in an array to free(), with the experiment's arms of context c
 * (pp_attr_experiment_fill); false when there is no source (then *out is NULL and *n 0).
 * *other: sites past the list's bound. */
bool pp_attr_sink_diagnostics_snapshot(struct attr_sink_ctx *c, struct pp_diagnostic **out, size_t *n, uint64_t *other);

/* Device registry (attr_sink.c). Entries never change once listed, so a snapshot of the count
 * is enough to read them without the lock. */
size_t pp_attr_sink_devices_snapshot(const struct attr_device **out);
/* Empties the registry and the RenderDoc captures' list: each recording a `passprobe report`
 * process reads brings its own (attr_replay.c). Never while a process's own sinks run. */
/* Whether this process's sink records (between pp_attr_sink_init and pp_attr_sink_shutdown): the
 * replay, which reuses the sink's process-wide tables, refuses to run then. */
bool pp_attr_sink_running(void);
void pp_attr_sink_devices_forget(void);
void pp_attr_renderdoc_forget(void);

/* Creates (truncating) name in the output directory: O_CLOEXEC | O_NOFOLLOW, mode 0644.
 * excl adds O_EXCL. buf_out, if not NULL, gets a PP_SINK_FILE_BUFFER stdio buffer to free()
 * after fclose. NULL with errno set on failure. */
FILE *pp_attr_sink_file_create(struct attr_sink_ctx *c, const char *name, bool excl, char **buf_out);
/* Before writing a line of n bytes: flushes first if it would not fit in the buffer, so that
 * stdio never writes out part of a line on its own. */
void pp_attr_sink_file_reserve(FILE *f, size_t *buffered, size_t n);
/* Logs one line for a file that can no longer be written (err: positive errno). */
void pp_attr_sink_file_fail(struct attr_sink_ctx *c, const char *name, int err);
/* An output written while frames run: pp_attr_sink_file_create with a buffer, the failure
 * logged (pp_attr_sink_file_fail) and its errno in *err_out. */
FILE *pp_attr_sink_file_open(struct attr_sink_ctx *c, const char *name, char **buf_out, int *err_out);
/* Flushes f and reports whether everything written so far reached the kernel; on failure
 * closes f, logs once and returns false (the caller forgets f). */
bool pp_attr_sink_file_flush(struct attr_sink_ctx *c, FILE *f, const char *name);

/* Chrome trace format time: microseconds since trace_origin_ns. */
double pp_attr_sink_trace_us(const struct attr_sink_ctx *c, uint64_t ns);

/* Shared helpers (attr_report.c) */
/* The frame's GPU time: the sum of its measured passes' exclusive times; false when no pass
 * was measured. */
bool pp_attr_report_frame_gpu_ns(const struct pp_frame_result *f, uint64_t *out);
const char *pp_attr_report_kind_name(enum pp_pass_kind k);         /* "render" | "compute" | "transfer" */
const char *pp_attr_report_name_source_name(enum pp_name_source s); /* "label" | "object" | "generated" */
/* Draw calls of every kind (direct, indexed, indirect, indirect count). */
uint64_t pp_attr_report_workload_draws(const struct pp_workload *wl);

/* The summary over every frame so far, with device names and dropped-frame notes (attr_sink.c).
 * Free with pp_summary_free. */
struct pp_summary;
void pp_attr_sink_summary_build(struct attr_sink_ctx *c, uint64_t frames_dropped, struct pp_summary *out);

/* report.json (attr_report.c) */
void pp_attr_report_window_push(struct attr_sink_ctx *c, struct pp_frame_result *f, bool recorded);
/* Before the recording's writer goes: what reads the window's frames kept as bytes back. */
void pp_attr_report_window_seal(struct attr_sink_ctx *c);
void pp_attr_report_window_free(struct attr_sink_ctx *c);
/* Rewrites report.json atomically; logs and sets report_failed on failure. */
void pp_attr_report_write(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped);
struct pp_json_writer;
/* A pass's workload as one JSON object: report.json's passes and trace.json's pass args alike. */
void pp_attr_report_workload_write(struct pp_json_writer *w, const struct pp_workload *wl);

/* The text outputs made from a recording, trace.json and passes.csv: attr_replay.c sets them
 * (library pp_attribution_replay, which only the passprobe tool links). In the application's
 * process there are none, and their code is not linked there. */
struct attr_text_outputs {
	/* A frame, after the recording's limit admitted it. */
	void (*frame)(struct attr_sink_ctx *c, const struct pp_frame_result *f);
	void (*cpu_event)(struct attr_sink_ctx *c, const struct pp_cpu_event *ev);
	/* A capture window's begin or end mark (attr_capture.c). */
	void (*window_mark)(struct attr_sink_ctx *c, const char *name, uint64_t ns, uint32_t device,
			    uint64_t first_frame, const char *by, bool have_last, uint64_t last_frame);
};

/* trace.json (attr_trace.c) */
int pp_attr_trace_open(struct attr_sink_ctx *c);
void pp_attr_trace_frame_write(struct attr_sink_ctx *c, const struct pp_frame_result *f);
void pp_attr_trace_cpu_event_write(struct attr_sink_ctx *c, const struct pp_cpu_event *ev);
void pp_attr_trace_flush(struct attr_sink_ctx *c);
/* Appends the closing metadata event and "]". */
void pp_attr_trace_close(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped);

/* An instant event on the process track (ph "i", scope global): capture window marks. */
void pp_attr_trace_instant_write(struct attr_sink_ctx *c, const char *name, uint64_t ns, uint32_t device,
			      uint64_t first_frame, const char *by, bool have_last, uint64_t last_frame);

/* passes.csv (attr_csv.c) */
int pp_attr_csv_open(struct attr_sink_ctx *c);
void pp_attr_csv_frame_write(struct attr_sink_ctx *c, const struct pp_frame_result *f);
void pp_attr_csv_flush(struct attr_sink_ctx *c);
void pp_attr_csv_close(struct attr_sink_ctx *c);

/* Capture windows and output limits (attr_capture.c) */
/* A frame arrives at the writer: windows updated (trace marks written). */
void pp_attr_capture_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f);
/* Whether frame f may still go into the streamed file `name` (its limit not reached); logs
 * once and marks the limit when this frame would pass it. pending: the bytes of the file made
 * but not yet written (the recording's batch), counted as written. */
bool pp_attr_capture_limit_admit(struct attr_sink_ctx *c, struct attr_output_limit *l, const char *name,
		      const struct pp_frame_result *f, uint64_t pending);
/* report.json's "capture" and "output_limit" members. */
void pp_attr_capture_report_write(struct attr_sink_ctx *c, struct pp_json_writer *w);
/* Appends the limit notes to the summary's notes. */
void pp_attr_capture_summary_notes(struct attr_sink_ctx *c, char *notes, size_t len);
/* Before the trace is closed: the end mark of the last window. */
void pp_attr_capture_close(struct attr_sink_ctx *c);

/* Opens the output directory (made as needed, claimed against another process) and the
 * outputs this context writes (attr_sink.c). 0 or -errno after one message. */
int pp_attr_sink_outputs_open(struct attr_sink_ctx *c);

/* The recording (attr_recording.c): opened with the outputs in the application's process;
 * every frame (output_limit_mb permitting), CPU event, device, RenderDoc capture; every
 * flush_interval_ms and at the end the counts, the diagnostics and the summary. */
int pp_attr_recording_open(struct attr_sink_ctx *c);
/* A frame into the recording, unless output_limit_mb keeps it out: true when written. */
bool pp_attr_recording_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f);
void pp_attr_recording_cpu_event(struct attr_sink_ctx *c, const struct pp_cpu_event *ev);
void pp_attr_recording_periodic(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped);
void pp_attr_recording_close(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped);
/* Writes out the frames and events of a batch (between two state writes). */
void pp_attr_recording_flush(struct attr_sink_ctx *c);

/* A frame or CPU event through every output of this context (attr_sink.c): the recording in
 * the application's process, trace and csv when made from a recording. */
void pp_attr_sink_frame_process(struct attr_sink_ctx *c, struct pp_frame_result *f);

/* attr_experiment.c (docs/diagnostics.md, "Experiment mode"). pp_attr_experiment_frame_arm: the
 * arm frame f measures, with the sites it measures (*sites, bits); *modified: passprobe
 * rewrote something in it (it stays out of the normal statistics). pp_attr_experiment_frame: the
 * frame into the arms (in the application's process); returns *modified.
 * pp_attr_experiment_fill: the arms into diagnostics of the experiment (in the process; the
 * recording's are kept by passprobe report). pp_attr_experiment_json: a diagnostic's
 * "experiment" member. pp_attr_experiment_summary: the summary's lines. */
struct attr_exp_site;
enum pp_exp_arm pp_attr_experiment_frame_arm(const struct pp_frame_result *f, uint64_t *sites, bool *modified);
bool pp_attr_experiment_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f);
void pp_attr_experiment_fill(struct attr_sink_ctx *c, struct pp_diagnostic *d, size_t n);
void pp_attr_experiment_json(struct pp_json_writer *w, const struct pp_diagnostic *x);
void pp_attr_experiment_summary(const struct pp_diagnostic *d, size_t n, char *out, size_t len);
void pp_attr_experiment_free(struct attr_sink_ctx *c);
void pp_attr_sink_cpu_event_process(struct attr_sink_ctx *c, const struct pp_cpu_event *ev);


/* For tests: counters the public API does not expose. */
struct attr_sink_counters {
	uint64_t frames_processed;
	uint64_t frames_dropped;
	uint64_t events_dropped;
	uint64_t queued;        /* frames waiting for the writer */
	uint64_t report_writes;
};
void pp_attr_sink_counters_get(struct attr_sink_counters *out);

/* A pass's GPU counters (attr_counters.c). */
struct pp_json_writer;
/* The pipeline statistics of p's counter set (PP_STAT_* order): returns the valid bits;
 * *reason the first unavailable one's reason ("not measured" when the set has none). */
uint32_t pp_attr_counters_pass_statistics(const struct pp_pass_result *p, uint64_t v[PP_STAT_COUNT], const char **reason);
/* report.json's "gpu_counters" array of a pass: its counters but those shown in members of
 * their own (docs/report-format.md). */
void pp_attr_counters_write(struct pp_json_writer *w, const struct pp_pass_result *p);
/* A member name known only at run time but fixed for the process, pre-quoted as PP_JSON_NAME
 * makes them (`"name":`), so that writing it is a copy; len 0 when the name needs an escape or
 * is too long: attr_json_kv_* then write it the general way. */
struct attr_json_name {
	char text[64];
	size_t len;
};
/* The statistics' names (PP_STAT_COUNT, pp_model_stat_names order) and the CPU counters' names
 * (pp_attr_sink_cpu_counter_count, pp_attr_sink_cpu_counter_names order). For the I/O lock holder. */
const struct attr_json_name *pp_attr_counters_stat_json_names(void);
const struct attr_json_name *pp_attr_counters_cpu_json_names(void);
/* Members named n, pre-quoted from `name`. */
static inline void attr_json_kv_null(struct pp_json_writer *w, const struct attr_json_name *n, const char *name)
{
	if (n->len)
		pp_json_write_member_null(w, n->text, n->len);
	else
		pp_json_write_kv_null(w, name);
}
static inline void attr_json_kv_uint(struct pp_json_writer *w, const struct attr_json_name *n, const char *name,
				     uint64_t v)
{
	if (n->len)
		pp_json_write_member_uint(w, n->text, n->len, v);
	else
		pp_json_write_kv_uint(w, name, v);
}
/* A counter's value as a double (the estimate for sampled counters); false when unavailable. */
bool pp_attr_counters_value(const struct pp_counter_value *c, double *out);
/* Whether a counter is one the outputs show in members and columns of their own already
 * (pipeline statistics, the timestamps' GPU time): "gpu_counters" in report.json, passes.csv
 * and the summary, and trace.json's counter tracks list the others. */
bool pp_attr_counters_has_own_column(const struct pp_counter_value *c);
