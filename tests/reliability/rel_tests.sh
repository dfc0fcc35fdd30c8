#!/bin/bash
# The reliability tests (docs/reliability.md): rel_tests.sh CASE.
# Each case runs a program through the real loader with passprobe in a hermetic environment
# (like tests/integration/run_app.sh), then checks what it did and what it left on disk
# (rel_check.py). Prints "N passed, N failed"; exit 0, 1, or 77 (cannot run here: the reason
# is printed). Environment from CTest: REL_APP, REL_TESTAPP, REL_DEMO, REL_LAYER_DIR, REL_PASSPROBE,
# REL_LAYER_LIB, REL_SPY_DIR, REL_DRIVER_FILES, REL_WORK, REL_SRC, REL_SANITIZE, REL_PYTHON.
set -u
case_name=${1:?usage: rel_tests.sh CASE}
: "${REL_APP:?}" "${REL_LAYER_DIR:?}" "${REL_SPY_DIR:?}" "${REL_WORK:?}" "${REL_SRC:?}"
PY=${REL_PYTHON:-python3}
CHECK="$PY $REL_SRC/rel_check.py"
W=$REL_WORK/$case_name
rm -rf "$W"
mkdir -p "$W/xdg"
cd "$W" || exit 1

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
expect() { # expect DESCRIPTION COMMAND...: the command must succeed
	local what=$1
	shift
	if "$@"; then ok; else fail "$what"; fi
}
skip() { echo "SKIP: $*"; exit 77; }
finish() {
	echo "$case_name: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

# run [--spy] [--no-layer] [--env NAME=VALUE]... [--out DIR] -- PROGRAM ARGS...
# Runs PROGRAM with passprobe (between the spies with --spy) writing to $W/out (or DIR);
# stdout to $W/app.out, stderr to $W/app.err; sets $rc.
run() {
	local spy=0 layer=1 out=$W/out envs=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--spy) spy=1; shift ;;
		--no-layer) layer=0; shift ;;
		--env) envs+=("$2"); shift 2 ;;
		--out) out=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	# (The outer braces keep bash's own "Segmentation fault" report out of the log: $rc says it.)
	{ (
		for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
		unset VK_LAYER_SETTINGS_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE VK_LAYER_PATH \
			VK_LAYER_ENABLES VK_LOADER_DEBUG VK_INSTANCE_LAYERS PASSPROBE_SPY_ABOVE_FAIL PASSPROBE_SPY_BELOW_FAIL \
			PASSPROBE_SPY_ABOVE_HIDE_EXTENSIONS PASSPROBE_SPY_BELOW_HIDE_EXTENSIONS
		export XDG_DATA_HOME="$W/xdg" XDG_CONFIG_HOME="$W/xdg" XDG_RUNTIME_DIR="$W/xdg"
		export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$out" VK_PASSPROBE_PROFILER_SUMMARY=off
		if [ -n "${REL_DRIVER_FILES:-}" ]; then
			export VK_DRIVER_FILES="$REL_DRIVER_FILES" VK_ICD_FILENAMES="$REL_DRIVER_FILES"
		fi
		if [ $layer = 0 ]; then
			unset VK_ADD_LAYER_PATH
		elif [ $spy = 1 ]; then
			export VK_ADD_LAYER_PATH="$REL_SPY_DIR/above:$REL_LAYER_DIR:$REL_SPY_DIR/below"
			export VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_test_spy_above:VK_LAYER_PASSPROBE_profiler:VK_LAYER_PASSPROBE_test_spy_below
			export PASSPROBE_SPY_ABOVE_OUTPUT="$W/spy-above.jsonl" PASSPROBE_SPY_BELOW_OUTPUT="$W/spy-below.jsonl"
		else
			export VK_ADD_LAYER_PATH="$REL_LAYER_DIR"
			export VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
		fi
		for e in ${envs[@]+"${envs[@]}"}; do export "$e"; done
		exec "$@"
	) >"$W/app.out" 2>"$W/app.err"; } 2>/dev/null
	rc=$?
	[ "$rc" -gt 128 ] && echo "(the program was killed by signal $((rc - 128)))" >>"$W/app.err"
	# The outputs are made from the program's recording, as `passprobe run` does when the
	# program ends (also after a kill: what it recorded is readable). No recording is right for
	# some runs (no layer, an output directory refused): a case that needs the outputs checks
	# them with rel_check.py, which fails on a missing file. No report.err of an earlier run.
	rm -f "$W/report.out" "$W/report.err"
	if [ -n "${REL_PASSPROBE:-}" ] && [ -f "$out/recording.ppr" ]; then
		"$REL_PASSPROBE" report "$out" >"$W/report.out" 2>"$W/report.err"
		report_rc=$?
	fi
	return 0
}

