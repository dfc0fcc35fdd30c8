/* RenderDoc's captures in the outputs (docs/frame-debuggers.md): for every frame RenderDoc
 * captured, passprobe's frame index, the capture file and RenderDoc's timestamp of it, and the
 * frame as report.json's frames[] show it, kept whatever report_frames keeps, so that
 * `passprobe renderdoc annotate` finds the measurements of the captured frame. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attr_sink_internal.h"
#include "pp_frame_ranges.h"
#include "pp_log.h"
#include "pp_renderdoc.h"

/* Captures reported by the front ends (any thread); the writer reads them at each rewrite. */
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

void pp_sink_renderdoc_capture(uint32_t device_id, const uint64_t *frame, bool requested, const char *path,
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

void attr_renderdoc_captures_record(struct attr_sink_ctx *c,
				    void (*out)(struct attr_sink_ctx *c, uint32_t device, const uint64_t *frame,
						bool requested, const char *path, uint64_t timestamp))
{
	pthread_mutex_lock(&captures_lock);
	for (; c->rec_captures < ncaptures; c->rec_captures++) {
		const struct capture *x = &captures[c->rec_captures];
		out(c, x->device, x->frame_known ? &x->frame : NULL, x->requested, x->path, x->timestamp);
	}
	pthread_mutex_unlock(&captures_lock);
}

void attr_renderdoc_frame_keep(struct attr_sink_ctx *c, const struct pp_frame_result *f, const char *json, size_t len)
{
	char *copy = malloc(len);
	if (!copy) {
		pp_log_once(PP_LOG_WARN, "out of memory keeping a frame RenderDoc captured; its capture has no "
					 "measurements in report.json");
		return;
	}
	memcpy(copy, json, len);
	struct attr_renderdoc_frame *e;
	if (c->rdoc_count < PP_SINK_RENDERDOC_CAPTURES) {
		e = &c->rdoc_frames[(c->rdoc_head + c->rdoc_count++) % PP_SINK_RENDERDOC_CAPTURES];
	} else {
		/* As many frames as captures are listed: the oldest frame is the one no capture
		 * listed can still need. */
		e = &c->rdoc_frames[c->rdoc_head];
		free(e->json);
		c->rdoc_head = (c->rdoc_head + 1) % PP_SINK_RENDERDOC_CAPTURES;
	}
	*e = (struct attr_renderdoc_frame){ .device = f->device_id, .index = f->index, .json = copy, .len = len };
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

void attr_renderdoc_report_write(struct attr_sink_ctx *c, struct pp_json_writer *w)
{
	pp_json_key_lit(w, "renderdoc");
	pthread_mutex_lock(&captures_lock);
	/* Made from a recording: what the process found. */
	bool present = c->offline ? c->renderdoc_seen : pp_renderdoc_present();
	if (!present && !ncaptures) {
		pthread_mutex_unlock(&captures_lock);
		pp_json_write_null(w);
		return;
	}
	pp_json_begin_object(w);
	pp_json_kv_str_lit(w, "library", c->offline ? c->renderdoc_library : pp_renderdoc_library());
	pp_json_kv_str_lit(w, "api_version", c->offline ? c->renderdoc_version : pp_renderdoc_version());
	if (c->settings.renderdoc_frames.n) {
		char ranges[512];
		pp_frame_ranges_format(&c->settings.renderdoc_frames, ranges, sizeof(ranges));
		pp_json_kv_str_lit(w, "requested_frames", ranges);
	} else {
		pp_json_kv_null_lit(w, "requested_frames");
	}
	pp_json_kv_uint_lit(w, "captures_total", captures_total);
	pp_json_key_lit(w, "captures");
	pp_json_begin_array(w);
	for (uint32_t i = 0; i < ncaptures; i++) {
		const struct capture *x = &captures[i];
		pp_json_begin_object(w);
		pp_json_kv_uint_lit(w, "device", x->device);
		if (x->frame_known)
			pp_json_kv_uint_lit(w, "frame", x->frame);
		else
			pp_json_kv_null_lit(w, "frame");
		pp_json_kv_str_lit(w, "path", x->path);
		pp_json_kv_uint_lit(w, "timestamp", x->timestamp);
		pp_json_kv_str_lit(w, "requested_by", x->requested ? "passprobe" : "renderdoc");
		const struct attr_renderdoc_frame *f = x->frame_known ? frame_find(c, x->device, x->frame) : NULL;
		pp_json_key_lit(w, "frame_data");
		if (f) {
			pp_json_write_raw_value(w, f->json, f->len);
		} else {
			pp_json_write_null(w);
			pp_json_kv_str_lit(w, "frame_data_unavailable",
				       !x->frame_known ? "RenderDoc wrote this capture outside the frames passprobe counted"
						       : "the frame's measurements were not complete when this report was written");
		}
		pp_json_end_object(w);
	}
	pp_json_end_array(w);
	pp_json_end_object(w);
	pthread_mutex_unlock(&captures_lock);
}

void attr_renderdoc_summary_print(FILE *out)
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

void attr_renderdoc_forget(void)
{
	pthread_mutex_lock(&captures_lock);
	for (uint32_t i = 0; i < ncaptures; i++)
		free(captures[i].path);
	ncaptures = 0;
	captures_total = 0;
	pthread_mutex_unlock(&captures_lock);
}

void attr_renderdoc_free(struct attr_sink_ctx *c)
{
	for (uint32_t i = 0; i < c->rdoc_count; i++)
		free(c->rdoc_frames[(c->rdoc_head + i) % PP_SINK_RENDERDOC_CAPTURES].json);
	c->rdoc_count = c->rdoc_head = 0;
}
