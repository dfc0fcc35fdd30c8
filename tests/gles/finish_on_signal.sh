#!/bin/bash
# finish_on_signal.sh WORKDIR PP_GLES_MINI: pp_gles_mini renders until it gets SIGTERM, with
# report.json rewritten only every ten minutes; the GLES shim finishes its outputs on the
# signal (finish_on_signal, docs/settings.md "Termination signals") and the program still
# ends by it: status 143, report.json with every frame the writer had, trace.json closed.
set -u
here=$(dirname "$0")
work=$1
mini=$2
rm -rf "$work" # no trace.json of an earlier run to mistake for this one's
bash "$here/run_gles.sh" --env VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=600000 "$work" -- "$mini" --frames 10000000 &
runner=$!
trace=$work/out/gles/trace.json
for _ in $(seq 1 300); do
	[ "$(stat -c %s "$trace" 2>/dev/null || echo 0)" -gt 100000 ] && break
	sleep 0.1
done
program=$(pgrep -P "$runner" -f "$mini" | head -n 1)
if [ -z "$program" ]; then
	echo "finish_on_signal.sh: the program is not running"
	kill "$runner" 2>/dev/null
	wait "$runner"
	exit 1
fi
echo "SIGTERM to $program, trace.json $(stat -c %s "$trace") bytes"
kill -TERM "$program"
wait "$runner"
rc=$?
[ $rc -eq 77 ] && exit 77
fails=0
[ $rc -eq 143 ] || { echo "FAIL: exit status $rc, expected 143 (ended by SIGTERM)"; fails=1; }
tail -c 300 "$trace" | grep -q '"passprobe_trace_end"' || { echo "FAIL: trace.json not closed"; fails=1; }
python3 - "$work/out/gles/report.json" <<'PY' || fails=1
import json, sys
r = json.load(open(sys.argv[1]))
n = r["frames_total"]
print("report.json: %d frames" % n)
if n < 10:
    print("FAIL: %d frames in report.json, expected the frames rendered before the signal (10 or more)" % n)
    sys.exit(1)
PY
exit $fails
