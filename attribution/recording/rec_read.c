/* Reading a recording (rec_read.h). Every read is bounds-checked: a recording may come from a
 * process killed in the middle of a write, from a newer passprobe, or from a damaged disk. */
#include "rec_read.h"

#include "pp_summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ids beyond this are refused: a damaged id must not make the reader allocate gigabytes. */
#define MAX_ID (1u << 24)

struct pp_rec_reader {
	const uint8_t *data;
	size_t len, pos;
	uint16_t major, minor;
	char *type_names[64]; /* by type id, from the header (types this reader may not know) */
	char **strings;       /* by id */
	uint32_t nstrings;
	struct pp_gpu_counter_desc **descs; /* by id */
	uint32_t ndescs;
	/* The diagnostics' texts that stand for static strings (cost kinds, reasons): few. */
	char *extras[64];
	uint32_t nextras;
	uint16_t unknown_seen[16];
	uint32_t nunknown_seen;
	struct pp_rec_read_notes notes;
};

/* ---- bounds-checked cursor ---------------------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static bool take(struct cur *c, void *out, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		memset(out, 0, n);
		return false;
	}
	memcpy(out, c->p, n);
	c->p += n;
	return true;
}

static uint8_t get_u8(struct cur *c) { uint8_t v; take(c, &v, 1); return v; }
static uint16_t get_u16(struct cur *c) { uint16_t v; take(c, &v, 2); return v; }
static uint32_t get_u32(struct cur *c) { uint32_t v; take(c, &v, 4); return v; }
static uint64_t get_u64(struct cur *c) { uint64_t v; take(c, &v, 8); return v; }
static double get_f64(struct cur *c) { double v; take(c, &v, 8); return v; }

/* A nested element: its fields are read within its length, which a newer writer may have made
 * longer than the fields this reader knows. */
static struct cur elem(struct cur *c)
{
	uint32_t n = get_u32(c);
	struct cur e = { c->p, c->p, true };
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return e;
	}
	e.end = c->p + n;
	e.bad = false;
	c->p += n;
	return e;
}

/* An array's count (u32) and its memory: a count beyond what the rest of the record can hold at
 * min_len bytes an element is damage (*err -EINVAL); the elements are calloc'd (*err -ENOMEM),
 * none for a count of 0. Returns the elements (NULL for none or on error) with *n their count. */
static void *array_get(struct cur *c, size_t min_len, size_t elem_size, uint32_t *n, int *err)
{
	uint32_t count = get_u32(c);
	void *elems = NULL;
	*n = 0;
	*err = 0;
	if (c->bad || count > (size_t)(c->end - c->p) / min_len)
		*err = -EINVAL;
	else if (count && !(elems = calloc(count, elem_size)))
		*err = -ENOMEM;
	else
		*n = count;
	return elems;
}

/* An inline text (diagnostics, captures) into a NUL-terminated buffer, cut to fit. */
static void text_get(struct cur *c, char *out, size_t size)
{
	uint32_t n = get_u32(c);
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		out[0] = '\0';
		return;
	}
	size_t k = n < size - 1 ? n : size - 1;
	memcpy(out, c->p, k);
	out[k] = '\0';
	c->p += n;
}

static void fail(char *err, size_t len, const char *what, uint64_t offset)
{
	if (err && len)
		snprintf(err, len, "%s (record at byte %llu)", what, (unsigned long long)offset);
}

/* ---- header, records ------------------------------------------------------------------- */

