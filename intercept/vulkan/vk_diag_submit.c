/* Delivery at submit and present. A submit call goes to the rules as one API-neutral
 * description (struct pp_diag_submission: the recordings with their events translated, the
 * model's frame index, the fence and semaphore signals, the costs read since), in one call;
 * what comes back (struct pp_diag_submit_todo: barriers to time, timestamps to read, messages)
 * is acted on here afterwards. Barrier-cost and GPU-idle timestamps are read once the GPU
 * wrote them (never waiting), and messages go to the application's debug messengers. */
#include "pp_thread.h"
#include "vk_diag_internal.h"

/* ---- submit and present --------------------------------------------------------------------- */

/* Reads, without waiting, the timestamp pairs that are ready: one batch of slots in slot order
 * (the timer makes one vkGetQueryPoolResults per run of consecutive slots). Every batch
 * includes the recordings' first pass begins, so that, when such a read is the first, the
 * uncalibrated estimate is anchored on the earliest work read (against the first submit call:
 * these reads do not know their submit call; attribution's reads raise the estimate from
 * there, gpu_vk_timer.c). */
static int slot_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int slot_index(const uint32_t *slots, uint32_t n, uint32_t slot)
{
	const uint32_t *p = bsearch(&slot, slots, n, sizeof(*slots), slot_cmp);
	return p ? (int)(p - slots) : -1;
}

/* The costs measured are returned in *out (malloc'd, *out NULL when none), for the rules to
 * credit; frame: the latest frame (reads older by 16 frames are dropped). */
static uint32_t reads_poll(struct pp_device *dev, struct pp_vk_diag *vd, uint64_t frame, struct pp_diag_measured **out)
{
	*out = NULL;
	if (!dev->timer)
		return 0;
	uint32_t nout = 0;
	pthread_mutex_lock(&vd->reads_lock);
	/* Polled at every recording's release and every present: the usual handful of reads on
	 * the stack, more on the heap. The results only once one is ready. */
	enum { STACK_SLOTS = 48 };
	uint32_t slots_stack[STACK_SLOTS];
	uint64_t ns_stack[STACK_SLOTS];
	uint8_t avail_stack[STACK_SLOTS];
	uint32_t cap = 3 * vd->nreads, n = 0;
	bool heap = cap > STACK_SLOTS;
	uint32_t *slots = heap ? malloc(cap * sizeof(*slots)) : slots_stack;
	uint64_t *ns = heap ? malloc(cap * sizeof(*ns)) : ns_stack;
	uint8_t *avail = heap ? malloc(cap) : avail_stack;
	struct pp_diag_measured *m = NULL;
	if (!cap || !slots || !ns || !avail)
		goto out;
	/* Reads whose recording was reset or submitted again are gone already
	 * (pp_vk_diag_submit_recording_forget); what never arrives is dropped after 16 frames. */
	for (uint32_t i = 0; i < vd->nreads;) {
		struct pending_read *p = &vd->reads[i];
		if (p->frame + 16 >= frame) {
			if (p->anchor != PP_NO_SLOT)
				slots[n++] = p->anchor;
			slots[n++] = p->slot0;
			if (p->slot1 != PP_NO_SLOT)
				slots[n++] = p->slot1;
			i++;
			continue;
		}
		vd->reads[i] = vd->reads[--vd->nreads];
	}
	qsort(slots, n, sizeof(*slots), slot_cmp);
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!u || slots[i] != slots[u - 1])
			slots[u++] = slots[i];
	if (u)
		pp_gpu_vk_timer_read_timestamps(dev->timer, slots, u, 0, ns, avail);
	for (uint32_t i = 0; u && i < vd->nreads;) {
		struct pending_read *p = &vd->reads[i];
		int k0 = slot_index(slots, u, p->slot0);
		int k1 = p->slot1 == PP_NO_SLOT ? -2 : slot_index(slots, u, p->slot1);
		bool ready = k0 >= 0 && avail[k0] && (k1 == -2 || (k1 >= 0 && avail[k1]));
		if (!ready) {
			i++;
			continue;
		}
		if (!m && !(m = malloc(vd->nreads * sizeof(*m))))
			break; /* out of memory: the reads stay pending */
		if (p->kind == READ_COST && ns[k1] >= ns[k0])
			m[nout++] = (struct pp_diag_measured){ false, p->key, ns[k1] - ns[k0], p->frame };
		else if (p->kind == READ_IDLE && ns[k0] >= p->base_ns)
			m[nout++] = (struct pp_diag_measured){ true, p->key, ns[k0] - p->base_ns, p->frame };
		vd->reads[i] = vd->reads[--vd->nreads];
	}
