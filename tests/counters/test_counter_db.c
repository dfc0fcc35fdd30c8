/* The built-in counter databases: every equation of every database parses and resolves, every
 * derived counter computes from a full set of inputs and is unavailable (with its reason)
 * from none, lookups by GPU name and product id, and the equations the issue names checked on
 * inputs whose results were worked out by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_check.h"
#include "pp_counter_db.h"
#include "pp_counter_eval.h"

struct fixture {
	const struct pp_counter_db *db;
	struct pp_counter_eval *ev;
	struct pp_counter_value *s;
};

static void fixture_open(struct fixture *f, const char *gpu)
{
	struct pp_expr_error err;
	int bad;
	f->db = pp_counter_db_list_find(gpu);
	f->ev = NULL;
	f->s = NULL;
	CHECK(f->db != NULL);
	if (!f->db)
		exit(1);
	CHECK(pp_counter_eval_create(f->db, &f->ev, &err, &bad) == 0);
	if (!f->ev)
		exit(1);
	f->s = calloc(f->db->counter_count, sizeof(*f->s));
	pp_counter_eval_sample_clear(f->ev, f->s);
}

static void fixture_close(struct fixture *f)
{
	free(f->s);
	pp_counter_eval_destroy(f->ev);
}

static int entry(struct fixture *f, const char *name)
{
	int i = pp_counter_db_lookup(f->db, name);
	if (i < 0)
		fprintf(stderr, "no entry %s in %s\n", name, f->db->id);
	CHECK(i >= 0);
	return i;
}

static void set(struct fixture *f, const char *name, double v)
{
	CHECK(pp_counter_eval_sample_set_name(f->ev, f->s, name, v) == 0);
}

static struct pp_counter_value get(struct fixture *f, const char *name)
{
	return pp_counter_eval_counter(f->ev, f->s, entry(f, name));
}

static double value(struct fixture *f, const char *name)
{
	struct pp_counter_value v = get(f, name);
	if (v.status != PP_VALUE_OK) {
		char buf[256];
		fprintf(stderr, "%s: %s\n", name, pp_counter_eval_value_describe(f->ev, &v, buf, sizeof(buf)));
	}
	CHECK(v.status == PP_VALUE_OK);
	return v.value;
}

/* ---- every database, every equation ------------------------------------------------------ */

