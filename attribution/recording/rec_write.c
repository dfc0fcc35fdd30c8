/* Writing the recording (rec_write.h). */
#include "rec_write.h"

#include <stdlib.h>
#include <string.h>

#include "pp_hash.h"
#include "pp_summary.h"
#include "rec_bytes.h"
#include "rec_format.h"
#include "rec_keep.h"

const char *const pp_rec_write_type_names[PP_REC_TYPE_COUNT] = {
	[PP_REC_STRING] = "string",
	[PP_REC_PROCESS] = "process",
	[PP_REC_SETTINGS] = "settings",
	[PP_REC_DEVICE] = "device",
	[PP_REC_COUNTER_DESC] = "counter_desc",
	[PP_REC_FRAME] = "frame",
	[PP_REC_CPU_EVENT] = "cpu_event",
	[PP_REC_DIAGNOSTICS] = "diagnostics",
	[PP_REC_RENDERDOC] = "renderdoc",
	[PP_REC_CAPTURE] = "capture",
	[PP_REC_STATUS] = "status",
	[PP_REC_END] = "end",
	[PP_REC_SUMMARY] = "summary",
	[PP_REC_REPORT_FRAME] = "report_frame",
};

/* Strings written so far, by content: names in a frame's pass results are copies, the same
 * text at another address each frame. Their texts live in one arena allocated with the
 * writer, so the table's memory is fixed however many strings a program makes (names with a
 * frame number in them: a new string every frame). When the table or the arena is full it is
 * emptied, and strings are written again under new ids (the reader keeps every id it saw). */
#define STRINGS_MAX 2048
#define STRINGS_SLOTS (2 * STRINGS_MAX)
#define STRINGS_ARENA (64u << 10)
#define STRINGS_LONG (STRINGS_ARENA / 16) /* longer: written every time, never kept */
struct string_entry {
	uint64_t hash;
	uint32_t id; /* 0: empty slot */
	uint32_t len;
	uint32_t at; /* in the arena */
};

/* Static strings (an api name, a reason, a format) by address, in front of the table: a
 * boundary's strings are found with a compare instead of a hash of their text. Two ways a
 * set: string literals lie close together, and two that a pass uses every time sharing a
 * slot of a direct-mapped cache missed both, every pass (two on each of the GLES shim's
 * passes: two hashes of their text a pass). */
#define STATIC_CACHE 256
struct static_entry {
	const char *ptr;
	uint32_t id;
	uint32_t generation;
};

/* What the pass at a position of its frame wrote last frame, in front of the string table and
 * the static cache: a program names and describes the pass at a position alike every frame,
 * so its describing fields are copied as written last frame where they are the same (below),
 * its name, where they are not, is found by comparing the name's bytes rather than by hashing
 * its text, and the reasons of its GPU interval and statistics (set at the harvest, not
 * described) by comparing addresses rather than by hashing them. Emptied with the string table
 * (strings_clear): an empty entry has no name id, and its strings are NULL with id 0, NULL's
 * id. */
#define POSITIONS 64
enum { POS_GPU_REASON, POS_STATS_REASON, POS_STRINGS };

/* The fields of a pass that describe it (from its name to its attachments) as last written at
 * its position, with the pass fields they were made from: where those are the same bytes (a
 * pass recorded alike frame after frame), the bytes are copied rather than made again. The
 * command buffer's handle, in the middle of them, is written apart: command buffers used in
 * turn change it every frame. The strings' ids in the bytes stay valid once the string table
 * is emptied (an id is never used again), but the entry is emptied with it all the same. */
#define STATICS_KEY offsetof(struct pp_pass_result, command_buffer_handle)
_Static_assert(offsetof(struct pp_pass_result, name) == 0 &&
		       offsetof(struct pp_pass_result, gpu) == STATICS_KEY + sizeof(uint64_t),
	       "a pass's describing fields come first, then the command buffer's handle, then what was measured");
/* An attachment's written fields: those before the image view. */
#define STATICS_ATTACHMENT_KEY (offsetof(struct pp_attachment, resolve) + sizeof(bool))
_Static_assert(offsetof(struct pp_attachment, view) >= STATICS_ATTACHMENT_KEY, "the view comes last");
#define STATICS_ATTACHMENTS 4
#define STATICS_HANDLE_AT 18 /* the bytes before the handle: name, name source, kind, API, submission, command buffer */
#define STATICS_BYTES 288 /* 4 attachments and every workload count: 278 */
struct statics_entry {
	uint16_t len; /* of bytes[], the handle apart; 0: none */
	uint8_t pass[STATICS_KEY];
	struct pp_workload work;
	uint8_t attachments[STATICS_ATTACHMENTS][STATICS_ATTACHMENT_KEY];
	uint8_t bytes[STATICS_BYTES];
};

struct position_entry {
	char name[PP_NAME_BYTES];
	uint32_t name_id; /* 0: none */
	uint32_t id[POS_STRINGS];
	const char *str[POS_STRINGS];
	struct statics_entry statics;
};

