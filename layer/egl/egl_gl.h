#pragma once
/* The EGL and OpenGL ES headers as the shim uses them: prototypes on (the shim defines the
 * interposed names with exactly these prototypes, so the compiler checks every hook), ES 3.2
 * core plus the ES 2 extension header for the EXT/KHR/OES names. */
#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#ifndef EGL_EGLEXT_PROTOTYPES
#define EGL_EGLEXT_PROTOTYPES 1
#endif
/* Declared with default visibility: the shim's definitions of these names are its exports
 * (the build hides everything else; the version script lists what is exported). */
#pragma GCC visibility push(default)
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#pragma GCC visibility pop