static void test_walk(const struct pp_counter_db *db, uint32_t hardware, uint32_t derived,
		      uint32_t constants)
{
	struct pp_counter_eval *ev = NULL;
	struct pp_expr_error err;
	int bad = -2;
	int rc = pp_counter_eval_create(db, &ev, &err, &bad);
	if (rc)
		fprintf(stderr, "%s: entry %d: offset %d: %s\n", db->id, bad, (int)err.offset,
			err.message);
	CHECK(rc == 0);
	if (rc)
		return;

	/* The counts docs/counters.md gives, taken from the documents. */
	CHECK(pp_counter_db_count_kind(db, PP_COUNTER_HARDWARE) == hardware);
	CHECK(pp_counter_db_count_kind(db, PP_COUNTER_DERIVED) == derived);
	CHECK(pp_counter_db_count_kind(db, PP_COUNTER_CONSTANT) == constants);
	CHECK(db->gpu_count > 0);

	uint32_t equations = 0, refs = 0;
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		CHECK(d->name && d->name[0] && d->unit && d->unit[0] && d->ref && d->title);
		CHECK(pp_counter_db_lookup(db, d->name) == (int)i);
		if (d->kind == PP_COUNTER_HARDWARE) {
			CHECK(d->block != PP_BLOCK_NONE && d->block < PP_BLOCK_COUNT);
			CHECK(d->scale > 0);
			CHECK(d->equation == NULL);
			CHECK(pp_counter_eval_equation(ev, (int)i) == NULL);
			continue;
		}
		CHECK(d->block == PP_BLOCK_NONE);
		if (d->kind == PP_COUNTER_DERIVED)
			CHECK(d->equation != NULL);
		const struct pp_expr *e = pp_counter_eval_equation(ev, (int)i);
		CHECK((e != NULL) == (d->equation != NULL));
		if (!e)
			continue;
		equations++;
		CHECK(strcmp(pp_expr_text(e), d->equation) == 0);
		CHECK(d->kind != PP_COUNTER_DERIVED || pp_expr_ref_count(e) > 0);
		for (size_t r = 0; r < pp_expr_ref_count(e); r++) {
			size_t len;
			int32_t off;
			const char *name = pp_expr_ref(e, r, &len, &off);
			int to = pp_expr_ref_entry(e, r);
			CHECK(to >= 0 && (uint32_t)to < db->counter_count);
			CHECK(name == pp_expr_text(e) + off);
			CHECK(pp_counter_db_lookup_n(db, name, len) == to);
			refs++;
		}
	}
	CHECK(equations >= derived);
	printf("%s: %u hardware, %u derived, %u constants; %u equations with %u references "
	       "resolved\n",
	       db->id, hardware, derived, constants, equations, refs);
	for (uint32_t a = 0; a < db->alias_count; a++) {
		CHECK(pp_counter_db_lookup(db, db->aliases[a].name) ==
		      pp_counter_db_lookup(db, db->aliases[a].target));
		CHECK(pp_counter_db_lookup(db, db->aliases[a].target) >= 0);
		CHECK(pp_counter_db_alias(db, db->aliases[a].name) == &db->aliases[a]);
	}

	/* From every input given (distinct, positive) every derived counter is a number. */
	struct pp_counter_value *s = calloc(db->counter_count, sizeof(*s));
	pp_counter_eval_sample_clear(ev, s);
	for (uint32_t i = 0; i < db->counter_count; i++)
		if (pp_counter_eval_sample_set(ev, s, (int)i, 1000.0 + 37.0 * i) != 0)
			CHECK(db->counters[i].equation != NULL || db->counters[i].kind == PP_COUNTER_DERIVED);
	uint32_t ok = 0;
	for (uint32_t i = 0; i < db->counter_count; i++) {
		struct pp_counter_value v = pp_counter_eval_counter(ev, s, (int)i);
		if (v.status != PP_VALUE_OK) {
			char buf[256];
			fprintf(stderr, "%s %s: %s\n", db->id, db->counters[i].name,
				pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)));
		}
		CHECK(v.status == PP_VALUE_OK && isfinite(v.value));
		ok += v.status == PP_VALUE_OK;
	}
	CHECK(ok == db->counter_count);

	/* From no input, every derived counter is unavailable, naming a missing input. */
	pp_counter_eval_sample_clear(ev, s);
	for (uint32_t i = 0; i < db->counter_count; i++) {
		if (db->counters[i].kind != PP_COUNTER_DERIVED)
			continue;
		struct pp_counter_value v = pp_counter_eval_counter(ev, s, (int)i);
		CHECK(v.status == PP_VALUE_MISSING);
		CHECK(v.subject >= 0 && (uint32_t)v.subject < db->counter_count &&
		      pp_counter_eval_equation(ev, v.subject) == NULL);
		char buf[256];
		CHECK_HAS(pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)), "unavailable: ");
		CHECK(isnan(v.value));
	}
	free(s);
	pp_counter_eval_destroy(ev);
}

