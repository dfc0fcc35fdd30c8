#!/bin/bash
# gles_case.sh WORKDIR [CHECK ARGS...] -- PROGRAM [ARGS...]
# Runs PROGRAM --expect with the GLES shim (run_gles.sh), then checks the report against the
# expect lines the program printed (check_gles_report.py WORKDIR/out --expect ... CHECK ARGS).
set -u
here=$(dirname "$0")
work=$1
shift
check=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do check+=("$1"); shift; done
shift
bash "$here/run_gles.sh" "$work" -- "$@" --expect
rc=$?
[ $rc -eq 0 ] || exit $rc
python3 "$here/check_gles_report.py" "$work/out" --expect "$work/stdout" --no-drops ${check[@]+"${check[@]}"}
