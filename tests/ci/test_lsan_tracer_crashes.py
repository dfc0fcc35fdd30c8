#!/usr/bin/env python3
"""test_lsan_tracer_crashes.py SCRIPT WORKDIR

.ci/lsan_tracer_crashes.py on sanitizer logs written here in the runtime's own words: a log that
says only that LeakSanitizer's tracer crashed is set aside (and counted, and printed); a leak
report, an AddressSanitizer error, an UndefinedBehaviorSanitizer runtime error, and a tracer
crash in the same log as a leak report all stay; a missing directory counts 0.
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


TRACER = ("Tracer caught signal 11: addr=0x28 pc=0x7f66f26e80f0 sp=0x7f66e21fdd10\n"
          "==python3==21026==LeakSanitizer has encountered a fatal error.\n"
          "==python3==21026==HINT: For debugging, try setting environment variable "
          "LSAN_OPTIONS=verbosity=1:log_threads=1\n"
          "==python3==21026==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\n")
LEAK = ("=================================================================\n"
        "==bench_api==31682==ERROR: LeakSanitizer: detected memory leaks\n\n"
        "Direct leak of 48 byte(s) in 1 object(s) allocated from:\n"
        "    #0 0x7fbc26cb89cf in __interceptor_malloc\n\n"
        "SUMMARY: AddressSanitizer: 48 byte(s) leaked in 1 allocation(s).\n")
ASAN = ("==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010\n"
        "SUMMARY: AddressSanitizer: heap-use-after-free\n")
UBSAN = "pp_x.c:10:5: runtime error: signed integer overflow\n"


def main(script, work):
    shutil.rmtree(work, ignore_errors=True)
    logs, aside = os.path.join(work, "logs"), os.path.join(work, "aside")
    os.makedirs(logs)
    files = {"asan.python3.21026": TRACER, "asan.bench_api.31682": LEAK, "asan.pp_test.7": ASAN,
             "ubsan.pp_test.8": UBSAN, "asan.python3.99": TRACER + LEAK}
    for name, text in files.items():
        with open(os.path.join(logs, name), "w") as f:
            f.write(text)
    r = subprocess.run([sys.executable, script, logs, aside], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.strip() == "1", "one log set aside: exit %d, stdout %r" %
          (r.returncode, r.stdout))
    check(sorted(os.listdir(aside)) == ["asan.python3.21026"], "the tracer crash alone is set aside: %s" %
          (os.listdir(aside) if os.path.isdir(aside) else "none"))
    check(sorted(os.listdir(logs)) == sorted(n for n in files if n != "asan.python3.21026"),
          "every report stays, the tracer crash beside a leak report too: %s" % sorted(os.listdir(logs)))
    check("asan.python3.21026" in r.stderr and "Tracer caught signal 11" in r.stderr,
          "what is set aside is printed with its name")
    r = subprocess.run([sys.executable, script, os.path.join(work, "none"), aside], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.strip() == "0", "no log directory: 0 (%r)" % r.stdout)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("lsan_tracer_crashes: all checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
