/* trace.json: Chrome Trace Event Format, JSON array form, streamed as frames arrive.
 *
 * The file starts with "[" and every event is one line ending in ",", flushed after each
 * batch, so a process killed mid-run leaves a file that trace viewers load as it is (the
 * format allows the closing "]" to be missing) and that strict JSON readers load after
 * dropping the last, possibly partial, line and the trailing comma and adding "]". A clean
 * shutdown appends a final metadata event and "]", making the file strict JSON.
 *
 * Time: ts and dur are microseconds (3 decimals, i.e. exact nanoseconds) since the moment the
 * sinks started, which precedes everything the application does after that; the origin on
 * CLOCK_MONOTONIC is in the "passprobe_time_origin" metadata event.
 *
 * Tracks: CPU slices sit on the real thread ids of this process; each GPU queue is a synthetic
 * thread (tid PP_SINK_TRACE_GPU_TID + n) holding submission slices with their pass slices
 * nested inside. Viewers need proper nesting on a track, so a slice that would start before
 * the previous one on its track ended is clamped to start at that end (its true interval stays
 * in args), and one that would vanish entirely becomes an instant event carrying the reason.
 * Passes without a GPU time are instant events with the reason, never slices.
 *
 * Submit calls come from the frames' submission records (cat "cpu.submit", clamped like the
 * GPU slices should two on one thread overlap), each with a flow arrow (id = device << 40 | seq) to its GPU submission slice; a flow is written only when
 * both ends are. CPU events given to pp_attr_sink_cpu_event with category "submit" and a flow_id
 * describe the same calls and are therefore not written again. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp_json.h"
#include "attr_sink_internal.h"

#define TRACE_NAME "trace.json"
/* One event's text; bigger would mean a runaway name, and the event is skipped. */
#define TRACE_EVENT_MAX (64 * 1024)

/* One event being written, into the context's event writer: one event at a time, so nothing
 * that writes an event (metadata_write: thread_seen, queue_track) may run between ev_begin
 * and ev_end. */
struct trace_event {
	struct pp_json_writer *w;
	struct attr_sink_ctx *c;
};

static void ev_begin(struct trace_event *e, struct attr_sink_ctx *c, const char *ph,
		     const char *name, const char *cat, uint32_t tid, double ts_us)
{
	e->c = c;
	e->w = &c->trace_event;
	struct pp_json_writer *w = e->w;
	/* The buffer is kept from event to event: a malloc, realloc and free per event (two
	 * hundred per frame on a busy one) cost more than writing the event. */
	pp_json_write_reset(w);
	pp_json_write_begin_object(w);
	pp_json_write_kv_str_lit(w, "name", name ? name : "(unnamed)");
	if (cat)
		pp_json_write_kv_str_lit(w, "cat", cat);
	pp_json_write_kv_str_lit(w, "ph", ph);
	pp_json_write_kv_double_lit(w, "ts", ts_us);
	pp_json_write_kv_uint_lit(w, "pid", (uint64_t)c->pid);
	pp_json_write_kv_uint_lit(w, "tid", tid);
}

static void ev_end(struct trace_event *e)
{
	struct pp_json_writer *w = e->w;
	struct attr_sink_ctx *c = e->c;
	pp_json_write_end_object(w);
	if (pp_json_write_finish(w) == 0 && c->trace) {
		size_t len;
		const char *text = pp_json_write_mem(w, &len);
		pp_attr_sink_file_reserve(c->trace, &c->trace_buffered, len + 2);
		/* Only the holder of the I/O lock writes this stream: no stdio lock per event. */
		fwrite_unlocked(text, 1, len, c->trace);
		fwrite_unlocked(",\n", 1, 2, c->trace);
		c->trace_events++;
		c->trace_limit.bytes += len + 2;
	}
}

static void dur_write(struct pp_json_writer *w, uint64_t begin, uint64_t end)
{
	pp_json_write_kv_double_lit(w, "dur", (double)(end > begin ? end - begin : 0) / 1000.0);
}

static void metadata_write(struct attr_sink_ctx *c, const char *what, uint32_t tid,
			   const char *key, const char *value)
{
	struct trace_event e;
	ev_begin(&e, c, "M", what, NULL, tid, 0.0);
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_kv_str(e.w, key, value);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}