static void test_lookup(void)
{
	const struct pp_counter_db *g78 = pp_counter_db_list_find("Mali-G78");
	const struct pp_counter_db *bifrost = pp_counter_db_list_find("mali-bifrost");
	CHECK(g78 && strcmp(g78->id, "mali-g78") == 0);
	CHECK(bifrost && strcmp(bifrost->id, "mali-bifrost") == 0);
	CHECK(pp_counter_db_list_find("g78") == g78);
	CHECK(pp_counter_db_list_find("MALI-G78") == g78);
	CHECK(pp_counter_db_list_find("mali-g78") == g78);
	CHECK(pp_counter_db_list_find("Mali-G52") == bifrost);
	CHECK(pp_counter_db_list_find("G71") == bifrost);
	CHECK(pp_counter_db_list_find("Mali-G99") == NULL);
	CHECK(pp_counter_db_list_find("") == NULL);
	CHECK(pp_counter_db_list_find(NULL) == NULL);
	CHECK(pp_counter_db_list_find_product(0x9002) == g78);
	/* The upper 16 bits of a GPU_ID also carry minor numbers the mask leaves out:
	 * 0x7212 is a Mali-G52 (the default of Mesa's panfrost drm-shim). */
	CHECK(pp_counter_db_list_find_product(0x7212) == bifrost);
	CHECK(strcmp(pp_counter_db_gpu_of_product(bifrost, 0x7212)->name, "Mali-G52") == 0);
	CHECK(pp_counter_db_list_find_product(0x6000) == bifrost);
	CHECK(pp_counter_db_list_find_product(0x1234) == NULL);
	CHECK(pp_counter_db_list_find_product(0) == NULL);
	CHECK(pp_counter_db_list_count() == 2);
	CHECK(pp_counter_db_list_at(2) == NULL);
	CHECK(pp_counter_db_lookup(g78, "$MaliNoSuchCounter") == -1);
	/* Bifrost's aliases: the document's misspellings find the counter meant. */
	CHECK(pp_counter_db_lookup(bifrost, "SC.FRAG_QUADS_EZS_KILL") ==
	      pp_counter_db_lookup(bifrost, "SC.FRAG_QUADS_EZS_KILLED"));
	CHECK(pp_counter_db_lookup(bifrost, "TL.CULLED_FACING") ==
	      pp_counter_db_lookup(bifrost, "TI.CULLED_FACING"));
	CHECK(pp_counter_db_alias(bifrost, "TI.CULLED_FACING") == NULL);
	/* The symbolic constants of 002 are in every database. */
	for (size_t i = 0; i < pp_counter_db_list_count(); i++) {
		const struct pp_counter_db *db = pp_counter_db_list_at(i);
		const char *names[] = { PP_CONST_SHADER_CORE_COUNT, PP_CONST_L2_CACHE_COUNT,
					PP_CONST_EXT_BUS_BYTE_SIZE, PP_CONST_TIME_SPAN };
		for (size_t n = 0; n < 4; n++) {
			int e = pp_counter_db_lookup(db, names[n]);
			CHECK(e >= 0 && db->counters[e].kind == PP_COUNTER_CONSTANT &&
			      db->counters[e].equation == NULL);
		}
	}
}

/* ---- seed equations, Mali-G78 ------------------------------------------------------------ */

