/* Every output from a recording (pp_attr_replay; docs/cli.md, `passprobe report`): the
 * recording's frames and events go through the same outputs the application's process used to
 * feed directly, in a process of passprobe's own. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attr_sink_internal.h"
#include "attr_stats.h"
#include "pp_log.h"
#include "pp_sink_replay.h"
#include "pp_summary.h"
#include "rec_read.h"

/* The last diagnostics record, for the report's "diagnostics" (pp_attr_sink_diagnostics_source_set). */
static struct pp_diagnostic *g_diags;
static size_t g_ndiags;
static uint64_t g_diags_other;

static size_t diags_source(struct pp_diagnostic *out, size_t max, uint64_t *other)
{
	*other = g_diags_other;
	if (!out)
		return g_ndiags;
	size_t n = g_ndiags < max ? g_ndiags : max;
	memcpy(out, g_diags, n * sizeof(*out));
	return n;
}

/* The recording's settings lines through the settings' own parser; what this passprobe does
 * not know (a newer recording) is left at its default. */
static void settings_read(struct pp_settings *s, const struct pp_rec_record *rec)
{
	const char *p = (const char *)rec->data, *end = p + rec->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[PATH_MAX + 256];
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			char *eq = strchr(line, '=');
			if (eq) {
				char why[1024];
				*eq = '\0';
				pp_settings_apply(s, line, eq + 1, PP_ORIGIN_FILE, why, sizeof(why));
			}
		}
		p += n + 1;
	}
}

static int file_map(const char *path, const uint8_t **data, size_t *len, char *err, size_t err_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, err_len, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = errno ? errno : EINVAL;
		snprintf(err, err_len, "%s: not a regular file", path);
		close(fd);
		return -e;
	}
	*len = (size_t)st.st_size;
	if (*len == 0) {
		snprintf(err, err_len, "%s: empty (the process wrote nothing before it ended)", path);
		close(fd);
		return -EINVAL;
	}
	void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, err_len, "%s: %s", path, strerror(e));
		return -e;
	}
	*data = m;
	return 0;
}

/* ---- trace.json and passes.csv, each up to output_limit_mb -------------------------------- */

static void text_frame(struct attr_sink_ctx *c, const struct pp_frame_result *f)
{
	if (c->csv && pp_attr_capture_limit_admit(c, &c->csv_limit, "passes.csv", f, 0))
		pp_attr_csv_frame_write(c, f);
	if (c->trace && pp_attr_capture_limit_admit(c, &c->trace_limit, "trace.json", f, 0))
		pp_attr_trace_frame_write(c, f);
}

static void text_cpu_event(struct attr_sink_ctx *c, const struct pp_cpu_event *ev)
{
	if (c->trace && !c->trace_limit.reached)
		pp_attr_trace_cpu_event_write(c, ev);
}

static void text_window_mark(struct attr_sink_ctx *c, const char *name, uint64_t ns, uint32_t device,
			     uint64_t first_frame, const char *by, bool have_last, uint64_t last_frame)
{
	if (c->trace && !c->trace_limit.reached)
		pp_attr_trace_instant_write(c, name, ns, device, first_frame, by, have_last, last_frame);
}

static const struct attr_text_outputs text_outputs = {
	.frame = text_frame,
	.cpu_event = text_cpu_event,
	.window_mark = text_window_mark,
};

/* The output directory, then the text outputs the recording's settings ask for. */
static int outputs_open(struct attr_sink_ctx *c)
{
	int rc = pp_attr_sink_outputs_open(c);
	if (rc)
		return rc;
	c->text = &text_outputs;
	if (c->settings.trace)
		pp_attr_trace_open(c);
	if (c->settings.csv)
		pp_attr_csv_open(c);
	return 0;
}

static void note_add(struct attr_sink_ctx *c, const char *text)
{
	size_t n = strnlen(c->offline_notes, sizeof(c->offline_notes));
	snprintf(c->offline_notes + n, sizeof(c->offline_notes) - n, "%s%s", n ? "; " : "", text);
}

