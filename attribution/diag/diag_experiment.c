/* The experiment (docs/diagnostics.md, "Experiment mode"): which barrier findings have a fix
 * passprobe can make mechanically and has proved from what it recorded, the experiment sites
 * they become, and which of them the fixed arm's current block rewrites.
 *
 * The proof is the rules' own verdict on every occurrence (the suggestion's destination mask,
 * the read-to-read and mergeable rules), plus what the rules do not check themselves:
 *   - no work after the barrier, to the end of its submission, writes at a stage the fix stops
 *     ordering after the barrier's first scope, unless it writes a resource passprobe knows
 *     (a storage descriptor, a render pass attachment) that has a barrier of its own before the
 *     write and that nothing used between that barrier and this one (write_exempt_from);
 *   - for a removed read-to-read barrier, the barrier before it on each resource already made
 *     the data visible to every stage and access it names, and nothing wrote the resource since;
 *   - the access masks stay valid for the narrowed stages.
 * Work of later submissions is taken to be ordered by its own barriers, as the rules take it
 * for their suggestions. A site enters the experiment once its fix was proved the same way in
 * EXP_PROOF_FRAMES frames as written; any occurrence that proves something else (a rewritten
 * one included) takes it out for good, with the reason.
 *
 * Lock order: the site table's lock, then g_exp.lock. The record-time lookup takes g_exp.lock
 * alone. */
#include "diag_internal.h"

#define EXP_PROOF_FRAMES 2u
/* Writes x barrier windows compared per recording at its close; beyond it every write counts
 * as unordered. */
#define EXP_MAX_PAIRS (8u << 20)

struct exp_fix {
	enum pp_diag_exp_kind kind;
	uint32_t dst;       /* NARROW_DST: the new destination stages */
	uint32_t merge;     /* MERGE: PP_DIAG_MERGE_* */
	uint64_t first_key; /* MERGE: the call right before it (exp_call_key) */
};

struct exp_entry {
	bool used;
	uint32_t device_id;
	uint64_t key; /* the call it rewrites: device, code location, masks (exp_call_key) */
	enum pp_diag_rule rule;
	struct exp_fix fix;
	uint32_t dst_raw;  /* the call's destination as written, for the text */
	enum pp_diag_exp_state state;
	uint64_t proof_frames, last_proof_frame; /* frames as written that proved it (frame + 1) */
	uint64_t fixed;    /* occurrences rewritten */
	char why[256];     /* OUT, WITHDRAWN */
};

static struct {
	pthread_mutex_t lock;
	struct exp_entry e[PP_EXP_MAX_SITES];
	uint32_t n;
} g_exp = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t exp_call_key(uint32_t device_id, uint64_t loc, uint32_t src, uint32_t dst)
{
	return mix64(mix64(mix64(mix64(0xe4b3, device_id + 1), loc), src), (uint64_t)dst + 1);
}

/* The stages a second scope reaches: the mask spelled out, with the logically later stages
 * (an execution dependency reaches them too; DRAW_INDIRECT comes before compute as well). */
static uint32_t scope2(uint32_t mask)
{
	static const uint32_t order[] = {
		PP_STAGE_DRAW_INDIRECT, PP_STAGE_VERTEX_INPUT, PP_STAGE_VERTEX_SHADER, PP_STAGE_TESS_CONTROL,
		PP_STAGE_TESS_EVAL, PP_STAGE_GEOMETRY, PP_STAGE_EARLY_FRAGMENT_TESTS, PP_STAGE_FRAGMENT_SHADER,
		PP_STAGE_LATE_FRAGMENT_TESTS, PP_STAGE_COLOR_OUTPUT,
	};
	uint32_t s = pp_diag_vocab_stage_expand(mask, true);
	bool on = false;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		on |= (s & order[i]) != 0;
		if (on)
			s |= order[i];
	}
	if (s & PP_STAGE_DRAW_INDIRECT)
		s |= PP_STAGE_COMPUTE;
	return s;
}

static uint32_t work_index(uint32_t bit)
{
	return (uint32_t)__builtin_ctz(bit);
}

