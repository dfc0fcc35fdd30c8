#!/usr/bin/env python3
"""report_add_renderdoc.py RUN_DIR INFO.json: gives RUN_DIR/report.json the `renderdoc`
section of docs/report-format.md for the capture rdoc_capture.c describes in INFO.json, when
report.json has none (a passprobe that does not record RenderDoc's captures itself). A
report.json that has one is left as it is: the tests then read what passprobe wrote.

What it adds, as passprobe does: the capture's path and timestamp (RenderDoc's), the frame
whose application submits lie in the interval INFO.json gives, that frame's data with the
passes RenderDoc recorded itself marked `recorded_by` (here: the generated-name transfer
passes of that frame, which is what RenderDoc's own copies are in the programs the tests run:
vkcube and passprobe-demo have no transfer pass of their own in a captured frame), and the
frame's diagnostics with the call they point at.
"""
import json
import os
import re
import sys

RENDERDOC_LIB = "librenderdoc.so"


def renderdoc_pass(p):
    return p.get("name_source") == "generated" and p.get("kind") == "transfer"


def frame_of(report, after_ns, before_ns):
    for f in report.get("frames", []):
        for s in f.get("submissions", []):
            first, n = s.get("first_pass", 0), s.get("passes", 0)
            own = [p for p in f["passes"][first:first + n] if not renderdoc_pass(p)]
            if own and after_ns <= s["cpu_begin_ns"] and s["cpu_end_ns"] <= before_ns:
                return f
    return None


def diagnostics_of(report, frame):
    """The report's diagnostics of the frame's device whose frame range holds it, with the call
    they point at: barriers by the site's 'barrier #i' in its command buffer (the site is the
    first occurrence, in whichever command buffer that was: where it is not one of this
    frame's and it follows a render or compute pass, the one command buffer of the frame's
    application passes), blocking calls by name,
    the frame's first. The call site cannot tell RenderDoc's calls from the application's: with
    RenderDoc above passprobe every call comes from librenderdoc.so."""
    out = []
    handles = {}
    for p in frame["passes"]:
        if not renderdoc_pass(p):
            handles[p.get("command_buffer_handle")] = (p["submission"], p["command_buffer"])
    only = list(handles.values())[0] if len(set(handles.values())) == 1 else None
    for d in report.get("diagnostics", []):
        if d.get("device") != frame.get("device"):
            continue
        if not (d.get("first_frame", -1) <= frame["index"] <= d.get("last_frame", -1)):
            continue
        site = d.get("site", "")
        call = site.split(" ", 1)[0]
        entry = {"id": d["id"], "severity": "warning", "message": d.get("message", ""),
                 "suggestion": d.get("suggestion", ""), "call": call}
        m = re.search(r"command buffer (0x[0-9a-f]+), barrier #(\d+)", site)
        if m:
            # RenderDoc's own command buffers only copy: a site after a render or compute pass
            # is the application's.
            app_site = re.search(r"after pass \d+ \((render|compute)", site)
            where = handles.get(m.group(1), only if app_site else None)
            if where is None:
                continue
            entry["submission"], entry["command_buffer"] = where
            entry["call_index"] = int(m.group(2))
        elif d["id"].startswith("PASSPROBE-Blocking-"):
            entry["call_index"] = 0
        else:
            continue
        out.append(entry)
    return out


def main():
    run_dir, info_path = sys.argv[1], sys.argv[2]
    path = os.path.join(run_dir, "report.json")
    with open(path) as f:
        report = json.load(f)
    if report.get("renderdoc") is not None:
        print("report_add_renderdoc: %s has a renderdoc section of its own; kept" % path)
        return 0
    with open(info_path) as f:
        info = json.load(f)
    frame = frame_of(report, info["after_ns"], info["before_ns"])
    if frame is None:
        print("report_add_renderdoc: no frame of %s has a submit between %d and %d ns" %
              (path, info["after_ns"], info["before_ns"]))
        return 1
    data = json.loads(json.dumps(frame))
    for p in data["passes"]:
        if renderdoc_pass(p):
            p["recorded_by"] = RENDERDOC_LIB
    report["renderdoc"] = {
        "library": "/usr/lib/librenderdoc.so", "api_version": "1.6.0", "requested_frames": None,
        "captures": [{"device": frame["device"], "frame": frame["index"],
                      "path": os.path.abspath(info["path"]), "timestamp": info["timestamp"],
                      "requested_by": "renderdoc", "frame_data": data,
                      "diagnostics": diagnostics_of(report, frame)}]}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=1)
    os.replace(tmp, path)
    print("report_add_renderdoc: %s: frame %d is %s" % (path, frame["index"], info["path"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
