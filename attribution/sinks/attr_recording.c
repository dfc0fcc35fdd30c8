/* The recording, written in the application's process (docs/report-format.md, "The
 * recording"): what the writer thread does with a frame is to copy its values into binary
 * records (attribution/recording/rec_write.c) and write them out a batch at a time; every text
 * output is made later from the file by `passprobe report` (attr_replay.c). Bounded by
 * output_limit_mb like the streamed files were: the first frames are kept. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attr_sink_internal.h"
#include "attr_stats.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_settings_internal.h"
#include "pp_summary.h"
#include "rec_write.h"

#define REC_NAME "recording.ppr"

/* Writes out what the writer holds. Whole records, in one write where the kernel takes it:
 * a process killed in the middle leaves a readable prefix. */
void pp_attr_recording_flush(struct attr_sink_ctx *c)
{
	if (!c->rec)
		return;
	size_t len;
	const uint8_t *p = pp_rec_write_take(c->rec, &len);
	while (len && !c->rec_failed) {
		ssize_t n = write(c->rec_fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pp_attr_sink_file_fail(c, REC_NAME, n < 0 ? errno : ENOSPC);
			c->rec_failed = true;
			break;
		}
		p += n;
		len -= (size_t)n;
		c->rec_limit.bytes += (uint64_t)n;
	}
	if (pp_rec_write_failed(c->rec))
		pp_log_once(PP_LOG_WARN, "out of memory writing the recording; some of its records are missing");
}

static void settings_write(struct attr_sink_ctx *c)
{
	const char *const *keys = pp_settings_keys();
	size_t cap = 16384, len = 0;
	char *text = malloc(cap);
	if (!text)
		return;
	for (size_t i = 0; keys && keys[i]; i++) {
		char value[PATH_MAX + 64];
		if (pp_settings_format_value(&c->settings, keys[i], value, sizeof(value)) < 0)
			continue;
		size_t need = strlen(keys[i]) + strlen(value) + 2;
		if (len + need > cap)
			break;
		len += (size_t)snprintf(text + len, cap - len, "%s=%s\n", keys[i], value);
	}
	pp_rec_write_settings(c->rec, text, len);
	free(text);
}

int pp_attr_recording_open(struct attr_sink_ctx *c)
{
	c->rec_fd = openat(c->dirfd, REC_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (c->rec_fd < 0) {
		int err = errno;
		pp_attr_sink_file_fail(c, REC_NAME, err);
		return -err;
	}
	c->rec = pp_rec_write_create();
	if (!c->rec) {
		pp_log(PP_LOG_ERROR, "out of memory starting the recording; no outputs will be made");
		close(c->rec_fd);
		c->rec_fd = -1;
		return -ENOMEM;
	}
	/* report.json's window keeps the frames recorded as their bytes: the strings from the first
	 * frame's on (pp_attr_report_window_push moves that on). */
	pp_rec_write_strings_keep(c->rec, 0);
	pp_rec_write_process(c->rec, (uint32_t)c->pid, c->process_name, c->trace_origin_ns, pp_attr_sink_cpu_counter_names,
			     pp_attr_sink_cpu_counter_count);
	settings_write(c);
	pp_attr_recording_flush(c);
	return 0;
}

static void devices_write(struct attr_sink_ctx *c)
{
	const struct attr_device *devs;
	size_t n = pp_attr_sink_devices_snapshot(&devs);
	for (; c->rec_devices < n; c->rec_devices++)
		pp_rec_write_device(c->rec, devs[c->rec_devices].id, &devs[c->rec_devices].info);
}

bool pp_attr_recording_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	if (!c->rec || c->rec_failed)
		return false;
	/* A device registers before its first frame, from another thread. */
	devices_write(c);
	/* The batch's frames before this one are in the writer's buffer, not yet in the file: the
	 * limit counts them, so that the recording stops within a frame of it however many
	 * frames the writer takes at once. */
	if (!pp_attr_capture_limit_admit(c, &c->rec_limit, REC_NAME, f, pp_rec_write_pending(c->rec)))
		return false;
	c->rec_generation = pp_rec_write_generation(c->rec);
	pp_rec_write_frame(c->rec, f, pp_attr_sink_cpu_counter_count, false);
	return true;
}