int pp_rec_read_open(const uint8_t *data, size_t len, struct pp_rec_reader **out, char *err, size_t err_len)
{
	*out = NULL;
	if (len < PP_REC_HEADER_FIXED || memcmp(data, PP_REC_MAGIC, 8) != 0) {
		snprintf(err, err_len, len < 8 ? "too short to be a passprobe recording (%zu bytes)"
					       : "not a passprobe recording (no PPRECORD header)", len);
		return -EINVAL;
	}
	struct cur c = { data + 8, data + len, false };
	uint16_t major = get_u16(&c), minor = get_u16(&c);
	uint32_t types_len = get_u32(&c);
	if (major != PP_REC_MAJOR) {
		snprintf(err, err_len, "recording format %u.%u; this passprobe reads format %u.x (%s)", major, minor,
			 PP_REC_MAJOR, major > PP_REC_MAJOR ? "made by a newer passprobe" : "made by an older passprobe");
		return -EINVAL;
	}
	if ((size_t)(c.end - c.p) < types_len) {
		snprintf(err, err_len, "the recording's header is cut short (%zu bytes)", len);
		return -EINVAL;
	}
	struct pp_rec_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->data = data;
	r->len = len;
	r->major = major;
	r->minor = minor;
	r->notes.minor = minor;
	struct cur t = { c.p, c.p + types_len, false };
	while (t.p < t.end && !t.bad) {
		uint16_t id = get_u16(&t), n = get_u16(&t);
		if (t.bad || (size_t)(t.end - t.p) < n)
			break;
		if (id < 64 && !r->type_names[id]) {
			r->type_names[id] = malloc((size_t)n + 1);
			if (r->type_names[id]) {
				memcpy(r->type_names[id], t.p, n);
				r->type_names[id][n] = '\0';
			}
		}
		t.p += n;
	}
	r->pos = (size_t)(c.p - data) + types_len;
	*out = r;
	return 0;
}

void pp_rec_read_close(struct pp_rec_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < 64; i++)
		free(r->type_names[i]);
	for (uint32_t i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
	for (uint32_t i = 0; i < r->ndescs; i++)
		free(r->descs[i]);
	free(r->descs);
	for (uint32_t i = 0; i < r->nextras; i++)
		free(r->extras[i]);
	free(r);
}

const struct pp_rec_read_notes *pp_rec_read_notes_get(const struct pp_rec_reader *r)
{
	return &r->notes;
}

const char *pp_rec_read_string(const struct pp_rec_reader *r, uint32_t id)
{
	return id && id <= r->nstrings ? r->strings[id - 1] : NULL;
}

/* Grows a table indexed by id - 1 to hold id. */
static bool table_fit(void ***table, uint32_t *n, uint32_t id)
{
	if (id == 0 || id > MAX_ID)
		return false;
	if (id <= *n)
		return true;
	uint32_t cap = *n ? *n : 64;
	while (cap < id)
		cap *= 2;
	void **t = realloc(*table, cap * sizeof(*t));
	if (!t)
		return false;
	memset(t + *n, 0, (cap - *n) * sizeof(*t));
	*table = t;
	*n = cap;
	return true;
}

static void string_take(struct pp_rec_reader *r, const struct pp_rec_record *rec)
{
	if (rec->len < 4)
		return;
	uint32_t id;
	memcpy(&id, rec->data, 4);
	/* An id defined again keeps its first text: what was read with it (a counter description,
	 * a decoded frame's static strings) points at that text. A writer defines an id once;
	 * pp_rec_write_dictionary may repeat one, with the same text. */
	if (!table_fit((void ***)&r->strings, &r->nstrings, id) || r->strings[id - 1])
		return;
	char *s = malloc(rec->len - 4 + 1);
	if (!s)
		return;
	memcpy(s, rec->data + 4, rec->len - 4);
	s[rec->len - 4] = '\0';
	r->strings[id - 1] = s;
}

/* A counter a recording names by an id it never described (cut by a damaged record). */
static const struct pp_gpu_counter_desc unknown_desc = {
	.source = "unknown", .name = "unknown", .unit = "", .block = "", .scale = 1, .description = "",
};

static const char *str_or(const struct pp_rec_reader *r, uint32_t id, const char *otherwise)
{
	const char *s = pp_rec_read_string(r, id);
	return s ? s : otherwise;
}

static void desc_take(struct pp_rec_reader *r, const struct pp_rec_record *rec)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	uint32_t id = get_u32(&c);
	struct pp_gpu_counter_desc d = { 0 };
	d.source = str_or(r, get_u32(&c), "unknown");
	d.name = str_or(r, get_u32(&c), "unknown");
	d.unit = str_or(r, get_u32(&c), "");
	d.block = str_or(r, get_u32(&c), "");
	d.scale = get_f64(&c);
	d.per_instance = get_u8(&c);
	d.description = str_or(r, get_u32(&c), "");
	/* As a string's: a decoded frame's counters point at the first. */
	if (c.bad || !table_fit((void ***)&r->descs, &r->ndescs, id) || r->descs[id - 1])
		return;
	struct pp_gpu_counter_desc *copy = malloc(sizeof(*copy));
	if (!copy)
		return;
	*copy = d;
	r->descs[id - 1] = copy;
}

