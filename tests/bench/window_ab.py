#!/usr/bin/env python3
"""Frame time with passprobe measuring against passprobe idle, in one process: the frames of a
run are cut into blocks of BLOCK frames, every other block is a capture window (the frames
setting), and each window block is compared with its neighbour outside a window. The blocks
alternate within one process, so what changes from one run to the next on a small VM (2x in
per-run medians here) cancels out; run_window_ab.sh drives it (docs/performance.md, "Frame
time in one process").

Block 0 warms up and is never counted. Blocks 1 to 2*PAIRS form pairs (1,2), (3,4), ...: with
parity 0 the first block of each pair is the window, with parity 1 the second, and runs
alternate parities so that neither side is always first. The first SKIP frames of each block
are left out (the switch itself, and the writer thread finishing a window's frames), and a
block's time is the median of the rest, or with --mean their mean (which counts work that comes
in bursts between frames, as passprobe's writer thread does on one CPU). The interval is over
runs (each run's geometric mean of its pairs), not over pairs: the pairs of one run share that
run's state.

  window_ab.py frames BLOCK PAIRS PARITY   the frames setting for one run
  window_ab.py total BLOCK PAIRS           the number of frames a run needs
  window_ab.py analyse BLOCK PAIRS SKIP PARITY:FILE [PARITY:FILE...] [--base FILE...] [--mean]
                      [--label TEXT]
      FILE: a run's frame times (bench_api/bench_gles --frame-times), nanoseconds, a line per
      frame. --base: runs without passprobe, one per run in the same order (its round), whose
      blocks at the same places the run's blocks outside windows are compared with (across
      processes: noisy).

The same pairing serves bench_api --twin-layer (tests/bench/api/run_api_twin.sh), whose blocks
1, 3, 5... (parity 0) or 2, 4, 6... (parity 1) run on a device with the layer and the others on
one without: there the "window" blocks are those with passprobe (--label says so in the output).
"""
import math
import statistics
import sys


def windows(block, pairs, parity):
    """The window blocks' frame ranges, inclusive."""
    out = []
    for p in range(pairs):
        b = 1 + 2 * p + (1 if parity else 0)
        out.append((b * block, (b + 1) * block - 1))
    return out


def frames_setting(block, pairs, parity):
    return ",".join("%d-%d" % r for r in windows(block, pairs, parity))


def total_frames(block, pairs):
    return (1 + 2 * pairs) * block


def block_time(times, block, b, skip, stat=statistics.median):
    part = times[b * block + skip:(b + 1) * block]
    return stat(part) if part else None


def pair_ratios(times, block, pairs, skip, parity, stat=statistics.median):
    """Per pair: the window block's time over the other block's."""
    out = []
    for p in range(pairs):
        first, second = 1 + 2 * p, 2 + 2 * p
        inside, outside = (second, first) if parity else (first, second)
        a, b = block_time(times, block, inside, skip, stat), block_time(times, block, outside, skip, stat)
        if a and b:
            out.append(a / b)
    return out


def outside_times(times, block, pairs, skip, parity, stat=statistics.median):
    """{block: time} of the blocks outside windows."""
    inside = {1 + 2 * p + (1 if parity else 0) for p in range(pairs)}
    return {b: block_time(times, block, b, skip, stat) for b in range(1, 1 + 2 * pairs) if b not in inside}


# Student's t, two-sided 95%, by degrees of freedom (1 to 30; above, 2.0).
T95 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
       2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04]


def summary(groups):
    """groups: one list of ratios per run. The median and quartiles of all ratios; the
    geometric mean of the runs' geometric means, with a 95% interval over the runs (the
    pairs of one run share its state, so the run is the independent unit)."""
    ratios = [r for g in groups for r in g]
    n = len(ratios)
    q = statistics.quantiles(ratios, n=4) if n >= 2 else [ratios[0]] * 3
    means = [statistics.fmean(math.log(r) for r in g) for g in groups if g]
    mean = statistics.fmean(means)
    k = len(means)
    half = (T95[k - 2] if k - 2 < len(T95) else 2.0) * statistics.stdev(means) / math.sqrt(k) if k >= 2 else math.inf
    return {"n": n, "runs": k, "median": statistics.median(ratios), "q1": q[0], "q3": q[2],
            "geomean": math.exp(mean), "low": math.exp(mean - half), "high": math.exp(mean + half)}


