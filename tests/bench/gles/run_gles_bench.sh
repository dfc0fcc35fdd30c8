#!/usr/bin/env bash
# Per-draw cost of the GLES shim (docs/performance.md): instructions per glDrawArrays above
# the driver, counted by callgrind inside pp_gles_mini's bench_draw_loop (N draws into one
# open pass of a framebuffer object, llvmpipe), with and without the shim.
# usage: tests/bench/gles/run_gles_bench.sh [BUILD_DIR] [DRAWS]
set -euo pipefail
build=${1:-build}
k=${2:-20000}
mini=$build/tests/gles/pp_gles_mini
shim=$build/layer_manifest/libpassprobe_gles.so
out=$(mktemp -d /tmp/passprobe-gles-bench.XXXXXX)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
export LP_NUM_THREADS=0 # the rasterizer on the calling thread: the same work in both runs
valgrind --tool=callgrind --callgrind-out-file="$out/cg.none" --toggle-collect=bench_draw_loop \
	"$mini" --bench-draws "$k" >/dev/null 2>"$out/cg.none.log"
env LD_PRELOAD="$shim" VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out" VK_PASSPROBE_PROFILER_SUMMARY=off \
	valgrind --tool=callgrind --callgrind-out-file="$out/cg.shim" --toggle-collect=bench_draw_loop \
	"$mini" --bench-draws "$k" >/dev/null 2>"$out/cg.shim.log"
a=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/cg.none.log")
b=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/cg.shim.log")
echo "instructions per glDrawArrays (callgrind, $k draws): without $((a / k)), with the shim $((b / k)), overhead $(((b - a) / k))"
callgrind_annotate "$out/cg.shim" 2>/dev/null | grep -E "glDrawArrays" | head -5 || true
rm -rf "$out"