static const struct pp_gpu_counter_desc *desc_of(const struct pp_rec_reader *r, uint32_t id)
{
	return id && id <= r->ndescs && r->descs[id - 1] ? r->descs[id - 1] : &unknown_desc;
}

static void unknown_note(struct pp_rec_reader *r, uint16_t type)
{
	r->notes.unknown_records++;
	for (uint32_t i = 0; i < r->nunknown_seen; i++)
		if (r->unknown_seen[i] == type)
			return;
	if (r->nunknown_seen < 16)
		r->unknown_seen[r->nunknown_seen++] = type;
	const char *name = type < 64 && r->type_names[type] ? r->type_names[type] : NULL;
	size_t n = strlen(r->notes.unknown_types);
	if (name)
		snprintf(r->notes.unknown_types + n, sizeof(r->notes.unknown_types) - n, "%s%s", n ? ", " : "", name);
	else
		snprintf(r->notes.unknown_types + n, sizeof(r->notes.unknown_types) - n, "%stype %u", n ? ", " : "",
			 type);
}

int pp_rec_read_next(struct pp_rec_reader *r, struct pp_rec_record *out)
{
	while (r->pos < r->len) {
		size_t left = r->len - r->pos;
		if (left < PP_REC_RECORD_HEADER) {
			r->notes.cut_bytes = left;
			r->notes.cut_offset = r->pos;
			r->pos = r->len;
			return 0;
		}
		const uint8_t *h = r->data + r->pos;
		uint16_t type;
		uint32_t len;
		memcpy(&type, h, 2);
		memcpy(&len, h + 4, 4);
		if (len > PP_REC_MAX_RECORD || len > left - PP_REC_RECORD_HEADER) {
			/* Cut short by the end of the file, or a length no writer writes: nothing after
			 * it can be found again. */
			r->notes.cut_bytes = left;
			r->notes.cut_offset = r->pos;
			r->pos = r->len;
			return 0;
		}
		struct pp_rec_record rec = { (enum pp_rec_type)type, h + PP_REC_RECORD_HEADER, len, r->pos };
		r->pos += PP_REC_RECORD_HEADER + (size_t)len;
		if (type == PP_REC_STRING) {
			string_take(r, &rec);
			continue;
		}
		if (type == PP_REC_COUNTER_DESC) {
			desc_take(r, &rec);
			continue;
		}
		if (type == 0 || type >= PP_REC_TYPE_COUNT) {
			unknown_note(r, type);
			continue;
		}
		if (type == PP_REC_END)
			r->notes.ended = true;
		*out = rec;
		return 1;
	}
	return 0;
}

/* ---- decoders -------------------------------------------------------------------------- */

static void cpu_cost_get(struct cur *c, struct pp_cpu_cost *out)
{
	memset(out, 0, sizeof(*out));
	out->valid = get_u8(c);
	if (!out->valid)
		return;
	out->begin_ns = get_u64(c);
	out->wall_ns = get_u64(c);
	out->thread_cpu_ns = get_u64(c);
	out->spans = get_u32(c);
	out->tid = get_u32(c);
	out->counters_valid = get_u32(c);
	out->counters_scaled = get_u32(c);
	uint8_t n = get_u8(c);
	for (uint8_t i = 0; i < n; i++) {
		uint64_t v = get_u64(c);
		if (i < PP_CPU_COUNTERS_MAX)
			out->counter[i] = v;
	}
}

static void interval_get(const struct pp_rec_reader *r, struct cur *c, struct pp_gpu_interval *g)
{
	memset(g, 0, sizeof(*g));
	g->valid = get_u8(c);
	if (g->valid) {
		g->begin_ns = get_u64(c);
		g->end_ns = get_u64(c);
	} else {
		g->unavailable_reason = str_or(r, get_u32(c), "not measured");
	}
}

