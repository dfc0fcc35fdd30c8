/* RenderDoc's captures in the outputs (docs/frame-debuggers.md): for every frame RenderDoc
 * captured, passprobe's frame index, the capture file and RenderDoc's timestamp of it, and the
 * frame as report.json's frames[] show it, kept whatever report_frames keeps, with the
 * diagnostics that occurred in it and the call each sits on, so that `passprobe renderdoc
 * annotate` finds the measurements of the captured frame. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attr_sink_internal.h"
#include "pp_frame_ranges.h"
#include "pp_log.h"
#include "pp_renderdoc.h"

/* Captures reported by the front ends (any thread); the writer reads them at each rewrite.
 * captures_lock is a leaf: the diagnostics call pp_attr_renderdoc_sink_diagnostic holding their
 * device's lock, so while holding it this file calls nothing but the log. */
struct capture {
	uint32_t device;
	uint64_t frame;
	bool frame_known;
	bool requested;
	uint64_t timestamp;
	char *path;
};
static pthread_mutex_t captures_lock = PTHREAD_MUTEX_INITIALIZER;
static struct capture captures[PP_SINK_RENDERDOC_CAPTURES];
static uint32_t ncaptures;
static uint64_t captures_total;

/* Diagnostic occurrences of the frames RenderDoc captures (pp_attr_renderdoc_sink_diagnostic), by
 * frame, under captures_lock: a ring of as many frames as captures are listed, the oldest frame
 * given up first; each frame's list grows up to PP_SINK_RENDERDOC_DIAGNOSTICS. A capture finds
 * its frame's list when it is recorded or written, whichever of the two learns of it first. */
struct frame_diags {
	uint32_t device;
	uint64_t frame;
	uint32_t n, cap;
	uint64_t dropped;
	struct pp_diagnostic_occurrence *occ;
};
static struct frame_diags diags[PP_SINK_RENDERDOC_CAPTURES];
static uint32_t diags_head, diags_count;

/* Caller holds captures_lock. */
static struct frame_diags *diags_find_locked(uint32_t device, uint64_t frame)
{
	for (uint32_t i = 0; i < diags_count; i++) {
		struct frame_diags *e = &diags[(diags_head + i) % PP_SINK_RENDERDOC_CAPTURES];
		if (e->device == device && e->frame == frame)
			return e;
	}
	return NULL;
}

/* Caller holds captures_lock. */
static struct frame_diags *diags_get_locked(uint32_t device, uint64_t frame)
{
	struct frame_diags *e = diags_find_locked(device, frame);
	if (e)
		return e;
	if (diags_count == PP_SINK_RENDERDOC_CAPTURES) {
		pp_log_once(PP_LOG_WARN, "diagnostics of more than %d frames RenderDoc captured: the oldest frame's "
					 "are not listed with its capture", PP_SINK_RENDERDOC_CAPTURES);
		free(diags[diags_head].occ);
		diags_head = (diags_head + 1) % PP_SINK_RENDERDOC_CAPTURES;
		diags_count--;
	}
	e = &diags[(diags_head + diags_count++) % PP_SINK_RENDERDOC_CAPTURES];
	*e = (struct frame_diags){ .device = device, .frame = frame };
	return e;
}

static bool occurrence_same(const struct pp_diagnostic_occurrence *a, const struct pp_diagnostic_occurrence *b)
{
	return a->command_buffer == b->command_buffer && a->call_index == b->call_index && !strcmp(a->id, b->id) &&
	       !strcmp(a->call, b->call);
}

