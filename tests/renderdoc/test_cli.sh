#!/bin/bash
# test_cli.sh PASSPROBE BUILD_DIR WORKDIR: `passprobe renderdoc` as a command, without a
# capture: usage and exit statuses, the message where RenderDoc's Python module or Python
# itself is missing (naming the Debian package), the Python stack where RenderDoc's library
# crashes, and the script found next to an installed
# passprobe (cmake --install into WORKDIR/prefix) as well as in the build tree.
set -u
passprobe=$1 build=$2 work=$3
fails=0
check() { # DESCRIPTION COMMAND...: COMMAND must succeed
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
rm -rf "$work"
mkdir -p "$work"

"$passprobe" renderdoc >"$work/out" 2>"$work/err"
check "no subcommand: exit 2, usage on stderr" test $? = 2 -a -s "$work/err"
"$passprobe" renderdoc frobnicate >"$work/out" 2>"$work/err"
rc=$?
check "unknown subcommand: exit 2, named" eval 'test $rc = 2 && grep -q "unknown command .frobnicate." "$work/err"'
"$passprobe" help renderdoc >"$work/out" 2>&1
check "passprobe help renderdoc documents annotate, show, replay, install" \
	eval 'grep -q "renderdoc annotate" "$work/out" && grep -q "renderdoc install" "$work/out"'
"$passprobe" --help >"$work/out" 2>&1
check "passprobe --help lists renderdoc" grep -q "renderdoc annotate|show|replay|install" "$work/out"

# A Python without RenderDoc's module: Debian's, with its site packages left out.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
printf '#!/bin/sh\nexec %s -I -S "$@"\n' "$py" >"$work/python-without-renderdoc"
chmod +x "$work/python-without-renderdoc"
PASSPROBE_PYTHON="$work/python-without-renderdoc" "$passprobe" renderdoc show "$work/none.rdc" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/err"
check "without python3-renderdoc: exit 1, one message naming the package" \
	eval 'test $rc = 1 && test $(wc -l <"$work/err") = 1 && grep -q "install Debian.s python3-renderdoc" "$work/err"'
PASSPROBE_PYTHON="$work/no-such-python" "$passprobe" renderdoc show "$work/none.rdc" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/err"
check "without that Python: exit 1, naming python3-renderdoc" \
	eval 'test $rc = 1 && grep -q "no-such-python (PASSPROBE_PYTHON)" "$work/err" && grep -q python3-renderdoc "$work/err"'

# RenderDoc's library crashing: a stand-in module whose InitialiseReplay faults as a native
# crash does. The Python stack on stderr names the call.
mkdir -p "$work/crashing"
printf 'import ctypes\n\n\nclass GlobalEnvironment:\n    pass\n\n\ndef InitialiseReplay(env, args):\n    ctypes.string_at(0)\n' \
	>"$work/crashing/renderdoc.py"
PYTHONPATH="$work/crashing" "$passprobe" renderdoc show "$work/none.rdc" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/err"
check "a crash in RenderDoc's library: killed by SIGSEGV, the Python stack on stderr naming the call" \
	eval 'test $rc = 139 && grep -q "Segmentation fault" "$work/err" && grep -q "in rd_module" "$work/err"'

# Installed: the script and the extension under share/passprobe/renderdoc/.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1
check "cmake --install" test $? = 0
check "installed: share/passprobe/renderdoc/ has the script, its module and the extension" \
	test -f "$work/prefix/share/passprobe/renderdoc/passprobe_renderdoc.py" \
	-a -f "$work/prefix/share/passprobe/renderdoc/passprobe_section.py" \
	-a -f "$work/prefix/share/passprobe/renderdoc/qrenderdoc/passprobe/__init__.py" \
	-a -f "$work/prefix/share/passprobe/renderdoc/qrenderdoc/passprobe/extension.json"
# A file only the installed copy has: install copies it into the extension only when the
# installed passprobe runs the installed script (not the build tree's).
echo '{}' >"$work/prefix/share/passprobe/renderdoc/qrenderdoc/passprobe/installed-copy.json"
"$work/prefix/bin/passprobe" renderdoc install --extensions-dir "$work/ext" --no-always-load >"$work/out" 2>&1
rc=$?
cat "$work/out"
check "the installed passprobe runs the installed script" \
	test $rc = 0 -a -f "$work/ext/passprobe/installed-copy.json" -a -f "$work/ext/passprobe/passprobe_section.py"
"$passprobe" renderdoc install --extensions-dir "$work/ext2" --no-always-load >"$work/out" 2>&1
check "the build tree's passprobe runs the build tree's script" test $? = 0 -a -f "$work/ext2/passprobe/__init__.py"
exit $((fails > 0))
