/* The outputs of a pass's generic GPU counter set: report.json's "gpu_counters" (and its
 * "pipeline_statistics" generated from the set), passes.csv's gpu_counters column, trace.json's
 * counter tracks and the summary. A frame built in code carries counters of four backends:
 * the timestamps, pipeline statistics, a bracketing one whose value came from an earlier frame
 * (VK_KHR_performance_query rotation) and a sampled one with an estimate and its bounds. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp_json.h"
#include "pp_model.h"
#include "pp_settings.h"
#include "pp_sink.h"
#include "pp_sink_replay.h"
#include "pp_check.h"

static char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap + 1);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *b = realloc(buf, 2 * cap + 1);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static struct pp_json_value *json_read(const char *path)
{
	size_t len;
	char *text = file_read(path, &len);
	struct pp_json_value *root = NULL;
	if (text)
		pp_json_read_parse(text, len, NULL, &root, NULL, 0);
	free(text);
	return root;
}

static const struct pp_gpu_counter_desc k_draws = { "VK_KHR_performance_query", "draws", "draws", "", 1, false, "" };
static const struct pp_gpu_counter_desc k_cycles = { "mali_kbase", "GPU_ACTIVE", "cycles", "job manager", 1, false,
						     "" };

static struct pp_frame_result *frame_build(uint64_t base)
{
	struct pp_frame_result *f = calloc(1, sizeof(*f));
	f->index = 4;
	f->delimiter = "present";
	f->cpu_begin_ns = base;
	f->cpu_end_ns = base + 1000000;
	f->nsubmissions = 1;
	f->submissions = calloc(1, sizeof(*f->submissions));
	f->npasses = 2;
	f->passes = calloc(2, sizeof(*f->passes));
	struct pp_submission_result *s = &f->submissions[0];
	s->seq = 1;
	s->api = "vkQueueSubmit";
	s->cpu_begin_ns = base;
	s->cpu_end_ns = base + 1000;
	s->gpu = (struct pp_gpu_interval){ base + 10000, base + 50000, true, NULL };
	s->npasses = 2;
	s->command_buffers = 1;
	for (int i = 0; i < 2; i++) {
		struct pp_pass_result *p = &f->passes[i];
		snprintf(p->name, sizeof(p->name), i ? "shadow" : "main");
		p->api = "vkCmdBeginRenderPass";
		p->gpu = (struct pp_gpu_interval){ base + 10000 + 20000 * (uint64_t)i, base + 30000 + 20000 * (uint64_t)i,
						   true, NULL };
		p->gpu_exclusive_ns = 20000;
		const struct pp_gpu_counter_desc *ts = &pp_gpu_counters_timestamp;
		struct pp_counter_value *t = pp_model_pass_counters_add(p, &ts, 1);
		t->v = (struct pp_gpu_counter_value){ .valid = true, .u = 20000 };
		uint64_t stats[PP_STAT_COUNT] = { 3, 1, 3, 1, 1, 100 + (uint64_t)i, 0 };
		pp_model_pass_statistics_set(p, stats, 0x3f, "compute statistics not counted in a render pass");
		const struct pp_gpu_counter_desc *mine[2] = { &k_draws, &k_cycles };
		struct pp_counter_value *c = pp_model_pass_counters_add(p, mine, 2);
		if (i == 0) {
			c[0].v = (struct pp_gpu_counter_value){ .valid = true, .u = 7 };
			c[0].other_frame = true;
			c[0].frame = 3;
			c[1].v = (struct pp_gpu_counter_value){ .valid = true, .is_float = true, .f = 150 };
			c[1].estimated = true;
			c[1].lower = 100;
			c[1].upper = 200;
			c[1].shared = true;
		} else {
			c[0].v = (struct pp_gpu_counter_value){ .valid = true, .u = 5 };
			c[1].unavailable_reason = "no counter sample covers the pass";
		}
	}
	return f;
}

int main(void)
{
	char dir[] = "/tmp/pp_sink_counters_XXXXXX";
	if (!mkdtemp(dir))
		return 77;
	struct pp_settings set;
	pp_settings_defaults(&set);
	snprintf(set.output_dir, sizeof(set.output_dir), "%s", dir);
	snprintf(set.gpu_counters, sizeof(set.gpu_counters), "default");
	set.log_level = PP_LOG_WARN;

	char path[600];
	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	fflush(stderr);
	int saved = dup(2);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);

	CHECK(pp_attr_sink_init(&set) == 0, "init");
	struct pp_device_info info = { .timestamp_period_ns = 1, .timestamp_valid_bits = 64, .pipeline_statistics = true,
				       .time_domain = "calibrated" };
	snprintf(info.name, sizeof(info.name), "counters test GPU");
	uint32_t dev = pp_attr_sink_device_register(&info);
	struct pp_frame_result *f = frame_build(1000000000ull);
	f->device_id = dev;
	pp_attr_sink_frame_submit(f);
	pp_attr_sink_shutdown();
	/* trace.json and passes.csv are made from the recording, as `passprobe report` does. */
	{
		char rec[700], err[700];
		snprintf(rec, sizeof(rec), "%s/recording.ppr", dir);
		struct pp_sink_replay_result res;
		CHECK(pp_attr_replay(rec, dir, &res, err, sizeof(err)) == 0, "outputs made from the recording");
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	/* report.json */
	snprintf(path, sizeof(path), "%s/report.json", dir);
	struct pp_json_value *root = json_read(path);
	CHECK(root != NULL, "report.json parses");
	const struct pp_json_value *frames = pp_json_read_object_get(root, "frames");
	const struct pp_json_value *p0 = pp_json_read_array_at(pp_json_read_object_get(pp_json_read_array_at(frames, 0), "passes"), 0);
	const struct pp_json_value *p1 = pp_json_read_array_at(pp_json_read_object_get(pp_json_read_array_at(frames, 0), "passes"), 1);
	uint64_t u = 0;
	const struct pp_json_value *ps = pp_json_read_object_get(p0, "pipeline_statistics");
	CHECK(pp_json_read_get_uint64(pp_json_read_object_get(ps, "fragment_shader_invocations"), &u) && u == 100,
	      "pipeline_statistics generated from the set (%llu)", (unsigned long long)u);
	CHECK(pp_json_read_is_null(pp_json_read_object_get(ps, "compute_shader_invocations")), "unmeasured statistic null");
	CHECK(!strcmp(pp_json_read_get_string(pp_json_read_object_get(p0, "pipeline_statistics_unavailable"), NULL) ?: "",
		      "compute statistics not counted in a render pass"),
	      "the set's reason");
	const struct pp_json_value *gc = pp_json_read_object_get(p0, "gpu_counters");
	CHECK(pp_json_read_array_size(gc) == 2, "the hardware counters listed; timestamps and statistics have members of "
					     "their own (%zu)",
	      pp_json_read_array_size(gc));
	int seen = 0;
	for (size_t i = 0; i < pp_json_read_array_size(gc); i++) {
		const struct pp_json_value *c = pp_json_read_array_at(gc, i);
		const char *src = pp_json_read_get_string(pp_json_read_object_get(c, "source"), NULL) ?: "";
		const char *unit = pp_json_read_get_string(pp_json_read_object_get(c, "unit"), NULL) ?: "";
		double d = 0;
		if (0) {
		} else if (!strcmp(src, "VK_KHR_performance_query")) {
			CHECK(!strcmp(unit, "draws") && pp_json_read_get_uint64(pp_json_read_object_get(c, "value"), &u) && u == 7 &&
				      pp_json_read_get_uint64(pp_json_read_object_get(c, "frame"), &u) && u == 3,
			      "a value from another frame says which");
			seen |= 4;
		} else if (!strcmp(src, "mali_kbase")) {
			bool b = false;
			CHECK(!strcmp(unit, "cycles") && pp_json_read_get_double(pp_json_read_object_get(c, "value"), &d) && d == 150 &&
				      pp_json_read_get_double(pp_json_read_object_get(c, "lower"), &d) && d == 100 &&
				      pp_json_read_get_double(pp_json_read_object_get(c, "upper"), &d) && d == 200 &&
				      pp_json_read_get_bool(pp_json_read_object_get(c, "shared"), &b) && b &&
				      !strcmp(pp_json_read_get_string(pp_json_read_object_get(c, "block"), NULL) ?: "", "job manager"),
			      "an estimate with its bounds, shared, block");
			seen |= 8;
		}
	}
	CHECK(seen == 12, "both hardware backends' counters seen (%d)", seen);
	CHECK(pp_json_read_get_uint64(pp_json_read_object_get(p0, "gpu_ns"), &u) && u == 20000, "gpu_ns");
	gc = pp_json_read_object_get(p1, "gpu_counters");
	const struct pp_json_value *last = pp_json_read_array_at(gc, pp_json_read_array_size(gc) - 1);
	CHECK(pp_json_read_is_null(pp_json_read_object_get(last, "value")) &&
		      !strcmp(pp_json_read_get_string(pp_json_read_object_get(last, "unavailable"), NULL) ?: "",
			      "no counter sample covers the pass"),
	      "an unavailable sampled counter says why");
	const struct pp_json_value *row = pp_json_read_array_at(pp_json_read_object_get(pp_json_read_object_get(root, "summary"), "passes"), 0);
	const struct pp_json_value *sc = pp_json_read_object_get(row, "gpu_counters");
	CHECK(pp_json_read_array_size(sc) == 2, "summary rows carry the hardware counters (%zu)", pp_json_read_array_size(sc));
	pp_json_read_free(root);

	/* passes.csv: the gpu_counters column */
	size_t len;
	snprintf(path, sizeof(path), "%s/passes.csv", dir);
	char *csv = file_read(path, &len);
	CHECK(csv && strstr(csv, ",gpu_counters,recorded_by\n"), "gpu_counters column last but recorded_by in the header");
	CHECK(csv && strstr(csv, "VK_KHR_performance_query/draws=7 draws (frame 3); mali_kbase/GPU_ACTIVE=150 cycles "
				 "[100..200] shared"),
	      "the counters of pass 0 with units, frame and bounds");
	CHECK(csv && strstr(csv, "VK_KHR_performance_query/draws=5 draws; mali_kbase/GPU_ACTIVE=n/a"), "pass 1's");
	free(csv);

	/* trace.json: counter tracks, named with their unit, the pass's value over its interval */
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	root = json_read(path);
	CHECK(root != NULL, "trace.json parses");
	int draws_events = 0, nonzero = 0;
	for (size_t i = 0; i < pp_json_read_array_size(root); i++) {
		const struct pp_json_value *e = pp_json_read_array_at(root, i);
		const char *ph = pp_json_read_get_string(pp_json_read_object_get(e, "ph"), NULL) ?: "";
		const char *name = pp_json_read_get_string(pp_json_read_object_get(e, "name"), NULL) ?: "";
		if (strcmp(ph, "C") || !strstr(name, "gpu VK_KHR_performance_query/draws (draws)"))
			continue;
		draws_events++;
		double v = -1;
		pp_json_read_get_double(pp_json_read_object_get(pp_json_read_object_get(e, "args"), "draws"), &v);
		nonzero += v == 7 || v == 5;
	}
	CHECK(draws_events == 4 && nonzero == 2, "a begin and an end event per pass (%d, %d)", draws_events, nonzero);
	pp_json_read_free(root);

	/* the summary on stderr */
	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	char *err = file_read(path, &len);
	CHECK(err && strstr(err, "GPU counters, mean per pass instance measured") &&
		      strstr(err, "main: VK_KHR_performance_query/draws n/a, mali_kbase/GPU_ACTIVE 150 cycles"),
	      "summary lines: %s", err ? err : "(none)");
	CHECK(err && strstr(err, "shadow: VK_KHR_performance_query/draws 5 draws, mali_kbase/GPU_ACTIVE n/a"),
	      "an unmeasured mean is n/a; a value merged from another frame is not counted again");
	free(err);

	return check_finish();
}