static void workload_get(struct cur *c, struct pp_workload *wl)
{
	uint64_t v[PP_REC_WORKLOAD_COUNTS] = { 0 };
	uint16_t mask = get_u16(c);
	for (unsigned i = 0; i < 16; i++)
		if (mask & (1u << i)) {
			uint64_t x = get_u64(c);
			if (i < PP_REC_WORKLOAD_COUNTS)
				v[i] = x;
		}
	memcpy(wl, v, sizeof(*wl));
}

/* A snapshot as the writer's snapshot_at wrote it; the values it did not write are 0. */
static void snapshot_get(struct cur *c, struct pp_cpu_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->wall_ns = get_u64(c);
	s->thread_cpu_ns = get_u64(c);
	s->tid = get_u32(c);
	s->session = get_u32(c);
	s->flags = get_u32(c);
	s->valid = get_u32(c);
	s->hw_mask = get_u32(c);
	s->sw_mask = get_u32(c);
	if (s->hw_mask | s->sw_mask) {
		s->hw_time_enabled = get_u64(c);
		s->hw_time_running = get_u64(c);
		s->sw_time_enabled = get_u64(c);
		s->sw_time_running = get_u64(c);
	}
	/* A newer writer with more events: their values are read past, not kept. */
	for (uint32_t m = s->valid; m; m &= m - 1) {
		uint64_t v = get_u64(c);
		if ((unsigned)__builtin_ctz(m) < PP_CPU_MAX_EVENTS)
			s->value[__builtin_ctz(m)] = v;
	}
	s->valid &= (1u << PP_CPU_MAX_EVENTS) - 1;
}

/* Format 1.4: the pass's CPU span, still to subtract (pp_attr_cpu_frame_result_resolve).
 * prev: the pass before it in the frame, or NULL. False for a span that begins at a
 * previous pass's end where there is none. */
static bool cpu_span_get(struct cur *c, struct pp_pass_result *p, const struct pp_pass_result *prev)
{
	uint8_t how = get_u8(c);
	if (how == PP_REC_CPU_SPAN_NONE)
		return true;
	if (how == PP_REC_CPU_SPAN_BOTH)
		snapshot_get(c, &p->cpu_begin);
	else if (how == PP_REC_CPU_SPAN_FROM_PREVIOUS && prev && prev->cpu_pending)
		p->cpu_begin_prev = true; /* prev is p[-1] */
	else
		return false;
	snapshot_get(c, &p->cpu_end);
	/* Its cost field said not measured: the span is all of it. */
	p->cpu.valid = false;
	p->cpu_pending = true;
	return true;
}

