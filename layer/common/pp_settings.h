#pragma once
/* passprobe settings: API-neutral (no Vulkan or GL), shared by the Vulkan layer, the GLES shim
 * and the passprobe command line.
 *
 * Precedence, highest first (Khronos layer-settings conventions):
 *   1. environment VK_PASSPROBE_PROFILER_<KEY> (key upper-cased)
 *   2. vk_layer_settings.txt, lines "passprobe_profiler.<key> = value"; the first file found of
 *      $VK_LAYER_SETTINGS_PATH (a file, or a directory holding vk_layer_settings.txt),
 *      $XDG_DATA_HOME/vulkan/settings.d/vk_layer_settings.txt (XDG_DATA_HOME defaults to
 *      $HOME/.local/share), ./vk_layer_settings.txt
 *   3. built-in defaults
 * A bad value or unknown key logs one line naming the key, the value, where it came from and
 * what is allowed, and keeps the default. Loading never fails the application. */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_frame_ranges.h"
#include "pp_log.h"

#define PP_SETTINGS_ENV_PREFIX "VK_PASSPROBE_PROFILER_"
#define PP_SETTINGS_FILE_PREFIX "passprobe_profiler."

enum pp_frame_delimiter {
	PP_FRAME_AUTO = 0, /* present with a swapchain; else a submit signalling a fence */
	PP_FRAME_PRESENT,
	PP_FRAME_SUBMIT,  /* every vkQueueSubmit* call */
	PP_FRAME_LABEL,   /* a debug label named frame_label */
};

/* experiment: passprobe changes the application's commands in alternate blocks of frames to
 * measure a fix (docs/diagnostics.md, "Experiment mode"). Never on by default. */
enum pp_experiment {
	PP_EXPERIMENT_OFF = 0,
	PP_EXPERIMENT_BARRIER_FIXES, /* the barrier fixes passprobe proved from what it recorded */
};

/* A switch whose default is decided per device (docs/settings.md says how for each key). */
enum pp_switch { PP_SWITCH_OFF = 0, PP_SWITCH_ON, PP_SWITCH_AUTO };

struct pp_settings {
	char output_dir[PATH_MAX];         /* output_dir, default "passprobe-out"; %p = pid */
	enum pp_log_level log_level;       /* log_level: error|warn|info|debug, default warn */
	enum pp_frame_delimiter frame_delimiter; /* frame_delimiter: auto|present|submit|label:<name> */
	char frame_label[128];             /* the <name> of label:<name> */
	bool timestamps;                   /* timestamps: GPU pass timestamps, default on */
	bool pipeline_statistics;          /* pipeline_statistics, default on */
	bool per_draw_timing;              /* per_draw_timing, default off */
	bool diagnostics;                  /* diagnostics, default on */
	bool barrier_cost;                 /* barrier_cost, default on */
	char cpu_counters[512];            /* cpu_counters: default|none|comma list; checked by counters/cpu */
	uint32_t report_frames;            /* report_frames: frames kept in report.json, 1..100000, default 300 */
	uint32_t flush_interval_ms;        /* flush_interval_ms: report.json rewrite period, 100..600000, default 1000 */
	bool trace;                        /* trace: write trace.json, default on */
	bool csv;                          /* csv: write passes.csv, default on */
	bool summary;                      /* summary: print the summary table on stderr at exit, default on */
	enum pp_switch copy_results;       /* copy_results: GPU copies query results to host memory;
					    * default auto: on for drivers whose result reads wait */
	/* Capture windows and sampled GPU timing (docs/settings.md, "Capture windows") */
	struct pp_frame_ranges frames;     /* frames: all|none|ranges ("300-420,1000-"), default all */
	bool capture_signal;               /* capture_signal: SIGUSR2 toggles capturing, default on */
	char trigger_file[PATH_MAX];       /* trigger_file: its creation captures trigger_frames frames; "" = none */
	uint32_t trigger_frames;           /* trigger_frames: 1..1000000, default 100 */
	uint32_t gpu_timing_interval;      /* gpu_timing_interval: GPU times in 1 captured frame of N, default 1 */
	uint32_t output_limit_mb;          /* output_limit_mb: per streamed file (trace.json, passes.csv),
					    * 0 = no limit, default 256 */
	char gpu_counters[512];            /* gpu_counters: none|default|comma list of GPU hardware counters
					    * (VK_KHR_performance_query, Mali kbase), default none; checked by
					    * counters/gpu (docs/counters.md) */
	bool finish_on_signal;             /* finish_on_signal: SIGINT/SIGTERM finish the outputs before
					    * the process ends, default on (layer/common/pp_finish_signal.h) */
	/* Frame debuggers (docs/frame-debuggers.md) */
	struct pp_frame_ranges renderdoc_frames; /* renderdoc_frames: frames passprobe asks RenderDoc
					    * (loaded in the process) to capture, default none */
	bool layer_passes;                 /* layer_passes: passes other layers record themselves count in
					    * the per-pass statistics, default off */
	enum pp_experiment experiment;     /* experiment: off|barrier-fixes, default off */
};

/* Where a setting's value came from, for messages and for `passprobe` to explain itself. */
enum pp_setting_origin { PP_ORIGIN_DEFAULT, PP_ORIGIN_FILE, PP_ORIGIN_ENV };

/* Fills *out from defaults, the settings file and the environment.
 * envp: a NULL-terminated "KEY=value" array to read instead of the process environment
 * (tests use this); NULL reads the process environment. When the process is set-uid or
 * set-gid (getauxval(AT_SECURE)), environment settings and path variables are ignored, as the
 * Vulkan loader does, and this is logged once.
 * Returns the number of problems found (bad values, unknown keys, unreadable file), each
 * already logged; 0 when everything was valid. */
int pp_settings_load(struct pp_settings *out, char *const *envp);

/* The built-in defaults. */
void pp_settings_defaults(struct pp_settings *out);

/* Applies one key=value pair (as from --set on the command line) with the same checks.
 * Returns 0, or -EINVAL after writing one clear message into err (never NULL-terminated short). */
int pp_settings_apply(struct pp_settings *s, const char *key, const char *value,
		      enum pp_setting_origin origin, char *err, size_t err_len);

/* Key table, for listing and documentation: NULL-terminated list of key names. */
const char *const *pp_settings_keys(void);
/* One line saying what values a key accepts, or NULL for an unknown key. */
const char *pp_settings_allowed(const char *key);
