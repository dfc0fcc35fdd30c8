#pragma once
/* The command line both demos parse the same way (tools/demo, tools/gles_demo): getopt_long
 * with the tool's long options, one message of the tool's own for a bad one, --help on
 * stdout, no words after the options; and the files options name, opened with one message
 * when they cannot be. */
#include <stdbool.h>
#include <stdio.h>

struct option;

struct tool_options {
	const char *name; /* the program, the first word of every message */
	/* The tool's options, with codes 256 and up, and { "help", no_argument, NULL, 'h' }. */
	const struct option *long_options;
	void (*usage_print)(FILE *out);
	/* After an error's message: true, a blank line and the usage (on stderr); false, the line
	 * "(NAME --help lists the options)". */
	bool usage_after_error;
	/* Takes one of long_options: its code and value (NULL for an option without one) into
	 * `opt`. 0, or -1 after tool_options_error. */
	int (*option_set)(void *opt, int code, const char *value);
};

/* Parses argv[1..] into `opt` through tool->option_set: 0 to run, 1 when --help printed the
 * usage on stdout, -1 after one message on stderr. */
int tool_options_parse(const struct tool_options *tool, void *opt, int argc, char **argv);

/* Prints "NAME: MESSAGE" on stderr, then the usage or the hint tool->usage_after_error says.
 * Returns -1. */
__attribute__((format(printf, 2, 3))) int tool_options_error(const struct tool_options *tool, const char *fmt, ...);

/* Opens the file an option named, in `mode`; NULL after "TOOL_NAME: cannot open PATH: REASON" on
 * stderr. */
FILE *tool_options_file_open(const char *tool_name, const char *path, const char *mode);
