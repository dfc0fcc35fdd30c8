/* Barrier findings to sites: message texts, site keys, chains of barriers across a
 * submission's recordings, counting per frame. */
#include "diag_internal.h"

/* ---- barrier findings -> sites ------------------------------------------------------------ */

static void describe_resource(char *buf, size_t len, enum pp_diag_res_kind kind, uint64_t handle)
{
	if (kind == PP_RES_GLOBAL || !handle)
		snprintf(buf, len, "memory");
	else
		snprintf(buf, len, "%s 0x%llx", kind == PP_RES_IMAGE ? "image" : "buffer", (unsigned long long)handle);
}

static void barrier_texts(const struct rec_barrier *b, enum pp_diag_rule rule, struct pp_diagnostic *out,
			  const char *chain_site)
{
	char src[160], dst[160], sp[160], sc[160], res[64], sa[160], da[160], part[160];
	pp_diag_vocab_stage_names(b->src_raw, src, sizeof(src));
	pp_diag_vocab_stage_names(b->dst_raw, dst, sizeof(dst));
	pp_diag_vocab_stage_names(b->producers, sp, sizeof(sp));
	pp_diag_vocab_stage_names(b->dst_suggested, sc, sizeof(sc));
	pp_diag_vocab_access_names(b->src_access, sa, sizeof(sa));
	pp_diag_vocab_access_names(b->dst_access, da, sizeof(da));
	describe_resource(res, sizeof(res), b->example_kind, b->example);
	char src_sug[256], dst_sug[256];
	pp_diag_vocab_stage_names(b->producers_partial, part, sizeof(part));
	if (b->producers)
		snprintf(src_sug, sizeof(src_sug), "srcStageMask = %s", sp);
	else if (b->producers_partial)
		snprintf(src_sug, sizeof(src_sug),
			 "srcStageMask = %s plus the stages that last used it before (the narrowest mask cannot be "
			 "proven: %s)", part, b->producers_unproven);
	else
		snprintf(src_sug, sizeof(src_sug), "srcStageMask: the narrowest mask cannot be proven (%s)",
			 b->producers_unproven ? b->producers_unproven : "no producer seen");
	if (b->dst_suggested)
		snprintf(dst_sug, sizeof(dst_sug), "dstStageMask = %s", sc);
	else
		snprintf(dst_sug, sizeof(dst_sug), "dstStageMask: the narrowest mask cannot be proven (%s)",
			 b->consumers_unproven ? b->consumers_unproven : "no consumer seen");

	switch (rule) {
	case PP_DIAG_FULL_DRAIN:
		snprintf(out->message, sizeof(out->message),
			 "%s with srcStageMask %s -> dstStageMask %s is a full pipeline drain: every later command waits "
			 "until every earlier command has finished, so no work on either side overlaps (on tile-based "
			 "GPUs both hardware queues run dry).",
			 b->api, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s; %s.", src_sug, dst_sug);
		break;
	case PP_DIAG_DST_TOO_EARLY:
		snprintf(out->message, sizeof(out->message),
			 "%s with dstStageMask %s blocks stages earlier than the first real consumer of %s (%s): later "
			 "work in those stages waits for nothing (on tile-based GPUs the next pass's vertex work waits for "
			 "this pass's fragment work).",
			 b->api, dst, res, sc);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s (keep dstAccessMask %s).", dst_sug, da);
		break;
	case PP_DIAG_SRC_TOO_LATE:
		snprintf(out->message, sizeof(out->message),
			 "%s with srcStageMask %s waits for every earlier stage, but the only producers of %s are %s.",
			 b->api, src, res, sp);
		snprintf(out->suggestion, sizeof(out->suggestion), "%s (keep srcAccessMask %s).", src_sug, sa);
		break;
	case PP_DIAG_READ_TO_READ:
		snprintf(out->message, sizeof(out->message),
			 "%s orders reads after reads (srcAccessMask %s, dstAccessMask %s) with no layout change: reads "
			 "need no ordering between them, so this barrier only stalls (%s -> %s).",
			 b->api, sa, da, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Remove it; order the reads after the last write with one barrier instead.");
		break;
	case PP_DIAG_DUPLICATE:
		snprintf(out->message, sizeof(out->message),
			 "%s is identical to the barrier right before it and no command was recorded in between: it "
			 "has nothing left to order (%s -> %s).",
			 b->api, src, dst);
		snprintf(out->suggestion, sizeof(out->suggestion), "Remove the second barrier.");
		break;
	case PP_DIAG_CHAIN:
		snprintf(out->message, sizeof(out->message),
			 "%s makes vertex-side work (%s) wait for %s, which compute wrote after waiting for fragment work "
			 "(%s): a fragment -> compute -> vertex chain serializes the fragment and non-fragment hardware "
			 "queues of tile-based GPUs across frames.",
			 b->api, sc[0] ? sc : dst, res, chain_site ? chain_site : "an earlier barrier");
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Consume the compute result in a FRAGMENT_SHADER, use the result of the frame before, or run "
			 "the compute work so it does not depend on this frame's fragment output (async compute queue).");
		break;
	case PP_DIAG_SET_EVENT_WAIT:
		snprintf(out->message, sizeof(out->message),
			 "%s waits on an event set right before it with no command in between: a split barrier with "
			 "nothing to overlap costs more than a pipeline barrier.",
			 b->api);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Record independent work between vkCmdSetEvent and the wait, or use vkCmdPipelineBarrier.");
		break;
	case PP_DIAG_UNUSED:
		snprintf(out->message, sizeof(out->message),
			 "%s covers %s, which nothing after it uses: no later command of this command buffer or of the "
			 "later command buffers of this submission reads or writes it, and no work passprobe cannot see "
			 "into could (%s -> %s, dstAccessMask %s). It makes later work wait for nothing here.",
			 b->api, res, src, dst, da);
		snprintf(out->suggestion, sizeof(out->suggestion),
			 "Remove the barrier%s%s; if a later submission uses it, record the barrier there, right before "
			 "that use (a pipeline barrier's first scope reaches every earlier submission of the queue).",
			 b->sub_unused_all ? "" : " of ", b->sub_unused_all ? "" : res);
		break;
	case PP_DIAG_MERGEABLE: {
		char ps[160], pd[160], us[160], ud[160];
		pp_diag_vocab_stage_names(b->merge_src, ps, sizeof(ps));
		pp_diag_vocab_stage_names(b->merge_dst, pd, sizeof(pd));
		pp_diag_vocab_stage_names(b->merge_src | b->src_raw, us, sizeof(us));
		pp_diag_vocab_stage_names(b->merge_dst | b->dst_raw, ud, sizeof(ud));
		snprintf(out->message, sizeof(out->message),
			 "%s comes right after %s with no command in between (%s -> %s, then %s -> %s): each call is a "
			 "synchronization point of its own for the driver (a wait and cache maintenance each) where one "
			 "call would do.",
			 b->api, b->merge_api ? b->merge_api : "another barrier", ps, pd, src, dst);
		if (b->merge == MERGE_SYNC1_EXACT)
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier with srcStageMask = %s, dstStageMask = %s and "
				 "the barriers of both: it orders exactly what the two calls order.",
				 us, ud);
		else if (b->merge == MERGE_AS_SYNC2)
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier2 in which each barrier keeps its own stages (one "
				 "vkCmdPipelineBarrier would need srcStageMask = %s -> dstStageMask = %s, a wider dependency "
				 "than the two calls).",
				 us, ud);
		else
			snprintf(out->suggestion, sizeof(out->suggestion),
				 "Merge them into one vkCmdPipelineBarrier2 with the barriers of both, each keeping its own "
				 "stages: the same dependencies, one synchronization point.");
		break;
	}
	default:
		break;
	}
}

