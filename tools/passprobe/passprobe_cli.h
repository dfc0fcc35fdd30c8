#pragma once
/* The `passprobe` command: subcommands and their help texts. Exit codes follow the shell:
 * 0 success, 1 a runtime failure (unreadable report, ...), 2 a usage error; `run` forwards
 * the program's own status (128 + signal number when a signal ended it). */
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

#ifndef PASSPROBE_VERSION
#define PASSPROBE_VERSION "unknown"
#endif

#include <stddef.h>

/* argv[0] is the subcommand name ("run", "report", "counters"). */
int cli_run_main(int argc, char **argv);
int cli_report_main(int argc, char **argv);
int cli_counters_main(int argc, char **argv);

void cli_run_usage(FILE *f);
void cli_report_usage(FILE *f);
void cli_counters_usage(FILE *f);

/* Reads a whole file into a malloc'd buffer (not NUL-terminated), refusing more than max
 * bytes: 0, or -EFBIG, -EISDIR, -ENOMEM, -EIO or the -errno of fopen. */
int cli_read_file(const char *path, size_t max, char **out, size_t *len_out);
void cli_settings_help(FILE *f);
