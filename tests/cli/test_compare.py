#!/usr/bin/env python3
"""`passprobe compare` on constructed reports: a pass twice as slow, a pass removed, noise
only, the noise rule's two conditions, a diagnostic fixed, CPU recording cost, frames the
experiment rewrote (left out), reports without frames, and mismatched or foreign files. The reports are made here with a seeded
generator; the expected percentiles are computed here from the same samples (nearest rank,
as docs/cli.md defines them) and compared with `compare --json` exactly.
usage: test_compare.py PASSPROBE SCRATCH_DIR"""
import json
import math
import os
import random
import shutil
import subprocess
import sys

PP, T = sys.argv[1], sys.argv[2]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
failures = []
checks = 0


def check(what, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""), file=sys.stderr)


DEVICE = "llvmpipe (LLVM 15.0.6, 256 bits)"
BARRIER_SITE = ('vkCmdPipelineBarrier called from app+0x1a2b, after pass 1 (render "gbuffer") '
                '(command buffer 0x55aa11, barrier #2)')
WAIT_SITE = 'vkQueueWaitIdle called from app+0x3e94 on thread 100 "app"'


def diag(ident, site, cost):
    return {"id": ident, "device": 0, "count": 40, "frames": 40, "first_frame": 0,
            "last_frame": 39, "site": site, "message": "m", "suggestion": "s",
            "cost_kind": "gpu_barrier_stall", "cost_ns": cost, "cost_unavailable": None,
            "share_of_frame": 0.01}


BASE_DIAGS = [diag("PASSPROBE-Barrier-FullPipelineDrain", BARRIER_SITE, 5000),
              diag("PASSPROBE-Blocking-QueueWaitIdle", WAIT_SITE, 90000)]


