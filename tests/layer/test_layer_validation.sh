#!/bin/sh
# passprobe under the Khronos validation layer with synchronization validation: every
# passprobe-demo mode (and layer_probe_app) is run with the validation layer alone and with
# passprobe above it; passprobe must add no message matching Validation Error / VUID- / SYNC-
# (compared by message id, since handles differ between runs), and the program must still
# exit 0.
# The positive control: layer_vuid_control breaks one core rule and one synchronization rule on
# purpose; the same grep, under the same environment, must find both. Without it this test
# could pass because the validation layer printed nothing at all.
# Usage: test_layer_validation.sh DEMO|"" VUID_CONTROL PROBE_APP MODE...   (environment from
# CTest). MODE: a switch of the demo, run besides its default; the list is PP_DEMO_MODES in
# tests/layer/CMakeLists.txt (layer_demo_modes holds it to the demo's --help).
# Exit 77 (skip) when the validation layer is not installed.
set -u
demo=$1
control=$2
probe=$3
shift 3
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

found=
for dir in /usr/share /usr/local/share; do
	[ -e "$dir/vulkan/explicit_layer.d/VkLayer_khronos_validation.json" ] && found=1
done
if [ -z "$found" ]; then
	echo "SKIP: VK_LAYER_KHRONOS_validation is not installed (Debian package vulkan-validationlayers)"
	exit 77
fi

export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
WITHOUT=VK_LAYER_KHRONOS_validation
WITH=VK_LAYER_PASSPROBE_profiler:VK_LAYER_KHRONOS_validation
PATTERN='Validation Error|VUID-|SYNC-'

# ids FILE: one message id per matching line (a matching line without one counts as such).
ids() {
	grep -E "$PATTERN" "$1" | while IFS= read -r line; do
		id=$(printf '%s\n' "$line" | grep -oE '(VUID|SYNC|UNASSIGNED)-[A-Za-z0-9_.-]+' | head -n 1)
		printf '%s\n' "${id:-unidentified-validation-message}"
	done | sort -u
}

# run NAME LAYERS PROGRAM ARGS...: output in NAME.log, exit status in $rc.
run() {
	name=$1
	layers=$2
	shift 2
	VK_INSTANCE_LAYERS=$layers "$@" >"$name.log" 2>&1
	rc=$?
}

rm -rf val
mkdir -p val
cd val || exit 1

# ---- positive control -------------------------------------------------------------------
for layers in "$WITH" "$WITHOUT"; do
	tag=control_$(echo "$layers" | tr -c 'A-Za-z0-9\n' '_')
	run "$tag" "$layers" "$control"
	[ "$rc" -eq 0 ] && ok || fail "control ($layers) exited $rc"
	ids "$tag.log" >"$tag.ids"
	for want in VUID-vkCmdFillBuffer-dstOffset-00025 SYNC-HAZARD-WRITE-AFTER-WRITE; do
		if grep -qx "$want" "$tag.ids"; then
			ok
		else
			fail "control ($layers): $want not detected; the check cannot fail, so it proves nothing"
			cat "$tag.log"
		fi
	done
done

# ---- the programs, without and with passprobe ------------------------------------------------
compare() { # compare LABEL PROGRAM ARGS...
	label=$1
	shift
	tag=$(echo "$label" | tr -c 'A-Za-z0-9\n' '_')
	run "${tag}_without" "$WITHOUT" "$@"
	rc_without=$rc
	out=${VK_PASSPROBE_PROFILER_OUTPUT_DIR:?set by CTest}
	rm -rf "$out"
	run "${tag}_with" "$WITH" "$@"
	rc_with=$rc
	# Proof that passprobe was in the chain: it wrote its report at exit.
	[ -s "$out/report.json" ] && ok || fail "$label: passprobe wrote no report.json (was it loaded?)"
	[ "$rc_without" -eq 0 ] && ok || fail "$label without passprobe exited $rc_without"
	[ "$rc_with" -eq 0 ] && ok || fail "$label with passprobe exited $rc_with"
	ids "${tag}_without.log" >"${tag}_without.ids"
	ids "${tag}_with.log" >"${tag}_with.ids"
	added=$(comm -13 "${tag}_without.ids" "${tag}_with.ids")
	if [ -z "$added" ]; then
		ok
	else
		fail "$label: passprobe adds validation messages: $(echo "$added" | tr '\n' ' ')"
		grep -E "$PATTERN" "${tag}_with.log" | head -n 20
	fi
	base=$(wc -l <"${tag}_without.ids")
	[ "$base" -eq 0 ] || echo "note: $label reports $base message id(s) without passprobe too: $(tr '\n' ' ' <"${tag}_without.ids")"
}

compare "layer_probe_app" "$probe" --no-messenger --frames=3

if [ -n "$demo" ] && [ -x "$demo" ]; then
	[ $# -gt 0 ] || { echo "FAIL: no demo modes given"; exit 1; }
	small="--frames 2 --width 64 --height 64 --draws 1"
	modes="default $*"
	for mode in $modes; do
		if [ "$mode" = default ]; then
			# shellcheck disable=SC2086
			compare "demo" "$demo" $small
		else
			# shellcheck disable=SC2086
			compare "demo $mode" "$demo" $small "$mode"
		fi
	done
else
	echo "note: passprobe-demo not built; only layer_probe_app is compared"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
