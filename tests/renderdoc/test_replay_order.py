#!/usr/bin/env python3
"""test_replay_order.py PASSPROBE RUN_DEMO [--no-ranking]

`passprobe renderdoc replay`: RenderDoc's replay times each action of the captured frame
(EventGPUDuration); summed per pass, they must rank the passes as passprobe's live times of the
same frame do. RUN_DEMO is a run of passprobe-demo (or of the OpenGL ES demo: RUN_DEMO/gles)
whose --load makes the passes differ clearly in GPU cost. On lavapipe a GPU time is CPU time of
its rasteriser threads, so on a loaded machine two passes of similar cost can swap places from
one frame to the next: the ranking is asserted for every pair of passes whose live times
differ by PAIR_RATIO or more (on an idle machine, all ten pairs of the demo's five passes), and
the test is skipped when fewer than MIN_PAIRS pairs are that far apart (the frame was too
disturbed to rank). Nothing else about the times is checked: the ratio is printed.
With --no-ranking only what is not timing is asserted: every application pass of the frame has
a live time and a replay time above 0 (the OpenGL ES demo: passes of 1 to 130 ms, whose smaller
ones a loaded 2-core machine reorders live by preempting llvmpipe's threads for longer than
they take).
Exit 77 when python3-renderdoc is missing.
"""
import itertools
import json
import os
import sys

from rdoc_cli import passprobe_renderdoc

PAIR_RATIO = 2.0
MIN_PAIRS = 4


def main():
    passprobe, run = sys.argv[1], sys.argv[2]
    path = run + "/report.json"
    if not os.path.isfile(path):
        path = run + "/gles/report.json"  # an OpenGL ES program's run
    with open(path) as f:
        entry = json.load(f)["renderdoc"]["captures"][0]
    capture = entry["path"]
    napp = sum(1 for p in entry["frame_data"]["passes"] if not p.get("recorded_by"))
    r = passprobe_renderdoc(passprobe, "replay", [capture, "--json", "--repeat", "3"])
    if r.returncode == 1 and "python3-renderdoc" in r.stderr:
        print("SKIP: not installed: RenderDoc's Python module (Debian: python3-renderdoc)")
        return 77
    if r.returncode != 0:
        print("FAIL: passprobe renderdoc replay exited %d: %s" % (r.returncode, r.stderr))
        return 1
    res = json.loads(r.stdout)
    passes = res["passes"]
    print("%-12s %-8s %7s %14s %14s %8s" % ("pass", "kind", "EIDs", "live ns", "replay ns", "ratio"))
    for p in passes:
        print("%-12s %-8s %7s %14s %14.0f %8s" % (p["name"], p["kind"], "%d-%d" % (p["eid"], p["last_eid"]),
                                                p["live_ns"], p["replay_ns"],
                                                "%.2f" % p["ratio"] if p["ratio"] else "n/a"))
    print("live:   " + " > ".join(res["live_order"]))
    print("replay: " + " > ".join(res["replay_order"]) + (" (the same)" if res["order_agrees"] else ""))
    if len(passes) != napp or any(p["live_ns"] is None or not p["replay_ns"] > 0 for p in passes):
        print("FAIL: expected the frame's %d application passes, each with a live and a replay time" % napp)
        return 1
    clear, wrong = 0, []
    for a, b in itertools.combinations(passes, 2):
        hi, lo = (a, b) if a["live_ns"] >= b["live_ns"] else (b, a)
        if hi["live_ns"] < PAIR_RATIO * lo["live_ns"]:
            continue
        clear += 1
        if not hi["replay_ns"] > lo["replay_ns"]:
            wrong.append("%s > %s live (%.1fx), not in the replay" % (hi["name"], lo["name"],
                                                                      hi["live_ns"] / lo["live_ns"]))
    if "--no-ranking" in sys.argv:
        print("ok: %d passes, each with a live and a replay time (ranking not asserted%s)" % (
            len(passes), "; differs: " + "; ".join(wrong) if wrong else ""))
        return 0
    if wrong:
        print("FAIL: RenderDoc's replay ranks these passes differently: " + "; ".join(wrong))
        return 1
    if clear < MIN_PAIRS:
        print("SKIP: only %d pairs of passes are %.0fx apart in the captured frame's live times "
              "(at least %d needed to rank): the frame was disturbed (a loaded machine)" % (clear, PAIR_RATIO, MIN_PAIRS))
        return 77
    print("ok: the replay ranks all %d pairs of passes %.0fx or more apart live as the live times do" % (clear, PAIR_RATIO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
