/* report.json: the last report_frames frames in full plus the summary over every frame,
 * written whole (atomically, by rename) at the end: at process exit, and by `passprobe report`
 * from a recording. Layout: docs/report-format.md. The window is a ring of the last
 * report_frames frames (in the application's process their records' bytes: struct
 * attr_window_frame), so memory is bounded however long the program runs, and a frame is
 * formatted once, when the report is written. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp_json.h"
#include "attr_sink_internal.h"
#include "attr_stats.h"
#include "pp_summary.h"
#include "pp_log.h"
#include "rec_read.h"
#include "rec_write.h"

#define REPORT_NAME "report.json"

static void frame_write(struct pp_json_writer *w, const struct pp_frame_result *f);

static void window_entry_free(struct attr_window_frame *e)
{
	pp_model_frame_result_free(e->frame);
	free(e->bytes);
}

void pp_attr_report_window_push(struct attr_sink_ctx *c, struct pp_frame_result *f, bool recorded)
{
	/* A frame RenderDoc captured keeps its text for the captures' list, whatever the window
	 * keeps: one frame's formatting, for a frame a person asked to capture. */
	if (f->renderdoc) {
		pp_attr_cpu_frame_result_resolve(f);
		pp_model_frame_result_counters_resolve(f);
		struct pp_json_writer w;
		pp_json_write_init_mem(&w, 0, 0);
		frame_write(&w, f);
		size_t len = 0;
		char *json = pp_json_write_finish(&w) == 0 ? pp_json_write_mem_take(&w, &len) : NULL;
		pp_json_write_release(&w);
		if (json)
			pp_attr_renderdoc_frame_keep(c, f, json, len);
		free(json);
	}
	if (!c->window || c->window_cap == 0) {
		pp_model_frame_result_free(f);
		return;
	}
	/* The entry the frame goes to: the next free one, or the oldest's, whose bytes' buffer it
	 * takes over (a program's frames are usually alike in size: no allocation once full). */
	struct attr_window_frame *e;
	if (c->window_count < c->window_cap) {
		e = &c->window[(c->window_head + c->window_count) % c->window_cap];
		c->window_count++;
	} else {
		e = &c->window[c->window_head];
		c->window_head = (c->window_head + 1) % c->window_cap;
		pp_model_frame_result_free(e->frame);
	}
	uint8_t *buffer = e->bytes;
	size_t cap = e->cap;
	*e = (struct attr_window_frame){ .index = f->index, .frame = f, .recorded = recorded };
	/* The frame just recorded: its record's bytes, copied before the writer writes again. */
	size_t len = 0;
	const uint8_t *bytes = recorded && c->rec ? pp_rec_write_last_frame(c->rec, &len) : NULL;
	if (bytes && cap < len) {
		free(buffer);
		buffer = malloc(len);
		cap = buffer ? len : 0;
	}
	if (bytes && buffer) {
		memcpy(buffer, bytes, len);
		e->bytes = buffer;
		e->len = len;
		e->cap = cap;
		e->generation = c->rec_generation;
		e->frame = NULL;
		pp_model_frame_result_free(f);
	} else {
		free(buffer);
		if (c->rec)
			e->generation = pp_rec_write_generation(c->rec); /* the window's stay in order */
	}
	if (c->rec)
		pp_rec_write_strings_keep(c->rec, c->window[c->window_head].generation);
}

void pp_attr_report_window_seal(struct attr_sink_ctx *c)
{
	bool any = false;
	for (uint32_t i = 0; i < c->window_count && !any; i++)
		any = c->window[(c->window_head + i) % c->window_cap].bytes != NULL;
	if (!any || !c->rec || c->window_reader)
		return;
	size_t len;
	char why[256] = "out of memory";
	c->window_dict = pp_rec_write_dictionary(c->rec, &len);
	if (c->window_dict && pp_rec_read_open(c->window_dict, len, &c->window_reader, why, sizeof(why)) == 0) {
		struct pp_rec_record rec;
		while (pp_rec_read_next(c->window_reader, &rec) > 0)
			; /* strings and counter descriptions only: taken in */
		return;
	}
	pp_log(PP_LOG_ERROR, "report.json's frames cannot be read back (%s); report.json lists none of the "
			     "recorded ones: `passprobe report %s` makes it from the recording",
	       why, c->dir);
	free(c->window_dict);
	c->window_dict = NULL;
}

