/* Severity (docs/diagnostics.md, "Severity"): each rule's severity as the table there gives it,
 * what a narrower barrier would gain judged by the phases of a tile-based GPU, and the
 * per-finding adjustments, through the rules into the site table and the messengers' queue:
 * a barrier whose freed stages run right before a stage that stays blocked is information,
 * one that stops non-fragment work from waiting for fragment work a warning; a removed
 * barrier with a write behind it a warning for its cache flush; a wait on a thread that
 * records, submits and presents nothing information, until the frame's thread waits there. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_settings.h"
#include "pp_check.h"

static struct pp_diagnostic snap[64];

static const struct pp_diagnostic *find(const char *id)
{
	size_t n = pp_diag_sites_snapshot(snap, 64, NULL);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].id, id))
			return &snap[i];
	return NULL;
}

/* The site of an ID has this severity, and a verdict that says so. */
static bool judged(const char *id, const char *severity)
{
	const struct pp_diagnostic *s = find(id);
	if (!s) {
		fprintf(stderr, "%s: no site\n", id);
		return false;
	}
	bool ok = s->severity && !strcmp(s->severity, severity) &&
		  !strncmp(s->verdict, !strcmp(severity, "info") ? "little to gain" : "worth fixing",
			   !strcmp(severity, "info") ? 14 : 12);
	if (!ok)
		fprintf(stderr, "%s: %s, \"%s\"; expected %s\n", id, s->severity ? s->severity : "(none)", s->verdict,
			severity);
	return ok;
}

static struct pp_diag_device *device(void)
{
	const struct pp_diag_config cfg = { .frame_delimiter = PP_FRAME_AUTO };
	return pp_diag_device_create(&cfg);
}

static void barrier(struct pp_diag_device *d, struct pp_diag_rec *r, uint32_t nres, const struct pp_diag_barrier_res *res)
{
	uint32_t src = 0, dst = 0;
	for (uint32_t i = 0; i < nres; i++) {
		src |= res[i].src_stages;
		dst |= res[i].dst_stages;
	}
	const struct pp_diag_barrier b = {
		.api = "vkCmdPipelineBarrier", .src_stages = src, .dst_stages = dst, .nres = nres, .res = res,
		.site = "test", .ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT,
	};
	pp_diag_barriers_rec(d, r, &b);
}

static void submit(struct pp_diag_device *d, struct pp_diag_rec *r)
{
	uint64_t cb = 1;
	pp_diag_device_submit(d, 1, 1, &r, &cb);
	pp_diag_device_submit_done(d, 0xf00d, false);
}

static struct pp_diag_barrier_res res(enum pp_diag_res_kind kind, uint64_t h, uint32_t src, uint32_t sa, uint32_t dst,
				      uint32_t da, enum pp_diag_layout from, enum pp_diag_layout to)
{
	return (struct pp_diag_barrier_res){ .kind = kind, .handle = h, .src_stages = src, .dst_stages = dst,
					     .src_access = sa, .dst_access = da, .old_layout = from, .new_layout = to };
}

