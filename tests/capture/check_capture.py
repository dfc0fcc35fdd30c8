#!/usr/bin/env python3
"""Checks passprobe's outputs for capture windows, sampled GPU timing and bounded outputs
(docs/testing.md, "Capture windows"). Every option adds one assertion; exits 1 on the first
list of failures, printing all of them.

  check_capture.py OUTDIR [--frames 3,4,5,8 | --run N --by signal] [--timed 3,5]
      [--passes P --draws D] [--summary-timed N] [--spy-below FILE --queries N]
      [--windows N] [--limit-reached recording,trace,csv] [--max-bytes N] [--frames-within-mib M]
      [--log FILE]... [--log-has TEXT]...
"""
import argparse
import csv
import json
import os
import struct
import sys

QUERY_COMMANDS = ("vkCmdWriteTimestamp", "vkCmdWriteTimestamp2", "vkCmdBeginQuery",
                  "vkCmdResetQueryPool", "vkCmdCopyQueryPoolResults")

failures = []


def fail(msg):
    failures.append(msg)


def recording_frames_end(path):
    """The offset where recording.ppr's last `frame` record ends, and the longest frame record
    (header included): the layout of docs/report-format.md, "The recording"."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"PPRECORD":
        fail(f"{path}: not a recording")
        return 0, 0
    (types_len,) = struct.unpack_from("<I", data, 12)
    at, end, longest = 16 + types_len, 0, 0
    while at + 8 <= len(data):
        rtype, _, length = struct.unpack_from("<HHI", data, at)
        if rtype == 6:  # frame
            end, longest = at + 8 + length, max(longest, 8 + length)
        at += 8 + length
    return end, longest


def ints(text):
    return [int(x) for x in text.split(",") if x != ""] if text else []


def spy_exit_counts(path):
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("event") == "exit" or rec.get("kind") == "exit" or rec.get("type") == "exit":
                return rec.get("counts", rec)
    raise SystemExit(f"{path}: no exit line")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames")
    ap.add_argument("--no-frames", action="store_true", help="no frame captured at all")
    ap.add_argument("--run", type=int, help="exactly N consecutive frames")
    ap.add_argument("--by")
    ap.add_argument("--timed")
    ap.add_argument("--every-timed", action="store_true")
    ap.add_argument("--passes", type=int)
    ap.add_argument("--draws", type=int)
    ap.add_argument("--summary-timed", type=int)
    ap.add_argument("--spy-below")
    ap.add_argument("--queries", type=int)
    ap.add_argument("--queries-per-frame-of", help="another run's spy output with one captured frame")
    ap.add_argument("--log", action="append", default=[], help="a log: the application's, passprobe report's")
    ap.add_argument("--log-has", action="append", default=[])
    ap.add_argument("--gone", help="a file that must not exist (a consumed trigger file)")
    ap.add_argument("--diag-before", nargs=2, metavar=("ID", "FRAME"),
                    help="diagnostic ID was first found before frame FRAME (outside the window)")
    ap.add_argument("--windows", type=int)
    ap.add_argument("--limit-reached", default=None)
    ap.add_argument("--max-bytes", type=int)
    ap.add_argument("--frames-within-mib", type=int, metavar="M",
                    help="recording.ppr's frames end within one frame record of M MiB (output_limit_mb)")
    o = ap.parse_args()

    with open(os.path.join(o.out, "report.json")) as f:
        report = json.load(f)
    frames = report["frames"]
    idx = [fr["index"] for fr in frames]
    limited = set((o.limit_reached or "").split(",")) - {""}

    if o.no_frames:
        o.frames = ""
    if o.frames is not None and idx != ints(o.frames):
        fail(f"report.json frames {idx}, expected {ints(o.frames)}")
    if o.run is not None:
        if len(idx) != o.run or idx != list(range(idx[0] if idx else 0, (idx[0] if idx else 0) + o.run)):
            fail(f"report.json frames {idx}: expected one run of {o.run} consecutive frames")
        if idx and idx[0] == 0:
            fail("the window started at frame 0: the trigger came before any frame (expected later)")
    if o.by is not None:
        for fr in frames:
            if fr.get("captured_by") != o.by:
                fail(f"frame {fr['index']}: captured_by {fr.get('captured_by')!r}, expected {o.by!r}")

    timed = ints(o.timed) if o.timed is not None else (idx if o.every_timed else None)
    for fr in frames:
        passes = fr["passes"]
        if o.passes is not None and len(passes) != o.passes:
            fail(f"frame {fr['index']}: {len(passes)} passes, expected {o.passes}")
        for p in passes:
            # Every captured frame has workload and CPU data, timed or not.
            if o.draws is not None and p["draws"] != o.draws:
                fail(f"frame {fr['index']} pass {p['name']}: {p['draws']} draws, expected {o.draws}")
            if p.get("cpu") is None:
                fail(f"frame {fr['index']} pass {p['name']}: no CPU recording cost")
        if timed is None:
            continue
        want = fr["index"] in timed
        if fr.get("gpu_timed") != want:
            fail(f"frame {fr['index']}: gpu_timed {fr.get('gpu_timed')}, expected {want}")
        for p in passes:
            has = p.get("gpu_ns") is not None
            if has != want:
                fail(f"frame {fr['index']} pass {p['name']}: GPU time {'present' if has else 'missing'}"
                     f" ({p.get('gpu_unavailable')}), expected {'a GPU time' if want else 'none'}")
            if not want and "gpu_timing_interval" not in (p.get("gpu_unavailable") or ""):
                fail(f"frame {fr['index']} pass {p['name']}: gpu_unavailable {p.get('gpu_unavailable')!r} "
                     "does not name gpu_timing_interval")

    summary = report["summary"]
    if o.summary_timed is not None:
        got = summary.get("frames_gpu_timed", summary["frames"])
        if got != o.summary_timed:
            fail(f"summary.frames_gpu_timed {got}, expected {o.summary_timed}")
        if summary["frames"] != len(idx) and not limited & {"csv", "recording"}:
            fail(f"summary.frames {summary['frames']}, report frames {len(idx)}")

    cap = report.get("capture")
    if cap is None:
        fail("report.json has no capture object")
    elif o.windows is not None and cap["windows_total"] != o.windows:
        fail(f"capture.windows_total {cap['windows_total']}, expected {o.windows}")

    # passes.csv: complete rows, the same frames (unless its limit stopped it).
    with open(os.path.join(o.out, "passes.csv"), newline="") as f:
        data = f.read()
    if not data.endswith("\n"):
        fail("passes.csv does not end with a complete row")
    rows = list(csv.reader(data.splitlines()))
    header, body = rows[0], rows[1:]
    for r in body:
        if len(r) != len(header):
            fail(f"passes.csv row with {len(r)} fields, header has {len(header)}")
            break
    csv_frames = sorted({int(r[0]) for r in body})
    if "csv" in limited:
        pass
    elif "recording" in limited:
        # The frames the recording holds, the first ones; report.json has the process's last
        # ones (written past the limit at exit).
        recorded = (report.get("output_limit", {}).get("recording") or {}).get("frames")
        if not csv_frames or csv_frames != list(range(csv_frames[0], csv_frames[0] + len(csv_frames))) \
                or len(csv_frames) != recorded:
            fail(f"passes.csv frames {csv_frames[:3]}..{csv_frames[-3:]}: expected the {recorded} recorded frames")
        if not idx or idx[-1] != report["frames_total"] - 1:
            fail(f"report.json frames end at {idx[-1:]}, expected the process's last ({report['frames_total'] - 1})")
    elif csv_frames != sorted(idx):
        fail(f"passes.csv frames {csv_frames}, report.json {sorted(idx)}")

    # trace.json: strict JSON after a clean exit; window marks.
    with open(os.path.join(o.out, "trace.json")) as f:
        trace = json.load(f)
    marks = [e for e in trace if e.get("cat") == "capture" and e.get("name") == "capture window begins"]
    if o.windows is not None and "trace" not in limited and len(marks) != o.windows:
        fail(f"trace.json: {len(marks)} 'capture window begins' events, expected {o.windows}")
    end = [e for e in trace if e.get("name") == "passprobe_trace_end"]
    if not end:
        fail("trace.json has no passprobe_trace_end event")

    lim = report.get("output_limit", {})
    for key, name in (("recording", "recording.ppr"), ("trace", "trace.json"), ("csv", "passes.csv")):
        entry = lim.get(key) or {}
        want = key in limited
        if bool(entry.get("limit_reached")) != want:
            fail(f"output_limit.{key}.limit_reached {entry.get('limit_reached')}, expected {want}")
        # The recording's frames up to the limit (report.json's last frames follow at exit).
        size = entry.get("bytes", 0) if key == "recording" else os.path.getsize(os.path.join(o.out, name))
        if o.max_bytes is not None and size > o.max_bytes:
            fail(f"{name}: {size} bytes, more than {o.max_bytes}")
        if want:
            if entry.get("frames_left_out", 0) < 1 or entry.get("first_frame_left_out") is None:
                fail(f"output_limit.{key}: {entry}: expected frames left out")
            if name == "trace.json" and not (end and end[0]["args"].get("output_limit_reached")):
                fail("trace.json's end event does not say the limit was reached")
    if o.frames_within_mib is not None:
        end, longest = recording_frames_end(os.path.join(o.out, "recording.ppr"))
        if end > (o.frames_within_mib << 20) + longest:
            fail(f"recording.ppr: its frames end at byte {end}, more than a frame ({longest} bytes) "
                 f"past {o.frames_within_mib} MiB")
    if limited and "output_limit_mb" not in summary.get("notes", ""):
        fail(f"summary.notes {summary.get('notes')!r} does not mention output_limit_mb")

    if o.spy_below:
        counts = spy_exit_counts(o.spy_below)
        n = sum(int(counts.get(k, 0)) for k in QUERY_COMMANDS)
        want = o.queries
        if o.queries_per_frame_of:
            other = spy_exit_counts(o.queries_per_frame_of)
            per = sum(int(other.get(k, 0)) for k in QUERY_COMMANDS)
            if per == 0:
                fail(f"{o.queries_per_frame_of}: no query command in a captured frame")
            want = per * (len(timed) if timed is not None else len(idx))
        if want is not None and n != want:
            fail(f"{o.spy_below}: {n} query commands below passprobe "
                 f"({', '.join(f'{k}={counts.get(k, 0)}' for k in QUERY_COMMANDS)}), expected {want}")

    if o.diag_before:
        did, before = o.diag_before[0], int(o.diag_before[1])
        hits = [d for d in report.get("diagnostics", []) if d.get("id") == did]
        if not hits:
            fail(f"no diagnostic {did} in report.json (ids: {[d.get('id') for d in report.get('diagnostics', [])]})")
        elif not any(d.get("first_frame", before) < before for d in hits):
            fail(f"{did}: first_frame {[d.get('first_frame') for d in hits]}, expected one before frame {before}")

    if o.log:
        log = ""
        for name in o.log:
            with open(name, errors="replace") as f:
                log += f.read()
        for text in o.log_has:
            if text not in log:
                fail(f"{', '.join(o.log)}: no line with {text!r}")
    if o.gone and os.path.exists(o.gone):
        fail(f"{o.gone} still exists: the trigger file was not consumed")

    if failures:
        for m in failures:
            print("check_capture: " + m, file=sys.stderr)
        return 1
    print(f"check_capture: ok ({len(idx)} frames: {idx[:12]}{'...' if len(idx) > 12 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
