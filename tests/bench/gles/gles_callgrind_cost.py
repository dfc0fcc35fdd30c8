#!/usr/bin/env python3
"""The GLES shim's own instructions per frame, per pass and per boundary, from callgrind
(docs/performance.md, "Frame time (GLES)"). tests/bench/api/callgrind_cost.py's split, with
the shim's library as "ours": a shim function's own instructions plus the libc it calls; the
driver (Mesa, glvnd's libEGL/libGLESv2/libGLdispatch) never counted.

Usage: gles_callgrind_cost.py [--top N] PLAIN_SHORT PLAIN_LONG SHIM_SHORT SHIM_LONG FRAMES_DIFF PASSES BOUNDARIES
  the four arguments: callgrind output prefixes (PREFIX-01, -02, ...: --separate-threads=yes)
  of the same program with fewer and more frames, without and with the shim preloaded. The
  difference over FRAMES_DIFF frames is the steady per-frame cost (set-up and exit cancel
  out). Prints, per frame: the application thread's instructions without and with the shim
  (everything: the driver's extra work for the timer queries included), the shim's own share
  on that thread, split by hook and by function, and the writer thread's; one RESULT line.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
import callgrind_cost as cc  # noqa: E402

cc.LAYER = "libpassprobe_gles.so"
# glvnd (libEGL.so, libGLESv2.so, libGLdispatch.so) dispatches to the driver: never ours.
cc.DRIVER_RE = re.compile(cc.DRIVER_RE.pattern[:-1] + r"|libEGL|libGLES|libGLdispatch|libgbm|libglapi|\?\?\?)")
# glvnd's entry points are stubs it writes at run time (object "???"), and llvmpipe's shaders
# are JIT code: "???" is the driver here, not a helper of the shim's.
cc.HELPER_RE = re.compile(r"(libc\.so|libc-|ld-linux|ld\.so|vdso|libpthread|libm\.so|libgcc)")

HOOK_RE = re.compile(r"(gl|egl)[A-Z]")


def main(argv):
    top, argv = cc.top_option(argv)
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    ps, pl, ss, sl = (cc.summarize(p) for p in argv[1:5])
    frames, passes, bounds = int(argv[5]), int(argv[6]), int(argv[7])
    if not (ps and pl and ss and sl):
        print("gles_callgrind_cost: missing callgrind files", file=sys.stderr)
        return 1
    plain = (pl[0]["total"] - ps[0]["total"]) / frames
    shim = (sl[0]["total"] - ss[0]["total"]) / frames
    flat = cc.diff(ss[0]["flat"], sl[0]["flat"], frames)
    incl = cc.diff(ss[0]["incl"], sl[0]["incl"], frames)
    calls = cc.diff(ss[0]["calls"], sl[0]["calls"], frames)
    ours = sum(flat.values())
    # What the application's calls cost in the shim: the hooks called every frame (the
    # outputs finished at exit, and the context torn down there, are left out).
    hooks = [k for k in incl if HOOK_RE.match(k) and "." not in k and calls.get(k, 0) >= 0.5]
    in_hooks = sum(incl[k] for k in hooks)
    print("application thread, instructions per frame (callgrind, steady state over %d frames):" % frames)
    print("  without the shim %.0f, with it %.0f: difference %.0f (%.0f per pass, %.0f per boundary)"
          % (plain, shim, shim - plain, (shim - plain) / passes, (shim - plain) / bounds))
    print("  the shim's own in its hooks (its functions and the libc they call; the driver excluded): "
          "%.0f per frame, %.0f per pass, %.0f per boundary" % (in_hooks, in_hooks / passes, in_hooks / bounds))
    print("  (the shim's own on that thread including what scales with frames at exit: %.0f per frame)" % ours)
    gl = {k: v for k, v in cc.diff(ss[0]["driver_calls"], sl[0]["driver_calls"], frames).items()
          if not (HOOK_RE.match(k[0]) or k[0].startswith("slow_"))}
    print("  driver instructions the shim's own GL/EGL calls cost: %.0f per frame" % sum(gl.values()))
    for k in sorted(gl, key=lambda k: -gl[k])[:6]:
        if gl[k] >= 0.5:
            print("    %-34s -> %-28s %10.0f" % (k[0], k[1], gl[k]))
    print("\nper hook (inclusive of the shim and libc below it), per frame / per pass / calls per frame:")
    for h in sorted((k for k in incl if HOOK_RE.match(k) and abs(incl[k]) >= 0.5), key=lambda k: -incl[k]):
        print("  %-40s %10.0f %8.0f   %6.0f" % (h, incl[h], incl[h] / passes, calls.get(h, 0)))
    cc.print_functions(flat, calls, passes, top)
    wt = 0
    ws = max(ss[1:], key=lambda t: t["ours_total"], default=None)
    wl = max(sl[1:], key=lambda t: t["ours_total"], default=None)
    if ws is not None and wl is not None:
        wt = (wl["total"] - ws["total"]) / frames
        w = cc.diff(ws["flat"], wl["flat"], frames)
        print("\nwriter thread: %.0f instructions per frame in all, %.0f per pass; by function (own + libc):"
              % (wt, wt / passes))
        for k in sorted(w, key=lambda k: -w[k])[:10]:
            if w[k] >= 0.5:
                print("    %-38s %10.0f" % (k, w[k]))
    print("\nRESULT app_diff_per_frame=%.0f shim_own_per_frame=%.0f shim_own_per_pass=%.0f "
          "shim_own_per_boundary=%.0f shim_gl_calls_per_frame=%.0f writer_per_frame=%.0f" %
          (shim - plain, in_hooks, in_hooks / passes, in_hooks / bounds, sum(gl.values()), wt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
