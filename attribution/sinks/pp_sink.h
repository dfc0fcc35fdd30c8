#pragma once
/* Sinks: where resolved frames go. One set of outputs per process (report.json, trace.json,
 * passes.csv in the output_dir setting, and the summary table on stderr at exit).
 *
 * Threading: the app threads only hand frames over (pp_attr_sink_frame_submit: a bounded queue
 * push, never blocks on I/O); a writer thread aggregates statistics and writes files. */
#include <stdint.h>

#include "pp_model.h"

struct pp_settings;

/* Starts the writer thread on first call; later calls are no-ops. Returns 0 or -errno (the
 * layer then logs once and carries on without outputs). Safe from any thread. */
int pp_attr_sink_init(const struct pp_settings *settings);

/* Registers a device; returns its device_id for pp_frame_result.device_id. */
uint32_t pp_attr_sink_device_register(const struct pp_device_info *info);

/* Hands a resolved frame over; ownership passes to the sink (freed with
 * pp_model_frame_result_free). When the queue is full the frame is dropped and counted (reported in
 * report.json as frames_dropped), never blocking the caller. */
void pp_attr_sink_frame_submit(struct pp_frame_result *frame);

/* A CPU-side event for the trace (submit calls, blocking calls, recording spans). */
struct pp_cpu_event {
	const char *name;     /* static or interned */
	const char *category; /* "submit", "present", "record", "wait" */
	uint32_t tid;
	uint64_t begin_ns, end_ns;
	uint64_t flow_id;     /* non-zero: starts a flow arrow that a submission with this seq ends */
};
void pp_attr_sink_cpu_event(const struct pp_cpu_event *ev);

/* Names of the CPU counters in pp_cpu_cost.counter[], set once before frames arrive (the
 * strings must stay valid for the life of the process). */
void pp_attr_sink_cpu_counters_set(const char *const *names, unsigned n);

/* Chooses the CPU events from the cpu_counters setting (counters/cpu), logging one clear
 * message and keeping the defaults on a bad list, then sets their names as above. Once per
 * process, before any thread takes a snapshot: configuring closes every thread's counters.
 * The Vulkan layer and the GLES shim both start this way. */
void pp_attr_sink_cpu_counters_configure(const char *spec);

/* Flushes everything, writes the final report.json, closes trace.json, prints the summary on
 * stderr (summary setting). Idempotent; called from the library destructor at process exit. */
void pp_attr_sink_shutdown(void);

/* Diagnostics (attribution/diag/diag_sites.c; docs/diagnostics.md). pp_attr_sink_diagnostic: the first
 * occurrence of a site, an instant event in trace.json (cat "diagnostic") on the thread that
 * found it; name: "ID @ site", static or interned. report.json's "diagnostics" lists every
 * site from the source (called on the writer thread at each rewrite; out NULL: the count). */
void pp_attr_sink_diagnostic(const char *name, uint32_t tid, uint64_t ns);
typedef size_t (*pp_sink_diagnostics_fn)(struct pp_diagnostic *out, size_t max, uint64_t *other);
void pp_attr_sink_diagnostics_source_set(pp_sink_diagnostics_fn fn);
/* RenderDoc wrote a capture (docs/frame-debuggers.md): of passprobe's frame *frame of the device
 * (NULL: a frame passprobe did not count), asked for by passprobe (renderdoc_frames) or not,
 * RenderDoc's file and timestamp (seconds since the epoch). Listed in report.json with the
 * frame's measurements. Any thread. */
#include <stdbool.h>
void pp_attr_renderdoc_sink_capture(uint32_t device_id, const uint64_t *frame, bool requested, const char *path,
			       uint64_t timestamp);
/* A diagnostic occurred in frame `frame` of the device, a frame RenderDoc captures: listed
 * with that frame's capture (report.json's renderdoc.captures[].diagnostics), up to
 * PP_SINK_RENDERDOC_DIAGNOSTICS per frame (the rest counted). An occurrence equal to one the
 * frame has (a command buffer submitted twice) is not listed again. Any thread; the diagnostics
 * call it only for frames RenderDoc captures. */
void pp_attr_renderdoc_sink_diagnostic(uint32_t device_id, uint64_t frame, const struct pp_diagnostic_occurrence *o);

/* The id pp_attr_sink_device_register gave the first device with this identity; 0 when none. */
uint32_t pp_attr_sink_device_find(const char *name, uint32_t vendor_id, uint32_t device_id);