#define DESCS_MAX 4096
#define OUT_INITIAL (256u << 10)
struct pp_rec_writer {
	/* Records are built in place at the end of out. The STRING and COUNTER_DESC records a
	 * record being built needs go to side meanwhile and are moved in front of it when it ends
	 * (rare: a string is new once). */
	struct buf out, side;
	size_t record_at;
	bool in_record;
	uint32_t next_string;
	uint32_t nstrings;
	uint32_t generation; /* of the string table: a cache entry of another one is stale */
	struct string_entry strings[STRINGS_SLOTS];
	char *arena;
	size_t arena_used;
	struct static_entry statics[STATIC_CACHE];
	struct position_entry positions[POSITIONS];
	bool prev_span; /* the last pass written (of this frame) has a CPU span */
	uint32_t ndescs;
	const struct pp_gpu_counter_desc *descs[DESCS_MAX]; /* id = index + 1 */
	bool failed;
	/* The last record ended, where it is a frame: its payload at out.p + last_at. */
	size_t last_at, last_len;
	/* For frames kept as their records' bytes (pp_rec_write_strings_keep); NULL: none. */
	struct pp_rec_keep *keep;
};

/* Where a whole record goes now: out, or side while another is being built in out. */
static struct buf *records_out(struct pp_rec_writer *w)
{
	return w->in_record ? &w->side : &w->out;
}

static void record(struct pp_rec_writer *w, enum pp_rec_type type, const void *payload, size_t len)
{
	if (len > PP_REC_MAX_RECORD) {
		w->failed = true;
		return;
	}
	struct buf *o = records_out(w);
	size_t at = o->len;
	w->last_len = o == &w->out ? 0 : w->last_len;
	put_u16(o, (uint16_t)type);
	put_u16(o, 0);
	put_u32(o, (uint32_t)len);
	put(o, payload, len);
	if (o->failed) {
		/* Never half a record: what fitted is taken back. */
		o->failed = false;
		o->len = at;
		w->failed = true;
	}
}

/* ---- strings --------------------------------------------------------------------------- */

static void string_record_put(struct buf *o, uint32_t id, const char *text, size_t n)
{
	put_u16(o, PP_REC_STRING);
	put_u16(o, 0);
	put_u32(o, (uint32_t)(4 + n));
	put_u32(o, id);
	put_slow(o, text, n);
}

/* The table's strings as STRING records. */
static void table_put(const struct pp_rec_writer *w, struct buf *b)
{
	for (size_t i = 0; i < STRINGS_SLOTS; i++) {
		const struct string_entry *e = &w->strings[i];
		if (e->id)
			string_record_put(b, e->id, w->arena + e->at, e->len);
	}
}

static void strings_clear(struct pp_rec_writer *w)
{
	if (w->keep && pp_rec_keep_wants(w->keep, w->generation)) {
		struct buf b = { 0 };
		table_put(w, &b);
		if (b.failed) {
			free(b.p);
			b.p = NULL;
		}
		pp_rec_keep_table(w->keep, w->generation, b.p, b.len);
	}
	memset(w->strings, 0, sizeof(w->strings));
	memset(w->positions, 0, sizeof(w->positions));
	w->nstrings = 0;
	w->arena_used = 0;
	w->generation++;
}

/* The id of text[0..n), writing its STRING record first when it is new. 0 for NULL. */
static uint32_t intern_n(struct pp_rec_writer *w, const char *text, size_t n)
{
	if (!text)
		return 0;
	uint64_t h = pp_hash_bytes(text, n); /* an empty slot is one without an id */
	size_t slot = h % STRINGS_SLOTS;
	for (;;) {
		struct string_entry *e = &w->strings[slot];
		if (!e->id)
			break;
		if (e->hash == h && e->len == n && !memcmp(w->arena + e->at, text, n))
			return e->id;
		slot = (slot + 1) % STRINGS_SLOTS;
	}
	bool keep = n <= STRINGS_LONG;
	if (keep && (w->nstrings == STRINGS_MAX || w->arena_used + n > STRINGS_ARENA)) {
		strings_clear(w);
		slot = h % STRINGS_SLOTS;
	}
	uint32_t id = ++w->next_string;
	/* The STRING record goes ahead of the record being built. */
	struct buf *o = records_out(w);
	size_t at = o->len;
	string_record_put(o, id, text, n);
	if (o->failed) {
		o->failed = false;
		o->len = at;
		w->failed = true;
		return 0;
	}
	if (keep) {
		memcpy(w->arena + w->arena_used, text, n);
		w->strings[slot] = (struct string_entry){ .hash = h, .id = id, .len = (uint32_t)n,
							  .at = (uint32_t)w->arena_used };
		w->arena_used += n;
		w->nstrings++;
	}
	return id;
}

static uint32_t intern(struct pp_rec_writer *w, const char *text)
{
	return text ? intern_n(w, text, strlen(text)) : 0;
}

/* A string that lives as long as the process (static, or interned by its producer). */
static __attribute__((noinline)) uint32_t intern_static_miss(struct pp_rec_writer *w, struct static_entry *e,
							      const char *text)
{
	uint32_t id = intern(w, text);
	e[1] = e[0]; /* the newest first; the older of the two goes */
	e[0] = (struct static_entry){ .ptr = text, .id = id, .generation = w->generation };
	return id;
}

