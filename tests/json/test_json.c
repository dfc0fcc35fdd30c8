/* JSON writer and reader: escaping, numbers, nesting, error latching, the strict reader's
 * accept/reject table, and writer -> reader round trips. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"
#include "pp_check.h"

/* Writes one value through fn into a fresh compact memory writer and returns the text. */
static char g_out[4096];

static const char *write_string_n(const char *s, size_t n)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_string_n(&w, s, n);
	int rc = pp_json_write_finish(&w);
	snprintf(g_out, sizeof(g_out), "%s", rc ? "(error)" : pp_json_write_mem(&w, NULL));
	pp_json_write_release(&w);
	return g_out;
}

static const char *write_double(double v)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_double(&w, v);
	int rc = pp_json_write_finish(&w);
	snprintf(g_out, sizeof(g_out), "%s", rc ? "(error)" : pp_json_write_mem(&w, NULL));
	pp_json_write_release(&w);
	return g_out;
}

static void test_writer_basic(void)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "s");
	pp_json_write_string(&w, "x");
	pp_json_write_key(&w, "i");
	pp_json_write_int(&w, INT64_MIN);
	pp_json_write_key(&w, "u");
	pp_json_write_uint(&w, UINT64_MAX);
	pp_json_write_key(&w, "d");
	pp_json_write_double(&w, 0.1);
	pp_json_write_key(&w, "b");
	pp_json_write_bool(&w, true);
	pp_json_write_key(&w, "f");
	pp_json_write_bool(&w, false);
	pp_json_write_key(&w, "n");
	pp_json_write_null(&w);
	pp_json_write_key(&w, "ns");
	pp_json_write_string(&w, NULL);
	pp_json_write_key(&w, "a");
	pp_json_write_begin_array(&w);
	pp_json_write_int(&w, 1);
	pp_json_write_begin_object(&w);
	pp_json_write_end_object(&w);
	pp_json_write_begin_array(&w);
	pp_json_write_end_array(&w);
	pp_json_write_end_array(&w);
	pp_json_write_end_object(&w);
	CHECK(pp_json_write_finish(&w) == 0);
	CHECK_STR(pp_json_write_mem(&w, NULL),
		  "{\"s\":\"x\",\"i\":-9223372036854775808,\"u\":18446744073709551615,\"d\":0.1,"
		  "\"b\":true,\"f\":false,\"n\":null,\"ns\":null,\"a\":[1,{},[]]}");
	size_t len = 0;
	char *taken = pp_json_write_mem_take(&w, &len);
	CHECK(taken && len == strlen(taken));
	CHECK_STR(pp_json_write_mem(&w, NULL), "");
	free(taken);
	pp_json_write_release(&w);
}

static void test_writer_pretty(void)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 2);
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "a");
	pp_json_write_begin_array(&w);
	pp_json_write_int(&w, 1);
	pp_json_write_int(&w, 2);
	pp_json_write_end_array(&w);
	pp_json_write_key(&w, "e");
	pp_json_write_begin_object(&w);
	pp_json_write_end_object(&w);
	pp_json_write_end_object(&w);
	CHECK(pp_json_write_finish(&w) == 0);
	CHECK_STR(pp_json_write_mem(&w, NULL), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"e\": {}\n}");
	pp_json_write_release(&w);
}