/* Stages at which work after tick t writes resources passprobe cannot name. */
static uint32_t anonymous_writes_after(const struct pp_diag_rec *r, uint64_t t)
{
	uint32_t s = 0;
	if (r->work_tick[work_index(PP_WORK_TRANSFER)] > t)
		s |= PP_STAGE_TRANSFER;
	if (r->unnamed_attachment_tick > t)
		s |= PP_STAGE_COLOR_OUTPUT | PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	if (r->work_tick[work_index(PP_WORK_UNKNOWN_DESCRIPTORS)] > t)
		for (uint32_t i = 0; i < NSTAGES; i++)
			if (r->unknown_stage_tick[i] > t)
				s |= 1u << i;
	if (r->work_tick[work_index(PP_WORK_UNKNOWN)] > t)
		s |= PP_STAGE_WORK;
	return s;
}

static bool range_within(const struct pp_diag_range *outer, const struct pp_diag_range *inner)
{
	if (!outer->set)
		return true;
	if (!inner->set || (outer->aspects && (!inner->aspects || (inner->aspects & ~outer->aspects))))
		return false;
	return outer->begin <= inner->begin && inner->end <= outer->end && outer->layer_begin <= inner->layer_begin &&
	       inner->layer_end <= outer->layer_end;
}

/* A write of a known resource is ordered without a barrier b of an earlier tick when the
 * resource has a barrier of its own before the write (its own barrier orders its earlier
 * accesses, the application's as much as ours) and nothing touched it between that barrier and
 * b. Returns the tick b must come before (0: never): the resource's first access after its last
 * barrier before the write. */
static uint64_t write_exempt_from(const struct pp_diag_rec *r, uint32_t wi)
{
	const struct write_rec *w = &r->writes[wi];
	const struct rec_entry *by = NULL;
	for (uint32_t i = 0; i < r->nentries; i++) {
		const struct rec_entry *e = &r->entries[i];
		if (e->barrier == NO_INDEX || e->kind != w->kind || e->handle != w->handle || e->opened >= w->tick ||
		    !range_within(&e->range, &w->range))
			continue;
		if (!by || e->opened > by->opened)
			by = e;
	}
	if (!by)
		return 0;
	uint64_t t = w->tick;
	if (by->first_use && by->first_use < t)
		t = by->first_use;
	for (uint32_t k = 0; k < wi; k++) {
		const struct write_rec *o = &r->writes[k];
		if (o->kind == w->kind && o->handle == w->handle && o->tick > by->opened && o->tick < t &&
		    pp_diag_ranges_overlap(&o->range, &w->range))
			t = o->tick;
	}
	return t;
}

static bool layout_read_only(enum pp_diag_layout l)
{
	return l == PP_LAYOUT_SHADER_READ || l == PP_LAYOUT_DEPTH_READ_ONLY || l == PP_LAYOUT_TRANSFER_SRC;
}

/* Whether removing barrier b (reads after reads) is proven, resource by resource: NULL, or why not. */
static const char *drop_proof(const struct pp_diag_rec *r, const struct rec_barrier *b)
{
	if (!b->n)
		return "it covers no resource";
	for (uint32_t i = b->first; i < b->first + b->n; i++) {
		const struct rec_entry *e = &r->entries[i];
		if (e->kind == PP_RES_GLOBAL)
			return "a global memory barrier in it orders every resource";
		if (e->write_uses)
			return "work after it writes what it covers";
		if (e->prev_window == NO_INDEX)
			return "the barrier that made what it covers visible is not in its command buffer";
		const struct rec_entry *p = &r->entries[e->prev_window];
		if (p->write_uses)
			return "what it covers was written since the barrier before it";
		if (scope2(e->dst_stages) & ~scope2(p->dst_stages) & PP_STAGE_WORK)
			return "it makes stages wait that the barrier before it on the same resource does not";
		if (e->dst_access & ~p->dst_access)
			return "it makes accesses visible that the barrier before it on the same resource does not";
		if (e->kind == PP_RES_IMAGE && !layout_read_only(e->new_layout))
			return "the image's layout lets work passprobe cannot see into write it";
		if (e->kind == PP_RES_BUFFER &&
		    (anonymous_writes_after(r, p->opened) & ~(uint32_t)(PP_STAGE_COLOR_OUTPUT | PP_STAGE_EARLY_FRAGMENT_TESTS |
								       PP_STAGE_LATE_FRAGMENT_TESTS)))
			return "copies or descriptors passprobe cannot see into may write the buffer";
	}
	return NULL;
}

