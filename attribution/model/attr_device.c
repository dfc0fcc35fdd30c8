/* Submissions, frames and harvesting for one device. All state behind one mutex: submits on
 * different queues and threads, and releases of recordings, meet here only at boundaries. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr_cpu.h"
#include "attr_frame_counters.h"
#include "attr_device.h"
#include "attr_device_internal.h"
#include "pp_renderdoc.h"
#include "pp_spare.h"
#include "attr_frame.h"
#include "attr_overlap.h"
#include "pp_clock.h"
#include "pp_log.h"

#define LABEL_DEPTH 64
#define MAX_PENDING_FRAMES 64
/* A frame that never meets its delimiter (present-delimited frames in a program that never
 * presents) is closed after this many submissions, so memory stays bounded. */
#define MAX_FRAME_SUBMISSIONS 4096

struct pp_frame_acc {
	struct pp_frame_acc *next;
	uint64_t index;
	bool closed;
	const char *delimiter;
	uint64_t cpu_begin_ns, cpu_end_ns;
	struct pp_submission *subs, *subs_tail;
	uint32_t nsubs;
	struct pp_cpu_cost present_cpu;
	struct pp_cpu_cost blocked;
	uint32_t flags;         /* enum pp_frame_flags, from the clock when the frame opened */
	uint32_t recs_outside;  /* recordings begun outside a capture window submitted in it */
	uint32_t named_passes;  /* the application's passes of its submissions so far: where
				 * generated names go on */
	uint32_t foreign_passes; /* the same for passes other layers recorded */
	bool renderdoc_asked;   /* whether RenderDoc was capturing at its first application submission */
};

#define RDOC_FRAMES_KEPT 64

struct pp_attr_queue {
	struct pp_attr_device *device;
	uint64_t handle;
	uint32_t family, index;
	uint32_t depth; /* may exceed LABEL_DEPTH; names beyond it are not kept */
	/* The open labels' names: label[i] points either at labels[i] or, while a submission is
	 * being taken in, at the label's text in its recording (alive until the submit returns),
	 * copied into labels[i] only if the label is still open when the submission is done: a
	 * label around each pass is then never copied. */
	const char *label[LABEL_DEPTH];
	char labels[LABEL_DEPTH][PP_NAME_BYTES]; /* zero-padded: pass_name copies a name whole */
};

struct pp_attr_device {
	pthread_mutex_t lock;
	struct pp_attr_gpu_ops ops;
	pp_attr_frame_fn frame_out;
	uint32_t sink_id;
	struct pp_frame_clock clock; /* decides where frames end (attr_frame.h) */
	char frame_label[128];
	char trigger_file[PATH_MAX]; /* the clock's trigger_file points here */
	uint64_t next_seq;
	uint32_t nframes;
	struct pp_frame_acc *frames, *frames_tail; /* oldest first; the tail may be open */
	struct pp_cpu_cost blocked_orphan; /* blocking calls while no frame was pending */
	/* Counters measured over several frames or sampled (attr_frame_counters.c). */
	struct attr_frame_counters *counters;
	/* Frames RenderDoc captured, waiting to be paired with their capture files. */
	struct {
		uint64_t frame;
		bool requested;
	} rdoc[RDOC_FRAMES_KEPT];
	uint32_t rdoc_head, rdoc_count;
	struct pp_spare *spare; /* a submission's block freed, for the next (submission_alloc) */
	struct pp_spare *frame_spare; /* the last frame record handed on, for the next (frame_current) */
};

struct pp_attr_device *pp_attr_device_create(const struct pp_attr_gpu_ops *ops, pp_attr_frame_fn frame_out,
					     uint32_t sink_id, const struct pp_settings *s)
{
	struct pp_attr_device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	d->ops = *ops;
	d->frame_out = frame_out;
	d->sink_id = sink_id;
	pp_attr_frame_clock_init(&d->clock, s->frame_delimiter);
	snprintf(d->frame_label, sizeof(d->frame_label), "%s", s->frame_label);
	snprintf(d->trigger_file, sizeof(d->trigger_file), "%s", s->trigger_file);
	struct pp_frame_capture cap = {
		.frames = s->frames,
		.signal = s->capture_signal,
		.trigger_file = d->trigger_file,
		.trigger_frames = s->trigger_frames,
		.timing_interval = s->gpu_timing_interval,
		.renderdoc = s->renderdoc_frames,
		.experiment = s->experiment != PP_EXPERIMENT_OFF,
	};
	pp_attr_frame_clock_capture_set(&d->clock, &cap);
	d->counters = pp_attr_frame_counters_create(ops);
	if (!d->counters)
		pp_log_once(PP_LOG_ERROR, "out of memory setting up GPU counters merged over frames; they are "
					  "not merged");
	return d;
}

