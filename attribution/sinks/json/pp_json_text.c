/* The text helpers both halves of the JSON code use (pp_json_text.h): the C-locale strtod the
 * writer checks its shortest doubles with and the reader converts numbers with, and the UTF-8
 * check the writer replaces invalid bytes with and the reader refuses them with. */
#include "pp_json_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ==========================================================================================
 * Locale-independent number conversion
 *
 * We run inside applications that may have called setlocale(LC_ALL, ""), where printf and
 * strtod use ',' (or a multibyte character) as the decimal point. JSON always uses '.'.
 * ========================================================================================*/

locale_t pp_json_text_c_locale(void)
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
double pp_json_text_strtod(const char *s)
{
	locale_t loc = pp_json_text_c_locale();
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

/* ==========================================================================================
 * UTF-8
 * ========================================================================================*/

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] does not start one.
 * *bad_len gets how many bytes make up the invalid prefix to replace (at least 1), following
 * the Unicode "maximal subpart" practice. Rejects overlongs, surrogates and > U+10FFFF. */
size_t pp_json_text_utf8_sequence(const unsigned char *s, size_t n, size_t *bad_len)
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
