/* The JSON writer and the strict reader (pp_json.h). Longer than ~1,200 lines on purpose:
 * both halves share the locale-independent number conversion and the UTF-8 checks, kept
 * static here, and the fuzz target (tests/fuzz/json) compiles this one file with coverage. */
#include "pp_json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ==========================================================================================
 * Locale-independent number conversion
 *
 * We run inside applications that may have called setlocale(LC_ALL, ""), where printf and
 * strtod use ',' (or a multibyte character) as the decimal point. JSON always uses '.'.
 * ========================================================================================*/

static locale_t json_c_locale(void)
{
	static locale_t cached;
	locale_t loc = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
	if (loc)
		return loc;
	loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!loc)
		return (locale_t)0;
	locale_t expected = (locale_t)0;
	/* Another thread may have won the race; keep its locale and drop ours. */
	if (!__atomic_compare_exchange_n(&cached, &expected, loc, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		freelocale(loc);
		loc = expected;
	}
	return loc;
}

/* strtod on a NUL-terminated JSON number (which always uses '.'). */
static double json_strtod(const char *s)
{
	locale_t loc = json_c_locale();
	if (loc)
		return strtod_l(s, NULL, loc);

	/* No C locale object (out of memory): translate '.' to the current decimal point. */
	const char *dp = localeconv()->decimal_point;
	size_t dplen = dp ? strlen(dp) : 0;
	if (dplen == 0 || (dplen == 1 && dp[0] == '.'))
		return strtod(s, NULL);
	size_t n = strlen(s);
	char *tmp = malloc(n * dplen + 1);
	if (!tmp)
		return strtod(s, NULL);
	char *o = tmp;
	for (const char *c = s; *c; c++) {
		if (*c == '.') {
			memcpy(o, dp, dplen);
			o += dplen;
		} else {
			*o++ = *c;
		}
	}
	*o = '\0';
	double d = strtod(tmp, NULL);
	free(tmp);
	return d;
}

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

size_t pp_json_format_uint(char *out, uint64_t v)
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

size_t pp_json_format_hex(char *out, uint64_t v)
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
		return pp_json_format_uint(out, (uint64_t)v);
	out[0] = '-';
	return 1 + pp_json_format_uint(out + 1, 0 - (uint64_t)v);
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
	o += pp_json_format_uint(out + o, m / 1000);
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
	bool can_check = json_c_locale() != (locale_t)0;
	if (can_check && json_format_thousandths(out, outsz, v))
		return;
	for (int prec = 15; prec < 17 && can_check; prec++) {
		json_format_g(out, outsz, prec, v);
		if (json_strtod(out) == v)
			return;
	}
	json_format_g(out, outsz, 17, v);
}

/* ==========================================================================================
 * UTF-8
 * ========================================================================================*/

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] does not start one.
 * *bad_len gets how many bytes make up the invalid prefix to replace (at least 1), following
 * the Unicode "maximal subpart" practice. Rejects overlongs, surrogates and > U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t n, size_t *bad_len)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */

	*bad_len = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (size_t k = 1; k < need; k++) {
		if (k >= n)
			return 0;
		unsigned char b = s[k];
		bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
		if (!ok)
			return 0;
		*bad_len = k + 1;
	}
	return need;
}

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

void pp_json_writer_init_file(struct pp_json_writer *w, FILE *f, int indent)
{
	writer_init(w, indent);
	w->file = f;
	if (!f)
		w->error = -EBADF;
}

void pp_json_writer_init_mem(struct pp_json_writer *w, size_t max_bytes, int indent)
{
	writer_init(w, indent);
	w->max = max_bytes;
}

int pp_json_writer_error(const struct pp_json_writer *w)
{
	return w->error;
}

int pp_json_writer_finish(struct pp_json_writer *w)
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

const char *pp_json_writer_mem(const struct pp_json_writer *w, size_t *len_out)
{
	if (len_out)
		*len_out = w->buf ? w->len : 0;
	return w->buf ? w->buf : "";
}

char *pp_json_writer_mem_take(struct pp_json_writer *w, size_t *len_out)
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

