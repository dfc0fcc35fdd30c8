#!/usr/bin/env python3
"""run_frame_profile.sh's analysis: per-frame time of each part of one CPU, from `perf report
--sort comm,dso -F period,comm,dso` of a short and a long run with and without passprobe (the
difference between the two frame counts: start-up and exit left out).
usage: frame_profile.py DIR SHORT_FRAMES LONG_FRAMES  (DIR holds none_short.txt, pp_short.txt,
none_long.txt, pp_long.txt and the runs' outputs *.line)"""
import re
import sys

PASSPROBE_LIBS = ("libVkLayer_passprobe.so", "libpassprobe_gles.so")
WRITER = "passprobe-out"
KERNEL = "[kernel.kallsyms]"
# Threads of the machine rather than of the benchmark's process.
OTHERS = re.compile(r"^(swapper|kworker|ksoftirqd|rcu|migration|kcompactd|kswapd|jbd2|perf|taskset|:-1)")

PARTS = (
    ("app", "application's threads, user space (program, loader, driver, libc)"),
    ("app_kernel", "application's threads, kernel"),
    ("pp", "passprobe's code in the application's threads"),
    ("writer", "passprobe's writer thread, user space"),
    ("writer_kernel", "passprobe's writer thread, kernel"),
    ("idle", "CPU idle"),
    ("other", "other threads of the machine"),
)


def part(comm, dso):
    if comm == WRITER:
        return "writer_kernel" if dso == KERNEL else "writer"
    if comm.startswith("swapper"):
        return "idle"
    if OTHERS.match(comm):
        return "other"
    if dso.startswith(PASSPROBE_LIBS):
        return "pp"
    return "app_kernel" if dso == KERNEL else "app"


def parse(path):
    """ns of CPU time by part, from perf report's lines: PERIOD COMM DSO (DSO may hold spaces)."""
    ns = {k: 0 for k, _ in PARTS}
    for line in open(path):
        fields = line.split(None, 2)
        if len(fields) < 3 or not fields[0].isdigit():
            continue
        ns[part(fields[1], fields[2].strip())] += int(fields[0])
    return ns


def mean_frame_ns(path):
    m = re.search(r"mean_frame_ns=(\d+)", open(path).read())
    return int(m.group(1)) if m else None


def main():
    d, short, long_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if long_ <= short:
        sys.exit("frame_profile.py: LONG_FRAMES must exceed SHORT_FRAMES")
    per_frame = {}
    for run in ("none", "pp"):
        a, b = parse(f"{d}/{run}_short.txt"), parse(f"{d}/{run}_long.txt")
        per_frame[run] = {k: (b[k] - a[k]) / (long_ - short) / 1000.0 for k, _ in PARTS}
    print(f"{'us a frame':54s} {'without':>9s} {'with':>9s} {'added':>9s}")
    for k, label in PARTS:
        n, p = per_frame["none"][k], per_frame["pp"][k]
        print(f"{label:54s} {n:9.2f} {p:9.2f} {p - n:+9.2f}")
    tn, tp = sum(per_frame["none"].values()), sum(per_frame["pp"].values())
    print(f"{'all of the CPU':54s} {tn:9.2f} {tp:9.2f} {tp - tn:+9.2f}")
    own = sum(per_frame["pp"][k] for k in ("pp", "writer", "writer_kernel"))
    print(f"passprobe's own parts (its code, its writer): {own:.2f} us a frame, "
          f"{own / tn * 100 if tn else 0:.1f}% of the frame without it")
    if tn:
        print(f"ratio of the CPU's time a frame, with / without: {tp / tn:.3f}")
    frames = {r: mean_frame_ns(f"{d}/{r}_long.line") for r in ("none", "pp")}
    if all(frames.values()):
        print(f"the long runs' mean frames: {frames['none'] / 1e6:.3f} ms without, {frames['pp'] / 1e6:.3f} ms with "
              f"(ratio {frames['pp'] / frames['none']:.3f})")
    for k in ("app", "app_kernel", "idle", "other"):
        if per_frame["pp"][k] < 0 or per_frame["none"][k] < 0:
            print("note: a part shrank from the short run to the long one: the runs' spread exceeds it; "
                  "repeat the runs")
            break


if __name__ == "__main__":
    main()
