#!/usr/bin/env python3
"""Checks the GLES shim's report.json (DIR/gles/report.json) against what a program says it
did. docs/gles.md; tests/gles/CMakeLists.txt runs it.

  check_gles_report.py DIR [--expect FILE] [--devices N] [--min-frames N] [--frames N]
                       [--delimiter D] [--gpu-order NAME>NAME>...] [--timed-percent P]
                       [--min-draws N] [--min-passes N] [--max-passes N] [--no-drops]
                       [--no-finding ID]... [--findings SPEC|...|SPEC]
                       [--swap eglSwapBuffers|glXSwapBuffers]
                       [--process NAME] [--default-fb WxH] [--skip-frames N]
                       [--recorded-by LIB|none]

--expect FILE: the `expect` lines of pp_gles_demo --expect: every frame of every device has
  exactly those passes, in that order, with that name (name_source label, or source=), draws, instances,
  vertices, indices, dispatches, barriers, a CLEAR load where clear=1 and none where clear=0,
  a DONT_CARE store where invalidate=1 and none where invalidate=0, and the first
  attachment's width=, height= and format= where given.
--gpu-order: median GPU time of the named passes strictly decreasing in that order.
--max-passes: no frame has more passes (frames end where the program's frames do).
--skip-frames N: --min-passes, --max-passes, --min-draws and --expect leave out each device's
  first N frames (a program's start-up: GStreamer's sink swaps before its first buffer).
--no-drops: no frame was dropped by the writer.
--no-finding ID: report.json has no diagnostic ID (repeatable).
--findings: report.json's diagnostics are exactly these (a real program's pinned findings,
  docs/diagnostics.md "On real programs"): SPEC is ID:SEVERITY[@TEXT] or the list is "none"
  (tests/thirdparty/findings.py).
--swap: every frame ends at a submission of that swap call, and every device's notes say
  the context came through that window system ("OpenGL ES through EGL/GLX").
--process NAME: check the report of the program's other process NAME instead, in its own
  folder DIR/gles/NAME.<pid> (a process that found the output directory taken by another).
--default-fb WxH: every pass on the default framebuffer has a first attachment of that size
  and a known format (from the context's config, or its surface's for a context made
  without one).
--timed-percent: at least that share of passes (all frames but the last of each device)
  has a GPU time; the rest say why not.
--recorded-by LIB: some pass is another library's own work (RenderDoc's overlay: recorded_by
  LIB), and every such pass is LIB's; none: no pass is. Passes marked recorded_by are never the
  application's: --expect, --min/--max-passes and --min-draws count the others.
Always: within a submission, each pass's CPU span begins where the previous pass's ended
  (docs/gles.md, "CPU counters"); an llvmpipe device with timestamps has a gpu_time_caveat
  (per-tile timestamps, docs/gles.md "GPU time") that the summary's notes repeat when some
  frame has GPU times, and no other device has one;
  no two generated pass names (render#N...) repeat within a frame (N counts the frame's
  passes over all its submissions); the summary's device list holds whole
  device names, in order, then "and N more device(s)" for the rest; a diagnostic that names
  a pass (site 'pass "NAME"') names one its device's frames list.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "thirdparty"))
import findings  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def read_expect(path):
    passes, threads = [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[0] == "expect" and w[1] == "pass":
                kv = dict(x.split("=", 1) for x in w[4:] if "=" in x)
                passes.append((int(w[2]), w[3], kv))
            elif len(w) >= 3 and w[0] == "expect" and w[1] == "thread":
                threads.append(dict(x.split("=", 1) for x in w[3:] if "=" in x))
    return passes, threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--expect")
    ap.add_argument("--devices", type=int)
    ap.add_argument("--min-frames", type=int, default=1)
    ap.add_argument("--frames", type=int)
    ap.add_argument("--delimiter")
    ap.add_argument("--gpu-order")
    ap.add_argument("--timed-percent", type=float)
    ap.add_argument("--min-draws", type=int)
    ap.add_argument("--min-passes", type=int)
    ap.add_argument("--skip-frames", type=int, default=0)
    ap.add_argument("--max-passes", type=int)
    ap.add_argument("--no-drops", action="store_true")
    ap.add_argument("--no-finding", action="append", default=[])
    ap.add_argument("--findings")
    ap.add_argument("--swap", choices=["eglSwapBuffers", "glXSwapBuffers"])
    ap.add_argument("--process")
    ap.add_argument("--default-fb")
    ap.add_argument("--recorded-by")
    a = ap.parse_args()
    path = os.path.join(a.dir, "gles", "report.json")
    if a.process:
        # another process of the program: its own folder, DIR/gles/NAME.PID
        subs = glob.glob(os.path.join(a.dir, "gles", glob.escape(a.process) + ".[0-9]*", "report.json"))
        if len(subs) != 1:
            print(f"FAIL: {len(subs)} reports of process {a.process} in {a.dir}/gles, expected 1: {subs}")
            return 1
        path = subs[0]
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"FAIL: {path}: {e}")
        return 1
    for d in r["devices"]:
        caveat = d.get("gpu_time_caveat", "missing")
        if "llvmpipe" in d["name"] and d["timestamp_valid_bits"]:
            if not isinstance(caveat, str) or "tile" not in caveat:
                fail(f"device {d['id']} ({d['name']}): gpu_time_caveat {caveat!r}, expected llvmpipe's per-tile caveat")
            elif (caveat in r["summary"]["notes"]) != bool(r["summary"].get("frames_gpu_timed", r["summary"]["frames"])):
                fail(f"summary notes {r['summary']['notes']!r}: device {d['id']}'s gpu_time_caveat should be there "
                     "exactly when some frame has GPU times")
        elif caveat is not None:
            fail(f"device {d['id']} ({d['name']}): gpu_time_caveat {caveat!r}, expected null")
        system = "OpenGL ES through " + ("GLX" if a.swap == "glXSwapBuffers" else "EGL")
        if a.swap and d["timestamp_valid_bits"] and system not in (d.get("notes") or ""):
            fail(f"device {d['id']} ({d['name']}): notes {d.get('notes')!r} do not say {system!r}")
    names = [d["name"] for d in r["devices"]]
    listed = r["summary"]["device"].split("; ") if r["summary"]["device"] else []
    more = 0
    if listed and listed[-1].startswith("and "):
        w = listed.pop().split()
        more = int(w[1]) if len(w) == 4 and w[1].isdigit() and w[2:] == ["more", "device" + ("s" if w[1] != "1" else "")] else -1
    if listed != names[:len(listed)] or len(listed) + more != len(names) or more < 0:
        fail(f"summary device {r['summary']['device']!r} is not the whole names of {names} in order")
    frames = r["frames"]
    by_dev = {}
    for f in frames:
        by_dev.setdefault(f["device"], []).append(f)
    # a device whose only frame was closed at exit holds what a context did before it went
    # (set-up, a probe): not a device that rendered frames
    by_dev = {d: fs for d, fs in by_dev.items() if any(f["delimiter"] != "shutdown" for f in fs)}
    if a.devices is not None and len(by_dev) != a.devices:
        fail(f"{len(by_dev)} devices with frames, expected {a.devices}")
    if a.no_drops and r.get("frames_dropped"):
        fail(f"{r['frames_dropped']} frames dropped")
    expect, thread_expect = read_expect(a.expect) if a.expect else (None, [])
    thread_devices = 0
    timed = untimed = 0
    gpu = {}
    for dev, fs in sorted(by_dev.items()):
        fs.sort(key=lambda f: f["index"])
        # the last frame of a device may be closed at shutdown, or still unread when it ended
        complete = [f for f in fs if f["delimiter"] != "shutdown"]
        if len(complete) < a.min_frames:
            fail(f"device {dev}: {len(complete)} frames, expected at least {a.min_frames}")
        if a.frames is not None and len(complete) != a.frames:
            fail(f"device {dev}: {len(complete)} frames, expected {a.frames}")
        for fi, f in enumerate(complete):
            if a.delimiter and f["delimiter"] != a.delimiter:
                fail(f"device {dev} frame {f['index']}: delimiter {f['delimiter']}, expected {a.delimiter}")
            for p in f["passes"]:
                if a.default_fb and p["api"] == "default framebuffer":
                    first = p["attachments"][0] if p["attachments"] else {}
                    if f"{first.get('width')}x{first.get('height')}" != a.default_fb or \
                            first.get("format") in (None, "unknown"):
                        fail(f"device {dev} frame {f['index']} pass {p['name']}: default framebuffer "
                             f"{p['attachments']}, expected a known format of {a.default_fb}")
            generated = [p["name"] for p in f["passes"] if p["name_source"] == "generated"]
            if len(set(generated)) != len(generated):
                fail(f"device {dev} frame {f['index']}: generated pass names repeat: {generated}")
            if a.swap and (not f["submissions"] or f["submissions"][-1]["api"] != a.swap):
                fail(f"device {dev} frame {f['index']}: does not end at {a.swap}: "
                     f"{[s['api'] for s in f['submissions']]}")
            ps = [p for p in f["passes"] if not p.get("recorded_by")]
            if fi < a.skip_frames:
                continue  # start-up frames: the per-frame pass and draw counts below do not apply
            if a.min_passes is not None and len(ps) < a.min_passes:
                fail(f"device {dev} frame {f['index']}: {len(ps)} passes, expected at least {a.min_passes}")
            if a.max_passes is not None and len(ps) > a.max_passes:
                fail(f"device {dev} frame {f['index']}: {len(ps)} passes, expected at most {a.max_passes}")
            if a.min_draws is not None and sum(p["draws"] for p in ps) < a.min_draws:
                fail(f"device {dev} frame {f['index']}: fewer than {a.min_draws} draws")
            if expect is not None and thread_expect and \
                    [p["name"] for p in complete[0]["passes"] if not p.get("recorded_by")] != [e[1] for e in expect]:
                # a thread of the demo's own (expect thread ... passes=N draws=N)
                te = thread_expect[0]
                if f is complete[0]:
                    thread_devices += 1
                if len(ps) != int(te["passes"]) or sum(p["draws"] for p in ps) != int(te["draws"]):
                    fail(f"device {dev} frame {f['index']}: {len(ps)} passes, {sum(p['draws'] for p in ps)} draws; "
                         f"a thread's frame has {te['passes']} passes, {te['draws']} draws")
            elif expect is not None:
                if len(ps) != len(expect):
                    fail(f"device {dev} frame {f['index']}: {len(ps)} passes {[p['name'] for p in ps]}, "
                         f"expected {len(expect)}")
                    continue
                for (i, name, kv), p in zip(expect, ps):
                    wl = p["workload"]
                    where = f"device {dev} frame {f['index']} pass {i}"
                    source = kv.get("source", "label")
                    if p["name"] != name or p["name_source"] != source:
                        fail(f"{where}: name {p['name']} ({p['name_source']}), expected {name} ({source})")
                    got = {"draws": p["draws"], "instances": wl["instances"], "vertices": wl["vertices"],
                           "indices": wl["indices"], "dispatches": wl["dispatches"] + wl["dispatches_indirect"],
                           "barriers": wl["barriers"], "workgroups": wl["workgroups"],
                           "draws_indexed": wl["draws_indexed"], "draws_arrays": wl["draws"]}
                    for k, v in got.items():
                        if k in kv and int(kv[k]) != v:
                            fail(f"{where} ({name}): {k}={v}, expected {kv[k]}")
                    loads = [x["load_op"] for x in p["attachments"]]
                    stores = [x["store_op"] for x in p["attachments"]]
                    if "clear" in kv and ("CLEAR" in loads) != (kv["clear"] == "1"):
                        fail(f"{where} ({name}): loads {loads}, clear={kv['clear']}")
                    if "invalidate" in kv and ("DONT_CARE" in stores) != (kv["invalidate"] == "1"):
                        fail(f"{where} ({name}): stores {stores}, invalidate={kv['invalidate']}")
                    first = p["attachments"][0] if p["attachments"] else {}
                    for k in ("width", "height", "format"):
                        if k in kv and str(first.get(k)) != kv[k]:
                            fail(f"{where} ({name}): first attachment {k} {first.get(k)}, expected {kv[k]}")
                    if p["kind"] != ("render" if p["draws"] else "compute"):
                        fail(f"{where} ({name}): kind {p['kind']}")
        for f in complete:
            for prev, p in zip(f["passes"], f["passes"][1:]):
                a_cpu, b_cpu = prev.get("cpu"), p.get("cpu")
                if not a_cpu or not b_cpu or prev.get("submission") != p.get("submission"):
                    continue
                if b_cpu["begin_ns"] != a_cpu["begin_ns"] + a_cpu["wall_ns"]:
                    fail(f"device {dev} frame {f['index']} pass {p['name']}: CPU span begins at "
                         f"{b_cpu['begin_ns']}, not where {prev['name']}'s ended "
                         f"({a_cpu['begin_ns'] + a_cpu['wall_ns']})")
        for f in complete[:-1]:
            for p in f["passes"]:
                if p.get("gpu_ns") is not None:
                    timed += 1
                    gpu.setdefault(p["name"], []).append(p["gpu_ns"])
                else:
                    untimed += 1
                    if not p.get("gpu_unavailable"):
                        fail(f"device {dev} frame {f['index']} pass {p['name']}: no GPU time and no reason")
    others = {p["recorded_by"] for f in frames for p in f["passes"] if p.get("recorded_by")}
    if a.recorded_by == "none" and others:
        fail(f"passes recorded by {sorted(others)}, expected none")
    elif a.recorded_by and a.recorded_by != "none" and others != {a.recorded_by}:
        fail(f"passes recorded by {sorted(others)}, expected {a.recorded_by}'s")
    if thread_devices != len(thread_expect):
        fail(f"{thread_devices} devices look like the program's threads, expected {len(thread_expect)}")
    if a.timed_percent is not None:
        total = timed + untimed
        share = 100.0 * timed / total if total else 0
        if share < a.timed_percent:
            fail(f"{share:.1f}% of passes timed ({timed}/{total}), expected at least {a.timed_percent}%")
    if a.gpu_order:
        names = a.gpu_order.split(">")
        med = {n: statistics.median(gpu[n]) for n in names if gpu.get(n)}
        missing = [n for n in names if n not in med]
        if missing:
            fail(f"no GPU times for {missing}")
        else:
            print("median GPU ns: " + ", ".join(f"{n}={med[n]:.0f}" for n in names))
            for x, y in zip(names, names[1:]):
                if not med[x] > med[y]:
                    fail(f"GPU time of {x} ({med[x]:.0f} ns) not above {y} ({med[y]:.0f} ns)")
    for d in r.get("diagnostics", []):
        if d["id"] in a.no_finding:
            fail(f"{d['id']} at {d.get('site')}: {d.get('message', '')[-160:]}")
        m = re.search(r'pass "([^"]*)"', d.get("site", ""))
        listed = {p["name"] for f in frames if f["device"] == d["device"] for p in f["passes"]}
        if m and listed and m.group(1) not in listed:
            fail(f"{d['id']} names pass \"{m.group(1)}\", which device {d['device']}'s frames do not list "
                 f"({sorted(listed)[:8]})")
    if a.findings:
        for e in findings.check(r.get("diagnostics", []), a.findings):
            fail(e)
    n = sum(len(fs) for fs in by_dev.values())
    if failures:
        print(f"{len(failures)} problems in {path}")
        return 1
    print(f"{path}: {n} frames on {len(by_dev)} devices as expected ({timed} passes timed, {untimed} not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
