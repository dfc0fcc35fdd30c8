#!/usr/bin/env python3
"""passprobe renderdoc: passprobe's live per-pass measurements inside RenderDoc captures.

Run by the passprobe command (`passprobe renderdoc ...`, tools/passprobe/passprobe_renderdoc.c),
with the Python that has Debian's python3-renderdoc (`import renderdoc`). Subcommands:

  annotate CAPTURE [RUN_DIR] [-o OUT | --in-place]   bookmarks, comments and passprobe's
                                                     section written into the capture
  show CAPTURE                                       what annotate embedded, as a table
  replay CAPTURE [RUN_DIR] [--json]                  RenderDoc's replay time per pass next to
                                                     passprobe's live time of the same frame
  install [--extensions-dir DIR] [--config FILE]     the qrenderdoc panel (extension)

docs/frame-debuggers.md describes what is written and how a capture is matched to a run.
Exit status: 0 done, 1 failure (one message on stderr), 2 usage.
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import passprobe_section as section  # noqa: E402

PROG = "passprobe renderdoc"
GENERATOR = "passprobe renderdoc (" + os.environ.get("PASSPROBE_VERSION", "unknown") + ")"
REPORT_SCHEMA = "passprobe-report"
REPORT_VERSION = 1
# RenderDoc's driver names, and the report each API's passes are in: the Vulkan layer's
# <output_dir>/report.json, the shim's <output_dir>/gles/report.json (docs/gles.md). A context
# made with GLX's ES profile is RenderDoc's "OpenGL".
CAPTURE_APIS = {"Vulkan": "vulkan", "OpenGLES": "gles", "OpenGL": "gles"}
# The qrenderdoc extension's package: its folder name under the extensions directory.
EXTENSION_PACKAGE = "passprobe"


class Failure(Exception):
    """One message for stderr, then exit status 1."""


def fail(fmt, *args):
    raise Failure(fmt % args if args else fmt)


# ------------------------------------------------------------------------------------------
# RenderDoc's Python module
# ------------------------------------------------------------------------------------------

_rd = None


def rd_module():
    """renderdoc, initialised for replay once; a Failure naming the Debian package without it."""
    global _rd
    if _rd is None:
        try:
            import renderdoc
        except ImportError as e:
            fail("RenderDoc's Python module is not available to %s (%s): install Debian's "
                 "python3-renderdoc (apt-get install python3-renderdoc), or set PASSPROBE_PYTHON "
                 "to a Python that has it", sys.executable, e)
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            # RenderDoc replays OpenGL ES through EGL's default display; with no window system
            # Mesa's EGL finds none unless told to use its surfaceless platform.
            os.environ.setdefault("EGL_PLATFORM", "surfaceless")
        renderdoc.InitialiseReplay(renderdoc.GlobalEnvironment(), [])
        _rd = renderdoc
    return _rd


def rd_shutdown():
    # Without it the replay library's threads keep the interpreter from exiting.
    if _rd is not None:
        _rd.ShutdownReplay()


def capture_file_open(path):
    rd = rd_module()
    cap = rd.OpenCaptureFile()
    res = cap.OpenFile(path, "", None)
    if not res.OK():
        cap.Shutdown()
        fail("%s: RenderDoc cannot open it: %s", path, res.Message())
    driver = cap.DriverName()
    if driver not in CAPTURE_APIS:
        cap.Shutdown()  # the name first: the object is gone after this
        fail("%s: an %s capture; passprobe measures Vulkan and OpenGL ES programs, and annotates and "
             "replays their captures only", path, driver or "unknown API's")
    return cap


def capture_api(path):
    """'vulkan' or 'gles': which of passprobe's reports a capture belongs with."""
    cap = capture_file_open(path)
    api = CAPTURE_APIS[cap.DriverName()]
    cap.Shutdown()
    return api


def capture_replay_open(cap, path):
    rd = rd_module()
    if cap.LocalReplaySupport() != rd.ReplaySupport.Supported:
        fail("%s: this machine cannot replay it (RenderDoc: %s)", path, cap.LocalReplaySupport())
    res, ctl = cap.OpenCapture(rd.ReplayOptions(), None)
    if not res.OK():
        fail("%s: RenderDoc cannot replay it: %s", path, res.Message())
    return ctl


def section_read(cap, type_=None, name=None):
    idx = cap.FindSectionByName(name) if name else cap.FindSectionByType(type_)
    if idx < 0:
        return None
    return bytes(cap.GetSectionContents(idx)).decode("utf-8", "replace")


def section_write(cap, text, type_=None, name=None):
    rd = rd_module()
    props = rd.SectionProperties()
    props.type = type_ if type_ is not None else rd.SectionType.Unknown
    if name:
        props.name = name
    # qrenderdoc writes its bookmarks and notes as version 1 (CaptureContext::SaveBookmarks).
    props.version = 1
    res = cap.WriteSection(props, text.encode("utf-8"))
    if not res.OK():
        fail("cannot write section %s: %s", name or str(props.type), res.Message())


# ------------------------------------------------------------------------------------------
# The capture's passes, as passprobe would cut the same commands into passes
# ------------------------------------------------------------------------------------------

class CapturePass:
    def __init__(self, kind, eid, cmdbuf, label):
        self.kind = kind          # "render", "compute", "transfer"
        self.eid = eid            # its first action: vkCmdBeginRenderPass*, the first dispatch or copy
        self.last_eid = eid       # its last action
        self.cmdbuf = cmdbuf      # index of its primary command buffer in the capture
        self.label = label        # the innermost debug label around its first action, or None
        self.draws = 0            # draw calls (an indirect multi-draw counts once, as passprobe counts calls)
        self.action_eids = []     # every action inside it, for replay timings


