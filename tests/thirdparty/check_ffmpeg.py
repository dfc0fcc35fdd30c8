#!/usr/bin/env python3
"""check_ffmpeg.py PLAIN_DIR PROFILED_DIR VIDEO_FRAMES COPY_BYTES FINDINGS: ffmpeg's Vulkan filters (a headless
compute and transfer program: no window, no present, no render pass) through passprobe.

PLAIN_DIR and PROFILED_DIR are run_program.sh work directories of the same ffmpeg command
(`-f md5 -`), without and with passprobe. Checks:
- the output is the same: the MD5 of every decoded frame ffmpeg wrote (passprobe changed
  nothing the program computed);
- passes.csv: at least VIDEO_FRAMES compute passes with dispatches and workgroups (the blur
  and the scale of each video frame) and at least VIDEO_FRAMES transfer passes with copies
  (uploads and downloads), at least 90% of each kind with a GPU time; every transfer pass
  moves one of COPY_BYTES (comma-separated: a whole frame's planes up or down, counted from
  the images' formats);
- report.json's summary: the pass shares add up to 1 and the compute passes, which take
  nearly all the GPU time, have nearly all the share (a share counted by frames would give
  each kind about half: the program's frames are its fenced submits, each with one kind);
- report.json's diagnostics are exactly FINDINGS (tests/thirdparty/findings.py: SPEC|...|SPEC,
  each ID:SEVERITY[@TEXT], or none).
docs/testing-integration.md, *Real programs*."""
import csv
import json
import os
import re
import sys

import findings


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def md5_of(work):
    path = os.path.join(work, "app.log")
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    m = re.findall(r"^MD5=([0-9a-f]{32})$", text, re.M)
    if len(m) != 1:
        fail(f"{path}: expected one MD5= line from ffmpeg, found {len(m)}")
    return m[0]


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        sys.exit(2)
    plain, profiled, video_frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
    copy_bytes = {int(x) for x in sys.argv[4].split(",")}
    a, b = md5_of(plain), md5_of(profiled)
    if a != b:
        fail(f"ffmpeg's output differs with passprobe: MD5 {b}, without it {a}")
    out = os.path.join(profiled, "out")
    rows = list(csv.DictReader(open(os.path.join(out, "passes.csv"), newline="")))
    for kind, need in (("compute", ("dispatches", "workgroups")), ("transfer", ("copies",))):
        mine = [r for r in rows if r["kind"] == kind]
        if len(mine) < video_frames:
            fail(f"{len(mine)} {kind} passes in passes.csv, expected at least {video_frames}")
        for r in mine:
            for col in need:
                if int(r[col]) < 1:
                    fail(f"frame {r['frame']}: {kind} pass {r['name']} has {col} {r[col]}")
        if kind == "transfer":
            for r in mine:
                if int(r["copy_bytes"]) not in copy_bytes:
                    fail(f"frame {r['frame']}: transfer pass moves {r['copy_bytes']} bytes, expected one of "
                         f"{sorted(copy_bytes)}")
        timed = sum(1 for r in mine if r["gpu_ns"] != "")
        if timed < 0.9 * len(mine):
            fail(f"{timed} of {len(mine)} {kind} passes have a GPU time, expected at least 90%")
    report = json.load(open(os.path.join(out, "report.json")))
    for e in findings.check(report.get("diagnostics", []), sys.argv[5]):
        fail(e)
    summary = report["summary"]
    shares = {}
    for p in summary["passes"]:
        if p["share_of_frame"] is not None:
            shares[p["kind"]] = shares.get(p["kind"], 0.0) + p["share_of_frame"]
    total = sum(shares.values())
    if abs(total - 1.0) > 1e-6:
        fail(f"the summary's shares add up to {total}, not 1: {shares}")
    if shares.get("compute", 0.0) < 0.9:
        fail(f"compute passes have {shares.get('compute', 0.0):.3f} of the GPU time in the summary, expected "
             f"nearly all: {shares}")
    print(f"ffmpeg: same output with passprobe (MD5 {a}); {len(rows)} passes; shares {shares}")


main()
