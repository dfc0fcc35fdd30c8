#!/usr/bin/env python3
"""Checks the outputs of a run with experiment=barrier-fixes (docs/diagnostics.md, "Experiment
mode"). The run's directory holds out/ (report.json made from the recording, trace.json) and
process-report.json (the process's own report.json, kept by run_app.sh).

  check_experiment.py demo-misuse WORK     passprobe-demo --misuse-barriers
  check_experiment.py redundant WORK      pp_diagapp --case redundant (the saving is printed,
                                           a figure; never checked)
  check_experiment.py none WORK            a program whose barriers have no fix: no experiment
  check_experiment.py out WORK ID REGEX    the site of ID is not in the experiment, for REGEX

Exit 0 when every check holds; each failure is one line."""
import json
import os
import re
import sys

FAILS = []
VERDICTS = ("saving", "no measurable effect on this device", "slower with the fix",
            "mixed: faster in one measure, slower in another",
            "not judged: too few frames in an arm (8 of each needed)")


def check(what, cond, detail=None):
    if not cond:
        FAILS.append(what + ("" if detail is None else f": {detail}"))
    return cond


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def site(report, ident):
    found = [d for d in report["diagnostics"] if d.get("id") == ident]
    check(f"{ident}: one site", len(found) == 1, [d.get("site") for d in found])
    return found[0] if found else {}


def check_in(d, fix_pattern):
    e = d.get("experiment") or {}
    ident = d.get("id")
    check(f"{ident}: in the experiment", e.get("state") == "in", e)
    check(f"{ident}: its fix", re.search(fix_pattern, e.get("fix") or ""), e.get("fix"))
    check(f"{ident}: rewritten", (e.get("rewritten") or 0) > 0, e.get("rewritten"))
    arms = e.get("arms") or {}
    for arm in ("as_written", "fixed"):
        a = arms.get(arm) or {}
        check(f"{ident}: frames of the {arm} arm", (a.get("frames") or 0) >= 4, a)
        for m in ("frame_gpu_ns", "passes_gpu_ns", "cpu_record_ns"):
            s = a.get(m)
            check(f"{ident}: {arm} {m} measured", s and s["p25"] <= s["p50"] <= s["p75"], s)
    for m, s in (e.get("saving") or {}).items():
        check(f"{ident}: {m} judged", s.get("verdict") in ("saving", "slower", "within noise"), s)
    check(f"{ident}: verdict", e.get("verdict") in VERDICTS, e.get("verdict"))
    return e


def frames_of(report):
    return report.get("frames") or []


def check_summary(report, sites):
    """Frames passprobe rewrote stay out of the statistics: the summary's frames are the others,
    every pass (one instance a frame) is counted in those only, and the experiment's lines name
    the sites."""
    frames = frames_of(report)
    plain = [f for f in frames if not f.get("experiment_modified")]
    modified = len(frames) - len(plain)
    s = report["summary"]
    check("some frames rewritten", modified > 0, modified)
    check("summary: the frames without fixes", s["frames"] == len(plain), (s["frames"], len(plain), len(frames)))
    for row in s.get("passes") or []:
        check(f"summary: pass {row['name']} counted in those frames", row["count"] == len(plain),
              (row["count"], len(plain)))
    check("summary note", f"{modified} frames with passprobe's experiment fixes left out" in s.get("notes", ""),
          s.get("notes"))
    lines = s.get("experiment") or []
    for ident in sites:
        check(f"summary: a line for {ident}", any(l.startswith(ident) for l in lines), lines)


def check_arms(report, nsites):
    """The arms alternate in blocks of 4 frames by index; a fixed frame rewrites one site, the
    same in all of its block; the sites take the fixed blocks in turn."""
    blocks = {}
    for f in frames_of(report):
        arm = f.get("experiment_arm")
        if arm is None:
            continue
        block = f["index"] // 4
        if arm == "fixed":
            check(f"frame {f['index']}: fixed only in odd blocks", block % 2 == 1, f["index"])
            check(f"frame {f['index']}: one site", len(f.get("experiment_sites") or []) == 1, f.get("experiment_sites"))
            check(f"frame {f['index']}: rewritten", f.get("experiment_modified") is True)
            blocks.setdefault(block, set()).update(f.get("experiment_sites") or [])
        elif arm == "as-written":
            check(f"frame {f['index']}: as written, not rewritten", not f.get("experiment_modified"))
    fixed = sorted(blocks)
    check("fixed blocks", len(fixed) >= 2 * nsites, fixed)
    for b in fixed:
        check(f"block {b}: one site", len(blocks[b]) == 1, blocks[b])
    order = [min(blocks[b]) for b in fixed]
    if nsites > 1:
        check("the sites take turns", all(order[i] != order[i + 1] for i in range(len(order) - 1)), order)