class CaptureFrame:
    """What annotate and replay need of a capture: its passes in order, every event with its
    command buffer (None outside one, and always on OpenGL ES), and the last EID."""

    # How a call outside command buffers is described (Vulkan); OpenGL ES has none.
    outside = " outside command buffers"
    # Whether a call the capture lacks altogether is one RenderDoc does not record: on OpenGL
    # ES it records only what changes the GPU's state or work (glReadPixels into client memory,
    # glGetQueryObject*, glMapBufferRange are not in a capture).
    records_calls_only = False

    def __init__(self, ctl):
        rd = rd_module()
        self.rd = rd
        self.sd = ctl.GetStructuredFile()
        self.passes = []
        self.events = []          # (eid, chunk name, command buffer index or None)
        self.cmdbufs = 0
        self.last_eid = 0
        self._cmdbuf = None
        self._open = None         # the open pass
        self._labels = []         # names of the open debug labels

    def _close(self):
        if self._open is not None:
            self.passes.append(self._open)
            self._open = None

    def _label(self):
        return self._labels[-1] if self._labels else None

    def event_of(self, call, cmdbuf, index):
        """The EID of the index-th call named `call` in capture command buffer cmdbuf (None:
        outside command buffers), or None with how many there are."""
        want = call[:-3] if call.endswith("KHR") else call
        found = [eid for eid, name, cb in self.events
                 if (name[:-3] if name.endswith("KHR") else name) == want and cb == cmdbuf]
        if 0 <= index < len(found):
            return found[index], len(found)
        return None, len(found)


def capture_frame(ctl, api):
    return GLCaptureFrame(ctl) if api == "gles" else VulkanCaptureFrame(ctl)


class VulkanCaptureFrame(CaptureFrame):
    """The capture cut as the Vulkan layer cuts command buffers into passes (docs/attribution.md)."""

    def __init__(self, ctl):
        super().__init__(ctl)
        self._walk(ctl.GetRootActions(), nested=False)
        self._close()

    def _events(self, action, nested):
        for e in action.events:
            name = self.sd.chunks[e.chunkIndex].name if e.chunkIndex < len(self.sd.chunks) else ""
            if not nested and name == "vkBeginCommandBuffer":
                self._close()
                self._cmdbuf = self.cmdbufs
                self.cmdbufs += 1
            self.events.append((e.eventId, name, self._cmdbuf))
            if not nested and name == "vkEndCommandBuffer":
                self._close()
                self._cmdbuf = None
            self.last_eid = max(self.last_eid, e.eventId)

    def _walk(self, actions, nested):
        F = self.rd.ActionFlags
        for a in actions:
            self._events(a, nested)
            f = a.flags
            eid = a.eventId
            self.last_eid = max(self.last_eid, eid)
            in_render = self._open is not None and self._open.kind == "render"
            if f & F.CommandBufferBoundary:
                pass
            elif f & F.PushMarker:
                # A label closes a run of compute/transfer work (it names what follows).
                if not in_render:
                    self._close()
                self._labels.append(a.customName or a.GetName(self.sd))
                self._walk(a.children, nested)
                continue
            elif f & F.PopMarker:
                if not in_render:
                    self._close()
                if self._labels:
                    self._labels.pop()
            elif f & F.BeginPass:
                self._close()
                self._open = CapturePass("render", eid, self._cmdbuf, self._label())
                self._open.action_eids.append(eid)
            elif f & F.EndPass:
                if in_render:
                    self._open.last_eid = eid
                    self._open.action_eids.append(eid)
                    self._close()
            elif f & F.CmdList and a.children:
                # vkCmdExecuteCommands: inside a render pass its draws are the pass's; outside,
                # the executed command buffers are one pass of their own, as passprobe counts them.
                if not in_render:
                    self._close()
                    self._open = CapturePass("transfer", eid, self._cmdbuf, self._label())
                self._open.action_eids.append(eid)
                outer = self._open
                self._walk_secondary(a.children, outer)
                outer.last_eid = max(outer.last_eid, self.last_eid)
                if not in_render:
                    self._close()
                continue
            elif f & (F.Drawcall | F.Dispatch | F.Copy | F.Clear | F.Resolve | F.GenMips):
                self._work(a, f)
            if a.children and not (f & F.MultiAction):
                self._walk(a.children, nested)

    def _walk_secondary(self, actions, outer):
        F = self.rd.ActionFlags
        for a in actions:
            self._events(a, True)
            self.last_eid = max(self.last_eid, a.eventId)
            if a.flags & F.Drawcall:
                outer.draws += 1
            if a.flags & F.Dispatch and outer.kind != "render":
                outer.kind = "compute"
            outer.action_eids.append(a.eventId)
            if a.children and not (a.flags & F.MultiAction):
                self._walk_secondary(a.children, outer)

    def _work(self, a, f):
        F = self.rd.ActionFlags
        eid = a.eventId
        if self._open is None:
            # Work outside a render pass opens a compute/transfer pass on first use.
            self._open = CapturePass("transfer", eid, self._cmdbuf, self._label())
        p = self._open
        if p.kind != "render":
            if f & F.Dispatch:
                p.kind = "compute"
            p.last_eid = eid
        elif f & F.Drawcall:
            p.draws += 1
        p.action_eids.append(eid)


