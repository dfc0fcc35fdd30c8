#!/usr/bin/env bash
# Frame time with passprobe measuring against passprobe loaded but idle, in the same process
# (docs/performance.md, "Frame time in one process"): the benchmark runs BLOCK-frame blocks,
# every other one a capture window (the frames setting), and window_ab.py compares each window
# block with its neighbour. Whole runs of this VM differ by up to 2x from one another, blocks of
# one run far less, so this decides differences that alternating whole runs cannot. Runs
# alternate which block of each pair is the window. Each round runs the benchmark once without
# passprobe (for the floor: passprobe idle against not loaded, across processes, so noisier)
# and once in each mode, so that modes are compared within the same rounds.
# Outside a window the diagnostics keep running (docs/settings.md), so the window ratio is the
# cost of measuring: timing, CPU counters, attribution and the outputs.
# usage: tests/bench/run_window_ab.sh api|gles BUILD [ROUNDS] [BLOCK] [MODE...]
#   api: bench_api (20 passes x 50 draws, lavapipe), gles: bench_gles (the same, llvmpipe).
#   MODE: a name and the layer's environment settings, 'NAME=SETTING=VALUE SETTING=VALUE...'
#   ('NAME=' for the default settings; the default MODE is 'defaults='); the frames setting
#   is this script's.
# example: tests/bench/run_window_ab.sh api build 8 40 defaults= \
#            'no_gpu=VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off'
set -euo pipefail
usage="usage: run_window_ab.sh api|gles BUILD [ROUNDS] [BLOCK] ['NAME=SETTING=VALUE ...'...]"
api=${1:?$usage}
build=${2:?$usage}
rounds=${3:-6}
block=${4:-40}
shift $(($# < 4 ? $# : 4))
modes=("$@")
((${#modes[@]})) || modes=("defaults=")
names=()
for m in "${modes[@]}"; do
	[[ $m == ?*=* ]] || { echo "run_window_ab.sh: a mode is 'NAME=SETTING=VALUE ...' or 'NAME=', not '$m'" >&2; exit 2; }
	for s in ${m#*=}; do
		[[ $s == *=* ]] || { echo "run_window_ab.sh: '$s' in mode '${m%%=*}' is not SETTING=VALUE" >&2; exit 2; }
	done
	names+=("${m%%=*}")
done
[[ $rounds =~ ^[0-9]+$ && $rounds -ge 2 ]] || { echo "run_window_ab.sh: ROUNDS is a number from 2, not '$rounds'" >&2; exit 2; }
[[ $block =~ ^[0-9]+$ && $block -ge 8 ]] || { echo "run_window_ab.sh: BLOCK is a number of frames from 8, not '$block'" >&2; exit 2; }
pairs=16 # the frames setting takes at most 16 ranges (layer/common/pp_frame_ranges.h)
skip=$((block / 8))
here=$(cd "$(dirname "$0")" && pwd)
case $api in
api) bench=$build/tests/bench/api/bench_api ;;
gles) bench=$build/tests/bench/gles/bench_gles ;;
*) echo "run_window_ab.sh: the first argument is api or gles, not '$api'" >&2; exit 2 ;;
esac
[ -x "$bench" ] || { echo "run_window_ab.sh: $bench not built" >&2; exit 1; }
build=$(cd "$build" && pwd)
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
case $api in
api) enable=(VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler) ;;
gles) enable=(LD_PRELOAD="$build/layer_manifest/libpassprobe_gles.so") ;;
esac
out=$(mktemp -d /tmp/passprobe-window-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
frames=$(python3 "$here/window_ab.py" total "$block" "$pairs")
for ((r = 0; r < rounds; r++)); do
	"$bench" --frames "$frames" --frame-times "$out/base.$r" >/dev/null
	parity=$((r % 2))
	window=$(python3 "$here/window_ab.py" frames "$block" "$pairs" "$parity")
	for i in "${!modes[@]}"; do
		read -ra settings <<<"${modes[$i]#*=}"
		env "${enable[@]}" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off \
			"${settings[@]}" VK_PASSPROBE_PROFILER_FRAMES="$window" \
			"$bench" --frames "$frames" --frame-times "$out/$i.$r" >/dev/null 2>"$out/log" ||
			{ cat "$out/log" >&2; exit 1; }
		echo "$parity:$out/$i.$r" >>"$out/$i.runs"
	done
done
echo "$api benchmark, $rounds rounds of $frames frames: $pairs window blocks of $block frames each" \
	"(first $skip of each block left out), modes in the same rounds; build $build"
for i in "${!modes[@]}"; do
	echo "== ${names[$i]}: ${modes[$i]#*=}"
	mapfile -t runs <"$out/$i.runs"
	python3 "$here/window_ab.py" analyse "$block" "$pairs" "$skip" "${runs[@]}" \
		--base $(for ((r = 0; r < rounds; r++)); do echo "$out/base.$r"; done) | sed "s/^RESULT /RESULT mode=${names[$i]} /"
done
