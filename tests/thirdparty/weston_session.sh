#!/bin/bash
# weston_session.sh WORKDIR SECONDS: Weston's headless backend with its GL renderer (OpenGL ES
# through EGL, a context made without a config: EGL_KHR_no_config_context) under `passprobe
# run` (run_program.sh), with weston-simple-egl (OpenGL ES through EGL's Wayland platform)
# launched by Weston itself ([autolaunch], so it gets passprobe preloaded as a program's child
# does) and stopped with SIGINT after SECONDS; then the launcher script stops Weston (its
# parent) with SIGTERM, which Weston handles by shutting down (watch=true does not end Weston
# 10.0.1 here).
# Two processes write one output directory: Weston's report is WORKDIR/out/gles, the client's
# WORKDIR/out/gles/weston-simple-e.<pid> (docs/gles.md, "Programs of several processes").
set -u
work=${1:?usage: weston_session.sh WORKDIR SECONDS}
seconds=${2:?usage: weston_session.sh WORKDIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
conf=$work.conf
rm -rf "$conf"
mkdir -p "$conf"
cat >"$conf/client.sh" <<CLIENT
#!/bin/sh
timeout -s INT $seconds weston-simple-egl
kill -TERM \$PPID
CLIENT
chmod +x "$conf/client.sh"
cat >"$conf/weston.ini" <<INI
[core]
idle-time=0

[autolaunch]
path=$conf/client.sh
INI
exec bash "$here/run_program.sh" "$work" -- weston --config="$conf/weston.ini" --backend=headless-backend.so \
	--use-gl --socket=passprobe-test-$$
