#!/usr/bin/env python3
"""Host side: TAP on stdin -> JSON result lines for summarize.py (argv[1] = suite)."""
import json
import re
import sys

suite = sys.argv[1]
n = 0
for line in sys.stdin:
    line = line.rstrip("\n")
    m = re.match(r"(not )?ok \d+ (?:- )?(.*?)(?:\s*#\s*(SKIP|skip)\s*(.*))?$", line)
    if not m:
        continue
    n += 1
    st = "fail" if m.group(1) else ("skip" if m.group(3) else "pass")
    print(json.dumps({"type": "tap", "suite": suite, "status": st,
                      "name": m.group(2), "reason": m.group(4) or ""}))
if n == 0:
    print(json.dumps({"type": "tap", "suite": suite, "status": "fail",
                      "name": "printed no TAP result"}))