void pp_diag_experiment_rec_close(struct pp_diag_rec *r)
{
	if (!r->exp)
		return;
	uint64_t *from = r->nwrites ? calloc(r->nwrites, sizeof(*from)) : NULL;
	bool all = r->writes_overflow || (r->nwrites && !from) || (uint64_t)r->nwrites * r->nentries > EXP_MAX_PAIRS;
	for (uint32_t k = 0; !all && k < r->nwrites; k++)
		from[k] = write_exempt_from(r, k);
	for (uint32_t i = 0; i < r->nbarriers; i++) {
		struct rec_barrier *b = &r->barriers[i];
		uint32_t ex = anonymous_writes_after(r, b->tick);
		if (all)
			ex |= r->exp_write_stages;
		for (uint32_t k = 0; !all && k < r->nwrites; k++)
			if (r->writes[k].tick > b->tick && b->tick >= from[k])
				ex |= r->writes[k].stages;
		b->exp_exposed = ex;
		if (b->fired & (1u << PP_DIAG_READ_TO_READ))
			b->exp_drop_why = drop_proof(r, b);
		for (uint32_t k = b->first; k < b->first + b->n; k++) {
			const struct rec_entry *e = &r->entries[k];
			bool have = false;
			for (uint32_t j = 0; j < b->nexp_pairs && !have; j++)
				have = b->exp_pairs[j].access == e->dst_access && b->exp_pairs[j].stages == e->dst_stages;
			if (have)
				continue;
			if (b->nexp_pairs == EXP_PAIRS) {
				b->exp_pairs_overflow = true;
				break;
			}
			b->exp_pairs[b->nexp_pairs].access = e->dst_access;
			b->exp_pairs[b->nexp_pairs++].stages = e->dst_stages;
		}
	}
	free(from);
}

/* What a command buffer after the barrier's in the same submission may write (all it writes). */
uint32_t pp_diag_experiment_stages_later(const struct pp_diag_rec *q)
{
	if (!q || q->incomplete || q->writes_overflow)
		return PP_STAGE_WORK;
	return q->exp_write_stages;
}

/* ---- what a recording writes ------------------------------------------------------------------ */

/* Writes of resources passprobe does not know, by the work that makes them. */
void pp_diag_experiment_rec_work(struct pp_diag_rec *r, uint32_t work, uint32_t unknown_stages)
{
	if ((work & (PP_WORK_COLOR_ATTACHMENT | PP_WORK_DEPTH_ATTACHMENT)) &&
	    (r->attachments_unnamed || !r->attachments_named)) {
		r->unnamed_attachment_tick = r->tick;
		r->exp_write_stages |= PP_STAGE_COLOR_OUTPUT | PP_STAGE_EARLY_FRAGMENT_TESTS | PP_STAGE_LATE_FRAGMENT_TESTS;
	}
	r->attachments_named = r->attachments_unnamed = false;
	if (work & PP_WORK_TRANSFER)
		r->exp_write_stages |= PP_STAGE_TRANSFER;
	if (work & PP_WORK_UNKNOWN_DESCRIPTORS)
		r->exp_write_stages |= unknown_stages;
	if (work & PP_WORK_UNKNOWN)
		r->exp_write_stages |= PP_STAGE_WORK;
}

/* A write of a known resource (struct write_rec); past REC_MAX_WRITES every write counts as
 * unordered (writes_overflow). */
