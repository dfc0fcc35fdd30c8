#pragma once
/* Internal to the JSON code (pp_json_write.c, pp_json_read.c): the text helpers both use,
 * defined in pp_json_text.c. Not part of the public interface (pp_json.h). */
#include <locale.h>
#include <stddef.h>

/* The "C" locale, made once per process; (locale_t)0 when it cannot be made (out of
 * memory). */
locale_t pp_json_text_c_locale(void);
/* strtod on a NUL-terminated JSON number (which always uses '.'), whatever the locale. */
double pp_json_text_strtod(const char *s);
/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] does not start one;
 * *bad_len gets how many bytes make up the invalid prefix to replace (at least 1). Rejects
 * overlongs, surrogates and > U+10FFFF. */
size_t pp_json_text_utf8_sequence(const unsigned char *s, size_t n, size_t *bad_len);
