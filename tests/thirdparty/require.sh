#!/bin/bash
# require.sh [--program NAME:PACKAGE]... [--layer NAME:PACKAGE]... -- COMMAND [ARGS...]
# Runs COMMAND when every named program is on PATH and every named Vulkan layer has a
# manifest where the loader looks; otherwise says what is missing (and which Debian package
# has it) and exits 77, which CTest reports as skipped. docs/testing-integration.md.
set -u
missing=()
layer_installed() { # NAME: a manifest naming it in the loader's system or user directories
	local d
	for d in /usr/share/vulkan /usr/local/share/vulkan /etc/vulkan "${XDG_DATA_HOME:-$HOME/.local/share}/vulkan"; do
		grep -qs "\"name\" *: *\"$1\"" "$d"/explicit_layer.d/*.json "$d"/implicit_layer.d/*.json && return 0
	done
	return 1
}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case "$1" in
	--program) command -v "${2%%:*}" >/dev/null || missing+=("program ${2%%:*} (Debian: ${2#*:})"); shift 2 ;;
	--layer) layer_installed "${2%%:*}" || missing+=("Vulkan layer ${2%%:*} (Debian: ${2#*:})"); shift 2 ;;
	*) echo "require.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
shift
if [ ${#missing[@]} -gt 0 ]; then
	echo "SKIP: not installed: $(IFS=';'; echo "${missing[*]}" | sed 's/;/; /g')"
	exit 77
fi
exec "$@"
