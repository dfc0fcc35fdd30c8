/* A pass's generic GPU counter set as the outputs show it: report.json's "gpu_counters" and
 * its "pipeline_statistics" object (generated from the set), passes.csv, trace.json's counter
 * tracks and the summary take their values here. */
#include <string.h>

#include "pp_json.h"
#include "attr_sink_internal.h"

static bool is_source(const struct pp_counter_value *c, const char *source)
{
	return c->desc && !strcmp(c->desc->source, source);
}

uint32_t attr_pass_statistics(const struct pp_pass_result *p, uint64_t v[PP_STAT_COUNT], const char **reason)
{
	uint32_t valid = 0;
	*reason = NULL;
	memset(v, 0, PP_STAT_COUNT * sizeof(*v));
	for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
		const struct pp_counter_value *c = pp_pass_counter_find(p, "pipeline_statistics", pp_stat_names[i]);
		if (c && c->v.valid) {
			valid |= 1u << i;
			v[i] = c->v.is_float ? (uint64_t)c->v.f : c->v.u;
		} else if (!*reason) {
			*reason = c && c->unavailable_reason ? c->unavailable_reason : "not measured";
		}
	}
	return valid;
}

bool attr_counter_value(const struct pp_counter_value *c, double *out)
{
	if (!c->v.valid)
		return false;
	*out = pp_gpu_counter_value_double(&c->v);
	return true;
}

bool attr_counter_has_own_column(const struct pp_counter_value *c)
{
	return is_source(c, "pipeline_statistics") || is_source(c, "timestamps");
}

static void value_write(struct pp_json_writer *w, const struct pp_gpu_counter_value *v)
{
	if (v->is_float)
		pp_json_write_double(w, v->f);
	else
		pp_json_write_uint(w, v->u);
}

void attr_counters_write(struct pp_json_writer *w, const struct pp_pass_result *p)
{
	pp_json_begin_array(w);
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_counter_value *c = &p->counters[i];
		if (!c->desc || attr_counter_has_own_column(c))
			continue;
		pp_json_begin_object(w);
		pp_json_kv_str(w, "source", c->desc->source);
		pp_json_kv_str(w, "name", c->desc->name);
		pp_json_kv_str(w, "unit", c->desc->unit);
		if (c->desc->block && c->desc->block[0])
			pp_json_kv_str(w, "block", c->desc->block);
		pp_json_write_key(w, "value");
		if (c->v.valid) {
			value_write(w, &c->v);
		} else {
			pp_json_write_null(w);
			pp_json_kv_str(w, "unavailable", c->unavailable_reason ? c->unavailable_reason : "not measured");
		}
		if (c->estimated && c->v.valid) {
			pp_json_kv_bool(w, "estimated", true);
			pp_json_write_key(w, "lower");
			pp_json_write_double(w, c->lower);
			pp_json_write_key(w, "upper");
			pp_json_write_double(w, c->upper);
			pp_json_kv_bool(w, "shared", c->shared);
		}
		if (c->other_frame)
			pp_json_kv_uint(w, "frame", c->frame);
		pp_json_end_object(w);
	}
	pp_json_end_array(w);
}
