#!/usr/bin/env python3
"""The real-world case's table (make bench-untar): a kernel-source tar
unpacked and read back, per configuration.

usage: untar.py RESULTS.jsonl --out REPORT.md
Reads guest/untar.sh's "untar" records.  Times are the median over the
repetitions with their range; pages are the memcg's page cache after the
unpack, identical in every repetition unless something is wrong, so the
range shows it.  The mount without huge= must hold its pages within 0.1%
of the 4 KiB pages of deny; the capped runs show how far huge=always gets
in 1 GiB.  Exit 1 if that check fails or a run is missing or failed, 2 on
unreadable input."""
import argparse
import statistics
import sys

import report

UNCAPPED = [("ramfs", "ramfs, no huge= (the default, never)"),
            ("ramfs-within", "ramfs huge=within_size"),
            ("ramfs-deny", "ramfs under deny (4 KiB pages)"),
            ("tmpfs", "tmpfs huge=never")]
CAPPED = [("ramfs-always", "ramfs huge=always"), ("tmpfs-always", "tmpfs huge=always")]
BASE, DEFAULT, SLACK = "ramfs-deny", "ramfs", 0.001


def spread(vals, fmt="{:.2f}"):
    """median (min-max)"""
    return (fmt.format(statistics.median(vals)) + " (" + fmt.format(min(vals)) + "-"
            + fmt.format(max(vals)) + ")")


def build(recs):
    """The report's lines and the problems found."""
    by = {}
    for r in recs:
        by.setdefault(r["config"], []).append(r)
    problems = [f"{c}: no run" for c, _ in UNCAPPED + CAPPED if c not in by]
    problems += [f"{r['config']} rep {r['rep']}: tar exited {r['rc']} ({r.get('error', '')})"
                 for c, _ in UNCAPPED for r in by.get(c, []) if r["rc"] != 0]
    counts = {r["files"] for c, _ in UNCAPPED for r in by.get(c, [])}
    if len(counts) > 1:
        problems.append(f"the runs unpacked different numbers of files: {sorted(counts)}")
    out = ["## Unpacking a kernel-source tar, then reading it back", "",
           "| configuration | files | page-cache pages | in PMD folios | unpack s | read s |",
           "|---|---|---|---|---|---|"]
    for c, label in UNCAPPED:
        rs = by.get(c, [])
        if not rs:
            continue
        out.append(f"| {label} | {rs[0]['files']} | {spread([r['file_pages'] for r in rs], '{}')} "
                   f"| {spread([r['thp_pages'] for r in rs], '{}')} "
                   f"| {spread([r['untar_s'] for r in rs])} | {spread([r['read_s'] for r in rs])} |")
    out += ["", f"Median and range over {max((len(by.get(c, [])) for c, _ in UNCAPPED), default=0)} "
            "runs each, interleaved, in one boot; pages from the memcg each unpack ran in."]
    if by.get(BASE) and by.get(DEFAULT):
        b = statistics.median(r["file_pages"] for r in by[BASE])
        d = statistics.median(r["file_pages"] for r in by[DEFAULT])
        ok = b > 0 and abs(d - b) <= SLACK * b
        out.append(f"The default holds {d:g} pages against deny's {b:g} "
                   f"({(d / b - 1) * 100 if b else 0:+.3f}%): "
                   f"{'within' if ok else 'NOT within'} {SLACK * 100:g}%.")
        if not ok:
            problems.append("the default is not within 0.1% of deny")
    total = by[BASE][0]["files"] if by.get(BASE) else None
    out += ["", "## huge=always in a memcg capped at 1 GiB", "",
            "| configuration | files unpacked | page-cache pages | in PMD folios | OOM kills "
            "| memory.events max | tar exit |", "|---|---|---|---|---|---|---|"]
    for c, label in CAPPED:
        for r in by.get(c, []):
            of = f" of {total}" if total else ""
            out.append(f"| {label} | {r['files']}{of} | {r['file_pages']} | {r['thp_pages']} "
                       f"| {r['oom_kill']} | {r['max_events']} | {r['rc']} |")
    out += [""] + [f"Problem: {p}" for p in problems]
    return out, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    try:
        recs = [r for _, _, r in report.read_lines([a.results]) if r.get("type") == "untar"]
    except report.InputError as e:
        print(f"untar.py: {e}", file=sys.stderr)
        return 2
    lines, problems = build(recs)
    with open(a.out, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
