#pragma once
/* The check harness of the C unit tests, one for all of them (tests/CMakeLists.txt puts this
 * folder on every test's include path): each CHECK counts a pass or a failure, a failure says
 * where (file:line), what (the condition's text) and, when the check gives one, why (its
 * message), and check_finish() prints the last line, "N passed, N failed", and gives the exit
 * status. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Plain ints, counted with atomics: the CPU counter tests check from several threads at once,
 * and a test that forks may reset them in the child to report the child's own checks. */
static int check_passed, check_failed;

/* Called after each failure's report when set: a test that captures output (the settings
 * test's log lines) shows it next to the failure it explains. */
static void (*check_on_fail)(void);

static inline void check_pass_(void)
{
	__atomic_add_fetch(&check_passed, 1, __ATOMIC_RELAXED);
}

/* One failure: "FILE:LINE: KIND failed: WHAT" and the formatted rest. CHECK passes its message
 * as ": " "fmt" so the format is never empty (GCC warns on an empty one) and is still checked
 * against its arguments; a bare ": " is a CHECK without a message. */
__attribute__((format(printf, 5, 6))) static inline void check_fail_(const char *file, int line, const char *kind,
								     const char *what, const char *fmt, ...)
{
	__atomic_add_fetch(&check_failed, 1, __ATOMIC_RELAXED);
	/* Whatever the test printed before stays before the failure when both go to one pipe. */
	fflush(stdout);
	flockfile(stderr); /* one failure's lines stay together when threads fail at once */
	fprintf(stderr, "%s:%d: %s failed: %s", file, line, kind, what);
	if (strcmp(fmt, ": ") != 0) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	funlockfile(stderr);
	if (check_on_fail)
		check_on_fail();
}

/* CHECK(cond) or CHECK(cond, fmt, ...): the message, printf-style, says what was got. */
#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (cond)                                                                  \
			check_pass_();                                                     \
		else                                                                       \
			check_fail_(__FILE__, __LINE__, "CHECK", #cond, ": " __VA_ARGS__); \
	} while (0)

/* got within 1e-9 (relative) of want; prints both when not. */
#define CHECK_NEAR(got, want) check_near_(__FILE__, __LINE__, #got, (got), (want))

static inline void check_near_(const char *file, int line, const char *what, double got, double want)
{
	if (fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		check_pass_();
	else
		check_fail_(file, line, "CHECK_NEAR", what, "\n  got:  %.17g\n  want: %.17g", got, want);
}

/* String equality that prints both sides when it fails (a NULL on either side fails). */
#define CHECK_STR(got, want) check_str_(__FILE__, __LINE__, #got, (got), (want))

static inline void check_str_(const char *file, int line, const char *what, const char *got, const char *want)
{
	if (got && want && strcmp(got, want) == 0)
		check_pass_();
	else
		check_fail_(file, line, "CHECK_STR", what, "\n  got:  %s\n  want: %s", got ? got : "(null)",
			    want ? want : "(null)");
}

/* haystack contains needle; prints both when not. */
#define CHECK_HAS(haystack, needle) check_has_(__FILE__, __LINE__, #haystack, (haystack), (needle))

static inline void check_has_(const char *file, int line, const char *what, const char *haystack, const char *needle)
{
	if (haystack && strstr(haystack, needle))
		check_pass_();
	else
		check_fail_(file, line, "CHECK_HAS", what, "\n  text: %s\n  want: %s", haystack ? haystack : "(null)",
			    needle);
}

/* The last line of the output, and the exit status: 0 when nothing failed, 1 when something did. */
static inline int check_finish(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