/* At exit, past output_limit_mb: the frames of report.json's window that the limit kept out,
 * so that `passprobe report` makes the report.json the process made (its last report_frames
 * frames). Bounded by report_frames; read by nothing but the report's window. */
static void report_frames_write(struct attr_sink_ctx *c)
{
	if (!c->rec_limit.reached)
		return;
	for (uint32_t i = 0; i < c->window_count; i++) {
		const struct attr_window_frame *e = &c->window[(c->window_head + i) % c->window_cap];
		if (!e->recorded)
			pp_rec_write_frame(c->rec, e->frame, pp_attr_sink_cpu_counter_count, true);
	}
}

void pp_attr_recording_cpu_event(struct attr_sink_ctx *c, const struct pp_cpu_event *ev)
{
	if (c->rec && !c->rec_failed && !c->rec_limit.reached)
		pp_rec_write_cpu_event(c->rec, ev->name, ev->category, ev->tid, ev->begin_ns, ev->end_ns, ev->flow_id);
}

static void capture_write(struct attr_sink_ctx *c, uint32_t device, const uint64_t *frame, bool requested,
			  const char *path, uint64_t timestamp, const struct attr_renderdoc_diags *d)
{
	pp_rec_write_capture(c->rec, device, frame, requested, path, timestamp, d->occ, d->n, d->dropped);
}

/* What changes as the program runs and is not a frame: written every flush_interval_ms, so a
 * process killed at any point leaves a recording that says almost all of it. */
static void state_write(struct attr_sink_ctx *c, bool end, uint64_t frames_dropped, uint64_t events_dropped)
{
	devices_write(c);
	if (!c->rec_renderdoc && pp_renderdoc_present()) {
		pp_rec_write_renderdoc(c->rec, pp_renderdoc_library(), pp_renderdoc_version());
		c->rec_renderdoc = true;
	}
	pp_attr_renderdoc_captures_record(c, capture_write);
	struct pp_diagnostic *d;
	size_t n;
	uint64_t other;
	if (pp_attr_sink_diagnostics_snapshot(c, &d, &n, &other))
		pp_rec_write_diagnostics(c->rec, d, n, other);
	free(d);
	struct pp_summary sum;
	pp_attr_sink_summary_build(c, frames_dropped, &sum);
	pp_rec_write_summary(c->rec, &sum);
	pp_summary_free(&sum);
	struct pp_rec_status st = {
		.frames_total = c->frames_total,
		.frames_dropped = frames_dropped,
		.events_dropped = events_dropped,
		.frames_left_out = c->rec_limit.frames_left_out,
		.first_left_out = c->rec_limit.first_left_out,
		.limit_reached = c->rec_limit.reached,
		.bytes = c->rec_limit.bytes,
	};
	pp_rec_write_status(c->rec, end, &st);
}

void pp_attr_recording_periodic(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped)
{
	if (!c->rec || c->rec_failed)
		return;
	state_write(c, false, frames_dropped, events_dropped);
	pp_attr_recording_flush(c);
}

void pp_attr_recording_close(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped)
{
	if (!c->rec)
		return;
	if (!c->rec_failed) {
		pp_attr_recording_flush(c); /* the bytes output_limit_mb bounds, all counted */
		report_frames_write(c);
		state_write(c, true, frames_dropped, events_dropped);
		pp_attr_recording_flush(c);
	}
	pp_attr_report_window_seal(c);
	pp_rec_write_destroy(c->rec);
	c->rec = NULL;
	if (c->rec_fd >= 0)
		close(c->rec_fd);
	c->rec_fd = -1;
}