# For runs where LeakSanitizer cannot or must not judge (sanitizer builds only): programs that
# exit on purpose without destroying their device leak the driver's objects by design, and
# LeakSanitizer does not work under ptrace (strace).
no_leak_check=(--env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")

# The passprobe lines of the last run's stderr.
pp_lines() { grep '^passprobe: ' "$W/app.err"; }
pp_count() { grep -c "$1" "$W/app.err"; }
show() { echo "--- stdout"; cat "$W/app.out"; echo "--- stderr"; cat "$W/app.err"; echo "---"; }

# A program that ran to its end: exit 0 and its own last line.
expect_ran() {
	if [ "$rc" -eq 0 ] && grep -q "^frames $1\$" "$W/app.out"; then ok; else
		fail "$2: exit $rc, expected 0 with 'frames $1'"
		show
	fi
}

# ---- 2. threads ----------------------------------------------------------------------------

case_threads_stress() {
	local R=4 C=50 P=20 S=2 K=2 N=5
	run --env VK_PASSPROBE_PROFILER_REPORT_FRAMES=100000 -- "$REL_APP" stress \
		--recorders $R --cbs $C --passes $P --submitters $S --churn $K --churn-iterations $N
	if [ "$rc" -ne 0 ]; then fail "stress exited $rc"; show; finish; fi
	ok
	cat "$W/app.out"
	expect "no passprobe error" test "$(pp_count '^passprobe: error')" -eq 0
	expect "exact per-pass attribution" $CHECK stress "$W/out" --recorders $R --cbs $C --passes $P
}


# ---- 4. faults and bad input -------------------------------------------------------------

# The reference: what rel_app prints when nothing goes wrong (the "same output" of the fault
# cases), with passprobe and the summary on.
reference() {
	run --out "$W/ref-out" --env VK_PASSPROBE_PROFILER_SUMMARY=on -- "$REL_APP" frames "$@"
	cp "$W/app.out" "$W/ref.out"
}

# After a fault run: exit 0, the same stdout as the reference, exactly one error line matching
# $1 and no other error line, and the summary on stderr.
expect_one_error_and_summary() {
	if [ "$rc" -eq 0 ] && cmp -s "$W/app.out" "$W/ref.out"; then ok; else
		fail "the application's exit status ($rc) or output changed"
		show
	fi
	local n_err n_match
	n_err=$(pp_count '^passprobe: error')
	n_match=$(grep -c "^passprobe: error: .*$1" "$W/app.err")
	if [ "$n_err" -eq 1 ] && [ "$n_match" -eq 1 ]; then ok; else
		fail "expected exactly one error line matching '$1', got $n_err error lines ($n_match matching)"
		pp_lines
	fi
	expect "the summary is still printed on stderr" grep -q '^passprobe: per-pass GPU time over' "$W/app.err"
	grep '^passprobe: error' "$W/app.err"
}

case_output_dir_missing() {
	local dir=$W/not/there/yet
	run --out "$dir" -- "$REL_APP" frames --frames 4
	expect_ran 4 "rel_app"
	expect "no passprobe error" test "$(pp_count '^passprobe: error')" -eq 0
	expect "the missing directories were made" test -d "$dir"
	expect "outputs complete" $CHECK outputs "$dir" --frames 4 --passes 3 --draws 2 --gpu all
}

# A directory the process may not write into: as root, permission bits do not stop it, so the
# program runs as nobody (setpriv); as another user, mode 0555 does.
case_output_dir_unwritable() {
	local dir=$W/locked as=()
	mkdir -p "$dir"
	chmod 0555 "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "running as root and setpriv is missing"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chmod 0755 "$W" "$W/xdg"
		# nobody must reach the program and the layer: every parent directory searchable.
		local p
		for p in "$REL_APP" "$REL_LAYER_DIR"; do
			setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$p" ||
				skip "nobody cannot read $p (a parent directory is not searchable)"
		done
	fi
	as_reference() { run --out "$W/ref-out-nobody" --env VK_PASSPROBE_PROFILER_SUMMARY=on -- ${as[@]+"${as[@]}"} "$REL_APP" frames --frames 4; }
	chmod 0777 "$W"
	as_reference
	cp "$W/app.out" "$W/ref.out"
	run --out "$dir" --env VK_PASSPROBE_PROFILER_SUMMARY=on -- ${as[@]+"${as[@]}"} "$REL_APP" frames --frames 4
	expect_one_error_and_summary "output directory '$dir': cannot write into: Permission denied"
	expect "nothing written into it" test -z "$(ls -A "$dir")"
}

# A read-only file system (EROFS): a read-only bind mount in a private mount namespace.
case_output_dir_readonly_fs() {
	command -v unshare >/dev/null || skip "unshare is missing"
	local dir=$W/ro
	mkdir -p "$dir"
	unshare -m true 2>/dev/null || skip "no private mount namespace here (unshare -m not permitted)"
	reference --frames 4
	run --out "$dir" --env VK_PASSPROBE_PROFILER_SUMMARY=on -- unshare -m sh -c \
		'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$dir" \
		"$REL_APP" frames --frames 4
	expect_one_error_and_summary "output directory '$dir': cannot write into: Read-only file system"
	expect "nothing written into it" test -z "$(ls -A "$dir")"
}

case_output_dir_is_file() {
	local dir=$W/file
	echo "not a directory" >"$dir"
	reference --frames 4
	run --out "$dir" --env VK_PASSPROBE_PROFILER_SUMMARY=on -- "$REL_APP" frames --frames 4
	expect_one_error_and_summary "output directory '$dir'"
	expect "the file in the way is untouched" test "$(cat "$dir")" = "not a directory"
}

# A full file system (ENOSPC): a 128 KiB tmpfs in a private mount namespace, trace and CSV
# off, filled by the recording as the frames go. report.json is written once, at exit, whole
# or not at all: either a complete report.json is in place, or none is and the one error line
# names it; no temporary file is left either way. Then all three outputs on a 64 KiB one: one
# error line per file at most.
case_output_dir_full() {
	command -v unshare >/dev/null || skip "unshare is missing"
	unshare -m true 2>/dev/null || skip "no private mount namespace here (unshare -m not permitted)"
	local mnt=$W/tmpfs args=(frames --frames 40 --passes 4 --frame-ms 20)
	mkdir -p "$mnt"
	reference "${args[@]:1}"
	run --out "$mnt/out" --env VK_PASSPROBE_PROFILER_SUMMARY=on --env VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=100 \
		--env VK_PASSPROBE_PROFILER_TRACE=off --env VK_PASSPROBE_PROFILER_CSV=off -- unshare -m sh -c \
		'mount -t tmpfs -o size=128k tmpfs "$1" && d=$1 && shift && "$@"; rc=$?; cp -a "$d/out" "$d.copy"; exit $rc' \
		sh "$mnt" "$REL_APP" "${args[@]}"
	local full_error="^passprobe: error: cannot write $mnt/out/report.json: No space left on device"
	expect_one_error_and_summary "cannot write $mnt/out/report.json: No space left on device"
	expect "the output directory was copied out of the tmpfs" test -d "$mnt.copy"
	if [ -f "$mnt.copy/report.json" ]; then
		expect "the report.json in place is complete" $CHECK outputs "$mnt.copy" --trace skip --no-csv --min-frames 1
	else
		# Legitimate: the recording had taken the space before the exit's report.json.
		echo "report.json: none (the file system was full at exit)"
		expect "no report.json: the log says it could not be written" grep -q "$full_error" "$W/app.err"
	fi
	expect "no temporary file left" test -z "$(ls -A "$mnt.copy" | grep '\.tmp')"

	rm -rf "$mnt.copy"
	run --out "$mnt/out" --env VK_PASSPROBE_PROFILER_SUMMARY=on --env VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=100 \
		-- unshare -m sh -c \
		'mount -t tmpfs -o size=64k tmpfs "$1" && d=$1 && shift && "$@"; rc=$?; cp -a "$d/out" "$d.copy"; exit $rc' \
		sh "$mnt" "$REL_APP" "${args[@]}"
	if [ "$rc" -eq 0 ] && cmp -s "$W/app.out" "$W/ref.out"; then ok; else fail "exit $rc or output changed"; show; fi
	local f n
	for f in report.json trace.json passes.csv; do
		n=$(grep -c "^passprobe: error: cannot write $mnt/out/$f: No space left on device" "$W/app.err")
		expect "at most one error line for $f ($n)" test "$n" -le 1
	done
	n=$(pp_count '^passprobe: error')
	expect "1 to 3 error lines, each naming its file ($n)" test "$n" -ge 1 -a "$n" -le 3 \
		-a "$(grep '^passprobe: error' "$W/app.err" | sort -u | wc -l)" -eq "$n"
	expect "the summary is still printed on stderr" grep -q '^passprobe: per-pass GPU time over' "$W/app.err"
	grep '^passprobe: error' "$W/app.err"
}

# Every setting with a bad value, through the layer: exactly one warning naming the key, the
# program runs as without it. KEY=VALUE per line (VALUE may be empty).
bad_settings_table() {
	cat <<'TABLE'
OUTPUT_DIR=
LOG_LEVEL=loud
FRAME_DELIMITER=label:
FRAME_DELIMITER=sometimes
TIMESTAMPS=maybe
PIPELINE_STATISTICS=2
PER_DRAW_TIMING=yes please
DIAGNOSTICS=onn
BARRIER_COST=-1
CPU_COUNTERS=
REPORT_FRAMES=0
REPORT_FRAMES=1e3
REPORT_FRAMES=99999999999
FLUSH_INTERVAL_MS=99
FLUSH_INTERVAL_MS=0x100
TRACE=10
CSV=nope
SUMMARY=of
TABLE
}

case_bad_settings() {
	local line key value n keys_seen=""
	reference --frames 2
	local quiet=(--env VK_PASSPROBE_PROFILER_CPU_COUNTERS=none --env VK_PASSPROBE_PROFILER_DIAGNOSTICS=off)
	while IFS= read -r line; do
		key=${line%%=*}
		value=${line#*=}
		keys_seen="$keys_seen $key"
		local envs=()
		[ "$key" = CPU_COUNTERS ] || envs+=(--env VK_PASSPROBE_PROFILER_CPU_COUNTERS=none)
		[ "$key" = DIAGNOSTICS ] || envs+=(--env VK_PASSPROBE_PROFILER_DIAGNOSTICS=off)
		[ "$key" = SUMMARY ] || envs+=(--env VK_PASSPROBE_PROFILER_SUMMARY=on)
		run "${envs[@]}" --env "VK_PASSPROBE_PROFILER_$key=$value" -- "$REL_APP" frames --frames 2
		n=$(grep -c "^passprobe: warning: VK_PASSPROBE_PROFILER_$key=" "$W/app.err")
		local others
		others=$(grep '^passprobe: warning: ' "$W/app.err" | grep -c 'VK_PASSPROBE_PROFILER_\|vk_layer_settings\|setting')
		if [ "$rc" -eq 0 ] && cmp -s "$W/app.out" "$W/ref.out"; then ok; else
			fail "$key='$value': exit $rc or output changed"
			show
		fi
		if [ "$n" -eq 1 ] && [ "$others" -eq 1 ]; then ok; else
			fail "$key='$value': $n warning lines naming VK_PASSPROBE_PROFILER_$key, $others about settings; expected 1 and 1"
			pp_lines
		fi
		echo "$key='$value': $(grep "^passprobe: warning: VK_PASSPROBE_PROFILER_$key=" "$W/app.err" | cut -c1-160)"
	done < <(bad_settings_table)
	# Every key of the settings module is in the table.
	local k
	for k in output_dir log_level frame_delimiter timestamps pipeline_statistics per_draw_timing \
		diagnostics barrier_cost cpu_counters report_frames flush_interval_ms trace csv summary; do
		local K
		K=$(echo "$k" | tr '[:lower:]' '[:upper:]')
		case " $keys_seen " in *" $K "*) ok ;; *) fail "key $k has no bad value in the table" ;; esac
	done
	# An unknown variable and a bad settings-file line: one warning each.
	run "${quiet[@]}" --env VK_PASSPROBE_PROFILER_TRAC=on -- "$REL_APP" frames --frames 2
	expect "unknown variable: one warning" test "$(grep -c '^passprobe: warning: VK_PASSPROBE_PROFILER_TRAC="on" is not a known setting' "$W/app.err")" -eq 1
	printf 'passprobe_profiler.report_frames = abc\npassprobe_profiler.nonsense = 1\n' >"$W/vk_layer_settings.txt"
	run "${quiet[@]}" -- "$REL_APP" frames --frames 2
	expect "settings file: one warning per bad line" test "$(grep -c '^passprobe: warning: \./vk_layer_settings.txt:[12]: ' "$W/app.err")" -eq 2
	expect "rel_app ran with the bad settings file" cmp -s "$W/app.out" "$W/ref.out"
	rm -f "$W/vk_layer_settings.txt"
}


