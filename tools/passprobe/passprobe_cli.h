#pragma once
/* The `passprobe` command: subcommands and their help texts. Exit codes follow the shell:
 * 0 success, 1 a runtime failure (unreadable report, ...), 2 a usage error; `run` forwards
 * the program's own status (128 + signal number when a signal ended it). */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pp_json_value;

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2
/* `run`: the output directory cannot be created or written; the program was not started
 * (sysexits.h's EX_CANTCREAT). */
#define CLI_EXIT_OUTPUT_DIR 73

#ifndef PASSPROBE_VERSION
#define PASSPROBE_VERSION "unknown"
#endif

/* Largest report.json read. The layer keeps report_frames (at most 100000) frames, far less
 * than this; a bigger file is not one of ours. */
#define CLI_REPORT_MAX_BYTES ((size_t)256 << 20)
#define CLI_REPORT_SCHEMA "passprobe-report"
/* The newest report format version this passprobe reads (docs/report-format.md). */
#define CLI_REPORT_VERSION 1

/* A report.json read and checked (passprobe_load.c). */
struct cli_report {
	char path[PATH_MAX];        /* the file read: DIR/report.json or FILE */
	struct pp_json_value *root; /* owned */
	int64_t version;            /* its "version", 1..CLI_REPORT_VERSION */
};

/* The directory of the running passprobe executable (where the installed layout's other
 * files are found from): false when /proc/self/exe cannot be read. */
bool passprobe_load_exe_dir(char *out, size_t out_len);

/* Reads a whole file into a malloc'd buffer (not NUL-terminated), refusing more than max
 * bytes: 0, or -EFBIG, -EISDIR, -ENOMEM, -EIO or the -errno of fopen. */
int passprobe_load_read_file(const char *path, size_t max, char **out, size_t *len_out);

/* Reads DIR/report.json or FILE and checks it is a passprobe report this passprobe reads.
 * 0, or -1 after one message on stderr naming the file and what is wrong with it. */
int passprobe_load_report(const char *arg, struct cli_report *out);
void passprobe_load_report_free(struct cli_report *r);

/* The word after a command's name, argv[1], that says what to do. NULL when there is none
 * (the usage on stderr, *rc = CLI_EXIT_USAGE) or it asks for help: -h, --help, or with
 * help_word `help` (the usage on stdout, *rc = CLI_EXIT_OK). */
const char *passprobe_main_word(int argc, char **argv, void (*usage)(FILE *f), bool help_word, int *rc);

/* argv[0] is the subcommand name ("run", "report", "compare", "counters", "renderdoc"). */
int passprobe_run_main(int argc, char **argv);
int passprobe_report_main(int argc, char **argv);
int passprobe_compare_main(int argc, char **argv);
int passprobe_counters_main(int argc, char **argv);
int passprobe_renderdoc_main(int argc, char **argv);

void passprobe_run_usage(FILE *f);
/* `passprobe run --renderdoc FRAMES` (passprobe_run_renderdoc.c): finds RenderDoc's capture
 * layer, makes OUTPUT_DIR/renderdoc and sets the environment that enables the layer and names
 * the frames and the capture files. 0, or -1 after one message on stderr. */
int passprobe_run_renderdoc_prepare(const char *frames, const char *output_dir, const char *program);
/* After the OpenGL ES shim is in LD_PRELOAD: RenderDoc's library after it, for OpenGL ES
 * programs (RenderDoc's Vulkan layer is the same library). 0, or -1 (errno set). */
int passprobe_run_renderdoc_preload(void);
/* Says so when RenderDoc was preloaded into passprobe itself. */
void passprobe_run_renderdoc_self_check(const char *program, bool renderdoc);
void passprobe_report_usage(FILE *f);
void passprobe_compare_usage(FILE *f);
void passprobe_counters_usage(FILE *f);
void passprobe_renderdoc_usage(FILE *f);

/* Writes the HTML report of a loaded report to html_path (passprobe_html.c). 0, or -1 after
 * one message on stderr. */
int passprobe_html_write(const struct cli_report *r, const char *html_path);
/* Makes DIR's outputs from DIR/recording.ppr when that was written since start_sec (0: any):
 * report.json, trace.json, passes.csv (passprobe_outputs.c, through pp_attr_replay), then
 * report.html. 1 when made, 0 without a recording, -1 after one message on stderr. finished
 * (may be NULL): false when the recording has no end (the process was killed before it
 * finished its outputs), true otherwise. */
int passprobe_outputs_make(const char *dir, long long start_sec, bool *finished);
void passprobe_main_settings_help(FILE *f);
