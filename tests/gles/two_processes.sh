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
# never makes a GL context current). One copy renders 40 frames, the other (started first)
# 200, so that whichever claims the directory first is still running when the other starts.
both='"$1" --frames 200 >/dev/null & "$1" --frames 40 --expect; s=$?; wait $! || exit; exit $s'
bash "$here/run_gles.sh" "$work" -- bash -c "$both" _ "$mini"
rc=$?
[ $rc -eq 0 ] || exit $rc
said="is being written by another process; this one (pp_gles_mini, pid [0-9]*) writes into"
n=$(grep -c "$said '$work/out/gles/pp_gles_mini\.[0-9]*'" "$work/stderr")
[ "$n" = 1 ] || { echo "FAIL: $n messages about the output directory taken, expected 1"; exit 1; }
check=(--expect "$work/stdout" --min-frames 40 --devices 1 --no-drops)
python3 "$here/check_gles_report.py" "$work/out" "${check[@]}" || exit 1
python3 "$here/check_gles_report.py" "$work/out" --process pp_gles_mini "${check[@]}"