# Faults of the driver, injected by the spy below passprobe (PASSPROBE_SPY_BELOW_FAIL): the
# spy above records what the application got back, the spy below what the "driver" returned.
spy_results_same() { # the application saw exactly the driver's results (passprobe's own calls aside)
	# (rel_check.py tells passprobe's own calls apart by count: see cmd_spy_results.)
	expect "application results = driver results" $CHECK spy-results "$W/spy-above.jsonl" "$W/spy-below.jsonl"
}

# Every vkCreateQueryPool fails (VK_ERROR_OUT_OF_DEVICE_MEMORY): the application's own pool
# creation gets that code, passprobe's timing degrades (passes without GPU time, with a
# reason), said once.
case_fault_query_pool() {
	run --spy --env PASSPROBE_SPY_BELOW_FAIL=vkCreateQueryPool:OUT_OF_DEVICE_MEMORY \
		-- "$REL_APP" frames --frames 4 --app-query-pool
	expect_ran 4 "rel_app"
	expect "the application's vkCreateQueryPool got VK_ERROR_OUT_OF_DEVICE_MEMORY" grep -qx 'app vkCreateQueryPool -2' "$W/app.out"
	expect "every pass reported, none with a GPU time, each with a reason" \
		$CHECK outputs "$W/out" --frames 4 --passes 3 --draws 2 --gpu none
	local n
	n=$(grep -c '^passprobe: .*query pool creation failed' "$W/app.err")
	expect "said once ($n lines)" test "$n" -eq 1
	pp_lines | grep -i 'query'
	spy_results_same
}

