/* Per-device state of the rules: creation, messages for the application's messengers,
 * submissions (sequence numbers, frames from a frame clock, queries written). */
#include <errno.h>

#include "diag_internal.h"

/* ---- devices ------------------------------------------------------------------------------ */

struct pp_diag_device *pp_diag_device_create(const struct pp_diag_config *cfg)
{
	struct pp_diag_device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	d->cfg = *cfg;
	d->exp_active = PP_DIAG_EXP_NONE;
	pp_attr_frame_clock_init(&d->own_clock, (enum pp_frame_delimiter)cfg->frame_delimiter);
	if (!d->cfg.poll_threshold)
		d->cfg.poll_threshold = 8;
	return d;
}

void pp_diag_device_destroy(struct pp_diag_device *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->npools; i++) {
		free(d->pools[i].seq);
		free(d->pools[i].frame);
	}
	pthread_mutex_destroy(&d->lock);
	free(d);
}

uint64_t pp_diag_device_frame(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	uint64_t f = d->frame;
	pthread_mutex_unlock(&d->lock);
	return f;
}

uint64_t pp_diag_device_last_seq(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	uint64_t s = d->next_seq;
	pthread_mutex_unlock(&d->lock);
	return s;
}

uint32_t pp_diag_device_poll_threshold(const struct pp_diag_device *d)
{
	return d->cfg.poll_threshold;
}

/* Caller holds d->lock. */
static void message_queue(struct pp_diag_device *d, const struct pp_diag_message *m)
{
	if (d->msg_count == DEV_MESSAGES) {
		d->messages_dropped++;
		return;
	}
	d->messages[(d->msg_head + d->msg_count) % DEV_MESSAGES] = *m;
	/* Written under the lock, read without it by messages_take's first look. */
	__atomic_store_n(&d->msg_count, d->msg_count + 1, __ATOMIC_RELEASE);
}