static bool pass_get(const struct pp_rec_reader *r, struct cur *outer, struct pp_pass_result *p,
		     const struct pp_pass_result *prev)
{
	memset(p, 0, sizeof(*p));
	struct cur c = elem(outer);
	const char *name = str_or(r, get_u32(&c), "");
	pp_model_name_copy(p->name, sizeof(p->name), name);
	p->name_source = (enum pp_name_source)get_u8(&c);
	p->kind = (enum pp_pass_kind)get_u8(&c);
	p->api = str_or(r, get_u32(&c), "unknown");
	p->submission = get_u32(&c);
	p->command_buffer = get_u32(&c);
	p->command_buffer_handle = get_u64(&c);
	p->subpasses = get_u32(&c);
	p->suspended_resumed = get_u8(&c);
	p->secondaries = get_u32(&c);
	p->recorded_by = pp_rec_read_string(r, get_u32(&c));
	workload_get(&c, &p->work);
	uint8_t na = get_u8(&c);
	for (uint8_t i = 0; i < na; i++) {
		struct cur a = elem(&c);
		if (i >= PP_MAX_ATTACHMENTS)
			continue;
		struct pp_attachment *at = &p->attachments[i];
		at->format = str_or(r, get_u32(&a), "unknown");
		at->load_op = str_or(r, get_u32(&a), "unknown");
		at->store_op = str_or(r, get_u32(&a), "unknown");
		at->width = get_u32(&a);
		at->height = get_u32(&a);
		at->layers = get_u32(&a);
		at->samples = get_u32(&a);
		uint8_t bits = get_u8(&a);
		at->depth_stencil = bits & 1;
		at->resolve = bits & 2;
		c.bad |= a.bad;
	}
	p->nattachments = na < PP_MAX_ATTACHMENTS ? na : PP_MAX_ATTACHMENTS;
	interval_get(r, &c, &p->gpu);
	p->gpu_exclusive_ns = get_u64(&c);
	p->overlapped = get_u8(&c);
	cpu_cost_get(&c, &p->cpu);
	p->recording_reused = get_u8(&c);
	p->counters_pending = get_u8(&c);
	if (p->counters_pending) {
		p->stats_valid = get_u32(&c);
		p->stats_reason = pp_rec_read_string(r, get_u32(&c));
		if (p->stats_valid)
			take(&c, p->stats, sizeof(p->stats));
	}
	int got;
	p->counters = array_get(&c, 4, sizeof(*p->counters), &p->ncounters, &got);
	if (got)
		return false;
	for (uint32_t i = 0; i < p->ncounters; i++) {
		struct cur e = elem(&c);
		struct pp_counter_value *v = &p->counters[i];
		v->desc = desc_of(r, get_u32(&e));
		uint8_t bits = get_u8(&e);
		v->v.valid = bits & 1;
		v->v.is_float = bits & 2;
		v->v.other_pass = bits & 4;
		v->estimated = bits & 8;
		v->shared = bits & 16;
		v->other_frame = bits & 32;
		if (v->v.is_float)
			v->v.f = get_f64(&e);
		else
			v->v.u = get_u64(&e);
		if (!v->v.valid)
			v->unavailable_reason = str_or(r, get_u32(&e), "not measured");
		if (v->estimated) {
			v->lower = get_f64(&e);
			v->upper = get_f64(&e);
		}
		if (v->other_frame)
			v->frame = get_u64(&e);
		c.bad |= e.bad;
	}
	p->draw_timings = array_get(&c, 5, sizeof(*p->draw_timings), &p->ndraw_timings, &got);
	if (got)
		return false;
	for (uint32_t i = 0; i < p->ndraw_timings; i++) {
		p->draw_timings[i].index = get_u32(&c);
		interval_get(r, &c, &p->draw_timings[i].gpu);
	}
	/* Format 1.2: the experiment; an older writer's element ends before it. */
	if (!c.bad && c.p < c.end) {
		p->exp_arm = get_u8(&c);
		if (p->exp_arm) {
			p->exp_seen = get_u64(&c);
			p->exp_fixed = get_u64(&c);
		}
	}
	/* Format 1.4: the CPU span; an older writer's element ends before it. */
	if (!c.bad && c.p < c.end && !cpu_span_get(&c, p, prev))
		return false;
	return !c.bad;
}

