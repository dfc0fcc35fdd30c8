/* Recordings and their barrier windows: what a command buffer's recording did, fed in
 * recording order (work, uses, barriers, events, queries, render passes); the work a barrier
 * waits for and the work after it, the verdicts on each barrier; closed at submit (ranges:
 * diag_ranges.c; what a closed recording keeps: diag_rec_summary.c). */
#include "diag_internal.h"

/* ---- recordings ------------------------------------------------------------------------ */

static uint64_t rec_gen_next(void)
{
	static uint64_t g_gen;
	return __atomic_add_fetch(&g_gen, 1, __ATOMIC_RELAXED);
}

void pp_diag_barriers_rec_owner(struct pp_diag_rec *r, const char *owner)
{
	r->owner = owner;
}

struct pp_diag_rec *pp_diag_barriers_rec_create(void)
{
	struct pp_diag_rec *r = calloc(1, sizeof(*r));
	if (r) {
		r->global_open = NO_INDEX;
		r->first_global_tick = UINT64_MAX;
		r->gen = rec_gen_next();
	}
	return r;
}

void pp_diag_barriers_rec_destroy(struct pp_diag_rec *r)
{
	if (!r)
		return;
	free(r->barriers);
	free(r->entries);
	free(r->map);
	free(r->map_keys);
	free(r->cwrites);
	free(r->queries);
	free(r->events);
	free(r->subpasses);
	free(r->tails);
	free(r->first_uses);
	free(r->first_recs);
	free(r->writes);
	free(r);
}

void pp_diag_barriers_rec_reset(struct pp_diag_rec *r)
{
	r->tick = 0;
	r->closed = r->incomplete = false;
	/* The tick arrays, work_tick to first_format_tick, follow each other: one clear (a
	 * recording is reset every frame). */
	_Static_assert(offsetof(struct pp_diag_rec, first_global_tick) ==
			       offsetof(struct pp_diag_rec, first_format_tick) + sizeof(r->first_format_tick),
		       "first_format_tick ends the tick arrays");
	memset(r->work_tick, 0, offsetof(struct pp_diag_rec, first_global_tick) - offsetof(struct pp_diag_rec, work_tick));
	r->first_global_tick = UINT64_MAX;
	r->last_work_tick = r->last_cmd_tick = r->last_barrier_tick = r->last_barrier_hash = 0;
	r->have_barrier = false;
	r->gen = rec_gen_next();
	free(r->tails);
	free(r->first_uses);
	free(r->first_recs);
	r->tails = NULL;
	r->first_uses = NULL;
	r->first_recs = NULL;
	r->ntails = r->first_uses_cap = 0;
	r->tails_overflow = r->first_uses_overflow = r->sub_valid = false;
	r->nbarriers = r->nentries = 0;
	r->global_open = NO_INDEX;
	if (r->map_used) /* a compacted recording's map is empty already */
		memset(r->map, 0, r->map_cap * sizeof(*r->map));
	r->map_used = 0;
	r->ncwrites = r->nqueries = r->nevents = r->nsubpasses = 0;
	r->nwrites = 0;
	r->writes_overflow = r->resubmitted = r->attachments_named = r->attachments_unnamed = false;
	r->unnamed_attachment_tick = 0;
	r->exp_write_stages = 0;
}

bool pp_diag_barriers_rec_closed(const struct pp_diag_rec *r)
{
	return r->closed;
}

static bool grow(void **a, uint32_t *cap, uint32_t need, size_t elem, uint32_t limit)
{
	if (need <= *cap)
		return true;
	if (need > limit)
		return false;
	uint32_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	if (n > limit)
		n = limit;
	void *p = realloc(*a, (size_t)n * elem);
	if (!p)
		return false;
	*a = p;
	*cap = n;
	return true;
}

/* The map holds, per image or buffer, its open entries (barrier windows by range, and at most
 * one entry of uses no window contains): a list through next_open, index + 1, 0 ends it. */
static uint32_t *map_slot(struct pp_diag_rec *r, uint64_t key, bool insert)
{
	if (insert && (r->map_used + 1) * 2 > r->map_cap) {
		uint32_t cap = r->map_cap ? r->map_cap * 2 : REC_MAP_KEPT;
		if (cap / 2 > REC_MAX_RESOURCES)
			return NULL;
		uint32_t *m = calloc(cap, sizeof(*m));
		uint64_t *k = calloc(cap, sizeof(*k));
		if (!m || !k) {
			free(m);
			free(k);
			return NULL;
		}
		for (uint32_t i = 0; i < r->map_cap; i++) {
			if (!r->map[i])
				continue;
			uint32_t j = (uint32_t)(r->map_keys[i] & (cap - 1));
			while (m[j])
				j = (j + 1) & (cap - 1);
			m[j] = r->map[i];
			k[j] = r->map_keys[i];
		}
		free(r->map);
		free(r->map_keys);
		r->map = m;
		r->map_keys = k;
		r->map_cap = cap;
	}
	if (!r->map_cap)
		return NULL;
	for (uint32_t j = (uint32_t)(key & (r->map_cap - 1));; j = (j + 1) & (r->map_cap - 1)) {
		if (!r->map[j]) {
			if (!insert)
				return NULL;
			r->map_keys[j] = key;
			r->map_used++;
			return &r->map[j];
		}
		if (r->map_keys[j] == key)
			return &r->map[j];
	}
}

