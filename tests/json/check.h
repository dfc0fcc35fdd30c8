#pragma once
/* The tiny check harness of the JSON and summary tests: count, report failures with their
 * line, finish with "N passed, N failed" and a non-zero exit when anything failed. */
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

/* String equality that prints both sides when it fails. */
#define CHECK_STR(got, want)                                                                 \
	do {                                                                                 \
		const char *check_g_ = (got), *check_w_ = (want);                            \
		if (check_g_ && check_w_ && strcmp(check_g_, check_w_) == 0) {               \
			check_passed++;                                                      \
		} else {                                                                     \
			check_failed++;                                                      \
			fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n  got:  %s\n  want: %s\n", \
				__FILE__, __LINE__, #got, check_g_ ? check_g_ : "(null)",    \
				check_w_ ? check_w_ : "(null)");                             \
		}                                                                            \
	} while (0)

static inline int check_finish(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
