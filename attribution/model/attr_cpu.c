#include <string.h>

#include "attr_cpu.h"

void pp_attr_cpu_cost_add_span(struct pp_cpu_cost *cost, const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b)
{
	struct pp_cpu_delta d;
	pp_cpu_counters_snapshot_delta(a, b, &d);
	/* The first span of a cost (every pass's: one span per pass) is written in place: what
	 * adding it to an empty cost would copy. */
	struct pp_cpu_cost local;
	struct pp_cpu_cost *out = cost->valid ? &local : cost;
	out->valid = true;
	out->begin_ns = a->wall_ns;
	out->wall_ns = d.wall_ns;
	out->thread_cpu_ns = d.thread_cpu_ns;
	out->spans = 1;
	out->tid = b->tid;
	/* A delta is valid only for events configured when both snapshots were taken (one
	 * session): its bits are the configured events', with no need to ask the configuration
	 * (a lock) at every pass end. Its invalid values are 0, as an empty cost's. */
	_Static_assert(sizeof(out->counter) == sizeof(d.value), "one counter per configurable event");
	memcpy(out->counter, d.value, sizeof(out->counter));
	out->counters_valid = d.valid;
	out->counters_scaled = d.scaled & d.valid;
	if (out == &local)
		pp_attr_cpu_cost_add(cost, &local);
}

void pp_attr_cpu_cost_add(struct pp_cpu_cost *a, const struct pp_cpu_cost *b)
{
	if (!b->valid)
		return;
	if (!a->valid) {
		*a = *b;
		return;
	}
	if (b->begin_ns < a->begin_ns)
		a->begin_ns = b->begin_ns;
	a->wall_ns += b->wall_ns;
	a->thread_cpu_ns += b->thread_cpu_ns;
	a->spans += b->spans;
	if (a->tid != b->tid)
		a->tid = 0;
	a->counters_valid &= b->counters_valid;
	a->counters_scaled |= b->counters_scaled;
	for (unsigned i = 0; i < PP_CPU_COUNTERS_MAX; i++)
		a->counter[i] += b->counter[i];
}

void pp_attr_cpu_frame_result_resolve(struct pp_frame_result *f)
{
	for (size_t i = 0; i < f->npasses; i++) {
		struct pp_pass_result *p = &f->passes[i];
		if (!p->cpu_pending)
			continue;
		pp_attr_cpu_cost_add_span(&p->cpu, pp_model_pass_cpu_begin(p), &p->cpu_end);
		p->cpu_pending = false;
		if (!p->recording_reused)
			pp_attr_cpu_cost_add(&f->cpu, &p->cpu);
	}
}

void pp_attr_cpu_pass_merge(struct pp_pass_result *pr, const struct pp_pass_rec *p)
{
	if (pr->cpu_pending) {
		pp_attr_cpu_cost_add_span(&pr->cpu, pp_model_pass_cpu_begin(pr), &pr->cpu_end);
		pr->cpu_pending = false;
	}
	if (p->cpu_ended)
		pp_attr_cpu_cost_add_span(&pr->cpu, pp_attr_record_pass_cpu_begin(p), &p->cpu_end);
}
