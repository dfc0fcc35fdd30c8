#!/usr/bin/env python3
"""Checks of the reliability tests (tests/reliability/rel_tests.sh; docs/reliability.md).

    rel_check.py outputs DIR [--frames N | --min-frames N] [--passes P] [--draws D]
                 [--trace strict|repair|absent|skip] [--no-csv] [--gpu all|none|any]
                 [--reason TEXT] [--allow-dropped]
    rel_check.py stress DIR --recorders R --cbs C --passes P
    rel_check.py killed DIR
    rel_check.py spy-results ABOVE.jsonl BELOW.jsonl
    rel_check.py syscalls STRACE_PREFIX --out DIR
    rel_check.py valgrind LOG

Each prints what it checked and exits 1 with the reasons on failure."""
import argparse
import csv
import io
import json
import math
import os
import re
import sys

failures = []
passed = 0


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(msg)
        print("FAIL: " + msg)
    return cond


def finish(what):
    print("%s: %d passed, %d failed" % (what, passed, len(failures)))
    sys.exit(1 if failures else 0)


def strict_json(text):
    """json.loads, but NaN/Infinity are not JSON (RFC 8259)."""
    def bad_constant(c):
        raise ValueError("not JSON: " + c)
    return json.loads(text, parse_constant=bad_constant)


def load_report(d):
    path = os.path.join(d, "report.json")
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")  # strict: the file is UTF-8
    r = strict_json(text)
    check(r.get("schema") == "passprobe-report" and r.get("version") == 1,
          "report.json: schema/version %r/%r" % (r.get("schema"), r.get("version")))
    return r


def repair_trace(text):
    """docs/report-format.md, "Streaming and truncation": cut after the last newline, drop the
    trailing comma, close the array."""
    t = text[:text.rfind("\n") + 1].rstrip().rstrip(",")
    return t + "\n]"


def load_trace(d, mode):
    path = os.path.join(d, "trace.json")
    if mode == "absent":
        check(not os.path.exists(path), "trace.json exists but should not")
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if mode == "strict":
        try:
            events = strict_json(text)
        except ValueError as e:
            check(False, "trace.json is not strict JSON: %s" % e)
            return None
    else:
        try:
            events = strict_json(repair_trace(text))
        except ValueError as e:
            check(False, "trace.json does not parse after the documented repair: %s" % e)
            return None
    check(isinstance(events, list), "trace.json is a JSON array")
    for e in events:
        if not (isinstance(e, dict) and "ph" in e and "name" in e):
            check(False, "trace.json: malformed event %r" % (e,))
            return events
    if mode == "strict":
        check(events and events[-1].get("name") == "passprobe_trace_end",
              "trace.json ends with passprobe_trace_end (clean exit)")
    return events


def load_csv(d, require_complete=True):
    path = os.path.join(d, "passes.csv")
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if require_complete:
        check(text.endswith("\n"), "passes.csv ends with a complete line")
    else:
        text = text[:text.rfind("\n") + 1]
    rows = list(csv.reader(io.StringIO(text)))
    check(len(rows) >= 1, "passes.csv has a header")
    if not rows:
        return [], []
    header = rows[0]
    body = rows[1:]
    bad = [i for i, r in enumerate(body) if len(r) != len(header)]
    check(not bad, "passes.csv: every row has %d fields (rows %s do not)" % (len(header), bad[:5]))
    return header, body


