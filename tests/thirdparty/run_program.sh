#!/bin/bash
# Runs a third-party program through `passprobe run` in a clean environment.
# docs/testing-integration.md, *Real programs*.
#
#   run_program.sh [--plain] [--above LAYER]... [--below LAYER]... [--env NAME=VALUE]...
#                  [--preload LIBRARY]... [--no-leak-check] [--vulkan-only] [--renderdoc FRAMES]
#                  WORKDIR -- PROGRAM [ARGS...]
#
# WORKDIR is emptied; passprobe writes to WORKDIR/out (every frame kept: report_frames
# 100000), the program's output goes to WORKDIR/app.log and the program runs in WORKDIR.
# --plain runs the program without passprobe (to make a capture). --vulkan-only: `passprobe run
# --vulkan-only` (no OpenGL ES shim preloaded). --renderdoc FRAMES: `passprobe run --renderdoc
# FRAMES` (RenderDoc's capture layer above passprobe; captures in WORKDIR/out/renderdoc).
#
# --above/--below put an installed layer (explicit or implicit) between the program and
# passprobe, or between passprobe and the driver. The Debian loader (1.3.239) ignores the order
# of VK_INSTANCE_LAYERS: it chains explicit layers in the order their manifests are found,
# the first directory of the layer path nearest the application, implicit layers above all of
# them. So each named layer's manifest is copied into WORKDIR/layers/above or /below as an
# explicit one (its enable/disable variables renamed away), VK_LAYER_PATH is
# above:<passprobe>:below alone (no system copy of the same layer), the implicit
# device-select layer is switched off (NODEVICE_SELECT=1) unless named, and the loader's own
# log (VK_LOADER_DEBUG=layer) must show the chain in that order.
#
# Fails when the program fails or dies of a signal, passprobe logged an error, or it said it
# could not time the GPU passes.
# Environment from CTest: PP_PASSPROBE (the passprobe command), PP_LAYER_DIR, PP_DRIVER_FILES.
set -u
plain=0
above=()
below=()
extra_env=()
preload=()
leak_check=1
run_opts=()
while [ $# -gt 0 ]; do
	case "$1" in
	--plain) plain=1; shift ;;
	--above) above+=("$2"); shift 2 ;;
	--below) below+=("$2"); shift 2 ;;
	--env) extra_env+=("$2"); shift 2 ;;
	--preload) preload+=("$2"); shift 2 ;;
	--no-leak-check) leak_check=0; shift ;;
	--vulkan-only) run_opts+=(--vulkan-only); shift ;;
	--renderdoc) run_opts+=(--renderdoc "$2"); shift 2 ;;
	*) break ;;
	esac
done
work=$1
shift
[ "${1:-}" = "--" ] || { echo "run_program.sh: expected -- after WORKDIR" >&2; exit 2; }
shift
: "${PP_PASSPROBE:?PP_PASSPROBE must name the passprobe command}"
rm -rf "$work"
mkdir -p "$work/out" "$work/xdg" "$work/layers/above" "$work/layers/below"
# The runtime directory holds sockets (Weston's Wayland socket), whose path must fit in 108
# bytes: a short directory of its own under /tmp, mode 0700 as the basedir spec wants, not one
# under the build tree, whose path grows with the checkout's.
runtime=$(mktemp -d /tmp/pp-rt.XXXXXX) || { echo "run_program.sh: cannot make a runtime directory in /tmp"; exit 1; }
trap 'rm -rf "$runtime"' EXIT