static void test_writer_escaping(void)
{
	CHECK_STR(write_string_n("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_STR(write_string_n("\n\r\t\b\f", 5), "\"\\n\\r\\t\\b\\f\"");
	CHECK_STR(write_string_n("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\x7f\"");
	CHECK_STR(write_string_n("a\0b", 3), "\"a\\u0000b\"");
	CHECK_STR(write_string_n("/", 1), "\"/\"");
	/* Valid UTF-8 passes through untouched. */
	CHECK_STR(write_string_n("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
		  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* Invalid bytes become U+FFFD, one per maximal invalid subpart. */
	CHECK_STR(write_string_n("a\xff" "b", 3), "\"a\xef\xbf\xbd" "b\"");
	CHECK_STR(write_string_n("\xe2\x82", 2), "\"\xef\xbf\xbd\"");           /* truncated */
	CHECK_STR(write_string_n("\xe2\x82x", 3), "\"\xef\xbf\xbdx\"");         /* cut short */
	CHECK_STR(write_string_n("\xc0\xaf", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\""); /* overlong */
	CHECK_STR(write_string_n("\xed\xa0\x80", 3),                             /* surrogate */
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	CHECK_STR(write_string_n("\xf4\x90\x80\x80", 4),                         /* > U+10FFFF */
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	CHECK_STR(write_string_n("\x80", 1), "\"\xef\xbf\xbd\"");
	CHECK_STR(write_string_n("", 0), "\"\"");
}

static void test_writer_numbers(void)
{
	CHECK_STR(write_double(0.1), "0.1");
	CHECK_STR(write_double(1.5), "1.5");
	CHECK_STR(write_double(100), "100");
	CHECK_STR(write_double(-0.0), "-0");
	CHECK_STR(write_double(1e300), "1e+300");
	CHECK_STR(write_double(1.0 / 3.0), "0.3333333333333333");
	CHECK_STR(write_double(NAN), "null");
	CHECK_STR(write_double(INFINITY), "null");
	CHECK_STR(write_double(-INFINITY), "null");
	CHECK(strtod(write_double(5e-324), NULL) == 5e-324);
	CHECK(strtod(write_double(1.7976931348623157e308), NULL) == 1.7976931348623157e308);

	/* A comma locale must not leak into JSON (skipped where no such locale is installed). */
	const char *locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "C.UTF-8" };
	for (size_t i = 0; i < sizeof(locales) / sizeof(locales[0]); i++) {
		if (!setlocale(LC_NUMERIC, locales[i]))
			continue;
		CHECK_STR(write_double(1.5), "1.5");
		struct pp_json_value *v = NULL;
		CHECK(pp_json_read_parse("2.25", 4, NULL, &v, NULL, 0) == 0);
		double d = 0;
		CHECK(pp_json_read_get_double(v, &d) && d == 2.25);
		pp_json_read_free(v);
	}
	setlocale(LC_NUMERIC, "C");
}

static void test_writer_misuse(void)
{
	struct pp_json_writer w;

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_object(&w);
	CHECK(pp_json_write_int(&w, 1) == -EINVAL); /* value without a key */
	CHECK(pp_json_write_key(&w, "a") == -EINVAL); /* latched */
	CHECK(pp_json_write_finish(&w) == -EINVAL);
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_array(&w);
	CHECK(pp_json_write_key(&w, "a") == -EINVAL);
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_array(&w);
	CHECK(pp_json_write_end_object(&w) == -EINVAL);
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_int(&w, 1);
	CHECK(pp_json_write_int(&w, 2) == -EINVAL); /* second top-level value */
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "k");
	CHECK(pp_json_write_end_object(&w) == -EINVAL); /* key without value */
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_array(&w);
	CHECK(pp_json_write_finish(&w) == -EINVAL); /* unclosed */
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	CHECK(pp_json_write_finish(&w) == -EINVAL); /* nothing written */
	pp_json_write_release(&w);

	pp_json_write_init_mem(&w, 0, 0);
	int rc = 0;
	for (int i = 0; i < PP_JSON_MAX_DEPTH; i++)
		rc |= pp_json_write_begin_array(&w);
	CHECK(rc == 0);
	CHECK(pp_json_write_begin_array(&w) == -EINVAL); /* deeper than the reader accepts */
	pp_json_write_release(&w);

	/* Memory limit. */
	pp_json_write_init_mem(&w, 8, 0);
	pp_json_write_string(&w, "0123456789");
	CHECK(pp_json_write_error(&w) == -ENOSPC);
	CHECK(pp_json_write_finish(&w) == -ENOSPC);
	pp_json_write_release(&w);

	/* No FILE. */
	pp_json_write_init_file(&w, NULL, 0);
	CHECK(pp_json_write_null(&w) == -EBADF);
}

static void test_writer_file(void)
{
	struct pp_json_writer w;
	FILE *f = fopen("/dev/full", "w");
	CHECK(f != NULL);
	if (f) {
		pp_json_write_init_file(&w, f, 0);
		pp_json_write_begin_array(&w);
		for (int i = 0; i < 10000; i++)
			pp_json_write_string(&w, "some text to fill the stdio buffer");
		pp_json_write_end_array(&w);
		CHECK(pp_json_write_finish(&w) == -ENOSPC);
		fclose(f);
	}

	f = tmpfile();
	CHECK(f != NULL);
	if (f) {
		pp_json_write_init_file(&w, f, 0);
		pp_json_write_begin_object(&w);
		pp_json_write_key(&w, "k");
		pp_json_write_string(&w, "v");
		pp_json_write_end_object(&w);
		CHECK(pp_json_write_finish(&w) == 0);
		rewind(f);
		char buf[64] = { 0 };
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		CHECK(n == 9);
		CHECK_STR(buf, "{\"k\":\"v\"}");
		fclose(f);
	}
}

/* ------------------------------------------------------------------------------------------
 * Reader
 * ----------------------------------------------------------------------------------------*/

struct parse_case {
	const char *text;
	size_t len; /* 0: strlen(text) */
	bool ok;
};

static void test_reader_table(void)
{
	static char deep_ok[2 * PP_JSON_MAX_DEPTH + 1], deep_bad[2 * PP_JSON_MAX_DEPTH + 3];
	for (int i = 0; i < PP_JSON_MAX_DEPTH; i++) {
		deep_ok[i] = '[';
		deep_ok[2 * PP_JSON_MAX_DEPTH - 1 - i] = ']';
	}
	for (int i = 0; i < PP_JSON_MAX_DEPTH + 1; i++) {
		deep_bad[i] = '[';
		deep_bad[2 * PP_JSON_MAX_DEPTH + 1 - i] = ']';
	}

	const struct parse_case cases[] = {
		/* accepted */
		{ "0", 0, true },
		{ "-0", 0, true },
		{ "1.5e10", 0, true },
		{ "1E+2", 0, true },
		{ "-1e-2", 0, true },
		{ "1e-400", 0, true }, /* underflows to 0: representable */
		{ "123456789012345678901234567890", 0, true },
		{ "\"x\"", 0, true },
		{ "true", 0, true },
		{ "false", 0, true },
		{ "null", 0, true },
		{ "[]", 0, true },
		{ "{}", 0, true },
		{ " \t\r\n[1 , 2,3 ]\n ", 0, true },
		{ "{\"a\":{\"b\":[null,{}]}}", 0, true },
		{ "\"\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\"", 0, true },
		{ "\"\\ud83d\\ude00\"", 0, true },
		{ "\"\\u0000\"", 0, true },
		{ "\xef\xbb\xbf{}", 0, true }, /* leading BOM skipped */
		{ "{\"a\":1,\"a\":2}", 0, true },
		{ "\"\xc3\xa9\xf0\x9f\x98\x80\"", 0, true },
		{ deep_ok, 0, true },
		/* rejected */
		{ "", 0, false },
		{ " ", 0, false },
		{ "[", 0, false },
		{ "]", 0, false },
		{ "[1,]", 0, false },
		{ "{\"a\":1,}", 0, false },
		{ "{a:1}", 0, false },
		{ "{'a':1}", 0, false },
		{ "{\"a\" 1}", 0, false },
		{ "{\"a\":}", 0, false },
		{ "{,}", 0, false },
		{ "[,1]", 0, false },
		{ "[1 2]", 0, false },
		{ "01", 0, false },
		{ "-01", 0, false },
		{ "-", 0, false },
		{ "1.", 0, false },
		{ ".5", 0, false },
		{ "+1", 0, false },
		{ "1e", 0, false },
		{ "1e+", 0, false },
		{ "0x10", 0, false },
		{ "NaN", 0, false },
		{ "Infinity", 0, false },
		{ "-Infinity", 0, false },
		{ "1e400", 0, false },
		{ "-1e400", 0, false },
		{ "tru", 0, false },
		{ "nul", 0, false },
		{ "True", 0, false },
		{ "truex", 0, false },
		{ "\"abc", 0, false },
		{ "\"\\x\"", 0, false },
		{ "\"\\u12\"", 0, false },
		{ "\"\\uZZZZ\"", 0, false },
		{ "\"\\ud83d\"", 0, false },
		{ "\"\\ude00\"", 0, false },
		{ "\"\\ud83d\\u0041\"", 0, false },
		{ "\"\\ud83dx\"", 0, false },
		{ "\"a\tb\"", 0, false },
		{ "\"\n\"", 0, false },
		{ "\"\xff\"", 0, false },
		{ "\"\xc0\xaf\"", 0, false },
		{ "\"\xed\xa0\x80\"", 0, false },
		{ "\"\xe2\x82\"", 0, false },
		{ "1 2", 0, false },
		{ "{} x", 0, false },
		{ "/* c */ 1", 0, false },
		{ "// c\n1", 0, false },
		{ "[1]\0", 4, false },
		{ "\0", 1, false },
		{ "\v1", 0, false },
		{ "\f1", 0, false },
		{ "\xc2\xa0" "1", 0, false },
		{ "[1]\xef\xbb\xbf", 0, false },
		{ "\xef\xbb\xbf", 0, false },
		{ deep_bad, 0, false },
		{ "{\"a\":1}}", 0, false },
		{ "[\"a\",]", 0, false },
	};
	size_t ncases = sizeof(cases) / sizeof(cases[0]);
	CHECK(ncases >= 40);
	for (size_t i = 0; i < ncases; i++) {
		const struct parse_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->text);
		struct pp_json_value *v = NULL;
		char err[256] = "unset";
		int rc = pp_json_read_parse(c->text, len, NULL, &v, err, sizeof(err));
		bool ok = rc == 0;
		if (ok != c->ok)
			fprintf(stderr, "case %zu (%.40s): expected %s, got rc %d: %s\n", i, c->text,
				c->ok ? "accept" : "reject", rc, err);
		CHECK(ok == c->ok);
		if (ok) {
			CHECK(v != NULL);
		} else {
			CHECK(v == NULL && rc == -EINVAL);
			CHECK(strncmp(err, "line ", 5) == 0);
		}
		pp_json_read_free(v);
	}
}

static struct pp_json_value *parse_ok(const char *text)
{
	struct pp_json_value *v = NULL;
	char err[256];
	int rc = pp_json_read_parse(text, strlen(text), NULL, &v, err, sizeof(err));
	if (rc)
		fprintf(stderr, "unexpected parse failure of %s: %s\n", text, err);
	CHECK(rc == 0);
	return v;
}

static void test_reader_values(void)
{
	struct pp_json_value *v;
	int64_t i64;
	uint64_t u64;
	double d;
	size_t len;

	v = parse_ok("9223372036854775807");
	CHECK(pp_json_read_get_int64(v, &i64) && i64 == INT64_MAX);
	CHECK(pp_json_read_get_uint64(v, &u64) && u64 == (uint64_t)INT64_MAX);
	pp_json_read_free(v);

	v = parse_ok("9223372036854775808");
	CHECK(!pp_json_read_get_int64(v, &i64));
	CHECK(pp_json_read_get_uint64(v, &u64) && u64 == (uint64_t)INT64_MAX + 1);
	pp_json_read_free(v);

	v = parse_ok("18446744073709551615");
	CHECK(pp_json_read_get_uint64(v, &u64) && u64 == UINT64_MAX);
	pp_json_read_free(v);

	v = parse_ok("18446744073709551616");
	CHECK(!pp_json_read_get_uint64(v, &u64) && !pp_json_read_get_int64(v, &i64));
	CHECK(pp_json_read_get_double(v, &d) && d == 18446744073709551616.0);
	pp_json_read_free(v);

	v = parse_ok("-9223372036854775808");
	CHECK(pp_json_read_get_int64(v, &i64) && i64 == INT64_MIN);
	CHECK(!pp_json_read_get_uint64(v, &u64));
	pp_json_read_free(v);

	v = parse_ok("-9223372036854775809");
	CHECK(!pp_json_read_get_int64(v, &i64));
	pp_json_read_free(v);

	v = parse_ok("1e3");
	CHECK(pp_json_read_get_int64(v, &i64) && i64 == 1000);
	pp_json_read_free(v);

	v = parse_ok("-2.5");
	CHECK(!pp_json_read_get_int64(v, &i64) && pp_json_read_get_double(v, &d) && d == -2.5);
	pp_json_read_free(v);

	v = parse_ok("\"\\ud83d\\ude00\\u00e9a\\u0000b\"");
	const char *s = pp_json_read_get_string(v, &len);
	CHECK(s && len == 9 && memcmp(s, "\xf0\x9f\x98\x80\xc3\xa9" "a\0b", 9) == 0);
	pp_json_read_free(v);

	v = parse_ok("{\"a\":1,\"b\":[true,null,\"x\"],\"a\":2}");
	CHECK(pp_json_read_is_object(v) && pp_json_read_object_size(v) == 3);
	CHECK(pp_json_read_get_int64(pp_json_read_object_get(v, "a"), &i64) && i64 == 1); /* first wins */
	const struct pp_json_value *b = pp_json_read_object_get(v, "b");
	CHECK(pp_json_read_is_array(b) && pp_json_read_array_size(b) == 3);
	bool bv = false;
	CHECK(pp_json_read_get_bool(pp_json_read_array_at(b, 0), &bv) && bv);
	CHECK(pp_json_read_is_null(pp_json_read_array_at(b, 1)));
	CHECK(strcmp(pp_json_read_get_string(pp_json_read_array_at(b, 2), NULL), "x") == 0);
	CHECK(pp_json_read_array_at(b, 3) == NULL);
	CHECK(pp_json_read_object_get(v, "missing") == NULL);
	CHECK(pp_json_read_object_get(b, "a") == NULL); /* wrong type answers absent */
	CHECK(strcmp(pp_json_read_object_at(v, 1)->key, "b") == 0);
	CHECK(pp_json_read_object_at(v, 3) == NULL);
	CHECK(pp_json_read_type_of(NULL) == PP_JSON_NULL && !pp_json_read_is_null(NULL));
	CHECK(pp_json_read_array_size(NULL) == 0 && pp_json_read_get_string(NULL, NULL) == NULL);
	pp_json_read_free(v);
	pp_json_read_free(NULL);
}

static void test_reader_errors(void)
{
	struct pp_json_value *v = NULL;
	char err[256];
	const char *t = "{\n  \"a\": tru\n}";
	CHECK(pp_json_read_parse(t, strlen(t), NULL, &v, err, sizeof(err)) == -EINVAL);
	CHECK(strncmp(err, "line 2:8: ", 10) == 0);

	t = "[1,\n2,\n]";
	CHECK(pp_json_read_parse(t, strlen(t), NULL, &v, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "line 3:1") && strstr(err, "trailing comma"));

	t = "{\"a\":1} // note";
	CHECK(pp_json_read_parse(t, strlen(t), NULL, &v, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "line 1:9") && strstr(err, "comments"));

	/* A tiny error buffer still gets a terminated message. */
	char tiny[6];
	CHECK(pp_json_read_parse("[", 1, NULL, &v, tiny, sizeof(tiny)) == -EINVAL);
	CHECK(strlen(tiny) == 5);

	/* Limits. */
	struct pp_json_limits lim = { .max_len = 4 };
	CHECK(pp_json_read_parse("[1,2]", 5, &lim, &v, err, sizeof(err)) == -EFBIG && v == NULL);
	CHECK(strstr(err, "limit") != NULL);

	size_t n = 200000;
	char *big = malloc(n);
	CHECK(big != NULL);
	if (big) {
		big[0] = '[';
		for (size_t i = 1; i + 1 < n; i += 2) {
			big[i] = '0';
			big[i + 1] = ',';
		}
		big[n - 1] = ']';
		if (big[n - 2] == ',')
			big[n - 2] = ' ';
		struct pp_json_limits mem = { .max_memory = 100000 };
		CHECK(pp_json_read_parse(big, n, &mem, &v, err, sizeof(err)) == -ENOMEM && v == NULL);
		CHECK(pp_json_read_parse(big, n, NULL, &v, err, sizeof(err)) == 0);
		CHECK(pp_json_read_array_size(v) == n / 2 - 1);
		pp_json_read_free(v);
		free(big);
	}
	CHECK(pp_json_read_parse(NULL, 0, NULL, &v, err, sizeof(err)) == -EINVAL);
	CHECK(pp_json_read_parse(NULL, 3, NULL, &v, err, sizeof(err)) == -EINVAL);
}

/* ------------------------------------------------------------------------------------------
 * Round trip
 * ----------------------------------------------------------------------------------------*/

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_round_trip(void)
{
	enum { NDOUBLES = 2000 };
	static double doubles[NDOUBLES];
	for (int i = 0; i < NDOUBLES; i++) {
		double d;
		do {
			uint64_t bits = rng_next();
			memcpy(&d, &bits, sizeof(d));
		} while (!isfinite(d));
		doubles[i] = i % 3 ? d : (double)(int64_t)rng_next() / 1000.0;
	}
	/* Every code point class the writer passes through, plus escapes. */
	char text[512];
	size_t tl = 0;
	for (int c = 1; c < 0x80; c++)
		text[tl++] = (char)c;
	memcpy(text + tl, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", 13);
	tl += 13;
	text[tl++] = '\0';
	text[tl++] = 'z';

	struct pp_json_writer w;
	for (int indent = 0; indent <= 4; indent += 4) {
		pp_json_write_init_mem(&w, 0, indent);
		pp_json_write_begin_object(&w);
		pp_json_write_key(&w, "doubles");
		pp_json_write_begin_array(&w);
		for (int i = 0; i < NDOUBLES; i++)
			pp_json_write_double(&w, doubles[i]);
		pp_json_write_end_array(&w);
		pp_json_write_key(&w, "text");
		pp_json_write_string_n(&w, text, tl);
		pp_json_write_key(&w, "ints");
		pp_json_write_begin_array(&w);
		pp_json_write_int(&w, INT64_MIN);
		pp_json_write_int(&w, -1);
		pp_json_write_uint(&w, UINT64_MAX);
		pp_json_write_end_array(&w);
		pp_json_write_key(&w, "nested");
		for (int i = 0; i < PP_JSON_MAX_DEPTH - 1; i++)
			pp_json_write_begin_array(&w);
		for (int i = 0; i < PP_JSON_MAX_DEPTH - 1; i++)
			pp_json_write_end_array(&w);
		pp_json_write_end_object(&w);
		CHECK(pp_json_write_finish(&w) == 0);

		size_t len;
		const char *out = pp_json_write_mem(&w, &len);
		struct pp_json_value *root = NULL;
		char err[256];
		int rc = pp_json_read_parse(out, len, NULL, &root, err, sizeof(err));
		if (rc)
			fprintf(stderr, "round trip parse failed: %s\n", err);
		CHECK(rc == 0);
		const struct pp_json_value *arr = pp_json_read_object_get(root, "doubles");
		CHECK(pp_json_read_array_size(arr) == NDOUBLES);
		int mismatches = 0;
		for (int i = 0; i < NDOUBLES; i++) {
			double d = NAN;
			if (!pp_json_read_get_double(pp_json_read_array_at(arr, i), &d) ||
			    memcmp(&d, &doubles[i], sizeof(d)) != 0) {
				if (mismatches++ < 5)
					fprintf(stderr, "double %d: wrote %.17g read %.17g\n", i,
						doubles[i], d);
			}
		}
		CHECK(mismatches == 0);
		size_t sl = 0;
		const char *s = pp_json_read_get_string(pp_json_read_object_get(root, "text"), &sl);
		CHECK(s && sl == tl && memcmp(s, text, tl) == 0);
		const struct pp_json_value *ints = pp_json_read_object_get(root, "ints");
		int64_t i64 = 0;
		uint64_t u64 = 0;
		CHECK(pp_json_read_get_int64(pp_json_read_array_at(ints, 0), &i64) && i64 == INT64_MIN);
		CHECK(pp_json_read_get_int64(pp_json_read_array_at(ints, 1), &i64) && i64 == -1);
		CHECK(pp_json_read_get_uint64(pp_json_read_array_at(ints, 2), &u64) && u64 == UINT64_MAX);
		pp_json_read_free(root);
		pp_json_write_release(&w);
	}
}

/* What the writer printed before its shortcuts (C locale): the fewest of 15, 16 or 17
 * significant digits that read back to v. */
static void reference_double(char *out, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, n, "%.*g", prec, v);
		if (prec == 17 || strtod(out, NULL) == v)
			return;
	}
}

static const char *write_uint(uint64_t v)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_uint(&w, v);
	int rc = pp_json_write_finish(&w);
	snprintf(g_out, sizeof(g_out), "%s", rc ? "(error)" : pp_json_write_mem(&w, NULL));
	pp_json_write_release(&w);
	return g_out;
}

static const char *write_int(int64_t v)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_int(&w, v);
	int rc = pp_json_write_finish(&w);
	snprintf(g_out, sizeof(g_out), "%s", rc ? "(error)" : pp_json_write_mem(&w, NULL));
	pp_json_write_release(&w);
	return g_out;
}

/* The number writers' shortcuts (integers without snprintf, times in thousandths without
 * snprintf and strtod: docs/performance.md) print exactly what printf did, over the values
 * the sinks write (nanoseconds as microseconds) and around the shortcuts' edges. */
static void test_writer_numbers_match_printf(void)
{
	char ref[64];
	const uint64_t us[] = { 0, 1, 9, 10, 99, 100, 12345, 4294967295u, 4294967296u, 999999999999999999u,
				1000000000000000000u, UINT64_MAX - 1, UINT64_MAX };
	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
		snprintf(ref, sizeof(ref), "%llu", (unsigned long long)us[i]);
		CHECK_STR(write_uint(us[i]), ref);
		char buf[32];
		CHECK(pp_json_write_format_uint(buf, us[i]) == strlen(ref) && strcmp(buf, ref) == 0);
	}
	const int64_t is[] = { 0, 1, -1, -9, -10, INT64_MAX, INT64_MIN, INT64_MIN + 1, -1234567890123 };
	for (size_t i = 0; i < sizeof(is) / sizeof(is[0]); i++) {
		snprintf(ref, sizeof(ref), "%lld", (long long)is[i]);
		CHECK_STR(write_int(is[i]), ref);
	}
	const double ds[] = { 0.0, -0.0, 0.001, -0.001, 0.01, 0.1, 0.5, 1, 1.001, 1.01, 1.1, 1.999, 12.34,
			      999.999, 1000, 123456.789, 99999999999.999, 100000000000.0, 100000000000.001,
			      -99999999999.999, 1e-4, 0.0001, 0.0005, 1.0 / 3.0, 2.0 / 3.0, 1e15, 1e16, 1e-7,
			      0.1 + 0.2, 4503599627370.496, 9007199254.740993 };
	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		reference_double(ref, sizeof(ref), ds[i]);
		CHECK_STR(write_double(ds[i]), ref);
	}
	/* Nanosecond counts as the trace writes them, over every magnitude, and their neighbours. */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t ns = x >> (x % 50);
		double v = (double)(int64_t)(ns & 0x3fffffffffffffull) / 1000.0;
		if (i & 1)
			v = -v;
		if (i % 7 == 0)
			v = nextafter(v, INFINITY);
		reference_double(ref, sizeof(ref), v);
		const char *got = write_double(v);
		if (strcmp(got, ref) != 0) {
			CHECK_STR(got, ref);
			break;
		}
	}
}