int pp_rec_read_decode_frame(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_frame_result **out,
			char *err, size_t err_len)
{
	*out = NULL;
	struct cur c = { rec->data, rec->data + rec->len, false };
	struct pp_frame_result *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->index = get_u64(&c);
	f->device_id = get_u32(&c);
	f->delimiter = str_or(r, get_u32(&c), "unknown");
	f->cpu_begin_ns = get_u64(&c);
	f->cpu_end_ns = get_u64(&c);
	cpu_cost_get(&c, &f->cpu);
	cpu_cost_get(&c, &f->blocked);
	uint8_t bits = get_u8(&c);
	f->gpu_timed = bits & 1;
	f->renderdoc = bits & 2;
	f->renderdoc_requested = bits & 4;
	f->captured_by = str_or(r, get_u32(&c), "frames");
	f->recordings_outside_window = get_u32(&c);
	/* Every element takes at least its length: a count beyond what the record holds is damage. */
	uint32_t ns;
	int got;
	f->submissions = array_get(&c, 4, sizeof(*f->submissions), &ns, &got);
	if (got) {
		if (got == -EINVAL)
			fail(err, err_len, "a frame record's submissions are cut short", rec->offset);
		pp_model_frame_result_free(f);
		return got;
	}
	f->nsubmissions = ns;
	for (uint32_t i = 0; i < ns; i++) {
		struct cur e = elem(&c);
		struct pp_submission_result *s = &f->submissions[i];
		s->seq = get_u64(&e);
		s->api = str_or(r, get_u32(&e), "unknown");
		s->queue_handle = get_u64(&e);
		s->queue_family = get_u32(&e);
		s->queue_index = get_u32(&e);
		s->tid = get_u32(&e);
		s->cpu_begin_ns = get_u64(&e);
		s->cpu_end_ns = get_u64(&e);
		interval_get(r, &e, &s->gpu);
		s->first_pass = get_u32(&e);
		s->npasses = get_u32(&e);
		s->command_buffers = get_u32(&e);
		cpu_cost_get(&e, &s->cpu);
		c.bad |= e.bad;
	}
	uint32_t np = get_u32(&c);
	if (c.bad || np > (uint32_t)(c.end - c.p) / 4) {
		fail(err, err_len, "a frame record's passes are cut short", rec->offset);
		pp_model_frame_result_free(f);
		return -EINVAL;
	}
	f->passes = malloc((np ? np : 1) * sizeof(*f->passes));
	if (!f->passes) {
		pp_model_frame_result_free(f);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < np; i++) {
		f->npasses = i + 1; /* what pp_model_frame_result_free frees */
		if (!pass_get(r, &c, &f->passes[i], i ? &f->passes[i - 1] : NULL)) {
			fail(err, err_len, "a pass of a frame record is malformed", rec->offset);
			pp_model_frame_result_free(f);
			return -EINVAL;
		}
	}
	f->npasses = np;
	/* Format 1.4: with passes whose CPU span is still to subtract, the frame's CPU cost without
	 * them (the field above says not measured). */
	if (!c.bad && c.p < c.end && get_u8(&c))
		cpu_cost_get(&c, &f->cpu);
	if (c.bad) {
		fail(err, err_len, "a frame record's CPU cost is cut short", rec->offset);
		pp_model_frame_result_free(f);
		return -EINVAL;
	}
	/* Ranges are kept within the frame, as the outputs index with them. */
	for (uint32_t i = 0; i < ns; i++) {
		struct pp_submission_result *s = &f->submissions[i];
		if (s->first_pass > np)
			s->first_pass = np;
		if (s->npasses > np - s->first_pass)
			s->npasses = np - s->first_pass;
	}
	for (uint32_t i = 0; i < np; i++)
		if (f->passes[i].submission >= ns)
			f->passes[i].submission = ns ? ns - 1 : 0;
	*out = f;
	return 0;
}

int pp_rec_read_decode_process(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_rec_process *out)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	memset(out, 0, sizeof(*out));
	out->pid = get_u32(&c);
	out->name = str_or(r, get_u32(&c), "");
	out->trace_origin_ns = get_u64(&c);
	uint32_t n = get_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		const char *s = str_or(r, get_u32(&c), "?");
		if (i < PP_CPU_COUNTERS_MAX)
			out->cpu_counters[out->ncpu_counters++] = s;
	}
	return c.bad ? -EINVAL : 0;
}

int pp_rec_read_decode_device(struct pp_rec_reader *r, const struct pp_rec_record *rec, uint32_t *id,
			 struct pp_device_info *d)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	memset(d, 0, sizeof(*d));
	*id = get_u32(&c);
	snprintf(d->name, sizeof(d->name), "%s", str_or(r, get_u32(&c), ""));
	snprintf(d->driver, sizeof(d->driver), "%s", str_or(r, get_u32(&c), ""));
	d->vendor_id = get_u32(&c);
	d->device_id = get_u32(&c);
	d->timestamp_period_ns = get_f64(&c);
	d->timestamp_valid_bits = get_u32(&c);
	d->time_domain = str_or(r, get_u32(&c), "none");
	d->pipeline_statistics = get_u8(&c);
	d->query_results = pp_rec_read_string(r, get_u32(&c));
	d->notes = pp_rec_read_string(r, get_u32(&c));
	d->gpu_time_caveat = pp_rec_read_string(r, get_u32(&c));
	return c.bad ? -EINVAL : 0;
}

int pp_rec_read_decode_cpu_event(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_rec_cpu_event *out)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	out->name = str_or(r, get_u32(&c), "");
	out->category = str_or(r, get_u32(&c), "");
	out->tid = get_u32(&c);
	out->begin_ns = get_u64(&c);
	out->end_ns = get_u64(&c);
	out->flow_id = get_u64(&c);
	return c.bad ? -EINVAL : 0;
}

/* The diagnostics' static texts (cost kinds, reasons) come back as strings of the reader: the
 * record inlines them, and they are few. */
