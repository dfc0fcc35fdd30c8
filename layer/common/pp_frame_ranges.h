#pragma once
/* Frame ranges: the frames setting (capture windows, docs/settings.md): parsed and written back
 * here, asked by the frame clock. API-neutral. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ranges are inclusive, in increasing order, never overlapping; "all" is one range 0..MAX,
 * "none" no range. */
#define PP_FRAME_RANGES_MAX 16
#define PP_FRAME_INDEX_MAX UINT64_MAX /* an open-ended range's last frame */
struct pp_frame_range {
	uint64_t first, last;
};
struct pp_frame_ranges {
	uint32_t n;
	struct pp_frame_range r[PP_FRAME_RANGES_MAX];
};

/* Parses v[0..n) (trimmed by the caller, not empty): all, none (any case), or a comma list of
 * FIRST-LAST, FIRST-, -LAST, N (spaces around items allowed). Checks everything before it
 * writes *out. Returns 0, or -EINVAL with a short reason ("range 5-3 ends before it starts"). */
int pp_frame_ranges_parse(struct pp_frame_ranges *out, const char *v, size_t n, char *reason, size_t reason_len);

/* Writes r back as the setting would be written: "all", "none", "300-420,1000-", "7". Returns
 * the length written (cut short to fit len). */
size_t pp_frame_ranges_format(const struct pp_frame_ranges *r, char *buf, size_t len);

/* Whether frame index is in one of the ranges. */
bool pp_frame_ranges_have(const struct pp_frame_ranges *r, uint64_t index);