/* The table of docs/diagnostics.md, rule by rule. */
static void test_rule_table(void)
{
	static const struct {
		enum pp_diag_rule rule;
		enum pp_diag_severity severity;
	} table[] = {
		{ PP_DIAG_FULL_DRAIN, PP_DIAG_WARNING },
		{ PP_DIAG_DST_TOO_EARLY, PP_DIAG_WARNING },
		{ PP_DIAG_SRC_TOO_LATE, PP_DIAG_WARNING },
		{ PP_DIAG_READ_TO_READ, PP_DIAG_WARNING },
		{ PP_DIAG_DUPLICATE, PP_DIAG_INFO },
		{ PP_DIAG_CHAIN, PP_DIAG_WARNING },
		{ PP_DIAG_SET_EVENT_WAIT, PP_DIAG_INFO },
		{ PP_DIAG_QUERY_WAIT, PP_DIAG_WARNING },
		{ PP_DIAG_QUERY_WAIT_UNSUBMITTED, PP_DIAG_WARNING },
		{ PP_DIAG_FENCE_WAIT, PP_DIAG_WARNING },
		{ PP_DIAG_QUEUE_WAIT_IDLE, PP_DIAG_WARNING },
		{ PP_DIAG_DEVICE_WAIT_IDLE, PP_DIAG_WARNING },
		{ PP_DIAG_POLLING, PP_DIAG_WARNING },
		{ PP_DIAG_SEMAPHORE_WAIT, PP_DIAG_WARNING },
		{ PP_DIAG_SUBPASS_NOT_BY_REGION, PP_DIAG_WARNING },
		{ PP_DIAG_UNUSED, PP_DIAG_WARNING },
		{ PP_DIAG_MERGEABLE, PP_DIAG_INFO },
		{ PP_DIAG_READBACK_DRAIN, PP_DIAG_WARNING },
		{ PP_DIAG_FINISH, PP_DIAG_WARNING },
		{ PP_DIAG_QUERY_RESULT_WAIT, PP_DIAG_WARNING },
		{ PP_DIAG_SYNC_WAIT, PP_DIAG_WARNING },
		{ PP_DIAG_MAP_IN_USE, PP_DIAG_WARNING },
		{ PP_DIAG_TEXTURE_UPDATE_IN_USE, PP_DIAG_WARNING },
		{ PP_DIAG_STATIC_BUFFER_UPDATE, PP_DIAG_WARNING },
		{ PP_DIAG_PASS_UNNEEDED_LOAD, PP_DIAG_WARNING },
		{ PP_DIAG_PASS_UNNEEDED_STORE, PP_DIAG_WARNING },
	};
	CHECK(sizeof(table) / sizeof(table[0]) == PP_DIAG_RULE_COUNT);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		CHECK(pp_diag_severity_rule(table[i].rule) == table[i].severity);
		CHECK(strlen(pp_diag_severity_rule_reason(table[i].rule)) > 20);
	}
	CHECK(!strcmp(pp_diag_severity_name(PP_DIAG_WARNING), "warning"));
	CHECK(!strcmp(pp_diag_severity_name(PP_DIAG_INFO), "info"));
}

