#include "pp_frame_ranges.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool ranges_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Case-insensitive v[0..n) == word, without the locale. */
static bool ranges_word_is(const char *v, size_t n, const char *word)
{
	size_t i;
	for (i = 0; i < n && word[i]; i++) {
		char a = v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] - 'A' + 'a') : v[i];
		if (a != word[i])
			return false;
	}
	return i == n && !word[i];
}

/* One decimal frame index: digits only, below 2^63. */
static bool ranges_number(const char *v, size_t n, uint64_t *out)
{
	uint64_t acc = 0;

	if (n == 0 || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		acc = acc * 10 + (uint64_t)(v[i] - '0');
	}
	if (acc > INT64_MAX)
		return false;
	*out = acc;
	return true;
}

static int ranges_bad_item(char *reason, size_t reason_len, const char *item, size_t len, const char *why)
{
	snprintf(reason, reason_len, "\"%.*s\" %s", (int)(len > 32 ? 32 : len), item, why);
	return -EINVAL;
}

int pp_frame_ranges_parse(struct pp_frame_ranges *out, const char *v, size_t n, char *reason, size_t reason_len)
{
	struct pp_frame_ranges r = { 0 };

	if (ranges_word_is(v, n, "all")) {
		r.n = 1;
		r.r[0].last = PP_FRAME_INDEX_MAX;
		*out = r;
		return 0;
	}
	if (ranges_word_is(v, n, "none")) {
		*out = r;
		return 0;
	}
	for (size_t i = 0; i <= n;) {
		const char *item = v + i;
		const char *comma = memchr(item, ',', n - i);
		size_t len = comma ? (size_t)(comma - item) : n - i;
		struct pp_frame_range one = { 0, PP_FRAME_INDEX_MAX };

		i += len + 1;
		while (len && ranges_is_space(*item)) {
			item++;
			len--;
		}
		while (len && ranges_is_space(item[len - 1]))
			len--;
		if (len == 0) {
			snprintf(reason, reason_len, "an empty range");
			return -EINVAL;
		}
		if (r.n == PP_FRAME_RANGES_MAX) {
			snprintf(reason, reason_len, "more than %d ranges", PP_FRAME_RANGES_MAX);
			return -EINVAL;
		}
		const char *dash = memchr(item, '-', len);
		if (!dash) {
			if (!ranges_number(item, len, &one.first))
				return ranges_bad_item(reason, reason_len, item, len, "is not a frame index or range");
			one.last = one.first;
		} else {
			size_t a = (size_t)(dash - item), b = len - a - 1;
			if ((a == 0 && b == 0) || (a && !ranges_number(item, a, &one.first)) ||
			    (b && !ranges_number(dash + 1, b, &one.last)))
				return ranges_bad_item(reason, reason_len, item, len, "is not a frame index or range");
			if (one.first > one.last) {
				snprintf(reason, reason_len, "range %.*s ends before it starts", (int)(len > 32 ? 32 : len),
					 item);
				return -EINVAL;
			}
		}
		if (r.n && one.first <= r.r[r.n - 1].last) {
			snprintf(reason, reason_len, "ranges must be in increasing order without overlap");
			return -EINVAL;
		}
		r.r[r.n++] = one;
		if (!comma)
			break;
	}
	*out = r;
	return 0;
}

size_t pp_frame_ranges_format(const struct pp_frame_ranges *r, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (r->n == 0 || (r->n == 1 && r->r[0].first == 0 && r->r[0].last == PP_FRAME_INDEX_MAX)) {
		snprintf(buf, len, "%s", r->n ? "all" : "none");
		return strlen(buf);
	}
	for (uint32_t i = 0; i < r->n && i < PP_FRAME_RANGES_MAX && used + 1 < len; i++) {
		const struct pp_frame_range *x = &r->r[i];
		const char *sep = i ? "," : "";
		unsigned long long a = x->first, b = x->last;
		int k;
		if (a == b)
			k = snprintf(buf + used, len - used, "%s%llu", sep, a);
		else if (b == PP_FRAME_INDEX_MAX)
			k = snprintf(buf + used, len - used, "%s%llu-", sep, a);
		else
			k = snprintf(buf + used, len - used, "%s%llu-%llu", sep, a, b);
		if (k < 0)
			break;
		used += (size_t)k;
	}
	return used < len ? used : len - 1;
}

bool pp_frame_ranges_have(const struct pp_frame_ranges *r, uint64_t index)
{
	for (uint32_t i = 0; i < r->n && i < PP_FRAME_RANGES_MAX; i++) {
		if (index < r->r[i].first)
			return false; /* increasing order */
		if (index <= r->r[i].last)
			return true;
	}
	return false;
}