static void sort_index_write(struct attr_sink_ctx *c, uint32_t tid, int64_t index)
{
	struct trace_event e;
	ev_begin(&e, c, "M", "thread_sort_index", NULL, tid, 0.0);
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_key_lit(e.w, "sort_index");
	pp_json_write_int(e.w, index);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}

int pp_attr_trace_open(struct attr_sink_ctx *c)
{
	int err;
	FILE *f = pp_attr_sink_file_open(c, TRACE_NAME, &c->trace_buf, &err);
	if (!f)
		return -err;
	c->trace = f;
	pp_json_write_init_mem(&c->trace_event, TRACE_EVENT_MAX, 0);
	fputs("[\n", f);
	c->trace_limit.bytes += 2;
	metadata_write(c, "process_name", (uint32_t)c->pid, "name", c->process_name);

	struct trace_event e;
	ev_begin(&e, c, "M", "passprobe_time_origin", NULL, (uint32_t)c->pid, 0.0);
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_kv_uint_lit(e.w, "passprobe_time_origin_ns", c->trace_origin_ns);
	pp_json_write_kv_str_lit(e.w, "clock", "CLOCK_MONOTONIC");
	pp_json_write_kv_str_lit(e.w, "units", "ts and dur: microseconds since passprobe_time_origin_ns");
	pp_json_write_kv_str_lit(e.w, "generator", "passprobe 0.1.0");
	pp_json_write_end_object(e.w);
	ev_end(&e);
	pp_attr_trace_flush(c);
	return c->trace ? 0 : -EIO;
}

static void trace_forget(struct attr_sink_ctx *c)
{
	c->trace = NULL;
	free(c->trace_buf);
	c->trace_buf = NULL;
	pp_json_write_release(&c->trace_event);
}

void pp_attr_trace_flush(struct attr_sink_ctx *c)
{
	c->trace_buffered = 0;
	if (c->trace && !pp_attr_sink_file_flush(c, c->trace, TRACE_NAME))
		trace_forget(c);
}

void pp_attr_trace_close(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped)
{
	if (!c->trace)
		return;
	/* The last event carries no comma, so that with "]" the file is strict JSON. */
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, TRACE_EVENT_MAX, 0);
	pp_json_write_begin_object(&w);
	pp_json_write_kv_str_lit(&w, "name", "passprobe_trace_end");
	pp_json_write_kv_str_lit(&w, "ph", "M");
	pp_json_write_kv_double_lit(&w, "ts", 0.0);
	pp_json_write_kv_uint_lit(&w, "pid", (uint64_t)c->pid);
	pp_json_write_kv_uint_lit(&w, "tid", (uint64_t)c->pid);
	pp_json_write_key_lit(&w, "args");
	pp_json_write_begin_object(&w);
	pp_json_write_kv_uint_lit(&w, "events", c->trace_events);
	pp_json_write_kv_uint_lit(&w, "frames", c->frames_total);
	pp_json_write_kv_uint_lit(&w, "frames_dropped", frames_dropped);
	pp_json_write_kv_uint_lit(&w, "cpu_events_dropped", events_dropped);
	pp_json_write_kv_bool_lit(&w, "output_limit_reached", c->trace_limit.reached);
	if (c->trace_limit.reached) {
		pp_json_write_kv_uint_lit(&w, "output_limit_bytes", c->limit_bytes);
		pp_json_write_kv_uint_lit(&w, "first_frame_left_out", c->trace_limit.first_left_out);
		pp_json_write_kv_uint_lit(&w, "frames_left_out", c->trace_limit.frames_left_out);
	}
	pp_json_write_end_object(&w);
	pp_json_write_end_object(&w);
	if (pp_json_write_finish(&w) == 0) {
		size_t len;
		const char *text = pp_json_write_mem(&w, &len);
		pp_attr_sink_file_reserve(c->trace, &c->trace_buffered, len + 3);
		fwrite(text, 1, len, c->trace);
	}
	pp_json_write_release(&w);
	fputs("\n]\n", c->trace);
	if (pp_attr_sink_file_flush(c, c->trace, TRACE_NAME) && fclose(c->trace) != 0)
		pp_attr_sink_file_fail(c, TRACE_NAME, errno);
	trace_forget(c);
}