def check_frames_consistent(r):
    """Structure every report must have, whatever the program did."""
    frames = r["frames"]
    win = r["frames_window"]
    check(win["count"] == len(frames), "frames_window.count %d = len(frames) %d" % (win["count"], len(frames)))
    check(r["frames_total"] >= len(frames), "frames_total >= len(frames)")
    prev = None
    for f in frames:
        if prev is not None and f["device"] == prev["device"]:
            if not check(f["index"] > prev["index"], "frame indices increase (%d after %d)" % (f["index"], prev["index"])):
                break
        prev = f
        subs = f["submissions"]
        passes = f["passes"]
        n = 0
        for i, s in enumerate(subs):
            if not check(s["first_pass"] == n, "frame %d submission %d first_pass %d, expected %d" % (f["index"], i, s["first_pass"], n)):
                return
            n += s["passes"]
        check(n == len(passes), "frame %d: submissions cover its %d passes" % (f["index"], len(passes)))
        for p in passes:
            if p["gpu_ns"] is None:
                if not check(isinstance(p.get("gpu_unavailable"), str) and p["gpu_unavailable"],
                             "frame %d pass %s: gpu_ns null without a reason" % (f["index"], p["name"])):
                    return
            else:
                if not check(p["gpu_ns"] == p["gpu_end_ns"] - p["gpu_begin_ns"] and p["gpu_ns"] > 0,
                             "frame %d pass %s: gpu_ns = end - begin > 0" % (f["index"], p["name"])):
                    return


def cmd_outputs(a):
    r = load_report(a.dir)
    frames = r["frames"]
    if a.allow_dropped:
        print("frames dropped: %d (the writer's bounded queue was full, or shutdown had begun)"
              % r["frames_dropped"])
    else:
        check(r["frames_dropped"] == 0, "no frame dropped (%d)" % r["frames_dropped"])
    if a.frames is not None:
        check(r["frames_total"] == a.frames and len(frames) == a.frames,
              "%d frames expected: frames_total %d, frames[] %d" % (a.frames, r["frames_total"], len(frames)))
    if a.min_frames is not None:
        # With --allow-dropped a frame is accounted for when it is reported or counted as
        # dropped: the writer's queue is bounded and never blocks the application, so a writer
        # slowed down (a sanitizer build on a loaded machine) drops and counts, as documented.
        accounted = r["frames_total"] + (r["frames_dropped"] if a.allow_dropped else 0)
        check(accounted >= a.min_frames and len(frames) == r["frames_total"],
              "at least %d frames accounted for, all reported ones in the window: frames_total %d, "
              "frames_dropped %d, frames[] %d"
              % (a.min_frames, r["frames_total"], r["frames_dropped"], len(frames)))
    check_frames_consistent(r)
    for f in frames:
        if a.passes is not None:
            names = [p["name"] for p in f["passes"]]
            check(names == ["pass%d" % i for i in range(a.passes)],
                  "frame %d: passes %s" % (f["index"], names))
        for p in f["passes"]:
            if a.draws is not None:
                check(p["draws"] == a.draws, "frame %d %s: %d draws, expected %d" % (f["index"], p["name"], p["draws"], a.draws))
            if a.gpu == "all":
                check(p["gpu_ns"] is not None, "frame %d %s: GPU time expected (%s)"
                      % (f["index"], p["name"], p.get("gpu_unavailable")))
            elif a.gpu == "none":
                check(p["gpu_ns"] is None, "frame %d %s: no GPU time expected" % (f["index"], p["name"]))
            if a.reason is not None and p["gpu_ns"] is None:
                check(a.reason in p.get("gpu_unavailable", ""),
                      "frame %d %s: reason %r contains %r" % (f["index"], p["name"], p.get("gpu_unavailable"), a.reason))
    ntotal = sum(len(f["passes"]) for f in frames)
    if a.trace != "skip":
        events = load_trace(a.dir, a.trace)
        if events is not None and a.trace == "strict":
            end = events[-1]
            check(end.get("args", {}).get("frames") == r["frames_total"],
                  "trace end counts %r frames, report %d" % (end.get("args", {}).get("frames"), r["frames_total"]))
    if a.csv:
        header, body = load_csv(a.dir)
        check(len(body) == ntotal, "passes.csv has %d rows, the report %d passes" % (len(body), ntotal))
    print("report: %d frames, %d passes" % (len(frames), ntotal))
    finish("outputs")


def stress_draws(t, c, p):
    """rel_app.c stress_draws()."""
    return 1 + (t * 3 + c * 5 + p) % 4


LABEL = re.compile(r"^t(\d+)\.c(\d+)\.p(\d+)$")