void pp_diag_experiment_write_note(struct pp_diag_rec *r, enum pp_diag_res_kind kind, uint64_t handle,
			 const struct pp_diag_range *rg, uint32_t stages)
{
	r->exp_write_stages |= stages;
	if (r->nwrites == r->cap_writes) {
		uint32_t cap = r->cap_writes ? 2 * r->cap_writes : 16;
		if (cap > REC_MAX_WRITES)
			cap = REC_MAX_WRITES;
		struct write_rec *w = cap > r->cap_writes ? realloc(r->writes, cap * sizeof(*w)) : NULL;
		if (!w) {
			r->writes_overflow = true;
			return;
		}
		r->writes = w;
		r->cap_writes = cap;
	}
	r->writes[r->nwrites++] = (struct write_rec){ handle, kind, *rg, stages, r->tick };
}

/* ---- occurrences ------------------------------------------------------------------------------ */

static const char *exposed_why(char *buf, size_t len, uint32_t stages)
{
	char names[160];
	pp_diag_vocab_stage_names(stages, names, sizeof(names));
	snprintf(buf, len,
		 "work after it writes, at %s, what passprobe cannot show a barrier of its own orders (copies, "
		 "attachments or descriptors it cannot see into, or a resource used since its own barrier)",
		 names);
	return buf;
}

/* The fix one occurrence proves (NULL), or why it proves none. */
static const char *occurrence_fix(const struct pp_diag_device *d, const struct pp_diag_rec *r,
				  const struct rec_barrier *b, enum pp_diag_rule rule, struct exp_fix *fix, char *buf,
				  size_t len)
{
	*fix = (struct exp_fix){ 0 };
	switch (rule) {
	case PP_DIAG_FULL_DRAIN:
	case PP_DIAG_DST_TOO_EARLY:
	case PP_DIAG_READ_TO_READ:
	case PP_DIAG_MERGEABLE:
		break;
	case PP_DIAG_SRC_TOO_LATE:
		return "narrowing srcStageMask would stop the barrier waiting for work of earlier submissions (its "
		       "first scope reaches all of them), which passprobe does not follow";
	default:
		return "not a fix the experiment makes (it narrows dstStageMask to the proven consumers, removes "
		       "barriers that order reads after reads and merges adjacent calls)";
	}
	if (r->owner) {
		snprintf(buf, len, "work %s recorded for itself, a layer above passprobe: not the application's to fix",
			 r->owner);
		return buf;
	}
	if (!b->loc_key)
		return "no code location: its recordings cannot be told apart from other barriers of the command buffer";
	if (b->in_render_pass)
		return "inside a render pass";
	if (b->events)
		return "a vkCmdWaitEvents: not rewritten";
	if (r->incomplete || r->tails_overflow)
		return "its command buffer was too large to follow";
	if (r->resubmitted)
		return "its command buffer was recorded once and submitted again: a recording's frames cannot "
		       "alternate between the arms";
	if (rule == PP_DIAG_MERGEABLE) {
		if (!b->merge_loc)
			return "the call before it has no code location";
		fix->kind = PP_DIAG_EXP_MERGE;
		fix->merge = b->merge == MERGE_SYNC1_EXACT ? PP_DIAG_MERGE_SYNC1 : PP_DIAG_MERGE_SYNC2;
		fix->first_key = exp_call_key(d->cfg.sink_device_id, b->merge_loc, b->merge_src, b->merge_dst);
		return NULL;
	}
	if (rule == PP_DIAG_READ_TO_READ) {
		if (b->exp_drop_why) {
			snprintf(buf, len, "removing it is not proven: %s", b->exp_drop_why);
			return buf;
		}
		uint32_t lost = b->sub_exposed & scope2(b->dst_raw) & PP_STAGE_WORK;
		if (lost)
			return exposed_why(buf, len, lost);
		fix->kind = PP_DIAG_EXP_DROP;
		return NULL;
	}
	uint32_t dst = b->sub_dst_suggested;
	if (!dst) {
		snprintf(buf, len, "the narrowest dstStageMask is not proven (%s)",
			 b->sub_unproven ? b->sub_unproven : "no consumer seen");
		return buf;
	}
	if (dst & PP_STAGE_OTHER)
		return "its consumers include stages passprobe does not model";
	uint32_t removed = scope2(b->dst_raw) & ~scope2(dst) & PP_STAGE_WORK;
	if (!removed)
		return "no stage to take out of dstStageMask";
	if (b->exp_pairs_overflow)
		return "its barriers have more distinct destination masks than passprobe checks (4)";
	for (uint32_t i = 0; i < b->nexp_pairs; i++) {
		uint32_t mine = pp_diag_vocab_stage_expand(b->exp_pairs[i].stages, true) & dst;
		if (!mine)
			mine = pp_diag_vocab_stage_expand(b->exp_pairs[i].stages, true);
		uint32_t need = b->exp_pairs[i].access & ~(uint32_t)(PP_ACCESS_MEMORY_READ | PP_ACCESS_MEMORY_WRITE);
		for (uint32_t a = need; a; a &= a - 1) {
			uint32_t bit = a & -a;
			if (!(pp_diag_vocab_access_stages(bit) & mine)) {
				char an[64];
				pp_diag_vocab_access_names(bit, an, sizeof(an));
				snprintf(buf, len, "dstAccessMask %s needs a stage the narrowed mask lacks", an);
				return buf;
			}
		}
	}
	uint32_t lost = b->sub_exposed & removed;
	if (lost)
		return exposed_why(buf, len, lost);
	fix->kind = PP_DIAG_EXP_NARROW_DST;
	fix->dst = dst;
	return NULL;
}

