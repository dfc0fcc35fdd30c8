/* The model's submission (attribution/model/attr_device.c) on real recordings and real CPU
 * snapshots, the GPU reads stand-ins (no GPU needed):
 * - spans: a pass's CPU span reaches the frame as its snapshots (cpu_pending); the passes of a
 *   recording that follow one another share a boundary (cpu_begin_prev), never across
 *   recordings nor after a resumed pass merged into an earlier result; each pass's thread CPU
 *   time before the spans are subtracted is the one after, and each cost is the delta of the
 *   recording's own snapshots;
 * - blocks: submissions of 3, 1, 6 and 2 passes, one a frame, reuse the last submission's
 *   block when it is large enough (smaller and larger ones in turn): every frame's passes are
 *   its own, with its reasons (run under ASan in CI, where a block too small is an error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "attr_device.h"
#include "pp_check.h"

static void read_ts(void *ctx, const uint32_t *slots, uint32_t n, uint64_t submitted, uint64_t *ns, uint8_t *avail)
{
	(void)ctx;
	(void)submitted;
	for (uint32_t i = 0; i < n; i++) {
		ns[i] = 1000 + 100 * (uint64_t)slots[i];
		avail[i] = 1;
	}
}

#define FRAMES_MAX 8
static struct pp_frame_result *g_frames[FRAMES_MAX];
static unsigned g_nframes;

static void frame_out(struct pp_frame_result *f)
{
	if (g_nframes < FRAMES_MAX)
		g_frames[g_nframes++] = f;
	else
		pp_model_frame_result_free(f);
}

static void frames_free(void)
{
	for (unsigned i = 0; i < g_nframes; i++)
		pp_model_frame_result_free(g_frames[i]);
	g_nframes = 0;
}

/* Some work on the recording thread, so that spans differ. */
static volatile uint64_t g_sink;
static void burn(unsigned n)
{
	for (unsigned i = 0; i < n * 20000; i++)
		g_sink += i;
}

static struct pp_pass_rec *pass(struct pp_recording *r, uint32_t flags, unsigned work)
{
	struct pp_pass_rec *p = pp_attr_record_pass_begin(r, PP_PASS_RENDER, "vkCmdBeginRendering", PP_REC_RENDER);
	p->flags |= flags;
	p->ts_reason = "no timestamps in this test";
	burn(work);
	pp_attr_record_pass_end(r);
	return p;
}

static void submit(struct pp_attr_device *d, struct pp_attr_queue *q, struct pp_recording **recs, uint32_t n)
{
	uint64_t handles[4] = { 0xc0, 0xc1, 0xc2, 0xc3 };
	struct pp_attr_submit_info info = { .api = "vkQueueSubmit", .cpu_begin_ns = 500, .cpu_end_ns = 600,
					    .nrecordings = n, .recordings = recs, .command_buffer_handles = handles,
					    .signals_fence = true };
	pp_attr_device_submit(d, q, &info);
	pp_attr_device_submit_done(d, PP_SUBMIT_FENCE, false);
	pp_attr_device_poll(d);
}

/* The cost the recording's own snapshots give pass k of r (begun at its own snapshot or at its
 * predecessor's end). */
static struct pp_cpu_cost cost_of(const struct pp_recording *r, uint32_t k)
{
	struct pp_cpu_cost c = { 0 };
	pp_attr_cpu_cost_add_span(&c, pp_attr_record_pass_cpu_begin(&r->passes[k]), &r->passes[k].cpu_end);
	return c;
}

