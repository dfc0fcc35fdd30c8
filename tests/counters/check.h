#pragma once
/* The check harness of the counter database tests: count, report failures with their line,
 * finish with "N passed, N failed" and a non-zero exit when anything failed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (cond) {                                                               \
			check_passed++;                                                   \
		} else {                                                                  \
			check_failed++;                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                   \
		}                                                                         \
	} while (0)

/* got within 1e-9 (relative) of want; prints both when not. */
#define CHECK_NEAR(got, want)                                                                \
	do {                                                                                 \
		double check_g_ = (got), check_w_ = (want);                                  \
		if (fabs(check_g_ - check_w_) <= 1e-9 * (fabs(check_w_) > 1 ? fabs(check_w_) : 1)) { \
			check_passed++;                                                      \
		} else {                                                                     \
			check_failed++;                                                      \
			fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s\n  got:  %.17g\n  want: %.17g\n", \
				__FILE__, __LINE__, #got, check_g_, check_w_);               \
		}                                                                            \
	} while (0)

/* haystack contains needle; prints both when not. */
#define CHECK_HAS(haystack, needle)                                                          \
	do {                                                                                 \
		const char *check_h_ = (haystack), *check_n_ = (needle);                     \
		if (check_h_ && strstr(check_h_, check_n_)) {                                \
			check_passed++;                                                      \
		} else {                                                                     \
			check_failed++;                                                      \
			fprintf(stderr, "%s:%d: CHECK_HAS failed: %s\n  text: %s\n  want: %s\n", \
				__FILE__, __LINE__, #haystack, check_h_ ? check_h_ : "(null)", \
				check_n_);                                                   \
		}                                                                            \
	} while (0)

static inline int check_finish(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
