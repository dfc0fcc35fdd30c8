/* A submission's query results read into its passes' results (attr_device_internal.h): the
 * timestamps of its passes and draws, its pipeline statistics and hardware counter scopes,
 * each with the reason where it is not available. */
#include <stdlib.h>

#include "attr_device_internal.h"

static const char *const reason_forced = "result not available when the command buffer was reused or the device destroyed";
static const char *const reason_reversed = "end timestamp not after begin timestamp";
static const char *const reason_unusable = "timestamp arrived but the GPU timer says it cannot be used";
static const char *const reason_lost = "device lost (VK_ERROR_DEVICE_LOST) before the result was read";

/* Reads a statistics scope through the backend: 1 read, 0 not yet, negative never. */
static int statistics_read(const struct pp_attr_gpu_ops *ops, uint32_t slot, struct pp_gpu_counter_value out[PP_STAT_COUNT])
{
	const struct pp_gpu_counter_backend *b = ops->statistics;
	if (!b || !b->scope_read)
		return -ENOTSUP;
	return b->scope_read(b->ctx, slot, out, PP_STAT_COUNT);
}

/* Reads a hardware counter scope: 1 read (into out, the backend's set, when out is not NULL),
 * 0 not yet, negative never. */
static int perf_read(const struct pp_attr_gpu_ops *ops, uint32_t slot, struct pp_gpu_counter_value *out)
{
	const struct pp_gpu_counter_backend *b = ops->perf;
	struct pp_gpu_counter_value scratch[PP_ATTR_PERF_SET_MAX];
	uint32_t n = b ? b->set_count(b->ctx) : 0;
	if (!b || !b->scope_read || n > PP_ATTR_PERF_SET_MAX)
		return -ENOTSUP;
	return b->scope_read(b->ctx, slot, out ? out : scratch, n);
}

static const char *const reason_other_pass =
	"measured in another hardware pass (the set is measured one pass per frame), not yet for this pass name";

/* The hardware counter backend's set for the pass: measured, or why not. Values of the other
 * hardware passes are marked here and merged at frame assembly (perf_merge_frame). */
static void pass_perf_fill(const struct pp_attr_gpu_ops *ops, struct pp_submission *s, uint32_t p, const char *missing)
{
	const struct pp_gpu_counter_backend *b = ops->perf;
	uint32_t n = b ? b->set_count(b->ctx) : 0;
	if (!n || n > PP_ATTR_PERF_SET_MAX)
		return;
	struct pp_pass_result *r = &s->passes[p];
	const struct pp_gpu_counter_desc *descs[PP_ATTR_PERF_SET_MAX];
	for (uint32_t i = 0; i < n; i++)
		descs[i] = b->set_desc(b->ctx, i);
	struct pp_counter_value *c = pp_model_pass_counters_add(r, descs, n);
	if (!c)
		return;
	struct pp_gpu_counter_value v[PP_ATTR_PERF_SET_MAX];
	const char *reason = missing;
	if (s->perf_slots[p] == PP_NO_SLOT)
		reason = s->perf_reasons[p] ? s->perf_reasons[p] : "not measured";
	else if (missing != reason_lost && perf_read(ops, s->perf_slots[p], v) > 0)
		reason = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (reason) {
			c[i].unavailable_reason = reason;
			continue;
		}
		c[i].v = v[i];
		c[i].unavailable_reason = v[i].valid ? NULL : v[i].other_pass ? reason_other_pass : "no value";
	}
}

/* Reads pass p's pipeline statistics into its result (values and valid bits, not the reason):
 * 1 read, 0 not yet, negative never. */
static int statistics_take(const struct pp_attr_gpu_ops *ops, struct pp_submission *s, uint32_t p)
{
	struct pp_pass_result *r = &s->passes[p];
	struct pp_gpu_counter_value v[PP_STAT_COUNT];
	int rc = statistics_read(ops, s->stats_slots[p], v);
	if (rc > 0) {
		r->stats_valid = 0;
		for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
			r->stats[i] = v[i].u;
			r->stats_valid |= (uint32_t)v[i].valid << i;
		}
	}
	return rc;
}

/* The pass's generic counter set, after its GPU interval is known: its GPU time (the
 * timestamps backend) and its pipeline statistics. stats_taken: the harvest's completeness
 * check read every pass's statistics into its result already (statistics_take), so they are
 * not read twice. Out of memory leaves the set short, which the sinks show as counters not
 * measured. */
static void pass_counters_fill(const struct pp_attr_gpu_ops *ops, struct pp_submission *s, uint32_t p, const char *missing,
			       bool stats_taken)
{
	struct pp_pass_result *r = &s->passes[p];
	/* Read here, made into counters where a report is made (pp_model_frame_result_counters_resolve).
	 * Without a slot, the submit set why (and counters_pending). */
	if (s->stats_slots[p] != PP_NO_SLOT) {
		if (stats_taken || (missing != reason_lost && statistics_take(ops, s, p) > 0)) {
			r->stats_reason = NULL;
		} else {
			r->stats_valid = 0;
			r->stats_reason = missing;
		}
	}
	pass_perf_fill(ops, s, p, missing);
}

