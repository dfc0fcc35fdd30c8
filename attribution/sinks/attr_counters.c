/* A pass's generic GPU counter set as the outputs show it: report.json's "gpu_counters" and
 * its "pipeline_statistics" object (generated from the set), passes.csv, trace.json's counter
 * tracks and the summary take their values here. Also the statistics' and the CPU counters'
 * names as JSON member names, pre-quoted once. */
#include <stdint.h>
#include <string.h>

#include "pp_json.h"
#include "attr_sink_internal.h"

static bool is_source(const struct pp_counter_value *c, const char *source)
{
	return c->desc && !strcmp(c->desc->source, source);
}

/* Which of the model's own statistics descriptors d is, or -1. Compared as integers:
 * relational operators on pointers into different objects are undefined in C. */
static int model_stat_index(const struct pp_gpu_counter_desc *d)
{
	uintptr_t off = (uintptr_t)d - (uintptr_t)pp_gpu_counters_pipeline_statistics;
	if (off < sizeof(pp_gpu_counters_pipeline_statistics) && off % sizeof(*d) == 0)
		return (int)(off / sizeof(*d));
	return -1;
}

/* The statistic a counter is (PP_STAT_*), or -1. The outputs ask for every counter of every
 * pass, so the model's own descriptors are recognised by address, as pp_model_pass_statistics_set
 * appends them (&pp_gpu_counters_pipeline_statistics[i] is statistic i); a backend's copy of
 * one is recognised by name, as pp_model_pass_counter_find would. */
static int stat_index(const struct pp_gpu_counter_desc *d)
{
	int model = model_stat_index(d);
	if (model >= 0)
		return model;
	if (d == &pp_gpu_counters_timestamp || strcmp(d->source, "pipeline_statistics") != 0)
		return -1;
	for (int i = 0; i < PP_STAT_COUNT; i++)
		if (!strcmp(d->name, pp_model_stat_names[i]))
			return i;
	return -1;
}

uint32_t pp_attr_counters_pass_statistics(const struct pp_pass_result *p, uint64_t v[PP_STAT_COUNT], const char **reason)
{
	/* One pass over the set, keeping the first counter of each statistic (what a search by
	 * name per statistic finds), instead of a search per statistic. */
	const struct pp_counter_value *found[PP_STAT_COUNT] = { 0 };
	for (uint32_t k = 0; k < p->ncounters; k++) {
		const struct pp_counter_value *c = &p->counters[k];
		int i = c->desc ? stat_index(c->desc) : -1;
		if (i >= 0 && !found[i])
			found[i] = c;
	}
	uint32_t valid = 0;
	*reason = NULL;
	memset(v, 0, PP_STAT_COUNT * sizeof(*v));
	for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
		const struct pp_counter_value *c = found[i];
		if (c && c->v.valid) {
			valid |= 1u << i;
			v[i] = c->v.is_float ? (uint64_t)c->v.f : c->v.u;
		} else if (!*reason) {
			*reason = c && c->unavailable_reason ? c->unavailable_reason : "not measured";
		}
	}
	return valid;
}

bool pp_attr_counters_value(const struct pp_counter_value *c, double *out)
{
	if (!c->v.valid)
		return false;
	*out = pp_gpu_counters_value_double(&c->v);
	return true;
}

bool pp_attr_counters_has_own_column(const struct pp_counter_value *c)
{
	const struct pp_gpu_counter_desc *d = c->desc;
	if (!d)
		return false;
	/* The model's descriptors by address first: every pass carries them. */
	if (d == &pp_gpu_counters_timestamp || model_stat_index(d) >= 0)
		return true;
	return is_source(c, "pipeline_statistics") || is_source(c, "timestamps");
}

static void value_write(struct pp_json_writer *w, const struct pp_gpu_counter_value *v)
{
	if (v->is_float)
		pp_json_write_double(w, v->f);
	else
		pp_json_write_uint(w, v->u);
}

void pp_attr_counters_write(struct pp_json_writer *w, const struct pp_pass_result *p)
{
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_counter_value *c = &p->counters[i];
		if (!c->desc || pp_attr_counters_has_own_column(c))
			continue;
		pp_json_write_begin_object(w);
		pp_json_write_kv_str_lit(w, "source", c->desc->source);
		pp_json_write_kv_str_lit(w, "name", c->desc->name);
		pp_json_write_kv_str_lit(w, "unit", c->desc->unit);
		if (c->desc->block && c->desc->block[0])
			pp_json_write_kv_str_lit(w, "block", c->desc->block);
		pp_json_write_key_lit(w, "value");
		if (c->v.valid) {
			value_write(w, &c->v);
		} else {
			pp_json_write_null(w);
			pp_json_write_kv_str_lit(w, "unavailable", c->unavailable_reason ? c->unavailable_reason : "not measured");
		}
		if (c->estimated && c->v.valid) {
			pp_json_write_kv_bool_lit(w, "estimated", true);
			pp_json_write_kv_double_lit(w, "lower", c->lower);
			pp_json_write_kv_double_lit(w, "upper", c->upper);
			pp_json_write_kv_bool_lit(w, "shared", c->shared);
		}
		if (c->other_frame)
			pp_json_write_kv_uint_lit(w, "frame", c->frame);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
}

/* ---- member names fixed for the process ------------------------------------------------ */

static void json_name_make(struct attr_json_name *n, const char *name)
{
	size_t len = strlen(name);
	n->len = 0;
	if (len + 3 >= sizeof(n->text))
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\')
			return; /* needs an escape: pp_json_write_key's */
	}
	n->text[0] = '"';
	memcpy(n->text + 1, name, len);
	memcpy(n->text + 1 + len, "\":", 3);
	n->len = len + 3;
}

/* Built on first use by the holder of the I/O lock, the only caller: the statistics' names
 * never change, the CPU counters' are set once before the first frame
 * (pp_attr_sink_cpu_counters_set), and rebuilt should they be set again. */
static struct attr_json_name stat_json_names[PP_STAT_COUNT];
static bool stat_json_names_made;
static struct attr_json_name cpu_json_names[PP_CPU_COUNTERS_MAX];
static const char *const *cpu_json_names_of;
static unsigned cpu_json_names_count;

const struct attr_json_name *pp_attr_counters_stat_json_names(void)
{
	if (!stat_json_names_made) {
		for (unsigned i = 0; i < PP_STAT_COUNT; i++)
			json_name_make(&stat_json_names[i], pp_model_stat_names[i]);
		stat_json_names_made = true;
	}
	return stat_json_names;
}

const struct attr_json_name *pp_attr_counters_cpu_json_names(void)
{
	if (cpu_json_names_of != pp_attr_sink_cpu_counter_names || cpu_json_names_count != pp_attr_sink_cpu_counter_count) {
		for (unsigned i = 0; i < pp_attr_sink_cpu_counter_count; i++)
			json_name_make(&cpu_json_names[i], pp_attr_sink_cpu_counter_names[i]);
		cpu_json_names_of = pp_attr_sink_cpu_counter_names;
		cpu_json_names_count = pp_attr_sink_cpu_counter_count;
	}
	return cpu_json_names;
}
