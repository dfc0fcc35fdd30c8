/* LD_PRELOAD fault injector for the reliability tests (docs/reliability.md): makes malloc,
 * calloc and realloc fail when they are called directly from passprobe's layer library.
 *
 *   PP_FAILMALLOC_LIB=libVkLayer_passprobe.so  the library whose allocations may fail (a
 *                                               substring of its path)
 *   PP_FAILMALLOC_EVERY=N                       fail every Nth of its allocations (1: all)
 *   PP_FAILMALLOC_AFTER=K                       ... but only after its first K allocations
 *
 * At exit, when PP_FAILMALLOC_REPORT names a file, it appends "failed F of A" (allocations
 * from that library that failed, of all it made). Allocations of every other library and of
 * the program go through untouched. Not for sanitizer builds (they replace malloc). */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

#define EXPORT __attribute__((visibility("default")))

static __thread int t_busy; /* dladdr may allocate: no recursion into our check */
static uint64_t g_seen, g_failed;

/* Whether this allocation, made from `caller`, is to fail. */
static int should_fail(const void *caller)
{
	static const char *lib;
	static long every = -1, after;
	if (every < 0) {
		const char *e = getenv("PP_FAILMALLOC_EVERY");
		const char *a = getenv("PP_FAILMALLOC_AFTER");
		lib = getenv("PP_FAILMALLOC_LIB");
		after = a ? atol(a) : 0;
		every = e ? atol(e) : 0;
	}
	if (!every || !lib || t_busy)
		return 0;
	t_busy = 1;
	Dl_info info;
	int ours = dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, lib);
	t_busy = 0;
	if (!ours)
		return 0;
	uint64_t n = __atomic_add_fetch(&g_seen, 1, __ATOMIC_RELAXED);
	if (n <= (uint64_t)after || (n - (uint64_t)after) % (uint64_t)every)
		return 0;
	__atomic_add_fetch(&g_failed, 1, __ATOMIC_RELAXED);
	return 1;
}

EXPORT void *malloc(size_t size)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_malloc(size);
}

EXPORT void *calloc(size_t n, size_t size)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t size)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_realloc(p, size);
}

__attribute__((destructor)) static void failmalloc_report(void)
{
	const char *path = getenv("PP_FAILMALLOC_REPORT");
	if (!path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char line[96];
	int n = snprintf(line, sizeof(line), "failed %llu of %llu\n",
			 (unsigned long long)__atomic_load_n(&g_failed, __ATOMIC_RELAXED),
			 (unsigned long long)__atomic_load_n(&g_seen, __ATOMIC_RELAXED));
	if (write(fd, line, (size_t)n) < 0)
		(void)0;
	close(fd);
}
