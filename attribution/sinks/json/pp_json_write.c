/* The JSON writer (pp_json.h, "Writer" and the members named by literals): number
 * formatting, the writer proper, the pp_json_write_member_* and pp_json_write_kv_* functions. Runs inside
 * the profiled application; the reader (pp_json_read.c) is in another library, never linked
 * there. The helpers the reader shares are in pp_json_text.c. */
#include "pp_json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json_text.h"

/* ==========================================================================================
 * Number formatting
 *
 * Locale-independent (pp_json_text.c says why): doubles are checked against pp_json_text_strtod.
 * ========================================================================================*/

/* snprintf("%.*g") with any run of bytes that is not part of a C-locale number turned into
 * one '.', which undoes a locale's decimal point whatever its length. */
static void json_format_g(char *out, size_t outsz, int prec, double v)
{
	char raw[64];
	snprintf(raw, sizeof(raw), "%.*g", prec, v);
	size_t o = 0;
	bool in_other = false;
	for (const char *c = raw; *c && o + 1 < outsz; c++) {
		bool keep = (*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == 'e' ||
			    *c == 'E';
		if (keep) {
			out[o++] = *c;
			in_other = false;
		} else if (!in_other) {
			out[o++] = '.';
			in_other = true;
		}
	}
	out[o] = '\0';
}

/* "00" to "99": two digits per division, half the divisions of one digit at a time. */
static const char json_digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v, v > 0: log10 from the bit length (1233 / 4096 is just above
 * log10(2)), corrected by one comparison. */
static unsigned json_decimal_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	unsigned t = ((unsigned)(64 - __builtin_clzll(v)) * 1233) >> 12;
	return t + (v >= pow10[t]);
}

size_t pp_json_write_format_uint(char *out, uint64_t v)
{
	if (v < 10) {
		out[0] = (char)('0' + v);
		out[1] = '\0';
		return 1;
	}
	/* Written from the last digit back, the length known first: no reversal, no copy. Four
	 * digits per 64-bit division, split in two pairs with 32-bit arithmetic. */
	unsigned n = json_decimal_digits(v);
	char *p = out + n;
	*p = '\0';
	while (v >= 10000) {
		uint32_t four = (uint32_t)(v % 10000);
		v /= 10000;
		p -= 4;
		memcpy(p, &json_digit_pairs[2 * (four / 100)], 2);
		memcpy(p + 2, &json_digit_pairs[2 * (four % 100)], 2);
	}
	uint32_t r = (uint32_t)v;
	if (r >= 100) {
		p -= 2;
		memcpy(p, &json_digit_pairs[2 * (r % 100)], 2);
		r /= 100;
	}
	if (r >= 10)
		memcpy(p - 2, &json_digit_pairs[2 * r], 2);
	else
		p[-1] = (char)('0' + r);
	return n;
}

size_t pp_json_write_format_hex(char *out, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
	out[0] = '0';
	out[1] = 'x';
	out[2 + n] = '\0';
	for (char *p = out + 2 + n; p > out + 2; v >>= 4)
		*--p = hex[v & 15];
	return 2 + n;
}

static size_t json_format_int(char *out, int64_t v)
{
	if (v >= 0)
		return pp_json_write_format_uint(out, (uint64_t)v);
	out[0] = '-';
	return 1 + pp_json_write_format_uint(out + 1, 0 - (uint64_t)v);
}

/* Most doubles written are times, whole nanoseconds in microseconds (ns / 1000.0). Such a
 * value, v == n / 1000.0 for an integer n, is the double nearest the decimal n/1000; with at
 * most 15 significant digits that decimal is what "%.15g" prints (every decimal of 15 digits
 * or fewer survives the trip through a double), trailing zeros dropped, and it reads back to
 * v: exactly json_format_double's answer, without snprintf and strtod (a few thousand
 * instructions per number, and the trace writes several per pass). Returns false for every
 * other value. */
