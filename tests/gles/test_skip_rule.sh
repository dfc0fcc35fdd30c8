#!/bin/bash
# test_skip_rule.sh WORKDIR PP_GLES_MINI BROKEN_SHIM: the GLES tests' skip rule (skip_or_fail.sh
# through run_gles.sh), both ways, so that a skip under the shim can never pass for a machine
# without EGL:
# - a shim that breaks EGL (broken_shim.c) makes pp_gles_mini exit 77; it runs without the shim,
#   so run_gles.sh must fail with the line that blames the shim;
# - with no EGL vendor at all (glvnd given none), pp_gles_mini skips with and without the real
#   shim: run_gles.sh must skip (77).
set -u
here=$(dirname "$0")
work=$1 mini=$2 broken=$3
rm -rf "$work"
mkdir -p "$work"
fails=0

PP_GLES_SHIM=$broken bash "$here/run_gles.sh" "$work/broken" -- "$mini" --frames 1 >"$work/broken.log" 2>&1
rc=$?
cat "$work/broken.log"
# 77 here: pp_gles_mini skips without any shim too; this machine has no EGL to tell them apart.
[ $rc -eq 77 ] && { echo "SKIP: pp_gles_mini cannot run here at all"; exit 77; }
if [ $rc -ne 1 ] || ! grep -q "^FAIL: .* skipped (exit 77) under the GLES shim but not without it" "$work/broken.log"; then
	echo "FAIL: a skip caused by the shim alone was not reported as a failure (run_gles.sh exited $rc)"
	fails=1
fi

__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent bash "$here/run_gles.sh" "$work/none" -- "$mini" --frames 1 \
	>"$work/none.log" 2>&1
rc=$?
cat "$work/none.log"
if [ $rc -ne 77 ] || ! grep -q "^SKIP: .* cannot run here without passprobe either" "$work/none.log"; then
	echo "FAIL: no EGL at all (with or without the shim) was not a skip (run_gles.sh exited $rc)"
	fails=1
fi
[ $fails -eq 0 ] && echo "skip rule: a skip under the shim alone fails, a machine without EGL skips"
exit $fails