static const char *text_static(struct pp_rec_reader *r, struct cur *c)
{
	char buf[512];
	text_get(c, buf, sizeof(buf));
	if (c->bad || !buf[0])
		return NULL;
	for (uint32_t i = 0; i < r->nextras; i++)
		if (!strcmp(r->extras[i], buf))
			return r->extras[i];
	if (r->nextras == sizeof(r->extras) / sizeof(r->extras[0]))
		return "(more texts than kept)";
	char *copy = strdup(buf);
	if (!copy)
		return NULL;
	r->extras[r->nextras++] = copy;
	return copy;
}

int pp_rec_read_decode_diagnostics(struct pp_rec_reader *r, const struct pp_rec_record *rec, struct pp_diagnostic **out,
			      size_t *n, uint64_t *other)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	*out = NULL;
	*n = 0;
	*other = get_u64(&c);
	uint32_t count = get_u32(&c);
	if (c.bad || count > (uint32_t)(c.end - c.p) / 4)
		return -EINVAL;
	struct pp_diagnostic *d = calloc(count ? count : 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		struct cur e = elem(&c);
		struct pp_diagnostic *x = &d[i];
		text_get(&e, x->id, sizeof(x->id));
		x->device_id = get_u32(&e);
		text_get(&e, x->site, sizeof(x->site));
		text_get(&e, x->message, sizeof(x->message));
		text_get(&e, x->suggestion, sizeof(x->suggestion));
		x->count = get_u64(&e);
		x->frames = get_u64(&e);
		x->first_frame = get_u64(&e);
		x->last_frame = get_u64(&e);
		x->cost_valid = get_u8(&e);
		x->cost_ns = get_u64(&e);
		x->cost_kind = text_static(r, &e);
		x->cost_unavailable = text_static(r, &e);
		x->share_of_frame = get_f64(&e);
		x->gpu_idle_valid = get_u8(&e);
		x->gpu_idle_ns = get_u64(&e);
		x->gpu_idle_unavailable = text_static(r, &e);
		x->thread_id = get_u32(&e);
		text_get(&e, x->thread_name, sizeof(x->thread_name));
		x->command_buffers = get_u32(&e);
		/* Format 1.1: the severity and its verdict. A recording of 1.0 has neither: its
		 * sites read as warnings (report.json's "severity" says so), which every finding
		 * was then. */
		if (e.p < e.end && !e.bad) {
			x->severity = text_static(r, &e);
			text_get(&e, x->verdict, sizeof(x->verdict));
		}
		/* Format 1.2: the experiment; before it, no site was in one. */
		x->exp_site = -1;
		if (e.p < e.end && !e.bad) {
			x->exp_state = get_u8(&e);
			x->exp_site = (int32_t)get_u32(&e);
			text_get(&e, x->exp_detail, sizeof(x->exp_detail));
			text_get(&e, x->exp_why, sizeof(x->exp_why));
			x->exp_fixed = get_u64(&e);
			for (int a = 0; a < 2; a++) {
				x->exp_arms[a].frames = get_u64(&e);
				for (int m = 0; m < PP_EXP_METRICS; m++) {
					struct pp_exp_stat *s = &x->exp_arms[a].m[m];
					s->n = get_u32(&e);
					s->p25 = get_u64(&e);
					s->p50 = get_u64(&e);
					s->p75 = get_u64(&e);
				}
			}
			x->exp_frames_neither = get_u64(&e);
		}
		if (e.bad || c.bad) {
			free(d);
			return -EINVAL;
		}
	}
	*out = d;
	*n = count;
	return 0;
}

int pp_rec_read_decode_renderdoc(const struct pp_rec_record *rec, struct pp_rec_renderdoc *out)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	text_get(&c, out->library, sizeof(out->library));
	text_get(&c, out->api_version, sizeof(out->api_version));
	return c.bad ? -EINVAL : 0;
}

/* The smallest element of a capture's diagnostic: five empty texts, the index, the handle. */
#define OCCURRENCE_MIN_LEN (4 + 5 * 4 + 4 + 8)

