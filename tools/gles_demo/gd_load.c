/* Fills the demo's entry-point table. Compiled twice: GD_DLOPEN=0 for pp_gles_demo (the
 * linker resolves every name against libEGL.so.1/libGLESv2.so.2, as a program built with
 * -lEGL -lGLESv2 does), GD_DLOPEN=1 for pp_gles_demo_dlopen (dlopen + dlsym at run time, as
 * engines and benchmarks that pick their GL library at run time do). */
#include "gd_api.h"

#include <stdio.h>

#if GD_DLOPEN
#include <dlfcn.h>
#endif

struct gd_api gd_load_gl;

#if GD_DLOPEN
const char gd_load_api_build[] = "dlopen";

static void *gd_library_open(const char *name)
{
	void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		fprintf(stderr, "pp_gles_demo: cannot dlopen %s: %s\n", name, dlerror());
	return handle;
}

int gd_load_api(void)
{
	/* Never closed: the driver's threads and atexit handlers may outlive main(). */
	void *egl = gd_library_open("libEGL.so.1");
	if (!egl)
		return -1;
	void *gles = gd_library_open("libGLESv2.so.2");
	if (!gles)
		return -1;
#define GD_SYM(lib, name)                                                                          \
	do {                                                                                       \
		gd_load_gl.name = (__typeof__(gd_load_gl.name))dlsym(lib, #name);                                  \
		if (!gd_load_gl.name) {                                                                    \
			fprintf(stderr, "pp_gles_demo: %s has no %s\n", #lib, #name);              \
			return -1;                                                                 \
		}                                                                                  \
	} while (0);
#define GD_SYM_EGL(name) GD_SYM(egl, name)
#define GD_SYM_GLES(name) GD_SYM(gles, name)
	GD_EGL_FUNCTIONS(GD_SYM_EGL)
	GD_GL_FUNCTIONS(GD_SYM_GLES)
#undef GD_SYM_EGL
#undef GD_SYM_GLES
#undef GD_SYM
#else
const char gd_load_api_build[] = "direct";

int gd_load_api(void)
{
#define GD_LINKED(name) gd_load_gl.name = name;
	GD_EGL_FUNCTIONS(GD_LINKED)
	GD_GL_FUNCTIONS(GD_LINKED)
#undef GD_LINKED
#endif
#define GD_PROC(name, type)                                                                        \
	gd_load_gl.name = (type)gd_load_gl.eglGetProcAddress(#name);                                               \
	if (!gd_load_gl.name) {                                                                            \
		fprintf(stderr, "pp_gles_demo: eglGetProcAddress has no %s\n", #name);             \
		return -1;                                                                         \
	}
	GD_EXT_FUNCTIONS(GD_PROC)
#undef GD_PROC
	return 0;
}
