#include "tool_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

int tool_options_error(const struct tool_options *tool, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", tool->name);
	vfprintf(stderr, fmt, ap);
	if (tool->usage_after_error) {
		fprintf(stderr, "\n\n");
		tool->usage_print(stderr);
	} else {
		fprintf(stderr, "\n(%s --help lists the options)\n", tool->name);
	}
	va_end(ap);
	return -1;
}

int tool_options_parse(const struct tool_options *tool, void *opt, int argc, char **argv)
{
	opterr = 0; /* we print one message of our own */
	optind = 1;
	for (;;) {
		int c = getopt_long(argc, argv, ":h", tool->long_options, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'h':
			tool->usage_print(stdout);
			return 1;
		case ':':
			return tool_options_error(tool, "option '%s' needs a value", argv[optind - 1]);
		case '?':
			if (optopt)
				return tool_options_error(tool, "unknown option '-%c'", optopt);
			return tool_options_error(tool, "unknown option '%s'", argv[optind - 1]);
		default:
			if (tool->option_set(opt, c, optarg))
				return -1;
		}
	}
	if (optind < argc)
		return tool_options_error(tool, "unexpected argument '%s'", argv[optind]);
	return 0;
}

FILE *tool_options_file_open(const char *tool_name, const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);
	if (!f)
		fprintf(stderr, "%s: cannot open %s: %s\n", tool_name, path, strerror(errno));
	return f;
}
