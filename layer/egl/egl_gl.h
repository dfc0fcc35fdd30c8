#pragma once
/* The EGL, OpenGL ES (and GLX) headers as the shim uses them: prototypes on (the shim defines the
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

/* GLX, for the OpenGL ES contexts made through it (GLX_EXT_create_context_es2_profile: SDL 2
 * makes its ES contexts so on X11). Declared here as GL/glx.h and glxext.h declare them,
 * rather than included: those need Xlib's headers, and the shim needs only opaque pointers
 * and an XID. The display's type is Xlib's struct _XDisplay (Display). */
struct _XDisplay;
typedef struct __GLXcontextRec *GLXContext;
typedef struct __GLXFBConfigRec *GLXFBConfig;
typedef unsigned long GLXDrawable;
typedef void (*pp_glx_proc)(void);
#define GLX_RED_SIZE 8
#define GLX_GREEN_SIZE 9
#define GLX_BLUE_SIZE 10
#define GLX_ALPHA_SIZE 11
#define GLX_DEPTH_SIZE 12
#define GLX_STENCIL_SIZE 13
#define GLX_SAMPLES 100001
#define GLX_WIDTH 0x801D
#define GLX_HEIGHT 0x801E
#define GLX_CONTEXT_PROFILE_MASK_ARB 0x9126
#define GLX_CONTEXT_ES_PROFILE_BIT_EXT 0x00000004
pp_glx_proc glXGetProcAddress(const GLubyte *name);
pp_glx_proc glXGetProcAddressARB(const GLubyte *name);
GLXContext glXCreateContextAttribsARB(struct _XDisplay *dpy, GLXFBConfig config, GLXContext share_context,
				      int direct, const int *attrib_list);
void glXDestroyContext(struct _XDisplay *dpy, GLXContext ctx);
int glXMakeCurrent(struct _XDisplay *dpy, GLXDrawable drawable, GLXContext ctx);
int glXMakeContextCurrent(struct _XDisplay *dpy, GLXDrawable draw, GLXDrawable read, GLXContext ctx);
void glXSwapBuffers(struct _XDisplay *dpy, GLXDrawable drawable);
int glXGetFBConfigAttrib(struct _XDisplay *dpy, GLXFBConfig config, int attribute, int *value);
void glXQueryDrawable(struct _XDisplay *dpy, GLXDrawable draw, int attribute, unsigned int *value);
typedef __typeof__(&glXGetProcAddress) PFNPPGLXGETPROCADDRESSPROC;
typedef __typeof__(&glXCreateContextAttribsARB) PFNPPGLXCREATECONTEXTATTRIBSARBPROC;
typedef __typeof__(&glXDestroyContext) PFNPPGLXDESTROYCONTEXTPROC;
typedef __typeof__(&glXMakeCurrent) PFNPPGLXMAKECURRENTPROC;
typedef __typeof__(&glXMakeContextCurrent) PFNPPGLXMAKECONTEXTCURRENTPROC;
typedef __typeof__(&glXSwapBuffers) PFNPPGLXSWAPBUFFERSPROC;
typedef __typeof__(&glXGetFBConfigAttrib) PFNPPGLXGETFBCONFIGATTRIBPROC;
typedef __typeof__(&glXQueryDrawable) PFNPPGLXQUERYDRAWABLEPROC;
#pragma GCC visibility pop
