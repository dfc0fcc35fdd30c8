#pragma once
/* The one list of EGL and GL entry points the shim knows, X(name, PFN type):
 *   PP_EGL_HOOKED: interposed (exported by the version script, answered by the shim's
 *                  eglGetProcAddress and dlsym, each with a hook in intercept/gles/);
 *   PP_EGL_USED:   called by the shim itself, never interposed.
 * From it: the table of real entry points (egl_real.h) and the hook table of intercept/gles.
 * A name added to PP_EGL_HOOKED needs its hook (intercept/gles/) and a line in
 * libpassprobe_gles.map. */
#include "egl_gl.h"

#define PP_EGL_HOOKED(X)                                                        \
	/* EGL: contexts, current, frames */                                    \
	X(eglGetProcAddress, PFNEGLGETPROCADDRESSPROC)                          \
	X(eglCreateContext, PFNEGLCREATECONTEXTPROC)                            \
	X(eglDestroyContext, PFNEGLDESTROYCONTEXTPROC)                          \
	X(eglMakeCurrent, PFNEGLMAKECURRENTPROC)                                \
	X(eglReleaseThread, PFNEGLRELEASETHREADPROC)                            \
	X(eglTerminate, PFNEGLTERMINATEPROC)                                    \
	X(eglSwapBuffers, PFNEGLSWAPBUFFERSPROC)                                \
	X(eglSwapBuffersWithDamageEXT, PFNEGLSWAPBUFFERSWITHDAMAGEEXTPROC)      \
	X(eglSwapBuffersWithDamageKHR, PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC)      \
	/* GLX: OpenGL ES contexts made through it (gles_glx.c) */              \
	X(glXGetProcAddress, PFNPPGLXGETPROCADDRESSPROC)                        \
	X(glXGetProcAddressARB, PFNPPGLXGETPROCADDRESSPROC)                     \
	X(glXCreateContextAttribsARB, PFNPPGLXCREATECONTEXTATTRIBSARBPROC)      \
	X(glXDestroyContext, PFNPPGLXDESTROYCONTEXTPROC)                        \
	X(glXMakeCurrent, PFNPPGLXMAKECURRENTPROC)                              \
	X(glXMakeContextCurrent, PFNPPGLXMAKECONTEXTCURRENTPROC)                \
	X(glXSwapBuffers, PFNPPGLXSWAPBUFFERSPROC)                              \
	/* draws (gles_draw.c) */                                               \
	X(glDrawArrays, PFNGLDRAWARRAYSPROC)                                    \
	X(glDrawElements, PFNGLDRAWELEMENTSPROC)                                \
	X(glDrawArraysInstanced, PFNGLDRAWARRAYSINSTANCEDPROC)                  \
	X(glDrawElementsInstanced, PFNGLDRAWELEMENTSINSTANCEDPROC)              \
	X(glDrawRangeElements, PFNGLDRAWRANGEELEMENTSPROC)                      \
	X(glDrawArraysIndirect, PFNGLDRAWARRAYSINDIRECTPROC)                    \
	X(glDrawElementsIndirect, PFNGLDRAWELEMENTSINDIRECTPROC)                \
	X(glDrawElementsBaseVertex, PFNGLDRAWELEMENTSBASEVERTEXPROC)            \
	X(glDrawRangeElementsBaseVertex, PFNGLDRAWRANGEELEMENTSBASEVERTEXPROC)  \
	X(glDrawElementsInstancedBaseVertex, PFNGLDRAWELEMENTSINSTANCEDBASEVERTEXPROC) \
	X(glDrawArraysInstancedEXT, PFNGLDRAWARRAYSINSTANCEDEXTPROC)            \
	X(glDrawElementsInstancedEXT, PFNGLDRAWELEMENTSINSTANCEDEXTPROC)        \
	X(glDrawElementsBaseVertexOES, PFNGLDRAWELEMENTSBASEVERTEXOESPROC)      \
	X(glDrawElementsBaseVertexEXT, PFNGLDRAWELEMENTSBASEVERTEXEXTPROC)      \
	X(glDispatchCompute, PFNGLDISPATCHCOMPUTEPROC)                          \
	X(glDispatchComputeIndirect, PFNGLDISPATCHCOMPUTEINDIRECTPROC)          \
	X(glMemoryBarrier, PFNGLMEMORYBARRIERPROC)                              \
	X(glMemoryBarrierByRegion, PFNGLMEMORYBARRIERBYREGIONPROC)              \
	/* pass boundaries (gles_pass_hooks.c) */                               \
	X(glBindFramebuffer, PFNGLBINDFRAMEBUFFERPROC)                          \
	X(glDeleteFramebuffers, PFNGLDELETEFRAMEBUFFERSPROC)                    \
	X(glClear, PFNGLCLEARPROC)                                              \
	X(glClearBufferfv, PFNGLCLEARBUFFERFVPROC)                              \
	X(glClearBufferiv, PFNGLCLEARBUFFERIVPROC)                              \
	X(glClearBufferuiv, PFNGLCLEARBUFFERUIVPROC)                            \
	X(glClearBufferfi, PFNGLCLEARBUFFERFIPROC)                              \
	X(glInvalidateFramebuffer, PFNGLINVALIDATEFRAMEBUFFERPROC)              \
	X(glDiscardFramebufferEXT, PFNGLDISCARDFRAMEBUFFEREXTPROC)              \
	X(glFlush, PFNGLFLUSHPROC)                                              \
	X(glFinish, PFNGLFINISHPROC)                                            \
	X(glFenceSync, PFNGLFENCESYNCPROC)                                      \
	X(glReadPixels, PFNGLREADPIXELSPROC)                                    \
	X(glBlitFramebuffer, PFNGLBLITFRAMEBUFFERPROC)                          \
	X(glFramebufferTexture2D, PFNGLFRAMEBUFFERTEXTURE2DPROC)                \
	X(glFramebufferTextureLayer, PFNGLFRAMEBUFFERTEXTURELAYERPROC)          \
	X(glFramebufferRenderbuffer, PFNGLFRAMEBUFFERRENDERBUFFERPROC)          \
	/* names (gles_pass_hooks.c) */                                         \
	X(glPushDebugGroup, PFNGLPUSHDEBUGGROUPPROC)                            \
	X(glPopDebugGroup, PFNGLPOPDEBUGGROUPPROC)                              \
	X(glPushDebugGroupKHR, PFNGLPUSHDEBUGGROUPKHRPROC)                      \
	X(glPopDebugGroupKHR, PFNGLPOPDEBUGGROUPKHRPROC)                        \
	X(glObjectLabel, PFNGLOBJECTLABELPROC)                                  \
	X(glObjectLabelKHR, PFNGLOBJECTLABELKHRPROC)                            \
	/* image sizes for attachments (gles_images.c) */                       \
	X(glTexStorage2D, PFNGLTEXSTORAGE2DPROC)                                \
	X(glTexImage2D, PFNGLTEXIMAGE2DPROC)                                    \
	X(glTexStorage2DMultisample, PFNGLTEXSTORAGE2DMULTISAMPLEPROC)          \
	X(glRenderbufferStorage, PFNGLRENDERBUFFERSTORAGEPROC)                  \
	X(glRenderbufferStorageMultisample, PFNGLRENDERBUFFERSTORAGEMULTISAMPLEPROC) \
	X(glDeleteTextures, PFNGLDELETETEXTURESPROC)                            \
	X(glDeleteRenderbuffers, PFNGLDELETERENDERBUFFERSPROC)                  \
	/* diagnostics: bindings, updates, queries, fences, KHR_debug (gles_diag_hooks.c) */ \
	X(glBindBuffer, PFNGLBINDBUFFERPROC)                                    \
	X(glBindBufferBase, PFNGLBINDBUFFERBASEPROC)                            \
	X(glBindBufferRange, PFNGLBINDBUFFERRANGEPROC)                          \
	X(glDeleteBuffers, PFNGLDELETEBUFFERSPROC)                              \
	X(glActiveTexture, PFNGLACTIVETEXTUREPROC)                              \
	X(glBindTexture, PFNGLBINDTEXTUREPROC)                                  \
	X(glBufferData, PFNGLBUFFERDATAPROC)                                    \
	X(glBufferSubData, PFNGLBUFFERSUBDATAPROC)                              \
	X(glMapBufferRange, PFNGLMAPBUFFERRANGEPROC)                            \
	X(glTexSubImage2D, PFNGLTEXSUBIMAGE2DPROC)                              \
	X(glTexSubImage3D, PFNGLTEXSUBIMAGE3DPROC)                              \
	X(glBeginQuery, PFNGLBEGINQUERYPROC)                                    \
	X(glEndQuery, PFNGLENDQUERYPROC)                                        \
	X(glGetQueryObjectuiv, PFNGLGETQUERYOBJECTUIVPROC)                      \
	X(glGetQueryObjectuivEXT, PFNGLGETQUERYOBJECTUIVEXTPROC)                \
	X(glGetQueryObjectui64vEXT, PFNGLGETQUERYOBJECTUI64VEXTPROC)            \
	X(glClientWaitSync, PFNGLCLIENTWAITSYNCPROC)                            \
	X(glDebugMessageCallback, PFNGLDEBUGMESSAGECALLBACKPROC)                \
	X(glDebugMessageCallbackKHR, PFNGLDEBUGMESSAGECALLBACKKHRPROC)          \
	X(glDebugMessageControl, PFNGLDEBUGMESSAGECONTROLPROC)                  \
	X(glDebugMessageControlKHR, PFNGLDEBUGMESSAGECONTROLKHRPROC)          \
	/* the tile rules: which attachments a pass tests and writes, reads of \
	 * what passes stored, surfaces repainted on their old contents          \
	 * (gles_diag_hooks.c) */                                               \
	X(glEnable, PFNGLENABLEPROC)                                            \
	X(glDisable, PFNGLDISABLEPROC)                                          \
	X(glDepthMask, PFNGLDEPTHMASKPROC)                                      \
	X(glCopyTexImage2D, PFNGLCOPYTEXIMAGE2DPROC)                            \
	X(glCopyTexSubImage2D, PFNGLCOPYTEXSUBIMAGE2DPROC)                      \
	X(glGenerateMipmap, PFNGLGENERATEMIPMAPPROC)                            \
	X(glBindImageTexture, PFNGLBINDIMAGETEXTUREPROC)                        \
	X(eglQuerySurface, PFNEGLQUERYSURFACEPROC)

