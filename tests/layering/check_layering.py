#!/usr/bin/env python3
"""The layering rule of docs/architecture.md, checked: each library folder includes headers and
links libraries only from its own folder and the floors below it.

Reads every .c/.h under the library folders (FLOORS below) for `#include "..."` lines, and
every CMakeLists.txt there for add_library/target_link_libraries. An include of a header that
lives in a folder on the same floor or above, or a link to a library defined there, fails
the check, unless it is listed in KNOWN (a debt with its reason; the list only shrinks).
With --sizes instead: no source file of those folders is longer than MAX_LINES unless it
says why near its top (the words "1,200 lines" in its first 15 lines) or is in KNOWN_LONG.
Usage: check_layering.py SOURCE_DIR [--sizes]. Prints each violation; exit status 1 when any.
"""
import os
import re
import sys

# Floors, lowest first. A folder may use its own folder and anything on a lower floor.
FLOORS = [
    ["layer/common"],                        # log, settings, hash, clock: API-neutral ground
    ["counters/db"],                         # counter databases, equation engine: pure C data
    ["counters/cpu", "counters/gpu",         # counter backends: no passes, no frames
     "counters/db/gen"],                     # build-time generator of the database tables
    ["layer/vulkan", "layer/egl"],           # the layer's tables (pp_layer_vulkan) and, above
                                             # everything as the KNOWN entries say, its entry;
                                             # the GLES shim's real entry points
    ["attribution/sinks/json"],              # JSON writer/reader, summary table
    ["attribution/model"],                   # recordings, submissions, frames
    ["attribution/recording"],               # the binary recording of the model's frames
    ["attribution/sinks",                    # writer thread and outputs: consume the model
     "attribution/diag"],                    # diagnostics rules: neither uses the other (the
                                             # front ends connect the rules' outputs to the sinks)
    ["intercept/common"],                    # the front ends' shared process set-up
    ["intercept/vulkan", "intercept/gles"],  # Vulkan / GL hooks -> model events
]

# Folders that stay API-neutral: no Vulkan, GL or EGL header, whatever the floors allow.
API_NEUTRAL = ["attribution/model", "attribution/recording", "attribution/sinks", "attribution/sinks/json", "attribution/diag",
               "layer/common", "counters/cpu", "counters/db"]
API_HEADER_RE = re.compile(r'^\s*#\s*include\s*[<"]((?:vulkan|GLES\d?|EGL|GL|KHR)/[^">]+)[">]', re.M)

# Known upward uses: (folder-relative file or CMake target, header or target) -> why it is
# still there. Remove an entry when its use goes; a stale entry fails the check too.
KNOWN = {
    # layer_dispatch.c hands out the hooks (vkGet*ProcAddr) and runs the device's profiling
    # set-up and tear-down: it is the layer's entry, above intercept. Goes down when the one
    # list of hooked functions gives layer/vulkan a hook table it does not include.
    ("layer/vulkan/layer_dispatch.c", "vk_hooks.h"): "entry: hook table, device profiling set-up",
    # layer_init.c: process-wide set-up of the whole library: the sinks learn the CPU
    # counters' names, and finish the outputs at exit.
    ("layer/vulkan/layer_init.c", "pp_sink.h"): "entry: process set-up and exit",
    ("layer/vulkan/layer_init.c", "pp_process.h"): "entry: the process set-up shared with the GLES shim",
    # The shared library the loader loads is linked from every part.
    ("VkLayer_passprobe", "*"): "the product",
    # The GLES shim's shared library (LD_PRELOAD), likewise.
    ("passprobe_gles", "*"): "the product",
}

# A file past this is usually two concerns (docs/architecture.md, the layering rule).
MAX_LINES = 1200
# Long files without the reason at their top, still to be split -> why they are still long.
KNOWN_LONG = {}

