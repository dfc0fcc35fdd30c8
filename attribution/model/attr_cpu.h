#pragma once
/* CPU cost of spans between two snapshots of the same thread (counters/cpu), API-neutral. */
#include "attr_record.h"
#include "pp_cpu_counters.h"
#include "pp_model.h"

/* A pass's recording cost, at the submit: its two snapshots, taken into the result to be
 * subtracted where the report is made (cpu_pending). chained: the result before pr is that of
 * the pass before p, with its span; then a span that begins where p[-1]'s ended begins at
 * pr[-1]'s end (cpu_begin_prev), not copied. */
static inline void pp_attr_cpu_pass_take(struct pp_pass_result *pr, const struct pp_pass_rec *p, bool chained)
{
	pr->cpu_pending = p->cpu_ended;
	if (!p->cpu_ended)
		return;
	pr->cpu_begin_prev = chained && p->cpu_begin_prev;
	if (!pr->cpu_begin_prev)
		pr->cpu_begin = *pp_attr_record_pass_cpu_begin(p);
	pr->cpu_end = p->cpu_end;
}

/* A pass resumed in another recording: one result, several spans, summed at the submit (rare:
 * dynamic rendering split over command buffers). */
void pp_attr_cpu_pass_merge(struct pp_pass_result *pr, const struct pp_pass_rec *p);

/* Adds the span a -> b (same thread, a first) to *cost. */
void pp_attr_cpu_cost_add_span(struct pp_cpu_cost *cost, const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b);

/* A pass's recording CPU time (thread_cpu_ns) as its resolved `cpu` gives it, before or after
 * pp_attr_cpu_frame_result_resolve: the in-process summary reads it per frame, leaving the
 * counters' arithmetic to the report. False where the pass's recording was not measured. */
static inline bool pp_attr_cpu_pass_thread_ns(const struct pp_pass_result *p, uint64_t *ns)
{
	if (p->cpu_pending) {
		/* What resolving makes p->cpu.thread_cpu_ns: one span, on a cost not measured. */
		*ns = pp_cpu_counters_snapshot_thread_ns(pp_model_pass_cpu_begin(p), &p->cpu_end);
		return true;
	}
	*ns = p->cpu.thread_cpu_ns;
	return p->cpu.valid;
}
