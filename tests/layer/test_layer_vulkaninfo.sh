#!/bin/sh
# vulkaninfo (Debian vulkan-tools) with passprobe enabled: it must run to completion (exit 0)
# in full and in --summary form, list the layer, show the layer's VK_EXT_tooling_info device
# extension, and passprobe must print no error. The environment (layer path, enabled layers,
# output directory) comes from CTest. Exit 77 (skip) without vulkaninfo.
set -u
passed=0
failed=0
check() { # check DESCRIPTION COMMAND...
	what=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $what"
	fi
}

if ! command -v vulkaninfo >/dev/null 2>&1; then
	echo "SKIP: vulkaninfo not installed (Debian package vulkan-tools)"
	exit 77
fi

rm -rf out vulkaninfo.out vulkaninfo.err summary.out summary.err
vulkaninfo >vulkaninfo.out 2>vulkaninfo.err
rc=$?
check "vulkaninfo exits 0 (got $rc)" test "$rc" -eq 0
check "vulkaninfo lists VK_LAYER_PASSPROBE_profiler with its description" \
	grep -q "^VK_LAYER_PASSPROBE_profiler (passprobe: per-pass GPU/CPU timing" vulkaninfo.out
check "vulkaninfo shows the layer's VK_EXT_tooling_info" grep -q "VK_EXT_tooling_info" vulkaninfo.out
check "vulkaninfo got as far as a device" grep -q "deviceName" vulkaninfo.out
check "no passprobe error from vulkaninfo" sh -c '! grep -q "^passprobe: error" vulkaninfo.err'
# Proof that the layer was in the chain, not only listed from its manifest: vulkaninfo creates
# a device, and passprobe writes its report for it at exit.
check "passprobe was loaded (report in \$VK_PASSPROBE_PROFILER_OUTPUT_DIR)" \
	test -s "${VK_PASSPROBE_PROFILER_OUTPUT_DIR:-out}/report.json"

vulkaninfo --summary >summary.out 2>summary.err
rc=$?
check "vulkaninfo --summary exits 0 (got $rc)" test "$rc" -eq 0
check "vulkaninfo --summary lists VK_LAYER_PASSPROBE_profiler" grep -q "VK_LAYER_PASSPROBE_profiler" summary.out
check "vulkaninfo --summary lists a device" grep -q "deviceName" summary.out
check "no passprobe error from vulkaninfo --summary" sh -c '! grep -q "^passprobe: error" summary.err'

if [ "$failed" -ne 0 ]; then
	echo "--- vulkaninfo stderr"; cat vulkaninfo.err
	echo "--- vulkaninfo --summary stderr"; cat summary.err
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
