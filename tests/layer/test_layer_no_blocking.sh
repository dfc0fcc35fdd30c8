#!/bin/sh
# The layer issues no blocking wait of its own. passprobe-demo runs in
# each mode with VK_LAYER_PASSPROBE_test_spy_above between it and passprobe and
# VK_LAYER_PASSPROBE_test_spy_below between passprobe and the driver; each spy appends its
# counts to a JSON-lines file at exit. For every blocking call (vkWaitForFences,
# vkQueueWaitIdle, vkDeviceWaitIdle, vkGetQueryPoolResults with WAIT_BIT, vkWaitSemaphores)
# the count below must equal the count above: the difference, passprobe's own, must be zero.
# So that equality means something: the application's waits were counted (above > 0 where the
# mode makes them), passprobe was between the spies and profiling (below sees more timestamps
# than above), and the spies' files hold one device line and one exit line each.
# Where passprobe copies query results on the GPU (copy_results: auto turns it on for lavapipe,
# whose vkGetQueryPoolResults is a device idle wait even without WAIT_BIT), it must not read
# them through the driver at all: there passprobe adds no vkGetQueryPoolResults of any kind.
# Usage: test_layer_no_blocking.sh DEMO MODE...   (environment from CTest; exit 77 without the
# demo). MODE: a switch of the demo, run besides its default; the list is PP_DEMO_MODES in
# tests/layer/CMakeLists.txt (layer_demo_modes holds it to the demo's --help).
set -u
demo=$1
shift
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

if [ -z "$demo" ] || [ ! -x "$demo" ]; then
	echo "SKIP: passprobe-demo is not built"
	exit 77
fi

BLOCKING="vkWaitForFences vkQueueWaitIdle vkDeviceWaitIdle vkGetQueryPoolResults_wait vkWaitSemaphores"
export VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_test_spy_above:VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below
export PASSPROBE_SPY_ABOVE_OUTPUT="$PWD/nb_above.jsonl"
export PASSPROBE_SPY_BELOW_OUTPUT="$PWD/nb_below.jsonl"
export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$PWD/nb_out"

# count FILE KEY: the KEY of the file's exit line.
count() {
	grep '"event":"exit"' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p"
}

[ $# -gt 0 ] || { echo "FAIL: no demo modes given"; exit 1; }
modes="default $*"

for mode in $modes; do
	rm -rf "$PASSPROBE_SPY_ABOVE_OUTPUT" "$PASSPROBE_SPY_BELOW_OUTPUT" "$VK_PASSPROBE_PROFILER_OUTPUT_DIR"
	args="--frames 3 --width 64 --height 64 --draws 1"
	[ "$mode" = default ] || args="$args $mode"
	# shellcheck disable=SC2086
	"$demo" $args >"nb_demo.log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && ok || { fail "demo $mode exited $rc"; cat nb_demo.log; continue; }

	for f in "$PASSPROBE_SPY_ABOVE_OUTPUT" "$PASSPROBE_SPY_BELOW_OUTPUT"; do
		n_exit=$(grep -c '"event":"exit"' "$f" 2>/dev/null)
		n_dev=$(grep -c '"event":"device"' "$f" 2>/dev/null)
		[ "${n_exit:-0}" -eq 1 ] && [ "${n_dev:-0}" -eq 1 ] && ok ||
			fail "demo $mode: $f has ${n_exit:-0} exit and ${n_dev:-0} device lines, expected 1 and 1"
	done

	summary="demo $mode:"
	for key in $BLOCKING; do
		above=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" "$key")
		below=$(count "$PASSPROBE_SPY_BELOW_OUTPUT" "$key")
		if [ -n "$above" ] && [ -n "$below" ] && [ "$above" -eq "$below" ]; then
			ok
		else
			fail "demo $mode: $key: application ${above:-?}, reaching the driver ${below:-?}"
		fi
		summary="$summary $key=${above:-?}/${below:-?}"
	done
	echo "$summary (application/driver)"

	fences=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" vkWaitForFences)
	[ "${fences:-0}" -gt 0 ] && ok || fail "demo $mode: the spy above counted no vkWaitForFences"
	ts_above=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" vkCmdWriteTimestamp)
	ts_below=$(count "$PASSPROBE_SPY_BELOW_OUTPUT" vkCmdWriteTimestamp)
	[ "${ts_below:-0}" -gt "${ts_above:-0}" ] && ok ||
		fail "demo $mode: timestamps above ${ts_above:-?}, below ${ts_below:-?}: passprobe not between the spies?"
	if grep -q '"query_results":"copied' "$VK_PASSPROBE_PROFILER_OUTPUT_DIR/report.json" 2>/dev/null; then
		reads_above=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" vkGetQueryPoolResults_nowait)
		reads_below=$(count "$PASSPROBE_SPY_BELOW_OUTPUT" vkGetQueryPoolResults_nowait)
		[ "${reads_above:-x}" = "${reads_below:-y}" ] && ok ||
			fail "demo $mode: results are copied, yet vkGetQueryPoolResults: application ${reads_above:-?}, reaching the driver ${reads_below:-?}"
		echo "demo $mode: results copied on the GPU; vkGetQueryPoolResults without WAIT_BIT ${reads_above:-?}/${reads_below:-?}"
	elif grep -q '"query_results"' "$VK_PASSPROBE_PROFILER_OUTPUT_DIR/report.json" 2>/dev/null; then
		echo "demo $mode: results read with vkGetQueryPoolResults (this driver's reads do not wait)"
	else
		fail "demo $mode: no report.json with the device's query_results in $VK_PASSPROBE_PROFILER_OUTPUT_DIR"
	fi
	case "$mode" in
	--misuse-query-wait)
		w=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" vkGetQueryPoolResults_wait)
		[ "${w:-0}" -gt 0 ] && ok || fail "demo $mode: no vkGetQueryPoolResults with WAIT_BIT counted"
		;;
	--misuse-wait-idle)
		w=$(count "$PASSPROBE_SPY_ABOVE_OUTPUT" vkQueueWaitIdle)
		[ "${w:-0}" -gt 0 ] && ok || fail "demo $mode: no vkQueueWaitIdle counted"
		;;
	esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
