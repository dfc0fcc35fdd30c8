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

#define RULE_SEVERITY(name, id, kind, api, severity, docs, reason, ...) [PP_DIAG_##name] = { PP_DIAG_##severity, reason },
static const struct rule_severity rule_severities[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_SEVERITY) };
#undef RULE_SEVERITY

enum pp_diag_severity pp_diag_severity_rule(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT ? rule_severities[rule].severity : PP_DIAG_WARNING;
}

const char *pp_diag_severity_rule_reason(enum pp_diag_rule rule)
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
	uint32_t s = pp_diag_vocab_stage_expand(stages, second_scope) & PP_STAGE_WORK, out = s;
	for (uint32_t g = s & PP_STAGE_GRAPHICS; g; g &= g - 1u) {
		uint32_t bit = pp_diag_vocab_lowest_bit(g);
		out |= PP_STAGE_GRAPHICS & (second_scope ? ~(bit - 1u) : (bit | (bit - 1u)));
	}
	return out;
}

enum pp_diag_severity pp_diag_severity_barrier_gain(uint32_t src, uint32_t dst, uint32_t src_narrow, uint32_t dst_narrow,
					   char *why, size_t len)
{
	uint32_t s = scope_stages(src, false), d = scope_stages(dst, true);
	uint32_t ks = scope_stages(src_narrow, false) & s, kd = scope_stages(dst_narrow, true) & d;
	uint32_t producers = s & FRAGMENT_WORK;
	uint32_t freed = 0, lost_all = 0, implied = 0, implied_by = 0;
	/* Each later non-fragment stage: the earlier fragment work it would no longer wait for. */
	for (uint32_t rest = d & NON_FRAGMENT_WORK; rest; rest &= rest - 1u) {
		uint32_t f = pp_diag_vocab_lowest_bit(rest);
		uint32_t lost = (kd & f) ? producers & ~ks : producers;
		if (!lost)
			continue;
		/* Freed from the barrier but stopped right after by a later stage of the same phase
		 * that still waits for the same work (DRAW_INDIRECT before VERTEX_INPUT): work at
		 * f goes on to that stage in the same queue, so nothing more overlaps. */
		uint32_t later = geometry_after(f) & kd;
		if ((f & PP_STAGE_GEOMETRY_SIDE) && later && !(lost & ~ks)) {
			implied |= f;
			implied_by |= pp_diag_vocab_lowest_bit(later);
			continue;
		}
		freed |= f;
		lost_all |= lost;
	}
	char a[160], b[160];
	if (freed) {
		/* Named as the barrier names them: the first graphics stage freed (the later ones follow
		 * it), and the producers its own mask names where it names any. */
		uint32_t named = lost_all & pp_diag_vocab_stage_expand(src, false);
		pp_diag_vocab_stage_names(pp_diag_vocab_lowest_bit(freed & PP_STAGE_GRAPHICS) | (freed & ~PP_STAGE_GRAPHICS), a,
			       sizeof(a));
		pp_diag_vocab_stage_names(named ? named : lost_all, b, sizeof(b));
		snprintf(why, len,
			 "worth fixing: later %s work would no longer wait for earlier %s work, so on a tile-based GPU "
			 "its two queues (fragment; vertex shading, tiling and compute) can overlap again",
			 a, b);
		return PP_DIAG_WARNING;
	}
	if (implied) {
		pp_diag_vocab_stage_names(implied, a, sizeof(a));
		pp_diag_vocab_stage_names(implied_by, b, sizeof(b));
		snprintf(why, len,
			 "little to gain: the %s work it would stop blocking goes on to %s, which stays blocked, in "
			 "the same phase of a tile-based GPU right after, so no more work overlaps",
			 a, b);
	} else if (!(d & NON_FRAGMENT_WORK)) {
		pp_diag_vocab_stage_names(d, a, sizeof(a));
		snprintf(why, len,
			 "little to gain: it holds back only fragment work (%s), which a tile-based GPU runs in order "
			 "in its fragment queue anyway",
			 a);
	} else {
		pp_diag_vocab_stage_names(s & ~ks, a, sizeof(a));
		snprintf(why, len,
			 "little to gain: the work later stages would stop waiting for (%s) is not fragment work, and "
			 "a tile-based GPU runs non-fragment work ahead of fragment work anyway",
			 (s & ~ks) ? a : "none");
	}
	return PP_DIAG_INFO;
}

void pp_diag_severity_set(struct pp_diagnostic *d, enum pp_diag_severity sev, const char *why)
{
	d->severity = pp_diag_severity_name(sev);
	snprintf(d->verdict, sizeof(d->verdict), "%s", why);
}

void pp_diag_severity_of_rule(struct pp_diagnostic *d, enum pp_diag_rule rule)
{
	enum pp_diag_severity sev = pp_diag_severity_rule(rule);
	d->severity = pp_diag_severity_name(sev);
	snprintf(d->verdict, sizeof(d->verdict), "%s: %s", sev == PP_DIAG_INFO ? "little to gain" : "worth fixing",
		 pp_diag_severity_rule_reason(rule));
}

void pp_diag_severity_foreign(struct pp_diagnostic *d, const char *owner)
{
	char why[sizeof(d->verdict)];
	snprintf(why, sizeof(why),
		 "not the application's: %s, a layer above passprobe, recorded this work for itself (the "
		 "application's developer cannot change it)",
		 owner);
	pp_diag_severity_set(d, PP_DIAG_INFO, why);
}

enum pp_diag_severity pp_diag_severity_of(const struct pp_diagnostic *d)
{
	return d->severity && !strcmp(d->severity, "info") ? PP_DIAG_INFO : PP_DIAG_WARNING;
}
