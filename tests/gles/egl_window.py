#!/usr/bin/env python3
"""egl_window.py [--frames N] [--preserved] [--no-clear] [--depth] [--expect]: an OpenGL ES 2
program drawing into an X11 window through EGL (the X11 platform), for the tile rules' view
of a window surface at eglSwapBuffers (docs/diagnostics.md, "The tile rules on OpenGL ES").
libX11 and libEGL opened with dlopen (ctypes), GL entry points from eglGetProcAddress.

Each frame: one pass named "scene" by a debug group, on the window (96x64): a clear of the
colour (and of the depth with --depth), two draws, eglSwapBuffers.
  --depth      a config with a depth buffer, the depth test and depth writes on: the window's
               depth is written every frame and left to the swap, which discards it (what
               es2gears and glmark2 do: no finding);
  --preserved  eglSurfaceAttrib(EGL_SWAP_BEHAVIOR, EGL_BUFFER_PRESERVED) on a config with
               EGL_SWAP_BEHAVIOR_PRESERVED_BIT: the swap keeps the colour (a store), which
               the next frame's clear throws away (PASSPROBE-Pass-UnneededStore);
  --no-clear   no clear: each frame draws over what the window holds. With --preserved that
               is the previous frame (no finding); without, the contents after a swap are
               undefined, and the first pass loads them (PASSPROBE-Pass-UnneededLoad).

--expect prints what the GLES shim's report must show (tests/gles/check_gles_report.py).
Needs an X display (tests/integration/with_xvfb.sh); exits 77 without libX11, libEGL, a
display, an OpenGL ES 2 window config, or (--preserved) a preserving one.
"""
import ctypes
import sys