/* What the finding's fix would gain (docs/diagnostics.md, "Severity"): the dependencies the
 * narrower form keeps, judged by the phases of a tile-based GPU; a removed barrier also takes
 * its cache flush with it. */
static void barrier_severity(const struct rec_barrier *b, enum pp_diag_rule rule, struct pp_diagnostic *out)
{
	char why[sizeof(out->verdict)];
	enum pp_diag_severity sev;
	switch (rule) {
	case PP_DIAG_FULL_DRAIN:
		if (!b->producers && !b->dst_suggested) {
			pp_diag_severity_set(out, PP_DIAG_WARNING,
					  "worth fixing: the narrowest masks cannot be proven here, and a full drain makes "
					  "every later stage wait for every earlier one (both queues of a tile-based GPU run "
					  "dry)");
			return;
		}
		sev = pp_diag_severity_barrier_gain(b->src_raw, b->dst_raw, b->producers ? b->producers : b->src_raw,
					   b->dst_suggested ? b->dst_suggested : b->dst_raw, why, sizeof(why));
		break;
	case PP_DIAG_DST_TOO_EARLY:
		sev = pp_diag_severity_barrier_gain(b->src_raw, b->dst_raw, b->src_raw, b->dst_suggested, why, sizeof(why));
		break;
	case PP_DIAG_SRC_TOO_LATE:
		sev = pp_diag_severity_barrier_gain(b->src_raw, b->dst_raw, b->producers, b->dst_raw, why, sizeof(why));
		break;
	case PP_DIAG_READ_TO_READ:
		sev = pp_diag_severity_barrier_gain(b->src_raw, b->dst_raw, 0, 0, why, sizeof(why));
		break;
	case PP_DIAG_UNUSED:
		sev = pp_diag_severity_barrier_gain(b->src_raw, b->dst_raw, 0, 0, why, sizeof(why));
		if (sev == PP_DIAG_INFO && (b->src_access & PP_ACCESS_WRITES)) {
			char sa[160];
			pp_diag_vocab_access_names(b->src_access & PP_ACCESS_WRITES, sa, sizeof(sa));
			snprintf(why, sizeof(why),
				 "worth fixing: removing it also spares the cache flush that makes the %s before it "
				 "visible to work nothing records after it",
				 sa);
			sev = PP_DIAG_WARNING;
		}
		break;
	default:
		pp_diag_severity_of_rule(out, rule);
		return;
	}
	pp_diag_severity_set(out, sev, why);
}

