/* The diagnostics rules on their own (attribution/diag/), fed API-neutral events: each
 * rule fires on its case and stays silent on the control beside it; the site table stays
 * bounded; the blocking-wait verdicts follow the frames. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_model.h"
#include "pp_settings.h"
#include "pp_check.h"

static struct pp_diagnostic snap[PP_DIAG_MAX_SITES + 1];

/* Occurrences of an ID in the site table (all sites). */
static uint64_t fired(const char *id)
{
	size_t n = pp_diag_sites_snapshot(snap, PP_DIAG_MAX_SITES, NULL);
	uint64_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].id, id))
			count += snap[i].count;
	return count;
}

static const struct pp_diagnostic *find(const char *id)
{
	size_t n = pp_diag_sites_snapshot(snap, PP_DIAG_MAX_SITES, NULL);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].id, id))
			return &snap[i];
	return NULL;
}

static struct pp_diag_device *device(void)
{
	const struct pp_diag_config cfg = { .frame_delimiter = PP_FRAME_AUTO };
	return pp_diag_device_create(&cfg);
}

static void barrier(struct pp_diag_device *d, struct pp_diag_rec *r, uint32_t src, uint32_t dst, uint32_t nres,
		    const struct pp_diag_barrier_res *res)
{
	const struct pp_diag_barrier b = {
		.api = "vkCmdPipelineBarrier", .src_stages = src, .dst_stages = dst, .nres = nres, .res = res,
		.site = "test", .ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT,
	};
	pp_diag_barriers_rec(d, r, &b);
}

static void submit(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb)
{
	pp_diag_device_submit(d, 1, 1, &r, &cb);
	pp_diag_device_submit_done(d, 0xf00d, false);
}

static struct pp_diag_barrier_res image(uint64_t h, uint32_t src, uint32_t sa, uint32_t dst, uint32_t da,
					enum pp_diag_layout from, enum pp_diag_layout to)
{
	return (struct pp_diag_barrier_res){ .kind = PP_RES_IMAGE, .handle = h, .src_stages = src, .dst_stages = dst,
					     .src_access = sa, .dst_access = da, .old_layout = from, .new_layout = to };
}

static void test_gbuffer(void)
{
	const char *id = "PASSPROBE-Barrier-DstStageTooEarly";
	for (int variant = 0; variant < 3; variant++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		uint32_t dst = variant == 1 ? PP_STAGE_FRAGMENT_SHADER : PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER;
		struct pp_diag_barrier_res g = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, dst, PP_ACCESS_SHADER_READ,
						     PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		barrier(d, r, PP_STAGE_COLOR_OUTPUT, dst, 1, &g);
		/* pass 2 samples the image: in the fragment shader (and the vertex shader, variant 2) */
		uint32_t reads = variant == 2 ? PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER : PP_STAGE_FRAGMENT_SHADER;
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, reads, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		if (variant == 0) {
			CHECK(fired(id) == 1);
			const struct pp_diagnostic *s = find(id);
			CHECK(s && strstr(s->suggestion, "dstStageMask = FRAGMENT_SHADER"));
		} else {
			CHECK(fired(id) == 0);
		}
		CHECK(fired("PASSPROBE-Barrier-FullPipelineDrain") == 0);
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* The suggested dstStageMask keeps a consumer that writes even where the destination access
 * mask does not reach its stage (a write after the barrier needs the execution dependency):
 * a vertex fetch and a compute shader write after TRANSFER -> ALL_COMMANDS with dstAccessMask
 * VERTEX_ATTRIBUTE_READ. Without the write, the compute stage is not suggested. */
static void test_write_consumer(void)
{
	const char *id = "PASSPROBE-Barrier-DstStageTooEarly";
	for (int write = 0; write < 2; write++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		const struct pp_diag_barrier_res v = { .kind = PP_RES_BUFFER, .handle = 5, .src_stages = PP_STAGE_TRANSFER,
						       .dst_stages = PP_STAGE_ALL_COMMANDS,
						       .src_access = PP_ACCESS_TRANSFER_WRITE,
						       .dst_access = PP_ACCESS_VERTEX_READ };
		barrier(d, r, PP_STAGE_TRANSFER, PP_STAGE_ALL_COMMANDS, 1, &v);
		pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 5, PP_STAGE_VERTEX_INPUT, false);
		pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 5, PP_STAGE_COMPUTE, write);
		submit(d, r, 1);
		const struct pp_diagnostic *s = find(id);
		CHECK(s != NULL);
		if (s && write)
			CHECK(strstr(s->suggestion, "VERTEX_INPUT") && strstr(s->suggestion, "COMPUTE_SHADER"));
		if (s && !write)
			CHECK(strstr(s->suggestion, "dstStageMask = VERTEX_INPUT") && !strstr(s->suggestion, "COMPUTE_SHADER"));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

static void test_drains(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r = pp_diag_barriers_rec_create();
	/* copy, BOTTOM -> TOP execution dependency, copy */
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	barrier(d, r, PP_STAGE_BOTTOM, PP_STAGE_TOP, 0, NULL);
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	submit(d, r, 1);
	const struct pp_diagnostic *s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && strstr(s->suggestion, "srcStageMask = TRANSFER; dstStageMask = TRANSFER"));

	/* The acquire pattern: images from UNDEFINED before any work. */
	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	struct pp_diag_barrier_res acq = image(9, PP_STAGE_ALL_COMMANDS, PP_ACCESS_MEMORY_WRITE, PP_STAGE_ALL_COMMANDS,
					       PP_ACCESS_TRANSFER_WRITE, PP_LAYOUT_UNDEFINED, PP_LAYOUT_TRANSFER_DST);
	barrier(d, r, PP_STAGE_ALL_COMMANDS, PP_STAGE_ALL_COMMANDS, 1, &acq);
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	submit(d, r, 1);
	CHECK(fired("PASSPROBE-Barrier-FullPipelineDrain") == 0);

	/* ALL_COMMANDS -> ALL_COMMANDS between a buffer copy and a vertex fetch */
	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	struct pp_diag_barrier_res vb = { .kind = PP_RES_BUFFER, .handle = 5, .src_stages = PP_STAGE_ALL_COMMANDS,
					  .dst_stages = PP_STAGE_ALL_COMMANDS, .src_access = PP_ACCESS_TRANSFER_WRITE,
					  .dst_access = PP_ACCESS_VERTEX_READ };
	barrier(d, r, PP_STAGE_ALL_COMMANDS, PP_STAGE_ALL_COMMANDS, 1, &vb);
	pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 5, PP_STAGE_VERTEX_INPUT, false);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
	submit(d, r, 1);
	s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && strstr(s->suggestion, "srcStageMask = TRANSFER; dstStageMask = VERTEX_INPUT"));
	pp_diag_barriers_rec_destroy(r);
	pp_diag_device_destroy(d);
}

static void test_redundant(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r = pp_diag_barriers_rec_create();
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	struct pp_diag_barrier_res rr = image(3, PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ, PP_STAGE_FRAGMENT_SHADER,
					      PP_ACCESS_SHADER_READ, PP_LAYOUT_SHADER_READ, PP_LAYOUT_SHADER_READ);
	barrier(d, r, PP_STAGE_FRAGMENT_SHADER, PP_STAGE_FRAGMENT_SHADER, 1, &rr);
	CHECK(1);
	/* identical, nothing in between */
	barrier(d, r, PP_STAGE_FRAGMENT_SHADER, PP_STAGE_FRAGMENT_SHADER, 1, &rr);
	/* identical again, a draw in between: not a duplicate */
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	barrier(d, r, PP_STAGE_FRAGMENT_SHADER, PP_STAGE_FRAGMENT_SHADER, 1, &rr);
	submit(d, r, 1);
	CHECK(fired("PASSPROBE-Barrier-ReadToRead") == 3);
	CHECK(fired("PASSPROBE-Barrier-Duplicate") == 1);

	/* a read-after-write barrier is no read-to-read */
	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	struct pp_diag_barrier_res raw = image(3, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_FRAGMENT_SHADER,
					       PP_ACCESS_SHADER_READ, PP_LAYOUT_SHADER_READ, PP_LAYOUT_SHADER_READ);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	barrier(d, r, PP_STAGE_COLOR_OUTPUT, PP_STAGE_FRAGMENT_SHADER, 1, &raw);
	submit(d, r, 1);
	CHECK(fired("PASSPROBE-Barrier-ReadToRead") == 0);

	/* set event, wait right away / with work between */
	for (int work = 0; work < 2; work++) {
		pp_diag_sites_clear();
		pp_diag_barriers_rec_reset(r);
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		pp_diag_barriers_rec_event_set(r, 77);
		if (work)
			pp_diag_barriers_rec_work(r, PP_WORK_DISPATCH, 0, 0, 0);
		uint64_t ev = 77;
		struct pp_diag_barrier_res br = { .kind = PP_RES_BUFFER, .handle = 2, .src_stages = PP_STAGE_TRANSFER,
						  .dst_stages = PP_STAGE_TRANSFER, .src_access = PP_ACCESS_TRANSFER_WRITE,
						  .dst_access = PP_ACCESS_TRANSFER_READ };
		const struct pp_diag_barrier b = { .api = "vkCmdWaitEvents", .src_stages = PP_STAGE_TRANSFER,
						   .dst_stages = PP_STAGE_TRANSFER, .nres = 1, .res = &br, .nevents = 1,
						   .events = &ev, .site = "test", .ts_before = PP_DIAG_NO_SLOT,
						   .ts_after = PP_DIAG_NO_SLOT };
		pp_diag_barriers_rec(d, r, &b);
		submit(d, r, 1);
		CHECK(fired("PASSPROBE-Barrier-SetEventThenWait") == (work ? 0u : 1u));
	}
	pp_diag_barriers_rec_destroy(r);
	pp_diag_device_destroy(d);
}