/* The string writer's shortcut passes over plain text eight bytes at a time: every byte that
 * needs an escape is still found, at every position of a word and after it. */
static void test_writer_escape_positions(void)
{
	static const struct {
		char c;
		const char *out;
	} special[] = { { '"', "\\\"" }, { '\\', "\\\\" }, { '\n', "\\n" }, { 0x01, "\\u0001" },
			{ 0x1f, "\\u001f" }, { (char)0x80, "\xef\xbf\xbd" }, { (char)0xff, "\xef\xbf\xbd" },
			{ 0x7f, "\x7f" }, { ' ', " " }, { '~', "~" } };
	for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); k++)
		for (size_t len = 1; len <= 26; len++)
			for (size_t at = 0; at < len; at++) {
				char in[32], want[64];
				memset(in, 'a', len);
				in[at] = special[k].c;
				size_t o = 0;
				want[o++] = '"';
				for (size_t i = 0; i < len; i++) {
					if (i == at) {
						memcpy(want + o, special[k].out, strlen(special[k].out));
						o += strlen(special[k].out);
					} else {
						want[o++] = 'a';
					}
				}
				want[o++] = '"';
				want[o] = '\0';
				const char *got = write_string_n(in, len);
				if (strcmp(got, want) != 0) {
					CHECK_STR(got, want);
					return;
				}
			}
}

