/* Blocking waits (fences, idle, queries, polling) and timeline semaphores: whether what a wait
 * waits for was submitted, is in the current frame, or is already complete. */
#include "diag_internal.h"

/* ---- blocking waits ------------------------------------------------------------------------ */

void pp_diag_waits_completed(struct pp_diag_device *d, uint64_t seq)
{
	pthread_mutex_lock(&d->lock);
	if (seq > d->completed)
		d->completed = seq;
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_waits_queue_idle(struct pp_diag_device *d, uint64_t queue)
{
	pthread_mutex_lock(&d->lock);
	if (!d->many_queues && d->only_queue == queue)
		d->completed = d->next_seq;
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_waits_fence_reset(struct pp_diag_device *d, uint64_t fence)
{
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < d->nfences; i++)
		if (d->fences[i].fence == fence) {
			d->fences[i] = d->fences[--d->nfences];
			break;
		}
	pthread_mutex_unlock(&d->lock);
}

void pp_diag_waits_queries_host_reset(struct pp_diag_device *d, uint64_t pool, uint32_t first, uint32_t count)
{
	pthread_mutex_lock(&d->lock);
	struct pool_rec *p = pp_diag_device_pool_find(d, pool, 0, false);
	for (uint32_t k = first; p && k < first + count && k < p->nqueries; k++)
		p->seq[k] = p->frame[k] = 0;
	pthread_mutex_unlock(&d->lock);
}

/* Caller holds d->lock. */
static enum pp_diag_wait_verdict verdict_of(const struct pp_diag_device *d, uint64_t seq, uint64_t frame)
{
	if (!seq)
		return PP_WAIT_UNSUBMITTED;
	if (seq <= d->completed)
		return PP_WAIT_FINE;
	if (frame == d->frame)
		return PP_WAIT_CURRENT_FRAME;
	return PP_WAIT_NOT_COMPLETE;
}

enum pp_diag_wait_verdict pp_diag_waits_fence_check(struct pp_diag_device *d, uint64_t fence, uint64_t *seq)
{
	enum pp_diag_wait_verdict v = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < d->nfences; i++)
		if (d->fences[i].fence == fence) {
			*seq = d->fences[i].seq;
			v = verdict_of(d, d->fences[i].seq, d->fences[i].frame);
			break;
		}
	pthread_mutex_unlock(&d->lock);
	return v;
}

enum pp_diag_wait_verdict pp_diag_waits_query_check(struct pp_diag_device *d, uint64_t pool, uint32_t first, uint32_t count,
					      uint64_t *seq)
{
	enum pp_diag_wait_verdict worst = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	struct pool_rec *p = pp_diag_device_pool_find(d, pool, 0, false);
	if (p) {
		worst = PP_WAIT_FINE;
		for (uint32_t k = first; k < first + count; k++) {
			uint64_t s = k < p->nqueries ? p->seq[k] : 0, f = k < p->nqueries ? p->frame[k] : 0;
			enum pp_diag_wait_verdict v = verdict_of(d, s, f);
			/* Precedence: would-deadlock, then this frame, then not complete. */
			static const int rank[] = { [PP_WAIT_FINE] = 0, [PP_WAIT_NOT_COMPLETE] = 1,
						    [PP_WAIT_CURRENT_FRAME] = 2, [PP_WAIT_UNSUBMITTED] = 3,
						    [PP_WAIT_UNKNOWN] = 0 };
			if (rank[v] > rank[worst]) {
				worst = v;
				*seq = s;
			}
		}
	}
	pthread_mutex_unlock(&d->lock);
	return worst;
}

/* A BLOCKING or PASS rule's texts (diag_rules.h); "" for a BARRIER rule's (diag_findings.c). */
#define RULE_MESSAGE(name, id, kind, api, severity, docs, reason, message, suggestion) [PP_DIAG_##name] = message,
static const char *const rule_messages[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_MESSAGE) };
#undef RULE_MESSAGE
#define RULE_SUGGESTION(name, id, kind, api, severity, docs, reason, message, suggestion) [PP_DIAG_##name] = suggestion,
static const char *const rule_suggestions[PP_DIAG_RULE_COUNT] = { PP_DIAG_RULES(RULE_SUGGESTION) };
#undef RULE_SUGGESTION

static const char *blocking_message(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT && rule_messages[rule] ? rule_messages[rule] : "";
}

static const char *blocking_suggestion(enum pp_diag_rule rule)
{
	return rule < PP_DIAG_RULE_COUNT && rule_suggestions[rule] ? rule_suggestions[rule] : "";
}

