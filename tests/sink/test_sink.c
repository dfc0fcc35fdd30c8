/* Tests for the sinks (attribution/sinks/attr_sink.c and friends): report.json, trace.json,
 * passes.csv, the summary statistics, failure handling and bounded memory.
 *
 * The sinks keep one set of outputs per process, so each scenario runs in its own process:
 * `test_sink <scenario>` (CTest runs one test per scenario). Frames are built in code; no
 * Vulkan is needed. The last line is "N passed, N failed"; the exit status is non-zero on
 * failure, 77 when a scenario cannot run here (CTest shows it as skipped). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pp_json.h"
#include "attr_sink_internal.h"
#include "attr_stats.h"
#include "pp_summary.h"
#include "pp_log.h"
#include "pp_settings.h"
#include "pp_sink.h"
#include "pp_sink_replay.h"
#include "rec_format.h"
#include "rec_read.h"
#include "pp_check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

/* ---- log capture ---------------------------------------------------------------------- */

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_log[64][1024];
static int g_nlog;

static void log_capture(enum pp_log_level level, const char *line)
{
	pthread_mutex_lock(&g_log_lock);
	if (g_nlog < 64)
		snprintf(g_log[g_nlog++], sizeof(g_log[0]), "%s", line);
	pthread_mutex_unlock(&g_log_lock);
	fprintf(stderr, "[log] %s\n", line);
}

static int log_count(const char *needle)
{
	int n = 0;
	pthread_mutex_lock(&g_log_lock);
	for (int i = 0; i < g_nlog; i++)
		n += strstr(g_log[i], needle) != NULL;
	pthread_mutex_unlock(&g_log_lock);
	return n;
}

static int log_total(void)
{
	pthread_mutex_lock(&g_log_lock);
	int n = g_nlog;
	pthread_mutex_unlock(&g_log_lock);
	return n;
}

/* ---- helpers -------------------------------------------------------------------------- */

static char g_tmp[256];

static void tmp_make(void)
{
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/pp-sink-XXXXXX");
	if (!mkdtemp(g_tmp)) {
		perror("mkdtemp");
		exit(1);
	}
}

static void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[1024];
			snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
			rm_rf(p);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static struct pp_json_value *json_load(const char *path)
{
	size_t len;
	char *text = file_read(path, &len);
	if (!text)
		return NULL;
	struct pp_json_value *root = NULL;
	char err[256];
	struct pp_json_limits lim = { .max_len = 512u << 20, .max_memory = 0 };
	if (pp_json_read_parse(text, len, &lim, &root, err, sizeof(err)) != 0)
		fprintf(stdout, "parse %s: %s\n", path, err);
	free(text);
	return root;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void settings_make(struct pp_settings *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->output_dir, sizeof(s->output_dir), "%s", dir);
	s->log_level = PP_LOG_WARN;
	s->report_frames = 300;
	s->flush_interval_ms = 100;
	s->trace = true;
	s->csv = true;
	s->summary = true;
	s->timestamps = true;
	s->pipeline_statistics = true;
}

/* Waits until the writer has fewer than n frames queued (so nothing is dropped). */
static void queue_wait_below(uint64_t n)
{
	struct attr_sink_counters c;
	for (;;) {
		pp_attr_sink_counters_get(&c);
		if (c.queued < n)
			return;
		usleep(200);
	}
}

static void processed_wait(uint64_t n)
{
	struct attr_sink_counters c;
	for (int i = 0; i < 200000; i++) {
		pp_attr_sink_counters_get(&c);
		if (c.frames_processed >= n)
			return;
		usleep(100);
	}
}

struct pass_spec {
	const char *name;
	enum pp_pass_kind kind;
	uint32_t submission;
	int64_t begin, end;     /* offsets from the frame base; begin < 0: invalid */
	uint64_t exclusive;
	bool overlapped;
	uint32_t stats_valid;
	uint64_t draws;
	uint32_t ndraw_timings;
};

struct sub_spec {
	uint64_t seq;
	uint32_t first_pass, npasses;
	bool gpu_invalid;
};

static const char *const k_reason_pass = "query result not available (device lost)";
static const char *const k_reason_sub = "timestamps unsupported on this queue family";
static const char *const k_reason_stats = "pipeline statistics not supported";

/* A frame of submissions and passes at base_ns (host time line). The submission's GPU span
 * covers its passes unless gpu_invalid. */
static struct pp_frame_result *frame_make(uint64_t index, uint32_t device, uint64_t base_ns,
					  const struct sub_spec *subs, size_t nsubs,
					  const struct pass_spec *passes, size_t npasses)
{
	struct pp_frame_result *f = calloc(1, sizeof(*f));
	f->index = index;
	f->device_id = device;
	f->delimiter = "present";
	f->cpu_begin_ns = base_ns;
	f->cpu_end_ns = base_ns + 5000000;
	f->nsubmissions = nsubs;
	f->submissions = calloc(nsubs ? nsubs : 1, sizeof(*f->submissions));
	f->npasses = npasses;
	f->passes = calloc(npasses ? npasses : 1, sizeof(*f->passes));
	for (size_t i = 0; i < npasses; i++) {
		const struct pass_spec *ps = &passes[i];
		struct pp_pass_result *p = &f->passes[i];
		snprintf(p->name, sizeof(p->name), "%s", ps->name);
		p->name_source = i % 2 ? PP_NAME_GENERATED : PP_NAME_LABEL;
		p->kind = ps->kind;
		p->api = ps->kind == PP_PASS_RENDER ? "vkCmdBeginRenderPass" : "outside-render-pass";
		p->submission = ps->submission;
		p->command_buffer = 0;
		p->command_buffer_handle = 0xabc000 + i;
		p->subpasses = 1;
		p->work.draws = ps->draws;
		p->work.draws_indexed = 2;
		p->work.instances = ps->draws + 2;
		p->work.vertices = 3 * ps->draws;
		p->work.barriers = 1;
		p->nattachments = ps->kind == PP_PASS_RENDER ? 2 : 0;
		p->attachments[0] = (struct pp_attachment){ "R8G8B8A8_UNORM", "CLEAR", "STORE", 1920,
							    1080, 1, 1, false, false, 0 };
		p->attachments[1] = (struct pp_attachment){ "D32_SFLOAT", "CLEAR", "DONT_CARE", 1920,
							    1080, 1, 1, true, false, 0 };
		if (ps->begin >= 0) {
			p->gpu.valid = true;
			p->gpu.begin_ns = base_ns + (uint64_t)ps->begin;
			p->gpu.end_ns = base_ns + (uint64_t)ps->end;
			p->gpu_exclusive_ns = ps->exclusive ? ps->exclusive
							    : (uint64_t)(ps->end - ps->begin);
		} else {
			p->gpu.unavailable_reason = k_reason_pass;
		}
		p->overlapped = ps->overlapped;
		uint64_t stats[PP_STAT_COUNT];
		for (unsigned s = 0; s < PP_STAT_COUNT; s++)
			stats[s] = 1000 * (s + 1) + i;
		pp_model_pass_statistics_set(p, stats, ps->stats_valid, ps->stats_valid == 0x7f ? NULL : k_reason_stats);
		if (ps->ndraw_timings) {
			p->ndraw_timings = ps->ndraw_timings;
			p->draw_timings = calloc(ps->ndraw_timings, sizeof(*p->draw_timings));
			for (uint32_t d = 0; d < ps->ndraw_timings; d++) {
				p->draw_timings[d].index = d;
				p->draw_timings[d].gpu.valid = d != 1;
				p->draw_timings[d].gpu.begin_ns = p->gpu.begin_ns + d * 10;
				p->draw_timings[d].gpu.end_ns = p->gpu.begin_ns + d * 10 + 5;
				if (d == 1)
					p->draw_timings[d].gpu.unavailable_reason = "draw timing lost";
			}
		}
	}
	for (size_t i = 0; i < nsubs; i++) {
		struct pp_submission_result *s = &f->submissions[i];
		s->seq = subs[i].seq;
		s->api = "vkQueueSubmit2";
		s->queue_handle = 0x5000 + (i % 2);
		s->queue_family = 0;
		s->queue_index = (uint32_t)(i % 2);
		s->tid = (uint32_t)gettid();
		s->cpu_begin_ns = base_ns - 200000 + i * 10000;
		s->cpu_end_ns = s->cpu_begin_ns + 5000;
		s->first_pass = subs[i].first_pass;
		s->npasses = subs[i].npasses;
		s->command_buffers = 1;
		if (subs[i].gpu_invalid) {
			s->gpu.unavailable_reason = k_reason_sub;
			continue;
		}
		bool any = false;
		for (uint32_t k = 0; k < s->npasses; k++) {
			const struct pp_pass_result *p = &f->passes[s->first_pass + k];
			if (!p->gpu.valid)
				continue;
			if (!any || p->gpu.begin_ns < s->gpu.begin_ns)
				s->gpu.begin_ns = p->gpu.begin_ns;
			if (!any || p->gpu.end_ns > s->gpu.end_ns)
				s->gpu.end_ns = p->gpu.end_ns;
			any = true;
		}
		s->gpu.valid = any;
		if (!any)
			s->gpu.unavailable_reason = k_reason_sub;
	}
	return f;
}

/* The standard test frame: two submissions on two queues; submission 0 has a shadow pass,
 * a main pass that overlaps a compute pass, and a pass without GPU time; submission 1 has
 * a transfer pass; the name of pass 1 needs CSV quoting. */
static const struct pass_spec k_passes[] = {
	{ "shadow", PP_PASS_RENDER, 0, 0, 100000, 0, false, 0x7f, 10, 3 },
	{ "main, \"lit\"", PP_PASS_RENDER, 0, 100000, 400000, 250000, true, 0x3f, 20, 0 },
	{ "cull", PP_PASS_COMPUTE, 0, 300000, 450000, 100000, true, 0, 0, 0 },
	{ "lost", PP_PASS_RENDER, 0, -1, -1, 0, false, 0, 5, 0 },
	{ "upload", PP_PASS_TRANSFER, 1, 500000, 520000, 0, false, 0, 0, 0 },
};
static const struct sub_spec k_subs[] = {
	{ 0, 0, 4, false },
	{ 0, 4, 1, false },
};

static struct pp_frame_result *frame_standard(uint64_t index, uint64_t base_ns)
{
	struct sub_spec subs[2];
	memcpy(subs, k_subs, sizeof(subs));
	subs[0].seq = 2 * index + 1;
	subs[1].seq = 2 * index + 2;
	return frame_make(index, 0, base_ns, subs, 2, k_passes, 5);
}

