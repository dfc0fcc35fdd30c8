#!/bin/bash
# finish_on_signal.sh WORKDIR PP_GLES_MINI: pp_gles_mini renders until it gets SIGTERM, with
# the recording's state written only every ten minutes; the GLES shim finishes its outputs on
# the signal (finish_on_signal, docs/settings.md "Termination signals") and the program still
# ends by it: status 143, the recording finished (no "did not finish" note when passprobe
# report makes the outputs from it), report.json with every frame the writer had.
set -u
here=$(dirname "$0")
work=$1
mini=$2
rm -rf "$work" # no recording of an earlier run to mistake for this one's
bash "$here/run_gles.sh" --env VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=600000 "$work" -- "$mini" --frames 10000000 &
runner=$!
rec=$work/out/gles/recording.ppr
for _ in $(seq 1 300); do
	[ "$(stat -c %s "$rec" 2>/dev/null || echo 0)" -gt 20000 ] && break
	kill -0 "$runner" 2>/dev/null || break # it ended before rendering: its status says why
	sleep 0.1
done
# By name, not command line: skip_or_fail.sh's command line names the program too.
program=$(pgrep -P "$runner" -x "$(basename "$mini")" | head -n 1)
if [ -z "$program" ]; then
	# It ended (or never started): run_gles.sh ends by itself, skip_or_fail.sh's run is bounded.
	wait "$runner"
	rc=$?
	# 77 only where pp_gles_mini cannot run here even without the shim (skip_or_fail.sh).
	[ $rc -eq 77 ] && exit 77
	echo "FAIL: the program is not running (run_gles.sh exited $rc)"
	exit 1
fi
echo "SIGTERM to $program, recording.ppr $(stat -c %s "$rec") bytes"
kill -TERM "$program"
wait "$runner"
rc=$?
fails=0
[ $rc -eq 143 ] || { echo "FAIL: exit status $rc, expected 143 (ended by SIGTERM)"; fails=1; }
python3 - "$work/out/gles/report.json" <<'PY' || fails=1
import json, sys
r = json.load(open(sys.argv[1]))
n = r["frames_total"]
notes = (r.get("summary") or {}).get("notes") or ""
print("report.json: %d frames; notes: %s" % (n, notes or "none"))
if "did not finish" in notes:
    print("FAIL: the recording was not finished on the signal")
    sys.exit(1)
if n < 10:
    print("FAIL: %d frames in report.json, expected the frames rendered before the signal (10 or more)" % n)
    sys.exit(1)
PY
exit $fails