struct pp_attr_queue *pp_attr_device_queue_create(struct pp_attr_device *d, uint64_t handle, uint32_t family, uint32_t index)
{
	struct pp_attr_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->device = d;
	q->handle = handle;
	q->family = family;
	q->index = index;
	return q;
}

void pp_attr_device_queue_destroy(struct pp_attr_queue *q)
{
	free(q);
}

/* What a label without a name is called, padded as the queue's and the recordings' names are. */
static const char null_label[PP_NAME_BYTES] = "(null)";

/* name: alive until labels_keep is called. */
static void label_apply(struct pp_attr_queue *q, enum pp_label_op op, const char *name)
{
	if (op == PP_LABEL_PUSH) {
		if (q->depth < LABEL_DEPTH)
			q->label[q->depth] = name ? name : null_label;
		q->depth++;
	} else if (op == PP_LABEL_POP && q->depth > 0) {
		q->depth--;
	}
}

/* Copies the names of the labels still open that are not the queue's own yet. */
static void labels_keep(struct pp_attr_queue *q)
{
	for (uint32_t i = 0; i < q->depth && i < LABEL_DEPTH; i++)
		if (q->label[i] != q->labels[i]) {
			pp_model_name_copy_padded(q->labels[i], q->label[i]);
			q->label[i] = q->labels[i];
		}
}

void pp_attr_device_queue_label(struct pp_attr_queue *q, enum pp_label_op op, const char *name)
{
	pthread_mutex_lock(&q->device->lock);
	label_apply(q, op, name);
	labels_keep(q);
	pthread_mutex_unlock(&q->device->lock);
}

void pp_attr_device_recording_release(struct pp_attr_device *d, struct pp_recording *r)
{
	if (!d || !r)
		return;
	/* last_submission is cleared by harvests on other threads: read it under the lock. */
	pthread_mutex_lock(&d->lock);
	if (r->last_submission)
		pp_attr_harvest_submission(&d->ops, r->last_submission, true);
	pthread_mutex_unlock(&d->lock);
}

bool pp_attr_device_recording_pending(struct pp_attr_device *d, struct pp_recording *r)
{
	if (!d || !r)
		return false;
	pthread_mutex_lock(&d->lock);
	if (r->last_submission)
		pp_attr_harvest_submission(&d->ops, r->last_submission, false);
	bool pending = r->last_submission != NULL;
	pthread_mutex_unlock(&d->lock);
	return pending;
}

uint64_t pp_attr_device_frame_recording(struct pp_attr_device *d)
{
	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	uint64_t index = d->clock.open ? d->clock.current : d->clock.next;
	pthread_mutex_unlock(&d->lock);
	return index;
}

/* ---- frames --------------------------------------------------------------------------- */

/* A submission's block of `bytes`, zeroed: a frame's submissions are freed as it is handed
 * on, the next frame's allocated soon after, a kilobyte or more each (pp_spare.h). */
static struct pp_submission *submission_alloc(struct pp_attr_device *d, size_t bytes)
{
	struct pp_submission *s = pp_spare_take(&d->spare, bytes);
	if (s)
		memset(s, 0, bytes);
	return s;
}

static void submission_free(struct pp_attr_device *d, struct pp_submission *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->npasses; i++) {
		free(s->passes[i].draw_timings);
		free(s->passes[i].counters);
	}
	free(s->passes);
	pp_spare_give(&d->spare, s);
}

