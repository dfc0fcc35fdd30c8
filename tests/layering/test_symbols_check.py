#!/usr/bin/env python3
"""test_symbols_check.py CHECK_LAYERING SOURCE_DIR WORKDIR

check_layering.py --symbols on small build trees made here (a CMake-like layout: objects under
FOLDER/CMakeFiles/TARGET.dir/, listed in its link.txt), compiled with cc: it passes a call that
goes down, and fails, naming what it found, on
  - a call up (layer/common calling attribution/model), and the cycle it makes with a call down;
  - a call beside (attribution/diag calling attribution/sinks: one floor, two folders);
  - a cycle between two libraries of one folder;
and ignores an object CMake no longer links (a stale .o not in link.txt). Then check_names.py
(the naming rule) on such trees: it passes exports named after their file, hooks and main, and
fails a library or tool export named otherwise, and two sources of one name.
"""
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def tree(work, name, objects):
    """objects: (folder, target, source name, C text). Returns the build directory."""
    build = os.path.join(work, name)
    shutil.rmtree(build, ignore_errors=True)
    by_target = {}
    for folder, target, src, text in objects:
        d = os.path.join(build, folder, "CMakeFiles", target + ".dir")
        os.makedirs(d, exist_ok=True)
        c = os.path.join(d, src)
        with open(c, "w") as f:
            f.write(text)
        subprocess.run(["cc", "-c", "-o", c + ".o", c], check=True)
        by_target.setdefault((folder, target), []).append("CMakeFiles/%s.dir/%s.o" % (target, src))
    for (folder, target), objs in by_target.items():
        with open(os.path.join(build, folder, "CMakeFiles", target + ".dir", "link.txt"), "w") as f:
            f.write("/usr/bin/ar qc lib%s.a %s\n" % (target, " ".join(objs)))
    return build


def run(script, source, build):
    r = subprocess.run([sys.executable, script, source, "--symbols", build], capture_output=True, text=True)
    print("$ check_layering.py --symbols %s -> %d\n%s" % (os.path.basename(build), r.returncode, r.stdout + r.stderr), end="")
    return r


def main():
    script, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    down = ("layer/common", "pp_core", "clock.c", "int pp_clock(void) { return 1; }\n")
    model = ("attribution/model", "pp_attribution", "frame.c", "int pp_clock(void);\nint attr_frame(void) { return pp_clock(); }\n")
    b = tree(work, "down", [down, model])
    # a stale object of an older build, not in link.txt: calls up, and must not count
    stale = os.path.join(b, "layer/common/CMakeFiles/pp_core.dir/old.c")
    with open(stale, "w") as f:
        f.write("int attr_frame(void);\nint old(void) { return attr_frame(); }\n")
    subprocess.run(["cc", "-c", "-o", stale + ".o", stale], check=True)
    r = run(script, source, b)
    check(r.returncode == 0, "a call down passes; a stale object CMake no longer links is not read")

    up = ("layer/common", "pp_core", "clock.c",
          "int attr_frame(void);\nint pp_clock(void) { return 1; }\nint pp_up(void) { return attr_frame(); }\n")
    r = run(script, source, tree(work, "up", [up, model]))
    check(r.returncode == 1 and "layer/common/clock.c uses attr_frame of attribution/model/frame.c" in r.stdout,
          "a call up fails, naming the call")
    check("libraries in a cycle: pp_attribution -> pp_core" in r.stdout, "... and the cycle of libraries it makes")
    check("files of different folders in a cycle" in r.stdout, "... and the cycle of files")

    sink = ("attribution/sinks", "pp_attribution_sink", "out.c", "void pp_sink_out(void) {}\n")
    diag = ("attribution/diag", "pp_attribution_diag", "rules.c", "void pp_sink_out(void);\nvoid rule(void) { pp_sink_out(); }\n")
    r = run(script, source, tree(work, "beside", [sink, diag]))
    check(r.returncode == 1 and "attribution/diag/rules.c uses pp_sink_out of attribution/sinks/out.c" in r.stdout,
          "a call beside (the rules calling a sink) fails")

    a = ("attribution/sinks", "pp_attribution_sink", "a.c", "void b(void);\nvoid a(void) { b(); }\n")
    bb = ("attribution/sinks", "pp_attribution_replay", "b.c", "void a(void);\nvoid b(void) { a(); }\n")
    r = run(script, source, tree(work, "cycle", [a, bb]))
    check(r.returncode == 1 and "libraries in a cycle: pp_attribution_replay -> pp_attribution_sink" in r.stdout,
          "two libraries of one folder calling each other fail")

    # The naming rule (check_names.py) on the same kind of tree.
    names = os.path.join(os.path.dirname(os.path.abspath(script)), "check_names.py")

    def run_names(build):
        r = subprocess.run([sys.executable, names, source, build], capture_output=True, text=True)
        print("$ check_names.py %s -> %d\n%s" % (os.path.basename(build), r.returncode, r.stdout + r.stderr), end="")
        return r

    good = [("attribution/model", "pp_attribution", "attr_frame.c",
             "int pp_attr_frame_end(void) { return 1; }\nint pp_attr_frame = 2;\n"),
            ("intercept/vulkan", "pp_intercept_vulkan", "vk_queue.c", "int pp_QueueSubmit(void) { return 0; }\n"),
            ("tools/passprobe", "passprobe", "passprobe_run.c",
             "int passprobe_run_main(void) { return 0; }\nint main(void) { return 0; }\n")]
    r = run_names(tree(work, "names_good", good))
    check(r.returncode == 0, "names: exports that begin with their file's name, a hook and main pass")
    r = run_names(tree(work, "names_bad", good + [
        ("attribution/model", "pp_attribution", "attr_cpu.c", "int pp_cpu_cost_add(void) { return 0; }\n"),
        ("tools/passprobe", "passprobe", "passprobe_load.c", "int cli_exe_dir(void) { return 0; }\n")]))
    check(r.returncode == 1 and "attribution/model/attr_cpu.c exports pp_cpu_cost_add: its names begin with pp_attr_cpu_"
          in r.stdout, "names: a library export named after another module fails")
    check("tools/passprobe/passprobe_load.c exports cli_exe_dir: its names begin with passprobe_load_" in r.stdout,
          "names: a tool's export not named after its file fails")
    r = run_names(tree(work, "names_twice", good + [
        ("attribution/sinks", "pp_attribution_sink", "attr_frame.c", "int pp_attr_frame_write(void) { return 0; }\n")]))
    check(r.returncode == 1 and "2 sources named attr_frame" in r.stdout, "names: two sources of one name fail")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
