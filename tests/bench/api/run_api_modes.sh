#!/usr/bin/env bash
# Frame time of bench_api (20 passes x 50 draws, lavapipe) without passprobe and with it in
# several settings, one run of each per round, each round starting one mode further on
# (docs/performance.md, "Pass boundaries"): for each mode the median of its runs' median frame
# times, and the median of its ratios to the run without passprobe of the same round (pairs
# close in time share the machine's state, which on a small VM drifts more than the
# differences being measured); for the mean frame also 95% bootstrap intervals of that median
# and of the ratios' geometric mean, which narrow with more rounds (single rounds on a small
# VM have heavy tails, which pull the mean and not the median).
# A wall-clock figure: run it on an otherwise idle machine, with many rounds.
# usage: tests/bench/api/run_api_modes.sh BUILD ROUNDS FRAMES ['NAME=SETTING SETTING...']...
#   Each mode is a name and the layer's environment settings, separated by spaces (a value may
#   hold commas: VK_PASSPROBE_PROFILER_CPU_COUNTERS=task-clock,page-faults); the mode "none"
#   (no layer) is always run, and listed first. Default modes:
#     no_gpu     VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off
#     no_gpu_no_cpu_counters   the same and VK_PASSPROBE_PROFILER_CPU_COUNTERS=none
#     outside_window           VK_PASSPROBE_PROFILER_FRAMES=none
# example: tests/bench/api/run_api_modes.sh build 21 500
# PP_BENCH=gles: the same for OpenGL ES, bench_gles (tests/bench/gles) with the shim preloaded
# instead of bench_api with the layer (tests/bench/gles/run_gles_modes.sh sets it).
# PP_BENCH_ARGS: more arguments for the benchmark, e.g. "--in-flight 2" (two command buffers
# alternated, each re-recorded every frame, one fence wait a frame).
# PP_BENCH_PIN=CPUS (e.g. 0): every run pinned there with taskset. On one CPU the application,
# the driver's threads and passprobe's writer share it and no wake-up crosses cores, so runs
# agree to a few per cent where unpinned runs on a small VM differ by up to 2x: a measure of
# the CPU time passprobe adds, not of what a program sees on an idle multi-core machine.
set -euo pipefail
build=${1:?usage: run_api_modes.sh BUILD ROUNDS FRAMES ['NAME=SETTING SETTING...']...}
rounds=${2:-11}
frames=${3:-300}
shift $(($# < 3 ? $# : 3))
no_gpu="VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off"
modes=("$@")
if ((${#modes[@]} == 0)); then
	modes=("no_gpu=$no_gpu" "no_gpu_no_cpu_counters=$no_gpu VK_PASSPROBE_PROFILER_CPU_COUNTERS=none"
		"outside_window=VK_PASSPROBE_PROFILER_FRAMES=none")
fi
case ${PP_BENCH:-api} in
api)
	bench=$build/tests/bench/api/bench_api
	what="bench_api, 20 passes x 50 draws"
	enable=(VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler) ;;
gles)
	bench=$build/tests/bench/gles/bench_gles
	what="bench_gles, 20 passes x 50 draws"
	enable=(LD_PRELOAD="$build/layer_manifest/libpassprobe_gles.so") ;;
*) echo "run_api_modes.sh: PP_BENCH is api or gles, not '$PP_BENCH'" >&2; exit 2 ;;
esac
[ -x "$bench" ] || { echo "run_api_modes.sh: $bench not built" >&2; exit 1; }
pin=()
if [ -n "${PP_BENCH_PIN:-}" ]; then
	command -v taskset >/dev/null || { echo "run_api_modes.sh: PP_BENCH_PIN needs taskset (util-linux)" >&2; exit 2; }
	taskset -c "$PP_BENCH_PIN" true || { echo "run_api_modes.sh: PP_BENCH_PIN='$PP_BENCH_PIN' is not a CPU list taskset accepts" >&2; exit 2; }
	pin=(taskset -c "$PP_BENCH_PIN")
	what_pin=", pinned to CPU $PP_BENCH_PIN"
fi
out=$(mktemp -d /tmp/passprobe-modes.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}

# "MEDIAN MEAN" of a run's frame times
frame_ns() { sed -n 's/.*median_frame_ns=\([0-9]*\).*mean_frame_ns=\([0-9]*\).*/\1 \2/p' "$out/line"; }

names=(none)
for m in "${modes[@]}"; do
	[[ $m == *=* ]] || { echo "run_api_modes.sh: a mode is 'NAME=SETTING [SETTING...]', not '$m'" >&2; exit 2; }
	for setting in ${m#*=}; do
		[[ $setting == *=* ]] || { echo "run_api_modes.sh: '$setting' in mode '${m%%=*}' is not NAME=VALUE" >&2; exit 2; }
	done
	names+=("${m%%=*}")
done
# One run of mode k (0: none), its frame times appended to the rounds of that mode, in order.
run_mode() {
	if (($1 == 0)); then
		"${pin[@]}" "$bench" --frames "$frames" ${PP_BENCH_ARGS:-} >"$out/line"
	else
		local m=${modes[$1 - 1]} settings
		read -ra settings <<<"${m#*=}"
		env "${enable[@]}" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off "${settings[@]}" \
			"${pin[@]}" "$bench" --frames "$frames" ${PP_BENCH_ARGS:-} >"$out/line" 2>/dev/null
	fi
	frame_ns >>"$out/${names[$1]}"
}
# Each round starts one mode further on: a run slowed by what the one before it left behind
# (its output files written back, its memory returned) is not always the same mode's.
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < ${#names[@]}; k++)); do
		run_mode $(((r + k) % ${#names[@]}))
	done
done
echo "$what, $frames frames per run, $rounds alternating rounds${what_pin:-}; build $build"
python3 - "$out" "${names[@]}" <<'EOF'
import math
import random
import statistics
import sys

d, names = sys.argv[1], sys.argv[2:]
runs = {n: [[int(v) for v in x.split()] for x in open(f"{d}/{n}")] for n in names}
base = runs["none"]


def interval(ratios, centre):
    """centre (the median, or the geometric mean) of the rounds' ratios and its 95% bootstrap
    interval (percentile, a fixed seed: the same runs give the same figures)."""
    rng = random.Random(1)
    values = sorted(centre(rng.choices(ratios, k=len(ratios))) for _ in range(4000))
    return centre(ratios), values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]


def geo_mean(ratios):
    return math.exp(statistics.fmean(math.log(r) for r in ratios))


# The median frame leaves out work done in bursts between frames (passprobe's writer wakes
# once per batch); the mean, over the whole frame loop, counts it.
print(f"{'mode':28s} {'median ms':>10s} {'min ms':>8s} {'median ratio':>13s} {'ratio range':>14s} "
      f"{'mean ms':>8s} {'mean ratio':>11s} {'ratio range':>14s} {'median [95%]':>20s} {'geo-mean [95%]':>20s}")
for n in names:
    med = [r[0] for r in runs[n]]
    mean = [r[1] for r in runs[n]]
    mr = [a[0] / b[0] for a, b in zip(runs[n], base)]
    ar = [a[1] / b[1] for a, b in zip(runs[n], base)]
    m, mlo, mhi = interval(ar, statistics.median)
    g, glo, ghi = interval(ar, geo_mean)
    print(f"{n:28s} {statistics.median(med) / 1e6:10.3f} {min(med) / 1e6:8.3f} "
          f"{statistics.median(mr):13.3f} {min(mr):6.3f}-{max(mr):.3f} "
          f"{statistics.median(mean) / 1e6:8.3f} {statistics.median(ar):11.3f} {min(ar):6.3f}-{max(ar):.3f} "
          f"{m:6.3f} [{mlo:.3f}-{mhi:.3f}] {g:6.3f} [{glo:.3f}-{ghi:.3f}]")
EOF