/* ---- tracks --------------------------------------------------------------------------- */

/* The thread's entry (named in the trace on first sight), or NULL past the table's size. */
static struct attr_trace_thread *thread_seen(struct attr_sink_ctx *c, uint32_t tid)
{
	for (uint32_t i = 0; i < c->nthreads; i++) {
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	}
	if (c->nthreads == PP_SINK_TRACE_THREADS)
		return NULL; /* unnamed: the viewer shows the number */
	struct attr_trace_thread *t = &c->threads[c->nthreads++];
	t->tid = tid;
	t->submit_cursor_ns = 0;
	char path[64], name[32];
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return t; /* thread gone already, or not ours */
	ssize_t n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return t;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	metadata_write(c, "thread_name", tid, "name", name);
	return t;
}

static struct attr_trace_queue *queue_track(struct attr_sink_ctx *c, uint32_t device,
					    const struct pp_submission_result *s)
{
	for (uint32_t i = 0; i < c->nqueues; i++) {
		if (c->queues[i].device_id == device && c->queues[i].handle == s->queue_handle)
			return &c->queues[i];
	}
	char name[96];
	if (c->nqueues == PP_SINK_TRACE_QUEUES) {
		/* Every further queue shares the last track; it was renamed when it filled. */
		return &c->queues[PP_SINK_TRACE_QUEUES - 1];
	}
	struct attr_trace_queue *q = &c->queues[c->nqueues++];
	memset(q, 0, sizeof(*q));
	q->device_id = device;
	q->handle = s->queue_handle;
	q->tid = PP_SINK_TRACE_GPU_TID + c->nqueues - 1;
	if (c->nqueues == PP_SINK_TRACE_QUEUES)
		snprintf(name, sizeof(name), "GPU queues (%d and later)", PP_SINK_TRACE_QUEUES);
	else if (device == 0)
		snprintf(name, sizeof(name), "GPU queue %u.%u (0x%" PRIx64 ")", s->queue_family,
			 s->queue_index, s->queue_handle);
	else
		snprintf(name, sizeof(name), "GPU %u queue %u.%u (0x%" PRIx64 ")", device,
			 s->queue_family, s->queue_index, s->queue_handle);
	metadata_write(c, "thread_name", q->tid, "name", name);
	sort_index_write(c, q->tid, -1000 + (int64_t)c->nqueues);
	return q;
}

/* ---- frames --------------------------------------------------------------------------- */

static void pass_args_common(struct pp_json_writer *w, const struct pp_frame_result *f,
			     const struct pp_submission_result *s, const struct pp_pass_result *p)
{
	pp_json_write_kv_uint_lit(w, "frame", f->index);
	pp_json_write_kv_uint_lit(w, "device", f->device_id);
	pp_json_write_kv_uint_lit(w, "seq", s->seq);
	pp_json_write_kv_str_lit(w, "kind", pp_attr_report_kind_name(p->kind));
	pp_json_write_kv_str_lit(w, "api", p->api);
	pp_json_write_kv_str_lit(w, "name_source", pp_attr_report_name_source_name(p->name_source));
	if (p->recorded_by)
		pp_json_write_kv_str_lit(w, "recorded_by", p->recorded_by);
	pp_json_write_kv_handle_lit(w, "command_buffer", p->command_buffer_handle);
	/* The experiment (docs/diagnostics.md): the arm its recording was made in, and whether
	 * passprobe rewrote the barrier right before it. */
	if (p->exp_arm != PP_EXP_ARM_NONE)
		pp_json_write_kv_str_lit(w, "experiment_arm", p->exp_arm == PP_EXP_ARM_FIXED ? "fixed" : "as-written");
	if (p->exp_fixed)
		pp_json_write_kv_bool_lit(w, "experiment_rewritten", true);
	pp_json_write_kv_uint_lit(w, "draws", pp_attr_report_workload_draws(&p->work));
	pp_json_write_key_lit(w, "workload");
	pp_attr_report_workload_write(w, &p->work);
}

