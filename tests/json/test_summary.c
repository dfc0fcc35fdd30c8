/* The per-pass summary: JSON round trip (write -> read gives the same struct), nulls for
 * unavailable values, reader errors that name the field, ordering, and the printed table. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"
#include "pp_summary.h"
#include "pp_check.h"

/* Characters between a and b. */
static size_t display_columns(const char *a, const char *b)
{
	size_t n = 0;
	for (; a < b; a++)
		n += ((unsigned char)*a & 0xc0) != 0x80;
	return n;
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static bool same_row(const struct pp_summary_row *a, const struct pp_summary_row *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->kind, b->kind) == 0 &&
	       a->count == b->count && a->measured == b->measured &&
	       same_double(a->gpu_mean_ns, b->gpu_mean_ns) &&
	       same_double(a->gpu_p50_ns, b->gpu_p50_ns) &&
	       same_double(a->gpu_p95_ns, b->gpu_p95_ns) &&
	       same_double(a->gpu_max_ns, b->gpu_max_ns) &&
	       same_double(a->share_of_frame, b->share_of_frame) &&
	       same_double(a->per_frame, b->per_frame) &&
	       same_double(a->cpu_record_mean_ns, b->cpu_record_mean_ns);
}

static void set_row(struct pp_summary_row *r, const char *name, const char *kind, uint64_t count,
		    uint64_t measured, double mean, double per_frame, double share)
{
	pp_summary_row_init(r);
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	r->count = count;
	r->measured = measured;
	r->per_frame = per_frame;
	if (measured) {
		r->gpu_mean_ns = mean;
		r->gpu_p50_ns = mean * 0.97;
		r->gpu_p95_ns = mean * 1.31;
		r->gpu_max_ns = mean * 2.003;
		r->share_of_frame = share;
	}
}

/* A summary like the layer produces: sorted, one unmeasured pass. */
static void make_summary(struct pp_summary *s)
{
	pp_summary_init(s);
	s->frames = 120;
	s->frame_gpu_mean_ns = 4123456.789;
	s->frame_gpu_p50_ns = 4010000;
	s->frame_gpu_p95_ns = 5200000.5;
	snprintf(s->device, sizeof(s->device), "llvmpipe (LLVM 15.0.6, 256 bits)");
	snprintf(s->notes, sizeof(s->notes), "pipeline statistics unavailable: \"quoted\"");
	s->nrows = 4;
	s->rows = calloc(s->nrows, sizeof(*s->rows));
	set_row(&s->rows[0], "gbuffer", "render", 120, 120, 1234567.0, 1, 0.3);
	set_row(&s->rows[1], "lighting \xc3\xa9t\xc3\xa9", "compute", 240, 240, 400000.0 / 3.0, 2,
		0.0646);
	set_row(&s->rows[2], "upload", "transfer", 60, 30, 1000.25, 0.5, 0.0002);
	set_row(&s->rows[3], "ui", "render", 120, 0, 0, 1, 0);
	s->rows[0].cpu_record_mean_ns = 15250.5;
}

static char *summary_to_json(const struct pp_summary *s, int indent)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, indent);
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "schema");
	pp_json_write_string(&w, "passprobe-report");
	pp_json_write_key(&w, "version");
	pp_json_write_int(&w, 1);
	pp_json_write_key(&w, "summary");
	CHECK(pp_summary_write_json(&w, s) == 0);
	pp_json_write_end_object(&w);
	CHECK(pp_json_write_finish(&w) == 0);
	char *text = pp_json_write_mem_take(&w, NULL);
	pp_json_write_release(&w);
	return text;
}

static int summary_from_text(const char *text, struct pp_summary *out, char *err, size_t err_len)
{
	struct pp_json_value *root = NULL;
	int rc = pp_json_read_parse(text, strlen(text), NULL, &root, err, err_len);
	if (rc == 0)
		rc = pp_summary_read_from_json(root, out, err, err_len);
	else
		pp_summary_init(out);
	pp_json_read_free(root);
	return rc;
}

