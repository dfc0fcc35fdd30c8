#!/usr/bin/env python3
"""bench_api --twin-layer (run_api_twin.sh's benchmark) on lavapipe, through the real loader:
passprobe measures exactly the frames of the blocks window_ab.py counts as "with passprobe" (for
both parities), plus the untimed warm-up, and none of the other device's; every frame's time is
written; a layer the loader cannot find is refused by name.

usage: test_api_twin.py BENCH_API LAYER_MANIFEST_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import window_ab  # noqa: E402

LAYER = "VK_LAYER_PASSPROBE_profiler"
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def main(bench, manifests):
    block, pairs = 8, 3
    frames = window_ab.total_frames(block, pairs)
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, VK_ADD_LAYER_PATH=manifests, VK_PASSPROBE_PROFILER_SUMMARY="off",
                   VK_PASSPROBE_PROFILER_TIMESTAMPS="off", VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS="off",
                   XDG_RUNTIME_DIR=d)
        env.pop("VK_INSTANCE_LAYERS", None)
        for parity in (0, 1):
            out, times = os.path.join(d, "out%d" % parity), os.path.join(d, "times%d" % parity)
            r = subprocess.run([bench, "--frames", str(frames), "--passes", "2", "--draws", "2", "--in-flight", "2",
                                "--twin-layer", LAYER, "--block", str(block), "--parity", str(parity),
                                "--frame-times", times],
                               env=dict(env, VK_PASSPROBE_PROFILER_OUTPUT_DIR=out), capture_output=True, text=True,
                               timeout=120)
            check(r.returncode == 0, "parity %d: bench_api exits 0%s" %
                  (parity, " (%d: %s)" % (r.returncode, r.stderr[-500:]) if r.returncode else ""))
            if r.returncode:
                continue
            fields = dict(f.split("=", 1) for f in r.stdout.split() if "=" in f)
            windows = window_ab.windows(block, pairs, parity)
            with_pp = sum(b - a + 1 for a, b in windows)
            blocks = ",".join(str(a // block) for a, _ in windows)
            check(fields.get("layered_blocks") == blocks, "parity %d: blocks %s with passprobe, window_ab.py's %s" %
                  (parity, fields.get("layered_blocks"), blocks))
            check(fields.get("layered_frames") == str(with_pp),
                  "parity %d: %s frames with passprobe, window_ab.py's blocks have %d" %
                  (parity, fields.get("layered_frames"), with_pp))
            with open(os.path.join(out, "report.json")) as f:
                report = json.load(f)
            # The warm-up's frames too: a block of them before the timed ones.
            check(report["frames_total"] == with_pp + block,
                  "parity %d: passprobe measured %d frames, %d expected (the device without it none)" %
                  (parity, report["frames_total"], with_pp + block))
            with open(times) as f:
                check(len(f.read().split()) == frames, "parity %d: a time for each of the %d frames" % (parity, frames))
        r = subprocess.run([bench, "--frames", "4", "--twin-layer", "VK_LAYER_passprobe_test_none"], env=env,
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 1 and "VK_LAYER_passprobe_test_none" in r.stderr and "VK_ADD_LAYER_PATH" in r.stderr,
              "an unknown layer refused by name (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("bench_api --twin-layer: all checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