# The third vkQueueSubmit returns VK_ERROR_DEVICE_LOST: the application sees it on exactly that
# call, the two frames before it are in the report, complete.
case_fault_device_lost_submit() {
	run --spy --env PASSPROBE_SPY_BELOW_FAIL=vkQueueSubmit:DEVICE_LOST@3 -- "$REL_APP" frames --frames 6
	if [ "$rc" -eq 0 ] && [ "$(grep '^submit' "$W/app.out" | tr '\n' ' ')" = "submit 1 0 submit 2 0 submit 3 -4 " ]; then ok; else
		fail "expected submits 1 and 2 to succeed and 3 to return -4 (exit $rc)"
		show
	fi
	expect "the two frames before the loss, complete" $CHECK outputs "$W/out" --frames 2 --passes 3 --draws 2 --gpu all
	expect "no passprobe error" test "$(pp_count '^passprobe: error')" -eq 0
	spy_results_same
}

# passprobe's own result reads (vkGetQueryPoolResults without WAIT) return VK_ERROR_DEVICE_LOST
# from the first on: every frame is still reported, passes without GPU time and with the loss
# as the reason, and passprobe says once that the device was lost.
case_fault_device_lost_results() {
	run --spy --env VK_PASSPROBE_PROFILER_COPY_RESULTS=off --env 'PASSPROBE_SPY_BELOW_FAIL=vkGetQueryPoolResults_nowait:DEVICE_LOST@1+' -- "$REL_APP" frames --frames 5
	expect_ran 5 "rel_app"
	expect "every frame, no GPU times, with reasons" $CHECK outputs "$W/out" --frames 5 --passes 3 --draws 2 --gpu none
	spy_results_same
	pp_lines
	local n
	n=$(grep -ci '^passprobe: .*device lost' "$W/app.err")
	expect "passprobe says once that the device was lost ($n lines)" test "$n" -eq 1
	expect "the reason names the lost device" $CHECK outputs "$W/out" --frames 5 --gpu none --reason "device lost" --trace skip --no-csv
}

# copy_results=on (passprobe reads results from host memory, never the driver): the loss
# reaches passprobe through the application's own fence wait, which returns
# VK_ERROR_DEVICE_LOST; the application stops there. The frame is reported without GPU time,
# the loss named as the reason and said once.
case_fault_device_lost_copy() {
	run --spy --env VK_PASSPROBE_PROFILER_COPY_RESULTS=on --env 'PASSPROBE_SPY_BELOW_FAIL=vkWaitForFences:DEVICE_LOST@1+' \
		-- "$REL_APP" frames --frames 5
	expect_ran 1 "rel_app"
	expect "the frame reported, no GPU time, with a reason" $CHECK outputs "$W/out" --frames 1 --passes 3 --draws 2 --gpu none
	spy_results_same
	local n
	n=$(grep -ci '^passprobe: .*device lost' "$W/app.err")
	expect "passprobe says once that the device was lost ($n lines)" test "$n" -eq 1
	expect "the reason names the lost device" $CHECK outputs "$W/out" --frames 1 --gpu none --reason "device lost" --trace skip --no-csv
}

# VK_ERROR_DEVICE_LOST on the application's third vkWaitForFences only: it sees it on exactly
# that call; the frames before are complete.
case_fault_device_lost_wait() {
	run --spy --env PASSPROBE_SPY_BELOW_FAIL=vkWaitForFences:DEVICE_LOST@3 -- "$REL_APP" frames --frames 6
	if [ "$rc" -eq 0 ] && [ "$(grep '^\(submit\|wait\)' "$W/app.out" | tr '\n' ' ')" = "submit 1 0 submit 2 0 submit 3 0 wait 3 -4 " ]; then ok; else
		fail "expected waits 1 and 2 to succeed and 3 to return -4 (exit $rc)"
		show
	fi
	expect "the frames are reported, consistent" $CHECK outputs "$W/out" --min-frames 2 --passes 3 --draws 2
	spy_results_same
}

# Device memory for passprobe's own use cannot be allocated (every vkAllocateMemory after the
# application's first, which holds its render target, returns VK_ERROR_OUT_OF_DEVICE_MEMORY):
# passprobe does without a results buffer of its own; every pass still timed, no error.
case_fault_device_memory() {
	run --spy --env 'PASSPROBE_SPY_BELOW_FAIL=vkAllocateMemory:OUT_OF_DEVICE_MEMORY@2+' \
		-- "$REL_APP" frames --frames 4
	expect_ran 4 "rel_app"
	expect "every pass timed" $CHECK outputs "$W/out" --frames 4 --passes 3 --draws 2 --gpu all
	expect "no passprobe error" test "$(pp_count '^passprobe: error')" -eq 0
	spy_results_same
}

# passprobe's own result reads (vkGetQueryPoolResults without WAIT) return VK_ERROR_DEVICE_LOST
# from the first on, with no device memory for a results buffer (so passprobe must read that
# way): every frame reported, no GPU times, "device lost" as the reason, said once.
case_fault_device_lost_reads() {
	run --spy --env 'PASSPROBE_SPY_BELOW_FAIL=vkAllocateMemory:OUT_OF_DEVICE_MEMORY@2+,vkGetQueryPoolResults_nowait:DEVICE_LOST@1+' \
		-- "$REL_APP" frames --frames 5
	expect_ran 5 "rel_app"
	expect "every frame, no GPU times, with reasons" $CHECK outputs "$W/out" --frames 5 --passes 3 --draws 2 --gpu none
	spy_results_same
	local n
	n=$(grep -ci '^passprobe: .*device lost' "$W/app.err")
	expect "passprobe says once that the device was lost ($n lines)" test "$n" -eq 1
	expect "the reason names the lost device" $CHECK outputs "$W/out" --frames 5 --gpu none --reason "device lost" --trace skip --no-csv
}

