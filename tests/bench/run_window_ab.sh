#!/usr/bin/env bash
# Frame time with passprobe measuring against passprobe loaded but idle, in the same process
# (docs/performance.md, "Frame time in one process"): the benchmark runs BLOCK-frame blocks,
# every other one a capture window (the frames setting), and window_ab.py compares each window
# block with its neighbour. Whole runs of this VM differ by up to 2x from one another, blocks of
# one run far less, so this decides differences that alternating whole runs cannot. Runs
# alternate which block of each pair is the window. Each round also runs the benchmark without
# passprobe, for the floor (passprobe idle against not loaded, across processes, so noisier).
# Outside a window the diagnostics keep running (docs/settings.md), so the window ratio is the
# cost of measuring: timing, CPU counters, attribution and the outputs.
# usage: tests/bench/run_window_ab.sh api|gles BUILD [ROUNDS] [BLOCK] [SETTING=VALUE...]
#   api: bench_api (20 passes x 50 draws, lavapipe), gles: bench_gles (the same, llvmpipe);
#   SETTING=VALUE: the layer's environment settings for every run (e.g.
#   VK_PASSPROBE_PROFILER_TIMESTAMPS=off); the frames setting is this script's.
# example: tests/bench/run_window_ab.sh api build 6 40 VK_PASSPROBE_PROFILER_TIMESTAMPS=off
set -euo pipefail
api=${1:?usage: run_window_ab.sh api|gles BUILD [ROUNDS] [BLOCK] [SETTING=VALUE...]}
build=${2:?usage: run_window_ab.sh api|gles BUILD [ROUNDS] [BLOCK] [SETTING=VALUE...]}
rounds=${3:-6}
block=${4:-40}
shift $(($# < 4 ? $# : 4))
settings=("$@")
for s in "${settings[@]}"; do
	[[ $s == *=* ]] || { echo "run_window_ab.sh: '$s' is not SETTING=VALUE" >&2; exit 2; }
done
pairs=16 # the frames setting takes at most 16 ranges (layer/common/pp_frame_ranges.h)
skip=$((block / 8 > 2 ? block / 8 : 2))
here=$(cd "$(dirname "$0")" && pwd)
case $api in
api)
	bench=$build/tests/bench/api/bench_api
	enable=(VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler) ;;
gles)
	bench=$build/tests/bench/gles/bench_gles
	enable=(LD_PRELOAD="$build/layer_manifest/libpassprobe_gles.so") ;;
*) echo "run_window_ab.sh: the first argument is api or gles, not '$api'" >&2; exit 2 ;;
esac
[ -x "$bench" ] || { echo "run_window_ab.sh: $bench not built" >&2; exit 1; }
build=$(cd "$build" && pwd) bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
((block >= 8)) || { echo "run_window_ab.sh: BLOCK is at least 8 frames, not $block" >&2; exit 2; }
out=$(mktemp -d /tmp/passprobe-window-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
frames=$(python3 "$here/window_ab.py" total "$block" "$pairs")
runs=() base=()
for ((r = 0; r < rounds; r++)); do
	"$bench" --frames "$frames" --frame-times "$out/base.$r" >/dev/null
	base+=("$out/base.$r")
	parity=$((r % 2))
	env "${enable[@]}" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off "${settings[@]}" \
		VK_PASSPROBE_PROFILER_FRAMES="$(python3 "$here/window_ab.py" frames "$block" "$pairs" "$parity")" \
		"$bench" --frames "$frames" --frame-times "$out/run.$r" >/dev/null 2>"$out/log.$r" ||
		{ cat "$out/log.$r" >&2; exit 1; }
	runs+=("$parity:$out/run.$r")
done
echo "$api benchmark, $rounds runs of $frames frames: $pairs window blocks of $block frames each" \
	"(first $skip of each block left out); settings: ${settings[*]:-defaults}; build $build"
python3 "$here/window_ab.py" analyse "$block" "$pairs" "$skip" "${runs[@]}" --base "${base[@]}"