/* pp_json_write_format_hex is printf's "0x%" PRIx64, pp_json_write_format_uint its "%llu", at every length
 * and around every power of the base. */
static void test_writer_format_integers(void)
{
	char ref[32], buf[32];
	for (int bits = 0; bits <= 64; bits++) {
		uint64_t p = bits == 64 ? UINT64_MAX : (1ull << bits);
		const uint64_t around[] = { p - 1, p, p + 1 };
		for (int k = 0; k < 3; k++) {
			snprintf(ref, sizeof(ref), "0x%llx", (unsigned long long)around[k]);
			CHECK(pp_json_write_format_hex(buf, around[k]) == strlen(ref));
			CHECK_STR(buf, ref);
		}
	}
	uint64_t ten = 1;
	for (int digits = 1; digits <= 20; digits++, ten *= 10) {
		const uint64_t around[] = { ten - 1, ten, ten + 1, ten * 9 + ten - 1 };
		for (int k = 0; k < 4; k++) {
			uint64_t v = digits == 20 && k == 3 ? UINT64_MAX : around[k];
			snprintf(ref, sizeof(ref), "%llu", (unsigned long long)v);
			CHECK(pp_json_write_format_uint(buf, v) == strlen(ref));
			CHECK_STR(buf, ref);
		}
	}
	/* And values of every length in between. */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (x % 64);
		snprintf(ref, sizeof(ref), "%llu", (unsigned long long)v);
		size_t n = pp_json_write_format_uint(buf, v);
		if (n != strlen(ref) || strcmp(buf, ref) != 0) {
			CHECK_STR(buf, ref);
			break;
		}
		snprintf(ref, sizeof(ref), "0x%llx", (unsigned long long)v);
		n = pp_json_write_format_hex(buf, v);
		if (n != strlen(ref) || strcmp(buf, ref) != 0) {
			CHECK_STR(buf, ref);
			break;
		}
	}
}

