#!/bin/sh
# Settings through the loaded layer (docs/settings.md), with layer_probe_app creating two
# instances in one process (settings are loaded once per process, so a problem is reported
# once however many instances come and go):
#   - a bad environment value, an out-of-range one and a wrongly cased key: exactly one
#     "passprobe: warning:" line, naming the variable; the program still exits 0;
#   - VK_LAYER_SETTINGS_PATH naming a file, or a directory holding vk_layer_settings.txt:
#     output_dir from the file is honoured; the environment wins over the file;
#   - a bad line in the file: one warning naming file:line, the file's good lines still apply.
# Where the report lands proves which output_dir was used (and that passprobe was loaded).
# Usage: test_layer_settings.sh PROBE_APP PASSPROBE   (environment from CTest)
set -u
app=$1
passprobe=$2
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

scratch=$PWD/settings
rm -rf "$scratch"
mkdir -p "$scratch"
default_out=$VK_PASSPROBE_PROFILER_OUTPUT_DIR

# run NAME [VAR=value...]: runs the app with those variables added; stderr in NAME.err.
run() {
	name=$1
	shift
	env "$@" "$app" --instances=2 --frames=2 >"$scratch/$name.out" 2>"$scratch/$name.err"
	rc=$?
	[ "$rc" -eq 0 ] && ok || { fail "$name: exit $rc"; cat "$scratch/$name.err"; }
}

warnings() { grep -c '^passprobe: warning:' "$scratch/$1.err"; }

# expect_one_warning NAME NEEDLE: exactly one passprobe warning line names NEEDLE, and there is
# no other passprobe warning (CTest turns off the CPU counters and the diagnostics, which can
# warn about the machine and the program).
expect_one_warning() {
	n=$(grep '^passprobe: warning:' "$scratch/$1.err" | grep -cF -- "$2")
	[ "$n" -eq 1 ] && ok || { fail "$1: $n passprobe warnings name $2, expected exactly 1"; cat "$scratch/$1.err"; }
	n=$(warnings "$1")
	[ "$n" -eq 1 ] && ok || { fail "$1: $n passprobe warnings in all, expected exactly 1"; cat "$scratch/$1.err"; }
}

# ---- baseline: no problem, no warning -------------------------------------------------------
rm -rf "$default_out"
run clean
n=$(warnings clean)
[ "$n" -eq 0 ] && ok || { fail "clean: $n passprobe warnings without any bad setting"; cat "$scratch/clean.err"; }
[ -s "$default_out/report.json" ] && ok || fail "clean: no report in \$VK_PASSPROBE_PROFILER_OUTPUT_DIR"

# ---- bad environment values ---------------------------------------------------------------------
run bad_word VK_PASSPROBE_PROFILER_LOG_LEVEL=loud
expect_one_warning bad_word VK_PASSPROBE_PROFILER_LOG_LEVEL
run bad_int VK_PASSPROBE_PROFILER_REPORT_FRAMES=1e3
expect_one_warning bad_int VK_PASSPROBE_PROFILER_REPORT_FRAMES
run bad_range VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS=5
expect_one_warning bad_range VK_PASSPROBE_PROFILER_FLUSH_INTERVAL_MS
run bad_case VK_PASSPROBE_PROFILER_Trace=1
expect_one_warning bad_case VK_PASSPROBE_PROFILER_Trace
rm -rf "$default_out"
run bad_bool VK_PASSPROBE_PROFILER_CSV=maybe
expect_one_warning bad_bool VK_PASSPROBE_PROFILER_CSV
# The recording says which outputs the run asked for; passprobe report makes them.
"$passprobe" report "$default_out" >"$scratch/bad_bool.report" 2>&1 || { fail "bad_bool: passprobe report failed"; cat "$scratch/bad_bool.report"; }
[ -s "$default_out/passes.csv" ] && ok || fail "bad_bool: the bad csv value did not fall back to the default (on)"

# ---- a settings file ----------------------------------------------------------------------------
from_file=$scratch/from-file
from_env=$scratch/from-env
cat >"$scratch/vk_layer_settings.txt" <<EOF
# passprobe test settings
khronos_validation.enables = whatever
passprobe_profiler.output_dir = $from_file
passprobe_profiler.csv = off
EOF

rm -rf "$from_file" "$from_env"
run file_path -u VK_PASSPROBE_PROFILER_OUTPUT_DIR VK_LAYER_SETTINGS_PATH="$scratch/vk_layer_settings.txt"
[ -s "$from_file/report.json" ] && ok || fail "file_path: output_dir from the settings file not used"
[ ! -e "$from_file/passes.csv" ] && ok || fail "file_path: csv = off from the settings file not used"
n=$(warnings file_path)
[ "$n" -eq 0 ] && ok || { fail "file_path: $n warnings for a valid file"; cat "$scratch/file_path.err"; }

rm -rf "$from_file" "$from_env"
run file_dir -u VK_PASSPROBE_PROFILER_OUTPUT_DIR VK_LAYER_SETTINGS_PATH="$scratch"
[ -s "$from_file/report.json" ] && ok || fail "file_dir: a directory in VK_LAYER_SETTINGS_PATH not searched"

rm -rf "$from_file" "$from_env"
run env_wins VK_PASSPROBE_PROFILER_OUTPUT_DIR="$from_env" VK_LAYER_SETTINGS_PATH="$scratch/vk_layer_settings.txt"
[ -s "$from_env/report.json" ] && ok || fail "env_wins: output_dir from the environment not used"
[ ! -e "$from_file" ] && ok || fail "env_wins: the settings file's output_dir was used although the environment sets one"
[ ! -e "$from_env/passes.csv" ] && ok || fail "env_wins: the file's csv = off was lost"

cat >"$scratch/bad_settings.txt" <<EOF
passprobe_profiler.output_dir = $from_file
passprobe_profiler.report_frames = 5 # five
EOF
rm -rf "$from_file"
run file_bad_line -u VK_PASSPROBE_PROFILER_OUTPUT_DIR VK_LAYER_SETTINGS_PATH="$scratch/bad_settings.txt"
expect_one_warning file_bad_line "bad_settings.txt:2"
grep '^passprobe: warning:' "$scratch/file_bad_line.err" | grep -q report_frames && ok ||
	fail "file_bad_line: the warning does not name report_frames"
[ -s "$from_file/report.json" ] && ok || fail "file_bad_line: the file's valid line was not applied"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