void pp_json_writer_release(struct pp_json_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

void pp_json_writer_reserve(struct pp_json_writer *w, size_t n)
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

void pp_json_writer_reset(struct pp_json_writer *w)
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

int pp_json_begin_object(struct pp_json_writer *w)
{
	return writer_begin(w, 'o', "{");
}

int pp_json_end_object(struct pp_json_writer *w)
{
	return writer_end(w, 'o', "}");
}

int pp_json_begin_array(struct pp_json_writer *w)
{
	return writer_begin(w, 'a', "[");
}

int pp_json_end_array(struct pp_json_writer *w)
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
			size_t n = utf8_sequence(s + i, len - i, &bad);
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
	return writer_token_n(w, buf, pp_json_format_uint(buf, v));
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

/* The allocation behind a tree: the root sits here so pp_json_free can find the chunks. */
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
		size_t k = utf8_sequence(p, (size_t)(q - p), &bad);
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
	double d = json_strtod(tmp);
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

int pp_json_parse(const char *text, size_t len, const struct pp_json_limits *limits,
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

void pp_json_free(struct pp_json_value *root)
{
	if (!root)
		return;
	json_doc_free((struct json_doc *)((char *)root - offsetof(struct json_doc, root)));
}

/* ------------------------------------------------------------------------------------------
 * Accessors
 * ----------------------------------------------------------------------------------------*/

enum pp_json_type pp_json_type_of(const struct pp_json_value *v)
{
	return v ? (enum pp_json_type)v->type : PP_JSON_NULL;
}

bool pp_json_is_null(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_NULL;
}

bool pp_json_is_bool(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_BOOL;
}

bool pp_json_is_number(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_NUMBER;
}

bool pp_json_is_string(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_STRING;
}

bool pp_json_is_array(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_ARRAY;
}

bool pp_json_is_object(const struct pp_json_value *v)
{
	return v && v->type == PP_JSON_OBJECT;
}

const struct pp_json_value *pp_json_object_get(const struct pp_json_value *obj, const char *key)
{
	if (!pp_json_is_object(obj) || !key)
		return NULL;
	size_t klen = strlen(key);
	for (uint32_t i = 0; i < obj->len; i++) {
		const struct pp_json_member *m = &obj->u.members[i];
		if (m->key_len == klen && memcmp(m->key, key, klen) == 0)
			return &m->value;
	}
	return NULL;
}

size_t pp_json_object_size(const struct pp_json_value *obj)
{
	return pp_json_is_object(obj) ? obj->len : 0;
}

const struct pp_json_member *pp_json_object_at(const struct pp_json_value *obj, size_t i)
{
	return pp_json_is_object(obj) && i < obj->len ? &obj->u.members[i] : NULL;
}

size_t pp_json_array_size(const struct pp_json_value *arr)
{
	return pp_json_is_array(arr) ? arr->len : 0;
}

const struct pp_json_value *pp_json_array_at(const struct pp_json_value *arr, size_t i)
{
	return pp_json_is_array(arr) && i < arr->len ? &arr->u.items[i] : NULL;
}

const char *pp_json_get_string(const struct pp_json_value *v, size_t *len_out)
{
	if (!pp_json_is_string(v))
		return NULL;
	if (len_out)
		*len_out = v->len;
	return v->u.str;
}

bool pp_json_get_double(const struct pp_json_value *v, double *out)
{
	if (!pp_json_is_number(v))
		return false;
	*out = v->u.num.d;
	return true;
}

bool pp_json_get_int64(const struct pp_json_value *v, int64_t *out)
{
	if (!pp_json_is_number(v) || !(v->num_flags & PP_JSON_NUM_INT64))
		return false;
	*out = v->u.num.i;
	return true;
}

bool pp_json_get_uint64(const struct pp_json_value *v, uint64_t *out)
{
	if (!pp_json_is_number(v) || !(v->num_flags & PP_JSON_NUM_UINT64))
		return false;
	*out = v->u.num.u;
	return true;
}

bool pp_json_get_bool(const struct pp_json_value *v, bool *out)
{
	if (!pp_json_is_bool(v))
		return false;
	*out = v->u.boolean;
	return true;
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

int pp_json_member_name_general(struct pp_json_writer *w, const char *name, size_t len)
{
	/* name is `"key":`; the key itself is between the quotes. */
	return writer_key(w, name + 1, len - 3);
}

void pp_json_member_str(struct pp_json_writer *w, const char *name, size_t len, const char *s)
{
	if (!s) {
		pp_json_member_null(w, name, len);
		return;
	}
	size_t n = 0;
	while (json_plain_table[(unsigned char)s[n]])
		n++;
	char *o;
	if (s[n] == '\0' && (o = pp_json_member_room(w, len + n + 2))) {
		memcpy(o, name, len);
		o += len;
		*o++ = '"';
		memcpy(o, s, n);
		o += n;
		*o++ = '"';
		pp_json_member_end(w, o);
		return;
	}
	pp_json_member_name(w, name, len);
	pp_json_write_string_n(w, s, n + strlen(s + n));
}

void pp_json_member_handle(struct pp_json_writer *w, const char *name, size_t len, uint64_t h)
{
	char *o = pp_json_member_room(w, len + 20);
	if (!o) {
		char buf[24];
		pp_json_format_hex(buf, h);
		pp_json_member_name_general(w, name, len);
		pp_json_write_string(w, buf);
		return;
	}
	memcpy(o, name, len);
	o += len;
	*o++ = '"';
	o += pp_json_format_hex(o, h);
	*o++ = '"';
	pp_json_member_end(w, o);
}

void pp_json_member_double(struct pp_json_writer *w, const char *name, size_t len, double v)
{
	char buf[64];
	char *o;
	if (!isfinite(v)) {
		pp_json_member_null(w, name, len);
		return;
	}
	json_format_double(buf, sizeof(buf), v);
	size_t n = strlen(buf);
	if (!(o = pp_json_member_room(w, len + n))) {
		pp_json_member_name_general(w, name, len);
		pp_json_write_double(w, v);
		return;
	}
	memcpy(o, name, len);
	memcpy(o + len, buf, n);
	pp_json_member_end(w, o + len + n);
}

void pp_json_kv_uint(struct pp_json_writer *w, const char *key, uint64_t v)
{
	pp_json_write_key(w, key);
	pp_json_write_uint(w, v);
}

void pp_json_kv_str(struct pp_json_writer *w, const char *key, const char *s)
{
	pp_json_write_key(w, key);
	pp_json_write_string(w, s);
}

void pp_json_kv_bool(struct pp_json_writer *w, const char *key, bool v)
{
	pp_json_write_key(w, key);
	pp_json_write_bool(w, v);
}

void pp_json_kv_null(struct pp_json_writer *w, const char *key)
{
	pp_json_write_key(w, key);
	pp_json_write_null(w);
}

void pp_json_kv_handle(struct pp_json_writer *w, const char *key, uint64_t h)
{
	char buf[24];
	pp_json_format_hex(buf, h);
	pp_json_kv_str(w, key, buf);
}

void pp_json_kv_double(struct pp_json_writer *w, const char *key, double v)
{
	pp_json_write_key(w, key);
	pp_json_write_double(w, v);
}
