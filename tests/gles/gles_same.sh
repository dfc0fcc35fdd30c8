#!/bin/bash
# gles_same.sh WORKDIR OPTION -- PROGRAM [ARGS...]
# Runs PROGRAM ARGS OPTION FILE twice, without and with the GLES shim (run_gles.sh), and
# fails unless both runs wrote the same, non-empty FILE: the rendered image (--output) or the
# application's glGetError sequence (--gl-errors) is what it was without passprobe.
set -u
here=$(dirname "$0")
work=$1
opt=$2
shift 2
[ "${1:-}" = "--" ] || { echo "gles_same.sh: expected -- after OPTION" >&2; exit 2; }
shift
rm -rf "$work"
mkdir -p "$work"
bash "$here/run_gles.sh" --plain "$work/plain" -- "$@" "$opt" "$work/plain.out" || exit $?
bash "$here/run_gles.sh" "$work/shim" -- "$@" "$opt" "$work/shim.out" || exit $?
[ -s "$work/plain.out" ] || { echo "FAIL: $opt wrote nothing"; exit 1; }
[ -s "$work/shim/out/gles/report.json" ] || { echo "FAIL: the shim wrote no report"; exit 1; }
if ! cmp "$work/plain.out" "$work/shim.out"; then
	echo "FAIL: $opt differs with the shim loaded"
	[ "$opt" = "--gl-errors" ] && diff "$work/plain.out" "$work/shim.out" | head -20
	exit 1
fi
echo "$opt: the same with and without the shim ($(wc -c <"$work/plain.out") bytes)"
