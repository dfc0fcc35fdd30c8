#!/usr/bin/env bash
# Where a pinned frame's time goes with passprobe (docs/performance.md, "Where the frame time
# goes"): bench_api (or bench_gles) pinned to one CPU, that whole CPU sampled with perf's
# cpu-clock event (a software timer: no PMU needed) for a short and a long run with passprobe and
# without; the difference between the two frame counts is the steady per-frame time of each part,
# start-up and the report at exit left out. What a frame-time ratio cannot split, a profile of
# the CPU everything runs on can: passprobe's code in the application's threads, its writer
# thread in user space and in the kernel, the application's threads in the kernel (system calls,
# context switches, the perf event of the CPU counters' watch), the CPU idle, other processes.
# Parts only passprobe has are measured without the baseline; the others are the difference
# between runs with and without, which carries the run-to-run spread: use several runs.
# usage: tests/bench/api/run_frame_profile.sh BUILD [SHORT_FRAMES] [LONG_FRAMES] [NAME=VALUE...]
#   NAME=VALUE: passprobe's settings (default: GPU queries off, the figure of the frame-time
#   target). PP_BENCH=gles: bench_gles with the GLES shim. PP_BENCH_PIN: the CPU (default 0).
#   PP_BENCH_ARGS: more arguments for the benchmark (default "--in-flight 2" for bench_api).
#   Needs perf and the right to sample a whole CPU (root, or perf_event_paranoid <= 0).
set -euo pipefail
build=${1:?usage: run_frame_profile.sh BUILD [SHORT_FRAMES] [LONG_FRAMES] [NAME=VALUE...]}
short=${2:-1000}
long=${3:-3000}
shift $(($# < 3 ? $# : 3))
settings=("$@")
cpu=${PP_BENCH_PIN:-0}
here=$(cd "$(dirname "$0")" && pwd)
case ${PP_BENCH:-api} in
api)
	bench=$build/tests/bench/api/bench_api
	args=${PP_BENCH_ARGS---in-flight 2}
	enable=(VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler)
	((${#settings[@]})) || settings=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off) ;;
gles)
	bench=$build/tests/bench/gles/bench_gles
	args=${PP_BENCH_ARGS-}
	enable=(LD_PRELOAD="$build/layer_manifest/libpassprobe_gles.so")
	((${#settings[@]})) || settings=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off) ;;
*) echo "run_frame_profile.sh: PP_BENCH is api or gles, not '$PP_BENCH'" >&2; exit 2 ;;
esac
for s in "${settings[@]}"; do
	[[ $s == *=* ]] || { echo "run_frame_profile.sh: '$s' is not NAME=VALUE" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "run_frame_profile.sh: perf is not installed (Debian: linux-perf)" >&2; exit 77; }
command -v taskset >/dev/null || { echo "run_frame_profile.sh: taskset is not installed (Debian: util-linux)" >&2; exit 77; }
[ -x "$bench" ] || { echo "run_frame_profile.sh: $bench not built" >&2; exit 1; }
out=$(mktemp -d /tmp/passprobe-profile.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
perf record -q -e cpu-clock -C "$cpu" -o "$out/probe.data" -- true 2>"$out/err" ||
	{ echo "run_frame_profile.sh: perf cannot sample CPU $cpu: $(head -n 3 "$out/err")" >&2; exit 77; }

# run NAME FRAMES [passprobe]: the benchmark under perf, its report by thread name and object
run() {
	local env=()
	[ "${3:-}" ] && env=("${enable[@]}" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/pp" VK_PASSPROBE_PROFILER_SUMMARY=off "${settings[@]}")
	# The settings reach the benchmark alone, not perf (LD_PRELOAD would load the shim into it).
	perf record -q -e cpu-clock -F 4000 -C "$cpu" -o "$out/$1.data" -- \
		env "${env[@]}" taskset -c "$cpu" "$bench" --frames "$2" $args >"$out/$1.line" 2>/dev/null
	perf report -i "$out/$1.data" --no-children --sort comm,dso -F period,comm,dso -q --stdio >"$out/$1.txt" 2>/dev/null
}
run none_short "$short"
run pp_short "$short" yes
run none_long "$long"
run pp_long "$long" yes
echo "${bench##*/}${args:+ $args}, CPU $cpu sampled at 4 kHz (cpu-clock), runs of $short and $long frames; settings: ${settings[*]}"
python3 "$here/frame_profile.py" "$out" "$short" "$long"