static void frame_emit(struct pp_attr_device *d, struct pp_frame_acc *f)
{
	/* Outside capture windows a frame is counted by the clock and forgotten here. */
	struct pp_frame_result *out = (f->flags & PP_FRAME_CAPTURED) ? pp_model_frame_result_alloc(f->nsubs) : NULL;
	bool captured = f->flags & PP_FRAME_CAPTURED;
	size_t npasses = 0;
	for (struct pp_submission *s = f->subs; s; s = s->next)
		npasses += s->npasses;
	/* A frame of one submission (most are) takes that submission's passes as they are; several
	 * are copied into one array. A pass result is over a kilobyte: the copy was about 190
	 * instructions a pass on the application's thread. */
	bool take = f->subs && !f->subs->next;
	/* Not zeroed: each of the npasses is copied in whole from its submission below (or the
	 * one submission's array is taken). */
	if (out && !take)
		out->passes = malloc((npasses ? npasses : 1) * sizeof(*out->passes));
	if (captured && (!out || (!take && !out->passes))) {
		pp_log_once(PP_LOG_ERROR, "out of memory assembling a frame; frames are being dropped");
		if (out)
			pp_model_frame_result_free(out);
		out = NULL;
	}
	uint32_t si = 0, pi = 0;
	for (struct pp_submission *s = f->subs, *next; s; s = next) {
		next = s->next;
		if (out) {
			/* Without a GPU interval every pass's overlap and exclusive time stay as its
			 * head was cleared: none. */
			if (s->timed)
				pp_attr_overlap_exclusive_times(s->passes, s->npasses);
			struct pp_submission_result *sr = &out->submissions[si];
			*sr = s->res;
			sr->first_pass = pi;
			sr->npasses = s->npasses;
			sr->gpu.valid = false;
			sr->gpu.unavailable_reason = "no pass of this submission has a GPU time";
			for (uint32_t p = 0; p < s->npasses; p++) {
				struct pp_pass_result *pr = &s->passes[p];
				pr->submission = si;
				if (pr->gpu.valid) {
					if (!sr->gpu.valid || pr->gpu.begin_ns < sr->gpu.begin_ns)
						sr->gpu.begin_ns = pr->gpu.begin_ns;
					if (!sr->gpu.valid || pr->gpu.end_ns > sr->gpu.end_ns)
						sr->gpu.end_ns = pr->gpu.end_ns;
					sr->gpu.valid = true;
					sr->gpu.unavailable_reason = NULL;
				}
				if (!take) {
					out->passes[pi] = *pr;
					pr->draw_timings = NULL; /* moved */
					pr->counters = NULL;
					pr->ncounters = 0;
				}
				pi++;
			}
			if (take) {
				out->passes = s->passes; /* moved, with what its passes own */
				s->passes = NULL;
				s->npasses = 0;
			}
			si++;
		}
		submission_free(d, s);
	}
	if (out) {
		pp_attr_cpu_cost_add(&out->cpu, &f->present_cpu);
		out->blocked = f->blocked;
		pp_attr_cpu_cost_add(&out->cpu, &f->blocked);
		for (uint32_t i = 0; i < si; i++)
			pp_attr_cpu_cost_add(&out->cpu, &out->submissions[i].cpu);
		/* Pending spans are added where they are subtracted (pp_attr_cpu_frame_result_resolve). */
		for (uint32_t i = 0; i < pi; i++)
			if (!out->passes[i].recording_reused && !out->passes[i].cpu_pending)
				pp_attr_cpu_cost_add(&out->cpu, &out->passes[i].cpu);
		out->index = f->index;
		out->device_id = d->sink_id;
		out->delimiter = f->delimiter;
		out->cpu_begin_ns = f->cpu_begin_ns;
		out->cpu_end_ns = f->cpu_end_ns;
		out->gpu_timed = f->flags & PP_FRAME_GPU_TIMED;
		out->captured_by = (f->flags & PP_FRAME_BY_FILE) ? "trigger_file"
				   : (f->flags & PP_FRAME_BY_SIGNAL) ? "signal"
				   : (f->flags & PP_FRAME_BY_RENDERDOC) ? "renderdoc" : "frames";
		out->renderdoc = f->flags & PP_FRAME_RENDERDOC;
		out->renderdoc_requested = f->flags & PP_FRAME_RENDERDOC_WANTED;
		out->recordings_outside_window = f->recs_outside;
		out->nsubmissions = si;
		out->npasses = pi;
		pp_attr_frame_counters_add(d->counters, out);
		d->frame_out(out);
	}
	pp_spare_give(&d->frame_spare, f);
}

