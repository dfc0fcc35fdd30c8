#!/usr/bin/env python3
"""test_replay_order.py PASSPROBE RUN_DEMO ORDER

`passprobe renderdoc replay`: RenderDoc's replay times each action of the captured frame
(EventGPUDuration); summed per pass they must rank the passes as passprobe's live times of the
same frame do. RUN_DEMO is a run of passprobe-demo whose --load makes the passes differ clearly
in GPU cost, in the order ORDER (comma-separated, most expensive first): the test first checks
that the live times have that order (else the workload did not do what it is for), then that
the replay's agree. Timing decides nothing else: the ratio is printed, not checked.
Exit 77 when python3-renderdoc is missing.
"""
import json
import subprocess
import sys


def main():
    passprobe, run, order = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    with open(run + "/report.json") as f:
        capture = json.load(f)["renderdoc"]["captures"][0]["path"]
    r = subprocess.run([passprobe, "renderdoc", "replay", capture, "--json", "--repeat", "3"],
                       capture_output=True, text=True)
    if r.returncode == 1 and "python3-renderdoc" in r.stderr:
        print("SKIP: not installed: RenderDoc's Python module (Debian: python3-renderdoc)")
        return 77
    if r.returncode != 0:
        print("FAIL: passprobe renderdoc replay exited %d: %s" % (r.returncode, r.stderr))
        return 1
    res = json.loads(r.stdout)
    print("%-12s %-8s %7s %14s %14s %8s" % ("pass", "kind", "EIDs", "live ns", "replay ns", "ratio"))
    for p in res["passes"]:
        print("%-12s %-8s %7s %14s %14.0f %8s" % (p["name"], p["kind"], "%d-%d" % (p["eid"], p["last_eid"]),
                                                p["live_ns"], p["replay_ns"],
                                                "%.2f" % p["ratio"] if p["ratio"] else "n/a"))
    print("live:   " + " > ".join(res["live_order"]))
    print("replay: " + " > ".join(res["replay_order"]))
    ok = True
    if res["live_order"] != order:
        print("FAIL: the live times are not in the order the workload is made for (%s)" % " > ".join(order))
        ok = False
    if not all(p["replay_ns"] > 0 for p in res["passes"]):
        print("FAIL: a pass has no replay time")
        ok = False
    if res["replay_order"] != res["live_order"] or not res["order_agrees"]:
        print("FAIL: RenderDoc's replay ranks the passes differently")
        ok = False
    if ok:
        print("ok: replay and live rank the %d passes alike" % len(res["passes"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