static void test_g78(void)
{
	struct fixture f;
	fixture_open(&f, "Mali-G78");

	/* Fragment queue utilization: 750 of 1000 active cycles. */
	set(&f, "$MaliGPUCyclesGPUActive", 1000);
	set(&f, "$MaliGPUCyclesFragmentQueueActive", 750);
	CHECK_NEAR(value(&f, "$MaliFragmentQueueUtilization"), 75.0);
	/* Clamped by max(min(..., 100), 0) on both sides. */
	set(&f, "$MaliGPUCyclesNonFragmentQueueActive", 1500);
	CHECK_NEAR(value(&f, "$MaliNonFragmentQueueUtilization"), 100.0);
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliGPUCyclesGPUActive", 1000);
	set(&f, "$MaliGPUCyclesNonFragmentQueueActive", -20); /* a wrapped delta */
	CHECK_NEAR(value(&f, "$MaliNonFragmentQueueUtilization"), 0.0);
	set(&f, "$MaliGPUCyclesTilerActive", 123);
	CHECK_NEAR(value(&f, "$MaliTilerUtilization"), 12.3);

	/* Division by zero: unavailable, naming the counter and the '/' of its equation. */
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliGPUCyclesGPUActive", 0);
	set(&f, "$MaliGPUCyclesFragmentQueueActive", 0);
	struct pp_counter_value v = get(&f, "$MaliFragmentQueueUtilization");
	int fq = entry(&f, "$MaliFragmentQueueUtilization");
	const char *eq = f.db->counters[fq].equation;
	CHECK(v.status == PP_VALUE_DIV_ZERO);
	CHECK(v.subject == fq);
	CHECK(v.offset == (int32_t)(strchr(eq, '/') - eq));
	CHECK(isnan(v.value));
	char buf[256];
	CHECK_HAS(pp_counter_eval_value_describe(f.ev, &v, buf, sizeof(buf)),
		  "unavailable: division by zero in $MaliFragmentQueueUtilization at offset");
	/* With an input missing, a counter is missing that input, not 0. */
	v = get(&f, "$MaliAverageCyclesPerPixel");
	CHECK(v.status == PP_VALUE_MISSING && v.subject == entry(&f, "$MaliGPUTasksFragmentTasks"));

	/* Output external read bytes with a 16-byte bus: beats * (bits / 8). */
	pp_counter_eval_sample_clear(f.ev, f.s);
	double slices[2] = { 400, 600 };
	CHECK(pp_counter_eval_sample_set_instances(f.ev, f.s, entry(&f, "$MaliExternalBusBeatsReadBeats"),
					      slices, 2) == 0);
	v = get(&f, "$MaliOutputExternalReadBytes");
	CHECK(v.status == PP_VALUE_MISSING && v.subject == entry(&f, PP_CONST_EXT_BUS_BYTE_SIZE));
	CHECK_HAS(pp_counter_eval_value_describe(f.ev, &v, buf, sizeof(buf)),
		  "constant MALI_CONFIG_EXT_BUS_BYTE_SIZE not given");
	pp_counter_eval_sample_clear(f.ev, f.s);
	CHECK(pp_counter_eval_sample_set_instances(f.ev, f.s, entry(&f, "$MaliExternalBusBeatsReadBeats"),
					      slices, 2) == 0);
	set(&f, PP_CONST_EXT_BUS_BYTE_SIZE, 16);
	CHECK_NEAR(value(&f, "$MaliConstantsBusWidthBits"), 128.0);
	CHECK_NEAR(value(&f, "$MaliOutputExternalReadBytes"), 16000.0);
	CHECK_NEAR(value(&f, "$MaliExternalBusBeatSize"), 16.0);
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliExternalBusBeatsWriteBeats", 250);
	set(&f, PP_CONST_EXT_BUS_BYTE_SIZE, 8);
	CHECK_NEAR(value(&f, "$MaliOutputExternalWriteBytes"), 2000.0);

	/* Culling rates: 500 facing/XY, 100 Z, 50 sample culled, 350 visible of 1000. Each rate
	 * is of the primitives entering its stage: Z 100 / 500, sample 50 / 400. */
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliPrimitiveCullingFacingOrXYPlaneTestCulledPrimitives", 500);
	set(&f, "$MaliPrimitiveCullingZPlaneTestCulledPrimitives", 100);
	set(&f, "$MaliPrimitiveCullingSampleTestCulledPrimitives", 50);
	set(&f, "$MaliPrimitiveCullingVisiblePrimitives", 350);
	CHECK_NEAR(value(&f, "$MaliTotalInputPrimitives"), 1000.0);
	CHECK_NEAR(value(&f, "$MaliCulledPrimitives"), 650.0);
	CHECK_NEAR(value(&f, "$MaliVisiblePrimitivePercentage"), 35.0);
	CHECK_NEAR(value(&f, "$MaliFacingOrXYPlaneTestCullPercentage"), 50.0);
	CHECK_NEAR(value(&f, "$MaliZPlaneTestCullPercentage"), 20.0);
	CHECK_NEAR(value(&f, "$MaliSampleTestCullPercentage"), 12.5);
	set(&f, "$MaliTilerShadingRequestsPositionShadingRequests", 300);
	CHECK_NEAR(value(&f, "$MaliPositionThreadsPerInputPrimitive"), 1.2);

	/* Block cardinality (000 1.1, 002): shader core counters summed over 4 cores, so the
	 * usage divides by the core count: 3200 / 4 / 1000. */
	pp_counter_eval_sample_clear(f.ev, f.s);
	double cores[4] = { 700, 800, 900, 800 };
	CHECK(pp_counter_eval_sample_set_instances(f.ev, f.s,
					      entry(&f, "$MaliShaderCoreCyclesAnyWorkloadActive"),
					      cores, 4) == 0);
	set(&f, "$MaliGPUCyclesGPUActive", 1000);
	set(&f, PP_CONST_SHADER_CORE_COUNT, 4);
	CHECK_NEAR(value(&f, "$MaliShaderCoreUsage"), 80.0);

	/* FPK: (1000 - 200 - (600 * 16) / 4) / 1000 quads is negative: clamped to 0; with fewer
	 * warps: (1000 - 200 - (100 * 16) / 4) / 1000 = 40%. */
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliFragmentQuadsRasterizedFineQuads", 1000);
	set(&f, "$MaliFragmentZSQuadsEarlyZSKilledQuads", 200);
	set(&f, "$MaliShaderWarpsFragmentWarps", 100);
	CHECK_NEAR(value(&f, "$MaliFPKKilledQuadPercentage"), 40.0);

	/* An input that is not a number is refused as such, not turned into one. */
	pp_counter_eval_sample_clear(f.ev, f.s);
	set(&f, "$MaliGPUCyclesGPUActive", NAN);
	set(&f, "$MaliGPUCyclesTilerActive", 5);
	v = get(&f, "$MaliTilerUtilization");
	CHECK(v.status == PP_VALUE_NOT_FINITE && v.subject == entry(&f, "$MaliGPUCyclesGPUActive"));
	fixture_close(&f);
}

