/* Capture windows as the outputs show them, and the size limit of the streamed files
 * (output_limit_mb): docs/settings.md ("Capture windows", "Bounded outputs") and
 * docs/report-format.md.
 *
 * Windows are not told to the sinks: they are the runs of consecutive frame indices (per
 * device, same trigger) of the frames that arrive, since only captured frames arrive. The
 * trace gets an instant event where a window begins and where it ends. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "attr_sink_internal.h"
#include "pp_json.h"
#include "pp_log.h"
#include "pp_settings_internal.h"

static struct attr_capture_window *window_last_of(struct attr_sink_ctx *c, uint32_t device)
{
	for (uint32_t i = c->windows_count; i-- > 0;) {
		struct attr_capture_window *w = &c->windows[(c->windows_head + i) % PP_SINK_WINDOWS];
		if (w->device == device)
			return w;
	}
	return NULL;
}

static void window_end_mark(struct attr_sink_ctx *c, const struct attr_capture_window *w)
{
	if (c->text)
		c->text->window_mark(c, "capture window ends", w->end_ns, w->device, w->first, w->by, true, w->last);
}

void pp_attr_capture_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	const char *by = f->captured_by ? f->captured_by : "frames";
	struct attr_capture_window *w = window_last_of(c, f->device_id);
	c->frames_gpu_timed += f->gpu_timed;
	if (w && f->index == w->last + 1 && strcmp(w->by, by) == 0) {
		w->last = f->index;
		w->end_ns = f->cpu_end_ns;
		w->frames_gpu_timed += f->gpu_timed;
		return;
	}
	if (w)
		window_end_mark(c, w);
	if (c->windows_count == PP_SINK_WINDOWS) {
		c->windows_head = (c->windows_head + 1) % PP_SINK_WINDOWS;
		c->windows_count--;
	}
	w = &c->windows[(c->windows_head + c->windows_count++) % PP_SINK_WINDOWS];
	*w = (struct attr_capture_window){ .device = f->device_id, .first = f->index, .last = f->index, .by = by,
					   .frames_gpu_timed = f->gpu_timed, .end_ns = f->cpu_end_ns };
	c->windows_total++;
	if (c->text)
		c->text->window_mark(c, "capture window begins", f->cpu_begin_ns, f->device_id, f->index, by, false, 0);
}

void pp_attr_capture_close(struct attr_sink_ctx *c)
{
	/* Every device's last window ends here (the program ended or the outputs closed). */
	for (uint32_t i = 0; i < c->windows_count; i++) {
		const struct attr_capture_window *w = &c->windows[(c->windows_head + i) % PP_SINK_WINDOWS];
		if (window_last_of(c, w->device) == w)
			window_end_mark(c, w);
	}
}

bool pp_attr_capture_limit_admit(struct attr_sink_ctx *c, struct attr_output_limit *l, const char *name,
		      const struct pp_frame_result *f, uint64_t pending)
{
	if (!l->reached && (!c->limit_bytes || l->bytes + pending < c->limit_bytes)) {
		l->frames++;
		return true;
	}
	if (!l->reached) {
		l->reached = true;
		l->first_left_out = f->index;
		pp_log(PP_LOG_WARN, "%s reached output_limit_mb (%" PRIu64 " MiB) after %" PRIu64 " frames; "
		       "frames from frame %" PRIu64 " on are not written to it (report.json and the summary "
		       "go on; a capture window picks later frames)", name, c->limit_bytes >> 20, l->frames, f->index);
	}
	l->frames_left_out++;
	return false;
}

static void limit_write(struct pp_json_writer *w, const char *key, const struct attr_output_limit *l, bool on)
{
	pp_json_write_key(w, key);
	if (!on) {
		pp_json_write_null(w);
		return;
	}
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "bytes", l->bytes);
	pp_json_write_kv_uint_lit(w, "frames", l->frames);
	pp_json_write_kv_bool_lit(w, "limit_reached", l->reached);
	if (l->reached)
		pp_json_write_kv_uint_lit(w, "first_frame_left_out", l->first_left_out);
	else
		pp_json_write_kv_null_lit(w, "first_frame_left_out");
	pp_json_write_kv_uint_lit(w, "frames_left_out", l->frames_left_out);
	pp_json_write_end_object(w);
}

