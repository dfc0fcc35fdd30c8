#!/usr/bin/env python3
"""`passprobe compare` on two real runs of passprobe-demo through the Vulkan loader
(lavapipe): one plain, one with --misuse-barriers. Nothing here depends on timing: the
passes must match one to one, the diagnostics of the misuse must appear (and disappear the
other way round), and --fail-on-new-diagnostics must say so in its exit status. Also checks
that `passprobe run` wrote report.html next to the other outputs and listed it.
usage: test_compare_demo.py PASSPROBE DEMO SCRATCH_DIR"""
import json
import os
import shutil
import subprocess
import sys

PP, DEMO, T = sys.argv[1:4]
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
env = {k: v for k, v in os.environ.items() if not k.startswith("VK_PASSPROBE_PROFILER_")}
env.pop("VK_INSTANCE_LAYERS", None)
if not env.get("XDG_RUNTIME_DIR"):
    env["XDG_RUNTIME_DIR"] = os.path.join(T, "xdg")
os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
failures = []
checks = 0


def check(what, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}" + (f"\n  {str(detail)[:3000]}" if detail else ""), file=sys.stderr)


def demo(name, *args):
    out = os.path.join(T, name)
    p = subprocess.run([PP, "run", "-o", out, "--", DEMO, "--frames", "12", *args],
                       capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        print(f"passprobe run {name} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}", file=sys.stderr)
        sys.exit(1)
    return out, p.stderr


def compare(*args):
    p = subprocess.run([PP, "compare", *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


plain, err = demo("plain")
check("run lists report.html", f"output in {plain} (report.json, report.html, trace.json, passes.csv, recording.ppr)" in err, err)
check("run wrote report.html", os.path.getsize(os.path.join(plain, "report.html")) > 10000)
misuse, err = demo("misuse", "--misuse-barriers")

rc, out, err = compare("--json", "--fail-on-new-diagnostics", plain, misuse)
doc = json.loads(out)
check("plain -> misuse: exit 1 (new diagnostics)", rc == 1, err)
names = sorted((p["name"], p["kind"], p["in"]) for p in doc["passes"])
want = sorted([("shadow", "render", "both"), ("gbuffer", "render", "both"),
               ("lighting", "render", "both"), ("postprocess", "compute", "both"),
               ("composite", "render", "both")])
check("the demo's five passes are matched", names == want, names)
check("one instance per frame in both", all(p["per_frame"] == {"a": 1, "b": 1} for p in doc["passes"]),
      [p["per_frame"] for p in doc["passes"]])
check("every pass has GPU times in both runs",
      all(p["gpu_ns"]["a"]["samples"] == 12 and p["gpu_ns"]["b"]["samples"] == 12 for p in doc["passes"]))
appeared = sorted(d["id"] for d in doc["diagnostics"]["appeared"])
check("misuse-barriers diagnostics appeared", appeared and all(i.startswith("PASSPROBE-Barrier-") for i in appeared)
      and "PASSPROBE-Barrier-FullPipelineDrain" in appeared, appeared)
check("none disappeared", doc["diagnostics"]["disappeared"] == [], doc["diagnostics"])
with open(os.path.join(misuse, "report.json")) as f:
    rep_ids = sorted(d["id"] for d in json.load(f)["diagnostics"])
check("every diagnostic of the misuse run is listed", sorted(set(rep_ids)) == sorted(set(appeared)), (rep_ids, appeared))

rc, out, err = compare("--fail-on-new-diagnostics", misuse, plain)
check("misuse -> plain: exit 0", rc == 0, out + err)
check("misuse -> plain: the fixed ones are listed", "diagnostics that disappeared (only in A):" in out
      and "- warning PASSPROBE-Barrier-FullPipelineDrain" in out and "ok: 0 new warnings in B" in out, out)
check("text has the pass table", "gpu p50 A" in out and "postprocess" in out, out)

# The same run against itself: no change at all, whatever the limit.
rc, out, err = compare("--json", "--fail-above", "0%", plain, plain)
doc = json.loads(out)
check("a run against itself: exit 0", rc == 0, err)
check("a run against itself: every change is 0", all(p["gpu_ns"]["p50"]["change"] == 0 for p in doc["passes"]))

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