def make_report(name, passes, frames=40, seed=1, diagnostics=BASE_DIAGS, device=DEVICE,
                version=1, keep_frames=True, settings=None):
    """passes: list of (name, kind, per_frame, gpu_median_ns or None, relative spread,
    cpu_ns). Each instance's GPU time is median * (1 + spread * u), u uniform in [-1, 1]."""
    rng = random.Random(seed)
    out_frames, samples = [], {}
    t = 1_000_000_000
    for f in range(frames):
        fpasses, total, measured = [], 0, False
        for (pname, kind, per_frame, med, spread, cpu) in passes:
            for _ in range(per_frame):
                g = None if med is None else int(med * (1 + spread * rng.uniform(-1, 1)))
                c = int(cpu * (1 + 0.02 * rng.uniform(-1, 1)))
                samples.setdefault((pname, kind), {"gpu": [], "cpu": [], "n": 0})
                s = samples[(pname, kind)]
                s["n"] += 1
                s["cpu"].append(c)
                p = {"name": pname, "kind": kind, "submission": 0, "command_buffer": 0,
                     "cpu": {"begin_ns": t, "wall_ns": c + 100, "thread_cpu_ns": c, "spans": 1,
                             "tid": 100, "counters": {"task-clock": c, "cycles": None},
                             "scaled": []},
                     "recording_reused": False}
                if g is None:
                    p.update(gpu_begin_ns=None, gpu_end_ns=None, gpu_ns=None,
                             gpu_unavailable="not measured", gpu_exclusive_ns=None,
                             overlapped=None)
                else:
                    s["gpu"].append(g)
                    p.update(gpu_begin_ns=t, gpu_end_ns=t + g, gpu_ns=g, gpu_exclusive_ns=g,
                             overlapped=False)
                    t += g
                    total += g
                    measured = True
                fpasses.append(p)
        out_frames.append({"index": f, "device": 0, "delimiter": "present",
                           "cpu_begin_ns": t, "cpu_end_ns": t + 10,
                           "gpu_ns": total if measured else None,
                           "submissions": [{"seq": f, "api": "vkQueueSubmit",
                                            "queue": {"handle": "0x1", "family": 0, "index": 0},
                                            "tid": 100, "cpu_begin_ns": t, "cpu_end_ns": t + 5,
                                            "cpu_ns": 5, "gpu_begin_ns": None,
                                            "gpu_end_ns": None, "gpu_span_ns": None,
                                            "first_pass": 0, "passes": len(fpasses),
                                            "command_buffers": 1}],
                           "passes": fpasses})
        t += 1000
    rows = []
    for (pname, kind), s in samples.items():
        g = sorted(s["gpu"])
        rows.append({"name": pname, "kind": kind, "count": s["n"], "measured": len(g),
                     "per_frame": s["n"] / frames,
                     "gpu_ns": {"mean": sum(g) / len(g) if g else None,
                                "p50": nearest(g, 0.5), "p95": nearest(g, 0.95),
                                "max": g[-1] if g else None},
                     "share_of_frame": None,
                     "cpu_record_ns": {"mean": sum(s["cpu"]) / len(s["cpu"])}})
    report = {"schema": "passprobe-report", "version": version, "generator": "test",
              "clock": "CLOCK_MONOTONIC", "process": {"pid": 1, "name": "app"},
              "settings": settings or {"log_level": "warn", "timestamps": True, "report_frames": 300},
              "devices": [{"id": 0, "name": device, "driver": "0.0.1"}],
              "frames_total": frames, "frames_dropped": 0, "cpu_events_dropped": 0,
              "frames_window": {"first": 0, "count": frames, "limit": 300},
              "frames": out_frames if keep_frames else [],
              "summary": {"frames": frames, "frame_gpu_ns": None, "device": device,
                          "notes": "", "passes": rows},
              "diagnostics": diagnostics}
    d = os.path.join(T, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(report, f)
    return d, samples


def nearest(v, q):
    if not v:
        return None
    v = sorted(v)
    return v[min(max(math.ceil(q * len(v)), 1), len(v)) - 1]


def run(*args):
    p = subprocess.run([PP, "compare", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    rc, out, err = run("--json", *args)
    try:
        return rc, json.loads(out), err
    except ValueError:
        check(f"compare --json {' '.join(args)} prints JSON", False, out[:500] + err[:500])
        return rc, {"passes": [], "diagnostics": {"appeared": [], "disappeared": [], "both": []}}, err


def row(doc, name):
    for p in doc["passes"]:
        if p["name"] == name:
            return p
    return None


SHADOW = ("shadow", "render", 1, 1_000_000, 0.03, 20_000)
GBUFFER = ("gbuffer", "render", 1, 2_000_000, 0.03, 9_000)
BLUR = ("blur", "compute", 2, 500_000, 0.03, 3_000)
UPLOAD = ("upload", "transfer", 1, None, 0, 1_000)
BASE = [SHADOW, GBUFFER, BLUR, UPLOAD]

a_dir, a_s = make_report("a", BASE, seed=1)

# ---- a pass twice as slow
slow = [("shadow", "render", 1, 2_000_000, 0.03, 20_000), GBUFFER, BLUR, UPLOAD]
b_dir, b_s = make_report("slow", slow, seed=2)
rc, doc, err = run_json(a_dir, b_dir)
check("slow: exit 0 without --fail-above", rc == 0, err)
sh = row(doc, "shadow")
check("slow: shadow in both", sh and sh["in"] == "both")
ga, gb = a_s[("shadow", "render")]["gpu"], b_s[("shadow", "render")]["gpu"]
check("slow: p50 A exact", sh["gpu_ns"]["a"]["p50"] == nearest(ga, 0.5), sh["gpu_ns"]["a"])
check("slow: p50 B exact", sh["gpu_ns"]["b"]["p50"] == nearest(gb, 0.5), sh["gpu_ns"]["b"])
check("slow: p95 B exact", sh["gpu_ns"]["b"]["p95"] == nearest(gb, 0.95))
check("slow: IQR A exact", sh["gpu_ns"]["a"]["iqr"] == nearest(ga, 0.75) - nearest(ga, 0.25))
rel = (nearest(gb, 0.5) - nearest(ga, 0.5)) / nearest(ga, 0.5)
check("slow: relative change", abs(sh["gpu_ns"]["p50"]["relative"] - rel) < 1e-12
      and 0.9 < rel < 1.1, sh["gpu_ns"]["p50"])
check("slow: shadow slower beyond noise", sh["gpu_ns"]["p50"]["verdict"] == "slower")
check("slow: gbuffer within noise", row(doc, "gbuffer")["gpu_ns"]["p50"]["verdict"] == "within noise")
check("slow: blur 2 per frame", row(doc, "blur")["per_frame"] == {"a": 2, "b": 2})
check("slow: unmeasured upload is unavailable, not 0",
      row(doc, "upload")["gpu_ns"]["p50"]["verdict"] == "unavailable"
      and row(doc, "upload")["gpu_ns"]["a"]["p50"] is None)
check("slow: CPU cost judged too", sh["cpu_record_ns"]["p50"]["verdict"] == "within noise")
check("slow: the biggest change first", doc["passes"][0]["name"] == "shadow")
rc, doc, err = run_json("--fail-above", "10%", a_dir, b_dir)
check("slow: --fail-above 10% exits 1", rc == 1, err)
check("slow: over_limit marks shadow", row(doc, "shadow")["over_limit"] and doc["passes_over_limit"] == 1)
rc, out, err = run("--fail-above", "10%", a_dir, b_dir)
check("slow: text says FAIL", rc == 1 and "FAIL: 1 pass grew more than 10% beyond noise" in out, out)
check("slow: text marks the change", any(l.split()[:1] == ["shadow"] and "*" in l for l in out.splitlines()), out)
rc, out, err = run("--fail-above", "150", a_dir, b_dir)
check("slow: a limit above the change exits 0", rc == 0 and "ok: 0 passes" in out, out)
rc, out, err = run("--fail-above", "10%", b_dir, a_dir)
check("slow: faster is not a failure", rc == 0, out)

# ---- a pass removed
r_dir, _ = make_report("removed", [SHADOW, GBUFFER, UPLOAD], seed=3)
rc, doc, err = run_json("--fail-above", "10%", a_dir, r_dir)
check("removed: exit 0", rc == 0, err)
check("removed: blur only in A", row(doc, "blur") and row(doc, "blur")["in"] == "a")
rc, out, err = run(a_dir, r_dir)
check("removed: listed in the text", "passes only in A:" in out and "blur (compute)" in out, out)
rc, out, err = run(r_dir, a_dir)
check("added: listed in the text", "passes only in B:" in out and "blur (compute)" in out, out)

# ---- noise only: the same distributions, other samples
n_dir, _ = make_report("noise", BASE, seed=4)
rc, doc, err = run_json("--fail-above", "1%", a_dir, n_dir)
check("noise: exit 0 even with --fail-above 1%", rc == 0, err)
verdicts = {p["name"]: p["gpu_ns"]["p50"]["verdict"] for p in doc["passes"] if p["in"] == "both"}
check("noise: every measured pass within noise",
      all(v == "within noise" for k, v in verdicts.items() if k != "upload"), verdicts)
# Without the rule's two conditions the same data shows changes: the rule is what hides them.
rc, doc, err = run_json("--noise", "0", "--min-change", "0", a_dir, n_dir)
check("noise: without the rule, changes are called",
      any(p["gpu_ns"]["p50"]["verdict"] in ("slower", "faster") for p in doc["passes"] if p["in"] == "both"))

# ---- the noise rule: a 15% change in a noisy pass is noise, in a quiet one it is not
noisy_a, _ = make_report("noisy_a", [("shadow", "render", 1, 1_000_000, 0.40, 20_000)], frames=200, seed=5)
noisy_b, _ = make_report("noisy_b", [("shadow", "render", 1, 1_150_000, 0.40, 20_000)], frames=200, seed=6)
rc, doc, err = run_json("--fail-above", "10%", noisy_a, noisy_b)
check("noisy +15%: within noise, exit 0", rc == 0 and row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "within noise",
      row(doc, "shadow")["gpu_ns"])
quiet_a, _ = make_report("quiet_a", [("shadow", "render", 1, 1_000_000, 0.01, 20_000)], seed=5)
quiet_b, _ = make_report("quiet_b", [("shadow", "render", 1, 1_150_000, 0.01, 20_000)], seed=6)
rc, doc, err = run_json("--fail-above", "10%", quiet_a, quiet_b)
check("quiet +15%: slower, exit 1", rc == 1 and row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "slower")
still_a, _ = make_report("still_a", [("shadow", "render", 1, 1_000_000, 0.001, 20_000)], seed=5)
still_b, _ = make_report("still_b", [("shadow", "render", 1, 1_030_000, 0.001, 20_000)], seed=6)
rc, doc, err = run_json(still_a, still_b)
check("quiet +3%: below the minimum change", row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "within noise")
rc, doc, err = run_json("--min-change", "1%", still_a, still_b)
check("quiet +3% with --min-change 1%: slower", row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "slower")
few_a, _ = make_report("few_a", [SHADOW], frames=5, seed=5)
few_b, _ = make_report("few_b", [("shadow", "render", 1, 3_000_000, 0.03, 20_000)], frames=5, seed=6)
rc, doc, err = run_json("--fail-above", "10%", few_a, few_b)
check("5 frames: not judged, exit 0", rc == 0 and row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "not judged")

# ---- CPU recording cost
cpu_b, _ = make_report("cpu", [("shadow", "render", 1, 1_000_000, 0.03, 60_000), GBUFFER, BLUR, UPLOAD], seed=7)
rc, doc, err = run_json("--metric", "cpu-p50", "--fail-above", "50%", a_dir, cpu_b)
check("cpu: --metric cpu-p50 fails on a tripled recording cost", rc == 1
      and row(doc, "shadow")["cpu_record_ns"]["p50"]["verdict"] == "slower")
rc, doc, err = run_json("--fail-above", "50%", a_dir, cpu_b)
check("cpu: the default metric (gpu-p50) does not", rc == 0)

# ---- a diagnostic fixed; the one left moved (new build, new run): still the same site
moved = [diag("PASSPROBE-Blocking-QueueWaitIdle",
              'vkQueueWaitIdle called from app+0x4f00 on thread 2345 "app"', 80000)]
fixed_dir, _ = make_report("fixed", BASE, seed=8, diagnostics=moved)
rc, doc, err = run_json("--fail-on-new-diagnostics", a_dir, fixed_dir)
dd = doc["diagnostics"]
check("fixed: the barrier disappeared", [d["id"] for d in dd["disappeared"]] == ["PASSPROBE-Barrier-FullPipelineDrain"], dd)
check("fixed: nothing appeared", dd["appeared"] == [] and rc == 0, dd)
check("fixed: the wait is in both despite a new offset and thread",
      [d["id"] for d in dd["both"]] == ["PASSPROBE-Blocking-QueueWaitIdle"], dd)
rc, out, err = run(a_dir, fixed_dir)
check("fixed: text lists the disappeared one", "diagnostics that disappeared (only in A):" in out
      and "- warning PASSPROBE-Barrier-FullPipelineDrain" in out, out)
rc, out, err = run("--fail-on-new-diagnostics", fixed_dir, a_dir)
check("regressed: a new diagnostic fails with --fail-on-new-diagnostics", rc == 1
      and "+ warning PASSPROBE-Barrier-FullPipelineDrain" in out and "FAIL: 1 new warning in B" in out, out)
rc, out, err = run(fixed_dir, a_dir)
check("regressed: without the option, exit 0", rc == 0, out)

# ---- severities: new information does not fail a build; a site that became a warning does
info = [dict(diag("PASSPROBE-Blocking-FenceWaitSameFrame", 'vkWaitForFences called from lib+0x10 on thread 9 "worker"',
                  5000), severity="info")]
info_dir, _ = make_report("info", BASE, seed=9, diagnostics=moved + info)
rc, doc, err = run_json("--fail-on-new-diagnostics", fixed_dir, info_dir)
check("information appeared: listed with its severity, exit 0", rc == 0
      and [(d["id"], d["severity"]) for d in doc["diagnostics"]["appeared"]] ==
      [("PASSPROBE-Blocking-FenceWaitSameFrame", "info")] and doc["new_diagnostics"] == 0, (rc, doc["diagnostics"]))
rc, out, err = run("--fail-on-new-diagnostics", fixed_dir, info_dir)
check("information appeared: text", rc == 0 and "+ info    PASSPROBE-Blocking-FenceWaitSameFrame" in out
      and "ok: 0 new warnings in B (information not counted)" in out, out)
warned = [dict(info[0], severity="warning")]
warned_dir, _ = make_report("warned", BASE, seed=10, diagnostics=moved + warned)
rc, out, err = run("--fail-on-new-diagnostics", info_dir, warned_dir)
check("information -> warning at the same site: a new warning, exit 1", rc == 1
      and "now a warning" in out and "FAIL: 1 new warning in B" in out, out)
rc, out, err = run("--fail-on-new-diagnostics", warned_dir, info_dir)
check("warning -> information: exit 0", rc == 0 and "now information" in out, out)

# ---- frames passprobe's experiment rewrote measure a fix, not the program: left out
with open(os.path.join(a_dir, "report.json")) as f:
    x = json.load(f)
for k, fr in enumerate(list(x["frames"][:10])):
    fr = json.loads(json.dumps(fr))
    fr.update(index=1000 + k, experiment_arm="fixed", experiment_sites=[0], experiment_modified=True)
    fr["gpu_ns"] *= 10
    for p_ in fr["passes"]:
        if p_["gpu_ns"] is not None:
            p_["gpu_ns"] *= 10
            p_["gpu_exclusive_ns"] *= 10
        p_["cpu"]["thread_cpu_ns"] *= 10
    x["frames"].append(fr)
x_dir = os.path.join(T, "experiment")
os.makedirs(x_dir, exist_ok=True)
with open(os.path.join(x_dir, "report.json"), "w") as f:
    json.dump(x, f)
rc, doc, err = run_json("--fail-above", "1%", a_dir, x_dir)
sh = row(doc, "shadow")
check("experiment: rewritten frames left out (shadow's p50 and p95 as without them)",
      rc == 0 and sh and sh["gpu_ns"]["b"]["p50"] == sh["gpu_ns"]["a"]["p50"]
      and sh["gpu_ns"]["b"]["p95"] == sh["gpu_ns"]["a"]["p95"], (rc, sh and sh["gpu_ns"]))
check("experiment: CPU cost without them", sh and sh["cpu_record_ns"]["b"]["p50"] == sh["cpu_record_ns"]["a"]["p50"],
      sh and sh["cpu_record_ns"])

# ---- a report without frames: the summary's values, noise not judged
nf_dir, _ = make_report("noframes", slow, seed=9, keep_frames=False)
rc, doc, err = run_json("--fail-above", "10%", a_dir, nf_dir)
check("no frames: source summary", doc["b"]["source"] == "summary", doc.get("b"))
check("no frames: not judged, exit 0", rc == 0 and row(doc, "shadow")["gpu_ns"]["p50"]["verdict"] == "not judged")
rc, out, err = run(a_dir, nf_dir)
check("no frames: said in the text", "noise not judged" in out, out)

# ---- mismatched and foreign files
other_dev, _ = make_report("otherdev", BASE, seed=10, device="AMD Radeon RX 7600")
rc, out, err = run(a_dir, other_dev)
check("other device: warning, exit 0", rc == 0 and "warning: A ran on" in err and "AMD Radeon" in err, err)
rc, out, err = run("--same-device", a_dir, other_dev)
check("other device with --same-device: exit 3", rc == 3 and "--same-device" in err, err)
rc, out, err = run(a_dir, b_dir)
check("same settings: no warning", "warning" not in err, err)
other_set, _ = make_report("otherset", BASE, seed=12,
                           settings={"log_level": "debug", "timestamps": True, "report_frames": 50})
rc, out, err = run(a_dir, other_set)
check("other settings: one warning naming what changes the numbers", rc == 0
      and "different settings (report_frames)" in err and "log_level" not in err, err)
newer, _ = make_report("newer", BASE, seed=11, version=2)
rc, out, err = run(a_dir, newer)
check("newer version refused: exit 3", rc == 3 and "version 2" in err and "newer passprobe" in err, err)
foreign = os.path.join(T, "foreign.json")
with open(foreign, "w") as f:
    json.dump({"schema": "some-other-tool", "version": 1}, f)
rc, out, err = run(a_dir, foreign)
check("foreign file: exit 3, named, expected schema said", rc == 3 and "foreign.json" in err
      and "not a passprobe report" in err and '"passprobe-report"' in err, err)
trace = os.path.join(T, "trace.json")
with open(trace, "w") as f:
    f.write('[{"ph": "M"},\n')
rc, out, err = run(trace, a_dir)
check("not JSON: exit 3, named", rc == 3 and "trace.json" in err and "not valid JSON" in err, err)
rc, out, err = run(a_dir, os.path.join(T, "missing"))
check("missing: exit 3", rc == 3 and "missing" in err, err)
os.makedirs(os.path.join(T, "empty"), exist_ok=True)
rc, out, err = run(a_dir, os.path.join(T, "empty"))
check("directory without report.json: exit 3", rc == 3 and "has no report.json" in err, err)

# ---- usage
for args, what in ((["only-one"], "one report"), (["a", "b", "c"], "three reports"),
                   (["--fail-above", "ten", a_dir, b_dir], "bad --fail-above"),
                   (["--fail-above", "-5%", a_dir, b_dir], "negative --fail-above"),
                   (["--metric", "fps", a_dir, b_dir], "bad --metric"),
                   (["--bogus", a_dir, b_dir], "unknown option")):
    rc, out, err = run(*args)
    check(f"usage: {what} exits 2", rc == 2 and err, err)
rc, out, err = run("--metric", "fps", a_dir, b_dir)
check("usage: bad --metric lists what is allowed", "gpu-p50, gpu-p95 or cpu-p50" in err, err)
rc, out, err = run("--help")
check("--help", rc == 0 and "usage: passprobe compare" in out and "exit status" in out)
p = subprocess.run([PP, "help", "compare"], capture_output=True, text=True)
check("help compare", p.returncode == 0 and "usage: passprobe compare" in p.stdout)
p = subprocess.run([PP, "--help"], capture_output=True, text=True)
check("--help lists compare", "compare [options] A B" in p.stdout, p.stdout)

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
