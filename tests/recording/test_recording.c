/* The recording's format (attribution/recording, docs/report-format.md "The recording"):
 * round trip of every record type; a file cut at every byte of its last record reads up to the
 * record before; records of types this reader does not know are skipped and named; a newer
 * major version is refused, a newer minor read (fields beyond the known ones ignored), an
 * older minor's capture record read without what 1.3 added; a corrupted length ends the
 * readable part there; an id defined again keeps its first definition; frames kept as their
 * records' bytes read back with the writer's dictionary after its string table was emptied. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "pp_summary.h"
#include "rec_read.h"
#include "rec_write.h"
#include "pp_check.h"

/* ---- a file in memory ------------------------------------------------------------------ */

struct file {
	uint8_t *p;
	size_t len;
};

static void take(struct pp_rec_writer *w, struct file *f)
{
	size_t n;
	const uint8_t *p = pp_rec_write_take(w, &n);
	f->p = realloc(f->p, f->len + n);
	memcpy(f->p + f->len, p, n);
	f->len += n;
}

static const struct pp_gpu_counter_desc desc_stat = { "pipeline_statistics", "input_assembly_vertices", "vertices",
						      "", 1, false, "" };
static const struct pp_gpu_counter_desc desc_mali = { "mali_kbase", "GPU_ACTIVE", "cycles", "job manager", 1, true,
						      "cycles the GPU was active" };

/* A captured frame's diagnostics: a barrier in a command buffer, a wait outside any. */
static const struct pp_diagnostic_occurrence capture_diags[2] = {
	{ .id = "PASSPROBE-Barrier-FullPipelineDrain", .severity = "warning", .message = "drains",
	  .suggestion = "narrow it", .call = "vkCmdPipelineBarrier2", .call_index = 3,
	  .command_buffer = 0xdeadbeef0001ull },
	{ .id = "PASSPROBE-Blocking-QueueWaitIdle", .severity = "info", .message = "idles",
	  .suggestion = "", .call = "vkQueueWaitIdle", .call_index = 0, .command_buffer = 0 },
};

/* A recording thread's snapshots at three pass boundaries: values 0 and 2 measured, the
 * second from a software group (its times written too). */
static struct pp_cpu_snapshot snapshot_at_boundary(unsigned k)
{
	struct pp_cpu_snapshot s = { .wall_ns = 1000 + 700 * (uint64_t)k, .thread_cpu_ns = 900 + 500 * (uint64_t)k,
				     .valid = 5, .sw_mask = 4, .flags = PP_CPU_FLAG_RUSAGE | PP_CPU_FLAG_PERF_SW,
				     .tid = 77, .session = 3 };
	s.value[0] = 100 + 300 * (uint64_t)k;
	s.value[1] = 0xdead; /* not valid: not written */
	s.value[2] = 7 + 2 * (uint64_t)k;
	s.sw_time_enabled = s.sw_time_running = 5000 + 1000 * (uint64_t)k;
	return s;
}

/* A frame with every kind of value: two submissions, three passes (attachments, counters of
 * both value kinds, estimated and from another frame, draw timings, an unmeasured one, one
 * another layer recorded). An odd frame's first two passes have CPU spans still to subtract
 * (the second's beginning at the first's end), as the model hands them to the writer. */
static struct pp_frame_result *frame_make(uint64_t index)
{
	struct pp_frame_result *f = calloc(1, sizeof(*f));
	f->index = index;
	f->device_id = 1;
	f->delimiter = "present";
	f->cpu_begin_ns = 1000 + index;
	f->cpu_end_ns = 5000 + index;
	f->cpu = (struct pp_cpu_cost){ .valid = true, .begin_ns = 1000, .wall_ns = 40, .thread_cpu_ns = 30, .spans = 2,
				       .tid = 77, .counters_valid = 5, .counters_scaled = 4, .counter = { 11, 22, 33 } };
	f->gpu_timed = true;
	f->captured_by = "frames";
	f->renderdoc = index == 3;
	f->recordings_outside_window = 2;
	f->nsubmissions = 2;
	f->submissions = calloc(2, sizeof(*f->submissions));
	for (int i = 0; i < 2; i++) {
		struct pp_submission_result *s = &f->submissions[i];
		s->seq = 10 + (uint64_t)i;
		s->api = i ? "vkQueueSubmit2" : "vkQueueSubmit";
		s->queue_handle = 0xabc0 + (uint64_t)i;
		s->queue_family = 1;
		s->tid = 4242;
		s->cpu_begin_ns = 2000;
		s->cpu_end_ns = 2100;
		s->gpu = i ? (struct pp_gpu_interval){ .valid = false, .unavailable_reason = "no pass measured" }
			   : (struct pp_gpu_interval){ .valid = true, .begin_ns = 3000, .end_ns = 3500 };
		s->first_pass = (uint32_t)i * 2;
		s->npasses = i ? 1 : 2;
		s->command_buffers = 1;
	}
	f->npasses = 3;
	f->passes = calloc(3, sizeof(*f->passes));
	for (int i = 0; i < 3; i++) {
		struct pp_pass_result *p = &f->passes[i];
		snprintf(p->name, sizeof(p->name), i == 1 ? "render#%d" : "pass %d \xc3\xa9", i);
		p->name_source = i == 1 ? PP_NAME_GENERATED : PP_NAME_LABEL;
		p->kind = (enum pp_pass_kind)i;
		p->api = "vkCmdBeginRenderPass";
		p->submission = i == 2;
		p->command_buffer = (uint32_t)i;
		p->command_buffer_handle = 0x5000 + (uint64_t)i;
		p->subpasses = 1;
		p->suspended_resumed = i == 1;
		p->secondaries = (uint32_t)i;
		p->recorded_by = i == 2 ? "librenderdoc.so" : NULL;
		p->work = (struct pp_workload){ .draws = 8, .vertices = 2592 + (uint64_t)i, .copy_bytes = 1u << 20,
						.barriers = 3 };
		p->nattachments = 2;
		p->attachments[0] = (struct pp_attachment){ "R8G8B8A8_UNORM", "CLEAR", "STORE", 64, 32, 1, 1, false, false, 0 };
		p->attachments[1] = (struct pp_attachment){ "D32_SFLOAT", "DONT_CARE", "NONE", 64, 32, 1, 4, true, true, 0 };
		if (i == 2) {
			p->gpu = (struct pp_gpu_interval){ .valid = false, .unavailable_reason = "not a GPU-timed frame" };
		} else {
			p->gpu = (struct pp_gpu_interval){ .valid = true, .begin_ns = 3000 + (uint64_t)i, .end_ns = 3400 };
			p->gpu_exclusive_ns = 350;
			p->overlapped = i == 1;
		}
		p->cpu = f->cpu;
		if (index % 2 && i < 2) {
			p->cpu.valid = false;
			p->cpu_pending = true;
			p->cpu_begin_prev = i == 1;
			if (i == 0)
				p->cpu_begin = snapshot_at_boundary(0);
			p->cpu_end = snapshot_at_boundary((unsigned)i + 1);
		}
		p->recording_reused = i == 1;
		/* the experiment: an arm with sites on two passes, none on the third */
		p->exp_arm = i == 2 ? PP_EXP_ARM_NONE : i ? PP_EXP_ARM_FIXED : PP_EXP_ARM_AS_WRITTEN;
		p->exp_seen = i == 2 ? 0 : 0x8000000000000005ull;
		p->exp_fixed = i == 1 ? 4 : 0;
		p->ncounters = 3;
		p->counters = calloc(3, sizeof(*p->counters));
		p->counters[0] = (struct pp_counter_value){ .desc = &desc_stat, .v = { .valid = true, .u = 2592 } };
		p->counters[1] = (struct pp_counter_value){ .desc = &desc_mali,
							    .v = { .valid = true, .is_float = true, .f = 1532.5 },
							    .estimated = true, .lower = 0, .upper = 3065, .shared = true };
		p->counters[2] = (struct pp_counter_value){ .desc = &desc_mali, .v = { .valid = i == 0 },
							    .unavailable_reason = i ? "no counter sample covers the pass" : NULL,
							    .other_frame = i == 0, .frame = 7 };
		if (i == 0) {
			p->ndraw_timings = 2;
			p->draw_timings = calloc(2, sizeof(*p->draw_timings));
			p->draw_timings[0] = (struct pp_draw_timing){ 0, { 3000, 3100, true, NULL } };
			p->draw_timings[1] = (struct pp_draw_timing){ 1, { 0, 0, false, "query pool exhausted" } };
		}
	}
	return f;
}