# GL's enums, as RenderDoc's structured data gives them (numbers).
GL_FRAMEBUFFER, GL_DRAW_FRAMEBUFFER = 0x8D40, 0x8CA9
# Calls after which the shim's pass ends whatever their arguments (docs/gles.md, "Passes"):
# the frame's end, work handed to the GPU, contents read.
GL_PASS_ENDS = ("eglSwapBuffers", "glXSwapBuffers", "glFlush", "glFinish", "glFenceSync", "glReadPixels",
                "glBlitFramebuffer", "glBlitNamedFramebuffer", "eglMakeCurrent", "glXMakeCurrent",
                "glXMakeContextCurrent")


class GLCaptureFrame(CaptureFrame):
    """The capture cut as the OpenGL ES shim cuts a context's calls into passes (docs/gles.md,
    intercept/gles/gles_pass_machine.c): a pass is the work on one draw-framebuffer binding,
    opened at its first clear, draw or dispatch, ended by a change of binding, an invalidate of
    the bound framebuffer, a swap, a flush, a fence or a read-back. By call names: RenderDoc
    flags glInvalidateFramebuffer a clear, which for passprobe ends a pass instead."""

    outside = ""
    records_calls_only = True

    def __init__(self, ctl):
        super().__init__(ctl)
        rd = self.rd
        # The draw framebuffer bound where the capture begins (RenderDoc's initial state).
        first = ctl.GetRootActions()
        self._draw_fb = None
        if first:
            eid = first[0].events[0].eventId if first[0].events else first[0].eventId
            ctl.SetFrameEvent(eid, True)
            self._draw_fb = ctl.GetGLPipelineState().framebuffer.drawFBO.resourceId
        self._none = rd.ResourceId.Null()
        self._walk(ctl.GetRootActions())
        self._close()

    @staticmethod
    def _arg(chunk, name):
        for i in range(chunk.NumChildren()):
            c = chunk.GetChild(i)
            if c.name == name:
                return c
        return None

    def _call(self, eid, name, chunk):
        self.events.append((eid, name, None))
        self.last_eid = max(self.last_eid, eid)
        work = None
        if name.startswith(("glDraw", "glMultiDraw")):
            work = "draw"
        elif name.startswith("glClear") and (name == "glClear" or name.startswith("glClearBuffer")):
            work = "clear"
        elif name.startswith("glDispatchCompute"):
            work = "dispatch"
        if work:
            p = self._open
            if p is None:
                p = self._open = CapturePass("compute" if work == "dispatch" else "render", eid, None, self._label())
            elif work != "dispatch":
                p.kind = "render"  # a compute pass that then draws or clears on its binding
            if work == "draw":
                p.draws += 1
            p.last_eid = eid
            p.action_eids.append(eid)
            return
        if name == "glBindFramebuffer":
            target = self._arg(chunk, "target")
            fb = self._arg(chunk, "framebuffer")
            if target is not None and target.AsInt() in (GL_FRAMEBUFFER, GL_DRAW_FRAMEBUFFER):
                bound = fb.AsResourceId() if fb is not None else self._none
                if bound != self._draw_fb:
                    self._close()
                self._draw_fb = bound
        elif name in ("glInvalidateFramebuffer", "glDiscardFramebufferEXT", "glInvalidateNamedFramebufferData"):
            fb = self._arg(chunk, "framebuffer")
            if fb is None or fb.AsResourceId() == self._draw_fb:
                self._close()
        elif name.startswith(GL_PASS_ENDS):
            self._close()

    def _walk(self, actions):
        F = self.rd.ActionFlags
        for a in actions:
            for e in a.events:
                chunk = self.sd.chunks[e.chunkIndex] if e.chunkIndex < len(self.sd.chunks) else None
                name = chunk.name if chunk is not None else ""
                if e.eventId == a.eventId and a.flags & (F.PushMarker | F.PopMarker):
                    self.events.append((e.eventId, name, None))
                    self.last_eid = max(self.last_eid, e.eventId)
                elif chunk is not None:
                    self._call(e.eventId, name, chunk)
            if a.flags & F.PushMarker:
                self._labels.append(a.customName or a.GetName(self.sd))
                self._walk(a.children)
                continue
            if a.flags & F.PopMarker and self._labels:
                self._labels.pop()
            if a.children:
                self._walk(a.children)


# ------------------------------------------------------------------------------------------
# The run: report.json and its renderdoc section
# ------------------------------------------------------------------------------------------

def report_candidates(d):
    """The reports in output directory d, in the order they are tried: the Vulkan layer's
    d/report.json, the shim's d/gles/report.json, then one per process where several wrote
    there (d/gles/<name>.<pid>/report.json)."""
    gles = os.path.join(d, "gles")
    per_process = []
    try:
        per_process = sorted(os.path.join(gles, n, "report.json") for n in os.listdir(gles))
    except OSError:
        pass
    return [os.path.join(d, "report.json"), os.path.join(gles, "report.json")] + per_process


def report_api(report):
    """'gles' for the shim's report (its devices' drivers are GL_VERSION strings, "OpenGL ES
    3.2 Mesa ..."), else 'vulkan'."""
    for dev in report.get("devices") or []:
        if isinstance(dev, dict) and str(dev.get("driver") or "").startswith("OpenGL"):
            return "gles"
    return "vulkan"


API_NAMES = {"vulkan": "Vulkan", "gles": "OpenGL ES"}