/* A window's frame as the report formats it: kept, or read back from its bytes (free it with
 * window_frame_put). NULL, said once, where it cannot be read. */
static struct pp_frame_result *window_frame_get(struct attr_sink_ctx *c, const struct attr_window_frame *e)
{
	if (e->frame)
		return e->frame;
	if (!c->window_reader)
		return NULL;
	struct pp_rec_record rec = { .type = PP_REC_FRAME, .data = e->bytes, .len = e->len };
	struct pp_frame_result *f;
	char why[256];
	if (pp_rec_read_decode_frame(c->window_reader, &rec, &f, why, sizeof(why)) != 0) {
		pp_log_once(PP_LOG_ERROR, "report.json: frame %" PRIu64 " cannot be read back (%s); left out",
			    e->index, why);
		return NULL;
	}
	return f;
}

static void window_frame_put(const struct attr_window_frame *e, struct pp_frame_result *f)
{
	if (f != e->frame)
		pp_model_frame_result_free(f);
}

void pp_attr_report_window_free(struct attr_sink_ctx *c)
{
	for (uint32_t i = 0; i < c->window_count; i++)
		window_entry_free(&c->window[(c->window_head + i) % c->window_cap]);
	free(c->window);
	c->window = NULL;
	c->window_count = c->window_head = c->window_cap = 0;
	pp_rec_read_close(c->window_reader);
	c->window_reader = NULL;
	free(c->window_dict);
	c->window_dict = NULL;
}

bool pp_attr_report_frame_gpu_ns(const struct pp_frame_result *f, uint64_t *out)
{
	uint64_t sum = 0;
	bool any = false;
	for (size_t i = 0; i < f->npasses; i++) {
		if (!f->passes[i].gpu.valid)
			continue;
		sum += f->passes[i].gpu_exclusive_ns;
		any = true;
	}
	*out = sum;
	return any;
}

/* ---- small writers -------------------------------------------------------------------- */

static uint64_t span(uint64_t begin, uint64_t end)
{
	return end > begin ? end - begin : 0;
}

/* gpu_begin_ns, gpu_end_ns, the length (its name pre-quoted: PP_JSON_NAME), and
 * gpu_unavailable when there is no time. */
static void gpu_interval_write(struct pp_json_writer *w, const struct pp_gpu_interval *g,
			       const char *len_name, size_t len_name_len)
{
	if (g->valid) {
		pp_json_write_kv_uint_lit(w, "gpu_begin_ns", g->begin_ns);
		pp_json_write_kv_uint_lit(w, "gpu_end_ns", g->end_ns);
		pp_json_write_member_uint(w, len_name, len_name_len, span(g->begin_ns, g->end_ns));
		return;
	}
	pp_json_write_kv_null_lit(w, "gpu_begin_ns");
	pp_json_write_kv_null_lit(w, "gpu_end_ns");
	pp_json_write_member_null(w, len_name, len_name_len);
	pp_json_write_kv_str_lit(w, "gpu_unavailable", g->unavailable_reason ? g->unavailable_reason : "not measured");
}

const char *pp_attr_report_kind_name(enum pp_pass_kind k)
{
	switch (k) {
	case PP_PASS_RENDER: return "render";
	case PP_PASS_COMPUTE: return "compute";
	case PP_PASS_TRANSFER: return "transfer";
	}
	return "unknown";
}

const char *pp_attr_report_name_source_name(enum pp_name_source s)
{
	switch (s) {
	case PP_NAME_LABEL: return "label";
	case PP_NAME_OBJECT: return "object";
	case PP_NAME_GENERATED: return "generated";
	}
	return "unknown";
}

uint64_t pp_attr_report_workload_draws(const struct pp_workload *wl)
{
	return wl->draws + wl->draws_indexed + wl->draws_indirect + wl->draws_indirect_count;
}

