#!/usr/bin/env python3
"""The naming rule of docs/architecture.md, checked on the built objects: a file's name predicts
the symbols it exports, and a symbol names its file.

A source `STEM.c` of a library (the floors of check_layering.py) gives every function and datum it
exports the prefix `pp_STEM_` (or is `pp_STEM` itself); a stem that already begins with `pp_`
is the prefix as it is. The sources of tools/ (executables, whose names nobody else shares) use
`STEM_` without `pp_`. Names fixed from outside passprobe are exempt: the hooks, named after
the function they stand in for (`pp_` and the Vulkan command without `vk`, or the GL/EGL/GLX
name itself), the names the two shared libraries export (their version scripts), and `main`.
Product source names are unique across the tree, so that a symbol leads to one file.

Usage: check_names.py SOURCE_DIR BUILD_DIR. Prints each violation; exit status 1 when any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layering  # noqa: E402  (link_objects, nm_symbols: the objects each target links)

HOOK_RE = re.compile(r"^(pp_[A-Z]|(vk|gl|egl|glX)[A-Z])")


def prefix_of(src):
    stem = os.path.splitext(os.path.basename(src))[0]
    if src.startswith(check_layering.TOP + "/") or stem.startswith("pp_"):
        return stem
    return "pp_" + stem


def check_names(root, build):
    objs = check_layering.link_objects(build)
    if not objs:
        print(f"names: no objects found under {build} (build it first)")
        return 1
    syms = check_layering.nm_symbols(sorted({o[2] for o in objs}))
    exempt = check_layering.interposed_names(root)  # the version scripts' names
    bad, checked, by_stem = set(), 0, {}
    for target, folder, path, src in objs:
        stem = os.path.splitext(os.path.basename(src))[0]
        by_stem.setdefault(stem, set()).add(src)
        prefix = prefix_of(src)
        for sym in syms[path][0]:
            if sym == "main" or sym.startswith("_") or sym in exempt or HOOK_RE.match(sym):
                continue
            checked += 1
            if sym != prefix and not sym.startswith(prefix + "_"):
                bad.add(f"{src} exports {sym}: its names begin with {prefix}_")
    for stem, srcs in by_stem.items():
        if len(srcs) > 1:
            bad.add(f"{len(srcs)} sources named {stem}: " + ", ".join(sorted(srcs)))
    for b in sorted(bad):
        print("names: " + b)
    if not bad:
        print(f"names: {checked} exported names of {len({o[3] for o in objs})} sources begin with their file's "
              f"name ({len(exempt)} names fixed by the export lists, hooks named after the API)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(next(l for l in __doc__.splitlines() if l.startswith("Usage")), file=sys.stderr)
        sys.exit(2)
    sys.exit(check_names(sys.argv[1], sys.argv[2]))