static inline __attribute__((always_inline)) uint32_t intern_static(struct pp_rec_writer *w, const char *text)
{
	if (!text)
		return 0;
	/* The address's bits mixed (Fibonacci hashing), so that neighbours spread over the sets. */
	size_t set = (size_t)(((uint64_t)(uintptr_t)text * 0x9E3779B97F4A7C15ull) >> 40) % (STATIC_CACHE / 2);
	struct static_entry *e = &w->statics[2 * set];
	if (e[0].ptr == text && e[0].generation == w->generation)
		return e[0].id;
	if (e[1].ptr == text && e[1].generation == w->generation)
		return e[1].id;
	return intern_static_miss(w, e, text);
}

/* The id of a pass's name (e: the entry of its position in the frame, or NULL). */
static uint32_t intern_pass_name(struct pp_rec_writer *w, const struct pp_pass_result *p, struct position_entry *e)
{
	if (e && e->name_id && pp_model_name_same(e->name, p->name))
		return e->name_id;
	uint32_t id = intern_n(w, p->name, strnlen(p->name, sizeof(p->name)));
	/* After intern_n, which may have emptied every entry. */
	if (e && id) {
		memcpy(e->name, p->name, sizeof(e->name));
		e->name_id = id;
	}
	return id;
}

static __attribute__((noinline)) uint32_t intern_at_miss(struct pp_rec_writer *w, struct position_entry *e,
							  unsigned k, const char *text)
{
	uint32_t id = intern_static(w, text);
	if (e) { /* after intern_static, which may have emptied every entry */
		e->str[k] = text;
		e->id[k] = id;
	}
	return id;
}

/* The id of a pass's static string k (e: the entry of its position in the frame, or NULL). */
static inline __attribute__((always_inline)) uint32_t intern_at(struct pp_rec_writer *w, struct position_entry *e,
								 unsigned k, const char *text)
{
	if (e && e->str[k] == text)
		return e->id[k];
	return intern_at_miss(w, e, k, text);
}

static uint32_t desc_id(struct pp_rec_writer *w, const struct pp_gpu_counter_desc *d)
{
	if (!d)
		return 0;
	for (uint32_t i = w->ndescs; i > 0; i--)
		if (w->descs[i - 1] == d)
			return i;
	if (w->ndescs == DESCS_MAX)
		return 0; /* read back as an unnamed counter */
	/* From here: the strings it names and the record, kept whole for pp_rec_write_dictionary. */
	struct buf *o = records_out(w);
	size_t from = o->len;
	struct buf b = { 0 };
	uint32_t id = w->ndescs + 1;
	put_u32(&b, id);
	put_u32(&b, intern_static(w, d->source));
	put_u32(&b, intern_static(w, d->name));
	put_u32(&b, intern_static(w, d->unit));
	put_u32(&b, intern_static(w, d->block));
	put_f64(&b, d->scale);
	put_u8(&b, d->per_instance);
	put_u32(&b, intern_static(w, d->description));
	if (b.failed) {
		w->failed = true;
		free(b.p);
		return 0;
	}
	record(w, PP_REC_COUNTER_DESC, b.p, b.len);
	free(b.p);
	if (w->keep && !w->failed)
		pp_rec_keep_descs(w->keep, o->p + from, o->len - from);
	w->descs[w->ndescs++] = d;
	return id;
}

/* ---- the writer ------------------------------------------------------------------------ */

/* The file's header: magic, version, the record types this writer knows by name. */
static void header_put(struct buf *b)
{
	put(b, PP_REC_MAGIC, 8);
	put_u16(b, PP_REC_MAJOR);
	put_u16(b, PP_REC_MINOR);
	size_t types_at = b->len;
	put_u32(b, 0);
	for (uint16_t t = 1; t < PP_REC_TYPE_COUNT; t++) {
		uint16_t n = (uint16_t)strlen(pp_rec_write_type_names[t]);
		put_u16(b, t);
		put_u16(b, n);
		put(b, pp_rec_write_type_names[t], n);
	}
	if (!b->failed) {
		uint32_t types_len = (uint32_t)(b->len - types_at - 4);
		memcpy(b->p + types_at, &types_len, 4);
	}
}

struct pp_rec_writer *pp_rec_write_create(void)
{
	struct pp_rec_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	/* Room for a batch of frames from the start (the writer's 32 frames of 20 passes take
	 * about 150 KiB of it): the buffer grows while the program runs only for frames of many
	 * passes. */
	reserve(&w->out, OUT_INITIAL);
	w->arena = malloc(STRINGS_ARENA);
	if (!w->arena) {
		free(w->out.p);
		free(w);
		return NULL;
	}
	header_put(&w->out);
	if (w->out.failed) {
		pp_rec_write_destroy(w);
		return NULL;
	}
	return w;
}

void pp_rec_write_destroy(struct pp_rec_writer *w)
{
	if (!w)
		return;
	pp_rec_keep_destroy(w->keep);
	free(w->arena);
	free(w->out.p);
	free(w->side.p);
	free(w);
}

const uint8_t *pp_rec_write_take(struct pp_rec_writer *w, size_t *len)
{
	*len = w->out.len;
	w->out.len = 0;
	w->last_len = 0;
	return w->out.p;
}

size_t pp_rec_write_pending(const struct pp_rec_writer *w)
{
	return w->out.len;
}

bool pp_rec_write_failed(const struct pp_rec_writer *w)
{
	return w->failed;
}

const uint8_t *pp_rec_write_last_frame(const struct pp_rec_writer *w, size_t *len)
{
	*len = w->last_len;
	return w->last_len ? w->out.p + w->last_at : NULL;
}