out:
	pthread_mutex_unlock(&vd->reads_lock);
	if (heap) {
		free(slots);
		free(ns);
		free(avail);
	}
	if (!nout)
		free(m);
	else
		*out = m;
	return nout;
}

/* Reads when a recording is forgotten: credited at once. */
static void reads_poll_credit(struct pp_device *dev, struct pp_vk_diag *vd)
{
	struct pp_diag_measured *m;
	uint32_t n = reads_poll(dev, vd, __atomic_load_n(&vd->frame, __ATOMIC_RELAXED), &m);
	pp_diag_device_measured_credit(m, n);
	free(m);
}

static void read_add(struct pp_vk_diag *vd, const struct pending_read *r)
{
	pthread_mutex_lock(&vd->reads_lock);
	if (vd->nreads == MAX_READS) {
		pp_log_once(PP_LOG_INFO, "diagnostics: too many barrier-cost timestamps pending; some costs are not measured");
		vd->reads[0] = vd->reads[--vd->nreads];
	}
	vd->reads[vd->nreads++] = *r;
	pthread_mutex_unlock(&vd->reads_lock);
}

static VkObjectType object_type(enum pp_diag_object_kind k)
{
	switch (k) {
	case PP_OBJ_COMMAND_BUFFER: return VK_OBJECT_TYPE_COMMAND_BUFFER;
	case PP_OBJ_QUEUE: return VK_OBJECT_TYPE_QUEUE;
	case PP_OBJ_IMAGE: return VK_OBJECT_TYPE_IMAGE;
	case PP_OBJ_BUFFER: return VK_OBJECT_TYPE_BUFFER;
	case PP_OBJ_QUERY_POOL: return VK_OBJECT_TYPE_QUERY_POOL;
	case PP_OBJ_FENCE: return VK_OBJECT_TYPE_FENCE;
	case PP_OBJ_EVENT: return VK_OBJECT_TYPE_EVENT;
	case PP_OBJ_DEVICE: return VK_OBJECT_TYPE_DEVICE;
	case PP_OBJ_SEMAPHORE: return VK_OBJECT_TYPE_SEMAPHORE;
	case PP_OBJ_RENDER_PASS: return VK_OBJECT_TYPE_RENDER_PASS;
	default: return VK_OBJECT_TYPE_UNKNOWN;
	}
}

/* New sites reach the application's messengers on its own thread, here at a boundary. */
static void messages_deliver(struct pp_device *dev, const struct pp_diag_message *m, uint32_t n)
{
	if (!pp_layer_messengers_any(dev->instance))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct pp_messenger_object objs[PP_DIAG_MAX_OBJECTS];
		for (uint32_t k = 0; k < m[i].nobjects; k++)
			objs[k] = (struct pp_messenger_object){ object_type(m[i].objects[k].kind), m[i].objects[k].handle };
		pp_layer_messengers_deliver(dev->instance, pp_diag_vocab_rule_id(m[i].rule), m[i].severity == PP_DIAG_INFO, m[i].text,
				      m[i].nobjects, objs);
	}
}

