#!/usr/bin/env python3
"""check_skips.py STEP LOG [EXPECTED]: the tests CTest skipped in LOG (its output: the lines
"N - NAME (Skipped)" after "The following tests did not run:") that EXPECTED
(.ci/expected-skips next to this script) does not allow in STEP. Prints each skip with its
reason or as unexpected; exit status 1 when one is unexpected or EXPECTED cannot be read, else 0.
"""
import os
import re
import sys

SKIP_RE = re.compile(r"^\s*\d+ - (\S+) \(Skipped\)\s*$")


def expected_load(path):
    rules = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise ValueError("%s:%d: want STEP TEST_NAME_REGEX REASON, got %r" % (path, n, line))
            try:
                rules.append((parts[0], re.compile(parts[1]), parts[2]))
            except re.error as e:
                raise ValueError("%s:%d: %s is not a regular expression (%s)" % (path, n, parts[1], e))
    return rules


def skipped_in(log):
    names = []
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SKIP_RE.match(line)
            if m and m.group(1) not in names:
                names.append(m.group(1))
    return names


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: check_skips.py STEP LOG [EXPECTED]\n")
        return 2
    step, log = argv[1], argv[2]
    expected = argv[3] if len(argv) == 4 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected-skips")
    try:
        rules = expected_load(expected)
        names = skipped_in(log)
    except (OSError, ValueError) as e:
        print("check_skips: %s" % e)
        return 1
    unexpected = 0
    for name in names:
        why = next((r for s, rx, r in rules if s in (step, "*") and rx.fullmatch(name)), None)
        if why:
            print("skipped, expected: %s (%s)" % (name, why))
        else:
            print("skipped, NOT EXPECTED in step %s: %s (add it to %s with its reason, or fix what made it skip)"
                  % (step, name, expected))
            unexpected += 1
    print("%s: %d skipped, %d not expected" % (step, len(names), unexpected))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
