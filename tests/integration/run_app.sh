#!/bin/bash
# Runs pp_testapp through the real Vulkan loader with passprobe enabled, in a clean
# environment, then (optionally) a checker on its outputs. docs/testing-integration.md.
#
#   run_app.sh [--attempts N] [--spy] [--env NAME=VALUE]... WORKDIR -- APP [ARGS...] [--then CHECK [ARGS...]]
#
# WORKDIR is emptied; passprobe writes to WORKDIR/out, the application's output goes to
# WORKDIR/app.log. --spy puts the test spy layers above and below passprobe, writing
# WORKDIR/spy-above.jsonl and WORKDIR/spy-below.jsonl. --attempts N reruns application and
# checker up to N times until the checker passes (used only where the checked quantity is a
# timing). The outputs are then made from the program's recording with `passprobe report`
# (PP_PASSPROBE). Environment from CTest: PP_LAYER_DIR (required), PP_DRIVER_FILES, PP_SPY_DIR,
# PP_PASSPROBE.
set -u
attempts=1
spy=0
extra_env=()
while [ $# -gt 0 ]; do
	case "$1" in
	--attempts) attempts=$2; shift 2 ;;
	--spy) spy=1; shift ;;
	--env) extra_env+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
work=$1
shift
[ "${1:-}" = "--" ] || { echo "run_app.sh: expected -- after WORKDIR" >&2; exit 2; }
shift
app=()
check=()
while [ $# -gt 0 ] && [ "$1" != "--then" ]; do app+=("$1"); shift; done
if [ "${1:-}" = "--then" ]; then shift; check=("$@"); fi
: "${PP_LAYER_DIR:?PP_LAYER_DIR must name the directory holding the passprobe manifest}"

run_once() {
	rm -rf "$work"
	mkdir -p "$work/out" "$work/xdg"
	(
		# Nothing from the caller's environment may change what the layer does: no
		# passprobe settings, no settings file (XDG_DATA_HOME and the working directory
		# are ours), no other layers.
		for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
		unset VK_LAYER_SETTINGS_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_PATH
		unset PASSPROBE_SPY_ABOVE_FAIL PASSPROBE_SPY_BELOW_FAIL PASSPROBE_SPY_ABOVE_HIDE_EXTENSIONS \
			PASSPROBE_SPY_BELOW_HIDE_EXTENSIONS
		export XDG_DATA_HOME="$work/xdg" XDG_RUNTIME_DIR="$work/xdg"
		export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out" VK_PASSPROBE_PROFILER_SUMMARY=off
		if [ -n "${PP_DRIVER_FILES:-}" ]; then
			export VK_DRIVER_FILES="$PP_DRIVER_FILES" VK_ICD_FILENAMES="$PP_DRIVER_FILES"
		fi
		if [ "$spy" = 1 ]; then
			: "${PP_SPY_DIR:?PP_SPY_DIR must name the directory of the spy layer manifests}"
			# The Debian loader orders explicit layers by the order their directories
			# are found, so the path lists them in chain order.
			export VK_ADD_LAYER_PATH="$PP_SPY_DIR/above:$PP_LAYER_DIR:$PP_SPY_DIR/below"
			export VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_test_spy_above:VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below
			export PASSPROBE_SPY_ABOVE_OUTPUT="$work/spy-above.jsonl" PASSPROBE_SPY_BELOW_OUTPUT="$work/spy-below.jsonl"
		else
			export VK_ADD_LAYER_PATH="$PP_LAYER_DIR"
			export VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
		fi
		for e in ${extra_env[@]+"${extra_env[@]}"}; do export "$e"; done
		cd "$work" && exec "${app[@]}"
	) >"$work/app.log" 2>&1
	local rc=$?
	if [ $rc -eq 77 ]; then
		cat "$work/app.log"
		return 77
	fi
	if [ $rc -ne 0 ]; then
		echo "run_app.sh: the application failed (exit $rc): ${app[*]}"
		cat "$work/app.log"
		return 2
	fi
	if grep -q "passprobe: error" "$work/app.log"; then
		echo "run_app.sh: passprobe logged an error:"
		cat "$work/app.log"
		return 2
	fi
	# A program that ran to its end with passprobe and no error leaves its recording and its
	# own report.json; a missing one is a failure here, not a check that quietly reads the
	# other or nothing.
	local f
	for f in report.json recording.ppr; do
		if [ ! -f "$work/out/$f" ]; then
			echo "run_app.sh: passprobe left no $f in $work/out"
			cat "$work/app.log"
			return 2
		fi
	done
	# The process's own report.json, for checks that compare it with the one made below.
	cp "$work/out/report.json" "$work/process-report.json"
	# The outputs are made from the recording, as `passprobe run` does when the program ends.
	if [ -n "${PP_PASSPROBE:-}" ] && ! "$PP_PASSPROBE" report "$work/out" >"$work/report.log" 2>&1; then
		echo "run_app.sh: passprobe report could not make the outputs:"
		cat "$work/report.log"
		return 2
	fi
	[ ${#check[@]} -eq 0 ] && return 0
	"${check[@]}"
}

for ((i = 1; i <= attempts; i++)); do
	run_once
	rc=$?
	[ $rc -eq 0 ] && exit 0
	[ $rc -eq 77 ] && exit 77 # the application cannot run here (it said why)
	[ $rc -eq 2 ] && exit 1 # the application itself failed: no retry
	[ $i -lt "$attempts" ] && echo "run_app.sh: attempt $i of $attempts failed; running again"
done
exit 1
