#!/usr/bin/env bash
# Frame time of the demo with and without passprobe (docs/performance.md): whole-run wall time
# divided by frames, runs alternating, median over rounds.
# usage: tests/bench/api/run_demo_bench.sh [BUILD_DIR] [ROUNDS] [FRAMES]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
frames=${3:-30}
demo=$build/tools/demo/passprobe-demo
out=$(mktemp -d /tmp/passprobe-demo-bench.XXXXXX)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
layer=(env VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
	VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off)
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
per_frame() { # command... -> ns per frame
	local t0 t1
	t0=$(date +%s%N)
	"$@" --frames "$frames" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / frames))
}
for ((r = 0; r < rounds; r++)); do
	per_frame "$demo" >>"$out/none"
	per_frame "${layer[@]}" "$demo" >>"$out/default"
	per_frame "${layer[@]}" VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off "$demo" >>"$out/no_stats"
done
n=$(median <"$out/none")
echo "demo: $frames frames per run (whole run incl. start-up / frames), $rounds alternating rounds"
printf '%-36s %14s %8s\n' mode "per frame" ratio
printf '%-36s %11.0f ns %8s\n' "without passprobe" "$n" 1.000
for m in default no_stats; do
	v=$(median <"$out/$m")
	label="passprobe, default settings"
	[ $m = no_stats ] && label="passprobe, pipeline_statistics=off"
	printf '%-36s %11.0f ns %8.3f\n' "$label" "$v" "$(awk -v a="$v" -v b="$n" 'BEGIN{print a/b}')"
done
rm -rf "$out"
