#pragma once
/* RenderDoc's OpenGL ES hooks in the process (docs/gles.md, "RenderDoc").
 *
 * RenderDoc's library, preloaded, exports every EGL and GL entry point (and dlopen, which
 * answers its own handle for libEGL and libGLESv2). Each of its hooks passes the call on to the
 * entry point RenderDoc looked up itself, with dlsym or eglGetProcAddress, both of which the
 * shim answers: RenderDoc's calls down reach the shim's hooks, so RenderDoc is above the shim
 * and its capture holds the application's calls, never the shim's timer queries. What differs
 * is which library the application's calls reach first:
 *
 *   PP_EGL_RDOC_ABOVE: the shim comes first in the symbol search order (preloaded before
 *   RenderDoc: `passprobe run --renderdoc`, renderdoccmd and qrenderdoc append RenderDoc to
 *   LD_PRELOAD). An application's call of a hooked name reaches the shim's hook first, which
 *   marks it on the thread and passes it, unmeasured, to RenderDoc's entry point of that
 *   name; RenderDoc's call down comes back into the hook (its return address in RenderDoc's
 *   library), which measures it. A call from RenderDoc's library while no call of that name
 *   is marked is RenderDoc's own work: its overlay and capture work inside its swap hook, the
 *   contexts and objects it makes for itself, what it does inside passprobe's calls of its API.
 *
 *   PP_EGL_RDOC_FIRST: RenderDoc comes first: the application's calls reach RenderDoc's
 *   exports without passing the shim (a lookup in RenderDoc's library answers RenderDoc's entry
 *   point too), so nothing tells the shim which of RenderDoc's calls down pass the
 *   application's on. Measured all the same; RenderDoc's own work counts as the
 *   application's.
 *
 * RenderDoc's library loaded privately (by the Vulkan loader, as a layer) hooks no GL call:
 * PP_EGL_RDOC_NONE, as without it. */
#include <stdbool.h>

enum pp_egl_rdoc_mode {
	PP_EGL_RDOC_NONE = 1,
	PP_EGL_RDOC_ABOVE,
	PP_EGL_RDOC_FIRST,
};

/* False once the mode is known to be NONE: the one test the hooks make (relaxed load; hidden,
 * so that the draw path loads it in one instruction). */
extern bool pp_egl_rdoc_maybe __attribute__((visibility("hidden")));

/* Found once per process, at the first call that asks (later calls only read it);
 * thread-safe. It opens no library: RenderDoc's dlopen looks entry points up, and those
 * lookups ask this. */
enum pp_egl_rdoc_mode pp_egl_rdoc_mode(void);

/* Whether p lies in RenderDoc's library (false where RenderDoc hooks nothing). One compare
 * once the mode is known. */
bool pp_egl_rdoc_in(const void *p);

/* Whether p lies in the shim's own library, where RenderDoc's GL hooks are in the process
 * (false elsewhere): RenderDoc's hooks pass most calls on with a tail call, so the hook they
 * reach returns where the shim called RenderDoc's. */
bool pp_egl_rdoc_in_shim(const void *p);

/* RenderDoc's entry point of hooked name `id` (enum pp_egl_hook_id): its export of that
 * name; NULL when it has none, or where RenderDoc hooks nothing. */
void *pp_egl_rdoc_entry(unsigned id);

/* The family of hooked name `id`: the id of the name without an EXT, OES, KHR or ARB suffix
 * where that name is hooked too (RenderDoc may pass glDrawArraysInstancedEXT down as
 * glDrawArraysInstanced), else id. */
unsigned pp_egl_rdoc_family(unsigned id);

