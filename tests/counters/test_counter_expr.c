/* The equation language and engine on their own: arithmetic and precedence, functions,
 * numbers, parse errors with their positions, unknown names, cycles among equations, SUM's
 * linearity rule, scaled counters and per-instance aggregation, on small databases built
 * here. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_check.h"
#include "pp_counter_db.h"
#include "pp_counter_eval.h"

#define HW(n, b, s) { .name = n, .title = n, .unit = "things", .ref = "test", .scale = s, \
		      .index = -1, .kind = PP_COUNTER_HARDWARE, .block = b }
#define DERIVED(n, eq) { .name = n, .title = n, .unit = "things", .ref = "test", .equation = eq, \
			 .scale = 1, .index = -1, .kind = PP_COUNTER_DERIVED }
#define CONSTANT(n, eq) { .name = n, .title = n, .unit = "things", .ref = "test", .equation = eq, \
			  .scale = 1, .index = -1, .kind = PP_COUNTER_CONSTANT }

static const struct pp_counter_gpu test_gpu[] = { { "Test-GPU", 0 } };

static struct pp_counter_db make_db(const struct pp_counter_desc *c, uint32_t n)
{
	struct pp_counter_db db = { .id = "test", .title = "test", .source = "test",
				    .gpus = test_gpu, .gpu_count = 1, .counters = c,
				    .counter_count = n };
	db.aggregate[PP_BLOCK_SHADER_CORE] = PP_AGGREGATE_MEAN;
	return db;
}

static const struct pp_counter_desc basic[] = {
	HW("A", PP_BLOCK_JOB_MANAGER, 1),
	HW("B", PP_BLOCK_L2, 1),
	HW("SC.X", PP_BLOCK_SHADER_CORE, 1),
	HW("$MaliScaled", PP_BLOCK_TILER, 4),
	DERIVED("D", "A / B"),
	DERIVED("E", "D * 100"),
	CONSTANT("K", NULL),
	CONSTANT("K2", "K * 2"),
};

/* Evaluates text on the basic database with A=6, B=3, SC.X=[2, 4] (mean 3), K=5. */
static struct pp_counter_value eval_text(const char *text, struct pp_expr_error *err, int *rc)
{
	static struct pp_counter_db db;
	static struct pp_counter_eval *ev;
	static struct pp_counter_value s[sizeof(basic) / sizeof(basic[0])];
	if (!ev) {
		db = make_db(basic, sizeof(basic) / sizeof(basic[0]));
		CHECK(pp_counter_eval_create(&db, &ev, NULL, NULL) == 0);
	}
	pp_counter_eval_sample_clear(ev, s);
	pp_counter_eval_sample_set_name(ev, s, "A", 6);
	pp_counter_eval_sample_set_name(ev, s, "B", 3);
	double x[2] = { 2, 4 };
	pp_counter_eval_sample_set_instances(ev, s, pp_counter_db_lookup(&db, "SC.X"), x, 2);
	pp_counter_eval_sample_set_name(ev, s, "K", 5);
	struct pp_expr *e = NULL;
	struct pp_expr_error local;
	*rc = pp_counter_eval_compile(ev, text, &e, err ? err : &local);
	if (*rc)
		return (struct pp_counter_value){ .status = 255 };
	struct pp_counter_value v = pp_counter_eval_expr(ev, s, e);
	pp_expr_free(e);
	return v;
}

static double num(const char *text)
{
	int rc;
	struct pp_expr_error err;
	struct pp_counter_value v = eval_text(text, &err, &rc);
	if (rc || v.status != PP_VALUE_OK)
		fprintf(stderr, "'%s': rc %d status %d %s\n", text, rc, v.status, rc ? err.message : "");
	CHECK(rc == 0 && v.status == PP_VALUE_OK);
	return v.value;
}

static void test_arithmetic(void)
{
	CHECK_NEAR(num("2 + 3 * 4"), 14);
	CHECK_NEAR(num("(2 + 3) * 4"), 20);
	CHECK_NEAR(num("10 - 3 - 2"), 5);
	CHECK_NEAR(num("8 / 4 / 2"), 1);
	CHECK_NEAR(num("-2 * 3"), -6);
	CHECK_NEAR(num("--3"), 3);
	CHECK_NEAR(num("+3 - -2"), 5);
	CHECK_NEAR(num("2 * -3"), -6);
	CHECK_NEAR(num("max(1, min(5, 3))"), 3);
	CHECK_NEAR(num("MAX(1, 2) + Min(7, 4)"), 6);
	CHECK_NEAR(num("max(min((A / B) * 100, 100), 0)"), 100);
	CHECK_NEAR(num("max(min((B / A) * 100, 100), 0)"), 50);
	CHECK_NEAR(num("max(min(-B, 100), 0)"), 0);
	CHECK_NEAR(num("SUM(A * 2 + B)"), 15);
	CHECK_NEAR(num("12.5e1"), 125);
	CHECK_NEAR(num(".5"), 0.5);
	CHECK_NEAR(num("1E-2"), 0.01);
	CHECK_NEAR(num("0.1 + 0.2"), 0.30000000000000004);
	CHECK_NEAR(num("1024"), 1024);
	CHECK_NEAR(num("\tA\n*\r2 "), 12);
	/* Names: hardware, derived of derived, constants, a defined constant, scaled, mean. */
	CHECK_NEAR(num("E"), 200);
	CHECK_NEAR(num("K2 + K"), 15);
	CHECK_NEAR(num("SC.X"), 3);
}