/* A wait holds the frame back only on a thread that does the frame's work (records, submits
 * or presents it; docs/diagnostics.md, "Whose wait it is"). Elsewhere it is information, except
 * a wait that may never end. */
static void blocking_severity(struct pp_diagnostic *d, const struct pp_diag_blocking *b)
{
	if (!b->worker_thread || b->rule == PP_DIAG_QUERY_WAIT_UNSUBMITTED || b->cost_unavailable) {
		pp_diag_severity_of_rule(d, b->rule);
		return;
	}
	char why[sizeof(d->verdict)];
	snprintf(why, sizeof(why),
		 "little to gain for the frame: thread %u \"%s\" records, submits and presents nothing, so its wait "
		 "holds back that thread only, not the frame (which waits for it only in ways passprobe does not see)",
		 b->thread_id, b->thread_name ? b->thread_name : "");
	pp_diag_severity_set(d, PP_DIAG_INFO, why);
}

/* Steady state: a wait at start-up, at a resize or at shutdown is not the frame loop's, even
 * when one helper makes all of them (one call site: SDL's testvulkan idles the device through
 * one function at start-up and at shutdown). A site is confirmed when it waits in a third frame
 * within STEADY_WINDOW frames of the first of the three; until then its occurrences wait in a
 * pending slot (bounded: the slot of the site seen longest ago is reused). Returns how many
 * earlier frames the confirmation brings in (copied to confirmed, oldest first), 0 while the
 * site is pending. Caller holds d->lock. */
static uint32_t steady_pending(struct pp_diag_device *d, uint64_t key, uint64_t frame, uint64_t cpu_ns,
			       struct pending_frame *confirmed)
{
	struct pending_site *p = NULL, *free_slot = NULL;
	for (uint32_t i = 0; i < DEV_MAX_PENDING && !p; i++) {
		if (d->pending[i].used && d->pending[i].key == key)
			p = &d->pending[i];
		else if (!d->pending[i].used && !free_slot)
			free_slot = &d->pending[i];
	}
	if (!p) {
		if (!free_slot) {
			free_slot = &d->pending[0];
			for (uint32_t i = 1; i < DEV_MAX_PENDING; i++)
				if (d->pending[i].seen[d->pending[i].nseen - 1].frame <
				    free_slot->seen[free_slot->nseen - 1].frame)
					free_slot = &d->pending[i];
		}
		*free_slot = (struct pending_site){ .key = key, .seen = { { frame, 1, cpu_ns } }, .nseen = 1, .used = true };
		return 0;
	}
	struct pending_frame *last = &p->seen[p->nseen - 1];
	if (last->frame == frame) {
		last->calls++;
		last->cpu_ns += cpu_ns;
		return 0;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < p->nseen; i++)
		if (frame <= p->seen[i].frame + STEADY_WINDOW)
			p->seen[kept++] = p->seen[i];
	p->nseen = kept;
	if (kept < STEADY_FRAMES - 1) {
		p->seen[p->nseen++] = (struct pending_frame){ frame, 1, cpu_ns };
		return 0;
	}
	memcpy(confirmed, p->seen, kept * sizeof(*confirmed));
	p->used = false;
	return kept;
}

