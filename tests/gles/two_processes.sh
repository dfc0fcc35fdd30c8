#!/bin/bash
# two_processes.sh WORKDIR PROGRAM: two copies of PROGRAM (pp_gles_mini) at once, both with the
# shim preloaded and the same output directory, as the processes of one program are under
# `passprobe run`. The first to make a context current keeps WORKDIR/out/gles; the other
# writes into WORKDIR/out/gles/pp_gles_mini.<pid> and says so once. Both reports must hold
# their exact passes (docs/gles.md, "Programs of several processes").
set -u
here=$(dirname "$0")
work=${1:?usage: two_processes.sh WORKDIR PROGRAM}
mini=${2:?usage: two_processes.sh WORKDIR PROGRAM}
# run_gles.sh preloads the shim into the shell, whose children inherit it (the shell itself
# never makes a GL context current). Each copy renders 40 frames, long enough to overlap.
bash "$here/run_gles.sh" "$work" -- bash -c '"$1" --frames 40 >/dev/null & "$1" --frames 40 --expect; s=$?; wait $! || exit; exit $s' _ "$mini"
rc=$?
[ $rc -eq 0 ] || exit $rc
n=$(grep -c "is being written by another process; this one (pp_gles_mini, pid [0-9]*) writes into '$work/out/gles/pp_gles_mini\.[0-9]*'" "$work/stderr")
[ "$n" = 1 ] || { echo "FAIL: $n messages about the output directory taken, expected 1"; exit 1; }
python3 "$here/check_gles_report.py" "$work/out" --expect "$work/stdout" --frames 40 --devices 1 --no-drops || exit 1
python3 "$here/check_gles_report.py" "$work/out" --process pp_gles_mini --expect "$work/stdout" --frames 40 --devices 1 \
	--no-drops
