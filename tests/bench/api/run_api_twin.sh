#!/usr/bin/env bash
# Frame time with passprobe against without it, in one process (docs/performance.md, "With and
# without passprobe in one process"): bench_api --twin-layer renders the same frames on two
# devices of two Vulkan instances, one with passprobe's layer enabled and one without, in
# alternating blocks of BLOCK frames, and window_ab.py compares each block with passprobe with
# its neighbour without. Whole runs of this VM differ by up to 2x from one another, neighbouring
# blocks of one run far less: this decides the frame-time ratio that alternating whole runs
# (run_api_modes.sh) can only bracket. Runs alternate which block of each pair has passprobe.
# Blocks compare by their mean frame (the first BLOCK/8 frames of each left out): on one CPU
# passprobe's writer thread runs in bursts between frames, which a median would leave out.
# What the pairing cannot split, and therefore leaves out of the ratio: what passprobe does to
# the thread itself rather than to the layered device's calls, in both kinds of blocks alike
# (the CPU counters' watch, a perf event whose context switch the thread pays at each of its
# switches: docs/cpu-counters.md, about 1 us a switch), and the writer's bursts that fall into
# a block without passprobe (at most one batch of frames at each block's end).
# usage: tests/bench/api/run_api_twin.sh BUILD [RUNS] [BLOCK] [SETTING=VALUE...]
#   SETTING=VALUE: passprobe's settings (default: GPU queries off, the frame-time target's).
#   PP_BENCH_PIN=CPUS: every run pinned there with taskset (the target's figure: one CPU).
#   PP_BENCH_ARGS: bench_api's arguments (default "--in-flight 2").
#   PP_TWIN_LAYER=NAME:DIR: another layer in passprobe's place, found in DIR: the method's
#   control with a layer that does next to nothing, e.g.
#   VK_LAYER_PASSPROBE_test_spy_above:build/tests/layers/spy_manifest/above
# example: PP_BENCH_PIN=0 tests/bench/api/run_api_twin.sh build 20 256
set -euo pipefail
usage="usage: run_api_twin.sh BUILD [RUNS] [BLOCK] [SETTING=VALUE...]"
build=${1:?$usage}
runs=${2:-10}
block=${3:-256}
shift $(($# < 3 ? $# : 3))
settings=("$@")
((${#settings[@]})) || settings=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off)
for s in "${settings[@]}"; do
	[[ $s == VK_PASSPROBE_PROFILER_*=* ]] || { echo "run_api_twin.sh: '$s' is not VK_PASSPROBE_PROFILER_NAME=VALUE" >&2; exit 2; }
done
[[ $runs =~ ^[0-9]+$ && $runs -ge 2 ]] || { echo "run_api_twin.sh: RUNS is a number from 2, not '$runs'" >&2; exit 2; }
[[ $block =~ ^[0-9]+$ && $block -ge 8 ]] || { echo "run_api_twin.sh: BLOCK is a number of frames from 8, not '$block'" >&2; exit 2; }
pairs=16
skip=$((block / 8))
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/tests/bench/api/bench_api
[ -x "$bench" ] || { echo "run_api_twin.sh: $bench not built" >&2; exit 1; }
build=$(cd "$build" && pwd)
layer=VK_LAYER_PASSPROBE_profiler
layer_dir=$build/layer_manifest
if [ -n "${PP_TWIN_LAYER:-}" ]; then
	[[ $PP_TWIN_LAYER == ?*:?* ]] || { echo "run_api_twin.sh: PP_TWIN_LAYER is NAME:DIR, not '$PP_TWIN_LAYER'" >&2; exit 2; }
	layer=${PP_TWIN_LAYER%%:*}
	layer_dir=${PP_TWIN_LAYER#*:}
fi
pin=()
if [ -n "${PP_BENCH_PIN:-}" ]; then
	command -v taskset >/dev/null || { echo "run_api_twin.sh: PP_BENCH_PIN needs taskset (Debian: util-linux)" >&2; exit 77; }
	pin=(taskset -c "$PP_BENCH_PIN")
fi
out=$(mktemp -d /tmp/passprobe-twin.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
frames=$(python3 "$here/../window_ab.py" total "$block" "$pairs")
read -ra args <<<"${PP_BENCH_ARGS---in-flight 2}"
list=()
for ((r = 0; r < runs; r++)); do
	parity=$((r % 2))
	# The layer only where bench_api enables it: not VK_INSTANCE_LAYERS, which would put it
	# under both devices.
	env -u VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH="$layer_dir" \
		VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off "${settings[@]}" \
		"${pin[@]}" "$bench" --frames "$frames" "${args[@]}" --twin-layer "$layer" \
		--block "$block" --parity "$parity" --frame-times "$out/run.$r" >"$out/line" 2>"$out/log" ||
		{ cat "$out/log" >&2; exit 1; }
	list+=("$parity:$out/run.$r")
done
echo "bench_api ${args[*]}, $runs runs of $frames frames${PP_BENCH_PIN:+, pinned to CPU $PP_BENCH_PIN}:" \
	"$pairs pairs of blocks of $block frames, with $layer and without, in one process (first $skip of each" \
	"block left out); settings: ${settings[*]}; build $build"
for stat in --mean ""; do
	python3 "$here/../window_ab.py" analyse "$block" "$pairs" "$skip" "${list[@]}" $stat \
		--label "with the layer / without, neighbouring blocks"
done
