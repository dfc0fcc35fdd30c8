#include "attr_cpu.h"

void pp_cpu_cost_add_span(struct pp_cpu_cost *cost, const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b)
{
	struct pp_cpu_delta d;
	pp_cpu_snapshot_delta(a, b, &d);
	/* The first span of a cost (every pass's: one span per pass) is written in place: what
	 * adding it to an empty cost would copy. */
	struct pp_cpu_cost local;
	struct pp_cpu_cost *out = cost->valid ? &local : cost;
	*out = (struct pp_cpu_cost){ .valid = true, .begin_ns = a->wall_ns, .spans = 1, .tid = b->tid };
	out->wall_ns = d.wall_ns;
	out->thread_cpu_ns = d.thread_cpu_ns;
	/* A delta is valid only for events configured when both snapshots were taken (one
	 * session): its bits are the configured events', with no need to ask the configuration
	 * (a lock) at every pass end. */
	for (uint32_t m = d.valid; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		if (i >= PP_CPU_COUNTERS_MAX)
			break;
		out->counter[i] = d.value[i];
		out->counters_valid |= 1u << i;
		if (d.scaled & (1u << i))
			out->counters_scaled |= 1u << i;
	}
	if (out == &local)
		pp_cpu_cost_add(cost, &local);
}

void pp_cpu_cost_add(struct pp_cpu_cost *a, const struct pp_cpu_cost *b)
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