/* barrier_cost: what to time when this command buffer is recorded again. */
static void flagged_keep(struct pp_vk_diag_cb *s, const struct pp_diag_rec_todo *t)
{
	if (t->nfired > s->nflagged || !s->flagged) {
		uint32_t *f = realloc(s->flagged, (t->nfired ? t->nfired : 1) * sizeof(*f));
		if (!f)
			return;
		s->flagged = f;
	}
	memcpy(s->flagged, t->fired, t->nfired * sizeof(uint32_t));
	s->nflagged = t->nfired;
}

/* The submitted command buffers' recordings (recs[i], NULL where not followed; cbs[i] their
 * command buffers) and what they did after the last hook of this file, translated
 * (obs[i] / views[i], NULL where nothing is new). obs: n entries. */
static void recordings_describe(uint32_t n, struct pp_command_buffer *const *tracked,
				struct pp_diag_rec **recs, struct pp_command_buffer **cbs,
				struct vk_diag_observed *obs, struct pp_diag_observed *views,
				const struct pp_diag_observed **view_of)
{
	for (uint32_t i = 0; i < n; i++) {
		struct pp_command_buffer *c = tracked[i];
		struct pp_vk_diag_cb *s = c && c->diag && c->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY ? c->diag : NULL;
		view_of[i] = NULL;
		if (s && c->submissions <= s->last_subs) {
			/* Recorded again without a single hook of this file (the lead's count of
			 * submissions restarts with every recording): nothing of it was seen. The
			 * rules forget the old recording as its new events reach them. */
			pp_vk_diag_state_cursor_reset(s);
			s->rec_anew = true;
			s->gen++;
		}
		if (s && !s->submitted) {
			/* The work after the last hook of this file. Not yet submitted since its
			 * last reset is not yet closed by the rules. */
			pp_vk_diag_state_collect(c, s, &obs[i]);
			pp_vk_diag_state_observed_view(&obs[i], &views[i]);
			view_of[i] = &views[i];
		}
		if (s) {
			s->submitted = true;
			s->last_subs = c->submissions;
		}
		/* A layer's own work above passprobe (a HUD's pool): its findings are not the
		 * application's to fix. */
		if (s)
			pp_diag_barriers_rec_owner(s->rec, c->rec ? c->rec->recorded_by : NULL);
		recs[i] = s ? s->rec : NULL;
		cbs[i] = s ? c : NULL;
	}
}

/* GPU idle after a blocking wait: it ends where this submission's first pass begins. */
static void idle_arm(struct pp_vk_diag *vd, uint32_t n, struct pp_command_buffer *const *tracked)
{
	struct pp_command_buffer *first = NULL, *last = NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct pp_command_buffer *c = tracked[i];
		if (!c || !c->diag || !c->rec->npasses)
			continue;
		if (!first && c->rec->passes[0].ts_begin != PP_NO_SLOT)
			first = c;
		if (c->rec->passes[c->rec->npasses - 1].ts_end != PP_NO_SLOT)
			last = c;
	}
	pthread_mutex_lock(&vd->reads_lock);
	bool idle = vd->idle_armed;
	struct pending_read idle_read = { READ_IDLE, vd->idle_key, vd->idle_frame, 0, 0, PP_NO_SLOT, PP_NO_SLOT,
					  vd->idle_begin_ns };
	vd->idle_armed = false;
	if (last) {
		vd->last_cb = last->handle;
		vd->last_end_slot = last->rec->passes[last->rec->npasses - 1].ts_end;
		vd->last_first_slot = last->rec->passes[0].ts_begin;
	} else {
		vd->last_cb = 0;
	}
	pthread_mutex_unlock(&vd->reads_lock);
	if (idle && first) {
		idle_read.cb = first->handle;
		idle_read.slot0 = first->rec->passes[0].ts_begin;
		idle_read.anchor = first->rec->passes[0].ts_begin;
		read_add(vd, &idle_read);
	}
}