int pp_rec_read_decode_capture(const struct pp_rec_record *rec, struct pp_rec_capture *out)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	memset(out, 0, sizeof(*out));
	out->device = get_u32(&c);
	uint8_t bits = get_u8(&c);
	out->frame_known = bits & 1;
	out->requested = bits & 2;
	out->frame = get_u64(&c);
	out->timestamp = get_u64(&c);
	text_get(&c, out->path, sizeof(out->path));
	/* Format 1.3: the frame's diagnostics. A record of 1.2 or before ends here. */
	if (c.bad || c.p == c.end)
		return c.bad ? -EINVAL : 0;
	out->diags_dropped = get_u64(&c);
	uint32_t n = get_u32(&c);
	if (c.bad || n > (size_t)(c.end - c.p) / OCCURRENCE_MIN_LEN)
		return -EINVAL;
	if (!n)
		return 0;
	out->diags = calloc(n, sizeof(*out->diags));
	if (!out->diags)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct cur e = elem(&c);
		struct pp_diagnostic_occurrence *o = &out->diags[i];
		text_get(&e, o->id, sizeof(o->id));
		text_get(&e, o->severity, sizeof(o->severity));
		text_get(&e, o->message, sizeof(o->message));
		text_get(&e, o->suggestion, sizeof(o->suggestion));
		text_get(&e, o->call, sizeof(o->call));
		o->call_index = get_u32(&e);
		o->command_buffer = get_u64(&e);
		if (e.bad || c.bad)
			return -EINVAL;
		out->ndiags = i + 1;
	}
	return 0;
}

void pp_rec_read_capture_free(struct pp_rec_capture *c)
{
	free(c->diags);
	c->diags = NULL;
	c->ndiags = 0;
}

int pp_rec_read_decode_status(const struct pp_rec_record *rec, struct pp_rec_status *out)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	out->frames_total = get_u64(&c);
	out->frames_dropped = get_u64(&c);
	out->events_dropped = get_u64(&c);
	out->frames_left_out = get_u64(&c);
	out->first_left_out = get_u64(&c);
	out->limit_reached = get_u8(&c);
	out->bytes = get_u64(&c);
	return c.bad ? -EINVAL : 0;
}

int pp_rec_read_decode_summary(const struct pp_rec_record *rec, struct pp_summary *s)
{
	struct cur c = { rec->data, rec->data + rec->len, false };
	pp_summary_init(s);
	s->frames = get_u64(&c);
	s->frames_gpu_timed = get_u64(&c);
	s->frame_gpu_mean_ns = get_f64(&c);
	s->frame_gpu_p50_ns = get_f64(&c);
	s->frame_gpu_p95_ns = get_f64(&c);
	text_get(&c, s->device, sizeof(s->device));
	text_get(&c, s->notes, sizeof(s->notes));
	uint32_t n = get_u32(&c);
	if (c.bad || n > (uint32_t)(c.end - c.p) / 4)
		return -EINVAL;
	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct cur e = elem(&c);
		struct pp_summary_row *r = &s->rows[i];
		pp_summary_row_init(r);
		text_get(&e, r->name, sizeof(r->name));
		text_get(&e, r->kind, sizeof(r->kind));
		r->count = get_u64(&e);
		r->measured = get_u64(&e);
		r->gpu_mean_ns = get_f64(&e);
		r->gpu_p50_ns = get_f64(&e);
		r->gpu_p95_ns = get_f64(&e);
		r->gpu_max_ns = get_f64(&e);
		r->share_of_frame = get_f64(&e);
		r->per_frame = get_f64(&e);
		r->cpu_record_mean_ns = get_f64(&e);
		uint32_t nc = get_u32(&e);
		for (uint32_t k = 0; k < nc && !e.bad; k++) {
			struct pp_summary_counter tmp;
			struct pp_summary_counter *sc = k < PP_SUMMARY_COUNTERS ? &r->counters[k] : &tmp;
			text_get(&e, sc->name, sizeof(sc->name));
			text_get(&e, sc->unit, sizeof(sc->unit));
			sc->mean = get_f64(&e);
			sc->measured = get_u64(&e);
		}
		r->ncounters = nc < PP_SUMMARY_COUNTERS ? nc : PP_SUMMARY_COUNTERS;
		if (e.bad)
			return -EINVAL;
		s->nrows = i + 1;
	}
	return c.bad ? -EINVAL : 0;
}
