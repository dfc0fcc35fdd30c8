#!/bin/bash
# gles_cli.sh PASSPROBE MINI DEMO WORKDIR [VULKAN_APP]
# `passprobe run` measures an OpenGL ES program without being told it is one (the demo's
# outputs land in DIR/gles and `passprobe report DIR` prints them), and a program that uses
# EGL but never makes a context current runs untouched (no output, nothing logged); with a
# Vulkan program too, both APIs in one run, and two Vulkan processes sharing one directory.
set -u
pp=$1 mini=$2 demo=$3 work=$4 vkapp=${5:-}
rm -rf "$work"
mkdir -p "$work"
export VK_PASSPROBE_PROFILER_SUMMARY=0
fail() { echo "FAIL: $*"; exit 1; }
# skipped PROGRAM ARGS...: `passprobe run` (which preloads the GLES shim) exited 77; a skip only
# where the program skips without passprobe too, otherwise a failure (skip_or_fail.sh).
skipped() { PP_GLES_PLAIN_LOG="$work/plain-rerun.log" bash "$(dirname "$0")/skip_or_fail.sh" "$@"; exit $?; }

"$pp" run -o "$work/out" -- "$demo" --frames 3 >"$work/run.out" 2>"$work/run.err"
rc=$?
cat "$work/run.err"
[ $rc -eq 77 ] && skipped "$demo" --frames 3
[ $rc -eq 0 ] || fail "passprobe run exited $rc"
grep -q "passprobe: OpenGL ES output in $work/out/gles (report.json" "$work/run.err" ||
	fail "passprobe run did not list the OpenGL ES outputs"
[ -e "$work/out/report.json" ] && fail "a Vulkan report.json appeared for an OpenGL ES program"
python3 "$(dirname "$0")/check_gles_report.py" "$work/out" --frames 3 --devices 1 --min-passes 5 || exit 1
"$pp" report "$work/out" >"$work/report.out" 2>&1 || { cat "$work/report.out"; fail "passprobe report DIR failed"; }
grep -q "lighting" "$work/report.out" || fail "passprobe report did not show the demo's passes"

"$pp" run -o "$work/none" -- "$mini" --no-context >"$work/none.out" 2>"$work/none.err"
rc=$?
cat "$work/none.err"
[ $rc -eq 77 ] && skipped "$mini" --no-context
[ $rc -eq 0 ] || fail "the program without a context exited $rc"
[ -e "$work/none/gles" ] && fail "the shim wrote outputs for a program that never made a context current"
grep -q "^passprobe: [a-z]*:" "$work/none.err" && fail "the shim logged something for a program without a context"
grep -q "made no OpenGL ES context current" "$work/none.err" ||
	fail "passprobe run's no-output message does not say the program made no OpenGL ES context current"
# Settings: the same reader and checks as the Vulkan layer (one message naming the key, the
# value and what is allowed; the default kept).
VK_PASSPROBE_PROFILER_FRAME_DELIMITER=bogus "$pp" run -o "$work/bad" -- "$mini" --frames 2 >"$work/bad.out" 2>"$work/bad.err"
rc=$?
cat "$work/bad.err"
[ $rc -eq 0 ] || fail "the program with a bad setting exited $rc"
[ "$(grep -c 'frame_delimiter' "$work/bad.err")" = 1 ] || fail "not exactly one message about the bad frame_delimiter"
grep -q 'allowed: auto, present, submit, label:<name>' "$work/bad.err" || fail "the message does not say what is allowed"
python3 "$(dirname "$0")/check_gles_report.py" "$work/bad" --frames 2 --delimiter present || fail "no frames with the default"
# Both APIs under one passprobe run, one output directory: each keeps its own report.
if [ -n "$vkapp" ]; then
	[ -n "${PP_DRIVER_FILES:-}" ] && export VK_DRIVER_FILES="$PP_DRIVER_FILES" VK_ICD_FILENAMES="$PP_DRIVER_FILES"
	"$pp" run -o "$work/both" -- sh -c '"$1" --scenario counts --frames 3 && "$2" --frames 3' sh "$vkapp" "$mini" \
		>"$work/both.out" 2>"$work/both.err"
	rc=$?
	cat "$work/both.err"
	[ $rc -eq 0 ] || fail "the Vulkan and OpenGL ES programs under one passprobe run exited $rc"
	grep -q "passprobe: output in $work/both (report.json" "$work/both.err" || fail "no Vulkan outputs listed"
	grep -q "passprobe: OpenGL ES output in $work/both/gles (report.json" "$work/both.err" || fail "no OpenGL ES outputs listed"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["frames"], "no Vulkan frames"' \
		"$work/both/report.json" || fail "the Vulkan report has no frames"
	python3 "$(dirname "$0")/check_gles_report.py" "$work/both" --frames 3 || fail "the OpenGL ES report"
	# Two Vulkan processes at once, one output directory: the second writes into a folder of
	# its own, and passprobe run lists it with its report.html (docs/gles.md, "Programs of
	# several processes"). The copy started first runs longer, so the two always overlap.
	"$pp" run -o "$work/two" -- sh -c '"$1" --scenario counts --frames 300 & "$1" --scenario counts --frames 30; s=$?
		wait $! && exit $s' sh "$vkapp" >"$work/two.out" 2>"$work/two.err"
	rc=$?
	cat "$work/two.err"
	[ $rc -eq 0 ] || fail "two Vulkan processes under one passprobe run exited $rc"
	grep -q "passprobe: output in $work/two (report.json" "$work/two.err" || fail "no outputs listed for the first"
	listed="passprobe: output of process pp_testapp \\(pid [0-9]+\\) in $work/two/pp_testapp\\.[0-9]+"
	grep -Eq "$listed \\(report.json, report.html" "$work/two.err" ||
		fail "the second process's outputs are not listed in their own folder"
	for r in "$work/two/report.json" "$work"/two/pp_testapp.*/report.json; do
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["frames"]) >= 30, sys.argv[1]' "$r" ||
			fail "$r: fewer than 30 frames"
	done
fi
echo "passprobe run: OpenGL ES measured in DIR/gles; a program without a context untouched; a bad setting reported once"