/* Caller holds captures_lock. */
static void diags_add_locked(struct frame_diags *e, const struct pp_diagnostic_occurrence *o)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (occurrence_same(&e->occ[i], o))
			return;
	if (e->n == PP_SINK_RENDERDOC_DIAGNOSTICS) {
		e->dropped++;
		return;
	}
	if (e->n == e->cap) {
		uint32_t cap = e->cap ? 2 * e->cap : 4;
		if (cap > PP_SINK_RENDERDOC_DIAGNOSTICS)
			cap = PP_SINK_RENDERDOC_DIAGNOSTICS;
		struct pp_diagnostic_occurrence *occ = realloc(e->occ, cap * sizeof(*occ));
		if (!occ) {
			e->dropped++;
			return;
		}
		e->occ = occ;
		e->cap = cap;
	}
	e->occ[e->n++] = *o;
}

void pp_attr_renderdoc_sink_diagnostic(uint32_t device_id, uint64_t frame, const struct pp_diagnostic_occurrence *o)
{
	pthread_mutex_lock(&captures_lock);
	diags_add_locked(diags_get_locked(device_id, frame), o);
	pthread_mutex_unlock(&captures_lock);
}

void pp_attr_renderdoc_sink_capture(uint32_t device_id, const uint64_t *frame, bool requested, const char *path,
			       uint64_t timestamp)
{
	char *copy = strdup(path ? path : "");
	pthread_mutex_lock(&captures_lock);
	captures_total++;
	if (ncaptures == PP_SINK_RENDERDOC_CAPTURES) {
		pp_log_once(PP_LOG_WARN, "more than %d RenderDoc captures: report.json lists the first %d",
			    PP_SINK_RENDERDOC_CAPTURES, PP_SINK_RENDERDOC_CAPTURES);
		free(copy);
	} else {
		captures[ncaptures++] = (struct capture){
			.device = device_id,
			.frame = frame ? *frame : 0,
			.frame_known = frame != NULL,
			.requested = requested,
			.timestamp = timestamp,
			.path = copy,
		};
	}
	pthread_mutex_unlock(&captures_lock);
	if (frame)
		pp_log(PP_LOG_INFO, "RenderDoc captured frame %" PRIu64 ": %s", *frame, path ? path : "");
}

void pp_attr_renderdoc_captures_record(struct attr_sink_ctx *c,
				    void (*out)(struct attr_sink_ctx *c, uint32_t device, const uint64_t *frame,
						bool requested, const char *path, uint64_t timestamp,
						const struct attr_renderdoc_diags *diags))
{
	pthread_mutex_lock(&captures_lock);
	for (; c->rec_captures < ncaptures; c->rec_captures++) {
		const struct capture *x = &captures[c->rec_captures];
		/* The frame has ended before RenderDoc's file of it is paired with it: its
		 * diagnostics are all in. */
		const struct frame_diags *e = x->frame_known ? diags_find_locked(x->device, x->frame) : NULL;
		struct attr_renderdoc_diags d = { e ? e->occ : NULL, e ? e->n : 0, e ? e->dropped : 0 };
		out(c, x->device, x->frame_known ? &x->frame : NULL, x->requested, x->path, x->timestamp, &d);
	}
	pthread_mutex_unlock(&captures_lock);
}

void pp_attr_renderdoc_capture_replayed(uint32_t device, const uint64_t *frame, bool requested, const char *path,
				     uint64_t timestamp, const struct attr_renderdoc_diags *d)
{
	if (frame && d && (d->n || d->dropped)) {
		pthread_mutex_lock(&captures_lock);
		struct frame_diags *e = diags_get_locked(device, *frame);
		for (uint32_t i = 0; i < d->n; i++)
			diags_add_locked(e, &d->occ[i]);
		e->dropped += d->dropped;
		pthread_mutex_unlock(&captures_lock);
	}
	pp_attr_renderdoc_sink_capture(device, frame, requested, path, timestamp);
}

