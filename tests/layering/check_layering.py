#!/usr/bin/env python3
"""The layering rule of docs/architecture.md, checked: each library folder includes headers and
links libraries only from its own folder and the floors below it.

Reads every .c/.h under the library folders (FLOORS below) for `#include "..."` lines, and
every CMakeLists.txt there for add_library/target_link_libraries. An include of a header that
lives in a folder on the same floor or above, or a link to a library defined there, fails
the check, unless it is listed in KNOWN (a debt with its reason; the list only shrinks).
With --sizes instead: no source file of those folders is longer than MAX_LINES unless it
says why near its top (the words "1,000 lines" in its first 15 lines) or is in KNOWN_LONG; tools/
is checked too, its Python with its C.
With --symbols BUILD_DIR: the same rule for calls and data, from the built objects (nm on
what each target links, as CMake's link.txt lists it): every reference to a symbol another
folder defines points down (tools/ and the layer's entry on top), no two libraries and no files
of different folders are in a cycle. The names the shared libraries' version scripts export (the
shim's interposed ones, the layer's loader entry points) are the system's, not passprobe's.
Usage: check_layering.py SOURCE_DIR [--sizes | --symbols BUILD_DIR]. Prints each violation;
exit status 1 when any.
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
MAX_LINES = 1000
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


def tools_folders(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, TOP)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        out.append(os.path.relpath(dirpath, root).replace(os.sep, "/"))
    return out


def check_sizes(root, folders):
    bad = []
    used = set()
    for folder in folders + tools_folders(root):
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if not name.endswith(SOURCE_EXT + (".py",)):
                continue
            rel = f"{folder}/{name}"
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                lines = f.read().splitlines()
            if len(lines) <= MAX_LINES:
                continue
            if rel in KNOWN_LONG:
                used.add(rel)
            elif not any("1,000 lines" in line for line in lines[:15]):
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


# ---- --symbols BUILD_DIR: the same rule for calls and data, read from the built objects -------

# The product's top: tools/ (the passprobe command, the demos) may use every floor, and nothing
# may use them. The loader-facing entry of the Vulkan layer (its shared library's own objects)
# sits above everything it wires together, as KNOWN says of its includes.
TOP = "tools"
ENTRY_TARGETS = {"VkLayer_passprobe", "passprobe_gles"}


def link_objects(build):
    """(target, folder, object path, source name) for every object a target of the floors or
    of tools/ is made from, read from CMake's link.txt (what is linked now, not what an older
    build left in CMakeFiles/)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(build):
        if "link.txt" not in filenames or not dirpath.endswith(".dir"):
            continue
        cmakefiles = os.path.dirname(dirpath)
        if os.path.basename(cmakefiles) != "CMakeFiles":
            continue
        target_dir = os.path.dirname(cmakefiles)
        folder = os.path.relpath(target_dir, build).replace(os.sep, "/")
        if folder.startswith("tests") or not (floor_of(folder) is not None or folder.split("/")[0] == TOP):
            continue
        target = os.path.basename(dirpath)[:-len(".dir")]
        with open(os.path.join(dirpath, "link.txt"), encoding="utf-8") as f:
            # CMake quotes the objects of a target whose name needs it (passprobe-demo).
            for tok in (t.strip('"') for t in f.read().split()):
                if tok.endswith(".o"):
                    path = os.path.normpath(os.path.join(target_dir, tok))
                    # CMakeFiles/T.dir/sub/name.c.o: sub/name.c of the target's folder ("__" is
                    # CMake's "..").
                    rel = tok.split(".dir/", 1)[1][:-2] if ".dir/" in tok else os.path.basename(tok)[:-2]
                    rel = "/".join(".." if part == "__" else part for part in rel.split("/"))
                    src = os.path.normpath(os.path.join(folder, rel)).replace(os.sep, "/")
                    out.append((target, os.path.dirname(src), path, src))
    return out


def interposed_names(root):
    """The names passprobe's shared libraries export to stand in for the system's (their version
    scripts' global lists): a reference to one of them is to the system library (the GLES shim
    interposes libEGL/libGLESv2; the layer's entry points are the loader's names, which a demo
    calls in libvulkan)."""
    names = set()
    for rel in ("layer/egl/libpassprobe_gles.map", "layer/vulkan/libVkLayer_passprobe.map"):
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        except OSError:
            continue
        m = re.search(r"global:(.*?)(local:|})", text, re.S)
        for name in (m.group(1) if m else "").split(";"):
            if name.strip():
                names.add(name.strip())
    return names


