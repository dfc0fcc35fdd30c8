#!/bin/bash
# with_xvfb.sh COMMAND [ARGS...]: runs COMMAND with DISPLAY set to an X server of its own
# (Xvfb on a free display number, stopped afterwards), for test programs with a window.
# Exit: COMMAND's status; 77 (skipped) when Xvfb is not installed; 1 when it does not start.
set -u
command -v Xvfb >/dev/null || { echo "SKIP: Xvfb is not installed (Debian: xvfb)"; exit 77; }
dir=$(mktemp -d /tmp/passprobe-xvfb.XXXXXX)
# -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
Xvfb -displayfd 3 -screen 0 320x240x24 -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
pid=$!
stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 100); do
	[ -s "$dir/display" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if ! [ -s "$dir/display" ]; then
	echo "with_xvfb.sh: Xvfb did not start:"
	cat "$dir/xvfb.log"
	exit 1
fi
export DISPLAY=":$(head -n 1 "$dir/display")"
"$@"
