/* passes.csv: one row per pass instance, appended as frames arrive and flushed after each
 * batch, so the file is usable while the program runs and after it is killed (at worst the
 * last row is cut short). RFC 4180 quoting; lines end with LF. A value that was not measured
 * is an empty field, never 0. Columns: docs/report-format.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_sink_internal.h"
#include "pp_json.h"

#define CSV_NAME "passes.csv"

static const char *const csv_columns[] = {
	"frame", "device", "submission", "seq", "command_buffer", "pass_index", "name",
	"name_source", "kind", "api", "draws", "draws_indexed", "draws_indirect",
	"draws_indirect_count", "instances", "vertices", "indices", "dispatches",
	"dispatches_indirect", "workgroups", "copies", "copy_bytes", "clears", "barriers",
	"attachments", "gpu_begin_ns", "gpu_end_ns", "gpu_ns", "gpu_exclusive_ns", "overlapped",
	"gpu_unavailable",
};

/* One row, built in memory so it reaches the file whole (pp_attr_sink_file_reserve). A row is at
 * most 43 numbers, two quoted 63-byte names, a few static strings and the gpu_counters field
 * (at most GPU_COUNTERS_FIELD bytes, quoted): far below the size. */
#define GPU_COUNTERS_FIELD 2048
struct csv_line {
	char buf[8192];
	size_t len;
	bool overflow;
};

static void line_put(struct csv_line *l, char ch)
{
	if (l->len + 1 < sizeof(l->buf))
		l->buf[l->len++] = ch;
	else
		l->overflow = true;
}

static void line_write(struct csv_line *l, const char *s, size_t len)
{
	if (len < sizeof(l->buf) - l->len) {
		memcpy(l->buf + l->len, s, len);
		l->len += len;
	} else {
		l->overflow = true;
	}
}

/* RFC 4180: a field holding a comma, quote, CR or LF is quoted, quotes doubled. Leading or
 * trailing spaces are quoted too, since some readers strip them otherwise. */
static void field_write(struct csv_line *l, const char *s, size_t len)
{
	bool quote = len && (s[0] == ' ' || s[len - 1] == ' ');
	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		line_write(l, s, len);
		return;
	}
	line_put(l, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			line_put(l, '"');
		line_put(l, s[i]);
	}
	line_put(l, '"');
}

static void str_field(struct csv_line *l, const char *s)
{
	line_put(l, ',');
	if (s)
		field_write(l, s, strlen(s));
}

/* A comma and v's digits, formatted in place: forty of these a row. */
static void uint_field(struct csv_line *l, uint64_t v)
{
	if (sizeof(l->buf) - l->len <= 22) {
		l->overflow = true;
		return;
	}
	l->buf[l->len] = ',';
	l->len += 1 + pp_json_write_format_uint(l->buf + l->len + 1, v);
}

static void empty_field(struct csv_line *l)
{
	line_put(l, ',');
}

/* The last column, gpu_counters, exists when the gpu_counters setting asks for hardware
 * counters: the set depends on the device, so one field lists them (docs/report-format.md). */
static bool gpu_counters_column(const struct attr_sink_ctx *c)
{
	return pp_gpu_counters_setting_choice(c->settings.gpu_counters) != PP_GPU_COUNTERS_NONE;
}

/* "source/name=value unit" entries joined by "; ": estimates with their bounds, values from
 * another frame with it; "n/a" when unavailable. Cut at a whole entry ("; ...") when long. */
static void gpu_counters_field(struct csv_line *l, const struct pp_pass_result *p)
{
	char buf[GPU_COUNTERS_FIELD];
	size_t len = 0;
	line_put(l, ',');
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_counter_value *c = &p->counters[i];
		if (!c->desc || pp_attr_counters_has_own_column(c))
			continue;
		char e[384];
		double v;
		int n;
		if (!pp_attr_counters_value(c, &v))
			n = snprintf(e, sizeof(e), "%s/%s=n/a", c->desc->source, c->desc->name);
		else if (c->estimated)
			n = snprintf(e, sizeof(e), "%s/%s=%.17g %s [%.17g..%.17g]%s", c->desc->source, c->desc->name, v,
				     c->desc->unit, c->lower, c->upper, c->shared ? " shared" : "");
		else
			n = snprintf(e, sizeof(e), "%s/%s=%.17g %s", c->desc->source, c->desc->name, v, c->desc->unit);
		if (n < 0 || (size_t)n >= sizeof(e))
			continue;
		if (c->other_frame) {
			int m = snprintf(e + n, sizeof(e) - (size_t)n, " (frame %" PRIu64 ")", c->frame);
			if (m > 0 && (size_t)(n + m) < sizeof(e))
				n += m;
		}
		size_t need = (len ? 2 : 0) + (size_t)n;
		if (len + need + 6 >= sizeof(buf)) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "; ...");
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "; " : "", e);
	}
	field_write(l, buf, len);
}

