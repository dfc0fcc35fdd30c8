#!/bin/sh
# The passprobe command line, end to end: help and usage errors, `run` (settings checked before
# anything runs, the loader environment, exit status and signal forwarding, the output message)
# and `report` (missing, broken, foreign and valid reports).
# usage: test_cli.sh PASSPROBE FIXTURES_DIR SCRATCH_DIR
PP=$1
FIX=$2
T=$3

pass=0
fail=0
check() {
	# $1: what is checked, $2: a shell condition
	if eval "$2"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1 [$2]" >&2
		echo "  stdout: $(head -c 2000 "$T/out" 2>/dev/null)" >&2
		echo "  stderr: $(head -c 2000 "$T/err" 2>/dev/null)" >&2
	fi
}
has_out() { grep -F -q -- "$1" "$T/out"; }
has_err() { grep -F -q -- "$1" "$T/err"; }
pp() { "$PP" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

FIX=$(cd "$FIX" && pwd -P) || exit 1
case $PP in /*) ;; *) PP=$(pwd -P)/$PP ;; esac
rm -rf "$T"
mkdir -p "$T" || exit 1
T=$(cd "$T" && pwd -P)
cd "$T" || exit 1
# The caller's own passprobe settings must not leak into what is checked here.
for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH VK_LAYER_SETTINGS_PATH
export XDG_DATA_HOME="$T/xdg"

# ---- help, version, usage errors
pp --help
check "--help exits 0" '[ $rc -eq 0 ]'
check "--help shows usage" 'has_out "usage: passprobe"'
pp --version
check "--version" '[ $rc -eq 0 ] && grep -q "^passprobe [0-9]" "$T/out"'
pp
check "no command exits 2" '[ $rc -eq 2 ] && has_err "usage: passprobe"'
pp frobnicate
check "unknown command exits 2" '[ $rc -eq 2 ]'
check "unknown command is named" 'has_err "unknown command '"'"'frobnicate'"'"'"'
check "unknown command shows usage" 'has_err "usage: passprobe"'
pp help run
check "help run" '[ $rc -eq 0 ] && has_out "usage: passprobe run"'
pp help report
check "help report" '[ $rc -eq 0 ] && has_out "usage: passprobe report"'
pp help settings
check "help settings lists keys" '[ $rc -eq 0 ] && has_out "log_level" && has_out "output_dir"'
pp help nonsense
check "help on a non-command exits 2" '[ $rc -eq 2 ]'
pp run --help
check "run --help" '[ $rc -eq 0 ] && has_out "usage: passprobe run"'
pp run
check "run without a program exits 2" '[ $rc -eq 2 ] && has_err "no program"'
pp run --bogus -- true
check "run with an unknown option exits 2" '[ $rc -eq 2 ] && has_err "--bogus"'

# ---- run --renderdoc (docs/frame-debuggers.md): checked before anything runs
rm -f marker
pp run -o "$T/rd" --renderdoc none -- sh -c 'touch marker'
check "--renderdoc none exits 2" '[ $rc -eq 2 ] && has_err "captures nothing" && [ ! -e marker ]'
pp run -o "$T/rd" --renderdoc 5-3 -- sh -c 'touch marker'
check "--renderdoc with a bad range exits 2" '[ $rc -eq 2 ] && has_err "5-3" && has_err "ends before it starts" && [ ! -e marker ]'
pp run -o "$T/rd"
check "--renderdoc without frames" '[ $rc -eq 2 ]'
# Where the loader finds no RenderDoc layer (every implicit-layer folder emptied of it): one
# message naming the places and the Debian package; nothing run, nothing made.
mkdir -p "$T/empty"
env HOME="$T/empty" XDG_CONFIG_HOME="$T/empty" XDG_CONFIG_DIRS="$T/empty" XDG_DATA_HOME="$T/empty" \
	XDG_DATA_DIRS="$T/empty" "$PP" run -o "$T/rd" --renderdoc 3 -- sh -c 'touch marker' >"$T/out" 2>"$T/err"
rc=$?
if [ -e /etc/vulkan/implicit_layer.d/renderdoc_capture.json ]; then
	echo "SKIP-CASE: RenderDoc's manifest is in /etc/vulkan, which the loader always searches"
else
	check "--renderdoc without RenderDoc's layer exits 1" '[ $rc -eq 1 ] && [ ! -e marker ] && [ ! -d "$T/rd/renderdoc" ]'
	check "--renderdoc without RenderDoc names the package" 'has_err "VK_LAYER_RENDERDOC_Capture" && has_err "librenderdoc" && has_err "$T/empty/vulkan/implicit_layer.d"'
fi

# ---- run: settings are checked before anything runs
rm -f marker
pp run --set no_such_key=1 -- sh -c 'touch marker'
check "bad --set key exits 2" '[ $rc -eq 2 ]'
check "bad --set key is named" 'has_err "no_such_key" && has_err "not a known setting"'
check "bad --set key: program not run" '[ ! -e marker ]'
pp run --set log_level=loud -- sh -c 'touch marker'
check "bad --set value exits 2" '[ $rc -eq 2 ]'
check "bad --set value is explained" 'has_err "loud" && has_err "log_level" && has_err "debug"'
check "bad --set value: program not run" '[ ! -e marker ]'
check "bad --set value: one message, no keeping-default tail" '! has_err "keeping"'
pp run --set log_level -- sh -c 'touch marker'
check "--set without = exits 2" '[ $rc -eq 2 ] && has_err "KEY=VALUE" && [ ! -e marker ]'
pp run -o '' -- sh -c 'touch marker'
check "empty -o exits 2" '[ $rc -eq 2 ] && [ ! -e marker ]'
pp run --set report_frames=0 -- sh -c 'touch marker'
check "out-of-range --set exits 2" '[ $rc -eq 2 ] && has_err "report_frames" && [ ! -e marker ]'

rm -f marker
pp run --set frames=5-3 -- sh -c 'touch marker'
check "bad frames range exits 2, says why, runs nothing" '[ $rc -eq 2 ] && has_err "range 5-3 ends before it starts" && [ ! -e marker ]'

# ---- run: environment and exit status
VK_INSTANCE_LAYERS=VK_LAYER_other pp run -o out --set log_level=debug -- \
	sh -c 'echo "$VK_INSTANCE_LAYERS"; echo "$VK_PASSPROBE_PROFILER_OUTPUT_DIR"; echo "$VK_PASSPROBE_PROFILER_LOG_LEVEL"; exit 7'
check "exit status forwarded" '[ $rc -eq 7 ]'
check "layer prepended, existing kept" '[ "$(sed -n 1p "$T/out")" = "VK_LAYER_PASSPROBE_profiler:VK_LAYER_other" ]'
check "-o sets the output dir (absolute)" '[ "$(sed -n 2p "$T/out")" = "$T/out" ]'
check "--set becomes VK_PASSPROBE_PROFILER_<KEY>" '[ "$(sed -n 3p "$T/out")" = "debug" ]'

VK_INSTANCE_LAYERS=VK_LAYER_a:VK_LAYER_PASSPROBE_profiler pp run -- sh -c 'echo "$VK_INSTANCE_LAYERS"'
check "layer not duplicated" '[ "$(cat "$T/out")" = "VK_LAYER_a:VK_LAYER_PASSPROBE_profiler" ]'

pp run -- sh -c 'echo "$VK_INSTANCE_LAYERS"; echo "$VK_PASSPROBE_PROFILER_OUTPUT_DIR"'
check "exit 0 forwarded" '[ $rc -eq 0 ]'
check "layer set alone" '[ "$(sed -n 1p "$T/out")" = "VK_LAYER_PASSPROBE_profiler" ]'
check "default output dir is absolute passprobe-out" '[ "$(sed -n 2p "$T/out")" = "$T/passprobe-out" ]'
check "no output message" 'has_err "no output was written to $T/passprobe-out"'

VK_PASSPROBE_PROFILER_OUTPUT_DIR=envdir pp run -- sh -c 'echo "$VK_PASSPROBE_PROFILER_OUTPUT_DIR"'
check "output dir from the environment kept (made absolute)" '[ "$(cat "$T/out")" = "$T/envdir" ]'

# Installed layout: bin/passprobe finds ../share/vulkan/explicit_layer.d.
mkdir -p prefix/bin prefix/share/vulkan/explicit_layer.d
cp "$PP" prefix/bin/passprobe
echo '{}' > prefix/share/vulkan/explicit_layer.d/VkLayer_passprobe.json
VK_ADD_LAYER_PATH=/somewhere/else "$T/prefix/bin/passprobe" run -- sh -c 'echo "$VK_ADD_LAYER_PATH"' >"$T/out" 2>"$T/err"
rc=$?
check "installed layout: manifest dir prepended" '[ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$T/prefix/share/vulkan/explicit_layer.d:/somewhere/else" ]'
VK_ADD_LAYER_PATH="$T/prefix/share/vulkan/explicit_layer.d" "$T/prefix/bin/passprobe" run -- sh -c 'echo "$VK_ADD_LAYER_PATH"' >"$T/out" 2>"$T/err"
check "manifest dir not duplicated" '[ "$(cat "$T/out")" = "$T/prefix/share/vulkan/explicit_layer.d" ]'

pp run -- sh -c 'kill -HUP $$'
check "signal death becomes 128+N" '[ $rc -eq 129 ]'
check "signal death is said, with name and number" 'has_err "was killed by signal 1 (SIGHUP, Hangup)"'
check "signal death: outputs may be partial" 'has_err "outputs may be partial or missing"'
check "signal death: no clean output message" '! has_err "no output was written to $T/passprobe-out."'
# SIGTERM and SIGINT ask a program to stop: where it leaves them at their default, passprobe
# finishes its outputs first (finish_on_signal; reliability_finish_on_signal checks them), so
# they are not announced as partial up front; each folder listed says whether it is.
pp run -- sh -c 'kill -TERM $$'
check "SIGTERM: 128+15" '[ $rc -eq 143 ]'
check "SIGTERM: said as a stop, with name and number" 'has_err "was stopped by signal 15 (SIGTERM, Terminated)"'
check "SIGTERM: no blanket partial warning" '! has_err "outputs may be partial or missing"'
# Outputs the process finished (its recording ends with an end record) are listed as output;
# those it did not, as partial. (Recordings written by the stand-in program, as the layer
# would: the header, a process record, and the end record or not; docs/report-format.md.)
report='printf "{}" >"$0/report.json"'
rec_begin='{ printf "PPRECORD\001\000\000\000\000\000\000\000\002\000\000\000\024\000\000\000"; head -c 20 /dev/zero; }'
rec_end='{ printf "\014\000\000\000\061\000\000\000"; head -c 49 /dev/zero; }'
finished="{ $rec_begin; $rec_end; } >\"\$0/recording.ppr\""
cut="$rec_begin >\"\$0/recording.ppr\""
made="report.json, report.html, trace.json, passes.csv, recording.ppr"
pp run -o "$T/fin" -- sh -c "$finished; kill -TERM \$\$" "$T/fin"
check "SIGTERM, recording finished: listed as output" 'has_err "passprobe: output in $T/fin ($made)"'
check "SIGTERM, recording finished: not said unfinished" '! has_err "did not finish"'
pp run -o "$T/cut" -- sh -c "$cut; kill -TERM \$\$" "$T/cut"
check "SIGTERM, recording not finished: listed as partial" 'has_err "passprobe: partial output in $T/cut ($made)"'
check "SIGTERM, recording not finished: said so" 'has_err "$T/cut/recording.ppr: the process did not finish its outputs"'
# Without a recording nothing tells a finished report.json from another: partial.
pp run -o "$T/norec" -- sh -c "$report; kill -TERM \$\$" "$T/norec"
check "SIGTERM, no recording: listed as partial" 'has_err "passprobe: partial output in $T/norec (report.json)"'

# A crash with partial files: they are listed as partial, never as a normal output. `passprobe
# run` preloads the GLES shim into every program; in a sanitizer build the shim brings the
# sanitizer's runtime, whose own SIGSEGV handler would turn the crash into its report and exit 1,
# so the crash is left to the kernel here (handle_segv=0) as it is without sanitizers.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 pp run -o crashed -- sh -c 'mkdir -p "$VK_PASSPROBE_PROFILER_OUTPUT_DIR" && : > "$VK_PASSPROBE_PROFILER_OUTPUT_DIR/trace.json" && kill -SEGV $$'
check "crash becomes 139" '[ $rc -eq 139 ]'
check "crash is said" 'has_err "was killed by signal 11 (SIGSEGV, Segmentation fault)"'
check "crash: files listed as partial" 'has_err "passprobe: partial output in $T/crashed (trace.json)" && ! has_err "passprobe: output in"'

pp run -- true
check "clean exit: no signal message" '[ $rc -eq 0 ] && ! has_err "signal"'

pp run -- /nonexistent/program --flag
check "missing program exits 127" '[ $rc -eq 127 ] && has_err "cannot run '"'"'/nonexistent/program'"'"'"'
check "missing program: no output message" '! has_err "output"'

# SIGTERM sent to passprobe reaches the program, whose own exit status comes back.
rm -f ready
"$PP" run -- sh -c 'trap "exit 42" TERM; touch ready; while :; do sleep 0.05; done' >"$T/out" 2>"$T/err" &
ppid=$!
i=0
while [ ! -e ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $ppid
wait $ppid
rc=$?
check "SIGTERM forwarded to the program" '[ $rc -eq 42 ]'

# SIGUSR2 (capture_signal) reaches the program too. With capture_signal off the program's own
# trap sees it; with it on (default) the program starts with SIGUSR2 ignored until the layer
# installs its handler, so an early one does not end it.
rm -f ready
"$PP" run --set capture_signal=off -- sh -c 'trap "exit 43" USR2; touch ready; while :; do sleep 0.05; done' >"$T/out" 2>"$T/err" &
ppid=$!
i=0
while [ ! -e ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -USR2 $ppid
wait $ppid
rc=$?
check "SIGUSR2 forwarded to the program" '[ $rc -eq 43 ]'
rm -f ready
"$PP" run -- sh -c 'touch ready; i=0; while [ $i -lt 20 ]; do sleep 0.05; i=$((i + 1)); done; exit 7' >"$T/out" 2>"$T/err" &
ppid=$!
i=0
while [ ! -e ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -USR2 $ppid
wait $ppid
rc=$?
check "SIGUSR2 before the layer is there does not end the program" '[ $rc -eq 7 ]'

# ---- run: an output directory that cannot be created stops before the program starts
: > notadir
rm -f marker
pp run -o notadir/sub -- sh -c 'touch marker'
check "unusable output dir exits 73" '[ $rc -eq 73 ]'
check "unusable output dir: the program did not run" '[ ! -e marker ]'
check "unusable output dir: one message naming the path and the error" \
	'has_err "passprobe: output directory '"'"'$T/notadir/sub'"'"': cannot create: Not a directory; '"'"'sh'"'"' was not started" && [ "$(wc -l < "$T/err")" -eq 1 ]'
check "unusable output dir: not the misleading hint" '! has_err "was the layer loaded"'

# ---- run: the output message lists what was written
pp run -o out2 -- sh -c 'mkdir -p "$VK_PASSPROBE_PROFILER_OUTPUT_DIR" && echo "{}" > "$VK_PASSPROBE_PROFILER_OUTPUT_DIR/report.json" && : > "$VK_PASSPROBE_PROFILER_OUTPUT_DIR/passes.csv"'
check "output message lists existing files" 'has_err "passprobe: output in $T/out2 (report.json, passes.csv)"'

pp run -o 'outp-%p' -- sh -c 'echo "$VK_PASSPROBE_PROFILER_OUTPUT_DIR"; mkdir -p "outp-$$" && echo "{}" > "outp-$$/trace.json"; echo $$'
child=$(sed -n 2p "$T/out")
check "%p passed through to the layer" '[ "$(sed -n 1p "$T/out")" = "$T/outp-%p" ]'
check "%p expanded with the program pid in the message" 'has_err "output in $T/outp-$child (trace.json)"'

touch -d '2001-01-01' out2/report.json out2/passes.csv
pp run -o out2 -- true
check "old files are not reported as new" 'has_err "no new output in $T/out2"'

# ---- report
pp report "$T/does-not-exist"
check "report on a missing dir exits 1" '[ $rc -eq 1 ] && has_err "cannot read" && has_err "does-not-exist"'
mkdir -p emptydir
pp report emptydir
check "report on a dir without report.json" '[ $rc -eq 1 ] && has_err "has no report.json"'
pp report "$FIX/not_json"
check "report on broken JSON exits 1" '[ $rc -eq 1 ]'
check "broken JSON: line:column" 'has_err "is not valid JSON: line 4:15"'
pp report "$FIX/wrong_schema"
check "report on a foreign file" '[ $rc -eq 1 ] && has_err "not a passprobe report" && has_err "some-other-tool"'
pp report "$FIX/future_version/report.json"
check "report from a newer version" '[ $rc -eq 1 ] && has_err "version 2" && has_err "newer passprobe"'
pp report "$FIX/bad_summary"
check "report with a bad summary names the field" '[ $rc -eq 1 ] && has_err "summary.passes[0].count"'
pp report "$FIX/valid"
check "valid report exits 0" '[ $rc -eq 0 ]'
check "no diagnostics, no line about them" '! grep -q "diagnostics" "$T/out"'
check "valid report: header" 'has_out "passprobe: per-pass GPU time over 240 frames (llvmpipe (LLVM 15.0.6, 256 bits))"'
check "valid report: frame line" 'has_out "frame GPU time: mean 6.54 ms, p50 6.40 ms, p95 7.10 ms"'
check "valid report: columns" 'grep -q "pass *kind *per frame *mean *p50 *p95 *max *share" "$T/out"'
check "valid report: ranked by GPU time per frame" '[ "$(grep -n -o "gbuffer\|shadow\|blur\|upload" "$T/out" | cut -d: -f2 | tr "\n" " ")" = "gbuffer shadow blur upload " ]'
check "valid report: values" 'grep -q "gbuffer *render *1 *3.00 ms *2.95 ms *3.30 ms *4.10 ms *46.0%" "$T/out"'
check "valid report: unmeasured is n/a" 'grep -q "upload *transfer *1 *n/a *n/a *n/a *n/a *n/a" "$T/out"'
# The summary counts diagnostics by severity and lists the costliest warnings (a report from
# before summary.diagnostics: from its diagnostics list).
pp report "$FIX/diagnostics"
check "report counts diagnostics by severity" '[ $rc -eq 0 ] && grep -q "^passprobe: diagnostics: 1 warning, 1 information" "$T/out"'
check "report lists the costliest warning, not the information" \
	'grep -q "^passprobe:   warning  75.9 µs/frame  PASSPROBE-Barrier-FullPipelineDrain  vkCmdPipelineBarrier called from app+0x1a2b" "$T/out" && ! grep -q vkd3d_fence "$T/out"'
pp report --top 1 "$FIX/valid/report.json"
check "--top 1" '[ $rc -eq 0 ] && has_out "gbuffer" && ! has_out "shadow" && has_out "3 more passes not shown"'
pp report --top x "$FIX/valid"
check "bad --top exits 2" '[ $rc -eq 2 ]'
pp report
check "report without a path exits 2" '[ $rc -eq 2 ]'

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