/* What the user fixes: the code location (and label) that recorded the barrier, with its
 * masks; every command buffer and loop iteration recorded there is the same site. Without a
 * code location: the command buffer and the call index. */
static uint64_t barrier_site_key(const struct pp_diag_device *d, enum pp_diag_rule rule, uint64_t cb,
				 const struct rec_barrier *b)
{
	uint64_t k = mix64(d->cfg.sink_device_id + 1, rule + 1);
	if (b->loc_key)
		return mix64(mix64(mix64(k, b->loc_key), b->src_raw), (uint64_t)b->dst_raw + 1);
	return mix64(mix64(k, cb), b->index + 1);
}

/* A taint is one resource's (its handle and kind, as a compute write names it); the oldest frame
 * goes first when the table is full. */
static bool taint_is(const void *elem, const void *key)
{
	const struct taint *t = elem;
	const struct compute_write *cw = key;
	return t->handle == cw->handle && t->kind == cw->kind;
}

static uint64_t taint_age(const void *elem)
{
	return ((const struct taint *)elem)->frame;
}

/* Distinct command buffers a site was counted in, told apart up to PP_DIAGNOSTIC_MAX_CBS. */
static void site_note_cb_locked(struct site *s, uint64_t cb)
{
	for (uint32_t i = 0; i < s->ncbs; i++)
		if (s->cbs[i] == cb)
			return;
	if (s->ncbs < PP_DIAGNOSTIC_MAX_CBS)
		s->cbs[s->ncbs++] = cb;
	s->d.command_buffers = s->ncbs;
}