/* fragment -> compute in frame N, compute -> vertex input in frame N+1 */
static void test_chain(void)
{
	for (int vertex = 0; vertex < 2; vertex++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		for (int frame = 0; frame < 3; frame++) {
			pp_diag_barriers_rec_reset(r);
			struct pp_diag_barrier_res in = { .kind = PP_RES_BUFFER, .handle = 11, .src_stages = PP_STAGE_COMPUTE,
							  .dst_stages = vertex ? PP_STAGE_VERTEX_INPUT : PP_STAGE_FRAGMENT_SHADER,
							  .src_access = PP_ACCESS_SHADER_WRITE,
							  .dst_access = vertex ? PP_ACCESS_VERTEX_READ : PP_ACCESS_SHADER_READ };
			barrier(d, r, in.src_stages, in.dst_stages, 1, &in);
			pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 11, vertex ? PP_STAGE_VERTEX_INPUT : PP_STAGE_FRAGMENT_SHADER, false);
			pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
			struct pp_diag_barrier_res img = image(12, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_COMPUTE,
							       PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT,
							       PP_LAYOUT_SHADER_READ);
			barrier(d, r, PP_STAGE_COLOR_OUTPUT, PP_STAGE_COMPUTE, 1, &img);
			pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 12, PP_STAGE_COMPUTE, false);
			pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 11, PP_STAGE_COMPUTE, true);
			pp_diag_barriers_rec_work(r, PP_WORK_DISPATCH, 0, 0, 0);
			submit(d, r, 1);
		}
		CHECK(fired("PASSPROBE-Barrier-FragmentComputeVertexChain") == (vertex ? 2u : 0u));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

static void test_blocking(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r = pp_diag_barriers_rec_create();
	pp_diag_barriers_rec_queries(r, 500, 0, 2);
	uint64_t seq;
	CHECK(pp_diag_waits_query_check(d, 500, 0, 2, &seq) == PP_WAIT_UNKNOWN);
	pp_diag_device_submit(d, 1, 1, &r, &(uint64_t){ 1 });
	pp_diag_device_submit_done(d, 0xfe, false);
	CHECK(pp_diag_waits_fence_check(d, 0xfe, &seq) == PP_WAIT_CURRENT_FRAME);
	CHECK(pp_diag_waits_query_check(d, 500, 0, 2, &seq) == PP_WAIT_CURRENT_FRAME);
	CHECK(pp_diag_waits_query_check(d, 500, 2, 1, &seq) == PP_WAIT_UNSUBMITTED);
	/* two frames later the fence is old, and once waited on, complete */
	for (int f = 0; f < 2; f++) {
		pp_diag_device_submit(d, 1, 0, NULL, NULL);
		pp_diag_device_submit_done(d, 0xa0 + f, false);
	}
	CHECK(pp_diag_waits_fence_check(d, 0xfe, &seq) == PP_WAIT_NOT_COMPLETE);
	pp_diag_waits_completed(d, seq);
	CHECK(pp_diag_waits_fence_check(d, 0xfe, &seq) == PP_WAIT_FINE);
	CHECK(pp_diag_waits_query_check(d, 500, 0, 2, &seq) == PP_WAIT_FINE);

	/* steady state: a site is counted once it waits in a third frame within STEADY_WINDOW
	 * frames of the first; start-up and shutdown through one helper (SDL's testvulkan) are
	 * two frames, and a third frame long after them starts a new count */
	struct pp_diag_blocking b = { .rule = PP_DIAG_QUEUE_WAIT_IDLE, .site_key = 42, .site = "here", .cpu_ns = 1000,
				      .steady_state = true };
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0); /* start-up */
	for (int f = 0; f < 70; f++) {
		pp_diag_device_submit(d, 1, 0, NULL, NULL);
		pp_diag_device_submit_done(d, 0xb0 + f, false);
	}
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0); /* a resize 70 frames later */
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0); /* twice in that frame: still two frames */
	for (int f = 0; f < 70; f++) {
		pp_diag_device_submit(d, 1, 0, NULL, NULL);
		pp_diag_device_submit_done(d, 0x100 + f, false);
	}
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0); /* shutdown: a third frame, but not near the first */
	CHECK(fired("PASSPROBE-Blocking-QueueWaitIdle") == 0);
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_device_submit_done(d, 0x200, false);
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0); /* ... it goes on: two frames in a row */
	CHECK(fired("PASSPROBE-Blocking-QueueWaitIdle") == 0);
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_device_submit_done(d, 0x201, false);
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0); /* the third in a row: the frame loop's */
	CHECK(fired("PASSPROBE-Blocking-QueueWaitIdle") == 3);
	const struct pp_diagnostic *s = find("PASSPROBE-Blocking-QueueWaitIdle");
	CHECK(s && s->frames == 3 && s->cost_valid && s->cost_ns == 1000);

	/* polls */
	uint64_t since;
	for (uint32_t i = 1; i <= 8; i++)
		CHECK(pp_diag_waits_poll(d, PP_OBJ_FENCE, 0xfe, 100 + i, &since) == i);
	CHECK(since == 101);
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_device_submit_done(d, 0xb1, false);
	CHECK(pp_diag_waits_poll(d, PP_OBJ_FENCE, 0xfe, 500, &since) == 1);
	pp_diag_barriers_rec_destroy(r);
	pp_diag_device_destroy(d);
}