static bool fix_same(const struct exp_fix *a, const struct exp_fix *b)
{
	return a->kind == b->kind && a->dst == b->dst && a->merge == b->merge && a->first_key == b->first_key;
}

/* Caller holds g_exp.lock. */
static void entry_out_locked(struct exp_entry *e, const char *why)
{
	if (e->state == PP_DIAG_EXP_STATE_OUT || e->state == PP_DIAG_EXP_STATE_WITHDRAWN)
		return;
	e->state = e->fixed ? PP_DIAG_EXP_STATE_WITHDRAWN : PP_DIAG_EXP_STATE_OUT;
	snprintf(e->why, sizeof(e->why), "%s", why);
	if (e->fixed)
		pp_log(PP_LOG_WARN, "experiment: %s withdrawn after %llu rewritten occurrences: %s", pp_diag_vocab_rule_id(e->rule),
		       (unsigned long long)e->fixed, why);
}

void pp_diag_experiment_occurrence(struct pp_diag_device *d, const struct pp_diag_rec *r, const struct rec_barrier *b,
			 enum pp_diag_rule rule, struct site *s, uint64_t frame)
{
	if (!d->cfg.experiment || rule == PP_DIAG_SUBPASS_NOT_BY_REGION || !pp_diag_vocab_rule_is_barrier(rule))
		return;
	struct exp_fix fix;
	char buf[256];
	const char *why = occurrence_fix(d, r, b, rule, &fix, buf, sizeof(buf));
	pthread_mutex_lock(&g_exp.lock);
	if (!s->exp_counted) {
		s->exp_counted = true;
		s->exp_entry = NO_INDEX;
	}
	if (s->exp_entry == NO_INDEX) {
		if (s->exp_why[0])
			goto out; /* out for good */
		uint64_t key = exp_call_key(d->cfg.sink_device_id, b->loc_key, b->src_raw, b->dst_raw);
		for (uint32_t i = 0; !why && i < g_exp.n; i++)
			if (g_exp.e[i].used && g_exp.e[i].key == key) {
				snprintf(buf, sizeof(buf), "its call is in the experiment as %s", pp_diag_vocab_rule_id(g_exp.e[i].rule));
				why = buf;
			}
		if (!why && g_exp.n == PP_EXP_MAX_SITES)
			why = "more experiment sites than passprobe follows (64)";
		if (why) {
			snprintf(s->exp_why, sizeof(s->exp_why), "%s", why);
			goto out;
		}
		struct exp_entry *e = &g_exp.e[g_exp.n];
		*e = (struct exp_entry){ .used = true, .device_id = d->cfg.sink_device_id, .key = key, .rule = rule,
					 .fix = fix, .dst_raw = b->dst_raw, .state = PP_DIAG_EXP_STATE_CANDIDATE };
		s->exp_entry = g_exp.n++;
	}
	struct exp_entry *e = &g_exp.e[s->exp_entry];
	if (!why && !fix_same(&fix, &e->fix))
		why = "its occurrences prove different fixes";
	if (why) {
		if (b->exp_fixed) {
			snprintf(buf, sizeof(buf), "a recording it rewrote did not prove the fix again: %s", why);
			why = buf;
		}
		entry_out_locked(e, why);
		goto out;
	}
	if (b->exp_fixed)
		e->fixed++;
	else if (e->last_proof_frame != frame + 1) {
		e->proof_frames++;
		e->last_proof_frame = frame + 1;
	}
	if (e->state == PP_DIAG_EXP_STATE_CANDIDATE && e->proof_frames >= EXP_PROOF_FRAMES)
		e->state = PP_DIAG_EXP_STATE_IN;
out:
	pthread_mutex_unlock(&g_exp.lock);
}

