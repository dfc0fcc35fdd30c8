#!/usr/bin/env python3
"""test_refuse.py PASSPROBE RUN_A RUN_B RUN_DEMO WORKDIR [RUN_GLES]

`passprobe renderdoc annotate` refuses a capture that is not of the run's frame, with one
message saying what did not match, exit status 1, and writes nothing. RUN_A and RUN_B are two
runs of the same program (vkcube, a capture each of the same frame), RUN_DEMO a run of
passprobe-demo. Cases:
  another run      RUN_A's capture against RUN_B (same program, same frame number, same shape)
  another frame    RUN_A's report claiming the demo's capture: 5 passes, not 1
  draws            the demo's report with one pass's draw count changed
  label            the demo's report with a labelled pass renamed
  no section       RUN_A's report without its renderdoc section
  OpenGL ES        RUN_GLES's capture (an OpenGL ES program's) against RUN_A (a Vulkan run:
                   no gles/report.json), annotated and replayed; and against its own report
                   with a pass's draw count changed
Exit 77 when python3-renderdoc is missing (annotate says so).
"""
import json
import os
import shutil
import sys

from rdoc_cli import passprobe_renderdoc

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def report_of(run):
    with open(os.path.join(run, "report.json")) as f:
        return json.load(f)


def run_copy(run, dest, edit):
    """A copy of run's report.json in dest/, changed by edit(report)."""
    os.makedirs(dest)
    report = report_of(run)
    edit(report)
    with open(os.path.join(dest, "report.json"), "w") as f:
        json.dump(report, f)
    return dest


def refused(passprobe, work, name, capture, run_dir, *phrases, command="annotate"):
    out = os.path.join(work, name + ".rdc")
    args = [capture, run_dir, "-o", out] if command == "annotate" else [capture, run_dir]
    r = passprobe_renderdoc(passprobe, command, args)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    print("%s: exit %d, stderr: %s" % (name, r.returncode, r.stderr.strip()))
    if r.returncode == 1 and "python3-renderdoc" in r.stderr:
        print("SKIP: not installed: RenderDoc's Python module (Debian: python3-renderdoc)")
        sys.exit(77)
    check(r.returncode == 1, "%s: refused with exit status 1" % name)
    check(len(lines) == 1 and lines[0].startswith("passprobe: "), "%s: one message" % name)
    for p in phrases:
        check(p in r.stderr, "%s: the message says %r" % (name, p))
    check(not os.path.exists(out), "%s: nothing written" % name)


def main():
    passprobe, run_a, run_b, run_demo, work = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cap_a = report_of(run_a)["renderdoc"]["captures"][0]["path"]
    entry_b = report_of(run_b)["renderdoc"]["captures"][0]
    demo = report_of(run_demo)["renderdoc"]["captures"][0]
    cap_demo = demo["path"]

    refused(passprobe, work, "another_run", cap_a, run_b, cap_a, "is not a capture of the run in " + run_b, entry_b["path"])

    def claim_demo(r):
        r["renderdoc"]["captures"][0]["path"] = cap_demo
    frame = run_copy(run_a, os.path.join(work, "another_frame"), claim_demo)
    apps = [p for p in demo["frame_data"]["passes"] if not p.get("recorded_by")]
    a_apps = [p for p in report_of(run_a)["renderdoc"]["captures"][0]["frame_data"]["passes"] if not p.get("recorded_by")]
    refused(passprobe, work, "another_frame", cap_demo, frame, "does not hold frame",
            "the capture has %d application passes (" % len(apps), "has %d application pass%s (%s)" % (len(a_apps), "" if len(a_apps) == 1 else "es", a_apps[0]["name"]))

    render = next(i for i, p in enumerate(demo["frame_data"]["passes"]) if p["kind"] == "render" and not p.get("recorded_by"))
    name = demo["frame_data"]["passes"][render]["name"]
    draws = demo["frame_data"]["passes"][render]["draws"]

    def fewer_draws(r):
        r["renderdoc"]["captures"][0]["frame_data"]["passes"][render]["draws"] = draws - 1
    d = run_copy(run_demo, os.path.join(work, "draws"), fewer_draws)
    refused(passprobe, work, "draws", cap_demo, d, "\"%s\") has %d draws in the run, %d in the capture" % (name, draws - 1, draws))

    def renamed(r):
        r["renderdoc"]["captures"][0]["frame_data"]["passes"][render]["name"] = name + "_renamed"
    d = run_copy(run_demo, os.path.join(work, "label"), renamed)
    refused(passprobe, work, "label", cap_demo, d, "is \"%s_renamed\" in the run, labelled \"%s\" in the capture" % (name, name))

    def no_section(r):
        del r["renderdoc"]
    d = run_copy(run_a, os.path.join(work, "no_section"), no_section)
    refused(passprobe, work, "no_section", cap_a, d, "has no renderdoc section")

    if len(sys.argv) > 6:
        # An OpenGL ES program's capture belongs with its run's gles/report.json: not with a
        # Vulkan run's report, and not with a report whose frame the passes do not match.
        gles = os.path.join(sys.argv[6], "gles")
        gentry = report_of(gles)["renderdoc"]["captures"][0]
        cap_gles = gentry["path"]
        for command in ("annotate", "replay"):
            refused(passprobe, work, "gles_with_vulkan_run_" + command, cap_gles, run_a,
                    "is an OpenGL ES capture, and %s/report.json is the report of a run of Vulkan" % run_a, command=command)
        first = next(i for i, p in enumerate(gentry["frame_data"]["passes"]) if p["kind"] == "render")
        gname = gentry["frame_data"]["passes"][first]["name"]
        gdraws = gentry["frame_data"]["passes"][first]["draws"]

        def gles_more_draws(r):
            r["renderdoc"]["captures"][0]["frame_data"]["passes"][first]["draws"] = gdraws + 1
        d = run_copy(gles, os.path.join(work, "gles_draws"), gles_more_draws)
        refused(passprobe, work, "gles_draws", cap_gles, d,
                "\"%s\") has %d draws in the run, %d in the capture" % (gname, gdraws + 1, gdraws))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
