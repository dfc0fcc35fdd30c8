/* passprobe settings: the small string helpers of the parsers (no locale: the application
 * may have set any). */
#include <stdio.h>
#include <string.h>

#include "pp_settings_internal.h"

bool pp_settings_text_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool pp_settings_text_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

char pp_settings_text_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

void pp_settings_text_trim(const char **p, size_t *n)
{
	while (*n && pp_settings_text_is_space(**p)) {
		(*p)++;
		(*n)--;
	}
	while (*n && pp_settings_text_is_space((*p)[*n - 1]))
		(*n)--;
}

/* Case-insensitive comparison of v[0..n) with the NUL-terminated word. */
bool pp_settings_text_word_is(const char *v, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!word[i] || pp_settings_text_lower(v[i]) != pp_settings_text_lower(word[i]))
			return false;
	}
	return word[n] == '\0';
}

bool pp_settings_text_has_control(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (pp_settings_text_is_control((unsigned char)v[i]))
			return true;
	}
	return false;
}

/* Appends c to dst (capacity cap, *len used), escaping what would garble a log line. Returns
 * false, writing nothing, when it would not fit. */
bool pp_settings_text_escape_char(char *dst, size_t cap, size_t *len, unsigned char c, bool quoted)
{
	char tmp[5];
	size_t n;

	if (pp_settings_text_is_control(c)) {
		switch (c) {
		case '\n': memcpy(tmp, "\\n", 3); break;
		case '\r': memcpy(tmp, "\\r", 3); break;
		case '\t': memcpy(tmp, "\\t", 3); break;
		default: snprintf(tmp, sizeof(tmp), "\\x%02x", c); break;
		}
	} else if (quoted && (c == '"' || c == '\\')) {
		tmp[0] = '\\';
		tmp[1] = (char)c;
		tmp[2] = '\0';
	} else {
		tmp[0] = (char)c;
		tmp[1] = '\0';
	}
	n = strlen(tmp);
	if (*len + n + 1 > cap)
		return false;
	memcpy(dst + *len, tmp, n + 1);
	*len += n;
	return true;
}

/* Writes v[0..n) for a message: in double quotes when `quoted`, control characters escaped,
 * cut to PP_SETTINGS_MSG_VALUE_MAX bytes with "..." so a huge value cannot crowd out the
 * rest of the line. dst must hold SETTINGS_QUOTE_CAP bytes. */
void pp_settings_text_quote(char *dst, size_t cap, const char *v, size_t n, bool quoted)
{
	size_t len = 0, i, shown = n > PP_SETTINGS_MSG_VALUE_MAX ? PP_SETTINGS_MSG_VALUE_MAX : n;

	dst[0] = '\0';
	if (quoted && cap > 1) {
		dst[len++] = '"';
		dst[len] = '\0';
	}
	for (i = 0; i < shown; i++) {
		if (!pp_settings_text_escape_char(dst, cap, &len, (unsigned char)v[i], quoted))
			break;
	}
	if (shown < n && len + 4 < cap) {
		memcpy(dst + len, "...", 4);
		len += 3;
	}
	if (quoted && len + 2 <= cap) {
		dst[len++] = '"';
		dst[len] = '\0';
	}
}

/* A file name for messages: control characters escaped, long names cut from the front (the
 * end of a path says more). dst must hold SETTINGS_NAME_CAP bytes. */
