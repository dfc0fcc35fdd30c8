#!/usr/bin/env bash
# Frame time of bench_gles (20 passes x 50 draws per frame, OpenGL ES on llvmpipe) without the
# shim and with it in several settings, rounds alternating (docs/performance.md, "Frame time
# (GLES)"): run_api_modes.sh with PP_BENCH=gles. A wall-clock figure: run it on an otherwise
# idle machine, with many rounds.
# usage: tests/bench/gles/run_gles_modes.sh BUILD ROUNDS FRAMES ['NAME=SETTING SETTING...']...
#   Default modes: defaults (the shim's default settings), timestamps_off
#   (VK_PASSPROBE_PROFILER_TIMESTAMPS=off: no GL timer query), timestamps_off_no_cpu_counters
#   (and VK_PASSPROBE_PROFILER_CPU_COUNTERS=none).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_gles_modes.sh BUILD ROUNDS FRAMES ['NAME=SETTING SETTING...']...}
rounds=${2:-11}
frames=${3:-300}
shift $(($# < 3 ? $# : 3))
modes=("$@")
if ((${#modes[@]} == 0)); then
	ts_off=VK_PASSPROBE_PROFILER_TIMESTAMPS=off
	modes=("defaults=VK_PASSPROBE_PROFILER_LOG_LEVEL=warn" "timestamps_off=$ts_off"
		"timestamps_off_no_cpu_counters=$ts_off VK_PASSPROBE_PROFILER_CPU_COUNTERS=none")
fi
PP_BENCH=gles exec "$here/../api/run_api_modes.sh" "$build" "$rounds" "$frames" "${modes[@]}"