/* What a narrower form gains, by itself. */
static void test_gain(void)
{
	char why[320];
	const uint32_t VI = PP_STAGE_VERTEX_INPUT, DI = PP_STAGE_DRAW_INDIRECT, VS = PP_STAGE_VERTEX_SHADER,
		       FS = PP_STAGE_FRAGMENT_SHADER, COL = PP_STAGE_COLOR_OUTPUT, TR = PP_STAGE_TRANSFER,
		       CS = PP_STAGE_COMPUTE, ALL = PP_STAGE_ALL_COMMANDS;
	/* The next pass's vertex work waits for this pass's fragment work: the two queues overlap
	 * again once it does not. */
	CHECK(pp_diag_severity_barrier_gain(COL, VS | FS, COL, FS, why, sizeof(why)) == PP_DIAG_WARNING);
	CHECK(strstr(why, "VERTEX_SHADER") && strstr(why, "COLOR_ATTACHMENT_OUTPUT"));
	CHECK(pp_diag_severity_barrier_gain(COL, ALL, COL, FS, why, sizeof(why)) == PP_DIAG_WARNING);
	/* DRAW_INDIRECT in front of VERTEX_INPUT: the draw goes on to VERTEX_INPUT, which waits,
	 * in the same phase right after; whatever the producer. */
	CHECK(pp_diag_severity_barrier_gain(TR, DI | VI, TR, VI, why, sizeof(why)) == PP_DIAG_INFO);
	CHECK(strstr(why, "DRAW_INDIRECT") && strstr(why, "VERTEX_INPUT"));
	CHECK(pp_diag_severity_barrier_gain(FS, DI | VI, FS, VI, why, sizeof(why)) == PP_DIAG_INFO);
	/* VERTEX_INPUT in front of VERTEX_SHADER (libplacebo's images) */
	CHECK(pp_diag_severity_barrier_gain(COL, VI | FS, COL, VS | FS, why, sizeof(why)) == PP_DIAG_INFO);
	/* The source side: waiting for more than the producer. */
	CHECK(pp_diag_severity_barrier_gain(ALL, FS, COL, FS, why, sizeof(why)) == PP_DIAG_INFO);
	CHECK(strstr(why, "fragment work"));
	CHECK(pp_diag_severity_barrier_gain(ALL, VI, TR, VI, why, sizeof(why)) == PP_DIAG_WARNING);
	/* Removed: FS -> FS holds back fragment work only; FS -> VERTEX_INPUT holds back vertex
	 * input; a transfer counts as work of either queue. */
	CHECK(pp_diag_severity_barrier_gain(FS, FS, 0, 0, why, sizeof(why)) == PP_DIAG_INFO);
	CHECK(pp_diag_severity_barrier_gain(FS | VI, FS | VI, 0, 0, why, sizeof(why)) == PP_DIAG_WARNING);
	CHECK(pp_diag_severity_barrier_gain(TR, TR, 0, 0, why, sizeof(why)) == PP_DIAG_WARNING);
	CHECK(pp_diag_severity_barrier_gain(CS, CS, 0, 0, why, sizeof(why)) == PP_DIAG_INFO);
	/* A drain between two copies, narrowed to TRANSFER -> TRANSFER. */
	CHECK(pp_diag_severity_barrier_gain(PP_STAGE_BOTTOM, PP_STAGE_TOP, TR, TR, why, sizeof(why)) == PP_DIAG_WARNING);
	/* Nothing narrower: nothing gained. */
	CHECK(pp_diag_severity_barrier_gain(COL, VS | FS, COL, VS | FS, why, sizeof(why)) == PP_DIAG_INFO);
}

/* DstStageTooEarly through the rules: the G-buffer (vertex shaders wait for the colour
 * output, only the fragment shader reads) is a warning; DRAW_INDIRECT | VERTEX_INPUT for a
 * vertex buffer only the vertex fetch reads is information. */