def cmd_stress(a):
    r = load_report(a.dir)
    R, C, P = a.recorders, a.cbs, a.passes
    frames = r["frames"]
    check(r["frames_dropped"] == 0, "no frame dropped (%d)" % r["frames_dropped"])
    check(r["frames_total"] == R * C and len(frames) == R * C,
          "one frame per command buffer: %d expected, frames_total %d, frames[] %d"
          % (R * C, r["frames_total"], len(frames)))
    check_frames_consistent(r)
    seen = {}
    mixed = 0
    wrong_draws = 0
    no_gpu = 0
    for f in frames:
        if not check(len(f["submissions"]) == 1, "frame %d: %d submissions, expected 1" % (f["index"], len(f["submissions"]))):
            continue
        tc = None
        handles = set()
        for i, p in enumerate(f["passes"]):
            m = LABEL.match(p["name"])
            if not check(m and p["name_source"] == "label", "frame %d: pass name %r (%s)" % (f["index"], p["name"], p["name_source"])):
                continue
            t, c, pi = (int(x) for x in m.groups())
            if tc is None:
                tc = (t, c)
            if (t, c) != tc or pi != i:
                mixed += 1
            handles.add(p["command_buffer_handle"])
            seen[p["name"]] = seen.get(p["name"], 0) + 1
            if p["draws"] != stress_draws(t, c, pi) or p["workload"]["draws"] != stress_draws(t, c, pi):
                wrong_draws += 1
            if p["gpu_ns"] is None:
                no_gpu += 1
        check(len(handles) == 1, "frame %d: passes from %d command buffer handles" % (f["index"], len(handles)))
    check(mixed == 0, "%d passes out of place: every frame holds one command buffer's passes p0..p%d in order" % (mixed, P - 1))
    check(wrong_draws == 0, "%d passes with a draw count other than their label's" % wrong_draws)
    check(no_gpu == 0, "%d passes without a GPU time" % no_gpu)
    expected = {"t%d.c%d.p%d" % (t, c, p) for t in range(R) for c in range(C) for p in range(P)}
    missing = expected - set(seen)
    extra = set(seen) - expected
    dup = [n for n, k in seen.items() if k != 1]
    check(not missing, "%d labels missing, e.g. %s" % (len(missing), sorted(missing)[:5]))
    check(not extra, "unexpected labels %s" % sorted(extra)[:5])
    check(not dup, "labels seen more than once: %s" % dup[:5])
    # passes.csv has every pass too, with the same draws.
    header, body = load_csv(a.dir)
    if header:
        ni, di = header.index("name"), header.index("draws")
        names = {}
        for row in body:
            m = LABEL.match(row[ni])
            if m:
                t, c, p = (int(x) for x in m.groups())
                check(int(row[di]) == stress_draws(t, c, p), "passes.csv %s: draws %s" % (row[ni], row[di]))
            names[row[ni]] = names.get(row[ni], 0) + 1
        check(set(names) == expected and all(v == 1 for v in names.values()),
              "passes.csv: every label exactly once (%d rows, %d names)" % (len(body), len(names)))
    load_trace(a.dir, "strict")
    print("stress: %d recorders x %d command buffers x %d passes = %d passes checked" % (R, C, P, len(seen)))
    finish("stress")


def cmd_killed(a):
    """What a killed process leaves is its recording, cut anywhere; `passprobe report` made the
    outputs from it: whole files, the report saying the process did not finish."""
    d = a.dir
    rp = os.path.join(d, "report.json")
    if os.path.exists(rp):
        r = load_report(d)
        check_frames_consistent(r)
        check(r["frames_total"] > 0, "report.json: no frame recorded before the kill")
        check("did not finish" in r["summary"].get("notes", ""),
              "report.json's notes do not say the process did not finish: %r" % r["summary"].get("notes"))
        print("report.json: %d frames, made from the recording" % r["frames_total"])
    else:
        check(False, "report.json missing: not made from the recording")
    leftovers = [n for n in os.listdir(d) if n.startswith("report.json.tmp")]
    print("temporary files left by the kill: %s" % (leftovers or "none"))
    events = load_trace(d, "strict")
    if events is not None:
        print("trace.json: %d events, strict JSON" % len(events))
    header, body = load_csv(d)
    print("passes.csv: %d rows" % len(body))
    finish("killed")


