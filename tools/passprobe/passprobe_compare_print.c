/* `passprobe compare`'s output: the text table (docs/cli.md) and --json. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pp_json.h"
#include "pp_summary.h"
#include "passprobe_compare.h"

static void format_rel(const struct cmp_change *c, char *buf, size_t len)
{
	if (c->v == CMP_UNAVAILABLE)
		snprintf(buf, len, "n/a");
	else if (isinf(c->rel))
		snprintf(buf, len, "new");
	else if (fabs(c->rel) < 0.0995)
		snprintf(buf, len, "%+.1f%%", c->rel * 100);
	else
		snprintf(buf, len, "%+.0f%%", c->rel * 100);
	size_t l = strlen(buf);
	if (c->v == CMP_UP || c->v == CMP_DOWN)
		snprintf(buf + l, len - l, " *");
	else if (c->v == CMP_UNJUDGED)
		snprintf(buf + l, len - l, " ?");
}

static void format_per_frame(double a, double b, char *buf, size_t len)
{
	char sa[24], sb[24];
	snprintf(sa, sizeof(sa), isnan(a) ? "n/a" : "%.3g", a);
	snprintf(sb, sizeof(sb), isnan(b) ? "n/a" : "%.3g", b);
	if (strcmp(sa, sb) == 0)
		snprintf(buf, len, "%s", sa);
	else
		snprintf(buf, len, "%s -> %s", sa, sb);
}

enum { COL_PASS, COL_KIND, COL_PF, COL_GA, COL_GB, COL_GC, COL_G95A, COL_G95B, COL_G95C,
       COL_CA, COL_CB, COL_CC, NCOLS };

static const char *const col_titles[NCOLS] = {
	"pass", "kind", "per frame", "gpu p50 A", "gpu p50 B", "change", "gpu p95 A", "gpu p95 B",
	"change", "cpu rec A", "cpu rec B", "change",
};



struct cmp_cells {
	char text[NCOLS][64];
};

static size_t utf8_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void row_cells(const struct cmp_row *r, struct cmp_cells *c)
{
	const struct cmp_pass *p = r->a ? r->a : r->b;
	snprintf(c->text[COL_PASS], sizeof(c->text[0]), "%.40s", p->name);
	snprintf(c->text[COL_KIND], sizeof(c->text[0]), "%s", p->kind);
	format_per_frame(r->a ? r->a->per_frame : NAN, r->b ? r->b->per_frame : NAN,
			 c->text[COL_PF], sizeof(c->text[0]));
	const struct cmp_change *ch[3] = { &r->g50, &r->g95, &r->c50 };
	for (int k = 0; k < 3; k++) {
		pp_summary_format_ns(ch[k]->a, c->text[COL_GA + 3 * k], sizeof(c->text[0]));
		pp_summary_format_ns(ch[k]->b, c->text[COL_GB + 3 * k], sizeof(c->text[0]));
		format_rel(ch[k], c->text[COL_GC + 3 * k], sizeof(c->text[0]));
	}
}

static void print_cells(const struct cmp_cells *c, const size_t *width)
{
	fputs("  ", stdout);
	for (int col = 0; col < NCOLS; col++) {
		size_t w = utf8_width(c->text[col]);
		size_t pad = width[col] > w ? width[col] - w : 0;
		if (col)
			fputs("  ", stdout);
		if (col <= COL_KIND) {
			fputs(c->text[col], stdout);
			if (col + 1 < NCOLS)
				printf("%*s", (int)pad, "");
		} else {
			printf("%*s%s", (int)pad, "", c->text[col]);
		}
	}
	fputc('\n', stdout);
}

static void print_header(const struct cmp_run *r)
{
	printf("  %s: %s: %llu frames", r->label, r->rep.path, (unsigned long long)r->frames);
	if (r->from_frames && r->frames_total > r->frames)
		printf(" (the last kept of %llu)", (unsigned long long)r->frames_total);
	if (!r->from_frames)
		printf(" (no frames kept: values from its summary, noise not judged)");
	printf(", %s%s%s\n", r->devices[0] ? r->devices : "no device",
	       r->process ? ", process " : "", r->process ? r->process : "");
}

static void print_diag(char mark, const struct cmp_diag *d, const struct cmp_diag *other)
{
	char cost[24], cost2[24];
	pp_summary_format_ns(d->cost_ns, cost, sizeof(cost));
	printf("  %c %s %s  %s\n", mark, d->info ? "info   " : "warning", d->id, d->site);
	if (other) {
		pp_summary_format_ns(other->cost_ns, cost2, sizeof(cost2));
		printf("      frames %llu -> %llu, cost per frame %s -> %s%s\n",
		       (unsigned long long)d->frames, (unsigned long long)other->frames, cost, cost2,
		       d->info == other->info ? "" : other->info ? ", now information" : ", now a warning");
	} else {
		printf("      %llu occurrences in %llu frames, cost per frame %s\n",
		       (unsigned long long)d->count, (unsigned long long)d->frames, cost);
	}
}

/* The diagnostics of run r that the other run has not, under a heading (none: no heading). */
static void print_unmatched(const struct cmp_run *r, char mark, const char *heading)
{
	size_t kept = 0;
	for (size_t i = 0; i < r->ndiags; i++) {
		if (r->diags[i].matched)
			continue;
		if (!kept++)
			printf("\n%s:\n", heading);
		print_diag(mark, &r->diags[i], NULL);
	}
}

