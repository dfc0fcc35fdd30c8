#!/usr/bin/env python3
"""passprobe's own instructions from callgrind output (docs/performance.md, "Pass boundaries").

Reads the per-thread files of `valgrind --tool=callgrind --separate-threads=yes` and splits
every instruction into three owners:

- ours: functions of the layer's shared object (libVkLayer_passprobe.so), plus what they
  call in helper objects (libc, the dynamic linker, the vDSO): a memset, a lock or the
  user-space half of a read(2) that the layer makes is the layer's cost;
- driver: the Vulkan driver and the loader below the layer, whether the application's own
  command (forwarded) or one that passprobe injects (timestamps, query copies): never ours;
- the rest (the application, the driver's threads).

`ours` of a function is its own instructions plus, for each call it makes, the callee's share
of ours: all of a helper call, none of a driver call, and for a call to another layer function
that function's ours/inclusive ratio times the call's inclusive cost (exact where a function
costs the same from every caller, as these do).

Usage: callgrind_cost.py [--top N] SHORT_RUN LONG_RUN FRAMES_DIFF PASSES DRAWS
  SHORT_RUN, LONG_RUN: callgrind output file prefixes (files PREFIX-01, PREFIX-02, ...) of the
  same program with fewer and more frames; the difference over FRAMES_DIFF frames is the steady
  per-frame cost (set-up and exit cancel out). Prints per-frame, per-pass and per-draw figures
  for the application's thread (from the hooks: what runs at exit is left out) and passprobe's
  writer thread, then one RESULT line with the headline figures.
"""
import glob
import re
import sys

LAYER = "libVkLayer_passprobe.so"
HELPER_RE = re.compile(r"(libc\.so|libc-|ld-linux|ld\.so|vdso|libpthread|libm\.so|libgcc|\?\?\?)")
DRIVER_RE = re.compile(r"(libvulkan|VkLayer_MESA|lvp|lavapipe|libgallium|libLLVM|swrast|mesa|libdrm|libz|libstdc|libexpat|libzstd|libxcb|libX)")


class Profile:
    def __init__(self):
        self.self_cost = {}  # (ob, fn) -> Ir
        self.calls = {}  # (ob, fn) -> {(cob, cfn): [count, inclusive]}
        self.total = 0


KIND_OF = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
           "fn": "fn", "cfn": "fn"}