WIDTH, HEIGHT = 96, 64
EGL_NONE, EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE = 0x3038, 0x3033, 0x4, 0x3040
EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE = 0x4, 0x3024, 0x3023, 0x3022
EGL_DEPTH_SIZE, EGL_NATIVE_VISUAL_ID, EGL_OPENGL_ES_API = 0x3025, 0x302E, 0x30A0
EGL_SWAP_BEHAVIOR_PRESERVED_BIT, EGL_SWAP_BEHAVIOR, EGL_BUFFER_PRESERVED = 0x400, 0x3093, 0x3094
EGL_CONTEXT_CLIENT_VERSION = 0x3098
GL_COLOR_BUFFER_BIT, GL_DEPTH_BUFFER_BIT, GL_TRIANGLES, GL_DEPTH_TEST = 0x4000, 0x100, 0x4, 0x0B71
GL_DEBUG_SOURCE_APPLICATION = 0x824A


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def main():
    args = sys.argv[1:]
    frames = int(args[args.index("--frames") + 1]) if "--frames" in args else 6
    preserved, clear_each, depth = "--preserved" in args, "--no-clear" not in args, "--depth" in args
    if "--expect" in args:
        print(f"expect pass 0 scene source=label draws=2 instances=2 vertices=6 indices=0 dispatches=0 "
              f"barriers=0 clear={1 if clear_each else 0} invalidate=0 width={WIDTH} height={HEIGHT}")
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        egl = ctypes.CDLL("libEGL.so.1")
    except OSError as e:
        skip(f"no libX11/libEGL: {e}")
    vp, c_int, c_ulong = ctypes.c_void_p, ctypes.c_int, ctypes.c_ulong
    x11.XOpenDisplay.restype = vp
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultScreen.argtypes = [vp]
    x11.XRootWindow.restype = c_ulong
    x11.XRootWindow.argtypes = [vp, c_int]
    x11.XDefaultVisual.restype = vp
    x11.XDefaultVisual.argtypes = [vp, c_int]
    x11.XVisualIDFromVisual.restype = c_ulong
    x11.XVisualIDFromVisual.argtypes = [vp]
    x11.XCreateSimpleWindow.restype = c_ulong
    x11.XCreateSimpleWindow.argtypes = [vp, c_ulong, c_int, c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                        c_ulong, c_ulong]
    x11.XDestroyWindow.argtypes = [vp, c_ulong]
    x11.XCloseDisplay.argtypes = [vp]
    egl.eglGetDisplay.restype = vp
    egl.eglGetDisplay.argtypes = [vp]
    egl.eglInitialize.argtypes = [vp, ctypes.POINTER(c_int), ctypes.POINTER(c_int)]
    egl.eglBindAPI.argtypes = [ctypes.c_uint]
    egl.eglChooseConfig.argtypes = [vp, ctypes.POINTER(c_int), ctypes.POINTER(vp), c_int, ctypes.POINTER(c_int)]
    egl.eglGetConfigAttrib.argtypes = [vp, vp, c_int, ctypes.POINTER(c_int)]
    egl.eglCreateWindowSurface.restype = vp
    egl.eglCreateWindowSurface.argtypes = [vp, vp, c_ulong, ctypes.POINTER(c_int)]
    egl.eglCreateContext.restype = vp
    egl.eglCreateContext.argtypes = [vp, vp, vp, ctypes.POINTER(c_int)]
    egl.eglMakeCurrent.argtypes = [vp, vp, vp, vp]
    egl.eglSurfaceAttrib.argtypes = [vp, vp, c_int, c_int]
    egl.eglSwapBuffers.argtypes = [vp, vp]
    egl.eglDestroyContext.argtypes = [vp, vp]
    egl.eglDestroySurface.argtypes = [vp, vp]
    egl.eglTerminate.argtypes = [vp]
    egl.eglGetProcAddress.restype = vp
    egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]

    def proc(name, *argtypes, restype=None):
        p = egl.eglGetProcAddress(name.encode())
        if not p:
            skip(f"eglGetProcAddress has no {name}")
        return ctypes.CFUNCTYPE(restype, *argtypes)(p)

    xdpy = x11.XOpenDisplay(None)
    if not xdpy:
        skip("no X display (run under tests/integration/with_xvfb.sh)")
    screen = x11.XDefaultScreen(xdpy)
    dpy = egl.eglGetDisplay(xdpy)
    if not dpy or not egl.eglInitialize(dpy, None, None) or not egl.eglBindAPI(EGL_OPENGL_ES_API):
        skip("EGL does not initialise on this X display")
    surface_type = EGL_WINDOW_BIT | (EGL_SWAP_BEHAVIOR_PRESERVED_BIT if preserved else 0)
    attribs = [EGL_SURFACE_TYPE, surface_type, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 8,
               EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_DEPTH_SIZE, 16 if depth else 0, EGL_NONE]
    configs = (vp * 64)()
    n = c_int(0)
    egl.eglChooseConfig(dpy, (c_int * len(attribs))(*attribs), configs, 64, ctypes.byref(n))
    # a window of the default visual (XCreateSimpleWindow), so a config of that visual; without
    # --depth one without a depth buffer (the window's only attachment is its colour)
    want = x11.XVisualIDFromVisual(x11.XDefaultVisual(xdpy, screen))
    config = None
    for i in range(n.value):
        vid, dsize = c_int(0), c_int(0)
        egl.eglGetConfigAttrib(dpy, configs[i], EGL_NATIVE_VISUAL_ID, ctypes.byref(vid))
        egl.eglGetConfigAttrib(dpy, configs[i], EGL_DEPTH_SIZE, ctypes.byref(dsize))
        if vid.value == want and (dsize.value > 0) == depth:
            config = configs[i]
            break
    if config is None:
        skip("no OpenGL ES 2 window config of the default visual" + (" that preserves at a swap" if preserved else ""))
    win = x11.XCreateSimpleWindow(xdpy, x11.XRootWindow(xdpy, screen), 0, 0, WIDTH, HEIGHT, 0, 0, 0)
    surface = egl.eglCreateWindowSurface(dpy, config, win, None)
    ctx_attribs = [EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE]
    ctx = egl.eglCreateContext(dpy, config, None, (c_int * len(ctx_attribs))(*ctx_attribs))
    if not surface or not ctx or not egl.eglMakeCurrent(dpy, surface, surface, ctx):
        skip("EGL made no window surface or OpenGL ES 2 context")
    if preserved and not egl.eglSurfaceAttrib(dpy, surface, EGL_SWAP_BEHAVIOR, EGL_BUFFER_PRESERVED):
        skip("eglSurfaceAttrib(EGL_SWAP_BEHAVIOR, EGL_BUFFER_PRESERVED) failed")

    # no program is bound: the draws are counted, not shaded (as in glx_es.py)
    clear_color = proc("glClearColor", ctypes.c_float, ctypes.c_float, ctypes.c_float, ctypes.c_float)
    clear = proc("glClear", ctypes.c_uint)
    enable = proc("glEnable", ctypes.c_uint)
    draw = proc("glDrawArrays", ctypes.c_uint, c_int, c_int)
    push = proc("glPushDebugGroup", ctypes.c_uint, ctypes.c_uint, c_int, ctypes.c_char_p)
    pop = proc("glPopDebugGroup")
    if depth:
        enable(GL_DEPTH_TEST)

    for f in range(frames):
        push(GL_DEBUG_SOURCE_APPLICATION, 1, -1, b"scene")
        if clear_each:
            clear_color(0.1 * f, 0.2, 0.3, 1.0)
            clear(GL_COLOR_BUFFER_BIT | (GL_DEPTH_BUFFER_BIT if depth else 0))
        draw(GL_TRIANGLES, 0, 3)
        draw(GL_TRIANGLES, 0, 3)
        pop()
        egl.eglSwapBuffers(dpy, surface)
    egl.eglMakeCurrent(dpy, None, None, None)
    egl.eglDestroyContext(dpy, ctx)
    egl.eglDestroySurface(dpy, surface)
    egl.eglTerminate(dpy)
    x11.XDestroyWindow(xdpy, win)
    x11.XCloseDisplay(xdpy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
