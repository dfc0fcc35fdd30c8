/* The one list of EGL and OpenGL ES entry points the GLES demo calls. Both builds fill the
 * same table from it (gd_load.c): pp_gles_demo with the addresses the linker resolved
 * against libEGL/libGLESv2, pp_gles_demo_dlopen with dlsym on the dlopen()ed libraries, so
 * every other line of the demo is the same code in both. The demo calls nothing through
 * any other name. */
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
/* After gl32.h, as the Khronos headers intend: the extension typedefs (GLES3 has no ext header). */
#include <GLES2/gl2ext.h>

#define GD_EGL_FUNCTIONS(X)                                                                        \
	X(eglGetProcAddress)                                                                       \
	X(eglGetError)                                                                             \
	X(eglQueryString)                                                                          \
	X(eglInitialize)                                                                           \
	X(eglTerminate)                                                                            \
	X(eglBindAPI)                                                                              \
	X(eglChooseConfig)                                                                         \
	X(eglGetConfigAttrib)                                                                      \
	X(eglCreateContext)                                                                        \
	X(eglDestroyContext)                                                                       \
	X(eglCreatePbufferSurface)                                                                 \
	X(eglDestroySurface)                                                                       \
	X(eglMakeCurrent)                                                                          \
	X(eglSwapBuffers)                                                                          \
	X(eglReleaseThread)

#define GD_GL_FUNCTIONS(X)                                                                         \
	X(glGetError)                                                                              \
	X(glGetString)                                                                             \
	X(glGetStringi)                                                                            \
	X(glGetIntegerv)                                                                           \
	X(glEnable)                                                                                \
	X(glDisable)                                                                               \
	X(glBlendFunc)                                                                             \
	X(glDepthFunc)                                                                             \
	X(glDepthMask)                                                                             \
	X(glViewport)                                                                              \
	X(glClearColor)                                                                            \
	X(glClearDepthf)                                                                           \
	X(glClear)                                                                                 \
	X(glFlush)                                                                                 \
	X(glFinish)                                                                                \
	X(glCreateShader)                                                                          \
	X(glShaderSource)                                                                          \
	X(glCompileShader)                                                                         \
	X(glGetShaderiv)                                                                           \
	X(glGetShaderInfoLog)                                                                      \
	X(glDeleteShader)                                                                          \
	X(glCreateProgram)                                                                         \
	X(glAttachShader)                                                                          \
	X(glLinkProgram)                                                                           \
	X(glGetProgramiv)                                                                          \
	X(glGetProgramInfoLog)                                                                     \
	X(glDeleteProgram)                                                                         \
	X(glUseProgram)                                                                            \
	X(glGenBuffers)                                                                            \
	X(glDeleteBuffers)                                                                         \
	X(glBindBuffer)                                                                            \
	X(glBindBufferBase)                                                                        \
	X(glBindBufferRange)                                                                       \
	X(glBufferData)                                                                            \
	X(glBufferSubData)                                                                         \
	X(glMapBufferRange)                                                                        \
	X(glUnmapBuffer)                                                                           \
	X(glGenVertexArrays)                                                                       \
	X(glDeleteVertexArrays)                                                                    \
	X(glBindVertexArray)                                                                       \
	X(glEnableVertexAttribArray)                                                               \
	X(glVertexAttribPointer)                                                                   \
	X(glVertexAttribDivisor)                                                                   \
	X(glGenTextures)                                                                           \
	X(glDeleteTextures)                                                                        \
	X(glBindTexture)                                                                           \
	X(glActiveTexture)                                                                         \
	X(glTexStorage2D)                                                                          \
	X(glTexSubImage2D)                                                                         \
	X(glTexParameteri)                                                                         \
	X(glGenFramebuffers)                                                                       \
	X(glDeleteFramebuffers)                                                                    \
	X(glBindFramebuffer)                                                                       \
	X(glFramebufferTexture2D)                                                                  \
	X(glCheckFramebufferStatus)                                                                \
	X(glDrawBuffers)                                                                           \
	X(glInvalidateFramebuffer)                                                                 \
	X(glReadPixels)                                                                            \
	X(glPixelStorei)                                                                           \
	X(glDrawArrays)                                                                            \
	X(glDrawElements)                                                                          \
	X(glDrawRangeElements)                                                                     \
	X(glDrawArraysInstanced)                                                                   \
	X(glDrawElementsInstanced)                                                                 \
	X(glDispatchCompute)                                                                       \
	X(glMemoryBarrier)                                                                         \
	X(glGenQueries)                                                                            \
	X(glDeleteQueries)                                                                         \
	X(glBeginQuery)                                                                            \
	X(glEndQuery)                                                                              \
	X(glGetQueryObjectuiv)                                                                     \
	X(glFenceSync)                                                                             \
	X(glClientWaitSync)                                                                        \
	X(glWaitSync)                                                                              \
	X(glDeleteSync)                                                                            \
	X(glPushDebugGroup)                                                                        \
	X(glPopDebugGroup)                                                                         \
	X(glObjectLabel)                                                                           \
	X(glDebugMessageCallback)                                                                  \
	X(glDebugMessageControl)                                                                   \
	X(glDebugMessageInsert)

/* Extension entry points: no library exports them, both builds ask eglGetProcAddress.
 * GD_EXT_FUNCTIONS are needed to start; GD_TIMER_FUNCTIONS only by --timings, and only
 * where the context has GL_EXT_disjoint_timer_query (gd_timings.c). */
#define GD_EXT_FUNCTIONS(X) X(eglGetPlatformDisplayEXT, PFNEGLGETPLATFORMDISPLAYEXTPROC)
#define GD_TIMER_FUNCTIONS(X)                                                                      \
	X(glQueryCounterEXT, PFNGLQUERYCOUNTEREXTPROC)                                             \
	X(glGetQueryObjectui64vEXT, PFNGLGETQUERYOBJECTUI64VEXTPROC)

struct gd_api {
#define GD_MEMBER(name) __typeof__(name) *name;
	GD_EGL_FUNCTIONS(GD_MEMBER)
	GD_GL_FUNCTIONS(GD_MEMBER)
#undef GD_MEMBER
#define GD_EXT_MEMBER(name, type) type name;
	GD_EXT_FUNCTIONS(GD_EXT_MEMBER)
	GD_TIMER_FUNCTIONS(GD_EXT_MEMBER)
#undef GD_EXT_MEMBER
};

/* Filled once by gd_load_api before any thread starts; read-only afterwards. */
extern struct gd_api gd_load_gl;

/* Returns 0, or -1 after printing why the libraries or an entry point are missing. */
int gd_load_api(void);
/* "direct" or "dlopen": which build this is. */
extern const char gd_load_api_build[];
