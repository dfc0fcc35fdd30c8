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

/* What the calling thread has done for the frames of the process (docs/diagnostics.md, "Whose
 * wait it is"): a wait holds a frame back only on a thread that records, submits or presents
 * its work. Set by the front ends at those calls (each library keeps its own: a thread's
 * Vulkan role is the Vulkan layer's, its OpenGL ES role the shim's), read where a wait is
 * judged. Only ever set: a thread that did frame work once is taken to do it from then on. */
enum {
	PP_THREAD_RECORDS = 1u << 0,  /* recorded command buffers / issued a pass's GL work */
	PP_THREAD_SUBMITS = 1u << 1,  /* submitted command buffers */
	PP_THREAD_PRESENTS = 1u << 2, /* presented or swapped */
};
extern __thread uint8_t pp_thread_roles;

static inline void pp_thread_role_note(uint8_t role)
{
	/* A load first: the store is made once per thread, not at every call. */
	if ((pp_thread_roles & role) != role)
		pp_thread_roles |= role;
}