/* fragment -> compute -> vertex: walks the recording's barriers and compute writes in order.
 * Caller holds d->lock. */
void pp_diag_findings_chain_evaluate(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t frame)
{
	uint32_t w = 0;
	const char *frag_site = NULL;
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		struct rec_barrier *b = &r->barriers[bi];
		/* Tainted resources whose geometry-side consumers this barrier makes wait. */
		uint32_t dst = pp_diag_vocab_stage_expand(b->dst_raw, true);
		for (uint32_t i = b->first; i < b->first + b->n && (dst & PP_STAGE_GEOMETRY_SIDE); i++) {
			const struct rec_entry *e = &r->entries[i];
			if (!(e->consumers & PP_STAGE_GEOMETRY_SIDE) ||
			    !(pp_diag_vocab_stage_expand(b->src_raw, false) & PP_STAGE_COMPUTE))
				continue;
			for (uint32_t t = 0; t < d->ntaints; t++) {
				struct taint *tn = &d->taints[t];
				if ((e->kind == PP_RES_GLOBAL && tn->frame + TAINT_FRAMES >= frame) ||
				    (tn->handle == e->handle && tn->kind == e->kind)) {
					if (!(b->fired & (1u << PP_DIAG_CHAIN))) {
						pp_diag_barriers_finding(b, PP_DIAG_CHAIN);
						b->example = tn->handle;
						b->example_kind = tn->kind;
						b->dst_suggested = e->consumers & PP_STAGE_GEOMETRY_SIDE;
					}
					break;
				}
			}
		}
		/* Every compute dispatch after a fragment -> compute dependency waits for that
		 * fragment work (the barrier's second scope covers all later compute work), so
		 * what those dispatches write is tainted. */
		if ((b->producers & PP_STAGE_FRAGMENT_SIDE) && (b->consumers & PP_STAGE_COMPUTE) &&
		    (pp_diag_vocab_stage_expand(b->dst_raw, true) & PP_STAGE_COMPUTE) && !frag_site)
			frag_site = b->site;
		uint64_t until = bi + 1 < r->nbarriers ? r->barriers[bi + 1].tick : UINT64_MAX;
		for (; w < r->ncwrites && r->cwrites[w].tick < until; w++) {
			if (!frag_site || r->cwrites[w].tick < b->tick)
				continue;
			const struct compute_write *cw = &r->cwrites[w];
			struct taint *slot = diag_slot(d->taints, &d->ntaints, DEV_MAX_TAINT, sizeof(*slot), cw, taint_is,
						       taint_age);
			slot->handle = cw->handle;
			slot->kind = cw->kind;
			slot->frame = frame;
			snprintf(slot->site, sizeof(slot->site), "%s", frag_site);
		}
	}
	/* Forget taints older than the chain can reach. */
	for (uint32_t t = 0; t < d->ntaints;)
		if (d->taints[t].frame + TAINT_FRAMES < frame)
			d->taints[t] = d->taints[--d->ntaints];
		else
			t++;
}

static const char *chain_site_of(const struct pp_diag_device *d, const struct rec_barrier *b)
{
	for (uint32_t t = 0; t < d->ntaints; t++)
		if (d->taints[t].handle == b->example && d->taints[t].kind == b->example_kind)
			return d->taints[t].site;
	return NULL;
}

uint32_t pp_diag_findings_rec_cost_probes(struct pp_diag_device *d, const struct pp_diag_rec *r, uint64_t cb,
				 struct pp_diag_cost_probe *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		const struct rec_barrier *b = &r->barriers[bi];
		if (!b->sub_fired || b->ts_before == PP_DIAG_NO_SLOT || b->ts_after == PP_DIAG_NO_SLOT)
			continue;
		for (uint32_t rule = 0; rule < PP_DIAG_RULE_COUNT && n < max; rule++)
			if (b->sub_fired & (1u << rule))
				out[n++] = (struct pp_diag_cost_probe){ barrier_site_key(d, rule, cb, b), b->ts_before,
									b->ts_after };
	}
	return n;
}