static uint32_t device_register_test(void)
{
	struct pp_device_info info = { 0 };
	snprintf(info.name, sizeof(info.name), "Test GPU \"X\"");
	snprintf(info.driver, sizeof(info.driver), "testdriver 1.0");
	info.vendor_id = 0x10005;
	info.device_id = 42;
	info.timestamp_period_ns = 1.0;
	info.timestamp_valid_bits = 64;
	info.time_domain = "calibrated (VK_EXT_calibrated_timestamps, CLOCK_MONOTONIC)";
	info.pipeline_statistics = true;
	info.notes = NULL;
	return pp_attr_sink_device_register(&info);
}

static const struct pp_json_value *get(const struct pp_json_value *v, const char *key)
{
	return pp_json_read_object_get(v, key);
}

static bool get_u(const struct pp_json_value *v, const char *key, uint64_t *out)
{
	return pp_json_read_get_uint64(pp_json_read_object_get(v, key), out);
}

static const char *get_s(const struct pp_json_value *v, const char *key)
{
	return pp_json_read_get_string(pp_json_read_object_get(v, key), NULL);
}

static void path_make(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Makes the outputs of `dir` from its recording, as `passprobe report` does: trace.json and
 * passes.csv are made there, never in the process that records (docs/report-format.md). */
static bool outputs_make(const char *dir)
{
	char path[600], err[700];
	path_make(path, sizeof(path), dir, "recording.ppr");
	struct pp_sink_replay_result res;
	int rc = pp_attr_replay(path, dir, &res, err, sizeof(err));
	CHECK(rc == 0, "outputs made from the recording: %s", rc ? err : "");
	return rc == 0;
}

/* report.json's frames_total in dir; 0 when the file is missing, not JSON or without it. */
static uint64_t report_frames_total(const char *dir)
{
	char path[512];
	path_make(path, sizeof(path), dir, "report.json");
	struct pp_json_value *root = json_load(path);
	uint64_t u = 0;
	if (!root || !get_u(root, "frames_total", &u))
		u = 0;
	pp_json_read_free(root);
	return u;
}

/* Redirects stderr into a file so the summary can be checked. */
static char g_stderr_path[512];
static int g_stderr_saved = -1;

static void stderr_capture_begin(void)
{
	snprintf(g_stderr_path, sizeof(g_stderr_path), "%s.stderr", g_tmp);
	fflush(stderr);
	g_stderr_saved = dup(2);
	int fd = open(g_stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
}

static char *stderr_capture_end(void)
{
	fflush(stderr);
	dup2(g_stderr_saved, 2);
	close(g_stderr_saved);
	size_t len;
	char *text = file_read(g_stderr_path, &len);
	unlink(g_stderr_path);
	fputs(text ? text : "", stderr);
	return text;
}

/* ---- scenario: statistics ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void hist_check(const uint64_t *samples, size_t n, const char *what)
{
	struct pp_hist h = { 0 };
	uint64_t *sorted = malloc(n * sizeof(*sorted));
	for (size_t i = 0; i < n; i++) {
		pp_attr_stats_hist_add(&h, samples[i]);
		sorted[i] = samples[i];
	}
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0 };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * (double)n);
		if (rank < 1)
			rank = 1;
		double exact = (double)sorted[rank - 1];
		double got = pp_attr_stats_hist_quantile(&h, qs[i]);
		double err = exact > 0 ? fabs(got - exact) / exact : fabs(got);
		CHECK(err <= 1.0 / 128.0, "%s q=%.2f exact %.0f got %.1f (rel err %.4f > 1/128)", what,
		      qs[i], exact, got, err);
	}
	pp_attr_stats_hist_free(&h);
	free(sorted);
}

static void scenario_stats(void)
{
	/* empty */
	struct pp_hist h = { 0 };
	CHECK(isnan(pp_attr_stats_hist_quantile(&h, 0.5)), "empty histogram has no quantile");

	/* small values are exact */
	for (uint64_t v = 0; v < 64; v++)
		pp_attr_stats_hist_add(&h, v);
	CHECK(pp_attr_stats_hist_quantile(&h, 0.5) == 31.0, "p50 of 0..63 = %g", pp_attr_stats_hist_quantile(&h, 0.5));
	CHECK(pp_attr_stats_hist_quantile(&h, 1.0) == 63.0, "max of 0..63");
	pp_attr_stats_hist_free(&h);

	size_t n = 100000;
	uint64_t *s = malloc(n * sizeof(*s)), seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++)
		s[i] = i + 1;
	hist_check(s, n, "uniform 1..1e5");
	for (size_t i = 0; i < n; i++) /* log-uniform over 1 ns .. 2^40 ns */
		s[i] = (uint64_t)exp2((double)(rng_next(&seed) % 4000000) / 100000.0);
	hist_check(s, n, "log-uniform");
	for (size_t i = 0; i < n; i++) /* a tight cluster around 1.25 ms plus a tail */
		s[i] = 1250000 + rng_next(&seed) % 5000 + (i % 50 == 0 ? 4000000 : 0);
	hist_check(s, n, "clustered");
	free(s);
	/* beyond the top bucket (2^46 ns): no error bound, but within the exact min and max */
	pp_attr_stats_hist_add(&h, UINT64_MAX);
	pp_attr_stats_hist_add(&h, 1ull << 50);
	CHECK(pp_attr_stats_hist_quantile(&h, 0.5) >= 0x1p50 && pp_attr_stats_hist_quantile(&h, 1.0) <= 0x1p64,
	      "huge values stay within min..max");
	pp_attr_stats_hist_free(&h);

	/* memory: a histogram only allocates the octaves it sees */
	pp_attr_stats_hist_add(&h, 1000);
	pp_attr_stats_hist_add(&h, 1001);
	int octaves = 0;
	for (unsigned k = 0; k < PP_HIST_OCTAVES; k++)
		octaves += h.octave[k] != NULL;
	CHECK(octaves == 1, "two close values use one octave, got %d", octaves);
	pp_attr_stats_hist_free(&h);

	/* per-name statistics */
	struct pp_stats *st = pp_attr_stats_create(0);
	uint64_t base = 1000000000;
	for (uint64_t i = 0; i < 10; i++) {
		struct pp_frame_result *f = frame_standard(i, base + i * 16000000);
		pp_attr_stats_frame_add(st, f);
		pp_model_frame_result_free(f);
	}
	/* a frame with no measured pass */
	struct pass_spec lost = { "lost", PP_PASS_RENDER, 0, -1, -1, 0, false, 0, 1, 0 };
	struct sub_spec sub = { 99, 0, 1, false };
	struct pp_frame_result *f = frame_make(10, 0, base + 200000000, &sub, 1, &lost, 1);
	pp_attr_stats_frame_add(st, f);
	pp_model_frame_result_free(f);

	struct pp_summary sum;
	CHECK(pp_attr_stats_summary_make(st, &sum) == 0, "summary");
	CHECK(sum.frames == 11, "frames %" PRIu64, sum.frames);
	/* frame = 100000 + 250000 + 100000 + 20000 exclusive */
	CHECK(fabs(sum.frame_gpu_mean_ns - 470000) < 1e-6, "frame mean %g", sum.frame_gpu_mean_ns);
	CHECK(fabs(sum.frame_gpu_p50_ns - 470000) <= 470000 / 128.0, "frame p50 %g",
	      sum.frame_gpu_p50_ns);
	CHECK(sum.nrows == 5, "rows %zu", sum.nrows);
	double share = 0;
	for (size_t i = 0; i < sum.nrows; i++) {
		const struct pp_summary_row *r = &sum.rows[i];
		if (!isnan(r->share_of_frame))
			share += r->share_of_frame;
		if (!strcmp(r->name, "lost")) {
			CHECK(r->count == 11 && r->measured == 0, "lost counts %" PRIu64 "/%" PRIu64,
			      r->count, r->measured);
			CHECK(isnan(r->gpu_mean_ns) && isnan(r->gpu_p50_ns) && isnan(r->gpu_max_ns) &&
				      isnan(r->share_of_frame),
			      "unmeasured pass has NAN times, not 0");
			CHECK(fabs(r->per_frame - 1.0) < 1e-9, "lost per frame %g", r->per_frame);
		}
		if (!strcmp(r->name, "main, \"lit\"")) {
			CHECK(!strcmp(r->kind, "render"), "kind %s", r->kind);
			CHECK(r->measured == 10, "main measured %" PRIu64, r->measured);
			CHECK(r->gpu_mean_ns == 300000, "main mean %g (interval, not exclusive)",
			      r->gpu_mean_ns);
			CHECK(fabs(r->share_of_frame - 250000.0 / 470000.0) < 1e-9, "main share %g",
			      r->share_of_frame);
			CHECK(fabs(r->per_frame - 10.0 / 11.0) < 1e-9, "main per frame %g", r->per_frame);
			CHECK(isnan(r->cpu_record_mean_ns), "no CPU record time in the model");
		}
		if (!strcmp(r->name, "cull"))
			CHECK(!strcmp(r->kind, "compute"), "cull kind %s", r->kind);
	}
	CHECK(fabs(share - 1.0) < 1e-9, "shares add up to 1: %g", share);
	CHECK(sum.notes[0] == '\0', "no notes: %s", sum.notes);
	pp_summary_free(&sum);
	pp_attr_stats_destroy(st);

	/* Frames that differ (a headless program's frames are its fenced submits): a 1 ms pass
	 * alone in even frames, a 100 ms one alone in odd frames. Each pass's share is its part of
	 * all the GPU time measured (1/101 and 100/101), not the mean of per-frame fractions (one
	 * half each, as if they cost the same). */
	st = pp_attr_stats_create(0);
	for (uint64_t i = 0; i < 8; i++) {
		struct pass_spec one = { i % 2 ? "slow" : "fast", PP_PASS_COMPUTE, 0, 0,
					 i % 2 ? 100000000 : 1000000, 0, false, 0, 0, 0 };
		struct sub_spec alone = { i, 0, 1, false };
		f = frame_make(i, 0, base + i * 200000000, &alone, 1, &one, 1);
		pp_attr_stats_frame_add(st, f);
		pp_model_frame_result_free(f);
	}
	CHECK(pp_attr_stats_summary_make(st, &sum) == 0 && sum.nrows == 2, "alternating frames: 2 rows");
	for (size_t i = 0; i < sum.nrows; i++) {
		const struct pp_summary_row *r = &sum.rows[i];
		double want = !strcmp(r->name, "slow") ? 100.0 / 101.0 : 1.0 / 101.0;
		CHECK(fabs(r->share_of_frame - want) < 1e-9, "%s share %g, want %g", r->name, r->share_of_frame, want);
		CHECK(fabs(r->per_frame - 0.5) < 1e-9, "%s per frame %g", r->name, r->per_frame);
	}
	pp_summary_free(&sum);
	pp_attr_stats_destroy(st);

	/* the name cap */
	st = pp_attr_stats_create(8);
	struct pass_spec many[20];
	char names[20][16];
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "p%d", i);
		many[i] = (struct pass_spec){ names[i], PP_PASS_RENDER, 0, i * 10, i * 10 + 10, 0,
					      false, 0, 1, 0 };
	}
	sub = (struct sub_spec){ 1, 0, 20, false };
	f = frame_make(0, 0, base, &sub, 1, many, 20);
	pp_attr_stats_frame_add(st, f);
	pp_attr_stats_frame_add(st, f);
	pp_model_frame_result_free(f);
	CHECK(pp_attr_stats_summary_make(st, &sum) == 0, "capped summary");
	CHECK(sum.nrows == 9, "8 names + (other): %zu", sum.nrows);
	uint64_t other = 0;
	for (size_t i = 0; i < sum.nrows; i++)
		if (!strcmp(sum.rows[i].name, "(other)"))
			other = sum.rows[i].count;
	CHECK(other == 24, "(other) holds 12 names x 2 frames: %" PRIu64, other);
	CHECK(strstr(sum.notes, "(other)") != NULL, "notes say so: %s", sum.notes);
	pp_summary_free(&sum);
	pp_attr_stats_destroy(st);

	/* Passes another layer recorded for itself (recorded_by, docs/frame-debuggers.md): left out
	 * of the rows and of the frame's GPU time unless layer_passes counts them, and the notes
	 * say so. */
	for (int include = 0; include < 2; include++) {
		st = pp_attr_stats_create(0);
		pp_attr_stats_layer_passes_set(st, include);
		struct pass_spec two[2] = {
			{ "app", PP_PASS_RENDER, 0, 0, 1000000, 1000000, false, 0, 1, 0 },
			{ "librenderdoc.so:transfer#0", PP_PASS_TRANSFER, 0, 2000000, 5000000, 3000000, false, 0, 0, 0 },
		};
		sub = (struct sub_spec){ 1, 0, 2, false };
		for (uint64_t i = 0; i < 3; i++) {
			f = frame_make(i, 0, base + i * 100000000, &sub, 1, two, 2);
			f->passes[1].recorded_by = "librenderdoc.so";
			pp_attr_stats_frame_add(st, f);
			pp_model_frame_result_free(f);
		}
		CHECK(pp_attr_stats_summary_make(st, &sum) == 0, "summary with another layer's passes");
		CHECK(sum.nrows == (include ? 2u : 1u), "layer_passes=%d: %zu rows", include, sum.nrows);
		CHECK(!strcmp(sum.rows[0].name, include ? "librenderdoc.so:transfer#0" : "app"), "first row %s",
		      sum.rows[0].name);
		CHECK(fabs(sum.frame_gpu_mean_ns - (include ? 4000000 : 1000000)) < 1e-6, "layer_passes=%d: frame %g",
		      include, sum.frame_gpu_mean_ns);
		bool noted = strstr(sum.notes, "3 pass instances recorded by other layers (librenderdoc.so) left out");
		CHECK(noted == !include, "layer_passes=%d: notes \"%s\"", include, sum.notes);
		pp_summary_free(&sum);
		pp_attr_stats_destroy(st);
	}
}