int pp_attr_csv_open(struct attr_sink_ctx *c)
{
	int err;
	FILE *f = pp_attr_sink_file_open(c, CSV_NAME, &c->csv_buf, &err);
	if (!f)
		return -err;
	c->csv = f;
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
		fprintf(f, "%s%s", i ? "," : "", csv_columns[i]);
	for (unsigned i = 0; i < PP_STAT_COUNT; i++)
		fprintf(f, ",%s", pp_model_stat_names[i]);
	fputs(",cpu_record_wall_ns,cpu_record_thread_cpu_ns", f);
	for (unsigned i = 0; i < pp_attr_sink_cpu_counter_count; i++)
		fprintf(f, ",cpu_record_%s", pp_attr_sink_cpu_counter_names[i]);
	if (gpu_counters_column(c))
		fputs(",gpu_counters", f);
	/* Last, so that the columns before keep their places. */
	fputs(",recorded_by", f);
	putc('\n', f);
	off_t header = ftello(f);
	c->csv_limit.bytes = header > 0 ? (uint64_t)header : 0;
	pp_attr_csv_flush(c);
	return c->csv ? 0 : -EIO;
}

static void row_write(struct csv_line *f, const struct pp_frame_result *fr, size_t pi, bool gpu_counters)
{
	const struct pp_pass_result *p = &fr->passes[pi];
	const struct pp_workload *w = &p->work;
	uint64_t seq = 0;
	bool have_seq = p->submission < fr->nsubmissions;
	if (have_seq)
		seq = fr->submissions[p->submission].seq;

	char num[24];
	line_write(f, num, pp_json_write_format_uint(num, fr->index));
	uint_field(f, fr->device_id);
	uint_field(f, p->submission);
	if (have_seq)
		uint_field(f, seq);
	else
		empty_field(f);
	uint_field(f, p->command_buffer);
	uint_field(f, pi);
	line_put(f, ',');
	field_write(f, p->name, strnlen(p->name, sizeof(p->name)));
	str_field(f, pp_attr_report_name_source_name(p->name_source));
	str_field(f, pp_attr_report_kind_name(p->kind));
	str_field(f, p->api);
	uint_field(f, w->draws);
	uint_field(f, w->draws_indexed);
	uint_field(f, w->draws_indirect);
	uint_field(f, w->draws_indirect_count);
	uint_field(f, w->instances);
	uint_field(f, w->vertices);
	uint_field(f, w->indices);
	uint_field(f, w->dispatches);
	uint_field(f, w->dispatches_indirect);
	uint_field(f, w->workgroups);
	uint_field(f, w->copies);
	uint_field(f, w->copy_bytes);
	uint_field(f, w->clears);
	uint_field(f, w->barriers);
	uint_field(f, p->nattachments);
	if (p->gpu.valid) {
		uint_field(f, p->gpu.begin_ns);
		uint_field(f, p->gpu.end_ns);
		uint_field(f, p->gpu.end_ns > p->gpu.begin_ns ? p->gpu.end_ns - p->gpu.begin_ns : 0);
		uint_field(f, p->gpu_exclusive_ns);
		str_field(f, p->overlapped ? "true" : "false");
		empty_field(f);
	} else {
		for (int i = 0; i < 5; i++)
			empty_field(f);
		str_field(f, p->gpu.unavailable_reason ? p->gpu.unavailable_reason : "not measured");
	}
	uint64_t stats[PP_STAT_COUNT];
	const char *stats_reason;
	uint32_t stats_valid = pp_attr_counters_pass_statistics(p, stats, &stats_reason);
	for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
		if (stats_valid & (1u << i))
			uint_field(f, stats[i]);
		else
			empty_field(f);
	}
	if (p->cpu.valid) {
		uint_field(f, p->cpu.wall_ns);
		uint_field(f, p->cpu.thread_cpu_ns);
	} else {
		empty_field(f);
		empty_field(f);
	}
	for (unsigned i = 0; i < pp_attr_sink_cpu_counter_count; i++) {
		if (p->cpu.valid && (p->cpu.counters_valid & (1u << i)))
			uint_field(f, p->cpu.counter[i]);
		else
			empty_field(f);
	}
	if (gpu_counters)
		gpu_counters_field(f, p);
	if (p->recorded_by)
		str_field(f, p->recorded_by);
	else
		empty_field(f);
	line_put(f, '\n');
}

void pp_attr_csv_frame_write(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	if (!c->csv)
		return;
	struct csv_line line;
	bool gpu_counters = gpu_counters_column(c);
	for (size_t i = 0; i < f->npasses; i++) {
		line.len = 0;
		line.overflow = false;
		row_write(&line, f, i, gpu_counters);
		if (line.overflow)
			continue; /* cannot happen with the model's bounded strings */
		pp_attr_sink_file_reserve(c->csv, &c->csv_buffered, line.len);
		/* Only the holder of the I/O lock writes this stream: no stdio lock per row. */
		fwrite_unlocked(line.buf, 1, line.len, c->csv);
		c->csv_rows++;
		c->csv_limit.bytes += line.len;
	}
}

static void csv_forget(struct attr_sink_ctx *c)
{
	c->csv = NULL;
	free(c->csv_buf);
	c->csv_buf = NULL;
}

void pp_attr_csv_flush(struct attr_sink_ctx *c)
{
	c->csv_buffered = 0;
	if (c->csv && !pp_attr_sink_file_flush(c, c->csv, CSV_NAME))
		csv_forget(c);
}

void pp_attr_csv_close(struct attr_sink_ctx *c)
{
	if (!c->csv)
		return;
	if (pp_attr_sink_file_flush(c, c->csv, CSV_NAME) && fclose(c->csv) != 0)
		pp_attr_sink_file_fail(c, CSV_NAME, errno);
	csv_forget(c);
}