static void pass_instant(struct attr_sink_ctx *c, const struct pp_frame_result *f,
			 const struct pp_submission_result *s, const struct pp_pass_result *p,
			 uint32_t tid, uint64_t at_ns, const char *reason)
{
	struct trace_event e;
	ev_begin(&e, c, "i", p->name, "gpu.pass.unavailable", tid, pp_attr_sink_trace_us(c, at_ns));
	pp_json_write_kv_str_lit(e.w, "s", "t");
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_kv_str_lit(e.w, "reason", reason);
	if (p->gpu.valid) {
		pp_json_write_kv_uint_lit(e.w, "gpu_begin_ns", p->gpu.begin_ns);
		pp_json_write_kv_uint_lit(e.w, "gpu_end_ns", p->gpu.end_ns);
	} else {
		pp_json_write_kv_null_lit(e.w, "gpu_ns");
	}
	pass_args_common(e.w, f, s, p);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}

static void pass_slice(struct attr_sink_ctx *c, const struct pp_frame_result *f,
		       const struct pp_submission_result *s, const struct pp_pass_result *p,
		       uint32_t tid, uint64_t b, uint64_t end)
{
	struct trace_event e;
	ev_begin(&e, c, "X", p->name, "gpu.pass", tid, pp_attr_sink_trace_us(c, b));
	dur_write(e.w, b, end);
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	uint64_t gpu = p->gpu.end_ns > p->gpu.begin_ns ? p->gpu.end_ns - p->gpu.begin_ns : 0;
	pp_json_write_kv_uint_lit(e.w, "gpu_ns", gpu);
	pp_json_write_kv_uint_lit(e.w, "exclusive_ns", p->gpu_exclusive_ns);
	pp_json_write_kv_bool_lit(e.w, "overlapped", p->overlapped);
	if (b != p->gpu.begin_ns || end != p->gpu.end_ns) {
		pp_json_write_kv_str_lit(e.w, "clamped", "slice cut to nest within its track; true interval in "
			"gpu_begin_ns/gpu_end_ns");
		pp_json_write_kv_uint_lit(e.w, "gpu_begin_ns", p->gpu.begin_ns);
		pp_json_write_kv_uint_lit(e.w, "gpu_end_ns", p->gpu.end_ns);
	}
	pass_args_common(e.w, f, s, p);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}

