#!/usr/bin/env python3
"""Unit test of untar.py: the 0.1% rule between the default and deny, a
missing or failed run, the capped table, bad input.  Prints TAP."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import tap  # noqa: E402
import untar  # noqa: E402

results = []


def check(cond, name):
    results.append((bool(cond), name))


def rec(config, rep=1, pages=25000, thp=0, files=3945, rc=0, cap="", oom=0):
    return {"type": "untar", "config": config, "rep": rep, "cap": cap, "rc": rc,
            "files": files, "file_pages": pages, "thp_pages": thp, "untar_s": 10.0 + rep,
            "read_s": 2.0, "oom_kill": oom, "max_events": 0, "error": ""}


def runs(default_pages=25000):
    out = []
    for rep in (1, 2, 3):
        out += [rec("ramfs", rep, default_pages), rec("ramfs-within", rep, 25400, 512),
                rec("ramfs-deny", rep), rec("tmpfs", rep)]
    return out + [rec("ramfs-always", pages=262144, thp=262144, files=512, rc=1, cap="1G", oom=1),
                  rec("tmpfs-always", pages=262100, thp=261632, files=530, rc=1, cap="1G")]


def run(recs):
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "r.jsonl"), os.path.join(d, "report.md")
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
        rc = untar.main([path, "--out", out])
        return rc, open(out).read() if os.path.exists(out) else ""


rc, text = run(runs())
check(rc == 0 and "within 0.1%" in text and "+0.000%" in text, "the same pages as deny pass")
check("| ramfs huge=within_size | 3945 | 25400 (25400-25400) | 512 (512-512) | 12.00 (11.00-13.00) |"
      in text, "a row: files, pages and PMD pages, unpack time as median (range)")
check("| ramfs huge=always | 512 of 3945 | 262144 | 262144 | 1 | 0 | 1 |" in text,
      "the capped table: files unpacked of the whole, pages, OOM kills, tar's exit")
rc, text = run(runs(25026))
check(rc == 1 and "NOT within 0.1%" in text and "+0.104%" in text, "0.104% more than deny fails")
rc, text = run(runs(25024))
check(rc == 0 and "+0.096%" in text, "0.096% more than deny passes")
rc, text = run([r for r in runs() if r["config"] != "tmpfs"])
check(rc == 1 and "Problem: tmpfs: no run" in text, "a configuration with no run fails")
bad = runs()
bad[0]["rc"] = 1
rc, text = run(bad)
check(rc == 1 and "ramfs rep 1: tar exited 1" in text, "an unpack that failed fails")
short = runs()
short[1]["files"] = 3944
rc, text = run(short)
check(rc == 1 and "different numbers of files: [3944, 3945]" in text,
      "a run that unpacked fewer files fails")
rc = untar.main(["/nonexistent.jsonl", "--out", os.devnull])
check(rc == 2, "an unreadable file: exit 2")
tap.finish(results)
