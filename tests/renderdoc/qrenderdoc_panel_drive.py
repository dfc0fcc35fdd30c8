"""Run inside qrenderdoc (`qrenderdoc --ui-python THIS`) by test_qrenderdoc_panel.py: drives
the passprobe extension as a person would and writes what it saw to $PP_PANEL_RESULT (JSON),
then a screenshot of the screen (Xvfb's frame buffer $PP_PANEL_FB) to $PP_PANEL_PNG.

qrenderdoc runs this on a thread of its own; pyrenderdoc's calls are carried onto the UI thread
by qrenderdoc, the extension's own objects are not, so they are reached through
MiniQtHelper.InvokeOntoUIThread."""
import json
import os
import sys
import time
import traceback

import renderdoc as rd

result = {"steps": []}
out = os.environ["PP_PANEL_RESULT"]


def save():
    with open(out + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(out + ".tmp", out)


def step(text):
    result["steps"].append(text)
    save()


ctx = pyrenderdoc  # noqa: F821 (qrenderdoc's global)
mqt = ctx.Extensions().GetMiniQtHelper()


def ui(fn):
    """fn() on the UI thread; its value, or its exception raised here."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except Exception:
            box["error"] = traceback.format_exc()
        box["done"] = True

    mqt.InvokeOntoUIThread(run)
    for _ in range(1200):
        if "done" in box:
            break
        time.sleep(0.05)
    if "error" in box:
        raise RuntimeError(box["error"])
    if "done" not in box:
        raise RuntimeError("the UI thread did not run the call within 60 s")
    return box.get("value")


def load(path):
    ctx.LoadCapture(path, rd.ReplayOptions(), path, False, True)
    for _ in range(600):
        if ctx.IsCaptureLoaded() and not ctx.IsCaptureLoading():
            return
        time.sleep(0.1)
    raise RuntimeError("qrenderdoc did not load " + path)


def panel_state(panel):
    return {"header": mqt.GetWidgetText(panel.header),
            "rows": [{"eid": r[0], "last_eid": r[1], "name": r[3], "button": mqt.GetWidgetText(r[2])}
                     for r in panel.rows]}


try:
    ext = ctx.Extensions()
    result["extension_loaded"] = ext.IsExtensionLoaded("passprobe")
    result["installed"] = [e.package for e in ext.GetInstalledExtensions()]
    step("started")
    # lavapipe crashes (SIGSEGV in its queue thread) under qrenderdoc 1.24's texture and mesh
    # previews on Xvfb once the event changes; the panel needs neither, so they are closed.
    for has, get in ((ctx.HasTextureViewer, ctx.GetTextureViewer), (ctx.HasMeshPreview, ctx.GetMeshPreview)):
        if has():
            mqt.CloseToplevelWidget(get().Widget())
    import passprobe  # the extension's package, loaded by qrenderdoc at start

    load(os.environ["PP_PANEL_PLAIN"])
    panel = ui(lambda: passprobe.show(passprobe._ctx))
    result["plain"] = ui(lambda: panel_state(panel))
    step("plain capture shown")

    load(os.environ["PP_PANEL_CAPTURE"])
    result["annotated"] = ui(lambda: panel_state(panel))
    result["bookmarks"] = [{"eid": b.eventId, "text": b.text} for b in ctx.GetBookmarks()]
    result["comments"] = ctx.GetNotes("comments")
    result["event_after_load"] = ctx.CurEvent()
    step("annotated capture shown")

    row = int(os.environ.get("PP_PANEL_ROW", "2"))
    ui(lambda: panel.select_row(row))
    result["selected_row"] = row
    result["event_after_click"] = ctx.CurEvent()
    result["after_click"] = ui(lambda: panel_state(panel))
    step("row selected")

    ui(lambda: ctx.RaiseDockWindow(panel.top))
    time.sleep(3)  # the UI thread paints meanwhile
    sys.path.insert(0, os.environ["PP_PANEL_TESTDIR"])
    sys.dont_write_bytecode = True  # nothing written into the source tree
    import xwd_png  # noqa: E402 (the test's folder)
    result["screenshot_colours"] = xwd_png.xwd_to_png(os.environ["PP_PANEL_FB"], os.environ["PP_PANEL_PNG"])
    step("screenshot written")
except Exception:
    result["error"] = traceback.format_exc()
save()
sys.stdout.flush()
os._exit(0)  # no questions about unsaved changes, no waiting on the replay thread