uint32_t pp_rec_write_generation(const struct pp_rec_writer *w)
{
	return w->generation;
}

void pp_rec_write_strings_keep(struct pp_rec_writer *w, uint32_t oldest)
{
	/* Out of memory: no dictionary (pp_rec_write_dictionary says so), the recording goes on. */
	if (!w->keep && oldest != UINT32_MAX)
		w->keep = pp_rec_keep_create();
	if (w->keep)
		pp_rec_keep_from(w->keep, oldest);
}

uint8_t *pp_rec_write_dictionary(const struct pp_rec_writer *w, size_t *len)
{
	*len = 0;
	struct buf b = { 0 };
	header_put(&b);
	if (!w->keep || !pp_rec_keep_put(w->keep, &b)) {
		free(b.p);
		return NULL;
	}
	table_put(w, &b);
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* A record is built where it will stay, at the end of out, its header filled in when it
 * ends; the records it needs first (new strings) wait in side and are moved in front. */
static struct buf *payload_begin(struct pp_rec_writer *w)
{
	w->record_at = w->out.len;
	w->in_record = true;
	w->side.len = 0;
	w->last_len = 0;
	uint8_t head[PP_REC_RECORD_HEADER] = { 0 };
	put(&w->out, head, sizeof(head));
	return &w->out;
}

static void payload_end(struct pp_rec_writer *w, enum pp_rec_type type)
{
	struct buf *o = &w->out, *side = &w->side;
	size_t at = w->record_at, len = o->len - at - PP_REC_RECORD_HEADER;
	w->in_record = false;
	if (!o->failed && !side->failed && len <= PP_REC_MAX_RECORD && (!side->len || reserve(o, side->len))) {
		uint16_t t = (uint16_t)type;
		uint32_t n = (uint32_t)len;
		memcpy(o->p + at, &t, 2);
		memcpy(o->p + at + 4, &n, 4);
		if (side->len) {
			memmove(o->p + at + side->len, o->p + at, PP_REC_RECORD_HEADER + len);
			memcpy(o->p + at, side->p, side->len);
			o->len += side->len;
			at += side->len;
			side->len = 0;
		}
		if (type == PP_REC_FRAME || type == PP_REC_REPORT_FRAME) {
			w->last_at = at + PP_REC_RECORD_HEADER;
			w->last_len = len;
		}
		return;
	}
	/* Never half a record, nor the strings it needed: the writer has failed. */
	o->failed = side->failed = false;
	o->len = at;
	side->len = 0;
	w->failed = true;
}

void pp_rec_write_process(struct pp_rec_writer *w, uint32_t pid, const char *name, uint64_t trace_origin_ns,
			  const char *const *cpu_counters, unsigned ncpu_counters)
{
	uint32_t ids[PP_CPU_COUNTERS_MAX];
	unsigned n = ncpu_counters < PP_CPU_COUNTERS_MAX ? ncpu_counters : PP_CPU_COUNTERS_MAX;
	for (unsigned i = 0; i < n; i++)
		ids[i] = intern(w, cpu_counters[i]);
	uint32_t name_id = intern(w, name);
	struct buf *b = payload_begin(w);
	put_u32(b, pid);
	put_u32(b, name_id);
	put_u64(b, trace_origin_ns);
	put_u32(b, n);
	for (unsigned i = 0; i < n; i++)
		put_u32(b, ids[i]);
	payload_end(w, PP_REC_PROCESS);
}

void pp_rec_write_settings(struct pp_rec_writer *w, const char *text, size_t len)
{
	record(w, PP_REC_SETTINGS, text, len);
}

void pp_rec_write_device(struct pp_rec_writer *w, uint32_t id, const struct pp_device_info *d)
{
	uint32_t s[8] = { intern_n(w, d->name, strnlen(d->name, sizeof(d->name))),
			  intern_n(w, d->driver, strnlen(d->driver, sizeof(d->driver))),
			  intern(w, d->time_domain),
			  intern(w, d->query_results),
			  intern(w, d->notes),
			  intern(w, d->gpu_time_caveat) };
	struct buf *b = payload_begin(w);
	put_u32(b, id);
	put_u32(b, s[0]);
	put_u32(b, s[1]);
	put_u32(b, d->vendor_id);
	put_u32(b, d->device_id);
	put_f64(b, d->timestamp_period_ns);
	put_u32(b, d->timestamp_valid_bits);
	put_u32(b, s[2]);
	put_u8(b, d->pipeline_statistics);
	put_u32(b, s[3]);
	put_u32(b, s[4]);
	put_u32(b, s[5]);
	payload_end(w, PP_REC_DEVICE);
}

/* ---- a frame's fields, written through a cursor (rec_bytes.h) --------------------------- */

/* The most cpu_cost_at writes, and the most pass_put writes for p: every field is written in
 * at most the bytes it takes in memory, plus the lengths, counts and flag bytes around them
 * (64 for the pass, 8 an element). */
#define CPU_COST_ROOM (sizeof(struct pp_cpu_cost) + 8)
static size_t pass_room(const struct pp_pass_result *p)
{
	return sizeof(*p) + 64 + (size_t)p->nattachments * (sizeof(p->attachments[0]) + 8) +
	       (size_t)p->ncounters * (sizeof(p->counters[0]) + 8) +
	       (size_t)(p->draw_timings ? p->ndraw_timings : 0) * (sizeof(p->draw_timings[0]) + 8);
}

static uint8_t *cpu_cost_at(uint8_t *o, const struct pp_cpu_cost *c, unsigned ncounters)
{
	o = at_u8(o, c->valid);
	if (!c->valid)
		return o;
	o = at_u64(o, c->begin_ns);
	o = at_u64(o, c->wall_ns);
	o = at_u64(o, c->thread_cpu_ns);
	o = at_u32(o, c->spans);
	o = at_u32(o, c->tid);
	o = at_u32(o, c->counters_valid);
	o = at_u32(o, c->counters_scaled);
	o = at_u8(o, (uint8_t)ncounters);
	memcpy(o, c->counter, ncounters * sizeof(uint64_t));
	return o + ncounters * sizeof(uint64_t);
}

static void cpu_cost_put(struct buf *b, const struct pp_cpu_cost *c, unsigned ncounters)
{
	uint8_t *o = room(b, CPU_COST_ROOM);
	if (o)
		room_used(b, cpu_cost_at(o, c, ncounters));
}

/* e: the entry of the pass whose interval it is, or NULL. */
static uint8_t *interval_at(struct pp_rec_writer *w, uint8_t *o, const struct pp_gpu_interval *g,
			    struct position_entry *e)
{
	o = at_u8(o, g->valid);
	if (g->valid) {
		o = at_u64(o, g->begin_ns);
		return at_u64(o, g->end_ns);
	}
	return at_u32(o, intern_at(w, e, POS_GPU_REASON, g->unavailable_reason));
}

static void interval_put(struct pp_rec_writer *w, struct buf *b, const struct pp_gpu_interval *g)
{
	uint8_t *o = room(b, 17);
	if (o)
		room_used(b, interval_at(w, o, g, NULL));
}

/* The workload's counts, in struct pp_workload's order: a mask of those that are not 0, then
 * those (a pass uses 3 or 4 of the 14: 30 bytes rather than 112). */
_Static_assert(sizeof(struct pp_workload) == PP_REC_WORKLOAD_COUNTS * sizeof(uint64_t), "pp_workload is its counts");
static uint8_t *workload_at(uint8_t *o, const struct pp_workload *wl)
{
	const uint8_t *v = (const uint8_t *)wl;
	/* The mask first, with loads only; then the counts that are not 0, one step each. */
	uint16_t mask = 0;
	for (unsigned i = 0; i < PP_REC_WORKLOAD_COUNTS; i++) {
		uint64_t x;
		memcpy(&x, v + 8 * i, 8);
		mask |= (uint16_t)((x != 0) << i);
	}
	memcpy(o, &mask, 2);
	o += 2;
	for (unsigned m = mask; m; m &= m - 1) {
		memcpy(o, v + 8 * (unsigned)__builtin_ctz(m), 8);
		o += 8;
	}
	return o;
}

/* A CPU snapshot as pp_cpu_counters_snapshot_delta reads it, its measured values only (format
 * 1.4): at most the bytes it takes in memory. */
static uint8_t *snapshot_at(uint8_t *o, const struct pp_cpu_snapshot *s)
{
	uint32_t valid = s->valid & ((1u << PP_CPU_MAX_EVENTS) - 1);
	o = at_u64(o, s->wall_ns);
	o = at_u64(o, s->thread_cpu_ns);
	o = at_u32(o, s->tid);
	o = at_u32(o, s->session);
	o = at_u32(o, s->flags);
	o = at_u32(o, valid);
	o = at_u32(o, s->hw_mask);
	o = at_u32(o, s->sw_mask);
	if (s->hw_mask | s->sw_mask) {
		o = at_u64(o, s->hw_time_enabled);
		o = at_u64(o, s->hw_time_running);
		o = at_u64(o, s->sw_time_enabled);
		o = at_u64(o, s->sw_time_running);
	}
	for (uint32_t m = valid; m; m &= m - 1)
		o = at_u64(o, s->value[__builtin_ctz(m)]);
	return o;
}

/* A pass's CPU span not yet subtracted (cpu_pending, format 1.4): its two snapshots, which the
 * report subtracts. A span that begins where the previous pass's ended (a recording's passes
 * one after the other) refers to that snapshot. */
static uint8_t *cpu_span_at(struct pp_rec_writer *w, uint8_t *o, const struct pp_pass_result *p)
{
	bool previous = w->prev_span;
	w->prev_span = p->cpu_pending;
	if (!p->cpu_pending)
		return at_u8(o, PP_REC_CPU_SPAN_NONE);
	if (p->cpu_begin_prev && previous) {
		o = at_u8(o, PP_REC_CPU_SPAN_FROM_PREVIOUS);
	} else {
		o = at_u8(o, PP_REC_CPU_SPAN_BOTH);
		o = snapshot_at(o, pp_model_pass_cpu_begin(p));
	}
	return snapshot_at(o, &p->cpu_end);
}

/* Whether p's describing fields are those e's bytes were made from (na: its attachments). */
static inline bool statics_same(const struct statics_entry *c, const struct pp_pass_result *p, uint32_t na)
{
	if (!c->len || memcmp(c->pass, p, STATICS_KEY) || memcmp(&c->work, &p->work, sizeof(p->work)))
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (memcmp(c->attachments[i], &p->attachments[i], STATICS_ATTACHMENT_KEY))
			return false;
	return true;
}

/* A pass's describing fields, from its name to its attachments (na), written at o, and kept
 * in e's statics where they fit. */
static __attribute__((noinline)) uint8_t *statics_at(struct pp_rec_writer *w, uint8_t *o, const struct pp_pass_result *p,
						      struct position_entry *e, uint32_t na)
{
	uint8_t *start = o;
	o = at_u32(o, intern_pass_name(w, p, e));
	o = at_u8(o, (uint8_t)p->name_source);
	o = at_u8(o, (uint8_t)p->kind);
	o = at_u32(o, intern_static(w, p->api));
	o = at_u32(o, p->submission);
	o = at_u32(o, p->command_buffer);
	uint8_t *handle = o;
	o = at_u64(o, p->command_buffer_handle);
	o = at_u32(o, p->subpasses);
	o = at_u8(o, p->suspended_resumed);
	o = at_u32(o, p->secondaries);
	o = at_u32(o, intern_static(w, p->recorded_by));
	o = workload_at(o, &p->work);
	o = at_u8(o, (uint8_t)na);
	for (uint32_t i = 0; i < na; i++) {
		const struct pp_attachment *a = &p->attachments[i];
		uint8_t *ae = o;
		o = elem_at(o);
		o = at_u32(o, intern_static(w, a->format));
		o = at_u32(o, intern_static(w, a->load_op));
		o = at_u32(o, intern_static(w, a->store_op));
		o = at_u32(o, a->width);
		o = at_u32(o, a->height);
		o = at_u32(o, a->layers);
		o = at_u32(o, a->samples);
		o = at_u8(o, (uint8_t)(a->depth_stencil | a->resolve << 1));
		elem_close(ae, o);
	}
	size_t after = (size_t)(o - handle) - 8;
	/* A failed writer's ids may be 0: nothing is kept from it. */
	if (e && na <= STATICS_ATTACHMENTS && STATICS_HANDLE_AT + after <= STATICS_BYTES && !w->failed) {
		struct statics_entry *c = &e->statics;
		memcpy(c->bytes, start, STATICS_HANDLE_AT);
		memcpy(c->bytes + STATICS_HANDLE_AT, handle + 8, after);
		c->len = (uint16_t)(STATICS_HANDLE_AT + after);
		memcpy(c->pass, p, STATICS_KEY);
		c->work = p->work;
		for (uint32_t i = 0; i < na; i++)
			memcpy(c->attachments[i], &p->attachments[i], STATICS_ATTACHMENT_KEY);
	}
	return o;
}

/* Strings go to the writer's side buffer while a record is built (never to b), so the
 * interning calls between the stores leave the cursor's room alone. */
static void pass_put(struct pp_rec_writer *w, struct buf *b, const struct pp_pass_result *p, size_t pos, unsigned ncpu)
{
	uint8_t *o = room(b, pass_room(p));
	if (!o)
		return;
	struct position_entry *e = pos < POSITIONS ? &w->positions[pos] : NULL;
	uint8_t *at = o;
	o = elem_at(o);
	uint32_t na = p->nattachments < PP_MAX_ATTACHMENTS ? p->nattachments : PP_MAX_ATTACHMENTS;
	if (e && statics_same(&e->statics, p, na)) {
		const struct statics_entry *c = &e->statics;
		memcpy(o, c->bytes, STATICS_HANDLE_AT);
		o = at_u64(o + STATICS_HANDLE_AT, p->command_buffer_handle);
		memcpy(o, c->bytes + STATICS_HANDLE_AT, c->len - STATICS_HANDLE_AT);
		o += c->len - STATICS_HANDLE_AT;
	} else {
		o = statics_at(w, o, p, e, na);
	}
	o = interval_at(w, o, &p->gpu, e);
	o = at_u64(o, p->gpu_exclusive_ns);
	o = at_u8(o, p->overlapped);
	o = cpu_cost_at(o, &p->cpu, ncpu);
	o = at_u8(o, p->recording_reused);
	/* The timestamp and pipeline statistics as measured, not yet made into counter values
	 * (pp_model_frame_result_counters_resolve, which the reader calls): 12 fewer counters a pass,
	 * and 9 bytes where the statistics are off. */
	o = at_u8(o, p->counters_pending);
	if (p->counters_pending) {
		o = at_u32(o, p->stats_valid);
		o = at_u32(o, intern_at(w, e, POS_STATS_REASON, p->stats_reason));
		if (p->stats_valid) {
			memcpy(o, p->stats, sizeof(p->stats));
			o += sizeof(p->stats);
		}
	}
	o = at_u32(o, p->ncounters);
	for (uint32_t i = 0; i < p->ncounters; i++) {
		const struct pp_counter_value *c = &p->counters[i];
		uint8_t *ce = o;
		o = elem_at(o);
		o = at_u32(o, desc_id(w, c->desc));
		o = at_u8(o, (uint8_t)(c->v.valid | c->v.is_float << 1 | c->v.other_pass << 2 | c->estimated << 3 |
				       c->shared << 4 | c->other_frame << 5));
		o = c->v.is_float ? at_f64(o, c->v.f) : at_u64(o, c->v.u);
		if (!c->v.valid)
			o = at_u32(o, intern_static(w, c->unavailable_reason));
		if (c->estimated) {
			o = at_f64(o, c->lower);
			o = at_f64(o, c->upper);
		}
		if (c->other_frame)
			o = at_u64(o, c->frame);
		elem_close(ce, o);
	}
	o = at_u32(o, p->draw_timings ? p->ndraw_timings : 0);
	for (uint32_t i = 0; p->draw_timings && i < p->ndraw_timings; i++) {
		o = at_u32(o, p->draw_timings[i].index);
		o = interval_at(w, o, &p->draw_timings[i].gpu, NULL);
	}
	/* format 1.2: the experiment's arm and sites, the sites only with an arm */
	o = at_u8(o, p->exp_arm);
	if (p->exp_arm) {
		o = at_u64(o, p->exp_seen);
		o = at_u64(o, p->exp_fixed);
	}
	o = cpu_span_at(w, o, p);
	elem_close(at, o);
	room_used(b, o);
}

size_t pp_rec_write_frame(struct pp_rec_writer *w, const struct pp_frame_result *f, unsigned ncpu, bool report_only)
{
	if (ncpu > PP_CPU_COUNTERS_MAX)
		ncpu = PP_CPU_COUNTERS_MAX;
	size_t before = w->out.len;
	/* Passes whose CPU span the report subtracts leave the frame's CPU cost short of them: it
	 * is written at the end (format 1.4), and here as not measured, which is what a reader of
	 * an earlier format, which cannot add them, shows. */
	bool spans_pending = false;
	for (size_t i = 0; i < f->npasses; i++)
		spans_pending |= f->passes[i].cpu_pending;
	static const struct pp_cpu_cost unmeasured;
	struct buf *b = payload_begin(w);
	put_u64(b, f->index);
	put_u32(b, f->device_id);
	put_u32(b, intern_static(w, f->delimiter));
	put_u64(b, f->cpu_begin_ns);
	put_u64(b, f->cpu_end_ns);
	cpu_cost_put(b, spans_pending ? &unmeasured : &f->cpu, ncpu);
	cpu_cost_put(b, &f->blocked, ncpu);
	put_u8(b, (uint8_t)(f->gpu_timed | f->renderdoc << 1 | f->renderdoc_requested << 2));
	put_u32(b, intern_static(w, f->captured_by));
	put_u32(b, f->recordings_outside_window);
	put_u32(b, (uint32_t)f->nsubmissions);
	for (size_t i = 0; i < f->nsubmissions; i++) {
		const struct pp_submission_result *s = &f->submissions[i];
		size_t at = elem_begin(b);
		put_u64(b, s->seq);
		put_u32(b, intern_static(w, s->api));
		put_u64(b, s->queue_handle);
		put_u32(b, s->queue_family);
		put_u32(b, s->queue_index);
		put_u32(b, s->tid);
		put_u64(b, s->cpu_begin_ns);
		put_u64(b, s->cpu_end_ns);
		interval_put(w, b, &s->gpu);
		put_u32(b, s->first_pass);
		put_u32(b, s->npasses);
		put_u32(b, s->command_buffers);
		cpu_cost_put(b, &s->cpu, ncpu);
		elem_end(b, at);
	}
	put_u32(b, (uint32_t)f->npasses);
	w->prev_span = false;
	for (size_t i = 0; i < f->npasses; i++)
		pass_put(w, b, &f->passes[i], i, ncpu);
	put_u8(b, spans_pending);
	if (spans_pending)
		cpu_cost_put(b, &f->cpu, ncpu);
	payload_end(w, report_only ? PP_REC_REPORT_FRAME : PP_REC_FRAME);
	return w->out.len - before;
}

void pp_rec_write_cpu_event(struct pp_rec_writer *w, const char *name, const char *category, uint32_t tid,
			    uint64_t begin_ns, uint64_t end_ns, uint64_t flow_id)
{
	uint32_t n = intern_static(w, name), c = intern_static(w, category);
	struct buf *b = payload_begin(w);
	put_u32(b, n);
	put_u32(b, c);
	put_u32(b, tid);
	put_u64(b, begin_ns);
	put_u64(b, end_ns);
	put_u64(b, flow_id);
	payload_end(w, PP_REC_CPU_EVENT);
}

/* Texts of a diagnostic vary by site: inline, not in the string table. */
static void text_put(struct buf *b, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	put_u32(b, (uint32_t)n);
	if (n)
		put(b, s, n); /* memcpy from NULL is undefined even for 0 bytes */
}

void pp_rec_write_diagnostics(struct pp_rec_writer *w, const struct pp_diagnostic *d, size_t n, uint64_t other)
{
	struct buf *b = payload_begin(w);
	put_u64(b, other);
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct pp_diagnostic *x = &d[i];
		size_t at = elem_begin(b);
		text_put(b, x->id, sizeof(x->id));
		put_u32(b, x->device_id);
		text_put(b, x->site, sizeof(x->site));
		text_put(b, x->message, sizeof(x->message));
		text_put(b, x->suggestion, sizeof(x->suggestion));
		put_u64(b, x->count);
		put_u64(b, x->frames);
		put_u64(b, x->first_frame);
		put_u64(b, x->last_frame);
		put_u8(b, x->cost_valid);
		put_u64(b, x->cost_ns);
		text_put(b, x->cost_kind, 64);
		text_put(b, x->cost_unavailable, 256);
		put_f64(b, x->share_of_frame);
		put_u8(b, x->gpu_idle_valid);
		put_u64(b, x->gpu_idle_ns);
		text_put(b, x->gpu_idle_unavailable, 256);
		put_u32(b, x->thread_id);
		text_put(b, x->thread_name, sizeof(x->thread_name));
		put_u32(b, x->command_buffers);
		/* format 1.1 */
		text_put(b, x->severity, 16);
		text_put(b, x->verdict, sizeof(x->verdict));
		/* format 1.2: the experiment */
		put_u8(b, x->exp_state);
		put_u32(b, (uint32_t)x->exp_site);
		text_put(b, x->exp_detail, sizeof(x->exp_detail));
		text_put(b, x->exp_why, sizeof(x->exp_why));
		put_u64(b, x->exp_fixed);
		for (int a = 0; a < 2; a++) {
			put_u64(b, x->exp_arms[a].frames);
			for (int m = 0; m < PP_EXP_METRICS; m++) {
				const struct pp_exp_stat *s = &x->exp_arms[a].m[m];
				put_u32(b, s->n);
				put_u64(b, s->p25);
				put_u64(b, s->p50);
				put_u64(b, s->p75);
			}
		}
		put_u64(b, x->exp_frames_neither);
		elem_end(b, at);
	}
	payload_end(w, PP_REC_DIAGNOSTICS);
}