def nm_symbols(paths):
    """{object: (defined globals, undefined)} by nm, in batches."""
    import subprocess
    res = {p: (set(), set()) for p in paths}
    paths = list(paths)
    for i in range(0, len(paths), 200):
        batch = paths[i:i + 200]
        for flag, slot in (("--defined-only", 0), ("--undefined-only", 1)):
            r = subprocess.run(["nm", "-A", "-g", flag] + batch, capture_output=True, text=True)
            for line in r.stdout.splitlines():
                obj, _, rest = line.partition(":")
                f = rest.split()
                if obj in res and f:
                    res[obj][slot].add(f[-1])
    return res


def sccs(nodes, edges):
    """Strongly connected components (Tarjan, iterative) of a graph {node: set(successors)}."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


# Code the tools share (tools/common) sits below the other tools, above every floor.
TOOLS_COMMON = "tools/common"


def level(folder, target):
    """Where a file sits: its folder's floor; tools/common above all floors; the other tools
    and the product's entry above that."""
    if folder == TOOLS_COMMON:
        return len(FLOORS)
    if target in ENTRY_TARGETS or folder.split("/")[0] == TOP:
        return len(FLOORS) + 1
    return floor_of(folder)


def check_symbols(root, build):
    objs = link_objects(build)
    if not objs:
        print(f"layering --symbols: no objects found under {build} (build it first)")
        return 1
    syms = nm_symbols(sorted({o[2] for o in objs}))
    info = {o[2]: o for o in objs}
    interposed = interposed_names(root)
    # Who defines each symbol, per target: a reference resolves within its own target when the
    # target defines the name (a generator compiling a source of a library again), else to
    # the other targets' definitions.
    definer = {}
    for path, (defined, _) in syms.items():
        for sym in defined:
            definer.setdefault(sym, {}).setdefault(info[path][0], set()).add(path)
    file_edges, target_edges, bad = {}, {}, []
    for path, (_, undefined) in syms.items():
        target, folder, _, src = info[path]
        for sym in undefined:
            if sym in interposed:
                continue
            by_target = definer.get(sym, {})
            dpaths = by_target.get(target) or {p for paths in by_target.values() for p in paths}
            for dpath in dpaths:
                dtarget, dfolder, _, dsrc = info[dpath]
                if dsrc == src:
                    continue
                file_edges.setdefault(src, set()).add(dsrc)
                if dtarget != target:
                    target_edges.setdefault(target, set()).add(dtarget)
                if dfolder == folder:
                    continue
                lo, dlo = level(folder, target), level(dfolder, dtarget)
                if dlo is None or lo is None or not dlo < lo:
                    bad.append(f"{src} uses {sym} of {dsrc}: {dfolder} is above or beside {folder}")
    for comp in sccs(sorted(target_edges), target_edges):
        if len(comp) > 1:
            bad.append("libraries in a cycle: " + " -> ".join(comp))
    folder_of = {o[3]: o[1] for o in objs}
    for comp in sccs(sorted(file_edges), file_edges):
        if len({folder_of.get(f) for f in comp}) > 1:
            bad.append("files of different folders in a cycle: " + ", ".join(comp))
    for b in sorted(set(bad)):
        print("layering --symbols: " + b)
    if not bad:
        print(f"layering --symbols: {len(syms)} objects of {len({o[0] for o in objs})} targets: every call and "
              f"datum points down, no cycle between libraries or between files of different folders")
    return 1 if bad else 0


if __name__ == "__main__":
    if "--symbols" in sys.argv:
        i = sys.argv.index("--symbols")
        sys.exit(check_symbols(sys.argv[1] if i > 1 else os.path.join(os.path.dirname(__file__), "../.."),
                               sys.argv[i + 1]))
    args = [a for a in sys.argv[1:] if a != "--sizes"]
    sys.exit(main(args[0] if args else os.path.join(os.path.dirname(__file__), "../.."), "--sizes" in sys.argv))