uint32_t pp_diag_findings_rec_fired(const struct pp_diag_rec *r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; r->closed && i < r->nbarriers && n < max; i++)
		if (r->barriers[i].fired | r->barriers[i].sub_fired)
			out[n++] = r->barriers[i].index;
	return n;
}

/* Follows a window open at the end of recs[i] into recs[i+1..n-1], adding what it finds there
 * to *consumers / *unproven / *work (PP_WORK_*). Returns whether it stays open to the end of
 * the submission (no later barrier on its resource). */
static bool tail_follow(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i, const struct rec_tail *t,
			uint32_t *consumers, uint32_t *writes, const char **unproven, uint32_t *work)
{
	for (uint32_t j = i + 1; j < n; j++) {
		const struct pp_diag_rec *q = recs[j];
		const char *why = !q ? "a later command buffer of the submission is not followed (it may use anything)"
			: q->incomplete ? "a later command buffer of the submission was too large to follow"
			: NULL;
		uint64_t until = UINT64_MAX;
		uint32_t uses = 0;
		if (!why && t->kind == PP_RES_GLOBAL) {
			until = q->first_global_tick;
		} else if (!why) {
			const struct rec_first_use *f = pp_diag_rec_summary_barrier_first_use_slot(q, pp_diag_ranges_barrier_res_key(t->kind, t->handle));
			if (f && f->key && f->overflow) {
				why = "a later command buffer of the submission barriers more ranges of it than passprobe follows";
			} else if (f && f->key) {
				/* Its first barrier on an overlapping range closes the window; the uses of
				 * overlapping ranges before it are consumers. */
				const struct rec_range_rec *rr = &q->first_recs[f->first];
				for (uint32_t k = 0; k < f->n; k++)
					if (rr[k].barrier && rr[k].tick < until && pp_diag_ranges_overlap(&rr[k].range, &t->range))
						until = rr[k].tick;
				for (uint32_t k = 0; k < f->n; k++)
					if (!rr[k].barrier && rr[k].tick < until && pp_diag_ranges_overlap(&rr[k].range, &t->range)) {
						uses |= rr[k].uses;
						*writes |= rr[k].writes;
					}
			} else if (q->first_uses_overflow) {
				why = "a later command buffer of the submission uses too many resources to follow";
			}
		}
		if (why) {
			if (!*unproven)
				*unproven = why;
			return true;
		}
		struct work_view v;
		pp_diag_barriers_view_before(q, until, &v);
		*consumers |= uses | pp_diag_barriers_anon_consumers(&v, t->kind, t->new_layout, t->format_bucket, &why);
		if (why && !*unproven)
			*unproven = why;
		*work |= v.work;
		if (until != UINT64_MAX)
			return false;
	}
	return true;
}

static uint64_t neighbours_sig(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i)
{
	uint64_t h = mix64(n - i, 0x5eed);
	for (uint32_t j = i + 1; j < n; j++)
		h = mix64(h, recs[j] ? recs[j]->gen : 0);
	return h;
}

/* The verdicts of recs[i]'s barriers in this submission (sub_*): the windows open at the end
 * of its recording followed into the later command buffers. Made once per distinct sequence of
 * later recordings; a recording submitted the same way every frame is judged once. */