manifest_copy() { # NAME DIR: an explicit copy of the installed manifest of layer NAME
	local d f
	for d in /usr/share/vulkan /usr/local/share/vulkan /etc/vulkan; do
		for f in "$d"/explicit_layer.d/*.json "$d"/implicit_layer.d/*.json; do
			grep -qs "\"name\" *: *\"$1\"" "$f" || continue
			sed 's/"enable_environment"/"pp_test_unused_enable_environment"/; s/"disable_environment"/"pp_test_unused_disable_environment"/' \
				"$f" >"$2/$(basename "$f")"
			return 0
		done
	done
	echo "SKIP: Vulkan layer $1 is not installed"
	exit 77
}
layered=0
chain=()
for l in ${above[@]+"${above[@]}"}; do manifest_copy "$l" "$work/layers/above"; chain+=("$l"); layered=1; done
chain+=(VK_LAYER_PASSPROBE_profiler)
for l in ${below[@]+"${below[@]}"}; do manifest_copy "$l" "$work/layers/below"; chain+=("$l"); layered=1; done
(
	# As run_app.sh: nothing of the caller's may change what the layers do.
	for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
	unset VK_LAYER_SETTINGS_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_PATH \
		VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH ENABLE_VULKAN_RENDERDOC_CAPTURE VK_LAYER_MESA_OVERLAY_CONFIG \
		GFXRECON_CAPTURE_FILE MESA_VK_DEVICE_SELECT NODEVICE_SELECT RENDERDOC_CAPFILE RENDERDOC_CAPOPTS
	export XDG_DATA_HOME="$work/xdg" XDG_RUNTIME_DIR="$runtime" VK_PASSPROBE_PROFILER_SUMMARY=off
	if [ -n "${PP_DRIVER_FILES:-}" ]; then
		export VK_DRIVER_FILES="$PP_DRIVER_FILES" VK_ICD_FILENAMES="$PP_DRIVER_FILES"
	fi
	if [ $layered = 1 ]; then
		: "${PP_LAYER_DIR:?PP_LAYER_DIR must name the directory holding the passprobe manifest}"
		path="$work/layers/above:$PP_LAYER_DIR:$work/layers/below"
		# passprobe run keeps VK_ADD_LAYER_PATH as it is when it names the layer's directory.
		export VK_LAYER_PATH="$path" VK_ADD_LAYER_PATH="$path" VK_LOADER_DEBUG=layer NODEVICE_SELECT=1
		export VK_INSTANCE_LAYERS="$(IFS=:; echo "${chain[*]}")"
	fi
	for e in ${extra_env[@]+"${extra_env[@]}"}; do export "$e"; done
	# After what is preloaded already: under AddressSanitizer (.ci/run) its runtime must stay first.
	for l in ${preload[@]+"${preload[@]}"}; do export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$l"; done
	# --no-leak-check: under AddressSanitizer (.ci/run), a program whose layers leak at exit.
	# RenderDoc (Debian 1.24) does, and it sits above passprobe, so suppressing its library
	# would also hide passprobe's own leaks in calls it passes down; every other test still
	# checks passprobe for leaks.
	[ $leak_check = 0 ] && [ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
	cd "$work" || exit 1
	[ $plain = 1 ] && exec "$@"
	exec "$PP_PASSPROBE" run ${run_opts[@]+"${run_opts[@]}"} -o "$work/out" --set report_frames=100000 -- "$@"
) >"$work/app.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	what="exit $rc"
	[ $rc -gt 128 ] && what="signal $((rc - 128)), exit $rc"
	echo "run_program.sh: the program failed ($what): $*"
	cat "$work/app.log"
	exit 1
fi
if grep -q "passprobe: error" "$work/app.log"; then
	echo "run_program.sh: passprobe logged an error:"
	cat "$work/app.log"
	exit 1
fi
# A device passprobe cannot time says so once (vkcube and the other Vulkan 1.0 programs do).
if grep -q "GPU pass timing disabled" "$work/app.log"; then
	echo "run_program.sh: passprobe could not time the GPU passes:"
	grep "GPU pass timing disabled" "$work/app.log"
	exit 1
fi
if [ $layered = 1 ]; then
	# The loader logs the instance chain from the driver up; reversed, it must be ours.
	got=$(sed -n 's/.*Insert instance layer "\([^"]*\)".*/\1/p' "$work/app.log" | tac | paste -sd' ')
	want="${chain[*]}"
	if [ "$got" != "$want" ]; then
		echo "run_program.sh: the loader chained \"$got\", expected \"$want\" (application first)"
		exit 1
	fi
	echo "run_program.sh: layer chain (application first): $got"
fi
grep -v '^INFO | LAYER\|^WARNING | LAYER\|^ERROR | LAYER\|^LAYER:' "$work/app.log"
exit 0