void pp_attr_report_workload_write(struct pp_json_writer *w, const struct pp_workload *wl)
{
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "draws", wl->draws);
	pp_json_write_kv_uint_lit(w, "draws_indexed", wl->draws_indexed);
	pp_json_write_kv_uint_lit(w, "draws_indirect", wl->draws_indirect);
	pp_json_write_kv_uint_lit(w, "draws_indirect_count", wl->draws_indirect_count);
	pp_json_write_kv_uint_lit(w, "instances", wl->instances);
	pp_json_write_kv_uint_lit(w, "vertices", wl->vertices);
	pp_json_write_kv_uint_lit(w, "indices", wl->indices);
	pp_json_write_kv_uint_lit(w, "dispatches", wl->dispatches);
	pp_json_write_kv_uint_lit(w, "dispatches_indirect", wl->dispatches_indirect);
	pp_json_write_kv_uint_lit(w, "workgroups", wl->workgroups);
	pp_json_write_kv_uint_lit(w, "copies", wl->copies);
	pp_json_write_kv_uint_lit(w, "copy_bytes", wl->copy_bytes);
	pp_json_write_kv_uint_lit(w, "clears", wl->clears);
	pp_json_write_kv_uint_lit(w, "barriers", wl->barriers);
	pp_json_write_end_object(w);
}

/* "cpu": {"wall_ns", "thread_cpu_ns", "spans", "tid", "counters": {name: value|null},
 * "scaled": [names]} or null. */
static void cpu_write_as(struct pp_json_writer *w, const char *name, size_t name_len,
			 const struct pp_cpu_cost *c)
{
	pp_json_write_member_name(w, name, name_len);
	if (!c->valid) {
		pp_json_write_null(w);
		return;
	}
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "begin_ns", c->begin_ns);
	pp_json_write_kv_uint_lit(w, "wall_ns", c->wall_ns);
	pp_json_write_kv_uint_lit(w, "thread_cpu_ns", c->thread_cpu_ns);
	pp_json_write_kv_uint_lit(w, "spans", c->spans);
	if (c->tid)
		pp_json_write_kv_uint_lit(w, "tid", c->tid);
	else
		pp_json_write_kv_null_lit(w, "tid");
	pp_json_write_key_lit(w, "counters");
	pp_json_write_begin_object(w);
	const struct attr_json_name *names = pp_attr_counters_cpu_json_names();
	for (unsigned i = 0; i < pp_attr_sink_cpu_counter_count; i++) {
		if (c->counters_valid & (1u << i))
			attr_json_kv_uint(w, &names[i], pp_attr_sink_cpu_counter_names[i], c->counter[i]);
		else
			attr_json_kv_null(w, &names[i], pp_attr_sink_cpu_counter_names[i]);
	}
	pp_json_write_end_object(w);
	pp_json_write_key_lit(w, "scaled");
	pp_json_write_begin_array(w);
	for (unsigned i = 0; i < pp_attr_sink_cpu_counter_count; i++)
		if (c->counters_valid & c->counters_scaled & (1u << i))
			pp_json_write_string(w, pp_attr_sink_cpu_counter_names[i]);
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);
}

static void cpu_write(struct pp_json_writer *w, const struct pp_cpu_cost *c)
{
	cpu_write_as(w, PP_JSON_NAME("cpu"), c);
}

