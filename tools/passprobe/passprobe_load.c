/* Reading a report.json for the subcommands that take one (report, compare, report --html):
 * DIR or FILE to a path, the size limit, JSON, then "schema" and "version"; every failure is
 * one line on stderr that names the file and says what was expected. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_json.h"
#include "passprobe_cli.h"

bool passprobe_load_exe_dir(char *out, size_t out_len)
{
	ssize_t n = readlink("/proc/self/exe", out, out_len - 1);
	if (n <= 0)
		return false;
	out[n] = '\0';
	char *slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

int passprobe_load_read_file(const char *path, size_t max, char **out, size_t *len_out)
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
static bool load_check_schema(const char *path, const struct pp_json_value *root,
			      int64_t *version_out)
{
	if (!pp_json_read_is_object(root)) {
		fprintf(stderr, "passprobe: %s is not a passprobe report: the top level is not a JSON "
				"object\n",
			path);
		return false;
	}
	const struct pp_json_value *schema = pp_json_read_object_get(root, "schema");
	const char *name = pp_json_read_get_string(schema, NULL);
	if (!name || strcmp(name, CLI_REPORT_SCHEMA) != 0) {
		if (!schema)
			fprintf(stderr, "passprobe: %s is not a passprobe report: it has no \"schema\" "
					"member (expected \"" CLI_REPORT_SCHEMA "\")\n",
				path);
		else if (name)
			fprintf(stderr, "passprobe: %s is not a passprobe report: its \"schema\" is "
					"\"%.100s\", expected \"" CLI_REPORT_SCHEMA "\"\n",
				path, name);
		else
			fprintf(stderr, "passprobe: %s is not a passprobe report: \"schema\" is not a "
					"string (expected \"" CLI_REPORT_SCHEMA "\")\n",
				path);
		return false;
	}
	const struct pp_json_value *version = pp_json_read_object_get(root, "version");
	int64_t v;
	if (!version) {
		fprintf(stderr, "passprobe: %s: the report has no \"version\" member\n", path);
		return false;
	}
	if (!pp_json_read_get_int64(version, &v)) {
		fprintf(stderr, "passprobe: %s: \"version\" must be an integer\n", path);
		return false;
	}
	if (v > CLI_REPORT_VERSION) {
		fprintf(stderr, "passprobe: %s uses report format version %lld; this passprobe (%s) "
				"reads version %d. Use a newer passprobe.\n",
			path, (long long)v, PASSPROBE_VERSION, CLI_REPORT_VERSION);
		return false;
	}
	if (v < 1) {
		fprintf(stderr, "passprobe: %s: unknown report format version %lld\n", path,
			(long long)v);
		return false;
	}
	*version_out = v;
	return true;
}

int passprobe_load_report(const char *arg, struct cli_report *out)
{
	memset(out, 0, sizeof(*out));
	struct stat st;
	bool is_dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
	if (is_dir) {
		if (snprintf(out->path, sizeof(out->path), "%s/report.json", arg) >=
		    (int)sizeof(out->path)) {
			fprintf(stderr, "passprobe: path too long: %s\n", arg);
			return -1;
		}
	} else if (snprintf(out->path, sizeof(out->path), "%s", arg) >= (int)sizeof(out->path)) {
		fprintf(stderr, "passprobe: path too long: %s\n", arg);
		return -1;
	}
	const char *path = out->path;

	char *text = NULL;
	size_t len = 0;
	int rc = passprobe_load_read_file(path, CLI_REPORT_MAX_BYTES, &text, &len);
	if (rc == -ENOENT && is_dir &&
	    snprintf(out->path, sizeof(out->path), "%s/gles/report.json", arg) < (int)sizeof(out->path)) {
		/* An OpenGL ES program's outputs are in DIR/gles (docs/gles.md). */
		rc = passprobe_load_read_file(path, CLI_REPORT_MAX_BYTES, &text, &len);
		if (rc == -ENOENT)
			snprintf(out->path, sizeof(out->path), "%s/report.json", arg);
	}
	if (rc == -ENOENT && is_dir) {
		fprintf(stderr, "passprobe: %s has no report.json (is it a passprobe output "
				"directory?)\n",
			arg);
		return -1;
	}
	if (rc == -EFBIG) {
		fprintf(stderr, "passprobe: %s is larger than %zu MiB; not a passprobe report\n", path,
			CLI_REPORT_MAX_BYTES >> 20);
		return -1;
	}
	if (rc) {
		fprintf(stderr, "passprobe: cannot read %s: %s\n", path, strerror(-rc));
		return -1;
	}

	struct pp_json_limits limits = { .max_len = CLI_REPORT_MAX_BYTES };
	char err[512];
	rc = pp_json_read_parse(text, len, &limits, &out->root, err, sizeof(err));
	free(text);
	if (rc == -ENOMEM) {
		fprintf(stderr, "passprobe: %s: out of memory while reading it\n", path);
		return -1;
	}
	if (rc) {
		fprintf(stderr, "passprobe: %s is not valid JSON: %s (expected a passprobe "
				"report.json)\n",
			path, err);
		return -1;
	}
	if (!load_check_schema(path, out->root, &out->version)) {
		pp_json_read_free(out->root);
		out->root = NULL;
		return -1;
	}
	return 0;
}

void passprobe_load_report_free(struct cli_report *r)
{
	pp_json_read_free(r->root);
	r->root = NULL;
}