void pp_attr_renderdoc_frame_keep(struct attr_sink_ctx *c, const struct pp_frame_result *f, const char *json, size_t len)
{
	char *copy = malloc(len);
	if (!copy) {
		pp_log_once(PP_LOG_WARN, "out of memory keeping a frame RenderDoc captured; its capture has no "
					 "measurements in report.json");
		return;
	}
	memcpy(copy, json, len);
	/* Its passes' command buffers, for the diagnostics' (without them those say only the
	 * handle). */
	struct attr_renderdoc_cb *cbs = f->npasses ? malloc(f->npasses * sizeof(*cbs)) : NULL;
	uint32_t ncbs = 0;
	for (size_t i = 0; cbs && i < f->npasses; i++)
		if (f->passes[i].command_buffer_handle)
			cbs[ncbs++] = (struct attr_renderdoc_cb){ f->passes[i].command_buffer_handle, f->passes[i].submission,
								 f->passes[i].command_buffer };
	struct attr_renderdoc_frame *e;
	if (c->rdoc_count < PP_SINK_RENDERDOC_CAPTURES) {
		e = &c->rdoc_frames[(c->rdoc_head + c->rdoc_count++) % PP_SINK_RENDERDOC_CAPTURES];
	} else {
		/* As many frames as captures are listed: the oldest frame is the one no capture
		 * listed can still need. */
		e = &c->rdoc_frames[c->rdoc_head];
		free(e->json);
		free(e->cbs);
		c->rdoc_head = (c->rdoc_head + 1) % PP_SINK_RENDERDOC_CAPTURES;
	}
	*e = (struct attr_renderdoc_frame){ .device = f->device_id, .index = f->index, .json = copy, .len = len,
					    .cbs = cbs, .ncbs = ncbs };
}

static const struct attr_renderdoc_frame *frame_find(const struct attr_sink_ctx *c, uint32_t device, uint64_t index)
{
	for (uint32_t i = 0; i < c->rdoc_count; i++) {
		const struct attr_renderdoc_frame *e = &c->rdoc_frames[(c->rdoc_head + i) % PP_SINK_RENDERDOC_CAPTURES];
		if (e->device == device && e->index == index)
			return e;
	}
	return NULL;
}

/* A capture's "diagnostics": each occurrence with its command buffer as the frame's passes
 * number it (submission, command buffer within it). Caller holds captures_lock. */
static void diagnostics_write(struct pp_json_writer *w, const struct attr_renderdoc_frame *f,
			      const struct frame_diags *e)
{
	pp_json_write_key_lit(w, "diagnostics");
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; e && i < e->n; i++) {
		const struct pp_diagnostic_occurrence *o = &e->occ[i];
		const struct attr_renderdoc_cb *cb = NULL;
		for (uint32_t k = 0; f && o->command_buffer && k < f->ncbs && !cb; k++)
			if (f->cbs[k].handle == o->command_buffer)
				cb = &f->cbs[k];
		pp_json_write_begin_object(w);
		pp_json_write_kv_str_lit(w, "id", o->id);
		pp_json_write_kv_str_lit(w, "severity", o->severity);
		pp_json_write_kv_str_lit(w, "message", o->message);
		pp_json_write_kv_str_lit(w, "suggestion", o->suggestion);
		pp_json_write_kv_str_lit(w, "call", o->call);
		pp_json_write_kv_uint_lit(w, "call_index", o->call_index);
		if (cb) {
			pp_json_write_kv_uint_lit(w, "submission", cb->submission);
			pp_json_write_kv_uint_lit(w, "command_buffer", cb->command_buffer);
		} else {
			pp_json_write_kv_null_lit(w, "submission");
			pp_json_write_kv_null_lit(w, "command_buffer");
		}
		if (o->command_buffer)
			pp_json_write_kv_handle_lit(w, "command_buffer_handle", o->command_buffer);
		else
			pp_json_write_kv_null_lit(w, "command_buffer_handle");
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
	pp_json_write_kv_uint_lit(w, "diagnostics_dropped", e ? e->dropped : 0);
}