static void pass_write(struct pp_json_writer *w, const struct pp_pass_result *p)
{
	pp_json_write_begin_object(w);
	pp_json_write_key_lit(w, "name");
	pp_json_write_string_n(w, p->name, strnlen(p->name, sizeof(p->name)));
	pp_json_write_kv_str_lit(w, "name_source", pp_attr_report_name_source_name(p->name_source));
	pp_json_write_kv_str_lit(w, "kind", pp_attr_report_kind_name(p->kind));
	pp_json_write_kv_str_lit(w, "api", p->api);
	pp_json_write_kv_uint_lit(w, "submission", p->submission);
	pp_json_write_kv_uint_lit(w, "command_buffer", p->command_buffer);
	pp_json_write_kv_handle_lit(w, "command_buffer_handle", p->command_buffer_handle);
	pp_json_write_kv_uint_lit(w, "subpasses", p->subpasses);
	pp_json_write_kv_bool_lit(w, "suspended_resumed", p->suspended_resumed);
	pp_json_write_kv_uint_lit(w, "secondaries", p->secondaries);
	if (p->recorded_by)
		pp_json_write_kv_str_lit(w, "recorded_by", p->recorded_by);
	pp_json_write_kv_uint_lit(w, "draws", pp_attr_report_workload_draws(&p->work));
	pp_json_write_key_lit(w, "workload");
	pp_attr_report_workload_write(w, &p->work);

	pp_json_write_key_lit(w, "attachments");
	pp_json_write_begin_array(w);
	uint32_t na = p->nattachments < PP_MAX_ATTACHMENTS ? p->nattachments : PP_MAX_ATTACHMENTS;
	for (uint32_t i = 0; i < na; i++) {
		const struct pp_attachment *a = &p->attachments[i];
		pp_json_write_begin_object(w);
		pp_json_write_kv_str_lit(w, "format", a->format);
		pp_json_write_kv_uint_lit(w, "width", a->width);
		pp_json_write_kv_uint_lit(w, "height", a->height);
		pp_json_write_kv_uint_lit(w, "layers", a->layers);
		pp_json_write_kv_uint_lit(w, "samples", a->samples);
		pp_json_write_kv_str_lit(w, "load_op", a->load_op);
		pp_json_write_kv_str_lit(w, "store_op", a->store_op);
		pp_json_write_kv_bool_lit(w, "depth_stencil", a->depth_stencil);
		pp_json_write_kv_bool_lit(w, "resolve", a->resolve);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);

	gpu_interval_write(w, &p->gpu, PP_JSON_NAME("gpu_ns"));
	if (p->gpu.valid) {
		pp_json_write_kv_uint_lit(w, "gpu_exclusive_ns", p->gpu_exclusive_ns);
		pp_json_write_kv_bool_lit(w, "overlapped", p->overlapped);
	} else {
		pp_json_write_kv_null_lit(w, "gpu_exclusive_ns");
		pp_json_write_kv_null_lit(w, "overlapped");
	}

	/* Generated from the generic counter set: the pipeline statistics backend's counters. */
	const uint32_t all = (1u << PP_STAT_COUNT) - 1;
	uint64_t stats[PP_STAT_COUNT];
	const char *stats_reason;
	uint32_t stats_valid = pp_attr_counters_pass_statistics(p, stats, &stats_reason);
	pp_json_write_key_lit(w, "pipeline_statistics");
	if ((stats_valid & all) == 0) {
		pp_json_write_null(w);
		pp_json_write_kv_str_lit(w, "pipeline_statistics_unavailable", stats_reason);
	} else {
		pp_json_write_begin_object(w);
		const struct attr_json_name *names = pp_attr_counters_stat_json_names();
		for (unsigned i = 0; i < PP_STAT_COUNT; i++) {
			if (stats_valid & (1u << i))
				attr_json_kv_uint(w, &names[i], pp_model_stat_names[i], stats[i]);
			else
				attr_json_kv_null(w, &names[i], pp_model_stat_names[i]);
		}
		pp_json_write_end_object(w);
		if ((stats_valid & all) != all)
			pp_json_write_kv_str_lit(w, "pipeline_statistics_unavailable", stats_reason);
	}
	pp_json_write_key_lit(w, "gpu_counters");
	pp_attr_counters_write(w, p);

	cpu_write(w, &p->cpu);
	pp_json_write_kv_bool_lit(w, "recording_reused", p->recording_reused);

	if (p->ndraw_timings && p->draw_timings) {
		pp_json_write_key_lit(w, "draw_timings");
		pp_json_write_begin_array(w);
		for (uint32_t i = 0; i < p->ndraw_timings; i++) {
			pp_json_write_begin_object(w);
			pp_json_write_kv_uint_lit(w, "index", p->draw_timings[i].index);
			gpu_interval_write(w, &p->draw_timings[i].gpu, PP_JSON_NAME("gpu_ns"));
			pp_json_write_end_object(w);
		}
		pp_json_write_end_array(w);
	}
	pp_json_write_end_object(w);
}