def run_dir_find(capture, run_dir, api):
    """(run directory, report path, report) for a capture: in RUN_DIR as given (a directory or
    a report), else in the directory above the capture's (passprobe run --renderdoc writes
    captures to <outdir>/renderdoc/), else in the capture's own directory. Of the reports of the
    capture's API there, the one that lists the capture; else the first."""
    if run_dir and os.path.isfile(run_dir):
        paths = [os.path.abspath(run_dir)]
        dirs = []
    else:
        paths = []
        dirs = [os.path.abspath(run_dir)] if run_dir else \
            [os.path.dirname(os.path.dirname(os.path.abspath(capture))), os.path.dirname(os.path.abspath(capture))]
    looked, found = [], []
    for d in dirs:
        for path in report_candidates(d):
            looked.append(path)
            if os.path.isfile(path):
                found.append(path)
        if found:
            break
    found += paths
    if not found:
        where = "%s: no report.json there" % run_dir if run_dir else \
            "%s: no report.json next to it (looked for %s)" % (capture, " and ".join(looked[:4]))
        fail("%s; give the run's output directory after the capture", where)
    others = []
    ours = []
    for path in found:
        report = report_load(path)
        (ours if report_api(report) == api else others).append((path, report))
    if not ours:
        fail("%s is an %s capture, and %s is the report of a run of %s: give the output directory "
             "of the run that captured it", capture, API_NAMES[api], others[0][0],
             API_NAMES["gles" if api == "vulkan" else "vulkan"])
    for path, report in ours:
        rdoc = report.get("renderdoc")
        captures = rdoc.get("captures") if isinstance(rdoc, dict) else None
        if any(isinstance(c, dict) and c.get("path") and same_file(c["path"], capture) for c in captures or []):
            return os.path.dirname(path), path, report
    path, report = ours[0]
    return os.path.dirname(path), path, report


def report_load(path):
    try:
        with open(path, "rb") as f:
            data = f.read((256 << 20) + 1)
    except OSError as e:
        fail("%s: %s", path, e.strerror)
    if len(data) > 256 << 20:
        fail("%s: larger than 256 MiB; not a passprobe report", path)
    try:
        report = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s: not JSON (%s)", path, e)
    if not isinstance(report, dict) or report.get("schema") != REPORT_SCHEMA:
        fail("%s: not a passprobe report (no \"schema\": \"%s\")", path, REPORT_SCHEMA)
    version = report.get("version")
    if not isinstance(version, int) or version > REPORT_VERSION:
        fail("%s: report format version %r; this passprobe reads up to %d", path, version, REPORT_VERSION)
    return report


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def capture_entry(report, report_path, capture):
    """The report's renderdoc.captures[] entry for this capture file."""
    rdoc = report.get("renderdoc")
    if not isinstance(rdoc, dict):
        fail("%s has no renderdoc section: RenderDoc was not in the process passprobe measured "
             "(capture frames with `passprobe run --renderdoc FRAMES`, or run the program with "
             "ENABLE_VULKAN_RENDERDOC_CAPTURE=1)", report_path)
    captures = [c for c in rdoc.get("captures") or [] if isinstance(c, dict) and c.get("path")]
    if not captures:
        fail("%s: RenderDoc was in the process but took no capture of a frame passprobe measured", report_path)
    for c in captures:
        if same_file(c["path"], capture):
            return c, "path"
    # A run directory moved or copied elsewhere: its captures are where report.json's paths
    # no longer are; the file name, still unique among them, identifies the capture.
    base = os.path.basename(capture)
    named = [c for c in captures if os.path.basename(c["path"]) == base and not os.path.exists(c["path"])]
    if len(named) == 1:
        return named[0], "file name"
    listed = ", ".join("%s (frame %s)" % (c["path"], c.get("frame")) for c in captures[:4])
    more = " and %d more" % (len(captures) - 4) if len(captures) > 4 else ""
    fail("%s is not a capture of the run in %s: its report lists %s%s", capture,
         os.path.dirname(report_path), listed, more)


def frame_data_of(report, entry, report_path):
    data = entry.get("frame_data")
    if isinstance(data, dict) and isinstance(data.get("passes"), list):
        return data
    for f in report.get("frames") or []:
        if f.get("index") == entry.get("frame") and f.get("device", 0) == entry.get("device", 0):
            return f
    fail("%s: the capture's frame %s has no frame data (neither in renderdoc.captures[] nor in "
         "frames[])", report_path, entry.get("frame"))


def application_passes(frame):
    """The frame's passes the application recorded (passes recorded by another layer, RenderDoc's
    own copies, are not in the capture)."""
    return [(i, p) for i, p in enumerate(frame.get("passes") or []) if not p.get("recorded_by")]


def passes_describe(names):
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return "%d application pass%s%s" % (len(names), "" if len(names) == 1 else "es",
                                        " (%s)" % shown if names else "")


