#!/bin/bash
# renderdoc_gles_first.sh SHIM DEMO WORKDIR
# RenderDoc preloaded before the OpenGL ES shim (LD_PRELOAD=librenderdoc.so:libpassprobe_gles.so,
# the order that leaves the shim no way to tell RenderDoc's own work from the application's;
# docs/gles.md, "RenderDoc"): the demo still renders every frame and exits 0, the shim says so
# in one warning line, once, and still writes its report with the demo's frames.
# The preload is set by `env` for the demo alone: a shell started with RenderDoc preloaded
# would have it take itself out of LD_PRELOAD for everything the shell starts. What is preloaded
# already (a sanitizer's runtime, which must come first) stays first.
set -u
shim=$1
demo=$2
work=$3
rm -rf "$work"
mkdir -p "$work/out"
unset RENDERDOC_CAPFILE RENDERDOC_CAPOPTS ENABLE_VULKAN_RENDERDOC_CAPTURE
for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
env VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out" LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}librenderdoc.so:$shim" "$demo" --frames 4 \
	>"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stderr"
[ $rc -eq 77 ] && { echo "SKIP: the demo found no EGL surfaceless / OpenGL ES 3 here"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the demo exited $rc"; exit 1; }
grep -q "rendered 4 frames" "$work/stdout" || { echo "FAIL: the demo did not render its 4 frames"; exit 1; }
line="passprobe: warning: RenderDoc is preloaded before libpassprobe_gles.so: "
n=$(grep -c "^$line" "$work/stderr")
[ "$n" = 1 ] || { echo "FAIL: the shim said \"$line...\" $n times, expected once"; exit 1; }
python3 - "$work/out/gles/report.json" <<'EOF' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
frames = [f for f in r["frames"] if f["delimiter"] == "present"]
if len(frames) < 3 or not all(f["passes"] for f in frames):
    print(f"FAIL: {len(frames)} frames ended by a swap, each with passes expected")
    sys.exit(1)
print(f"report: {len(frames)} frames measured with RenderDoc preloaded first")
EOF
