#!/usr/bin/env bash
# The real-GPU check (docs/real-gpu.md): runs the demos, benchmarks and test programs through
# passprobe on whatever device the machine has and judges what passprobe reports. On a CPU
# device (lavapipe/llvmpipe) it is a dry run: few frames, and timing decides nothing.
#
#   tools/gpu_check/gpu_check.sh --prepare [--build DIR] [--bundle DIR] [--no-loader]
#       Copies what the check needs into a bundle (default gpu-check-bundle/ in the repository
#       root, ignored by git): the programs, the layer with its manifest, the GLES shim, and
#       Debian's Vulkan/EGL/GLES loader libraries (libvulkan1 libegl1 libglvnd0 libgles2,
#       fetched with `apt-get download` into BUNDLE/debs unless the .deb files are already
#       there, and unpacked with `dpkg -x`). --no-loader: no loader libraries (the machine's
#       own are used).
#   tools/gpu_check/gpu_check.sh [--bundle DIR] [--out DIR] [--dry-run | --real-gpu]
#                                [--spy-dir DIR] [--time-limit SECONDS]
#       Runs the check from the bundle. Outputs go to --out, default $OUT: summary.md,
#       summary.json, gpu_check.log and runs/ (every run's command line, log and report.json).
#       The device decides the profile (a CPU device: --dry-run); --dry-run / --real-gpu force
#       one. --spy-dir: the test spy layer's manifest directory (BUILD/tests/layers/spy_manifest)
#       to emulate VK_KHR_performance_query in the dry run, so check 5's analysis runs too.
#       --time-limit (default 240): runs that would start later are left out, said N/A; each
#       run has its own limit too (45 s on a GPU), so the check ends within 5 minutes.
#   tools/gpu_check/gpu_check.sh --analyse DIR
#       Judges DIR/runs again (a check run elsewhere, e.g. on a machine without python3) and
#       rewrites DIR/summary.md and DIR/summary.json.
# Exit status: 0 when no check failed, 1 when one did, 2 on a bad command line or a bundle that
# is not ready.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
analyser=$here/gpu_check.py
programs=(passprobe-demo pp_gles_demo bench_api pp_testapp pp_queues)
layer_files=(VkLayer_passprobe.json libVkLayer_passprobe.so libpassprobe_gles.so)
loader_packages=(libvulkan1 libegl1 libglvnd0 libgles2)

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
	exit 0
}
die() { # die STATUS MESSAGE
	echo "gpu_check.sh: $2" >&2
	exit "$1"
}

action=run
bundle=$root/gpu-check-bundle
build=$root/build
out=${OUT:-}
profile=auto
spy_dir=
loader=1
time_limit=240
analyse_dir=
while [ $# -gt 0 ]; do
	case "$1" in
	--prepare) action=prepare; shift ;;
	--analyse)
		[ $# -ge 2 ] || die 2 "--analyse needs the output directory of a check"
		action=analyse; analyse_dir=$2; shift 2 ;;
	--bundle | --build | --out | --spy-dir | --time-limit)
		[ $# -ge 2 ] && [ -n "$2" ] || die 2 "$1 needs a value"
		case "$1" in
		--bundle) bundle=$2 ;;
		--build) build=$2 ;;
		--out) out=$2 ;;
		--spy-dir) spy_dir=$2 ;;
		--time-limit)
			[[ $2 =~ ^[0-9]+$ ]] && (($2 >= 10)) || die 2 "--time-limit is a whole number of seconds, 10 or more, not '$2'"
			time_limit=$2 ;;
		esac
		shift 2 ;;
	--dry-run) profile=dry; shift ;;
	--real-gpu) profile=real; shift ;;
	--no-loader) loader=0; shift ;;
	-h | --help) usage ;;
	*) die 2 "unknown argument '$1' (allowed: --prepare, --analyse DIR, --bundle DIR, --build DIR, --out DIR, --dry-run, --real-gpu, --spy-dir DIR, --time-limit SECONDS, --no-loader, --help)" ;;
	esac
