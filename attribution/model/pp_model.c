/* The model's vocabulary code: the statistic names, a pass's counter set, making and freeing a frame. The sinks
 * print statistics under these names, so they are part of the report format (docs/report-format.md). */
#include "pp_model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(PP_STAT_COUNT == PP_GPU_PIPELINE_STATISTICS_COUNT, "the statistics are the backend's counters");

const char *const pp_model_stat_names[PP_STAT_COUNT] = {
	[PP_STAT_IA_VERTICES] = "input_assembly_vertices",
	[PP_STAT_IA_PRIMITIVES] = "input_assembly_primitives",
	[PP_STAT_VS_INVOCATIONS] = "vertex_shader_invocations",
	[PP_STAT_CLIP_INVOCATIONS] = "clipping_invocations",
	[PP_STAT_CLIP_PRIMITIVES] = "clipping_primitives",
	[PP_STAT_FS_INVOCATIONS] = "fragment_shader_invocations",
	[PP_STAT_CS_INVOCATIONS] = "compute_shader_invocations",
};

struct pp_frame_result *pp_model_frame_result_alloc(size_t nsubmissions)
{
	_Static_assert(sizeof(struct pp_frame_result) % _Alignof(struct pp_submission_result) == 0,
		       "the submissions follow the frame aligned");
	if (nsubmissions > (SIZE_MAX - sizeof(struct pp_frame_result)) / sizeof(struct pp_submission_result))
		return NULL;
	struct pp_frame_result *f = calloc(1, sizeof(*f) + nsubmissions * sizeof(struct pp_submission_result));
	if (f)
		f->submissions = (struct pp_submission_result *)(f + 1);
	return f;
}

void pp_model_frame_result_free(struct pp_frame_result *f)
{
	if (!f)
		return;
	/* Most passes own neither (per-draw timing off, counters not yet resolved), and a frame
	 * leaves the report's window at every frame of a long run: two calls of free(NULL) a pass
	 * were a fifth of the writer's cost of freeing it. */
	if (f->passes) {
		for (size_t i = 0; i < f->npasses; i++) {
			if (f->passes[i].draw_timings)
				free(f->passes[i].draw_timings);
			if (f->passes[i].counters)
				free(f->passes[i].counters);
		}
	}
	free(f->passes);
	if (f->submissions != (struct pp_submission_result *)(f + 1))
		free(f->submissions); /* not made by pp_model_frame_result_alloc */
	free(f);
}

struct pp_counter_value *pp_model_pass_counters_add(struct pp_pass_result *p, const struct pp_gpu_counter_desc *const *descs,
					      uint32_t n)
{
	struct pp_counter_value *v = realloc(p->counters, (p->ncounters + n) * sizeof(*v));
	if (!v)
		return NULL;
	p->counters = v;
	v += p->ncounters;
	memset(v, 0, n * sizeof(*v));
	for (uint32_t i = 0; i < n; i++)
		v[i].desc = descs[i];
	p->ncounters += n;
	return v;
}

static void statistics_write(struct pp_counter_value *v, const uint64_t stats[PP_STAT_COUNT], uint32_t valid,
			     const char *reason)
{
	for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
		bool ok = (valid >> i) & 1;
		v[i] = (struct pp_counter_value){
			.desc = &pp_gpu_counters_pipeline_statistics[i],
			.v = { .valid = ok, .u = ok && stats ? stats[i] : 0 },
			.unavailable_reason = ok ? NULL : reason ? reason : "not measured",
		};
	}
}

int pp_model_pass_statistics_set(struct pp_pass_result *p, const uint64_t stats[PP_STAT_COUNT], uint32_t valid,
			   const char *reason)
{
	/* Every pass of every frame gets its statistics (measured or not): written in one go,
	 * without pp_model_pass_counters_add's descriptor list and clearing. */
	struct pp_counter_value *v = realloc(p->counters, (p->ncounters + PP_STAT_COUNT) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->counters = v;
	statistics_write(v + p->ncounters, stats, valid, reason);
	p->ncounters += PP_STAT_COUNT;
	return 0;
}

void pp_model_frame_result_counters_resolve(struct pp_frame_result *f)
{
	for (size_t i = 0; i < f->npasses; i++) {
		struct pp_pass_result *p = &f->passes[i];
		if (!p->counters_pending)
			continue;
		p->counters_pending = false;
		/* In front of what the other backends added meanwhile (hardware, sampled): the
		 * order the set has always had. */
		const uint32_t n = 1 + PP_STAT_COUNT;
		struct pp_counter_value *v = malloc((n + p->ncounters) * sizeof(*v));
		if (!v)
			continue;
		v[0] = (struct pp_counter_value){
			.desc = &pp_gpu_counters_timestamp,
			.v = { .valid = p->gpu.valid, .u = p->gpu.valid ? p->gpu.end_ns - p->gpu.begin_ns : 0 },
			.unavailable_reason = p->gpu.valid ? NULL : p->gpu.unavailable_reason,
		};
		statistics_write(v + 1, p->stats, p->stats_valid, p->stats_reason);
		if (p->ncounters)
			memcpy(v + n, p->counters, p->ncounters * sizeof(*v));
		free(p->counters);
		p->counters = v;
		p->ncounters += n;
	}
}

const struct pp_counter_value *pp_model_pass_counter_find(const struct pp_pass_result *p, const char *source,
						    const char *name)
{
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_gpu_counter_desc *d = p->counters[i].desc;
		if (d && !strcmp(d->source, source) && !strcmp(d->name, name))
			return &p->counters[i];
	}
	return NULL;
}
