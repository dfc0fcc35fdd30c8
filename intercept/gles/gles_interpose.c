/* How the application reaches the hooks. Three ways, all ending at the same functions:
 *   - linked directly: the hooks are exported under the GL/EGL names (version script
 *     libpassprobe_gles.map), and LD_PRELOAD puts the shim first in the search order;
 *   - eglGetProcAddress, glXGetProcAddress[ARB]: answer a hook for a hooked name, where the
 *     real one answers at all;
 *   - dlopen + dlsym: the shim's dlsym answers a hook for a hooked name found in any handle
 *     (an application that dlopens libGLESv2 and dlsyms glDrawArrays gets the hook), and
 *     remembers what the real lookup answered as the real entry point.
 * Inside the shim (re-entry guard) both answer what the real ones do. */
#include <dlfcn.h>
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

/* No C library call here (not even strcmp): reached while a sanitizer runtime starts. */
PP_EGL_EARLY static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

PP_EGL_EARLY static void *hook_find(const char *name)
{
	if (!name || (name[0] != 'g' && name[0] != 'e'))
		return NULL;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (same_name(hooks[i].name, name))
			return hooks[i].fn;
	return NULL;
}

/* Which hooked names a lookup answers with a hook: each only those its real counterpart
 * serves. eglGetProcAddress: EGL and GL names, not glX ones; glXGetProcAddress: GL and glX
 * names, not EGL ones (glvnd answers any name beginning with gl with a dispatch stub). */
enum lookup { LOOKUP_DLSYM, LOOKUP_EGL, LOOKUP_GLX };

/* What the application gets for name, given what the real lookup answered. */
PP_EGL_EARLY static void *answer(const char *name, void *real, enum lookup by)
{
	if (!real || pp_egl_real_tls.guard)
		return real;
	bool glx_name = name && name[0] == 'g' && name[1] == 'l' && name[2] == 'X';
	if ((by == LOOKUP_EGL && glx_name) || (by == LOOKUP_GLX && name && name[0] == 'e'))
		return real;
	void *hook = hook_find(name);
	if (!hook || pp_egl_real_is_ours(real))
		return real;
	/* RenderDoc's entry point, where RenderDoc comes first in the search order (egl_rdoc.h):
	 * the application's calls go to RenderDoc, whose own lookups give it the shim's hooks.
	 * Where the shim comes first its hook passes the application's calls to RenderDoc. */
	if (pp_egl_rdoc_in(real) && pp_egl_rdoc_mode() == PP_EGL_RDOC_FIRST)
		return real;
	pp_egl_real_offer(name, real);
	return hook;
}

/* The lookups answer what the lookup they stand for found, a hook in place of a hooked name's
 * entry point. Where RenderDoc's hooks are in the process after the shim (egl_rdoc.h), the
 * application's lookup goes to RenderDoc's first: the names the shim does not hook stay
 * RenderDoc's, so every call of the application's reaches RenderDoc. */
#define LOOKUP_HOOK(decl, name, type, char_type, lookup)                                           \
	decl name(const char_type *procname)                                                       \
	{                                                                                          \
		struct pp_gles_above a;                                                            \
		bool above = __atomic_load_n(&pp_egl_rdoc_maybe, __ATOMIC_RELAXED) &&              \
			     pp_gles_renderdoc_above_enter(&a, PP_EGL_ID_##name, __builtin_return_address(0)); \
		__typeof__(pp_egl_real.name) real = above ? (__typeof__(real))a.entry : PP_REAL(name); \
		void *p = real ? answer((const char *)procname, (void *)real(procname), lookup) : NULL; \
		if (above)                                                                         \
			pp_gles_renderdoc_above_leave(&a);                                                   \
		return (type)p;                                                                    \
	}

LOOKUP_HOOK(EGLAPI __eglMustCastToProperFunctionPointerType EGLAPIENTRY, eglGetProcAddress,
	    __eglMustCastToProperFunctionPointerType, char, LOOKUP_EGL)
LOOKUP_HOOK(pp_glx_proc, glXGetProcAddressARB, pp_glx_proc, GLubyte, LOOKUP_GLX)
LOOKUP_HOOK(pp_glx_proc, glXGetProcAddress, pp_glx_proc, GLubyte, LOOKUP_GLX)

/* dlsym(RTLD_NEXT, name) means "after the caller", and the C library finds the caller from
 * the return address: the shim's dlsym must reach it with the caller's return address still
 * in place, so for RTLD_NEXT it jumps (not calls) to the real dlsym. The sanitizer runtimes
 * look functions up that way while they start, before anything instrumented may run. Other
 * handles go to pp_gles_interpose_dlsym, which answers the hooks. */
PP_EGL_EARLY void *pp_gles_interpose_dlsym(void *handle, const char *name);
PP_EGL_EARLY void *pp_gles_interpose_dlsym(void *handle, const char *name)
{
	return answer(name, pp_egl_real_dlsym(handle, name), LOOKUP_DLSYM);
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
	"	cmpq $-1, %rdi\n" /* RTLD_NEXT */
	"	jne pp_gles_interpose_dlsym\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n" /* the stack 16-byte aligned at the call */
	"	call pp_egl_real_dlsym_fn\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	jmp *%rax\n"
	"1:	ret\n" /* no real dlsym: NULL */
	".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, %function\n"
	"dlsym:\n"
	"	cmn x0, #1\n" /* RTLD_NEXT */
	"	b.ne pp_gles_interpose_dlsym\n"
	"	stp x29, x30, [sp, #-32]!\n"
	"	stp x0, x1, [sp, #16]\n"
	"	bl pp_egl_real_dlsym_fn\n"
	"	mov x16, x0\n"
	"	ldp x0, x1, [sp, #16]\n"
	"	ldp x29, x30, [sp], #32\n"
	"	cbz x16, 1f\n"
	"	br x16\n"
	"1:	mov x0, #0\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");
#else
#error "the GLES shim's dlsym needs a jump to the real one on this architecture"
#endif
