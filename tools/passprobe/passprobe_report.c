/* `passprobe report`: print the per-pass summary of a report.json. */
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

/* Largest report.json read. The layer keeps report_frames (at most 100000) frames, far less
 * than this; a bigger file is not one of ours. */
#define REPORT_MAX_BYTES ((size_t)256 << 20)
#define REPORT_SCHEMA "passprobe-report"
#define REPORT_VERSION 1
#define REPORT_DEFAULT_TOP 20

void cli_report_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe report [--top N] DIR|FILE\n"
		"\n"
		"Prints the per-pass GPU time summary of a passprobe report: DIR/report.json,\n"
		"or FILE itself.\n"
		"\n"
		"options:\n"
		"  --top N     show the N passes with the most GPU time per frame (default %d,\n"
		"              0 for all)\n"
		"  -h, --help  show this help\n",
		REPORT_DEFAULT_TOP);
}

/* Reads the whole file into a malloc'd buffer, refusing more than max bytes. */
int cli_read_file(const char *path, size_t max, char **out, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		int early = S_ISDIR(st.st_mode) ? -EISDIR
			    : st.st_size > 0 && (uint64_t)st.st_size > max ? -EFBIG : 0;
		if (early) {
			fclose(f);
			return early;
		}
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	/* Read to EOF rather than trusting st_size: the layer may be rewriting the file. */
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				rc = -EFBIG;
				break;
			}
			/* Never more than one byte past the limit, which is enough to tell. */
			size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = -EIO;
			break;
		}
	}
	fclose(f);
	if (!rc && len > max)
		rc = -EFBIG;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len_out = len;
	return 0;
}

/* Checks "schema" and "version"; prints the problem and returns false when it is not a
 * report this passprobe understands. */
static bool report_check_schema(const char *path, const struct pp_json_value *root)
{
	if (!pp_json_is_object(root)) {
		fprintf(stderr, "passprobe: %s is not a passprobe report: the top level is not a JSON "
				"object\n",
			path);
		return false;
	}
	const struct pp_json_value *schema = pp_json_object_get(root, "schema");
	const char *name = pp_json_get_string(schema, NULL);
	if (!name || strcmp(name, REPORT_SCHEMA) != 0) {
		if (!schema)
			fprintf(stderr, "passprobe: %s is not a passprobe report: it has no \"schema\" "
					"member (expected \"" REPORT_SCHEMA "\")\n",
				path);
		else if (name)
			fprintf(stderr, "passprobe: %s is not a passprobe report: its \"schema\" is "
					"\"%.100s\", expected \"" REPORT_SCHEMA "\"\n",
				path, name);
		else
			fprintf(stderr, "passprobe: %s is not a passprobe report: \"schema\" is not a "
					"string (expected \"" REPORT_SCHEMA "\")\n",
				path);
		return false;
	}
	const struct pp_json_value *version = pp_json_object_get(root, "version");
	int64_t v;
	if (!version) {
		fprintf(stderr, "passprobe: %s: the report has no \"version\" member\n", path);
		return false;
	}
	if (!pp_json_get_int64(version, &v)) {
		fprintf(stderr, "passprobe: %s: \"version\" must be an integer\n", path);
		return false;
	}
	if (v > REPORT_VERSION) {
		fprintf(stderr, "passprobe: %s uses report format version %lld; this passprobe (%s) "
				"reads version %d. Use a newer passprobe.\n",
			path, (long long)v, PASSPROBE_VERSION, REPORT_VERSION);
		return false;
	}
	if (v < 1) {
		fprintf(stderr, "passprobe: %s: unknown report format version %lld\n", path,
			(long long)v);
		return false;
	}
	return true;
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

int cli_report_main(int argc, char **argv)
{
	const char *arg = NULL;
	size_t top = REPORT_DEFAULT_TOP;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			cli_report_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(a, "--top") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "passprobe report: --top needs a number\n\n");
				cli_report_usage(stderr);
				return CLI_EXIT_USAGE;
			}
			val = argv[++i];
		} else if (strncmp(a, "--top=", 6) == 0) {
			val = a + 6;
		} else if (strcmp(a, "--") == 0 && i + 1 < argc && !arg) {
			arg = argv[++i];
			continue;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "passprobe report: unknown option '%s'\n\n", a);
			cli_report_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!arg) {
			arg = a;
			continue;
		} else {
			fprintf(stderr, "passprobe report: more than one report given ('%s', '%s')\n\n",
				arg, a);
			cli_report_usage(stderr);
			return CLI_EXIT_USAGE;
		}
		if (!report_parse_top(val, &top)) {
			fprintf(stderr, "passprobe report: --top expects a number >= 0, got '%s'\n", val);
			return CLI_EXIT_USAGE;
		}
	}
	if (!arg) {
		fprintf(stderr, "passprobe report: no report directory or file given\n\n");
		cli_report_usage(stderr);
		return CLI_EXIT_USAGE;
	}

	char path[PATH_MAX];
	struct stat st;
	bool is_dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
	if (is_dir) {
		if (snprintf(path, sizeof(path), "%s/report.json", arg) >= (int)sizeof(path)) {
			fprintf(stderr, "passprobe: path too long: %s\n", arg);
			return CLI_EXIT_FAILURE;
		}
	} else {
		snprintf(path, sizeof(path), "%s", arg);
	}

	char *text = NULL;
	size_t len = 0;
	int rc = cli_read_file(path, REPORT_MAX_BYTES, &text, &len);
	if (rc == -ENOENT && is_dir) {
		fprintf(stderr, "passprobe: %s has no report.json (is it a passprobe output "
				"directory?)\n",
			arg);
		return CLI_EXIT_FAILURE;
	}
	if (rc == -EFBIG) {
		fprintf(stderr, "passprobe: %s is larger than %zu MiB; not a passprobe report\n", path,
			REPORT_MAX_BYTES >> 20);
		return CLI_EXIT_FAILURE;
	}
	if (rc) {
		fprintf(stderr, "passprobe: cannot read %s: %s\n", path, strerror(-rc));
		return CLI_EXIT_FAILURE;
	}

	struct pp_json_value *root = NULL;
	struct pp_json_limits limits = { .max_len = REPORT_MAX_BYTES };
	char err[512];
	rc = pp_json_parse(text, len, &limits, &root, err, sizeof(err));
	free(text);
	if (rc == -ENOMEM) {
		fprintf(stderr, "passprobe: %s: out of memory while reading it\n", path);
		return CLI_EXIT_FAILURE;
	}
	if (rc) {
		fprintf(stderr, "passprobe: %s is not valid JSON: %s\n", path, err);
		return CLI_EXIT_FAILURE;
	}
	if (!report_check_schema(path, root)) {
		pp_json_free(root);
		return CLI_EXIT_FAILURE;
	}

	struct pp_summary sum;
	rc = pp_summary_from_json(root, &sum, err, sizeof(err));
	pp_json_free(root);
	if (rc) {
		fprintf(stderr, "passprobe: %s: %s\n", path, err);
		pp_summary_free(&sum);
		return CLI_EXIT_FAILURE;
	}
	pp_summary_print(stdout, &sum, top);
	pp_summary_free(&sum);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "passprobe: writing the table failed: %s\n", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}