/* Timeline semaphores: which submission a wait waits for, host signals, eviction, polls. */
static void test_semaphores(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	uint64_t seq;
	CHECK(pp_diag_waits_semaphore_create(d, 0x5e, 0));
	CHECK(pp_diag_waits_semaphore_create(d, 0x40, 10));
	CHECK(pp_diag_waits_semaphore_check(d, 0x77, 1, &seq) == PP_WAIT_UNKNOWN); /* not a timeline semaphore */
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 1, &seq) == PP_WAIT_UNKNOWN); /* nothing signals 1 yet */
	CHECK(pp_diag_waits_semaphore_check(d, 0x40, 10, &seq) == PP_WAIT_FINE);   /* the initial value */
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_waits_semaphore_signal(d, 0x5e, 1, false);
	pp_diag_waits_semaphore_signal(d, 0x77, 1, false); /* untracked: ignored */
	pp_diag_device_submit_done(d, 0xf1, false);
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 1, &seq) == PP_WAIT_CURRENT_FRAME);
	CHECK(seq == pp_diag_device_last_seq(d));
	uint64_t first = seq;
	CHECK(pp_diag_waits_semaphore_check(d, 0x77, 1, &seq) == PP_WAIT_UNKNOWN);
	/* a host signal is not from a submission */
	pp_diag_waits_semaphore_signal(d, 0x40, 11, true);
	CHECK(pp_diag_waits_semaphore_check(d, 0x40, 11, &seq) == PP_WAIT_FINE);
	/* a counter read below a submitted value: the GPU is not there yet */
	CHECK(pp_diag_waits_semaphore_reached(d, 0x5e, 0));
	/* two frames later the value of frame 0 is old; once reached, complete */
	for (int f = 0; f < 2; f++) {
		pp_diag_device_submit(d, 1, 0, NULL, NULL);
		pp_diag_waits_semaphore_signal(d, 0x5e, 2 + (uint64_t)f, false);
		pp_diag_device_submit_done(d, 0xa0 + f, false);
	}
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 1, &seq) == PP_WAIT_NOT_COMPLETE && seq == first);
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 3, &seq) == PP_WAIT_CURRENT_FRAME);
	/* waiting for 2 waits for the signal of 2, not of 3 */
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 2, &seq) == PP_WAIT_NOT_COMPLETE);
	CHECK(pp_diag_waits_semaphore_reached(d, 0x5e, 1)); /* 2 and 3 still pending */
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 1, &seq) == PP_WAIT_FINE);
	CHECK(pp_diag_waits_fence_check(d, 0xf1, &seq) == PP_WAIT_FINE); /* its submission completed */
	CHECK(!pp_diag_waits_semaphore_reached(d, 0x5e, 3));
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 3, &seq) == PP_WAIT_FINE);
	/* older than the signals remembered: old, not judged against a newer signal */
	for (uint64_t v = 10; v < 10 + 2 * PP_DIAG_SEMAPHORE_SIGNALS; v++) {
		pp_diag_device_submit(d, 1, 0, NULL, NULL);
		pp_diag_waits_semaphore_signal(d, 0x5e, v, false);
		pp_diag_device_submit_done(d, 0xb0, false);
	}
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 11, &seq) == PP_WAIT_FINE);
	CHECK(pp_diag_waits_semaphore_check(d, 0x5e, 10 + 2 * PP_DIAG_SEMAPHORE_SIGNALS - 1, &seq) == PP_WAIT_CURRENT_FRAME);
	/* bounded: a destroyed semaphore frees its slot */
	pp_diag_waits_semaphore_destroy(d, 0x40);
	CHECK(pp_diag_waits_semaphore_check(d, 0x40, 11, &seq) == PP_WAIT_UNKNOWN);
	uint32_t created = 0;
	for (uint64_t h = 0x1000; h < 0x1000 + PP_DIAG_MAX_SEMAPHORES + 4; h++)
		created += pp_diag_waits_semaphore_create(d, h, 0);
	CHECK(created == PP_DIAG_MAX_SEMAPHORES - 1); /* 0x5e holds one slot */
	pp_diag_waits_semaphore_destroy(d, 0x1000);
	CHECK(pp_diag_waits_semaphore_create(d, 0x40, 0));
	/* the finding: steady state like fences */
	struct pp_diag_blocking b = { .rule = PP_DIAG_SEMAPHORE_WAIT, .site_key = 7, .site = "here", .cpu_ns = 500,
				      .steady_state = true };
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0);
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_device_submit_done(d, 0xc0, false);
	CHECK(pp_diag_waits_blocking_report(d, &b) == 0);
	pp_diag_device_submit(d, 1, 0, NULL, NULL);
	pp_diag_device_submit_done(d, 0xc1, false);
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0);
	CHECK(fired("PASSPROBE-Blocking-SemaphoreWaitSameFrame") == 3);
	CHECK(!pp_diag_vocab_rule_is_barrier(PP_DIAG_SEMAPHORE_WAIT));
	pp_diag_device_destroy(d);
}

/* The calls findings sit on, counted per frame (a captured frame's diagnostics name the call's
 * index among the frame's calls of that name): each name counts on its own, a new frame starts
 * over, from any number of threads no index is given twice. */
struct count_arg {
	struct pp_diag_device *d;
	uint32_t seen[4000];
};

