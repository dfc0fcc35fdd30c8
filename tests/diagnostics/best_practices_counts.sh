#!/bin/bash
# best_practices_counts.sh APP LAYER_DIR WORK CASE: runs pp_diagapp --case CASE under the Khronos
# validation layer with best practices (Arm checks included) and synchronization validation,
# without and with passprobe above it, and fails unless every validation message ID reached the
# application's messenger the same number of times: passprobe's own objects (query pools, the
# host buffers for copied results, its command buffers) must not add best-practices reports the
# application would see. Exit 77 (skipped) without the validation layer.
set -u
app=$1 layer_dir=$2 work=$3 case_name=$4
rm -rf "$work"
mkdir -p "$work/xdg"
run() { # run OUT LAYERS
	(
		for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
		unset VK_LAYER_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_SETTINGS_PATH
		export XDG_RUNTIME_DIR="$work/xdg" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/xdg"
		export VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS="$2"
		export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out" VK_PASSPROBE_PROFILER_SUMMARY=off
		export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT:VALIDATION_CHECK_ENABLE_VENDOR_SPECIFIC_ARM:VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
		exec "$app" --case "$case_name" --frames 6
	) >"$work/$1.log" 2>&1
}
run without VK_LAYER_KHRONOS_validation
rc=$?
if [ $rc -ne 0 ] && grep -qi "VK_LAYER_KHRONOS_validation\|layer.*not found\|ERROR_LAYER_NOT_PRESENT" "$work/without.log"; then
	echo "SKIP: the Khronos validation layer is not installed"
	exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: pp_diagapp without passprobe exited $rc"; cat "$work/without.log"; exit 1; }
run with VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation || {
	echo "FAIL: pp_diagapp with passprobe failed"
	cat "$work/with.log"
	exit 1
}
# pp_diagapp prints "message SEVERITY ID COUNT ..." per message ID its messenger received;
# passprobe's own findings (PASSPROBE-*) are what it is there for.
counts() { sed -n 's/^message [a-z]* \([^ ]*\) \([0-9]*\) .*/\1 \2/p' "$1" | grep -v '^PASSPROBE-' | sort; }
counts "$work/without.log" >"$work/without.counts"
counts "$work/with.log" >"$work/with.counts"
if [ ! -s "$work/without.counts" ]; then
	echo "FAIL: no validation message at all without passprobe: is best practices on? (the harness checks nothing)"
	exit 1
fi
if ! diff -u "$work/without.counts" "$work/with.counts"; then
	echo "FAIL: validation messages differ in kind or number with passprobe loaded (- without, + with)"
	exit 1
fi
echo "$(wc -l <"$work/with.counts") message IDs, the same counts without and with passprobe"
