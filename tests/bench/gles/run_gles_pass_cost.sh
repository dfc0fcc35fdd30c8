#!/usr/bin/env bash
# The GLES shim's own instructions per pass boundary and per frame (docs/performance.md,
# "Frame time (GLES)"): pp_gles_demo's API-heavy frame (--size 32x24 --load 1,1,1,1,1: 5 passes,
# 19 draws, 8 boundaries on tiny targets) under callgrind, for two frame counts, with and
# without LD_PRELOAD of the shim; the difference between the frame counts is the steady
# per-frame cost, split by gles_callgrind_cost.py into the shim's own instructions (with the
# libc they call) and the driver's. LP_NUM_THREADS=0: llvmpipe rasterizes on the calling
# thread, the same work in every run. Instruction counts do not depend on the machine's load.
# report.json is written only at exit (a long flush_interval_ms), so the writer thread's
# figure does not depend on how slowly the program runs under callgrind.
# usage: tests/bench/gles/run_gles_pass_cost.sh [BUILD_DIR] [SHORT_FRAMES] [LONG_FRAMES] [NAME=VALUE...]
#   NAME=VALUE: more environment for the shim runs (VK_PASSPROBE_PROFILER_TIMESTAMPS=off ...).
#   PP_GLES_COST_PROGRAM=bench_gles: bench_gles's frame instead (20 passes x 50 draws, 40
#   boundaries: a framebuffer bind and a debug group per pass), the benchmark of
#   run_gles_modes.sh.
#   A RelWithDebInfo build names the functions (cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo).
set -euo pipefail
build=${1:-build}
short=${2:-50}
long=${3:-150}
shift $(($# < 3 ? $# : 3))
here=$(cd "$(dirname "$0")" && pwd)
shim=$build/layer_manifest/libpassprobe_gles.so
case ${PP_GLES_COST_PROGRAM:-pp_gles_demo} in
pp_gles_demo)
	demo=$build/tools/gles_demo/pp_gles_demo
	args=(--size 32x24 --load 1,1,1,1,1)
	passes=5 bounds=8 ;;
bench_gles)
	demo=$build/tests/bench/gles/bench_gles
	args=(--passes 20 --draws 50)
	passes=20 bounds=40 ;;
*) echo "run_gles_pass_cost.sh: PP_GLES_COST_PROGRAM is pp_gles_demo or bench_gles" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "run_gles_pass_cost.sh: valgrind is not installed" >&2; exit 77; }
[ -x "$demo" ] && [ -f "$shim" ] || { echo "run_gles_pass_cost.sh: build ${demo##*/} and passprobe_gles in $build" >&2; exit 1; }
out=$(mktemp -d /tmp/passprobe-gles-cost.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
export LP_NUM_THREADS=0
# Shaders compiled in every run (a warm disk cache in one run and not the other would count
# LLVM's work as the frames').
export MESA_SHADER_CACHE_DISABLE=true
# --fair-sched=yes: valgrind runs one thread at a time, and without it the program's thread
# (which never blocks here: a pbuffer swap, llvmpipe on the same thread) kept the writer from
# running until exit in most runs, its work counted on the application's thread then.
for n in "$short" "$long"; do
	valgrind --tool=callgrind --fair-sched=yes --separate-threads=yes --callgrind-out-file="$out/plain.$n" \
		"$demo" "${args[@]}" --frames "$n" >"$out/plain.log.$n" 2>&1 || { cat "$out/plain.log.$n" >&2; exit 1; }
	env LD_PRELOAD="$shim" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out$n" VK_PASSPROBE_PROFILER_SUMMARY=off \
		VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=600000 "$@" \
		valgrind --tool=callgrind --fair-sched=yes --separate-threads=yes --callgrind-out-file="$out/shim.$n" \
		"$demo" "${args[@]}" --frames "$n" >"$out/shim.log.$n" 2>&1 || { cat "$out/shim.log.$n" >&2; exit 1; }
done
echo "${demo##*/} ${args[*]}, callgrind: $short and $long frames${*:+, $*}"
python3 "$here/gles_callgrind_cost.py" "$out/plain.$short" "$out/plain.$long" "$out/shim.$short" "$out/shim.$long" \
	$((long - short)) $passes $bounds