void passprobe_compare_print_text(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		    size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o)
{
	char buf[3][64];
	printf("passprobe compare: A (baseline) -> B\n");
	print_header(a);
	print_header(b);
	printf("  a change counts (*) when |B - A| > %g x the larger spread of the two runs (p50: "
	       "interquartile range, p95: p95 - p50) and >= %g%% of A; ? too few frames to judge\n\n",
	       o->noise_k, o->min_change * 100);
	format_rel(&frame->g50, buf[2], sizeof(buf[2]));
	printf("frame GPU time p50: %s -> %s (%s)", pp_summary_format_ns(frame->g50.a, buf[0], 64),
	       pp_summary_format_ns(frame->g50.b, buf[1], 64), buf[2]);
	format_rel(&frame->g95, buf[2], sizeof(buf[2]));
	printf(", p95: %s -> %s (%s)\n\n", pp_summary_format_ns(frame->g95.a, buf[0], 64),
	       pp_summary_format_ns(frame->g95.b, buf[1], 64), buf[2]);

	size_t width[NCOLS], nboth = 0;
	for (int col = 0; col < NCOLS; col++)
		width[col] = utf8_width(col_titles[col]);
	struct cmp_cells cells;
	for (size_t i = 0; i < nrows; i++) {
		if (!rows[i].a || !rows[i].b)
			continue;
		nboth++;
		row_cells(&rows[i], &cells);
		for (int col = 0; col < NCOLS; col++) {
			size_t w = utf8_width(cells.text[col]);
			width[col] = w > width[col] ? w : width[col];
		}
	}
	if (nboth) {
		struct cmp_cells t;
		for (int col = 0; col < NCOLS; col++)
			snprintf(t.text[col], sizeof(t.text[0]), "%s", col_titles[col]);
		print_cells(&t, width);
		for (size_t i = 0; i < nrows; i++) {
			if (!rows[i].a || !rows[i].b)
				continue;
			row_cells(&rows[i], &cells);
			print_cells(&cells, width);
		}
	} else {
		printf("no pass is in both runs\n");
	}
	for (int side = 0; side < 2; side++) {
		bool any = false;
		for (size_t i = 0; i < nrows; i++) {
			const struct cmp_pass *p = side ? rows[i].b : rows[i].a;
			if (!p || (side ? rows[i].a : rows[i].b))
				continue;
			if (!any)
				printf("\npasses only in %s:\n", side ? "B" : "A");
			any = true;
			printf("  %s (%s): %.3g per frame, gpu p50 %s, cpu rec %s\n", p->name, p->kind,
			       p->per_frame, pp_summary_format_ns(p->g.p50, buf[0], 64),
			       pp_summary_format_ns(p->c.p50, buf[1], 64));
		}
	}
	print_unmatched(b, '+', "diagnostics that appeared in B");
	print_unmatched(a, '-', "diagnostics that disappeared (only in A)");
	size_t kept = 0;
	for (size_t i = 0; i < a->ndiags; i++) {
		if (!a->diags[i].matched)
			continue;
		for (size_t k = 0; k < b->ndiags; k++) {
			if (!b->diags[k].matched || strcmp(a->diags[i].key, b->diags[k].key) != 0)
				continue;
			if (!kept++)
				printf("\ndiagnostics in both runs:\n");
			print_diag('=', &a->diags[i], &b->diags[k]);
		}
	}
	if (!a->ndiags && !b->ndiags)
		printf("\nno diagnostics in either run\n");
}

