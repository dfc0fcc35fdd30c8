#include "pp_summary.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"

/* Widest pass-name column; longer names are cut with an ellipsis so one long label does not
 * push every number off the screen. */
#define SUMMARY_NAME_COLUMNS 40

void pp_summary_row_init(struct pp_summary_row *r)
{
	memset(r, 0, sizeof(*r));
	r->gpu_mean_ns = r->gpu_p50_ns = r->gpu_p95_ns = r->gpu_max_ns = NAN;
	r->share_of_frame = NAN;
	r->per_frame = NAN;
	r->cpu_record_mean_ns = NAN;
}

void pp_summary_init(struct pp_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->frame_gpu_mean_ns = s->frame_gpu_p50_ns = s->frame_gpu_p95_ns = NAN;
}

void pp_summary_free(struct pp_summary *s)
{
	if (!s)
		return;
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
}

/* Copies a string into a fixed field, cut at a character boundary (as the reader cuts). */
static void summary_copy_str(char *out, size_t size, const char *in)
{
	size_t len = in ? strlen(in) : 0;
	if (len >= size) {
		len = size - 1;
		while (len > 0 && ((unsigned char)in[len] & 0xc0) == 0x80)
			len--;
	}
	if (len)
		memcpy(out, in, len);
	out[len] = '\0';
}

/* Where a warning goes among the costliest: more cost per frame first, unmeasured after the
 * measured, then more occurrences. */
static bool summary_diag_before(double cost, uint64_t count, const struct pp_summary_diag *d)
{
	bool m = isfinite(cost), md = isfinite(d->cost_ns);
	if (m != md)
		return m;
	if (m && cost != d->cost_ns)
		return cost > d->cost_ns;
	return count > d->count;
}

void pp_summary_diagnostic_add(struct pp_summary *s, const char *id, const char *severity, const char *site,
			       double cost_ns, uint64_t count, uint64_t frames)
{
	if (severity && !strcmp(severity, "info")) {
		s->diag_info++;
		return;
	}
	s->diag_warnings++;
	uint32_t at = 0;
	while (at < s->ndiags && !summary_diag_before(cost_ns, count, &s->diags[at]))
		at++;
	if (at == PP_SUMMARY_DIAGNOSTICS)
		return;
	uint32_t keep = s->ndiags < PP_SUMMARY_DIAGNOSTICS ? s->ndiags : PP_SUMMARY_DIAGNOSTICS - 1;
	memmove(&s->diags[at + 1], &s->diags[at], (keep - at) * sizeof(s->diags[0]));
	struct pp_summary_diag *d = &s->diags[at];
	summary_copy_str(d->id, sizeof(d->id), id);
	summary_copy_str(d->site, sizeof(d->site), site);
	d->cost_ns = cost_ns;
	d->count = count;
	d->frames = frames;
	s->ndiags = keep + 1;
}

/* ------------------------------------------------------------------------------------------
 * Ordering
 * ----------------------------------------------------------------------------------------*/

struct summary_sort_item {
	double key;   /* GPU time per frame; NAN when unmeasured */
	size_t index; /* original position, the tie-break that makes qsort stable */
};

static double summary_row_key(const struct pp_summary_row *r)
{
	if (r->measured == 0)
		return NAN;
	double k = r->gpu_mean_ns * r->per_frame;
	return isfinite(k) ? k : NAN;
}