void pp_attr_renderdoc_report_write(struct attr_sink_ctx *c, struct pp_json_writer *w)
{
	pp_json_write_key_lit(w, "renderdoc");
	pthread_mutex_lock(&captures_lock);
	/* Made from a recording: what the process found. */
	bool present = c->offline ? c->renderdoc_seen : pp_renderdoc_present();
	if (!present && !ncaptures) {
		pthread_mutex_unlock(&captures_lock);
		pp_json_write_null(w);
		return;
	}
	pp_json_write_begin_object(w);
	pp_json_write_kv_str_lit(w, "library", c->offline ? c->renderdoc_library : pp_renderdoc_library());
	pp_json_write_kv_str_lit(w, "api_version", c->offline ? c->renderdoc_version : pp_renderdoc_version());
	if (c->settings.renderdoc_frames.n) {
		char ranges[512];
		pp_frame_ranges_format(&c->settings.renderdoc_frames, ranges, sizeof(ranges));
		pp_json_write_kv_str_lit(w, "requested_frames", ranges);
	} else {
		pp_json_write_kv_null_lit(w, "requested_frames");
	}
	pp_json_write_kv_uint_lit(w, "captures_total", captures_total);
	pp_json_write_key_lit(w, "captures");
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; i < ncaptures; i++) {
		const struct capture *x = &captures[i];
		pp_json_write_begin_object(w);
		pp_json_write_kv_uint_lit(w, "device", x->device);
		if (x->frame_known)
			pp_json_write_kv_uint_lit(w, "frame", x->frame);
		else
			pp_json_write_kv_null_lit(w, "frame");
		pp_json_write_kv_str_lit(w, "path", x->path);
		pp_json_write_kv_uint_lit(w, "timestamp", x->timestamp);
		pp_json_write_kv_str_lit(w, "requested_by", x->requested ? "passprobe" : "renderdoc");
		const struct attr_renderdoc_frame *f = x->frame_known ? frame_find(c, x->device, x->frame) : NULL;
		pp_json_write_key_lit(w, "frame_data");
		if (f) {
			pp_json_write_raw_value(w, f->json, f->len);
		} else {
			pp_json_write_null(w);
			pp_json_write_kv_str_lit(w, "frame_data_unavailable",
				       !x->frame_known ? "RenderDoc wrote this capture outside the frames passprobe counted"
						       : "the frame's measurements were not complete when this report was written");
		}
		diagnostics_write(w, f, x->frame_known ? diags_find_locked(x->device, x->frame) : NULL);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);
	pthread_mutex_unlock(&captures_lock);
}

void pp_attr_renderdoc_summary_print(FILE *out)
{
	pthread_mutex_lock(&captures_lock);
	for (uint32_t i = 0; i < ncaptures; i++) {
		const struct capture *x = &captures[i];
		if (x->frame_known)
			fprintf(out, "RenderDoc captured frame %" PRIu64 " (device %u): %s\n", x->frame, x->device, x->path);
		else
			fprintf(out, "RenderDoc captured a frame passprobe did not count: %s\n", x->path);
	}
	pthread_mutex_unlock(&captures_lock);
}

void pp_attr_renderdoc_forget(void)
{
	pthread_mutex_lock(&captures_lock);
	for (uint32_t i = 0; i < ncaptures; i++)
		free(captures[i].path);
	ncaptures = 0;
	captures_total = 0;
	for (uint32_t i = 0; i < diags_count; i++)
		free(diags[(diags_head + i) % PP_SINK_RENDERDOC_CAPTURES].occ);
	diags_head = diags_count = 0;
	pthread_mutex_unlock(&captures_lock);
}

void pp_attr_renderdoc_free(struct attr_sink_ctx *c)
{
	for (uint32_t i = 0; i < c->rdoc_count; i++) {
		free(c->rdoc_frames[(c->rdoc_head + i) % PP_SINK_RENDERDOC_CAPTURES].json);
		free(c->rdoc_frames[(c->rdoc_head + i) % PP_SINK_RENDERDOC_CAPTURES].cbs);
	}
	c->rdoc_count = c->rdoc_head = 0;
}
