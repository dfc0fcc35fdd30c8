/* Sampled counters through the model (attribution/model/attr_device.c): a frame's passes get a
 * sampling backend's counters attributed by time overlap of its samples with their GPU
 * intervals, with the bounds and the shared flag, when the frame is assembled. A recording of
 * three passes is submitted to a real pp_attr_device whose GPU reads and sampling backend are
 * stand-ins with known times and samples (no GPU needed); the expected shares are worked out
 * in the comments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_device.h"
#include "pp_model.h"
#include "pp_check.h"

/* Passes A = [1000, 2000], B = [2000, 3000], C = [2500, 4000] (B and C overlap); a fourth, D,
 * without timestamps. Slots 2i, 2i+1 are pass i's begin and end. */
static const uint64_t k_ts[6] = { 1000, 2000, 2000, 3000, 2500, 4000 };

static void read_ts(void *ctx, const uint32_t *slots, uint32_t n, uint64_t submitted, uint64_t *ns, uint8_t *avail)
{
	(void)ctx;
	(void)submitted;
	for (uint32_t i = 0; i < n; i++) {
		ns[i] = slots[i] < 6 ? k_ts[slots[i]] : 0;
		avail[i] = 1;
	}
}

static const struct pp_gpu_counter_desc k_desc = { "test_sampler", "cycles", "cycles", "GPU", 1, false, "" };

static uint32_t set_count(void *ctx)
{
	(void)ctx;
	return 1;
}

static const struct pp_gpu_counter_desc *set_desc(void *ctx, uint32_t i)
{
	(void)ctx;
	return i == 0 ? &k_desc : NULL;
}

/* Samples [1000, 2000] 100, [2000, 3000] 60, [3000, 4000] 40, handed over once. */
static uint32_t take(void *ctx, struct pp_gpu_counter_sample *out, uint32_t max)
{
	int *taken = ctx;
	const uint64_t t[4] = { 1000, 2000, 3000, 4000 };
	const uint64_t v[3] = { 100, 60, 40 };
	if (*taken || max < 3)
		return 0;
	*taken = 1;
	for (int i = 0; i < 3; i++) {
		struct pp_gpu_counter_value *val = calloc(1, sizeof(*val));
		*val = (struct pp_gpu_counter_value){ .valid = true, .u = v[i] };
		out[i] = (struct pp_gpu_counter_sample){ t[i], t[i + 1], 1, val };
	}
	return 3;
}

static struct pp_frame_result *g_frame;

static void frame_out(struct pp_frame_result *f)
{
	if (g_frame)
		pp_model_frame_result_free(g_frame);
	g_frame = f;
}

static const struct pp_counter_value *cycles_of(const struct pp_pass_result *p)
{
	return pp_model_pass_counter_find(p, "test_sampler", "cycles");
}

static void expect(const char *what, const struct pp_counter_value *c, double est, double lo, double hi, bool shared)
{
	CHECK(c && c->v.valid && c->estimated && c->v.f == est && c->lower == lo && c->upper == hi && c->shared == shared,
	      "%s: got %g [%g, %g] shared %d, want %g [%g, %g] shared %d", what, c ? c->v.f : -1, c ? c->lower : -1,
	      c ? c->upper : -1, c ? c->shared : -1, est, lo, hi, shared);
}

int main(void)
{
	int taken = 0;
	struct pp_gpu_counter_backend sampler = {
		.name = "test_sampler",
		.method = PP_GPU_COUNTERS_SAMPLED,
		.ctx = &taken,
		.set_count = set_count,
		.set_desc = set_desc,
		.samples_take = take,
	};
	struct pp_attr_gpu_ops ops = { .read_timestamps = read_ts, .sampled = &sampler };
	struct pp_settings s;
	pp_settings_defaults(&s);
	struct pp_attr_device *d = pp_attr_device_create(&ops, frame_out, 0, &s);
	struct pp_attr_queue *q = pp_attr_device_queue_create(d, 0x10, 0, 0);
	struct pp_recording *r = pp_attr_record_create(false);
	for (uint32_t i = 0; i < 4; i++) {
		struct pp_pass_rec *p = pp_attr_record_pass_begin(r, PP_PASS_RENDER, "vkCmdBeginRenderPass", PP_REC_RENDER);
		if (i < 3) {
			p->ts_begin = 2 * i;
			p->ts_end = 2 * i + 1;
		} else {
			p->ts_reason = "no timestamps in this test";
		}
		pp_attr_record_pass_end(r);
	}
	uint64_t handle = 0xcb;
	struct pp_attr_submit_info info = {
		.api = "vkQueueSubmit",
		.cpu_begin_ns = 500,
		.cpu_end_ns = 600,
		.nrecordings = 1,
		.recordings = &r,
		.command_buffer_handles = &handle,
		.signals_fence = true,
	};
	pp_attr_device_submit(d, q, &info);
	pp_attr_device_submit_done(d, PP_SUBMIT_FENCE, false);
	pp_attr_device_poll(d);
	CHECK(g_frame && g_frame->npasses == 4, "one frame of four passes");
	if (g_frame && g_frame->npasses == 4) {
		/* A: the first sample lies wholly inside it and nothing else runs: exactly 100 */
		expect("A", cycles_of(&g_frame->passes[0]), 100, 100, 100, false);
		/* B: [2000, 2500] of the second sample alone (30), [2500, 3000] shared with C (15):
		 * 45; no sample wholly its own; the second sample could all be B's (60) */
		expect("B", cycles_of(&g_frame->passes[1]), 45, 0, 60, true);
		/* C: 15 of the second sample, the third (inside C, B ended at 3000) all: 55, at
		 * least 40, at most 100 */
		expect("C", cycles_of(&g_frame->passes[2]), 55, 40, 100, true);
		const struct pp_counter_value *dv = cycles_of(&g_frame->passes[3]);
		CHECK(dv && !dv->v.valid && dv->unavailable_reason, "D, without a GPU interval: unavailable with a reason");
	}
	pp_attr_device_recording_release(d, r);
	pp_attr_device_queue_destroy(q);
	pp_attr_device_destroy(d);
	pp_attr_record_destroy(r);
	pp_model_frame_result_free(g_frame);
	return check_finish();
}
