/* What fixing a finding would gain: each rule's severity, and the per-finding judgement of a
 * barrier's narrower form by the phases of a tile-based GPU (docs/diagnostics.md, "Severity"). */
#include "diag_internal.h"

const char *pp_diag_severity_name(enum pp_diag_severity s)
{
	return s == PP_DIAG_INFO ? "info" : "warning";
}

struct rule_severity {
	enum pp_diag_severity severity;
	const char *reason;
};

static const struct rule_severity rule_severities[PP_DIAG_RULE_COUNT] = {
	[PP_DIAG_FULL_DRAIN] = { PP_DIAG_WARNING, "every later stage waits for every earlier one: on a tile-based "
						  "GPU both queues run dry" },
	[PP_DIAG_DST_TOO_EARLY] = { PP_DIAG_WARNING, "later work in the stages it blocks for nothing could overlap "
						     "the work it waits for" },
	[PP_DIAG_SRC_TOO_LATE] = { PP_DIAG_WARNING, "later work waits for earlier work it does not need" },
	[PP_DIAG_READ_TO_READ] = { PP_DIAG_WARNING, "removing it lets later work run while the earlier reads "
						    "finish" },
	[PP_DIAG_DUPLICATE] = { PP_DIAG_INFO, "with nothing recorded between, the second barrier waits for nothing "
					      "the first did not: only the driver's work for the call goes away" },
	[PP_DIAG_CHAIN] = { PP_DIAG_WARNING, "a fragment -> compute -> vertex chain keeps the next frame's "
					     "non-fragment work from overlapping this frame's fragment work" },
	[PP_DIAG_SET_EVENT_WAIT] = { PP_DIAG_INFO, "a pipeline barrier orders the same work: only the event's set "
						   "and wait go away" },
	[PP_DIAG_QUERY_WAIT] = { PP_DIAG_WARNING, "the thread that does the frame's work stalls until the GPU is "
						  "done, and the GPU idles after" },
	[PP_DIAG_QUERY_WAIT_UNSUBMITTED] = { PP_DIAG_WARNING, "the wait can only end if a submission comes: a "
							      "deadlock otherwise" },
	[PP_DIAG_FENCE_WAIT] = { PP_DIAG_WARNING, "the thread that does the frame's work cannot prepare the next "
						  "frame while the GPU works on this one" },
	[PP_DIAG_QUEUE_WAIT_IDLE] = { PP_DIAG_WARNING, "the queue drains every frame on the thread that does the "
						       "frame's work" },
	[PP_DIAG_DEVICE_WAIT_IDLE] = { PP_DIAG_WARNING, "every queue drains every frame on the thread that does "
							"the frame's work" },
	[PP_DIAG_POLLING] = { PP_DIAG_WARNING, "the thread that does the frame's work burns its time polling" },
	[PP_DIAG_SEMAPHORE_WAIT] = { PP_DIAG_WARNING, "the thread that does the frame's work cannot prepare the "
						      "next frame while the GPU works on this one" },
	[PP_DIAG_SUBPASS_NOT_BY_REGION] = { PP_DIAG_WARNING, "every tile of the source subpass is written to "
							     "memory and read back instead of staying on-chip" },
	[PP_DIAG_UNUSED] = { PP_DIAG_WARNING, "removing it drops a wait and, after a write, a cache flush" },
	[PP_DIAG_MERGEABLE] = { PP_DIAG_INFO, "the merged call orders the same work: one synchronization point of "
					      "the driver instead of two, no more overlap" },
	[PP_DIAG_READBACK_DRAIN] = { PP_DIAG_WARNING, "the pipeline drains every frame on the thread that does the "
						      "frame's work" },
	[PP_DIAG_FINISH] = { PP_DIAG_WARNING, "the pipeline drains every frame on the thread that does the frame's "
					      "work" },
	[PP_DIAG_QUERY_RESULT_WAIT] = { PP_DIAG_WARNING, "the thread that does the frame's work stalls until the "
							 "GPU is done" },
	[PP_DIAG_SYNC_WAIT] = { PP_DIAG_WARNING, "the thread that does the frame's work cannot prepare the next "
						 "frame while the GPU works on this one" },
	[PP_DIAG_MAP_IN_USE] = { PP_DIAG_WARNING, "the driver waits for the GPU, or copies the buffer, on the "
						  "thread that does the frame's work" },
	[PP_DIAG_TEXTURE_UPDATE_IN_USE] = { PP_DIAG_WARNING, "the driver waits for the GPU, or copies the image, "
							     "on the thread that does the frame's work" },
	[PP_DIAG_STATIC_BUFFER_UPDATE] = { PP_DIAG_WARNING, "the driver may stall or copy the buffer at every "
							    "update" },
	[PP_DIAG_PASS_UNNEEDED_LOAD] = { PP_DIAG_WARNING, "every tile reads the attachment from memory for "
							  "nothing (bandwidth)" },
	[PP_DIAG_PASS_UNNEEDED_STORE] = { PP_DIAG_WARNING, "every tile writes the attachment to memory for "
							   "nothing (bandwidth)" },
};

enum pp_diag_severity pp_diag_rule_severity(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_severities[rule].severity : PP_DIAG_WARNING;
}

const char *pp_diag_rule_severity_reason(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT && rule_severities[rule].reason ? rule_severities[rule].reason : "";
}

/* The phases of a tile-based GPU (Mali: the fragment queue, and the non-fragment queue that
 * runs vertex shading, tiling and compute ahead of it). Copies and blits run as fragment work
 * on some (a blit is a draw) and as compute on others, so a transfer counts in both, and so do
 * stages passprobe does not model. */
