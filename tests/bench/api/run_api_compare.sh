#!/usr/bin/env bash
# Frame time of bench_api (20 passes x 50 draws per frame, lavapipe) without passprobe and
# with two builds of it, runs alternating (none, A, B, none, A, B, ...), with GPU queries off
# and with the default settings: the before/after of docs/performance.md, "Pass boundaries".
# Prints, per mode, the minimum and the median over the rounds of each run's median frame
# time, and their ratios to the run without passprobe; then the same of its median recording
# time (the application thread's recording of the frame, where the pass boundary hooks run).
# A wall-clock figure: run it on a quiet machine; the instruction counts of run_pass_cost.sh
# are the load-independent ones.
# usage: tests/bench/api/run_api_compare.sh BUILD_A BUILD_B [ROUNDS] [FRAMES]
#   BUILD_A, BUILD_B: build directories (their layer_manifest); bench_api is BUILD_B's.
#   PP_BENCH_ARGS: more arguments for bench_api (e.g. "--in-flight 2"); PP_BENCH_PIN=CPUS:
#   every run pinned there with taskset (run_api_modes.sh says what that measures).
set -euo pipefail
a=${1:?usage: run_api_compare.sh BUILD_A BUILD_B [ROUNDS] [FRAMES]}
b=${2:?usage: run_api_compare.sh BUILD_A BUILD_B [ROUNDS] [FRAMES]}
rounds=${3:-7}
frames=${4:-200}
bench=$b/tests/bench/api/bench_api
out=$(mktemp -d /tmp/passprobe-compare.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
no_gpu=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off)
pin=()
[ -n "${PP_BENCH_PIN:-}" ] && pin=(taskset -c "$PP_BENCH_PIN")

run() { # label build-or-none settings...
	local label=$1 build=$2
	shift 2
	if [ "$build" = none ]; then
		env "$@" "${pin[@]}" "$bench" --frames "$frames" ${PP_BENCH_ARGS:-} >"$out/line"
	else
		env VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler \
			VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off "$@" \
			"${pin[@]}" "$bench" --frames "$frames" ${PP_BENCH_ARGS:-} >"$out/line" 2>/dev/null
	fi
	sed -n 's/.*median_frame_ns=\([0-9]*\).*/\1/p' "$out/line" >>"$out/$label"
	sed -n 's/.*median_record_ns=\([0-9]*\).*/\1/p' "$out/line" >>"$out/$label.record"
}

for ((r = 0; r < rounds; r++)); do
	run none none
	run a_no_gpu "$a" "${no_gpu[@]}"
	run b_no_gpu "$b" "${no_gpu[@]}"
	run a_default "$a"
	run b_default "$b"
done

stat() { sort -n "$out/$1" | awk '{v[NR]=$1} END {printf "%d %d\n", v[1], (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
read -r nmin nmed < <(stat none)
echo "bench_api, 20 passes x 50 draws, $frames frames per run, $rounds alternating rounds; A=$a B=$b"
printf '%-36s %12s %12s %8s %8s\n' mode "min (ns)" "median (ns)" "min/none" "med/none"
for m in none a_no_gpu b_no_gpu a_default b_default; do
	read -r mn md < <(stat $m)
	printf '%-36s %12d %12d %8.3f %8.3f\n' "$m" "$mn" "$md" "$(awk -v x="$mn" -v y="$nmin" 'BEGIN{print x/y}')" \
		"$(awk -v x="$md" -v y="$nmed" 'BEGIN{print x/y}')"
done
# Recording alone (bench_api's median_record_ns: the application thread recording the frame's
# command buffer, where the pass boundary hooks run; no GPU work, no submit, no wait).
read -r nmin nmed < <(stat none.record)
echo "recording the frame (median_record_ns)"
printf '%-36s %12s %12s %8s %8s\n' mode "min (ns)" "median (ns)" "min/none" "med/none"
for m in none a_no_gpu b_no_gpu a_default b_default; do
	read -r mn md < <(stat $m.record)
	printf '%-36s %12d %12d %8.3f %8.3f\n' "$m" "$mn" "$md" "$(awk -v x="$mn" -v y="$nmin" 'BEGIN{print x/y}')" \
		"$(awk -v x="$md" -v y="$nmed" 'BEGIN{print x/y}')"
done
