/* The GPU counter interface's shared parts (counters/gpu/gpu_counters.c): the gpu_counters
 * setting's check and selection against a backend's enumeration, interning descriptions. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pp_gpu_counters.h"
#include "pp_check.h"

static const struct pp_gpu_counter_desc k_descs[] = {
	{ "test", "cycles", "cycles", "front-end", 1, false, "" },
	{ "test", "Draw calls (count)", "draws", "", 1, false, "" },
	{ "test", "fragments", "fragments", "shader core", 1, true, "" },
};

static uint32_t fake_count(void *ctx)
{
	(void)ctx;
	return 3;
}

static const struct pp_gpu_counter_desc *fake_desc(void *ctx, uint32_t i)
{
	(void)ctx;
	return i < 3 ? &k_descs[i] : NULL;
}

static bool not_per_instance(const struct pp_gpu_counter_desc *d)
{
	return !d->per_instance;
}

static void test_setting_check(void)
{
	char err[512];
	const char *good[] = { "none", "default", "cycles", "cycles,fragments", " cycles , test/fragments ",
			       "Draw calls (count)", "$MaliGPUActiveCycles", "SC[4],L2[63]" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(pp_gpu_counters_setting_check(good[i], err, sizeof(err)) == 0, "\"%s\" accepted: %s", good[i], err);
	struct {
		const char *text, *says;
	} bad[] = {
		{ "cycles,,fragments", "item 2" },
		{ "cycles,", "item 2" },
		{ "cyc\"les", "'\"'" },
		{ "none,cycles", "cannot be part of a list" },
		{ "cycles,default", "cannot be part of a list" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(pp_gpu_counters_setting_check(bad[i].text, err, sizeof(err)) == -EINVAL, "\"%s\" refused",
		      bad[i].text);
		CHECK(strstr(err, bad[i].says) && strstr(err, "allowed: none, default"),
		      "\"%s\": message names the problem and what is allowed: %s", bad[i].text, err);
	}
	CHECK(pp_gpu_counters_setting_choice("") == PP_GPU_COUNTERS_NONE, "empty is none");
	CHECK(pp_gpu_counters_setting_choice("default") == PP_GPU_COUNTERS_DEFAULT, "default");
	CHECK(pp_gpu_counters_setting_choice("x") == PP_GPU_COUNTERS_LIST, "list");
}

static void test_select(void)
{
	struct pp_gpu_counter_backend b = { .name = "test", .counter_count = fake_count, .counter_desc = fake_desc };
	uint32_t idx[8];
	char missing[128];
	CHECK(pp_gpu_counters_select(&b, "none", NULL, idx, 8, missing, sizeof(missing)) == 0, "none picks nothing");
	uint32_t n = pp_gpu_counters_select(&b, "default", not_per_instance, idx, 8, missing, sizeof(missing));
	CHECK(n == 2 && idx[0] == 0 && idx[1] == 1, "default: the backend's defaults (%u)", n);
	n = pp_gpu_counters_select(&b, "default", NULL, idx, 2, missing, sizeof(missing));
	CHECK(n == 2, "default bounded by max (%u)", n);
	n = pp_gpu_counters_select(&b, "test/fragments, Draw calls (count),bogus,cycles,fragments", NULL, idx, 8, missing,
				   sizeof(missing));
	CHECK(n == 3 && idx[0] == 2 && idx[1] == 1 && idx[2] == 0, "list in the setting's order, once each (%u)", n);
	CHECK(!strcmp(missing, "bogus"), "names not offered are reported: \"%s\"", missing);
	n = pp_gpu_counters_select(&b, "other/cycles", NULL, idx, 8, missing, sizeof(missing));
	CHECK(n == 0 && !strcmp(missing, "other/cycles"), "another source's name does not match");
}

static void test_intern(void)
{
	char name[32] = "made at run time";
	struct pp_gpu_counter_desc d = { "VK_KHR_performance_query", name, "ns", NULL, 1, false, NULL };
	const struct pp_gpu_counter_desc *a = pp_gpu_counters_intern(&d);
	strcpy(name, "changed");
	CHECK(a && !strcmp(a->name, "made at run time") && !strcmp(a->block, "") && !strcmp(a->unit, "ns"),
	      "an interned description owns its strings");
	strcpy(name, "made at run time");
	CHECK(pp_gpu_counters_intern(&d) == a, "same source and name: same description");
	d.source = "mali_kbase";
	CHECK(pp_gpu_counters_intern(&d) != a, "another source: another description");
}

static void test_fixed_backends(void)
{
	CHECK(PP_GPU_PIPELINE_STATISTICS_COUNT == 7, "seven statistics");
	for (int i = 0; i < PP_GPU_PIPELINE_STATISTICS_COUNT; i++)
		CHECK(!strcmp(pp_gpu_counters_pipeline_statistics[i].source, "pipeline_statistics") &&
			      pp_gpu_counters_pipeline_statistics[i].unit[0],
		      "statistic %d has its source and a unit", i);
	CHECK(!strcmp(pp_gpu_counters_timestamp.unit, "ns"), "GPU time in ns");
}

int main(void)
{
	test_setting_check();
	test_select();
	test_intern();
	test_fixed_backends();
	return check_finish();
}
