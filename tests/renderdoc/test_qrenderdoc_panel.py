#!/usr/bin/env python3
"""test_qrenderdoc_panel.py PASSPROBE RUN_OUT PLAIN_RUN_OUT WORKDIR

The qrenderdoc panel, in the real qrenderdoc on Xvfb: `passprobe renderdoc install` into a
fresh home, RUN_OUT's capture (a Vulkan or an OpenGL ES program's) annotated, qrenderdoc started with qrenderdoc_panel_drive.py,
which opens PLAIN_RUN_OUT's capture (not annotated) and then the annotated copy in the panel,
and clicks a pass.
Asserts: the extension was installed and loaded at start; PLAIN_CAPTURE's panel says it carries
no passprobe data; the annotated capture's panel has one row per pass of the embedded section
with its EID and name; qrenderdoc read passprobe's bookmarks and comments from the capture;
clicking a row moved the current event to that pass's first EID and marked the row. Writes
WORKDIR/panel.png, a screenshot for a person to look at. Exit 77 when qrenderdoc, Xvfb or
python3-renderdoc is missing.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "renderdoc"))
import passprobe_section as section  # noqa: E402
from rdoc_cli import passprobe_renderdoc  # noqa: E402

failures = []

X11 = None


def x11_load():
    """Xlib, to see when Xvfb takes clients (qrenderdoc's Qt needs it too)."""
    global X11
    X11 = ctypes.CDLL("libX11.so.6")
    X11.XOpenDisplay.restype = ctypes.c_void_p
    X11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    X11.XCloseDisplay.argtypes = [ctypes.c_void_p]


def xvfb_start(fbdir):
    """An Xvfb of its own, its screen dumped in fbdir; (process, display number, a connection).
    The display is picked here, not with -displayfd, which makes Xvfb exit when it meets a
    display whose previous server is still going away; the test waits until a client can
    connect, and keeps that connection open to the end: Xvfb resets when its last client
    leaves, and qrenderdoc connects more than once at start."""
    first = 100 + os.getpid() % 400
    for n in range(first, first + 40):
        if os.path.exists("/tmp/.X%d-lock" % n) or os.path.exists("/tmp/.X11-unix/X%d" % n):
            continue
        xvfb = subprocess.Popen(["Xvfb", ":%d" % n, "-noreset", "-screen", "0", "1600x900x24", "-fbdir", fbdir,
                                 "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if xvfb.poll() is not None:
                break
            keep = X11.XOpenDisplay((":%d" % n).encode())
            if keep:
                print("Xvfb on :%d" % n)
                return xvfb, str(n), keep
            time.sleep(0.1)
        if xvfb.poll() is None:
            xvfb.terminate()
        xvfb.wait()
    raise RuntimeError("no Xvfb display could be started (:%d to :%d)" % (first, first + 39))


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def capture_of(run):
    path = os.path.join(run, "report.json")
    if not os.path.isfile(path):
        path = os.path.join(run, "gles", "report.json")  # an OpenGL ES program's run
    with open(path) as f:
        return json.load(f)["renderdoc"]["captures"][0]["path"]


def main():
    passprobe, run, plain_run, work = sys.argv[1:5]
    for prog, pkg in (("qrenderdoc", "qrenderdoc"), ("Xvfb", "xvfb")):
        if not shutil.which(prog):
            print("SKIP: not installed: program %s (Debian: %s)" % (prog, pkg))
            return 77
    try:
        x11_load()
    except OSError:
        print("SKIP: not installed: libX11 (Debian: libx11-6)")
        return 77
    python = os.environ.get("PP_RDOC_PYTHON", "/usr/bin/python3")
    if subprocess.run([python, "-c", "import renderdoc"], capture_output=True).returncode != 0:
        print("SKIP: not installed: RenderDoc's Python module for %s (Debian: python3-renderdoc)" % python)
        return 77
    capture, plain = (capture_of(r) for r in (run, plain_run))
    shutil.rmtree(work, ignore_errors=True)
    home = os.path.join(work, "home")
    data = os.path.join(home, ".local", "share", "qrenderdoc")
    os.makedirs(data)
    # A first start asks about analytics and updates in modal dialogs: answered here, for the
    # test only (install leaves those settings to the user).
    config = os.path.join(data, "UI.config")
    with open(config, "w") as f:
        json.dump({"rdocConfigData": 1, "Analytics_TotalOptOut": True, "CheckUpdate_AllowChecks": False,
                   "Tips_HasSeenFirst": True}, f)
    env = dict(os.environ, HOME=home, XDG_RUNTIME_DIR=work)
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)

    r = passprobe_renderdoc(passprobe, "install", [], env=env)
    print(r.stdout + r.stderr, end="")
    check(r.returncode == 0, "passprobe renderdoc install exits 0")
    ext = os.path.join(data, "extensions", "passprobe")
    check(all(os.path.isfile(os.path.join(ext, n)) for n in ("extension.json", "__init__.py", "passprobe_section.py")),
          "the extension's files are in %s" % ext)
    with open(config) as f:
        cfg = json.load(f)
    check(cfg.get("AlwaysLoad_Extensions") == ["passprobe"] and cfg.get("Analytics_TotalOptOut") is True,
          "UI.config lists the extension to load at start and keeps the other settings")

    annotated = os.path.join(work, "annotated.rdc")
    r = passprobe_renderdoc(passprobe, "annotate", [capture, "-o", annotated])
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0:
        check(False, "passprobe renderdoc annotate exits 0")
        return 1
    sec = subprocess.run([python, "-c",
                          "import renderdoc as rd,sys\nrd.InitialiseReplay(rd.GlobalEnvironment(),[])\n"
                          "c=rd.OpenCaptureFile();c.OpenFile(sys.argv[1],'',None)\n"
                          "i=c.FindSectionByName(sys.argv[2]);sys.stdout.write(bytes(c.GetSectionContents(i)).decode())\n"
                          "c.Shutdown();rd.ShutdownReplay()", annotated, section.SECTION_NAME],
                         capture_output=True, text=True)
    doc = section.section_parse(sec.stdout)
    want_rows = [(p["eid"], p["name"]) for p in doc["passes"]]

    fbdir = os.path.join(work, "fb")
    os.makedirs(fbdir)
    xvfb, display, keep = xvfb_start(fbdir)
    result_path = os.path.join(work, "panel.json")
    png = os.path.join(work, "panel.png")
    env.update(DISPLAY=":" + display, PP_PANEL_RESULT=result_path, PP_PANEL_CAPTURE=annotated,
               PP_PANEL_PLAIN=plain, PP_PANEL_FB=os.path.join(fbdir, "Xvfb_screen0"), PP_PANEL_PNG=png,
               PP_PANEL_TESTDIR=HERE, PP_PANEL_ROW="2")
    try:
        t0 = time.time()
        q = subprocess.run(["qrenderdoc", "--ui-python", os.path.join(HERE, "qrenderdoc_panel_drive.py")],
                           env=env, capture_output=True, text=True, timeout=240)
        print("qrenderdoc exited %d after %.0f s" % (q.returncode, time.time() - t0))
    except subprocess.TimeoutExpired:
        q = None
        print("qrenderdoc did not finish within 240 s")
    finally:
        X11.XCloseDisplay(keep)
        xvfb.terminate()
        xvfb.wait()
    if not os.path.exists(result_path):
        check(False, "the drive script wrote its result (qrenderdoc output follows)")
        if q:
            print(q.stdout[-4000:] + q.stderr[-4000:])
        return 1
    with open(result_path) as f:
        res = json.load(f)
    print("drive steps: " + ", ".join(res.get("steps", [])))
    if res.get("error"):
        print(res["error"])
    check(res.get("extension_loaded") is True, "qrenderdoc loaded the passprobe extension at start")
    plain_state = res.get("plain") or {}
    check("carries no passprobe data" in plain_state.get("header", "") and not plain_state.get("rows"),
          "a capture without passprobe data: the panel says so, and has no rows")
    ann = res.get("annotated") or {}
    got_rows = [(r["eid"], r["name"]) for r in ann.get("rows", [])]
    check(got_rows == want_rows, "the panel has one row per pass with its EID and name: %s" % got_rows)
    check(("frame %s of" % doc["capture"]["frame"]) in ann.get("header", ""), "the panel's header names the frame")
    marks = [(b["eid"], b["text"]) for b in res.get("bookmarks", [])]
    check(marks == [(p["eid"], section.bookmark_text(p)) for p in doc["passes"]],
          "qrenderdoc shows passprobe's bookmarks: %s" % marks)
    check(section.COMMENTS_BEGIN in (res.get("comments") or ""), "qrenderdoc shows passprobe's comments")
    row = res.get("selected_row")
    if row is not None and row < len(want_rows):
        eid = want_rows[row][0]
        check(res.get("event_after_load") != eid, "before the click the current event is elsewhere (%s)" % res.get("event_after_load"))
        check(res.get("event_after_click") == eid, "clicking row %d moved the current event to EID %d (now %s)" %
              (row, eid, res.get("event_after_click")))
        buttons = [r["button"] for r in (res.get("after_click") or {}).get("rows", [])]
        check(len(buttons) > row and buttons[row].startswith("\u25b6") and
              sum(b.startswith("\u25b6") for b in buttons) == 1, "that row, alone, is marked as holding the current event")
    else:
        check(False, "a row was clicked")
    check(os.path.isfile(png) and (res.get("screenshot_colours") or 0) > 8,
          "the screenshot %s was written and shows something (%s colours)" % (png, res.get("screenshot_colours")))
    print("screenshot: %s" % png)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
