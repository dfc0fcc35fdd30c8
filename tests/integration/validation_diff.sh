#!/bin/bash
# Runs pp_testapp under the Khronos validation layer (with synchronization validation) twice,
# without and with passprobe above it, and fails on every validation message that appears
# only with passprobe. docs/testing-integration.md.
#
#   validation_diff.sh WORKDIR -- APP [ARGS...]
#   validation_diff.sh --sanity WORKDIR -- APP     (the harness sees a provoked VUID and hazard)
#   validation_diff.sh --experiment WORKDIR -- APP [ARGS...]
#       passprobe above validation both times, the second with experiment=barrier-fixes: no
#       message appears only when passprobe rewrites barriers (docs/diagnostics.md)
#
# Exit 77 (skipped) when the validation layer is not installed.
set -u
sanity=0
experiment=0
if [ "$1" = "--sanity" ]; then sanity=1; shift; fi
if [ "$1" = "--experiment" ]; then experiment=1; shift; fi
work=$1
shift
[ "${1:-}" = "--" ] || { echo "validation_diff.sh: expected -- after WORKDIR" >&2; exit 2; }
shift
: "${PP_LAYER_DIR:?PP_LAYER_DIR must name the directory holding the passprobe manifest}"
rm -rf "$work"
mkdir -p "$work/out" "$work/xdg"

run() { # run LOG LAYERS ARGS...
	local log=$1 layers=$2
	shift 2
	(
		for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
		unset VK_LAYER_SETTINGS_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_PATH
		export XDG_DATA_HOME="$work/xdg" XDG_RUNTIME_DIR="$work/xdg"
		export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out" VK_PASSPROBE_PROFILER_SUMMARY=off
		[ -n "${PP_VALIDATE_EXPERIMENT:-}" ] && export VK_PASSPROBE_PROFILER_EXPERIMENT=$PP_VALIDATE_EXPERIMENT
		# Settings a test asks for on purpose (space-separated NAME=VALUE), after the clean-up.
		for kv in ${PP_VALIDATE_SETTINGS:-}; do export "$kv"; done
		if [ -n "${PP_DRIVER_FILES:-}" ]; then
			export VK_DRIVER_FILES="$PP_DRIVER_FILES" VK_ICD_FILENAMES="$PP_DRIVER_FILES"
		fi
		export VK_ADD_LAYER_PATH="$PP_LAYER_DIR" VK_INSTANCE_LAYERS="$layers"
		# PP_VALIDATE_SPY_BELOW=1: the test spy layer between passprobe and validation (to
		# hide a device extension from passprobe: PASSPROBE_SPY_BELOW_HIDE_EXTENSIONS in
		# PP_VALIDATE_SETTINGS). The loader orders explicit layers by directory order.
		if [ "${PP_VALIDATE_SPY_BELOW:-0}" = 1 ] && [ "${layers#VK_LAYER_PASSPROBE_profiler:}" != "$layers" ]; then
			: "${PP_SPY_DIR:?PP_SPY_DIR must name the directory of the spy layer manifests}"
			export VK_ADD_LAYER_PATH="$PP_LAYER_DIR:$PP_SPY_DIR/below"
			export VK_INSTANCE_LAYERS="VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below:${layers#VK_LAYER_PASSPROBE_profiler:}"
			export PASSPROBE_SPY_BELOW_OUTPUT="$work/spy-below.jsonl"
		fi
		export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
		cd "$work" && exec "$@"
	) >"$log" 2>&1
}

# One key per message: its VUID or hazard name, else the line with numbers masked.
keys() {
	grep -E 'Validation Error|VUID|SYNC-HAZARD' "$1" |
		sed -E '/(VUID-|SYNC-HAZARD-|UNASSIGNED-)/{s/.*(VUID-[A-Za-z0-9_-]*[A-Za-z0-9]|SYNC-HAZARD-[A-Z_-]*[A-Z]|UNASSIGNED-[A-Za-z0-9_.-]*[A-Za-z0-9]).*/\1/;b}; s/0x[0-9a-fA-F]+/0x?/g; s/[0-9]+/N/g' |
		sort -u
}

if [ "$experiment" = 1 ]; then
	run "$work/without.log" VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation "$@"
else
	run "$work/without.log" VK_LAYER_KHRONOS_validation "$@"
fi
rc=$?
if grep -q "VkResult -6" "$work/without.log"; then # VK_ERROR_LAYER_NOT_PRESENT
	echo "validation_diff.sh: VK_LAYER_KHRONOS_validation is not installed; skipped"
	exit 77
fi

if [ "$sanity" = 1 ]; then
	run "$work/provoked.log" VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation "$@" \
		--provoke-validation-error --provoke-sync-hazard
	fails=0
	for want in VUID-VkBufferCreateInfo-size-00912 SYNC-HAZARD-WRITE-AFTER-WRITE; do
		if ! keys "$work/provoked.log" | grep -qx -- "$want"; then
			echo "validation_diff.sh: the provoked $want was not reported; is validation (with synchronization validation) running?"
			fails=1
		fi
	done
	[ $fails = 0 ] || { cat "$work/provoked.log"; exit 1; }
	exit 0
fi

[ $rc -eq 0 ] || { echo "validation_diff.sh: the application failed without passprobe (or its experiment):"; cat "$work/without.log"; exit 1; }
if [ "$experiment" = 1 ]; then
	cp -r "$work/out" "$work/out-without"
	rm -rf "$work/out" && mkdir -p "$work/out"
	PP_VALIDATE_EXPERIMENT=barrier-fixes run "$work/with.log" VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation "$@"
else
	run "$work/with.log" VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation "$@"
fi
rc=$?
[ $rc -eq 0 ] || { echo "validation_diff.sh: the application failed with passprobe (or its experiment):"; cat "$work/with.log"; exit 1; }
if [ "$experiment" = 1 ]; then
	# What the experiment rewrote: an equal run proves something only where it did.
	rewritten=$(grep -o '"rewritten":[0-9]*' "$work/out/report.json" 2>/dev/null | awk -F: '{ s += $2 } END { print s + 0 }')
	echo "validation_diff.sh: the experiment rewrote ${rewritten:-0} barrier calls"
	if [ "${PP_VALIDATE_EXPECT_REWRITES:-0}" = 1 ] && [ "${rewritten:-0}" -eq 0 ]; then
		echo "validation_diff.sh: expected the experiment to rewrite barriers; it rewrote none"
		exit 1
	fi
fi
keys "$work/without.log" >"$work/without.keys"
keys "$work/with.log" >"$work/with.keys"
new=$(comm -13 "$work/without.keys" "$work/with.keys")
# PP_VALIDATE_IGNORE (space-separated keys): messages a test knows to come and go with timing
# inside the validation layer itself, each named with its evidence where the test is declared.
for k in ${PP_VALIDATE_IGNORE:-}; do
	if grep -qx -- "$k" <<<"$new"; then
		echo "validation_diff.sh: ignored (PP_VALIDATE_IGNORE): $k"
		new=$(grep -vx -- "$k" <<<"$new")
	fi
done
if [ -n "$new" ]; then
	echo "validation_diff.sh: validation messages that appear only with passprobe$([ "$experiment" = 1 ] && echo "'s experiment"):"
	echo "$new"
	echo "--- first message of each:"
	while IFS= read -r k; do grep -m1 -F -- "$k" "$work/with.log" | cut -c1-1200; done <<<"$new"
	exit 1
fi
exit 0