void pp_vk_diag_submit_submitted(struct pp_device *dev, struct pp_queue *q, uint32_t n, const uint64_t *cb_handles,
			  struct pp_command_buffer *const *tracked, VkFence fence, uint64_t frame, bool renderdoc,
			  uint64_t ended, uint32_t nsubmits, const VkSubmitInfo *submits, const VkSubmitInfo2 *submits2)
{
	/* A wait on this thread holds its frames back (vk_blocking.c): it submits their work. A
	 * submit of semaphores or a fence alone is signalling, not frame work. */
	if (n)
		pp_thread_role_note(PP_THREAD_SUBMITS);
	struct pp_vk_diag *vd = pp_vk_diag_state_get(dev);
	if (!vd)
		return;
	struct pp_diag_rec *stack[16], **recs = n <= 16 ? stack : calloc(n, sizeof(*recs));
	struct pp_command_buffer *cstack[16], **cbs = n <= 16 ? cstack : calloc(n, sizeof(*cbs));
	struct pp_diag_signal sig_stack[16], *sigs = sig_stack;
	struct pp_diag_measured *measured = NULL;
	uint32_t nsig = pp_vk_blocking_diag_signals_of(nsubmits, submits, submits2, NULL, 0);
	if (nsig > 16)
		sigs = malloc(nsig * sizeof(*sigs));
	/* Each a few KiB: on the heap, the three arrays in one block, kept for the next call
	 * (pp_spare.h). */
	_Static_assert(sizeof(struct vk_diag_observed) % _Alignof(struct pp_diag_observed) == 0 &&
			       sizeof(struct pp_diag_observed) % _Alignof(const struct pp_diag_observed *) == 0 &&
			       _Alignof(struct vk_diag_observed) <= 16,
		       "the arrays follow each other aligned");
	size_t need = n * (sizeof(struct vk_diag_observed) + sizeof(struct pp_diag_observed) +
			   sizeof(const struct pp_diag_observed *));
	char *block = n ? pp_spare_take(&vd->spare, need) : NULL;
	struct vk_diag_observed *obs = (struct vk_diag_observed *)block;
	struct pp_diag_observed *views = block ? (struct pp_diag_observed *)(obs + n) : NULL;
	const struct pp_diag_observed **view_of = block ? (const struct pp_diag_observed **)(views + n) : NULL;
	if (!recs || !cbs || !sigs || (n && !block))
		goto out;

	__atomic_store_n(&vd->frame, frame, __ATOMIC_RELAXED);
	/* 1. The submission, described once: nothing of the rules is asked yet. */
	recordings_describe(n, tracked, recs, cbs, obs, views, view_of);
	pp_vk_blocking_diag_signals_of(nsubmits, submits, submits2, sigs, nsig);
	uint32_t nmeasured = reads_poll(dev, vd, frame, &measured);
	const struct pp_diag_submission sub = {
		.queue = q ? q->handle : 0,
		.n = n,
		.recs = recs,
		.observed = view_of,
		.cb_handles = cb_handles,
		.frame = frame,
		.ended = ended,
		.fence = (uint64_t)fence,
		.nsignals = nsig,
		.signals = sigs,
		.nmeasured = nmeasured,
		.measured = measured,
		.max_fired = vd->cost ? COST_MAX_FLAGGED : 0,
		.renderdoc = renderdoc,
	};

	/* 2. The rules judge it, in one call. */
	struct pp_diag_submit_todo todo;
	pp_diag_device_submitted(vd->dd, &sub, &todo);

	/* 3. What they ask for: barriers to time when recorded again, their costs in this
	 * submission read once the GPU wrote them, GPU idle after a wait, messages. */
	for (uint32_t i = 0; i < todo.nrecs; i++) {
		const struct pp_diag_rec_todo *t = &todo.recs[i];
		if (!recs[i] || !t->fired || !t->probes)
			continue;
		flagged_keep(cbs[i]->diag, t);
		for (uint32_t k = 0; k < t->nprobes; k++)
			read_add(vd, &(struct pending_read){ READ_COST, t->probes[k].key, frame, cb_handles[i],
							     t->probes[k].ts_before, t->probes[k].ts_after,
							     cbs[i]->rec->npasses ? cbs[i]->rec->passes[0].ts_begin : PP_NO_SLOT,
							     0 });
	}
	idle_arm(vd, n, tracked);
	messages_deliver(dev, todo.messages, todo.nmessages);
	pp_diag_device_submit_todo_free(&todo);
	for (uint32_t i = 0; i < n; i++)
		if (view_of[i])
			pp_vk_diag_state_observed_free(&obs[i]);
out:
	pp_spare_give(&vd->spare, block);
	free(measured);
	if (sigs != sig_stack)
		free(sigs);
	if (recs != stack)
		free(recs);
	if (cbs != cstack)
		free(cbs);
}