static void *count_thread(void *p)
{
	struct count_arg *a = p;
	for (uint32_t i = 0; i < 1000; i++) {
		uint32_t k = pp_diag_waits_call_count(a->d, 3, 9);
		if (k < 4000)
			__atomic_fetch_add(&a->seen[k], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_call_count(void)
{
	struct pp_diag_device *d = device();
	CHECK(pp_diag_waits_call_count(d, 0, 0) == 0);
	CHECK(pp_diag_waits_call_count(d, 0, 0) == 1);
	CHECK(pp_diag_waits_call_count(d, 1, 0) == 0); /* another name */
	CHECK(pp_diag_waits_call_count(d, 0, 0) == 2);
	CHECK(pp_diag_waits_call_count(d, 0, 1) == 0); /* the next frame starts over */
	CHECK(pp_diag_waits_call_count(d, 1, 1) == 0);
	CHECK(pp_diag_waits_call_count(d, 0, 1) == 1);
	CHECK(pp_diag_waits_call_count(d, 0, 7) == 0); /* frames skipped (no call there) */
	CHECK(pp_diag_waits_call_count(d, PP_DIAG_COUNTED_CALLS, 7) == 0); /* out of range: nothing counted */
	CHECK(pp_diag_waits_call_count(d, PP_DIAG_COUNTED_CALLS - 1, 7) == 0);
	static struct count_arg a;
	a.d = d;
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, count_thread, &a);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	uint32_t once = 0;
	for (uint32_t k = 0; k < 4000; k++)
		once += a.seen[k] == 1;
	CHECK(once == 4000);
	CHECK(pp_diag_waits_call_count(d, 3, 9) == 4000);
	pp_diag_device_destroy(d);
}

/* Subpass dependencies: framebuffer-local in all but name, and the controls. */
static void test_subpass(void)
{
	const struct pp_diag_subpass_dep dep = {
		.index = 1, .src_subpass = 0, .dst_subpass = 1, .src_stages = PP_STAGE_COLOR_OUTPUT,
		.dst_stages = PP_STAGE_FRAGMENT_SHADER, .src_access = PP_ACCESS_COLOR_WRITE,
		.dst_access = PP_ACCESS_INPUT_ATTACHMENT_READ,
	};
	CHECK(pp_diag_barriers_subpass_dep_not_by_region(&dep));
	struct pp_diag_subpass_dep x = dep;
	x.by_region = true;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.src_subpass = PP_DIAG_SUBPASS_EXTERNAL;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.dst_subpass = PP_DIAG_SUBPASS_EXTERNAL;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.dst_stages |= PP_STAGE_VERTEX_SHADER;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.src_stages = PP_STAGE_ALL_GRAPHICS;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.dst_access |= PP_ACCESS_SHADER_READ; /* may sample other pixels */
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.dst_reads_other_samples = true;
	CHECK(!pp_diag_barriers_subpass_dep_not_by_region(&x));
	x = dep;
	x.dst_subpass = 0; /* a self-dependency */
	x.src_stages = PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	x.src_access = PP_ACCESS_DEPTH_WRITE;
	x.dst_access = 0;
	CHECK(pp_diag_barriers_subpass_dep_not_by_region(&x));
	CHECK(pp_diag_vocab_rule_is_barrier(PP_DIAG_SUBPASS_NOT_BY_REGION));

	/* counted once per render pass instance per submission; the site is the render pass and
	 * the dependency, whatever command buffer begins it */
	const char *id = "PASSPROBE-Barrier-SubpassDependencyNotByRegion";
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r = pp_diag_barriers_rec_create(), *r2 = pp_diag_barriers_rec_create();
	pp_diag_barriers_rec_render_pass(r, 0x99, "gbuffer", 1, &dep);
	pp_diag_barriers_rec_render_pass(r, 0x99, "gbuffer", 1, &dep);
	pp_diag_barriers_rec_render_pass(r, 0x98, NULL, 1, &dep);
	pp_diag_barriers_rec_render_pass(r2, 0x99, "gbuffer", 1, &dep);
	submit(d, r, 1);
	CHECK(fired(id) == 3);
	submit(d, r, 1);  /* re-submitted: counted again */
	submit(d, r2, 2); /* another command buffer, same render pass */
	CHECK(fired(id) == 7);
	size_t n = pp_diag_sites_snapshot(snap, PP_DIAG_MAX_SITES, NULL);
	CHECK(n == 2);
	const struct pp_diagnostic *s = find(id);
	CHECK(s && strstr(s->site, "pDependencies[1] (subpass 0 -> 1)") && strstr(s->suggestion, "BY_REGION"));
	CHECK(s && !s->cost_valid && s->cost_unavailable);
	struct pp_diag_message m[4];
	CHECK(pp_diag_device_messages_take(d, m, 4) == 2);
	CHECK(m[0].nobjects == 2 && m[0].objects[1].kind == PP_OBJ_RENDER_PASS);
	/* bounded per recording */
	pp_diag_barriers_rec_reset(r);
	for (uint32_t i = 0; i < PP_DIAG_REC_MAX_SUBPASS_DEPS + 10; i++)
		pp_diag_barriers_rec_render_pass(r, 0x1000 + i, NULL, 1, &dep);
	pp_diag_sites_clear();
	submit(d, r, 1);
	CHECK(fired(id) == PP_DIAG_REC_MAX_SUBPASS_DEPS);
	pp_diag_barriers_rec_destroy(r);
	pp_diag_barriers_rec_destroy(r2);
	pp_diag_device_destroy(d);
	pp_diag_sites_clear();
}

/* Bounded: more sites than the table holds are counted as other. */
static void test_bound(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	for (uint64_t i = 0; i < PP_DIAG_MAX_SITES + 100; i++) {
		struct pp_diag_blocking b = { .rule = PP_DIAG_POLLING, .site_key = 1000 + i, .site = "x" };
		pp_diag_waits_blocking_report(d, &b);
	}
	uint64_t other = 0;
	CHECK(pp_diag_sites_snapshot(NULL, 0, &other) == PP_DIAG_MAX_SITES);
	CHECK(other == 100);
	struct pp_diag_message m[8];
	uint32_t n = pp_diag_device_messages_take(d, m, 8);
	CHECK(n == 8);
	pp_diag_device_destroy(d);
	pp_diag_sites_clear();
}

static void submit_all(struct pp_diag_device *d, uint32_t n, struct pp_diag_rec **recs)
{
	uint64_t cbs[8];
	for (uint32_t i = 0; i < n; i++)
		cbs[i] = 100 + i;
	pp_diag_device_submit(d, 1, n, recs, cbs);
	pp_diag_device_submit_done(d, 0xf00d, false);
}

/* A barrier at the end of one command buffer, its consumer in the next one of the submission. */
static void test_carry(void)
{
	const char *early = "PASSPROBE-Barrier-DstStageTooEarly";
	/* what the second command buffer does: 0 nothing, 1 samples in the fragment shader, 2 in the
	 * vertex and fragment shaders, 3 a barrier on the image first, 4 secondaries */
	for (int variant = 0; variant < 5; variant++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r[3] = { pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create() };
		pp_diag_barriers_rec_work(r[0], PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res g = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
						     PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ,
						     PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		barrier(d, r[0], g.src_stages, g.dst_stages, 1, &g);
		/* r[1]: unrelated transfer work only, so the window is carried through it */
		pp_diag_barriers_rec_work(r[1], PP_WORK_TRANSFER, 0, 0, 0);
		if (variant == 3) {
			struct pp_diag_barrier_res again = image(7, PP_STAGE_FRAGMENT_SHADER, 0, PP_STAGE_COLOR_OUTPUT,
								 PP_ACCESS_COLOR_WRITE, PP_LAYOUT_SHADER_READ,
								 PP_LAYOUT_COLOR_ATTACHMENT);
			barrier(d, r[2], again.src_stages, again.dst_stages, 1, &again);
		}
		if (variant == 4)
			pp_diag_barriers_rec_work(r[2], PP_WORK_UNKNOWN, 0, 0, 0);
		if (variant == 1 || variant == 3)
			pp_diag_barriers_rec_use(r[2], PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		if (variant == 2)
			pp_diag_barriers_rec_use(r[2], PP_RES_IMAGE, 7, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r[2], PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		/* alone: the consumer cannot be proven */
		submit_all(d, 1, r);
		CHECK(fired(early) == 0);
		/* with its neighbours, twice (judged once, counted twice) */
		submit_all(d, 3, r);
		submit_all(d, 3, r);
		CHECK(fired(early) == (variant == 1 ? 2u : 0u));
		if (variant == 1) {
			const struct pp_diagnostic *s = find(early);
			CHECK(s && strstr(s->suggestion, "dstStageMask = FRAGMENT_SHADER"));
			/* the next command buffer recorded anew: now the vertex shader reads it too */
			pp_diag_barriers_rec_reset(r[2]);
			pp_diag_barriers_rec_use(r[2], PP_RES_IMAGE, 7, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, false);
			pp_diag_barriers_rec_work(r[2], PP_WORK_DRAW, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
			submit_all(d, 3, r);
			CHECK(fired(early) == 2);
		}
		/* nothing used it after it anywhere in the submission: it has a layout transition, so
		 * it is not Unused (the transition is a use) */
		CHECK(fired("PASSPROBE-Barrier-Unused") == 0);
		for (int i = 0; i < 3; i++)
			pp_diag_barriers_rec_destroy(r[i]);
		pp_diag_device_destroy(d);
	}

	/* An execution dependency at the end, the copy it orders in the next command buffer. */
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r[2] = { pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create() };
	pp_diag_barriers_rec_work(r[0], PP_WORK_TRANSFER, 0, 0, 0);
	barrier(d, r[0], PP_STAGE_BOTTOM, PP_STAGE_TOP, 0, NULL);
	pp_diag_barriers_rec_work(r[1], PP_WORK_TRANSFER, 0, 0, 0);
	submit_all(d, 2, r);
	const struct pp_diagnostic *s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && strstr(s->suggestion, "srcStageMask = TRANSFER; dstStageMask = TRANSFER"));
	for (int i = 0; i < 2; i++)
		pp_diag_barriers_rec_destroy(r[i]);
	pp_diag_device_destroy(d);
}

/* A barrier whose resource nothing after it in the submission uses. */
static void test_unused(void)
{
	const char *id = "PASSPROBE-Barrier-Unused";
	/* 0: fires; 1: a copy in the next command buffer may touch it; 2: a layout transition;
	 * 3: a buffer, and a draw may reach it through its address; 4: a buffer, no command after it;
	 * 5: secondaries executed after it; 6: a host read after it; 7: used by the next command
	 * buffer's draw; 8: the next command buffer is not followed */
	for (int variant = 0; variant < 9; variant++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r[2] = { pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create() };
		pp_diag_barriers_rec_work(r[0], PP_WORK_TRANSFER, 0, 0, 0);
		bool buffer = variant == 3 || variant == 4;
		struct pp_diag_barrier_res res = image(7, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_TRANSFER,
						       PP_ACCESS_TRANSFER_WRITE, PP_LAYOUT_TRANSFER_DST,
						       variant == 2 ? PP_LAYOUT_SHADER_READ : PP_LAYOUT_TRANSFER_DST);
		if (buffer)
			res = (struct pp_diag_barrier_res){ .kind = PP_RES_BUFFER, .handle = 8,
							    .src_stages = PP_STAGE_TRANSFER, .dst_stages = PP_STAGE_TRANSFER,
							    .src_access = PP_ACCESS_TRANSFER_WRITE,
							    .dst_access = PP_ACCESS_TRANSFER_READ };
		if (variant == 6) {
			res.dst_stages = PP_STAGE_HOST;
			res.dst_access = PP_ACCESS_HOST_READ;
		}
		barrier(d, r[0], res.src_stages, res.dst_stages, 1, &res);
		if (variant == 1)
			pp_diag_barriers_rec_work(r[1], PP_WORK_TRANSFER, 0, 0, 0);
		if (variant == 5)
			pp_diag_barriers_rec_work(r[1], PP_WORK_UNKNOWN, 0, 0, 0);
		if (variant == 7)
			pp_diag_barriers_rec_use(r[1], PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		if (variant != 4)
			pp_diag_barriers_rec_work(r[1], PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT,
					 PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_rec *both[2] = { r[0], variant == 8 ? NULL : r[1] };
		submit_all(d, 2, both);
		if (variant == 0 || variant == 4) {
			CHECK(fired(id) == 1);
			const struct pp_diagnostic *s = find(id);
			CHECK(s && strstr(s->suggestion, "Remove the barrier"));
			CHECK(s && strstr(s->message, buffer ? "buffer 0x8" : "image 0x7"));
		} else {
			CHECK(fired(id) == 0);
		}
		for (int i = 0; i < 2; i++)
			pp_diag_barriers_rec_destroy(r[i]);
		pp_diag_device_destroy(d);
	}
}

static void barrier_api(struct pp_diag_device *d, struct pp_diag_rec *r, bool sync2, uint32_t nres,
			const struct pp_diag_barrier_res *res)
{
	uint32_t src = 0, dst = 0;
	for (uint32_t i = 0; i < nres; i++) {
		src |= res[i].src_stages;
		dst |= res[i].dst_stages;
	}
	const struct pp_diag_barrier b = {
		.api = sync2 ? "vkCmdPipelineBarrier2" : "vkCmdPipelineBarrier", .src_stages = src, .dst_stages = dst,
		.nres = nres, .res = res, .site = "test", .ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT,
		.sync2 = sync2,
	};
	pp_diag_barriers_rec(d, r, &b);
}

/* Back-to-back barrier calls that could be one. */
static void test_mergeable(void)
{
	const char *id = "PASSPROBE-Barrier-Mergeable";
	struct pp_diag_barrier_res img = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_FRAGMENT_SHADER,
					       PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
	struct pp_diag_barrier_res buf = { .kind = PP_RES_BUFFER, .handle = 8, .src_stages = PP_STAGE_TRANSFER,
					   .dst_stages = PP_STAGE_VERTEX_INPUT, .src_access = PP_ACCESS_TRANSFER_WRITE,
					   .dst_access = PP_ACCESS_VERTEX_READ };
	struct pp_diag_barrier_res buf_same = buf;
	buf_same.src_stages = PP_STAGE_COLOR_OUTPUT;
	buf_same.dst_stages = PP_STAGE_FRAGMENT_SHADER;
	/* chained: the second waits for what the first's second scope covers */
	struct pp_diag_barrier_res chained = { .kind = PP_RES_BUFFER, .handle = 9, .src_stages = PP_STAGE_FRAGMENT_SHADER,
					       .dst_stages = PP_STAGE_TRANSFER, .src_access = PP_ACCESS_SHADER_WRITE,
					       .dst_access = PP_ACCESS_TRANSFER_READ };
	/* chained, and the second's second scope covers the first's: the unions order the same */
	struct pp_diag_barrier_res chained_wide = chained;
	chained_wide.dst_stages = PP_STAGE_FRAGMENT_SHADER | PP_STAGE_TRANSFER;
	struct pp_diag_barrier_res same_image = image(7, PP_STAGE_FRAGMENT_SHADER, 0, PP_STAGE_TRANSFER,
						      PP_ACCESS_TRANSFER_READ, PP_LAYOUT_SHADER_READ, PP_LAYOUT_TRANSFER_SRC);
	struct {
		bool sync2_a, sync2_b, draw_between;
		const struct pp_diag_barrier_res *second;
		const char *expect; /* NULL: silent */
	} cases[] = {
		{ true, true, false, &buf, "one vkCmdPipelineBarrier2 with the barriers of both" },
		{ false, false, false, &buf, "one vkCmdPipelineBarrier2 in which each barrier keeps its own stages" },
		{ false, false, false, &buf_same, "one vkCmdPipelineBarrier with srcStageMask = COLOR_ATTACHMENT_OUTPUT" },
		{ true, true, true, &buf, NULL },
		{ false, false, false, &img, NULL },        /* identical: Duplicate */
		{ true, true, false, &same_image, NULL },   /* the same image again */
		{ true, true, false, &chained, NULL },      /* chained through FRAGMENT_SHADER */
		{ false, false, false, &chained, NULL },     /* the unions would make FRAGMENT_SHADER wait for itself */
		{ false, false, false, &chained_wide, "one vkCmdPipelineBarrier with srcStageMask" }, /* keeps the chain */
		{ true, true, false, &chained_wide, NULL },  /* vkCmdPipelineBarrier2 would lose the chain */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT | PP_WORK_TRANSFER, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		barrier_api(d, r, cases[i].sync2_a, 1, &img);
		if (cases[i].draw_between)
			pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		barrier_api(d, r, cases[i].sync2_b, 1, cases[i].second);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_TRANSFER, PP_STAGE_VERTEX_INPUT | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		const struct pp_diagnostic *s = find(id);
		if (cases[i].expect) {
			CHECK(fired(id) == 1);
			CHECK(s && strstr(s->suggestion, cases[i].expect));
			if (!(s && strstr(s->suggestion, cases[i].expect)))
				fprintf(stderr, "merge case %zu: %s\n", i, s ? s->suggestion : "(none)");
		} else {
			CHECK(fired(id) == 0);
			if (s)
				fprintf(stderr, "merge case %zu fired: %s\n", i, s->suggestion);
		}
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* ---- subresource and buffer ranges ---- */

static struct pp_diag_range mips(uint32_t first, uint32_t count)
{
	return (struct pp_diag_range){ .set = true, .aspects = 1, .begin = first, .end = count ? first + count : 0 };
}

static struct pp_diag_range bytes(uint64_t offset, uint64_t size)
{
	return (struct pp_diag_range){ .set = true, .begin = offset, .end = size ? offset + size : PP_DIAG_RANGE_END };
}

static struct pp_diag_barrier_res buf(uint64_t h, uint32_t src, uint32_t sa, uint32_t dst, uint32_t da,
				      struct pp_diag_range rg)
{
	return (struct pp_diag_barrier_res){ .kind = PP_RES_BUFFER, .handle = h, .src_stages = src, .dst_stages = dst,
					     .src_access = sa, .dst_access = da, .range = rg };
}

static void test_ranges(void)
{
	const char *early = "PASSPROBE-Barrier-DstStageTooEarly";
	/* overlap: aspects, levels, layers, bytes, "to the end", unset = whole */
	struct pp_diag_range m0 = mips(0, 1), m1 = mips(1, 1), rest = mips(1, 0);
	struct pp_diag_range depth = { .set = true, .aspects = 2, .end = 1 }, l3 = mips(0, 1);
	l3.layer_begin = 3;
	l3.layer_end = 4;
	CHECK(!pp_diag_ranges_overlap(&m0, &m1));
	CHECK(pp_diag_ranges_overlap(&m1, &rest) && !pp_diag_ranges_overlap(&m0, &rest));
	CHECK(!pp_diag_ranges_overlap(&m0, &depth));
	CHECK(pp_diag_ranges_overlap(&m0, &l3) && !pp_diag_ranges_overlap(&l3, &(struct pp_diag_range){
		.set = true, .aspects = 1, .end = 1, .layer_begin = 0, .layer_end = 3 }));
	struct pp_diag_range lo = bytes(0, 64), hi = bytes(64, 0);
	CHECK(!pp_diag_ranges_overlap(&lo, &hi) && pp_diag_ranges_overlap(&lo, NULL));
	CHECK(pp_diag_ranges_overlap(&hi, &(struct pp_diag_range){ 0 }));

	/* A barrier on [0, 128) for the vertex fetch, a fragment shader reading [128, ...), a
	 * barrier on [128, ...), the vertex fetch: per whole buffer the fragment read was taken
	 * for the first barrier's consumer (a false DstStageTooEarly suggesting FRAGMENT_SHADER). */
	for (int whole = 0; whole < 2; whole++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		struct pp_diag_barrier_res x = buf(5, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_VERTEX_INPUT,
						   PP_ACCESS_VERTEX_READ, whole ? (struct pp_diag_range){ 0 } : bytes(0, 128));
		barrier(d, r, x.src_stages, x.dst_stages, 1, &x);
		struct pp_diag_range up = whole ? (struct pp_diag_range){ 0 } : bytes(128, 0);
		pp_diag_barriers_rec_use_range(r, PP_RES_BUFFER, 5, &up, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res y = buf(5, PP_STAGE_FRAGMENT_SHADER, 0, PP_STAGE_TRANSFER,
						   PP_ACCESS_TRANSFER_WRITE, up);
		barrier(d, r, y.src_stages, y.dst_stages, 1, &y);
		struct pp_diag_range vb = bytes(0, 0);
		pp_diag_barriers_rec_use_range(r, PP_RES_BUFFER, 5, &vb, PP_STAGE_VERTEX_INPUT, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		CHECK(fired(early) == (whole ? 1u : 0u));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}

	/* A barrier on [0, 128) with dstStageMask VERTEX_SHADER | FRAGMENT_SHADER, SHADER_READ;
	 * compute writes [128, ...), a fragment shader reads [0, 128): only the fragment shader
	 * consumes it. A compute use of unknown range (whole) makes it unprovable: compute is not
	 * a graphics stage the destination could be narrowed to. */
	for (int whole = 0; whole < 2; whole++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		struct pp_diag_barrier_res x = buf(5, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE,
						   PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ,
						   bytes(0, 128));
		barrier(d, r, x.src_stages, x.dst_stages, 1, &x);
		struct pp_diag_range up = bytes(128, 0), low = bytes(0, 128);
		pp_diag_barriers_rec_use_range(r, PP_RES_BUFFER, 5, whole ? NULL : &up, PP_STAGE_COMPUTE, true);
		pp_diag_barriers_rec_work(r, PP_WORK_DISPATCH, 0, 0, 0);
		pp_diag_barriers_rec_use_range(r, PP_RES_BUFFER, 5, &low, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		CHECK(fired(early) == (whole ? 0u : 1u));
		const struct pp_diagnostic *s = find(early);
		CHECK(whole || (s && strstr(s->suggestion, "dstStageMask = FRAGMENT_SHADER")));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}

	/* A mip chain: level i - 1 -> TRANSFER_SRC, blit, level i - 1 -> SHADER_READ (dst
	 * ALL_COMMANDS, or FRAGMENT_SHADER for the control); the last level after the loop; the
	 * fragment shader samples every level. Per whole image each SHADER_READ barrier's window
	 * closed at the next level's barrier, empty. */
	for (int narrow = 0; narrow < 2; narrow++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		uint32_t dst = narrow ? PP_STAGE_FRAGMENT_SHADER : PP_STAGE_ALL_COMMANDS;
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		for (uint32_t i = 1; i < 4; i++) {
			struct pp_diag_barrier_res a = image(9, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_TRANSFER,
							     PP_ACCESS_TRANSFER_READ, PP_LAYOUT_TRANSFER_DST, PP_LAYOUT_TRANSFER_SRC);
			a.range = mips(i - 1, 1);
			barrier(d, r, a.src_stages, a.dst_stages, 1, &a);
			pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
			struct pp_diag_barrier_res b = image(9, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_READ, dst,
							     PP_ACCESS_SHADER_READ, PP_LAYOUT_TRANSFER_SRC, PP_LAYOUT_SHADER_READ);
			b.range = mips(i - 1, 1);
			barrier(d, r, b.src_stages, b.dst_stages, 1, &b);
		}
		struct pp_diag_barrier_res last = image(9, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_FRAGMENT_SHADER,
							PP_ACCESS_SHADER_READ, PP_LAYOUT_TRANSFER_DST, PP_LAYOUT_SHADER_READ);
		last.range = mips(3, 1);
		barrier(d, r, last.src_stages, last.dst_stages, 1, &last);
		struct pp_diag_range all = mips(0, 0);
		pp_diag_barriers_rec_use_range(r, PP_RES_IMAGE, 9, &all, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		CHECK(fired(early) == (narrow ? 0u : 3u));
		const struct pp_diagnostic *s = find(early);
		CHECK(narrow || (s && strstr(s->suggestion, "dstStageMask = FRAGMENT_SHADER")));
		/* back-to-back barriers on different levels of one image are one call's worth */
		CHECK(fired("PASSPROBE-Barrier-Mergeable") == 3);
		CHECK(fired("PASSPROBE-Barrier-Duplicate") == 0);
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}

	/* A barrier on the whole image (VERTEX_SHADER | FRAGMENT_SHADER), the fragment shader reads
	 * level 1, a barrier on level 1, the vertex shader reads level 0: the first window goes on
	 * for level 0 (it sees the vertex read). */
	{
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res w = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
						     PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ,
						     PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		w.range = mips(0, 0);
		barrier(d, r, w.src_stages, w.dst_stages, 1, &w);
		pp_diag_barriers_rec_use_range(r, PP_RES_IMAGE, 7, &m1, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res b = image(7, PP_STAGE_FRAGMENT_SHADER, 0, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE,
						     PP_LAYOUT_SHADER_READ, PP_LAYOUT_TRANSFER_DST);
		b.range = m1;
		barrier(d, r, b.src_stages, b.dst_stages, 1, &b);
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		pp_diag_barriers_rec_use_range(r, PP_RES_IMAGE, 7, &m0, PP_STAGE_VERTEX_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		CHECK(fired(early) == 0);
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}

	/* Carried into the next command buffer: there a barrier on level 1 (another range) does
	 * not close the window of level 0, which its fragment shader then reads; a barrier on
	 * level 0 does (variant 1: nothing uses it before). */
	for (int variant = 0; variant < 2; variant++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r[2] = { pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create() };
		pp_diag_barriers_rec_work(r[0], PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res g = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
						     PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ,
						     PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		g.range = m0;
		barrier(d, r[0], g.src_stages, g.dst_stages, 1, &g);
		struct pp_diag_barrier_res other = image(7, PP_STAGE_FRAGMENT_SHADER, 0, PP_STAGE_COLOR_OUTPUT,
							 PP_ACCESS_COLOR_WRITE, PP_LAYOUT_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT);
		other.range = variant ? m0 : m1;
		barrier(d, r[1], other.src_stages, other.dst_stages, 1, &other);
		pp_diag_barriers_rec_use_range(r[1], PP_RES_IMAGE, 7, &m0, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r[1], PP_WORK_DRAW, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit_all(d, 2, r);
		CHECK(fired(early) == (variant ? 0u : 1u));
		for (int i = 0; i < 2; i++)
			pp_diag_barriers_rec_destroy(r[i]);
		pp_diag_device_destroy(d);
	}

	/* A barrier on a whole buffer, then one on its first half, nothing after: the first one's
	 * window goes on for the second half, but a later barrier met it (an execution dependency
	 * chain may go through it), so it is not Unused; the second one is. */
	{
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DISPATCH, 0, 0, 0);
		struct pp_diag_barrier_res w = buf(5, PP_STAGE_COMPUTE, PP_ACCESS_SHADER_WRITE, PP_STAGE_COMPUTE,
						   PP_ACCESS_SHADER_READ, bytes(0, 0));
		barrier(d, r, w.src_stages, w.dst_stages, 1, &w);
		struct pp_diag_barrier_res h = buf(5, PP_STAGE_COMPUTE, PP_ACCESS_SHADER_WRITE, PP_STAGE_VERTEX_INPUT,
						   PP_ACCESS_VERTEX_READ, bytes(0, 128));
		barrier(d, r, h.src_stages, h.dst_stages, 1, &h);
		submit(d, r, 1);
		CHECK(fired("PASSPROBE-Barrier-Unused") == 1);
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}

	/* Bounded: barriers on 10 layers, each ALL_COMMANDS, then the fragment shader reads them
	 * all. Beyond PP_DIAG_RANGES open windows the older ones close as "cannot narrow". */
	{
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		for (uint32_t i = 0; i < 10; i++) {
			pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
			struct pp_diag_barrier_res b = image(9, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_ALL_COMMANDS,
							     PP_ACCESS_SHADER_READ, PP_LAYOUT_TRANSFER_DST, PP_LAYOUT_SHADER_READ);
			b.range = (struct pp_diag_range){ .set = true, .end = 1, .layer_begin = i, .layer_end = i + 1 };
			barrier(d, r, b.src_stages, b.dst_stages, 1, &b);
		}
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 9, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		CHECK(fired(early) == 10 - PP_DIAG_RANGES);
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* A site is the code location that recorded the barrier: the loop of a frame
 * ring's two command buffers, each recorded every frame, is one entry per rule, counted in
 * both command buffers; the same masks from another location are another site; a barrier
 * without a known location stays keyed by command buffer and call index. Sampled costs are
 * per occurrence times occurrences per frame. */
static void test_site_location(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r[2] = { pp_diag_barriers_rec_create(), pp_diag_barriers_rec_create() };
	const struct pp_diag_barrier loop = {
		.api = "vkCmdPipelineBarrier", .src_stages = PP_STAGE_BOTTOM | PP_STAGE_ALL_COMMANDS,
		.dst_stages = PP_STAGE_TOP | PP_STAGE_ALL_COMMANDS, .site = "loop", .loc_key = 0x1234,
		.ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT,
	};
	for (uint32_t f = 0; f < 6; f++) {
		struct pp_diag_rec *rec = r[f % 2];
		pp_diag_barriers_rec_reset(rec);
		for (uint32_t pass = 0; pass < 8; pass++) {
			if (pass)
				pp_diag_barriers_rec(d, rec, &loop);
			pp_diag_barriers_rec_work(rec, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		}
		submit(d, rec, 100 + f % 2);
	}
	size_t n = pp_diag_sites_snapshot(snap, PP_DIAG_MAX_SITES, NULL);
	CHECK(n == 1);
	const struct pp_diagnostic *s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && s->count == 42 && s->frames == 6 && s->command_buffers == 2);

	/* Three of the seven timed, in one frame: 7 occurrences per frame of 300 ns each. */
	struct pp_diag_cost_probe probes[8];
	pp_diag_barriers_rec_reset(r[0]);
	struct pp_diag_barrier timed = loop;
	timed.ts_before = 1;
	timed.ts_after = 2;
	pp_diag_barriers_rec_work(r[0], PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	pp_diag_barriers_rec(d, r[0], &timed);
	pp_diag_barriers_rec_work(r[0], PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	submit(d, r[0], 100);
	CHECK(pp_diag_findings_rec_cost_probes(d, r[0], 100, probes, 8) == 1);
	for (int k = 0; k < 3; k++)
		pp_diag_sites_cost(probes[0].key, 300, 7);
	s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && s->cost_valid && s->cost_ns == 300 * 43 / 7);

	/* Another location: another site. No location: one site per command buffer. */
	struct pp_diag_barrier other = loop, unknown = loop;
	other.loc_key = 0x5678;
	unknown.loc_key = 0;
	for (uint32_t k = 0; k < 2; k++) {
		pp_diag_barriers_rec_reset(r[k]);
		pp_diag_barriers_rec_work(r[k], PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		pp_diag_barriers_rec(d, r[k], &other);
		pp_diag_barriers_rec_work(r[k], PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		pp_diag_barriers_rec(d, r[k], &unknown);
		pp_diag_barriers_rec_work(r[k], PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r[k], 100 + k);
	}
	CHECK(pp_diag_sites_snapshot(snap, PP_DIAG_MAX_SITES, NULL) == 1 + 1 + 2);
	pp_diag_barriers_rec_destroy(r[0]);
	pp_diag_barriers_rec_destroy(r[1]);
	pp_diag_device_destroy(d);
}


/* ---- the experiment (docs/diagnostics.md, "Experiment mode") ---- */

static struct pp_diag_device *device_exp(void)
{
	const struct pp_diag_config cfg = { .frame_delimiter = PP_FRAME_AUTO, .experiment = true };
	return pp_diag_device_create(&cfg);
}

/* A barrier call at code location loc (the experiment keys its sites by it). */
static uint32_t barrier_at(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t loc, uint32_t src, uint32_t dst,
			   uint32_t nres, const struct pp_diag_barrier_res *res)
{
	const struct pp_diag_barrier b = {
		.api = "vkCmdPipelineBarrier", .src_stages = src, .dst_stages = dst, .nres = nres, .res = res,
		.site = "vkCmdPipelineBarrier called from app+0x10, after pass 0", .loc_key = loc,
		.ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT,
	};
	return pp_diag_barriers_rec(d, r, &b);
}

/* The attachments of a render pass begun: named images, or some not known. */
static void render_pass(struct pp_diag_rec *r, uint64_t image, bool depth_unnamed)
{
	const struct pp_diag_use att = { .kind = PP_RES_IMAGE, .handle = image, .stages = PP_STAGE_COLOR_OUTPUT,
					 .write = true };
	const struct pp_diag_observed o = {
		.nattachments = image ? 1 : 0, .attachments = &att, .attachments_unnamed = depth_unnamed,
		.work = PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT | (depth_unnamed ? PP_WORK_DEPTH_ATTACHMENT : 0),
		.draw_stages = PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER,
	};
	pp_diag_barriers_rec_observed(r, &o);
}

enum exp_case { EXP_NARROW, EXP_NARROW_DEPTH, EXP_DROP, EXP_DROP_UNNAMED, EXP_DROP_USED, EXP_DROP_WIDER };

/* One recording of a frame: the G-buffer image 7 written, a barrier for pass B at location 0x100
 * (dst VERTEX_SHADER|FRAGMENT_SHADER, or FRAGMENT_SHADER for the drop cases), pass B, for the
 * drop cases a read-to-read barrier at 0x200 and pass C; passes B and C render into images 9
 * and 10, which the frame's first barrier (0x50) made attachments. */
static struct pp_diag_rec *exp_frame(struct pp_diag_device *d, enum exp_case k, bool fixed)
{
	struct pp_diag_rec *r = pp_diag_barriers_rec_create();
	struct pp_diag_barrier_res start[2] = {
		image(9, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
		      PP_LAYOUT_UNDEFINED, PP_LAYOUT_COLOR_ATTACHMENT),
		image(10, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
		      PP_LAYOUT_UNDEFINED, PP_LAYOUT_COLOR_ATTACHMENT),
	};
	barrier_at(d, r, 0x50, PP_STAGE_COLOR_OUTPUT, PP_STAGE_COLOR_OUTPUT, 2, start);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
	bool drop = k >= EXP_DROP;
	uint32_t dst = drop ? PP_STAGE_FRAGMENT_SHADER : PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER;
	struct pp_diag_barrier_res g = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, dst, PP_ACCESS_SHADER_READ,
					     PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
	uint32_t bi = barrier_at(d, r, 0x100, PP_STAGE_COLOR_OUTPUT, dst, 1, &g);
	if (fixed && !drop)
		pp_diag_experiment_rec_barrier_fixed(r, bi);
	pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
	if (k == EXP_DROP_USED)
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 10, PP_STAGE_FRAGMENT_SHADER, false); /* 10 read before its write */
	render_pass(r, k == EXP_DROP_UNNAMED ? 0 : 9, k == EXP_NARROW_DEPTH || k == EXP_DROP_UNNAMED);
	if (drop) {
		uint32_t rd = k == EXP_DROP_WIDER ? PP_STAGE_VERTEX_SHADER : PP_STAGE_FRAGMENT_SHADER;
		struct pp_diag_barrier_res again = image(7, PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ, rd,
							 PP_ACCESS_SHADER_READ, PP_LAYOUT_SHADER_READ, PP_LAYOUT_SHADER_READ);
		bi = barrier_at(d, r, 0x200, PP_STAGE_FRAGMENT_SHADER, rd, 1, &again);
		if (fixed)
			pp_diag_experiment_rec_barrier_fixed(r, bi);
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		render_pass(r, k == EXP_DROP_UNNAMED ? 0 : 10, k == EXP_DROP_UNNAMED);
	}
	return r;
}

static void exp_frames(struct pp_diag_device *d, enum exp_case k, int n)
{
	for (int f = 0; f < n; f++) {
		struct pp_diag_rec *r = exp_frame(d, k, false);
		submit(d, r, 1);
		pp_diag_barriers_rec_destroy(r);
	}
}

static void test_experiment(void)
{
	const char *narrow = "PASSPROBE-Barrier-DstStageTooEarly", *r2r = "PASSPROBE-Barrier-ReadToRead";
	const uint32_t vsfs = PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER;

	/* Proven in two frames as written: in; the fixed arm rewrites it, the other arm marks it. */
	pp_diag_sites_clear();
	struct pp_diag_device *d = device_exp();
	exp_frames(d, EXP_NARROW, 1);
	const struct pp_diagnostic *s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_CANDIDATE && s->exp_site == 0);
	exp_frames(d, EXP_NARROW, 1);
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_IN &&
	      !strcmp(s->exp_detail, "dstStageMask VERTEX_SHADER|FRAGMENT_SHADER -> FRAGMENT_SHADER"));
	struct pp_diag_exp_call call;
	pp_diag_experiment_call(d, PP_EXP_ARM_AS_WRITTEN, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
	CHECK(call.site == 0 && !call.apply && call.kind == PP_DIAG_EXP_NARROW_DST);
	pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
	CHECK(call.site == 0 && call.apply && call.dst_stages == PP_STAGE_FRAGMENT_SHADER);
	pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x100, PP_STAGE_COLOR_OUTPUT, PP_STAGE_FRAGMENT_SHADER, &call);
	CHECK(call.site == PP_DIAG_EXP_NONE && !call.apply); /* other masks: another call */
	pp_diag_experiment_call(d, PP_EXP_ARM_NONE, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
	CHECK(call.site == PP_DIAG_EXP_NONE);
	/* A rewritten recording proves the fix again: still in, counted as rewritten. */
	struct pp_diag_rec *r = exp_frame(d, EXP_NARROW, true);
	submit(d, r, 1);
	pp_diag_barriers_rec_destroy(r);
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_IN && s->exp_fixed == 1);
	/* One that does not (the vertex shader reads the image now, so the barrier as written is
	 * right): withdrawn, for good. */
	r = exp_frame(d, EXP_NARROW, true);
	pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_VERTEX_SHADER, false);
	submit(d, r, 1);
	pp_diag_barriers_rec_destroy(r);
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_WITHDRAWN &&
	      strstr(s->exp_why, "a recording it rewrote no longer had the finding"));
	exp_frames(d, EXP_NARROW, 2);
	CHECK(find(narrow)->exp_state == PP_DIAG_EXP_STATE_WITHDRAWN);
	pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
	CHECK(!call.apply);
	pp_diag_device_destroy(d);

	/* A depth attachment passprobe cannot name is written after it, at EARLY_FRAGMENT_TESTS,
	 * which the narrowed mask no longer waits for: out, saying so. */
	pp_diag_sites_clear();
	d = device_exp();
	exp_frames(d, EXP_NARROW_DEPTH, 2);
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_OUT && strstr(s->exp_why, "EARLY_FRAGMENT_TESTS") &&
	      strstr(s->exp_why, "cannot show a barrier of its own orders"));
	pp_diag_device_destroy(d);

	/* Reads after reads: removed when the barrier before it made the image visible to the same
	 * stages and the attachments written after it have barriers of their own, unused since. */
	const struct {
		enum exp_case k;
		const char *why; /* NULL: in */
	} drops[] = {
		{ EXP_DROP, NULL },
		{ EXP_DROP_UNNAMED, "COLOR_ATTACHMENT_OUTPUT" },
		{ EXP_DROP_USED, "COLOR_ATTACHMENT_OUTPUT" },
		{ EXP_DROP_WIDER, "stages wait that the barrier before it" },
	};
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		pp_diag_sites_clear();
		d = device_exp();
		exp_frames(d, drops[i].k, 2);
		s = find(r2r);
		CHECK(s != NULL);
		if (!s)
			continue;
		if (!drops[i].why) {
			CHECK(s->exp_state == PP_DIAG_EXP_STATE_IN && !strcmp(s->exp_detail, "removed"));
			pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x200, PP_STAGE_FRAGMENT_SHADER, PP_STAGE_FRAGMENT_SHADER, &call);
			CHECK(call.apply && call.kind == PP_DIAG_EXP_DROP);
		} else {
			CHECK(s->exp_state == PP_DIAG_EXP_STATE_OUT && strstr(s->exp_why, drops[i].why));
			if (!strstr(s->exp_why, drops[i].why))
				fprintf(stderr, "drop case %zu: %s\n", i, s->exp_why);
		}
		pp_diag_device_destroy(d);
	}

	/* Recorded once and submitted again: its frames cannot alternate. */
	pp_diag_sites_clear();
	d = device_exp();
	r = exp_frame(d, EXP_NARROW, false);
	submit(d, r, 1);
	submit(d, r, 1);
	pp_diag_barriers_rec_destroy(r);
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_OUT && strstr(s->exp_why, "recorded once and submitted again"));
	pp_diag_device_destroy(d);

	/* A source mask is never narrowed; other rules are not fixes the experiment makes. */
	pp_diag_sites_clear();
	d = device_exp();
	for (int f = 0; f < 2; f++) {
		r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		struct pp_diag_barrier_res late = image(7, PP_STAGE_ALL_COMMANDS, PP_ACCESS_COLOR_WRITE, PP_STAGE_FRAGMENT_SHADER,
							PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		barrier_at(d, r, 0x300, PP_STAGE_ALL_COMMANDS, PP_STAGE_FRAGMENT_SHADER, 1, &late);
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
		submit(d, r, 1);
		pp_diag_barriers_rec_destroy(r);
	}
	s = find("PASSPROBE-Barrier-SrcStageTooLate");
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_OUT && strstr(s->exp_why, "srcStageMask"));
	pp_diag_device_destroy(d);

	/* Merges: the call before the site is held back in the block of its site only; two sites in
	 * the experiment take the fixed arm's blocks in turn. */
	pp_diag_sites_clear();
	d = device_exp();
	struct pp_diag_barrier_res img = image(7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE, PP_STAGE_FRAGMENT_SHADER,
					       PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
	struct pp_diag_barrier_res vb = { .kind = PP_RES_BUFFER, .handle = 8, .src_stages = PP_STAGE_TRANSFER,
					  .dst_stages = PP_STAGE_VERTEX_INPUT, .src_access = PP_ACCESS_TRANSFER_WRITE,
					  .dst_access = PP_ACCESS_VERTEX_READ };
	for (int f = 0; f < 2; f++) {
		r = exp_frame(d, EXP_NARROW, false);
		pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
		barrier_at(d, r, 0x400, PP_STAGE_COLOR_OUTPUT, PP_STAGE_FRAGMENT_SHADER, 1, &img);
		barrier_at(d, r, 0x500, PP_STAGE_TRANSFER, PP_STAGE_VERTEX_INPUT, 1, &vb);
		pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 8, PP_STAGE_VERTEX_INPUT, false);
		pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW, vsfs | PP_STAGE_VERTEX_INPUT, 0, 0);
		submit(d, r, 1);
		pp_diag_barriers_rec_destroy(r);
	}
	s = find("PASSPROBE-Barrier-Mergeable");
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_IN && strstr(s->exp_detail, "vkCmdPipelineBarrier2"));
	CHECK(find(narrow) && find(narrow)->exp_state == PP_DIAG_EXP_STATE_IN);
	uint32_t merge_site = s ? (uint32_t)s->exp_site : 99, narrow_site = (uint32_t)find(narrow)->exp_site;
	uint32_t first_block = PP_DIAG_EXP_NONE, second_block = PP_DIAG_EXP_NONE;
	for (int block = 0; block < 2; block++) {
		pp_diag_experiment_call(d, PP_EXP_ARM_AS_WRITTEN, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
		CHECK(!call.apply);
		struct pp_diag_exp_call first, second, gbuf;
		pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &gbuf);
		pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x400, PP_STAGE_COLOR_OUTPUT, PP_STAGE_FRAGMENT_SHADER, &first);
		pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x500, PP_STAGE_TRANSFER, PP_STAGE_VERTEX_INPUT, &second);
		uint32_t active = gbuf.apply ? narrow_site : second.apply ? merge_site : PP_DIAG_EXP_NONE;
		CHECK(gbuf.apply != second.apply);
		CHECK((first.hold_site == merge_site) == second.apply);
		CHECK(!second.apply || (second.kind == PP_DIAG_EXP_MERGE && second.merge == PP_DIAG_MERGE_SYNC2));
		if (block == 0)
			first_block = active;
		else
			second_block = active;
	}
	CHECK(first_block != second_block && first_block != PP_DIAG_EXP_NONE && second_block != PP_DIAG_EXP_NONE);
	/* Refused where the API's side cannot make it: out, with its reason. */
	pp_diag_experiment_refuse(d, merge_site, "the device enables VK_X_unknown");
	s = find("PASSPROBE-Barrier-Mergeable");
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_OUT && !strcmp(s->exp_why, "the device enables VK_X_unknown"));
	pp_diag_device_destroy(d);

	/* Experiment off: no state at all. */
	pp_diag_sites_clear();
	d = device();
	for (int f = 0; f < 2; f++) {
		r = exp_frame(d, EXP_NARROW, false);
		submit(d, r, 1);
		pp_diag_barriers_rec_destroy(r);
	}
	s = find(narrow);
	CHECK(s && s->exp_state == PP_DIAG_EXP_STATE_NONE && s->exp_site == -1);
	pp_diag_experiment_call(d, PP_EXP_ARM_FIXED, 0x100, PP_STAGE_COLOR_OUTPUT, vsfs, &call);
	CHECK(call.site == PP_DIAG_EXP_NONE && !call.apply);
	pp_diag_device_destroy(d);
}

int main(void)
{
	pp_log_set_level(PP_LOG_ERROR);
	test_gbuffer();
	test_write_consumer();
	test_drains();
	test_redundant();
	test_chain();
	test_blocking();
	test_semaphores();
	test_call_count();
	test_subpass();
	test_bound();
	test_carry();
	test_unused();
	test_mergeable();
	test_ranges();
	test_site_location();
	test_experiment();
	if (!check_failed)
		printf("all diagnostics rule checks passed\n");
	return check_finish();
}
