#!/usr/bin/env python3
"""lsan_tracer_crashes.py LOG_DIR SET_ASIDE_DIR

Sets aside the sanitizer logs in LOG_DIR (ASAN_OPTIONS/UBSAN_OPTIONS log_path files) that say
only that LeakSanitizer's own stop-the-world tracer crashed while a process exited ("Tracer
caught signal 11", "LeakSanitizer has encountered a fatal error"): an intermittent fault of the
sanitizer runtime, seen in many projects (google/sanitizers#1353), which reports nothing about
the program. A log that holds any report as well (an AddressSanitizer error, a leak, an
UndefinedBehaviorSanitizer runtime error) stays where it is. Each log set aside is printed on
stderr; the number of them on stdout. .ci/run then runs the tests that failed once more.
"""
import os
import re
import shutil
import sys

TRACER = "LeakSanitizer has encountered a fatal error"
REPORT = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer: detected|runtime error:|SUMMARY: ")


def tracer_crash_only(text):
    return TRACER in text and not REPORT.search(text)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    logs, aside = argv[1], argv[2]
    moved = 0
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        path = os.path.join(logs, name)
        with open(path, errors="replace") as f:
            text = f.read()
        if not tracer_crash_only(text):
            continue
        os.makedirs(aside, exist_ok=True)
        shutil.move(path, os.path.join(aside, name))
        moved += 1
        print("LeakSanitizer's tracer crashed in %s (no report; set aside in %s):\n%s" % (name, aside, text.strip()),
              file=sys.stderr)
    print(moved)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