bool pp_attr_harvest_submission(const struct pp_attr_gpu_ops *ops, struct pp_submission *s, bool forced)
{
	if (s->harvested)
		return true;
	/* GPU queries off, or none recorded: every slot is PP_NO_SLOT, nothing to read. */
	uint32_t nts = s->slotted ? 2 * s->npasses + 2 * s->ndraw_slots : 0;
	uint32_t stack_slots[64];
	uint64_t stack_ns[64];
	uint8_t stack_avail[64];
	uint32_t *slots = nts <= 64 ? stack_slots : malloc(nts * sizeof(*slots));
	uint64_t *ns = nts <= 64 ? stack_ns : malloc(nts * sizeof(*ns));
	uint8_t *avail = nts <= 64 ? stack_avail : malloc(nts);
	bool complete = true;
	uint32_t n = 0;

	if (!slots || !ns || !avail) {
		forced = true;
		nts = 0;
	}
	/* Only slots that exist are read; the fill loop below walks them in the same order. */
	for (uint32_t i = 0; i < 2 * s->npasses && nts; i++)
		if (s->ts_slots[i] != PP_NO_SLOT)
			slots[n++] = s->ts_slots[i];
	for (uint32_t i = 0; i < 2 * s->ndraw_slots && nts; i++)
		if (s->draw_slots[i] != PP_NO_SLOT)
			slots[n++] = s->draw_slots[i];
	/* After a device loss nothing more arrives, and what did may be partial: nothing not yet
	 * read is trusted, every such result is unavailable with the loss as the reason. */
	const char *missing = ops->forced_reason ? ops->forced_reason : reason_forced;
	if (ops->lost && ops->lost(ops->ctx)) {
		forced = true;
		missing = reason_lost;
		n = 0;
	}
	if (n)
		ops->read_timestamps(ops->ctx, slots, n, s->res.cpu_begin_ns, ns, avail);
	for (uint32_t i = 0; i < n; i++)
		complete &= avail[i] != 0;

	/* Complete only when every pass's statistics are there too: read into the passes' results
	 * as they are checked (a harvest that finds one missing tries again whole, later). */
	if (complete && !forced && s->slotted)
		for (uint32_t p = 0; p < s->npasses && complete; p++)
			if (s->stats_slots[p] != PP_NO_SLOT)
				complete = statistics_take(ops, s, p) > 0;
	bool stats_taken = complete && !forced;
	if (complete && !forced && s->slotted)
		for (uint32_t p = 0; p < s->npasses && complete; p++)
			if (s->perf_slots[p] != PP_NO_SLOT)
				complete = perf_read(ops, s->perf_slots[p], NULL) != 0;

	if (!complete && !forced)
		goto out;

	/* k walks the pass slots, kd the draw slots that follow them in the read order. */
	uint32_t k = 0, kd = 0;
	for (uint32_t i = 0; i < 2 * s->npasses && n; i++)
		kd += s->ts_slots[i] != PP_NO_SLOT;
	uint32_t draw_pair = 0;
	/* Without a slot, and without a hardware counter set to mark unavailable, the submit
	 * left every pass as it stays: nothing to walk. */
	const struct pp_gpu_counter_backend *perf = ops->perf;
	bool walk = s->slotted || (perf && perf->set_count(perf->ctx));
	for (uint32_t p = 0; p < s->npasses && walk; p++) {
		struct pp_pass_result *r = &s->passes[p];
		uint32_t b = s->ts_slots[2 * p], e = s->ts_slots[2 * p + 1];
		bool have_b = false, have_e = false, unusable = false;
		uint64_t tb = 0, te = 0;
		/* Nothing read (n == 0): the arrays may be missing; the reasons below say why. */
		if (b != PP_NO_SLOT && n) {
			have_b = avail[k] != 0;
			unusable |= avail[k] == PP_ATTR_UNUSABLE;
			tb = ns[k++];
		}
		if (e != PP_NO_SLOT && n) {
			have_e = avail[k] != 0;
			unusable |= avail[k] == PP_ATTR_UNUSABLE;
			te = ns[k++];
		}
		/* Without both slots the pass keeps the reason the submit set. */
		r->gpu.valid = false;
		if (b != PP_NO_SLOT && e != PP_NO_SLOT) {
			if (!have_b || !have_e)
				r->gpu.unavailable_reason = missing;
			else if (unusable)
				r->gpu.unavailable_reason = ops->unusable_reason ? ops->unusable_reason : reason_unusable;
			else if (te <= tb)
				r->gpu.unavailable_reason = reason_reversed;
			else {
				r->gpu.valid = true;
				s->timed = true;
				r->gpu.begin_ns = tb;
				r->gpu.end_ns = te;
				r->gpu.unavailable_reason = NULL;
			}
		}

		pass_counters_fill(ops, s, p, missing, stats_taken);

		for (uint32_t i = 0; i < r->ndraw_timings; i++, draw_pair++) {
			struct pp_draw_timing *t = &r->draw_timings[i];
			uint32_t sb = s->draw_slots[2 * draw_pair], se = s->draw_slots[2 * draw_pair + 1];
			bool ok = sb != PP_NO_SLOT && se != PP_NO_SLOT;
			uint64_t db = 0, de = 0;
			if (sb != PP_NO_SLOT && n) {
				ok &= avail[kd] != 0;
				db = ns[kd++];
			}
			if (se != PP_NO_SLOT && n) {
				ok &= avail[kd] != 0;
				de = ns[kd++];
			}
			ok &= n != 0;
			t->index = i;
			t->gpu.valid = ok && de > db;
			t->gpu.begin_ns = db;
			t->gpu.end_ns = de;
			t->gpu.unavailable_reason = t->gpu.valid ? NULL : ok ? reason_reversed : missing;
		}
	}
	s->harvested = true;
	for (uint32_t i = 0; i < s->nrecs; i++)
		if (s->recs[i]->last_submission == s)
			s->recs[i]->last_submission = NULL;
out:
	if (slots != stack_slots)
		free(slots);
	if (ns != stack_ns)
		free(ns);
	if (avail != stack_avail)
		free(avail);
	return s->harvested;
}