/* ---- scenario: report.json ------------------------------------------------------------ */

/* Two diagnostic sites as the rules hand them to the sinks: a measured warning and an
 * information site that costs more (information is counted, never among the costliest). */
static size_t test_diagnostics(struct pp_diagnostic *out, size_t max, uint64_t *other)
{
	*other = 0;
	if (!out)
		return 2;
	memset(out, 0, max * sizeof(*out));
	snprintf(out[0].id, sizeof(out[0].id), "PASSPROBE-Barrier-FullPipelineDrain");
	snprintf(out[0].site, sizeof(out[0].site), "vkCmdPipelineBarrier called from app+0x10");
	out[0].severity = "warning";
	snprintf(out[0].verdict, sizeof(out[0].verdict), "worth fixing: the queues overlap again");
	out[0].count = out[0].frames = 12;
	out[0].cost_valid = true;
	out[0].cost_ns = 75900;
	out[0].cost_kind = "gpu_barrier_stall";
	if (max < 2)
		return 1;
	snprintf(out[1].id, sizeof(out[1].id), "PASSPROBE-Blocking-FenceWaitSameFrame");
	snprintf(out[1].site, sizeof(out[1].site), "vkWaitForFences called from lib+0x20 on thread 9 \"worker\"");
	out[1].severity = "info";
	snprintf(out[1].verdict, sizeof(out[1].verdict), "little to gain for the frame: a worker");
	out[1].count = out[1].frames = 12;
	out[1].cost_valid = true;
	out[1].cost_ns = 900000;
	out[1].cost_kind = "cpu_blocked";
	return 2;
}

/* Frame records in a recording (a file being written may end inside one: that one is not
 * counted). */
static size_t recording_frames(const char *data, size_t len)
{
	struct pp_rec_reader *r;
	char why[256];
	if (pp_rec_read_open((const uint8_t *)data, len, &r, why, sizeof(why)) != 0)
		return 0;
	size_t n = 0;
	struct pp_rec_record rec;
	while (pp_rec_read_next(r, &rec) == 1)
		n += rec.type == PP_REC_FRAME;
	pp_rec_read_close(r);
	return n;
}