static void test_unavailable(void)
{
	int rc;
	struct pp_counter_value v = eval_text("A / (B - 3)", NULL, &rc);
	CHECK(rc == 0 && v.status == PP_VALUE_DIV_ZERO && v.subject == -1 && v.offset == 2);
	v = eval_text("max(min((A / 0) * 100, 100), 0)", NULL, &rc);
	CHECK(rc == 0 && v.status == PP_VALUE_DIV_ZERO && v.offset == 11);
	v = eval_text("0 / 0", NULL, &rc);
	CHECK(rc == 0 && v.status == PP_VALUE_DIV_ZERO);
	v = eval_text("$MaliScaled + 1", NULL, &rc);
	CHECK(rc == 0 && v.status == PP_VALUE_MISSING);
	v = eval_text("1e308 * 10", NULL, &rc);
	CHECK(rc == 0 && v.status == PP_VALUE_NOT_FINITE && v.offset == 6);
}

/* Parse error at text: the offset and a piece of the message. */
static void parse_error(const char *text, int32_t offset, const char *says)
{
	struct pp_expr *e = NULL;
	struct pp_expr_error err;
	int rc = pp_expr_parse(text, &e, &err);
	CHECK(rc == -EINVAL && e == NULL);
	if (err.offset != offset)
		fprintf(stderr, "'%s': offset %d, want %d (%s)\n", text, (int)err.offset, (int)offset,
			err.message);
	CHECK(err.offset == offset);
	CHECK_HAS(err.message, says);
}

static void test_parse_errors(void)
{
	parse_error("1 +", 3, "expected a number, a counter name, a function call or '(', found "
			      "the end of the equation");
	parse_error("(A + B", 6, "expected ')' to close the '(' at offset 0");
	parse_error("A + (B * 2))", 11, "expected an operator (+ - * /) or the end of the equation, "
					"found ')'");
	parse_error("A B", 2, "found the name 'B'");
	parse_error("max(A)", 0, "max takes 2 arguments, got 1");
	parse_error("min(A, B, 1)", 0, "min takes 2 arguments, got 3");
	parse_error("SUM(A, B)", 0, "SUM takes 1 argument, got 2");
	parse_error("max(A B)", 6, "expected ',' or ')' in the arguments of max( at offset 3");
	parse_error("foo(1)", 0, "unknown function 'foo'");
	parse_error("A + $", 4, "expected a counter name after '$'");
	parse_error("1 # 2", 2, "the character '#'");
	parse_error("A * 1e", 4, "malformed number");
	parse_error("2 + 3e313", 4, "number out of range");
	parse_error("", 0, "empty equation");
	parse_error("   ", 0, "empty equation");
	parse_error("A / * B", 4, "found '*'");
	parse_error("()", 1, "found ')'");
	parse_error("A + \x01", 4, "the byte 0x01");

	/* Nesting is bounded (evaluation recurses): parentheses, and long chains. */
	char deep[400];
	memset(deep, '(', 100);
	strcpy(deep + 100, "1");
	memset(deep + 101, ')', 100);
	deep[201] = '\0';
	parse_error(deep, PP_EXPR_MAX_DEPTH, "nested deeper than");
	char chain[2000];
	size_t n = 0;
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%s1", i ? "+" : "");
	struct pp_expr *e;
	struct pp_expr_error err;
	CHECK(pp_expr_parse(chain, &e, &err) == -EINVAL);
	CHECK_HAS(err.message, "equation too deep");
	chain[2 * 200 - 1] = '\0'; /* 200 terms: fine */
	CHECK(pp_expr_parse(chain, &e, &err) == 0);
	pp_expr_free(e);
	char *huge = malloc(PP_EXPR_MAX_LEN + 2);
	memset(huge, '1', PP_EXPR_MAX_LEN + 1);
	huge[PP_EXPR_MAX_LEN + 1] = '\0';
	CHECK(pp_expr_parse(huge, &e, &err) == -EINVAL);
	CHECK_HAS(err.message, "longer than");
	free(huge);

	/* Names as parsed. */
	CHECK(pp_expr_parse("L2.EXT_RRESP_0_127 - $MaliX * TI_INPUT", &e, &err) == 0);
	size_t len;
	int32_t off;
	CHECK(pp_expr_ref_count(e) == 3);
	const char *name = pp_expr_ref(e, 0, &len, &off);
	CHECK(len == 18 && off == 0 && strncmp(name, "L2.EXT_RRESP_0_127", len) == 0);
	name = pp_expr_ref(e, 1, &len, &off);
	CHECK(len == 6 && off == 21 && strncmp(name, "$MaliX", len) == 0);
	CHECK(pp_expr_ref_entry(e, 2) == -1); /* not resolved */
	pp_expr_free(e);

	/* Unknown names fail at resolution with their offset. */
	int rc;
	struct pp_expr_error rerr;
	eval_text("A + $MaliNope * 2", &rerr, &rc);
	CHECK(rc == -EINVAL && rerr.offset == 4);
	CHECK_HAS(rerr.message, "unknown counter '$MaliNope' in test");
}

