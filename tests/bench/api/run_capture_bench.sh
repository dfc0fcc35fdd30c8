#!/usr/bin/env bash
# Sampled GPU timing and capture windows (docs/performance.md): frame time of bench_api and
# of the demo without passprobe and with gpu_timing_interval = 1, 4, 16 and outside a capture
# window (frames=none), runs alternating mode by mode; per mode the minimum and the median of
# the runs' figures, and the ratio of medians to the run without passprobe.
# bench_api's figure per run is its own median frame time; the demo's is the wall time of a run
# of DEMO_FRAMES frames less that of a run of 5 frames, over DEMO_FRAMES - 5 (start-up and exit
# cancel out). FRAMES=0 or DEMO_FRAMES=0 skips that program.
# usage: tests/bench/api/run_capture_bench.sh [BUILD_DIR] [ROUNDS] [FRAMES] [DEMO_FRAMES]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
frames=${3:-200}
demo_frames=${4:-45}
bench=$build/tests/bench/api/bench_api
demo=$build/tools/demo/passprobe-demo
out=$(mktemp -d /tmp/passprobe-capture-bench.XXXXXX)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
layer=(env VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
	VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off)
modes=(none n1 n4 n16 outside)
settings() {
	case $1 in
	none) ;;
	n1) echo VK_PASSPROBE_PROFILER_GPU_TIMING_INTERVAL=1 ;;
	n4) echo VK_PASSPROBE_PROFILER_GPU_TIMING_INTERVAL=4 ;;
	n16) echo VK_PASSPROBE_PROFILER_GPU_TIMING_INTERVAL=16 ;;
	outside) echo VK_PASSPROBE_PROFILER_FRAMES=none ;;
	esac
}
run() { # mode, program args... -> prints the run's figure (ns)
	local mode=$1
	shift
	if [ "$mode" = none ]; then
		"$@"
	else
		# shellcheck disable=SC2046
		"${layer[@]}" $(settings "$mode") "$@"
	fi
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
minimum() { sort -n | head -1; }
for ((r = 0; r < rounds; r++)); do
	for m in "${modes[@]}"; do
		if [ "$frames" -gt 0 ]; then
			run "$m" "$bench" --frames "$frames" 2>/dev/null | sed -n 's/.*median_frame_ns=\([0-9.]*\).*/\1/p' >>"$out/api.$m"
		fi
		if [ -x "$demo" ] && [ "$demo_frames" -gt 5 ]; then
			t0=$(date +%s%N)
			run "$m" "$demo" --frames 5 >/dev/null 2>&1
			t1=$(date +%s%N)
			run "$m" "$demo" --frames "$demo_frames" >/dev/null 2>&1
			t2=$(date +%s%N)
			echo $((((t2 - t1) - (t1 - t0)) / (demo_frames - 5))) >>"$out/demo.$m"
		fi
	done
done
label() {
	case $1 in
	none) echo "without passprobe" ;;
	n1) echo "gpu_timing_interval=1 (default)" ;;
	n4) echo "gpu_timing_interval=4" ;;
	n16) echo "gpu_timing_interval=16" ;;
	outside) echo "outside a capture window (frames=none)" ;;
	esac
}
for w in api demo; do
	[ -s "$out/$w.none" ] || continue
	if [ $w = api ]; then
		echo "bench_api: 20 passes x 50 draws, $frames frames per run, $rounds alternating rounds (per run: its median frame)"
	else
		echo "demo: (run of $demo_frames frames - run of 5) / $((demo_frames - 5)), $rounds alternating rounds"
	fi
	base=$(median <"$out/$w.none")
	printf '%-42s %12s %12s %8s\n' mode "min" "median" ratio
	for m in "${modes[@]}"; do
		mi=$(minimum <"$out/$w.$m")
		me=$(median <"$out/$w.$m")
		printf '%-42s %9.0f ns %9.0f ns %8.3f\n' "$(label "$m")" "$mi" "$me" "$(awk -v a="$me" -v b="$base" 'BEGIN{print a/b}')"
	done
done
rm -rf "$out"
