#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "attr_record.h"

struct pp_recording *pp_attr_record_create(bool secondary)
{
	struct pp_recording *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->secondary = secondary;
	r->cur = &r->stray;
	r->perf_group = PP_NO_SLOT;
	return r;
}

void pp_attr_record_destroy(struct pp_recording *r)
{
	if (!r)
		return;
	free(r->passes);
	free(r->labels);
	free(r->draw_slots);
	free(r->chunks);
	free(r);
}

void pp_attr_record_clear(struct pp_recording *r)
{
	r->npasses = r->nlabels = r->ndraw_slots = r->nchunks = 0;
	r->passes_dropped = 0;
	r->perf_group = PP_NO_SLOT;
	r->submissions = 0;
	r->quiet = r->passless = false;
	r->exp_arm = 0;
	r->exp_seen = r->exp_fixed = 0;
	r->state = PP_REC_IDLE;
	r->open = 0;
	r->last_submission = NULL;
	memset(&r->stray, 0, sizeof(r->stray));
	r->cur = &r->stray;
}

/* Grows an array by doubling; returns 0 or -ENOMEM leaving it unchanged. */
static int grow(void **array, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t n = *cap ? *cap * 2 : 8;
	while (n < need)
		n *= 2;
	void *p = realloc(*array, (size_t)n * elem);
	if (!p)
		return -ENOMEM;
	*array = p;
	*cap = n;
	return 0;
}

struct pp_pass_rec *pp_attr_record_pass_begin(struct pp_recording *r, enum pp_pass_kind kind, const char *api,
					    enum pp_recording_state state)
{
	if (r->passless) {
		r->state = state;
		r->open = UINT32_MAX;
		r->cur = &r->stray;
		return NULL;
	}
	if (r->npasses >= PP_RECORDING_MAX_PASSES ||
	    (r->npasses == r->cap_passes &&
	     grow((void **)&r->passes, &r->cap_passes, r->npasses + 1, sizeof(*r->passes)))) {
		r->passes_dropped++;
		r->state = state;
		r->open = UINT32_MAX;
		r->cur = &r->stray;
		return NULL;
	}
	struct pp_pass_rec *p = &r->passes[r->npasses];
	memset(p, 0, offsetof(struct pp_pass_rec, object_name));
	p->object_name[0] = '\0';
	p->kind = kind;
	p->api = api;
	p->ts_begin = p->ts_end = p->stats_slot = p->perf_slot = PP_NO_SLOT;
	p->first_draw_slot = r->ndraw_slots;
	r->open = r->npasses++;
	r->state = state;
	r->cur = &p->work;
	p->exp_seen = r->exp_seen;
	p->exp_fixed = r->exp_fixed;
	r->exp_seen = r->exp_fixed = 0;
	if (r->quiet)
		return p;
	/* A pass's CPU span begins where the recording's previous pass ended, when that end was
	 * taken on this thread with its current counters: the calls between two passes (labels,
	 * binds, barriers, setting the next one up) are the next pass's recording cost, the
	 * recording's passes tile its time from the first pass's begin to the last one's end, and
	 * a boundary costs one snapshot (a system call) instead of two. The first pass of a
	 * recording, or one continued on another thread, takes its own. */
	const struct pp_pass_rec *prev = r->open > 0 ? &r->passes[r->open - 1] : NULL;
	if (prev && prev->cpu_ended && pp_cpu_counters_snapshot_is_current(&prev->cpu_end))
		p->cpu_begin_prev = true;
	else
		pp_cpu_counters_snapshot_take(&p->cpu_begin);
	return p;
}

/* The labels' array is full: grown (by doubling), or -ENOMEM leaving it unchanged. */
int pp_attr_record_labels_grow(struct pp_recording *r)
{
	return grow((void **)&r->labels, &r->cap_labels, r->nlabels + 1, sizeof(*r->labels));
}

int pp_attr_record_draw_slot_add(struct pp_recording *r, uint32_t begin_slot, uint32_t end_slot)
{
	if (grow((void **)&r->draw_slots, &r->cap_draw_slots, r->ndraw_slots + 2, sizeof(uint32_t)))
		return -ENOMEM;
	r->draw_slots[r->ndraw_slots++] = begin_slot;
	r->draw_slots[r->ndraw_slots++] = end_slot;
	struct pp_pass_rec *p = pp_attr_record_open_pass(r);
	if (p)
		p->ndraw_slots++;
	return 0;
}

int pp_attr_record_chunk_add(struct pp_recording *r, uint32_t chunk)
{
	if (grow((void **)&r->chunks, &r->cap_chunks, r->nchunks + 1, sizeof(uint32_t)))
		return -ENOMEM;
	r->chunks[r->nchunks++] = chunk;
	return 0;
}

void pp_attr_record_workload_add(struct pp_workload *into, const struct pp_workload *w)
{
	into->draws += w->draws;
	into->draws_indexed += w->draws_indexed;
	into->draws_indirect += w->draws_indirect;
	into->draws_indirect_count += w->draws_indirect_count;
	into->instances += w->instances;
	into->vertices += w->vertices;
	into->indices += w->indices;
	into->dispatches += w->dispatches;
	into->dispatches_indirect += w->dispatches_indirect;
	into->workgroups += w->workgroups;
	into->copies += w->copies;
	into->copy_bytes += w->copy_bytes;
	into->clears += w->clears;
	into->barriers += w->barriers;
}


void pp_attr_record_merge_secondary(struct pp_pass_rec *into, const struct pp_recording *secondary)
{
	for (uint32_t i = 0; i < secondary->npasses; i++)
		pp_attr_record_workload_add(&into->work, &secondary->passes[i].work);
	/* Draws recorded inside a render pass continuation live in the secondary's stray work. */
	pp_attr_record_workload_add(&into->work, &secondary->stray);
	into->secondaries++;
}
