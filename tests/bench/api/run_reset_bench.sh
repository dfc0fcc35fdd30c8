#!/usr/bin/env bash
# Cost of passprobe's two query reset paths (docs/timing.md, "Resetting queries";
# docs/performance.md, "Query reset paths"): bench_api at --vulkan 1.1 with the spy layer below
# passprobe in both runs, once with host query reset (VK_EXT_host_query_reset, enabled by
# passprobe) and once with it hidden by the spy (GPU-side resets), and without any layer;
# runs alternate. Prints one line per run; the summary is the median per mode.
# usage: tests/bench/api/run_reset_bench.sh [BUILD_DIR] [ROUNDS] [FRAMES]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
frames=${3:-200}
bench=$build/tests/bench/api/bench_api
out=$(mktemp -d /tmp/passprobe-reset-bench.XXXXXX)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
layer=(env VK_ADD_LAYER_PATH="$build/layer_manifest:$build/tests/layers/spy_manifest/below"
	VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below
	VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off
	PASSPROBE_SPY_BELOW_OUTPUT=/dev/null)
for ((r = 0; r < rounds; r++)); do
	for inflight in 1 2; do
		echo "host $inflight $("${layer[@]}" "$bench" --vulkan 1.1 --frames "$frames" --in-flight "$inflight" 2>/dev/null)"
		echo "gpu $inflight $("${layer[@]}" PASSPROBE_SPY_BELOW_HIDE_EXTENSIONS=VK_EXT_host_query_reset \
			"$bench" --vulkan 1.1 --frames "$frames" --in-flight "$inflight" 2>/dev/null)"
		echo "none $inflight $("$bench" --vulkan 1.1 --frames "$frames" --in-flight "$inflight")"
	done
done | tee "$out/runs"
echo "median per mode (frame time, recording time), $rounds rounds of $frames frames:"
for mode in none host gpu; do
	for inflight in 1 2; do
		f=$(awk -v m=$mode -v i=$inflight '$1 == m && $2 == i' "$out/runs" | sed -n 's/.*median_frame_ns=\([0-9]*\).*/\1/p' |
			sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
		r=$(awk -v m=$mode -v i=$inflight '$1 == m && $2 == i' "$out/runs" | sed -n 's/.*median_record_ns=\([0-9]*\).*/\1/p' |
			sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
		printf '%-5s in flight %s: frame %8.0f ns  record %8.0f ns\n' "$mode" "$inflight" "$f" "$r"
	done
done
rm -rf "$out"