/* Emits complete frames, oldest first. Caller holds the lock. */
static void frames_drain(struct pp_attr_device *d, bool force_all)
{
	while (d->frames) {
		struct pp_frame_acc *f = d->frames;
		bool force = force_all || d->nframes > MAX_PENDING_FRAMES;
		bool ready = f->closed || force_all;
		for (struct pp_submission *s = f->subs; s && ready; s = s->next)
			if (!s->harvested)
				ready = pp_attr_harvest_submission(&d->ops, s, force);
		if (!ready)
			return;
		if (!f->closed) {
			f->closed = true;
			f->delimiter = "shutdown";
			f->cpu_end_ns = pp_clock_now_ns();
		}
		d->frames = f->next;
		if (!d->frames)
			d->frames_tail = NULL;
		d->nframes--;
		frame_emit(d, f);
	}
}

void pp_attr_device_poll(struct pp_attr_device *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	frames_drain(d, false);
	pthread_mutex_unlock(&d->lock);
}

void pp_attr_device_destroy(struct pp_attr_device *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	frames_drain(d, true);
	pthread_mutex_unlock(&d->lock);
	pthread_mutex_destroy(&d->lock);
	pp_attr_frame_counters_destroy(d->counters);
	pp_spare_free(&d->spare);
	pp_spare_free(&d->frame_spare);
	free(d);
}

/* The record of frame `index`, the clock's open frame. */
static struct pp_frame_acc *frame_current(struct pp_attr_device *d, uint64_t index, uint64_t cpu_begin)
{
	struct pp_frame_acc *f = d->frames_tail;
	if (f && !f->closed && f->index == index)
		return f;
	/* A record is half a kilobyte, made every frame: the last one handed on is taken again. */
	f = pp_spare_take(&d->frame_spare, sizeof(*f));
	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->index = index;
	f->flags = pp_attr_frame_clock_flags(&d->clock);
	f->cpu_begin_ns = cpu_begin;
	f->blocked = d->blocked_orphan;
	memset(&d->blocked_orphan, 0, sizeof(d->blocked_orphan));
	if (d->frames_tail)
		d->frames_tail->next = f;
	else
		d->frames = f;
	d->frames_tail = f;
	d->nframes++;
	return f;
}

static void frame_close(struct pp_attr_device *d, const char *why)
{
	struct pp_frame_acc *f = d->frames_tail;
	if (!f || f->closed)
		return;
	f->closed = true;
	f->delimiter = why;
	f->cpu_end_ns = pp_clock_now_ns();
}

/* After the frame clock decided (under d->lock): closes the frame it ended, hands finished
 * frames on, and unlocks. Returns the clock's "every frame below this has ended". */
static uint64_t clock_decided_unlock(struct pp_attr_device *d, bool frame_ended)
{
	if (frame_ended)
		frame_close(d, d->clock.why);
	frames_drain(d, false);
	uint64_t ended = d->clock.ended;
	pthread_mutex_unlock(&d->lock);
	return ended;
}

uint64_t pp_attr_device_submit_done(struct pp_attr_device *d, enum pp_submit_sync sync, bool saw_frame_label)
{
	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	return clock_decided_unlock(d, pp_attr_frame_clock_submit_done(&d->clock, sync, saw_frame_label));
}

uint64_t pp_attr_device_waited_idle(struct pp_attr_device *d)
{
	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	return clock_decided_unlock(d, pp_attr_frame_clock_waited_idle(&d->clock));
}

void pp_attr_device_swapchain_created(struct pp_attr_device *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	pp_attr_frame_clock_swapchain_created(&d->clock);
	pthread_mutex_unlock(&d->lock);
}

uint64_t pp_attr_device_present(struct pp_attr_device *d, const struct pp_cpu_cost *cpu)
{
	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	if (cpu && d->frames_tail && !d->frames_tail->closed)
		pp_attr_cpu_cost_add(&d->frames_tail->present_cpu, cpu);
	return clock_decided_unlock(d, pp_attr_frame_clock_present(&d->clock));
}

