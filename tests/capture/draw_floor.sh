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
rm -rf "$work" && mkdir -p "$work" || exit 1
count() { # label, settings... -> instructions collected in bench_record_draws
	label=$1
	shift
	env VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_PASSPROBE_profiler \
		VK_PASSPROBE_PROFILER_OUTPUT_DIR="$work/out-$label" VK_PASSPROBE_PROFILER_SUMMARY=off "$@" \
		valgrind --tool=callgrind --callgrind-out-file="$work/cg.$label" --toggle-collect=bench_record_draws \
		"$bench" --record-only $k >"$work/$label.log" 2>&1
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$label.log"
}
floor=$(count floor VK_PASSPROBE_PROFILER_TIMESTAMPS=off)
outside=$(count outside VK_PASSPROBE_PROFILER_FRAMES=none)
inside=$(count inside)
if [ -z "$floor" ] || [ -z "$outside" ] || [ -z "$inside" ]; then
	echo "callgrind gave no count:"
	cat "$work"/*.log
	exit 1
fi
echo "instructions per vkCmdDraw (callgrind, $k draws, with the driver): timestamps=off $((floor / k)), outside a window (frames=none) $((outside / k)), inside a window $((inside / k))"
diff=$(((outside - floor) / k))
[ $diff -lt 0 ] && diff=$((-diff))
if [ $diff -gt 2 ]; then
	echo "FAIL: outside a capture window a draw costs $diff instructions more or less than the no-timing floor (at most 2 allowed)"
	exit 1
fi
echo "ok: outside a window within $diff instructions per draw of the floor"