#define PP_EGL_USED(X)                                                          \
	X(eglGetConfigAttrib, PFNEGLGETCONFIGATTRIBPROC)                        \
	X(eglChooseConfig, PFNEGLCHOOSECONFIGPROC)                              \
	X(eglQueryAPI, PFNEGLQUERYAPIPROC)                                      \
	X(glXGetFBConfigAttrib, PFNPPGLXGETFBCONFIGATTRIBPROC)                  \
	X(glXQueryDrawable, PFNPPGLXQUERYDRAWABLEPROC)                          \
	X(glGetString, PFNGLGETSTRINGPROC)                                      \
	X(glGetIntegerv, PFNGLGETINTEGERVPROC)                                  \
	X(glGetFramebufferAttachmentParameteriv, PFNGLGETFRAMEBUFFERATTACHMENTPARAMETERIVPROC) \
	X(glGenQueriesEXT, PFNGLGENQUERIESEXTPROC)                              \
	X(glDeleteQueriesEXT, PFNGLDELETEQUERIESEXTPROC)                        \
	X(glQueryCounterEXT, PFNGLQUERYCOUNTEREXTPROC)                          \
	X(glGetInteger64vEXT, PFNGLGETINTEGER64VEXTPROC)                        \
	X(glIsQuery, PFNGLISQUERYPROC)                                          \
	X(glIsEnabled, PFNGLISENABLEDPROC)

/* Hooked names as small integers, in list order (egl_rdoc.h follows calls by them). */
enum pp_egl_hook_id {
#define PP_EGL_X(n, type) PP_EGL_ID_##n,
	PP_EGL_HOOKED(PP_EGL_X)
#undef PP_EGL_X
	PP_EGL_NHOOKED
};