static bool str_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool cost_same(const struct pp_cpu_cost *a, const struct pp_cpu_cost *b, unsigned ncounters)
{
	if (a->valid != b->valid)
		return false;
	if (!a->valid)
		return true;
	return a->begin_ns == b->begin_ns && a->wall_ns == b->wall_ns && a->thread_cpu_ns == b->thread_cpu_ns &&
	       a->spans == b->spans && a->tid == b->tid && a->counters_valid == b->counters_valid &&
	       a->counters_scaled == b->counters_scaled && !memcmp(a->counter, b->counter, ncounters * 8);
}

static bool interval_same(const struct pp_gpu_interval *a, const struct pp_gpu_interval *b)
{
	return a->valid == b->valid &&
	       (a->valid ? a->begin_ns == b->begin_ns && a->end_ns == b->end_ns
			 : str_same(a->unavailable_reason, b->unavailable_reason));
}

static void frame_compare(const struct pp_frame_result *a, const struct pp_frame_result *b, unsigned ncpu)
{
	CHECK(a->index == b->index && a->device_id == b->device_id && str_same(a->delimiter, b->delimiter), "frame head");
	CHECK(a->cpu_begin_ns == b->cpu_begin_ns && a->cpu_end_ns == b->cpu_end_ns, "frame times");
	CHECK(cost_same(&a->cpu, &b->cpu, ncpu) && cost_same(&a->blocked, &b->blocked, ncpu), "frame costs");
	CHECK(a->gpu_timed == b->gpu_timed && a->renderdoc == b->renderdoc &&
		      a->renderdoc_requested == b->renderdoc_requested && str_same(a->captured_by, b->captured_by) &&
		      a->recordings_outside_window == b->recordings_outside_window,
	      "frame flags");
	CHECK(a->nsubmissions == b->nsubmissions && a->npasses == b->npasses, "counts %zu/%zu %zu/%zu", a->nsubmissions,
	      b->nsubmissions, a->npasses, b->npasses);
	for (size_t i = 0; i < a->nsubmissions && i < b->nsubmissions; i++) {
		const struct pp_submission_result *x = &a->submissions[i], *y = &b->submissions[i];
		CHECK(x->seq == y->seq && str_same(x->api, y->api) && x->queue_handle == y->queue_handle &&
			      x->queue_family == y->queue_family && x->queue_index == y->queue_index && x->tid == y->tid &&
			      x->cpu_begin_ns == y->cpu_begin_ns && x->cpu_end_ns == y->cpu_end_ns &&
			      interval_same(&x->gpu, &y->gpu) && x->first_pass == y->first_pass &&
			      x->npasses == y->npasses && x->command_buffers == y->command_buffers &&
			      cost_same(&x->cpu, &y->cpu, ncpu),
		      "submission %zu", i);
	}
	for (size_t i = 0; i < a->npasses && i < b->npasses; i++) {
		const struct pp_pass_result *x = &a->passes[i], *y = &b->passes[i];
		CHECK(!strcmp(x->name, y->name) && x->name_source == y->name_source && x->kind == y->kind &&
			      str_same(x->api, y->api) && x->submission == y->submission &&
			      x->command_buffer == y->command_buffer && x->command_buffer_handle == y->command_buffer_handle &&
			      x->subpasses == y->subpasses && x->suspended_resumed == y->suspended_resumed &&
			      x->secondaries == y->secondaries && str_same(x->recorded_by, y->recorded_by),
		      "pass %zu head (%s / %s)", i, x->name, y->name);
		CHECK(!memcmp(&x->work, &y->work, sizeof(x->work)), "pass %zu workload", i);
		CHECK(x->nattachments == y->nattachments, "pass %zu attachments", i);
		for (uint32_t k = 0; k < x->nattachments && k < y->nattachments; k++) {
			const struct pp_attachment *p = &x->attachments[k], *q = &y->attachments[k];
			CHECK(str_same(p->format, q->format) && str_same(p->load_op, q->load_op) &&
				      str_same(p->store_op, q->store_op) && p->width == q->width && p->height == q->height &&
				      p->layers == q->layers && p->samples == q->samples &&
				      p->depth_stencil == q->depth_stencil && p->resolve == q->resolve,
			      "pass %zu attachment %u", i, k);
		}
		CHECK(interval_same(&x->gpu, &y->gpu) && (!x->gpu.valid || (x->gpu_exclusive_ns == y->gpu_exclusive_ns &&
									   x->overlapped == y->overlapped)),
		      "pass %zu GPU", i);
		CHECK(cost_same(&x->cpu, &y->cpu, ncpu) && x->recording_reused == y->recording_reused, "pass %zu CPU", i);
		CHECK(x->exp_arm == y->exp_arm && x->exp_seen == y->exp_seen && x->exp_fixed == y->exp_fixed,
		      "pass %zu experiment: %u %llx %llx", i, y->exp_arm, (unsigned long long)y->exp_seen,
		      (unsigned long long)y->exp_fixed);
		CHECK(x->ncounters == y->ncounters, "pass %zu counters", i);
		for (uint32_t k = 0; k < x->ncounters && k < y->ncounters; k++) {
			const struct pp_counter_value *p = &x->counters[k], *q = &y->counters[k];
			CHECK(!strcmp(p->desc->source, q->desc->source) && !strcmp(p->desc->name, q->desc->name) &&
				      !strcmp(p->desc->unit, q->desc->unit) && !strcmp(p->desc->block, q->desc->block) &&
				      p->desc->per_instance == q->desc->per_instance &&
				      !strcmp(p->desc->description, q->desc->description),
			      "pass %zu counter %u description", i, k);
			CHECK(p->v.valid == q->v.valid && p->v.is_float == q->v.is_float && p->v.other_pass == q->v.other_pass &&
				      (p->v.is_float ? p->v.f == q->v.f : p->v.u == q->v.u) && p->estimated == q->estimated &&
				      (!p->estimated || (p->lower == q->lower && p->upper == q->upper)) &&
				      p->shared == q->shared && p->other_frame == q->other_frame &&
				      (!p->other_frame || p->frame == q->frame) &&
				      (p->v.valid || str_same(p->unavailable_reason, q->unavailable_reason)),
			      "pass %zu counter %u value", i, k);
		}
		CHECK(x->ndraw_timings == y->ndraw_timings, "pass %zu draw timings", i);
		for (uint32_t k = 0; k < x->ndraw_timings && k < y->ndraw_timings; k++)
			CHECK(x->draw_timings[k].index == y->draw_timings[k].index &&
				      interval_same(&x->draw_timings[k].gpu, &y->draw_timings[k].gpu),
			      "pass %zu draw timing %u", i, k);
	}
}

/* A frame read back against the one written: their CPU spans still to subtract, as written;
 * then everything, with the spans subtracted on both sides. An odd frame's cost in its place
 * is not measured (what a reader of format 1.3 shows, since it cannot add the spans): only the
 * field at the end of the record, read with the spans, makes it the frame's cost. */
