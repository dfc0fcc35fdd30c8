#pragma once
/* A tiny check harness for the CPU counter tests: CHECK counts, the last line is
 * "N passed, N failed", and the exit status is nonzero on any failure. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static int g_passed, g_failed;

#define CHECK(cond, ...)                                                               \
	do {                                                                           \
		if (cond) {                                                            \
			__atomic_add_fetch(&g_passed, 1, __ATOMIC_RELAXED);            \
		} else {                                                               \
			__atomic_add_fetch(&g_failed, 1, __ATOMIC_RELAXED);            \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, " " __VA_ARGS__);                              \
			fputc('\n', stderr);                                           \
		}                                                                      \
	} while (0)

static inline int test_finish(void)
{
	printf("%d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}

static inline uint64_t test_now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Fixed work: the same instructions every call, so 10x the iterations is 10x the work. */
static inline uint64_t test_spin(uint64_t iterations)
{
	volatile uint64_t acc = 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < iterations; i++)
		acc = acc * 6364136223846793005ull + i;
	return acc;
}