int pp_attr_replay(const char *path, const char *out_dir, struct pp_sink_replay_result *res, char *err, size_t err_len)
{
	memset(res, 0, sizeof(*res));
	if (pp_attr_sink_running()) {
		/* The device table, the diagnostics' source and the CPU counters' names are the
		 * process's: replaying here would rewrite what the running sink reports. */
		snprintf(err, err_len, "%s: a recording is replayed by a process of its own (passprobe report), "
			 "not by one that records", path);
		return -EBUSY;
	}
	const uint8_t *data = NULL;
	size_t len = 0;
	int rc = file_map(path, &data, &len, err, err_len);
	if (rc)
		return rc;
	struct pp_rec_reader *r;
	char why[256];
	rc = pp_rec_read_open(data, len, &r, why, sizeof(why));
	if (rc) {
		snprintf(err, err_len, "%s: %s", path, why);
		munmap((void *)data, len);
		return rc;
	}

	pp_attr_sink_devices_forget();
	pp_attr_renderdoc_forget();
	static struct attr_sink_ctx ctx;
	struct attr_sink_ctx *c = &ctx;
	memset(c, 0, sizeof(*c));
	c->offline = true;
	c->dirfd = c->lockfd = c->rec_fd = -1;
	pp_settings_defaults(&c->settings);
	struct pp_rec_status status = { 0 };
	struct pp_summary *summary = NULL;
	bool opened = false, process_seen = false;
	uint64_t decode_errors = 0;
	struct pp_rec_record rec;
	pp_attr_sink_diagnostics_source_set(diags_source);
	while (rc == 0 && pp_rec_read_next(r, &rec) == 1) {
		/* The outputs open with the first record that is neither the process nor its
		 * settings: by then the recording has said which outputs the run asked for. */
		if (!opened && rec.type != PP_REC_PROCESS && rec.type != PP_REC_SETTINGS) {
			opened = true;
			snprintf(c->settings.output_dir, sizeof(c->settings.output_dir), "%s", out_dir);
			memcpy(c->dir, c->settings.output_dir, sizeof(c->dir));
			if (c->settings.report_frames == 0)
				c->settings.report_frames = 1;
			c->stats = pp_attr_stats_create(0);
			pp_attr_stats_layer_passes_set(c->stats, c->settings.layer_passes);
			c->window = calloc(c->settings.report_frames, sizeof(*c->window));
			c->window_cap = c->settings.report_frames;
			c->limit_bytes = (uint64_t)c->settings.output_limit_mb << 20;
			if (!c->stats || !c->window) {
				snprintf(err, err_len, "out of memory");
				rc = -ENOMEM;
				break;
			}
			rc = outputs_open(c);
			if (rc) {
				snprintf(err, err_len, "%s: cannot write the outputs there", out_dir);
				break;
			}
		}
		switch (rec.type) {
		case PP_REC_PROCESS: {
			struct pp_rec_process p;
			if (pp_rec_read_decode_process(r, &rec, &p) == 0) {
				c->pid = (pid_t)p.pid;
				snprintf(c->process_name, sizeof(c->process_name), "%s", p.name);
				c->trace_origin_ns = p.trace_origin_ns;
				static const char *names[PP_CPU_COUNTERS_MAX];
				memcpy(names, p.cpu_counters, sizeof(names));
				pp_attr_sink_cpu_counters_set(names, p.ncpu_counters);
				process_seen = true;
			}
			break;
		}
		case PP_REC_SETTINGS:
			settings_read(&c->settings, &rec);
			break;
		case PP_REC_DEVICE: {
			uint32_t id;
			struct pp_device_info info;
			if (pp_rec_read_decode_device(r, &rec, &id, &info) == 0 && pp_attr_sink_device_register(&info) != id)
				note_add(c, "a device of the recording was numbered differently");
			break;
		}
		case PP_REC_FRAME: {
			struct pp_frame_result *f;
			if (pp_rec_read_decode_frame(r, &rec, &f, why, sizeof(why)) != 0) {
				decode_errors++;
				break;
			}
			pp_attr_sink_frame_process(c, f);
			res->frames++;
			break;
		}
		case PP_REC_REPORT_FRAME: {
			/* Past output_limit_mb, for report.json's last frames: nothing else sees it. */
			struct pp_frame_result *f;
			if (pp_rec_read_decode_frame(r, &rec, &f, why, sizeof(why)) != 0) {
				decode_errors++;
				break;
			}
			pp_attr_cpu_frame_result_resolve(f);
			pp_model_frame_result_counters_resolve(f);
			pp_attr_report_window_push(c, f, true);
			break;
		}
		case PP_REC_CPU_EVENT: {
			struct pp_rec_cpu_event e;
			if (pp_rec_read_decode_cpu_event(r, &rec, &e) == 0) {
				struct pp_cpu_event ev = { .name = e.name, .category = e.category, .tid = e.tid,
							   .begin_ns = e.begin_ns, .end_ns = e.end_ns, .flow_id = e.flow_id };
				pp_attr_sink_cpu_event_process(c, &ev);
			}
			break;
		}
		case PP_REC_DIAGNOSTICS: {
			struct pp_diagnostic *d;
			size_t n;
			uint64_t other;
			if (pp_rec_read_decode_diagnostics(r, &rec, &d, &n, &other) == 0) {
				free(g_diags);
				g_diags = d;
				g_ndiags = n;
				g_diags_other = other;
			}
			break;
		}
		case PP_REC_RENDERDOC: {
			struct pp_rec_renderdoc rd;
			if (pp_rec_read_decode_renderdoc(&rec, &rd) == 0) {
				c->renderdoc_seen = true;
				snprintf(c->renderdoc_library, sizeof(c->renderdoc_library), "%s", rd.library);
				snprintf(c->renderdoc_version, sizeof(c->renderdoc_version), "%s", rd.api_version);
			}
			break;
		}
		case PP_REC_CAPTURE: {
			struct pp_rec_capture cap;
			if (pp_rec_read_decode_capture(&rec, &cap) == 0) {
				struct attr_renderdoc_diags d = { cap.diags, cap.ndiags, cap.diags_dropped };
				pp_attr_renderdoc_capture_replayed(cap.device, cap.frame_known ? &cap.frame : NULL,
								cap.requested, cap.path, cap.timestamp, &d);
			}
			pp_rec_read_capture_free(&cap);
			break;
		}
		case PP_REC_STATUS:
		case PP_REC_END:
			pp_rec_read_decode_status(&rec, &status);
			break;
		case PP_REC_SUMMARY:
			if (!summary)
				summary = calloc(1, sizeof(*summary));
			else
				pp_summary_free(summary);
			if (summary && pp_rec_read_decode_summary(&rec, summary) != 0) {
				pp_summary_free(summary);
				free(summary);
				summary = NULL;
			}
			break;
		default:
			break;
		}
	}
	if (rc == 0 && !process_seen) {
		snprintf(err, err_len, "%s: the recording ends before it says which process it is from", path);
		rc = -EINVAL;
	}
	if (rc == 0 && !opened) {
		/* Nothing but the process: its outputs are empty ones. */
		snprintf(c->settings.output_dir, sizeof(c->settings.output_dir), "%s", out_dir);
		memcpy(c->dir, c->settings.output_dir, sizeof(c->dir));
		c->stats = pp_attr_stats_create(0);
		c->window = calloc(1, sizeof(*c->window));
		c->window_cap = 1;
		rc = c->stats && c->window ? outputs_open(c) : -ENOMEM;
		if (rc)
			snprintf(err, err_len, "%s: cannot write the outputs there", out_dir);
	}
	const struct pp_rec_read_notes *notes = pp_rec_read_notes_get(r);
	res->ended = notes->ended;
	if (rc == 0) {
		char text[256];
		if (!notes->ended)
			note_add(c, "the process did not finish its outputs (killed or crashed): made from what it had "
				    "recorded");
		if (notes->cut_bytes) {
			snprintf(text, sizeof(text), "the recording's last %" PRIu64 " bytes (a record cut short) ignored",
				 notes->cut_bytes);
			note_add(c, text);
		}
		if (notes->unknown_records) {
			snprintf(text, sizeof(text), "%" PRIu64 " records of a newer passprobe skipped (%s)",
				 notes->unknown_records, notes->unknown_types);
			note_add(c, text);
		}
		if (decode_errors) {
			snprintf(text, sizeof(text), "%" PRIu64 " damaged frame records skipped", decode_errors);
			note_add(c, text);
		}
		/* Frames that never reached the recording (output_limit_mb) are in the summary the
		 * process kept: that one is taken. */
		c->rec_limit.reached = status.limit_reached;
		c->rec_limit.frames_left_out = status.frames_left_out;
		c->rec_limit.first_left_out = status.first_left_out;
		c->rec_limit.frames = c->frames_total;
		c->rec_limit.bytes = status.bytes ? status.bytes : len;
		if (status.frames_left_out && summary) {
			c->offline_summary = summary;
			summary = NULL;
		}
		if (status.frames_total > c->frames_total)
			c->frames_total = status.frames_total;
		pp_attr_capture_close(c);
		if (c->trace)
			pp_attr_trace_close(c, status.frames_dropped, status.events_dropped);
		if (c->csv)
			pp_attr_csv_close(c);
		pp_attr_report_write(c, status.frames_dropped, status.events_dropped);
		if (c->report_failed)
			rc = -EIO;
		snprintf(res->notes, sizeof(res->notes), "%s", c->offline_notes);
	}
	if (summary)
		pp_summary_free(summary);
	free(summary);
	if (c->offline_summary) {
		pp_summary_free(c->offline_summary);
		free(c->offline_summary);
		c->offline_summary = NULL;
	}
	pp_attr_report_window_free(c);
	pp_attr_renderdoc_free(c);
	pp_attr_experiment_free(c);
	pp_attr_stats_destroy(c->stats);
	if (c->dirfd >= 0)
		close(c->dirfd);
	if (c->lockfd >= 0)
		close(c->lockfd);
	free(g_diags);
	g_diags = NULL;
	g_ndiags = 0;
	pp_attr_sink_diagnostics_source_set(NULL);
	pp_rec_read_close(r);
	munmap((void *)data, len);
	return rc;
}