static int summary_sort_cmp(const void *pa, const void *pb)
{
	const struct summary_sort_item *a = pa, *b = pb;
	bool ma = !isnan(a->key), mb = !isnan(b->key);
	if (ma != mb)
		return ma ? -1 : 1;
	if (ma && a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

/* Fills order[0..nrows) with row indices in display order. Returns false on OOM. */
static bool summary_order(const struct pp_summary *s, size_t *order)
{
	struct summary_sort_item *items = malloc(s->nrows * sizeof(*items));
	if (!items)
		return false;
	for (size_t i = 0; i < s->nrows; i++) {
		items[i].key = summary_row_key(&s->rows[i]);
		items[i].index = i;
	}
	qsort(items, s->nrows, sizeof(*items), summary_sort_cmp);
	for (size_t i = 0; i < s->nrows; i++)
		order[i] = items[i].index;
	free(items);
	return true;
}

void pp_summary_sort(struct pp_summary *s)
{
	if (!s || s->nrows < 2)
		return;
	size_t *order = malloc(s->nrows * sizeof(*order));
	struct pp_summary_row *sorted = malloc(s->nrows * sizeof(*sorted));
	/* Out of memory leaves the order as it was: the table is still correct, only not ranked. */
	if (order && sorted && summary_order(s, order)) {
		for (size_t i = 0; i < s->nrows; i++)
			sorted[i] = s->rows[order[i]];
		memcpy(s->rows, sorted, s->nrows * sizeof(*sorted));
	}
	free(order);
	free(sorted);
}

/* ------------------------------------------------------------------------------------------
 * Table
 * ----------------------------------------------------------------------------------------*/

const char *pp_summary_format_ns(double ns, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1.0, "ns" }, { 1e3, "\xc2\xb5s" }, { 1e6, "ms" }, { 1e9, "s" } };
	const size_t nunits = sizeof(units) / sizeof(units[0]);

	if (!isfinite(ns)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (ns == 0) {
		snprintf(buf, len, "0 ns");
		return buf;
	}
	double a = fabs(ns);
	size_t u = 0;
	/* Move up a unit when 3 significant digits would round to 1000 in this one. */
	while (u + 1 < nunits && a / units[u].scale >= 999.5)
		u++;
	double x = a / units[u].scale;
	const char *sign = ns < 0 ? "-" : "";
	if (x >= 99.95)
		snprintf(buf, len, "%s%.0f %s", sign, x, units[u].unit);
	else if (x >= 9.995)
		snprintf(buf, len, "%s%.1f %s", sign, x, units[u].unit);
	else
		snprintf(buf, len, "%s%.2f %s", sign, x, units[u].unit);
	return buf;
}

static const char *summary_format_share(double share, char *buf, size_t len)
{
	if (!isfinite(share))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f%%", share * 100.0);
	return buf;
}

static const char *summary_format_per_frame(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

/* Terminal columns of a UTF-8 string: one per character (wide characters are rare in pass
 * names and would cost a wcwidth table). */
static size_t summary_columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static size_t summary_columns_n(const char *s, size_t n)
{
	size_t cols = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			cols++;
	return cols;
}

/* Copies a name for display: control characters and bytes that are not UTF-8 become '?',
 * and the result is cut to max_cols columns with a trailing ellipsis. */
static void summary_display_name(const char *in, size_t in_size, size_t max_cols, char *out,
				 size_t out_size)
{
	size_t n = strnlen(in, in_size), o = 0, cols = 0, i = 0;
	while (i < n && o + 4 < out_size) {
		unsigned char c = (unsigned char)in[i];
		size_t k = 1;
		if (c >= 0x80) {
			/* Accept well-formed sequences only; the table must not emit broken UTF-8. */
			if (c >= 0xc2 && c <= 0xdf)
				k = 2;
			else if (c >= 0xe0 && c <= 0xef)
				k = 3;
			else if (c >= 0xf0 && c <= 0xf4)
				k = 4;
			else
				k = 0;
			for (size_t j = 1; k && j < k; j++)
				if (i + j >= n || ((unsigned char)in[i + j] & 0xc0) != 0x80)
					k = 0;
		}
		if (cols + 1 == max_cols && summary_columns_n(in + i, n - i) > 1) {
			memcpy(out + o, "\xe2\x80\xa6", 3); /* U+2026 HORIZONTAL ELLIPSIS */
			o += 3;
			break;
		}
		if (k == 0 || c < 0x20 || c == 0x7f) {
			out[o++] = '?';
			i += 1;
		} else {
			if (o + k + 1 > out_size)
				break;
			memcpy(out + o, in + i, k);
			o += k;
			i += k;
		}
		if (++cols >= max_cols)
			break;
	}
	out[o] = '\0';
}

static void summary_cell(FILE *f, const char *text, size_t width, bool left, bool last)
{
	size_t cols = summary_columns(text);
	size_t pad = cols < width ? width - cols : 0;
	if (!left)
		fprintf(f, "%*s", (int)pad, "");
	fputs(text, f);
	if (left && !last)
		fprintf(f, "%*s", (int)pad, "");
}

enum { COL_NAME, COL_KIND, COL_PER_FRAME, COL_MEAN, COL_P50, COL_P95, COL_MAX, COL_SHARE, COL_CPU, NCOLS };

struct summary_cells {
	char text[NCOLS][SUMMARY_NAME_COLUMNS * 4 + 8];
};

static void summary_row_cells(const struct pp_summary_row *r, struct summary_cells *c)
{
	summary_display_name(r->name, sizeof(r->name), SUMMARY_NAME_COLUMNS, c->text[COL_NAME],
			     sizeof(c->text[COL_NAME]));
	summary_display_name(r->kind, sizeof(r->kind), 16, c->text[COL_KIND],
			     sizeof(c->text[COL_KIND]));
	summary_format_per_frame(r->per_frame, c->text[COL_PER_FRAME], sizeof(c->text[0]));
	/* Without any measured instance the statistics are unavailable whatever the fields say. */
	bool m = r->measured > 0;
	pp_summary_format_ns(m ? r->gpu_mean_ns : NAN, c->text[COL_MEAN], sizeof(c->text[0]));
	pp_summary_format_ns(m ? r->gpu_p50_ns : NAN, c->text[COL_P50], sizeof(c->text[0]));
	pp_summary_format_ns(m ? r->gpu_p95_ns : NAN, c->text[COL_P95], sizeof(c->text[0]));
	pp_summary_format_ns(m ? r->gpu_max_ns : NAN, c->text[COL_MAX], sizeof(c->text[0]));
	summary_format_share(m ? r->share_of_frame : NAN, c->text[COL_SHARE], sizeof(c->text[0]));
	pp_summary_format_ns(r->cpu_record_mean_ns, c->text[COL_CPU], sizeof(c->text[0]));
}

static void summary_print_line(FILE *f, const struct summary_cells *c, const size_t *width)
{
	fputs("  ", f);
	for (int col = 0; col < NCOLS; col++) {
		if (col)
			fputs("  ", f);
		summary_cell(f, c->text[col], width[col], col <= COL_KIND, col == NCOLS - 1);
	}
	fputc('\n', f);
}

/* The shown passes' GPU counters, mean per measured instance. */
static void summary_print_counters(FILE *f, const struct pp_summary *s, const size_t *order, size_t nshow)
{
	bool any = false;
	for (size_t i = 0; i < nshow; i++) {
		const struct pp_summary_row *r = &s->rows[order ? order[i] : i];
		if (!r->ncounters)
			continue;
		if (!any)
			fprintf(f, "passprobe: GPU counters, mean per pass instance measured:\n");
		any = true;
		char name[sizeof(r->name) * 2];
		summary_display_name(r->name, sizeof(r->name), sizeof(r->name), name, sizeof(name));
		fprintf(f, "passprobe:   %s:", name);
		for (uint32_t k = 0; k < r->ncounters && k < PP_SUMMARY_COUNTERS; k++) {
			const struct pp_summary_counter *c = &r->counters[k];
			char cn[sizeof(c->name) * 2], cu[sizeof(c->unit) * 2];
			summary_display_name(c->name, sizeof(c->name), sizeof(c->name), cn, sizeof(cn));
			summary_display_name(c->unit, sizeof(c->unit), sizeof(c->unit), cu, sizeof(cu));
			if (isfinite(c->mean))
				fprintf(f, "%s %s %.4g %s", k ? "," : "", cn, c->mean, cu);
			else
				fprintf(f, "%s %s n/a", k ? "," : "", cn);
		}
		fputc('\n', f);
	}
}

/* Warnings with what they cost, costliest first; information counted only (report.json and the
 * HTML report list it). */
static void summary_print_diagnostics(FILE *f, const struct pp_summary *s)
{
	if (!s->diag_warnings && !s->diag_info)
		return;
	fprintf(f, "passprobe: diagnostics: %llu warning%s, %llu information (report.json%s)\n",
		(unsigned long long)s->diag_warnings, s->diag_warnings == 1 ? "" : "s",
		(unsigned long long)s->diag_info,
		s->ndiags < s->diag_warnings ? "; the costliest warnings below" : "");
	for (uint32_t i = 0; i < s->ndiags && i < PP_SUMMARY_DIAGNOSTICS; i++) {
		const struct pp_summary_diag *d = &s->diags[i];
		char cost[32], id[sizeof(d->id) * 2], site[sizeof(d->site) * 2];
		pp_summary_format_ns(d->cost_ns, cost, sizeof(cost));
		summary_display_name(d->id, sizeof(d->id), sizeof(d->id), id, sizeof(id));
		summary_display_name(d->site, sizeof(d->site), 96, site, sizeof(site));
		fprintf(f, "passprobe:   warning  %s%s  %s  %s\n", isfinite(d->cost_ns) ? cost : "cost not measured",
			isfinite(d->cost_ns) ? "/frame" : "", id, site);
	}
}

void pp_summary_print(FILE *f, const struct pp_summary *s, size_t max_rows)
{
	char dev[sizeof(s->device) * 2];
	char a[32], b[32], c[32];

	if (!f || !s)
		return;
	summary_display_name(s->device, sizeof(s->device), sizeof(s->device), dev, sizeof(dev));
	fprintf(f, "passprobe: per-pass GPU time over %llu frame%s", (unsigned long long)s->frames,
		s->frames == 1 ? "" : "s");
	if (dev[0])
		fprintf(f, " (%s)", dev);
	fputc('\n', f);
	if (isfinite(s->frame_gpu_mean_ns) || isfinite(s->frame_gpu_p50_ns) ||
	    isfinite(s->frame_gpu_p95_ns)) {
		fprintf(f, "passprobe: frame GPU time: mean %s, p50 %s, p95 %s",
			pp_summary_format_ns(s->frame_gpu_mean_ns, a, sizeof(a)),
			pp_summary_format_ns(s->frame_gpu_p50_ns, b, sizeof(b)),
			pp_summary_format_ns(s->frame_gpu_p95_ns, c, sizeof(c)));
		/* Sampled timing (or frames without timestamps): say what the figures are over. */
		if (s->frames_gpu_timed && s->frames_gpu_timed < s->frames)
			fprintf(f, " (GPU statistics over the %llu of %llu frames with GPU times)",
				(unsigned long long)s->frames_gpu_timed, (unsigned long long)s->frames);
		fputc('\n', f);
	}
	else
		fprintf(f, "passprobe: frame GPU time: n/a\n");

	size_t nshow = max_rows && max_rows < s->nrows ? max_rows : s->nrows;
	if (s->nrows == 0 || !s->rows) {
		fprintf(f, "passprobe: no passes recorded\n");
	} else {
		size_t *order = malloc(s->nrows * sizeof(*order));
		if (order && !summary_order(s, order)) {
			free(order);
			order = NULL;
		}
		static const char *const headers[NCOLS] = {
			"pass", "kind", "per frame", "mean", "p50", "p95", "max", "share", "cpu record"
		};
		struct summary_cells cells;
		size_t width[NCOLS];
		for (int col = 0; col < NCOLS; col++)
			width[col] = summary_columns(headers[col]);
		/* Two passes over the shown rows (measure, then print) instead of storing every
		 * formatted cell. */
		for (size_t i = 0; i < nshow; i++) {
			summary_row_cells(&s->rows[order ? order[i] : i], &cells);
			for (int col = 0; col < NCOLS; col++) {
				size_t w = summary_columns(cells.text[col]);
				if (w > width[col])
					width[col] = w;
			}
		}
		for (int col = 0; col < NCOLS; col++)
			snprintf(cells.text[col], sizeof(cells.text[col]), "%s", headers[col]);
		summary_print_line(f, &cells, width);
		for (size_t i = 0; i < nshow; i++) {
			summary_row_cells(&s->rows[order ? order[i] : i], &cells);
			summary_print_line(f, &cells, width);
		}
		if (nshow < s->nrows)
			fprintf(f, "passprobe: %zu more pass%s not shown\n", s->nrows - nshow,
				s->nrows - nshow == 1 ? "" : "es");
		summary_print_counters(f, s, order, nshow);
		free(order);
	}
	if (s->notes[0]) {
		char notes[sizeof(s->notes) * 2];
		summary_display_name(s->notes, sizeof(s->notes), sizeof(s->notes), notes,
				     sizeof(notes));
		fprintf(f, "passprobe: note: %s\n", notes);
	}
	summary_print_diagnostics(f, s);
	for (const char *line = s->experiment; *line;) {
		size_t n = strcspn(line, "\n");
		fprintf(f, "passprobe: experiment: %.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

/* ------------------------------------------------------------------------------------------
 * JSON
 * ----------------------------------------------------------------------------------------*/

static void summary_write_str(struct pp_json_writer *w, const char *key, const char *s,
			      size_t size)
{
	pp_json_write_key(w, key);
	pp_json_write_string_n(w, s, strnlen(s, size));
}

static void summary_write_num(struct pp_json_writer *w, const char *key, double v)
{
	pp_json_write_key(w, key);
	pp_json_write_double(w, v); /* NAN becomes null */
}

int pp_summary_write_json(struct pp_json_writer *w, const struct pp_summary *s)
{
	pp_json_write_begin_object(w);
	pp_json_write_key(w, "frames");
	pp_json_write_uint(w, s->frames);
	/* Only where it differs from frames (sampled timing, frames without timestamps): absent
	 * means every frame has a GPU time. */
	if (s->frames_gpu_timed != s->frames) {
		pp_json_write_key(w, "frames_gpu_timed");
		pp_json_write_uint(w, s->frames_gpu_timed);
	}
	pp_json_write_key(w, "frame_gpu_ns");
	pp_json_write_begin_object(w);
	summary_write_num(w, "mean", s->frame_gpu_mean_ns);
	summary_write_num(w, "p50", s->frame_gpu_p50_ns);
	summary_write_num(w, "p95", s->frame_gpu_p95_ns);
	pp_json_write_end_object(w);
	summary_write_str(w, "device", s->device, sizeof(s->device));
	summary_write_str(w, "notes", s->notes, sizeof(s->notes));
	if (s->experiment[0]) {
		pp_json_write_key(w, "experiment");
		pp_json_write_begin_array(w);
		for (const char *line = s->experiment; *line;) {
			size_t n = strcspn(line, "\n");
			pp_json_write_string_n(w, line, n);
			line += n + (line[n] == '\n');
		}
		pp_json_write_end_array(w);
	}
	pp_json_write_key(w, "passes");
	pp_json_write_begin_array(w);
	for (size_t i = 0; i < s->nrows && s->rows; i++) {
		const struct pp_summary_row *r = &s->rows[i];
		pp_json_write_begin_object(w);
		summary_write_str(w, "name", r->name, sizeof(r->name));
		summary_write_str(w, "kind", r->kind, sizeof(r->kind));
		pp_json_write_key(w, "count");
		pp_json_write_uint(w, r->count);
		pp_json_write_key(w, "measured");
		pp_json_write_uint(w, r->measured);
		summary_write_num(w, "per_frame", r->per_frame);
		pp_json_write_key(w, "gpu_ns");
		pp_json_write_begin_object(w);
		summary_write_num(w, "mean", r->gpu_mean_ns);
		summary_write_num(w, "p50", r->gpu_p50_ns);
		summary_write_num(w, "p95", r->gpu_p95_ns);
		summary_write_num(w, "max", r->gpu_max_ns);
		pp_json_write_end_object(w);
		summary_write_num(w, "share_of_frame", r->share_of_frame);
		pp_json_write_key(w, "cpu_record_ns");
		pp_json_write_begin_object(w);
		summary_write_num(w, "mean", r->cpu_record_mean_ns);
		pp_json_write_end_object(w);
		if (r->ncounters) {
			pp_json_write_key(w, "gpu_counters");
			pp_json_write_begin_array(w);
			for (uint32_t k = 0; k < r->ncounters && k < PP_SUMMARY_COUNTERS; k++) {
				const struct pp_summary_counter *c = &r->counters[k];
				pp_json_write_begin_object(w);
				summary_write_str(w, "name", c->name, sizeof(c->name));
				summary_write_str(w, "unit", c->unit, sizeof(c->unit));
				summary_write_num(w, "mean", c->mean);
				pp_json_write_key(w, "measured");
				pp_json_write_uint(w, c->measured);
				pp_json_write_end_object(w);
			}
			pp_json_write_end_array(w);
		}
		pp_json_write_end_object(w);
		if (pp_json_write_error(w))
			break;
	}
	pp_json_write_end_array(w);
	pp_json_write_key(w, "diagnostics");
	pp_json_write_begin_object(w);
	pp_json_write_key(w, "warnings");
	pp_json_write_uint(w, s->diag_warnings);
	pp_json_write_key(w, "info");
	pp_json_write_uint(w, s->diag_info);
	pp_json_write_key(w, "costliest");
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; i < s->ndiags && i < PP_SUMMARY_DIAGNOSTICS; i++) {
		const struct pp_summary_diag *d = &s->diags[i];
		pp_json_write_begin_object(w);
		summary_write_str(w, "id", d->id, sizeof(d->id));
		summary_write_str(w, "site", d->site, sizeof(d->site));
		summary_write_num(w, "cost_ns", d->cost_ns);
		pp_json_write_key(w, "count");
		pp_json_write_uint(w, d->count);
		pp_json_write_key(w, "frames");
		pp_json_write_uint(w, d->frames);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);
	pp_json_write_end_object(w);
	return pp_json_write_error(w);
}