static bool json_format_thousandths(char *out, size_t outsz, double v)
{
	/* |n| < 1e14: 14 digits at most; 0 goes the slow way ("-0" keeps its sign there). */
	if (!(v > -1e11 && v < 1e11) || v == 0 || outsz < 32)
		return false;
	double scaled = v * 1000.0;
	int64_t n = (int64_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
	if ((double)n / 1000.0 != v)
		return false;
	size_t o = 0;
	uint64_t m = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
	if (n < 0)
		out[o++] = '-';
	o += pp_json_write_format_uint(out + o, m / 1000);
	uint32_t frac = (uint32_t)(m % 1000);
	if (frac) {
		out[o++] = '.';
		out[o++] = (char)('0' + frac / 100);
		if (frac % 100) {
			out[o++] = (char)('0' + frac / 10 % 10);
			if (frac % 10)
				out[o++] = (char)('0' + frac % 10);
		}
	}
	out[o] = '\0';
	return true;
}

/* Fewest significant digits (15, 16 or 17) that read back to exactly v. */
static void json_format_double(char *out, size_t outsz, double v)
{
	/* Zero, the value of every counter track between passes, is "%.15g"'s "0". */
	if (v == 0 && !signbit(v) && outsz >= 2) {
		memcpy(out, "0", 2);
		return;
	}
	bool can_check = pp_json_text_c_locale() != (locale_t)0;
	if (can_check && json_format_thousandths(out, outsz, v))
		return;
	for (int prec = 15; prec < 17 && can_check; prec++) {
		json_format_g(out, outsz, prec, v);
		if (pp_json_text_strtod(out) == v)
			return;
	}
	json_format_g(out, outsz, 17, v);
}

/* ==========================================================================================
 * Writer
 * ========================================================================================*/

static int writer_fail(struct pp_json_writer *w, int err)
{
	if (!w->error)
		w->error = err;
	return w->error;
}

/* A file writer stages its text in buf and hands it to the stream this much at a time: a
 * token is then a copy, as in a memory writer, not a call into stdio. */
#define FILE_STAGE (64u << 10)

static void file_put(struct pp_json_writer *w, const char *s, size_t n)
{
	errno = 0;
	/* A writer owns its stream for its lifetime: no stdio lock per write. */
	if (n && fwrite_unlocked(s, 1, n, w->file) != n)
		writer_fail(w, errno ? -errno : -EIO);
}

/* The staged text to the stream. */
static void file_drain(struct pp_json_writer *w)
{
	if (w->len && !w->error)
		file_put(w, w->buf, w->len);
	w->len = 0;
	if (w->buf)
		w->buf[0] = '\0';
}

static void writer_raw_slow(struct pp_json_writer *w, const char *s, size_t n)
{
	if (w->error || n == 0)
		return;
	if (w->file) {
		if (!w->buf && (w->buf = malloc(FILE_STAGE)) != NULL) {
			w->cap = FILE_STAGE;
			w->len = 0;
		}
		file_drain(w);
		if (n < w->cap) {
			memcpy(w->buf, s, n);
			w->len = n;
			w->buf[n] = '\0';
		} else {
			file_put(w, s, n); /* larger than the stage, or no stage: straight through */
		}
		return;
	}
	if (w->max && (n > w->max || w->len > w->max - n)) {
		writer_fail(w, -ENOSPC);
		return;
	}
	if (n >= SIZE_MAX / 2 - w->len) {
		writer_fail(w, -ENOMEM);
		return;
	}
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n + 1)
			cap *= 2;
		char *nb = realloc(w->buf, cap);
		if (!nb) {
			writer_fail(w, -ENOMEM);
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

/* Appending to a memory writer with room (every token of the trace's events and of the
 * frames report.json keeps, thousands per frame) is a copy; the rest, the checks, growth and
 * files, is writer_raw_slow. Room means what the slow path checks: not past max, and the
 * buffer holds the bytes and the NUL. */
static inline void writer_raw(struct pp_json_writer *w, const char *s, size_t n)
{
	if (__builtin_expect(!w->error && n < w->cap - w->len && (!w->max || n <= w->max - w->len), 1)) {
		memcpy(w->buf + w->len, s, n);
		w->len += n;
		w->buf[w->len] = '\0';
		return;
	}
	writer_raw_slow(w, s, n);
}

static void writer_newline(struct pp_json_writer *w)
{
	static const char spaces[] = "                                ";
	if (w->indent <= 0)
		return;
	writer_raw(w, "\n", 1);
	size_t n = (size_t)w->indent * (size_t)w->depth;
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		writer_raw(w, spaces, k);
		n -= k;
	}
}

static void writer_init(struct pp_json_writer *w, int indent)
{
	memset(w, 0, sizeof(*w));
	w->indent = indent < 0 ? 0 : indent > 8 ? 8 : indent;
}

void pp_json_write_init_file(struct pp_json_writer *w, FILE *f, int indent)
{
	writer_init(w, indent);
	w->file = f;
	if (!f)
		w->error = -EBADF;
}

void pp_json_write_init_mem(struct pp_json_writer *w, size_t max_bytes, int indent)
{
	writer_init(w, indent);
	w->max = max_bytes;
}

int pp_json_write_error(const struct pp_json_writer *w)
{
	return w->error;
}

int pp_json_write_finish(struct pp_json_writer *w)
{
	if (!w->error && (w->depth != 0 || !w->done || w->after_key))
		writer_fail(w, -EINVAL);
	if (w->file) {
		file_drain(w);
		free(w->buf);
		w->buf = NULL;
		w->cap = 0;
		errno = 0;
		if (fflush(w->file) != 0 || ferror(w->file))
			writer_fail(w, errno ? -errno : -EIO);
	}
	return w->error;
}

const char *pp_json_write_mem(const struct pp_json_writer *w, size_t *len_out)
{
	if (len_out)
		*len_out = w->buf ? w->len : 0;
	return w->buf ? w->buf : "";
}

char *pp_json_write_mem_take(struct pp_json_writer *w, size_t *len_out)
{
	char *b = NULL;
	size_t len = 0;
	if (w->buf && w->error != -ENOMEM) {
		b = w->buf;
		len = w->len;
	} else {
		free(w->buf);
	}
	w->buf = NULL;
	w->len = w->cap = 0;
	if (len_out)
		*len_out = len;
	return b;
}

void pp_json_write_release(struct pp_json_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

void pp_json_write_reserve(struct pp_json_writer *w, size_t n)
{
	if (w->file || w->error || n >= SIZE_MAX / 2 - w->len || w->cap - w->len > n)
		return;
	char *nb = realloc(w->buf, w->len + n + 1);
	if (!nb)
		return;
	if (!w->buf)
		nb[0] = '\0';
	w->buf = nb;
	w->cap = w->len + n + 1;
}

void pp_json_write_reset(struct pp_json_writer *w)
{
	if (w->file)
		file_drain(w);
	char *buf = w->buf;
	size_t cap = w->cap, max = w->max;
	FILE *file = w->file;
	writer_init(w, w->indent);
	w->file = file;
	w->buf = buf;
	w->cap = cap;
	w->max = max;
	if (buf)
		buf[0] = '\0';
}

/* Everything that must happen before a value: structure checks, comma, indentation. */
static int writer_before_value(struct pp_json_writer *w)
{
	if (w->error)
		return w->error;
	if (w->depth == 0) {
		if (w->done)
			return writer_fail(w, -EINVAL); /* a second top-level value */
		return 0;
	}
	if (w->kind[w->depth - 1] == 'o') {
		if (!w->after_key)
			return writer_fail(w, -EINVAL); /* object member without a key */
		w->after_key = false;
		return 0;
	}
	if (w->nonempty[w->depth - 1])
		writer_raw(w, ",", 1);
	w->nonempty[w->depth - 1] = true;
	writer_newline(w);
	return w->error;
}

static int writer_after_value(struct pp_json_writer *w)
{
	if (w->depth == 0)
		w->done = true;
	return w->error;
}

static int writer_begin(struct pp_json_writer *w, char kind, const char *open)
{
	if (writer_before_value(w))
		return w->error;
	if (w->depth >= PP_JSON_MAX_DEPTH)
		return writer_fail(w, -EINVAL);
	writer_raw(w, open, 1);
	w->kind[w->depth] = (uint8_t)kind;
	w->nonempty[w->depth] = false;
	w->depth++;
	return w->error;
}

static int writer_end(struct pp_json_writer *w, char kind, const char *close)
{
	if (w->error)
		return w->error;
	if (w->depth == 0 || w->kind[w->depth - 1] != (uint8_t)kind || w->after_key)
		return writer_fail(w, -EINVAL);
	bool nonempty = w->nonempty[w->depth - 1];
	w->depth--;
	if (nonempty)
		writer_newline(w);
	writer_raw(w, close, 1);
	return writer_after_value(w);
}

int pp_json_write_begin_object(struct pp_json_writer *w)
{
	return writer_begin(w, 'o', "{");
}

int pp_json_write_end_object(struct pp_json_writer *w)
{
	return writer_end(w, 'o', "}");
}

int pp_json_write_begin_array(struct pp_json_writer *w)
{
	return writer_begin(w, 'a', "[");
}

int pp_json_write_end_array(struct pp_json_writer *w)
{
	return writer_end(w, 'a', "]");
}

static void writer_quoted_from(struct pp_json_writer *w, const char *str, size_t len, size_t plain);

static inline bool json_plain(unsigned char c)
{
	return c - 0x20u < 0x60u && c != '"' && c != '\\';
}

/* Whether all 8 bytes of x are json_plain: none has its top bit set, none is below 0x20,
 * none is '"' or '\\' (the classic tests for a byte below n and for a zero byte, exact as to
 * whether there is one; which byte does not matter here). */
static inline bool json_word_plain(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
	return !((x & highs) | ((x - ones * 0x20) & ~x & highs) | ((quote - ones) & ~quote & highs) |
		 ((backslash - ones) & ~backslash & highs));
}

/* Room in a memory writer for n more bytes and the NUL, as writer_raw would find it. */
static inline char *writer_room(struct pp_json_writer *w, size_t n)
{
	if (!w->error && n < w->cap - w->len && (!w->max || n <= w->max - w->len))
		return w->buf + w->len;
	return NULL;
}

/* pre (0 to 2 bytes), then str quoted, then post (0 to 2 bytes), as writer_raw calls for
 * each would write them; in one copy when str needs no escapes and the buffer has room (the
 * keys and names of every event and frame). */
static void writer_quoted_with(struct pp_json_writer *w, const char *pre, size_t npre, const char *str,
			       size_t len, const char *post, size_t npost)
{
	size_t plain = 0;
	for (uint64_t x; plain + 8 <= len; plain += 8) {
		memcpy(&x, str + plain, 8);
		if (!json_word_plain(x))
			break;
	}
	while (plain < len && json_plain((unsigned char)str[plain]))
		plain++;
	char *o;
	if (plain == len && (o = writer_room(w, npre + len + npost + 2))) {
		memcpy(o, pre, npre);
		o += npre;
		*o++ = '"';
		memcpy(o, str, len);
		o += len;
		*o++ = '"';
		memcpy(o, post, npost);
		w->len += npre + len + npost + 2;
		w->buf[w->len] = '\0';
		return;
	}
	writer_raw(w, pre, npre);
	writer_quoted_from(w, str, len, plain);
	writer_raw(w, post, npost);
}

static void writer_quoted(struct pp_json_writer *w, const char *str, size_t len)
{
	writer_quoted_with(w, "", 0, str, len, "", 0);
}

/* str quoted; its first `plain` bytes are known to need no escape. */
static void writer_quoted_from(struct pp_json_writer *w, const char *str, size_t len, size_t plain)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* start of the pending run of bytes that need no change */
	size_t i = plain;

	writer_raw(w, "\"", 1);
	while (i < len) {
		unsigned char c = s[i];
		/* Printable ASCII but the quote and the backslash: the bytes of nearly every
		 * string and key, passed over without further tests. */
		if (json_plain(c)) {
			i++;
			continue;
		}
		if (w->error)
			break;
		char esc[8];
		const char *rep = NULL;
		size_t rep_len = 2, adv = 1;

		if (c >= 0x80) {
			size_t bad;
			size_t n = pp_json_text_utf8_sequence(s + i, len - i, &bad);
			if (n) {
				i += n;
				continue;
			}
			rep = "\xef\xbf\xbd"; /* U+FFFD */
			rep_len = 3;
			adv = bad;
		} else if (c == '"') {
			rep = "\\\"";
		} else if (c == '\\') {
			rep = "\\\\";
		} else if (c < 0x20) {
			switch (c) {
			case '\n': rep = "\\n"; break;
			case '\r': rep = "\\r"; break;
			case '\t': rep = "\\t"; break;
			case '\b': rep = "\\b"; break;
			case '\f': rep = "\\f"; break;
			default:
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				rep = esc;
				rep_len = 6;
			}
		} else {
			i++;
			continue;
		}
		writer_raw(w, str + run, i - run);
		writer_raw(w, rep, rep_len);
		i += adv;
		run = i;
	}
	writer_raw(w, str + run, i - run);
	writer_raw(w, "\"", 1);
}

static int writer_key(struct pp_json_writer *w, const char *key, size_t len)
{
	if (w->error)
		return w->error;
	if (w->depth == 0 || w->kind[w->depth - 1] != 'o' || w->after_key || !key)
		return writer_fail(w, -EINVAL);
	bool comma = w->nonempty[w->depth - 1];
	w->nonempty[w->depth - 1] = true;
	if (w->indent) {
		if (comma)
			writer_raw(w, ",", 1);
		writer_newline(w);
		writer_quoted_with(w, "", 0, key, len, ": ", 2);
	} else {
		writer_quoted_with(w, ",", comma, key, len, ":", 1);
	}
	w->after_key = true;
	return w->error;
}

int pp_json_write_key(struct pp_json_writer *w, const char *key)
{
	return writer_key(w, key, key ? strlen(key) : 0);
}

int pp_json_write_key_n(struct pp_json_writer *w, const char *key, size_t len)
{
	return writer_key(w, key, len);
}

int pp_json_write_raw_value(struct pp_json_writer *w, const char *json, size_t len)
{
	if (!json || !len)
		return pp_json_write_null(w);
	if (writer_before_value(w))
		return w->error;
	writer_raw(w, json, len);
	return writer_after_value(w);
}

int pp_json_write_string_n(struct pp_json_writer *w, const char *s, size_t len)
{
	if (!s)
		return pp_json_write_null(w);
	if (writer_before_value(w))
		return w->error;
	writer_quoted(w, s, len);
	return writer_after_value(w);
}

int pp_json_write_string(struct pp_json_writer *w, const char *s)
{
	return pp_json_write_string_n(w, s, s ? strlen(s) : 0);
}

static int writer_token_n(struct pp_json_writer *w, const char *tok, size_t len)
{
	if (writer_before_value(w))
		return w->error;
	writer_raw(w, tok, len);
	return writer_after_value(w);
}

static int writer_token(struct pp_json_writer *w, const char *tok)
{
	return writer_token_n(w, tok, strlen(tok));
}

int pp_json_write_int(struct pp_json_writer *w, int64_t v)
{
	char buf[32];
	return writer_token_n(w, buf, json_format_int(buf, v));
}

int pp_json_write_uint(struct pp_json_writer *w, uint64_t v)
{
	char buf[32];
	return writer_token_n(w, buf, pp_json_write_format_uint(buf, v));
}

int pp_json_write_double(struct pp_json_writer *w, double v)
{
	char buf[64];
	if (!isfinite(v))
		return writer_token(w, "null");
	json_format_double(buf, sizeof(buf), v);
	return writer_token(w, buf);
}

int pp_json_write_bool(struct pp_json_writer *w, bool v)
{
	return writer_token(w, v ? "true" : "false");
}

int pp_json_write_null(struct pp_json_writer *w)
{
	return writer_token(w, "null");
}

/* ---- members -------------------------------------------------------------------------- */

/* The bytes a string needs no escape for (json_plain), NUL excluded: one table lookup per
 * byte finds the end of a NUL-terminated string and whether it is plain in the same pass. */
static const bool json_plain_table[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0x00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0x10 */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x20; the quote is 0x22 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,  /* 0x50; the backslash is 0x5c */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  /* 0x70 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0x80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0x90 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xa0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xb0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xc0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xd0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xe0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* 0xf0 */
};

int pp_json_write_member_name_general(struct pp_json_writer *w, const char *name, size_t len)
{
	/* name is `"key":`; the key itself is between the quotes. */
	return writer_key(w, name + 1, len - 3);
}

void pp_json_write_member_str(struct pp_json_writer *w, const char *name, size_t len, const char *s)
{
	if (!s) {
		pp_json_write_member_null(w, name, len);
		return;
	}
	size_t n = 0;
	while (json_plain_table[(unsigned char)s[n]])
		n++;
	char *o;
	if (s[n] == '\0' && (o = pp_json_write_member_room(w, len + n + 2))) {
		memcpy(o, name, len);
		o += len;
		*o++ = '"';
		memcpy(o, s, n);
		o += n;
		*o++ = '"';
		pp_json_write_member_end(w, o);
		return;
	}
	pp_json_write_member_name(w, name, len);
	pp_json_write_string_n(w, s, n + strlen(s + n));
}

void pp_json_write_member_handle(struct pp_json_writer *w, const char *name, size_t len, uint64_t h)
{
	char *o = pp_json_write_member_room(w, len + 20);
	if (!o) {
		char buf[24];
		pp_json_write_format_hex(buf, h);
		pp_json_write_member_name_general(w, name, len);
		pp_json_write_string(w, buf);
		return;
	}
	memcpy(o, name, len);
	o += len;
	*o++ = '"';
	o += pp_json_write_format_hex(o, h);
	*o++ = '"';
	pp_json_write_member_end(w, o);
}

void pp_json_write_member_double(struct pp_json_writer *w, const char *name, size_t len, double v)
{
	char buf[64];
	char *o;
	if (!isfinite(v)) {
		pp_json_write_member_null(w, name, len);
		return;
	}
	json_format_double(buf, sizeof(buf), v);
	size_t n = strlen(buf);
	if (!(o = pp_json_write_member_room(w, len + n))) {
		pp_json_write_member_name_general(w, name, len);
		pp_json_write_double(w, v);
		return;
	}
	memcpy(o, name, len);
	memcpy(o + len, buf, n);
	pp_json_write_member_end(w, o + len + n);
}

void pp_json_write_kv_uint(struct pp_json_writer *w, const char *key, uint64_t v)
{
	pp_json_write_key(w, key);
	pp_json_write_uint(w, v);
}

void pp_json_write_kv_str(struct pp_json_writer *w, const char *key, const char *s)
{
	pp_json_write_key(w, key);
	pp_json_write_string(w, s);
}

void pp_json_write_kv_bool(struct pp_json_writer *w, const char *key, bool v)
{
	pp_json_write_key(w, key);
	pp_json_write_bool(w, v);
}

void pp_json_write_kv_null(struct pp_json_writer *w, const char *key)
{
	pp_json_write_key(w, key);
	pp_json_write_null(w);
}

void pp_json_write_kv_handle(struct pp_json_writer *w, const char *key, uint64_t h)
{
	char buf[24];
	pp_json_write_format_hex(buf, h);
	pp_json_write_kv_str(w, key, buf);
}

void pp_json_write_kv_double(struct pp_json_writer *w, const char *key, double v)
{
	pp_json_write_key(w, key);
	pp_json_write_double(w, v);
}
