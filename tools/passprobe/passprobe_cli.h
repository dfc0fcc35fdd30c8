#pragma once
/* The `passprobe` command: subcommands and their help texts. Exit codes follow the shell:
 * 0 success, 1 a runtime failure (unreadable report, ...), 2 a usage error; `run` forwards
 * the program's own status (128 + signal number when a signal ended it). */
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2
/* `run`: the output directory cannot be created or written; the program was not started
 * (sysexits.h's EX_CANTCREAT). */
#define CLI_EXIT_OUTPUT_DIR 73

#ifndef PASSPROBE_VERSION
#define PASSPROBE_VERSION "unknown"
#endif

/* argv[0] is the subcommand name ("run", "report"). */
int cli_run_main(int argc, char **argv);
int cli_report_main(int argc, char **argv);

void cli_run_usage(FILE *f);
void cli_report_usage(FILE *f);
void cli_settings_help(FILE *f);
