/* The strict JSON reader (pp_json.h, "Reader"): pp_json_read_parse, pp_json_read_free and the
 * accessors. Used by the passprobe command and the tests, never linked into the layer or the
 * GLES shim (library pp_attribution_json_read). */
#include "pp_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json_text.h"

/* The code point cp (at most U+10FFFF) as UTF-8 at o; returns its length in bytes. */
static size_t utf8_encode(uint32_t cp, unsigned char *o)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ==========================================================================================
 * Reader
 * ========================================================================================*/

#define JSON_DEFAULT_MAX_LEN ((size_t)64 << 20)
/* Default memory cap per byte of text. The densest input, an array of one-digit numbers,
 * takes 12 bytes of tree and up to 24 bytes of parse stack (doubling) per input byte; strings
 * and objects take less. The slack covers the arena's last, partly used chunk. So the default
 * never refuses a document within max_len, yet a hostile one cannot ask for more. */
#define JSON_MEMORY_FACTOR 40
#define JSON_MEMORY_SLACK ((size_t)2 << 20)

struct json_chunk {
	struct json_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

/* The allocation behind a tree: the root sits here so pp_json_read_free can find the chunks. */
struct json_doc {
	struct json_chunk *chunks;
	struct pp_json_value root;
};

struct json_parser {
	const unsigned char *start, *p, *end;
	unsigned depth;
	size_t used, max_memory; /* bytes allocated so far, and the cap */
	struct json_doc *doc;
	size_t next_chunk;       /* size of the next arena chunk; grows geometrically */
	/* Children of the open containers, innermost last: members of objects and elements of
	 * arrays on separate stacks, so an array of small values costs 24 bytes per element. */
	struct pp_json_member *mstack;
	size_t mstack_len, mstack_cap;
	struct pp_json_value *vstack;
	size_t vstack_len, vstack_cap;
	int rc;
	char *err;
	size_t err_len;
};

static bool json_charge(struct json_parser *jp, size_t n)
{
	if (n > jp->max_memory || jp->used > jp->max_memory - n)
		return false;
	jp->used += n;
	return true;
}

static int json_error_at(struct json_parser *jp, const unsigned char *at, int rc, const char *fmt,
			 ...) __attribute__((format(printf, 4, 5)));

static int json_error_at(struct json_parser *jp, const unsigned char *at, int rc, const char *fmt,
			 ...)
{
	if (jp->rc)
		return jp->rc;
	jp->rc = rc;
	if (!jp->err || jp->err_len == 0)
		return rc;

	/* Line and column are only needed on failure, so they are counted here rather than
	 * tracked while parsing. */
	size_t line = 1;
	const unsigned char *line_start = jp->start;
	if (at > jp->end)
		at = jp->end;
	for (const unsigned char *c = jp->start; c < at; c++) {
		if (*c == '\n') {
			line++;
			line_start = c + 1;
		}
	}
	size_t col = (size_t)(at - line_start) + 1;
	int n = snprintf(jp->err, jp->err_len, "line %zu:%zu: ", line, col);
	if (n >= 0 && (size_t)n < jp->err_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(jp->err + n, jp->err_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int json_oom(struct json_parser *jp)
{
	return json_error_at(jp, jp->p, -ENOMEM,
			     "out of memory (the document needs more than %zu bytes)", jp->max_memory);
}

static void *json_alloc(struct json_parser *jp, size_t size)
{
	const size_t align = sizeof(max_align_t);
	size = (size + align - 1) & ~(align - 1);
	if (size == 0)
		size = align;
	struct json_chunk *c = jp->doc->chunks;
	if (!c || c->cap - c->used < size) {
		size_t cap = jp->next_chunk;
		if (cap < size)
			cap = size;
		if (!json_charge(jp, sizeof(*c) + cap))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = jp->doc->chunks;
		jp->doc->chunks = c;
		if (jp->next_chunk < ((size_t)1 << 20))
			jp->next_chunk *= 2;
	}
	void *r = (char *)c->data + c->used;
	c->used += size;
	return r;
}

/* Grows a parse stack; charged against the memory cap like the arena. */
static bool json_stack_grow(struct json_parser *jp, void **stack, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	if (ncap > SIZE_MAX / elem)
		return false;
	if (!json_charge(jp, (ncap - *cap) * elem))
		return false;
	void *ns = realloc(*stack, ncap * elem);
	if (!ns)
		return false;
	*stack = ns;
	*cap = ncap;
	return true;
}

static bool json_push_member(struct json_parser *jp, const struct pp_json_member *m)
{
	if (jp->mstack_len == jp->mstack_cap &&
	    !json_stack_grow(jp, (void **)&jp->mstack, &jp->mstack_cap, sizeof(*m)))
		return false;
	jp->mstack[jp->mstack_len++] = *m;
	return true;
}

static bool json_push_value(struct json_parser *jp, const struct pp_json_value *v)
{
	if (jp->vstack_len == jp->vstack_cap &&
	    !json_stack_grow(jp, (void **)&jp->vstack, &jp->vstack_cap, sizeof(*v)))
		return false;
	jp->vstack[jp->vstack_len++] = *v;
	return true;
}

static void json_skip_ws(struct json_parser *jp)
{
	while (jp->p < jp->end &&
	       (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

/* A printable description of the byte at p for messages. */
static const char *json_describe(const unsigned char *p, const unsigned char *end, char *buf,
				 size_t n)
{
	if (p >= end)
		return "end of input";
	if (*p >= 0x20 && *p < 0x7f)
		snprintf(buf, n, "'%c'", *p);
	else
		snprintf(buf, n, "byte 0x%02x", *p);
	return buf;
}

static int json_unexpected(struct json_parser *jp, const char *expected)
{
	char d[16];
	const unsigned char *p = jp->p;
	if (p < jp->end) {
		if (*p == '/')
			return json_error_at(jp, p, -EINVAL, "comments are not allowed in JSON");
		if (*p == '\'')
			return json_error_at(jp, p, -EINVAL, "strings must use double quotes");
	}
	return json_error_at(jp, p, -EINVAL, "unexpected %s, expected %s",
			     json_describe(p, jp->end, d, sizeof(d)), expected);
}

static int json_hex4(const unsigned char *p, const unsigned char *end, uint32_t *out)
{
	uint32_t v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Parses the string at jp->p (on its opening quote) into arena memory. */
static int json_parse_string(struct json_parser *jp, const char **out, uint32_t *len_out)
{
	const unsigned char *open = jp->p;
	const unsigned char *s = open + 1, *q = s;

	/* Find the closing quote first so the decoded copy can be allocated once; escapes only
	 * shrink, so the raw length bounds the decoded one. */
	while (q < jp->end && *q != '"') {
		if (*q == '\\' && q + 1 < jp->end)
			q += 2;
		else
			q++;
	}
	if (q >= jp->end)
		return json_error_at(jp, open, -EINVAL, "string is not terminated");
	size_t raw = (size_t)(q - s);
	if (raw >= UINT32_MAX)
		return json_error_at(jp, open, -EINVAL, "string longer than 4 GiB");
	unsigned char *o = json_alloc(jp, raw + 1);
	if (!o)
		return json_oom(jp);
	size_t n = 0;

	const unsigned char *p = s;
	while (p < q) {
		unsigned char c = *p;
		if (c == '\\') {
			const unsigned char *esc = p;
			p++;
			switch (*p) {
			case '"': o[n++] = '"'; p++; continue;
			case '\\': o[n++] = '\\'; p++; continue;
			case '/': o[n++] = '/'; p++; continue;
			case 'b': o[n++] = '\b'; p++; continue;
			case 'f': o[n++] = '\f'; p++; continue;
			case 'n': o[n++] = '\n'; p++; continue;
			case 'r': o[n++] = '\r'; p++; continue;
			case 't': o[n++] = '\t'; p++; continue;
			case 'u': break;
			default: {
				char d[16];
				return json_error_at(jp, esc, -EINVAL, "invalid escape \\%s",
						     json_describe(p, q, d, sizeof(d)));
			}
			}
			uint32_t cp, lo;
			if (json_hex4(p + 1, q, &cp))
				return json_error_at(jp, esc, -EINVAL,
						     "\\u must be followed by four hex digits");
			p += 5;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return json_error_at(jp, esc, -EINVAL,
						     "unpaired low surrogate \\u%04X", cp);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (q - p < 6 || p[0] != '\\' || p[1] != 'u' ||
				    json_hex4(p + 2, q, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return json_error_at(jp, esc, -EINVAL,
							     "high surrogate \\u%04X is not followed by a low surrogate",
							     cp);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			n += utf8_encode(cp, o + n);
			continue;
		}
		if (c < 0x20)
			return json_error_at(jp, p, -EINVAL,
					     "control character 0x%02x in a string must be escaped", c);
		if (c < 0x80) {
			o[n++] = c;
			p++;
			continue;
		}
		size_t bad;
		size_t k = pp_json_text_utf8_sequence(p, (size_t)(q - p), &bad);
		if (!k)
			return json_error_at(jp, p, -EINVAL, "invalid UTF-8 in a string");
		memcpy(o + n, p, k);
		n += k;
		p += k;
	}
	o[n] = '\0';
	*out = (const char *)o;
	*len_out = (uint32_t)n;
	jp->p = q + 1;
	return 0;
}

static bool json_is_digit(const unsigned char *p, const unsigned char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

static int json_parse_number(struct json_parser *jp, struct pp_json_value *out)
{
	const unsigned char *s = jp->p, *p = jp->p;
	bool neg = false, int_syntax = true;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!json_is_digit(p, jp->end)) {
		jp->p = p;
		return json_unexpected(jp, "a digit");
	}
	if (*p == '0') {
		p++;
		if (json_is_digit(p, jp->end))
			return json_error_at(jp, s, -EINVAL, "numbers may not have leading zeros");
	} else {
		while (json_is_digit(p, jp->end))
			p++;
	}
	const unsigned char *int_end = p;
	if (p < jp->end && *p == '.') {
		int_syntax = false;
		p++;
		if (!json_is_digit(p, jp->end)) {
			jp->p = p;
			return json_unexpected(jp, "a digit after '.'");
		}
		while (json_is_digit(p, jp->end))
			p++;
	}
	if (p < jp->end && (*p == 'e' || *p == 'E')) {
		int_syntax = false;
		p++;
		if (p < jp->end && (*p == '+' || *p == '-'))
			p++;
		if (!json_is_digit(p, jp->end)) {
			jp->p = p;
			return json_unexpected(jp, "a digit in the exponent");
		}
		while (json_is_digit(p, jp->end))
			p++;
	}

	/* strtod needs a terminated copy: the text is not NUL-terminated. */
	size_t len = (size_t)(p - s);
	char small[128];
	char *tmp = small;
	if (len >= sizeof(small)) {
		tmp = malloc(len + 1);
		if (!tmp)
			return json_oom(jp);
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	double d = pp_json_text_strtod(tmp);
	if (tmp != small)
		free(tmp);
	if (!isfinite(d))
		return json_error_at(jp, s, -EINVAL, "number is too large for a double");

	out->type = PP_JSON_NUMBER;
	out->num_flags = 0;
	out->u.num.d = d;
	out->u.num.u = 0;
	if (int_syntax) {
		/* Exact integer conversion: a double cannot hold every 64-bit value. */
		uint64_t mag = 0;
		bool overflow = false;
		for (const unsigned char *c = neg ? s + 1 : s; c < int_end; c++) {
			unsigned dig = (unsigned)(*c - '0');
			if (mag > (UINT64_MAX - dig) / 10) {
				overflow = true;
				break;
			}
			mag = mag * 10 + dig;
		}
		if (!overflow) {
			if (!neg) {
				out->u.num.u = mag;
				out->num_flags = PP_JSON_NUM_UINT64;
				if (mag <= (uint64_t)INT64_MAX)
					out->num_flags |= PP_JSON_NUM_INT64;
			} else if (mag <= (uint64_t)INT64_MAX + 1) {
				out->u.num.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
				out->num_flags = PP_JSON_NUM_INT64;
				if (mag == 0)
					out->num_flags |= PP_JSON_NUM_UINT64;
			}
		}
	} else if (d == floor(d)) {
		/* 1e3 and 2.0 are integers too; only ranges a double converts exactly are taken. */
		if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
			out->u.num.i = (int64_t)d;
			out->num_flags = PP_JSON_NUM_INT64;
			if (d >= 0)
				out->num_flags |= PP_JSON_NUM_UINT64;
		} else if (d >= 0 && d < 18446744073709551616.0) {
			out->u.num.u = (uint64_t)d;
			out->num_flags = PP_JSON_NUM_UINT64;
		}
	}
	jp->p = p;
	return 0;
}

static int json_parse_literal(struct json_parser *jp, const char *word, struct pp_json_value *out,
			      enum pp_json_type type, bool b)
{
	size_t n = strlen(word);
	if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n) != 0)
		return json_error_at(jp, jp->p, -EINVAL, "invalid literal (expected '%s')", word);
	jp->p += n;
	out->type = (uint8_t)type;
	out->u.boolean = b;
	return 0;
}

static int json_parse_value(struct json_parser *jp, struct pp_json_value *out);

/* Copies the n children on top of a stack into the arena; *dst gets the copy (NULL if n == 0).
 * top may be NULL only when n == 0. */
static int json_collect(struct json_parser *jp, const void *top, size_t n, size_t elem,
			void **dst, struct pp_json_value *out)
{
	*dst = NULL;
	if (n > UINT32_MAX)
		return json_error_at(jp, jp->p, -EINVAL, "more than 2^32 elements in one container");
	out->len = (uint32_t)n;
	if (n == 0)
		return 0;
	*dst = json_alloc(jp, n * elem);
	if (!*dst)
		return json_oom(jp);
	memcpy(*dst, top, n * elem);
	return 0;
}

static int json_parse_array(struct json_parser *jp, struct pp_json_value *out)
{
	size_t base = jp->vstack_len;
	jp->p++; /* '[' */
	json_skip_ws(jp);
	if (jp->p < jp->end && *jp->p == ']') {
		jp->p++;
	} else {
		for (;;) {
			struct pp_json_value v;
			if (json_parse_value(jp, &v))
				return jp->rc;
			if (!json_push_value(jp, &v))
				return json_oom(jp);
			json_skip_ws(jp);
			if (jp->p < jp->end && *jp->p == ',') {
				jp->p++;
				json_skip_ws(jp);
				if (jp->p < jp->end && *jp->p == ']')
					return json_error_at(jp, jp->p, -EINVAL,
							     "trailing comma before ']'");
				continue;
			}
			if (jp->p < jp->end && *jp->p == ']') {
				jp->p++;
				break;
			}
			return json_unexpected(jp, "',' or ']' after an array element");
		}
	}
	out->type = PP_JSON_ARRAY;
	/* No pointer arithmetic on a stack never allocated (an empty array): NULL + 0 is UB. */
	void *items;
	int rc = json_collect(jp, jp->vstack ? jp->vstack + base : NULL, jp->vstack_len - base,
			      sizeof(*jp->vstack), &items, out);
	out->u.items = items;
	jp->vstack_len = base;
	return rc;
}

static int json_parse_object(struct json_parser *jp, struct pp_json_value *out)
{
	size_t base = jp->mstack_len;
	jp->p++; /* '{' */
	json_skip_ws(jp);
	if (jp->p < jp->end && *jp->p == '}') {
		jp->p++;
	} else {
		for (;;) {
			struct pp_json_member m = { 0 };
			if (jp->p >= jp->end || *jp->p != '"')
				return json_unexpected(jp, "a member name in double quotes");
			if (json_parse_string(jp, &m.key, &m.key_len))
				return jp->rc;
			json_skip_ws(jp);
			if (jp->p >= jp->end || *jp->p != ':')
				return json_unexpected(jp, "':' after a member name");
			jp->p++;
			if (json_parse_value(jp, &m.value))
				return jp->rc;
			if (!json_push_member(jp, &m))
				return json_oom(jp);
			json_skip_ws(jp);
			if (jp->p < jp->end && *jp->p == ',') {
				jp->p++;
				json_skip_ws(jp);
				if (jp->p < jp->end && *jp->p == '}')
					return json_error_at(jp, jp->p, -EINVAL,
							     "trailing comma before '}'");
				continue;
			}
			if (jp->p < jp->end && *jp->p == '}') {
				jp->p++;
				break;
			}
			return json_unexpected(jp, "',' or '}' after an object member");
		}
	}
	out->type = PP_JSON_OBJECT;
	void *members;
	int rc = json_collect(jp, jp->mstack ? jp->mstack + base : NULL, jp->mstack_len - base,
			      sizeof(*jp->mstack), &members, out);
	out->u.members = members;
	jp->mstack_len = base;
	return rc;
}

static int json_parse_value(struct json_parser *jp, struct pp_json_value *out)
{
	memset(out, 0, sizeof(*out));
	json_skip_ws(jp);
	if (jp->p >= jp->end)
		return json_error_at(jp, jp->p, -EINVAL, "unexpected end of input, expected a value");

	int rc;
	switch (*jp->p) {
	case '{':
	case '[':
		if (jp->depth >= PP_JSON_MAX_DEPTH)
			return json_error_at(jp, jp->p, -EINVAL, "nesting deeper than %d levels",
					     PP_JSON_MAX_DEPTH);
		jp->depth++;
		rc = *jp->p == '{' ? json_parse_object(jp, out) : json_parse_array(jp, out);
		jp->depth--;
		return rc;
	case '"':
		out->type = PP_JSON_STRING;
		return json_parse_string(jp, &out->u.str, &out->len);
	case 't':
		return json_parse_literal(jp, "true", out, PP_JSON_BOOL, true);
	case 'f':
		return json_parse_literal(jp, "false", out, PP_JSON_BOOL, false);
	case 'n':
		return json_parse_literal(jp, "null", out, PP_JSON_NULL, false);
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return json_parse_number(jp, out);
	case '+':
		return json_error_at(jp, jp->p, -EINVAL, "numbers may not start with '+'");
	case '.':
		return json_error_at(jp, jp->p, -EINVAL, "numbers need a digit before '.'");
	case 'N':
	case 'I':
		return json_error_at(jp, jp->p, -EINVAL, "NaN and Infinity are not JSON values");
	default:
		return json_unexpected(jp, "a value");
	}
}

static void json_doc_free(struct json_doc *doc)
{
	if (!doc)
		return;
	struct json_chunk *c = doc->chunks;
	while (c) {
		struct json_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(doc);
}

int pp_json_read_parse(const char *text, size_t len, const struct pp_json_limits *limits,
		  struct pp_json_value **root_out, char *err, size_t err_len)
{
	struct json_parser jp = { 0 };
	size_t max_len = limits && limits->max_len ? limits->max_len : JSON_DEFAULT_MAX_LEN;

	if (err && err_len)
		err[0] = '\0';
	if (root_out)
		*root_out = NULL;
	if (!root_out || (!text && len))
		return -EINVAL;
	if (!text)
		text = "";
	jp.start = jp.p = (const unsigned char *)text;
	jp.end = jp.start + len;
	jp.err = err;
	jp.err_len = err_len;
	if (len > max_len) {
		if (err && err_len)
			snprintf(err, err_len, "document is %zu bytes, more than the limit of %zu", len,
				 max_len);
		return -EFBIG;
	}
	if (limits && limits->max_memory)
		jp.max_memory = limits->max_memory;
	else
		jp.max_memory = len > (SIZE_MAX - JSON_MEMORY_SLACK) / JSON_MEMORY_FACTOR
					? SIZE_MAX
					: len * JSON_MEMORY_FACTOR + JSON_MEMORY_SLACK;
	jp.next_chunk = 4096;

	if (!json_charge(&jp, sizeof(*jp.doc)) || !(jp.doc = calloc(1, sizeof(*jp.doc))))
		return json_oom(&jp);

	if (len >= 3 && memcmp(jp.p, "\xef\xbb\xbf", 3) == 0)
		jp.p += 3;
	json_skip_ws(&jp);
	if (jp.p >= jp.end) {
		json_error_at(&jp, jp.p, -EINVAL, "empty document, expected a JSON value");
	} else if (json_parse_value(&jp, &jp.doc->root) == 0) {
		json_skip_ws(&jp);
		if (jp.p < jp.end)
			json_unexpected(&jp, "the end of the document after the JSON value");
	}
	free(jp.mstack);
	free(jp.vstack);
	if (jp.rc) {
		json_doc_free(jp.doc);
		return jp.rc;
	}
	*root_out = &jp.doc->root;
	return 0;
}

void pp_json_read_free(struct pp_json_value *root)
{
	if (!root)
		return;
	json_doc_free((struct json_doc *)((char *)root - offsetof(struct json_doc, root)));
}

/* ------------------------------------------------------------------------------------------
 * Accessors
 * ----------------------------------------------------------------------------------------*/

enum pp_json_type pp_json_read_type_of(const struct pp_json_value *v)
{
	return v ? (enum pp_json_type)v->type : PP_JSON_NULL;
}

bool pp_json_read_is_null(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_NULL;
}

bool pp_json_read_is_bool(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_BOOL;
}

bool pp_json_read_is_number(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_NUMBER;
}

bool pp_json_read_is_string(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_STRING;
}

bool pp_json_read_is_array(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_ARRAY;
}

bool pp_json_read_is_object(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_OBJECT;
}

const struct pp_json_value *pp_json_read_object_get(const struct pp_json_value *obj, const char *key)
{
	if (!pp_json_read_is_object(obj) || !key)
		return NULL;
	size_t klen = strlen(key);
	for (uint32_t i = 0; i < obj->len; i++) {
		const struct pp_json_member *m = &obj->u.members[i];
		if (m->key_len == klen && memcmp(m->key, key, klen) == 0)
			return &m->value;
	}
	return NULL;
}

size_t pp_json_read_object_size(const struct pp_json_value *obj)
{
	return pp_json_read_is_object(obj) ? obj->len : 0;
}

const struct pp_json_member *pp_json_read_object_at(const struct pp_json_value *obj, size_t i)
{
	return pp_json_read_is_object(obj) && i < obj->len ? &obj->u.members[i] : NULL;
}

size_t pp_json_read_array_size(const struct pp_json_value *arr)
{
	return pp_json_read_is_array(arr) ? arr->len : 0;
}

const struct pp_json_value *pp_json_read_array_at(const struct pp_json_value *arr, size_t i)
{
	return pp_json_read_is_array(arr) && i < arr->len ? &arr->u.items[i] : NULL;
}

const char *pp_json_read_get_string(const struct pp_json_value *v, size_t *len_out)
{
	if (!pp_json_read_is_string(v))
		return NULL;
	if (len_out)
		*len_out = v->len;
	return v->u.str;
}

bool pp_json_read_get_double(const struct pp_json_value *v, double *out)
{
	if (!pp_json_read_is_number(v))
		return false;
	*out = v->u.num.d;
	return true;
}

bool pp_json_read_get_int64(const struct pp_json_value *v, int64_t *out)
{
	if (!pp_json_read_is_number(v) || !(v->num_flags & PP_JSON_NUM_INT64))
		return false;
	*out = v->u.num.i;
	return true;
}

bool pp_json_read_get_uint64(const struct pp_json_value *v, uint64_t *out)
{
	if (!pp_json_read_is_number(v) || !(v->num_flags & PP_JSON_NUM_UINT64))
		return false;
	*out = v->u.num.u;
	return true;
}

bool pp_json_read_get_bool(const struct pp_json_value *v, bool *out)
{
	if (!pp_json_read_is_bool(v))
		return false;
	*out = v->u.boolean;
	return true;
}

/* ---- writing a parsed value again -------------------------------------------------------- */

int pp_json_read_value_write(struct pp_json_writer *w, const struct pp_json_value *v)
{
	switch (pp_json_read_type_of(v)) {
	case PP_JSON_NULL:
		pp_json_write_null(w);
		break;
	case PP_JSON_BOOL: {
		bool b = false;
		pp_json_read_get_bool(v, &b);
		pp_json_write_bool(w, b);
		break;
	}
	case PP_JSON_NUMBER: {
		int64_t i;
		uint64_t u;
		double d = 0;
		if (pp_json_read_get_int64(v, &i))
			pp_json_write_int(w, i);
		else if (pp_json_read_get_uint64(v, &u))
			pp_json_write_uint(w, u);
		else if (pp_json_read_get_double(v, &d))
			pp_json_write_double(w, d);
		break;
	}
	case PP_JSON_STRING: {
		size_t len = 0;
		const char *s = pp_json_read_get_string(v, &len);
		pp_json_write_string_n(w, s, len);
		break;
	}
	case PP_JSON_ARRAY:
		pp_json_write_begin_array(w);
		for (size_t i = 0; i < pp_json_read_array_size(v); i++)
			pp_json_read_value_write(w, pp_json_read_array_at(v, i));
		pp_json_write_end_array(w);
		break;
	case PP_JSON_OBJECT:
		pp_json_write_begin_object(w);
		for (size_t i = 0; i < pp_json_read_object_size(v); i++) {
			const struct pp_json_member *m = pp_json_read_object_at(v, i);
			pp_json_write_key_n(w, m->key, m->key_len);
			pp_json_read_value_write(w, &m->value);
		}
		pp_json_write_end_object(w);
		break;
	}
	return pp_json_write_error(w);
}