void pp_rec_write_renderdoc(struct pp_rec_writer *w, const char *library, const char *api_version)
{
	struct buf *b = payload_begin(w);
	text_put(b, library, 4096);
	text_put(b, api_version, 64);
	payload_end(w, PP_REC_RENDERDOC);
}

void pp_rec_write_capture(struct pp_rec_writer *w, uint32_t device, const uint64_t *frame, bool requested,
			  const char *path, uint64_t timestamp, const struct pp_diagnostic_occurrence *occ, uint32_t n,
			  uint64_t dropped)
{
	struct buf *b = payload_begin(w);
	put_u32(b, device);
	put_u8(b, (uint8_t)((frame != NULL) | requested << 1));
	put_u64(b, frame ? *frame : 0);
	put_u64(b, timestamp);
	text_put(b, path, 4096);
	/* format 1.3: the frame's diagnostic occurrences */
	put_u64(b, dropped);
	put_u32(b, occ ? n : 0);
	for (uint32_t i = 0; occ && i < n; i++) {
		const struct pp_diagnostic_occurrence *o = &occ[i];
		size_t at = elem_begin(b);
		text_put(b, o->id, sizeof(o->id));
		text_put(b, o->severity, sizeof(o->severity));
		text_put(b, o->message, sizeof(o->message));
		text_put(b, o->suggestion, sizeof(o->suggestion));
		text_put(b, o->call, sizeof(o->call));
		put_u32(b, o->call_index);
		put_u64(b, o->command_buffer);
		elem_end(b, at);
	}
	payload_end(w, PP_REC_CAPTURE);
}