/* One document with every kind of member, through the general functions (lit false) or the
 * literal-name forms (lit true). */
static void members_write(struct pp_json_writer *w, bool lit)
{
#define KV(fn, name, ...) (lit ? fn##_lit(w, name, __VA_ARGS__) : fn(w, name, __VA_ARGS__))
	pp_json_write_begin_object(w);
	KV(pp_json_write_kv_uint, "zero", 0);
	KV(pp_json_write_kv_uint, "big", UINT64_MAX);
	KV(pp_json_write_kv_str, "plain", "text");
	KV(pp_json_write_kv_str, "escaped", "a \"q\"\tb\\c\x01\xff\xc3\xa9");
	KV(pp_json_write_kv_str, "empty", "");
	KV(pp_json_write_kv_str, "none", NULL);
	KV(pp_json_write_kv_bool, "yes", true);
	KV(pp_json_write_kv_bool, "no", false);
	KV(pp_json_write_kv_handle, "handle", 0xdeadbeef00ull);
	KV(pp_json_write_kv_handle, "null_handle", 0);
	KV(pp_json_write_kv_double, "ms", 1.5);
	KV(pp_json_write_kv_double, "us", 123456.789);
	KV(pp_json_write_kv_double, "third", 1.0 / 3.0);
	KV(pp_json_write_kv_double, "nan", NAN);
	if (lit)
		pp_json_write_kv_null_lit(w, "nothing");
	else
		pp_json_write_kv_null(w, "nothing");
	if (lit)
		pp_json_write_key_lit(w, "nested");
	else
		pp_json_write_key(w, "nested");
	pp_json_write_begin_object(w);
	KV(pp_json_write_kv_uint, "first", 1);
	if (lit)
		pp_json_write_key_lit(w, "list");
	else
		pp_json_write_key(w, "list");
	pp_json_write_begin_array(w);
	pp_json_write_uint(w, 2);
	pp_json_write_begin_object(w);
	KV(pp_json_write_kv_str, "in_array", "x");
	pp_json_write_end_object(w);
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);
	pp_json_write_end_object(w);
