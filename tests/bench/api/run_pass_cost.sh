#!/usr/bin/env bash
# passprobe's own instructions per pass boundary and per draw (docs/performance.md, "Pass
# boundaries"): bench_api's API-heavy frame (P render passes x D draws, one command buffer, a
# pipeline bind and a debug label per pass) under callgrind, twice with different frame counts;
# the difference is the steady per-frame cost, split by callgrind_cost.py into the layer's own
# instructions (with the libc they call) and the driver's (never counted). Instruction counts
# do not depend on the machine's load.
# usage: tests/bench/api/run_pass_cost.sh [BUILD_DIR] [MODE] [PASSES] [DRAWS] [PIPELINES]
#   PP_COST_SHORT_FRAMES, PP_COST_LONG_FRAMES (default 6 and 18): the two runs' frame counts.
#   Both above report_frames (300) measure a long run's steady state, where the writer frees
#   the frame leaving the report's window at every frame; below it that work is left to exit.
#   PIPELINES (default 1): pass p binds pipeline p % PIPELINES; 1: every bind after the first
#   rebinds the bound pipeline; PASSES: every bind changes it.
#   MODE: default (passprobe's default settings) or no_gpu (timestamps and pipeline
#   statistics off: nothing injected), or no_diag (no_gpu with the diagnostics off as well:
#   the binds before draws then reach the driver without passprobe, vk_hooks.c);
#   report.json is written only at exit in all three (a long
#   flush_interval_ms), so that the writer thread's figure does not depend on how slowly the
#   program runs under callgrind: every frame is formatted into report.json once.
set -euo pipefail
build=${1:-build}
mode=${2:-default}
passes=${3:-20}
draws=${4:-50}
pipelines=${5:-1}
short=${PP_COST_SHORT_FRAMES:-6}
long=${PP_COST_LONG_FRAMES:-18}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/tests/bench/api/bench_api
command -v valgrind >/dev/null || { echo "run_pass_cost.sh: valgrind is not installed" >&2; exit 77; }
[ -x "$bench" ] || { echo "run_pass_cost.sh: $bench not built" >&2; exit 1; }
out=$(mktemp -d /tmp/passprobe-cost.XXXXXX)
trap 'rm -rf "$out"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$out}
settings=(VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=600000)
case $mode in
default) ;;
no_gpu) settings+=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off) ;;
no_diag) settings+=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off
	VK_PASSPROBE_PROFILER_DIAGNOSTICS=off) ;;
*) echo "run_pass_cost.sh: MODE is default, no_gpu or no_diag, not '$mode'" >&2; exit 2 ;;
esac
for n in "$short" "$long"; do
	env VK_ADD_LAYER_PATH="$build/layer_manifest" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler \
		VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out/out$n" VK_PASSPROBE_PROFILER_SUMMARY=off "${settings[@]}" \
		valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.$n" \
		"$bench" --frames "$n" --passes "$passes" --draws "$draws" --pipelines "$pipelines" ${PP_COST_BENCH_ARGS:-} >"$out/log.$n" 2>&1 ||
		{ cat "$out/log.$n" >&2; exit 1; }
done
echo "bench_api --passes $passes --draws $draws --pipelines $pipelines, mode $mode, callgrind: $short and $long frames"
python3 "$here/callgrind_cost.py" ${PP_COST_TOP:+--top "$PP_COST_TOP"} "$out/cg.$short" "$out/cg.$long" $((long - short)) "$passes" "$draws"
