#pragma once
/* What the CPU counter tests share beyond the check harness (tests/common/pp_check.h): a clock
 * reading and a fixed amount of work. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pp_check.h"

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
