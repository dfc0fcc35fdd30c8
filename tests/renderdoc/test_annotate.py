#!/usr/bin/env python3
"""test_annotate.py PASSPROBE RUN_OUT WORKDIR [--min-located N]

`passprobe renderdoc annotate` on the capture RUN_OUT/report.json's renderdoc section lists
(RUN_OUT/gles/report.json's for an OpenGL ES program; its `path` is the truth), then the annotated copy reopened here with python3-renderdoc, a
process of its own. Asserts:
  - the capture itself is unchanged; the copy has RenderDoc's Bookmarks and Notes sections
    and passprobe's section, in the formats qrenderdoc reads;
  - one bookmark per application pass of the frame (passes recorded by RenderDoc itself left
    out), in frame order, each on that pass's first action as this test finds it in the
    capture (Vulkan: the k-th vkCmdBeginRenderPass* for the k-th render pass, a dispatch for a
    compute pass; OpenGL ES: a clear, draw or dispatch call, the label's first one for the first
    pass named from that label; inside the debug label of the pass's name where passprobe named
    it from one), titled
    with the pass name, the GPU time report.json has for the pass in that frame and the run's
    p50 and p95 (within the rounding to three significant digits);
  - the comments hold the run's summary once, the section's passes and EIDs match the bookmarks,
    and each diagnostic the section places at an EID is at a call of the name it gives;
  - each barrier diagnostic report.json lists with the capture (passprobe's own, from the
    recording) is found here at its barrier, the call_index-th call of its name in the
    capture's command buffer that holds its command buffer's passes, and each diagnostic at a
    call outside command buffers (a wait, a read-back, an upload; every OpenGL ES call) at the
    call_index-th call of its name outside them; the section and the note in the capture's
    comments put it at that EID (at least N of them in all), or, where the capture has no such
    call, the section lists it as not in the capture;
  - annotating a moved run directory in place, twice: found by file name, still one bookmark
    per pass, a bookmark and comment somebody else wrote are kept, passprobe's block is there
    once.
Exit 77 when python3-renderdoc is missing.
"""
import hashlib
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "renderdoc"))
import passprobe_section as section  # noqa: E402
from rdoc_cli import passprobe_renderdoc  # noqa: E402

try:
    import renderdoc as rd
except ImportError:
    print("SKIP: not installed: RenderDoc's Python module for %s (Debian: python3-renderdoc)" % sys.executable)
    sys.exit(77)