SOURCE_EXT = (".c", ".h")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def floor_of(folder):
    for i, folders in enumerate(FLOORS):
        if folder in folders:
            return i
    return None


def allowed(src_folder, dst_folder):
    if src_folder == dst_folder:
        return True
    return floor_of(dst_folder) < floor_of(src_folder)


def check_sizes(root, folders):
    bad = []
    used = set()
    for folder in folders:
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if not name.endswith(SOURCE_EXT):
                continue
            rel = f"{folder}/{name}"
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                lines = f.read().splitlines()
            if len(lines) <= MAX_LINES:
                continue
            if rel in KNOWN_LONG:
                used.add(rel)
            elif not any("1,200 lines" in line for line in lines[:15]):
                bad.append(f"{rel}: {len(lines)} lines and no reason at its top")
    for rel in sorted(set(KNOWN_LONG) - used):
        bad.append(f"{rel}: KNOWN_LONG entry no longer needed: remove it from {__file__}")
    for b in bad:
        print("file size: " + b)
    if not bad:
        print(f"file size: no file over {MAX_LINES} lines without its reason ({len(used)} still to split)")
    return 1 if bad else 0


def main(root, sizes=False):
    folders = [f for floor in FLOORS for f in floor]
    if sizes:
        return check_sizes(root, folders)
    headers = {}  # basename -> folder
    sources = []  # (folder, relative path)
    for folder in folders:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            print(f"layering: folder {folder} is missing", file=sys.stderr)
            return 1
        for name in sorted(os.listdir(d)):
            if name.endswith(SOURCE_EXT):
                sources.append((folder, f"{folder}/{name}"))
                if name.endswith(".h"):
                    if name in headers:
                        print(f"layering: header {name} in both {headers[name]} and {folder}")
                        return 1
                    headers[name] = folder
    violations = []
    used_known = set()

    def check(src_folder, who, what, dst_folder, kind):
        if allowed(src_folder, dst_folder):
            return
        for key in ((who, what), (who, "*")):
            if key in KNOWN:
                used_known.add(key)
                return
        violations.append(f"{who}: {kind} {what} from {dst_folder} (floor {floor_of(dst_folder)}), "
                          f"above or beside {src_folder} (floor {floor_of(src_folder)})")

    for folder, rel in sources:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        if folder in API_NEUTRAL:
            for inc in API_HEADER_RE.findall(text):
                violations.append(f"{rel}: includes the API header {inc}; {folder} stays API-neutral")
        for inc in INCLUDE_RE.findall(text):
            dst = headers.get(os.path.basename(inc))
            if dst:
                check(folder, rel, os.path.basename(inc), dst, "includes")

    # Libraries: which folder defines each target, then whom each links.
    targets = {}
    links = []
    for folder in folders:
        path = os.path.join(root, folder, "CMakeLists.txt")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#.*", "", f.read())
        for m in re.finditer(r"add_library\(\s*(\S+)", text):
            targets[m.group(1)] = folder
        for m in re.finditer(r"target_link_libraries\(\s*(\S+)([^)]*)\)", text):
            for item in m.group(2).split():
                g = re.match(r'"?\$<LINK_LIBRARY:[A-Z_]+,([^>]+)>"?$', item)
                links.append((folder, m.group(1), g.group(1) if g else item))
    for folder, target, item in links:
        if item in targets:
            check(folder, target, item, targets[item], "links")

    for v in violations:
        print("layering: " + v)
    for key in sorted(set(KNOWN) - used_known):
        print(f"layering: KNOWN entry {key} no longer needed: remove it from {__file__}")
        violations.append(key)
    if not violations:
        print(f"layering: {len(sources)} files, {len(links)} link items in {len(folders)} folders: "
              f"includes and links point down ({len(KNOWN)} known exceptions)")
    return 1 if violations else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--sizes"]
    sys.exit(main(args[0] if args else os.path.join(os.path.dirname(__file__), "../.."), "--sizes" in sys.argv))