uint64_t pp_diag_waits_blocking_report(struct pp_diag_device *d, const struct pp_diag_blocking *b)
{
	uint64_t key = mix64(mix64(d->cfg.sink_device_id + 1, b->rule + 101), b->site_key);
	uint64_t counted = 0;
	pthread_mutex_lock(&d->lock);
	uint64_t frame = d->frame;
	/* A site already counted (every occurrence but the first) is found and counted under one
	 * take of the table's lock, let go only while a new steady-state site waits for its
	 * frames (steady_pending). */
	pthread_mutex_lock(&pp_diag_sites_table.lock);
	struct site *s = pp_diag_sites_find_locked(key);
	struct pending_frame confirmed[STEADY_FRAMES - 1];
	uint32_t nconfirmed = 0;
	if (!s && b->steady_state) {
		pthread_mutex_unlock(&pp_diag_sites_table.lock);
		nconfirmed = steady_pending(d, key, frame, b->cpu_ns, confirmed);
		if (!nconfirmed) {
			pthread_mutex_unlock(&d->lock);
			return 0;
		}
		pthread_mutex_lock(&pp_diag_sites_table.lock);
	}
	bool created = false;
	if (!s && (s = pp_diag_sites_insert_locked(key))) {
		created = true;
		snprintf(s->d.id, sizeof(s->d.id), "%s", pp_diag_vocab_rule_id(b->rule));
		s->d.device_id = d->cfg.sink_device_id;
		snprintf(s->d.site, sizeof(s->d.site), "%s", b->site ? b->site : "");
		snprintf(s->d.message, sizeof(s->d.message), "%s%s%s", blocking_message(b->rule),
			 b->detail ? " " : "", b->detail ? b->detail : "");
		snprintf(s->d.suggestion, sizeof(s->d.suggestion), "%s", blocking_suggestion(b->rule));
		s->d.cost_kind = b->cost_unavailable ? NULL : "cpu_blocked";
		s->d.cost_unavailable = b->cost_unavailable;
		s->d.gpu_idle_unavailable = b->cost_unavailable ? "not a wait" : "no GPU timestamps around this wait yet";
		s->d.thread_id = b->thread_id;
		snprintf(s->d.thread_name, sizeof(s->d.thread_name), "%s", b->thread_name ? b->thread_name : "");
		blocking_severity(&s->d, b);
		for (uint32_t i = 0; i < nconfirmed; i++) {
			/* the earlier occurrences, now confirmed, in the frames they belonged to */
			pp_diag_sites_count_locked(s, confirmed[i].frame, confirmed[i].calls);
			if (!b->cost_unavailable) {
				s->cost_sum += confirmed[i].cpu_ns;
				s->cost_frames++;
				s->cost_last_frame = confirmed[i].frame;
			}
		}
	}
	struct pp_diagnostic copy;
	bool raised = false;
	const char *trace_name = NULL;
	struct pp_diagnostic_occurrence occ;
	bool captured = false;
	if (s) {
		/* Waited on by a thread of the frame too: the frame waits (the site keeps the
		 * thread of its first occurrence in its text). */
		if (!created && !b->worker_thread && pp_diag_severity_of(&s->d) == PP_DIAG_INFO &&
		    pp_diag_severity_rule(b->rule) == PP_DIAG_WARNING) {
			blocking_severity(&s->d, b);
			/* Said again, now as a warning: a messenger that filters out information
			 * never heard of it, and the log printed it at info level. */
			raised = true;
			copy = s->d;
		}
		pp_diag_sites_count_locked(s, frame, 1);
		if (!b->cost_unavailable) {
			if (!s->cost_frames || s->cost_last_frame != frame)
				s->cost_frames++;
			s->cost_last_frame = frame;
			s->cost_sum += b->cpu_ns;
		}
		counted = key;
		if (created)
			trace_name = pp_diag_sites_first_seen_locked(s, &copy);
		if (b->capture_call && d->cfg.out.captured) {
			pp_diag_findings_occurrence_fill(&occ, &s->d, b->capture_call, b->capture_call_index, 0);
			captured = true;
		}
	}
	pthread_mutex_unlock(&pp_diag_sites_table.lock);
	if (captured)
		d->cfg.out.captured(d->cfg.sink_device_id, b->capture_frame, &occ);
	if (created || raised)
		pp_diag_device_site_announce(d, &copy, trace_name, b->objects, b->nobjects, b->rule, frame);
	pthread_mutex_unlock(&d->lock);
	return counted;
}

uint32_t pp_diag_waits_call_count(struct pp_diag_device *d, uint32_t call, uint64_t frame)
{
	if (call >= PP_DIAG_COUNTED_CALLS)
		return 0;
	uint64_t *word = &d->call_counts[call];
	const uint64_t mask = (1ull << 24) - 1;
	uint64_t tag = (frame & ((1ull << 40) - 1)) << 24;
	uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED), next;
	do {
		/* Another frame's count starts over; a count at its limit stays there. */
		next = (old & ~mask) == tag ? old + ((old & mask) < mask) : tag | 1;
	} while (!__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return (uint32_t)((next & mask) - 1);
}

uint32_t pp_diag_waits_poll(struct pp_diag_device *d, enum pp_diag_object_kind kind, uint64_t handle, uint64_t now,
		      uint64_t *since)
{
	pthread_mutex_lock(&d->lock);
	struct poll_rec *p = NULL, *victim = &d->polls[0];
	for (uint32_t i = 0; i < DEV_MAX_POLLS && !p; i++) {
		if (d->polls[i].handle == handle && d->polls[i].kind == kind)
			p = &d->polls[i];
		else if (d->polls[i].frame < victim->frame || !d->polls[i].handle)
			victim = &d->polls[i];
	}
	if (!p) {
		p = victim;
		*p = (struct poll_rec){ kind, handle, d->frame, now, 0 };
	}
	if (p->frame != d->frame) {
		p->frame = d->frame;
		p->count = 0;
	}
	if (!p->count)
		p->since = now;
	uint32_t n = ++p->count;
	*since = p->since;
	pthread_mutex_unlock(&d->lock);
	return n;
}