def match(frame, entry, cf, capture):
    """Pairs the frame's application passes with the capture's passes, in order; a Failure
    with one sentence saying what differs."""
    apps = application_passes(frame)
    what = "frame %s of the run" % entry.get("frame")
    if len(apps) != len(cf.passes):
        fail("%s does not hold %s: the capture has %s, %s has %s", capture, what,
             passes_describe([p.label or p.kind for p in cf.passes]), what,
             passes_describe([p["name"] for _, p in apps]))
    pairs = []
    for n, ((i, p), c) in enumerate(zip(apps, cf.passes)):
        kind = p.get("kind")
        ckind = c.kind
        # Executed secondaries outside a render pass: passprobe names the kind by what they did.
        if p.get("api") == "vkCmdExecuteCommands" and kind in ("compute", "transfer"):
            ckind = kind
        if kind != ckind:
            fail("%s does not hold %s: pass %d is %s \"%s\" in the run, %s in the capture (EID %d)",
                 capture, what, n, kind, p.get("name"), ckind, c.eid)
        if p.get("name_source") == "label" and c.label != p.get("name"):
            fail("%s does not hold %s: pass %d is \"%s\" in the run, %s in the capture (EID %d)",
                 capture, what, n, p.get("name"),
                 "labelled \"%s\"" % c.label if c.label else "not inside a debug label", c.eid)
        draws = p.get("draws")
        if isinstance(draws, int) and kind == "render" and draws != c.draws:
            fail("%s does not hold %s: pass %d (\"%s\") has %d draws in the run, %d in the capture "
                 "(EIDs %d-%d)", capture, what, n, p.get("name"), draws, c.draws, c.eid, c.last_eid)
        pairs.append((i, p, c))
    return pairs


# ------------------------------------------------------------------------------------------
# annotate
# ------------------------------------------------------------------------------------------

def summary_rows(report):
    rows = {}
    for r in (report.get("summary") or {}).get("passes") or []:
        rows[(r.get("name"), r.get("kind"))] = r
    return rows


def num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def section_build(report, report_path, run_dir, entry, frame, pairs, cf):
    rows = summary_rows(report)
    app_total = sum(num(p.get("gpu_exclusive_ns")) or 0 for _, p, _ in pairs)
    passes = []
    cmdbuf_of = {}
    for i, p, c in pairs:
        row = rows.get((p.get("name"), p.get("kind"))) or {}
        gpu = row.get("gpu_ns") or {}
        cpu = p.get("cpu") or {}
        excl = num(p.get("gpu_exclusive_ns"))
        passes.append({
            "eid": c.eid, "last_eid": c.last_eid, "index": i, "name": p.get("name"),
            "name_source": p.get("name_source"), "kind": p.get("kind"), "api": p.get("api"),
            "submission": p.get("submission"), "command_buffer": p.get("command_buffer"),
            "draws": p.get("draws"), "gpu_ns": num(p.get("gpu_ns")), "gpu_exclusive_ns": excl,
            "gpu_unavailable": p.get("gpu_unavailable"),
            "share": excl / app_total if excl is not None and app_total > 0 else None,
            "mean_ns": num(gpu.get("mean")), "p50_ns": num(gpu.get("p50")), "p95_ns": num(gpu.get("p95")),
            "run_instances": row.get("measured"),
            "cpu_record_ns": num(cpu.get("wall_ns")), "cpu_record_thread_ns": num(cpu.get("thread_cpu_ns")),
            "pipeline_statistics": p.get("pipeline_statistics"),
        })
        cmdbuf_of.setdefault((p.get("submission"), p.get("command_buffer")), c.cmdbuf)
    diagnostics = []
    for d in entry.get("diagnostics") or []:
        if not isinstance(d, dict):
            continue
        out = {k: d.get(k) for k in ("id", "severity", "message", "suggestion", "call", "call_index",
                                     "submission", "command_buffer")}
        call = d.get("call") or ""
        index = d.get("call_index") if isinstance(d.get("call_index"), int) else 0
        if d.get("command_buffer") is None and call.startswith("vkCmd"):
            # Recorded in a command buffer none of the frame's passes was recorded in.
            eid = None
            out["unlocated"] = "its command buffer (%s) holds none of the frame's passes" % (
                d.get("command_buffer_handle") or "handle unknown")
        elif d.get("command_buffer") is None:
            eid, n = cf.event_of(call, None, index)
            if eid is None:
                out["unlocated"] = "the capture has %d %s call%s%s%s" % (
                    n, call, "" if n == 1 else "s", cf.outside,
                    "" if n else " (RenderDoc records none)" if cf.records_calls_only else "")
        else:
            cb = cmdbuf_of.get((d.get("submission"), d.get("command_buffer")))
            if cb is None:
                eid = None
                out["unlocated"] = "its command buffer (submission %s, command buffer %s) holds no " \
                    "application pass" % (d.get("submission"), d.get("command_buffer"))
            else:
                eid, n = cf.event_of(call, cb, index)
                if eid is None:
                    out["unlocated"] = "its command buffer has %d %s call%s in the capture, not %d" % (
                        n, call, "" if n == 1 else "s", index + 1)
        out["eid"] = eid
        diagnostics.append(out)
    others = [{"name": p.get("name"), "kind": p.get("kind"), "recorded_by": p.get("recorded_by"),
               "gpu_ns": num(p.get("gpu_ns"))} for p in frame.get("passes") or [] if p.get("recorded_by")]
    summary = report.get("summary") or {}
    return {
        "schema": section.SCHEMA, "version": section.SECTION_VERSION, "generator": GENERATOR,
        "capture": {k: entry.get(k) for k in ("device", "frame", "path", "timestamp", "requested_by")},
        "run": {"dir": run_dir, "report": report_path, "process": report.get("process"),
                "generator": report.get("generator"), "device": summary.get("device"),
                "frames": summary.get("frames"), "frame_gpu_ns": summary.get("frame_gpu_ns"),
                "requested_frames": (report.get("renderdoc") or {}).get("requested_frames")},
        "frame": {"index": frame.get("index"), "gpu_ns": num(frame.get("gpu_ns")),
                  "application_gpu_ns": app_total if pairs else None, "delimiter": frame.get("delimiter")},
        "passes": passes,
        "other_layers": others,
        "diagnostics": diagnostics,
        "frame_data": frame,
    }


