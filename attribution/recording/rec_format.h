#pragma once
/* passprobe's recording (docs/report-format.md, "The recording"): what the layer and the shim
 * write while the program runs, one file per process, from which `passprobe report` makes every
 * output. Binary, little-endian, append-only in whole records.
 *
 *   file   = header record*
 *   header = "PPRECORD" u16 major u16 minor u32 types_len (types_len bytes of type entries:
 *            u16 type, u16 name_len, name)
 *   record = u16 type u16 flags(0) u32 len, then len bytes of payload
 *
 * Compatibility: a reader reads files of its major version (any minor); newer minors only add
 * record types (which an older reader skips, counting them by the names the header gives) and
 * fields at the end of a record or of a nested element (which an older reader does not read:
 * every element carries its length). A record cut short by the end of the file (a process
 * killed while writing) ends the readable part; everything before it is whole. */
#include <stdint.h>

#define PP_REC_MAGIC "PPRECORD"
#define PP_REC_MAJOR 1
/* Minor versions add fields at the end of an element, which older readers skip:
 * 1: a diagnostic's severity and verdict; 2: the experiment's fields of passes and diagnostics;
 * 3: a capture's diagnostics; 4: a pass's CPU span as its two snapshots, and the frame's CPU
 * cost without those passes at the end of the frame. */
#define PP_REC_MINOR 4
#define PP_REC_HEADER_FIXED 16 /* magic, major, minor, types_len */
#define PP_REC_RECORD_HEADER 8 /* type, flags, len */
/* A pass's workload: u16 mask, bit i set when count i (struct pp_workload's order) is not 0,
 * then those counts as u64. A newer writer may set bits past these (more counts): a reader
 * skips their values. */
#define PP_REC_WORKLOAD_COUNTS 14
/* How a pass's CPU span follows its other fields (format 1.4): a u8, then the snapshots. */
enum pp_rec_cpu_span {
	PP_REC_CPU_SPAN_NONE = 0,          /* its cost (if any) is the cost field before */
	PP_REC_CPU_SPAN_BOTH = 1,          /* the begin snapshot, then the end snapshot */
	PP_REC_CPU_SPAN_FROM_PREVIOUS = 2, /* the end snapshot: the span begins at the previous
					    * pass's end, the pass before it in the frame */
};

/* No record is larger: a frame of 65536 passes with every counter still fits. */
#define PP_REC_MAX_RECORD (256u << 20)

/* Record types. Values never change meaning; new ones are appended. */
enum pp_rec_type {
	PP_REC_STRING = 1,       /* u32 id, the bytes (no NUL): what later records refer to by id */
	PP_REC_PROCESS = 2,      /* u32 pid, str name, u64 trace origin ns, u32 n, str cpu counter name[n] */
	PP_REC_SETTINGS = 3,     /* "key=value\n"...: every setting as the settings parser writes it */
	PP_REC_DEVICE = 4,       /* a device the sinks registered (pp_device_info) */
	PP_REC_COUNTER_DESC = 5, /* u32 id and a GPU counter's description (pp_gpu_counter_desc) */
	PP_REC_FRAME = 6,        /* a frame with its submissions and passes (pp_frame_result) */
	PP_REC_CPU_EVENT = 7,    /* a CPU-side event for the trace (pp_cpu_event) */
	PP_REC_DIAGNOSTICS = 8,  /* every diagnostic site so far (replaces the previous one) */
	PP_REC_RENDERDOC = 9,    /* RenderDoc in the process: library, API version */
	PP_REC_CAPTURE = 10,     /* a RenderDoc capture and its frame (1.3: with the frame's diagnostics) */
	PP_REC_STATUS = 11,      /* counts so far: frames, dropped frames and events */
	PP_REC_END = 12,         /* the process finished its outputs (the same counts) */
	PP_REC_SUMMARY = 13,     /* the per-pass summary over every frame so far (pp_summary) */
	PP_REC_REPORT_FRAME = 14, /* as FRAME, for report.json's window only: a frame of the last
				   * report_frames that output_limit_mb kept out of the recording,
				   * written at exit */
	PP_REC_TYPE_COUNT
};

/* Names of the types, as the header lists them. */
extern const char *const pp_rec_write_type_names[PP_REC_TYPE_COUNT];