failures = []
UNITS = {"ns": 1.0, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def parse_time(text, label):
    """The number of ns after `label` in a bookmark text ('... GPU', 'p50 ...')."""
    m = re.search(label, text)
    if not m:
        return None
    return float(m.group(1)) * UNITS[m.group(2)]


def close(got, want):
    # Three significant digits: at most half a unit in the third digit, 0.5 %.
    return got is not None and want is not None and abs(got - want) <= 0.0051 * abs(want) + 0.5


def unsuffixed(call):
    return call[:-3] if call.endswith("KHR") else call


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Capture:
    """A capture opened afresh: its sections, and its actions with their markers."""

    def __init__(self, path):
        self.cap = rd.OpenCaptureFile()
        res = self.cap.OpenFile(path, "", None)
        if not res.OK():
            raise RuntimeError("cannot open %s: %s" % (path, res.Message()))
        res, self.ctl = self.cap.OpenCapture(rd.ReplayOptions(), None)
        if not res.OK():
            raise RuntimeError("cannot replay %s: %s" % (path, res.Message()))
        self.sd = self.ctl.GetStructuredFile()
        self.actions = {}   # eid -> (action, names of the markers around it)
        self.events = {}    # eid -> chunk name
        self.chunks = {}    # eid -> its chunk (the call's parameters)
        self._walk(self.ctl.GetRootActions(), [])

    def _walk(self, actions, markers):
        for a in actions:
            for e in a.events:
                self.events[e.eventId] = self.sd.chunks[e.chunkIndex].name
                self.chunks[e.eventId] = self.sd.chunks[e.chunkIndex]
            self.actions[a.eventId] = (a, list(markers))
            inner = markers + [a.GetName(self.sd)] if a.flags & rd.ActionFlags.PushMarker else markers
            self._walk(a.children, inner)

    def calls_in_command_buffer(self, eid, call):
        """The EIDs of the calls named call (KHR or not) in the command buffer that holds eid."""
        order = sorted(self.events)
        begin = max((e for e in order if e <= eid and self.events[e] == "vkBeginCommandBuffer"), default=None)
        if begin is None:
            return []
        out = []
        for e in order:
            if e <= begin:
                continue
            if self.events[e] == "vkEndCommandBuffer":
                break
            if unsuffixed(self.events[e]) == unsuffixed(call):
                out.append(e)
        return out

    def calls_outside_command_buffers(self, call):
        """The EIDs of the calls named call (KHR or not) outside command buffers (on OpenGL ES,
        every call of that name)."""
        out, inside = [], False
        for e in sorted(self.events):
            name = self.events[e]
            if name == "vkBeginCommandBuffer":
                inside = True
            elif name == "vkEndCommandBuffer":
                inside = False
            elif not inside and unsuffixed(name) == unsuffixed(call):
                out.append(e)
        return out

    def dst_stages(self, eid):
        """The destStageMask of a vkCmdPipelineBarrier event as passprobe names stages
        (VERTEX_SHADER, ...), or None for a call without one."""
        ch = self.chunks.get(eid)
        for i in range(ch.NumChildren() if ch else 0):
            c = ch.GetChild(i)
            if c.name == "destStageMask":
                return {n.strip()[len("VK_PIPELINE_STAGE_"):-len("_BIT")] for n in c.AsString().split("|")}
        return None

    def section(self, type_=None, name=None):
        i = self.cap.FindSectionByName(name) if name else self.cap.FindSectionByType(type_)
        return None if i < 0 else bytes(self.cap.GetSectionContents(i)).decode("utf-8")

    def gl_work(self, eid):
        """Whether the call at eid is one that opens an OpenGL ES pass: a clear, draw or dispatch."""
        name = self.events.get(eid, "")
        return name.startswith(("glDraw", "glMultiDraw", "glDispatchCompute", "glClearBuffer")) or name == "glClear"

    def gl_label_first_work(self, label):
        """The EID of the first clear, draw or dispatch inside the first debug label named label."""
        for eid, (a, markers) in sorted(self.actions.items()):
            if label in markers and self.gl_work(eid):
                return eid
        return None

    def render_pass_begins(self):
        F = rd.ActionFlags
        return [eid for eid, (a, _) in sorted(self.actions.items())
                if a.flags & F.BeginPass and not a.flags & F.CommandBufferBoundary]

    def close(self):
        self.ctl.Shutdown()
        self.cap.Shutdown()


def annotate(passprobe, *args):
    r = passprobe_renderdoc(passprobe, "annotate", args)
    print("$ passprobe renderdoc annotate %s -> %d\n%s" % (" ".join(args), r.returncode, r.stdout + r.stderr), end="")
    return r


def check_annotated(path, entry, report, min_located):
    frame = entry["frame_data"]
    apps = [p for p in frame["passes"] if not p.get("recorded_by")]
    summary = {(r["name"], r["kind"]): r for r in report["summary"]["passes"]}
    c = Capture(path)
    try:
        marks_json = c.section(type_=rd.SectionType.Bookmarks)
        check(marks_json is not None, "the annotated capture has a Bookmarks section")
        marks = json.loads(marks_json or '{"Bookmarks": []}')["Bookmarks"]
        check(len(marks) == len(apps), "one bookmark per application pass: %d bookmarks, %d passes (%s)" %
              (len(marks), len(apps), ", ".join(p["name"] for p in apps)))
        check(all(set(m) == {"eventId", "text"} for m in marks), "bookmarks have qrenderdoc's members eventId and text")
        begins = c.render_pass_begins()
        gles = c.cap.DriverName() != "Vulkan"
        nrender = 0
        labels_seen = set()
        for m, p in zip(marks, apps):
            eid, text = m["eventId"], m["text"]
            a, markers = c.actions.get(eid, (None, []))
            check(a is not None, "%s: its bookmark EID %d is an action of the capture" % (p["name"], eid))
            if a is None:
                continue
            if gles:
                check(c.gl_work(eid), "%s: bookmark on a clear, draw or dispatch (EID %d, %s)" %
                      (p["name"], eid, c.events.get(eid)))
                if p.get("name_source") == "label" and p["name"] not in labels_seen:
                    want = c.gl_label_first_work(p["name"])
                    check(eid == want, "%s: bookmark on the first clear, draw or dispatch inside its label, "
                          "EID %s (got %d)" % (p["name"], want, eid))
                labels_seen.add(p["name"])
            elif p["kind"] == "render":
                want = begins[nrender] if nrender < len(begins) else None
                nrender += 1
                check(eid == want, "%s: bookmark on render pass %d's begin, EID %s (got %d, %s)" %
                      (p["name"], nrender - 1, want, eid, a.GetName(c.sd)))
            elif p["kind"] == "compute":
                check(bool(a.flags & rd.ActionFlags.Dispatch), "%s: bookmark on a dispatch (EID %d, %s)" %
                      (p["name"], eid, a.GetName(c.sd)))
            else:
                check(bool(a.flags & (rd.ActionFlags.Copy | rd.ActionFlags.Clear)),
                      "%s: bookmark on a copy or clear (EID %d)" % (p["name"], eid))
            if p.get("name_source") == "label":
                check(markers and markers[-1] == p["name"], "%s: EID %d is inside the debug label %s (%s)" %
                      (p["name"], eid, p["name"], markers))
            check(text.startswith(p["name"] + ": "), "%s: bookmark text starts with its name: %r" % (p["name"], text))
            gpu = parse_time(text, r": ([0-9.]+) (ns|\u00b5s|ms|s) GPU")
            check(close(gpu, p.get("gpu_ns")), "%s: bookmark time %s is report.json's %s ns for frame %s" %
                  (p["name"], gpu, p.get("gpu_ns"), entry["frame"]))
            row = summary.get((p["name"], p["kind"]), {}).get("gpu_ns") or {}
            for stat in ("p50", "p95"):
                got = parse_time(text, stat + r" ([0-9.]+) (ns|\u00b5s|ms|s)")
                check(close(got, row.get(stat)), "%s: bookmark %s %s is the run's %s" % (p["name"], stat, got, row.get(stat)))
        eids = [m["eventId"] for m in marks]
        check(eids == sorted(eids), "bookmarks in frame order: %s" % eids)

        notes = json.loads(c.section(type_=rd.SectionType.Notes) or "{}")
        comments = notes.get("comments", "")
        check(comments.count(section.COMMENTS_BEGIN) == 1 and section.COMMENTS_END in comments,
              "the Notes section's comments hold passprobe's block once")
        check("frame %s of" % entry["frame"] in comments, "the comments name the frame")

        doc = section.section_parse(c.section(name=section.SECTION_NAME))
        check([p["eid"] for p in doc["passes"]] == eids, "passprobe's section has the passes at the bookmarks' EIDs")
        check(doc["capture"]["frame"] == entry["frame"], "passprobe's section is for frame %s" % entry["frame"])
        check(doc["frame_data"]["index"] == frame["index"], "passprobe's section carries the frame's data")
        located = 0
        for d in doc["diagnostics"]:
            if d.get("eid"):
                located += 1
                name = c.events.get(d["eid"], "")
                check(unsuffixed(name) == unsuffixed(d.get("call") or ""),
                      "%s: at EID %d, a %s call (%s)" % (d["id"], d["eid"], d.get("call"), name))
                check("EID %d" % d["eid"] in comments, "%s: the comments place it at EID %d" % (d["id"], d["eid"]))
        check(located >= min_located, "%d diagnostics placed at their EID (at least %d)" % (located, min_located))

        # Each barrier diagnostic report.json lists with the capture, placed here without
        # annotate's help: the command buffer of the capture that holds the first action of an
        # application pass recorded in the same command buffer, then the call_index-th call of
        # that name in it. The note (the comments' line) and the section put it there.
        placed = 0
        for want in entry.get("diagnostics") or []:
            if want.get("command_buffer") is None and want.get("command_buffer_handle") is None:
                # A call outside command buffers (a wait, a read-back, an upload): the
                # call_index-th of its name in the capture, or listed as not in it.
                calls = c.calls_outside_command_buffers(want["call"])
                eid = calls[want["call_index"]] if want["call_index"] < len(calls) else None
                what = "%s (%s #%d, outside command buffers)" % (want["id"], want["call"], want["call_index"])
                got = [x for x in doc["diagnostics"] if x.get("id") == want["id"] and x.get("call") == want["call"]
                       and x.get("call_index") == want["call_index"]]
                check(len(got) == 1, "%s: in the section once" % what)
                if eid is None:
                    check(len(got) == 1 and got[0].get("eid") is None and got[0].get("unlocated"),
                          "%s: the capture has %d such calls: the section lists it as not in the capture (%s)" %
                          (what, len(calls), got[0].get("unlocated") if got else None))
                    continue
                check(len(got) == 1 and got[0].get("eid") == eid, "%s: the section places it at EID %d (%s)" %
                      (what, eid, [x.get("eid") for x in got]))
                line = "EID %d: %s %s" % (eid, want["id"], want["call"])
                check(line in comments, "%s: the note in the capture's comments says %r" % (what, line))
                placed += 1
                continue
            if want.get("command_buffer") is None:
                continue
            first = [m["eventId"] for m, p in zip(marks, apps)
                     if (p.get("submission"), p.get("command_buffer")) == (want["submission"], want["command_buffer"])]
            calls = c.calls_in_command_buffer(first[0], want["call"]) if first else []
            eid = calls[want["call_index"]] if want["call_index"] < len(calls) else None
            what = "%s (%s #%d, submission %d, command buffer %d)" % (
                want["id"], want["call"], want["call_index"], want["submission"], want["command_buffer"])
            check(eid is not None, "%s: the capture has that call (%d such calls in its command buffer)" %
                  (what, len(calls)))
            if eid is None:
                continue
            got = [x for x in doc["diagnostics"] if x.get("id") == want["id"] and x.get("call") == want["call"]
                   and x.get("call_index") == want["call_index"]]
            check(len(got) == 1 and got[0].get("eid") == eid, "%s: the section places it at EID %d (%s)" %
                  (what, eid, [x.get("eid") for x in got]))
            # The barrier there is the one the finding is about: the dstStageMask its message
            # quotes is the call's.
            quoted = re.search(r"dstStageMask ([A-Z0-9_|]+)", want.get("message", ""))
            stages = c.dst_stages(eid)
            if quoted and stages is not None:
                check(set(quoted.group(1).split("|")) == stages, "%s: the barrier at EID %d has the dstStageMask "
                      "its message quotes (%s; the capture's: %s)" % (what, eid, quoted.group(1), "|".join(sorted(stages))))
            line = "EID %d: %s %s" % (eid, want["id"], want["call"])
            check(line in comments, "%s: the note in the capture's comments says %r" % (what, line))
            placed += 1
        check(placed >= min_located, "%d of report.json's diagnostics found at their call's EID (at "
              "least %d)" % (placed, min_located))
        return len(marks), eids
    finally:
        c.close()


def write_section(path, type_, text):
    cap = rd.OpenCaptureFile()
    cap.OpenFile(path, "", None)
    props = rd.SectionProperties()
    props.type = type_
    props.version = 1
    cap.WriteSection(props, text.encode())
    cap.Shutdown()


def main():
    passprobe, run_out, work = sys.argv[1:4]
    min_located = int(sys.argv[sys.argv.index("--min-located") + 1]) if "--min-located" in sys.argv else 0
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")  # an OpenGL ES replay without a window system
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    try:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        report_rel = "report.json" if os.path.isfile(os.path.join(run_out, "report.json")) else \
            os.path.join("gles", "report.json")
        with open(os.path.join(run_out, report_rel)) as f:
            report = json.load(f)
        entry = report["renderdoc"]["captures"][0]
        capture = entry["path"]
        before = sha(capture)
        out = os.path.join(work, "annotated.rdc")
        r = annotate(passprobe, capture, "-o", out)
        check(r.returncode == 0, "annotate exits 0")
        check(sha(capture) == before, "the capture itself is unchanged")
        plain = Capture(capture)
        check(plain.section(type_=rd.SectionType.Bookmarks) is None and plain.section(name=section.SECTION_NAME) is None,
              "the capture itself has no bookmarks and no passprobe section")
        plain.close()
        if r.returncode != 0:
            return 1
        npass, eids = check_annotated(out, entry, report, min_located)

        # A run directory moved elsewhere (its report's paths lead nowhere), annotated in place
        # twice, after somebody else bookmarked an event and commented.
        moved = os.path.join(work, "moved")
        shutil.copytree(run_out, moved)
        rel = os.path.relpath(capture, run_out)
        mcap = os.path.join(moved, rel)
        with open(os.path.join(moved, report_rel)) as f:
            mreport = json.load(f)
        mreport["renderdoc"]["captures"][0]["path"] = os.path.join("/nonexistent/run", rel)
        with open(os.path.join(moved, report_rel), "w") as f:
            json.dump(mreport, f)
        c = Capture(mcap)
        other_eid = max(c.actions)  # the frame's last action: no pass begins there
        c.close()
        write_section(mcap, rd.SectionType.Bookmarks, json.dumps({"Bookmarks": [{"eventId": other_eid, "text": "mine"}]}))
        write_section(mcap, rd.SectionType.Notes, json.dumps({"comments": "a note of mine"}))
        for n in (1, 2):
            r = annotate(passprobe, mcap, "--in-place")
            check(r.returncode == 0 and "matched by file name" in r.stdout,
                  "in place, run %d: exits 0, the capture found by its file name" % n)
        c = Capture(mcap)
        marks = json.loads(c.section(type_=rd.SectionType.Bookmarks))["Bookmarks"]
        comments = json.loads(c.section(type_=rd.SectionType.Notes))["comments"]
        c.close()
        mine = [m for m in marks if m["text"] == "mine" or m["text"].endswith("| mine")]
        check(len(marks) == npass + (0 if other_eid in eids else 1) and len(mine) == 1,
              "after annotating twice: one bookmark per pass and the other bookmark kept (%d)" % len(marks))
        check(comments.startswith("a note of mine") and comments.count(section.COMMENTS_BEGIN) == 1,
              "after annotating twice: the other comment kept, passprobe's block once")
    finally:
        rd.ShutdownReplay()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