static void test_spans(struct pp_attr_device *d, struct pp_attr_queue *q)
{
	struct pp_recording *a = pp_attr_record_create(false), *b = pp_attr_record_create(false);
	/* a: three passes one after the other, the last suspended; b: resumes it, then two more */
	pass(a, 0, 1);
	pass(a, 0, 3);
	pass(a, PP_PASS_SUSPENDING, 2);
	pass(b, PP_PASS_RESUMING, 1);
	pass(b, 0, 2);
	pass(b, 0, 1);
	struct pp_recording *recs[2] = { a, b };
	submit(d, q, recs, 2);
	CHECK(g_nframes == 1 && g_frames[0]->npasses == 5, "one frame of five passes (the resumed one merged)");
	if (g_nframes != 1 || g_frames[0]->npasses != 5)
		return;
	struct pp_frame_result *f = g_frames[0];
	const struct pp_pass_result *p = f->passes;
	CHECK(p[0].cpu_pending && !p[0].cpu_begin_prev, "a's first pass: its own begin");
	CHECK(p[1].cpu_pending && p[1].cpu_begin_prev, "a's second pass: begins at the first's end");
	CHECK(!p[2].cpu_pending && p[2].cpu.valid && p[2].cpu.spans == 2,
	      "the suspended pass and its resumption: one cost of two spans, summed at the submit");
	CHECK(p[3].cpu_pending && !p[3].cpu_begin_prev,
	      "b's pass after the resumed one: not chained to a result that is not its predecessor's");
	CHECK(p[4].cpu_pending && p[4].cpu_begin_prev, "b's last pass: begins at the one before");

	uint64_t before[5];
	bool measured[5];
	for (int i = 0; i < 5; i++)
		measured[i] = pp_attr_cpu_pass_thread_ns(&p[i], &before[i]);
	pp_attr_cpu_frame_result_resolve(f);
	const struct { const struct pp_recording *r; uint32_t k; } from[5] = { { a, 0 }, { a, 1 }, { a, 2 }, { b, 1 }, { b, 2 } };
	for (int i = 0; i < 5; i++) {
		CHECK(!p[i].cpu_pending && p[i].cpu.valid, "pass %d: its cost after the spans are subtracted", i);
		CHECK(measured[i] && before[i] == p[i].cpu.thread_cpu_ns,
		      "pass %d: the thread CPU time before subtracting (%llu) is the cost's (%llu)", i,
		      (unsigned long long)before[i], (unsigned long long)p[i].cpu.thread_cpu_ns);
		if (i == 2)
			continue;
		struct pp_cpu_cost want = cost_of(from[i].r, from[i].k);
		CHECK(want.wall_ns == p[i].cpu.wall_ns && want.thread_cpu_ns == p[i].cpu.thread_cpu_ns &&
			      want.begin_ns == p[i].cpu.begin_ns && want.counters_valid == p[i].cpu.counters_valid &&
			      !memcmp(want.counter, p[i].cpu.counter, sizeof(want.counter)),
		      "pass %d: the delta of its recording's snapshots", i);
	}
	struct pp_cpu_cost merged = cost_of(a, 2);
	struct pp_cpu_cost resumed = cost_of(b, 0);
	CHECK(p[2].cpu.wall_ns == merged.wall_ns + resumed.wall_ns, "the merged pass: both spans' wall time");
	frames_free();
	pp_attr_device_recording_release(d, a);
	pp_attr_device_recording_release(d, b);
	pp_attr_record_destroy(a);
	pp_attr_record_destroy(b);
}

static void test_blocks(struct pp_attr_device *d, struct pp_attr_queue *q)
{
	static const uint32_t sizes[] = { 3, 1, 6, 2 };
	struct pp_recording *r = pp_attr_record_create(false);
	for (unsigned k = 0; k < 4; k++) {
		pp_attr_device_recording_release(d, r);
		pp_attr_record_clear(r);
		for (uint32_t i = 0; i < sizes[k]; i++) {
			struct pp_pass_rec *p = pass(r, 0, 0);
			/* odd frames time their passes (slots 2i, 2i+1), even ones give a reason */
			if (k % 2) {
				p->ts_begin = 2 * i;
				p->ts_end = 2 * i + 1;
			}
		}
		submit(d, q, &r, 1);
	}
	CHECK(g_nframes == 4, "four frames, %u", g_nframes);
	for (unsigned k = 0; k < g_nframes && k < 4; k++) {
		const struct pp_frame_result *f = g_frames[k];
		CHECK(f->npasses == sizes[k] && f->nsubmissions == 1 && f->submissions[0].npasses == sizes[k],
		      "frame %u: its %u passes", k, sizes[k]);
		for (uint32_t i = 0; i < f->npasses; i++) {
			char want[32];
			snprintf(want, sizeof(want), "render#%u", i);
			const struct pp_pass_result *p = &f->passes[i];
			CHECK(!strcmp(p->name, want), "frame %u pass %u named %s", k, i, p->name);
			if (k % 2)
				CHECK(p->gpu.valid && p->gpu.begin_ns == 1000 + 200 * (uint64_t)i, "frame %u pass %u timed", k,
				      i);
			else
				CHECK(!p->gpu.valid && p->gpu.unavailable_reason &&
					      !strcmp(p->gpu.unavailable_reason, "no timestamps in this test"),
				      "frame %u pass %u: its reason", k, i);
		}
	}
	frames_free();
	pp_attr_device_recording_release(d, r);
	pp_attr_record_destroy(r);
}

int main(void)
{
	struct pp_attr_gpu_ops ops = { .read_timestamps = read_ts };
	struct pp_settings s;
	pp_settings_defaults(&s);
	struct pp_attr_device *d = pp_attr_device_create(&ops, frame_out, 0, &s);
	struct pp_attr_queue *q = pp_attr_device_queue_create(d, 0x10, 0, 0);
	test_spans(d, q);
	test_blocks(d, q);
	pp_attr_device_queue_destroy(q);
	pp_attr_device_destroy(d);
	pp_cpu_counters_snapshot_shutdown();
	return check_finish();
}
