#!/usr/bin/env python3
"""check_exports.py SHIM egl_functions.h: the shim exports exactly dlsym, the names of the
PP_EGL_HOOKED list (every hook) and one name of passprobe's own, the capture trigger's entry
point for the Vulkan layer in the same process (layer/common/pp_capture.c), as functions."""
import re
import subprocess
import sys

shim, header = sys.argv[1], sys.argv[2]
text = open(header).read()
hooked = text[text.index("#define PP_EGL_HOOKED"):text.index("#define PP_EGL_USED")]
want = set(re.findall(r"X\((\w+),", hooked)) | {"dlsym", "passprobe_capture_trigger_found"}
out = subprocess.run(["nm", "-D", "--defined-only", shim], capture_output=True, text=True, check=True).stdout
got = {}
for line in out.splitlines():
    w = line.split()
    if len(w) == 3:
        got[w[2].split("@")[0]] = w[1]
bad = False
for n in sorted(set(got) - want):
    print(f"FAIL: {n} exported but not an interposed name")
    bad = True
for n in sorted(want - set(got)):
    print(f"FAIL: {n} is hooked but not exported")
    bad = True
for n in sorted(want & set(got)):
    if got[n] not in ("T", "t", "W"):
        print(f"FAIL: {n} exported as {got[n]}, not a function")
        bad = True
if bad:
    sys.exit(1)
print(f"{shim}: exports exactly the {len(want) - 1} interposed names and passprobe_capture_trigger_found")