void pp_diag_findings_judge_submission(struct pp_diag_rec *const *recs, uint32_t n, uint32_t i)
{
	struct pp_diag_rec *r = recs[i];
	uint64_t sig = neighbours_sig(recs, n, i);
	if (r->sub_valid && r->sub_sig == sig)
		return;
	r->sub_valid = true;
	r->sub_sig = sig;
	for (uint32_t bi = 0, t = 0; bi < r->nbarriers; bi++) {
		struct rec_barrier *b = &r->barriers[bi];
		b->sub_fired = b->fired;
		b->sub_dst_suggested = b->dst_suggested;
		b->sub_unproven = b->consumers_unproven;
		b->sub_unused = 0;
		b->sub_exposed = b->exp_exposed;
		for (uint32_t j = i + 1; r->exp && j < n; j++)
			b->sub_exposed |= pp_diag_experiment_stages_later(recs[j]);
		if (!b->tail || r->tails_overflow)
			continue;
		uint32_t consumers = b->closed_consumers, writes = b->closed_writes, nunused = 0;
		const char *unproven = b->closed_unproven;
		for (; t < r->ntails && r->tails[t].barrier == bi; t++) {
			const struct rec_tail *tl = &r->tails[t];
			uint32_t c = tl->consumers, w = tl->writes, work = tl->work;
			const char *why = tl->unproven;
			bool open = tail_follow(recs, n, i, tl, &c, &w, &why, &work);
			writes |= w;
			/* Shaders may reach any buffer through its device address. */
			bool maybe_addressed = tl->kind == PP_RES_BUFFER && (work & (PP_WORK_DRAW | PP_WORK_DISPATCH));
			if (!c && !why && open && tl->unused_candidate && !maybe_addressed && nunused++ == 0) {
				b->sub_unused = tl->handle;
				b->sub_unused_kind = tl->kind;
			}
			if (!c && !why)
				why = open ? UNPROVEN_NO_USER : "nothing uses what it covers before the next barrier on it";
			consumers |= c;
			if (why && !unproven)
				unproven = why;
		}
		uint32_t sug;
		b->sub_fired = (b->fired & ~(1u << PP_DIAG_DST_TOO_EARLY)) | pp_diag_barriers_dst_judge(b, consumers, writes, unproven, &sug);
		b->sub_dst_suggested = sug;
		b->sub_unproven = unproven;
		/* Inside a render pass the attachments begun before it are its users. */
		if (b->sub_unused && !b->acquire && !b->in_render_pass &&
		    !(pp_diag_vocab_stage_expand(b->dst_raw, true) & PP_STAGE_HOST)) {
			b->sub_fired |= 1u << PP_DIAG_UNUSED;
			b->sub_unused_all = nunused == b->n;
		} else {
			b->sub_unused = 0;
		}
	}
}

void pp_diag_findings_occurrence_fill(struct pp_diagnostic_occurrence *o, const struct pp_diagnostic *site, const char *call,
			  uint32_t call_index, uint64_t command_buffer)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->id, sizeof(o->id), "%s", site->id);
	snprintf(o->severity, sizeof(o->severity), "%s", site->severity ? site->severity : "warning");
	snprintf(o->message, sizeof(o->message), "%s", site->message);
	snprintf(o->suggestion, sizeof(o->suggestion), "%s", site->suggestion);
	snprintf(o->call, sizeof(o->call), "%s", call ? call : "");
	o->call_index = call_index;
	o->command_buffer = command_buffer;
}

/* A finding in a frame RenderDoc captures, with the call it sits on, for the captures' list
 * (docs/frame-debuggers.md). Only in such frames: every other frame pays nothing for it. */
static void occurrence_report(struct pp_diag_device *d, const struct pp_diagnostic *site, const struct rec_barrier *b,
			      uint64_t cb, uint64_t frame)
{
	if (!d->cfg.out.captured)
		return;
	struct pp_diagnostic_occurrence o;
	pp_diag_findings_occurrence_fill(&o, site, b->api, b->api_index, cb);
	d->cfg.out.captured(d->cfg.sink_device_id, frame, &o);
}

/* Counts the findings of one submitted recording (after rec_judge_submission). Caller holds
 * d->lock. */