static void test_dst_too_early(void)
{
	const char *id = "PASSPROBE-Barrier-DstStageTooEarly";
	for (int indirect = 0; indirect < 2; indirect++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		if (indirect) {
			pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
			struct pp_diag_barrier_res b = res(PP_RES_BUFFER, 5, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE,
							   PP_STAGE_DRAW_INDIRECT | PP_STAGE_VERTEX_INPUT,
							   PP_ACCESS_VERTEX_READ, PP_LAYOUT_UNDEFINED, PP_LAYOUT_UNDEFINED);
			barrier(d, r, 1, &b);
			pp_diag_barriers_rec_use(r, PP_RES_BUFFER, 5, PP_STAGE_VERTEX_INPUT, false);
		} else {
			pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT,
					 PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
			struct pp_diag_barrier_res g = res(PP_RES_IMAGE, 7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
							   PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER,
							   PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
			barrier(d, r, 1, &g);
			pp_diag_barriers_rec_use(r, PP_RES_IMAGE, 7, PP_STAGE_FRAGMENT_SHADER, false);
		}
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER,
				 0, 0);
		submit(d, r);
		CHECK(judged(id, indirect ? "info" : "warning"));
		/* what the messengers get has the same severity */
		struct pp_diag_message m[4];
		uint32_t n = pp_diag_device_messages_take(d, m, 4);
		CHECK(n == 1 && m[0].rule == PP_DIAG_DST_TOO_EARLY && m[0].severity == (indirect ? PP_DIAG_INFO : PP_DIAG_WARNING));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* SrcStageTooLate: ALL_COMMANDS where the colour output wrote, for a fragment shader, holds back
 * fragment work only (information); for a vertex fetch after a copy, non-fragment work waits for
 * every earlier fragment stage (a warning). */
static void test_src_too_late(void)
{
	const char *id = "PASSPROBE-Barrier-SrcStageTooLate";
	for (int vertex = 0; vertex < 2; vertex++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		struct pp_diag_barrier_res b;
		if (vertex) {
			pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
			b = res(PP_RES_BUFFER, 5, PP_STAGE_ALL_COMMANDS, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_VERTEX_INPUT,
				PP_ACCESS_VERTEX_READ, PP_LAYOUT_UNDEFINED, PP_LAYOUT_UNDEFINED);
		} else {
			pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT,
					 PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER, 0, 0);
			b = res(PP_RES_IMAGE, 7, PP_STAGE_ALL_COMMANDS, PP_ACCESS_COLOR_WRITE, PP_STAGE_FRAGMENT_SHADER,
				PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT, PP_LAYOUT_SHADER_READ);
		}
		barrier(d, r, 1, &b);
		pp_diag_barriers_rec_use(r, b.kind, b.handle, vertex ? PP_STAGE_VERTEX_INPUT : PP_STAGE_FRAGMENT_SHADER, false);
		pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT, PP_STAGE_VERTEX_SHADER | PP_STAGE_FRAGMENT_SHADER,
				 0, 0);
		submit(d, r);
		CHECK(judged(id, vertex ? "warning" : "info"));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* A full drain whose masks cannot be narrowed keeps the rule's warning; ReadToRead within the
 * fragment queue and the duplicate behind it are information; SetEventThenWait, Mergeable too. */
static void test_barrier_rules(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_rec *r = pp_diag_barriers_rec_create();
	/* nothing before or after it: no producer, no consumer proven */
	const struct pp_diag_barrier drain = { .api = "vkCmdPipelineBarrier", .src_stages = PP_STAGE_ALL_COMMANDS,
					       .dst_stages = PP_STAGE_ALL_COMMANDS, .site = "drain",
					       .ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT };
	pp_diag_barriers_rec_work(r, PP_WORK_UNKNOWN, 0, 0, 0);
	pp_diag_barriers_rec(d, r, &drain);
	submit(d, r);
	CHECK(judged("PASSPROBE-Barrier-FullPipelineDrain", "warning"));
	const struct pp_diagnostic *s = find("PASSPROBE-Barrier-FullPipelineDrain");
	CHECK(s && strstr(s->verdict, "cannot be proven"));

	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	struct pp_diag_barrier_res rr = res(PP_RES_IMAGE, 3, PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ,
					    PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ, PP_LAYOUT_SHADER_READ,
					    PP_LAYOUT_SHADER_READ);
	barrier(d, r, 1, &rr);
	barrier(d, r, 1, &rr);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	submit(d, r);
	CHECK(judged("PASSPROBE-Barrier-ReadToRead", "info"));
	CHECK(judged("PASSPROBE-Barrier-Duplicate", "info"));

	/* the same read-to-read reaching the vertex fetch holds vertex input back behind fragment work */
	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	rr.src_stages = rr.dst_stages = PP_STAGE_VERTEX_INPUT | PP_STAGE_FRAGMENT_SHADER;
	barrier(d, r, 1, &rr);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	submit(d, r);
	CHECK(judged("PASSPROBE-Barrier-ReadToRead", "warning"));

	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	pp_diag_barriers_rec_event_set(r, 77);
	uint64_t ev = 77;
	struct pp_diag_barrier_res br = res(PP_RES_BUFFER, 2, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE, PP_STAGE_TRANSFER,
					    PP_ACCESS_TRANSFER_READ, PP_LAYOUT_UNDEFINED, PP_LAYOUT_UNDEFINED);
	const struct pp_diag_barrier wait = { .api = "vkCmdWaitEvents", .src_stages = PP_STAGE_TRANSFER,
					      .dst_stages = PP_STAGE_TRANSFER, .nres = 1, .res = &br, .nevents = 1,
					      .events = &ev, .site = "test", .ts_before = PP_DIAG_NO_SLOT,
					      .ts_after = PP_DIAG_NO_SLOT };
	pp_diag_barriers_rec(d, r, &wait);
	pp_diag_barriers_rec_work(r, PP_WORK_TRANSFER, 0, 0, 0);
	submit(d, r);
	CHECK(judged("PASSPROBE-Barrier-SetEventThenWait", "info"));

	pp_diag_sites_clear();
	pp_diag_barriers_rec_reset(r);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_COLOR_ATTACHMENT | PP_WORK_TRANSFER, PP_STAGE_FRAGMENT_SHADER, 0, 0);
	struct pp_diag_barrier_res img = res(PP_RES_IMAGE, 7, PP_STAGE_COLOR_OUTPUT, PP_ACCESS_COLOR_WRITE,
					     PP_STAGE_FRAGMENT_SHADER, PP_ACCESS_SHADER_READ, PP_LAYOUT_COLOR_ATTACHMENT,
					     PP_LAYOUT_SHADER_READ);
	struct pp_diag_barrier_res vb = res(PP_RES_BUFFER, 8, PP_STAGE_TRANSFER, PP_ACCESS_TRANSFER_WRITE,
					    PP_STAGE_VERTEX_INPUT, PP_ACCESS_VERTEX_READ, PP_LAYOUT_UNDEFINED,
					    PP_LAYOUT_UNDEFINED);
	barrier(d, r, 1, &img);
	barrier(d, r, 1, &vb);
	pp_diag_barriers_rec_work(r, PP_WORK_DRAW | PP_WORK_TRANSFER, PP_STAGE_VERTEX_INPUT | PP_STAGE_FRAGMENT_SHADER, 0, 0);
	submit(d, r);
	CHECK(judged("PASSPROBE-Barrier-Mergeable", "info"));
	pp_diag_barriers_rec_destroy(r);
	pp_diag_device_destroy(d);
}

/* Unused: removing it drops a cache flush after a write (a warning whatever the stages);
 * an execution-only barrier between compute stages holds nothing back (information). */
static void test_unused(void)
{
	const char *id = "PASSPROBE-Barrier-Unused";
	for (int write = 0; write < 2; write++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_work(r, PP_WORK_DISPATCH, 0, 0, 0);
		struct pp_diag_barrier_res b = res(PP_RES_IMAGE, 7, PP_STAGE_COMPUTE, write ? PP_ACCESS_SHADER_WRITE : 0,
						   PP_STAGE_COMPUTE, 0, PP_LAYOUT_GENERAL, PP_LAYOUT_GENERAL);
		barrier(d, r, 1, &b);
		submit(d, r);
		CHECK(judged(id, write ? "warning" : "info"));
		const struct pp_diagnostic *s = find(id);
		CHECK(!write || (s && strstr(s->verdict, "cache flush")));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* A layer above passprobe recording work of its own (a HUD's font upload): the drain that is a
 * warning in the application's recording is information there, its verdict naming the layer. */
static void test_foreign(void)
{
	const char *id = "PASSPROBE-Barrier-FullPipelineDrain";
	for (int foreign = 0; foreign < 2; foreign++) {
		pp_diag_sites_clear();
		struct pp_diag_device *d = device();
		struct pp_diag_rec *r = pp_diag_barriers_rec_create();
		pp_diag_barriers_rec_owner(r, foreign ? "libMangoHud.so" : NULL);
		const struct pp_diag_barrier drain = { .api = "vkCmdPipelineBarrier", .src_stages = PP_STAGE_ALL_COMMANDS,
						       .dst_stages = PP_STAGE_ALL_COMMANDS, .site = "drain",
						       .ts_before = PP_DIAG_NO_SLOT, .ts_after = PP_DIAG_NO_SLOT };
		pp_diag_barriers_rec_work(r, PP_WORK_UNKNOWN, 0, 0, 0);
		pp_diag_barriers_rec(d, r, &drain);
		submit(d, r);
		const struct pp_diagnostic *s = find(id);
		CHECK(s && s->severity && !strcmp(s->severity, foreign ? "info" : "warning"));
		CHECK(s && !foreign == !strstr(s->verdict, "not the application's: libMangoHud.so"));
		pp_diag_barriers_rec_destroy(r);
		pp_diag_device_destroy(d);
	}
}

/* A wait on a worker thread (vkd3d's vkd3d_fence) is information; the same call site waited on
 * by the frame's thread later is a warning; a wait that may never end stays a warning. */
static void test_waits(void)
{
	pp_diag_sites_clear();
	struct pp_diag_device *d = device();
	struct pp_diag_blocking b = { .rule = PP_DIAG_FENCE_WAIT, .site_key = 42, .site = "vkWaitForFences on a worker",
				      .cpu_ns = 1000, .thread_id = 9, .thread_name = "vkd3d_fence",
				      .worker_thread = true };
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0);
	CHECK(judged("PASSPROBE-Blocking-FenceWaitSameFrame", "info"));
	const struct pp_diagnostic *s = find("PASSPROBE-Blocking-FenceWaitSameFrame");
	CHECK(s && strstr(s->verdict, "\"vkd3d_fence\" records, submits and presents nothing"));
	struct pp_diag_message m[4];
	CHECK(pp_diag_device_messages_take(d, m, 4) == 1 && m[0].severity == PP_DIAG_INFO);
	b.worker_thread = false;
	b.thread_id = 7;
	b.thread_name = "render";
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0);
	CHECK(judged("PASSPROBE-Blocking-FenceWaitSameFrame", "warning"));
	s = find("PASSPROBE-Blocking-FenceWaitSameFrame");
	CHECK(s && s->count == 2 && s->thread_id == 9);
	/* the messengers hear of it again, now as a warning, once */
	CHECK(pp_diag_device_messages_take(d, m, 4) == 1 && m[0].severity == PP_DIAG_WARNING &&
	      strstr(m[0].text, "PASSPROBE-Blocking-FenceWaitSameFrame"));
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0);
	CHECK(pp_diag_device_messages_take(d, m, 4) == 0, "a warning is said once");
	/* back on the worker: the frame waited there, it stays a warning */
	b.worker_thread = true;
	CHECK(pp_diag_waits_blocking_report(d, &b) != 0);
	CHECK(judged("PASSPROBE-Blocking-FenceWaitSameFrame", "warning"));
	CHECK(pp_diag_device_messages_take(d, m, 4) == 0);

	const struct pp_diag_blocking never = { .rule = PP_DIAG_QUERY_WAIT_UNSUBMITTED, .site_key = 43, .site = "q",
						.thread_id = 9, .thread_name = "worker", .worker_thread = true };
	CHECK(pp_diag_waits_blocking_report(d, &never) != 0);
	CHECK(judged("PASSPROBE-Blocking-QueryWaitUnsubmitted", "warning"));
	/* a pass's attachment traffic has no waiting thread: the rule's warning */
	const struct pp_diag_blocking pass = { .rule = PP_DIAG_PASS_UNNEEDED_STORE, .site_key = 44, .site = "pass",
					       .cost_unavailable = "not measured" };
	CHECK(pp_diag_waits_blocking_report(d, &pass) != 0);
	CHECK(judged("PASSPROBE-Pass-UnneededStore", "warning"));
	pp_diag_device_destroy(d);
}

int main(void)
{
	test_rule_table();
	test_gain();
	test_dst_too_early();
	test_src_too_late();
	test_barrier_rules();
	test_unused();
	test_foreign();
	test_waits();
	pp_diag_sites_clear();
	return check_finish();
}
