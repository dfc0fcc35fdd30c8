#pragma once
/* The calling thread's id as the kernel names it (what perf_event, /proc/self/task and the
 * trace's "tid" use). A system call each time; cache it per thread where it is hot. */
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline uint32_t pp_thread_id(void)
{
	return (uint32_t)syscall(SYS_gettid);
}