static void frame_check(struct pp_frame_result *want, struct pp_frame_result *got, const struct pp_rec_record *rec,
			struct pp_rec_reader *r)
{
	for (size_t i = 0; i < want->npasses && i < got->npasses; i++) {
		const struct pp_pass_result *x = &want->passes[i], *y = &got->passes[i];
		CHECK(x->cpu_pending == y->cpu_pending && x->cpu_begin_prev == y->cpu_begin_prev,
		      "frame %llu pass %zu: CPU span pending %d/%d, begins at the previous end %d/%d",
		      (unsigned long long)want->index, i, x->cpu_pending, y->cpu_pending, x->cpu_begin_prev,
		      y->cpu_begin_prev);
		if (!x->cpu_pending || !y->cpu_pending)
			continue;
		const struct pp_cpu_snapshot *a = pp_model_pass_cpu_begin(y), *b = pp_model_pass_cpu_begin(x);
		CHECK(a->wall_ns == b->wall_ns && a->thread_cpu_ns == b->thread_cpu_ns && a->valid == b->valid &&
			      a->value[0] == b->value[0] && a->value[2] == b->value[2] && a->value[1] == 0 &&
			      a->sw_time_running == b->sw_time_running && a->session == b->session,
		      "pass %zu: its span's begin read back", i);
		CHECK(!memcmp(&x->cpu_end, &y->cpu_end, offsetof(struct pp_cpu_snapshot, value)) &&
			      y->cpu_end.value[2] == x->cpu_end.value[2],
		      "pass %zu: its span's end read back", i);
	}
	if (rec && want->index % 2) {
		/* The record as a 1.3 reader takes it: without the frame's last field. */
		struct pp_rec_record older = *rec;
		older.len -= 1 + (1 + 3 * 8 + 4 * 4 + 1 + 3 * 8); /* u8 and a cost of 3 counters */
		struct pp_frame_result *o;
		char err[256];
		CHECK(pp_rec_read_decode_frame(r, &older, &o, err, sizeof(err)) == 0 && !o->cpu.valid,
		      "frame %llu: its CPU cost in place says not measured", (unsigned long long)want->index);
		pp_model_frame_result_free(o);
	}
	pp_attr_cpu_frame_result_resolve(want);
	pp_attr_cpu_frame_result_resolve(got);
	CHECK(!(want->index % 2) || (want->passes[0].cpu.valid && want->passes[0].cpu.thread_cpu_ns == 500 &&
				     want->passes[0].cpu.counter[0] == 300 && want->cpu.thread_cpu_ns == 30 + 500),
	      "frame %llu: the spans subtracted (pass 0: %llu ns)", (unsigned long long)want->index,
	      (unsigned long long)want->passes[0].cpu.thread_cpu_ns);
	frame_compare(want, got, 3);
}

/* A recording of everything, and where its records begin. */
static struct file recording_make(size_t *starts, size_t *nstarts)
{
	struct file f = { 0 };
	struct pp_rec_writer *w = pp_rec_write_create();
	static const char *const counters[] = { "task-clock", "context-switches", "page-faults" };
	pp_rec_write_process(w, 4242, "demo", 123456789, counters, 3);
	pp_rec_write_settings(w, "log_level=warn\ntrace=on\n", 24);
	struct pp_device_info info = { .name = "llvmpipe", .driver = "0.0.1", .vendor_id = 0x10005,
				       .timestamp_period_ns = 1, .timestamp_valid_bits = 64,
				       .time_domain = "calibrated", .pipeline_statistics = true,
				       .query_results = PP_QUERY_RESULTS_COPIED };
	pp_rec_write_device(w, 1, &info);
	take(w, &f);
	*nstarts = 0;
	for (uint64_t i = 0; i < 4; i++) {
		starts[(*nstarts)++] = f.len;
		struct pp_frame_result *fr = frame_make(i);
		pp_rec_write_frame(w, fr, 3, false);
		pp_model_frame_result_free(fr);
		take(w, &f);
	}
	pp_rec_write_cpu_event(w, "vkQueuePresentKHR", "present", 77, 10, 20, 0);
	struct pp_diagnostic d = { .id = "PASSPROBE-Barrier-FullPipelineDrain", .device_id = 1, .site = "here",
				   .message = "drains", .suggestion = "narrow it", .count = 4, .frames = 4,
				   .last_frame = 3, .cost_valid = true, .cost_ns = 900, .cost_kind = "gpu_barrier_stall",
				   .share_of_frame = 0.25, .command_buffers = 2, .severity = "info",
				   .verdict = "little to gain: nothing else runs there",
				   .exp_state = PP_DIAG_EXP_STATE_WITHDRAWN, .exp_site = 63,
				   .exp_detail = "dstStageMask ALL_COMMANDS -> COMPUTE_SHADER",
				   .exp_why = "a recording it rewrote did not prove the fix again", .exp_fixed = 12,
				   .exp_frames_neither = 3 };
	for (int a = 0; a < 2; a++) {
		d.exp_arms[a].frames = 20 + (uint64_t)a;
		for (int m = 0; m < PP_EXP_METRICS; m++)
			d.exp_arms[a].m[m] = (struct pp_exp_stat){ 16 + (uint32_t)m, 100u * (uint64_t)(a + 1) + (uint64_t)m,
								   200u * (uint64_t)(a + 1), 300u * (uint64_t)(a + 1) + 7 };
	}
	pp_rec_write_diagnostics(w, &d, 1, 5);
	pp_rec_write_renderdoc(w, "/usr/lib/librenderdoc.so", "1.6.0");
	uint64_t frame = 3;
	pp_rec_write_capture(w, 1, &frame, true, "/tmp/cap.rdc", 1795760325, capture_diags, 2, 7);
	struct pp_summary sum;
	pp_summary_init(&sum);
	sum.frames = 4;
	sum.nrows = 1;
	sum.rows = calloc(1, sizeof(*sum.rows));
	pp_summary_row_init(&sum.rows[0]);
	snprintf(sum.rows[0].name, sizeof(sum.rows[0].name), "gbuffer");
	snprintf(sum.rows[0].kind, sizeof(sum.rows[0].kind), "render");
	sum.rows[0].count = 4;
	sum.rows[0].gpu_mean_ns = 350;
	pp_rec_write_summary(w, &sum);
	pp_summary_free(&sum);
	struct pp_frame_result *last = frame_make(9);
	pp_rec_write_frame(w, last, 3, true); /* past output_limit_mb, for the report only */
	pp_model_frame_result_free(last);
	starts[(*nstarts)++] = f.len + 0; /* (status and end follow in the same take) */
	take(w, &f);
	struct pp_rec_status st = { .frames_total = 4, .frames_dropped = 1, .bytes = 1234 };
	pp_rec_write_status(w, true, &st);
	take(w, &f);
	CHECK(!pp_rec_write_failed(w), "no write failed");
	pp_rec_write_destroy(w);
	return f;
}

