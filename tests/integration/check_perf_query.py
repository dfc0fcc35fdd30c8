#!/usr/bin/env python3
"""Checks passprobe's VK_KHR_performance_query backend against the test spy layer below it,
which emulates the extension on lavapipe (tests/layers/spy/spy_perf_query.c): its counters
count the draws, vertices (vkCmdDraw) and indices (vkCmdDrawIndexed) it saw between each
query's begin and end, so every value must equal the workload passprobe recorded for the pass.

Usage: check_perf_query.py WORKDIR --frames N --passes P --groups G --groups-of NAME=g,...
                           [--log-has TEXT]...
  G: hardware passes the chosen set needs; counter i of the spy is in group (its index % the
  spy's pass count). --groups-of NAME=g,... gives each chosen counter's group in passprobe's
  first-fit order. Frame f measures group f % G directly; the other groups' values come from
  the latest earlier frame (its index in "frame"), and are unavailable with the reason in
  frame 0. --log-has: a text the application's log (passprobe's messages) must contain.
Exit status 0 when every check holds, 1 otherwise (each failure printed)."""
import json
import os
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def main():
    args = sys.argv[1:]
    work = args[0]
    opts = {}
    log_has = []
    i = 1
    while i < len(args):
        if args[i] == "--log-has":
            log_has.append(args[i + 1])
        else:
            opts[args[i].lstrip("-")] = args[i + 1]
        i += 2
    frames = int(opts["frames"])
    passes = int(opts["passes"])
    groups = int(opts["groups"])
    group_of = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in opts["groups-of"].split(","))
    names = list(group_of.keys())

    log = open(os.path.join(work, "app.log"), encoding="utf-8", errors="replace").read()
    if "spy perf error" in log:
        fail("the spy saw misuse of VK_KHR_performance_query: " +
             "; ".join(l for l in log.splitlines() if "spy perf error" in l))
    for text in log_has:
        if text not in log:
            fail("the log does not say %r" % text)
    want_info = "%d counters in %d hardware passes" % (len(names), groups)
    if want_info not in log:
        fail("the log does not say '%s'" % want_info)

    report = json.load(open(os.path.join(work, "out", "report.json")))
    fr = report["frames"]
    if len(fr) != frames:
        fail("%d frames, expected %d" % (len(fr), frames))
    expected = {
        "draws": lambda p: p["draws"],
        "vertices": lambda p: p["workload"]["vertices"],
        "indices": lambda p: p["workload"]["indices"],
    }
    measured_direct = 0
    for f in fr:
        idx = f["index"]
        if len(f["passes"]) != passes:
            fail("frame %d: %d passes, expected %d" % (idx, len(f["passes"]), passes))
        for p in f["passes"]:
            what = "frame %d pass %s" % (idx, p["name"])
            got = dict((c["name"], c) for c in p["gpu_counters"] if c["source"] == "VK_KHR_performance_query")
            if sorted(got) != sorted(names):
                fail("%s: counters %s, expected %s" % (what, sorted(got), sorted(names)))
                continue
            for name in names:
                c = got[name]
                if c["unit"] != "count":
                    fail("%s: %s unit %r" % (what, name, c["unit"]))
                direct = group_of[name] == idx % groups
                if direct:
                    if "frame" in c or c["value"] is None:
                        fail("%s: %s should be measured in this frame: %s" % (what, name, c))
                        continue
                    measured_direct += 1
                else:
                    before = [g for g in range(idx) if g % groups == group_of[name]]
                    if not before:
                        if c["value"] is not None or "another hardware pass" not in c.get("unavailable", ""):
                            fail("%s: %s never measured before: expected null with the reason, got %s" %
                                 (what, name, c))
                        continue
                    if c.get("frame") != max(before):
                        fail("%s: %s should come from frame %d: %s" % (what, name, max(before), c))
                if c["value"] != expected[name](p):
                    fail("%s: %s = %s, the pass recorded %s" % (what, name, c["value"], expected[name](p)))
    if measured_direct == 0:
        fail("no value measured at all")

    csv = open(os.path.join(work, "out", "passes.csv")).read().splitlines()
    if not csv[0].endswith(",gpu_counters,recorded_by"):
        fail("passes.csv: no gpu_counters column (before recorded_by, the last)")
    if not any("VK_KHR_performance_query/%s=" % names[0] in l for l in csv[1:]):
        fail("passes.csv: no %s values" % names[0])

    trace = open(os.path.join(work, "out", "trace.json")).read()
    track = "gpu VK_KHR_performance_query/%s (count)" % names[0]
    if track not in trace:
        fail("trace.json: no counter track %r" % track)

    print("%s: %d checks failed" % (work, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
