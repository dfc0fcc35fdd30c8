#!/bin/bash
# expect_output.sh FILE [EXTENDED-REGEX]: FILE (or the first file a glob pattern names) exists
# and is not empty (and has a line matching the pattern); prints its first matching lines. For the layer matrix: the other
# layer's own output. docs/testing-integration.md, *Real programs*.
set -u
shopt -s nullglob
files=($1)
f=${files[0]:-$1}
[ -s "$f" ] || { echo "expect_output.sh: $f is missing or empty"; exit 1; }
if [ $# -ge 2 ]; then
	grep -m3 -E -- "$2" "$f" || { echo "expect_output.sh: no line of $f matches $2"; exit 1; }
else
	head -c 300 "$f"; echo
fi
