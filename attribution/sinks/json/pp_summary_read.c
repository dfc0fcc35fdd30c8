/* pp_summary_read_from_json (pp_summary.h): the "summary" object of report.json read back into a
 * struct pp_summary. Part of the reader library (pp_attribution_json_read), for the
 * passprobe command and the tests; the layer only writes the summary (pp_summary.c). */
#include "pp_summary.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"

struct summary_reader {
	char *err;
	size_t err_len;
	int rc;
};

static int summary_fail(struct summary_reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int summary_fail(struct summary_reader *rd, const char *fmt, ...)
{
	if (rd->rc)
		return rd->rc;
	rd->rc = -EINVAL;
	if (rd->err && rd->err_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rd->err, rd->err_len, fmt, ap);
		va_end(ap);
	}
	return rd->rc;
}

/* A duration or fraction: a number, or null/absent for unavailable (NAN). */
static int summary_read_num(struct summary_reader *rd, const struct pp_json_value *obj,
			    const char *path, const char *key, double *out)
{
	const struct pp_json_value *v = pp_json_read_object_get(obj, key);
	*out = NAN;
	if (!v || pp_json_read_is_null(v))
		return 0;
	if (!pp_json_read_get_double(v, out))
		return summary_fail(rd, "%s.%s: expected a number or null", path, key);
	return 0;
}

static int summary_read_count(struct summary_reader *rd, const struct pp_json_value *obj,
			      const char *path, const char *key, bool required, uint64_t *out)
{
	const struct pp_json_value *v = pp_json_read_object_get(obj, key);
	*out = 0;
	if (!v && !required)
		return 0;
	if (!v)
		return summary_fail(rd, "%s.%s: missing", path, key);
	if (!pp_json_read_get_uint64(v, out))
		return summary_fail(rd, "%s.%s: expected a non-negative integer", path, key);
	return 0;
}

