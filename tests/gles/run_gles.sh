#!/bin/bash
# run_gles.sh [--plain] [--env NAME=VALUE]... WORKDIR -- PROGRAM [ARGS...]
# Runs PROGRAM with the GLES shim preloaded (PP_GLES_SHIM), its outputs in WORKDIR/out (every
# frame kept), its stdout in WORKDIR/stdout and stderr in WORKDIR/stderr. --plain: without the
# shim (the reference run of a comparison). Exits with PROGRAM's status (77: no EGL/GLES here,
# skipped; under the shim only when PROGRAM skips without it too, skip_or_fail.sh, otherwise
# the shim made it give up and the exit is 1). Fails when the shim logged an error. The
# outputs are then made from the program's recording with `passprobe report` (PP_PASSPROBE),
# as `passprobe run` does.
# The shim goes at the end of LD_PRELOAD, after anything already there (the sanitizer runs
# preload a library that must stay first). An AddressSanitizer build of the shim needs the
# sanitizer's runtime first in a program that is not instrumented itself.
set -u
plain=0
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--plain) plain=1; shift ;;
	--env) envs+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
work=$1
shift
[ "${1:-}" = "--" ] || { echo "run_gles.sh: expected -- after WORKDIR" >&2; exit 2; }
shift
: "${PP_GLES_SHIM:?PP_GLES_SHIM must name libpassprobe_gles.so}"
rm -rf "$work"
mkdir -p "$work/out"
export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out"
export VK_PASSPROBE_PROFILER_REPORT_FRAMES=100000
export VK_PASSPROBE_PROFILER_SUMMARY=1
for e in ${envs[@]+"${envs[@]}"}; do export "$e"; done
preload=${LD_PRELOAD:-}
if [ $plain -eq 0 ]; then
	# Only for the program: the tools of this script must not get an instrumented shim.
	asan=$(ldd "$PP_GLES_SHIM" | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -n 1)
	case "$preload" in
	*libasan*) ;;
	*) [ -n "$asan" ] && preload="$asan${preload:+:$preload}" ;;
	esac
	preload="${preload:+$preload:}$PP_GLES_SHIM"
fi
LD_PRELOAD="$preload" "$@" >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stderr"
if [ $rc -eq 77 ]; then
	[ $plain -eq 1 ] && { echo "SKIP: $1 found no EGL surfaceless / OpenGL ES 3 here"; exit 77; }
	PP_GLES_PLAIN_LOG="$work/plain-rerun.log" bash "$(dirname "$0")/skip_or_fail.sh" "$@"
	exit $? # 77 or 1, never 0: the program under the shim did not run
fi
if grep -q "^passprobe: error" "$work/stderr"; then
	echo "run_gles.sh: the shim logged an error"
	exit 1
fi
# Every program run here makes a context current, so one that ran to its end under the shim
# left a recording: none is a failure, not outputs quietly left unmade.
if [ $plain -eq 0 ] && [ $rc -eq 0 ] && [ ! -f "$work/out/gles/recording.ppr" ]; then
	echo "run_gles.sh: the shim left no recording.ppr in $work/out/gles"
	exit 1
fi
if [ $plain -eq 0 ] && [ -n "${PP_PASSPROBE:-}" ] && [ -f "$work/out/gles/recording.ppr" ] &&
	! "$PP_PASSPROBE" report "$work/out/gles" >"$work/report.log" 2>&1; then
	echo "run_gles.sh: passprobe report could not make the outputs:"
	cat "$work/report.log"
	exit 1
fi
exit $rc
