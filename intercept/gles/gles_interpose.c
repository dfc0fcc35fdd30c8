/* How the application reaches the hooks. Three ways, all ending at the same functions:
 *   - linked directly: the hooks are exported under the GL/EGL names (version script
 *     libpassprobe_gles.map), and LD_PRELOAD puts the shim first in the search order;
 *   - eglGetProcAddress: answers a hook for a hooked name, where the real one answers at all;
 *   - dlopen + dlsym: the shim's dlsym answers a hook for a hooked name found in any handle
 *     (an application that dlopens libGLESv2 and dlsyms glDrawArrays gets the hook), and
 *     remembers what the real lookup answered as the real entry point.
 * Inside the shim (re-entry guard) both answer what the real ones do. */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "gles_internal.h"

struct hook {
	const char *name;
	void *fn;
};

static const struct hook hooks[] = {
#define PP_EGL_X(n, type) { #n, (void *)(type)n },
	PP_EGL_HOOKED(PP_EGL_X)
#undef PP_EGL_X
};

static void *hook_find(const char *name)
{
	if (!name || (name[0] != 'g' && name[0] != 'e'))
		return NULL;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (!strcmp(hooks[i].name, name))
			return hooks[i].fn;
	return NULL;
}

/* What the application gets for name, given what the real lookup answered. */
static void *answer(const char *name, void *real)
{
	if (!real || pp_egl_tls.guard || pp_egl_is_ours(real))
		return real;
	void *hook = hook_find(name);
	if (hook || pp_egl_real_slot(name))
		pp_egl_real_offer(name, real);
	return hook ? hook : real;
}

EGLAPI __eglMustCastToProperFunctionPointerType EGLAPIENTRY eglGetProcAddress(const char *procname)
{
	PFNEGLGETPROCADDRESSPROC real = PP_REAL(eglGetProcAddress);
	if (!real)
		return NULL;
	return (__eglMustCastToProperFunctionPointerType)answer(procname, (void *)real(procname));
}

/* RTLD_NEXT means "after the caller", and the C library finds the caller from the return
 * address, which would be this function: the objects after the caller are searched here. */
static void *dlsym_next(const void *caller, const char *name)
{
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	for (struct link_map *l = lm->l_next; l; l = l->l_next) {
		void *p = pp_egl_real_dlsym(l, name);
		if (p)
			return p;
	}
	return NULL;
}

__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name)
{
	if (handle == RTLD_NEXT)
		return dlsym_next(__builtin_return_address(0), name);
	return answer(name, pp_egl_real_dlsym(handle, name));
}