/* Copies a JSON string into a fixed field, cutting at a character boundary. */
static int summary_read_str(struct summary_reader *rd, const struct pp_json_value *obj,
			    const char *path, const char *key, bool required, char *out,
			    size_t size)
{
	const struct pp_json_value *v = pp_json_read_object_get(obj, key);
	size_t len;
	out[0] = '\0';
	if (!v || pp_json_read_is_null(v)) {
		if (required)
			return summary_fail(rd, "%s.%s: missing", path, key);
		return 0;
	}
	const char *s = pp_json_read_get_string(v, &len);
	if (!s)
		return summary_fail(rd, "%s.%s: expected a string", path, key);
	if (len >= size) {
		len = size - 1;
		/* s[len] is the first byte cut off: if it continues a character, drop that
		 * character's leading bytes too. */
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* An object of statistics ("gpu_ns": {...}), which may be null or absent as a whole. */
static int summary_read_stats(struct summary_reader *rd, const struct pp_json_value *obj,
			      const char *path, const char *key, const struct pp_json_value **out)
{
	const struct pp_json_value *v = pp_json_read_object_get(obj, key);
	*out = NULL;
	if (!v || pp_json_read_is_null(v))
		return 0;
	if (!pp_json_read_is_object(v))
		return summary_fail(rd, "%s.%s: expected an object or null", path, key);
	*out = v;
	return 0;
}

static int summary_read_row(struct summary_reader *rd, const struct pp_json_value *p, size_t i,
			    struct pp_summary_row *r)
{
	char path[64], sub[80];
	const struct pp_json_value *gpu, *cpu;

	pp_summary_row_init(r);
	snprintf(path, sizeof(path), "summary.passes[%zu]", i);
	if (!pp_json_read_is_object(p))
		return summary_fail(rd, "%s: expected an object", path);
	if (summary_read_str(rd, p, path, "name", true, r->name, sizeof(r->name)) ||
	    summary_read_str(rd, p, path, "kind", true, r->kind, sizeof(r->kind)) ||
	    summary_read_count(rd, p, path, "count", true, &r->count) ||
	    summary_read_count(rd, p, path, "measured", false, &r->measured) ||
	    summary_read_num(rd, p, path, "per_frame", &r->per_frame) ||
	    summary_read_num(rd, p, path, "share_of_frame", &r->share_of_frame) ||
	    summary_read_stats(rd, p, path, "gpu_ns", &gpu) ||
	    summary_read_stats(rd, p, path, "cpu_record_ns", &cpu))
		return rd->rc;
	snprintf(sub, sizeof(sub), "%s.gpu_ns", path);
	if (summary_read_num(rd, gpu, sub, "mean", &r->gpu_mean_ns) ||
	    summary_read_num(rd, gpu, sub, "p50", &r->gpu_p50_ns) ||
	    summary_read_num(rd, gpu, sub, "p95", &r->gpu_p95_ns) ||
	    summary_read_num(rd, gpu, sub, "max", &r->gpu_max_ns))
		return rd->rc;
	snprintf(sub, sizeof(sub), "%s.cpu_record_ns", path);
	if (summary_read_num(rd, cpu, sub, "mean", &r->cpu_record_mean_ns))
		return rd->rc;
	const struct pp_json_value *ctrs = pp_json_read_object_get(p, "gpu_counters");
	if (ctrs && !pp_json_read_is_null(ctrs)) {
		if (!pp_json_read_is_array(ctrs))
			return summary_fail(rd, "%s.gpu_counters: expected an array or null", path);
		size_t n = pp_json_read_array_size(ctrs);
		for (size_t k = 0; k < n && k < PP_SUMMARY_COUNTERS; k++) {
			const struct pp_json_value *c = pp_json_read_array_at(ctrs, k);
			struct pp_summary_counter *o = &r->counters[k];
			snprintf(sub, sizeof(sub), "%s.gpu_counters[%zu]", path, k);
			if (!pp_json_read_is_object(c))
				return summary_fail(rd, "%s: expected an object", sub);
			if (summary_read_str(rd, c, sub, "name", true, o->name, sizeof(o->name)) ||
			    summary_read_str(rd, c, sub, "unit", false, o->unit, sizeof(o->unit)) ||
			    summary_read_num(rd, c, sub, "mean", &o->mean) ||
			    summary_read_count(rd, c, sub, "measured", false, &o->measured))
				return rd->rc;
			r->ncounters = (uint32_t)k + 1;
		}
	}
	if (r->measured > r->count)
		return summary_fail(rd, "%s: measured (%llu) is larger than count (%llu)", path,
				    (unsigned long long)r->measured, (unsigned long long)r->count);
	return 0;
}

/* summary.diagnostics; a report from before it: the sites of the report's diagnostics list. */
static int summary_read_diagnostics(struct summary_reader *rd, const struct pp_json_value *root,
				    const struct pp_json_value *sum, struct pp_summary *out)
{
	char path[64];
	const struct pp_json_value *dg = pp_json_read_object_get(sum, "diagnostics");
	if (!dg || pp_json_read_is_null(dg)) {
		const struct pp_json_value *list = pp_json_read_object_get(root, "diagnostics");
		for (size_t i = 0; pp_json_read_is_array(list) && i < pp_json_read_array_size(list); i++) {
			const struct pp_json_value *x = pp_json_read_array_at(list, i);
			double cost = NAN;
			uint64_t count = 0, frames = 0;
			if (!pp_json_read_is_object(x))
				continue;
			pp_json_read_get_double(pp_json_read_object_get(x, "cost_ns"), &cost);
			pp_json_read_get_uint64(pp_json_read_object_get(x, "count"), &count);
			pp_json_read_get_uint64(pp_json_read_object_get(x, "frames"), &frames);
			pp_summary_diagnostic_add(out, pp_json_read_get_string(pp_json_read_object_get(x, "id"), NULL),
						  pp_json_read_get_string(pp_json_read_object_get(x, "severity"), NULL),
						  pp_json_read_get_string(pp_json_read_object_get(x, "site"), NULL), cost, count,
						  frames);
		}
		return 0;
	}
	if (!pp_json_read_is_object(dg))
		return summary_fail(rd, "summary.diagnostics: expected an object or null");
	const struct pp_json_value *top = pp_json_read_object_get(dg, "costliest");
	if (summary_read_count(rd, dg, "summary.diagnostics", "warnings", false, &out->diag_warnings) ||
	    summary_read_count(rd, dg, "summary.diagnostics", "info", false, &out->diag_info))
		return rd->rc;
	if (top && !pp_json_read_is_null(top) && !pp_json_read_is_array(top))
		return summary_fail(rd, "summary.diagnostics.costliest: expected an array or null");
	for (size_t i = 0; i < pp_json_read_array_size(top) && i < PP_SUMMARY_DIAGNOSTICS; i++) {
		const struct pp_json_value *x = pp_json_read_array_at(top, i);
		struct pp_summary_diag *d = &out->diags[i];
		snprintf(path, sizeof(path), "summary.diagnostics.costliest[%zu]", i);
		if (!pp_json_read_is_object(x))
			return summary_fail(rd, "%s: expected an object", path);
		if (summary_read_str(rd, x, path, "id", true, d->id, sizeof(d->id)) ||
		    summary_read_str(rd, x, path, "site", false, d->site, sizeof(d->site)) ||
		    summary_read_num(rd, x, path, "cost_ns", &d->cost_ns) ||
		    summary_read_count(rd, x, path, "count", false, &d->count) ||
		    summary_read_count(rd, x, path, "frames", false, &d->frames))
			return rd->rc;
		out->ndiags = (uint32_t)i + 1;
	}
	return 0;
}

/* summary.experiment, where there are any lines: strings, kept as far as they fit. */
static int summary_read_experiment(struct summary_reader *rd, const struct pp_json_value *sum, struct pp_summary *out)
{
	const struct pp_json_value *exp = pp_json_read_object_get(sum, "experiment");
	if (exp && !pp_json_read_is_array(exp))
		return summary_fail(rd, "summary.experiment: expected an array of strings");
	for (size_t i = 0, used = 0; i < pp_json_read_array_size(exp); i++) {
		size_t len;
		const char *line = pp_json_read_get_string(pp_json_read_array_at(exp, i), &len);
		if (!line)
			return summary_fail(rd, "summary.experiment: expected an array of strings");
		int w = snprintf(out->experiment + used, sizeof(out->experiment) - used, "%s%.*s", used ? "\n" : "",
				 (int)strcspn(line, "\n") < (int)len ? (int)strcspn(line, "\n") : (int)len, line);
		if (w < 0 || (size_t)w >= sizeof(out->experiment) - used)
			break;
		used += (size_t)w;
	}
	return 0;
}

int pp_summary_read_from_json(const struct pp_json_value *report_root, struct pp_summary *out,
			 char *err, size_t err_len)
{
	struct summary_reader rd = { .err = err, .err_len = err_len };
	const struct pp_json_value *sum, *frame, *passes;

	if (err && err_len)
		err[0] = '\0';
	pp_summary_init(out);
	if (!pp_json_read_is_object(report_root))
		return summary_fail(&rd, "the report is not a JSON object");
	sum = pp_json_read_object_get(report_root, "summary");
	if (!sum)
		return summary_fail(&rd, "summary: missing");
	if (!pp_json_read_is_object(sum))
		return summary_fail(&rd, "summary: expected an object");
	if (summary_read_count(&rd, sum, "summary", "frames", true, &out->frames) ||
	    summary_read_count(&rd, sum, "summary", "frames_gpu_timed", false, &out->frames_gpu_timed) ||
	    summary_read_stats(&rd, sum, "summary", "frame_gpu_ns", &frame) ||
	    summary_read_num(&rd, frame, "summary.frame_gpu_ns", "mean", &out->frame_gpu_mean_ns) ||
	    summary_read_num(&rd, frame, "summary.frame_gpu_ns", "p50", &out->frame_gpu_p50_ns) ||
	    summary_read_num(&rd, frame, "summary.frame_gpu_ns", "p95", &out->frame_gpu_p95_ns) ||
	    summary_read_str(&rd, sum, "summary", "device", false, out->device,
			     sizeof(out->device)) ||
	    summary_read_str(&rd, sum, "summary", "notes", false, out->notes, sizeof(out->notes)))
		return rd.rc;
	if (!pp_json_read_object_get(sum, "frames_gpu_timed"))
		out->frames_gpu_timed = out->frames; /* written only where they differ */
	if (summary_read_diagnostics(&rd, report_root, sum, out))
		return rd.rc;
	if (summary_read_experiment(&rd, sum, out))
		return rd.rc;
	passes = pp_json_read_object_get(sum, "passes");
	if (!passes)
		return summary_fail(&rd, "summary.passes: missing");
	if (!pp_json_read_is_array(passes))
		return summary_fail(&rd, "summary.passes: expected an array");
	size_t n = pp_json_read_array_size(passes);
	if (n == 0)
		return 0;
	out->rows = calloc(n, sizeof(*out->rows));
	if (!out->rows) {
		if (err && err_len)
			snprintf(err, err_len, "summary.passes: out of memory for %zu passes", n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (summary_read_row(&rd, pp_json_read_array_at(passes, i), i, &out->rows[i])) {
			out->nrows = i;
			return rd.rc;
		}
	}
	out->nrows = n;
	return 0;
}
