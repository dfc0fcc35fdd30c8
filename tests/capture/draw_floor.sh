#!/bin/sh
# Per-draw instructions outside a capture window against the no-timing floor (timestamps=off),
# counted by callgrind inside bench_api's draw loop (docs/performance.md). Instruction counts,
# not time: the same on a busy machine. Skipped (77) without valgrind.
# usage: draw_floor.sh BENCH_API LAYER_DIR WORKDIR
bench=$1
layer_dir=$2
work=$3
k=2000
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed: skipped"; exit 77; }
# Labelled valgrind: .ci/run runs it in its valgrind step, on the Release build. valgrind cannot
# run a program built with a sanitizer.
if ldd "$bench" 2>/dev/null | grep -q 'lib[at]san'; then
	echo "bench_api is built with a sanitizer, which valgrind cannot run: skipped"
	exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
count() { # label, settings... -> instructions collected in bench_record_draws
	label=$1
	shift
	env VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler \
		VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out-$label" VK_PASSPROBE_PROFILER_SUMMARY=off "$@" \
		valgrind --tool=callgrind --callgrind-out-file="$work/cg.$label" --toggle-collect=bench_record_draws \
		"$bench" --record-only $k >"$work/$label.log" 2>&1
	status=$?
	n=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$label.log")
	# The benchmark must have run to its end, and its draw loop must have been counted: a
	# program that aborted (or a loop that never ran) gives an empty or zero count, which would
	# make every comparison below hold.
	if [ $status -ne 0 ] || [ -z "$n" ] || [ "$n" -lt $((k * 10)) ]; then
		echo "FAIL: $label: bench_api exited $status under callgrind with ${n:-no} instructions counted in its draw loop (at least $((k * 10)) expected):" >&2
		cat "$work/$label.log" >&2
		return 1
	fi
	echo "$n"
}
floor=$(count floor VK_PASSPROBE_PROFILER_TIMESTAMPS=off) || exit 1
outside=$(count outside VK_PASSPROBE_PROFILER_FRAMES=none) || exit 1
inside=$(count inside) || exit 1
echo "instructions per vkCmdDraw (callgrind, $k draws, with the driver): timestamps=off $((floor / k)), outside a window (frames=none) $((outside / k)), inside a window $((inside / k))"
diff=$(((outside - floor) / k))
[ $diff -lt 0 ] && diff=$((-diff))
if [ $diff -gt 2 ]; then
	echo "FAIL: outside a capture window a draw costs $diff instructions more or less than the no-timing floor (at most 2 allowed)"
	exit 1
fi
# Inside a window a draw is counted for its pass as well: never cheaper than the floor.
if [ $((inside / k)) -lt $((floor / k - 2)) ]; then
	echo "FAIL: inside a capture window a draw costs $((inside / k)) instructions, below the no-timing floor $((floor / k))"
	exit 1
fi
echo "ok: outside a window within $diff instructions per draw of the floor"
