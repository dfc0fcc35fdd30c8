#pragma once
/* JSON for passprobe's outputs and the `passprobe` command: a streaming writer and a small
 * strict DOM reader. API-neutral (no Vulkan or GL), no global state, safe to use from any
 * thread on distinct objects. Nothing here calls exit(), abort() or assert(): the writer runs
 * inside the profiled application and the reader is fed files we did not write.
 *
 * One header, two libraries:
 *   Writer (and the member functions): pp_json_write.c, library pp_attribution_json, linked
 *     into the Vulkan layer and the GLES shim.
 *   Reader (pp_json_read_parse, pp_json_read_free, the accessors): pp_json_read.c, library
 *     pp_attribution_json_read, linked only by the passprobe command and the tests; the
 *     in-process libraries write JSON and never read it.
 * Both use pp_json_text.c (the C-locale strtod and the UTF-8 check, pp_json_text.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Containers deeper than this are refused by both sides, so whatever the writer accepts the
 * reader can read back. */
#define PP_JSON_MAX_DEPTH 64

/* ------------------------------------------------------------------------------------------
 * Writer (pp_json_write.c; link pp_attribution_json)
 *
 * Usage: init on a FILE* or a memory buffer, emit values, then pp_json_write_finish().
 * Commas, and indentation when indent > 0, are written automatically. Keys are required
 * inside objects and refused inside arrays; misuse latches -EINVAL.
 *
 * The first error (-EINVAL misuse, -ENOSPC/-EIO/... from the FILE, -ENOMEM or -ENOSPC from the
 * memory buffer) is latched: later calls do nothing and return it, so a sequence of calls can
 * be checked once at the end. Every emitting function returns the latched error (0 if none).
 *
 * Strings are written as UTF-8; bytes that are not valid UTF-8 become U+FFFD, quotes,
 * backslashes and control characters are escaped. Doubles are written with the fewest digits
 * that read back to the same value; NaN and infinities are written as null (JSON has no such
 * numbers, and passprobe uses null for "unavailable"). Output does not depend on the locale.
 * ---------------------------------------------------------------------------------------- */

/* Fields are private; the struct is public only so callers can keep it on the stack, and so
 * that the member functions below can be inline. */
struct pp_json_writer {
	FILE *file;            /* file sink, or NULL for the memory sink */
	char *buf;             /* memory sink; file sink: text not yet handed to the FILE */
	size_t len, cap, max;  /* bytes in buf, allocated; memory sink: allowed */
	int error;             /* latched negative errno, 0 while fine */
	int indent;            /* spaces per level, 0 = compact */
	int depth;             /* open containers */
	bool after_key;        /* a key was written, its value is expected */
	bool done;             /* a complete top-level value was written */
	uint8_t kind[PP_JSON_MAX_DEPTH];   /* per open container: 'o' or 'a' */
	bool nonempty[PP_JSON_MAX_DEPTH];  /* per open container: has a member already */
};

/* indent: spaces per nesting level, 0 for compact output (clamped to 0..8). The FILE is not
 * closed by the writer; the text reaches it 64 KiB at a time and at pp_json_write_finish(),
 * which must be called. */
void pp_json_write_init_file(struct pp_json_writer *w, FILE *f, int indent);
/* Memory sink growing up to max_bytes (0: no limit of ours); past it, -ENOSPC is latched. */
void pp_json_write_init_mem(struct pp_json_writer *w, size_t max_bytes, int indent);

/* Checks the document is complete (every container closed, one top-level value written),
 * flushes the FILE and returns the latched error, or -EINVAL for an incomplete document.
 * The memory buffer stays valid until pp_json_write_release(). */
int pp_json_write_finish(struct pp_json_writer *w);
/* The latched error without finishing. */
int pp_json_write_error(const struct pp_json_writer *w);
/* Memory sink: the text written so far, NUL-terminated (never NULL, "" on an empty or failed
 * writer); *len_out (if not NULL) gets its length. Owned by the writer. */
const char *pp_json_write_mem(const struct pp_json_writer *w, size_t *len_out);
/* Memory sink: hands the buffer over to the caller (free() it); the writer is left empty.
 * Returns NULL when nothing was written or after a memory error. */
char *pp_json_write_mem_take(struct pp_json_writer *w, size_t *len_out);
/* Frees the memory buffer (no-op for a FILE sink). The writer may be initialised again. */
void pp_json_write_release(struct pp_json_writer *w);
/* Memory sink: empties the writer for a new document as pp_json_write_init_mem would (same
 * limit and indent, no error latched) but keeps its buffer, so a writer used for many small
 * documents (trace.json's events) allocates once. */
