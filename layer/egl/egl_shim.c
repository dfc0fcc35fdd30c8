/* libpassprobe_gles.so: the GLES shim, loaded with LD_PRELOAD. Its exported names are the
 * interposed EGL/GL entry points and dlsym (libpassprobe_gles.map), defined in intercept/gles/;
 * process set-up happens at the first context made current (intercept/gles/gles_init.c), so a
 * program that never makes a GL context current runs untouched. This file names the library's
 * version for `strings` and debuggers. */
__attribute__((used)) static const char pp_gles_version[] = "passprobe GLES shim " PASSPROBE_VERSION;