uint32_t pp_diag_device_messages_take(struct pp_diag_device *d, struct pp_diag_message *out, uint32_t max)
{
	/* Nothing queued, the common case at every GLES finding's occurrence: no lock. A message
	 * queued right after this look waits for the next take. */
	if (!__atomic_load_n(&d->msg_count, __ATOMIC_ACQUIRE))
		return 0;
	uint32_t n = 0;
	pthread_mutex_lock(&d->lock);
	while (d->msg_count && n < max) {
		out[n++] = d->messages[d->msg_head];
		d->msg_head = (d->msg_head + 1) % DEV_MESSAGES;
		__atomic_store_n(&d->msg_count, d->msg_count - 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* A new site: logged once, queued for the messengers, marked in the trace. Caller holds
 * d->lock (not the site table's). */
void pp_diag_device_site_announce(struct pp_diag_device *d, const struct pp_diagnostic *s, const char *trace_name,
			  const struct pp_diag_object *objs, uint32_t nobjs, enum pp_diag_rule rule, uint64_t frame)
{
	/* Information stays out of the warnings: logged at info level, and at the messengers'
	 * information severity. */
	enum pp_diag_severity sev = pp_diag_severity_of(s);
	pp_log(sev == PP_DIAG_INFO ? PP_LOG_INFO : PP_LOG_WARN, "%s (frame %llu, %s): %s Suggestion: %s", s->id,
	       (unsigned long long)frame, s->site, s->message, s->suggestion);
	struct pp_diag_message m = { .rule = rule, .severity = sev };
	snprintf(m.text, sizeof(m.text), "%s: %s Suggestion: %s [%s]", s->id, s->message, s->suggestion, s->site);
	for (uint32_t i = 0; i < nobjs && m.nobjects < PP_DIAG_MAX_OBJECTS; i++)
		if (objs[i].handle)
			m.objects[m.nobjects++] = objs[i];
	message_queue(d, &m);
	if (trace_name && d->cfg.out.site_seen)
		d->cfg.out.site_seen(trace_name, pp_thread_id(), pp_clock_now_ns());
}


struct pool_rec *pp_diag_device_pool_find(struct pp_diag_device *d, uint64_t pool, uint32_t need, bool create)
{
	for (uint32_t i = 0; i < d->npools; i++)
		if (d->pools[i].pool == pool) {
			struct pool_rec *p = &d->pools[i];
			if (need > p->nqueries && create && need <= DEV_MAX_POOL_QUERIES) {
				uint64_t *s = realloc(p->seq, need * sizeof(*s));
				uint64_t *f = s ? realloc(p->frame, need * sizeof(*f)) : NULL;
				if (s)
					p->seq = s;
				if (!s || !f)
					return need <= p->nqueries ? p : NULL;
				p->frame = f;
				memset(p->seq + p->nqueries, 0, (need - p->nqueries) * sizeof(*s));
				memset(p->frame + p->nqueries, 0, (need - p->nqueries) * sizeof(*f));
				p->nqueries = need;
			}
			return p;
		}
	if (!create || d->npools == DEV_MAX_POOLS || need > DEV_MAX_POOL_QUERIES)
		return NULL;
	struct pool_rec *p = &d->pools[d->npools];
	p->pool = pool;
	p->seq = calloc(need ? need : 1, sizeof(*p->seq));
	p->frame = calloc(need ? need : 1, sizeof(*p->frame));
	if (!p->seq || !p->frame) {
		free(p->seq);
		free(p->frame);
		return NULL;
	}
	p->nqueries = need;
	d->npools++;
	return p;
}

static uint64_t submit_locked(struct pp_diag_device *d, uint64_t frame, uint64_t queue, uint32_t n,
			      struct pp_diag_rec *const *recs, const uint64_t *cbs, bool renderdoc)
{
	if (!d->only_queue)
		d->only_queue = queue;
	else if (d->only_queue != queue)
		d->many_queues = true;
	d->frame_open = true;
	d->frame = frame;
	uint64_t seq = ++d->next_seq;
	for (uint32_t i = 0; i < n; i++) {
		struct pp_diag_rec *r = recs[i];
		if (r && r->closed)
			r->resubmitted = true;
		if (r && !r->closed) {
			pp_diag_barriers_rec_close(r);
			pp_diag_findings_chain_evaluate(d, r, d->frame);
			pp_diag_rec_summary_barrier_compact(r);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct pp_diag_rec *r = recs[i];
		if (!r)
			continue;
		pp_diag_findings_judge_submission(recs, n, i);
		pp_diag_findings_rec_count(d, r, cbs[i], d->frame, renderdoc);
		pp_diag_findings_subpass_count(d, r, cbs[i], d->frame);
		for (uint32_t q = 0; q < r->nqueries; q++) {
			const struct query_write *w = &r->queries[q];
			struct pool_rec *p = pp_diag_device_pool_find(d, w->pool, w->first + w->count, true);
			for (uint32_t k = w->first; p && k < w->first + w->count && k < p->nqueries; k++) {
				p->seq[k] = seq;
				p->frame[k] = d->frame;
			}
		}
	}
	return seq;
}

uint64_t pp_diag_device_submit(struct pp_diag_device *d, uint64_t queue, uint32_t n, struct pp_diag_rec *const *recs,
			const uint64_t *cbs)
{
	pthread_mutex_lock(&d->lock);
	uint64_t seq = submit_locked(d, pp_attr_frame_clock_submit(&d->own_clock), queue, n, recs, cbs, false);
	pthread_mutex_unlock(&d->lock);
	return seq;
}

/* The clock says every frame below `ended` is over: the frame of the last submission seen
 * closes (counted for the frame statistics only when a submission of it was seen here). */
static void frames_ended_locked(struct pp_diag_device *d, uint64_t ended)
{
	if (!d->frame_open || d->frame >= ended)
		return;
	d->frame_open = false;
	pp_diag_sites_frame_closed(d->cfg.sink_device_id);
}

static bool fence_is(const void *elem, const void *key)
{
	return ((const struct fence_rec *)elem)->fence == *(const uint64_t *)key;
}

static uint64_t fence_age(const void *elem)
{
	return ((const struct fence_rec *)elem)->seq;
}

static void fence_note_locked(struct pp_diag_device *d, uint64_t fence)
{
	if (fence) {
		struct fence_rec *f = diag_slot(d->fences, &d->nfences, DEV_MAX_FENCES, sizeof(*f), &fence, fence_is,
						fence_age);
		*f = (struct fence_rec){ fence, d->next_seq, d->frame };
	}
}

void pp_diag_device_submit_done(struct pp_diag_device *d, uint64_t fence, bool saw_frame_label)
{
	pthread_mutex_lock(&d->lock);
	fence_note_locked(d, fence);
	if (pp_attr_frame_clock_submit_done(&d->own_clock, fence ? PP_SUBMIT_FENCE : PP_SUBMIT_ASYNC, saw_frame_label))
		frames_ended_locked(d, d->own_clock.ended);
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_device_present(struct pp_diag_device *d)
{
	pthread_mutex_lock(&d->lock);
	if (pp_attr_frame_clock_present(&d->own_clock))
		frames_ended_locked(d, d->own_clock.ended);
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_device_frames_ended(struct pp_diag_device *d, uint64_t ended)
{
	pthread_mutex_lock(&d->lock);
	frames_ended_locked(d, ended);
	pthread_mutex_unlock(&d->lock);
}


void pp_diag_device_measured_credit(const struct pp_diag_measured *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].gpu_idle)
			pp_diag_sites_gpu_idle(m[i].key, m[i].ns, m[i].frame);
		else
			pp_diag_sites_cost(m[i].key, m[i].ns, m[i].frame);
	}
}

/* The barrier_cost part of *todo: per recording, the barriers that fired and the cost probes
 * of this submission. Returns false when out of memory (what was filled stays). */
static bool todo_costs(struct pp_diag_device *d, const struct pp_diag_submission *s, struct pp_diag_submit_todo *todo)
{
	if (!s->max_fired || !s->n)
		return true;
	todo->recs = calloc(s->n, sizeof(*todo->recs));
	if (!todo->recs)
		return false;
	todo->nrecs = s->n;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct pp_diag_rec *r = s->recs[i];
		struct pp_diag_rec_todo *t = &todo->recs[i];
		if (!r)
			continue;
		uint32_t nfired = 0;
		for (uint32_t k = 0; r->closed && k < r->nbarriers; k++)
			nfired += (r->barriers[k].fired | r->barriers[k].sub_fired) != 0;
		if (nfired > s->max_fired)
			nfired = s->max_fired;
		t->fired = malloc((nfired ? nfired : 1) * sizeof(*t->fired));
		t->probes = malloc(PP_DIAG_MAX_PROBES * sizeof(*t->probes));
		if (!t->fired || !t->probes)
			return false;
		t->nfired = pp_diag_findings_rec_fired(r, t->fired, nfired);
		t->nprobes = pp_diag_findings_rec_cost_probes(d, r, s->cb_handles[i], t->probes, PP_DIAG_MAX_PROBES);
	}
	return true;
}

/* Every queued message for the application's messengers (at most DEV_MESSAGES). */
static bool todo_messages(struct pp_diag_device *d, struct pp_diag_submit_todo *todo)
{
	uint32_t n = __atomic_load_n(&d->msg_count, __ATOMIC_ACQUIRE);
	if (!n)
		return true;
	todo->messages = malloc(n * sizeof(*todo->messages));
	if (!todo->messages)
		return false;
	todo->nmessages = pp_diag_device_messages_take(d, todo->messages, n);
	return true;
}

int pp_diag_device_submitted(struct pp_diag_device *d, const struct pp_diag_submission *s, struct pp_diag_submit_todo *todo)
{
	*todo = (struct pp_diag_submit_todo){ 0 };
	/* The recordings belong to the submitting thread: no lock of ours. */
	for (uint32_t i = 0; s->observed && i < s->n; i++)
		if (s->recs[i] && s->observed[i])
			pp_diag_barriers_rec_observed(s->recs[i], s->observed[i]);
	pthread_mutex_lock(&d->lock);
	todo->seq = submit_locked(d, s->frame, s->queue, s->n, s->recs, s->cb_handles, s->renderdoc);
	for (uint32_t i = 0; i < s->nsignals; i++)
		pp_diag_waits_semaphore_signal_locked(d, s->signals[i].semaphore, s->signals[i].value, false);
	fence_note_locked(d, s->fence);
	frames_ended_locked(d, s->ended);
	pthread_mutex_unlock(&d->lock);
	pp_diag_device_measured_credit(s->measured, s->nmeasured);
	bool ok = todo_costs(d, s, todo);
	ok &= todo_messages(d, todo);
	return ok ? 0 : -ENOMEM;
}

int pp_diag_device_presented(struct pp_diag_device *d, uint64_t ended, const struct pp_diag_measured *measured,
		      uint32_t nmeasured, struct pp_diag_submit_todo *todo)
{
	*todo = (struct pp_diag_submit_todo){ 0 };
	pp_diag_device_frames_ended(d, ended);
	pp_diag_device_measured_credit(measured, nmeasured);
	return todo_messages(d, todo) ? 0 : -ENOMEM;
}

void pp_diag_device_submit_todo_free(struct pp_diag_submit_todo *todo)
{
	for (uint32_t i = 0; todo->recs && i < todo->nrecs; i++) {
		free(todo->recs[i].fired);
		free(todo->recs[i].probes);
	}
	free(todo->recs);
	free(todo->messages);
	*todo = (struct pp_diag_submit_todo){ 0 };
}