static void test_round_trip(void)
{
	size_t starts[16], n;
	struct file f = recording_make(starts, &n);
	struct pp_rec_reader *r;
	char err[256];
	CHECK(pp_rec_read_open(f.p, f.len, &r, err, sizeof(err)) == 0, "open: %s", err);
	struct pp_rec_record rec;
	unsigned frames = 0, seen[PP_REC_TYPE_COUNT] = { 0 };
	while (pp_rec_read_next(r, &rec) == 1) {
		seen[rec.type]++;
		switch (rec.type) {
		case PP_REC_PROCESS: {
			struct pp_rec_process p;
			CHECK(pp_rec_read_decode_process(r, &rec, &p) == 0 && p.pid == 4242 && !strcmp(p.name, "demo") &&
				      p.trace_origin_ns == 123456789 && p.ncpu_counters == 3 &&
				      !strcmp(p.cpu_counters[2], "page-faults"),
			      "process");
			break;
		}
		case PP_REC_SETTINGS:
			CHECK(rec.len == 24 && !memcmp(rec.data, "log_level=warn\n", 15), "settings");
			break;
		case PP_REC_DEVICE: {
			uint32_t id;
			struct pp_device_info d;
			CHECK(pp_rec_read_decode_device(r, &rec, &id, &d) == 0 && id == 1 && !strcmp(d.name, "llvmpipe") &&
				      d.timestamp_valid_bits == 64 && !strcmp(d.query_results, PP_QUERY_RESULTS_COPIED) &&
				      d.notes == NULL,
			      "device");
			break;
		}
		case PP_REC_FRAME: {
			struct pp_frame_result *got, *want = frame_make(frames);
			CHECK(pp_rec_read_decode_frame(r, &rec, &got, err, sizeof(err)) == 0, "frame %u: %s", frames, err);
			if (got)
				frame_check(want, got, &rec, r);
			pp_model_frame_result_free(got);
			pp_model_frame_result_free(want);
			frames++;
			break;
		}
		case PP_REC_REPORT_FRAME: {
			struct pp_frame_result *got, *want = frame_make(9);
			CHECK(pp_rec_read_decode_frame(r, &rec, &got, err, sizeof(err)) == 0, "report frame: %s", err);
			if (got)
				frame_check(want, got, &rec, r);
			pp_model_frame_result_free(got);
			pp_model_frame_result_free(want);
			break;
		}
		case PP_REC_CPU_EVENT: {
			struct pp_rec_cpu_event e;
			CHECK(pp_rec_read_decode_cpu_event(r, &rec, &e) == 0 && !strcmp(e.name, "vkQueuePresentKHR") &&
				      !strcmp(e.category, "present") && e.tid == 77 && e.end_ns == 20,
			      "cpu event");
			break;
		}
		case PP_REC_DIAGNOSTICS: {
			struct pp_diagnostic *d;
			size_t nd;
			uint64_t other;
			CHECK(pp_rec_read_decode_diagnostics(r, &rec, &d, &nd, &other) == 0 && nd == 1 && other == 5 &&
				      !strcmp(d[0].id, "PASSPROBE-Barrier-FullPipelineDrain") && d[0].cost_ns == 900 &&
				      !strcmp(d[0].cost_kind, "gpu_barrier_stall") && d[0].share_of_frame == 0.25 &&
				      d[0].cost_unavailable == NULL && d[0].command_buffers == 2,
			      "diagnostics");
			CHECK(nd == 1 && d[0].severity && !strcmp(d[0].severity, "info") &&
				      !strcmp(d[0].verdict, "little to gain: nothing else runs there"),
			      "a diagnostic's severity and verdict");
			CHECK(nd == 1 && d[0].exp_state == PP_DIAG_EXP_STATE_WITHDRAWN && d[0].exp_site == 63 &&
				      !strcmp(d[0].exp_detail, "dstStageMask ALL_COMMANDS -> COMPUTE_SHADER") &&
				      !strcmp(d[0].exp_why, "a recording it rewrote did not prove the fix again") &&
				      d[0].exp_fixed == 12 && d[0].exp_frames_neither == 3,
			      "diagnostics: the experiment");
			for (int a = 0; nd == 1 && a < 2; a++) {
				CHECK(d[0].exp_arms[a].frames == 20 + (uint64_t)a, "arm %d frames", a);
				for (int m = 0; m < PP_EXP_METRICS; m++) {
					const struct pp_exp_stat *s = &d[0].exp_arms[a].m[m];
					CHECK(s->n == 16 + (uint32_t)m && s->p25 == 100u * (uint64_t)(a + 1) + (uint64_t)m &&
						      s->p50 == 200u * (uint64_t)(a + 1) && s->p75 == 300u * (uint64_t)(a + 1) + 7,
					      "arm %d metric %d", a, m);
				}
			}
			free(d);
			break;
		}
		case PP_REC_RENDERDOC: {
			struct pp_rec_renderdoc rd;
			CHECK(pp_rec_read_decode_renderdoc(&rec, &rd) == 0 && !strcmp(rd.api_version, "1.6.0"), "renderdoc");
			break;
		}
		case PP_REC_CAPTURE: {
			struct pp_rec_capture c;
			CHECK(pp_rec_read_decode_capture(&rec, &c) == 0 && c.frame_known && c.frame == 3 && c.requested &&
				      !strcmp(c.path, "/tmp/cap.rdc") && c.timestamp == 1795760325,
			      "capture");
			CHECK(c.ndiags == 2 && c.diags_dropped == 7, "the capture's diagnostics: %u, %llu dropped", c.ndiags,
			      (unsigned long long)c.diags_dropped);
			for (uint32_t i = 0; i < c.ndiags && i < 2; i++) {
				const struct pp_diagnostic_occurrence *a = &c.diags[i], *b = &capture_diags[i];
				CHECK(!strcmp(a->id, b->id) && !strcmp(a->severity, b->severity) &&
					      !strcmp(a->message, b->message) && !strcmp(a->suggestion, b->suggestion) &&
					      !strcmp(a->call, b->call) && a->call_index == b->call_index &&
					      a->command_buffer == b->command_buffer,
				      "the capture's diagnostic %u read back as written", i);
			}
			pp_rec_read_capture_free(&c);
			break;
		}
		case PP_REC_SUMMARY: {
			struct pp_summary s;
			CHECK(pp_rec_read_decode_summary(&rec, &s) == 0 && s.frames == 4 && s.nrows == 1 &&
				      !strcmp(s.rows[0].name, "gbuffer") && s.rows[0].gpu_mean_ns == 350 &&
				      isnan(s.rows[0].gpu_p95_ns),
			      "summary");
			pp_summary_free(&s);
			break;
		}
		case PP_REC_END: {
			struct pp_rec_status st;
			CHECK(pp_rec_read_decode_status(&rec, &st) == 0 && st.frames_total == 4 && st.frames_dropped == 1 &&
				      st.bytes == 1234,
			      "end");
			break;
		}
		default:
			CHECK(false, "type %d returned", rec.type);
		}
	}
	CHECK(frames == 4, "4 frames, read %u", frames);
	/* Strings and counter descriptions are taken in by the reader (the frames above have them). */
	for (int t = PP_REC_PROCESS; t < PP_REC_TYPE_COUNT; t++)
		CHECK(t == PP_REC_STATUS || t == PP_REC_COUNTER_DESC || seen[t] >= 1, "a record of type %s read",
		      pp_rec_write_type_names[t]);
	const struct pp_rec_read_notes *notes = pp_rec_read_notes_get(r);
	CHECK(notes->ended && !notes->cut_bytes && !notes->unknown_records, "a whole file, ended");
	pp_rec_read_close(r);
	free(f.p);
}

/* Reads everything; returns the frames read and the notes. */
static unsigned read_all(const uint8_t *p, size_t len, struct pp_rec_read_notes *notes, int *open_rc)
{
	struct pp_rec_reader *r;
	char err[256];
	*open_rc = pp_rec_read_open(p, len, &r, err, sizeof(err));
	if (*open_rc)
		return 0;
	struct pp_rec_record rec;
	unsigned frames = 0;
	while (pp_rec_read_next(r, &rec) == 1) {
		if (rec.type != PP_REC_FRAME)
			continue;
		struct pp_frame_result *f;
		if (pp_rec_read_decode_frame(r, &rec, &f, err, sizeof(err)) == 0) {
			frames++;
			pp_model_frame_result_free(f);
		}
	}
	*notes = *pp_rec_read_notes_get(r);
	pp_rec_read_close(r);
	return frames;
}

/* A process killed while writing leaves the file cut anywhere: at every byte of the last frame
 * record, the three frames before read whole and the rest is said to be cut. */