void pp_json_write_reset(struct pp_json_writer *w);
/* Memory sink: room for n more bytes in one allocation now, where the writer would otherwise
 * grow by doubling as it writes (report.json keeps each frame's text: one allocation of about
 * the right size instead of a dozen reallocations). A hint: out of memory here is not an
 * error, and the limit still applies. */
void pp_json_write_reserve(struct pp_json_writer *w, size_t n);

int pp_json_write_begin_object(struct pp_json_writer *w);
int pp_json_write_end_object(struct pp_json_writer *w);
int pp_json_write_begin_array(struct pp_json_writer *w);
int pp_json_write_end_array(struct pp_json_writer *w);
/* Member name inside an object; the next call must write its value. */
int pp_json_write_key(struct pp_json_writer *w, const char *key);
/* The same with exactly len bytes, which may include NUL (escaped as \u0000). */
int pp_json_write_key_n(struct pp_json_writer *w, const char *key, size_t len);
/* NULL writes null. */
int pp_json_write_string(struct pp_json_writer *w, const char *s);
/* Exactly len bytes, which may include NUL (escaped as \u0000). */
int pp_json_write_string_n(struct pp_json_writer *w, const char *s, size_t len);
/* The decimal digits of v, as printf's "%llu" writes them, into out (21 bytes at least),
 * NUL-terminated; returns their number. Cheaper than snprintf: the sinks write many. */
size_t pp_json_write_format_uint(char *out, uint64_t v);
/* v as printf's "0x%" PRIx64 writes it, into out (19 bytes at least), NUL-terminated; returns
 * its length. */
size_t pp_json_write_format_hex(char *out, uint64_t v);
int pp_json_write_int(struct pp_json_writer *w, int64_t v);
int pp_json_write_uint(struct pp_json_writer *w, uint64_t v);
/* Non-finite values are written as null. */
int pp_json_write_double(struct pp_json_writer *w, double v);
int pp_json_write_bool(struct pp_json_writer *w, bool v);
int pp_json_write_null(struct pp_json_writer *w);
/* Writes `json`, which the caller guarantees is one complete JSON value (for instance text a
 * memory writer produced earlier), in value position with the usual separators. */
int pp_json_write_raw_value(struct pp_json_writer *w, const char *json, size_t len);

/* A member: its key, then its value (the sinks write most members this way). A handle is
 * written as a "0x..." string: JSON numbers lose 64-bit integers in most readers. */
void pp_json_write_kv_uint(struct pp_json_writer *w, const char *key, uint64_t v);
void pp_json_write_kv_str(struct pp_json_writer *w, const char *key, const char *s);
void pp_json_write_kv_bool(struct pp_json_writer *w, const char *key, bool v);
void pp_json_write_kv_null(struct pp_json_writer *w, const char *key);
void pp_json_write_kv_handle(struct pp_json_writer *w, const char *key, uint64_t h);
void pp_json_write_kv_double(struct pp_json_writer *w, const char *key, double v);

/* ------------------------------------------------------------------------------------------
 * Members named by string literals: the sinks' fast path
 *
 * The sinks write a few thousand members per frame, nearly all named by string literals.
 * pp_json_write_key_lit(w, "name") does what pp_json_write_key(w, "name") does, and each
 * pp_json_write_kv_*_lit(w, "name", v) what pp_json_write_kv_*(w, "name", v) does, byte for byte, indented
 * or not, errors included. Only the cost differs: `"name":` is put together at compile time
 * and its length taken from sizeof, so nothing measures or scans the name, and on a compact
 * memory writer with room a member is a comma, a copy of constant length and the value, with
 * no call for the integers. The name must need no escape (printable ASCII but '"' and '\\'),
 * and be a literal (anything else does not compile).
 * ---------------------------------------------------------------------------------------- */

/* `"lit":` and its length: the pre-quoted name the pp_json_write_member_* functions take. */
#define PP_JSON_NAME(lit) ("\"" lit "\":"), (sizeof(lit) + 2)

#define pp_json_write_key_lit(w, lit) pp_json_write_member_name((w), PP_JSON_NAME(lit))
#define pp_json_write_kv_uint_lit(w, lit, v) pp_json_write_member_uint((w), PP_JSON_NAME(lit), (v))
#define pp_json_write_kv_bool_lit(w, lit, v) pp_json_write_member_bool((w), PP_JSON_NAME(lit), (v))
#define pp_json_write_kv_null_lit(w, lit) pp_json_write_member_null((w), PP_JSON_NAME(lit))
#define pp_json_write_kv_str_lit(w, lit, s) pp_json_write_member_str((w), PP_JSON_NAME(lit), (s))
#define pp_json_write_kv_handle_lit(w, lit, h) pp_json_write_member_handle((w), PP_JSON_NAME(lit), (h))
#define pp_json_write_kv_double_lit(w, lit, v) pp_json_write_member_double((w), PP_JSON_NAME(lit), (v))