static struct rec_entry *entry_new(struct pp_diag_rec *r)
{
	if (!grow((void **)&r->entries, &r->cap_entries, r->nentries + 1, sizeof(*r->entries), REC_MAX_ENTRIES)) {
		r->incomplete = true;
		return NULL;
	}
	struct rec_entry *e = &r->entries[r->nentries++];
	memset(e, 0, sizeof(*e));
	e->barrier = NO_INDEX;
	e->prev = NO_INDEX;
	e->prev_window = NO_INDEX;
	e->next_open = 0;
	e->open = true;
	e->opened = r->tick;
	return e;
}

static uint32_t ticks_since(const uint64_t *ticks, uint32_t n, uint64_t since)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ticks[i] > since)
			out |= 1u << i;
	return out;
}

/* The anonymous work a window saw: PP_WORK_* bits, the stages of draws, of precise uses (of
 * any resource) and of descriptors with unknown contents, the attachment format buckets. */

/* In a recording, after a window opened. */
static void view_since(const struct pp_diag_rec *r, uint64_t opened, struct work_view *v)
{
	v->work = ticks_since(r->work_tick, PP_WORK_BITS, opened);
	v->draw_stages = ticks_since(r->draw_stage_tick, NSTAGES, opened);
	v->use_stages = ticks_since(r->use_stage_tick, NSTAGES, opened);
	v->unknown_stages = ticks_since(r->unknown_stage_tick, NSTAGES, opened);
	v->formats = ticks_since(r->format_tick, 32, opened);
}

static uint32_t ticks_before(const uint64_t *ticks, uint32_t n, uint64_t until)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ticks[i] && ticks[i] < until)
			out |= 1u << i;
	return out;
}

/* In a later recording of the submission, before `until` (its own barrier on the resource). */
void pp_diag_barriers_view_before(const struct pp_diag_rec *r, uint64_t until, struct work_view *v)
{
	v->work = ticks_before(r->first_work_tick, PP_WORK_BITS, until);
	v->draw_stages = ticks_before(r->first_draw_stage_tick, NSTAGES, until);
	v->use_stages = ticks_before(r->first_use_stage_tick, NSTAGES, until);
	v->unknown_stages = ticks_before(r->first_unknown_stage_tick, NSTAGES, until);
	v->formats = ticks_before(r->first_format_tick, 32, until);
}

/* Stages of the anonymous work that may have touched a resource (kind, the layout a barrier
 * left it in, its format bucket). */
uint32_t pp_diag_barriers_anon_consumers(const struct work_view *v, enum pp_diag_res_kind kind, enum pp_diag_layout l,
			       uint32_t format_bucket, const char **unproven)
{
	uint32_t work = v->work;
	uint32_t c = 0;
	if (work & PP_WORK_UNKNOWN)
		*unproven = "secondary command buffers executed after it may use anything";
	if (kind == PP_RES_GLOBAL) {
		c |= v->draw_stages | v->use_stages | v->unknown_stages;
		if (work & PP_WORK_TRANSFER)
			c |= PP_STAGE_TRANSFER;
		if (work & PP_WORK_DISPATCH)
			c |= PP_STAGE_COMPUTE;
		if (work & PP_WORK_INDIRECT)
			c |= PP_STAGE_DRAW_INDIRECT;
		if (work & PP_WORK_COLOR_ATTACHMENT)
			c |= PP_STAGE_COLOR_OUTPUT;
		if (work & PP_WORK_DEPTH_ATTACHMENT)
			c |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
		return c;
	}
	uint32_t unknown = (work & PP_WORK_UNKNOWN_DESCRIPTORS) ? v->unknown_stages : 0;
	if (kind == PP_RES_BUFFER) {
		if (work & PP_WORK_TRANSFER)
			c |= PP_STAGE_TRANSFER;
		if (work & PP_WORK_INDIRECT)
			c |= PP_STAGE_DRAW_INDIRECT;
		return c | unknown;
	}
	bool general = l == PP_LAYOUT_GENERAL || l == PP_LAYOUT_OTHER;
	/* An attachment of its format must have begun for the image to be one. */
	if (format_bucket && !(format_bucket & v->formats))
		work &= ~(uint32_t)(PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT);
	if ((work & PP_WORK_TRANSFER) && (general || l == PP_LAYOUT_TRANSFER_SRC || l == PP_LAYOUT_TRANSFER_DST))
		c |= PP_STAGE_TRANSFER;
	if ((work & PP_WORK_COLOR_ATTACHMENT) && (general || l == PP_LAYOUT_COLOR_ATTACHMENT))
		c |= PP_STAGE_COLOR_OUTPUT | (general ? PP_STAGE_FRAGMENT_SHADER : 0);
	if ((work & PP_WORK_DEPTH_ATTACHMENT) &&
	    (general || l == PP_LAYOUT_DEPTH_ATTACHMENT || l == PP_LAYOUT_DEPTH_READ_ONLY))
		c |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	if (general || l == PP_LAYOUT_SHADER_READ || l == PP_LAYOUT_DEPTH_READ_ONLY)
		c |= unknown;
	return c;
}

/* The consumers a window saw in its own recording; no default reason when there are none. */
static uint32_t entry_consumers(const struct pp_diag_rec *r, const struct rec_entry *e, const char **unproven)
{
	struct work_view v;
	view_since(r, e->opened, &v);
	*unproven = NULL;
	uint32_t c = e->uses | pp_diag_barriers_anon_consumers(&v, e->kind, e->new_layout, e->format_bucket, unproven);
	if (e->dst_access & (PP_ACCESS_HOST_READ | PP_ACCESS_HOST_WRITE))
		c |= PP_STAGE_HOST;
	return c;
}

