/* The real EGL/GL entry points (egl_real.h): lookup order, the never-ourselves check, the
 * C library's own dlsym. */
#include <dlfcn.h>
#include <string.h>

#include "egl_rdoc.h"
#include "egl_real.h"
#include "pp_log.h"

struct pp_egl_real pp_egl_real;
__thread struct pp_egl_tls pp_egl_real_tls __attribute__((tls_model("initial-exec")));

struct slot_name {
	const char *name;
	size_t offset;
};

static const struct slot_name slot_names[] = {
#define PP_EGL_X(n, type) { #n, offsetof(struct pp_egl_real, n) },
	PP_EGL_HOOKED(PP_EGL_X)
	PP_EGL_USED(PP_EGL_X)
#undef PP_EGL_X
};

const char *pp_egl_real_hook_name(unsigned id)
{
	return id < PP_EGL_NHOOKED ? slot_names[id].name : "";
}

void **pp_egl_real_slot(const char *name)
{
	if (!name || (name[0] != 'e' && name[0] != 'g'))
		return NULL;
	for (size_t i = 0; i < sizeof(slot_names) / sizeof(slot_names[0]); i++)
		if (!strcmp(slot_names[i].name, name))
			return (void **)((char *)&pp_egl_real + slot_names[i].offset);
	return NULL;
}

PP_EGL_EARLY bool pp_egl_real_is_ours(const void *p)
{
	static void *base;
	Dl_info self, info;
	void *b = __atomic_load_n(&base, __ATOMIC_RELAXED);
	if (!b) {
		if (!dladdr((void *)pp_egl_real_is_ours, &self))
			return false;
		b = self.dli_fbase;
		__atomic_store_n(&base, b, __ATOMIC_RELAXED);
	}
	return p && dladdr(p, &info) && info.dli_fbase == b;
}

PP_EGL_EARLY void *pp_egl_real_dlsym_fn(void)
{
	static void *real;
	void *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		/* dlsym has a version per glibc release that moved it; the newest first. */
		f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!f)
			f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		if (!f || pp_egl_real_is_ours(f))
			return NULL;
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	return f;
}

PP_EGL_EARLY void *pp_egl_real_dlsym(void *handle, const char *name)
{
	typedef void *(*dlsym_fn)(void *, const char *);
	dlsym_fn f = (dlsym_fn)pp_egl_real_dlsym_fn();
	if (!f) {
		pp_log_once(PP_LOG_ERROR, "cannot find the C library's dlsym; GL/EGL entry points are "
					  "looked up only through eglGetProcAddress");
		return NULL;
	}
	return f(handle, name);
}

/* Never the shim's own entry point, nor RenderDoc's: RenderDoc passes its calls down to the
 * shim (egl_rdoc.h), so either would call back into the shim for ever. */
static void *accept(void *p)
{
	return p && !pp_egl_real_is_ours(p) && !pp_egl_rdoc_in(p) ? p : NULL;
}

void *pp_egl_real_dlopen(const char *file, int flags)
{
	typedef void *(*dlopen_fn)(const char *, int);
	static dlopen_fn real;
	dlopen_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		/* The C library itself is no library RenderDoc's dlopen redirects. */
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (libc) {
			f = (dlopen_fn)pp_egl_real_dlsym(libc, "dlopen");
			dlclose(libc);
		}
		if (!f)
			f = dlopen;
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	return f(file, flags);
}

/* The libraries an application may have loaded by themselves (dlopen, RTLD_LOCAL): looked up
 * without loading anything new. */
static void *from_loaded_libraries(const char *name)
{
	static const char *const libs[] = { "libEGL.so.1", "libGLESv2.so.2", "libEGL.so", "libGLESv2.so",
					    "libGLESv1_CM.so.1", "libGLX.so.0", "libGL.so.1", "libGL.so" };
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = pp_egl_real_dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void *p = accept(pp_egl_real_dlsym(h, name));
		dlclose(h);
		if (p)
			return p;
	}
	return NULL;
}

void *pp_egl_real_resolve(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (p)
		return p;
	pp_egl_guard_enter();
	if (name[0] == 'g' && name[1] == 'l' && name[2] != 'X') {
		/* glvnd's dispatch stub, which follows the current context's vendor: libEGL's or
		 * libGLX's (a program using GLX alone may have no libEGL loaded); both libraries
		 * dispatch through the one libGLdispatch. glX names are not GL functions: neither
		 * is asked for them (glvnd would make a dispatch stub of any gl name). */
		PFNEGLGETPROCADDRESSPROC gpa = pp_egl_real.eglGetProcAddress;
		if (!gpa)
			gpa = (PFNEGLGETPROCADDRESSPROC)pp_egl_real_resolve((void **)&pp_egl_real.eglGetProcAddress,
									    "eglGetProcAddress");
		if (gpa)
			p = accept((void *)gpa(name));
		PFNPPGLXGETPROCADDRESSPROC glx_gpa = NULL;
		if (!p)
			glx_gpa = (PFNPPGLXGETPROCADDRESSPROC)pp_egl_real_resolve(
				(void **)&pp_egl_real.glXGetProcAddressARB, "glXGetProcAddressARB");
		if (glx_gpa)
			p = accept((void *)glx_gpa((const GLubyte *)name));
	}
	if (!p)
		p = accept(pp_egl_real_dlsym(RTLD_NEXT, name));
	if (!p)
		p = from_loaded_libraries(name);
	pp_egl_guard_leave();
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	return p;
}

void pp_egl_real_offer(const char *name, void *p)
{
	void **slot = pp_egl_real_slot(name);
	void *expected = NULL;
	if (slot && accept(p))
		__atomic_compare_exchange_n(slot, &expected, p, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
