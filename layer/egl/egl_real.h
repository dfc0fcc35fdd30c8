#pragma once
/* The real EGL and GL entry points, one table for the process, and how they are found.
 *
 * A real entry point is never one of the shim's own (pp_egl_real_is_ours), nor RenderDoc's (whose
 * calls down come back to the shim, egl_rdoc.h): it comes from, in turn, what the application
 * itself got from dlsym or eglGetProcAddress (remembered by the interposed
 * dlsym/eglGetProcAddress, pp_egl_real_offer), the real eglGetProcAddress (glvnd answers every
 * gl* name with its dispatch stub), dlsym(RTLD_NEXT), and the EGL/GLES libraries already
 * loaded (the C library's dlopen, RTLD_NOLOAD). The shim calls GL and EGL only through this
 * table, never a public name, so none of its own calls comes back into a hook.
 *
 * Threads: entries are written once with the same value by whichever thread finds them
 * first, and read with relaxed atomic loads (a plain load on x86-64 and AArch64). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egl_functions.h"

/* Functions reached before a sanitizer runtime has started: the sanitizers' own start-up
 * looks functions up with dlsym(RTLD_NEXT, ...), which the shim interposes. Instrumented code
 * would touch shadow memory that does not exist yet. */
#define PP_EGL_EARLY __attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined, noinline))

struct pp_egl_real {
#define PP_EGL_X(name, type) type name;
	PP_EGL_HOOKED(PP_EGL_X)
	PP_EGL_USED(PP_EGL_X)
#undef PP_EGL_X
};
extern struct pp_egl_real pp_egl_real;

/* Slow path of PP_REAL: resolves *slot (named name) now; NULL when nothing has it. */
void *pp_egl_real_resolve(void **slot, const char *name);

/* The real entry point of a table member, resolved on first use. */
#define PP_REAL(member)                                                                           \
	(__extension__({                                                                          \
		__typeof__(pp_egl_real.member) pp_r_ = __atomic_load_n(&pp_egl_real.member, __ATOMIC_RELAXED); \
		if (__builtin_expect(pp_r_ == NULL, 0))                                           \
			pp_r_ = (__typeof__(pp_r_))pp_egl_real_resolve((void **)&pp_egl_real.member, #member); \
		pp_r_;                                                                            \
	}))

/* The table slot of a name of the list, or NULL. */
void **pp_egl_real_slot(const char *name);

/* A pointer the application obtained for name (its dlsym or eglGetProcAddress answered it):
 * kept as the real entry point when the slot is empty and p is not the shim's own. */
void pp_egl_real_offer(const char *name, void *p);

/* The name of hooked name id (enum pp_egl_hook_id). */
const char *pp_egl_real_hook_name(unsigned id);

/* The C library's own dlopen: RenderDoc exports a dlopen that answers its own library for
 * libEGL and libGLESv2, whose entry points the shim must never take (egl_rdoc.h). */
void *pp_egl_real_dlopen(const char *file, int flags);

/* Whether p lies in the shim's own library (dladdr). */
PP_EGL_EARLY bool pp_egl_real_is_ours(const void *p);

/* The C library's dlsym, found with dlvsym (GLIBC_2.34, then GLIBC_2.2.5), never the shim's;
 * NULL when there is none. */
PP_EGL_EARLY void *pp_egl_real_dlsym_fn(void);
PP_EGL_EARLY void *pp_egl_real_dlsym(void *handle, const char *name);

/* Re-entry guard, per thread: while it is held, the hooks pass every call straight down
 * (the driver's own calls into public names, and anything called from the shim's boundary
 * work). pp_egl_real_tls.ctx is the calling thread's current context record (intercept/gles).
 * The rdoc_ members follow calls through RenderDoc's hooks (egl_rdoc.h). */
struct pp_egl_tls {
	void *ctx;
	unsigned guard;
	/* The application's call passed on to RenderDoc and not yet back down in the shim:
	 * 1 + the family of its name (pp_egl_rdoc_family), 0 for none. */
	uint16_t rdoc_call;
	/* The call being handled is RenderDoc's own work, not the application's. */
	bool rdoc_own;
	const void *rdoc_ra;   /* where the application made the call marked in rdoc_call */
	/* The application's call site of the call being handled when RenderDoc passed it on
	 * (the hook's return address is then in RenderDoc's code, or the shim's own call of
	 * RenderDoc's entry point); NULL: the hook's return address is. */
	const void *site;
};
extern __thread struct pp_egl_tls pp_egl_real_tls __attribute__((tls_model("initial-exec")));

static inline void pp_egl_guard_enter(void)
{
	pp_egl_real_tls.guard++;
}
static inline void pp_egl_guard_leave(void)
{
	pp_egl_real_tls.guard--;
}
