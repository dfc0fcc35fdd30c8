#!/bin/bash
# skip_or_fail.sh PROGRAM [ARGS...]
# Called when PROGRAM ARGS, run under the GLES shim, exited 77 ("no EGL/GLES here, skip").
# A skip is only legitimate when the machine cannot run the program at all, so the same
# command runs again without the shim (every libpassprobe_gles.so taken out of LD_PRELOAD, the
# rest of the environment as it is). Exits 77 when that run skips too; otherwise the shim made
# the program give up, which is passprobe's fault: one FAIL line, exit 1.
# PP_GLES_PLAIN_TIMEOUT (default 60) bounds the run: a program that skips does so at once,
# one that renders until stopped (finish_on_signal.sh) is not skipping. Its output goes to
# PP_GLES_PLAIN_LOG (default: a new file in TMPDIR).
set -u
[ $# -gt 0 ] || { echo "usage: skip_or_fail.sh PROGRAM [ARGS...]" >&2; exit 2; }
preload=
IFS=': ' read -r -a libs <<<"${LD_PRELOAD:-}"
for l in ${libs[@]+"${libs[@]}"}; do
	case "$l" in
	*libpassprobe_gles.so* | "${PP_GLES_SHIM:-/nonexistent}") ;;
	*) preload="${preload:+$preload:}$l" ;;
	esac
done
log=${PP_GLES_PLAIN_LOG:-$(mktemp "${TMPDIR:-/tmp}/pp-gles-plain.XXXXXX")}
LD_PRELOAD="$preload" timeout -k 5 "${PP_GLES_PLAIN_TIMEOUT:-60}" "$@" >"$log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	echo "SKIP: $* cannot run here without passprobe either (exit 77): $(tail -n 1 "$log")"
	exit 77
fi
case $rc in
124 | 137) how="still running after ${PP_GLES_PLAIN_TIMEOUT:-60} s" ;;
*) how="exit $rc" ;;
esac
echo "FAIL: $* skipped (exit 77) under the GLES shim but not without it ($how, output in $log): passprobe's fault, not the machine's"
exit 1