void pp_diag_findings_rec_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame,
			    bool renderdoc)
{
	/* RenderDoc's capture holds the application's calls, not a layer's own work. */
	renderdoc = renderdoc && !r->owner;
	for (uint32_t bi = 0; bi < r->nbarriers; bi++) {
		const struct rec_barrier *rb = &r->barriers[bi];
		if (rb->exp_fixed && d->cfg.experiment)
			pp_diag_experiment_fixed_unproven(d, rb);
		if (!rb->sub_fired)
			continue;
		/* this submission's view of it */
		struct rec_barrier view = *rb, *b = &view;
		view.dst_suggested = rb->sub_dst_suggested;
		view.consumers_unproven = rb->sub_unproven;
		for (uint32_t rule = 0; rule < PP_DIAG_RULE_COUNT; rule++) {
			if (!(rb->sub_fired & (1u << rule)))
				continue;
			view.example = rule == PP_DIAG_UNUSED ? rb->sub_unused : rb->example;
			view.example_kind = rule == PP_DIAG_UNUSED ? rb->sub_unused_kind : rb->example_kind;
			uint64_t key = barrier_site_key(d, rule, cb, b);
			pthread_mutex_lock(&pp_diag_sites_table.lock);
			struct site *s = pp_diag_sites_find_locked(key);
			bool created = false;
			if (!s && (s = pp_diag_sites_insert_locked(key))) {
				created = true;
				snprintf(s->d.id, sizeof(s->d.id), "%s", pp_diag_vocab_rule_id(rule));
				s->d.device_id = d->cfg.sink_device_id;
				snprintf(s->d.site, sizeof(s->d.site), "%s", b->site);
				barrier_texts(b, rule, &s->d, rule == PP_DIAG_CHAIN ? chain_site_of(d, b) : NULL);
				barrier_severity(b, rule, &s->d);
				if (r->owner)
					pp_diag_severity_foreign(&s->d, r->owner);
				s->d.cost_kind = "gpu_barrier_stall";
				s->d.cost_unavailable = !d->cfg.barrier_cost ? "barrier_cost setting is off"
							: b->in_render_pass ? "barrier inside a render pass: not measured"
							: b->untimed
								? "no timestamps in this command buffer"
								: "not measured yet (a flagged barrier is timed from its "
								  "command buffer's next recording on)";
			}
			struct pp_diagnostic copy;
			const char *trace_name = NULL;
			if (s) {
				pp_diag_sites_count_locked(s, frame, 1);
				if (b->loc_key)
					site_note_cb_locked(s, cb);
				if (created)
					trace_name = pp_diag_sites_first_seen_locked(s, &copy);
				else if (renderdoc)
					copy = s->d;
				pp_diag_experiment_occurrence(d, r, b, rule, s, frame);
			}
			pthread_mutex_unlock(&pp_diag_sites_table.lock);
			if (s && renderdoc)
				occurrence_report(d, &copy, b, cb, frame);
			if (created) {
				struct pp_diag_object objs[2] = {
					{ PP_OBJ_COMMAND_BUFFER, cb },
					{ b->example_kind == PP_RES_IMAGE ? PP_OBJ_IMAGE
					  : b->example_kind == PP_RES_BUFFER ? PP_OBJ_BUFFER : PP_OBJ_NONE,
					  b->example_kind == PP_RES_GLOBAL ? 0 : b->example },
				};
				pp_diag_device_site_announce(d, &copy, trace_name, objs, 2, rule, frame);
			}
		}
	}
}

/* Counts the flagged subpass dependencies of the render pass instances of one submitted
 * recording; the site is the render pass and the dependency. Caller holds d->lock. */