static void scenario_report(void)
{
	struct pp_settings set;
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out/nested", g_tmp);
	settings_make(&set, dir);
	set.report_frames = 5;
	set.summary = false;

	CHECK(pp_attr_sink_init(&set) == 0, "init");
	pp_attr_sink_diagnostics_source_set(test_diagnostics);
	struct stat st;
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755,
	      "output dir made with mode 0755");
	uint32_t dev = device_register_test();
	CHECK(dev == 0, "first device id 0");
	CHECK(device_register_test() == dev, "same device, same id");

	uint64_t base = now_ns();
	for (uint64_t i = 0; i < 12; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 16000000));
	}
	processed_wait(12);
	/* While the process runs, the recording holds the frames so far: a report made from a
	 * copy of it now (as `passprobe report` would from a process killed now) has them. */
	char copy[600], copy_file[700], why[700];
	snprintf(copy, sizeof(copy), "%s/copy", g_tmp);
	mkdir(copy, 0755);
	snprintf(copy_file, sizeof(copy_file), "%s/recording.ppr", copy);
	path_make(path, sizeof(path), dir, "recording.ppr");
	size_t rec_len = 0;
	char *rec = NULL;
	/* The writer flushes the recording every flush_interval_ms: wait until it holds all 12. */
	for (int i = 0; i < 400; i++) {
		free(rec);
		rec = file_read(path, &rec_len);
		if (rec && recording_frames(rec, rec_len) == 12)
			break;
		usleep(10000);
	}
	FILE *cf = fopen(copy_file, "wb");
	if (cf && rec)
		fwrite(rec, 1, rec_len, cf);
	if (cf)
		fclose(cf);
	free(rec);
	/* The replay is passprobe report's, a process of its own: not while this one records. */
	struct pp_sink_replay_result res;
	CHECK(pp_attr_replay(copy_file, copy, &res, why, sizeof(why)) == -EBUSY && strstr(why, "records"),
	      "no replay while the sink runs: %s", why);

	pp_attr_sink_shutdown();
	/* The copy of the recording made while the process ran, replayed as `passprobe report`
	 * would: the frames so far. */
	CHECK(pp_attr_replay(copy_file, copy, &res, why, sizeof(why)) == 0, "a report from the running process's "
	      "recording: %s", why);
	CHECK(res.frames == 12 && !res.ended, "its frames so far (%" PRIu64 "), the process not finished", res.frames);
	path_make(path, sizeof(path), copy, "report.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "report.json of a running process parses");
	/* The diagnostics through the recording: each site's severity and verdict, and the
	 * summary's digest made again from them. */
	const struct pp_json_value *rx1 = pp_json_read_array_at(get(root, "diagnostics"), 1);
	CHECK(!strcmp(get_s(pp_json_read_array_at(get(root, "diagnostics"), 0), "severity") ?: "", "warning") &&
		      !strcmp(get_s(rx1, "severity") ?: "", "info") &&
		      !strcmp(get_s(rx1, "verdict") ?: "", "little to gain for the frame: a worker"),
	      "from the recording: severity and verdict of each site");
	uint64_t warnings = 0;
	CHECK(pp_json_read_get_uint64(get(get(get(root, "summary"), "diagnostics"), "warnings"), &warnings) && warnings == 1,
	      "from the recording: the summary's warnings");
	pp_json_read_free(root);
	path_make(path, sizeof(path), dir, "report.json");
	root = json_load(path);
	CHECK(root != NULL, "final report.json parses");
	if (!root)
		return;
	uint64_t u;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "report.json mode 0644");
	CHECK(!strcmp(get_s(root, "schema") ?: "", "passprobe-report"), "schema");
	CHECK(get_u(root, "version", &u) && u == 1, "version");
	CHECK(get_s(root, "generator") != NULL, "generator");
	CHECK(get_u(get(root, "process"), "pid", &u) && u == (uint64_t)getpid(), "pid");
	CHECK(get_s(get(root, "process"), "name") != NULL, "process name");
	const struct pp_json_value *devs = get(root, "devices");
	CHECK(pp_json_read_array_size(devs) == 1, "one device");
	const struct pp_json_value *d0 = pp_json_read_array_at(devs, 0);
	CHECK(!strcmp(get_s(d0, "name") ?: "", "Test GPU \"X\""), "device name escaped and read back");
	CHECK(get_u(d0, "vendor_id", &u) && u == 0x10005, "vendor id");
	CHECK(get_u(d0, "timestamp_valid_bits", &u) && u == 64, "valid bits");
	CHECK(pp_json_read_is_number(get(d0, "timestamp_period_ns")), "period");
	CHECK(get_s(d0, "time_domain") != NULL, "time domain");
	CHECK(pp_json_read_is_bool(get(d0, "pipeline_statistics")), "pipeline_statistics flag");
	CHECK(pp_json_read_is_null(get(d0, "notes")), "no notes is null");
	CHECK(get_u(root, "frames_total", &u) && u == 12, "frames_total %" PRIu64, u);
	CHECK(get_u(root, "frames_dropped", &u) && u == 0, "frames_dropped");
	const struct pp_json_value *win = get(root, "frames_window");
	CHECK(get_u(win, "first", &u) && u == 7, "window first %" PRIu64, u);
	CHECK(get_u(win, "count", &u) && u == 5, "window count");
	CHECK(get_u(win, "limit", &u) && u == 5, "window limit");
	const struct pp_json_value *frames = get(root, "frames");
	CHECK(pp_json_read_array_size(frames) == 5, "5 frames kept of 12");
	for (size_t i = 0; i < pp_json_read_array_size(frames); i++) {
		CHECK(get_u(pp_json_read_array_at(frames, i), "index", &u) && u == 7 + i,
		      "frame %zu index %" PRIu64, i, u);
	}
	const struct pp_json_value *fr = pp_json_read_array_at(frames, 4);
	CHECK(get_u(fr, "gpu_ns", &u) && u == 470000, "frame gpu_ns = sum of exclusive: %" PRIu64, u);
	CHECK(!strcmp(get_s(fr, "delimiter") ?: "", "present"), "delimiter");
	CHECK(get_u(fr, "device", &u) && u == 0, "device");
	CHECK(get_u(fr, "cpu_begin_ns", &u) && get_u(fr, "cpu_end_ns", &u), "frame cpu times");

	const struct pp_json_value *subs = get(fr, "submissions");
	CHECK(pp_json_read_array_size(subs) == 2, "2 submissions");
	const struct pp_json_value *s0 = pp_json_read_array_at(subs, 0);
	CHECK(get_u(s0, "seq", &u) && u == 23, "seq %" PRIu64, u);
	CHECK(!strcmp(get_s(s0, "api") ?: "", "vkQueueSubmit2"), "submission api");
	CHECK(!strcmp(get_s(get(s0, "queue"), "handle") ?: "", "0x5000"), "queue handle as hex");
	CHECK(get_u(get(s0, "queue"), "family", &u) && get_u(get(s0, "queue"), "index", &u),
	      "queue family/index");
	CHECK(get_u(s0, "tid", &u) && get_u(s0, "cpu_ns", &u) && u == 5000, "tid, cpu_ns");
	CHECK(get_u(s0, "gpu_span_ns", &u) && u == 450000, "gpu span %" PRIu64, u);
	CHECK(get(s0, "gpu_unavailable") == NULL, "no reason when measured");
	CHECK(get_u(s0, "first_pass", &u) && u == 0 && get_u(s0, "passes", &u) && u == 4,
	      "pass range");
	CHECK(get_u(s0, "command_buffers", &u) && u == 1, "command buffers");

	const struct pp_json_value *passes = get(fr, "passes");
	CHECK(pp_json_read_array_size(passes) == 5, "5 passes");
	const struct pp_json_value *p0 = pp_json_read_array_at(passes, 0);
	CHECK(!strcmp(get_s(p0, "name") ?: "", "shadow"), "pass name");
	CHECK(!strcmp(get_s(p0, "name_source") ?: "", "label"), "name source");
	CHECK(!strcmp(get_s(p0, "kind") ?: "", "render"), "kind");
	CHECK(!strcmp(get_s(p0, "api") ?: "", "vkCmdBeginRenderPass"), "pass api");
	CHECK(!strcmp(get_s(p0, "command_buffer_handle") ?: "", "0xabc000"), "cb handle hex");
	CHECK(get_u(p0, "draws", &u) && u == 12, "draws = all kinds: %" PRIu64, u);
	CHECK(get_u(get(p0, "workload"), "draws_indexed", &u) && u == 2, "workload");
	CHECK(pp_json_read_object_size(get(p0, "workload")) == 14, "every workload field");
	const struct pp_json_value *att = get(p0, "attachments");
	CHECK(pp_json_read_array_size(att) == 2, "attachments");
	CHECK(!strcmp(get_s(pp_json_read_array_at(att, 1), "format") ?: "", "D32_SFLOAT"), "format");
	bool b;
	CHECK(pp_json_read_get_bool(get(pp_json_read_array_at(att, 1), "depth_stencil"), &b) && b, "ds");
	CHECK(get_u(p0, "gpu_ns", &u) && u == 100000, "pass gpu_ns");
	CHECK(get_u(p0, "gpu_exclusive_ns", &u) && u == 100000, "exclusive");
	CHECK(pp_json_read_get_bool(get(p0, "overlapped"), &b) && !b, "overlapped false");
	const struct pp_json_value *ps = get(p0, "pipeline_statistics");
	CHECK(pp_json_read_object_size(ps) == PP_STAT_COUNT, "all statistics");
	CHECK(get_u(ps, "fragment_shader_invocations", &u) && u == 6000, "stat value %" PRIu64, u);
	CHECK(get(p0, "pipeline_statistics_unavailable") == NULL, "no stats reason");
	const struct pp_json_value *dt = get(p0, "draw_timings");
	CHECK(pp_json_read_array_size(dt) == 3, "draw timings present");
	CHECK(pp_json_read_is_null(get(pp_json_read_array_at(dt, 1), "gpu_ns")) &&
		      get_s(pp_json_read_array_at(dt, 1), "gpu_unavailable"),
	      "lost draw timing is null with a reason");

	const struct pp_json_value *p1 = pp_json_read_array_at(passes, 1);
	CHECK(!strcmp(get_s(p1, "name") ?: "", "main, \"lit\""), "name with quotes");
	CHECK(pp_json_read_get_bool(get(p1, "overlapped"), &b) && b, "overlapped true");
	CHECK(get_u(p1, "gpu_exclusive_ns", &u) && u == 250000, "exclusive with overlap");
	ps = get(p1, "pipeline_statistics");
	CHECK(pp_json_read_is_null(get(ps, "compute_shader_invocations")), "unmeasured stat null, not 0");
	CHECK(get_s(p1, "pipeline_statistics_unavailable") != NULL, "partial stats say why");
	CHECK(get(p1, "draw_timings") == NULL, "no draw_timings when absent");

	const struct pp_json_value *p3 = pp_json_read_array_at(passes, 3);
	CHECK(pp_json_read_is_null(get(p3, "gpu_ns")), "invalid pass: gpu_ns null");
	CHECK(pp_json_read_is_null(get(p3, "gpu_begin_ns")) && pp_json_read_is_null(get(p3, "gpu_end_ns")),
	      "invalid pass: begin/end null");
	CHECK(pp_json_read_is_null(get(p3, "gpu_exclusive_ns")), "invalid pass: exclusive null");
	CHECK(!strcmp(get_s(p3, "gpu_unavailable") ?: "", k_reason_pass), "invalid pass reason");
	CHECK(pp_json_read_is_null(get(p3, "pipeline_statistics")), "no stats: null");
	CHECK(!strcmp(get_s(p3, "pipeline_statistics_unavailable") ?: "", k_reason_stats),
	      "no stats: reason");
	CHECK(pp_json_read_is_array(get(root, "diagnostics")), "diagnostics array");
	const struct pp_json_value *dx0 = pp_json_read_array_at(get(root, "diagnostics"), 0);
	const struct pp_json_value *dx1 = pp_json_read_array_at(get(root, "diagnostics"), 1);
	CHECK(!strcmp(get_s(dx0, "severity") ?: "", "warning") && !strcmp(get_s(dx1, "severity") ?: "", "info"),
	      "diagnostics: severity of each site");
	CHECK(!strcmp(get_s(dx1, "verdict") ?: "", "little to gain for the frame: a worker"), "diagnostics: verdict");
	const struct pp_json_value *dg = get(get(root, "summary"), "diagnostics");
	CHECK(pp_json_read_get_uint64(get(dg, "warnings"), &u) && u == 1 && pp_json_read_get_uint64(get(dg, "info"), &u) && u == 1,
	      "summary: diagnostic sites counted by severity");
	CHECK(pp_json_read_array_size(get(dg, "costliest")) == 1 &&
	      !strcmp(get_s(pp_json_read_array_at(get(dg, "costliest"), 0), "id") ?: "", "PASSPROBE-Barrier-FullPipelineDrain"),
	      "summary: the costliest warnings, no information");

	struct pp_summary sum;
	char err[256] = "";
	CHECK(pp_summary_read_from_json(root, &sum, err, sizeof(err)) == 0, "summary reads back: %s", err);
	CHECK(sum.diag_warnings == 1 && sum.diag_info == 1 && sum.ndiags == 1 && sum.diags[0].cost_ns == 75900,
	      "summary's diagnostics read back");
	CHECK(sum.frames == 12, "summary over all 12 frames, not the window: %" PRIu64, sum.frames);
	CHECK(sum.nrows == 5, "summary rows %zu", sum.nrows);
	CHECK(!strcmp(sum.device, "Test GPU \"X\""), "summary device %s", sum.device);
	pp_summary_free(&sum);
	pp_json_read_free(root);

	/* no temporary file left behind */
	int tmps = 0;
	DIR *dd = opendir(dir);
	struct dirent *e;
	while (dd && (e = readdir(dd)))
		tmps += strstr(e->d_name, ".tmp.") != NULL;
	if (dd)
		closedir(dd);
	CHECK(tmps == 0, "no report.json.tmp.* left");
	CHECK(log_total() == 0, "nothing logged");
}

/* ---- scenario: invalid GPU times everywhere ------------------------------------------ */

