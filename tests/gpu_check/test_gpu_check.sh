#!/usr/bin/env bash
# The real-GPU check as CTest runs it (docs/real-gpu.md):
#   test_gpu_check.sh dry BUILD WORK SPY_DIR
#       --prepare a bundle from BUILD into WORK/bundle (without the Debian loader packages: CI
#       has no network; the machine's loader is the same version), then the check itself on
#       this machine's device, lavapipe/llvmpipe where installed: a dry run. Fails when the
#       check fails.
#   test_gpu_check.sh broken WORK
#       Judges a copy of the dry run's outputs again with one expectation made wrong on purpose
#       (--break-expectation statistics): the check must fail, on pipeline statistics alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/../../tools/gpu_check/gpu_check.sh
case "${1:-}" in
dry)
	[ $# -eq 4 ] || { echo "usage: test_gpu_check.sh dry BUILD WORK SPY_DIR" >&2; exit 2; }
	build=$2 work=$3 spy=$4
	rm -rf "$work"
	mkdir -p "$work"
	bash "$check" --prepare --build "$build" --bundle "$work/bundle" --no-loader
	# Prefer lavapipe, as the integration tests do: the machine's other drivers may not load.
	lvp=$(compgen -G '/usr/share/vulkan/icd.d/lvp_icd*.json' | head -n 1 || true)
	if [ -n "$lvp" ]; then
		export VK_DRIVER_FILES=$lvp VK_ICD_FILENAMES=$lvp
	fi
	bash "$check" --bundle "$work/bundle" --out "$work/out" --spy-dir "$spy"
	;;
broken)
	[ $# -eq 2 ] || { echo "usage: test_gpu_check.sh broken WORK" >&2; exit 2; }
	work=$2
	[ -f "$work/out/summary.json" ] || { echo "test_gpu_check.sh: no dry run in $work/out (gpu_check_dry_run first)" >&2; exit 1; }
	rm -rf "$work/broken"
	cp -r "$work/out" "$work/broken"
	rc=0
	python3 "$here/../../tools/gpu_check/gpu_check.py" "$work/broken" --break-expectation statistics >"$work/broken.log" || rc=$?
	cat "$work/broken.log"
	if [ $rc -ne 1 ]; then
		echo "test_gpu_check.sh: exit status $rc with a wrong expected statistic; 1 wanted"
		exit 1
	fi
	if ! grep -q '^check 3 Pipeline statistics: FAIL (.*input_assembly_vertices' "$work/broken.log"; then
		echo "test_gpu_check.sh: check 3 did not fail on the wrong input_assembly_vertices"
		exit 1
	fi
	if grep '^check [0-9]' "$work/broken.log" | grep -v '^check 3 ' | grep -q ': FAIL'; then
		echo "test_gpu_check.sh: a check other than 3 failed too; only the statistics were made wrong"
		exit 1
	fi
	echo "test_gpu_check.sh: the check fails, on pipeline statistics alone, when an expectation is wrong"
	;;
*)
	echo "usage: test_gpu_check.sh dry BUILD WORK SPY_DIR | broken WORK" >&2
	exit 2
	;;
esac