def spy_exit(path):
    lines = [json.loads(l) for l in open(path) if l.strip()]
    exits = [l for l in lines if l.get("event") == "exit"]
    check(len(exits) == 1, "%s: %d exit lines, expected 1" % (path, len(exits)))
    return exits[-1] if exits else {}


def cmd_spy_results(a):
    """Per function, the results the application got (spy above) against the driver's (spy
    below). Where both saw the same number of calls, passprobe made none of its own: the
    histograms must be identical. Where the driver saw more (passprobe's own query pools,
    result reads, result buffers), every result the application got must be one the driver
    returned at least as often: a result passprobe changed or made up still shows."""
    above = spy_exit(a.above).get("results", {})
    below = spy_exit(a.below).get("results", {})
    check(above, "the spy above recorded results")
    own = []
    for fn in sorted(set(above) | set(below)):
        ra, rb = above.get(fn, {}), below.get(fn, {})
        na, nb = sum(ra.values()), sum(rb.values())
        if na == nb:
            check(ra == rb, "%s: results above passprobe %s, below %s" % (fn, ra, rb))
        else:
            own.append("%s (%d more)" % (fn, nb - na))
            check(nb > na, "%s: the application got %d results, the driver returned only %d" % (fn, na, nb))
            check(all(rb.get(code, 0) >= n for code, n in ra.items()),
                  "%s: application results %s not all among the driver's %s" % (fn, ra, rb))
    print("results compared: %s" % ", ".join("%s %s" % (k, above[k]) for k in sorted(above)))
    print("functions passprobe also called itself: %s" % (", ".join(own) or "none"))
    finish("spy-results")


# strace -ff -y -e status=successful lines: "openat(3</dir>, "name", FLAGS, 0644) = 4</dir/name>"
SYSCALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<([^>]*)>)?")
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
# Opened for writing by glibc or the kernel interface, not by passprobe's outputs:
# pthread_setname_np writes /proc/self/task/<tid>/comm.
SYSTEM_PREFIXES = ("/proc/", "/dev/")


def inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def cmd_syscalls(a):
    import glob
    out = os.path.realpath(a.out)
    files = sorted(glob.glob(a.prefix + ".*"))
    check(files, "strace wrote %s.*" % a.prefix)
    created = []
    for path in files:
        for line in open(path, errors="replace"):
            m = SYSCALL.match(line.strip())
            if not m:
                continue
            call, args, _ret, retpath = m.groups()
            if call in ("openat", "open", "creat"):
                flags = re.findall(r"\bO_[A-Z]+\b", args)
                target = retpath or ""
                if "O_DIRECTORY" in flags:
                    if inside(target, out) or inside(out, target):
                        check("O_CLOEXEC" in flags, "directory %s opened without O_CLOEXEC: %s" % (target, line.strip()))
                    continue
                if call == "creat" or any(f in flags for f in WRITE_FLAGS):
                    if target.startswith(SYSTEM_PREFIXES):
                        continue
                    created.append(target)
                    if not check(inside(target, out), "opened for writing outside %s: %s" % (out, line.strip())):
                        continue
                    check("O_CLOEXEC" in flags and "O_NOFOLLOW" in flags,
                          "%s opened without O_CLOEXEC|O_NOFOLLOW: %s" % (target, line.strip()))
                    if ".tmp" in os.path.basename(target):
                        check("O_EXCL" in flags, "temporary %s opened without O_EXCL" % target)
                    mode = re.search(r",\s*(0[0-7]+)\)?\s*$", args)
                    check(mode and int(mode.group(1), 8) & 0o133 == 0,
                          "%s created with mode %s (0644 or stricter expected)" % (target, mode.group(1) if mode else "?"))
            elif call in ("mkdir", "mkdirat"):
                # mkdir -p of output_dir as given: each component made is on its way.
                target = re.findall(r'"([^"]*)"', args)
                dirpath = re.findall(r"<([^>]*)>", args)
                full = target[0] if target and target[0].startswith("/") else os.path.join(dirpath[0] if dirpath else "", target[0] if target else "")
                created.append(full + "/")
                check(inside(out, os.path.realpath(full)) or inside(os.path.realpath(full), out),
                      "directory made off the way to %s: %s" % (out, line.strip()))
            elif call in ("rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat",
                          "symlink", "symlinkat", "truncate", "chmod", "fchmodat", "chown", "fchownat"):
                paths = re.findall(r'<([^>]*)>,\s*"([^"]*)"', args) or [("", p) for p in re.findall(r'"([^"]*)"', args)]
                for d, n in paths:
                    full = n if n.startswith("/") else os.path.join(d, n)
                    check(inside(os.path.realpath(os.path.dirname(full)), out),
                          "%s outside %s: %s" % (call, out, line.strip()))
    names = sorted(set(os.path.relpath(c, out) if inside(c.rstrip("/"), out) else c for c in created))
    print("written under %s: %s" % (out, ", ".join(names)))
    finish("syscalls")