def read_times(path):
    with open(path) as f:
        return [int(line) for line in f if line.strip()]


def analyse(block, pairs, skip, runs, base, stat=statistics.median):
    """runs: [(parity, path)]; base: paths of runs without passprobe, none or one per run (the
    run's own round); stat: a block's time from its frames (statistics.median or fmean)."""
    if base and len(base) != len(runs):
        raise ValueError("%d runs and %d runs without passprobe: one of each per round" % (len(runs), len(base)))
    ratios, floor = [], []
    need = total_frames(block, pairs)
    for i, (parity, path) in enumerate(runs):
        times = read_times(path)
        if len(times) < need:
            raise ValueError("%s has %d frames, %d needed" % (path, len(times), need))
        ratios.append(pair_ratios(times, block, pairs, skip, parity, stat))
        if base:
            btimes = read_times(base[i])
            floor.append([m / bm for b, m in outside_times(times, block, pairs, skip, parity, stat).items()
                          for bm in [block_time(btimes, block, b, skip, stat)] if m and bm])
    return summary(ratios), (summary(floor) if floor else None)


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "frames":
            print(frames_setting(int(argv[2]), int(argv[3]), int(argv[4])))
            return 0
        if len(argv) == 4 and argv[1] == "total":
            print(total_frames(int(argv[2]), int(argv[3])))
            return 0
        if len(argv) >= 6 and argv[1] == "analyse":
            block, pairs, skip = int(argv[2]), int(argv[3]), int(argv[4])
            rest = argv[5:]
            label = "in a window / outside, pairs of neighbouring blocks in one process"
            if "--label" in rest[:-1]:
                at = rest.index("--label")
                label, rest = rest[at + 1], rest[:at] + rest[at + 2:]
            stat = statistics.fmean if "--mean" in rest else statistics.median
            rest = [a for a in rest if a != "--mean"]
            base = rest[rest.index("--base") + 1:] if "--base" in rest else []
            rest = rest[:rest.index("--base")] if "--base" in rest else rest
            runs = [(int(a.split(":", 1)[0]), a.split(":", 1)[1]) for a in rest]
            if skip >= block or not runs:
                raise ValueError("SKIP must be below BLOCK, and at least one run is needed")
            inside, floor = analyse(block, pairs, skip, runs, base, stat)
            print("%s, block %s frame: %d pairs in %d runs"
                  % (label, "mean" if stat is statistics.fmean else "median", inside["n"], inside["runs"]))
            print("  median %.3f (quartiles %.3f-%.3f); geometric mean %.3f, 95%% interval over the runs %.3f-%.3f"
                  % (inside["median"], inside["q1"], inside["q3"], inside["geomean"], inside["low"], inside["high"]))
            if floor:
                print("outside a window / without passprobe, same blocks, across processes: %d blocks in %d runs"
                      % (floor["n"], floor["runs"]))
                print("  median %.3f (quartiles %.3f-%.3f); geometric mean %.3f, 95%% interval over the runs %.3f-%.3f"
                      % (floor["median"], floor["q1"], floor["q3"], floor["geomean"], floor["low"], floor["high"]))
            print("RESULT window_ratio=%.4f window_low=%.4f window_high=%.4f stat=%s%s"
                  % (inside["geomean"], inside["low"], inside["high"], "mean" if stat is statistics.fmean else "median",
                     " floor_ratio=%.4f" % floor["geomean"] if floor else ""))
            return 0
    except (ValueError, OSError) as e:
        print("window_ab.py: %s" % e, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
