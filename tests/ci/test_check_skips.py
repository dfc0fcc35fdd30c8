#!/usr/bin/env python3
"""test_check_skips.py CHECK_SKIPS EXPECTED WORKDIR

.ci/check_skips.py on CTest logs written here, in CTest's own words ("The following tests did
not run:", "N - NAME (Skipped)"): a skip the list names for that step passes; one it does not
name (in no step, or only in another step) fails the check with a line naming the test; a log
without skips passes; a list line without a reason, or with a broken regex, fails. Then the
project's own list: it loads, and allows what it says (sink_fork under the sanitizers) and
nothing more (sink_fork in the Release suite).
"""
import os
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def ctest_log(path, skipped):
    with open(path, "w") as f:
        f.write("100% tests passed, 0 tests failed out of 12\n\nTotal Test time (real) =   1.00 sec\n")
        if skipped:
            f.write("\nThe following tests did not run:\n")
            for i, name in enumerate(skipped):
                f.write("\t%d - %s (Skipped)\n" % (500 + i, name))


def run(script, step, log, expected):
    r = subprocess.run([sys.executable, script, step, log, expected], capture_output=True, text=True)
    print("$ check_skips.py %s %s -> %d\n%s" % (step, os.path.basename(log), r.returncode, r.stdout + r.stderr), end="")
    return r


def main():
    script, project_list, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    listed = os.path.join(work, "expected")
    with open(listed, "w") as f:
        f.write("# a comment\nasan  sink_fork  not fork-safe\n*  replay_order_.*  a loaded machine\n")
    log = os.path.join(work, "ctest.log")

    ctest_log(log, ["sink_fork"])
    r = run(script, "asan", log, listed)
    check(r.returncode == 0 and "skipped, expected: sink_fork (not fork-safe)" in r.stdout,
          "a skip the list names for the step passes, with its reason")
    r = run(script, "release", log, listed)
    check(r.returncode == 1 and "NOT EXPECTED in step release: sink_fork" in r.stdout,
          "the same skip in a step the list does not name for it fails")
    ctest_log(log, ["replay_order_gl", "layer_basic"])
    r = run(script, "tsan", log, listed)
    check(r.returncode == 1 and "NOT EXPECTED in step tsan: layer_basic" in r.stdout
          and "skipped, expected: replay_order_gl" in r.stdout, "an unlisted skip fails; a '*' line allows its test in every step")
    ctest_log(log, ["sink_fork_more"])
    r = run(script, "asan", log, listed)
    check(r.returncode == 1, "the regex matches the whole name, not a prefix")
    ctest_log(log, [])
    r = run(script, "release", log, listed)
    check(r.returncode == 0 and "0 skipped" in r.stdout, "a log without skips passes")
    bad = os.path.join(work, "bad")
    for text, what in (("asan sink_fork\n", "a line without a reason"), ("asan sink_fork( reason\n", "a broken regex")):
        with open(bad, "w") as f:
            f.write(text)
        r = run(script, "asan", log, bad)
        check(r.returncode == 1 and "check_skips:" in r.stdout, "%s fails the check" % what)

    ctest_log(log, ["sink_fork"])
    check(run(script, "asan", log, project_list).returncode == 0, "the project's list loads and allows sink_fork under ASan")
    check(run(script, "release", log, project_list).returncode == 1, "the project's list does not allow sink_fork in the Release suite")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