static void entry_close(struct pp_diag_rec *r, struct rec_entry *e)
{
	if (!e->open)
		return;
	e->open = false;
	const char *unproven;
	uint32_t c = entry_consumers(r, e, &unproven);
	if (!c && !unproven)
		unproven = e->tail ? UNPROVEN_NO_USER : "nothing uses what it covers before the next barrier on it";
	e->consumers = c;
	e->unproven = unproven;
}

#define UNPROVEN_RANGES "more ranges of its resource were in flight at once than passprobe follows"

static uint32_t layout_producers(enum pp_diag_layout l)
{
	switch (l) {
	case PP_LAYOUT_COLOR_ATTACHMENT: return PP_STAGE_COLOR_OUTPUT;
	case PP_LAYOUT_DEPTH_ATTACHMENT: return PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	case PP_LAYOUT_TRANSFER_SRC:
	case PP_LAYOUT_TRANSFER_DST: return PP_STAGE_TRANSFER;
	default: return 0;
	}
}

static bool access_specific(uint32_t a)
{
	return a && !(a & (PP_ACCESS_MEMORY_READ | PP_ACCESS_MEMORY_WRITE));
}

/* The earlier stages the barrier's first scope really has to wait for. */
static uint32_t barrier_producers(const struct pp_diag_rec *r, const struct rec_barrier *b, const char **why)
{
	uint32_t p = 0;
	*why = NULL;
	for (uint32_t i = b->first; i < b->first + b->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		uint32_t q = 0;
		if (access_specific(e->src_access))
			q |= pp_diag_vocab_access_stages(e->src_access);
		if (e->kind == PP_RES_IMAGE)
			q |= layout_producers(e->old_layout);
		const struct rec_entry *prev = e->prev != NO_INDEX ? &r->entries[e->prev] : NULL;
		if (e->kind != PP_RES_GLOBAL)
			q |= e->prev_uses;
		else if (prev)
			q |= prev->consumers;
		else
			q |= ticks_since(r->draw_stage_tick, NSTAGES, 0) | ticks_since(r->use_stage_tick, NSTAGES, 0);
		if (e->kind == PP_RES_GLOBAL && !prev) {
			/* Pure execution dependency on the work before it. */
			uint32_t work = ticks_since(r->work_tick, PP_WORK_BITS, 0);
			if (work & PP_WORK_TRANSFER)
				q |= PP_STAGE_TRANSFER;
			if (work & PP_WORK_DISPATCH)
				q |= PP_STAGE_COMPUTE;
			if (work & PP_WORK_COLOR_ATTACHMENT)
				q |= PP_STAGE_COLOR_OUTPUT;
			if (work & PP_WORK_DEPTH_ATTACHMENT)
				q |= PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
			if (work & PP_WORK_UNKNOWN)
				*why = "secondary command buffers executed before it";
		}
		if (!q && !*why)
			*why = e->kind == PP_RES_GLOBAL ? "what it waits for was recorded before this command buffer"
				: "the last use of one of its resources was recorded before this command buffer";
		p |= q;
	}
	return p;
}

void pp_diag_barriers_finding(struct rec_barrier *b, enum pp_diag_rule rule)
{
	b->fired |= 1u << rule;
}

static bool dst_too_early(uint32_t dst_raw, uint32_t dst, uint32_t consumers)
{
	if (!consumers)
		return false;
	if (dst_raw & (PP_STAGE_TOP | PP_STAGE_ALL_COMMANDS))
		return true; /* every later command waits, whatever it is */
	if (consumers & ~PP_STAGE_GRAPHICS)
		return (dst_raw & PP_STAGE_ALL_GRAPHICS) && !(consumers & PP_STAGE_GRAPHICS);
	uint32_t dst_g = dst & PP_STAGE_GRAPHICS;
	if (!dst_g)
		return false;
	return pp_diag_vocab_stage_order(pp_diag_vocab_lowest_bit(dst_g)) < pp_diag_vocab_stage_order(pp_diag_vocab_lowest_bit(consumers));
}

/* The verdicts that depend on a barrier's consumers: the suggested destination, and whether
 * it starts too early. Returns the findings (bits per enum pp_diag_rule). The suggestion keeps
 * only consumers the destination access mask can reach (the others' accesses are not made
 * visible by this barrier anyway), except consumers that write: a write after the barrier
 * needs its execution dependency whatever the access mask says. */
uint32_t pp_diag_barriers_dst_judge(const struct rec_barrier *b, uint32_t consumers, uint32_t writes, const char *unproven,
			  uint32_t *dst_suggested)
{
	uint32_t sug = consumers;
	if (access_specific(b->dst_access) && (sug & pp_diag_vocab_access_stages(b->dst_access)))
		sug = (sug & (pp_diag_vocab_access_stages(b->dst_access) | PP_STAGE_HOST)) | (writes & consumers);
	*dst_suggested = unproven ? 0 : sug;
	if (b->acquire || b->drain || unproven)
		return 0;
	return dst_too_early(b->dst_raw, pp_diag_vocab_stage_expand(b->dst_raw, true), *dst_suggested)
		       ? 1u << PP_DIAG_DST_TOO_EARLY : 0;
}