# Host memory exhausted inside the layer (failmalloc.c fails every Nth allocation the layer
# makes itself). "runtime": only after the first 40 (instance and device set-up succeed);
# "setup": from the first one. The program must run as without passprobe; whatever outputs
# are written must be valid; each passprobe message at most once. No report.json is legitimate
# only where passprobe said which allocation cost the outputs (no writer, no recording, or the
# instance or device passed through untracked).
oom_run() {
	[ -n "${REL_FAILMALLOC:-}" ] || skip "sanitizer build: malloc belongs to the sanitizer (failmalloc not built)"
	local after=$1 every
	shift
	for every in "$@"; do
		rm -rf "$W/out" "$W/fm.txt"
		run --env LD_PRELOAD="$REL_FAILMALLOC" --env PP_FAILMALLOC_LIB=libVkLayer_passprobe.so \
			--env PP_FAILMALLOC_EVERY="$every" --env PP_FAILMALLOC_AFTER="$after" \
			--env PP_FAILMALLOC_REPORT="$W/fm.txt" -- "$REL_APP" frames --frames 5
		echo "after $after, every $every: $(cat "$W/fm.txt" 2>/dev/null) allocations failed; exit $rc"
		# Without its report failmalloc was not loaded, or failed nothing: the case tested nothing.
		expect "every $every after $after: failmalloc failed allocations of the layer" \
			grep -Eq '^failed [1-9][0-9]* of ' "$W/fm.txt"
		expect_ran 5 "every $every after $after"
		local dup
		dup=$(pp_lines | sort | uniq -d | head -n 3)
		expect "each message once (repeated: $dup)" test -z "$dup"
		if [ -f "$W/out/report.json" ]; then
			expect "report.json valid" $CHECK outputs "$W/out" --trace skip --no-csv >/dev/null
		else
			expect "every $every after $after: no report.json, and the log says which allocation cost it" \
				grep -Eq '^passprobe: error: out of memory [^;]*; (no outputs|passing through)' "$W/app.err"
		fi
	done
}
case_fault_out_of_memory() { oom_run 40 1 2 3 5 7; }
case_fault_out_of_memory_setup() { oom_run 0 1 2 3 5 7 11; }

# The valid edge of destroying with work in flight: the command pool and the device go right
# after the last fence wait, nothing in between. Every frame, the last included, has its times.
case_destroy_after_wait() {
	run -- "$REL_APP" frames --frames 4 --end quick-destroy
	expect_ran 4 "rel_app"
	expect "all frames with GPU times" $CHECK outputs "$W/out" --frames 4 --passes 3 --draws 2 --gpu all
	expect "no passprobe error" test "$(pp_count '^passprobe: error')" -eq 0
}

# exit(0) with the instance and the device alive: a complete report of every resolved frame
# (here all of them: each frame's fence was waited for) and a strict trace.json.
case_exit_without_destroy() {
	run "${no_leak_check[@]}" -- "$REL_APP" frames --frames 6 --end exit
	expect_ran 6 "rel_app"
	expect "report and strict trace of all frames" $CHECK outputs "$W/out" --frames 6 --passes 3 --draws 2 --gpu all
}

# exit(0) from a second thread while the main thread goes on submitting, ten times with the
# exit at different frames. Not in the first frames: lavapipe compiles shader variants with
# LLVM on its queue thread while they run, and exit() runs LLVM's static destructors under it
# (double free in llvm::PassRegistry, libLLVM-15 and libvulkan_lvp.so only: a program must not
# exit() while another thread is inside a C++ library). Measured with rel_app, exit after
# frame 1: 17 crashes in 60 runs without passprobe, 39 in 60 with it (copy_results, the
# default on lavapipe), 0 in 100 with copy_results=off (its reads are lavapipe's device idle
# waits, which happen to finish the compiles first); exit after frame 2, 3, 4 or 6: 0 in 60
# each, with and without passprobe.
case_exit_from_thread() {
	local i n
	for i in 3 4 5 6 7 8 9 10 11 12; do
		rm -rf "$W/out"
		run "${no_leak_check[@]}" -- "$REL_APP" frames --frames 0 --exit-thread-after "$i"
		n=$(sed -n 's/^exit from another thread after \([0-9]*\) frames$/\1/p' "$W/app.out")
		if [ "$rc" -eq 0 ] && [ -n "$n" ]; then ok; else fail "run $i: exit $rc"; show; continue; fi
		# Frames the main thread completes while exit() runs may arrive after the writer
		# stopped: they are counted as dropped, which the report says.
		if $CHECK outputs "$W/out" --min-frames "$((n - 1))" --passes 3 --draws 2 --allow-dropped >"$W/check.txt"; then ok; else
			fail "run $i (exit after $n frames): report of at least $((n - 1)) frames, strict trace"
			cat "$W/check.txt"
			cp -r "$W/out" "$W/failed-run-$i"
		fi
	done
}

# ---- 5. no data lost -----------------------------------------------------------------------