static void scenario_unmeasured(void)
{
	struct pp_settings set;
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	struct pass_spec p = { "nothing", PP_PASS_RENDER, 0, -1, -1, 0, false, 0, 1, 0 };
	struct sub_spec s = { 7, 0, 1, true };
	pp_attr_sink_frame_submit(frame_make(0, 0, now_ns(), &s, 1, &p, 1));
	pp_attr_sink_frame_submit(frame_make(1, 0, now_ns(), &s, 1, &p, 0)); /* no passes at all */
	pp_attr_sink_shutdown();
	outputs_make(dir);
	path_make(path, sizeof(path), dir, "report.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "report parses");
	const struct pp_json_value *fr = pp_json_read_array_at(get(root, "frames"), 0);
	CHECK(pp_json_read_is_null(get(fr, "gpu_ns")) && get_s(fr, "gpu_unavailable"),
	      "frame without measured pass: gpu_ns null with reason");
	const struct pp_json_value *sub = pp_json_read_array_at(get(fr, "submissions"), 0);
	CHECK(pp_json_read_is_null(get(sub, "gpu_span_ns")), "submission gpu_span_ns null");
	CHECK(!strcmp(get_s(sub, "gpu_unavailable") ?: "", k_reason_sub), "submission reason");
	fr = pp_json_read_array_at(get(root, "frames"), 1);
	CHECK(pp_json_read_is_null(get(fr, "gpu_ns")), "empty frame gpu_ns null");
	struct pp_summary sum;
	pp_summary_read_from_json(root, &sum, NULL, 0);
	CHECK(isnan(sum.frame_gpu_mean_ns), "frame mean unavailable, not 0: %g", sum.frame_gpu_mean_ns);
	CHECK(sum.nrows == 1 && isnan(sum.rows[0].gpu_mean_ns), "row mean unavailable");
	pp_summary_free(&sum);
	pp_json_read_free(root);

	path_make(path, sizeof(path), dir, "trace.json");
	root = json_load(path);
	CHECK(root != NULL, "trace parses");
	int instants = 0, slices = 0;
	for (size_t i = 0; i < pp_json_read_array_size(root); i++) {
		const struct pp_json_value *e = pp_json_read_array_at(root, i);
		const char *ph = get_s(e, "ph") ?: "";
		const char *cat = get_s(e, "cat") ?: "";
		if (!strcmp(ph, "X") && !strncmp(cat, "gpu.", 4))
			slices++;
		if (!strcmp(ph, "i") && get_s(get(e, "args"), "reason"))
			instants++;
	}
	CHECK(slices == 0, "no GPU slice without GPU time");
	CHECK(instants == 3, "instants for 2 submissions and 1 pass with reasons: %d", instants);
	pp_json_read_free(root);

	path_make(path, sizeof(path), dir, "passes.csv");
	size_t len;
	char *csv = file_read(path, &len);
	/* gpu_begin_ns .. overlapped empty, then the reason, then empty statistics, CPU cost and
	 * recorded_by (the application's pass) */
	char want[256];
	snprintf(want, sizeof(want), ",2,,,,,,%s,,,,,,,,,,\n", k_reason_pass);
	CHECK(csv && strstr(csv, want), "csv: empty fields and the reason: %s", csv ? csv : "");
	free(csv);
}

/* ---- scenario: trace.json ------------------------------------------------------------- */

struct slice {
	int64_t b, e;
	uint64_t tid;
	const char *cat;
	const char *name;
};

static int64_t us_to_ns(const struct pp_json_value *v)
{
	double d = 0;
	pp_json_read_get_double(v, &d);
	return llround(d * 1000.0);
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	/* longer first, so a parent precedes a child starting at the same time */
	if (x->e != y->e)
		return x->e > y->e ? -1 : 1;
	/* submission before pass at identical intervals */
	return strcmp(y->cat, x->cat);
}

/* Checks the structure every consumer relies on; returns the number of events. */
static size_t trace_check(const struct pp_json_value *root, bool expect_end, pid_t want_pid)
{
	size_t n = pp_json_read_array_size(root);
	CHECK(pp_json_read_is_array(root) && n > 0, "trace is a non-empty array");
	struct slice *sl = calloc(n + 1, sizeof(*sl));
	size_t nsl = 0;
	int missing = 0, bad_ph = 0, gpu_names = 0, counters = 0, origin = 0, end = 0;
	uint64_t pid = (uint64_t)want_pid;
	for (size_t i = 0; i < n; i++) {
		const struct pp_json_value *e = pp_json_read_array_at(root, i);
		const char *ph = get_s(e, "ph");
		uint64_t epid, tid;
		if (!ph || !pp_json_read_is_number(get(e, "ts")) || !get_u(e, "pid", &epid) ||
		    !get_u(e, "tid", &tid) || epid != pid) {
			missing++;
			continue;
		}
		const char *name = get_s(e, "name") ?: "";
		if (!strcmp(ph, "X")) {
			CHECK(pp_json_read_is_number(get(e, "dur")), "X has dur");
			sl[nsl].b = us_to_ns(get(e, "ts"));
			sl[nsl].e = sl[nsl].b + us_to_ns(get(e, "dur"));
			sl[nsl].tid = tid;
			sl[nsl].cat = get_s(e, "cat") ?: "";
			sl[nsl].name = name;
			nsl++;
		} else if (!strcmp(ph, "M")) {
			if (!strcmp(name, "thread_name") &&
			    strstr(get_s(get(e, "args"), "name") ?: "", "GPU queue"))
				gpu_names++;
			if (!strcmp(name, "passprobe_time_origin") &&
			    get_u(get(e, "args"), "passprobe_time_origin_ns", &epid))
				origin++;
			if (!strcmp(name, "passprobe_trace_end")) {
				end++;
				CHECK(i == n - 1, "end metadata is the last event");
			}
		} else if (!strcmp(ph, "C")) {
			counters++;
		} else if (strcmp(ph, "i") && strcmp(ph, "s") && strcmp(ph, "f")) {
			bad_ph++;
		}
	}
	CHECK(missing == 0, "%d events lack ph/ts/pid/tid", missing);
	CHECK(bad_ph == 0, "unexpected phases");
	CHECK(gpu_names >= 1, "GPU queue tracks named");
	CHECK(origin == 1, "time origin recorded once");
	CHECK(counters > 0, "counter events");
	CHECK(end == (expect_end ? 1 : 0), "end metadata %d", end);

	/* proper nesting per track; every pass inside a submission */
	qsort(sl, nsl, sizeof(*sl), cmp_slice);
	int bad_nest = 0, orphan_pass = 0;
	struct slice *stack[64];
	int depth = 0;
	for (size_t i = 0; i < nsl; i++) {
		if (i > 0 && sl[i].tid != sl[i - 1].tid)
			depth = 0;
		while (depth > 0 && stack[depth - 1]->e <= sl[i].b && !(stack[depth - 1]->e == sl[i].b && stack[depth - 1]->b == sl[i].b))
			depth--;
		if (depth > 0 && sl[i].e > stack[depth - 1]->e) {
			bad_nest++;
			fprintf(stdout, "bad nesting: %s [%lld,%lld] in %s [%lld,%lld]\n", sl[i].name,
				(long long)sl[i].b, (long long)sl[i].e, stack[depth - 1]->name,
				(long long)stack[depth - 1]->b, (long long)stack[depth - 1]->e);
		}
		if (!strcmp(sl[i].cat, "gpu.pass") &&
		    (depth == 0 || strcmp(stack[depth - 1]->cat, "gpu.submission")))
			orphan_pass++;
		if (depth < 64)
			stack[depth++] = &sl[i];
	}
	CHECK(bad_nest == 0, "%d slices overlap their parent's end", bad_nest);
	CHECK(orphan_pass == 0, "%d pass slices outside a submission slice", orphan_pass);

	/* flows: every start has its finish; start inside a CPU submit slice, finish on a GPU
	 * submission slice */
	int unpaired = 0, unbound = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pp_json_value *e = pp_json_read_array_at(root, i);
		const char *ph = get_s(e, "ph") ?: "";
		if (strcmp(ph, "s") && strcmp(ph, "f"))
			continue;
		uint64_t id, tid;
		get_u(e, "id", &id);
		get_u(e, "tid", &tid);
		const char *want = ph[0] == 's' ? "f" : "s";
		int found = 0;
		for (size_t j = 0; j < n; j++) {
			const struct pp_json_value *o = pp_json_read_array_at(root, j);
			uint64_t oid;
			if (!strcmp(get_s(o, "ph") ?: "", want) && get_u(o, "id", &oid) && oid == id)
				found++;
		}
		unpaired += found != 1;
		if (ph[0] == 'f')
			CHECK(!strcmp(get_s(e, "bp") ?: "", "e"), "flow end binds to enclosing slice");
		int64_t ts = us_to_ns(get(e, "ts"));
		const char *cat = ph[0] == 's' ? "cpu.submit" : "gpu.submission";
		bool bound = false;
		for (size_t k = 0; k < nsl; k++)
			bound = bound || (sl[k].tid == tid && !strcmp(sl[k].cat, cat) && sl[k].b <= ts &&
					  ts <= sl[k].e);
		unbound += !bound;
	}
	CHECK(unpaired == 0, "%d flow events without exactly one partner", unpaired);
	CHECK(unbound == 0, "%d flow events not on their slice", unbound);
	free(sl);
	return n;
}