static void test_round_trip(void)
{
	struct pp_summary s, back;
	char err[256];
	make_summary(&s);
	for (int indent = 0; indent <= 2; indent += 2) {
		char *text = summary_to_json(&s, indent);
		CHECK(text != NULL);
		if (!text)
			break;
		int rc = summary_from_text(text, &back, err, sizeof(err));
		if (rc)
			fprintf(stderr, "summary round trip: %s\n", err);
		CHECK(rc == 0);
		CHECK(back.frames == s.frames);
		CHECK(same_double(back.frame_gpu_mean_ns, s.frame_gpu_mean_ns));
		CHECK(same_double(back.frame_gpu_p50_ns, s.frame_gpu_p50_ns));
		CHECK(same_double(back.frame_gpu_p95_ns, s.frame_gpu_p95_ns));
		CHECK_STR(back.device, s.device);
		CHECK_STR(back.notes, s.notes);
		CHECK(back.nrows == s.nrows);
		for (size_t i = 0; i < s.nrows && i < back.nrows; i++)
			CHECK(same_row(&back.rows[i], &s.rows[i]));
		pp_summary_free(&back);
		free(text);
	}

	/* Unmeasured values are null, never 0. */
	char *text = summary_to_json(&s, 0);
	CHECK(text && strstr(text, "{\"name\":\"ui\",\"kind\":\"render\",\"count\":120,\"measured\":0,"
				   "\"per_frame\":1,\"gpu_ns\":{\"mean\":null,\"p50\":null,"
				   "\"p95\":null,\"max\":null},\"share_of_frame\":null,"
				   "\"cpu_record_ns\":{\"mean\":null}}"));
	CHECK(text && strstr(text, "\"cpu_record_ns\":{\"mean\":15250.5}"));
	CHECK(text && strstr(text, "\"frame_gpu_ns\":{\"mean\":4123456.789,\"p50\":4010000,"
				   "\"p95\":5200000.5}"));
	free(text);

	/* All-unavailable frame statistics and an empty pass list also survive. */
	struct pp_summary empty;
	pp_summary_init(&empty);
	text = summary_to_json(&empty, 0);
	CHECK(text && strstr(text, "\"summary\":{\"frames\":0,\"frame_gpu_ns\":{\"mean\":null,"
				   "\"p50\":null,\"p95\":null},\"device\":\"\",\"notes\":\"\","
				   "\"passes\":[],\"diagnostics\":{\"warnings\":0,\"info\":0,\"costliest\":[]}}"));
	CHECK(text && summary_from_text(text, &back, err, sizeof(err)) == 0);
	CHECK(back.nrows == 0 && back.rows == NULL && isnan(back.frame_gpu_mean_ns));
	pp_summary_free(&back);
	free(text);
	pp_summary_free(&s);
}