def comments_text(doc):
    run, fr = doc["run"], doc["frame"]
    proc = run.get("process") or {}
    fg = run.get("frame_gpu_ns") or {}
    lines = [section.COMMENTS_BEGIN,
             "passprobe: live GPU times of this frame (frame %s of %s, pid %s), measured while the "
             "program ran; RenderDoc's own timings are replay times." % (
                 fr.get("index"), proc.get("name", "?"), proc.get("pid", "?")),
             "Run: %s frames on %s; frame GPU time p50 %s, p95 %s (report %s)." % (
                 run.get("frames"), run.get("device") or "?", section.format_ns(fg.get("p50")),
                 section.format_ns(fg.get("p95")), run.get("report")),
             "This frame: %s GPU in the application's passes%s." % (
                 section.format_ns(fr.get("application_gpu_ns")),
                 "; %d pass%s recorded by another layer left out" % (
                     len(doc["other_layers"]), "" if len(doc["other_layers"]) == 1 else "es")
                 if doc["other_layers"] else ""),
             "",
             "%-6s %-24s %-9s %10s %10s %10s %7s" % ("EID", "pass", "kind", "GPU", "p50 run", "p95 run", "share")]
    for p in doc["passes"]:
        lines.append("%-6d %-24s %-9s %10s %10s %10s %7s" % (
            p["eid"], p["name"], p.get("kind") or "", section.format_ns(p.get("gpu_ns")),
            section.format_ns(p.get("p50_ns")), section.format_ns(p.get("p95_ns")),
            section.format_share(p.get("share"))))
    lines.append("")
    if doc["diagnostics"]:
        lines.append("Diagnostics of this frame:")
        lines += ["  " + section.diagnostic_line(d) for d in doc["diagnostics"]]
    else:
        lines.append("No diagnostics in this frame.")
    lines.append(section.COMMENTS_END)
    return "\n".join(lines)


def comments_merge(old, block):
    """old with passprobe's block replaced (or appended): what others wrote stays."""
    old = old or ""
    b, e = old.find(section.COMMENTS_BEGIN), old.find(section.COMMENTS_END)
    if b >= 0 and e > b:
        old = (old[:b].rstrip("\n") + "\n" + old[e + len(section.COMMENTS_END):].lstrip("\n")).strip("\n")
    return (old + "\n\n" + block) if old.strip() else block


def bookmarks_merge(old_json, previous_doc, doc):
    """qrenderdoc's bookmarks (one per EID) with passprobe's: earlier passprobe bookmarks are
    dropped, anybody else's kept (at the EID of a pass, after passprobe's text)."""
    try:
        old = json.loads(old_json).get("Bookmarks", []) if old_json else []
    except (ValueError, AttributeError):
        old = []
    ours_before = set()
    if previous_doc:
        ours_before = {(p.get("eid"), section.bookmark_text(p)) for p in previous_doc.get("passes", [])}
    kept = {}
    for b in old:
        if isinstance(b, dict) and b.get("eventId") and (b.get("eventId"), b.get("text")) not in ours_before:
            kept[int(b["eventId"])] = str(b.get("text", ""))
    marks = []
    for p in doc["passes"]:
        text = section.bookmark_text(p)
        if p["eid"] in kept:
            text += " | " + kept.pop(p["eid"])
        marks.append({"eventId": p["eid"], "text": text})
    marks += [{"eventId": eid, "text": text} for eid, text in kept.items()]
    marks.sort(key=lambda m: m["eventId"])
    # qrenderdoc's format (CaptureContext::SaveBookmarks): {"Bookmarks": [{"eventId", "text"}]}.
    return json.dumps({"Bookmarks": marks}, indent=4)


def cmd_annotate(args):
    rd = rd_module()
    capture = args.capture
    if not os.path.isfile(capture):
        fail("%s: no such capture file", capture)
    api = capture_api(capture)  # a capture of an API annotate knows, before the run is looked for
    run_dir, report_path, report = run_dir_find(capture, args.run_dir, api)
    entry, matched_by = capture_entry(report, report_path, capture)
    frame = frame_data_of(report, entry, report_path)
    if args.in_place:
        out = capture
    else:
        out = args.output or (capture[:-4] if capture.endswith(".rdc") else capture) + ".passprobe.rdc"
        if same_file(out, capture):
            fail("%s: the output is the capture itself; use --in-place for that", out)
    cap = capture_file_open(capture)
    try:
        ctl = capture_replay_open(cap, capture)
        try:
            cf = capture_frame(ctl, api)
        finally:
            ctl.Shutdown()
        pairs = match(frame, entry, cf, capture)
        doc = section_build(report, report_path, run_dir, entry, frame, pairs, cf)
        previous = section_read(cap, name=section.SECTION_NAME)
        try:
            previous_doc = section.section_parse(previous) if previous else None
        except ValueError:
            previous_doc = None
        bookmarks = bookmarks_merge(section_read(cap, type_=rd.SectionType.Bookmarks), previous_doc, doc)
        notes_old = section_read(cap, type_=rd.SectionType.Notes)
        try:
            notes = json.loads(notes_old) if notes_old else {}
            if not isinstance(notes, dict):
                notes = {}
        except ValueError:
            notes = {}
        notes[section.COMMENTS_KEY] = comments_merge(notes.get(section.COMMENTS_KEY), comments_text(doc))
        if out != capture:
            res = cap.CopyFileTo(out)  # the handle follows the copy: what is written next goes there
            if not res.OK():
                fail("%s: cannot write the annotated copy: %s", out, res.Message())
        section_write(cap, bookmarks, type_=rd.SectionType.Bookmarks)
        # qrenderdoc's notes: one JSON object of strings (CaptureContext::SaveNotes).
        section_write(cap, json.dumps(notes, indent=4), type_=rd.SectionType.Notes)
        section_write(cap, json.dumps(doc, indent=1), name=section.SECTION_NAME)
    finally:
        cap.Shutdown()
    located = sum(1 for d in doc["diagnostics"] if d.get("eid"))
    print("passprobe: %s: frame %s of %s (matched by %s): %d pass%s bookmarked (EIDs %s), "
          "%d of %d diagnostics at their EID, comments and section %s written" % (
              out, entry.get("frame"), run_dir, matched_by, len(doc["passes"]),
              "" if len(doc["passes"]) == 1 else "es",
              ", ".join(str(p["eid"]) for p in doc["passes"]) or "none", located,
              len(doc["diagnostics"]), section.SECTION_NAME))
    return 0


