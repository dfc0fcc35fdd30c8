#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "attr_record.h"

struct pp_recording *pp_recording_create(bool secondary)
{
	struct pp_recording *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->secondary = secondary;
	r->cur = &r->stray;
	r->perf_group = PP_NO_SLOT;
	return r;
}

void pp_recording_destroy(struct pp_recording *r)
{
	if (!r)
		return;
	free(r->passes);
	free(r->labels);
	free(r->draw_slots);
	free(r->chunks);
	free(r);
}

void pp_recording_clear(struct pp_recording *r)
{
	r->npasses = r->nlabels = r->ndraw_slots = r->nchunks = 0;
	r->passes_dropped = 0;
	r->perf_group = PP_NO_SLOT;
	r->submissions = 0;
	r->quiet = r->passless = false;
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

static struct pp_pass_rec *pass_begin(struct pp_recording *r, enum pp_pass_kind kind, const char *api,
				      enum pp_recording_state state, bool after_last)
{
	if (r->passless) {
		r->state = state;
		r->open = UINT32_MAX;
		r->cur = &r->stray;
		return NULL;
	}
	if (r->npasses >= PP_RECORDING_MAX_PASSES ||
	    grow((void **)&r->passes, &r->cap_passes, r->npasses + 1, sizeof(*r->passes))) {
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
	/* Pass boundaries are where recording cost is measured: two snapshots per pass, or one
	 * where the pass begins at the last one's end (pp_recording_pass_begin_after_last). */
	if (r->quiet)
		return p;
	const struct pp_pass_rec *prev = r->open > 0 ? &r->passes[r->open - 1] : NULL;
	if (after_last && prev && prev->cpu_ended)
		p->cpu_begin = prev->cpu_end;
	else
		pp_cpu_snapshot_take(&p->cpu_begin);
	return p;
}

struct pp_pass_rec *pp_recording_pass_begin(struct pp_recording *r, enum pp_pass_kind kind, const char *api,
					    enum pp_recording_state state)
{
	return pass_begin(r, kind, api, state, false);
}

struct pp_pass_rec *pp_recording_pass_begin_after_last(struct pp_recording *r, enum pp_pass_kind kind,
						       const char *api, enum pp_recording_state state)
{
	return pass_begin(r, kind, api, state, true);
}

void pp_recording_pass_end(struct pp_recording *r)
{
	if (r->state != PP_REC_IDLE && r->open < r->npasses && !r->quiet) {
		struct pp_pass_rec *p = &r->passes[r->open];
		pp_cpu_snapshot_take(&p->cpu_end);
		p->cpu_ended = true;
	}
	r->state = PP_REC_IDLE;
	r->cur = &r->stray;
}

int pp_recording_label(struct pp_recording *r, enum pp_label_op op, const char *name)
{
	if (r->nlabels == r->cap_labels &&
	    grow((void **)&r->labels, &r->cap_labels, r->nlabels + 1, sizeof(*r->labels)))
		return -ENOMEM;
	struct pp_label_event *e = &r->labels[r->nlabels++];
	/* A label that opens while a pass is open names later passes, not this one. */
	e->pos = r->npasses;
	e->op = op;
	/* A pop names nothing (label_apply in attr_device.c reads push names only). */
	if (op == PP_LABEL_POP)
		e->name[0] = '\0';
	else
		pp_name_copy(e->name, sizeof(e->name), name ? name : "");
	return 0;
}

int pp_recording_draw_slot_add(struct pp_recording *r, uint32_t begin_slot, uint32_t end_slot)
{
	if (grow((void **)&r->draw_slots, &r->cap_draw_slots, r->ndraw_slots + 2, sizeof(uint32_t)))
		return -ENOMEM;
	r->draw_slots[r->ndraw_slots++] = begin_slot;
	r->draw_slots[r->ndraw_slots++] = end_slot;
	struct pp_pass_rec *p = pp_recording_open_pass(r);
	if (p)
		p->ndraw_slots++;
	return 0;
}

int pp_recording_chunk_add(struct pp_recording *r, uint32_t chunk)
{
	if (grow((void **)&r->chunks, &r->cap_chunks, r->nchunks + 1, sizeof(uint32_t)))
		return -ENOMEM;
	r->chunks[r->nchunks++] = chunk;
	return 0;
}

void pp_workload_add(struct pp_workload *into, const struct pp_workload *w)
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

uint64_t pp_workload_draws(const struct pp_workload *w)
{
	return w->draws + w->draws_indexed + w->draws_indirect + w->draws_indirect_count;
}

void pp_recording_merge_secondary(struct pp_pass_rec *into, const struct pp_recording *secondary)
{
	for (uint32_t i = 0; i < secondary->npasses; i++)
		pp_workload_add(&into->work, &secondary->passes[i].work);
	/* Draws recorded inside a render pass continuation live in the secondary's stray work. */
	pp_workload_add(&into->work, &secondary->stray);
	into->secondaries++;
}
