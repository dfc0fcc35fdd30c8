#!/usr/bin/env python3
"""check_renderdoc.py OUT_DIR --captures FRAMES --requested-by passprobe|renderdoc [--replay] [--gles]

RenderDoc's captures in passprobe's report (docs/frame-debuggers.md), for a run of a real program
with RenderDoc's capture layer above passprobe. Checks, in OUT_DIR/report.json:
- "renderdoc" names RenderDoc's library and API version;
- its captures are of passprobe's frames FRAMES (comma-separated, in order; A-B a range), asked for by
  --requested-by, each file written (RenderDoc's "RDOC" header) and carrying the frame's
  measurements ("frame_data": that frame, with passes of the application's); the frames in
  frames[] marked "renderdoc_capture" are exactly those;
- RenderDoc's own work (its capture copies, its overlay) is there, marked recorded_by, and out
  of the summary: no summary row names a pass another layer recorded, and the summary's notes
  say how many were left out.
--replay: each capture opened with RenderDoc's own Python module (Debian python3-renderdoc, for
/usr/bin/python3) and replayed on lavapipe in a process without passprobe: its actions hold the
captured frame's application passes (as many render pass begins, dispatches and draws as the
frame has), so the capture is of that frame and nothing else.
--gles: OUT_DIR is the OpenGL ES shim's (passprobe's OUT/gles); the captures are OpenGL ES ones,
replayed on llvmpipe through EGL's surfaceless platform, and hold as many draws and dispatches as
the frame's application passes (RenderDoc has no render pass actions for OpenGL ES).
docs/testing-integration.md, *Real programs*."""
import json
import os
import subprocess
import sys


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


# Run by /usr/bin/python3 with RenderDoc's module: counts the actions of one capture.
REPLAY = r"""
import json, sys
import renderdoc as rd
rd.InitialiseReplay(rd.GlobalEnvironment(), [])
cap = rd.OpenCaptureFile()
res = cap.OpenFile(sys.argv[1], '', None)
if res != rd.ResultCode.Succeeded:
    print(json.dumps({"error": "open: " + str(res)})); sys.exit(0)
res, ctl = cap.OpenCapture(rd.ReplayOptions(), None)
if res != rd.ResultCode.Succeeded:
    print(json.dumps({"error": "replay: " + str(res)})); sys.exit(0)
counts = {"begin_pass": 0, "draws": 0, "dispatches": 0}
def walk(actions):
    for a in actions:
        # A command buffer's begin is a BeginPass too, marked CommandBufferBoundary.
        if (a.flags & rd.ActionFlags.BeginPass) and not (a.flags & rd.ActionFlags.CommandBufferBoundary):
            counts["begin_pass"] += 1
        if a.flags & rd.ActionFlags.Drawcall:
            counts["draws"] += 1
        if a.flags & rd.ActionFlags.Dispatch:
            counts["dispatches"] += 1
        walk(a.children)
walk(ctl.GetRootActions())
ctl.Shutdown(); cap.Shutdown(); rd.ShutdownReplay()
print(json.dumps(counts))
"""


def replay_counts(path, gles):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VK_PASSPROBE_PROFILER_")}
    for k in ("VK_INSTANCE_LAYERS", "VK_ADD_LAYER_PATH", "VK_LAYER_PATH", "ENABLE_VULKAN_RENDERDOC_CAPTURE",
              "LD_PRELOAD", "VK_LOADER_DEBUG"):
        env.pop(k, None)
    if gles:
        env["EGL_PLATFORM"] = "surfaceless"  # RenderDoc replays OpenGL ES through EGL: no window needed
    try:
        out = subprocess.run(["/usr/bin/python3", "-c", REPLAY, path], env=env, capture_output=True, text=True,
                             timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"replaying {path}: {e}")
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if not lines:
        if "No module named 'renderdoc'" in out.stderr:
            print("SKIP: RenderDoc's Python module is not installed (Debian: python3-renderdoc)")
            sys.exit(77)
        fail(f"replaying {path}: no result (exit {out.returncode}): {out.stderr.strip()[-400:]}")
    counts = json.loads(lines[-1])
    if "error" in counts:
        fail(f"replaying {path}: {counts['error']}")
    return counts