/* The member functions proper, for names pre-quoted as PP_JSON_NAME makes them. The general
 * path (indentation, misuse, a latched error, a full buffer or stage) is pp_json_write_key's. */
int pp_json_write_member_name_general(struct pp_json_writer *w, const char *name, size_t len);
void pp_json_write_member_str(struct pp_json_writer *w, const char *name, size_t len, const char *s);
void pp_json_write_member_handle(struct pp_json_writer *w, const char *name, size_t len, uint64_t h);
void pp_json_write_member_double(struct pp_json_writer *w, const char *name, size_t len, double v);

/* Where a member goes in a compact memory writer that expects a member name and has room for
 * `need` bytes after a comma, and for the NUL: the comma written when one is due, the place for
 * the name and value returned. NULL: the general path must write the member. Internal to the
 * member functions. */
static inline char *pp_json_write_member_room(struct pp_json_writer *w, size_t need)
{
	int top = w->depth - 1;
	if (w->error || w->indent || top < 0 || w->kind[top] != 'o' || w->after_key ||
	    need + 2 > w->cap - w->len || (w->max && need + 1 > w->max - w->len))
		return NULL;
	char *o = w->buf + w->len;
	*o = ',';
	o += w->nonempty[top];
	w->nonempty[top] = true;
	return o;
}

/* Ends a member that pp_json_write_member_room placed: end is one past its last byte. */
static inline void pp_json_write_member_end(struct pp_json_writer *w, char *end)
{
	*end = '\0';
	w->len = (size_t)(end - w->buf);
}

static inline int pp_json_write_member_name(struct pp_json_writer *w, const char *name, size_t len)
{
	char *o = pp_json_write_member_room(w, len);
	if (!o)
		return pp_json_write_member_name_general(w, name, len);
	memcpy(o, name, len);
	pp_json_write_member_end(w, o + len);
	w->after_key = true;
	return 0;
}

static inline void pp_json_write_member_uint(struct pp_json_writer *w, const char *name, size_t len, uint64_t v)
{
	char *o = pp_json_write_member_room(w, len + 20);
	if (!o) {
		pp_json_write_member_name_general(w, name, len);
		pp_json_write_uint(w, v);
		return;
	}
	memcpy(o, name, len);
	o += len;
	pp_json_write_member_end(w, o + pp_json_write_format_uint(o, v));
}

static inline void pp_json_write_member_bool(struct pp_json_writer *w, const char *name, size_t len, bool v)
{
	char *o = pp_json_write_member_room(w, len + 5);
	if (!o) {
		pp_json_write_member_name_general(w, name, len);
		pp_json_write_bool(w, v);
		return;
	}
	memcpy(o, name, len);
	o += len;
	if (v) {
		memcpy(o, "true", 4);
		o += 4;
	} else {
		memcpy(o, "false", 5);
		o += 5;
	}
	pp_json_write_member_end(w, o);
}

static inline void pp_json_write_member_null(struct pp_json_writer *w, const char *name, size_t len)
{
	char *o = pp_json_write_member_room(w, len + 4);
	if (!o) {
		pp_json_write_member_name_general(w, name, len);
		pp_json_write_null(w);
		return;
	}
	memcpy(o, name, len);
	memcpy(o + len, "null", 4);
	pp_json_write_member_end(w, o + len + 4);
}

/* ------------------------------------------------------------------------------------------
 * Reader (pp_json_read.c; link pp_attribution_json_read)
 *
 * pp_json_read_parse() builds a read-only tree from a buffer. Strict RFC 8259: one value with
 * optional surrounding whitespace (space, tab, CR, LF), no comments, no trailing commas, no
 * NaN/Infinity, no leading zeros or '+', no control characters in strings, valid UTF-8 only,
 * \u escapes with surrogate pairs joined (a lone surrogate is refused). A leading UTF-8 byte
 * order mark is skipped, as RFC 8259 section 8.1 allows. Numbers whose magnitude overflows a
 * double are refused. Duplicate member names are kept; lookups return the first.
 *
 * Memory is bounded: the text by max_len, the tree (arena plus parse stack) by max_memory.
 * ---------------------------------------------------------------------------------------- */

