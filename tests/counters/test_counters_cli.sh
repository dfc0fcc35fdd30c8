#!/bin/sh
# `passprobe counters` end to end: list (all databases, one database, an unknown GPU), eval
# of an expression and of every derived counter on the values files in fixtures/, and the
# errors for bad expressions, bad JSON, unknown counters and wrong kinds of names.
# usage: test_counters_cli.sh PASSPROBE FIXTURES_DIR SCRATCH_DIR
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
# A line of stdout that starts with NAME, then spaces, then the rest.
out_line() { grep -E -q -- "^$(printf '%s' "$1" | sed 's/[$.]/\\&/g') +$2\$" "$T/out"; }
pp() { "$PP" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

FIX=$(cd "$FIX" && pwd -P) || exit 1
case $PP in /*) ;; *) PP=$(pwd -P)/$PP ;; esac
rm -rf "$T"
mkdir -p "$T" || exit 1
T=$(cd "$T" && pwd -P)

# ---- help and usage
pp counters --help
check "counters --help" '[ $rc -eq 0 ] && has_out "usage: passprobe counters list"'
pp help counters
check "help counters" '[ $rc -eq 0 ] && has_out "passprobe counters eval --gpu NAME"'
pp --help
check "main help names counters" '[ $rc -eq 0 ] && has_out "counters list"'
pp counters
check "counters without action exits 2" '[ $rc -eq 2 ] && has_err "usage: passprobe counters"'
pp counters frob
check "unknown action exits 2" '[ $rc -eq 2 ] && has_err "unknown action '"'"'frob'"'"'"'
pp counters list --bogus
check "unknown option exits 2" '[ $rc -eq 2 ] && has_err "--bogus"'
pp counters list --gpu
check "--gpu without a value exits 2" '[ $rc -eq 2 ] && has_err "--gpu needs a value"'

# ---- list
pp counters list
check "list exits 0" '[ $rc -eq 0 ]'
check "list: G78 database with its counts" 'out_line mali-g78 "66 +65 +7 +Mali-G78 \\(0x9002\\)"'
check "list: Bifrost database with its GPUs" 'has_out "mali-bifrost" && has_out "Mali-G52 (0x7002)"'
pp counters list --gpu Mali-G78
check "list --gpu Mali-G78 exits 0" '[ $rc -eq 0 ]'
check "list G78: hardware count" 'has_out "hardware counters (66)"'
check "list G78: derived count" 'has_out "derived counters (65)"'
check "list G78: a hardware counter with block and unit" \
	'out_line "  \$MaliGPUCyclesGPUActive" "job_manager +cycles +1 +- +000 3\\.1\\.1 +GPU active cycles"'
check "list G78: a derived equation" \
	'has_out "= max(min((\$MaliGPUCyclesFragmentQueueActive / \$MaliGPUCyclesGPUActive) * 100, 100), 0)"'
check "list G78: constants" 'has_out "MALI_CONFIG_SHADER_CORE_COUNT" && has_out "\$MaliConstantsBusWidthBits"'
pp counters list --gpu=g52
check "list --gpu=g52 is Bifrost" '[ $rc -eq 0 ] && has_out "mali-bifrost: Arm Mali Bifrost family"'
check "list Bifrost: mean over shader cores" 'has_out "shader_core=mean"'
check "list Bifrost: aliases" 'has_out "aliases (7)" && has_out "SC.FRAG_QUADS_EZS_KILL -> SC.FRAG_QUADS_EZS_KILLED"'
check "list Bifrost: notes" 'has_out "note: as printed: read requests per external read"'
pp counters list --gpu Mali-G999
check "unknown GPU exits 2" '[ $rc -eq 2 ]'
check "unknown GPU named" 'has_err "no counter database for GPU '"'"'Mali-G999'"'"'"'
check "unknown GPU lists the known ones" 'has_err "known GPUs:" && has_err "Mali-G78" && has_err "Mali-G71"'

# ---- eval
pp counters eval --gpu Mali-G78 --values "$FIX/g78_values.json" --expr '$MaliFragmentQueueUtilization'
check "eval --expr of a derived counter" '[ $rc -eq 0 ] && [ "$(cat "$T/out")" = 75 ]'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" \
	--expr '$MaliExternalBusBeatsReadBeats * (MALI_CONFIG_EXT_BUS_BYTE_SIZE * 8 / 8)'
check "eval --expr with a constant, per-instance values summed" '[ $rc -eq 0 ] && [ "$(cat "$T/out")" = 16000 ]'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --expr '$MaliGPUCyclesGPUActive / (1 - 1)'
check "eval: division by zero is unavailable, exit 1" \
	'[ $rc -eq 1 ] && has_out "unavailable: division by zero at offset 24"'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --expr '$MaliGPUCyclesTilerActive + 1'
check "eval: a missing input is unavailable, exit 1" \
	'[ $rc -eq 1 ] && has_out "unavailable: input \$MaliGPUCyclesTilerActive not given"'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --all
check "eval --all exits 0" '[ $rc -eq 0 ]'
check "eval --all: fragment queue utilization" 'out_line "\$MaliFragmentQueueUtilization" "75 percent"'
check "eval --all: clamped to 100" 'out_line "\$MaliNonFragmentQueueUtilization" "100 percent"'
check "eval --all: external read bytes, 16-byte bus" 'out_line "\$MaliOutputExternalReadBytes" "16000 bytes"'
check "eval --all: shader core usage over 4 cores" 'out_line "\$MaliShaderCoreUsage" "80 percent"'
check "eval --all: unavailable with its reason" \
	'out_line "\$MaliTilerUtilization" "unavailable: input \\\$MaliGPUCyclesTilerActive not given"'
check "eval --all: every derived counter" '[ "$(wc -l <"$T/out")" -eq 65 ]'
pp counters eval --gpu mali-bifrost --values "$FIX/bifrost_values.json" --all
check "eval Bifrost: mean over cores" 'out_line SC.EXEC_CORE_UTILIZATION "0.4 ratio"'
check "eval Bifrost: SUM of beats times bus width" 'out_line L2.EXTERNAL_READ_BYTES "16000 bytes"'
check "eval Bifrost: read miss rate as printed" 'out_line L2.READ_MISS_RATE "4 ratio"'

# ---- eval: errors
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --expr 'max(1, '
check "bad expression exits 2" '[ $rc -eq 2 ]'
check "bad expression: position and what was expected" \
	'has_err "--expr: offset 7: expected a number, a counter name, a function call or '"'"'('"'"'"'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --expr '2 * $MaliNope'
check "unknown name in expression" '[ $rc -eq 2 ] && has_err "offset 4: unknown counter '"'"'\$MaliNope'"'"'"'
pp counters eval --gpu g78 --values "$FIX/not_json.json" --all
check "bad JSON: exit 1, position" '[ $rc -eq 1 ] && has_err "not_json.json is not valid JSON: line 1:"'
pp counters eval --gpu g52 --values "$FIX/unknown_counter.json" --all
check "unknown counter named" '[ $rc -eq 1 ] && has_err "unknown counter '"'"'JM.NOPE'"'"' in mali-bifrost"'
pp counters eval --gpu g78 --values "$FIX/derived_given.json" --all
check "a derived counter as input" '[ $rc -eq 1 ] && has_err "is a derived counter, not a hardware counter"'
pp counters eval --gpu g78 --values "$FIX/string_value.json" --all
check "a string value" '[ $rc -eq 1 ] && has_err "must be a number"'
pp counters eval --gpu g78 --values "$FIX/unknown_member.json" --all
check "an unknown member" '[ $rc -eq 1 ] && has_err "unknown member \"extra\""'
pp counters eval --gpu g78 --values "$FIX/defined_constant.json" --all
check "a defined constant as input" '[ $rc -eq 1 ] && has_err "is defined as MALI_CONFIG_SHADER_CORE_COUNT"'
pp counters eval --gpu g78 --values "$T/no-such-file.json" --all
check "missing values file" '[ $rc -eq 1 ] && has_err "cannot read"'
pp counters eval --gpu g78 --all
check "eval without --values exits 2" '[ $rc -eq 2 ] && has_err "--values FILE is required"'
pp counters eval --gpu g78 --values "$FIX/g78_values.json"
check "eval without --expr or --all exits 2" '[ $rc -eq 2 ] && has_err "one of --expr TEXT or --all"'
pp counters eval --gpu g78 --values "$FIX/g78_values.json" --all --expr 1
check "eval with both exits 2" '[ $rc -eq 2 ] && has_err "exclude each other"'
pp counters eval --gpu nope --values "$FIX/g78_values.json" --all
check "eval with an unknown GPU exits 2" '[ $rc -eq 2 ] && has_err "known GPUs:"'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