def main():
    args = sys.argv[1:]
    if len(args) < 5 or args[1] != "--captures" or args[3] != "--requested-by":
        print(__doc__)
        sys.exit(2)
    frames = []
    for x in args[2].split(","):
        lo, _, hi = x.partition("-")
        frames += range(int(lo), int(hi or lo) + 1)
    out, requested_by = args[0], args[4]
    replay = "--replay" in args[5:]
    gles = "--gles" in args[5:]
    path = os.path.join(out, "report.json")
    try:
        report = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    rdoc = report.get("renderdoc")
    if not isinstance(rdoc, dict):
        fail("report.json: no \"renderdoc\" object: passprobe did not find RenderDoc in the process")
    if not rdoc.get("library", "").endswith("librenderdoc.so") or not rdoc.get("api_version"):
        fail(f"renderdoc: library {rdoc.get('library')!r}, api_version {rdoc.get('api_version')!r}")
    caps = rdoc.get("captures", [])
    got = [c.get("frame") for c in caps]
    if got != frames:
        fail(f"renderdoc.captures are of frames {got}, expected {frames}")
    lib = os.path.basename(rdoc["library"])
    for c in caps:
        what = f"capture of frame {c['frame']}"
        if c.get("requested_by") != requested_by:
            fail(f"{what}: requested_by {c.get('requested_by')!r}, expected {requested_by!r}")
        try:
            head = open(c["path"], "rb").read(4)
        except OSError as e:
            fail(f"{what}: {c.get('path')!r}: {e.strerror}")
        if head != b"RDOC":
            fail(f"{what}: {c['path']} does not start with RenderDoc's header")
        data = c.get("frame_data")
        if not isinstance(data, dict) or data.get("index") != c["frame"]:
            fail(f"{what}: frame_data {'of frame ' + str(data.get('index')) if isinstance(data, dict) else data!r}")
        if not data.get("renderdoc_capture"):
            fail(f"{what}: its frame_data is not marked renderdoc_capture")
        app = [p for p in data.get("passes", []) if "recorded_by" not in p]
        if not app:
            fail(f"{what}: no pass of the application's in frame_data")
        untimed = [p["name"] for p in app if p.get("gpu_ns") is None]
        if untimed:
            fail(f"{what}: passes without a GPU time in a captured frame: {untimed}")
        if replay:
            counts = replay_counts(c["path"], gles)
            want = {
                "begin_pass": 0 if gles else sum(1 for p in app if p["kind"] == "render"),
                "draws": sum(p["draws"] for p in app),
                "dispatches": sum(p["workload"]["dispatches"] + p["workload"]["dispatches_indirect"] for p in app),
            }
            if counts != want:
                fail(f"{what}: the capture's actions {counts} differ from the frame's application passes {want}")
            print(f"{what}: replayed, {counts}")
    marked = [f["index"] for f in report.get("frames", []) if f.get("renderdoc_capture")]
    if marked != frames:
        fail(f"frames marked renderdoc_capture: {marked}, expected {frames}")
    foreign = [p for f in report.get("frames", []) for p in f["passes"] if p.get("recorded_by")]
    if not foreign:
        fail("no pass is marked recorded_by: RenderDoc's own copies count as the application's work")
    others = {p["recorded_by"] for p in foreign}
    if others != {lib}:
        fail(f"passes recorded by {sorted(others)}, expected only {lib}")
    rows = [r["name"] for r in report["summary"]["passes"] if r["name"].startswith(lib + ":")]
    if rows:
        fail(f"summary rows of RenderDoc's own passes: {rows}")
    if "recorded by other layers" not in report["summary"].get("notes", ""):
        fail(f"summary notes do not say other layers' passes were left out: {report['summary'].get('notes')!r}")
    print(f"renderdoc: captures of frames {got} ({requested_by}), {len(foreign)} passes of {lib} marked and left out "
          "of the summary")


if __name__ == "__main__":
    main()
