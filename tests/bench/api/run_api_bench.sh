#!/usr/bin/env bash
# Overhead of passprobe on an API-heavy workload (docs/performance.md):
#   1. frame time with and without the layer, runs alternating, median of per-run medians;
#   2. instructions per recorded draw above the bare driver call (callgrind, exact).
# usage: tests/bench/api/run_api_bench.sh [BUILD_DIR] [ROUNDS] [FRAMES]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
frames=${3:-200}
bench=$build/tests/bench/api/bench_api
out=$(mktemp -d /tmp/passprobe-bench.XXXXXX)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
layer=(env VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
	VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

run_mode() { # label, frames in flight, extra settings...
	local label=$1 inflight=$2
	shift 2
	: >"$out/$label.frame"
	: >"$out/$label.record"
	for ((r = 0; r < rounds; r++)); do
		"$bench" --frames "$frames" --in-flight "$inflight" >"$out/line" &&
			field median_frame_ns <"$out/line" >>"$out/none$inflight.frame" &&
			field median_record_ns <"$out/line" >>"$out/none$inflight.record"
		"${layer[@]}" "$@" "$bench" --frames "$frames" --in-flight "$inflight" >"$out/line"
		field median_frame_ns <"$out/line" >>"$out/$label.frame"
		field median_record_ns <"$out/line" >>"$out/$label.record"
	done
}

for n in 1 2; do
	: >"$out/none$n.frame"
	: >"$out/none$n.record"
done
run_mode default 1
run_mode no_stats 1 VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off
run_mode no_gpu 1 VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off VK_PASSPROBE_PROFILER_TIMESTAMPS=off
run_mode read 1 VK_PASSPROBE_PROFILER_COPY_RESULTS=off
run_mode default2 2
run_mode read2 2 VK_PASSPROBE_PROFILER_COPY_RESULTS=off

echo "API-heavy benchmark: 20 render passes x 50 draws per frame, $frames frames per run, $rounds alternating rounds per mode"
printf '%-48s %14s %8s %16s %8s\n' mode "frame (median)" ratio "record (median)" ratio
for m in none1 default no_stats no_gpu read none2 default2 read2; do
	f=$(median <"$out/$m.frame")
	r=$(median <"$out/$m.record")
	case $m in
	none1) label="without passprobe" base=none1 ;;
	default) label="passprobe, default settings" ;;
	no_stats) label="passprobe, pipeline_statistics=off" ;;
	no_gpu) label="passprobe, no GPU queries" ;;
	read) label="passprobe, copy_results=off" ;;
	none2) label="2 frames in flight, without passprobe" base=none2 ;;
	default2) label="2 frames in flight, default settings" ;;
	read2) label="2 frames in flight, copy_results=off" ;;
	esac
	bf=$(median <"$out/$base.frame")
	br=$(median <"$out/$base.record")
	printf '%-48s %11.0f ns %8.3f %13.0f ns %8.3f\n' "$label" "$f" "$(awk -v a="$f" -v b="$bf" 'BEGIN{print a/b}')" "$r" \
		"$(awk -v a="$r" -v b="$br" 'BEGIN{print a/b}')"
done

if command -v valgrind >/dev/null; then
	k=10000
	valgrind --tool=callgrind --callgrind-out-file="$out/cg.none" --toggle-collect=bench_record_draws \
		"$bench" --record-only $k 2>"$out/cg.none.log"
	"${layer[@]}" valgrind --tool=callgrind --callgrind-out-file="$out/cg.layer" \
		--toggle-collect=bench_record_draws "$bench" --record-only $k 2>"$out/cg.layer.log"
	a=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/cg.none.log")
	b=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/cg.layer.log")
	echo "instructions per vkCmdDraw (callgrind, $k draws): without $((a / k)), with passprobe $((b / k)), overhead $(((b - a) / k))"
fi
rm -rf "$out"