# SIGKILL in the middle of a long run (rel_app and passprobe-demo), after a few report
# flushes: what is on disk parses (report.json whole, trace.json after the documented repair,
# passes.csv complete lines).
# start_midway NAME [SETTING=VALUE]... -- PROGRAM ARGS...: PROGRAM in the background with the
# layer (outputs in $W/NAME, the given settings), its pid in $pid. A background job of a script
# starts with SIGINT ignored: the program gets it at its default, as one started from a
# terminal has it.
start_midway() {
	local name=$1 extra=()
	shift
	while [ "$1" != "--" ]; do extra+=("$1"); shift; done
	shift
	(
		for v in $(env | sed -n 's/^\(VK_PASSPROBE_PROFILER_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
		export XDG_DATA_HOME="$W/xdg" XDG_RUNTIME_DIR="$W/xdg"
		export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$W/$name"
		[ ${#extra[@]} -gt 0 ] && export "${extra[@]}"
		[ -n "${REL_DRIVER_FILES:-}" ] && export VK_DRIVER_FILES="$REL_DRIVER_FILES"
		export VK_ADD_LAYER_PATH="$REL_LAYER_DIR" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler
		exec env --default-signal=INT "$@"
	) >"$W/$name.out" 2>"$W/$name.err" &
	pid=$!
}

kill_midway() { # kill_midway NAME PROGRAM ARGS...
	local name=$1 out=$W/$1 pid i
	shift
	start_midway "$name" VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=100 -- "$@"
	# Until the recording holds a good many frames and state records (or 20 s).
	for i in $(seq 1 200); do
		[ "$(stat -c %s "$out/recording.ppr" 2>/dev/null || echo 0)" -gt 100000 ] && break
		sleep 0.1
	done
	sleep 0.3
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	local status=$?
	expect "$name was killed by SIGKILL (status $status)" test "$status" -eq 137
	# What the kill left is the recording, cut anywhere: the outputs are made from it.
	expect "$name: passprobe report makes the outputs from what was recorded" \
		"$REL_PASSPROBE" report "$out" >"$W/$name.report" 2>&1
	expect "$name: the outputs say the process did not finish" grep -q "did not finish its outputs" "$W/$name.report"
	expect "$name: what is on disk parses" $CHECK killed "$out"
}

case_sigkill() {
	kill_midway rel_app "$REL_APP" frames --frames 0 --passes 6 --frame-ms 2
	if [ -n "${REL_DEMO:-}" ]; then
		kill_midway demo "$REL_DEMO" --frames 100000 --width 64 --height 64
	else
		echo "note: passprobe-demo not built; killed rel_app only"
	fi
}


# Asked to stop (finish_on_signal): SIGTERM and SIGINT, which end a program without its exit
# handlers, finish the outputs first, and the program still ends by that signal. report.json
# is rewritten only every ten minutes here, so every frame in it comes from the finish.
signal_midway() { # signal_midway NAME SIGNAL [SETTING=VALUE]... -- PROGRAM ARGS...: the exit status in $status
	local name=$1 sig=$2 out=$W/$1 pid i
	shift 2
	start_midway "$name" VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=600000 VK_PASSPROBE_PROFILER_REPORT_FRAMES=100000 "$@"
	for i in $(seq 1 200); do
		[ "$(stat -c %s "$out/recording.ppr" 2>/dev/null || echo 0)" -gt 100000 ] && break
		sleep 0.1
	done
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	status=$?
	"$REL_PASSPROBE" report "$out" >"$W/$name.report" 2>&1
}

case_finish_on_signal() {
	local status
	signal_midway term TERM -- "$REL_APP" frames --frames 0 --passes 6 --frame-ms 2
	expect "SIGTERM still ends the program (status $status, 143 expected)" test "$status" -eq 143
	expect "SIGTERM: every frame in report.json, trace.json closed" \
		$CHECK outputs "$W/term" --min-frames 20 --passes 6 --allow-dropped
	signal_midway int INT -- "$REL_APP" frames --frames 0 --passes 6 --frame-ms 2
	expect "SIGINT still ends the program (status $status, 130 expected)" test "$status" -eq 130
	expect "SIGINT: every frame in report.json, trace.json closed" \
		$CHECK outputs "$W/int" --min-frames 20 --passes 6 --allow-dropped
	# The program's own handler is left alone: it ends the loop, the program exits 0.
	signal_midway own TERM -- "$REL_APP" frames --frames 0 --passes 6 --frame-ms 2 --term-handler
	expect "a SIGTERM handler of the program's runs (status $status, 0 expected)" test "$status" -eq 0
	expect "... and prints that it stopped" grep -q "(SIGTERM)" "$W/own.out"
	expect "... the outputs written at its exit" $CHECK outputs "$W/own" --min-frames 20 --passes 6
	# Off: the signal ends the program with what was written before (the first report.json).
	signal_midway off TERM VK_PASSPROBE_PROFILER_FINISH_ON_SIGNAL=off -- \
		"$REL_APP" frames --frames 0 --passes 6 --frame-ms 2
	expect "finish_on_signal=off: SIGTERM ends the program (status $status)" test "$status" -eq 143
	expect "finish_on_signal=off: outputs as a kill leaves them" $CHECK killed "$W/off"
	expect "finish_on_signal=off: the recording not finished" grep -q "did not finish its outputs" "$W/off.report"
	expect "finish_on_signal on: the recordings finished" \
		bash -c "! grep -q 'did not finish' '$W/term.report' '$W/int.report' '$W/own.report'"
}

# ---- 6. application behaviour unchanged --------------------------------------------------

# passprobe-demo's final image, without and with passprobe, in every mode: the same bytes.
case_demo_image() {
	[ -n "${REL_DEMO:-}" ] || skip "passprobe-demo is not built"
	local modes=("" "--dynamic-only" "--renderpass-only" "--no-labels" "--frames-in-flight 1"
		"--frames-in-flight 3" "--submit2" "--barrier2" "--timings" "--misuse-barriers"
		"--misuse-query-wait" "--misuse-wait-idle" "--load lighting=3,shadow=2")
	local mode i=0
	for mode in "${modes[@]}"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		run --no-layer -- "$REL_DEMO" --frames 3 --width 96 --height 64 --draws 3 $mode --output "$W/plain$i.ppm"
		local rc_plain=$rc
		# shellcheck disable=SC2086
		run -- "$REL_DEMO" --frames 3 --width 96 --height 64 --draws 3 $mode --output "$W/probed$i.ppm"
		if [ "$rc_plain" -eq 0 ] && [ "$rc" -eq 0 ] && [ -s "$W/plain$i.ppm" ] && cmp -s "$W/plain$i.ppm" "$W/probed$i.ppm"; then
			ok
			echo "mode '${mode:-default}': identical ($(stat -c %s "$W/plain$i.ppm") bytes)"
		else
			fail "mode '${mode:-default}': images differ or a run failed (exit $rc_plain without, $rc with passprobe)"
			show
		fi
	done
	# passprobe's most intrusive settings: a timestamp around every draw, no statistics.
	run --env VK_PASSPROBE_PROFILER_PER_DRAW_TIMING=on --env VK_PASSPROBE_PROFILER_PIPELINE_STATISTICS=off \
		-- "$REL_DEMO" --frames 3 --width 96 --height 64 --draws 3 --output "$W/perdraw.ppm"
	expect "per-draw timing: the same image" cmp -s "$W/plain1.ppm" "$W/perdraw.ppm"
}

# The VkResult of every hooked call, as the application got it (spy above passprobe) and as the
# driver returned it (spy below): identical histograms, in every pp_testapp scenario and in the
# demo. passprobe's own vkCreateQueryPool and result reads only add to the driver's side.
case_return_codes() {
	[ -n "${REL_TESTAPP:-}" ] || skip "pp_testapp is not built"
	local args
	while IFS= read -r args; do
		rm -f "$W/spy-above.jsonl" "$W/spy-below.jsonl"
		# shellcheck disable=SC2086
		run --spy -- "$REL_TESTAPP" $args
		if [ "$rc" -ne 0 ]; then fail "pp_testapp $args: exit $rc"; show; continue; fi
		echo "pp_testapp $args:"
		spy_results_same
	done <<'SCENARIOS'
--scenario counts --passes 3 --draws 2 --frames 3
--scenario counts --api dynamic --passes 2 --draws 2 --frames 2
--scenario counts --naming object --passes 2 --draws 1 --frames 2
--scenario submit2 --passes 2 --draws 2 --frames 2
--scenario resubmit --times 3
--scenario secondary --frames 2
--scenario secondary --api dynamic --frames 2
--scenario suspend-resume --frames 2
--scenario free-pending --frames 3
--scenario compute-transfer --frames 2
--scenario multi-submit --frames 2 --span-label
--scenario waits --passes 2 --draws 1 --frames 2
SCENARIOS
	if [ -n "${REL_DEMO:-}" ]; then
		for args in "--frames 3 --width 64 --height 64" "--frames 3 --width 64 --height 64 --misuse-query-wait --submit2"; do
			rm -f "$W/spy-above.jsonl" "$W/spy-below.jsonl"
			# shellcheck disable=SC2086
			run --spy -- "$REL_DEMO" $args
			[ "$rc" -eq 0 ] || { fail "passprobe-demo $args: exit $rc"; show; continue; }
			echo "passprobe-demo $args:"
			spy_results_same
		done
	fi
}

# ---- 7. safe files ------------------------------------------------------------------------

# Symbolic links planted where passprobe writes: never followed (the targets keep their
# contents). trace.json and passes.csv refuse them with one error each; report.json is
# renamed over its link (replacing the link, not writing through it); a link at the
# predictable temporary name report.json.tmp.<pid> is removed, not followed (O_EXCL).
case_safe_files_symlinks() {
	local out=$W/out t
	mkdir -p "$out"
	for t in report trace passes tmp recording; do echo "precious $t" >"$W/target-$t"; done
	ln -s "$W/target-report" "$out/report.json"
	ln -s "$W/target-trace" "$out/trace.json"
	ln -s "$W/target-passes" "$out/passes.csv"
	# exec keeps the pid, so the link can be planted at the name the process will use.
	run -- sh -c 'ln -s "$1" "$2/report.json.tmp.$$" && shift 2 && exec "$@"' sh "$W/target-tmp" "$out" \
		"$REL_APP" frames --frames 3
	expect_ran 3 "rel_app"
	for t in report trace passes tmp; do
		expect "target of the $t link untouched" test "$(cat "$W/target-$t")" = "precious $t"
	done
	# The process writes the recording and report.json; trace.json and passes.csv are made
	# from the recording by `passprobe report` (run above), which refuses the links likewise.
	expect "no error in the process" test "$(pp_count '^passprobe: error')" -eq 0
	expect "one error for trace.json" test "$(grep -c "^passprobe: error: cannot write $out/trace.json: Too many levels of symbolic links" "$W/report.err")" -eq 1
	expect "one error for passes.csv" test "$(grep -c "^passprobe: error: cannot write $out/passes.csv: Too many levels of symbolic links" "$W/report.err")" -eq 1
	expect "report.json is now a regular file" test -f "$out/report.json" -a ! -L "$out/report.json"
	expect "report.json complete" $CHECK outputs "$out" --frames 3 --trace skip --no-csv
	pp_lines
	# A link where the recording goes: refused, one error; report.json is still written.
	rm -rf "$out"
	mkdir -p "$out"
	ln -s "$W/target-recording" "$out/recording.ppr"
	run -- "$REL_APP" frames --frames 3
	expect_ran 3 "rel_app"
	expect "target of the recording link untouched" test "$(cat "$W/target-recording")" = "precious recording"
	expect "one error for recording.ppr" test "$(grep -c "^passprobe: error: cannot write $out/recording.ppr: Too many levels of symbolic links" "$W/app.err")" -eq 1
	expect "report.json written without a recording" $CHECK outputs "$out" --frames 3 --trace skip --no-csv
}

# Modes: with umask 000 the files are still 0644 (rw-r--r--) and the directory 0755.
case_safe_files_modes() {
	run -- sh -c 'umask 000 && exec "$@"' sh "$REL_APP" frames --frames 2
	expect_ran 2 "rel_app"
	local f m
	for f in report.json trace.json passes.csv recording.ppr; do
		m=$(stat -c %a "$W/out/$f")
		expect "$f mode $m is 644" test "$m" = 644
	done
	m=$(stat -c %a "$W/out")
	expect "output directory mode $m is 755" test "$m" = 755
}

# The system calls themselves (strace -f): every file passprobe opens for writing is inside
# output_dir, opened with O_CLOEXEC and O_NOFOLLOW (the temporary report also O_EXCL), mode at
# most 0644; the directory is opened O_CLOEXEC; nothing is created, renamed or removed
# anywhere else; settings that could smuggle a path do not.
strace_run() { # strace_run NAME OUTPUT_DIR(as the check resolves it) [run options] -- ARGS...
	local name=$1 resolved=$2
	shift 2
	rm -rf "$W/st-$name"
	mkdir -p "$W/st-$name"
	run --env MESA_SHADER_CACHE_DISABLE=true "${no_leak_check[@]}" "$@"
	local rcs=$rc
	if [ "$rcs" -ne 0 ] || ! grep -q '^frames ' "$W/app.out"; then fail "$name: exit $rcs"; show; return; fi
	expect "$name: system calls" $CHECK syscalls "$W/st-$name/t" --out "$resolved"
}

case_safe_files_syscalls() {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
	local st=(strace -ff -qq -y -e trace=%file,%desc -e status=successful)
	strace_run plain "$W/out" -- "${st[@]}" -o "$W/st-plain/t" "$REL_APP" frames --frames 3
	# output_dir with "..": the files land in the directory it names.
	mkdir -p "$W/a"
	strace_run dotdot "$W/out2" --out "$W/a/../out2" -- "${st[@]}" -o "$W/st-dotdot/t" "$REL_APP" frames --frames 3
	expect "dotdot: files in out2" test -f "$W/out2/report.json"
	# Relative, with %p: relative to the working directory, the pid expanded.
	strace_run relative "$W/rel" --out "rel/out-%p" -- "${st[@]}" -o "$W/st-relative/t" "$REL_APP" frames --frames 3
	expect "relative: one out-<pid> directory in rel" test "$(ls "$W/rel" | grep -c '^out-[0-9]*$')" -eq 1
	# Values that look like paths in keys that are not paths.
	strace_run smuggle "$W/out3" --out "$W/out3" \
		--env "VK_PASSPROBE_PROFILER_FRAME_DELIMITER=label:../../smuggled-label" \
		--env "VK_PASSPROBE_PROFILER_CPU_COUNTERS=../../smuggled-counters,/tmp/smuggled-counters" \
		--env "VK_PASSPROBE_PROFILER_LOG_LEVEL=../../smuggled-log" \
		--env "VK_PASSPROBE_PROFILER_REPORT_FRAMES=../../smuggled-frames" \
		-- "${st[@]}" -o "$W/st-smuggle/t" "$REL_APP" frames --frames 3
	expect "no smuggled-* file anywhere near" test -z "$(find "$W" /tmp -maxdepth 4 -name 'smuggled-*' 2>/dev/null)"
}

# Set-uid: the program is a set-uid-root copy of rel_app, run by uid 65534, so the kernel sets
# AT_SECURE. The loader then ignores VK_INSTANCE_LAYERS and VK_ADD_LAYER_PATH, so the program
# enables passprobe itself, found through a system layer directory (a private mount namespace
# puts this build's manifest, with an absolute library path, over the system directory). passprobe
# must ignore VK_PASSPROBE_PROFILER_* and ./vk_layer_settings.txt: the outputs go to the
# default ./passprobe-out, and the summary, switched off by the environment, is printed.
case_setuid() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (to make a set-uid-root copy and a private mount namespace)"
	command -v setpriv >/dev/null || skip "setpriv is missing"
	command -v unshare >/dev/null && unshare -m true 2>/dev/null || skip "no private mount namespace here"
	[ -n "${REL_LAYER_LIB:-}" ] || skip "REL_LAYER_LIB not set"
	local sysdir
	for sysdir in /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d /usr/local/share/vulkan/explicit_layer.d ""; do
		[ -d "$sysdir" ] && break
	done
	[ -n "$sysdir" ] || skip "no system explicit layer directory to mount over"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$REL_APP" ||
		skip "uid 65534 cannot reach $REL_APP (a parent directory is not searchable)"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$REL_LAYER_LIB" ||
		skip "uid 65534 cannot reach $REL_LAYER_LIB"
	mkdir -p "$W/bin" "$W/layers" "$W/cwd"
	chmod 0755 "$W/bin" "$W/layers"
	# Writable for uid 65534 too: the control run (not set-uid) must be able to obey the
	# environment's output_dir.
	chmod 1777 "$W" "$W/cwd"
	cp "$REL_APP" "$W/bin/rel_app_suid"
	cp "$REL_APP" "$W/bin/rel_app_plain"
	chown 0:0 "$W/bin/rel_app_suid"
	chmod 4755 "$W/bin/rel_app_suid"
	sed "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$REL_LAYER_LIB\"#" \
		"$REL_LAYER_DIR/VkLayer_passprobe.json" >"$W/layers/VkLayer_passprobe.json"
	grep -q "\"library_path\": \"/" "$W/layers/VkLayer_passprobe.json" || { fail "manifest rewrite"; return; }
	printf 'passprobe_profiler.output_dir = %s\n' "$W/evil-file" >"$W/cwd/vk_layer_settings.txt"
	local prog
	for prog in rel_app_suid rel_app_plain; do
		rm -rf "$W/evil-env" "$W/evil-file" "$W/cwd/passprobe-out"
		{ (
			cd "$W/cwd" || exit 1
			for v in $(env | sed -n 's/^\(VK_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
			export VK_PASSPROBE_PROFILER_OUTPUT_DIR="$W/evil-env" VK_PASSPROBE_PROFILER_SUMMARY=off
			export REL_APP_LAYERS=VK_LAYER_PASSPROBE_profiler REL_APP_SHOW_SECURE=1
			# Sanitizer builds: ld.so ignores LD_PRELOAD (keep_loaded) in a set-uid program, so
			# LeakSanitizer could not name the driver's leaks.
			export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
			exec unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$W/layers" "$sysdir" \
				setpriv --reuid=65534 --regid=65534 --clear-groups "$W/bin/$prog" frames --frames 3
		) >"$W/app.out" 2>"$W/app.err"; } 2>/dev/null
		rc=$?
		if [ "$rc" -ne 0 ] || ! grep -q '^frames 3$' "$W/app.out"; then fail "$prog: exit $rc"; show; continue; fi
		ok
		if [ $prog = rel_app_suid ]; then
			expect "$prog runs with AT_SECURE" grep -qx 'AT_SECURE 1' "$W/app.out"
			expect "$prog: VK_PASSPROBE_PROFILER_OUTPUT_DIR ignored" test ! -e "$W/evil-env"
			expect "$prog: ./vk_layer_settings.txt ignored" test ! -e "$W/evil-file"
			"$REL_PASSPROBE" report "$W/cwd/passprobe-out" >/dev/null 2>&1
			expect "$prog: outputs in the default ./passprobe-out" $CHECK outputs "$W/cwd/passprobe-out" --frames 3
			expect "$prog: VK_PASSPROBE_PROFILER_SUMMARY=off ignored (summary printed)" \
				grep -q '^passprobe: per-pass GPU time over' "$W/app.err"
		else
			# The control: without set-uid the same environment is obeyed, so the checks above
			# can tell the difference.
			expect "$prog runs without AT_SECURE" grep -qx 'AT_SECURE 0' "$W/app.out"
			expect "$prog: the environment's output_dir used" test -f "$W/evil-env/report.json"
		fi
	done
	rm -rf "$W/bin"
}

# ---- 8. valgrind ----------------------------------------------------------------------------

# memcheck over a program with passprobe, through device and instance destruction and exit:
# no memory error, and no "definitely lost" block allocated by passprobe. Third-party reports
# are suppressed by tests/sanitizers/valgrind.supp; unloaded libraries are kept mapped
# (keep_loaded) so that their frames have names.
valgrind_run() {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	[ -z "${REL_SANITIZE:-}" ] || skip "sanitizer build: valgrind cannot run sanitized programs"
	[ -n "${REL_KEEP_LOADED:-}" ] || skip "REL_KEEP_LOADED not set"
	run --env LD_PRELOAD="$REL_KEEP_LOADED" --env LP_NUM_THREADS=0 -- valgrind --tool=memcheck \
		--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
		--error-exitcode=97 --num-callers=40 --suppressions="$REL_SRC/../sanitizers/valgrind.supp" \
		--log-file="$W/valgrind.log" "$@"
	expect "no definitely lost block allocated by passprobe" $CHECK valgrind "$W/valgrind.log"
	if [ "$rc" -eq 0 ]; then ok; else
		fail "valgrind exit $rc (97: a memory error or an unsuppressed definite leak)"
		grep -B2 -A30 'Invalid\|uninitialised\|definitely lost in' "$W/valgrind.log" | head -n 120
		show
	fi
}
case_valgrind_rel_app() { valgrind_run "$REL_APP" frames --frames 3; }
case_valgrind_testapp_counts() {
	[ -n "${REL_TESTAPP:-}" ] || skip "pp_testapp is not built"
	valgrind_run "$REL_TESTAPP" --scenario free-pending --frames 3
}
case_valgrind_testapp_secondary() {
	[ -n "${REL_TESTAPP:-}" ] || skip "pp_testapp is not built"
	valgrind_run "$REL_TESTAPP" --scenario secondary --frames 2
}

"case_$case_name"
finish