void pp_rec_write_status(struct pp_rec_writer *w, bool end, const struct pp_rec_status *s)
{
	struct buf *b = payload_begin(w);
	put_u64(b, s->frames_total);
	put_u64(b, s->frames_dropped);
	put_u64(b, s->events_dropped);
	put_u64(b, s->frames_left_out);
	put_u64(b, s->first_left_out);
	put_u8(b, s->limit_reached);
	put_u64(b, s->bytes);
	payload_end(w, end ? PP_REC_END : PP_REC_STATUS);
}

void pp_rec_write_summary(struct pp_rec_writer *w, const struct pp_summary *s)
{
	struct buf *b = payload_begin(w);
	put_u64(b, s->frames);
	put_u64(b, s->frames_gpu_timed);
	put_f64(b, s->frame_gpu_mean_ns);
	put_f64(b, s->frame_gpu_p50_ns);
	put_f64(b, s->frame_gpu_p95_ns);
	text_put(b, s->device, sizeof(s->device));
	text_put(b, s->notes, sizeof(s->notes));
	put_u32(b, (uint32_t)s->nrows);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct pp_summary_row *r = &s->rows[i];
		size_t at = elem_begin(b);
		text_put(b, r->name, sizeof(r->name));
		text_put(b, r->kind, sizeof(r->kind));
		put_u64(b, r->count);
		put_u64(b, r->measured);
		put_f64(b, r->gpu_mean_ns);
		put_f64(b, r->gpu_p50_ns);
		put_f64(b, r->gpu_p95_ns);
		put_f64(b, r->gpu_max_ns);
		put_f64(b, r->share_of_frame);
		put_f64(b, r->per_frame);
		put_f64(b, r->cpu_record_mean_ns);
		put_u32(b, r->ncounters);
		for (uint32_t k = 0; k < r->ncounters && k < PP_SUMMARY_COUNTERS; k++) {
			text_put(b, r->counters[k].name, sizeof(r->counters[k].name));
			text_put(b, r->counters[k].unit, sizeof(r->counters[k].unit));
			put_f64(b, r->counters[k].mean);
			put_u64(b, r->counters[k].measured);
		}
		elem_end(b, at);
	}
	payload_end(w, PP_REC_SUMMARY);
}
