/* A stand-in for a GLES shim that breaks EGL (tests/gles/test_skip_rule.sh): preloaded like
 * libpassprobe_gles.so, its eglInitialize always fails, so pp_gles_mini gives up with exit 77
 * ("no EGL here") although the machine has EGL. The harness must call that a failure. */
#include <EGL/egl.h>

__attribute__((visibility("default"))) EGLBoolean eglInitialize(EGLDisplay dpy, EGLint *major, EGLint *minor)
{
	(void)dpy;
	(void)major;
	(void)minor;
	return EGL_FALSE;
}
