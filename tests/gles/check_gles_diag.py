#!/usr/bin/env python3
"""check_gles_diag.py WORKDIR DEMO MODE ID[,ID...] [--frames N] [--measured|--unmeasured] [--mute WHAT]

Runs the GLES demo through the shim (run_gles.sh, PP_GLES_SHIM) twice with --debug-callback:
`--misuse MODE` and `--control MODE`. The misuse run must report exactly the IDs given (and no
other diagnostic) in report.json, each site counted more than once (deduplicated: one entry per
call site, whatever the frame), with the measured time blocked (--measured: cost_kind
cpu_blocked, cost_ns > 0) or a reason it is not measured (--unmeasured); the application's
KHR_debug callback gets each site once (`debug-message <id> <ID>: ...`, id 0x50500000 + a
stable index, the same for every message of an ID), and the log one warning per site. The
control run must report nothing, print no passprobe message and log none.
--mute WHAT: the demo's --debug-mute WHAT (its glDebugMessageControl turns third-party
performance messages off, or it disables GL_DEBUG_OUTPUT): the callback then gets none of
passprobe's messages, the log and report.json still do.
Exits 77 where the demo cannot run even without the shim (no EGL/GLES)."""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(work, demo, args):
    p = subprocess.run(["bash", os.path.join(HERE, "run_gles.sh"), work, "--", demo] + args,
                       stdout=subprocess.PIPE, text=True)
    rc = p.returncode
    if rc != 0:  # run_gles.sh says why (the program's stderr, skip_or_fail.sh's verdict)
        sys.stdout.write(p.stdout)
    if rc == 77:
        # run_gles.sh exits 77 only where the demo skips without the shim too (no EGL/GLES on
        # this machine); a skip under the shim alone it turns into 1 (skip_or_fail.sh).
        print("GLES_SKIP: the demo cannot run here, with or without passprobe (no EGL/GLES)")
        sys.exit(77)
    if rc != 0:
        sys.exit("FAIL: %s %s exited %d" % (demo, " ".join(args), rc))
    with open(os.path.join(work, "out", "gles", "report.json")) as f:
        report = json.load(f)
    with open(os.path.join(work, "stdout")) as f:
        stdout = f.read()
    with open(os.path.join(work, "stderr")) as f:
        stderr = f.read()
    return report, stdout, stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("demo")
    ap.add_argument("mode")
    ap.add_argument("ids")
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--mute", choices=["third-party", "output"])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--measured", action="store_true")
    g.add_argument("--unmeasured", action="store_true")
    a = ap.parse_args()
    ids = a.ids.split(",")
    common = ["--frames", str(a.frames), "--debug-callback"]
    if a.mute:
        common += ["--debug-mute", a.mute]
    errors = []

    report, stdout, stderr = run(os.path.join(a.work, "misuse"), a.demo, common + ["--misuse", a.mode])
    diags = report.get("diagnostics", [])
    found = sorted({d["id"] for d in diags})
    if found != sorted(set(ids)):
        errors.append("misuse %s: diagnostics %s, expected exactly %s" % (a.mode, found, sorted(set(ids))))
    messages = re.findall(r"^debug-message (\d+) (PASSPROBE-[A-Za-z-]+): (.*)$", stdout, re.M)
    for i in ids:
        sites = [d for d in diags if d["id"] == i]
        if not sites:
            continue
        texts = [d["site"] for d in sites]
        if len(set(texts)) != len(texts):
            errors.append("%s: a site is listed twice: %s" % (i, texts))
        for d in sites:
            print("%s count=%d frames=%d cost_ns=%s cost_kind=%s unavailable=%s site=%s" % (
                i, d["count"], d["frames"], d.get("cost_ns"), d.get("cost_kind"), d.get("cost_unavailable"),
                d["site"]))
            if d["count"] < 2:
                errors.append("%s at %s: count %d, expected every frame's occurrence at one site (> 1)" % (
                    i, d["site"], d["count"]))
            if a.measured and not (d.get("cost_kind") == "cpu_blocked" and (d.get("cost_ns") or 0) > 0):
                errors.append("%s: no measured time blocked: %s" % (i, d))
            if a.unmeasured and (d.get("cost_ns") is not None or not d.get("cost_unavailable")):
                errors.append("%s: a cost where none is measured, or no reason: %s" % (i, d))
        got = [m for m in messages if m[1] == i]
        want = 0 if a.mute else len(sites)
        if len(got) != want:
            errors.append("%s: %d debug callback messages, expected %d (one per site unless muted)" % (
                i, len(got), want))
        numbers = {m[0] for m in got}
        if not a.mute and (len(numbers) != 1 or int(min(numbers or ["0"])) < 0x50500000):
            errors.append("%s: callback ids %s, expected one stable id >= 0x50500000" % (i, numbers))
        logged = len(re.findall(r"warning: %s \(frame \d+, " % re.escape(i), stderr))
        if logged != len(sites):
            errors.append("%s: logged %d times, expected once per site (%d)" % (i, logged, len(sites)))

    report, stdout, stderr = run(os.path.join(a.work, "control"), a.demo, common + ["--control", a.mode])
    if report.get("diagnostics"):
        errors.append("control %s: diagnostics %s" % (a.mode, [(d["id"], d["site"]) for d in report["diagnostics"]]))
    if "PASSPROBE-" in stdout or "PASSPROBE-" in stderr:
        errors.append("control %s: a passprobe message reached the callback or the log" % a.mode)

    for e in errors:
        print("FAIL: " + e)
    if errors:
        return 1
    print("ok: --misuse %s reports %s; --control %s reports nothing" % (a.mode, ",".join(ids), a.mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
