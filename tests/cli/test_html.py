#!/usr/bin/env python3
"""The HTML report in a real headless browser (Debian's chromium): the page of a real demo
run (report.html written by `passprobe run`) and of a constructed report with hostile pass
names and unavailable values (`passprobe report --html`) load without console messages, draw
completely, and show the numbers of their report.json: each table cell's raw value (data-v)
equals the report's, its text is that value formatted as the page says, unavailable values
read "unavailable", never 0; the stacked chart's bands add up to each frame's GPU time; the
time line shows the median frame's passes. Leaves a screenshot of the demo's page for a
person to look at and prints its path. Exit 77 (skipped) without chromium.
usage: test_html.py PASSPROBE DEMO SCRATCH_DIR SCREENSHOT_PNG"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

PP, DEMO, T, SHOT = sys.argv[1:5]
browser = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    print("SKIP: chromium is not installed (Debian: apt-get install chromium; tools/bootstrap.sh "
          "installs it); the HTML report is not checked in a browser")
    sys.exit(77)
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
env = {k: v for k, v in os.environ.items() if not k.startswith("VK_PASSPROBE_PROFILER_")}
env.pop("VK_INSTANCE_LAYERS", None)
if not env.get("XDG_RUNTIME_DIR"):
    env["XDG_RUNTIME_DIR"] = os.path.join(T, "xdg")
os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
failures = []
checks = 0


def check(what, cond, detail=""):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}" + (f"\n  {str(detail)[:3000]}" if detail else ""), file=sys.stderr)


# ---- the browser -----------------------------------------------------------------------------
def chromium(*args):
    """Runs headless chromium with a fresh profile; returns (stdout, console lines)."""
    with tempfile.TemporaryDirectory(dir=T) as profile:
        cmd = [browser, "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
               "--no-first-run", "--enable-logging=stderr", "--v=0", *args]
        if os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    # Every console message, the page's uncaught errors and CSP refusals included, is logged
    # as INFO:CONSOLE; the page itself logs nothing.
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    return p.stdout, console, p


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def find(self, tag=None, **attrs):
        return [n for n in self.walk() if (tag is None or n.tag == tag)
                and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    def by_id(self, ident):
        found = [n for n in self.walk() if n.attrs.get("id") == ident]
        return found[0] if found else None


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def dom_of(html_path):
    out, console, p = chromium("--dump-dom", "file://" + os.path.abspath(html_path.split("#")[0])
                               + ("#" + html_path.split("#", 1)[1] if "#" in html_path else ""))
    check(f"{html_path}: chromium ran", p.returncode == 0 and out, p.stderr[-2000:])
    check(f"{html_path}: no console messages (errors, CSP refusals)", not console, console)
    t = Tree()
    t.feed(out)
    return t.root


# ---- the page's formats, as report.js defines them --------------------------------------------
def to_fixed(x, digits):
    # JavaScript's toFixed: the nearest, ties away from zero, on the double's exact value.
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def fmt_ns(ns):
    if ns is None:
        return "unavailable"
    if ns == 0:
        return "0 ns"
    units = [(1, "ns"), (1e3, "\u00b5s"), (1e6, "ms"), (1e9, "s")]
    a, u = abs(ns), 0
    while u + 1 < len(units) and a / units[u][0] >= 999.5:
        u += 1
    x = a / units[u][0]
    d = 0 if x >= 99.95 else 1 if x >= 9.995 else 2
    return ("-" if ns < 0 else "") + to_fixed(x, d) + " " + units[u][1]


def fmt_share(v):
    return "unavailable" if v is None else to_fixed(v * 100, 1) + "%"


def same_number(raw, value):
    if value is None:
        return raw == ""
    try:
        return float(raw) == float(value)
    except ValueError:
        return False


# ---- what one page must show ------------------------------------------------------------------
def check_page(label, html_path, report):
    root = dom_of(html_path)
    body = root.find("body")
    check(f"{label}: drawn completely", body and body[0].attrs.get("data-pp-rendered") == "ok",
          body[0].attrs if body else "no body")
    check(f"{label}: nothing fetched: no src or href to elsewhere",
          not [n for n in root.walk() if any(k in ("src", "href") for k in n.attrs)])
    check(f"{label}: two script elements (data and renderer)", len(root.find("script")) == 2)
    name = report["process"]["name"]
    title = root.find("title")
    check(f"{label}: title", title and title[0].text() == "passprobe: " + name, title and title[0].text())

    # Summary table: one row per summary pass, in the report's order.
    table = root.by_id("pp-summary-table")
    rows = [r for r in table.find("tr") if r.find("td")] if table else []
    passes = report["summary"]["passes"]
    check(f"{label}: summary rows", len(rows) == len(passes), (len(rows), len(passes)))
    for r, p in zip(rows, passes):
        cells = r.find("td")
        want = [p["name"], p["kind"], p["per_frame"], p["count"], p["measured"],
                (p.get("gpu_ns") or {}).get("mean"), (p.get("gpu_ns") or {}).get("p50"),
                (p.get("gpu_ns") or {}).get("p95"), (p.get("gpu_ns") or {}).get("max"),
                p.get("share_of_frame"), (p.get("cpu_record_ns") or {}).get("mean")]
        check(f"{label}: summary row {p['name']!r}: name and kind are text",
              cells[0].text() == p["name"] and cells[0].attrs["data-v"] == p["name"]
              and not cells[0].find("b") and cells[1].text() == p["kind"], cells[0].text())
        for i in range(2, 11):
            check(f"{label}: summary {p['name']!r} column {i}: raw value", same_number(cells[i].attrs["data-v"], want[i]),
                  (cells[i].attrs["data-v"], want[i]))
        for i in (5, 6, 7, 8, 10):
            check(f"{label}: summary {p['name']!r} column {i}: shown as {fmt_ns(want[i])!r}",
                  cells[i].text() == fmt_ns(want[i]), cells[i].text())
        check(f"{label}: summary {p['name']!r}: share", cells[9].text() == fmt_share(want[9]), cells[9].text())
    fl = root.by_id("pp-frame-line")
    fg = report["summary"].get("frame_gpu_ns") or {}
    check(f"{label}: frame line", fl is not None and all(same_number(fl.attrs["data-" + k], fg.get(k)) for k in ("mean", "p50", "p95"))
          and ("p50 " + fmt_ns(fg.get("p50"))) in fl.text(), fl.text() if fl else None)

    # Stacked chart: one column per frame, its bands summing to the frame's GPU time.
    frames = report["frames"]
    cols = root.find("g", **{"class": "col"})
    check(f"{label}: one chart column per frame", len(cols) == len(frames), (len(cols), len(frames)))
    for g, f in zip(cols, frames):
        bands = [n for n in g.find("rect") if "data-ns" in n.attrs]
        total = sum(float(n.attrs["data-ns"]) for n in bands)
        if f["gpu_ns"] is None:
            check(f"{label}: frame {f['index']} without GPU time is marked, not drawn as 0",
                  g.find("rect", **{"class": "unmeasured"}) and not bands)
        else:
            check(f"{label}: frame {f['index']}: bands add up to its gpu_ns", total == f["gpu_ns"],
                  (total, f["gpu_ns"]))

    # Time line: the median frame by GPU time, every measured pass of it.
    # Frames passprobe's experiment rewrote measure a fix, not the program: never the median.
    measured = sorted((f["gpu_ns"], i) for i, f in enumerate(frames)
                      if f["gpu_ns"] is not None and not f.get("experiment_modified"))
    med = frames[measured[(len(measured) - 1) // 2][1]]
    info = root.by_id("pp-timeline-info")
    check(f"{label}: the time line shows the median frame", info is not None and info.attrs["data-frame"] == str(med["index"]),
          info.attrs if info else None)
    spans = root.by_id("pp-timeline-svg").find("g", **{"class": "span pass"}) if root.by_id("pp-timeline-svg") else []
    want = sorted(p["gpu_ns"] for p in med["passes"] if p["gpu_ns"] is not None)
    check(f"{label}: the time line's passes", sorted(float(s.attrs["data-ns"]) for s in spans) == want,
          ([s.attrs.get("data-ns") for s in spans], want))
    picker = root.by_id("pp-frame-select")
    check(f"{label}: a frame picker with every frame", picker is not None and len(picker.find("option")) == len(frames))

    # Diagnostics: every site with its severity, what fixing it gains, its cost or
    # "unavailable"; warnings first, the costliest per frame first (unmeasured after measured).
    dt = root.by_id("pp-diag-table")
    drows = [r for r in dt.find("tr") if len(r.find("td")) > 1] if dt else []
    diags = report["diagnostics"]
    check(f"{label}: one diagnostics row per site", len(drows) == len(diags), (len(drows), len(diags)))
    by_site = {(d["id"], d.get("site", "")): d for d in diags}
    shown = []
    for r in drows:
        cells = r.find("td")
        d = by_site.get((cells[0].text(), cells[2].text()))
        check(f"{label}: diagnostic row {cells[0].text()!r} is a site of the report", d is not None)
        if d is None:
            continue
        severity = d.get("severity", "warning")
        shown.append(d)
        check(f"{label}: diagnostic {d['id']}: severity", cells[1].attrs["data-v"] == severity
              and cells[1].text() == ("information" if severity == "info" else "warning"), cells[1].text())
        check(f"{label}: diagnostic {d['id']}: suggestion and verdict", (d.get("suggestion") or "") in cells[3].text()
              and (d.get("verdict") or "") in cells[3].text())
        cost = d.get("cost_ns")
        check(f"{label}: diagnostic {d['id']}: cost", same_number(cells[6].attrs["data-v"], cost)
              and cells[6].text().startswith(fmt_ns(cost)), (cells[6].attrs, cells[6].text()))
        if cost is None and d.get("cost_unavailable"):
            check(f"{label}: diagnostic {d['id']}: why the cost is unavailable", d["cost_unavailable"] in cells[6].text())
    order = [(d.get("severity") == "info", d.get("cost_ns") is None, -(d.get("cost_ns") or 0)) for d in shown]
    check(f"{label}: diagnostics ordered warnings first, costliest first", order == sorted(order), order)
    # The experiment's column, where a site was in one: its verdict and measured savings.
    heads = [h.text() for h in dt.find("th")] if dt else []
    with_exp = [d for d in diags if d.get("experiment")]
    check(f"{label}: an experiment column exactly when a site was in the experiment",
          ("experiment" in heads) == bool(with_exp), heads)
    if with_exp and "experiment" in heads:
        col = heads.index("experiment")
        for r in drows:
            cells = r.find("td")
            d = by_site.get((cells[0].text(), cells[2].text()))
            e = (d or {}).get("experiment")
            if not e:
                continue
            text = cells[col].text()
            check(f"{label}: diagnostic {d['id']}: the experiment's verdict and fix",
                  e["verdict"] in text and ("Fix: " + e["fix"]) in text, text)
            for m, title in (("frame_gpu_ns", "frame GPU"), ("passes_gpu_ns", "passes after it"),
                             ("cpu_record_ns", "CPU recording")):
                c = (e.get("saving") or {}).get(m) or {}
                if c.get("saving_ns") is None:
                    continue
                want = (f"{title}: {'saved ' if c['saving_ns'] >= 0 else 'grew by '}{fmt_ns(abs(c['saving_ns']))}"
                        f" (noise {fmt_ns(c['noise_ns'])}), {c['verdict']}")
                check(f"{label}: diagnostic {d['id']}: experiment {m}", want in text, (want, text))
    counts = root.by_id("pp-diag-counts")
    nwarn = sum(d.get("severity", "warning") == "warning" for d in diags)
    check(f"{label}: diagnostics counted by severity", counts is not None
          and counts.attrs["data-warnings"] == str(nwarn) and counts.attrs["data-info"] == str(len(diags) - nwarn),
          counts.attrs if counts else None)

    # CPU counters: the mean thread CPU time of recording each pass over the kept frames.
    ct = root.by_id("pp-cpu-table")
    heads = [h.text() for h in ct.find("th")] if ct else []
    col = heads.index("thread_cpu_ns") if "thread_cpu_ns" in heads else -1
    check(f"{label}: CPU table has thread_cpu_ns", col >= 0, heads)
    sums = {}
    for f in frames:
        if f.get("experiment_modified"):
            continue
        for p in f["passes"]:
            s = sums.setdefault((p["name"], p["kind"]), [0, 0])
            if p.get("cpu") and p["cpu"].get("thread_cpu_ns") is not None:
                s[0] += p["cpu"]["thread_cpu_ns"]
                s[1] += 1
    for r in ([r for r in ct.find("tr") if r.find("td")] if ct and col >= 0 else []):
        cells = r.find("td")
        s = sums.get((cells[0].text(), cells[1].text()))
        mean = s[0] / s[1] if s and s[1] else None
        check(f"{label}: CPU {cells[0].text()!r}: mean thread_cpu_ns", same_number(cells[col].attrs["data-v"], mean)
              and cells[col].text() == fmt_ns(mean), (cells[col].attrs, cells[col].text(), mean))
    na = [c for c in (ct.find("td") if ct else []) if "na" in c.attrs.get("class", "").split()]
    check(f"{label}: unavailable cells read 'unavailable'", all(c.text() == "unavailable" for c in na))
    return root


# ---- a real run -------------------------------------------------------------------------------
out = os.path.join(T, "demo")
p = subprocess.run([PP, "run", "-o", out, "--", DEMO, "--frames", "10", "--misuse-barriers",
                    "--misuse-wait-idle"], capture_output=True, text=True, env=env, timeout=300)
if p.returncode != 0:
    print(f"passprobe run failed ({p.returncode}):\n{p.stdout}\n{p.stderr}", file=sys.stderr)
    sys.exit(1)
with open(os.path.join(out, "report.json")) as f:
    demo_report = json.load(f)
check("demo: the run had diagnostics to show", len(demo_report["diagnostics"]) >= 2)
root = check_page("demo", os.path.join(out, "report.html"), demo_report)
st = root.by_id("pp-settings")
check("demo: settings in the header", st is not None and "report_frames" in st.text())

# A view picked in the address: another frame, zoomed to its GPU work (the submission then
# spans the whole plot: x from 190 to 990 in the SVG's coordinates).
pick = demo_report["frames"][1]
root = dom_of(os.path.join(out, "report.html") + f"#frame={pick['index']}&zoom=gpu")
info = root.by_id("pp-timeline-info")
check("address #frame= picks the frame", info is not None and info.attrs["data-frame"] == str(pick["index"]))
tl = root.by_id("pp-timeline-svg")
sub = tl.find("g", **{"class": "span submission"}) if tl else []
rect = sub[0].find("rect")[0] if sub else None
check("address zoom=gpu: the GPU work fills the plot", tl is not None and tl.attrs.get("data-zoom") == "gpu"
      and rect is not None and abs(float(rect.attrs["x"]) - 190) < 0.01
      and abs(float(rect.attrs["width"]) - 800) < 0.01, rect.attrs if rect else None)

# ---- hostile names and unavailable values -------------------------------------------------------
evil = "</script><script>document.title='pwned'</script>"
bold = '<b>bold</b> & "quoted" <!-- x'
uni = "\u00fcn\u00efc\u00f8d\u00e9 \u2713"


def pass_(name, kind, gpu, t):
    cpu = None if gpu is None else {"begin_ns": t, "wall_ns": 2000, "thread_cpu_ns": 1500 + gpu % 7,
                                    "spans": 1, "tid": 7, "counters": {"cycles": None, "task-clock": 1500, "constructor": 5},
                                    "scaled": []}
    base = {"name": name, "kind": kind, "submission": 0, "command_buffer": 0, "cpu": cpu,
            "recording_reused": False}
    if gpu is None:
        base.update(gpu_begin_ns=None, gpu_end_ns=None, gpu_ns=None, gpu_unavailable="not measured",
                    gpu_exclusive_ns=None, overlapped=None)
    else:
        base.update(gpu_begin_ns=t, gpu_end_ns=t + gpu, gpu_ns=gpu, gpu_exclusive_ns=gpu, overlapped=False)
    return base


frames = []
t = 5_000_000_000
for i in range(6):
    ps = [pass_(evil, "render", 1_000_000 + 1000 * i, t), pass_(bold, "compute", 250_500 + i, t + 2_000_000),
          pass_(uni, "transfer", None, t)]
    if i == 3:  # a frame nothing of which was measured
        ps = [pass_(uni, "transfer", None, t)]
    gpu = sum(p["gpu_ns"] for p in ps if p["gpu_ns"] is not None) or None
    if i == 4:  # a frame passprobe's experiment rewrote
        frames.append({"experiment_arm": "fixed", "experiment_sites": [0], "experiment_modified": True})
    else:
        frames.append({})
    frames[-1].update({"index": 100 + i, "device": 0, "delimiter": "present", "cpu_begin_ns": t,
                   "cpu_end_ns": t + 3_000_000, "gpu_ns": gpu, "cpu": None, "blocked": None,
                   "submissions": [{"seq": i, "api": "vkQueueSubmit",
                                    "queue": {"handle": "0x1", "family": 0, "index": 0}, "tid": 7,
                                    "cpu_begin_ns": t + 10, "cpu_end_ns": t + 20, "cpu_ns": 10,
                                    "gpu_begin_ns": t, "gpu_end_ns": t + 2_300_000,
                                    "gpu_span_ns": 2_300_000, "first_pass": 0, "passes": len(ps),
                                    "command_buffers": 1}],
                   "passes": ps})
    t += 16_000_000
hostile = {"schema": "passprobe-report", "version": 1, "generator": "test", "clock": "CLOCK_MONOTONIC",
           "process": {"pid": 9, "name": "<img src=x onerror=alert(1)>"},
           "devices": [{"id": 0, "name": "GPU </script>", "driver": "1", "notes": None}],
           "frames_total": 6, "frames_dropped": 0, "cpu_events_dropped": 0,
           "frames_window": {"first": 100, "count": 6, "limit": 300}, "frames": frames,
           "capture": {"frames": "100-", "capture_signal": True, "trigger_file": None,
                       "windows": [{"device": 0, "first_frame": 100, "last_frame": 105, "frames": 6,
                                    "frames_gpu_timed": 5, "captured_by": "frames"}]},
           "summary": {"frames": 6, "frame_gpu_ns": {"mean": 1255502.5, "p50": 1253000, "p95": 1255000},
                       "device": "GPU </script>", "notes": "",
                       "passes": [
                           {"name": evil, "kind": "render", "count": 5, "measured": 5, "per_frame": 5 / 6,
                            "gpu_ns": {"mean": 1002400, "p50": 1002500.5, "p95": 1004000, "max": 1005000},
                            "share_of_frame": 0.8, "cpu_record_ns": {"mean": 1503.25}},
                           {"name": bold, "kind": "compute", "count": 5, "measured": 5, "per_frame": 5 / 6,
                            "gpu_ns": {"mean": 250502.4, "p50": 250500, "p95": 250504, "max": 250505},
                            "share_of_frame": 0.2, "cpu_record_ns": {"mean": None}},
                           {"name": uni, "kind": "transfer", "count": 6, "measured": 0, "per_frame": 1,
                            "gpu_ns": {"mean": None, "p50": None, "p95": None, "max": None},
                            "share_of_frame": None, "cpu_record_ns": None}]},
           "diagnostics": [{"id": "PASSPROBE-Barrier-<Evil>", "device": 0, "count": 3, "frames": 3,
                            "first_frame": 100, "last_frame": 102, "site": evil, "message": bold,
                            "suggestion": "<i>do</i> this", "cost_kind": "gpu_barrier_stall",
                            "cost_ns": None, "cost_unavailable": "barrier_cost is off",
                            "share_of_frame": None},
                           # information costs most but comes last; a measured warning comes first
                           {"id": "PASSPROBE-Blocking-FenceWaitSameFrame", "device": 0, "count": 6, "frames": 6,
                            "first_frame": 100, "last_frame": 105, "site": "vkWaitForFences on thread 9 \"worker\"",
                            "message": "m", "suggestion": "s", "severity": "info", "verdict": "little to gain: a worker",
                            "cost_kind": "cpu_blocked", "cost_ns": 900000, "cost_unavailable": None,
                            "share_of_frame": 0.7},
                           {"id": "PASSPROBE-Barrier-DstStageTooEarly", "device": 0, "count": 6, "frames": 6,
                            "first_frame": 100, "last_frame": 105, "site": "vkCmdPipelineBarrier", "message": "m",
                            "suggestion": "s", "severity": "warning", "verdict": "worth fixing: <b>overlap</b>",
                            "cost_kind": "gpu_barrier_stall", "cost_ns": 500, "cost_unavailable": None,
                            "share_of_frame": 0.0004,
                            "experiment": {"state": "in", "site": 0, "fix": "dstStageMask <ALL> -> COMPUTE_SHADER",
                                           "why": None, "rewritten": 4, "verdict": "no measurable effect on this device",
                                           "arms": {"as_written": {"frames": 4}, "fixed": {"frames": 1}},
                                           "frames_in_neither_arm": 0,
                                           "saving": {"frame_gpu_ns": {"saving_ns": 1500, "relative": 0.001,
                                                                       "noise_ns": 90000, "verdict": "within noise"},
                                                      "passes_gpu_ns": {"saving_ns": -250, "relative": -0.001,
                                                                        "noise_ns": 1200, "verdict": "within noise"},
                                                      "cpu_record_ns": {"saving_ns": None, "relative": None,
                                                                        "noise_ns": None, "verdict": "unavailable"}}}}]}
hdir = os.path.join(T, "hostile")
os.makedirs(hdir)
with open(os.path.join(hdir, "report.json"), "w") as f:
    json.dump(hostile, f)
hpage = os.path.join(T, "hostile.html")
p = subprocess.run([PP, "report", "--html", hpage, hdir], capture_output=True, text=True)
check("report --html exits 0 and says where", p.returncode == 0 and hpage in p.stderr, p.stderr)
root = check_page("hostile", hpage, hostile)
check("hostile: no element from the data", not root.find("img") and not root.find("i")
      and not [b for b in root.find("b")])
check("hostile: the name with </script> is one pass, as text",
      [n.text() for n in root.find("td") if n.text() == evil] != [])
cap = root.by_id("pp-capture")
check("hostile: a report's capture windows are shown", cap is not None and "first_frame: 100" in cap.text()
      and "captured_by: frames" in cap.text() and "trigger_file" in cap.text(), cap.text() if cap else None)
ct = root.by_id("pp-cpu-table")
heads = [h.text() for h in ct.find("th")] if ct else []
col = heads.index("constructor (mean)") if "constructor (mean)" in heads else -1
vals = [r.find("td")[col].attrs["data-v"] for r in ct.find("tr") if r.find("td")] if col >= 0 else []
check("hostile: a counter called 'constructor' is a counter", vals[:2] == ["5", "5"], (heads, vals))
with open(hpage, encoding="utf-8") as f:
    page = f.read()
check("hostile: the data block holds no '<'", "<" not in page.split('id="pp-data">', 1)[1].split("</script>", 1)[0])
p = subprocess.run([PP, "report", "--html", os.path.join(T, "no", "such", "dir.html"), hdir],
                   capture_output=True, text=True)
check("report --html into a missing directory: exit 1, named", p.returncode == 1 and "dir.html" in p.stderr, p.stderr)

# ---- many frames: the chart's columns are means of consecutive frames, at most 600
many = json.loads(json.dumps(hostile))
many["frames"] = []
for i in range(1300):
    g1, g2 = 1_000_000 + (i * 7919) % 100_000, 200_000 + (i * 104729) % 50_000
    many["frames"].append({"index": i, "device": 0, "delimiter": "present", "cpu_begin_ns": i * 10**7,
                           "cpu_end_ns": i * 10**7 + 5, "gpu_ns": g1 + g2, "submissions": [],
                           "passes": [pass_(evil, "render", g1, i * 10**7), pass_(bold, "compute", g2, i * 10**7)]})
many["frames_window"] = {"first": 0, "count": 1300, "limit": 100000}
mdir = os.path.join(T, "many")
os.makedirs(mdir)
with open(os.path.join(mdir, "report.json"), "w") as f:
    json.dump(many, f)
mpage = os.path.join(T, "many.html")
subprocess.run([PP, "report", "--html", mpage, mdir], capture_output=True)
root = dom_of(mpage)
cols = root.find("g", **{"class": "col"})
check("many frames: 1300 frames in 434 columns of 3", len(cols) == 434, len(cols))
ok = True
for k, g in enumerate(cols):
    group = many["frames"][3 * k:3 * k + 3]
    want = sum(f["gpu_ns"] for f in group) / len(group)
    ok &= abs(float(g.attrs["data-total"]) - want) <= 1e-6 * want and g.attrs["data-frame"] == str(group[0]["index"])
check("many frames: each column is its frames' mean GPU time", ok)

def probe_result(page):
    """Loads a probe page of ours (it holds a report page in a frame and writes what it finds as
    JSON into #result); returns (that JSON or None, console lines, the text seen)."""
    dumped, console, _ = chromium("--allow-file-access-from-files", "--dump-dom", "file://" + os.path.abspath(page))
    tree = Tree()
    tree.feed(dumped)
    res = tree.root.by_id("result")
    try:
        return (json.loads(res.text()) if res else None), console, (res.text() if res else dumped[-500:])
    except ValueError:
        return None, console, res.text()


# ---- sorting by a click: a page of ours holds the report in a frame, clicks the summary's
# column titles and writes down the order the rows are in after each click.
probe = os.path.join(T, "sort-probe.html")
with open(probe, "w") as f:
    f.write("""<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="r" src="hostile.html" onload="probe()"></iframe>
<script>
function probe() {
  var d = document.getElementById('r').contentDocument, out = [];
  var t = d.getElementById('pp-summary-table');
  function order(col) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[col].getAttribute('data-v'); });
  }
  var th = t.tHead.rows[0].cells;
  th[6].click(); out.push(order(6));   // p50: largest first
  th[6].click(); out.push(order(6));   // again: smallest first, unavailable still last
  th[0].click(); out.push(order(0));   // pass name: A to Z
  th[0].click(); out.push(order(0));   // and Z to A
  document.getElementById('result').textContent = JSON.stringify(out);
}
</script></body></html>""")
orders, console, seen = probe_result(probe)
check("sort: the probe ran", orders is not None and not console, (seen, console))
if orders:
    check("sort: a click sorts by p50, largest first, unavailable last", orders[0] == ["1002500.5", "250500", ""], orders[0])
    check("sort: a second click reverses, unavailable still last", orders[1] == ["250500", "1002500.5", ""], orders[1])
    check("sort: a text column sorts, and back", sorted(orders[2]) == sorted([evil, bold, uni])
          and orders[3] == orders[2][::-1], orders[2:])

# ---- devices alike: a GLES program's contexts (one device each) share one header table
alike = json.loads(json.dumps(hostile))
gles = {"driver": "OpenGL ES 3.2", "vendor_id": 0, "device_id": 0, "timestamp_period_ns": 1,
        "timestamp_valid_bits": 64, "time_domain": "calibrated", "pipeline_statistics": False,
        "query_results": "read", "notes": "GLES", "gpu_time_caveat": "per tile"}
alike["settings"] = demo_report["settings"]  # three pairs of columns wide, beside the capture group
alike["devices"] = [dict(gles, id=i, name=f"llvmpipe (GLES context {i})") for i in range(3)] + \
                   [dict(gles, id=3, name="llvmpipe (GLES context 3)", gpu_time_caveat=None)]
adir = os.path.join(T, "alike")
os.makedirs(adir)
with open(os.path.join(adir, "report.json"), "w") as f:
    json.dump(alike, f)
apage = os.path.join(T, "alike.html")
subprocess.run([PP, "report", "--html", apage, adir], capture_output=True)
root = dom_of(apage)


def kv(table):
    """A header table's rows as {th text: td text}."""
    return {r.find("th")[0].text(): r.find("td")[0].text() for r in table.find("tr")
            if r.find("th") and r.find("td")} if table else {}


d0, d3 = kv(root.by_id("pp-device-0")), kv(root.by_id("pp-device-3"))
check("devices alike: one table for devices 0-2, naming them",
      d0.get("devices alike", "").startswith("0-2 (3 devices") and root.by_id("pp-device-1") is None
      and root.by_id("pp-device-2") is None, d0)
check("devices alike: a device that differs keeps its own table, a null caveat reads 'none'",
      d3.get("name") == "llvmpipe (GLES context 3)" and "devices alike" not in d3
      and d3.get("gpu_time_caveat") == "none", d3)

# ---- layout: no header table is wider than its group (the settings' three pairs of columns
# once ran out of their 440-pixel group into the capture group beside it)
layout = os.path.join(T, "layout-probe.html")
with open(layout, "w") as f:
    f.write("""<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="r" src="alike.html" style="width:1200px;height:900px" onload="probe()"></iframe>
<script>
function probe() {
  var d = document.getElementById('r').contentDocument, out = [];
  var g = d.querySelectorAll('#pp-meta .group');
  for (var i = 0; i < g.length; i++) {
    var box = g[i].getBoundingClientRect(), cells = g[i].querySelectorAll('th, td'), right = box.left;
    for (var k = 0; k < cells.length; k++)
      right = Math.max(right, cells[k].getBoundingClientRect().right);
    if (right > box.right + 0.5)
      out.push(g[i].querySelector('h3').textContent + ': cells reach ' + (right - box.left) + ' px in a group of ' +
               box.width);
  }
  document.getElementById('result').textContent = JSON.stringify({groups: g.length, overlaps: out});
}
</script></body></html>""")
lay, console, seen = probe_result(layout)
check("layout: the probe ran", lay is not None and lay["groups"] >= 4 and not console, (seen, console))
if lay:
    check("layout: no header table is wider than its group", not lay["overlaps"], lay["overlaps"])

# ---- a screenshot for a person ----------------------------------------------------------------
os.makedirs(os.path.dirname(os.path.abspath(SHOT)), exist_ok=True)
if os.path.exists(SHOT):
    os.unlink(SHOT)
_, console, p = chromium("--hide-scrollbars", "--window-size=1300,2400", "--screenshot=" + os.path.abspath(SHOT),
                         "file://" + os.path.abspath(os.path.join(out, "report.html")))
with open(SHOT, "rb") if os.path.exists(SHOT) else open(os.devnull, "rb") as f:
    sig = f.read(8)
check("screenshot written (PNG)", sig == b"\x89PNG\r\n\x1a\n", p.stderr[-1000:])
print(f"screenshot of the demo's HTML report: {os.path.abspath(SHOT)}")

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