enum pp_json_type {
	PP_JSON_NULL = 0,
	PP_JSON_BOOL,
	PP_JSON_NUMBER,
	PP_JSON_STRING,
	PP_JSON_ARRAY,
	PP_JSON_OBJECT,
};

struct pp_json_member;

/* Read the tree through the accessors below; the layout is documented for tests and debuggers. */
struct pp_json_value {
	uint8_t type;          /* enum pp_json_type */
	uint8_t num_flags;     /* PP_JSON_NUM_* for numbers */
	uint32_t len;          /* string bytes, array elements or object members */
	union {
		bool boolean;
		struct {
			double d;
			union {
				int64_t i;  /* valid with PP_JSON_NUM_INT64 */
				uint64_t u; /* valid with PP_JSON_NUM_UINT64 */
			};
		} num;
		const char *str;                     /* NUL-terminated, may also hold NULs */
		const struct pp_json_value *items;
		const struct pp_json_member *members;
	} u;
};

#define PP_JSON_NUM_INT64 0x1  /* the value is an integer that fits int64_t exactly */
#define PP_JSON_NUM_UINT64 0x2 /* the value is an integer that fits uint64_t exactly */

struct pp_json_member {
	const char *key;       /* NUL-terminated, may also hold NULs */
	uint32_t key_len;
	struct pp_json_value value;
};

struct pp_json_limits {
	size_t max_len;        /* longest text accepted; 0 = 64 MiB */
	size_t max_memory;     /* bytes the parse may allocate; 0 = 40 x the text length + 2 MiB,
	                          which any document within max_len fits in */
};

/* Parses text[0..len). On success *root_out holds the tree (free with pp_json_read_free) and 0 is
 * returned. On failure *root_out is NULL and the return is
 *   -EINVAL  not valid JSON; err gets "line L:C: what is wrong" (1-based, columns in bytes)
 *   -EFBIG   longer than limits->max_len
 *   -ENOMEM  over limits->max_memory or out of memory
 * err may be NULL; otherwise it is always NUL-terminated (when err_len > 0). limits may be
 * NULL for the defaults. The text need not be NUL-terminated. */
int pp_json_read_parse(const char *text, size_t len, const struct pp_json_limits *limits,
		  struct pp_json_value **root_out, char *err, size_t err_len);
/* Frees a tree from pp_json_read_parse (the root only; NULL is fine). */
void pp_json_read_free(struct pp_json_value *root);

/* Accessors. All accept NULL and the wrong type, answering "absent" (NULL, 0 or false), so
 * a schema walk needs no separate type checks before each step. */
enum pp_json_type pp_json_read_type_of(const struct pp_json_value *v); /* NULL counts as PP_JSON_NULL */
bool pp_json_read_is_null(const struct pp_json_value *v);   /* false for NULL (absent) */
bool pp_json_read_is_bool(const struct pp_json_value *v);
bool pp_json_read_is_number(const struct pp_json_value *v);
bool pp_json_read_is_string(const struct pp_json_value *v);
bool pp_json_read_is_array(const struct pp_json_value *v);
bool pp_json_read_is_object(const struct pp_json_value *v);

/* Object member by name (first match), or NULL. */
const struct pp_json_value *pp_json_read_object_get(const struct pp_json_value *obj, const char *key);
size_t pp_json_read_object_size(const struct pp_json_value *obj);
/* i-th member in document order, or NULL. */
const struct pp_json_member *pp_json_read_object_at(const struct pp_json_value *obj, size_t i);

size_t pp_json_read_array_size(const struct pp_json_value *arr);
const struct pp_json_value *pp_json_read_array_at(const struct pp_json_value *arr, size_t i);

/* NULL unless a string. len_out (if not NULL) gets the byte length. */
const char *pp_json_read_get_string(const struct pp_json_value *v, size_t *len_out);
/* Each returns false (leaving *out alone) when v is not a number of that kind. */
bool pp_json_read_get_double(const struct pp_json_value *v, double *out);
bool pp_json_read_get_int64(const struct pp_json_value *v, int64_t *out);
bool pp_json_read_get_uint64(const struct pp_json_value *v, uint64_t *out);
bool pp_json_read_get_bool(const struct pp_json_value *v, bool *out);

/* A parsed value written again with the writer, exactly (strings and keys by their length,
 * numbers as their integer when they have one, else as the double): what the page of
 * report.html embeds, and what the fuzz target reads back. Returns the writer's error. */
int pp_json_read_value_write(struct pp_json_writer *w, const struct pp_json_value *v);