/* ---- seed equations, Bifrost ------------------------------------------------------------ */

static void test_bifrost(void)
{
	struct fixture f;
	fixture_open(&f, "Mali-G52");

	/* JS0 utilization, a ratio in this document. */
	set(&f, "JM.GPU_ACTIVE", 1000);
	set(&f, "JM.JS0_ACTIVE", 750);
	CHECK_NEAR(value(&f, "JM.JS0_UTILIZATION"), 0.75);

	/* L2 read miss rate, as the document prints it: requests / external requests. */
	set(&f, "L2.READ_REQUEST", 400);
	set(&f, "L2.EXTERNAL_READ_REQUEST", 100);
	CHECK_NEAR(value(&f, "L2.READ_MISS_RATE"), 4.0);
	int miss = entry(&f, "L2.READ_MISS_RATE");
	CHECK(f.db->counters[miss].note && strstr(f.db->counters[miss].note, "inverse"));

	/* External read bytes with a 16-byte bus: SUM over two L2 slices of beats * width. */
	double slices[2] = { 400, 600 };
	CHECK(pp_counter_eval_sample_set_instances(f.ev, f.s, entry(&f, "L2.EXTERNAL_READ_BEATS"),
					      slices, 2) == 0);
	set(&f, PP_CONST_EXT_BUS_BYTE_SIZE, 16);
	CHECK_NEAR(value(&f, "L2.AXI_WIDTH_BYTES"), 16.0);
	CHECK_NEAR(value(&f, "L2.EXTERNAL_READ_BYTES"), 16000.0);
	CHECK_NEAR(value(&f, "L2.EXTERNAL_READ_UTILIZATION"), 1.0); /* via alias SC.GPU_ACTIVE */

	/* Culling: 1000 triangles, 500 culled by facing, 100 by frustum. */
	set(&f, "TI.PRIMITIVE_POINTS", 0);
	set(&f, "TI.PRIMITIVE_LINES", 0);
	set(&f, "TI.PRIMITIVE_TRIANGLES", 1000);
	set(&f, "TI.CULLED_FACING", 500);
	set(&f, "TI.CULLED_FRUSTUM", 100);
	CHECK_NEAR(value(&f, "TI.INPUT_PRIMITIVES"), 1000.0);
	CHECK_NEAR(value(&f, "TI.CULLED_FACING_PERCENT"), 0.5);
	CHECK_NEAR(value(&f, "TI.CULLED_FRUSTUM_PERCENT"), 0.2);
	/* As printed, the numerator is TI.CULLED_FRUSTUM: 100 / (1000 - 500 - 100). */
	CHECK_NEAR(value(&f, "TI.CULLED_COVERAGE_PERCENT"), 0.25);

	/* Shader core counters are the mean over cores here (001 section 3). */
	double cores[2] = { 300, 500 };
	CHECK(pp_counter_eval_sample_set_instances(f.ev, f.s, entry(&f, "SC.EXEC_CORE_ACTIVE"), cores,
					      2) == 0);
	CHECK_NEAR(value(&f, "SC.EXEC_CORE_ACTIVE"), 400.0);
	CHECK_NEAR(value(&f, "SC.EXEC_CORE_UTILIZATION"), 0.4);
	/* A derived counter of a derived counter (SC.LSC_UTILIZATION of SC.LSC_ISSUES). */
	set(&f, "SC.LSC_READS_FULL", 10);
	set(&f, "SC.LSC_READS_SHORT", 20);
	set(&f, "SC.LSC_WRITES_FULL", 30);
	set(&f, "SC.LSC_WRITES_SHORT", 40);
	set(&f, "SC.LSC_ATOMICS", 0);
	CHECK_NEAR(value(&f, "SC.LSC_UTILIZATION"), 0.25);
	CHECK(f.s[entry(&f, "SC.LSC_ISSUES")].status == PP_VALUE_OK); /* memoized on the way */
	CHECK_NEAR(f.s[entry(&f, "SC.LSC_ISSUES")].value, 100.0);
	set(&f, "SC.LSC_READ_BEATS", 50);
	CHECK_NEAR(value(&f, "SC.LSC_L2_BYTES_PER_ISSUE"), 8.0);
	/* The misspelled SC.FRAG_QUADS_EZS_KILL reads SC.FRAG_QUADS_EZS_KILLED. */
	set(&f, "SC.FRAG_QUADS_RAST", 1000);
	set(&f, "SC.FRAG_QUADS_EZS_KILLED", 200);
	set(&f, "SC.FRAG_QUADS", 700);
	CHECK_NEAR(value(&f, "SC.FRAG_QUADS_KILLED_BY_OVERDRAW"), 100.0);
	/* The synthesized sixth histogram level. */
	set(&f, "L2.EXT_RRESP_0_127", 500);
	set(&f, "L2.EXT_RRESP_128_191", 200);
	set(&f, "L2.EXT_RRESP_192_255", 100);
	set(&f, "L2.EXT_RRESP_256_319", 50);
	set(&f, "L2.EXT_RRESP_320_383", 25);
	CHECK_NEAR(value(&f, "L2.EXT_RRESP_384_PLUS"), 125.0);
	/* GPU_MHZ is an input constant of this database. */
	CHECK(get(&f, "JM.GPU_UTILIZATION").status == PP_VALUE_MISSING);
	set(&f, "GPU_MHZ", 500);
	CHECK_NEAR(value(&f, "JM.GPU_UTILIZATION"), 2.0);
	/* Division by zero in a derived counter. */
	set(&f, "SC.COMPUTE_ACTIVE", 10);
	set(&f, "SC.COMPUTE_QUADS", 0);
	CHECK(get(&f, "SC.COMPUTE_QUAD_CYCLES").status == PP_VALUE_DIV_ZERO);
	fixture_close(&f);
}

int main(void)
{
	test_walk(pp_counter_db_list_find("mali-g78"), 66, 65, 7);
	test_walk(pp_counter_db_list_find("mali-bifrost"), 75, 34, 6);
	test_lookup();
	test_g78();
	test_bifrost();
	return check_finish();
}