ALLOCATORS = re.compile(r"\b(malloc|calloc|realloc|memalign|posix_memalign|aligned_alloc|strdup|strndup|"
                        r"operator new(\[\])?|reallocarray)\b")


def cmd_valgrind(a):
    """Definitely lost blocks whose allocation site (the first frame below the allocator) is in
    passprobe's layer: must be none. The others (third-party, left by suppressions) are listed."""
    text = open(a.log, errors="replace").read()
    records = re.split(r"\n==\d+== \n", text)
    ours = theirs = 0
    for rec in records:
        if "definitely lost in loss record" not in rec:
            continue
        frames = re.findall(r"==\d+==\s+(?:at|by) 0x[0-9A-F]+: (.*)", rec)
        site = next((f for f in frames if not ALLOCATORS.search(f.split(" (")[0]) and "vgpreload" not in f), "?")
        head = rec.strip().splitlines()[0].split("== ", 1)[-1]
        if "libVkLayer_passprobe" in site:
            ours += 1
            print("passprobe leak: %s\n  allocated at %s" % (head, site))
            print("\n".join("    " + f for f in frames[:12]))
        else:
            theirs += 1
            print("not passprobe's: %s, allocated at %s" % (head, site))
    for line in re.findall(r"==\d+== +(definitely lost:.*|indirectly lost:.*|ERROR SUMMARY:.*)", text):
        print("valgrind: " + line)
    check(ours == 0, "%d definitely lost blocks allocated by passprobe" % ours)
    finish("valgrind")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("outputs")
    o.add_argument("dir")
    o.add_argument("--frames", type=int)
    o.add_argument("--min-frames", type=int)
    o.add_argument("--passes", type=int)
    o.add_argument("--draws", type=int)
    o.add_argument("--trace", default="strict", choices=["strict", "repair", "absent", "skip"])
    o.add_argument("--no-csv", dest="csv", action="store_false")
    o.add_argument("--gpu", default="any", choices=["all", "none", "any"])
    o.add_argument("--reason")
    o.add_argument("--allow-dropped", action="store_true")
    s = sub.add_parser("stress")
    s.add_argument("dir")
    s.add_argument("--recorders", type=int, required=True)
    s.add_argument("--cbs", type=int, required=True)
    s.add_argument("--passes", type=int, required=True)
    k = sub.add_parser("killed")
    k.add_argument("dir")
    sr = sub.add_parser("spy-results")
    sr.add_argument("above")
    sr.add_argument("below")
    vg = sub.add_parser("valgrind")
    vg.add_argument("log")
    sc = sub.add_parser("syscalls")
    sc.add_argument("prefix")
    sc.add_argument("--out", required=True)
    a = ap.parse_args()
    cmds = {"valgrind": cmd_valgrind, "syscalls": cmd_syscalls, "outputs": cmd_outputs, "stress": cmd_stress,
            "killed": cmd_killed, "spy-results": cmd_spy_results}
    try:
        cmds[a.cmd](a)
    except FileNotFoundError as e:  # an output (or log) a check needs is not there: a failure
        print("FAIL: %s is missing" % e.filename)
        sys.exit(1)


if __name__ == "__main__":
    main()