/* Pass indices of one submission, by GPU begin (measured first), ties in record order. */
static void passes_sort(const struct pp_pass_result *passes, uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t v = idx[i];
		const struct pp_pass_result *pv = &passes[v];
		uint32_t j = i;
		while (j > 0) {
			const struct pp_pass_result *pj = &passes[idx[j - 1]];
			bool after = pv->gpu.valid &&
				     (!pj->gpu.valid || pj->gpu.begin_ns > pv->gpu.begin_ns);
			if (!after)
				break;
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

static uint64_t flow_id(const struct pp_frame_result *f, const struct pp_submission_result *s)
{
	return ((uint64_t)f->device_id << 40) | (s->seq & ((1ull << 40) - 1));
}

static void flow_write(struct attr_sink_ctx *c, const char *ph, uint64_t id, uint32_t tid,
		       uint64_t at_ns)
{
	struct trace_event e;
	ev_begin(&e, c, ph, "submit", "flow.submit", tid, pp_attr_sink_trace_us(c, at_ns));
	pp_json_write_kv_uint_lit(e.w, "id", id);
	if (ph[0] == 'f')
		pp_json_write_kv_str_lit(e.w, "bp", "e");
	ev_end(&e);
}

/* The args both slices of a submission (its submit call, its GPU span) open with. */
static void submission_args_begin(struct pp_json_writer *w, const struct pp_frame_result *f,
				  const struct pp_submission_result *s)
{
	pp_json_write_key_lit(w, "args");
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "seq", s->seq);
	pp_json_write_kv_uint_lit(w, "frame", f->index);
	pp_json_write_kv_uint_lit(w, "device", f->device_id);
}

static void submission_write(struct attr_sink_ctx *c, const struct pp_frame_result *f,
			     const struct pp_submission_result *s, uint32_t *idx)
{
	struct trace_event e;
	struct attr_trace_queue *q = queue_track(c, f->device_id, s);
	uint64_t cpu_end = s->cpu_end_ns > s->cpu_begin_ns ? s->cpu_end_ns : s->cpu_begin_ns;
	char name[48];

	/* One thread cannot be in two submit calls at once, so overlapping submit records on a
	 * thread mean clock trouble; they are clamped like GPU slices to keep the track nested. */
	struct attr_trace_thread *t = thread_seen(c, s->tid);
	uint64_t cb = s->cpu_begin_ns;
	if (t && cb < t->submit_cursor_ns)
		cb = t->submit_cursor_ns;
	bool cpu_shown = cb <= cpu_end;
	if (cpu_shown) {
		ev_begin(&e, c, "X", s->api ? s->api : "submit", "cpu.submit", s->tid,
			 pp_attr_sink_trace_us(c, cb));
		dur_write(e.w, cb, cpu_end);
		submission_args_begin(e.w, f, s);
		pp_json_write_kv_handle_lit(e.w, "queue", s->queue_handle);
		pp_json_write_kv_uint_lit(e.w, "command_buffers", s->command_buffers);
		if (cb != s->cpu_begin_ns) {
			pp_json_write_kv_str_lit(e.w, "clamped", "starts where the previous submit call on this thread "
				"ended; true begin in cpu_begin_ns");
			pp_json_write_kv_uint_lit(e.w, "cpu_begin_ns", s->cpu_begin_ns);
		}
		pp_json_write_end_object(e.w);
		ev_end(&e);
		if (t)
			t->submit_cursor_ns = cpu_end;
	}

	/* "submit #<seq>", without snprintf: once per submission. */
	memcpy(name, "submit #", 8);
	pp_json_write_format_uint(name + 8, s->seq);
	bool shown = false;
	uint64_t sb = 0, se = 0;
	if (s->gpu.valid) {
		sb = s->gpu.begin_ns > q->cursor_ns ? s->gpu.begin_ns : q->cursor_ns;
		se = s->gpu.end_ns;
		shown = se >= sb;
	}
	if (shown) {
		ev_begin(&e, c, "X", name, "gpu.submission", q->tid, pp_attr_sink_trace_us(c, sb));
		dur_write(e.w, sb, se);
		submission_args_begin(e.w, f, s);
		pp_json_write_kv_uint_lit(e.w, "passes", s->npasses);
		pp_json_write_kv_uint_lit(e.w, "command_buffers", s->command_buffers);
		pp_json_write_kv_uint_lit(e.w, "gpu_span_ns", s->gpu.end_ns - s->gpu.begin_ns);
		if (sb != s->gpu.begin_ns) {
			pp_json_write_kv_str_lit(e.w, "clamped", "starts where the previous slice on this queue ended; "
				"true begin in gpu_begin_ns");
			pp_json_write_kv_uint_lit(e.w, "gpu_begin_ns", s->gpu.begin_ns);
		}
		pp_json_write_end_object(e.w);
		ev_end(&e);
		if (cpu_shown) {
			uint64_t id = flow_id(f, s);
			flow_write(c, "s", id, s->tid, cb);
			flow_write(c, "f", id, q->tid, sb);
		}
	} else {
		const char *why = s->gpu.valid ? "its GPU interval ends before the previous slice on "
						 "this queue does"
					       : s->gpu.unavailable_reason;
		ev_begin(&e, c, "i", name, "gpu.submission.unavailable", q->tid,
			 pp_attr_sink_trace_us(c, cpu_end));
		pp_json_write_kv_str_lit(e.w, "s", "t");
		pp_json_write_key_lit(e.w, "args");
		pp_json_write_begin_object(e.w);
		pp_json_write_kv_str_lit(e.w, "reason", why ? why : "not measured");
		pp_json_write_kv_uint_lit(e.w, "seq", s->seq);
		pp_json_write_kv_uint_lit(e.w, "frame", f->index);
		pp_json_write_end_object(e.w);
		ev_end(&e);
	}

	/* Recording spans on the recording threads' tracks: once per recording (a re-submitted
	 * recording's span was drawn with its first submission), and only contiguous ones. */
	for (uint32_t i = 0; i < s->npasses && (size_t)s->first_pass + i < f->npasses; i++) {
		const struct pp_pass_result *p = &f->passes[s->first_pass + i];
		if (!p->cpu.valid || p->cpu.spans != 1 || !p->cpu.tid || p->recording_reused)
			continue;
		thread_seen(c, p->cpu.tid);
		ev_begin(&e, c, "X", p->name, "cpu.record", p->cpu.tid, pp_attr_sink_trace_us(c, p->cpu.begin_ns));
		dur_write(e.w, p->cpu.begin_ns, p->cpu.begin_ns + p->cpu.wall_ns);
		pp_json_write_key_lit(e.w, "args");
		pp_json_write_begin_object(e.w);
		pp_json_write_kv_uint_lit(e.w, "frame", f->index);
		pp_json_write_kv_uint_lit(e.w, "thread_cpu_ns", p->cpu.thread_cpu_ns);
		const struct attr_json_name *names = pp_attr_counters_cpu_json_names();
		for (unsigned k = 0; k < pp_attr_sink_cpu_counter_count; k++)
			if (p->cpu.counters_valid & (1u << k))
				attr_json_kv_uint(e.w, &names[k], pp_attr_sink_cpu_counter_names[k], p->cpu.counter[k]);
		pp_json_write_end_object(e.w);
		ev_end(&e);
	}

	/* Passes: within the submission slice when there is one, else directly on the track. */
	uint32_t first = s->first_pass, n = 0;
	for (uint32_t i = 0; i < s->npasses && (size_t)first + i < f->npasses; i++)
		idx[n++] = first + i;
	passes_sort(f->passes, idx, n);
	uint64_t cursor = shown ? sb : q->cursor_ns;
	uint64_t instant_at = shown ? sb : cpu_end;
	for (uint32_t i = 0; i < n; i++) {
		const struct pp_pass_result *p = &f->passes[idx[i]];
		if (!p->gpu.valid) {
			pass_instant(c, f, s, p, q->tid, instant_at,
				     p->gpu.unavailable_reason ? p->gpu.unavailable_reason
							       : "not measured");
			continue;
		}
		uint64_t b = p->gpu.begin_ns > cursor ? p->gpu.begin_ns : cursor;
		uint64_t end = p->gpu.end_ns;
		if (shown && end > se)
			end = se;
		if (end < b) {
			pass_instant(c, f, s, p, q->tid, cursor,
				     "no slice: its interval lies within the previous pass slice "
				     "on this queue (overlapping passes)");
			continue;
		}
		pass_slice(c, f, s, p, q->tid, b, end);
		cursor = end;
	}
	uint64_t track_end = shown ? se : cursor;
	if (track_end > q->cursor_ns)
		q->cursor_ns = track_end;
}

static void counter_write(struct attr_sink_ctx *c, const char *name, uint32_t device,
			  uint64_t at_ns, const char *series, double v)
{
	/* Device 0's tracks have the bare name (every caller's name is shorter than full). */
	char full[224];
	const char *track = name;
	if (device != 0) {
		snprintf(full, sizeof(full), "%s (device %u)", name, device);
		track = full;
	}
	struct trace_event e;
	ev_begin(&e, c, "C", track, "counter", (uint32_t)c->pid, pp_attr_sink_trace_us(c, at_ns));
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_key(e.w, series);
	pp_json_write_double(e.w, v);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}

/* Counter tracks of the passes' hardware GPU counters (any backend but the timestamps and
 * pipeline statistics, which report.json and passes.csv show in members of their own: two
 * events per counter and pass are too many to write for those on every pass of every frame):
 * one track per counter, named with its unit, holding each pass's value over
 * the pass's GPU interval and 0 between passes. Passes in GPU begin order, so a pass that
 * begins where another ends shows its own value; where passes overlap, the track shows the
 * one that began last. */
static void pass_counters_write(struct attr_sink_ctx *c, const struct pp_frame_result *f, const uint32_t *idx,
				uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct pp_pass_result *p = &f->passes[idx[i]];
		if (!p->gpu.valid)
			continue;
		for (uint32_t k = 0; k < p->ncounters; k++) {
			const struct pp_counter_value *cv = &p->counters[k];
			double v;
			if (!cv->desc || pp_attr_counters_has_own_column(cv) || !pp_attr_counters_value(cv, &v))
				continue;
			char name[192];
			snprintf(name, sizeof(name), "gpu %s/%s (%s)", cv->desc->source, cv->desc->name, cv->desc->unit);
			counter_write(c, name, f->device_id, p->gpu.begin_ns, cv->desc->unit, v);
			counter_write(c, name, f->device_id, p->gpu.end_ns, cv->desc->unit, 0);
		}
	}
}

