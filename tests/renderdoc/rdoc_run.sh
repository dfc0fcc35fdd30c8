#!/bin/bash
# rdoc_run.sh WORKDIR present|submit N -- PROGRAM [ARGS...]
# Runs PROGRAM through `passprobe run` with RenderDoc's capture layer above passprobe and has
# RenderDoc capture one frame (rdoc_capture.c: at present N, or submit N for a headless
# program), writing the capture to WORKDIR/out/renderdoc/ next to passprobe's outputs in
# WORKDIR/out. Then report.json gets its renderdoc section from report_add_renderdoc.py
# unless passprobe wrote one itself. docs/testing-integration.md, *RenderDoc*.
# Environment from CTest: as run_program.sh, plus PP_RDOC_PRELOAD (rdoc_capture's library),
# PP_RDOC_PYTHON (a Python 3).
set -u
work=$1 mode=$2 at=$3
shift 3
[ "${1:-}" = "--" ] || { echo "rdoc_run.sh: expected -- before the program" >&2; exit 2; }
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "$mode" in
present) trigger=PP_RDOC_PRESENT ;;
submit) trigger=PP_RDOC_SUBMIT ;;
*) echo "rdoc_run.sh: present or submit, not $mode" >&2; exit 2 ;;
esac
"${PP_BASH:-bash}" "$root/tests/thirdparty/run_program.sh" --no-leak-check \
	--env ENABLE_VULKAN_RENDERDOC_CAPTURE=1 --preload "$PP_RDOC_PRELOAD" \
	--env "$trigger=$at" --env "PP_RDOC_CAPTURE=$work/out/renderdoc/$(basename "$1")" \
	--env "PP_RDOC_INFO=$work/capture.json" \
	"$work" -- "$@" || exit 1
if ! [ -s "$work/capture.json" ]; then
	echo "rdoc_run.sh: RenderDoc wrote no capture:"
	cat "$work/app.log"
	exit 1
fi
"$PP_RDOC_PYTHON" "$here/report_add_renderdoc.py" "$work/out" "$work/capture.json"