static void barrier_evaluate(struct pp_diag_rec *r, struct rec_barrier *b)
{
	if (b->evaluated)
		return;
	b->evaluated = true;
	uint32_t consumers = 0;
	const char *unproven = NULL;
	for (uint32_t i = b->first; i < b->first + b->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		consumers |= e->consumers;
		b->writes |= e->write_uses;
		if (e->unproven && !unproven)
			unproven = e->unproven;
		if (e->tail) {
			b->tail = true;
			continue;
		}
		b->closed_consumers |= e->consumers;
		b->closed_writes |= e->write_uses;
		if (e->unproven && !b->closed_unproven)
			b->closed_unproven = e->unproven;
	}
	if (!b->n) {
		/* An execution-only barrier: its window is the whole rest of the recording, judged
		 * like a global memory barrier through the entry created for it. */
		unproven = "no resources";
	}
	const char *pwhy;
	uint32_t src = pp_diag_vocab_stage_expand(b->src_raw, false);
	uint32_t producers = barrier_producers(r, b, &pwhy) & src;
	b->producers = pwhy ? 0 : producers;
	b->producers_partial = pwhy ? producers : 0;
	b->producers_unproven = pwhy;
	b->consumers = unproven ? 0 : consumers;
	b->consumers_unproven = unproven;
	b->fired |= pp_diag_barriers_dst_judge(b, consumers, b->writes, unproven, &b->dst_suggested);
	if (b->acquire)
		return;
	if (b->drain) {
		pp_diag_barriers_finding(b, PP_DIAG_FULL_DRAIN);
		return;
	}
	if ((b->src_raw & (PP_STAGE_BOTTOM | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS)) && b->producers &&
	    (b->producers & PP_STAGE_WORK) != (src & PP_STAGE_WORK))
		pp_diag_barriers_finding(b, PP_DIAG_SRC_TOO_LATE);
}

static void barrier_entry_closed(struct pp_diag_rec *r, uint32_t bi)
{
	if (bi == NO_INDEX)
		return;
	struct rec_barrier *b = &r->barriers[bi];
	if (b->open && --b->open == 0)
		barrier_evaluate(r, b);
}

/* Drops the closed entries from a resource's open list. */
static void slot_prune(struct pp_diag_rec *r, uint32_t *slot)
{
	uint32_t *link = slot;
	while (*link) {
		struct rec_entry *o = &r->entries[*link - 1];
		if (!o->open)
			*link = o->next_open;
		else
			link = &o->next_open;
	}
}

/* A barrier on rg (NULL: closing them all) meets the open entries of a resource, except those
 * of barrier call `keep`: those it covers entirely close; those it covers in part stay open
 * (the rest of their range is still in their window: they go on seeing every use that meets
 * their range, more consumers, never fewer) and only give it their uses. why: the reason the
 * closed ones' consumers are not complete (NULL: judged as they are). Returns the uses of the
 * entries it meets; *nwindows: the barrier windows left open. */
static uint32_t slot_close(struct pp_diag_rec *r, uint32_t *slot, const struct pp_diag_range *rg, uint32_t keep,
			   const char *why, uint32_t *nwindows, uint32_t *closed_one)
{
	uint32_t uses = 0, n = 0, closed = 0, one = NO_INDEX;
	for (uint32_t l = *slot; l; l = r->entries[l - 1].next_open) {
		struct rec_entry *o = &r->entries[l - 1];
		if ((keep != NO_INDEX && o->barrier == keep) || (rg && !pp_diag_ranges_overlap(&o->range, rg))) {
			n += o->barrier != NO_INDEX;
			continue;
		}
		uses |= o->uses;
		if (rg && !pp_diag_ranges_contains(rg, &o->range)) {
			n += o->barrier != NO_INDEX;
			o->met = true;
			closed = 2; /* met in part: not the one window it closed */
			continue;
		}
		if (o->barrier != NO_INDEX && closed++ == 0 && rg && pp_diag_ranges_contains(&o->range, rg))
			one = (uint32_t)(o - r->entries);
		entry_close(r, o);
		if (why) {
			o->consumers = 0;
			o->unproven = why;
		}
		barrier_entry_closed(r, o->barrier);
	}
	slot_prune(r, slot);
	if (nwindows)
		*nwindows = n;
	if (closed_one)
		*closed_one = closed == 1 ? one : NO_INDEX;
	return uses;
}

static void advance(struct pp_diag_rec *r)
{
	r->tick++;
}

/* Sets the ticks of the bits below n, and their first ticks when not set yet. Walks the set
 * bits only: every bind and barrier hook comes here four times (docs/performance.md). */
static void ticks_mark(uint64_t *last, uint64_t *first, uint32_t bits, uint32_t n, uint64_t tick)
{
	if (n < 32)
		bits &= (1u << n) - 1;
	for (; bits; bits &= bits - 1) {
		unsigned i = (unsigned)__builtin_ctz(bits);
		last[i] = tick;
		if (!first[i])
			first[i] = tick;
	}
}

uint32_t pp_diag_barriers_format_bucket(const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name ? name : ""; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return 1u << (h % 32);
}

void pp_diag_barriers_rec_work(struct pp_diag_rec *r, uint32_t work, uint32_t draw_stages, uint32_t unknown_stages,
		      uint32_t attachment_formats)
{
	if (!r || r->closed || !(work | draw_stages | unknown_stages))
		return;
	advance(r);
	if ((work & (PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT)) && !attachment_formats)
		attachment_formats = UINT32_MAX;
	ticks_mark(r->format_tick, r->first_format_tick, attachment_formats, 32, r->tick);
	ticks_mark(r->work_tick, r->first_work_tick, work, PP_WORK_BITS, r->tick);
	ticks_mark(r->draw_stage_tick, r->first_draw_stage_tick, draw_stages, NSTAGES, r->tick);
	ticks_mark(r->unknown_stage_tick, r->first_unknown_stage_tick, unknown_stages, NSTAGES, r->tick);
	r->last_cmd_tick = r->tick;
	if (work & (PP_WORK_TRANSFER | PP_WORK_DRAW | PP_WORK_DISPATCH | PP_WORK_COLOR_ATTACHMENT |
		    PP_WORK_DEPTH_ATTACHMENT | PP_WORK_UNKNOWN))
		r->last_work_tick = r->tick;
	pp_diag_experiment_rec_work(r, work, unknown_stages);
}

