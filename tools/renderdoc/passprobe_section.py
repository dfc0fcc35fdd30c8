"""What `passprobe renderdoc annotate` writes into a RenderDoc capture, and how it reads back.

Shared by the command line (passprobe_renderdoc.py) and the qrenderdoc extension (installed
next to it by `passprobe renderdoc install`), so both read one format. No RenderDoc import
here: the caller hands the section's bytes in. docs/frame-debuggers.md describes the format.
"""
import json
import math

# The capture section passprobe writes: RenderDoc's SectionType.Unknown with this name.
SECTION_NAME = "passprobe/frame"
SECTION_VERSION = 1
SCHEMA = "passprobe-renderdoc-frame"
# Lines around passprobe's part of the capture's comments (qrenderdoc's Notes, key
# "comments"), so annotating again replaces it and keeps what anybody else wrote.
COMMENTS_KEY = "comments"
COMMENTS_BEGIN = "----- passprobe -----"
COMMENTS_END = "----- end of passprobe -----"


def format_ns(ns):
    """Three significant digits and a unit, as passprobe's summary table prints them
    (pp_summary_format_ns): 2.09 ms, 98.1 µs, 1.10 s; n/a for an unmeasured value."""
    if ns is None or isinstance(ns, bool) or not math.isfinite(float(ns)):
        return "n/a"
    ns = float(ns)
    if ns == 0:
        return "0 ns"
    units = ((1.0, "ns"), (1e3, "\u00b5s"), (1e6, "ms"), (1e9, "s"))
    a, u = abs(ns), 0
    while u + 1 < len(units) and a / units[u][0] >= 999.5:
        u += 1
    x = a / units[u][0]
    digits = 0 if x >= 99.95 else 1 if x >= 9.995 else 2
    return "%s%.*f %s" % ("-" if ns < 0 else "", digits, x, units[u][1])


def format_share(share):
    return "n/a" if share is None else "%.1f%%" % (100.0 * share)


def bookmark_text(p):
    """A pass's bookmark: its name, GPU time in this frame, p50/p95 over the run, share."""
    return "%s: %s GPU (run p50 %s, p95 %s), %s of frame" % (
        p["name"], format_ns(p.get("gpu_ns")), format_ns(p.get("p50_ns")),
        format_ns(p.get("p95_ns")), format_share(p.get("share")))


def section_parse(data):
    """The section's JSON from its bytes; ValueError naming what is wrong."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data).decode("utf-8")
    doc = json.loads(data)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError("section %s is not passprobe's (schema %r)" % (SECTION_NAME, doc.get("schema")
                                                                       if isinstance(doc, dict) else None))
    if not isinstance(doc.get("version"), int) or doc["version"] > SECTION_VERSION:
        raise ValueError("section %s has version %r; this passprobe reads up to %d" %
                         (SECTION_NAME, doc.get("version"), SECTION_VERSION))
    return doc


# The pipeline statistics a table has room for: primitives in, vertex, fragment and compute
# shader invocations (the section keeps all seven).
STAT_SHORT = (("input_assembly_primitives", "prims"), ("vertex_shader_invocations", "VS"),
              ("fragment_shader_invocations", "FS"), ("compute_shader_invocations", "CS"))


def format_statistics(stats):
    if not stats:
        return "n/a"
    parts = ["%s %d" % (short, stats[k]) for k, short in STAT_SHORT
             if isinstance(stats.get(k), int) and stats[k]]
    return ", ".join(parts) if parts else "0"


TABLE_COLUMNS = ("EID", "pass", "kind", "GPU (frame)", "p50 (run)", "p95 (run)", "share",
                 "draws", "CPU record", "pipeline statistics")


def table_rows(doc):
    """One row of strings per application pass, in frame order (TABLE_COLUMNS)."""
    rows = []
    for p in doc.get("passes", []):
        rows.append((str(p["eid"]), p["name"], p.get("kind", ""), format_ns(p.get("gpu_ns")),
                     format_ns(p.get("p50_ns")), format_ns(p.get("p95_ns")),
                     format_share(p.get("share")), str(p.get("draws", "")),
                     format_ns(p.get("cpu_record_ns")),
                     format_statistics(p.get("pipeline_statistics"))))
    return rows


def diagnostic_lines(d, width=110):
    """diagnostic_line(d) cut into lines of at most width characters (a label cannot wrap)."""
    import textwrap
    return textwrap.wrap(diagnostic_line(d), width, subsequent_indent="    ")


def diagnostic_line(d):
    where = "EID %d" % d["eid"] if d.get("eid") else "not in the capture (%s)" % d.get("unlocated", "?")
    text = "%s: %s %s (%s): %s" % (where, d.get("id", "?"), d.get("call", ""), d.get("severity", ""),
                                   d.get("message", ""))
    if d.get("suggestion"):
        text += " Suggestion: " + d["suggestion"]
    return text
