"""qrenderdoc extension: passprobe's per-pass timing of the open capture, in a panel.

Installed by `passprobe renderdoc install` into qrenderdoc's extensions directory, with
passprobe_section.py next to it. It shows what `passprobe renderdoc annotate` embedded in the
capture (the section passprobe/frame): one row per application pass with its first EID, GPU
time in this frame, p50/p95 over the run, share of the frame, draws, CPU recording cost and
pipeline statistics, then the frame's diagnostics. Clicking a pass (or a diagnostic) moves
RenderDoc to that event.

Debian's qrenderdoc 1.24 gives extensions no PySide2, so the panel is built with the
MiniQtHelper RenderDoc provides: a grid of labels with one button per row.
"""
import qrenderdoc as qrd

from . import passprobe_section as section

TITLE = "passprobe pass timing"
MENU = ["passprobe pass timing"]
NO_DATA = ("This capture carries no passprobe data. Run `passprobe renderdoc annotate CAPTURE.rdc` "
           "on it (with the run's report.json next to it) and open the annotated copy.")

_ctx = None
_panel = None


class Panel(qrd.CaptureViewer):
    def __init__(self, ctx):
        qrd.CaptureViewer.__init__(self)
        self.ctx = ctx
        self.mqt = ctx.Extensions().GetMiniQtHelper()
        self.doc = None
        self.error = None
        self.rows = []          # per pass: (first eid, last eid, button, name, its pressed callback)
        self.diag_buttons = []  # per located diagnostic: (eid, button)
        self.cells = []         # every widget of the two grids, destroyed when they are refilled
        self.top = self.mqt.CreateToplevelWidget(TITLE, lambda c, w, d: _closed())
        self.header = self.mqt.CreateLabel()
        self.grid = self.mqt.CreateGridContainer()
        self.diagnostics = self.mqt.CreateGridContainer()
        for w in (self.header, self.grid, self.diagnostics):
            self.mqt.AddWidget(self.top, w)
        self.mqt.AddWidget(self.top, self.mqt.CreateSpacer(False))
        ctx.AddCaptureViewer(self)
        self.refresh()

    # -- what the capture carries ----------------------------------------------------------

    def section_load(self):
        self.doc, self.error = None, None
        if not self.ctx.IsCaptureLoaded():
            return
        access = self.ctx.Replay().GetCaptureAccess()
        if access is None:
            self.error = "The capture's file cannot be read from here (a remote replay)."
            return
        idx = access.FindSectionByName(section.SECTION_NAME)
        if idx < 0:
            return
        try:
            self.doc = section.section_parse(bytes(access.GetSectionContents(idx)))
        except ValueError as e:
            self.error = "The capture's passprobe data cannot be read: %s" % e

    # -- the widgets -----------------------------------------------------------------------

    def cell(self, grid, row, col, widget, text, span=1):
        self.mqt.SetWidgetText(widget, text)
        self.mqt.AddGridWidget(grid, row, col, widget, 1, span)
        self.cells.append(widget)
        return widget

    def clear(self):
        self.mqt.ClearContainedWidgets(self.grid)
        self.mqt.ClearContainedWidgets(self.diagnostics)
        for w in self.cells:
            self.mqt.DestroyWidget(w)
        self.rows, self.diag_buttons, self.cells = [], [], []

    def pressed(self, eid):
        """A button's callback (MiniQtHelper calls it with the context, the widget and a text)."""
        return lambda ctx, widget, text: self.go(eid)

    def refresh(self):
        self.clear()
        if not self.ctx.IsCaptureLoaded():
            self.mqt.SetWidgetText(self.header, "No capture is open.")
            return
        self.section_load()
        if self.doc is None:
            self.mqt.SetWidgetText(self.header, self.error or NO_DATA)
            return
        d = self.doc
        run, cap, fr = d.get("run") or {}, d.get("capture") or {}, d.get("frame") or {}
        fg = run.get("frame_gpu_ns") or {}
        others = d.get("other_layers") or []
        self.mqt.SetWidgetText(self.header, (
            "passprobe: frame %s of %s (pid %s) on %s, measured live while it ran.\n"
            "This frame: %s GPU in the application's passes%s. Run: %s frames, frame GPU p50 %s, p95 %s.\n"
            "Click a pass to go to its first event." % (
                cap.get("frame"), (run.get("process") or {}).get("name", "?"),
                (run.get("process") or {}).get("pid", "?"), run.get("device") or "?",
                section.format_ns(fr.get("application_gpu_ns")),
                " (%d pass%s of other layers left out)" % (len(others), "" if len(others) == 1 else "es")
                if others else "", run.get("frames"), section.format_ns(fg.get("p50")),
                section.format_ns(fg.get("p95")))))
        for col, name in enumerate(section.TABLE_COLUMNS):
            label = self.cell(self.grid, 0, col, self.mqt.CreateLabel(), name)
            self.mqt.SetWidgetFont(label, "", 0, True, False)
        # An expanding last column takes the width the table does not need.
        self.cell(self.grid, 0, len(section.TABLE_COLUMNS), self.mqt.CreateSpacer(True), "")
        for r, (p, cells) in enumerate(zip(d.get("passes") or [], section.table_rows(d)), start=1):
            eid = int(p["eid"])
            callback = self.pressed(eid)
            button = self.cell(self.grid, r, 0, self.mqt.CreateButton(callback), "EID %d" % eid)
            for col, text in enumerate(cells[1:], start=1):
                self.cell(self.grid, r, col, self.mqt.CreateLabel(), text)
            self.rows.append((eid, int(p.get("last_eid") or eid), button, p.get("name"), callback))
        diags = d.get("diagnostics") or []
        title = self.cell(self.diagnostics, 0, 0, self.mqt.CreateLabel(),
                          "Diagnostics of this frame:" if diags else "No diagnostics in this frame.", 2)
        self.mqt.SetWidgetFont(title, "", 0, True, False)
        self.cell(self.diagnostics, 0, 2, self.mqt.CreateSpacer(True), "")
        for r, diag in enumerate(diags, start=1):
            if diag.get("eid"):
                eid = int(diag["eid"])
                button = self.cell(self.diagnostics, r, 0, self.mqt.CreateButton(self.pressed(eid)), "EID %d" % eid)
                self.diag_buttons.append((eid, button))
            self.cell(self.diagnostics, r, 1, self.mqt.CreateLabel(), "\n".join(section.diagnostic_lines(diag)))
        self.mark(self.ctx.CurEvent())

    def mark(self, eid):
        """The pass holding the current event gets an arrow on its button."""
        for first, last, button, _, _ in self.rows:
            inside = first <= eid <= last
            self.mqt.SetWidgetText(button, ("\u25b6 EID %d" if inside else "EID %d") % first)

    def go(self, eid):
        self.ctx.SetEventID([], eid, eid)

    def select_row(self, index):
        """Clicking row `index` (0: the first pass): the callback its button was made with.
        On the UI thread, as Qt calls it."""
        first, _, button, _, callback = self.rows[index]
        callback(self.ctx, button, "")

    # -- qrd.CaptureViewer -----------------------------------------------------------------

    def OnCaptureLoaded(self):
        self.refresh()

    def OnCaptureClosed(self):
        self.doc = None
        self.refresh()

    def OnSelectedEventChanged(self, event):
        pass

    def OnEventChanged(self, event):
        self.mark(event)


def _closed():
    global _panel
    if _panel is not None:
        _ctx.RemoveCaptureViewer(_panel)
    _panel = None


def show(ctx, data=None):
    """The menu item: opens the panel, docked in the main tool area, or raises it."""
    global _panel
    if _panel is None:
        _panel = Panel(ctx)
        ctx.AddDockWindow(_panel.top, qrd.DockReference.MainToolArea, None)
    ctx.RaiseDockWindow(_panel.top)
    return _panel


def panel():
    return _panel


def register(version, ctx):
    global _ctx
    _ctx = ctx
    ctx.Extensions().RegisterWindowMenu(qrd.WindowMenu.Window, MENU, show)


def unregister():
    global _panel
    if _panel is not None:
        _ctx.RemoveCaptureViewer(_panel)
        _panel.mqt.CloseToplevelWidget(_panel.top)
        _panel = None