static void json_stat(struct pp_json_writer *w, const char *key, const struct cmp_stat *s)
{
	pp_json_write_key(w, key);
	pp_json_write_begin_object(w);
	pp_json_write_kv_double(w, "p50", s->p50);
	pp_json_write_kv_double(w, "p95", s->p95);
	pp_json_write_kv_double(w, "iqr", s->q3 - s->q1);
	pp_json_write_kv_double(w, "tail", s->p95 - s->p50);
	pp_json_write_kv_uint(w, "samples", s->n);
	pp_json_write_kv_str(w, "source", s->from_summary ? "summary" : "frames");
	pp_json_write_end_object(w);
}

static void json_change(struct pp_json_writer *w, const char *key, const struct cmp_change *c)
{
	pp_json_write_key(w, key);
	pp_json_write_begin_object(w);
	pp_json_write_kv_double(w, "a", c->a);
	pp_json_write_kv_double(w, "b", c->b);
	pp_json_write_kv_double(w, "change", c->delta);
	pp_json_write_kv_double(w, "relative", c->rel);
	pp_json_write_kv_double(w, "noise", c->noise);
	pp_json_write_kv_str(w, "verdict", passprobe_compare_verdict_names[c->v]);
	pp_json_write_end_object(w);
}

static void json_measures(struct pp_json_writer *w, const char *key, const struct cmp_stat *a,
			  const struct cmp_stat *b, const struct cmp_change *c50,
			  const struct cmp_change *c95)
{
	pp_json_write_key(w, key);
	pp_json_write_begin_object(w);
	if (a)
		json_stat(w, "a", a);
	if (b)
		json_stat(w, "b", b);
	if (a && b) {
		json_change(w, "p50", c50);
		if (c95)
			json_change(w, "p95", c95);
	}
	pp_json_write_end_object(w);
}

static void json_run(struct pp_json_writer *w, const char *key, const struct cmp_run *r)
{
	pp_json_write_key(w, key);
	pp_json_write_begin_object(w);
	pp_json_write_kv_str(w, "path", r->rep.path);
	pp_json_write_kv_uint(w, "frames", r->frames);
	pp_json_write_kv_uint(w, "frames_total", r->frames_total);
	pp_json_write_kv_str(w, "source", r->from_frames ? "frames" : "summary");
	pp_json_write_kv_str(w, "devices", r->devices);
	pp_json_write_kv_str(w, "process", r->process);
	pp_json_write_end_object(w);
}