def check_replay(work, report):
    """passprobe report makes the same experiment from the recording as the process did."""
    process = load(os.path.join(work, "process-report.json"))
    key = lambda r: {d["id"] + d["site"]: (d.get("experiment"), d.get("severity"), d.get("verdict"))
                     for d in r["diagnostics"]}
    check("replay: the same experiment per site", key(process) == key(report),
          (key(process), key(report)))
    arms = lambda r: [(f["index"], f.get("experiment_arm"), f.get("experiment_sites")) for f in frames_of(r)]
    check("replay: the same frame arms", arms(process) == arms(report))
    for k in ("frames", "experiment"):
        check(f"replay: summary.{k}", process["summary"].get(k) == report["summary"].get(k),
              (process["summary"].get(k), report["summary"].get(k)))


def check_trace(out):
    with open(os.path.join(out, "trace.json"), encoding="utf-8") as f:
        text = f.read()
    check("trace: rewritten passes marked", '"experiment_rewritten":true' in text)
    check("trace: arms marked", '"experiment_arm":"fixed"' in text and '"experiment_arm":"as-written"' in text)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    mode, work = argv[1], argv[2]
    out = os.path.join(work, "out")
    report = load(os.path.join(out, "report.json"))
    if mode == "demo-misuse":
        a = site(report, "PASSPROBE-Barrier-DstStageTooEarly")
        b = site(report, "PASSPROBE-Barrier-FullPipelineDrain")
        check_in(a, r"^dstStageMask VERTEX_SHADER\|FRAGMENT_SHADER\|COLOR_ATTACHMENT_OUTPUT -> "
                    r"FRAGMENT_SHADER\|COLOR_ATTACHMENT_OUTPUT$")
        check_in(b, r"^dstStageMask ALL_COMMANDS -> COMPUTE_SHADER$")
        check_arms(report, 2)
        check_summary(report, [a.get("id"), b.get("id")])
        check_replay(work, report)
        check_trace(out)
    elif mode == "redundant":
        r2r = site(report, "PASSPROBE-Barrier-ReadToRead")
        merge = site(report, "PASSPROBE-Barrier-Mergeable")
        e = check_in(r2r, r"^removed$")
        check_in(merge, r"vkCmdPipelineBarrier2")
        check_arms(report, 2)
        check_summary(report, [r2r.get("id"), merge.get("id")])
        check_replay(work, report)
        # The saving is a timing (large on lavapipe, where every removed barrier is a wait
        # between two passes): printed as a figure, never deciding the test. What must hold
        # whatever the machine's load: a verdict of the noise rule, and a finding whose fix was
        # measured as a saving made a warning that says so.
        s = (e.get("saving") or {}).get("frame_gpu_ns") or {}
        print(f"check_experiment.py redundant: ReadToRead: frame GPU time: {s}; "
              f"verdict {e.get('verdict')!r}; severity {r2r.get('severity')!r}")
        check("ReadToRead: frame GPU time judged by the noise rule",
              s.get("verdict") in ("saving", "slower", "within noise"), s)
        # The site's verdict is a saving where any of its measures is one (frame GPU time, the
        # passes after it, the CPU recording), and the finding's verdict quotes that measure.
        if e.get("verdict") == "saving":
            check("ReadToRead: a warning for its measured saving", r2r.get("severity") == "warning" and
                  (r2r.get("verdict") or "").startswith("worth fixing: passprobe's experiment measured the fix "
                                                         "on this device: "),
                  (r2r.get("severity"), r2r.get("verdict")))
    elif mode == "none":
        live = [d for d in report["diagnostics"]
                if (d.get("experiment") or {}).get("state") in ("in", "candidate", "withdrawn")]
        check("no site in the experiment", not live, [(d["id"], d["experiment"]) for d in live])
        marked = [f["index"] for f in frames_of(report) if "experiment_arm" in f or f.get("experiment_modified")]
        check("no frame of an arm", not marked, marked)
        check("no summary lines", not report["summary"].get("experiment"), report["summary"].get("experiment"))
        check("every frame in the summary", report["summary"]["frames"] == len(frames_of(report)))
    elif mode == "out" and len(argv) == 5:
        d = site(report, argv[3])
        e = d.get("experiment") or {}
        check(f"{argv[3]}: not in the experiment", e.get("state") == "out", e)
        check(f"{argv[3]}: why", re.search(argv[4], e.get("why") or ""), e.get("why"))
        check(f"{argv[3]}: the verdict says so", (e.get("verdict") or "").startswith("not in the experiment: "),
              e.get("verdict"))
        check(f"{argv[3]}: no arms", "arms" not in e, e)
    else:
        print(__doc__)
        return 2
    for f in FAILS:
        print(f"check_experiment.py {mode}: {f}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
