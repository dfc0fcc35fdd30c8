#!/usr/bin/env python3
"""callgrind_cost.py on two made-up callgrind runs whose answer is known: passprobe's
instructions are its own functions' plus the libc they call, never the driver's; per pass and
per draw from the difference of the two runs; the writer thread found by its functions."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAYER = "/x/build/layer_manifest/libVkLayer_passprobe.so"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
DRIVER = "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
LOADER = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"


def app_thread(passes, draws):
    # The loader calls the hooks; a hook calls libc (ours) and the driver (not ours); names
    # are compressed as callgrind does, defined once for all of a run's files.
    return f"""version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
ob=(1) {LOADER}
fl=(1) loader.c
fn=(1) vkCmdBeginRenderPass
1 {7 * passes}
cob=(2) {LAYER}
cfi=(2) vk_cmd.c
cfn=(2) pp_CmdBeginRenderPass
calls={passes} 1
1 {(100 + 40 + 30 + 50 + 1000) * passes}
ob=(2)
fl=(2)
fn=(2)
1 {100 * passes}
cfn=(3) pp_attr_record_pass_begin
calls={passes} 1
1 {(30 + 50) * passes}
cob=(3) {DRIVER}
cfi=(3) lvp.c
cfn=(4) 0x00000000000d31c0
calls={passes} 1
1 {1000 * passes}
cob=(4) {LIBC}
cfi=(4) memset.S
cfn=(5) memset
calls={passes} 1
1 {40 * passes}
fn=(3)
1 {30 * passes}
cob=(4)
cfn=(5)
calls={passes} 1
1 {50 * passes}
fn=(6) pp_CmdDraw
1 {26 * draws}
cob=(3)
cfn=(7) 0x00000000000e2930
calls={draws} 1
1 {200 * draws}
ob=(3)
fn=(4)
1 {1000 * passes}
fn=(7)
1 {200 * draws}
ob=(4)
fn=(5)
1 {90 * passes}
"""


def writer_thread(frames):
    return f"""version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
ob=(2)
fn=(8) pp_attr_trace_frame_write
1 {5000 * frames}
cob=(4)
cfn=(5)
calls={frames} 1
1 {700 * frames}
ob=(4)
fn=(5)
1 {700 * frames}
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        # 3 and 9 frames of 4 passes x 10 draws
        for name, frames in (("short", 3), ("long", 9)):
            with open(os.path.join(d, name + "-01"), "w") as f:
                f.write(app_thread(4 * frames, 40 * frames))
            with open(os.path.join(d, name + "-02"), "w") as f:
                f.write(writer_thread(frames))
        out = subprocess.run([sys.executable, os.path.join(HERE, "callgrind_cost.py"), os.path.join(d, "short"),
                              os.path.join(d, "long"), "6", "4", "10"], capture_output=True, text=True)
    print(out.stdout, out.stderr)
    m = re.search(r"^RESULT (.*)$", out.stdout, re.M)
    if out.returncode != 0 or not m:
        print("FAIL: no RESULT line")
        return 1
    got = dict(kv.split("=") for kv in m.group(1).split())
    want = {"per_pass_recording": "220", "per_pass_recording_own": "130", "per_draw": "26.0",
            "writer_per_frame": "5700"}
    bad = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
    if bad:
        print("FAIL: got, wanted:", bad)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
