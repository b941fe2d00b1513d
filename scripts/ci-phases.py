#!/usr/bin/env python3
"""The phases of one make test (a cold CI run, say), from what it left.

usage: ci-phases.py CI.LOG OUT CACHE
CI.LOG is make test's output with a first line "start HH:MM:SS" and a last
line "end HH:MM:SS ..." (the caller's); OUT and CACHE the run's out/ and
cache directories.  Prints one line a phase: when it began and ended and
how long it took, from the notes' timestamps, each guest's meta.json
(its boot) and the images' times (a build's end)."""
import datetime
import glob
import json
import os
import re
import sys

NOTE = re.compile(r"^\[(\d\d:\d\d:\d\d)\] (.*)")


def hms(s):
    return datetime.datetime.strptime(s, "%H:%M:%S")


def main(argv):
    log, out, cache = argv
    lines = open(log).read().splitlines()
    start = hms(lines[0].split()[1])
    end = hms(next(x for x in reversed(lines) if x.startswith("end ")).split()[1])
    notes = [(hms(m.group(1)), m.group(2)) for x in lines for m in [NOTE.match(x)] if m]
    for path in glob.glob(os.path.join(out, "kernel-*.log")) + glob.glob(os.path.join(out, "test-all-*.log")):
        notes += [(hms(m.group(1)), m.group(2)) for x in open(path) for m in [NOTE.match(x)] if m]

    def first(prefix):
        return min((t for t, n in notes if n.startswith(prefix)), default=None)

    rows = []

    def row(name, a, b):
        if a and b:
            rows.append((a, f"{name:<28} {a:%H:%M:%S} - {b:%H:%M:%S} {int((b - a).total_seconds()):>5} s"))

    row("tree", start, first("applied"))
    row("initramfs", first("applied"), first("initramfs:"))
    builds = sorted((datetime.datetime.fromtimestamp(os.path.getmtime(p)), os.path.basename(p))
                    for p in glob.glob(os.path.join(cache, "images", "*.bzImage")))
    day = start.date()
    for t, name in builds:
        v = name.rsplit("-", 1)[0]
        t = datetime.datetime.combine(day, t.time())
        row(f"build {v}", first(f"configuring {v} "), t)
    for meta in sorted(glob.glob(os.path.join(out, "test-*", "meta.json"))):
        m = json.load(open(meta))
        if "date" not in m:
            continue
        # meta.json's date is UTC; the log's and the files' times are local.
        boot = datetime.datetime.strptime(m["date"], "%Y-%m-%dT%H:%M:%SZ")
        boot = boot.replace(tzinfo=datetime.timezone.utc).astimezone().replace(tzinfo=None)
        boot = datetime.datetime.combine(day, boot.time())
        v = m["suite"][len("test-"):]
        name = "host-side suites" if v == "host" else f"guest {v}"
        # Its end: its summary.json.
        summ = os.path.join(os.path.dirname(meta), "summary.json")
        if os.path.exists(summ):
            t = datetime.datetime.fromtimestamp(os.path.getmtime(summ))
            row(name, boot, datetime.datetime.combine(day, t.time()))
    rows.sort()
    print(f"{'total':<28} {start:%H:%M:%S} - {end:%H:%M:%S} {int((end - start).total_seconds()):>5} s")
    for _, text in rows:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