void pp_attr_trace_frame_write(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	if (!c->trace)
		return;
	uint32_t stack_idx[64];
	uint32_t *idx = stack_idx;
	if (f->npasses > 64) {
		idx = malloc(f->npasses * sizeof(*idx));
		if (!idx) {
			pp_log_once(PP_LOG_WARN, "out of memory writing trace.json; some frames are "
				    "missing from it");
			return;
		}
	}
	for (size_t i = 0; i < f->nsubmissions; i++)
		submission_write(c, f, &f->submissions[i], idx);
	for (size_t i = 0; i < f->nsubmissions; i++) {
		const struct pp_submission_result *s = &f->submissions[i];
		uint32_t n = 0;
		for (uint32_t k = 0; k < s->npasses && (size_t)s->first_pass + k < f->npasses; k++)
			idx[n++] = s->first_pass + k;
		passes_sort(f->passes, idx, n);
		pass_counters_write(c, f, idx, n);
	}
	if (idx != stack_idx)
		free(idx);

	uint64_t gpu;
	if (pp_attr_report_frame_gpu_ns(f, &gpu))
		counter_write(c, "gpu frame time ms", f->device_id, f->cpu_begin_ns, "ms",
			      (double)gpu / 1e6);
	counter_write(c, "passes per frame", f->device_id, f->cpu_begin_ns, "passes",
		      (double)f->npasses);
	/* CPU side of the frame: recording, submit and present calls, on the API threads. */
	if (f->cpu.valid) {
		counter_write(c, "cpu frame time ms", f->device_id, f->cpu_begin_ns, "ms",
			      (double)f->cpu.thread_cpu_ns / 1e6);
		for (unsigned k = 0; k < pp_attr_sink_cpu_counter_count; k++)
			if (f->cpu.counters_valid & (1u << k)) {
				char name[64];
				snprintf(name, sizeof(name), "cpu %s per frame", pp_attr_sink_cpu_counter_names[k]);
				counter_write(c, name, f->device_id, f->cpu_begin_ns, pp_attr_sink_cpu_counter_names[k],
					      (double)f->cpu.counter[k]);
			}
	}
}