#undef KV
}

/* The literal-name forms write what the general functions write, byte for byte and error for
 * error: compact and indented, in memory (under every size limit) and to a FILE, and when
 * misused. */
static void test_writer_members_lit(void)
{
	char want[2048];
	for (int indent = 0; indent <= 2; indent += 2) {
		struct pp_json_writer w;
		pp_json_write_init_mem(&w, 0, indent);
		members_write(&w, false);
		CHECK(pp_json_write_finish(&w) == 0);
		size_t full;
		snprintf(want, sizeof(want), "%s", pp_json_write_mem(&w, &full));
		pp_json_write_release(&w);
		CHECK(strstr(want, "\"escaped\"") != NULL);

		for (size_t max = 1; max <= full + 1; max++) {
			struct pp_json_writer a, b;
			pp_json_write_init_mem(&a, max, indent);
			pp_json_write_init_mem(&b, max, indent);
			members_write(&a, false);
			members_write(&b, true);
			int ea = pp_json_write_finish(&a), eb = pp_json_write_finish(&b);
			CHECK(ea == eb);
			CHECK(ea == (max < full ? -ENOSPC : 0));
			if (ea == 0)
				CHECK_STR(pp_json_write_mem(&b, NULL), want);
			pp_json_write_release(&a);
			pp_json_write_release(&b);
		}

		FILE *f = tmpfile();
		CHECK(f != NULL);
		if (f) {
			pp_json_write_init_file(&w, f, indent);
			members_write(&w, true);
			CHECK(pp_json_write_finish(&w) == 0);
			rewind(f);
			char got[2048] = { 0 };
			size_t n = fread(got, 1, sizeof(got) - 1, f);
			CHECK(n == full);
			CHECK_STR(got, want);
			fclose(f);
		}
	}

	/* Misuse latches -EINVAL as pp_json_write_key does: a name in an array, at the top level,
	 * twice in a row. */
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_array(&w);
	pp_json_write_kv_uint_lit(&w, "a", 1);
	CHECK(pp_json_write_error(&w) == -EINVAL);
	pp_json_write_release(&w);
	pp_json_write_init_mem(&w, 0, 0);
	CHECK(pp_json_write_key_lit(&w, "a") == -EINVAL);
	pp_json_write_release(&w);
	pp_json_write_init_mem(&w, 0, 0);
	pp_json_write_begin_object(&w);
	CHECK(pp_json_write_key_lit(&w, "a") == 0);
	pp_json_write_kv_bool_lit(&w, "b", true);
	CHECK(pp_json_write_error(&w) == -EINVAL);
	pp_json_write_release(&w);
}

