#pragma once
/* CPU cost of spans between two snapshots of the same thread (counters/cpu), API-neutral. */
#include "pp_cpu_counters.h"
#include "pp_model.h"

/* Adds the span a -> b (same thread, a first) to *cost. */
void pp_attr_cpu_cost_add_span(struct pp_cpu_cost *cost, const struct pp_cpu_snapshot *a, const struct pp_cpu_snapshot *b);