done
absolute() { case "$1" in /* | "") echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
bundle=$(absolute "$bundle")
build=$(absolute "$build")
spy_dir=$(absolute "$spy_dir")

# ---- --prepare ------------------------------------------------------------------------------

prepare() {
	[ -f "$build/CMakeCache.txt" ] || die 2 "$build is not a CMake build directory (build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2)"
	local type
	type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
	[ "$type" = Release ] || echo "gpu_check.sh: warning: $build is a '$type' build; the real-GPU check is meant for a Release build (its overhead figures are)" >&2
	local -A from=(
		[passprobe-demo]=$build/tools/demo/passprobe-demo
		[pp_gles_demo]=$build/tools/gles_demo/pp_gles_demo
		[bench_api]=$build/tests/bench/api/bench_api
		[pp_testapp]=$build/tests/apps/pp_testapp
		[pp_queues]=$build/tests/gpu_check/pp_queues
	)
	local p missing=() manifest=$build/layer_manifest
	for p in "${programs[@]}"; do [ -x "${from[$p]}" ] || missing+=("${from[$p]}"); done
	for p in "${layer_files[@]}"; do [ -f "$manifest/$p" ] || missing+=("$manifest/$p"); done
	((${#missing[@]} == 0)) || die 2 "not built: ${missing[*]} (cmake --build $build -j2)"
	rm -rf "${bundle:?}/bin" "${bundle:?}/layer" "${bundle:?}/lib"
	mkdir -p "$bundle/bin" "$bundle/layer"
	for p in "${programs[@]}"; do cp "${from[$p]}" "$bundle/bin/"; done
	cp "${layer_files[@]/#/$manifest/}" "$bundle/layer/"
	if [ $loader = 1 ]; then
		mkdir -p "$bundle/debs"
		local need=()
		for p in "${loader_packages[@]}"; do
			compgen -G "$bundle/debs/${p}_*.deb" >/dev/null || need+=("$p")
		done
		if ((${#need[@]})); then
			command -v apt-get >/dev/null || die 2 "apt-get not found: put the .deb files of ${need[*]} into $bundle/debs, or use --no-loader"
			(cd "$bundle/debs" && apt-get download "${need[@]}") ||
				die 2 "apt-get download ${need[*]} failed; put their .deb files into $bundle/debs by hand, or use --no-loader"
		fi
		local unpack
		unpack=$(mktemp -d /tmp/gpu-check-debs.XXXXXX)
		for p in "${loader_packages[@]}"; do
			local deb
			deb=$(compgen -G "$bundle/debs/${p}_*.deb" | sort -V | tail -n 1)
			dpkg -x "$deb" "$unpack"
			echo "loader package: $(basename "$deb")" >>"$unpack/packages"
		done
		mkdir -p "$bundle/lib"
		# Real files under their sonames: links may not survive the copy to the GPU machine.
		cp -L "$unpack"/usr/lib/x86_64-linux-gnu/lib*.so.[0-9] "$bundle/lib/"
		cp "$unpack/packages" "$bundle/lib/PACKAGES"
		rm -rf "$unpack"
	fi
	{
		echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
		echo "build: $build ($type)"
		echo "prepared: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m)"
		[ -f "$bundle/lib/PACKAGES" ] && cat "$bundle/lib/PACKAGES"
		true
	} >"$bundle/MANIFEST"
	echo "gpu_check.sh: bundle ready in $bundle ($(du -sk "$bundle" | cut -f1) KiB):"
	local dirs=(bin layer)
	[ -d "$bundle/lib" ] && dirs+=(lib)
	(cd "$bundle" && find "${dirs[@]}" -type f | sort | sed 's/^/  /')
}

# ---- the check ------------------------------------------------------------------------------

start_s=$(date +%s)
elapsed() { echo $(($(date +%s) - start_s)); }
log() { echo "gpu_check.sh: [$(elapsed) s] $*"; }

# run NAME LIMIT [NAME=VALUE...] -- PROGRAM [ARGS...]: runs PROGRAM (a bundle program name)
# in runs/NAME with the given environment, under `timeout LIMIT`, keeping its command line,
# environment, exit status, wall time, stdout and stderr there. A run that would start after
# the time limit is left out (runs/NAME/skipped says why).
run() {
	local name=$1 limit=$2
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local dir=$runs/$name prog=$bundle/bin/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	printf '%s\n' "$(basename "$prog")" "$@" >"$dir/argv"
	printf '%s\n' ${envs[@]+"${envs[@]}"} >"$dir/env"
	if (($(elapsed) + 5 > time_limit)); then
		echo "the check's time limit ($time_limit s) was reached before this run" >"$dir/skipped"
		[ -n "${said_time_limit:-}" ] || log "time limit ($time_limit s) reached: this run ($name) and every later one left out"
		said_time_limit=1
		return 0
	fi
	local t0 t1 rc=0
	t0=$(date +%s%N)
	(cd "$dir" && exec env ${envs[@]+"${envs[@]}"} timeout -k 5 "$limit" "$prog" "$@") >"$dir/stdout" 2>"$dir/stderr" || rc=$?
	t1=$(date +%s%N)
	echo "$rc" >"$dir/rc"
	echo $((t1 - t0)) >"$dir/wall_ns"
	# Only report.json is judged; the trace and CSV stay only where a check reads them.
	rm -f "$dir/out/passes.csv" "$dir/out/gles/passes.csv"
	log "$name: exit $rc, $(((t1 - t0) / 1000000)) ms"
}

# The Vulkan drivers and EGL vendor libraries this machine offers, and which the check uses:
# an NVIDIA driver installed without its manifests (containers often are) gets manifests
# written here. Prints key: value lines for runs/environment.
drivers_find() {
	local d f icds=() vendors=()
	for d in /etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
		for f in "$d"/*.json; do [ -f "$f" ] && icds+=("$f"); done
	done
	for d in /etc/glvnd/egl_vendor.d /usr/share/glvnd/egl_vendor.d /usr/local/share/glvnd/egl_vendor.d; do
		for f in "$d"/*.json; do [ -f "$f" ] && vendors+=("$f"); done
	done
	echo "vulkan drivers found: ${icds[*]:-none}"
	echo "egl vendors found: ${vendors[*]:-none}"
	local lib_dirs=(/usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/local/nvidia/lib)
	nvidia_lib() { # NAME: the path of an installed NVIDIA library, or nothing
		local l
		l=$(ldconfig -p 2>/dev/null | sed -n "s/.*$1 .*=> \(.*\)/\1/p" | head -n 1)
		[ -n "$l" ] || for d in "${lib_dirs[@]}"; do [ -e "$d/$1" ] && l=$d/$1 && break; done
		echo "$l"
	}
	if [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
		echo "vulkan driver used: ${VK_DRIVER_FILES:-$VK_ICD_FILENAMES} (given by the caller)"
	else
		local nv=()
		for f in ${icds[@]+"${icds[@]}"}; do case "$(basename "$f")" in nvidia*) nv+=("$f") ;; esac; done
		if ((${#nv[@]} == 0)) && [ -n "$(nvidia_lib libGLX_nvidia.so.0)" ]; then
			mkdir -p "$work/icd.d"
			printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
				"$(nvidia_lib libGLX_nvidia.so.0)" >"$work/icd.d/nvidia_icd.json"
			nv=("$work/icd.d/nvidia_icd.json")
			echo "vulkan driver manifest written: $work/icd.d/nvidia_icd.json (libGLX_nvidia.so.0 has none)"
		fi
		if ((${#nv[@]})); then
			# Only the GPU's driver: lavapipe, if installed too, must not be the device chosen.
			VK_DRIVER_FILES=$(IFS=:; echo "${nv[*]}")
			export VK_DRIVER_FILES VK_ICD_FILENAMES=$VK_DRIVER_FILES
			echo "vulkan driver used: $VK_DRIVER_FILES"
		else
			echo "vulkan driver used: the loader's choice"
		fi
	fi
	if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}${__EGL_VENDOR_LIBRARY_DIRS:-}" ] && ((${#vendors[@]} == 0)) &&
		[ -n "$(nvidia_lib libEGL_nvidia.so.0)" ]; then
		mkdir -p "$work/egl_vendor.d"
		printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s"}}\n' \
			"$(nvidia_lib libEGL_nvidia.so.0)" >"$work/egl_vendor.d/10_nvidia.json"
		export __EGL_VENDOR_LIBRARY_FILENAMES=$work/egl_vendor.d/10_nvidia.json
		echo "egl vendor manifest written: $__EGL_VENDOR_LIBRARY_FILENAMES (libEGL_nvidia.so.0 has none)"
	fi
	if command -v nvidia-smi >/dev/null; then
		echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
	fi
}

# counter_runs PREFIX NAME=VALUE...: the device's VK_KHR_performance_query counters with the
# given environment. PREFIX_list (one frame, gpu_counters=default) lists every counter; then
# PREFIX_draws4 and PREFIX_draws16 measure a few of them, the vertex, primitive and draw counts
# first, on 4 and 16 times the geometry (a short list needs few hardware passes, so each
# counter is measured within the frames run).
counter_runs() {
	local prefix=$1
	shift
	local envs=("$@") names pick list=()
	run "${prefix}_list" "$limit" "${envs[@]}" -- passprobe-demo --frames 1 "${diag_size[@]}" --draws 4
	# Names as report.json writes them, leaving out any the gpu_counters setting cannot take.
	names=$(grep -o '{"source":"VK_KHR_performance_query","name":"[^"\\]*"' "$runs/${prefix}_list/out/report.json" 2>/dev/null |
		sed 's/.*"name":"//; s/"$//' | grep -E '^[][A-Za-z0-9 _./$()%:-]+$' | sort -u || true)
	[ -n "$names" ] || return 0
	pick=$({
		grep -iE 'vert|prim|vtx|triangle|input.?assembl|draw' <<<"$names" | head -n 6 || true
		grep -viE 'vert|prim|vtx|triangle|input.?assembl|draw' <<<"$names" | head -n 2 || true
	})
	while IFS= read -r n; do [ -n "$n" ] && list+=("VK_KHR_performance_query/$n"); done <<<"$pick"
	local chosen
	chosen=$(IFS=,; echo "${list[*]}")
	local cdemo=(passprobe-demo --frames "$counter_frames" "${diag_size[@]}")
	envs=("${envs[@]/#VK_PASSPROBE_PROFILER_GPU_COUNTERS=*/VK_PASSPROBE_PROFILER_GPU_COUNTERS=$chosen}")
	run "${prefix}_draws4" "$limit" "${envs[@]}" -- "${cdemo[@]}" --draws 4
	run "${prefix}_draws16" "$limit" "${envs[@]}" -- "${cdemo[@]}" --draws 16
}