void pp_diag_experiment_site_out(const struct pp_diag_device *d, struct site *s, const char *why)
{
	if (!d->cfg.experiment)
		return;
	pthread_mutex_lock(&g_exp.lock);
	if (!s->exp_counted) {
		s->exp_counted = true;
		s->exp_entry = NO_INDEX;
		snprintf(s->exp_why, sizeof(s->exp_why), "%s", why);
	}
	pthread_mutex_unlock(&g_exp.lock);
}

void pp_diag_experiment_fixed_unproven(struct pp_diag_device *d, const struct rec_barrier *b)
{
	uint64_t key = exp_call_key(d->cfg.sink_device_id, b->loc_key, b->src_raw, b->dst_raw);
	pthread_mutex_lock(&g_exp.lock);
	for (uint32_t i = 0; i < g_exp.n; i++)
		if (g_exp.e[i].used && g_exp.e[i].key == key && !(b->sub_fired & (1u << g_exp.e[i].rule)))
			entry_out_locked(&g_exp.e[i], "a recording it rewrote no longer had the finding");
	pthread_mutex_unlock(&g_exp.lock);
}

/* ---- the record-time side --------------------------------------------------------------------- */

/* The next site in the experiment after the current one, in turn. Caller holds g_exp.lock. */
static uint32_t next_active_locked(const struct pp_diag_device *d)
{
	uint32_t start = d->exp_active == PP_DIAG_EXP_NONE ? 0 : d->exp_active + 1;
	for (uint32_t k = 0; k < g_exp.n; k++) {
		uint32_t i = (start + k) % g_exp.n;
		if (g_exp.e[i].device_id == d->cfg.sink_device_id && g_exp.e[i].state == PP_DIAG_EXP_STATE_IN)
			return i;
	}
	return PP_DIAG_EXP_NONE;
}

void pp_diag_experiment_call(struct pp_diag_device *d, uint32_t arm, uint64_t loc_key, uint32_t src_stages,
		      uint32_t dst_stages, struct pp_diag_exp_call *out)
{
	*out = (struct pp_diag_exp_call){ .site = PP_DIAG_EXP_NONE, .hold_site = PP_DIAG_EXP_NONE };
	if (!d || !d->cfg.experiment || !loc_key || arm == PP_EXP_ARM_NONE)
		return;
	uint64_t key = exp_call_key(d->cfg.sink_device_id, loc_key, src_stages, dst_stages);
	pthread_mutex_lock(&g_exp.lock);
	/* A fixed-arm block begins with the first recording of it that comes here. */
	if (arm == PP_EXP_ARM_FIXED && d->exp_last_arm != PP_EXP_ARM_FIXED)
		d->exp_active = next_active_locked(d);
	d->exp_last_arm = arm;
	for (uint32_t i = 0; i < g_exp.n; i++) {
		const struct exp_entry *e = &g_exp.e[i];
		if (e->device_id != d->cfg.sink_device_id)
			continue;
		bool live = e->state == PP_DIAG_EXP_STATE_CANDIDATE || e->state == PP_DIAG_EXP_STATE_IN;
		bool active = arm == PP_EXP_ARM_FIXED && e->state == PP_DIAG_EXP_STATE_IN && i == d->exp_active;
		if (e->key == key && live) {
			out->site = i;
			out->kind = e->fix.kind;
			out->dst_stages = e->fix.dst;
			out->merge = e->fix.merge;
			out->apply = active;
		}
		if (e->fix.kind == PP_DIAG_EXP_MERGE && e->fix.first_key == key && active)
			out->hold_site = i;
	}
	pthread_mutex_unlock(&g_exp.lock);
}