static void test_cycles(void)
{
	static const struct pp_counter_desc cyc[] = {
		HW("A", PP_BLOCK_JOB_MANAGER, 1),
		DERIVED("X", "Y + 1"),
		DERIVED("Y", "A * Z"),
		DERIVED("Z", "max(A, X)"),
	};
	struct pp_counter_db db = make_db(cyc, 4);
	struct pp_counter_eval *ev = (void *)1;
	struct pp_expr_error err;
	int bad = -1;
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == -EINVAL);
	CHECK(ev == NULL);
	CHECK_HAS(err.message, "cycle among equations: X -> Y -> Z -> X");
	CHECK(bad == 3 && err.offset == 7); /* the X in Z's "max(A, X)" */

	static const struct pp_counter_desc self[] = {
		HW("A", PP_BLOCK_JOB_MANAGER, 1),
		DERIVED("S", "A + S"),
	};
	db = make_db(self, 2);
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == -EINVAL);
	CHECK_HAS(err.message, "cycle among equations: S -> S");
	CHECK(bad == 1 && err.offset == 4);

	static const struct pp_counter_desc cconst[] = {
		CONSTANT("K1", "K2 + 1"),
		CONSTANT("K2", "K1"),
	};
	db = make_db(cconst, 2);
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == -EINVAL);
	CHECK_HAS(err.message, "K1 -> K2 -> K1");

	/* A chain is not a cycle: shared sub-counters (diamond) are fine. */
	static const struct pp_counter_desc diamond[] = {
		HW("A", PP_BLOCK_JOB_MANAGER, 1),
		DERIVED("T", "L + R"),
		DERIVED("L", "B2 * 2"),
		DERIVED("R", "B2 * 3"),
		DERIVED("B2", "A + 1"),
	};
	db = make_db(diamond, 5);
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == 0);
	struct pp_counter_value s[5];
	pp_counter_eval_sample_clear(ev, s);
	CHECK(pp_counter_eval_sample_set(ev, s, 0, 1) == 0);
	struct pp_counter_value v = pp_counter_eval_counter(ev, s, 1);
	CHECK(v.status == PP_VALUE_OK);
	CHECK_NEAR(v.value, 10);
	pp_counter_eval_destroy(ev);

	/* A bad equation in a database: its entry and offset. */
	static const struct pp_counter_desc broken[] = {
		HW("A", PP_BLOCK_JOB_MANAGER, 1),
		DERIVED("G", "A * 2"),
		DERIVED("H", "A + (B"),
	};
	db = make_db(broken, 3);
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == -EINVAL);
	CHECK(bad == 2 && err.offset == 6);
	static const struct pp_counter_desc unknown[] = {
		HW("A", PP_BLOCK_JOB_MANAGER, 1),
		DERIVED("G", "A * Q"),
	};
	db = make_db(unknown, 2);
	CHECK(pp_counter_eval_create(&db, &ev, &err, &bad) == -EINVAL);
	CHECK(bad == 1 && err.offset == 4);
	CHECK_HAS(err.message, "unknown counter 'Q'");
}

static void test_sum_rule(void)
{
	int rc;
	struct pp_expr_error err;
	eval_text("SUM(A * B)", &err, &rc);
	CHECK(rc == -EINVAL && err.offset == 6);
	CHECK_HAS(err.message, "not linear in hardware counters");
	eval_text("SUM(A / B)", &err, &rc);
	CHECK(rc == -EINVAL);
	eval_text("SUM(max(A, 1))", &err, &rc);
	CHECK(rc == -EINVAL);
	eval_text("SUM(D)", &err, &rc);
	CHECK(rc == -EINVAL && err.offset == 4);
	CHECK_HAS(err.message, "SUM over the derived counter 'D'");
	CHECK_NEAR(num("SUM(A * K2 / 2 - B)"), 27);
	CHECK_NEAR(num("SUM(max(K, 2) * A)"), 30);
}