void pp_diag_barriers_rec_use(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle, uint32_t stages, bool write)
{
	pp_diag_barriers_rec_use_range(r, kind, handle, NULL, stages, write);
}

void pp_diag_barriers_rec_use_range(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle,
			   const struct pp_diag_range *range, uint32_t stages, bool write)
{
	if (!r || r->closed || !handle)
		return;
	advance(r);
	ticks_mark(r->use_stage_tick, r->first_use_stage_tick, stages, NSTAGES, r->tick);
	r->last_cmd_tick = r->tick;
	uint32_t *slot = map_slot(r, pp_diag_ranges_barrier_res_key(kind, handle), true);
	if (!slot) {
		r->incomplete = true;
		return;
	}
	struct pp_diag_range rg = pp_diag_ranges_norm(range);
	/* Every window it overlaps sees it; what no single window contains is also kept as a use
	 * outside the windows (what a later barrier on that part waits for). */
	bool contained = false;
	struct rec_entry *loose = NULL;
	for (uint32_t l = *slot; l; l = r->entries[l - 1].next_open) {
		struct rec_entry *o = &r->entries[l - 1];
		if (o->barrier == NO_INDEX)
			loose = o;
		else if (pp_diag_ranges_overlap(&o->range, &rg)) {
			o->uses |= stages;
			if (!o->first_use)
				o->first_use = r->tick;
			if (write)
				o->write_uses |= stages;
			contained |= pp_diag_ranges_contains(&o->range, &rg);
		}
	}
	if (!contained) {
		if (!loose) {
			loose = entry_new(r);
			if (!loose)
				return;
			loose->kind = kind;
			loose->handle = handle;
			loose->range = rg;
			loose->next_open = *slot;
			*slot = (uint32_t)(loose - r->entries) + 1;
		}
		pp_diag_ranges_bound(&loose->range, &rg);
		loose->uses |= stages;
		if (!loose->first_use)
			loose->first_use = r->tick;
		if (write)
			loose->write_uses |= stages;
	}
	if (write)
		pp_diag_experiment_write_note(r, kind, handle, &rg, stages);
	if (write && (stages & PP_STAGE_COMPUTE) &&
	    grow((void **)&r->cwrites, &r->cap_cwrites, r->ncwrites + 1, sizeof(*r->cwrites), REC_MAX_COMPUTE_WRITES))
		r->cwrites[r->ncwrites++] = (struct compute_write){ handle, kind, r->tick };
}

void pp_diag_barriers_rec_event_set(struct pp_diag_rec *r, uint64_t event)
{
	if (!r || r->closed)
		return;
	advance(r);
	r->last_cmd_tick = r->tick;
	for (uint32_t i = 0; i < r->nevents; i++)
		if (r->events[i].event == event) {
			r->events[i].tick = r->tick;
			return;
		}
	if (grow((void **)&r->events, &r->cap_events, r->nevents + 1, sizeof(*r->events), REC_MAX_EVENTS))
		r->events[r->nevents++] = (struct set_event){ event, r->tick };
}

void pp_diag_barriers_rec_queries(struct pp_diag_rec *r, uint64_t pool, uint32_t first, uint32_t count)
{
	if (!r || r->closed || !count)
		return;
	advance(r);
	r->last_cmd_tick = r->tick; /* a timestamp between two barriers measures something */
	struct query_write *last = r->nqueries ? &r->queries[r->nqueries - 1] : NULL;
	if (last && last->pool == pool && last->first + last->count == first) {
		last->count += count;
		return;
	}
	if (grow((void **)&r->queries, &r->cap_queries, r->nqueries + 1, sizeof(*r->queries), REC_MAX_QUERIES))
		r->queries[r->nqueries++] = (struct query_write){ pool, first, count };
}

bool pp_diag_barriers_subpass_dep_not_by_region(const struct pp_diag_subpass_dep *dep)
{
	/* Accesses that only touch the fragment's own attachment location: input attachments
	 * are read at the fragment's position, attachments are written and tested there. */
	const uint32_t local = PP_ACCESS_INPUT_ATTACHMENT_READ | PP_ACCESS_COLOR_READ | PP_ACCESS_COLOR_WRITE |
			       PP_ACCESS_DEPTH_READ | PP_ACCESS_DEPTH_WRITE;
	if (dep->by_region || dep->src_subpass == PP_DIAG_SUBPASS_EXTERNAL ||
	    dep->dst_subpass == PP_DIAG_SUBPASS_EXTERNAL)
		return false;
	if (!dep->src_stages || !dep->dst_stages || ((dep->src_stages | dep->dst_stages) & ~PP_STAGE_FRAGMENT_SIDE))
		return false;
	/* Shader reads and writes may be of other pixels (a framebuffer-local dependency would
	 * then be wrong), and a sample-shaded read of a multisampled input attachment may read
	 * other samples of the pixel than the region a sample-rate dependency covers. */
	if (((dep->src_access | dep->dst_access) & ~local) || dep->dst_reads_other_samples)
		return false;
	return true;
}

