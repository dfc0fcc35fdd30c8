#!/usr/bin/env python3
"""glx_es.py [--frames N] [--expect]: an OpenGL ES program whose context is made with GLX, as
SDL 2 makes them on X11 (docs/gles.md, "GLX"): libGL opened with dlopen (ctypes), every
entry point from dlsym or glXGetProcAddressARB, glXCreateContextAttribsARB with the ES
profile, glXMakeContextCurrent on a GLXWindow of 96x64 pixels.

Each frame: a pass named "scene" by a debug group (a clear and two draws), glXSwapBuffers.
Between frames it makes a desktop OpenGL context current on the same window, clears and
swaps with it (not measured: the shim says so once), and goes back to the ES context. At the
end it destroys the ES context while it is still current, then releases it.

--expect prints what the GLES shim's report must show (tests/gles/check_gles_report.py).
Needs an X display (tests/integration/with_xvfb.sh); exits 77 without libGL, libX11, a
display, or GLX_EXT_create_context_es2_profile.
"""
import ctypes
import sys

WIDTH, HEIGHT = 96, 64
GLX_X_RENDERABLE, GLX_DRAWABLE_TYPE, GLX_RENDER_TYPE = 0x8012, 0x8010, 0x8011
GLX_WINDOW_BIT, GLX_RGBA_BIT, GLX_RGBA_TYPE = 0x1, 0x1, 0x8014
GLX_DOUBLEBUFFER, GLX_RED_SIZE, GLX_GREEN_SIZE, GLX_BLUE_SIZE, GLX_ALPHA_SIZE, GLX_DEPTH_SIZE = 5, 8, 9, 10, 11, 12
GLX_VISUAL_ID = 0x800B
GLX_CONTEXT_MAJOR_VERSION_ARB, GLX_CONTEXT_MINOR_VERSION_ARB = 0x2091, 0x2092
GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_ES_PROFILE_BIT_EXT = 0x9126, 0x4
GL_COLOR_BUFFER_BIT, GL_DEPTH_BUFFER_BIT, GL_TRIANGLES = 0x4000, 0x100, 0x4
GL_DEBUG_SOURCE_APPLICATION = 0x824A


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def main():
    frames = 6
    args = sys.argv[1:]
    if "--frames" in args:
        frames = int(args[args.index("--frames") + 1])
    if "--expect" in args:
        print("expect pass 0 scene source=label draws=2 instances=2 vertices=6 indices=0 dispatches=0 "
              f"barriers=0 clear=1 invalidate=0 width={WIDTH} height={HEIGHT} format=RGBA8")
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        gl = ctypes.CDLL("libGL.so.1")
    except OSError as e:
        skip(f"no libX11/libGL: {e}")
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
    gl.glXChooseFBConfig.restype = ctypes.POINTER(vp)
    gl.glXChooseFBConfig.argtypes = [vp, c_int, ctypes.POINTER(c_int), ctypes.POINTER(c_int)]
    gl.glXGetFBConfigAttrib.argtypes = [vp, vp, c_int, ctypes.POINTER(c_int)]
    gl.glXCreateWindow.restype = c_ulong
    gl.glXCreateWindow.argtypes = [vp, vp, c_ulong, vp]
    gl.glXDestroyWindow.argtypes = [vp, c_ulong]
    gl.glXCreateNewContext.restype = vp
    gl.glXCreateNewContext.argtypes = [vp, vp, c_int, vp, c_int]
    gl.glXMakeCurrent.argtypes = [vp, c_ulong, vp]
    gl.glXMakeContextCurrent.argtypes = [vp, c_ulong, c_ulong, vp]
    gl.glXSwapBuffers.argtypes = [vp, c_ulong]
    gl.glXDestroyContext.argtypes = [vp, vp]
    gl.glXQueryExtensionsString.restype = ctypes.c_char_p
    gl.glXQueryExtensionsString.argtypes = [vp, c_int]
    gl.glXGetProcAddressARB.restype = vp
    gl.glXGetProcAddressARB.argtypes = [ctypes.c_char_p]

    def proc(name, *argtypes, restype=None):
        p = gl.glXGetProcAddressARB(name.encode())
        if not p:
            skip(f"glXGetProcAddressARB has no {name}")
        return ctypes.CFUNCTYPE(restype, *argtypes)(p)

    dpy = x11.XOpenDisplay(None)
    if not dpy:
        skip("no X display (run under tests/integration/with_xvfb.sh)")
    screen = x11.XDefaultScreen(dpy)
    if b"GLX_EXT_create_context_es2_profile" not in (gl.glXQueryExtensionsString(dpy, screen) or b""):
        skip("GLX has no GLX_EXT_create_context_es2_profile")
    attribs = [GLX_X_RENDERABLE, 1, GLX_DRAWABLE_TYPE, GLX_WINDOW_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT,
               GLX_DOUBLEBUFFER, 1, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8, GLX_ALPHA_SIZE, 8,
               GLX_DEPTH_SIZE, 0, 0]
    n = c_int(0)
    configs = gl.glXChooseFBConfig(dpy, screen, (c_int * len(attribs))(*attribs), ctypes.byref(n))
    # a window of the default visual (XCreateSimpleWindow), so a config of that visual
    want = x11.XVisualIDFromVisual(x11.XDefaultVisual(dpy, screen))
    config = None
    for i in range(n.value):
        vid, alpha = c_int(0), c_int(0)
        gl.glXGetFBConfigAttrib(dpy, configs[i], GLX_VISUAL_ID, ctypes.byref(vid))
        gl.glXGetFBConfigAttrib(dpy, configs[i], GLX_ALPHA_SIZE, ctypes.byref(alpha))
        if vid.value == want and alpha.value == 8:
            config = configs[i]
            break
    if config is None:
        skip("no RGBA8 GLX config of the default visual")
    win = x11.XCreateSimpleWindow(dpy, x11.XRootWindow(dpy, screen), 0, 0, WIDTH, HEIGHT, 0, 0, 0)
    glxwin = gl.glXCreateWindow(dpy, config, win, None)

    create = proc("glXCreateContextAttribsARB", vp, vp, vp, c_int, ctypes.POINTER(c_int), restype=vp)
    ctx_attribs = [GLX_CONTEXT_MAJOR_VERSION_ARB, 3, GLX_CONTEXT_MINOR_VERSION_ARB, 0,
                   GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_ES_PROFILE_BIT_EXT, 0]
    es = create(dpy, config, None, 1, (c_int * len(ctx_attribs))(*ctx_attribs))
    desktop = gl.glXCreateNewContext(dpy, config, GLX_RGBA_TYPE, None, 1)
    if not es or not desktop:
        skip("GLX made no OpenGL ES 3.0 or desktop context")

    clear_color = proc("glClearColor", ctypes.c_float, ctypes.c_float, ctypes.c_float, ctypes.c_float)
    clear = proc("glClear", ctypes.c_uint)
    draw = proc("glDrawArrays", ctypes.c_uint, c_int, c_int)
    push = proc("glPushDebugGroup", ctypes.c_uint, ctypes.c_uint, c_int, ctypes.c_char_p)
    pop = proc("glPopDebugGroup")
    finish = proc("glFinish")

    for f in range(frames):
        if not gl.glXMakeContextCurrent(dpy, glxwin, glxwin, es):
            print("glXMakeContextCurrent failed", file=sys.stderr)
            return 1
        push(GL_DEBUG_SOURCE_APPLICATION, 1, -1, b"scene")
        clear_color(0.1 * f, 0.2, 0.3, 1.0)
        clear(GL_COLOR_BUFFER_BIT)
        draw(GL_TRIANGLES, 0, 3)
        draw(GL_TRIANGLES, 0, 3)
        pop()
        gl.glXSwapBuffers(dpy, glxwin)
        # the desktop context: its calls and swaps are not the ES context's frames
        gl.glXMakeCurrent(dpy, glxwin, desktop)
        clear(GL_COLOR_BUFFER_BIT)
        draw(GL_TRIANGLES, 0, 3)
        gl.glXSwapBuffers(dpy, glxwin)
    # the last ES frame's results are read while it is current; then destroyed while current
    gl.glXMakeContextCurrent(dpy, glxwin, glxwin, es)
    finish()
    gl.glXDestroyContext(dpy, es)
    gl.glXMakeCurrent(dpy, 0, None)
    gl.glXDestroyContext(dpy, desktop)
    gl.glXDestroyWindow(dpy, glxwin)
    x11.XDestroyWindow(dpy, win)
    x11.XCloseDisplay(dpy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