void pp_attr_capture_report_write(struct attr_sink_ctx *c, struct pp_json_writer *w)
{
	const struct pp_settings *s = &c->settings;
	char frames[768];
	pp_json_write_key_lit(w, "capture");
	pp_json_write_begin_object(w);
	if (pp_settings_format_value(s, "frames", frames, sizeof(frames)) < 0)
		frames[0] = '\0';
	pp_json_write_kv_str_lit(w, "frames", frames); /* as the setting is written: "all", "none", "300-420,1000-" */
	pp_json_write_kv_bool_lit(w, "capture_signal", s->capture_signal);
	if (s->trigger_file[0])
		pp_json_write_kv_str_lit(w, "trigger_file", s->trigger_file);
	else
		pp_json_write_kv_null_lit(w, "trigger_file");
	pp_json_write_kv_uint_lit(w, "trigger_frames", s->trigger_frames);
	pp_json_write_kv_uint_lit(w, "gpu_timing_interval", s->gpu_timing_interval);
	pp_json_write_kv_uint_lit(w, "frames_gpu_timed", c->frames_gpu_timed);
	pp_json_write_kv_uint_lit(w, "windows_total", c->windows_total);
	pp_json_write_key_lit(w, "windows");
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; i < c->windows_count; i++) {
		const struct attr_capture_window *x = &c->windows[(c->windows_head + i) % PP_SINK_WINDOWS];
		pp_json_write_begin_object(w);
		pp_json_write_kv_uint_lit(w, "device", x->device);
		pp_json_write_kv_uint_lit(w, "first_frame", x->first);
		pp_json_write_kv_uint_lit(w, "last_frame", x->last);
		pp_json_write_kv_uint_lit(w, "frames", x->last - x->first + 1);
		pp_json_write_kv_uint_lit(w, "frames_gpu_timed", x->frames_gpu_timed);
		pp_json_write_kv_str_lit(w, "captured_by", x->by);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);

	pp_json_write_key_lit(w, "output_limit");
	pp_json_write_begin_object(w);
	if (c->limit_bytes)
		pp_json_write_kv_uint_lit(w, "limit_bytes", c->limit_bytes);
	else
		pp_json_write_kv_null_lit(w, "limit_bytes");
	pp_json_write_kv_str_lit(w, "keeps", "first");
	limit_write(w, "recording", &c->rec_limit, true);
	/* trace.json and passes.csv are made from the recording (passprobe report): a report the
	 * process wrote itself at exit has not made them. */
	limit_write(w, "trace", &c->trace_limit, s->trace && c->offline);
	limit_write(w, "csv", &c->csv_limit, s->csv && c->offline);
	pp_json_write_end_object(w);
}

void pp_attr_capture_summary_notes(struct attr_sink_ctx *c, char *notes, size_t len)
{
	const struct attr_output_limit *ls[3] = { &c->rec_limit, &c->trace_limit, &c->csv_limit };
	const char *names[3] = { "the recording", "trace.json", "passes.csv" };
	if (c->frames_total == 0 && c->settings.frames.n == 0) {
		size_t used = strnlen(notes, len);
		snprintf(notes + used, len - used, "%sno frame was in a capture window (frames=none: SIGUSR2 or "
			 "trigger_file start one)", used ? "; " : "");
	}
	for (int i = 0; i < 3; i++) {
		if (!ls[i]->reached)
			continue;
		size_t used = strnlen(notes, len);
		snprintf(notes + used, len - used, "%s%s reached output_limit_mb=%" PRIu64 ": frames from %" PRIu64
			 " on not written", used ? "; " : "", names[i], c->limit_bytes >> 20, ls[i]->first_left_out);
	}
}