/* ---- timeline semaphores ------------------------------------------------------------------ */

/* Caller holds d->lock. */
static struct sem_rec *sem_find(struct pp_diag_device *d, uint64_t sem)
{
	for (uint32_t i = 0; sem && i < PP_DIAG_MAX_SEMAPHORES; i++)
		if (d->sems[i].used && d->sems[i].sem == sem)
			return &d->sems[i];
	return NULL;
}

bool pp_diag_waits_semaphore_create(struct pp_diag_device *d, uint64_t sem, uint64_t initial)
{
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	for (uint32_t i = 0; !s && i < PP_DIAG_MAX_SEMAPHORES; i++)
		if (!d->sems[i].used)
			s = &d->sems[i];
	if (s)
		*s = (struct sem_rec){ .sem = sem, .used = true, .reached = initial, .evicted_max = initial };
	pthread_mutex_unlock(&d->lock);
	if (!s)
		pp_log_once(PP_LOG_INFO, "diagnostics: more than %u timeline semaphores; waits on the others are not judged",
			    PP_DIAG_MAX_SEMAPHORES);
	return s != NULL;
}

void pp_diag_waits_semaphore_destroy(struct pp_diag_device *d, uint64_t sem)
{
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s)
		s->used = false;
	pthread_mutex_unlock(&d->lock);
}

/* Caller holds d->lock. */
void pp_diag_waits_semaphore_signal_locked(struct pp_diag_device *d, uint64_t sem, uint64_t value, bool host)
{
	struct sem_rec *s = sem_find(d, sem);
	if (s) {
		struct sem_signal sig = { value, host ? 0 : d->next_seq, d->frame };
		if (s->nsig < PP_DIAG_SEMAPHORE_SIGNALS) {
			s->sig[s->nsig++] = sig;
		} else {
			if (s->sig[s->oldest].value > s->evicted_max)
				s->evicted_max = s->sig[s->oldest].value;
			s->sig[s->oldest] = sig;
			s->oldest = (s->oldest + 1) % PP_DIAG_SEMAPHORE_SIGNALS;
		}
		/* A host signal has happened when the call returns. */
		if (host && value > s->reached)
			s->reached = value;
	}
}

void pp_diag_waits_semaphore_signal(struct pp_diag_device *d, uint64_t sem, uint64_t value, bool host)
{
	pthread_mutex_lock(&d->lock);
	pp_diag_waits_semaphore_signal_locked(d, sem, value, host);
	pthread_mutex_unlock(&d->lock);
}

enum pp_diag_wait_verdict pp_diag_waits_semaphore_check(struct pp_diag_device *d, uint64_t sem, uint64_t value,
						  uint64_t *seq)
{
	enum pp_diag_wait_verdict v = PP_WAIT_UNKNOWN;
	*seq = 0;
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s && (value <= s->reached || value <= s->evicted_max)) {
		v = PP_WAIT_FINE;
	} else if (s) {
		/* The wait ends with the first signal that reaches the value. */
		const struct sem_signal *first = NULL;
		for (uint32_t i = 0; i < s->nsig; i++)
			if (s->sig[i].value >= value && (!first || s->sig[i].value < first->value))
				first = &s->sig[i];
		if (first && !first->seq) {
			v = PP_WAIT_FINE;
		} else if (first) {
			*seq = first->seq;
			v = verdict_of(d, first->seq, first->frame);
		}
	}
	pthread_mutex_unlock(&d->lock);
	return v;
}

bool pp_diag_waits_semaphore_reached(struct pp_diag_device *d, uint64_t sem, uint64_t value)
{
	bool pending = false;
	pthread_mutex_lock(&d->lock);
	struct sem_rec *s = sem_find(d, sem);
	if (s) {
		if (value > s->reached)
			s->reached = value;
		for (uint32_t i = 0; i < s->nsig; i++) {
			const struct sem_signal *g = &s->sig[i];
			if (!g->seq)
				continue;
			if (g->value > value)
				pending = true;
			else if (g->seq > d->completed)
				d->completed = g->seq;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return pending;
}