void pp_attr_trace_cpu_event_write(struct attr_sink_ctx *c, const struct pp_cpu_event *ev)
{
	if (!c->trace)
		return;
	const char *cat = ev->category ? ev->category : "other";
	if (ev->flow_id != 0 && strcmp(cat, "submit") == 0)
		return; /* the frame's submission record writes this call, with its flow */
	char full[64];
	snprintf(full, sizeof(full), "cpu.%s", cat);
	thread_seen(c, ev->tid);
	struct trace_event e;
	if (strcmp(cat, "diagnostic") == 0) {
		/* A diagnostic site's first occurrence: an instant event on its thread. */
		ev_begin(&e, c, "i", ev->name, cat, ev->tid, pp_attr_sink_trace_us(c, ev->begin_ns));
		pp_json_write_kv_str_lit(e.w, "s", "t");
		ev_end(&e);
		return;
	}
	ev_begin(&e, c, "X", ev->name, full, ev->tid, pp_attr_sink_trace_us(c, ev->begin_ns));
	dur_write(e.w, ev->begin_ns, ev->end_ns);
	ev_end(&e);
}

void pp_attr_trace_instant_write(struct attr_sink_ctx *c, const char *name, uint64_t ns, uint32_t device,
			      uint64_t first_frame, const char *by, bool have_last, uint64_t last_frame)
{
	if (!c->trace)
		return;
	struct trace_event e;
	ev_begin(&e, c, "i", name, "capture", (uint32_t)c->pid, pp_attr_sink_trace_us(c, ns));
	pp_json_write_kv_str_lit(e.w, "s", "g");
	pp_json_write_key_lit(e.w, "args");
	pp_json_write_begin_object(e.w);
	pp_json_write_kv_uint_lit(e.w, "device", device);
	pp_json_write_kv_uint_lit(e.w, "first_frame", first_frame);
	if (have_last)
		pp_json_write_kv_uint_lit(e.w, "last_frame", last_frame);
	pp_json_write_kv_str_lit(e.w, "captured_by", by);
	pp_json_write_end_object(e.w);
	ev_end(&e);
}
