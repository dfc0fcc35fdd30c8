#pragma once
/* The host time line every part of passprobe stamps events on: CLOCK_MONOTONIC in
 * nanoseconds (GPU times are calibrated onto it, docs/timing.md). Inline: called at every
 * submit and blocking call. */
#include <stdint.h>
#include <time.h>

static inline uint64_t pp_clock_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