#define FRAGMENT_WORK (PP_STAGE_FRAGMENT_SIDE | PP_STAGE_TRANSFER | PP_STAGE_OTHER)
#define NON_FRAGMENT_WORK (PP_STAGE_GEOMETRY_SIDE | PP_STAGE_COMPUTE | PP_STAGE_TRANSFER | PP_STAGE_OTHER)

/* The stages of the graphics pipeline's non-fragment phase after `bit`. */
static uint32_t geometry_after(uint32_t bit)
{
	return PP_STAGE_GEOMETRY_SIDE & ~(bit | (bit - 1u));
}

/* The stages a mask really orders: a first scope includes the graphics stages logically
 * earlier than those it names, a second scope the logically later ones (Vulkan's rule: a
 * dstStageMask of VERTEX_INPUT also holds back the vertex shader). */
static uint32_t scope_stages(uint32_t stages, bool second_scope)
{
	uint32_t s = pp_stage_expand(stages, second_scope) & PP_STAGE_WORK, out = s;
	for (uint32_t g = s & PP_STAGE_GRAPHICS; g; g &= g - 1u) {
		uint32_t bit = diag_vocab_lowest_bit(g);
		out |= PP_STAGE_GRAPHICS & (second_scope ? ~(bit - 1u) : (bit | (bit - 1u)));
	}
	return out;
}

enum pp_diag_severity pp_diag_barrier_gain(uint32_t src, uint32_t dst, uint32_t src_narrow, uint32_t dst_narrow,
					   char *why, size_t len)
{
	uint32_t s = scope_stages(src, false), d = scope_stages(dst, true);
	uint32_t ks = scope_stages(src_narrow, false) & s, kd = scope_stages(dst_narrow, true) & d;
	uint32_t producers = s & FRAGMENT_WORK;
	uint32_t freed = 0, lost_all = 0, implied = 0, implied_by = 0;
	/* Each later non-fragment stage: the earlier fragment work it would no longer wait for. */
	for (uint32_t rest = d & NON_FRAGMENT_WORK; rest; rest &= rest - 1u) {
		uint32_t f = diag_vocab_lowest_bit(rest);
		uint32_t lost = (kd & f) ? producers & ~ks : producers;
		if (!lost)
			continue;
		/* Freed from the barrier but stopped right after by a later stage of the same phase
		 * that still waits for the same work (DRAW_INDIRECT before VERTEX_INPUT): work at
		 * f goes on to that stage in the same queue, so nothing more overlaps. */
		uint32_t later = geometry_after(f) & kd;
		if ((f & PP_STAGE_GEOMETRY_SIDE) && later && !(lost & ~ks)) {
			implied |= f;
			implied_by |= diag_vocab_lowest_bit(later);
			continue;
		}
		freed |= f;
		lost_all |= lost;
	}
	char a[160], b[160];
	if (freed) {
		/* Named as the barrier names them: the first graphics stage freed (the later ones follow
		 * it), and the producers its own mask names where it names any. */
		uint32_t named = lost_all & pp_stage_expand(src, false);
		pp_stage_names(diag_vocab_lowest_bit(freed & PP_STAGE_GRAPHICS) | (freed & ~PP_STAGE_GRAPHICS), a,
			       sizeof(a));
		pp_stage_names(named ? named : lost_all, b, sizeof(b));
		snprintf(why, len,
			 "worth fixing: later %s work would no longer wait for earlier %s work, so on a tile-based GPU "
			 "its two queues (fragment; vertex shading, tiling and compute) can overlap again",
			 a, b);
		return PP_DIAG_WARNING;
	}
	if (implied) {
		pp_stage_names(implied, a, sizeof(a));
		pp_stage_names(implied_by, b, sizeof(b));
		snprintf(why, len,
			 "little to gain: the %s work it would stop blocking goes on to %s, which stays blocked, in "
			 "the same phase of a tile-based GPU right after, so no more work overlaps",
			 a, b);
	} else if (!(d & NON_FRAGMENT_WORK)) {
		pp_stage_names(d, a, sizeof(a));
		snprintf(why, len,
			 "little to gain: it holds back only fragment work (%s), which a tile-based GPU runs in order "
			 "in its fragment queue anyway",
			 a);
	} else {
		pp_stage_names(s & ~ks, a, sizeof(a));
		snprintf(why, len,
			 "little to gain: the work later stages would stop waiting for (%s) is not fragment work, and "
			 "a tile-based GPU runs non-fragment work ahead of fragment work anyway",
			 (s & ~ks) ? a : "none");
	}
	return PP_DIAG_INFO;
}

void diag_severity_set(struct pp_diagnostic *d, enum pp_diag_severity sev, const char *why)
{
	d->severity = pp_diag_severity_name(sev);
	snprintf(d->verdict, sizeof(d->verdict), "%s", why);
}

void diag_severity_of_rule(struct pp_diagnostic *d, enum pp_diag_rule rule)
{
	enum pp_diag_severity sev = pp_diag_rule_severity(rule);
	d->severity = pp_diag_severity_name(sev);
	snprintf(d->verdict, sizeof(d->verdict), "%s: %s", sev == PP_DIAG_INFO ? "little to gain" : "worth fixing",
		 pp_diag_rule_severity_reason(rule));
}

void diag_severity_foreign(struct pp_diagnostic *d, const char *owner)
{
	char why[sizeof(d->verdict)];
	snprintf(why, sizeof(why),
		 "not the application's: %s, a layer above passprobe, recorded this work for itself (the "
		 "application's developer cannot change it)",
		 owner);
	diag_severity_set(d, PP_DIAG_INFO, why);
}

enum pp_diag_severity diag_severity_of(const struct pp_diagnostic *d)
{
	return d->severity && !strcmp(d->severity, "info") ? PP_DIAG_INFO : PP_DIAG_WARNING;
}