check() {
	[ -n "$out" ] || die 2 "no output directory: give --out DIR or set OUT"
	local p missing=()
	for p in "${programs[@]}"; do [ -x "$bundle/bin/$p" ] || missing+=("bin/$p"); done
	for p in "${layer_files[@]}"; do [ -f "$bundle/layer/$p" ] || missing+=("layer/$p"); done
	((${#missing[@]} == 0)) || die 2 "the bundle $bundle lacks ${missing[*]}: prepare it with tools/gpu_check/gpu_check.sh --prepare"
	command -v timeout >/dev/null || die 2 "timeout (coreutils) not found"
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	runs=$out/runs
	rm -rf "$runs"
	mkdir -p "$runs"
	work=$(mktemp -d /tmp/gpu-check.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	check_runs 2>&1 | tee "$out/gpu_check.log"
}

check_runs() {
	# Nothing of the caller's may change what passprobe or the programs do.
	local v
	for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
	unset VK_LAYER_SETTINGS_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_PATH \
		VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH VK_LOADER_DEBUG PASSPROBE_DEMO_DEVICE
	mkdir -p "$work/xdg"
	export XDG_DATA_HOME=$work/xdg XDG_CONFIG_HOME=$work/xdg XDG_RUNTIME_DIR=$work/xdg
	if [ -d "$bundle/lib" ]; then
		export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	fi
	{
		echo "bundle: $bundle"
		[ -f "$bundle/MANIFEST" ] && sed 's/^/bundle /' "$bundle/MANIFEST"
		[ -d "$bundle/lib" ] && echo "loader libraries: $bundle/lib" || echo "loader libraries: the machine's"
		echo "machine: $(uname -srm), $(nproc) CPUs, glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2)"
		drivers_find
		echo "time limit: $time_limit s"
	} >"$runs/environment"
	cat "$runs/environment"

	local layer=(VK_ADD_LAYER_PATH="$bundle/layer" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
		VK_PASSPROBE_PROFILER_OUTPUT_DIR=out VK_PASSPROBE_PROFILER_SUMMARY=off)
	local quiet=(VK_PASSPROBE_PROFILER_TRACE=off VK_PASSPROBE_PROFILER_CSV=off)
	run probe 60 "${layer[@]}" "${quiet[@]}" -- passprobe-demo --frames 2 --width 64 --height 64 --draws 1
	local device
	device=$(sed -n 's/.*"devices": *\[{"id": *0, *"name": *"\([^"]*\)".*/\1/p' "$runs/probe/out/report.json" 2>/dev/null | head -n 1)
	if [ "$profile" = auto ]; then
		case "$device" in
		llvmpipe* | "") profile=dry ;;
		*) profile=real ;;
		esac
	fi
	{
		echo "device: ${device:-unknown (the probe run wrote no report.json: runs/probe/stderr)}"
		echo "profile: $profile"
	} >>"$runs/environment"
	log "device: ${device:-unknown}; profile: $profile"

	# Sizes, frames and loads of each profile (docs/real-gpu.md, "Two profiles").
	local frames size_w size_h k_mid k_max rounds bench_frames demo_short demo_long limit
	local gles_size gles_frames gles_platform queues_args demo_size
	if [ "$profile" = real ]; then
		frames=12 size_w=1920 size_h=1080 k_mid=8 k_max=64 limit=45
		rounds=7 bench_frames=500 demo_short=60 demo_long=600 demo_size=()
		gles_size=1920x1080 gles_frames=40 gles_platform=auto queues_args=(--frames 8 --load 4096 --groups 1024)
		diag_size=(--width 640 --height 360) counter_frames=12
	else
		frames=3 size_w=128 size_h=72 k_mid=2 k_max=8 limit=120
		rounds=1 bench_frames=20 demo_short=1 demo_long=3 demo_size=(--width 128 --height 72)
		# An EGL device's display, as NVIDIA's EGL gives it (Mesa has both platforms).
		gles_size=160x120 gles_frames=8 gles_platform=device queues_args=(--frames 3 --load 4 --groups 16)
		diag_size=(--width 128 --height 72) counter_frames=3
	fi
	local demo=(passprobe-demo --frames "$frames" --frames-in-flight 1 --width "$size_w" --height "$size_h" --draws 5 --timings)

	log "1-3: timing follows load, time line, pipeline statistics"
	run load_k1 "$limit" "${layer[@]}" "${quiet[@]}" -- "${demo[@]}"
	run load_a_mid "$limit" "${layer[@]}" "${quiet[@]}" -- "${demo[@]}" --load "gbuffer=$k_mid,postprocess=$k_mid"
	run load_a_max "$limit" "${layer[@]}" "${quiet[@]}" -- "${demo[@]}" --load "gbuffer=$k_max,postprocess=$k_max"
	run load_b_mid "$limit" "${layer[@]}" "${quiet[@]}" -- "${demo[@]}" --load "shadow=$k_mid,lighting=$k_mid,composite=$k_mid"
	run load_b_max "$limit" "${layer[@]}" "${quiet[@]}" -- "${demo[@]}" --load "shadow=$k_max,lighting=$k_max,composite=$k_max"

	log "4: resubmission and overlap"
	run resubmit "$limit" "${layer[@]}" "${quiet[@]}" -- pp_testapp --scenario resubmit --times 4 --draws 3
	run simultaneous "$limit" "${layer[@]}" "${quiet[@]}" -- pp_testapp --scenario simultaneous --times 3 --draws 3
	run queues "$limit" "${layer[@]}" VK_PASSPROBE_PROFILER_CSV=off -- pp_queues "${queues_args[@]}"

	log "5: GPU hardware counters"
	local counters=(VK_PASSPROBE_PROFILER_GPU_COUNTERS=default VK_PASSPROBE_PROFILER_LOG_LEVEL=info)
	counter_runs counters "${layer[@]}" "${quiet[@]}" "${counters[@]}"
	if [ "$profile" = dry ] && [ -n "$spy_dir" ]; then
		[ -f "$spy_dir/below/VkLayer_passprobe_test_spy_below.json" ] ||
			die 2 "--spy-dir $spy_dir has no below/VkLayer_passprobe_test_spy_below.json (BUILD/tests/layers/spy_manifest)"
		counter_runs emulated_counters VK_ADD_LAYER_PATH="$bundle/layer:$spy_dir/below" \
			VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below \
			PASSPROBE_SPY_BELOW_PERF_QUERY_PASSES=2 VK_PASSPROBE_PROFILER_OUTPUT_DIR=out \
			VK_PASSPROBE_PROFILER_SUMMARY=off "${quiet[@]}" "${counters[@]}"
	fi

	log "7: OpenGL ES through the shim"
	run gles "$limit" VK_PASSPROBE_PROFILER_OUTPUT_DIR=out VK_PASSPROBE_PROFILER_SUMMARY=off "${quiet[@]}" \
		LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$bundle/layer/libpassprobe_gles.so" -- \
		pp_gles_demo --frames "$gles_frames" --size "$gles_size" --egl-platform "$gles_platform" --load 16,64,4,1,1 \
		--timings --info

	log "8: diagnostics"
	local ddemo=(passprobe-demo --frames 6 "${diag_size[@]}")
	run diag_control "$limit" "${layer[@]}" "${quiet[@]}" -- "${ddemo[@]}"
	run diag_control_timings "$limit" "${layer[@]}" "${quiet[@]}" -- "${ddemo[@]}" --timings
	run diag_misuse_barriers "$limit" "${layer[@]}" "${quiet[@]}" -- "${ddemo[@]}" --misuse-barriers
	run diag_misuse_query_wait "$limit" "${layer[@]}" "${quiet[@]}" -- "${ddemo[@]}" --misuse-query-wait
	run diag_misuse_wait_idle "$limit" "${layer[@]}" "${quiet[@]}" -- "${ddemo[@]}" --misuse-wait-idle

	log "6: overhead (bench_api and the demo, alternating)"
	local no_gpu=(VK_PASSPROBE_PROFILER_TIMESTAMPS=off VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off)
	local r
	for ((r = 0; r < rounds; r++)); do
		run "overhead_bench_none_$r" "$limit" -- bench_api --frames "$bench_frames"
		run "overhead_bench_default_$r" "$limit" "${layer[@]}" -- bench_api --frames "$bench_frames"
		run "overhead_bench_timestamps_only_$r" "$limit" "${layer[@]}" VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off -- bench_api --frames "$bench_frames"
		run "overhead_bench_no_gpu_$r" "$limit" "${layer[@]}" "${no_gpu[@]}" -- bench_api --frames "$bench_frames"
		local n
		for n in "$demo_short" "$demo_long"; do
			local odemo=(passprobe-demo --frames "$n" ${demo_size[@]+"${demo_size[@]}"} --timings)
			run "overhead_demo_none_${n}_$r" "$limit" -- "${odemo[@]}"
			run "overhead_demo_default_${n}_$r" "$limit" "${layer[@]}" -- "${odemo[@]}"
			run "overhead_demo_no_gpu_${n}_$r" "$limit" "${layer[@]}" "${no_gpu[@]}" -- "${odemo[@]}"
		done
	done
	rm -f "$runs"/overhead_*/out/trace.json

	echo "runs took: $(elapsed) s" >>"$runs/environment"
	analyse "$out"
}

analyse() { # DIR
	local dir=$1
	[ -d "$dir/runs" ] || die 2 "$dir/runs not found: give the output directory of a check"
	if ! command -v python3 >/dev/null; then
		echo "gpu_check.sh: python3 not found: the runs are kept in $dir/runs; judge them on another machine with" \
			"tools/gpu_check/gpu_check.sh --analyse DIR" >&2
		exit 1
	fi
	python3 "$analyser" "$dir"
}

case $action in
prepare) prepare ;;
analyse) analyse "$analyse_dir" ;;
run) check ;;
esac