void pp_diag_barriers_rec_render_pass(struct pp_diag_rec *r, uint64_t render_pass, const char *name, uint32_t n,
			     const struct pp_diag_subpass_dep *flagged)
{
	if (!r || r->closed)
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct rec_subpass *e = NULL;
		for (uint32_t i = 0; i < r->nsubpasses && !e; i++)
			if (r->subpasses[i].render_pass == render_pass && r->subpasses[i].dep.index == flagged[k].index)
				e = &r->subpasses[i];
		if (!e && grow((void **)&r->subpasses, &r->cap_subpasses, r->nsubpasses + 1, sizeof(*r->subpasses),
			       PP_DIAG_REC_MAX_SUBPASS_DEPS)) {
			e = &r->subpasses[r->nsubpasses++];
			*e = (struct rec_subpass){ .render_pass = render_pass, .dep = flagged[k] };
			snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
		}
		if (e)
			e->begins++;
	}
}

/* pp_diag_barriers_format_bucket(name) for a static name, remembered by its address. */
static uint32_t format_memo_of(struct pp_diag_rec *r, const char *name)
{
	uint32_t i = (uint32_t)((uintptr_t)name >> 4) & 3u;
	if (name && r->format_memo_name[i] == name)
		return r->format_memo_bucket[i];
	uint32_t bucket = pp_diag_barriers_format_bucket(name);
	r->format_memo_name[i] = name;
	r->format_memo_bucket[i] = bucket;
	return bucket;
}

void pp_diag_barriers_rec_observed(struct pp_diag_rec *r, const struct pp_diag_observed *o)
{
	if (o->reset)
		pp_diag_barriers_rec_reset(r);
	for (uint32_t i = 0; i < o->nrender_passes; i++) {
		const struct pp_diag_render_pass_begun *b = &o->render_passes[i];
		struct pp_diag_subpass_dep flagged[64];
		uint32_t n = 0;
		for (uint32_t k = 0; k < b->ndeps && n < 64; k++)
			if (pp_diag_barriers_subpass_dep_not_by_region(&o->deps[b->first_dep + k]))
				flagged[n++] = o->deps[b->first_dep + k];
		if (n)
			pp_diag_barriers_rec_render_pass(r, b->render_pass, b->name[0] ? b->name : NULL, n, flagged);
	}
	for (uint32_t i = 0; i < o->nuses; i++)
		pp_diag_barriers_rec_use_range(r, o->uses[i].kind, o->uses[i].handle, &o->uses[i].range, o->uses[i].stages,
				      o->uses[i].write);
	if (r && !r->closed && o->nattachments) {
		advance(r);
		for (uint32_t i = 0; i < o->nattachments; i++) {
			struct pp_diag_range rg = pp_diag_ranges_norm(&o->attachments[i].range);
			pp_diag_experiment_write_note(r, o->attachments[i].kind, o->attachments[i].handle, &rg, o->attachments[i].stages);
		}
		r->attachments_named = true;
	}
	if (r && o->attachments_unnamed)
		r->attachments_unnamed = true;
	if (o->work && r) {
		uint32_t formats = o->attachment_formats;
		for (uint32_t i = 0; i < o->nformat_names; i++)
			formats |= format_memo_of(r, o->format_names[i]);
		pp_diag_barriers_rec_work(r, o->work, o->draw_stages, o->unknown_stages, formats);
	}
}

static uint64_t barrier_hash(const struct pp_diag_barrier *b)
{
	uint64_t h = mix64(b->src_stages, b->dst_stages);
	h = mix64(h, b->by_region);
	for (uint32_t i = 0; i < b->nres; i++) {
		const struct pp_diag_barrier_res *e = &b->res[i];
		h = mix64(h, e->kind);
		h = mix64(h, e->handle);
		h = mix64(h, ((uint64_t)e->src_stages << 32) | e->dst_stages);
		h = mix64(h, ((uint64_t)e->src_access << 32) | e->dst_access);
		h = mix64(h, ((uint64_t)e->old_layout << 8) | e->new_layout | ((uint64_t)e->queue_transfer << 16));
		if (e->range.set) {
			struct pp_diag_range rg = pp_diag_ranges_norm(&e->range);
			h = mix64(h, ((uint64_t)rg.layer_begin << 32) | rg.layer_end);
			h = mix64(mix64(h, rg.begin), rg.end ^ ((uint64_t)rg.aspects << 32));
		}
	}
	for (uint32_t i = 0; i < b->nevents; i++)
		h = mix64(h, b->events[i]);
	return h;
}

static bool read_only(uint32_t a)
{
	return a && !(a & PP_ACCESS_WRITES);
}

static bool stages_within(uint32_t a, uint32_t b)
{
	return !(a & ~b);
}

/* Two pipeline barrier calls with no command between them (b right after prev): one call
 * would do unless merging changes what they order. They must cover different resources (two
 * barriers of one image in one call have no order between them) and agree on dependency flags;
 * neither is the acquire pattern or inside a render pass. A single call has no order between
 * its own barriers, so when prev's second scope meets b's first scope (an execution dependency
 * chain: b's later stages wait for prev's earlier ones) only a vkCmdPipelineBarrier whose
 * masks are the unions keeps that; vkCmdPipelineBarrier2 with each barrier's own stages keeps
 * exactly the rest. */
