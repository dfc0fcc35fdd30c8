#!/usr/bin/env python3
"""window_ab.py (run_window_ab.sh's analysis) on made-up frame times with a known answer: the
frames setting it writes, the pairing of blocks for both parities, the skipped frames, and a
run-to-run drift that must cancel."""
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import window_ab as w  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


block, pairs, skip = 10, 4, 2
check(w.frames_setting(block, pairs, 0) == "10-19,30-39,50-59,70-79", w.frames_setting(block, pairs, 0))
check(w.frames_setting(block, pairs, 1) == "20-29,40-49,60-69,80-89", w.frames_setting(block, pairs, 1))
check(w.total_frames(block, pairs) == 90, "total frames")
check(w.frames_setting(40, 16, 1).count(",") == 15, "16 ranges at most (the frames setting's limit)")


def run(parity, scale, cost, first_frames=0.0):
    """Frame times of one run: `scale` the run's own speed (what differs between processes),
    window frames `cost` times slower, the first `skip` frames of every block 5x (to be left
    out), noise of 1%."""
    rng = random.Random(parity * 1000 + int(scale * 100))
    inside = set()
    for a, b in (tuple(map(int, r.split("-"))) for r in w.frames_setting(block, pairs, parity).split(",")):
        inside.update(range(a, b + 1))
    times = []
    for f in range(w.total_frames(block, pairs)):
        t = 1e6 * scale * (cost if f in inside else 1.0) * rng.uniform(0.99, 1.01)
        if f % block < skip:
            t *= 5
        times.append(int(t))
    return times


with tempfile.TemporaryDirectory() as d:
    paths, base = [], []
    for i, (parity, scale) in enumerate([(0, 1.0), (1, 1.8), (0, 0.7), (1, 1.3)]):
        p = os.path.join(d, "run%d" % i)
        with open(p, "w") as f:
            f.write("".join("%d\n" % t for t in run(parity, scale, 1.10)))
        paths.append((parity, p))
        b = os.path.join(d, "base%d" % i)
        with open(b, "w") as f:
            f.write("".join("%d\n" % t for t in run(parity, scale, 1.0)))
        base.append(b)
    inside, floor = w.analyse(block, pairs, skip, paths, base)
    check(inside["n"] == 16 and inside["runs"] == 4, "16 pairs in 4 runs, got %d in %d" % (inside["n"], inside["runs"]))
    # The runs differ 2.5x from each other; the pairs inside each run do not.
    check(abs(inside["median"] - 1.10) < 0.02, "window ratio 1.10, got %.3f" % inside["median"])
    check(inside["low"] < 1.10 < inside["high"] and inside["high"] - inside["low"] < 0.03,
          "interval around 1.10: %.3f-%.3f" % (inside["low"], inside["high"]))
    check(abs(floor["median"] - 1.0) < 0.02, "floor 1.0 (base runs at the same scale), got %.3f" % floor["median"])
    # A burst: the last frame of every window block 11 times a frame (a writer's batch). The
    # median leaves it out; the mean counts it: (7 * 1.0 + 11) / 8 over 1.0 (skip 2 of 10).
    bursty = []
    for i, (parity, scale) in enumerate([(0, 1.0), (1, 1.8)]):
        inside = {1 + 2 * q + parity for q in range(pairs)}
        times = [int(1e6 * scale * (11 if (f // block in inside and f % block == block - 1) else 1))
                 for f in range(w.total_frames(block, pairs))]
        p = os.path.join(d, "bursty%d" % i)
        with open(p, "w") as f:
            f.write("".join("%d\n" % t for t in times))
        bursty.append((parity, p))
    med, _ = w.analyse(block, pairs, skip, bursty, [])
    mean, _ = w.analyse(block, pairs, skip, bursty, [], w.statistics.fmean)
    check(abs(med["median"] - 1.0) < 1e-9, "block medians leave the burst out, got %.3f" % med["median"])
    check(abs(mean["median"] - 2.25) < 1e-9 and abs(mean["geomean"] - 2.25) < 1e-9,
          "block means count it: 2.25, got %.3f" % mean["median"])
    check(w.main(["window_ab.py", "analyse", "10", "4", "2"] + ["%d:%s" % r for r in bursty] + ["--mean"]) == 0,
          "--mean accepted after the runs")
    check(w.main(["window_ab.py", "analyse", "10", "4", "2", "--label", "with / without"] +
                 ["%d:%s" % r for r in bursty]) == 0, "--label accepted before the runs")
    # Too short a file is refused with its name.
    short = os.path.join(d, "short")
    with open(short, "w") as f:
        f.write("1\n2\n")
    try:
        w.analyse(block, pairs, skip, [(0, short)], [])
        check(False, "a short file is refused")
    except ValueError as e:
        check("short" in str(e) and "90 needed" in str(e), "message names the file and the need: %s" % e)
    check(w.main(["window_ab.py", "analyse", "10", "4", "10", "0:" + short]) == 2, "SKIP >= BLOCK refused")

if failures:
    sys.exit(1)
print("window_ab: all checks passed")
