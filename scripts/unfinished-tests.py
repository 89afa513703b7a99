#!/usr/bin/env python3
"""Names the tests a `swift test` log shows as started and never ended (passed or failed).

    python3 scripts/unfinished-tests.py LOG
"""
import re
import sys

started, ended = [], set()
name = r'(?:"(.+)"|(\S+\(\)))'
with open(sys.argv[1], errors="replace") as log:
    for line in log:
        line = line.rstrip("\n")
        m = re.match(r'^◇ Test ' + name + r' started\.$', line)
        if m:
            started.append(m.group(1) or m.group(2))
        m = re.match(r'^[✔✘━] Test ' + name + r'(?: with \d+ test cases?)? (?:passed|failed) after', line)
        if m:
            ended.add(m.group(1) or m.group(2))
unfinished = [t for t in started if t not in ended]
for test in unfinished:
    print("  " + test)
if not unfinished:
    print("  (none: the run hung after its tests)")