static void merge_check(struct pp_diag_rec *r, struct rec_barrier *prev, struct rec_barrier *b,
			const struct pp_diag_barrier *in)
{
	/* a barrier to remove (reads after reads, a duplicate) is not one to merge */
	const uint32_t removable = 1u << PP_DIAG_READ_TO_READ | 1u << PP_DIAG_DUPLICATE;
	if (prev->events || b->events || prev->acquire || b->acquire || prev->in_render_pass || b->in_render_pass ||
	    prev->by_region != b->by_region || ((prev->fired | b->fired) & removable))
		return;
	if ((uint64_t)prev->n * in->nres > MERGE_MAX_PAIRS)
		return;
	for (uint32_t i = prev->first; i < prev->first + prev->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		for (uint32_t k = 0; e->kind != PP_RES_GLOBAL && k < in->nres; k++)
			if (in->res[k].kind == e->kind && in->res[k].handle == e->handle &&
			    pp_diag_ranges_overlap(&in->res[k].range, &e->range))
				return;
	}
	uint32_t s1 = pp_diag_vocab_stage_expand(prev->src_raw, false), d1 = pp_diag_vocab_stage_expand(prev->dst_raw, true);
	uint32_t s2 = pp_diag_vocab_stage_expand(b->src_raw, false), d2 = pp_diag_vocab_stage_expand(b->dst_raw, true);
	bool chain = (d1 & s2) != 0;
	if (!prev->sync2 && !b->sync2) {
		/* One call with the unions orders s1|s2 -> d1|d2: exactly the two calls when
		 * s1 -> d2 and s2 -> d1 were ordered already (directly, or s1 -> d2 through the chain). */
		bool s1_d2 = stages_within(s1, s2) || stages_within(d2, d1) || chain;
		bool s2_d1 = stages_within(s2, s1) || stages_within(d1, d2);
		if (s1_d2 && s2_d1)
			b->merge = MERGE_SYNC1_EXACT;
		else if (!chain)
			b->merge = MERGE_AS_SYNC2;
	} else if (!chain) {
		b->merge = MERGE_SYNC2;
	}
	if (!b->merge)
		return;
	b->merge_src = prev->src_raw;
	b->merge_dst = prev->dst_raw;
	b->merge_api = prev->api;
	b->merge_loc = prev->loc_key;
	pp_diag_barriers_finding(b, PP_DIAG_MERGEABLE);
}

uint32_t pp_diag_barriers_rec(struct pp_diag_device *d, struct pp_diag_rec *r, const struct pp_diag_barrier *in)
{
	if (!r || r->closed)
		return NO_INDEX;
	if (d && d->cfg.experiment)
		r->exp = true;
	if (!grow((void **)&r->barriers, &r->cap_barriers, r->nbarriers + 1, sizeof(*r->barriers), REC_MAX_BARRIERS)) {
		r->incomplete = true;
		return NO_INDEX;
	}
	advance(r);
	uint32_t bi = r->nbarriers++;
	struct rec_barrier *b = &r->barriers[bi];
	memset(b, 0, sizeof(*b));
	b->index = bi;
	b->api_index = diag_rec_api_call_count(r, in->api, bi == 0);
	snprintf(b->site, sizeof(b->site), "%s", in->site ? in->site : "");
	b->loc_key = in->loc_key;
	b->untimed = in->untimed;
	b->api = in->api;
	b->src_raw = in->src_stages;
	b->dst_raw = in->dst_stages;
	b->tick = r->tick;
	b->hash = barrier_hash(in);
	b->in_render_pass = in->in_render_pass;
	b->ts_before = in->ts_before;
	b->ts_after = in->ts_after;
	b->first = r->nentries;
	b->example_kind = PP_RES_GLOBAL;
	b->sync2 = in->sync2;
	b->by_region = in->by_region;
	b->events = in->nevents > 0;
	b->drain = (in->src_stages & (PP_STAGE_BOTTOM | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS)) &&
		   (in->dst_stages & (PP_STAGE_TOP | PP_STAGE_ALL_COMMANDS | PP_STAGE_ALL_GRAPHICS));

	/* Immediate rules: they need no knowledge of what follows. */
	bool work_since = r->last_work_tick > r->last_barrier_tick;
	if (r->have_barrier && !work_since && r->last_barrier_hash == b->hash && (in->nres || in->nevents))
		pp_diag_barriers_finding(b, PP_DIAG_DUPLICATE);
	bool r2r = in->nres > 0;
	bool acquire = in->nres > 0 && r->last_work_tick == 0;
	for (uint32_t i = 0; i < in->nres; i++) {
		const struct pp_diag_barrier_res *e = &in->res[i];
		if (!read_only(e->src_access) || (e->dst_access & PP_ACCESS_WRITES) || e->queue_transfer ||
		    (e->kind == PP_RES_IMAGE && e->old_layout != e->new_layout))
			r2r = false;
		if (e->kind != PP_RES_IMAGE ||
		    (e->old_layout != PP_LAYOUT_UNDEFINED && e->old_layout != PP_LAYOUT_PRESENT))
			acquire = false;
	}
	/* The swapchain-acquire pattern: no earlier stage in the first scope, or only images
	 * coming from UNDEFINED/PRESENT_SRC before any work of the recording. */
	if (!(pp_diag_vocab_stage_expand(in->src_stages, false) & PP_STAGE_WORK))
		acquire = true;
	b->acquire = acquire;
	if (r2r)
		pp_diag_barriers_finding(b, PP_DIAG_READ_TO_READ);
	if (bi > 0 && r->last_cmd_tick < r->barriers[bi - 1].tick && r->last_barrier_hash != b->hash)
		merge_check(r, &r->barriers[bi - 1], b, in);
	for (uint32_t i = 0; i < in->nevents; i++)
		for (uint32_t k = 0; k < r->nevents; k++)
			if (r->events[k].event == in->events[i] && r->last_work_tick < r->events[k].tick)
				pp_diag_barriers_finding(b, PP_DIAG_SET_EVENT_WAIT);
	r->have_barrier = true;
	r->last_barrier_hash = b->hash;
	r->last_barrier_tick = r->tick;

	/* Entries: each resource's previous window closes here and a new one opens. A global
	 * memory barrier (or a barrier with no barrier structs) covers everything. */
	struct rec_entry *global = NULL;
	uint32_t nres = in->nres ? in->nres : 1;
	for (uint32_t i = 0; i < nres; i++) {
		struct pp_diag_barrier_res none = {
			.kind = PP_RES_GLOBAL, .src_stages = in->src_stages, .dst_stages = in->dst_stages,
		};
		const struct pp_diag_barrier_res *e = in->nres ? &in->res[i] : &none;
		b->src_access |= e->src_access;
		b->dst_access |= e->dst_access;
		if (e->kind == PP_RES_GLOBAL) {
			if (global) {
				global->src_access |= e->src_access;
				global->dst_access |= e->dst_access;
				continue;
			}
			uint32_t prev = r->global_open;
			if (prev != NO_INDEX) {
				entry_close(r, &r->entries[prev]);
				barrier_entry_closed(r, r->entries[prev].barrier);
			}
			global = entry_new(r);
			if (!global)
				break;
			if (prev == NO_INDEX)
				r->first_global_tick = r->tick;
			global->kind = PP_RES_GLOBAL;
			global->barrier = bi;
			global->prev = prev;
			global->src_access = e->src_access;
			global->dst_access = e->dst_access;
			global->dst_stages = e->dst_stages;
			r->global_open = (uint32_t)(global - r->entries);
			b->n++;
			b->open++;
			continue;
		}
		uint32_t *slot = map_slot(r, pp_diag_ranges_barrier_res_key(e->kind, e->handle), true);
		if (!slot) {
			r->incomplete = true;
			continue;
		}
		struct pp_diag_range rg = pp_diag_ranges_norm(&e->range);
		struct rec_entry *same = NULL;
		for (uint32_t l = *slot; l && !same; l = r->entries[l - 1].next_open)
			if (r->entries[l - 1].barrier == bi)
				same = &r->entries[l - 1];
		if (same) {
			/* The same resource twice in one call (other subresources): one window, over
			 * the bounding range. */
			pp_diag_ranges_bound(&same->range, &rg);
			same->prev_uses |= slot_close(r, slot, &same->range, bi, NULL, NULL, NULL);
			same->prev_window = NO_INDEX;
			same->dst_stages |= e->dst_stages;
			same->src_access |= e->src_access;
			same->dst_access |= e->dst_access;
			continue;
		}
		/* The windows it overlaps close here; the others stay open. */
		uint32_t nwindows, closed_one;
		uint32_t prev_uses = slot_close(r, slot, &rg, NO_INDEX, NULL, &nwindows, &closed_one);
		if (nwindows >= PP_DIAG_RANGES) {
			slot_close(r, slot, NULL, NO_INDEX, UNPROVEN_RANGES, NULL, NULL);
			closed_one = NO_INDEX;
		}
		struct rec_entry *n = entry_new(r);
		if (!n)
			break;
		n->kind = e->kind;
		n->handle = e->handle;
		n->old_layout = e->old_layout;
		n->new_layout = e->new_layout;
		n->format_bucket = e->format_bucket;
		n->barrier = bi;
		n->src_access = e->src_access;
		n->dst_access = e->dst_access;
		n->queue_transfer = e->queue_transfer;
		n->range = rg;
		n->prev_uses = prev_uses;
		n->prev_window = closed_one;
		n->dst_stages = e->dst_stages;
		n->next_open = *slot;
		*slot = (uint32_t)(n - r->entries) + 1;
		if (!b->example) {
			b->example = e->handle;
			b->example_kind = e->kind;
		}
		b->n++;
		b->open++;
	}
	return bi;
}

