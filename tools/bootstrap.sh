#!/usr/bin/env bash
# The two README commands: installs what is missing (Debian 12 packages), builds, then either
# runs the bundled demo through passprobe (`demo`) or runs the whole test suite (`test`).
#   tools/bootstrap.sh demo [extra passprobe-demo options]
#   tools/bootstrap.sh test [extra ctest options]
# Environment: BUILD_DIR (default: build), JOBS (default: nproc).
set -euo pipefail

mode=${1:-}
case "$mode" in
demo | test) shift ;;
*)
	echo "usage: $0 demo|test [options]" >&2
	echo "  demo: build and run the demo through passprobe, printing the per-pass summary" >&2
	echo "  test: build and run the whole test suite" >&2
	exit 2
	;;
esac

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
jobs=${JOBS:-$(nproc)}

# vkd3d-demos, gfxreconstruct, librenderdoc (RenderDoc's capture layer, without the Qt
# interface of the renderdoc package), ffmpeg (its Vulkan filters: a headless compute
# program), mangohud (an overlay layer, implicit but off unless MANGOHUD=1): the real programs
# and layers of tests/thirdparty.
# libegl-dev, libgles-dev, libegl-mesa0: the GLES demo (EGL surfaceless platform, llvmpipe).
# mesa-utils (the es2gears_x11 name: mesa-utils-bin alone installs only es2gears_x11.<triplet>),
# glmark2-es2-x11, libsdl2-tests (SDL 2's testgles2: OpenGL ES through GLX and through EGL;
# and testvulkan, a Vulkan 1.0 program), mpv (a video player: OpenGL ES through EGL, and
# Vulkan through libplacebo; several passes a frame), gstreamer1.0-gl and
# gstreamer1.0-tools (GStreamer's GL elements on their own GL thread), weston (a compositor
# with a GL renderer, and its EGL client weston-simple-egl): the OpenGL ES programs of
# tests/thirdparty.
# chromium: the headless browser the HTML report is tested in (tests/cli/test_html.py).
# python3-renderdoc (RenderDoc's capture-file and replay API, which `passprobe renderdoc`
# runs on) and qrenderdoc (RenderDoc's UI, which the passprobe panel is tested in under Xvfb):
# tests/renderdoc, with librenderdoc above.
packages=(cmake make gcc pkg-config libvulkan-dev libvulkan1 uthash-dev mesa-vulkan-drivers glslc
	vulkan-validationlayers vulkan-tools python3 clang libclang-rt-dev valgrind libxcb1-dev xvfb
	vkd3d-demos gfxreconstruct librenderdoc libegl-dev libgles-dev libegl-mesa0 chromium
	mesa-utils glmark2-es2-x11 libsdl2-tests mpv gstreamer1.0-gl gstreamer1.0-tools weston
	ffmpeg mangohud python3-renderdoc qrenderdoc)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "bootstrap: installing ${missing[*]}"
	sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The loader and Mesa want a runtime directory; headless sessions often have none.
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then
	export XDG_RUNTIME_DIR=$(mktemp -d /tmp/passprobe-runtime.XXXXXX)
fi

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release ${PASSPROBE_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"

case "$mode" in
demo)
	out=${PASSPROBE_OUTPUT:-$src/passprobe-out}
	"$build/tools/passprobe/passprobe" run -o "$out" -- "$build/tools/demo/passprobe-demo" --frames 30 "$@"
	;;
test)
	cd "$build"
	ctest --output-on-failure -j "$jobs" "$@"
	;;
esac