/* A reset memory writer starts a new document in the same buffer, its limit and indent kept
 * and its error cleared; room reserved ahead changes nothing but the allocations. */
static void test_writer_reset(void)
{
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 64, 0);
	pp_json_write_begin_array(&w);
	pp_json_write_string(&w, "a string longer than the sixty-four byte limit of this writer, by far");
	CHECK(pp_json_write_error(&w) == -ENOSPC);
	pp_json_write_reset(&w);
	CHECK(pp_json_write_error(&w) == 0);
	size_t len = 1;
	CHECK_STR(pp_json_write_mem(&w, &len), "");
	CHECK(len == 0);
	for (int round = 0; round < 3; round++) {
		pp_json_write_begin_object(&w);
		pp_json_write_kv_uint_lit(&w, "round", (uint64_t)round);
		pp_json_write_end_object(&w);
		CHECK(pp_json_write_finish(&w) == 0);
		char want[32];
		snprintf(want, sizeof(want), "{\"round\":%d}", round);
		CHECK_STR(pp_json_write_mem(&w, NULL), want);
		pp_json_write_reset(&w);
	}
	pp_json_write_string(&w, "a string longer than the sixty-four byte limit of this writer, by far");
	CHECK(pp_json_write_error(&w) == -ENOSPC);
	pp_json_write_release(&w);

	/* Reserving room changes nothing written, and the limit still holds. */
	for (size_t room = 0; room < 40; room += 13) {
		pp_json_write_init_mem(&w, 20, 0);
		pp_json_write_reserve(&w, room);
		CHECK_STR(pp_json_write_mem(&w, NULL), "");
		pp_json_write_begin_array(&w);
		pp_json_write_reserve(&w, room);
		pp_json_write_string(&w, "0123456789");
		pp_json_write_end_array(&w);
		CHECK(pp_json_write_finish(&w) == 0);
		CHECK_STR(pp_json_write_mem(&w, NULL), "[\"0123456789\"]");
		pp_json_write_begin_array(&w);
		CHECK(pp_json_write_error(&w) == -EINVAL);
		pp_json_write_reset(&w);
		pp_json_write_reserve(&w, room);
		pp_json_write_string(&w, "01234567890123456789");
		CHECK(pp_json_write_error(&w) == -ENOSPC);
		pp_json_write_release(&w);
	}
}

int main(void)
{
	test_writer_basic();
	test_writer_pretty();
	test_writer_escaping();
	test_writer_numbers();
	test_writer_numbers_match_printf();
	test_writer_escape_positions();
	test_writer_format_integers();
	test_writer_members_lit();
	test_writer_reset();
	test_writer_misuse();
	test_writer_file();
	test_reader_table();
	test_reader_values();
	test_reader_errors();
	test_round_trip();
	return check_finish();
}