static void test_samples(void)
{
	struct pp_counter_db db = make_db(basic, sizeof(basic) / sizeof(basic[0]));
	struct pp_counter_eval *ev;
	CHECK(pp_counter_eval_create(&db, &ev, NULL, NULL) == 0);
	struct pp_counter_value s[sizeof(basic) / sizeof(basic[0])];
	pp_counter_eval_sample_clear(ev, s);
	int scaled = pp_counter_db_lookup(&db, "$MaliScaled");
	int sc = pp_counter_db_lookup(&db, "SC.X");
	int b = pp_counter_db_lookup(&db, "B");
	/* A scaled counter: raw counts times the scale (002 "Scaled hardware counters"). */
	CHECK(pp_counter_eval_sample_set(ev, s, scaled, 10) == 0);
	CHECK_NEAR(pp_counter_eval_counter(ev, s, scaled).value, 40);
	double inst[3] = { 1, 2, 6 };
	CHECK(pp_counter_eval_sample_set_instances(ev, s, scaled, inst, 3) == 0);
	CHECK_NEAR(pp_counter_eval_counter(ev, s, scaled).value, 36); /* (1+2+6) * 4: sum */
	CHECK(pp_counter_eval_sample_set_instances(ev, s, sc, inst, 3) == 0);
	CHECK_NEAR(pp_counter_eval_counter(ev, s, sc).value, 3); /* mean in this database */
	CHECK(pp_counter_eval_sample_set_instances(ev, s, b, inst, 3) == 0);
	CHECK_NEAR(pp_counter_eval_counter(ev, s, b).value, 9);
	/* What cannot be set. */
	CHECK(pp_counter_eval_sample_set_instances(ev, s, b, inst, 0) == -EINVAL);
	CHECK(pp_counter_eval_sample_set(ev, s, pp_counter_db_lookup(&db, "D"), 1) == -EINVAL);
	CHECK(pp_counter_eval_sample_set(ev, s, pp_counter_db_lookup(&db, "K2"), 1) == -EINVAL);
	CHECK(pp_counter_eval_sample_set(ev, s, 99, 1) == -EINVAL);
	CHECK(pp_counter_eval_sample_set(ev, s, -1, 1) == -EINVAL);
	CHECK(pp_counter_eval_sample_set_name(ev, s, "nope", 1) == -ENOENT);
	/* Memoized per sample, and forgotten when an input changes. */
	pp_counter_eval_sample_clear(ev, s);
	pp_counter_eval_sample_set_name(ev, s, "A", 6);
	pp_counter_eval_sample_set_name(ev, s, "B", 3);
	int e = pp_counter_db_lookup(&db, "E");
	CHECK_NEAR(pp_counter_eval_counter(ev, s, e).value, 200);
	CHECK(s[pp_counter_db_lookup(&db, "D")].status == PP_VALUE_OK);
	pp_counter_eval_sample_set_name(ev, s, "A", 12);
	CHECK_NEAR(pp_counter_eval_counter(ev, s, e).value, 400);
	pp_counter_eval_sample_set_name(ev, s, "A", 6);
	char buf[128];
	struct pp_counter_value v = pp_counter_eval_counter(ev, s, e);
	CHECK_HAS(pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)), "200");
	pp_counter_eval_sample_clear(ev, s);
	v = pp_counter_eval_counter(ev, s, e);
	CHECK(v.status == PP_VALUE_MISSING && v.subject == 0);
	CHECK_HAS(pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)), "unavailable: input A not given");
	v = pp_counter_eval_counter(ev, s, pp_counter_db_lookup(&db, "K2"));
	CHECK_HAS(pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)),
		  "unavailable: constant K not given");
	pp_counter_eval_sample_set_name(ev, s, "A", 1);
	pp_counter_eval_sample_set_name(ev, s, "B", 0);
	v = pp_counter_eval_counter(ev, s, e);
	CHECK(v.status == PP_VALUE_DIV_ZERO && v.subject == pp_counter_db_lookup(&db, "D") &&
	      v.offset == 2);
	CHECK_HAS(pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)),
		  "unavailable: division by zero in D at offset 2");
	pp_counter_eval_destroy(ev);
}

int main(void)
{
	test_arithmetic();
	test_unavailable();
	test_parse_errors();
	test_cycles();
	test_sum_rule();
	test_samples();
	return check_finish();
}