void pp_diag_experiment_refuse(struct pp_diag_device *d, uint32_t site, const char *why)
{
	(void)d;
	pthread_mutex_lock(&g_exp.lock);
	if (site < g_exp.n)
		entry_out_locked(&g_exp.e[site], why);
	pthread_mutex_unlock(&g_exp.lock);
}

bool pp_diag_experiment_rec_barrier_reads_only(const struct pp_diag_rec *r, uint32_t bi)
{
	return r && bi < r->nbarriers && !r->closed && (r->barriers[bi].fired & (1u << PP_DIAG_READ_TO_READ));
}

uint32_t pp_diag_experiment_rec_barrier_merge(const struct pp_diag_rec *r, uint32_t bi)
{
	if (!r || bi >= r->nbarriers || r->closed || !(r->barriers[bi].fired & (1u << PP_DIAG_MERGEABLE)))
		return 0;
	return r->barriers[bi].merge == MERGE_SYNC1_EXACT ? PP_DIAG_MERGE_SYNC1 : PP_DIAG_MERGE_SYNC2;
}

void pp_diag_experiment_rec_barrier_fixed(struct pp_diag_rec *r, uint32_t bi)
{
	if (r && bi < r->nbarriers && !r->closed)
		r->barriers[bi].exp_fixed = true;
}

/* ---- the snapshot ------------------------------------------------------------------------------- */

void pp_diag_experiment_snapshot_locked(const struct site *s, struct pp_diagnostic *out)
{
	out->exp_site = -1;
	if (!s->exp_counted)
		return;
	pthread_mutex_lock(&g_exp.lock);
	if (s->exp_entry == NO_INDEX) {
		out->exp_state = PP_DIAG_EXP_STATE_OUT;
		snprintf(out->exp_why, sizeof(out->exp_why), "%s", s->exp_why);
	} else {
		const struct exp_entry *e = &g_exp.e[s->exp_entry];
		out->exp_state = (uint8_t)e->state;
		out->exp_site = (int32_t)s->exp_entry;
		out->exp_fixed = e->fixed;
		snprintf(out->exp_why, sizeof(out->exp_why), "%s", e->why);
		char from[160], to[160];
		switch (e->fix.kind) {
		case PP_DIAG_EXP_NARROW_DST:
			pp_diag_vocab_stage_names(e->dst_raw, from, sizeof(from));
			pp_diag_vocab_stage_names(e->fix.dst, to, sizeof(to));
			snprintf(out->exp_detail, sizeof(out->exp_detail), "dstStageMask %s -> %s", from, to);
			break;
		case PP_DIAG_EXP_DROP:
			snprintf(out->exp_detail, sizeof(out->exp_detail), "removed");
			break;
		case PP_DIAG_EXP_MERGE:
			snprintf(out->exp_detail, sizeof(out->exp_detail), "%s",
				 e->fix.merge == PP_DIAG_MERGE_SYNC1
					 ? "merged with the call before it into one vkCmdPipelineBarrier (the unions of "
					   "the masks)"
					 : "merged with the call before it into one vkCmdPipelineBarrier2 (each barrier "
					   "keeping its stages)");
			break;
		default:
			break;
		}
	}
	pthread_mutex_unlock(&g_exp.lock);
}

void pp_diag_experiment_clear(void)
{
	pthread_mutex_lock(&g_exp.lock);
	memset(g_exp.e, 0, sizeof(g_exp.e));
	g_exp.n = 0;
	pthread_mutex_unlock(&g_exp.lock);
}
