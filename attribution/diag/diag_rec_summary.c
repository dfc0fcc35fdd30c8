/* What a closed recording keeps for the recordings submitted after it: per resource, its
 * barriers and first uses (judged against by their carried windows), and only the barriers
 * re-submissions need (compaction). */
#include "diag_internal.h"

struct rec_first_use *pp_diag_rec_summary_barrier_first_use_slot(const struct pp_diag_rec *r, uint64_t key)
{
	if (!r->first_uses_cap)
		return NULL;
	key |= 1; /* 0 marks an empty slot */
	for (uint32_t j = (uint32_t)(key & (r->first_uses_cap - 1));; j = (j + 1) & (r->first_uses_cap - 1))
		if (!r->first_uses[j].key || r->first_uses[j].key == key)
			return &r->first_uses[j];
}

/* The summary later recordings' carried windows are judged against: per resource, its
 * barriers (range, when) and its uses outside barrier windows (range, stages, when first), at
 * most PP_DIAG_RANGES of each (more uses: merged into the last; more barriers: the resource is
 * not followed by range). */
void pp_diag_rec_summary_first_uses_build(struct pp_diag_rec *r)
{
	uint32_t n = r->map_used;
	if (n > REC_MAX_FIRST_USES) {
		r->first_uses_overflow = true;
		return;
	}
	if (!n)
		return;
	uint32_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	if (!(r->first_uses = calloc(cap, sizeof(*r->first_uses)))) {
		r->first_uses_overflow = true;
		return;
	}
	r->first_uses_cap = cap;
	uint32_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < r->nentries; i++) {
			const struct rec_entry *e = &r->entries[i];
			if (e->kind == PP_RES_GLOBAL)
				continue;
			uint64_t key = pp_diag_ranges_barrier_res_key(e->kind, e->handle) | 1;
			struct rec_first_use *f = pp_diag_rec_summary_barrier_first_use_slot(r, key);
			bool barrier = e->barrier != NO_INDEX;
			if (pass == 0) {
				if (!f->key)
					f->key = key;
				uint32_t *cnt = barrier ? &f->nbarriers : &f->nuses;
				if (*cnt < PP_DIAG_RANGES)
					(*cnt)++;
				else if (barrier)
					f->overflow = true;
				continue;
			}
			if (f->overflow)
				continue;
			struct rec_range_rec *rr = &r->first_recs[f->first];
			if (barrier) {
				if (f->fill_barriers++ < f->nbarriers)
					rr[f->n++] = (struct rec_range_rec){ .range = e->range, .tick = e->opened, .barrier = true };
			} else if (f->fill_uses++ < f->nuses) {
				rr[f->n++] = (struct rec_range_rec){ .range = e->range, .tick = e->opened, .uses = e->uses,
								     .writes = e->write_uses };
			} else {
				/* The last use record takes the later ones: bounding range, earliest tick
				 * (more consumers, never fewer). */
				uint32_t k = f->n;
				while (k && rr[k - 1].barrier)
					k--;
				if (k) {
					pp_diag_ranges_bound(&rr[k - 1].range, &e->range);
					rr[k - 1].uses |= e->uses;
					rr[k - 1].writes |= e->write_uses;
				}
			}
		}
		if (pass == 0) {
			for (uint32_t j = 0; j < cap; j++) {
				struct rec_first_use *f = &r->first_uses[j];
				if (!f->key)
					continue;
				f->first = total;
				total += f->overflow ? 0 : f->nbarriers + f->nuses;
			}
			if (total && !(r->first_recs = calloc(total, sizeof(*r->first_recs)))) {
				free(r->first_uses);
				r->first_uses = NULL;
				r->first_uses_cap = 0;
				r->first_uses_overflow = true;
				return;
			}
		}
	}
}

/* A closed recording keeps only what re-submissions need: its barriers with findings, those
 * with windows open at its end, and the summary of what it uses. */
void pp_diag_rec_summary_barrier_compact(struct pp_diag_rec *r)
{
	uint32_t n = 0;
	for (uint32_t i = 0, t = 0; i < r->nbarriers; i++) {
		if (!r->barriers[i].fired && !r->barriers[i].tail && !r->barriers[i].exp_fixed)
			continue;
		/* tails are in barrier order */
		for (; t < r->ntails && r->tails[t].barrier <= i; t++)
			if (r->tails[t].barrier == i)
				r->tails[t].barrier = n;
		r->barriers[n++] = r->barriers[i];
	}
	r->nbarriers = n;
	if (!n) {
		free(r->barriers);
		r->barriers = NULL;
		r->cap_barriers = 0;
	}
	/* A recording that is reset and recorded again every frame (most) would allocate these
	 * again at its first use: the first map's size (REC_MAP_KEPT) is kept, emptied. Its
	 * allocation is a large-bin request, for which glibc first consolidates every freed small
	 * chunk: about 400,000 instructions a recording under lavapipe (docs/performance.md). */
	r->nentries = 0;
	if (r->cap_entries > REC_ENTRIES_KEPT) {
		free(r->entries);
		r->entries = NULL;
		r->cap_entries = 0;
	}
	if (r->map_cap > REC_MAP_KEPT) {
		free(r->map);
		free(r->map_keys);
		r->map = NULL;
		r->map_keys = NULL;
		r->map_cap = 0;
	} else if (r->map_used) {
		memset(r->map, 0, r->map_cap * sizeof(*r->map));
	}
	r->map_used = 0;
	free(r->cwrites);
	r->cwrites = NULL;
	r->ncwrites = r->cap_cwrites = 0;
	free(r->events);
	r->events = NULL;
	r->nevents = r->cap_events = 0;
	free(r->writes);
	r->writes = NULL;
	r->nwrites = r->cap_writes = 0;
	r->global_open = NO_INDEX;
}
