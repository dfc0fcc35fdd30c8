"""`passprobe renderdoc COMMAND ARGS...` as the RenderDoc tests run it.

A run killed by a signal died inside RenderDoc's native library (passprobe_renderdoc.py is
Python; it prints the Python stack of such a crash on stderr). RenderDoc 1.24's replay library
was seen to crash so once, starting a replay on a loaded 2-core machine, and not again in
hundreds of tries: the crash and its stack are printed and the command is run once more; a
second crash is returned to the test, which fails on it.

The commands are started with fork, not vfork: the process running them holds RenderDoc's
library and its threads (and in the sanitizer run the AddressSanitizer runtime, which
intercepts vfork), and a vfork child shares the memory those threads go on changing. Once, in
the sanitizer run, such an exec of passprobe failed with EFAULT ("Bad address") before passprobe
ran; a forked child execs from its own copy.
"""
import signal
import subprocess

subprocess._USE_VFORK = False  # Python 3.11's switch (CPython's Lib/subprocess.py)


def passprobe_renderdoc(passprobe, command, args, env=None):
    cmd = [passprobe, "renderdoc", command] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode < 0:
        print("passprobe renderdoc %s: killed by %s inside RenderDoc's library; its output:\n%s%s"
              "(running it once more)" % (command, signal.Signals(-r.returncode).name, r.stdout, r.stderr))
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return r