/* Closes every open window: the recording is complete. Windows still open are kept (tails)
 * to be followed into the later command buffers of each submission. */
void pp_diag_barriers_rec_close(struct pp_diag_rec *r)
{
	if (r->closed)
		return;
	advance(r);
	uint32_t ntails = 0;
	for (uint32_t i = 0; i < r->nentries; i++)
		ntails += r->entries[i].open && r->entries[i].barrier != NO_INDEX;
	if (ntails > REC_MAX_TAILS || (ntails && !(r->tails = calloc(ntails, sizeof(*r->tails)))))
		r->tails_overflow = true; /* judged on this recording alone */
	for (uint32_t i = 0; i < r->nentries; i++) {
		struct rec_entry *e = &r->entries[i];
		if (!e->open)
			continue;
		e->tail = e->barrier != NO_INDEX;
		if (e->tail && r->tails) {
			struct rec_tail *t = &r->tails[r->ntails++];
			struct work_view v;
			view_since(r, e->opened, &v);
			*t = (struct rec_tail){
				.handle = e->handle, .range = e->range, .kind = e->kind, .new_layout = e->new_layout,
				.format_bucket = e->format_bucket, .barrier = e->barrier, .work = v.work,
				.unused_candidate = e->kind != PP_RES_GLOBAL && !e->queue_transfer && !e->met &&
						    (e->kind != PP_RES_IMAGE || e->old_layout == e->new_layout),
			};
			t->consumers = entry_consumers(r, e, &t->unproven);
			t->writes = e->write_uses;
		}
		entry_close(r, e);
		barrier_entry_closed(r, e->barrier);
	}
	for (uint32_t i = 0; i < r->nbarriers; i++)
		barrier_evaluate(r, &r->barriers[i]);
	pp_diag_rec_summary_first_uses_build(r);
	pp_diag_experiment_rec_close(r);
	r->closed = true;
}