static void submission_write(struct pp_json_writer *w, const struct pp_submission_result *s)
{
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "seq", s->seq);
	pp_json_write_kv_str_lit(w, "api", s->api);
	pp_json_write_key_lit(w, "queue");
	pp_json_write_begin_object(w);
	pp_json_write_kv_handle_lit(w, "handle", s->queue_handle);
	pp_json_write_kv_uint_lit(w, "family", s->queue_family);
	pp_json_write_kv_uint_lit(w, "index", s->queue_index);
	pp_json_write_end_object(w);
	pp_json_write_kv_uint_lit(w, "tid", s->tid);
	pp_json_write_kv_uint_lit(w, "cpu_begin_ns", s->cpu_begin_ns);
	pp_json_write_kv_uint_lit(w, "cpu_end_ns", s->cpu_end_ns);
	pp_json_write_kv_uint_lit(w, "cpu_ns", span(s->cpu_begin_ns, s->cpu_end_ns));
	gpu_interval_write(w, &s->gpu, PP_JSON_NAME("gpu_span_ns"));
	pp_json_write_kv_uint_lit(w, "first_pass", s->first_pass);
	pp_json_write_kv_uint_lit(w, "passes", s->npasses);
	pp_json_write_kv_uint_lit(w, "command_buffers", s->command_buffers);
	cpu_write(w, &s->cpu);
	pp_json_write_end_object(w);
}

static void frame_write(struct pp_json_writer *w, const struct pp_frame_result *f)
{
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "index", f->index);
	pp_json_write_kv_uint_lit(w, "device", f->device_id);
	pp_json_write_kv_str_lit(w, "delimiter", f->delimiter);
	pp_json_write_kv_uint_lit(w, "cpu_begin_ns", f->cpu_begin_ns);
	pp_json_write_kv_uint_lit(w, "cpu_end_ns", f->cpu_end_ns);
	uint64_t gpu;
	if (pp_attr_report_frame_gpu_ns(f, &gpu)) {
		pp_json_write_kv_uint_lit(w, "gpu_ns", gpu);
	} else {
		pp_json_write_kv_null_lit(w, "gpu_ns");
		pp_json_write_kv_str_lit(w, "gpu_unavailable", f->npasses ? "no pass of the frame has a GPU time"
							: "the frame has no passes");
	}
	cpu_write(w, &f->cpu);
	cpu_write_as(w, PP_JSON_NAME("blocked"), &f->blocked);
	pp_json_write_kv_bool_lit(w, "gpu_timed", f->gpu_timed);
	pp_json_write_kv_str_lit(w, "captured_by", f->captured_by ? f->captured_by : "frames");
	pp_json_write_kv_uint_lit(w, "recordings_outside_window", f->recordings_outside_window);
	if (f->renderdoc)
		pp_json_write_kv_bool_lit(w, "renderdoc_capture", true);
	/* The experiment (docs/diagnostics.md): frames of its arms say which, and what they measure. */
	uint64_t exp_sites;
	bool exp_modified;
	enum pp_exp_arm arm = pp_attr_experiment_frame_arm(f, &exp_sites, &exp_modified);
	if (exp_modified || arm != PP_EXP_ARM_NONE) {
		pp_json_write_kv_str_lit(w, "experiment_arm", arm == PP_EXP_ARM_FIXED	  ? "fixed"
							: arm == PP_EXP_ARM_AS_WRITTEN ? "as-written"
										       : "neither");
		pp_json_write_key_lit(w, "experiment_sites");
		pp_json_write_begin_array(w);
		for (uint32_t k = 0; k < PP_EXP_MAX_SITES; k++)
			if (exp_sites & (1ull << k))
				pp_json_write_uint(w, k);
		pp_json_write_end_array(w);
		if (exp_modified)
			pp_json_write_kv_bool_lit(w, "experiment_modified", true);
	}
	pp_json_write_key_lit(w, "submissions");
	pp_json_write_begin_array(w);
	for (size_t i = 0; i < f->nsubmissions; i++)
		submission_write(w, &f->submissions[i]);
	pp_json_write_end_array(w);
	pp_json_write_key_lit(w, "passes");
	pp_json_write_begin_array(w);
	for (size_t i = 0; i < f->npasses; i++)
		pass_write(w, &f->passes[i]);
	pp_json_write_end_array(w);
	pp_json_write_end_object(w);
}