void pp_diag_findings_subpass_count(struct pp_diag_device *d, struct pp_diag_rec *r, uint64_t cb, uint64_t frame)
{
	for (uint32_t i = 0; i < r->nsubpasses; i++) {
		const struct rec_subpass *e = &r->subpasses[i];
		const struct pp_diag_subpass_dep *dep = &e->dep;
		uint64_t key = mix64(mix64(mix64(d->cfg.sink_device_id + 1, PP_DIAG_SUBPASS_NOT_BY_REGION + 1), e->render_pass),
				     dep->index + 1);
		pthread_mutex_lock(&pp_diag_sites_table.lock);
		struct site *s = pp_diag_sites_find_locked(key);
		bool created = false;
		if (!s && (s = pp_diag_sites_insert_locked(key))) {
			created = true;
			char src[160], dst[160], sa[160], da[160];
			pp_diag_vocab_stage_names(dep->src_stages, src, sizeof(src));
			pp_diag_vocab_stage_names(dep->dst_stages, dst, sizeof(dst));
			pp_diag_vocab_access_names(dep->src_access, sa, sizeof(sa));
			pp_diag_vocab_access_names(dep->dst_access, da, sizeof(da));
			snprintf(s->d.id, sizeof(s->d.id), "%s", pp_diag_vocab_rule_id(PP_DIAG_SUBPASS_NOT_BY_REGION));
			s->d.device_id = d->cfg.sink_device_id;
			snprintf(s->d.site, sizeof(s->d.site), "render pass 0x%llx%s%s%s, pDependencies[%u] (subpass %u -> %u)",
				 (unsigned long long)e->render_pass, e->name[0] ? " \"" : "", e->name, e->name[0] ? "\"" : "",
				 dep->index, dep->src_subpass, dep->dst_subpass);
			if (dep->src_subpass != dep->dst_subpass)
				snprintf(s->d.message, sizeof(s->d.message),
					 "VkSubpassDependency pDependencies[%u] (subpass %u -> %u, %s -> %s, %s -> %s) has only "
					 "framebuffer-space stages and attachment accesses but no VK_DEPENDENCY_BY_REGION_BIT: "
					 "it is framebuffer-global, so subpass %u waits for all of subpass %u over the whole "
					 "framebuffer (a tile-based GPU must finish and write out every tile of subpass %u "
					 "before subpass %u starts, instead of keeping the attachments on-chip).",
					 dep->index, dep->src_subpass, dep->dst_subpass, src, dst, sa, da, dep->dst_subpass,
					 dep->src_subpass, dep->src_subpass, dep->dst_subpass);
			else
				snprintf(s->d.message, sizeof(s->d.message),
					 "VkSubpassDependency pDependencies[%u] (self-dependency of subpass %u, %s -> %s, %s -> "
					 "%s) has only framebuffer-space stages but no VK_DEPENDENCY_BY_REGION_BIT: the "
					 "barriers it allows inside the subpass are framebuffer-global (the specification "
					 "requires BY_REGION for such a self-dependency).",
					 dep->index, dep->src_subpass, src, dst, sa, da);
			snprintf(s->d.suggestion, sizeof(s->d.suggestion),
				 "dependencyFlags |= VK_DEPENDENCY_BY_REGION_BIT in pDependencies[%u] (valid here: every access "
				 "it orders is an attachment access at the fragment's own location).",
				 dep->index);
			s->d.cost_kind = "gpu_barrier_stall";
			s->d.cost_unavailable = "a subpass dependency inside a render pass: not measured";
			pp_diag_severity_of_rule(&s->d, PP_DIAG_SUBPASS_NOT_BY_REGION);
			if (r->owner)
				pp_diag_severity_foreign(&s->d, r->owner);
		}
		struct pp_diagnostic copy;
		const char *trace_name = NULL;
		if (s) {
			pp_diag_sites_count_locked(s, frame, e->begins);
			if (created)
				trace_name = pp_diag_sites_first_seen_locked(s, &copy);
			pp_diag_experiment_site_out(d, s, "a subpass dependency of a render pass, not a barrier call: not rewritten");
		}
		pthread_mutex_unlock(&pp_diag_sites_table.lock);
		if (created) {
			const struct pp_diag_object objs[2] = { { PP_OBJ_COMMAND_BUFFER, cb },
								{ PP_OBJ_RENDER_PASS, e->render_pass } };
			pp_diag_device_site_announce(d, &copy, trace_name, objs, 2, PP_DIAG_SUBPASS_NOT_BY_REGION, frame);
		}
	}
}

