/* `passprobe report`: print the per-pass summary of a report.json, or write its HTML report. */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pp_json.h"
#include "pp_summary.h"
#include "passprobe_cli.h"

#define REPORT_DEFAULT_TOP 20

void passprobe_report_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe report [--top N] [--html FILE] DIR|FILE\n"
		"\n"
		"Prints the per-pass GPU time summary of a passprobe report: DIR/report.json,\n"
		"or FILE itself.\n"
		"\n"
		"options:\n"
		"  --top N      show the N passes with the most GPU time per frame (default %d,\n"
		"               0 for all)\n"
		"  --html FILE  write the report as one self-contained HTML page to FILE\n"
		"               instead (charts, frame time line, sortable tables; no network)\n"
		"  -h, --help   show this help\n",
		REPORT_DEFAULT_TOP);
}

static bool report_parse_top(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	if (!s[0] || s[0] == '-')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > SIZE_MAX)
		return false;
	*out = (size_t)v;
	return true;
}

int passprobe_report_main(int argc, char **argv)
{
	const char *arg = NULL, *html = NULL;
	size_t top = REPORT_DEFAULT_TOP;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			passprobe_report_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(a, "--top") == 0 || strcmp(a, "--html") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "passprobe report: %s needs %s\n\n", a,
					a[2] == 't' ? "a number" : "a file name");
				passprobe_report_usage(stderr);
				return CLI_EXIT_USAGE;
			}
			if (a[2] == 'h') {
				html = argv[++i];
				continue;
			}
			val = argv[++i];
		} else if (strncmp(a, "--top=", 6) == 0) {
			val = a + 6;
		} else if (strncmp(a, "--html=", 7) == 0) {
			html = a + 7;
			continue;
		} else if (strcmp(a, "--") == 0 && i + 1 < argc && !arg) {
			arg = argv[++i];
			continue;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "passprobe report: unknown option '%s'\n\n", a);
			passprobe_report_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!arg) {
			arg = a;
			continue;
		} else {
			fprintf(stderr, "passprobe report: more than one report given ('%s', '%s')\n\n",
				arg, a);
			passprobe_report_usage(stderr);
			return CLI_EXIT_USAGE;
		}
		if (!report_parse_top(val, &top)) {
			fprintf(stderr, "passprobe report: --top expects a number >= 0, got '%s'\n", val);
			return CLI_EXIT_USAGE;
		}
	}
	if (!arg) {
		fprintf(stderr, "passprobe report: no report directory or file given\n\n");
		passprobe_report_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (html && !html[0]) {
		fprintf(stderr, "passprobe report: --html needs a file name\n");
		return CLI_EXIT_USAGE;
	}

	/* A run's directory: its outputs (and the OpenGL ES shim's, in DIR/gles) are (re)made
	 * from its recording first, which is what a process killed before it finished left. */
	struct stat st;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		char gles[PATH_MAX];
		if (passprobe_outputs_make(arg, 0, NULL) < 0)
			return CLI_EXIT_FAILURE;
		if (snprintf(gles, sizeof(gles), "%s/gles", arg) < (int)sizeof(gles) && passprobe_outputs_make(gles, 0, NULL) < 0)
			return CLI_EXIT_FAILURE;
	}

	struct cli_report rep;
	if (passprobe_load_report(arg, &rep) != 0)
		return CLI_EXIT_FAILURE;
	if (html) {
		int hrc = passprobe_html_write(&rep, html);
		passprobe_load_report_free(&rep);
		if (hrc)
			return CLI_EXIT_FAILURE;
		fprintf(stderr, "passprobe: HTML report written to %s\n", html);
		return CLI_EXIT_OK;
	}

	struct pp_summary sum;
	char err[512];
	int rc = pp_summary_read_from_json(rep.root, &sum, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "passprobe: %s: %s\n", rep.path, err);
		pp_summary_free(&sum);
		passprobe_load_report_free(&rep);
		return CLI_EXIT_FAILURE;
	}
	pp_summary_print(stdout, &sum, top);
	pp_summary_free(&sum);
	/* The frames RenderDoc captured and where each capture is, as the summary at exit says. */
	const struct pp_json_value *caps = pp_json_read_object_get(pp_json_read_object_get(rep.root, "renderdoc"), "captures");
	for (size_t i = 0; i < pp_json_read_array_size(caps); i++) {
		const struct pp_json_value *c = pp_json_read_array_at(caps, i);
		const char *path = pp_json_read_get_string(pp_json_read_object_get(c, "path"), NULL);
		uint64_t frame, device = 0;
		pp_json_read_get_uint64(pp_json_read_object_get(c, "device"), &device);
		if (pp_json_read_get_uint64(pp_json_read_object_get(c, "frame"), &frame))
			printf("RenderDoc captured frame %llu (device %llu): %s\n", (unsigned long long)frame,
			       (unsigned long long)device, path ? path : "?");
		else
			printf("RenderDoc captured a frame passprobe did not count: %s\n", path ? path : "?");
	}
	passprobe_load_report_free(&rep);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "passprobe: writing the table failed: %s\n", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}