static void json_diags(struct pp_json_writer *w, const char *key, const struct cmp_run *r,
		       bool matched)
{
	pp_json_write_key(w, key);
	pp_json_write_begin_array(w);
	for (size_t i = 0; i < r->ndiags; i++) {
		const struct cmp_diag *d = &r->diags[i];
		if (d->matched != matched)
			continue;
		pp_json_write_begin_object(w);
		pp_json_write_kv_str(w, "id", d->id);
		pp_json_write_kv_str(w, "severity", d->info ? "info" : "warning");
		pp_json_write_kv_str(w, "site", d->site);
		pp_json_write_kv_str(w, "key", d->key);
		pp_json_write_kv_uint(w, "count", d->count);
		pp_json_write_kv_uint(w, "frames", d->frames);
		pp_json_write_kv_double(w, "cost_ns", d->cost_ns);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
}

int passprobe_compare_print_json(const struct cmp_run *a, const struct cmp_run *b, const struct cmp_row *rows,
		   size_t nrows, const struct cmp_row *frame, const struct cmp_opts *o,
		   size_t nregressed, size_t nnew)
{
	struct pp_json_writer w;
	pp_json_write_init_file(&w, stdout, 1);
	pp_json_write_begin_object(&w);
	pp_json_write_kv_str(&w, "schema", "passprobe-compare");
	pp_json_write_kv_uint(&w, "version", 1);
	json_run(&w, "a", a);
	json_run(&w, "b", b);
	pp_json_write_key(&w, "noise");
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "k");
	pp_json_write_double(&w, o->noise_k);
	pp_json_write_key(&w, "min_change");
	pp_json_write_double(&w, o->min_change);
	pp_json_write_kv_uint(&w, "min_samples", CMP_MIN_SAMPLES);
	pp_json_write_end_object(&w);
	pp_json_write_kv_str(&w, "metric", passprobe_compare_metric_names[o->metric]);
	pp_json_write_key(&w, "fail_above");
	pp_json_write_double(&w, o->fail_above);
	json_measures(&w, "frame_gpu_ns", &a->fg, &b->fg, &frame->g50, &frame->g95);
	pp_json_write_key(&w, "passes");
	pp_json_write_begin_array(&w);
	for (size_t i = 0; i < nrows; i++) {
		const struct cmp_row *r = &rows[i];
		const struct cmp_pass *p = r->a ? r->a : r->b;
		pp_json_write_begin_object(&w);
		pp_json_write_kv_str(&w, "name", p->name);
		pp_json_write_kv_str(&w, "kind", p->kind);
		pp_json_write_kv_str(&w, "in", r->a && r->b ? "both" : r->a ? "a" : "b");
		pp_json_write_key(&w, "per_frame");
		pp_json_write_begin_object(&w);
		if (r->a) {
			pp_json_write_key(&w, "a");
			pp_json_write_double(&w, r->a->per_frame);
		}
		if (r->b) {
			pp_json_write_key(&w, "b");
			pp_json_write_double(&w, r->b->per_frame);
		}
		pp_json_write_end_object(&w);
		json_measures(&w, "gpu_ns", r->a ? &r->a->g : NULL, r->b ? &r->b->g : NULL, &r->g50,
			      &r->g95);
		json_measures(&w, "cpu_record_ns", r->a ? &r->a->c : NULL, r->b ? &r->b->c : NULL,
			      &r->c50, NULL);
		pp_json_write_kv_bool(&w, "over_limit", r->a && r->b && passprobe_compare_regressed(passprobe_compare_metric_change(r, o), o));
		pp_json_write_end_object(&w);
	}
	pp_json_write_end_array(&w);
	pp_json_write_key(&w, "diagnostics");
	pp_json_write_begin_object(&w);
	json_diags(&w, "appeared", b, false);
	json_diags(&w, "disappeared", a, false);
	json_diags(&w, "both", b, true);
	pp_json_write_end_object(&w);
	pp_json_write_kv_uint(&w, "passes_over_limit", nregressed);
	pp_json_write_kv_uint(&w, "new_diagnostics", nnew);
	pp_json_write_end_object(&w);
	int rc = pp_json_write_finish(&w);
	fputc('\n', stdout);
	return rc;
}