void pp_vk_diag_submit_frames_ended(struct pp_device *dev, uint64_t ended)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (vd)
		pp_diag_device_frames_ended(vd->dd, ended);
}

void pp_vk_diag_submit_presented(struct pp_device *dev, uint64_t ended)
{
	pp_thread_role_note(PP_THREAD_PRESENTS);
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd)
		return;
	struct pp_diag_measured *m;
	uint32_t n = reads_poll(dev, vd, __atomic_load_n(&vd->frame, __ATOMIC_RELAXED), &m);
	struct pp_diag_submit_todo todo;
	pp_diag_device_presented(vd->dd, ended, m, n, &todo);
	messages_deliver(dev, todo.messages, todo.nmessages);
	pp_diag_device_submit_todo_free(&todo);
	free(m);
}

void pp_vk_diag_submit_waited(struct pp_device *dev, uint64_t site_key, uint64_t frame)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd || !site_key || !dev->timer)
		return;
	/* Under the reads lock: the command buffer's owner forgets these slots under it before
	 * resetting or freeing them (pp_vk_diag_submit_recording_forget). */
	pthread_mutex_lock(&vd->reads_lock);
	if (vd->last_cb) {
		/* The wait returned, so the last submission's end is written: a read that cannot wait. */
		uint32_t slots[2] = { vd->last_first_slot, vd->last_end_slot };
		uint64_t ns[2];
		uint8_t avail[2] = { 0 };
		uint32_t first = slots[0] == PP_NO_SLOT ? 1 : 0;
		pp_gpu_vk_timer_read_timestamps(dev->timer, slots + first, 2 - first, 0, ns + first, avail + first);
		if (avail[1]) {
			vd->idle_armed = true;
			vd->idle_key = site_key;
			vd->idle_frame = frame;
			vd->idle_begin_ns = ns[1];
		}
	}
	pthread_mutex_unlock(&vd->reads_lock);
}

/* The recording of c is about to be reset, re-recorded, freed, or host-reset for another
 * submission: timestamp reads still waiting on its slots are dropped. Called on the thread
 * that owns c (the application synchronizes access to it). */
void pp_vk_diag_submit_recording_forget(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_vk_diag *vd = diag_of(dev);
	if (!vd)
		return;
	/* Vulkan forbids resetting, re-recording, freeing or resubmitting (without
	 * SIMULTANEOUS_USE) a command buffer that is still pending, so every timestamp of its
	 * last execution is written by now and a read cannot wait. Harvest them before they are
	 * dropped: an application that re-records each command buffer as soon as its fence
	 * returns (the usual frame ring) reaches this point before any submit-time poll found
	 * them, and its barrier costs and GPU idle times were never measured. */
	bool pending = false;
	pthread_mutex_lock(&vd->reads_lock);
	for (uint32_t i = 0; i < vd->nreads && !pending; i++)
		pending = vd->reads[i].cb == c->handle;
	pthread_mutex_unlock(&vd->reads_lock);
	if (pending)
		reads_poll_credit(dev, vd);
	pthread_mutex_lock(&vd->reads_lock);
	for (uint32_t i = 0; i < vd->nreads;) {
		if (vd->reads[i].cb == c->handle)
			vd->reads[i] = vd->reads[--vd->nreads];
		else
			i++;
	}
	if (vd->last_cb == c->handle)
		vd->last_cb = 0;
	pthread_mutex_unlock(&vd->reads_lock);
}