static void scenario_trace(void)
{
	struct pp_settings set;
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	device_register_test();

	uint64_t base = now_ns() + 1000000;
	struct pp_cpu_event ev = { "vkWaitForFences", "wait", (uint32_t)gettid(), base, base + 300000, 0 };
	pp_attr_sink_cpu_event(&ev);
	struct pp_cpu_event dup = { "vkQueueSubmit2", "submit", (uint32_t)gettid(), base, base + 10, 1 };
	pp_attr_sink_cpu_event(&dup);
	for (uint64_t i = 0; i < 20; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
	}
	/* a submission whose GPU interval starts before the previous one on its queue ended,
	 * and passes fully inside one another */
	struct pass_spec odd[] = {
		{ "outer", PP_PASS_RENDER, 0, 0, 100000, 50000, true, 0, 1, 0 },
		{ "inner", PP_PASS_RENDER, 0, 10000, 20000, 5000, true, 0, 1, 0 },
		{ "late", PP_PASS_RENDER, 0, 90000, 150000, 50000, true, 0, 1, 0 },
	};
	struct sub_spec sub = { 1000, 0, 3, false };
	uint64_t odd_base = base + 19 * 1000000 + 400000; /* inside frame 19's queue-0 work */
	pp_attr_sink_frame_submit(frame_make(20, 0, odd_base, &sub, 1, odd, 3));
	pp_attr_sink_shutdown();
	outputs_make(dir);

	path_make(path, sizeof(path), dir, "trace.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "clean trace.json is strict JSON");
	if (!root)
		return;
	trace_check(root, true, getpid());

	int pass_slices = 0, sub_slices = 0, cpu_submit = 0, lost_instants = 0, waits = 0,
	    clamped = 0, flows = 0, inner_instant = 0;
	for (size_t i = 0; i < pp_json_read_array_size(root); i++) {
		const struct pp_json_value *e = pp_json_read_array_at(root, i);
		const char *ph = get_s(e, "ph") ?: "", *cat = get_s(e, "cat") ?: "",
			   *name = get_s(e, "name") ?: "";
		if (!strcmp(ph, "X") && !strcmp(cat, "gpu.pass")) {
			pass_slices++;
			CHECK(strcmp(name, "lost"), "no slice for a pass without GPU time");
			const struct pp_json_value *a = get(e, "args");
			uint64_t u;
			CHECK(get_u(a, "gpu_ns", &u) && get_u(a, "exclusive_ns", &u) &&
				      get_u(a, "draws", &u) && get(a, "workload") && get_s(a, "kind"),
			      "pass args");
			clamped += get_s(a, "clamped") != NULL;
		}
		if (!strcmp(ph, "X") && !strcmp(cat, "gpu.submission"))
			sub_slices++;
		if (!strcmp(ph, "X") && !strcmp(cat, "cpu.submit"))
			cpu_submit++;
		if (!strcmp(ph, "X") && !strcmp(cat, "cpu.wait"))
			waits++;
		if (!strcmp(ph, "s"))
			flows++;
		if (!strcmp(ph, "i") && !strcmp(name, "lost"))
			lost_instants += !strcmp(get_s(get(e, "args"), "reason") ?: "", k_reason_pass);
		if (!strcmp(ph, "i") && !strcmp(name, "inner"))
			inner_instant++;
	}
	CHECK(pass_slices == 20 * 4 + 2, "pass slices %d", pass_slices);
	CHECK(sub_slices == 41, "submission slices %d", sub_slices);
	CHECK(cpu_submit == 41, "CPU submit slices from the frames, not doubled: %d", cpu_submit);
	CHECK(waits == 1, "CPU event written");
	CHECK(flows == 41, "one flow per shown submission: %d", flows);
	CHECK(lost_instants == 20, "unavailable passes as instants with the reason: %d", lost_instants);
	CHECK(inner_instant == 1, "a pass swallowed by its neighbour becomes an instant");
	CHECK(clamped >= 20, "overlapping passes clamped and said so: %d", clamped);
	pp_json_read_free(root);

	/* cutting the file anywhere still loads after the documented repair */
	size_t len;
	char *text = file_read(path, &len);
	int repaired = 0, tries = 0;
	for (size_t cut = 3; cut < len; cut += len / 37 + 1) {
		char *copy = malloc(cut + 4);
		memcpy(copy, text, cut);
		size_t n = cut;
		while (n > 0 && copy[n - 1] != '\n') /* drop the partial last line */
			n--;
		while (n > 0 && (copy[n - 1] == '\n' || copy[n - 1] == ','))
			n--;
		copy[n++] = '\n';
		copy[n++] = ']';
		struct pp_json_value *r = NULL;
		tries++;
		if (pp_json_read_parse(copy, n, NULL, &r, NULL, 0) == 0 && pp_json_read_is_array(r))
			repaired++;
		pp_json_read_free(r);
		free(copy);
	}
	CHECK(repaired == tries, "truncated traces repaired: %d of %d", repaired, tries);
	free(text);
}

/* A producer killed by SIGKILL mid-run leaves a trace that loads after the repair. The frames
 * up to 150 are in the file before the kill (processed, and a batch is written right after it
 * is processed); those after it, up to a queue and a batch of them, may not be. */
static void scenario_trace_killed(void)
{
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	pid_t child = fork();
	if (child == 0) {
		struct pp_settings set;
		settings_make(&set, dir);
		pp_attr_sink_init(&set);
		uint64_t base = now_ns();
		for (uint64_t i = 0;; i++) {
			queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
			pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
			if (i == 150) {
				processed_wait(i + 1);
				usleep(300000);
			}
			if (i == 200)
				kill(getpid(), SIGKILL);
		}
	}
	int status;
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child killed");
	/* The recording a killed process leaves reads up to its last whole record: the outputs
	 * made from it are whole files, the trace strict JSON, the report saying what happened. */
	char rec_path[600], err[700];
	path_make(rec_path, sizeof(rec_path), dir, "recording.ppr");
	struct pp_sink_replay_result res;
	CHECK(pp_attr_replay(rec_path, dir, &res, err, sizeof(err)) == 0, "outputs from the killed process's "
	      "recording: %s", err);
	CHECK(res.frames > 100 && !res.ended && strstr(res.notes, "did not finish"),
	      "%" PRIu64 " frames recorded before the kill, the process not finished: %s", res.frames, res.notes);
	path_make(path, sizeof(path), dir, "trace.json");
	size_t len;
	char *text = file_read(path, &len);
	CHECK(text && len > 100, "trace made from the recording");
	if (!text)
		return;
	struct pp_json_value *r = NULL;
	CHECK(pp_json_read_parse(text, len, NULL, &r, NULL, 0) == 0, "the trace is strict JSON");
	if (r)
		trace_check(r, true, child);
	pp_json_read_free(r);
	free(text);
	path_make(path, sizeof(path), dir, "passes.csv");
	text = file_read(path, &len);
	CHECK(text && len > 100 && text[len - 1] == '\n', "csv flushed as complete lines");
	free(text);
}

/* A process killed long before its first flush interval ends still has a report.json: the
 * first one is written with the first frames (Chromium's GPU process lives a second and dies
 * of the browser's SIGTERM). */
static void scenario_report_killed(void)
{
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	path_make(path, sizeof(path), dir, "report.json");
	pid_t child = fork();
	if (child == 0) {
		struct pp_settings set;
		settings_make(&set, dir);
		set.flush_interval_ms = 600000; /* ten minutes: only the first report can come in time */
		pp_attr_sink_init(&set);
		uint64_t base = now_ns();
		for (uint64_t i = 0; i < 3; i++)
			pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
		/* The recording's state is written with the first frames: its summary record. */
		char rec_path[600];
		path_make(rec_path, sizeof(rec_path), dir, "recording.ppr");
		for (int waited = 0; waited < 30000; waited += 10) {
			size_t n = 0;
			char *t = file_read(rec_path, &n);
			bool has = t && memmem(t, n, "summary", 7) && n > 3000;
			free(t);
			if (has)
				break;
			usleep(10000);
		}
		kill(getpid(), SIGKILL);
	}
	int status;
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child killed");
	outputs_make(dir);
	size_t len;
	char *text = file_read(path, &len);
	CHECK(text != NULL, "report.json made from the recording of a process killed in its first interval");
	struct pp_json_value *r = NULL;
	CHECK(text && pp_json_read_parse(text, len, NULL, &r, NULL, 0) == 0, "report.json parses");
	uint64_t total = 0;
	CHECK(r && pp_json_read_get_uint64(pp_json_read_object_get(r, "frames_total"), &total) && total >= 1,
	      "report.json has the first frames (frames_total %" PRIu64 ")", total);
	pp_json_read_free(r);
	free(text);
}

/* ---- scenario: passes.csv ------------------------------------------------------------- */

/* RFC 4180 parse of one record at *p; returns the number of fields, fields copied into f. */
static int csv_record(const char **p, char f[64][128])
{
	const char *s = *p;
	int n = 0;
	for (;;) {
		char *out = f[n];
		size_t len = 0;
		if (*s == '"') {
			s++;
			for (;;) {
				if (*s == '\0')
					return -1;
				if (*s == '"' && s[1] == '"') {
					out[len++] = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					out[len++] = *s++;
				}
				if (len >= 127)
					return -1;
			}
		} else {
			while (*s && *s != ',' && *s != '\n') {
				out[len++] = *s++;
				if (len >= 127)
					return -1;
			}
		}
		out[len] = '\0';
		n++;
		if (*s == ',') {
			s++;
			if (n == 64)
				return -1;
			continue;
		}
		if (*s == '\n')
			s++;
		*p = s;
		return n;
	}
}

static void scenario_csv(void)
{
	struct pp_settings set;
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	uint64_t base = now_ns();
	for (uint64_t i = 0; i < 7; i++)
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
	struct pass_spec odd = { "line\nbreak, and \"quotes\"", PP_PASS_COMPUTE, 0, 0, 10, 0, false,
				 0x40, 0, 0 };
	struct sub_spec sub = { 99, 0, 1, false };
	pp_attr_sink_frame_submit(frame_make(7, 0, base + 9000000, &sub, 1, &odd, 1));
	pp_attr_sink_shutdown();
	outputs_make(dir);

	path_make(path, sizeof(path), dir, "passes.csv");
	size_t len;
	char *text = file_read(path, &len);
	CHECK(text != NULL, "passes.csv exists");
	if (!text)
		return;
	static char fields[64][128];
	const char *p = text;
	int ncols = csv_record(&p, fields);
	/* 31 fixed, the statistics, the two CPU recording columns (no CPU counters configured
	 * here), recorded_by last */
	CHECK(ncols == 31 + PP_STAT_COUNT + 2 + 1, "header columns %d", ncols);
	CHECK(ncols > 0 && !strcmp(fields[ncols - 1], "recorded_by"), "recorded_by last: %s", ncols > 0 ? fields[ncols - 1] : "");
	int col_name = -1, col_gpu = -1, col_reason = -1, col_fs = -1, col_cs = -1, col_excl = -1,
	    col_ov = -1, col_seq = -1;
	for (int i = 0; i < ncols; i++) {
		if (!strcmp(fields[i], "name")) col_name = i;
		if (!strcmp(fields[i], "gpu_ns")) col_gpu = i;
		if (!strcmp(fields[i], "gpu_unavailable")) col_reason = i;
		if (!strcmp(fields[i], "fragment_shader_invocations")) col_fs = i;
		if (!strcmp(fields[i], "compute_shader_invocations")) col_cs = i;
		if (!strcmp(fields[i], "gpu_exclusive_ns")) col_excl = i;
		if (!strcmp(fields[i], "overlapped")) col_ov = i;
		if (!strcmp(fields[i], "seq")) col_seq = i;
	}
	CHECK(!strcmp(fields[0], "frame") && col_name == 6 && col_gpu >= 0 && col_reason >= 0 &&
		      col_fs >= 0 && col_excl >= 0 && col_ov >= 0 && col_seq == 3,
	      "header names");
	int rows = 0, bad_width = 0, lost_ok = 0, measured_ok = 0, quoted_ok = 0, partial_ok = 0;
	while (*p) {
		int n = csv_record(&p, fields);
		if (n < 0)
			break;
		rows++;
		bad_width += n != ncols;
		if (!strcmp(fields[col_name], "lost"))
			lost_ok += fields[col_gpu][0] == '\0' && fields[col_excl][0] == '\0' &&
				   fields[col_ov][0] == '\0' && !strcmp(fields[col_reason], k_reason_pass) &&
				   fields[col_fs][0] == '\0';
		if (!strcmp(fields[col_name], "shadow"))
			measured_ok += !strcmp(fields[col_gpu], "100000") &&
				       fields[col_reason][0] == '\0' && !strcmp(fields[col_fs], "6000");
		if (!strcmp(fields[col_name], "main, \"lit\""))
			partial_ok += fields[col_cs][0] == '\0' && fields[col_fs][0] != '\0' &&
				      !strcmp(fields[col_ov], "true");
		if (!strcmp(fields[col_name], odd.name))
			quoted_ok++;
	}
	CHECK(rows == 7 * 5 + 1, "one row per pass: %d", rows);
	CHECK(bad_width == 0, "%d rows with a different column count", bad_width);
	CHECK(lost_ok == 7, "unavailable values are empty fields: %d", lost_ok);
	CHECK(measured_ok == 7, "measured values present: %d", measured_ok);
	CHECK(partial_ok == 7, "unmeasured statistic empty, measured present: %d", partial_ok);
	CHECK(quoted_ok == 1, "name with newline, comma and quotes survives quoting");
	CHECK(strstr(text, "\"main, \"\"lit\"\"\"") != NULL, "RFC 4180 doubled quotes");
	free(text);
}

/* ---- scenario: output directory that cannot be used ----------------------------------- */

static void unwritable_run(const char *dir, int expect_err)
{
	struct pp_settings set;
	settings_make(&set, dir);
	stderr_capture_begin();
	int ret = pp_attr_sink_init(&set);
	CHECK(ret == -expect_err || (expect_err == 0 && ret < 0), "init returns -errno: %d (%s)", ret,
	      strerror(-ret));
	CHECK(log_total() == 1, "exactly one message, got %d", log_total());
	CHECK(log_count(dir) == 1 && log_count("summary still goes to stderr") == 1,
	      "the message names the directory and what still works");
	if (expect_err)
		CHECK(log_count(strerror(expect_err)) == 1, "the message has the errno text");
	uint64_t base = now_ns();
	for (uint64_t i = 0; i < 10; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
	}
	pp_attr_sink_shutdown();
	char *err = stderr_capture_end();
	CHECK(err && strstr(err, "per-pass GPU time over 10 frames"), "summary printed anyway");
	CHECK(err && strstr(err, "shadow"), "summary has the passes");
	CHECK(log_total() == 1, "still one message after running: %d", log_total());
	free(err);
}

static void scenario_unwritable_file(void)
{
	char file[512], dir[600];
	snprintf(file, sizeof(file), "%s/regular", g_tmp);
	FILE *f = fopen(file, "w");
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/sub/out", file);
	unwritable_run(dir, ENOTDIR);
	struct stat st;
	CHECK(stat(file, &st) == 0 && S_ISREG(st.st_mode), "the file is untouched");
}

static void scenario_unwritable_proc(void)
{
	/* root can create nothing under /proc/self */
	unwritable_run("/proc/self/passprobe-out", 0);
}

/* A file system that fills up, and one that is read-only: needs a private mount namespace
 * (root in a container that allows it); skipped otherwise. */
static bool tmpfs_mount(const char *where, const char *opts, unsigned long flags)
{
	if (unshare(CLONE_NEWNS) != 0)
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return false;
	return mount("tmpfs", where, "tmpfs", flags, opts) == 0;
}

static int scenario_enospc(void)
{
	char mnt[512], dir[600], path[700];
	snprintf(mnt, sizeof(mnt), "%s/small", g_tmp);
	mkdir(mnt, 0755);
	if (!tmpfs_mount(mnt, "size=96k", 0)) {
		printf("cannot mount a tmpfs here (%s): skipped\n", strerror(errno));
		return 77;
	}
	snprintf(dir, sizeof(dir), "%s/out", mnt);
	struct pp_settings set;
	settings_make(&set, dir);
	set.report_frames = 2;
	stderr_capture_begin();
	CHECK(pp_attr_sink_init(&set) == 0, "init on an empty tmpfs");
	uint64_t base = now_ns();
	for (uint64_t i = 0; i < 400; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
	}
	processed_wait(400);
	pp_attr_sink_shutdown();
	char *err = stderr_capture_end();
	CHECK(log_count("recording.ppr") == 1, "one message for recording.ppr: %d", log_count("recording.ppr"));
	CHECK(log_count("report.json") <= 1, "at most one message for report.json");
	CHECK(log_count("No space left on device") >= 1, "the errno text");
	CHECK(err && strstr(err, "per-pass GPU time over 400 frames"), "summary printed");
	free(err);
	path_make(path, sizeof(path), dir, "report.json");
	int tmps = 0;
	DIR *dd = opendir(dir);
	struct dirent *e;
	while (dd && (e = readdir(dd)))
		tmps += strstr(e->d_name, ".tmp.") != NULL;
	if (dd)
		closedir(dd);
	CHECK(tmps == 0, "no temporary report left on the full disk");
	umount2(mnt, MNT_DETACH);
	return 0;
}

static int scenario_rofs(void)
{
	char mnt[512], dir[600];
	snprintf(mnt, sizeof(mnt), "%s/ro", g_tmp);
	mkdir(mnt, 0755);
	if (!tmpfs_mount(mnt, "size=64k", MS_RDONLY)) {
		printf("cannot mount a tmpfs here (%s): skipped\n", strerror(errno));
		return 77;
	}
	snprintf(dir, sizeof(dir), "%s", mnt); /* exists, read-only */
	unwritable_run(dir, EROFS);
	umount2(mnt, MNT_DETACH);
	return 0;
}

/* The file size limit makes writes fail (EFBIG) part way: each file says so once, the rest go
 * on. Runs anywhere. */
static void scenario_write_fail(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { 48 * 1024, 48 * 1024 };
	struct pp_settings set;
	settings_make(&set, dir);
	set.report_frames = 1;
	stderr_capture_begin();
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	setrlimit(RLIMIT_FSIZE, &rl);
	uint64_t base = now_ns();
	for (uint64_t i = 0; i < 300; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
	}
	processed_wait(300);
	pp_attr_sink_shutdown();
	char *err = stderr_capture_end();
	CHECK(log_count("recording.ppr") == 1, "one message for recording.ppr: %d", log_count("recording.ppr"));
	CHECK(log_count("report.json") == 0, "report.json (small) kept working");
	CHECK(err && strstr(err, "per-pass GPU time over 300 frames"), "summary printed");
	free(err);
	CHECK(report_frames_total(dir) == 300, "final report complete");
}

/* ---- scenario: lifecycle -------------------------------------------------------------- */

static void scenario_lifecycle(void)
{
	pp_attr_sink_shutdown(); /* before init: nothing */
	pp_attr_sink_frame_submit(frame_standard(0, now_ns())); /* before init: freed, counted */
	struct pp_cpu_event ev = { "x", "wait", 1, 1, 2, 0 };
	pp_attr_sink_cpu_event(&ev);
	struct attr_sink_counters c;
	pp_attr_sink_counters_get(&c);
	CHECK(c.frames_dropped == 1 && c.events_dropped == 1, "dropped before init");

	char dir[512];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	struct pp_settings set;
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	CHECK(pp_attr_sink_init(&set) == 0, "second init is a no-op");

	/* flooding faster than the writer drains: the queue drops instead of blocking */
	uint64_t base = now_ns();
	for (int i = 0; i < 10 * PP_SINK_QUEUE_FRAMES; i++)
		pp_attr_sink_frame_submit(frame_standard((uint64_t)i, base + (uint64_t)i * 1000000));
	for (int i = 0; i < 3 * PP_SINK_CPU_EVENTS; i++)
		pp_attr_sink_cpu_event(&ev);

	/* a forked child's exit must not touch the parent's writer or files (its frame is made
	 * before fork: the sanitizers' allocators are not fork-safe, see scenario_fork) */
	struct pp_frame_result *child_frame = frame_standard(0, now_ns());
	pid_t child = fork();
	if (child == 0) {
		pp_attr_sink_frame_submit(child_frame);
		pp_attr_sink_shutdown();
		_exit(0);
	}
	pp_model_frame_result_free(child_frame);
	int status;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child shutdown was harmless");

	pp_attr_sink_shutdown();
	pp_attr_sink_shutdown(); /* idempotent */
	pp_attr_sink_frame_submit(frame_standard(0, base)); /* after shutdown: freed */
	pp_attr_sink_cpu_event(&ev);
	pp_attr_sink_counters_get(&c);
	CHECK(c.frames_processed + c.frames_dropped == 1 + 10 * PP_SINK_QUEUE_FRAMES + 1,
	      "every frame processed or counted as dropped: %" PRIu64 " + %" PRIu64,
	      c.frames_processed, c.frames_dropped);
	CHECK(c.events_dropped >= 1, "events dropped when full");
	CHECK(pp_attr_sink_init(&set) == 0, "init after shutdown is a no-op");
	pp_attr_sink_shutdown();
	outputs_make(dir);

	char path[600];
	path_make(path, sizeof(path), dir, "trace.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "trace still strict JSON after the child's exit");
	if (root)
		trace_check(root, true, getpid());
	pp_json_read_free(root);
	path_make(path, sizeof(path), dir, "report.json");
	root = json_load(path);
	uint64_t u = 0; /* printed by a failing check even when get_u found nothing */
	CHECK(root && get_u(root, "frames_dropped", &u) && u == c.frames_dropped - 1,
	      "report counts the dropped frames: %" PRIu64, u);
	pp_json_read_free(root);
}

/* Shutdown from a destructor at exit() while another thread still submits. */
static bool g_dtor_shutdown;

__attribute__((destructor)) static void test_dtor(void)
{
	if (g_dtor_shutdown)
		pp_attr_sink_shutdown();
}

static void *submitter(void *arg)
{
	uint64_t base = now_ns();
	for (uint64_t i = 0;; i++) {
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
		struct pp_cpu_event ev = { "record", "record", (uint32_t)gettid(), base, base + 10, 0 };
		pp_attr_sink_cpu_event(&ev);
		usleep(50);
	}
	return NULL;
}

static void scenario_exit(void)
{
	char dir[512], path[600], errpath[600];
	struct pp_json_value *root;
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	snprintf(errpath, sizeof(errpath), "%s/child.stderr", g_tmp);
	pid_t child = fork();
	if (child == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		struct pp_settings set;
		settings_make(&set, dir);
		pp_log_set_callback(NULL);
		pp_attr_sink_init(&set);
		g_dtor_shutdown = true;
		pthread_t t;
		pthread_create(&t, NULL, submitter, NULL);
		usleep(300000);
		exit(0); /* the submitter is still running */
	}
	int status;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exited cleanly: %d", status);
	/* The submitter went on while the exit-time shutdown wrote the outputs: the frames it
	 * submitted after the recording's end are in neither report.json. */
	uint64_t dropped_process = UINT64_MAX, dropped_recording = 0;
	path_make(path, sizeof(path), dir, "report.json");
	root = json_load(path);
	if (!root || !get_u(root, "frames_dropped", &dropped_process))
		dropped_process = UINT64_MAX;
	pp_json_read_free(root);
	outputs_make(dir);
	root = json_load(path);
	CHECK(root && get_u(root, "frames_dropped", &dropped_recording) && dropped_recording == dropped_process,
	      "frames dropped: %" PRIu64 " in the process's report.json, %" PRIu64 " in the recording's",
	      dropped_process, dropped_recording);
	pp_json_read_free(root);
	root = json_load(path);
	CHECK(root != NULL, "trace.json closed by the exit-time shutdown");
	pp_json_read_free(root);
	CHECK(report_frames_total(dir) > 0, "final report.json");
	size_t len;
	char *err = file_read(errpath, &len);
	CHECK(err && strstr(err, "per-pass GPU time over"), "summary at exit");
	free(err);
}

/* ---- scenario: fork while the writer and another thread hold the sink's locks ---------- */

static bool g_flood_stop; /* atomic */

static void *flooder(void *arg)
{
	/* Frame indices of the two threads interleave, so their submissions' numbers (and the
	 * trace's flow events) never collide. */
	uint64_t k = (uint64_t)(uintptr_t)arg, n = 0;
	uint64_t base = now_ns();
	struct attr_sink_counters c;
	uint64_t last = 0;
	/* Lock traffic without let-up, but a frame a millisecond at most: the outputs stay
	 * small. */
	while (!__atomic_load_n(&g_flood_stop, __ATOMIC_RELAXED)) {
		pp_attr_sink_counters_get(&c);
		device_register_test();
		if (now_ns() - last >= 1000000) {
			last = now_ns();
			uint64_t index = 2 * n++ + k;
			pp_attr_sink_frame_submit(frame_standard(index, base + index * 1000000));
			struct pp_cpu_event ev = { "record", "record", (uint32_t)gettid(), base, base + 10, 0 };
			pp_attr_sink_cpu_event(&ev);
		}
	}
	return NULL;
}

/* Each child does what passprobe may do in a forked child before it execs or exits: submit
 * a frame and an event, register a device, start the sink, shut it down (the exit-time
 * destructor). None may wait for a lock a thread of the parent held at fork(); SIGALRM turns
 * a hang into a failure. */
static int fork_child(const struct pp_settings *set)
{
	alarm(10); /* a child takes well under a millisecond; the margin is for a loaded machine */
	struct attr_sink_counters before, after;
	pp_attr_sink_counters_get(&before);
	pp_attr_sink_frame_submit(frame_standard(0, now_ns()));
	struct pp_cpu_event ev = { "x", "wait", 1, 1, 2, 0 };
	pp_attr_sink_cpu_event(&ev);
	device_register_test();
	if (pp_attr_sink_init(set) != 0)
		return 3;
	pp_attr_sink_frame_submit(frame_standard(1, now_ns()));
	pp_attr_sink_counters_get(&after);
	pp_attr_sink_shutdown();
	/* the child's sink is closed: its frames are freed and counted, never queued (what
	 * the parent had queued stays, untouched) */
	if (after.queued != before.queued || after.frames_dropped != before.frames_dropped + 2)
		return 4;
	return 0;
}

static int scenario_fork(void)
{
#if UNDER_SANITIZER
	/* GCC 12's AddressSanitizer and ThreadSanitizer allocators do not hold their locks
	 * across fork(): a child that allocates hangs where another thread was allocating at
	 * that instant, whatever passprobe does (seen with both). glibc's malloc is fork-safe;
	 * the plain build runs this scenario. */
	printf("skipped under a sanitizer: its allocator is not fork-safe\n");
	return 77;
#endif
	char dir[512], path[600];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	struct pp_settings set;
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, flooder, (void *)(uintptr_t)i);
	fflush(NULL); /* the children must not write the parent's buffered output again */

	enum { FORKS = 300 };
	int hung = 0, failed = 0, last_status = 0;
	for (int i = 0; i < FORKS; i++) {
		pid_t child = fork();
		if (child == 0)
			_exit(fork_child(&set));
		int status;
		waitpid(child, &status, 0);
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++, last_status = status;
		if (hung || failed)
			break; /* one is enough, and a hung child costs its alarm */
	}
	CHECK(hung == 0, "a forked child hung on a lock held at fork()");
	CHECK(failed == 0, "a forked child failed: status %#x", last_status);

	__atomic_store_n(&g_flood_stop, true, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pp_attr_sink_shutdown();
	struct attr_sink_counters c;
	pp_attr_sink_counters_get(&c);
	CHECK(c.frames_processed > 0, "the parent's frames were written: %" PRIu64,
	      c.frames_processed);
	outputs_make(dir);
	path_make(path, sizeof(path), dir, "trace.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "trace.json is strict JSON: no child wrote to it");
	if (root && !hung) /* after a hang the trace is long enough to make this slow */
		trace_check(root, true, getpid());
	pp_json_read_free(root);
	CHECK(report_frames_total(dir) > 0, "the parent's report.json");
	return 0;
}

/* ---- scenario: report.json's window read back across the recording's string tables ---- */

/* A program that names every pass anew every frame: the recording's writer empties its string
 * table every 100 frames or so, three times within report.json's window of 300. The window
 * keeps the recorded frames as their records' bytes and reads them back at exit with the
 * strings the writer kept for them: every kept frame's passes carry their own names. */
static void scenario_report_names(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	struct pp_settings set;
	settings_make(&set, dir);
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	enum { FRAMES = 1200, PASSES = 20 };
	struct pass_spec ps[PASSES];
	char names[PASSES][32];
	struct sub_spec sub = { 0, 0, PASSES, false };
	uint64_t base = now_ns();
	for (uint64_t i = 0; i < FRAMES; i++) {
		for (int k = 0; k < PASSES; k++) {
			snprintf(names[k], sizeof(names[k]), "frame %" PRIu64 " pass %d", i, k);
			ps[k] = (struct pass_spec){ names[k], PP_PASS_RENDER, 0, k * 1000, k * 1000 + 500, 500,
						    false, 0x7f, 3, 0 };
		}
		sub.seq = i;
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_make(i, 0, base + i * 100000, &sub, 1, ps, PASSES));
	}
	pp_attr_sink_shutdown();

	char path[512];
	path_make(path, sizeof(path), dir, "report.json");
	struct pp_json_value *root = json_load(path);
	CHECK(root != NULL, "report.json");
	const struct pp_json_value *frames = get(root, "frames");
	CHECK(pp_json_read_array_size(frames) == 300, "300 frames kept: %zu", pp_json_read_array_size(frames));
	unsigned wrong = 0;
	for (size_t i = 0; i < pp_json_read_array_size(frames); i++) {
		const struct pp_json_value *fr = pp_json_read_array_at(frames, i);
		uint64_t index = 0, draws = 0;
		const struct pp_json_value *passes = get(fr, "passes");
		wrong += !get_u(fr, "index", &index) || index != FRAMES - 300 + i ||
			 pp_json_read_array_size(passes) != PASSES;
		for (size_t k = 0; k < pp_json_read_array_size(passes); k++) {
			const struct pp_json_value *p = pp_json_read_array_at(passes, k);
			char want[32];
			snprintf(want, sizeof(want), "frame %" PRIu64 " pass %zu", index, k);
			wrong += strcmp(get_s(p, "name") ?: "", want) != 0 || !get_u(get(p, "workload"), "draws", &draws) ||
				 draws != 3;
		}
	}
	CHECK(wrong == 0, "every kept frame's passes read back with their names: %u wrong", wrong);
	pp_json_read_free(root);
}

/* ---- scenario: bounded memory --------------------------------------------------------- */

static void scenario_memory(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	struct pp_settings set;
	settings_make(&set, dir);
	set.report_frames = 10;
	set.trace = false; /* 100k frames of trace would be hundreds of MB of disk; see memory_streams */
	set.csv = false;
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");

	/* 2000 distinct names over the run: past the name cap */
	struct pass_spec ps[4];
	char names[4][32];
	struct sub_spec sub = { 0, 0, 4, false };
	uint64_t base = now_ns();
	size_t at10k = 0, at100k = 0;
	for (uint64_t i = 0; i < 100000; i++) {
		for (int k = 0; k < 4; k++) {
			snprintf(names[k], sizeof(names[k]), "pass-%" PRIu64, (i * 4 + (uint64_t)k) % 2000);
			/* durations from 500 ns to 1.3 us: 3 histogram octaves per name */
			ps[k] = (struct pass_spec){ names[k], PP_PASS_RENDER, 0, k * 2000,
						    k * 2000 + 500 + (int64_t)(i % 7) * 130, 0,
						    false, 0x7f, 3, 0 };
		}
		sub.seq = i;
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_make(i, 0, base + i * 100000, &sub, 1, ps, 4));
		if (i + 1 == 10000 || i + 1 == 100000) {
			processed_wait(i + 1);
			usleep(300000); /* let a report rewrite finish */
			size_t used = mallinfo2().uordblks;
			if (i + 1 == 10000)
				at10k = used;
			else
				at100k = used;
		}
	}
	struct attr_sink_counters c;
	pp_attr_sink_counters_get(&c);
	CHECK(c.frames_processed == 100000, "all frames processed: %" PRIu64, c.frames_processed);
	printf("heap in use: %zu bytes after 10k frames, %zu after 100k\n", at10k, at100k);
	if (!UNDER_SANITIZER)
		CHECK(at100k <= at10k + 64 * 1024, "heap does not grow with frames: %zu -> %zu", at10k,
		      at100k);
	pp_attr_sink_shutdown();
}

/* Same bound with trace.json and passes.csv streaming (fewer frames: they grow on disk). */
static void scenario_memory_streams(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/out", g_tmp);
	struct pp_settings set;
	settings_make(&set, dir);
	set.report_frames = 10;
	set.summary = false;
	CHECK(pp_attr_sink_init(&set) == 0, "init");
	uint64_t base = now_ns();
	size_t at5k = 0, at25k = 0;
	for (uint64_t i = 0; i < 25000; i++) {
		queue_wait_below(PP_SINK_QUEUE_FRAMES / 2);
		pp_attr_sink_frame_submit(frame_standard(i, base + i * 1000000));
		struct pp_cpu_event ev = { "vkWaitForFences", "wait", (uint32_t)gettid(),
					   base + i * 1000000, base + i * 1000000 + 100, 0 };
		pp_attr_sink_cpu_event(&ev);
		if (i + 1 == 5000 || i + 1 == 25000) {
			processed_wait(i + 1);
			usleep(300000);
			size_t used = mallinfo2().uordblks;
			if (i + 1 == 5000)
				at5k = used;
			else
				at25k = used;
		}
	}
	printf("heap in use: %zu bytes after 5k frames, %zu after 25k\n", at5k, at25k);
	if (!UNDER_SANITIZER)
		CHECK(at25k <= at5k + 64 * 1024, "heap does not grow with frames: %zu -> %zu", at5k,
		      at25k);
	pp_attr_sink_shutdown();
}

/* ---- main ----------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s stats|report|unmeasured|trace|trace_killed|report_killed|csv|"
			"unwritable_file|unwritable_proc|enospc|rofs|write_fail|lifecycle|fork|exit|"
			"memory|memory_streams|report_names\n", argv[0]);
		return 2;
	}
	pp_log_set_callback(log_capture);
	tmp_make();
	int skip = 0;
	const char *s = argv[1];
	if (!strcmp(s, "stats"))
		scenario_stats();
	else if (!strcmp(s, "report"))
		scenario_report();
	else if (!strcmp(s, "unmeasured"))
		scenario_unmeasured();
	else if (!strcmp(s, "trace"))
		scenario_trace();
	else if (!strcmp(s, "trace_killed"))
		scenario_trace_killed();
	else if (!strcmp(s, "report_killed"))
		scenario_report_killed();
	else if (!strcmp(s, "csv"))
		scenario_csv();
	else if (!strcmp(s, "unwritable_file"))
		scenario_unwritable_file();
	else if (!strcmp(s, "unwritable_proc"))
		scenario_unwritable_proc();
	else if (!strcmp(s, "enospc"))
		skip = scenario_enospc();
	else if (!strcmp(s, "rofs"))
		skip = scenario_rofs();
	else if (!strcmp(s, "write_fail"))
		scenario_write_fail();
	else if (!strcmp(s, "lifecycle"))
		scenario_lifecycle();
	else if (!strcmp(s, "fork"))
		skip = scenario_fork();
	else if (!strcmp(s, "exit"))
		scenario_exit();
	else if (!strcmp(s, "memory"))
		scenario_memory();
	else if (!strcmp(s, "memory_streams"))
		scenario_memory_streams();
	else if (!strcmp(s, "report_names"))
		scenario_report_names();
	else {
		fprintf(stderr, "unknown scenario %s\n", s);
		return 2;
	}
	pp_log_set_callback(NULL);
	if (getenv("PP_SINK_TEST_KEEP")) /* for looking at the files by hand */
		printf("outputs kept in %s\n", g_tmp);
	else
		rm_rf(g_tmp);
	if (check_finish())
		return 1;
	return skip;
}