# ------------------------------------------------------------------------------------------
# show
# ------------------------------------------------------------------------------------------

def table_print(header, rows, out=sys.stdout):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        out.write("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")


def cmd_show(args):
    cap = capture_file_open(args.capture)
    try:
        text = section_read(cap, name=section.SECTION_NAME)
    finally:
        cap.Shutdown()
    if text is None:
        fail("%s carries no passprobe data: annotate it with `passprobe renderdoc annotate %s`",
             args.capture, args.capture)
    try:
        doc = section.section_parse(text)
    except ValueError as e:
        fail("%s: %s", args.capture, e)
    c, run = doc.get("capture") or {}, doc.get("run") or {}
    print("passprobe: frame %s of %s (%s), %s; run of %s frames in %s" % (
        c.get("frame"), (run.get("process") or {}).get("name", "?"), run.get("device") or "?",
        section.format_ns((doc.get("frame") or {}).get("application_gpu_ns")), run.get("frames"),
        run.get("dir")))
    table_print(section.TABLE_COLUMNS, section.table_rows(doc))
    for d in doc.get("diagnostics") or []:
        print(section.diagnostic_line(d))
    return 0


# ------------------------------------------------------------------------------------------
# replay: RenderDoc's per-action replay times summed per pass, against the live times
# ------------------------------------------------------------------------------------------

def order_desc(values):
    """Indices of values, largest first."""
    return sorted(range(len(values)), key=lambda i: -values[i])


def cmd_replay(args):
    rd = rd_module()
    capture = args.capture
    if not os.path.isfile(capture):
        fail("%s: no such capture file", capture)
    api = capture_api(capture)
    run_dir, report_path, report = run_dir_find(capture, args.run_dir, api)
    entry, _ = capture_entry(report, report_path, capture)
    frame = frame_data_of(report, entry, report_path)
    cap = capture_file_open(capture)
    try:
        ctl = capture_replay_open(cap, capture)
        try:
            cf = capture_frame(ctl, api)
            pairs = match(frame, entry, cf, capture)
            counters = ctl.EnumerateCounters()
            if rd.GPUCounter.EventGPUDuration not in counters:
                fail("%s: RenderDoc's replay on this device cannot time events (no EventGPUDuration)", capture)
            desc = ctl.DescribeCounter(rd.GPUCounter.EventGPUDuration)
            repeats = []
            for _ in range(max(1, args.repeat)):
                times = {}
                for r in ctl.FetchCounters([rd.GPUCounter.EventGPUDuration]):
                    v = r.value.d if desc.resultType == rd.CompType.Float else r.value.u64
                    times[r.eventId] = v
                repeats.append(times)
        finally:
            ctl.Shutdown()
    finally:
        cap.Shutdown()
    unit = 1e9 if desc.unit == rd.CounterUnit.Seconds else 1.0
    rows = []
    for i, p, c in pairs:
        sums = sorted(sum(t.get(e, 0.0) for e in c.action_eids) * unit for t in repeats)
        replay = sums[len(sums) // 2]
        live = num(p.get("gpu_ns"))
        rows.append({"name": p.get("name"), "kind": p.get("kind"), "eid": c.eid, "last_eid": c.last_eid,
                     "actions": len(c.action_eids), "live_ns": live, "replay_ns": replay,
                     "ratio": replay / live if live else None})
    timed = [r for r in rows if r["live_ns"] is not None]
    live_order = [timed[i]["name"] for i in order_desc([r["live_ns"] for r in timed])]
    replay_order = [timed[i]["name"] for i in order_desc([r["replay_ns"] for r in timed])]
    result = {"capture": os.path.abspath(capture), "frame": entry.get("frame"), "run": run_dir,
              "repeats": len(repeats), "passes": rows, "live_order": live_order,
              "replay_order": replay_order, "order_agrees": live_order == replay_order}
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print("passprobe: frame %s: live GPU time (passprobe, while the program ran) and RenderDoc's "
              "replay time (EventGPUDuration of each action, summed per pass; median of %d replays)" %
              (entry.get("frame"), len(repeats)))
        table_print(("pass", "kind", "EIDs", "live", "replay", "replay/live"),
                    [(r["name"], r["kind"], "%d-%d" % (r["eid"], r["last_eid"]), section.format_ns(r["live_ns"]),
                      section.format_ns(r["replay_ns"]), "%.2f" % r["ratio"] if r["ratio"] else "n/a")
                     for r in rows])
        print("ordering by GPU time: live %s; replay %s: %s" % (
            " > ".join(live_order), " > ".join(replay_order),
            "the same" if result["order_agrees"] else "DIFFERENT"))
    return 0


# ------------------------------------------------------------------------------------------
# install: the qrenderdoc extension
# ------------------------------------------------------------------------------------------

def qrenderdoc_data_dir():
    # qrenderdoc's QStandardPaths::AppDataLocation on Linux.
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "qrenderdoc")