static void test_truncation(void)
{
	size_t starts[16], n;
	struct file f = recording_make(starts, &n);
	size_t last = starts[3], end = starts[4];
	unsigned bad = 0;
	for (size_t cut = last; cut < end; cut++) {
		struct pp_rec_read_notes notes;
		int rc;
		unsigned frames = read_all(f.p, cut, &notes, &rc);
		bool ok = rc == 0 && frames == 3 && !notes.ended && (cut == last ? notes.cut_bytes == 0 : notes.cut_bytes == cut - last) &&
			  (cut == last || notes.cut_offset == last);
		bad += !ok;
		if (!ok && bad < 5)
			fprintf(stderr, "  cut at %zu: rc %d, %u frames, cut_bytes %llu\n", cut, rc, frames,
				(unsigned long long)notes.cut_bytes);
	}
	CHECK(bad == 0, "%u of %zu cut points misread", bad, end - last);
	/* Inside the header: refused with a reason. */
	for (size_t cut = 0; cut < 16; cut++) {
		struct pp_rec_read_notes notes;
		int rc;
		read_all(f.p, cut, &notes, &rc);
		CHECK(rc == -EINVAL, "header cut at %zu refused", cut);
	}
	free(f.p);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* The diagnostics record of a writer of an older minor version: the element ends cut_bytes
 * earlier (the fields that minor did not have), the header says minor. Returns the one
 * diagnostic decoded (to free()), or NULL. */
static struct pp_diagnostic *diagnostic_of_older_minor(const struct pp_diagnostic *d, uint16_t minor, uint32_t cut_bytes)
{
	struct pp_rec_writer *w = pp_rec_write_create();
	pp_rec_write_diagnostics(w, d, 1, 0);
	size_t len;
	const uint8_t *p = pp_rec_write_take(w, &len);
	uint8_t *q = malloc(len);
	memcpy(q, p, len);
	memcpy(q + 10, &minor, 2);
	uint32_t types_len;
	memcpy(&types_len, q + 12, 4);
	size_t at = 16 + types_len, last = at;
	for (uint32_t l; at < len; at += 8 + l) {
		memcpy(&l, q + at + 4, 4);
		last = at;
	}
	uint32_t rl, el;
	memcpy(&rl, q + last + 4, 4);
	memcpy(&el, q + last + 8 + 12, 4); /* after the record header: u64 other, u32 count */
	put32(q + last + 4, rl - cut_bytes);
	put32(q + last + 8 + 12, el - cut_bytes);
	struct pp_rec_reader *r;
	char err[256];
	struct pp_diagnostic *out = NULL;
	CHECK(pp_rec_read_open(q, len - cut_bytes, &r, err, sizeof(err)) == 0, "minor %u: open: %s", minor, err);
	struct pp_rec_record rec;
	while (r && pp_rec_read_next(r, &rec) == 1) {
		if (rec.type != PP_REC_DIAGNOSTICS)
			continue;
		struct pp_diagnostic *x;
		size_t n;
		uint64_t other;
		CHECK(pp_rec_read_decode_diagnostics(r, &rec, &x, &n, &other) == 0 && n == 1, "minor %u diagnostics decode",
		      minor);
		if (n == 1 && (out = malloc(sizeof(*out)))) {
			/* The reader's texts (severity) live as long as the reader. */
			*out = x[0];
			out->severity = x[0].severity ? (strcmp(x[0].severity, "info") ? "?" : "info") : NULL;
		}
		free(x);
	}
	CHECK(out != NULL, "minor %u: the diagnostics record read", minor);
	if (r)
		pp_rec_read_close(r);
	pp_rec_write_destroy(w);
	free(q);
	return out;
}

/* Diagnostic elements of minor 1 end before the experiment's fields (they read as "no
 * experiment": state none, no site), of minor 0 also before the severity and its verdict
 * (none); the rest as written. */
static void test_older_minor(void)
{
	struct pp_diagnostic d = { .id = "PASSPROBE-Barrier-Mergeable", .site = "s", .count = 2, .command_buffers = 2,
				   .severity = "info", .verdict = "why", .exp_state = PP_DIAG_EXP_STATE_IN, .exp_site = 3 };
	/* The experiment's fields with empty texts: state, site, two texts, rewritten, the two arms
	 * (frames, three metrics of n and three percentiles), frames in neither arm. */
	const uint32_t exp_bytes = 1 + 4 + 4 + 4 + 8 + 2 * (8 + PP_EXP_METRICS * (4 + 24)) + 8;
	const uint32_t severity_bytes = 4 + 4 + 4 + 3; /* "info", "why" */
	struct pp_diagnostic *x = diagnostic_of_older_minor(&d, 1, exp_bytes);
	if (x)
		CHECK(x->exp_state == PP_DIAG_EXP_STATE_NONE && x->exp_site == -1 && x->count == 2 &&
			      x->command_buffers == 2 && x->severity && !strcmp(x->severity, "info") &&
			      !strcmp(x->verdict, "why"),
		      "minor 1: severity and verdict, no experiment (%u %d)", x->exp_state, x->exp_site);
	free(x);
	x = diagnostic_of_older_minor(&d, 0, exp_bytes + severity_bytes);
	if (x)
		CHECK(x->exp_state == PP_DIAG_EXP_STATE_NONE && x->exp_site == -1 && x->count == 2 &&
			      x->command_buffers == 2 && !x->severity && !x->verdict[0],
		      "minor 0: no severity, no experiment (%u %d)", x->exp_state, x->exp_site);
	free(x);
	/* Minor 2 as written. */
	x = diagnostic_of_older_minor(&d, 2, 0);
	if (x)
		CHECK(x->exp_state == PP_DIAG_EXP_STATE_IN && x->exp_site == 3 && x->severity &&
			      !strcmp(x->severity, "info") && !strcmp(x->verdict, "why"),
		      "minor 2: severity, verdict and the experiment (%u %d)", x->exp_state, x->exp_site);
	free(x);
}

/* A newer minor version adds record types (named in the header) and fields at the end of a
 * record: this reader skips the ones and ignores the others. A newer major version is
 * refused. */
static void test_versions(void)
{
	size_t starts[16], n;
	struct file f = recording_make(starts, &n);
	/* Header of a minor version 9 with a type 40 "future_thing", then the original records,
	 * a type 40 record among them and a device record with 8 more bytes than known. */
	uint32_t types_len;
	memcpy(&types_len, f.p + 12, 4);
	size_t records_at = 16 + types_len;
	const char *extra_name = "future_thing";
	size_t extra_len = 4 + strlen(extra_name);
	struct file g = { malloc(f.len + 256), 0 };
	memcpy(g.p, f.p, 16);
	g.p[10] = 9; /* minor */
	put32(g.p + 12, types_len + (uint32_t)extra_len);
	memcpy(g.p + 16, f.p + 16, types_len);
	uint8_t *t = g.p + 16 + types_len;
	uint16_t id = 40, nl = (uint16_t)strlen(extra_name);
	memcpy(t, &id, 2);
	memcpy(t + 2, &nl, 2);
	memcpy(t + 4, extra_name, nl);
	g.len = 16 + types_len + extra_len;
	/* an unknown record first */
	uint8_t rec[8 + 5] = { 40, 0, 0, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5 };
	memcpy(g.p + g.len, rec, sizeof(rec));
	g.len += sizeof(rec);
	memcpy(g.p + g.len, f.p + records_at, f.len - records_at);
	g.len += f.len - records_at;
	struct pp_rec_read_notes notes;
	int rc;
	unsigned frames = read_all(g.p, g.len, &notes, &rc);
	CHECK(rc == 0 && frames == 4, "newer minor read: rc %d, %u frames", rc, frames);
	CHECK(notes.unknown_records == 1 && !strcmp(notes.unknown_types, "future_thing") && notes.minor == 9,
	      "the unknown record skipped and named: %llu \"%s\"", (unsigned long long)notes.unknown_records,
	      notes.unknown_types);

	/* A device record with 8 more bytes than this reader knows. */
	struct pp_rec_writer *w = pp_rec_write_create();
	struct pp_device_info info = { .name = "gpu", .time_domain = "none" };
	pp_rec_write_device(w, 2, &info);
	size_t len;
	const uint8_t *p = pp_rec_write_take(w, &len);
	struct file h = { malloc(len + 8), len + 8 };
	memcpy(h.p, p, len);
	/* the last record is the device: lengthen it */
	size_t dev_at = len;
	for (size_t at = records_at; at < len;) {
		uint32_t l;
		memcpy(&l, h.p + at + 4, 4);
		dev_at = at;
		at += 8 + l;
	}
	uint32_t l;
	memcpy(&l, h.p + dev_at + 4, 4);
	put32(h.p + dev_at + 4, l + 8);
	memset(h.p + len, 0xee, 8);
	pp_rec_write_destroy(w);
	struct pp_rec_reader *r;
	char err[256];
	CHECK(pp_rec_read_open(h.p, h.len, &r, err, sizeof(err)) == 0, "open");
	struct pp_rec_record got;
	uint32_t dev_id = 0;
	struct pp_device_info d = { 0 };
	while (pp_rec_read_next(r, &got) == 1)
		if (got.type == PP_REC_DEVICE)
			CHECK(pp_rec_read_decode_device(r, &got, &dev_id, &d) == 0, "a longer device record decodes");
	CHECK(dev_id == 2 && !strcmp(d.name, "gpu"), "its known fields: %u %s", dev_id, d.name);
	pp_rec_read_close(r);

	/* A newer major version: refused, saying so. */
	g.p[8] = PP_REC_MAJOR + 1;
	CHECK(pp_rec_read_open(g.p, g.len, &r, err, sizeof(err)) == -EINVAL && strstr(err, "newer passprobe"),
	      "newer major refused: %s", err);
	memcpy(g.p, "NOTAREC!", 8);
	CHECK(pp_rec_read_open(g.p, g.len, &r, err, sizeof(err)) == -EINVAL && strstr(err, "not a passprobe recording"),
	      "not a recording: %s", err);
	free(f.p);
	free(g.p);
	free(h.p);
}

/* A capture record of format 1.2 (no diagnostics after the path) reads with none; one whose
 * diagnostics' count says more than its bytes hold is refused, without allocating for them. */
static void test_capture_compat(void)
{
	struct pp_rec_writer *w = pp_rec_write_create();
	uint64_t frame = 9;
	pp_rec_write_capture(w, 0, &frame, false, "/tmp/old.rdc", 42, capture_diags, 2, 0);
	size_t len;
	const uint8_t *p = pp_rec_write_take(w, &len);
	struct file f = { malloc(len), len };
	memcpy(f.p, p, len);
	pp_rec_write_destroy(w);
	uint32_t types_len;
	memcpy(&types_len, f.p + 12, 4);
	size_t at = 16 + types_len;
	/* 1.2's payload: device, bits, frame, timestamp, path */
	uint32_t old_len = 4 + 1 + 8 + 8 + 4 + (uint32_t)strlen("/tmp/old.rdc");
	uint32_t new_len;
	memcpy(&new_len, f.p + at + 4, 4);
	struct pp_rec_record rec = { PP_REC_CAPTURE, f.p + at + 8, old_len, at };
	struct pp_rec_capture c;
	CHECK(pp_rec_read_decode_capture(&rec, &c) == 0 && c.frame == 9 && !strcmp(c.path, "/tmp/old.rdc") && c.ndiags == 0 &&
		      c.diags == NULL,
	      "a 1.2 capture record reads, without diagnostics");
	pp_rec_read_capture_free(&c);
	rec.len = new_len;
	CHECK(pp_rec_read_decode_capture(&rec, &c) == 0 && c.ndiags == 2, "the same with its diagnostics: %u", c.ndiags);
	pp_rec_read_capture_free(&c);
	/* the count of diagnostics, right after the dropped count: a lie */
	put32(f.p + at + 8 + old_len + 8, 0x40000000u);
	CHECK(pp_rec_read_decode_capture(&rec, &c) == -EINVAL && c.diags == NULL, "a lying count of diagnostics refused");
	pp_rec_read_capture_free(&c);
	/* cut inside the second diagnostic */
	put32(f.p + at + 8 + old_len + 8, 2);
	rec.len = new_len - 10;
	CHECK(pp_rec_read_decode_capture(&rec, &c) == -EINVAL, "a diagnostic cut short refused");
	pp_rec_read_capture_free(&c);
	free(f.p);
}

/* A damaged length: no writer writes a record past the end of the file or larger than the
 * largest record, so the readable part ends there; what came before is whole. */
static void test_corrupt_length(void)
{
	size_t starts[16], n;
	struct file f = recording_make(starts, &n);
	put32(f.p + starts[2] + 4, 0xfffffff0u);
	struct pp_rec_read_notes notes;
	int rc;
	unsigned frames = read_all(f.p, f.len, &notes, &rc);
	CHECK(rc == 0 && frames == 2 && notes.cut_offset == starts[2] && notes.cut_bytes == f.len - starts[2] &&
		      !notes.ended,
	      "corrupt length: %u frames, cut at %llu", frames, (unsigned long long)notes.cut_offset);
	free(f.p);
	/* A frame whose inner counts lie (more passes than bytes): refused, the reader goes on. */
	f = recording_make(starts, &n);
	/* the frame's pass count sits after its submissions; scramble the submission count instead */
	size_t payload = starts[2] + 8; /* an even frame: its CPU cost in place */
	size_t at = payload + 8 + 4 + 4 + 8 + 8;
	at += 1 + 8 * 3 + 4 * 4 + 1 + 3 * 8; /* the frame's cpu cost (valid, 3 counters) */
	at += 1;                             /* blocked: not valid */
	at += 1 + 4 + 4;                     /* flags, captured_by, outside window */
	put32(f.p + at, 0x7fffffff);
	frames = read_all(f.p, f.len, &notes, &rc);
	CHECK(rc == 0 && frames == 3 && notes.ended, "a frame with a lying count skipped: %u frames", frames);
	free(f.p);
}

/* The fields of pass k of frame i that describe it: its static strings (API, recorded_by, the
 * GPU interval's and the statistics' reasons, its attachments' format and operations), its
 * counts, its workload, how many attachments it has (now past those the writer keeps the bytes
 * of, now none) and their size: each changes at its own period, so the one at a position is now
 * last frame's and now another. The command buffer's handle alternates every frame, and the
 * attachments' image views (not written) differ every frame. */
static const char *const k_apis[2] = { "vkCmdBeginRenderPass", "vkCmdBeginRendering" };
static const char *const k_formats[2] = { "R8G8B8A8_UNORM", "D32_SFLOAT" };
/* Pass STABLE keeps its name, and its describing fields change one at a time, each at its
 * own period, most frames none: the writer copies its bytes then. The others' strings change
 * every frame or two. */
enum { STABLE = 3 };
static unsigned pos_t(unsigned i, unsigned k, unsigned period) { return k == STABLE ? i / period : i; }
static const char *pos_recorded_by(unsigned i, unsigned k) { return (pos_t(i, k, 61) + k) % 3 ? NULL : "librenderdoc.so"; }
static const char *pos_reason(unsigned i, unsigned k) { return (i + k) % 5 ? "not measured" : "not a GPU-timed frame"; }
static const char *pos_stats(unsigned i) { return i % 7 ? "statistics off" : NULL; }
static const char *pos_store(unsigned i) { return i % 4 ? "STORE" : "DONT_CARE"; }

static unsigned pos_attachments(unsigned i) { return i % 37 == 0 ? 6 : i % 41 == 0 ? 0 : 3; }
static uint64_t pos_dispatches(unsigned i, unsigned k) { return (i / 31 + k) % 2 ? 0 : 4; }

static void position_fields_set(struct pp_pass_result *p, unsigned i, unsigned k)
{
	p->name_source = (enum pp_name_source)(i / 11 % 2);
	p->kind = (enum pp_pass_kind)(i / 13 % 3);
	p->api = k_apis[(pos_t(i, k, 59) / 2 + k) % 2];
	p->submission = 0; /* the test frame has no submissions: the reader keeps it at 0 */
	p->command_buffer = i / 19 % 2;
	p->command_buffer_handle = 0x1000 + i % 2;
	p->subpasses = 1 + i / 23 % 2;
	p->suspended_resumed = i / 29 % 2;
	p->secondaries = i / 43 % 3;
	p->recorded_by = pos_recorded_by(i, k);
	p->work.draws = 50 + i / 47 % 2;
	p->work.vertices = 150 * p->work.draws;
	p->work.dispatches = pos_dispatches(i, k);
	p->gpu.unavailable_reason = pos_reason(i, k);
	p->counters_pending = true;
	p->stats_reason = pos_stats(i);
	p->nattachments = pos_attachments(i);
	for (unsigned a = 0; a < p->nattachments; a++)
		p->attachments[a] = (struct pp_attachment){ .format = k_formats[(pos_t(i, k, 67) + a) % 2],
							    .load_op = "CLEAR", .store_op = pos_store(pos_t(i, k, 71) + a),
							    .width = 1 + i / 53 % 2,
							    .height = 1, .layers = 1, .samples = 1, .view = i };
}

/* Frame i with n passes, cleared, for the tests of many frames to fill in. */
static struct pp_frame_result *frame_of_passes(unsigned i, unsigned n)
{
	struct pp_frame_result *fr = calloc(1, sizeof(*fr));
	fr->index = i;
	fr->delimiter = "present";
	fr->npasses = n;
	fr->passes = calloc(n, sizeof(*fr->passes));
	return fr;
}

static bool position_fields_same(const struct pp_pass_result *p, unsigned i, unsigned k)
{
	bool same = p->name_source == (enum pp_name_source)(i / 11 % 2) && p->kind == (enum pp_pass_kind)(i / 13 % 3) &&
		    str_same(p->api, k_apis[(pos_t(i, k, 59) / 2 + k) % 2]) && p->submission == 0 &&
		    p->command_buffer == i / 19 % 2 && p->command_buffer_handle == 0x1000 + i % 2 &&
		    p->subpasses == 1 + i / 23 % 2 && p->suspended_resumed == (i / 29 % 2 == 1) &&
		    p->secondaries == i / 43 % 3 && str_same(p->recorded_by, pos_recorded_by(i, k)) &&
		    p->work.draws == 50 + i / 47 % 2 && p->work.vertices == 150 * p->work.draws &&
		    p->work.dispatches == pos_dispatches(i, k) && p->work.instances == 0 && !p->gpu.valid &&
		    str_same(p->gpu.unavailable_reason, pos_reason(i, k)) && str_same(p->stats_reason, pos_stats(i)) &&
		    p->nattachments == pos_attachments(i);
	for (unsigned a = 0; same && a < p->nattachments; a++)
		same = str_same(p->attachments[a].format, k_formats[(pos_t(i, k, 67) + a) % 2]) &&
		       str_same(p->attachments[a].load_op, "CLEAR") &&
		       str_same(p->attachments[a].store_op, pos_store(pos_t(i, k, 71) + a)) &&
		       p->attachments[a].width == 1 + i / 53 % 2 && p->attachments[a].height == 1 &&
		       p->attachments[a].samples == 1;
	return same;
}

/* Pass names are found by their position in the frame first, and so are their static strings
 * and the bytes of the fields that describe them: names that move between positions, a name at
 * a position that changes every frame (5,000 of them: the writer's string table is emptied and
 * strings are written again under new ids), bytes after a name's end that differ, and
 * describing fields that change at a position all read back as written. */
static void test_names_by_position(void)
{
	struct file f = { 0 };
	struct pp_rec_writer *w = pp_rec_write_create();
	static const char *const counters[] = { "task-clock" };
	pp_rec_write_process(w, 1, "names", 0, counters, 1);
	take(w, &f);
	enum { FRAMES = 5000, PASSES = STABLE + 1 };
	char want[FRAMES][PASSES][64];
	for (unsigned i = 0; i < FRAMES; i++) {
		struct pp_frame_result *fr = frame_of_passes(i, PASSES);
		for (unsigned k = 0; k < PASSES; k++) {
			struct pp_pass_result *p = &fr->passes[k];
			if (k == 0)
				snprintf(p->name, sizeof(p->name), "frame %u", i); /* new at every frame */
			else if (k == STABLE)
				snprintf(p->name, sizeof(p->name), "lighting");
			else
				snprintf(p->name, sizeof(p->name), "%s", (i + k) % 2 ? "shadow" : "gbuffer"); /* they swap */
			if (pos_t(i, k, 73) % 3 == 0)
				memset(p->name + strlen(p->name) + 1, 'x', 8); /* bytes after the end */
			position_fields_set(p, i, k);
			snprintf(want[i][k], sizeof(want[i][k]), "%s", p->name);
		}
		pp_rec_write_frame(w, fr, 1, false);
		pp_model_frame_result_free(fr);
		take(w, &f);
	}
	CHECK(!pp_rec_write_failed(w));
	pp_rec_write_destroy(w);

	struct pp_rec_reader *r;
	char err[256];
	CHECK(pp_rec_read_open(f.p, f.len, &r, err, sizeof(err)) == 0, "open: %s", err);
	struct pp_rec_record rec;
	unsigned frames = 0, wrong = 0, wrong_strings = 0;
	while (pp_rec_read_next(r, &rec) == 1) {
		if (rec.type != PP_REC_FRAME)
			continue;
		struct pp_frame_result *got;
		if (pp_rec_read_decode_frame(r, &rec, &got, err, sizeof(err)) != 0 || !got || got->npasses != PASSES) {
			wrong++;
		} else {
			for (unsigned k = 0; k < PASSES; k++) {
				wrong += strcmp(got->passes[k].name, want[frames][k]) != 0;
				wrong_strings += !position_fields_same(&got->passes[k], frames, k);
			}
		}
		pp_model_frame_result_free(got);
		frames++;
	}
	CHECK(frames == FRAMES && wrong == 0, "%u frames read, %u names wrong", frames, wrong);
	CHECK(wrong_strings == 0, "%u passes with a describing field read wrong", wrong_strings);
	pp_rec_read_close(r);
	free(f.p);
}

/* Frames kept as their records' bytes (report.json's window in the application's process) read
 * back at the end with the writer's dictionary: every pass named anew every frame (the string
 * table is emptied every 100 frames or so, several times within the window), a GPU counter
 * whose description was written once, at the first frame. The window's first frame decides
 * which emptied tables the writer keeps; kept only from the newest table on, the names of the
 * window's older frames cannot be read, which the test also checks. */
static unsigned read_back_window(bool keep)
{
	enum { FRAMES = 1200, WINDOW = 300, PASSES = 20 };
	struct pp_rec_writer *w = pp_rec_write_create();
	static const char *const counters[] = { "task-clock" };
	pp_rec_write_strings_keep(w, 0);
	pp_rec_write_process(w, 1, "window", 0, counters, 1);
	struct {
		uint8_t *bytes;
		size_t len;
		uint32_t generation;
	} window[WINDOW] = { 0 };
	struct file f = { 0 };
	unsigned first_generation = 0, last_generation = 0;
	for (unsigned i = 0; i < FRAMES; i++) {
		struct pp_frame_result *fr = frame_of_passes(i, PASSES);
		for (unsigned k = 0; k < PASSES; k++) {
			struct pp_pass_result *p = &fr->passes[k];
			snprintf(p->name, sizeof(p->name), "frame %u pass %u", i, k);
			position_fields_set(p, i, k);
		}
		fr->passes[0].ncounters = 1;
		fr->passes[0].counters = calloc(1, sizeof(*fr->passes[0].counters));
		fr->passes[0].counters[0] = (struct pp_counter_value){ .desc = &desc_mali, .v = { .valid = true, .u = i } };
		uint32_t generation = pp_rec_write_generation(w);
		pp_rec_write_frame(w, fr, 1, false);
		pp_model_frame_result_free(fr);
		size_t len;
		const uint8_t *last = pp_rec_write_last_frame(w, &len);
		CHECK(last && len > 0, "frame %u: its record's bytes", i);
		unsigned at = i % WINDOW;
		free(window[at].bytes);
		window[at].bytes = malloc(len);
		memcpy(window[at].bytes, last, len);
		window[at].len = len;
		window[at].generation = generation;
		if (!keep)
			pp_rec_write_strings_keep(w, pp_rec_write_generation(w));
		else if (i + 1 >= WINDOW)
			pp_rec_write_strings_keep(w, window[(i + 1) % WINDOW].generation);
		if (i == FRAMES - WINDOW)
			first_generation = generation;
		last_generation = generation;
		if (i == 0) {
			/* The bytes are the file's record: the first frame's, read from the file. */
			take(w, &f);
			struct pp_rec_reader *r;
			char err[256];
			CHECK(pp_rec_read_open(f.p, f.len, &r, err, sizeof(err)) == 0, "open: %s", err);
			struct pp_rec_record rec;
			bool found = false;
			while (pp_rec_read_next(r, &rec) == 1)
				if (rec.type == PP_REC_FRAME)
					found = rec.len == len && !memcmp(rec.data, window[0].bytes, len);
			CHECK(found, "the last frame's bytes are its record's payload in the file");
			pp_rec_read_close(r);
			free(f.p);
		} else {
			size_t n;
			pp_rec_write_take(w, &n);
		}
		CHECK(!pp_rec_write_last_frame(w, &len), "frame %u: no last frame once taken", i);
	}
	CHECK(last_generation >= first_generation + 3, "the table emptied within the window: generations %u to %u",
	      first_generation, last_generation);
	size_t dict_len;
	uint8_t *dict = pp_rec_write_dictionary(w, &dict_len);
	CHECK(dict != NULL, "the dictionary");
	/* The tables of the window's generations, not every one since the start. */
	if (keep)
		CHECK(dict_len < (size_t)(last_generation - first_generation + 2) * 2048 * 40,
		      "the dictionary holds the window's strings: %zu bytes", dict_len);
	pp_rec_write_destroy(w);

	struct pp_rec_reader *r = NULL;
	char err[256];
	CHECK(dict && pp_rec_read_open(dict, dict_len, &r, err, sizeof(err)) == 0, "open the dictionary: %s", err);
	struct pp_rec_record rec;
	while (r && pp_rec_read_next(r, &rec) == 1)
		CHECK(false, "a dictionary holds strings and counter descriptions only: type %d", rec.type);
	unsigned wrong = 0;
	for (unsigned i = FRAMES - WINDOW; r && i < FRAMES; i++) {
		struct pp_rec_record fr = { .type = PP_REC_FRAME, .data = window[i % WINDOW].bytes,
					    .len = window[i % WINDOW].len };
		struct pp_frame_result *got = NULL;
		if (pp_rec_read_decode_frame(r, &fr, &got, err, sizeof(err)) != 0 || got->index != i ||
		    got->npasses != PASSES) {
			wrong++;
		} else {
			for (unsigned k = 0; k < PASSES; k++) {
				char want[64];
				snprintf(want, sizeof(want), "frame %u pass %u", i, k);
				wrong += strcmp(got->passes[k].name, want) != 0 || !position_fields_same(&got->passes[k], i, k);
			}
			const struct pp_counter_value *c = &got->passes[0].counters[0];
			wrong += got->passes[0].ncounters != 1 || !c->desc || strcmp(c->desc->name, "GPU_ACTIVE") ||
				 strcmp(c->desc->description, "cycles the GPU was active") || c->v.u != i;
		}
		pp_model_frame_result_free(got);
	}
	pp_rec_read_close(r);
	free(dict);
	for (unsigned i = 0; i < WINDOW; i++)
		free(window[i].bytes);
	return wrong;
}

/* A string or counter description defined again (a dictionary repeats strings; a damaged file
 * may repeat anything) keeps its first definition: what was read with it still points there. */
static void test_redefined_ids(void)
{
	struct pp_rec_writer *w = pp_rec_write_create();
	struct file f = { 0 };
	take(w, &f);
	pp_rec_write_destroy(w);
	static const struct {
		uint16_t type;
		uint32_t id;
		const char *text;
	} defs[] = { { PP_REC_STRING, 5, "first" }, { PP_REC_COUNTER_DESC, 1, NULL }, { PP_REC_STRING, 5, "second" },
		     { PP_REC_COUNTER_DESC, 1, NULL } };
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		uint8_t rec[64] = { 0 };
		uint32_t len;
		memcpy(rec, &defs[i].type, 2);
		memcpy(rec + 8, &defs[i].id, 4);
		if (defs[i].type == PP_REC_STRING) {
			len = 4 + (uint32_t)strlen(defs[i].text);
			memcpy(rec + 12, defs[i].text, strlen(defs[i].text));
		} else {
			/* source, name, unit, block: string 5 the first time, none the second */
			uint32_t s = i == 1 ? 5 : 0;
			for (int k = 0; k < 4; k++)
				memcpy(rec + 12 + 4 * k, &s, 4);
			double scale = i == 1 ? 1 : 2;
			memcpy(rec + 28, &scale, 8);
			len = 4 + 16 + 8 + 1 + 4;
		}
		memcpy(rec + 4, &len, 4);
		f.p = realloc(f.p, f.len + 8 + len);
		memcpy(f.p + f.len, rec, 8 + len);
		f.len += 8 + len;
	}
	struct pp_rec_reader *r;
	char err[256];
	CHECK(pp_rec_read_open(f.p, f.len, &r, err, sizeof(err)) == 0, "open: %s", err);
	struct pp_rec_record rec;
	while (pp_rec_read_next(r, &rec) == 1)
		;
	CHECK(!strcmp(pp_rec_read_string(r, 5), "first"), "string 5 keeps its first text: %s", pp_rec_read_string(r, 5));
	/* The description is read through a frame that names it. */
	uint8_t frame[512];
	struct pp_frame_result *one = calloc(1, sizeof(*one));
	one->npasses = 1;
	one->passes = calloc(1, sizeof(*one->passes));
	one->passes[0].ncounters = 1;
	one->passes[0].counters = calloc(1, sizeof(*one->passes[0].counters));
	one->passes[0].counters[0] = (struct pp_counter_value){ .desc = &desc_stat, .v = { .valid = true, .u = 1 } };
	w = pp_rec_write_create();
	pp_rec_write_frame(w, one, 0, false);
	pp_model_frame_result_free(one);
	size_t len;
	const uint8_t *p = pp_rec_write_last_frame(w, &len);
	CHECK(p && len <= sizeof(frame), "a frame naming counter 1");
	memcpy(frame, p, len);
	pp_rec_write_destroy(w);
	struct pp_rec_record fr = { .type = PP_REC_FRAME, .data = frame, .len = len };
	struct pp_frame_result *got = NULL;
	CHECK(pp_rec_read_decode_frame(r, &fr, &got, err, sizeof(err)) == 0 && got->npasses == 1 &&
		      got->passes[0].ncounters == 1,
	      "decode: %s", err);
	const struct pp_gpu_counter_desc *d = got ? got->passes[0].counters[0].desc : NULL;
	CHECK(d && !strcmp(d->name, "first") && d->scale == 1, "counter 1 keeps its first description");
	pp_model_frame_result_free(got);
	pp_rec_read_close(r);
	free(f.p);
}

static void test_frames_read_back(void)
{
	unsigned wrong = read_back_window(true);
	CHECK(wrong == 0, "the window's frames read back: %u passes wrong", wrong);
	wrong = read_back_window(false);
	CHECK(wrong > 0, "without the window's tables kept, its older frames' names are lost");
}

int main(int argc, char **argv)
{
	/* With a folder: writes the test's recording there, whole and cut, as fuzzing seeds. */
	if (argc == 2) {
		size_t starts[16], n;
		struct file f = recording_make(starts, &n);
		char path[4096];
		snprintf(path, sizeof(path), "%s/whole.ppr", argv[1]);
		FILE *out = fopen(path, "wb");
		if (out) {
			fwrite(f.p, 1, f.len, out);
			fclose(out);
		}
		snprintf(path, sizeof(path), "%s/cut.ppr", argv[1]);
		out = fopen(path, "wb");
		if (out) {
			fwrite(f.p, 1, starts[2] + 40, out);
			fclose(out);
		}
		free(f.p);
		return 0;
	}
	test_round_trip();
	test_truncation();
	test_versions();
	test_older_minor();
	test_corrupt_length();
	test_capture_compat();
	test_names_by_position();
	test_frames_read_back();
	test_redefined_ids();
	return check_finish();
}