void pp_attr_device_blocking(struct pp_attr_device *d, const struct pp_cpu_cost *cost)
{
	if (!d || !cost)
		return;
	pthread_mutex_lock(&d->lock);
	/* The frame the application is building: after a delimiter, the next one (a frame loop
	 * waits for an earlier frame's fence at the start of the next). */
	struct pp_frame_acc *f = d->frames_tail;
	pp_attr_cpu_cost_add(f && !f->closed ? &f->blocked : &d->blocked_orphan, cost);
	pthread_mutex_unlock(&d->lock);
}

uint32_t pp_attr_device_frame_building(const struct pp_attr_device *d)
{
	if (!d)
		return PP_FRAME_ALL;
	uint32_t f = pp_attr_frame_clock_building(&d->clock);
	/* A frame RenderDoc captures is measured in full even outside windows or sampled timing:
	 * recordings begun while it captures are timed (RenderDoc began before the frame). */
	bool renderdoc = pp_renderdoc_present() && pp_renderdoc_capturing();
	if ((f & PP_FRAME_ALL) != PP_FRAME_ALL && renderdoc)
		f |= PP_FRAME_ALL;
	/* Nothing RenderDoc captures is changed by the experiment. */
	if (renderdoc)
		f &= ~(uint32_t)PP_FRAME_EXP;
	return f;
}

bool pp_attr_device_frame_between(struct pp_attr_device *d, uint32_t *flags)
{
	if (!d) {
		*flags = PP_FRAME_ALL;
		return true;
	}
	pthread_mutex_lock(&d->lock);
	bool between = !d->clock.open;
	*flags = between ? d->clock.next_flags : d->clock.current_flags;
	pthread_mutex_unlock(&d->lock);
	return between;
}

bool pp_attr_device_renderdoc_frame_take(struct pp_attr_device *d, uint64_t *frame, bool *requested)
{
	if (!d)
		return false;
	pthread_mutex_lock(&d->lock);
	bool got = d->rdoc_count && d->rdoc[d->rdoc_head].frame < d->clock.ended;
	if (got) {
		*frame = d->rdoc[d->rdoc_head].frame;
		*requested = d->rdoc[d->rdoc_head].requested;
		d->rdoc_head = (d->rdoc_head + 1) % RDOC_FRAMES_KEPT;
		d->rdoc_count--;
	}
	pthread_mutex_unlock(&d->lock);
	return got;
}

bool pp_attr_device_recordings_have_label(const struct pp_attr_device *d, struct pp_recording *const *recs, uint32_t n)
{
	if (d->clock.delimiter != PP_FRAME_LABEL)
		return false;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; recs[i] && j < recs[i]->nlabels; j++)
			if (recs[i]->labels[j].op == PP_LABEL_PUSH && !strcmp(recs[i]->labels[j].name, d->frame_label))
				return true;
	return false;
}

/* ---- submission ----------------------------------------------------------------------- */

void pp_attr_device_pass_generated_name(char *out, size_t len, enum pp_pass_kind kind, uint32_t index)
{
	static const char *const kind_names[] = { "render", "compute", "transfer" };
	snprintf(out, len, "%s#%u", kind <= PP_PASS_TRANSFER ? kind_names[kind] : "pass", index);
}

/* index: the pass's position in its frame, over all the frame's submissions, so that a
 * generated name ("render#3") is one pass of the frame, the same pass in every frame of a
 * program that renders its frames alike. */