static void devices_write(struct pp_json_writer *w)
{
	const struct attr_device *devs;
	size_t n = pp_attr_sink_devices_snapshot(&devs);
	pp_json_write_begin_array(w);
	for (size_t i = 0; i < n; i++) {
		const struct pp_device_info *d = &devs[i].info;
		pp_json_write_begin_object(w);
		pp_json_write_kv_uint_lit(w, "id", devs[i].id);
		pp_json_write_key_lit(w, "name");
		pp_json_write_string_n(w, d->name, strnlen(d->name, sizeof(d->name)));
		pp_json_write_key_lit(w, "driver");
		pp_json_write_string_n(w, d->driver, strnlen(d->driver, sizeof(d->driver)));
		pp_json_write_kv_uint_lit(w, "vendor_id", d->vendor_id);
		pp_json_write_kv_uint_lit(w, "device_id", d->device_id);
		pp_json_write_key_lit(w, "timestamp_period_ns");
		if (d->timestamp_valid_bits)
			pp_json_write_double(w, d->timestamp_period_ns);
		else
			pp_json_write_null(w);
		pp_json_write_kv_uint_lit(w, "timestamp_valid_bits", d->timestamp_valid_bits);
		pp_json_write_kv_str_lit(w, "time_domain", d->time_domain);
		pp_json_write_kv_bool_lit(w, "pipeline_statistics", d->pipeline_statistics);
		pp_json_write_kv_str_lit(w, "query_results", d->query_results);
		pp_json_write_kv_str_lit(w, "notes", d->notes);
		pp_json_write_kv_str_lit(w, "gpu_time_caveat", d->gpu_time_caveat);
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
}

/* Every diagnostic site so far (attribution/diag/diag_sites.c; docs/diagnostics.md). */
static void diagnostics_write(struct attr_sink_ctx *c, struct pp_json_writer *w)
{
	pp_json_write_key_lit(w, "diagnostics");
	pp_json_write_begin_array(w);
	struct pp_diagnostic *d;
	size_t n;
	uint64_t other;
	pp_attr_sink_diagnostics_snapshot(c, &d, &n, &other);
	for (size_t i = 0; i < n; i++) {
		const struct pp_diagnostic *x = &d[i];
		pp_json_write_begin_object(w);
		pp_json_write_kv_str_lit(w, "id", x->id);
		pp_json_write_kv_uint_lit(w, "device", x->device_id);
		pp_json_write_kv_uint_lit(w, "count", x->count);
		pp_json_write_kv_uint_lit(w, "frames", x->frames);
		pp_json_write_kv_uint_lit(w, "first_frame", x->first_frame);
		pp_json_write_kv_uint_lit(w, "last_frame", x->last_frame);
		pp_json_write_kv_str_lit(w, "site", x->site);
		if (x->command_buffers)
			pp_json_write_kv_uint_lit(w, "command_buffers", x->command_buffers);
		if (x->thread_id) {
			pp_json_write_kv_uint_lit(w, "thread_id", x->thread_id);
			pp_json_write_kv_str_lit(w, "thread_name", x->thread_name);
		}
		pp_json_write_kv_str_lit(w, "message", x->message);
		pp_json_write_kv_str_lit(w, "suggestion", x->suggestion);
		pp_json_write_kv_str_lit(w, "severity", x->severity ? x->severity : "warning");
		pp_json_write_kv_str_lit(w, "verdict", x->verdict);
		pp_json_write_kv_str_lit(w, "cost_kind", x->cost_kind ? x->cost_kind : "none");
		if (x->cost_valid) {
			pp_json_write_kv_uint_lit(w, "cost_ns", x->cost_ns);
			pp_json_write_kv_null_lit(w, "cost_unavailable");
		} else {
			pp_json_write_kv_null_lit(w, "cost_ns");
			pp_json_write_kv_str_lit(w, "cost_unavailable", x->cost_unavailable ? x->cost_unavailable : "not measured");
		}
		pp_json_write_key_lit(w, "share_of_frame");
		if (x->cost_valid && x->share_of_frame >= 0)
			pp_json_write_double(w, x->share_of_frame);
		else
			pp_json_write_null(w);
		if (x->gpu_idle_valid) {
			pp_json_write_kv_uint_lit(w, "gpu_idle_ns", x->gpu_idle_ns);
			pp_json_write_kv_null_lit(w, "gpu_idle_unavailable");
		} else if (x->gpu_idle_unavailable) {
			pp_json_write_kv_null_lit(w, "gpu_idle_ns");
			pp_json_write_kv_str_lit(w, "gpu_idle_unavailable", x->gpu_idle_unavailable);
		}
		pp_attr_experiment_json(w, x);
		pp_json_write_end_object(w);
	}
	free(d);
	if (other) {
		pp_json_write_begin_object(w);
		pp_json_write_kv_str_lit(w, "id", "PASSPROBE-Other");
		pp_json_write_kv_uint_lit(w, "count", other);
		pp_json_write_kv_str_lit(w, "message", "occurrences at sites beyond the bound of distinct sites kept");
		/* Not judged one by one: not counted among the warnings (passprobe compare). */
		pp_json_write_kv_str_lit(w, "severity", "info");
		pp_json_write_end_object(w);
	}
	pp_json_write_end_array(w);
}

/* The settings the run used (docs/settings.md names them), for whoever reads the report
 * later: the HTML report's header, `passprobe compare`. */
static void settings_write(struct pp_json_writer *w, const struct pp_settings *s)
{
	static const char *const levels[] = { "error", "warn", "info", "debug" };
	static const char *const switches[] = { "off", "on", "auto" };
	char delim[160];
	switch (s->frame_delimiter) {
	case PP_FRAME_PRESENT: snprintf(delim, sizeof(delim), "present"); break;
	case PP_FRAME_SUBMIT: snprintf(delim, sizeof(delim), "submit"); break;
	case PP_FRAME_LABEL: snprintf(delim, sizeof(delim), "label:%s", s->frame_label); break;
	default: snprintf(delim, sizeof(delim), "auto"); break;
	}
	pp_json_write_begin_object(w);
	pp_json_write_kv_str_lit(w, "log_level", (unsigned)s->log_level < 4 ? levels[s->log_level] : "?");
	pp_json_write_kv_str_lit(w, "frame_delimiter", delim);
	pp_json_write_kv_bool_lit(w, "timestamps", s->timestamps);
	pp_json_write_kv_bool_lit(w, "pipeline_statistics", s->pipeline_statistics);
	pp_json_write_kv_bool_lit(w, "per_draw_timing", s->per_draw_timing);
	pp_json_write_kv_bool_lit(w, "diagnostics", s->diagnostics);
	pp_json_write_kv_bool_lit(w, "barrier_cost", s->barrier_cost);
	pp_json_write_kv_str_lit(w, "cpu_counters", s->cpu_counters);
	pp_json_write_kv_uint_lit(w, "report_frames", s->report_frames);
	pp_json_write_kv_uint_lit(w, "flush_interval_ms", s->flush_interval_ms);
	pp_json_write_kv_bool_lit(w, "trace", s->trace);
	pp_json_write_kv_bool_lit(w, "csv", s->csv);
	pp_json_write_kv_bool_lit(w, "summary", s->summary);
	pp_json_write_kv_bool_lit(w, "finish_on_signal", s->finish_on_signal);
	pp_json_write_kv_str_lit(w, "copy_results",
		       (unsigned)s->copy_results < 3 ? switches[s->copy_results] : "?");
	char ranges[512];
	pp_frame_ranges_format(&s->renderdoc_frames, ranges, sizeof(ranges));
	pp_json_write_kv_str_lit(w, "renderdoc_frames", ranges);
	pp_json_write_kv_bool_lit(w, "layer_passes", s->layer_passes);
	pp_json_write_kv_str_lit(w, "experiment", s->experiment == PP_EXPERIMENT_BARRIER_FIXES ? "barrier-fixes" : "off");
	pp_json_write_end_object(w);
}

static void document_write(struct attr_sink_ctx *c, struct pp_json_writer *w,
			   uint64_t frames_dropped, uint64_t events_dropped)
{
	pp_json_write_begin_object(w);
	pp_json_write_kv_str_lit(w, "schema", "passprobe-report");
	pp_json_write_kv_uint_lit(w, "version", 1);
	pp_json_write_kv_str_lit(w, "generator", "passprobe 0.1.0");
	pp_json_write_kv_str_lit(w, "clock", "CLOCK_MONOTONIC");
	pp_json_write_key_lit(w, "process");
	pp_json_write_begin_object(w);
	pp_json_write_kv_uint_lit(w, "pid", (uint64_t)c->pid);
	pp_json_write_kv_str_lit(w, "name", c->process_name);
	pp_json_write_end_object(w);
	pp_json_write_key_lit(w, "settings");
	settings_write(w, &c->settings);
	pp_json_write_key_lit(w, "devices");
	devices_write(w);
	pp_json_write_kv_uint_lit(w, "frames_total", c->frames_total);
	pp_json_write_kv_uint_lit(w, "frames_dropped", frames_dropped);
	pp_json_write_kv_uint_lit(w, "cpu_events_dropped", events_dropped);
	pp_json_write_key_lit(w, "frames_window");
	pp_json_write_begin_object(w);
	if (c->window_count)
		pp_json_write_kv_uint_lit(w, "first", c->window[c->window_head].index);
	else
		pp_json_write_kv_null_lit(w, "first");
	pp_json_write_kv_uint_lit(w, "count", c->window_count);
	pp_json_write_kv_uint_lit(w, "limit", c->window_cap);
	pp_json_write_end_object(w);
	pp_json_write_key_lit(w, "frames");
	pp_json_write_begin_array(w);
	for (uint32_t i = 0; i < c->window_count; i++) {
		const struct attr_window_frame *e = &c->window[(c->window_head + i) % c->window_cap];
		struct pp_frame_result *f = window_frame_get(c, e);
		if (!f)
			continue;
		pp_attr_cpu_frame_result_resolve(f);
		pp_model_frame_result_counters_resolve(f);
		frame_write(w, f);
		window_frame_put(e, f);
	}
	pp_json_write_end_array(w);

	struct pp_summary sum;
	pp_attr_sink_summary_build(c, frames_dropped, &sum);
	pp_json_write_key_lit(w, "summary");
	pp_summary_write_json(w, &sum);
	pp_summary_free(&sum);

	pp_attr_capture_report_write(c, w);
	pp_attr_renderdoc_report_write(c, w);
	diagnostics_write(c, w);
	pp_json_write_end_object(w);
}

void pp_attr_report_write(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), REPORT_NAME ".tmp.%d", (int)c->pid);
	FILE *f = pp_attr_sink_file_create(c, tmp, true, NULL);
	if (!f && errno == EEXIST) {
		/* Left by an earlier process that had our pid and died mid-write. */
		unlinkat(c->dirfd, tmp, 0);
		f = pp_attr_sink_file_create(c, tmp, true, NULL);
	}
	if (!f) {
		pp_attr_sink_file_fail(c, REPORT_NAME, errno);
		c->report_failed = true;
		return;
	}
	struct pp_json_writer w;
	pp_json_write_init_file(&w, f, 0);
	document_write(c, &w, frames_dropped, events_dropped);
	int err = pp_json_write_finish(&w);
	if (err == 0 && fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	if (err == 0 && renameat(c->dirfd, tmp, c->dirfd, REPORT_NAME) != 0)
		err = -errno;
	if (err != 0) {
		unlinkat(c->dirfd, tmp, 0);
		pp_attr_sink_file_fail(c, REPORT_NAME, -err);
		c->report_failed = true;
		return;
	}
	c->report_writes++;
}