static void test_reader(void)
{
	struct pp_summary out;
	char err[256];

	/* Optional fields may be absent or null; they read as unavailable. */
	CHECK(summary_from_text("{\"summary\":{\"frames\":3,\"passes\":[{\"name\":\"a\","
				"\"kind\":\"render\",\"count\":2,\"gpu_ns\":null}]}}",
				&out, err, sizeof(err)) == 0);
	CHECK(out.nrows == 1 && out.rows[0].count == 2 && out.rows[0].measured == 0);
	CHECK(isnan(out.rows[0].gpu_mean_ns) && isnan(out.rows[0].per_frame));
	CHECK(isnan(out.frame_gpu_p95_ns) && out.device[0] == '\0');
	pp_summary_free(&out);

	struct {
		const char *text;
		const char *want; /* substring of the error */
	} bad[] = {
		{ "[]", "not a JSON object" },
		{ "{}", "summary: missing" },
		{ "{\"summary\":[]}", "summary: expected an object" },
		{ "{\"summary\":{\"passes\":[]}}", "summary.frames: missing" },
		{ "{\"summary\":{\"frames\":-1,\"passes\":[]}}", "summary.frames: expected a non-negative integer" },
		{ "{\"summary\":{\"frames\":1.5,\"passes\":[]}}", "summary.frames" },
		{ "{\"summary\":{\"frames\":1}}", "summary.passes: missing" },
		{ "{\"summary\":{\"frames\":1,\"passes\":{}}}", "summary.passes: expected an array" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[1]}}", "summary.passes[0]: expected an object" },
		{ "{\"summary\":{\"frames\":1,\"device\":7,\"passes\":[]}}", "summary.device: expected a string" },
		{ "{\"summary\":{\"frames\":1,\"frame_gpu_ns\":{\"mean\":\"1\"},\"passes\":[]}}",
		  "summary.frame_gpu_ns.mean: expected a number or null" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[{\"name\":\"a\",\"kind\":\"render\",\"count\":1},"
		  "{\"name\":\"b\",\"kind\":\"render\",\"count\":-4}]}}",
		  "summary.passes[1].count: expected a non-negative integer" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[{\"kind\":\"render\",\"count\":1}]}}",
		  "summary.passes[0].name: missing" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[{\"name\":\"a\",\"kind\":\"render\",\"count\":1,"
		  "\"gpu_ns\":{\"p95\":true}}]}}",
		  "summary.passes[0].gpu_ns.p95: expected a number or null" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[{\"name\":\"a\",\"kind\":\"render\",\"count\":1,"
		  "\"measured\":2}]}}",
		  "measured (2) is larger than count (1)" },
		{ "{\"summary\":{\"frames\":1,\"passes\":[{\"name\":\"a\",\"kind\":\"render\",\"count\":1,"
		  "\"cpu_record_ns\":5}]}}",
		  "summary.passes[0].cpu_record_ns: expected an object or null" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = summary_from_text(bad[i].text, &out, err, sizeof(err));
		bool ok = rc == -EINVAL && strstr(err, bad[i].want) != NULL;
		if (!ok)
			fprintf(stderr, "bad case %zu: rc %d, err \"%s\", want \"%s\"\n", i, rc, err,
				bad[i].want);
		CHECK(ok);
		pp_summary_free(&out);
	}

	/* Names longer than the field are cut at a character boundary: 40 x "é" is 80 bytes,
	 * the field holds 63, so 31 characters (62 bytes) remain. */
	char text[512];
	int n = snprintf(text, sizeof(text), "{\"summary\":{\"frames\":1,\"passes\":[{\"name\":\"");
	for (int i = 0; i < 40; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "\xc3\xa9");
	snprintf(text + n, sizeof(text) - (size_t)n, "\",\"kind\":\"render\",\"count\":1}]}}");
	CHECK(summary_from_text(text, &out, err, sizeof(err)) == 0);
	CHECK(out.nrows == 1 && strlen(out.rows[0].name) == 62);
	pp_summary_free(&out);
}

static void test_sort(void)
{
	struct pp_summary s;
	pp_summary_init(&s);
	s.nrows = 5;
	s.rows = calloc(s.nrows, sizeof(*s.rows));
	set_row(&s.rows[0], "unmeasured1", "render", 1, 0, 0, 1, 0);
	set_row(&s.rows[1], "small", "render", 1, 1, 10, 1, 0.1);
	set_row(&s.rows[2], "twice", "compute", 2, 2, 60, 2, 0.4); /* 120 per frame */
	set_row(&s.rows[3], "unmeasured2", "render", 1, 0, 0, 1, 0);
	set_row(&s.rows[4], "big", "render", 1, 1, 100, 1, 0.5);
	pp_summary_sort(&s);
	CHECK_STR(s.rows[0].name, "twice");
	CHECK_STR(s.rows[1].name, "big");
	CHECK_STR(s.rows[2].name, "small");
	CHECK_STR(s.rows[3].name, "unmeasured1");
	CHECK_STR(s.rows[4].name, "unmeasured2");
	pp_summary_free(&s);
}

static void test_format_ns(void)
{
	char b[32];
	CHECK_STR(pp_summary_format_ns(NAN, b, sizeof(b)), "n/a");
	CHECK_STR(pp_summary_format_ns(INFINITY, b, sizeof(b)), "n/a");
	CHECK_STR(pp_summary_format_ns(0, b, sizeof(b)), "0 ns");
	CHECK_STR(pp_summary_format_ns(5.5, b, sizeof(b)), "5.50 ns");
	CHECK_STR(pp_summary_format_ns(999, b, sizeof(b)), "999 ns");
	CHECK_STR(pp_summary_format_ns(999.6, b, sizeof(b)), "1.00 \xc2\xb5s");
	CHECK_STR(pp_summary_format_ns(1234, b, sizeof(b)), "1.23 \xc2\xb5s");
	CHECK_STR(pp_summary_format_ns(45678, b, sizeof(b)), "45.7 \xc2\xb5s");
	CHECK_STR(pp_summary_format_ns(1234567, b, sizeof(b)), "1.23 ms");
	CHECK_STR(pp_summary_format_ns(12345678, b, sizeof(b)), "12.3 ms");
	CHECK_STR(pp_summary_format_ns(123456789, b, sizeof(b)), "123 ms");
	CHECK_STR(pp_summary_format_ns(1.5e9, b, sizeof(b)), "1.50 s");
	CHECK_STR(pp_summary_format_ns(-2500, b, sizeof(b)), "-2.50 \xc2\xb5s");
}

static char *print_to_string(const struct pp_summary *s, size_t max_rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	pp_summary_print(f, s, max_rows);
	fclose(f);
	return buf;
}

static void test_print(void)
{
	struct pp_summary s;
	make_summary(&s);
	/* Shuffle so the table has to rank the rows itself. */
	struct pp_summary_row tmp = s.rows[0];
	s.rows[0] = s.rows[3];
	s.rows[3] = tmp;

	char *out = print_to_string(&s, 0);
	CHECK(out != NULL);
	if (out) {
		fputs(out, stdout);
		const char *want = "passprobe: per-pass GPU time over 120 frames "
				   "(llvmpipe (LLVM 15.0.6, 256 bits))\n";
		CHECK(strncmp(out, want, strlen(want)) == 0);
		CHECK(strstr(out, "frame GPU time: mean 4.12 ms, p50 4.01 ms, p95 5.20 ms"));
		const char *hdr = strstr(out, "  pass");
		CHECK(hdr && strstr(hdr, "kind") && strstr(hdr, "per frame") && strstr(hdr, "mean") &&
		      strstr(hdr, "p50") && strstr(hdr, "p95") && strstr(hdr, "max") &&
		      strstr(hdr, "share"));
		const char *g = strstr(out, "gbuffer"), *l = strstr(out, "lighting"),
			   *u = strstr(out, "upload"), *ui = strstr(out, "  ui ");
		CHECK(g && l && u && ui && g < l && l < u && u < ui);
		CHECK(g && strstr(g, "1.23 ms") && strstr(g, "30.0%"));
		CHECK(l && strstr(l, "133 \xc2\xb5s") && strstr(l, "6.5%"));
		/* The unmeasured pass shows n/a, not zeros. */
		CHECK(ui && strstr(ui, "n/a") && !strstr(ui, "0 ns") && !strstr(ui, "0.0%"));
		CHECK(strstr(out, "passprobe: note: pipeline statistics unavailable"));
		CHECK(!strstr(out, "not shown"));
		/* Columns line up: the header's last cell ends where each row's last cell ends,
		 * counted in characters (UTF-8 continuation bytes do not take a column). */
		const char *hdr_end = strchr(hdr, '\n');
		const char *g_line = g;
		while (g_line > out && g_line[-1] != '\n')
			g_line--;
		const char *g_end = strchr(g, '\n');
		CHECK(hdr_end && g_end && display_columns(hdr, hdr_end) == display_columns(g_line, g_end));
		free(out);
	}

	out = print_to_string(&s, 1);
	CHECK(out && strstr(out, "gbuffer") && !strstr(out, "lighting"));
	CHECK(out && strstr(out, "passprobe: 3 more passes not shown"));
	free(out);

	s.device[0] = '\0';
	s.notes[0] = '\0';
	s.frame_gpu_mean_ns = s.frame_gpu_p50_ns = s.frame_gpu_p95_ns = NAN;
	s.frames = 1;
	/* A long name is cut; a control character is not printed raw. */
	snprintf(s.rows[3].name, sizeof(s.rows[3].name),
		 "a-very-long-pass-name-that-goes-on-and-on-and-on\x01-end");
	out = print_to_string(&s, 0);
	CHECK(out && strstr(out, "over 1 frame\n"));
	CHECK(out && strstr(out, "frame GPU time: n/a"));
	CHECK(out && !strstr(out, "note:"));
	CHECK(out && strstr(out, "a-very-long-pass-name-that-goes-on-and-\xe2\x80\xa6"));
	CHECK(out && !strchr(out, '\x01'));
	free(out);
	pp_summary_free(&s);

	pp_summary_init(&s);
	out = print_to_string(&s, 10);
	CHECK(out && strstr(out, "over 0 frames") && strstr(out, "no passes recorded"));
	free(out);
}

/* The diagnostics digest: sites per severity, the costliest warnings (measured first, most
 * cost first), through JSON and back, printed; a report from before it is read from its
 * diagnostics list. */
static void test_diagnostics(void)
{
	struct pp_summary s;
	pp_summary_init(&s);
	pp_summary_diagnostic_add(&s, "PASSPROBE-Barrier-Mergeable", "info", "b", 5000, 4, 4);
	pp_summary_diagnostic_add(&s, "PASSPROBE-Pass-UnneededStore", "warning", "pass", NAN, 9, 9);
	pp_summary_diagnostic_add(&s, "PASSPROBE-Barrier-FullPipelineDrain", "warning", "drain", 75900, 12, 12);
	pp_summary_diagnostic_add(&s, "PASSPROBE-Blocking-FenceWaitSameFrame", NULL, "fence", 1200, 3, 3);
	pp_summary_diagnostic_add(&s, "PASSPROBE-Blocking-FenceWaitSameFrame", "info", "worker", 900000, 3, 3);
	for (int i = 0; i < 6; i++)
		pp_summary_diagnostic_add(&s, "PASSPROBE-Barrier-DstStageTooEarly", "warning", "cheap", 10 + i, 1, 1);
	CHECK(s.diag_warnings == 9 && s.diag_info == 2);
	CHECK(s.ndiags == PP_SUMMARY_DIAGNOSTICS);
	CHECK(!strcmp(s.diags[0].site, "drain") && !strcmp(s.diags[1].site, "fence"));
	CHECK(!strcmp(s.diags[2].site, "cheap") && s.diags[2].cost_ns == 15);
	CHECK(s.diags[4].cost_ns == 13); /* the unmeasured one is beyond the five */

	char *text = summary_to_json(&s, 0);
	CHECK(text && strstr(text, "\"diagnostics\":{\"warnings\":9,\"info\":2,\"costliest\":[{\"id\":"
				   "\"PASSPROBE-Barrier-FullPipelineDrain\",\"site\":\"drain\",\"cost_ns\":75900,"
				   "\"count\":12,\"frames\":12},"));
	struct pp_summary back;
	char err[256];
	CHECK(text && summary_from_text(text, &back, err, sizeof(err)) == 0);
	CHECK(back.diag_warnings == 9 && back.diag_info == 2 && back.ndiags == PP_SUMMARY_DIAGNOSTICS);
	for (uint32_t i = 0; i < PP_SUMMARY_DIAGNOSTICS; i++)
		CHECK(!strcmp(back.diags[i].id, s.diags[i].id) && !strcmp(back.diags[i].site, s.diags[i].site) &&
		      same_double(back.diags[i].cost_ns, s.diags[i].cost_ns) && back.diags[i].count == s.diags[i].count);
	pp_summary_free(&back);
	free(text);

	char *out = print_to_string(&s, 0);
	CHECK(out && strstr(out, "passprobe: diagnostics: 9 warnings, 2 information"));
	CHECK(out && strstr(out, "passprobe:   warning  75.9 \xc2\xb5s/frame  PASSPROBE-Barrier-FullPipelineDrain  drain\n"));
	const char *first = out ? strstr(out, "drain") : NULL, *second = out ? strstr(out, "fence") : NULL;
	CHECK(first && second && first < second);
	CHECK(out && !strstr(out, "worker")); /* information is counted, not listed */
	CHECK(out && !strstr(out, "n/a/frame"));
	free(out);
	pp_summary_free(&s);

	/* No diagnostics: no line about them. */
	pp_summary_init(&s);
	out = print_to_string(&s, 0);
	CHECK(out && !strstr(out, "diagnostics"));
	free(out);
	/* A warning whose cost is not measured says so. */
	pp_summary_diagnostic_add(&s, "PASSPROBE-Pass-UnneededStore", "warning", "pass", NAN, 9, 9);
	out = print_to_string(&s, 0);
	CHECK(out && strstr(out, "passprobe:   warning  cost not measured  PASSPROBE-Pass-UnneededStore  pass\n"));
	free(out);
	pp_summary_free(&s);

	/* A report from before the digest: its diagnostics list, every site without a severity a
	 * warning. */
	static const char old[] = "{\"schema\":\"passprobe-report\",\"version\":1,\"summary\":{\"frames\":2,"
				  "\"passes\":[]},\"diagnostics\":[{\"id\":\"PASSPROBE-Barrier-Duplicate\",\"site\":"
				  "\"s\",\"count\":2,\"frames\":2,\"cost_ns\":null},{\"id\":\"PASSPROBE-Other\","
				  "\"count\":3,\"severity\":\"info\"}]}";
	CHECK(summary_from_text(old, &back, err, sizeof(err)) == 0);
	CHECK(back.diag_warnings == 1 && back.diag_info == 1 && back.ndiags == 1 && isnan(back.diags[0].cost_ns));
	pp_summary_free(&back);
	/* A digest of the wrong shape is named. */
	static const char bad[] = "{\"summary\":{\"frames\":2,\"passes\":[],\"diagnostics\":{\"costliest\":"
				  "[{\"site\":\"x\"}]}}}";
	CHECK(summary_from_text(bad, &back, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "summary.diagnostics.costliest[0].id: missing"));
	pp_summary_free(&back);
}

int main(void)
{
	test_diagnostics();
	test_round_trip();
	test_reader();
	test_sort();
	test_format_ns();
	test_print();
	return check_finish();
}