def names_of(paths):
    """Compressed names are numbered once for all of a run's per-thread files."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"(c?ob|fl|fi|fe|cfi|cfl|c?fn)=\((\d+)\) (.*)$", line.rstrip("\n"))
                if m:
                    names[KIND_OF[m.group(1)]][m.group(2)] = m.group(3)
    return names


def parse(path, names):
    prof = Profile()

    def name(key, value):
        space = names[KIND_OF[key]]
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        return space.get(m.group(1), "?")

    ob = fn = None
    cob = cfn = None
    pending_call = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call is not None:
                    key = (ob, fn)
                    target = pending_call
                    d = prof.calls.setdefault(key, {})
                    e = d.setdefault(target, [0, 0])
                    e[0] += pending_count
                    e[1] += cost
                    pending_call = None
                else:
                    k = (ob, fn)
                    prof.self_cost[k] = prof.self_cost.get(k, 0) + cost
                    prof.total += cost
                continue
            if "=" not in line:
                continue
            key, value = line.split("=", 1)
            if key == "ob":
                ob = name(key, value)
            elif key == "fn":
                fn = name(key, value)
                cob = None
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                name(key, value)
            elif key == "cob":
                cob = name(key, value)
            elif key == "cfn":
                cfn = name(key, value)
            elif key == "calls":
                pending_count = int(value.split()[0])
                pending_call = (cob if cob is not None else ob, cfn)
                cob = None
    return prof


def owner(ob):
    if ob is None:
        return "other"
    if ob.endswith(LAYER):
        return "ours"
    if HELPER_RE.search(ob):
        return "helper"
    if DRIVER_RE.search(ob):
        return "driver"
    return "other"


def ours_of(prof, helpers=True):
    """ours(f), inclusive, for every layer function; helpers=False leaves out what the layer's
    functions spend in libc (the layer's own instructions only)."""
    memo = {}
    incl_memo = {}

    def inclusive(f):
        if f in incl_memo:
            return incl_memo[f]
        incl_memo[f] = prof.self_cost.get(f, 0)  # recursion guard
        v = prof.self_cost.get(f, 0) + sum(e[1] for e in prof.calls.get(f, {}).values())
        incl_memo[f] = v
        return v

    def ours(f):
        if f in memo:
            return memo[f]
        memo[f] = 0  # recursion guard
        v = prof.self_cost.get(f, 0)
        for g, (count, incl) in prof.calls.get(f, {}).items():
            o = owner(g[0])
            if o == "helper":
                v += incl if helpers else 0
            elif o == "ours":
                gi = inclusive(g)
                v += incl * (ours(g) / gi) if gi else 0
        memo[f] = v
        return v

    return {f: ours(f) for f in set(prof.self_cost) | set(prof.calls) if owner(f[0]) == "ours"}, inclusive


def thread_files(prefix):
    return sorted(glob.glob(prefix + "-[0-9][0-9]"))


def summarize(prefix):
    """Per thread: {'ours_total', 'self': {fn: ours-self}, 'incl_ours': {fn: ours inclusive}, 'calls': {fn: n}}"""
    threads = []
    paths = thread_files(prefix)
    names = names_of(paths)
    for path in paths:
        prof = parse(path, names)
        ours, inclusive = ours_of(prof)
        ours_own, _ = ours_of(prof, helpers=False)
        # Ours in total: each layer function's own instructions and its helper calls.
        flat = {}
        for f in ours:
            v = prof.self_cost.get(f, 0)
            for g, (count, incl) in prof.calls.get(f, {}).items():
                if owner(g[0]) == "helper":
                    v += incl
            flat[f[1]] = flat.get(f[1], 0) + v
        ncalls = {}
        injected = {}
        for f, d in prof.calls.items():
            for g, (count, incl) in d.items():
                if owner(g[0]) == "ours":
                    ncalls[g[1]] = ncalls.get(g[1], 0) + count
                if owner(f[0]) == "ours" and owner(g[0]) == "driver":
                    injected[(f[1], g[1])] = injected.get((f[1], g[1]), 0) + incl
        threads.append({
            "path": path,
            "total": prof.total,
            "ours_total": sum(flat.values()),
            "flat": flat,
            "incl": {f[1]: v for f, v in ours.items()},
            "own": {f[1]: v for f, v in ours_own.items()},
            "calls": ncalls,
            "driver_calls": injected,
        })
    return threads


def diff(a, b, scale):
    keys = set(a) | set(b)
    return {k: (b.get(k, 0) - a.get(k, 0)) / scale for k in keys}


def top_option(argv, default=25):
    """The --top N option, if first: (N, argv without it)."""
    if len(argv) > 2 and argv[1] == "--top":
        return int(argv[2]), argv[:1] + argv[3:]
    return default, argv


def print_functions(flat, calls, passes, top):
    """The top functions by their own instructions (with the libc they call), per frame."""
    print("\nper function (own instructions + libc it calls), top %d, per frame / per pass / calls per frame:" % top)
    for k in sorted(flat, key=lambda k: -flat[k])[:top]:
        if abs(flat[k]) < 0.5:
            break
        print("  %-40s %10.0f %8.0f   %6.0f" % (k, flat[k], flat[k] / passes, calls.get(k, 0)))


def main(argv):
    top, argv = top_option(argv)
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    short, long_, frames, passes, draws = argv[1], argv[2], int(argv[3]), int(argv[4]), int(argv[5])
    ts, tl = summarize(short), summarize(long_)
    if not ts or not tl:
        print("callgrind_cost: no callgrind files %s-NN or %s-NN" % (short, long_), file=sys.stderr)
        return 1
    app_s, app_l = ts[0], tl[0]
    # passprobe's writer thread: in each run, the thread (other than the application's) where
    # most of ours ran (the driver's threads differ in number from run to run).
    def writer_of(t):
        return max(t[1:], key=lambda x: x["ours_total"], default=None)
    ws, wl = writer_of(ts), writer_of(tl)

    flat = diff(app_s["flat"], app_l["flat"], frames)
    incl = diff(app_s["incl"], app_l["incl"], frames)
    own = diff(app_s["own"], app_l["own"], frames)
    calls = diff(app_s["calls"], app_l["calls"], frames)
    ndraws = passes * draws
    draw_hooks = [k for k in incl if re.match(r"pp_CmdDraw", k)]
    draw_cost = sum(incl[k] for k in draw_hooks)
    rec_hooks = ["pp_BeginCommandBuffer", "pp_EndCommandBuffer", "pp_ResetCommandBuffer", "pp_CmdBeginRenderPass",
                 "pp_CmdEndRenderPass", "pp_CmdBeginRenderPass2", "pp_CmdEndRenderPass2", "pp_CmdBeginRendering",
                 "pp_CmdEndRendering", "pp_CmdBindPipeline", "pp_CmdBeginDebugUtilsLabelEXT",
                 "pp_CmdEndDebugUtilsLabelEXT"]
    recording = sum(incl.get(h, 0) for h in rec_hooks)
    recording_own = sum(own.get(h, 0) for h in rec_hooks)
    submit = sum(incl.get(h, 0) for h in ("pp_QueueSubmit", "pp_QueueSubmit2"))
    waits = sum(incl.get(h, 0) for h in ("pp_WaitForFences", "pp_ResetFences", "pp_GetFenceStatus"))
    # Everything the application's calls cost in passprobe (hooks only: what runs at exit,
    # the final report.json on the application's thread, is left out).
    hooks_all = sum(v for k, v in incl.items() if re.match(r"pp_[A-Z]", k))
    print("passprobe's own instructions, application thread, per frame of %d passes x %d draws "
          "(callgrind, steady state over %d frames; libc calls made by passprobe included, driver excluded):"
          % (passes, draws, frames))
    print("  draws: %.0f per frame, %.1f per draw" % (draw_cost, draw_cost / ndraws if ndraws else 0))
    print("  recording, pass boundaries (command buffer begin/end/reset, render pass begin/end, binds, labels): "
          "%.0f per frame, %.0f per pass (passprobe's functions alone, without libc: %.0f per pass)"
          % (recording, recording / passes, recording_own / passes))
    print("  vkQueueSubmit: %.0f per frame (%.0f per pass)" % (submit, submit / passes))
    print("  fence waits and resets (results harvested, frames assembled): %.0f per frame (%.0f per pass)"
          % (waits, waits / passes))
    print("  every hook, draws excluded: %.0f per frame (%.0f per pass)" % (hooks_all - draw_cost,
                                                                          (hooks_all - draw_cost) / passes))
    print("\nper hook (inclusive of what it calls in passprobe and libc; the driver excluded), per frame / per pass:")
    hooks = sorted((k for k in incl if re.match(r"pp_[A-Z]", k) and abs(incl[k]) >= 0.5), key=lambda k: -incl[k])
    for h in hooks:
        print("  %-40s %10.0f %8.0f   calls/frame %5.0f" % (h, incl[h], incl[h] / passes, calls.get(h, 0)))
    print_functions(flat, calls, passes, top)
    inj = diff(app_s["driver_calls"], app_l["driver_calls"], frames)
    # The driver's functions may have no names (a stripped driver): a hook's own calls down
    # are the application's commands, calls from passprobe's other functions are its own.
    forwarded = {k: v for k, v in inj.items() if re.match(r"pp_[A-Z]|.*_(slow|timed)$", k[0])}
    injected = {k: v for k, v in inj.items() if k not in forwarded}
    print("\ndriver instructions under passprobe per frame: forwarded %.0f, injected by passprobe %.0f (not ours)"
          % (sum(forwarded.values()), sum(injected.values())))
    for k in sorted(injected, key=lambda k: -injected[k])[:8]:
        if injected[k] >= 0.5:
            print("  %-40s -> %-36s %10.0f" % (k[0], k[1], injected[k]))
    wt = 0
    if ws is not None and wl is not None:
        w = diff(ws["flat"], wl["flat"], frames)
        wt = (wl["total"] - ws["total"]) / frames
        print("\nwriter thread (%s): %.0f instructions per frame in all, %.0f per pass" %
              (wl["path"].rsplit("-", 1)[1], wt, wt / passes))
        wi = diff(ws["incl"], wl["incl"], frames)
        print("  by output (inclusive):")
        for k in ("pp_attr_report_write", "pp_attr_trace_frame_write", "pp_attr_trace_cpu_event_write", "pp_attr_csv_frame_write",
                  "pp_attr_stats_frame_add", "pp_attr_report_window_push", "pp_attr_trace_flush", "pp_attr_csv_flush"):
            if k in wi:
                print("    %-38s %10.0f" % (k, wi[k]))
        print("  by function (own + libc):")
        for k in sorted(w, key=lambda k: -w[k])[:10]:
            if w[k] >= 0.5:
                print("    %-38s %10.0f" % (k, w[k]))
    print("\nRESULT per_pass_recording=%.0f per_pass_recording_own=%.0f per_pass_submit=%.0f per_pass_waits=%.0f "
          "per_pass_app=%.0f per_draw=%.1f writer_per_frame=%.0f" %
          (recording / passes, recording_own / passes, submit / passes, waits / passes,
           (hooks_all - draw_cost) / passes, draw_cost / ndraws if ndraws else 0, wt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