static void pass_name(struct pp_pass_result *out, const struct pp_pass_rec *p, const struct pp_attr_queue *q,
		      uint32_t index)
{
	/* A label's name is a recording's or the queue's, and an object's name is the pass record's:
	 * buffers of PP_NAME_BYTES, each terminated within them, copied whole. */
	_Static_assert(sizeof(p->object_name) == PP_NAME_BYTES && sizeof(out->name) == PP_NAME_BYTES, "names copied whole");
	if (q->depth > 0 && q->depth <= LABEL_DEPTH) {
		memcpy(out->name, q->label[q->depth - 1], PP_NAME_BYTES);
		out->name_source = PP_NAME_LABEL;
	} else if (p->object_name[0]) {
		memcpy(out->name, p->object_name, PP_NAME_BYTES);
		out->name[PP_NAME_BYTES - 1] = '\0';
		out->name_source = PP_NAME_OBJECT;
	} else if (out->recorded_by) {
		char gen[32];
		pp_attr_device_pass_generated_name(gen, sizeof(gen), p->kind, index);
		snprintf(out->name, sizeof(out->name), "%s:%s", out->recorded_by, gen);
		out->name_source = PP_NAME_GENERATED;
	} else {
		pp_attr_device_pass_generated_name(out->name, sizeof(out->name), p->kind, index);
		out->name_source = PP_NAME_GENERATED;
	}
}

static const char *const reason_no_timestamps = "no timestamps for this pass";

/* Where this execution's result for `slot` is: the recording's own slot, or its copy. */
static uint32_t slot_mapped(const struct pp_attr_slot_map *m, uint32_t slot)
{
	if (!m || slot == PP_NO_SLOT)
		return slot;
	if (m->reason)
		return PP_NO_SLOT;
	for (uint32_t i = 0; i < m->nchunks; i++)
		if (m->from[i] == slot / m->chunk_slots)
			return m->to[i] * m->chunk_slots + slot % m->chunk_slots;
	return PP_NO_SLOT;
}

