#pragma once
/* What the benchmarks share: the monotonic clock in nanoseconds, an order for qsort of such
 * times (medians), and the per-frame times written out for tests/bench/run_window_ab.sh. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* --frame-times FILE: each frame's time in nanoseconds, one line per frame in frame order.
 * Returns 0, or -1 after saying why on stderr. */
static inline int frame_times_write(const char *path, const uint64_t *ns, uint32_t n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "--frame-times %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%llu\n", (unsigned long long)ns[i]);
	if (fclose(f) != 0) {
		fprintf(stderr, "--frame-times %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