def cmd_install(args):
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "qrenderdoc", EXTENSION_PACKAGE)
    if not os.path.isfile(os.path.join(src, "extension.json")):
        fail("%s: the qrenderdoc extension is not there (a broken installation of passprobe)", src)
    ext_root = args.extensions_dir or os.path.join(qrenderdoc_data_dir(), "extensions")
    dest = os.path.join(ext_root, EXTENSION_PACKAGE)
    try:
        os.makedirs(dest, exist_ok=True)
        for name in sorted(os.listdir(src)):
            if name.endswith((".py", ".json")):
                shutil.copyfile(os.path.join(src, name), os.path.join(dest, name))
        shutil.copyfile(os.path.join(here, "passprobe_section.py"), os.path.join(dest, "passprobe_section.py"))
    except OSError as e:
        fail("%s: cannot install the extension there: %s", dest, e.strerror or e)
    print("passprobe: qrenderdoc extension installed in %s" % dest)
    if args.no_always_load:
        return 0
    config = args.config or os.path.join(qrenderdoc_data_dir(), "UI.config")
    values = {}
    if os.path.exists(config):
        try:
            with open(config, encoding="utf-8") as f:
                values = json.load(f)
            if not isinstance(values, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            fail("%s: cannot read qrenderdoc's configuration (%s); the extension is installed, "
                 "enable it in qrenderdoc's Tools > Manage Extensions", config, e)
    # qrenderdoc's config file (PersistantConfig): a JSON object marked "rdocConfigData": 1;
    # AlwaysLoad_Extensions lists the packages it loads at start.
    values.setdefault("rdocConfigData", 1)
    always = values.get("AlwaysLoad_Extensions")
    if not isinstance(always, list):
        always = []
    if EXTENSION_PACKAGE not in always:
        always.append(EXTENSION_PACKAGE)
    values["AlwaysLoad_Extensions"] = always
    try:
        os.makedirs(os.path.dirname(config), exist_ok=True)
        tmp = config + ".passprobe.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(values, f, indent=4)
        os.replace(tmp, config)
    except OSError as e:
        fail("%s: cannot update qrenderdoc's configuration: %s", config, e.strerror or e)
    print("passprobe: qrenderdoc loads it at start (%s, AlwaysLoad_Extensions); its panel is in "
          "Window > passprobe pass timing. Install while qrenderdoc is closed: it rewrites that file "
          "when it exits." % config)
    return 0


# ------------------------------------------------------------------------------------------

def parser_make():
    p = argparse.ArgumentParser(prog=PROG, description="passprobe's live per-pass measurements in RenderDoc captures.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    a = sub.add_parser("annotate", help="write bookmarks, comments and passprobe's data into a capture")
    a.add_argument("capture", metavar="CAPTURE.rdc")
    a.add_argument("run_dir", metavar="RUN_DIR", nargs="?",
                   help="passprobe's output directory (default: the capture's directory's parent, "
                        "then its own directory, whichever holds report.json)")
    g = a.add_mutually_exclusive_group()
    g.add_argument("-o", "--output", metavar="OUT.rdc", help="the annotated copy (default: CAPTURE.passprobe.rdc)")
    g.add_argument("--in-place", action="store_true", help="annotate the capture itself")
    s = sub.add_parser("show", help="print the passprobe data an annotated capture carries")
    s.add_argument("capture", metavar="CAPTURE.rdc")
    r = sub.add_parser("replay", help="RenderDoc's replay time per pass next to passprobe's live time")
    r.add_argument("capture", metavar="CAPTURE.rdc")
    r.add_argument("run_dir", metavar="RUN_DIR", nargs="?")
    r.add_argument("--repeat", type=int, default=3, metavar="N", help="replays to take the median of (default 3)")
    r.add_argument("--json", action="store_true", help="the comparison as JSON on stdout")
    i = sub.add_parser("install", help="install the qrenderdoc panel for this user")
    i.add_argument("--extensions-dir", metavar="DIR",
                   help="qrenderdoc's extensions directory (default: ~/.local/share/qrenderdoc/extensions)")
    i.add_argument("--config", metavar="FILE", help="qrenderdoc's UI.config (default: ~/.local/share/qrenderdoc/UI.config)")
    i.add_argument("--no-always-load", action="store_true", help="do not add it to qrenderdoc's always-load list")
    return p


def main(argv):
    p = parser_make()
    args = p.parse_args(argv)
    if not args.command:
        p.print_usage(sys.stderr)
        return 2
    handlers = {"annotate": cmd_annotate, "show": cmd_show, "replay": cmd_replay, "install": cmd_install}
    try:
        return handlers[args.command](args)
    except Failure as e:
        sys.stderr.write("passprobe: %s\n" % e)
        return 1
    except BrokenPipeError:
        # Output piped into a reader that stopped (| head): nothing more to say.
        sys.stderr.close()
        return 0
    finally:
        rd_shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