uint64_t pp_attr_device_submit(struct pp_attr_device *d, struct pp_attr_queue *q, const struct pp_attr_submit_info *info)
{
	uint32_t npasses = 0, ndraws = 0;
	for (uint32_t i = 0; i < info->nrecordings; i++)
		if (info->recordings[i]) {
			npasses += info->recordings[i]->npasses;
			ndraws += info->recordings[i]->ndraw_slots / 2;
		}

	pthread_mutex_lock(&d->lock);
	/* The previous use of these recordings (or of the copies they are read from) must be read
	 * before their slots are reset. */
	for (uint32_t i = 0; i < info->nrecordings; i++) {
		const struct pp_attr_slot_map *m = info->maps ? info->maps[i] : NULL;
		struct pp_recording *r = m ? m->owner : info->recordings[i];
		if (r && r->last_submission)
			pp_attr_harvest_submission(&d->ops, r->last_submission, true);
	}

	/* The clock counts the submission even when it cannot be measured, so the frame indices
	 * the diagnostics take from it stay those of report.json. */
	uint64_t index = pp_attr_frame_clock_submit(&d->clock);
	/* The submission and its per-pass tables in one allocation (the passes apart: a frame takes
	 * them over): the reasons and the recordings zeroed, the slots each filled before use. */
	size_t nptrs = (size_t)npasses + 1 + info->nrecordings + 1;
	size_t nslots = 2 * (size_t)npasses + 1 + 2 * ((size_t)npasses + 1) + 2 * (size_t)ndraws + 1;
	_Static_assert(sizeof(struct pp_submission) % sizeof(void *) == 0, "the tables follow the submission aligned");
	struct pp_submission *s = submission_alloc(d, sizeof(*s) + nptrs * sizeof(void *) + nslots * sizeof(uint32_t));
	struct pp_frame_acc *f = s ? frame_current(d, index, info->cpu_begin_ns) : NULL;
	if (s) {
		s->perf_reasons = (const char **)(s + 1);
		s->recs = (struct pp_recording **)(s->perf_reasons + npasses + 1);
		uint32_t *slots = (uint32_t *)(s->recs + info->nrecordings + 1);
		s->ts_slots = slots;
		s->stats_slots = slots + 2 * npasses + 1;
		s->perf_slots = s->stats_slots + npasses + 1;
		s->draw_slots = s->perf_slots + npasses + 1;
		/* Not zeroed: each pass used clears its head (PP_PASS_RESULT_HEAD) when it is filled. */
		s->passes = malloc((npasses ? npasses : 1) * sizeof(*s->passes));
	}
	if (!f || !s->passes) {
		pp_log_once(PP_LOG_ERROR, "out of memory recording a submission; it is not measured");
		submission_free(d, s);
		pthread_mutex_unlock(&d->lock);
		return index;
	}

	/* Whether RenderDoc captures the frame is asked once, at its first submission of the
	 * application's: RenderDoc began capturing at a frame boundary before it (its own trigger
	 * at a present, or passprobe's request between frames), never in the middle of one. */
	if (!info->foreign && !f->renderdoc_asked) {
		f->renderdoc_asked = true;
		bool capturing = info->renderdoc == PP_ATTR_RDOC_ASK ? pp_renderdoc_present() && pp_renderdoc_capturing()
								     : info->renderdoc == PP_ATTR_RDOC_YES;
		if (capturing) {
			pp_attr_frame_clock_renderdoc(&d->clock);
			f->flags = pp_attr_frame_clock_flags(&d->clock);
			if (d->rdoc_count == RDOC_FRAMES_KEPT) {
				pp_log_once(PP_LOG_WARN, "more than %d RenderDoc captures waiting for their files; the "
							 "oldest is reported without one", RDOC_FRAMES_KEPT);
				d->rdoc_head = (d->rdoc_head + 1) % RDOC_FRAMES_KEPT;
				d->rdoc_count--;
			}
			uint32_t at = (d->rdoc_head + d->rdoc_count++) % RDOC_FRAMES_KEPT;
			d->rdoc[at].frame = index;
			d->rdoc[at].requested = f->flags & PP_FRAME_RENDERDOC_WANTED;
		}
	}

	struct pp_submission_result *sr = &s->res;
	sr->seq = d->next_seq++;
	sr->api = info->api;
	sr->queue_handle = q->handle;
	sr->queue_family = q->family;
	sr->queue_index = q->index;
	sr->tid = info->tid;
	sr->cpu_begin_ns = info->cpu_begin_ns;
	sr->cpu_end_ns = info->cpu_end_ns;
	sr->command_buffers = info->nrecordings;
	sr->cpu = info->cpu;

	/* An open suspended render pass continues into the next command buffer of the batch. */
	int32_t suspended = -1;
	uint32_t out = 0, nd = 0, own = 0, foreign = 0;
	uint32_t slots_all = PP_NO_SLOT; /* the AND of every slot taken: PP_NO_SLOT when none */
	for (uint32_t c = 0; c < info->nrecordings; c++) {
		struct pp_recording *r = info->recordings[c];
		if (!r)
			continue;
		const struct pp_attr_slot_map *m = info->maps ? info->maps[c] : NULL;
		uint64_t handle = info->command_buffer_handles ? info->command_buffer_handles[c] : 0;
		/* Read once: the compiler cannot tell that the queue's label stack is not them. */
		const struct pp_label_event *labels = r->labels;
		uint32_t ev = 0, nlabels = r->nlabels;
		/* Begun outside a capture window: its passes were recorded for the diagnostics
		 * only (no CPU or GPU measurement), and are left out of the frame. */
		uint32_t np = r->quiet ? 0 : r->npasses;
		f->recs_outside += r->quiet;
		uint32_t last_new = UINT32_MAX; /* the pass of r behind s->passes[out - 1], with a CPU span */
		for (uint32_t i = 0; i < np; i++) {
			const struct pp_pass_rec *p = &r->passes[i];
			for (; ev < nlabels && labels[ev].pos <= i; ev++)
				label_apply(q, labels[ev].op, labels[ev].name);

			struct pp_pass_result *pr;
			if ((p->flags & PP_PASS_RESUMING) && suspended >= 0) {
				pr = &s->passes[suspended];
				pp_attr_record_workload_add(&pr->work, &p->work);
				pp_attr_cpu_pass_merge(pr, p);
				pr->secondaries += p->secondaries;
				s->ts_slots[2 * suspended + 1] = slot_mapped(m, p->ts_end);
				slots_all &= p->ts_end;
				if (p->ts_end == PP_NO_SLOT && !(p->flags & PP_PASS_SUSPENDING))
					pr->gpu.unavailable_reason = p->ts_reason ? p->ts_reason : reason_no_timestamps;
			} else {
				pr = &s->passes[out];
				memset(pr, 0, PP_PASS_RESULT_HEAD);
				/* Another layer's passes are counted apart, so that the application's
				 * generated names ("render#3") stay the same whether a layer above added work
				 * to the frame or not. */
				pr->recorded_by = p->recorded_by ? p->recorded_by : r->recorded_by;
				pass_name(pr, p, q, pr->recorded_by ? f->foreign_passes + foreign++ : f->named_passes + own++);
				pr->kind = p->kind;
				pr->api = p->api;
				pr->command_buffer = c;
				pr->command_buffer_handle = handle;
				pr->subpasses = p->subpasses;
				pr->secondaries = p->secondaries;
				pr->work = p->work;
				pr->cpu.valid = false;
				pp_attr_cpu_pass_take(pr, p, i > 0 && last_new == i - 1);
				last_new = p->cpu_ended ? i : UINT32_MAX;
				pr->recording_reused = r->submissions > 0;
				pr->exp_arm = (uint8_t)r->exp_arm;
				pr->exp_seen = p->exp_seen;
				pr->exp_fixed = p->exp_fixed;
				pr->nattachments = p->nattachments;
				memcpy(pr->attachments, p->attachments, p->nattachments * sizeof(pr->attachments[0]));
				s->ts_slots[2 * out] = slot_mapped(m, p->ts_begin);
				s->ts_slots[2 * out + 1] = slot_mapped(m, p->ts_end);
				s->stats_slots[out] = slot_mapped(m, p->stats_slot);
				/* Why a time or the statistics will be missing where a slot is: the harvest
				 * keeps these where it has no slot to read and replaces them where it has. */
				const char *why = m && m->reason && p->ts_begin != PP_NO_SLOT ? m->reason : p->ts_reason;
				pr->gpu.unavailable_reason = why ? why : reason_no_timestamps;
				why = m && m->reason && p->stats_slot != PP_NO_SLOT ? m->reason : p->stats_reason;
				pr->stats_reason = why ? why : "not measured";
				pr->stats_valid = 0;
				pr->counters_pending = true;
				/* The hardware counter scopes are never copied per execution. */
				s->perf_slots[out] = m ? PP_NO_SLOT : p->perf_slot;
				slots_all &= p->ts_begin & p->ts_end & p->stats_slot & p->perf_slot;
				s->perf_reasons[out] = m && p->perf_slot != PP_NO_SLOT ? "SIMULTANEOUS_USE execution: no "
											 "hardware counters"
										       : p->perf_reason;
				if (p->ndraw_slots) {
					pr->draw_timings = calloc(p->ndraw_slots, sizeof(*pr->draw_timings));
					if (pr->draw_timings) {
						pr->ndraw_timings = p->ndraw_slots;
						for (uint32_t k = 0; k < 2 * p->ndraw_slots; k++)
							s->draw_slots[2 * nd + k] =
								slot_mapped(m, r->draw_slots[p->first_draw_slot + k]);
						nd += p->ndraw_slots;
					}
				}
				suspended = -1;
				out++;
			}
			if (p->flags & (PP_PASS_SUSPENDING | PP_PASS_RESUMING))
				pr->suspended_resumed = true;
			if (p->flags & PP_PASS_SUSPENDING)
				suspended = (int32_t)(pr - s->passes);
			else
				suspended = -1;
		}
		for (; ev < nlabels; ev++)
			label_apply(q, labels[ev].op, labels[ev].name);
		r->submissions++;
		struct pp_recording *owner = m ? m->owner : r;
		if (owner && (m ? !m->reason : r->nchunks)) {
			owner->last_submission = s;
			s->recs[s->nrecs++] = owner;
		}
	}
	s->npasses = out;
	s->ndraw_slots = nd;
	s->slotted = slots_all != PP_NO_SLOT || nd;
	f->named_passes += own;
	f->foreign_passes += foreign;

	if (f->subs_tail)
		f->subs_tail->next = s;
	else
		f->subs = s;
	f->subs_tail = s;
	if (++f->nsubs >= MAX_FRAME_SUBMISSIONS && pp_attr_frame_clock_end(&d->clock, "submission-limit"))
		frame_close(d, d->clock.why);
	labels_keep(q); /* the recordings' label texts may go once the submit returns */
	pthread_mutex_unlock(&d->lock);
	return index;
}
