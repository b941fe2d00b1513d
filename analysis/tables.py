#!/usr/bin/env python3
"""Regenerate the result tables of README.md and the cover letter from
saved results, so that no figure in them is typed by hand.

usage: tables.py [--out DIR] [--only NAME ...] FILE...

Each table stands between two marker lines in FILE:
    <!-- tables:NAME begin -->
    ...
    <!-- tables:NAME end -->
and everything between them is replaced.  NAME is one of
    status  one line: which series the tables below describe
    bench   headline table, wall clock (out/bench, make bench)
    counts  headline table, instruction count (out/bench-counts, make bench)
    iozone  the IOzone-like table beside the 2013 posts (both of the above)
    firsttouch  first stores after MADV_WILLWRITE, MADV_POPULATE_WRITE, no
            hint (out/bench, make bench)
    smallfiles  the small-file benchmark (out/bench and out/bench-counts, make bench)
    collapse    MADV_COLLAPSE time and random reads before/after (out/bench)
    summary what the bench and counts tables show, in sentences computed from
            them (out/bench, out/bench-counts)
    gate    stock vs patched huge=never (out/icount-stock, -patched, make bench-icount)
    insns   instructions per call by kernel function (out/insns, make insns)
    tests   the counts of make test (out/test-patched, -patched-debug)

Each table names the commit, series, kernel and date of its data
(meta.json, written by scripts/bench.sh and test.sh at measurement time).
Data that are missing, or were measured on another series than
thp-series/ holds now, fail the whole run (exit 1, every problem named)
and no file is written: old figures are never presented as today's."""
import argparse
import datetime
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap

import gate
import report

TOP = report.TOP
SERIES_DIR = os.path.join(TOP, "thp-series")
CACHE = os.environ.get("THP_CACHE", os.path.expanduser("~/.cache/thp-pagecache"))
MARK = re.compile(r"^<!-- tables:(\w+) (begin|end)\b.*-->\s*$")


class DataError(Exception):
    pass


def series_stamp():
    """scripts/common.sh series_stamp: the series file and its patches, hashed."""
    series_dir, h = SERIES_DIR, hashlib.sha256()
    with open(os.path.join(series_dir, "series"), "rb") as f:
        text = f.read()
    h.update(text)
    for line in text.decode().splitlines():
        name = re.sub(r"\s.*", "", line.split("#")[0])
        if name:
            with open(os.path.join(series_dir, name), "rb") as p:
                h.update(p.read())
    return h.hexdigest()[:16]


def git(repo, *args):
    try:
        return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def image_key(variant):
    """scripts/kernel.sh's image key for patched or stock, from the tree and
    the config fragments as they are now; None if the tree does not hold
    exactly today's series."""
    tree = os.path.join(CACHE, "linux" if variant == "patched" else "linux-stock")
    if variant == "patched" and (git(tree, "config", "thp.applied") != series_stamp()
                                 or git(tree, "rev-parse", "HEAD") != git(tree, "config", "thp.head")):
        return None
    treeid = git(tree, "rev-parse", "HEAD^{tree}")
    if not treeid:
        return None
    h = hashlib.sha256(f"{variant} {treeid}\n".encode())
    for frag in ["base.config"] + (["series.config"] if variant == "patched" else []):
        with open(os.path.join(SERIES_DIR, "config", frag), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:10]


def when(iso):
    return iso.replace("T", " ")[:16] + " UTC"


class Run:
    """One saved run (OUT/NAME), checked: present, of today's series.
    .label names its commit, series, kernel and date."""

    def __init__(self, out, name, make, stamp, rows_file="workloads.jsonl"):
        self.dir = os.path.join(out, name)
        self.path = os.path.join(self.dir, rows_file)
        rerun = f"rerun make {make}"
        if not os.path.exists(self.path):
            raise DataError(f"{self.path} missing: {rerun}")
        meta_path = os.path.join(self.dir, "meta.json")
        kernels = set()
        if rows_file == "workloads.jsonl":
            try:
                self.rows = report.load([self.path])
            except report.InputError as e:
                raise DataError(f"{e}: {rerun}")
            kernels = {r.get("kernel", "").rstrip("+") for r in self.rows}
        if os.path.exists(meta_path):
            with open(meta_path, encoding="utf-8") as f:
                m = json.load(f)
            if m.get("series") != stamp:
                raise DataError(f"{self.dir} is of thp-series {m.get('series')}, thp-series/ is "
                                f"now {stamp}: {rerun}")
            if m.get("tests"):
                raise DataError(f"{self.dir} is a run of THP_TESTS={m['tests']} only: {rerun}")
            if kernels and kernels != {m.get("kernel", "").rstrip("+")}:
                raise DataError(f"{self.dir}: results of {', '.join(sorted(kernels))}, meta.json "
                                f"names {m.get('kernel')}: {rerun}")
            self.label = (f"project commit {m.get('commit')}, thp-series {stamp}, "
                          f"Linux {m.get('kernel')}, {when(m.get('date', ''))}")
            return
        # Results saved before meta.json existed: the kernel release names
        # its image key, which must be the one today's tree and config give.
        parts = {tuple(k.split("-")[1:]) for k in kernels}      # 6.1.192-patched-KEY
        variant, got = parts.pop() if len(parts) == 1 and len(min(parts)) == 2 else ("", "")
        if variant not in ("patched", "stock"):
            raise DataError(f"{meta_path} missing: {rerun}")
        key = image_key(variant)
        if key is None:
            raise DataError(f"{meta_path} missing, and the kernel tree does not hold today's "
                            f"series to check the kernel against: {rerun}")
        if key != got:
            raise DataError(f"{self.dir}: kernel image {variant}-{got}, today's tree and config "
                            f"give {variant}-{key}: {rerun}")
        mtime = datetime.datetime.fromtimestamp(os.path.getmtime(self.path),
                                                datetime.timezone.utc).isoformat()
        self.label = (f"Linux {self.rows[0].get('kernel')} (no meta.json: the image key of "
                      f"today's tree and config), {when(mtime)} (file time)")


def main_size(cases):
    """The file size most cases ran at (the others are make bench's sweep)."""
    sizes = [k[1] for k in cases]
    return max(set(sizes), key=sizes.count)


def reps(summary):
    """Repetitions of the run: the usual number of runs per case and
    configuration (the memcpy control is one cell for many cases)."""
    ns = [c["n"] for cells in summary.values() for cfg, c in cells.items() if cfg != "memcpy"]
    return max(set(ns), key=ns.count)


def headline_region(run, what, icount=False):
    s = report.summarize(run.rows)
    size = main_size(s)
    return [f"{what}, {report.size_str(size)} files, {reps(s)} repetitions: make bench of "
            f"{run.label}.", "", report.headline(s, size, icount)]


def iozone_region(bench, counts):
    wall, icount = report.summarize(bench.rows), report.summarize(counts.rows)
    return [f"Wall clock: {bench.label}. Instructions: {counts.label}.", "",
            report.iozone_both(wall, main_size(wall), icount, main_size(icount))]


def firsttouch_region(run):
    s = report.summarize(run.rows)
    size = main_size(s)
    table = report.firsttouch(run.rows, size)
    if not table:
        raise DataError(f"{run.dir}: no firsttouch runs: rerun make bench")
    return [f"Wall clock, {report.size_str(size)} mappings, {reps(s)} repetitions: make bench "
            f"of {run.label}."] + [""] + report.firsttouch_lines(run.rows, size) + ["", table]


def smallfiles_region(bench, counts):
    """Wall clock, then instructions: a wall ratio on this host can be
    noise, an instruction count cannot."""
    out = []
    for run, what in ((bench, "Wall clock"), (counts, "Instruction count (-icount)")):
        table = report.smallfiles(run.rows)
        if not table:
            raise DataError(f"{run.dir}: no smallfiles runs: rerun make bench")
        out += [f"{what}: make bench of {run.label}.", ""] + \
            report.smallfiles_lines(run.rows) + ["", table, ""]
    return out[:-1]


def collapse_region(run):
    table = report.collapse(run.rows)
    if not table:
        raise DataError(f"{run.dir}: no collapse runs: rerun make bench")
    return [f"Wall clock: make bench of {run.label}.", "", table]


def insns_region(run):
    with open(run.path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    what = [l for l in lines if l.startswith("# make insns: ")]
    head = [l for l in lines if l.startswith("Instructions per call")]
    table = [l for l in lines if l.startswith("|")]
    if not (what and head and table):
        raise DataError(f"{run.path}: no table: rerun make insns")
    return [f"{head[0]} Workload {what[0][len('# make insns: '):]}; make insns of {run.label}.",
            ""] + table


def summary_region(bench, counts):
    """The sentences under the headline tables: report.py's summary of each
    run, then the counts that do not depend on the machine (faults and
    xarray nodes of the 1 MiB cases under -icount)."""
    lines = []
    for run, what, icount in ((bench, "Wall clock", False), (counts, "Instructions", True)):
        s = report.summarize(run.rows)
        lines.append(f"{what} ({report.size_str(main_size(s))}): "
                     + " ".join(report.summary_lines(s, main_size(s), run.rows, icount)))
    s = report.summarize(counts.rows)
    size = main_size(s)
    facts = []
    for name, key, scale, unit in (("fault write", "faults_gib", 1, "faults"),
                                   ("write write", "xa_gib", 1 / 1024, "KiB of xarray nodes")):
        c = s.get((name, size, 1 << 20), {})
        four, thp = (c.get(k, {}).get(key) for k in ("ramfs-4K", "ramfs-THP"))
        if four is not None and thp:
            facts.append(f"{name} (1M) {four * scale:.0f} -> {thp * scale:.0f} {unit} per GiB "
                         f"({four / thp:.0f}x fewer)")
    if facts:
        lines.append("Machine-independent counts, ramfs-4K -> ramfs-THP: " + "; ".join(facts) + ".")
    return lines


def gate_region(stock, patched):
    """Median time patched / stock per case of the icount list, for the
    4K configurations the gate boots and memcpy at the same block size."""
    med = {}
    for name, run in (("stock", stock), ("patched", patched)):
        times = {}
        for r in run.rows:
            if r.get("ok", True):   # a failed run has no time to compare
                times.setdefault((report.case_of(r), report.config_of(r)), []).append(r["wall_s"])
        med[name] = {k: statistics.median(v) for k, v in times.items()}
    size = main_size([case for case, _ in med["patched"]])

    def ratio(case, cfg):
        s, p = med["stock"].get((case, cfg)), med["patched"].get((case, cfg))
        return f"{p / s:.3f}" if s and p else "-"

    def side(run):
        # The whole run (its progress and case lines too) where it was kept.
        path = os.path.join(run.dir, "results.jsonl")
        try:
            return gate.side(path if os.path.exists(path) else run.path)
        except report.InputError as e:
            raise DataError(str(e))

    rows, problems, ok = gate.gate(side(stock), side(patched), gate.LIMIT)
    worst = max((r for r in rows if r[4] is not None), key=lambda r: r[4], default=None)
    verdict = (f"Gate (analysis/gate.py, limit {gate.LIMIT * 100:g}%): "
               f"{'PASS' if ok else 'FAIL'}, {sum(1 for r in rows if r[5] == 'yes')} of "
               f"{len(rows)} case and configuration pairs within the limit"
               + (f", the largest {worst[4]:.3f} ({worst[0]}, {worst[1]})" if worst else "")
               + "".join(f"; {p}" for p in problems) + ".")
    lines = [f"Median time, patched / stock (above 1: patched is slower). Stock: {stock.label}. "
             f"Patched: {patched.label}.", "",
             "| workload (bs), patched / stock time | ramfs huge=never | tmpfs huge=never "
             "| user memcpy, same bs (control) |", "|---|---|---|---|"]
    for row in report.registry.ordered(report.CASES, "icount"):
        name, bs = report.case_key(row["case"])
        lines.append(f"| {name} ({report.size_str(bs)}), {report.size_str(size)} "
                     f"| {ratio((name, size, bs), 'ramfs-4K')} | {ratio((name, size, bs), 'tmpfs-4K')} "
                     f"| {ratio(('memcpy memcpy', size, bs), 'memcpy')} |")
    return lines + ["", verdict]


def tests_region(out, stamp):
    runs = []
    for variant, make, need in (("patched", "test", True), ("patched-debug", "test", False)):
        try:
            run = Run(out, "test-" + variant, make, stamp, "summary.json")
        except DataError:
            if need:
                raise
            runs.append((variant, None, None))
            continue
        with open(run.path, encoding="utf-8") as f:
            runs.append((variant, run, json.loads(f.read().strip().splitlines()[-1])))
    parts, total = [], {"pass": 0, "fail": 0, "skip": 0}
    for variant, run, c in runs:
        if c is None:
            parts.append(f"{variant}: no results of this series (make test-debug)")
            continue
        for k in total:
            total[k] += c[k]
        parts.append(f"{variant}: {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped "
                     f"({run.label})")
    lines = ["make test: " + "; ".join(parts) + "."]
    if all(c for _, _, c in runs):
        lines.append(f"Together: {total['pass']} passed, {total['fail']} failed, "
                     f"{total['skip']} skipped.")
    return lines


def regions(out, names, stamp):
    """{name: text} for every name asked for; DataError lists all problems."""
    runs, errors = {}, []
    wanted = {"bench": ["bench"], "counts": ["counts"], "iozone": ["bench", "counts"],
              "firsttouch": ["bench"], "summary": ["bench", "counts"],
              "smallfiles": ["bench", "counts"], "collapse": ["bench"],
              "gate": ["stock", "patched"], "insns": ["insns"], "status": [], "tests": []}
    sources = {"bench": ("bench", "bench"), "counts": ("bench-counts", "bench"),
               "stock": ("icount-stock", "bench-icount"), "patched": ("icount-patched", "bench-icount"),
               "insns": ("insns", "insns", "report.md")}
    for src in sorted({s for n in names for s in wanted[n]}):
        try:
            runs[src] = Run(out, sources[src][0], sources[src][1], stamp, *sources[src][2:])
        except DataError as e:
            errors.append(str(e))
    text = {}
    for n in names:
        try:
            if any(s not in runs for s in wanted[n]):
                continue
            if n == "status":
                text[n] = [f"The tables below are generated by make tables (analysis/tables.py) "
                           f"from saved results of thp-series {stamp}, the series in thp-series/; "
                           f"each names the commit and date of its data."]
            elif n in ("bench", "counts"):
                text[n] = headline_region(runs[n], {"bench": "Wall clock",
                                                    "counts": "Instruction count (-icount)"}[n],
                                          icount=n == "counts")
            elif n == "iozone":
                text[n] = iozone_region(runs["bench"], runs["counts"])
            elif n == "gate":
                text[n] = gate_region(runs["stock"], runs["patched"])
            elif n == "smallfiles":
                text[n] = smallfiles_region(runs["bench"], runs["counts"])
            elif n == "collapse":
                text[n] = collapse_region(runs["bench"])
            elif n == "summary":
                text[n] = summary_region(runs["bench"], runs["counts"])
            elif n == "firsttouch":
                text[n] = firsttouch_region(runs["bench"])
            elif n == "insns":
                text[n] = insns_region(runs["insns"])
            else:
                text[n] = tests_region(out, stamp)
        except DataError as e:
            errors.append(str(e))
    if errors:
        raise DataError("\n".join(errors))
    # Prose wrapped for the cover letter's mail; a blank line last, or
    # Markdown runs a table on into the end marker.
    def wrap(line):
        return line if line.startswith("|") else textwrap.fill(
            line, 72, break_on_hyphens=False, break_long_words=False)
    return {n: "\n".join(wrap(l) for l in t) + "\n\n" for n, t in text.items()}


def find_regions(path, lines):
    """{name: (begin line index, end line index)}; ValueError on bad markers."""
    found, open_ = {}, None
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        name, edge = m.groups()
        if edge == "begin":
            if open_ or name in found:
                raise ValueError(f"{path}:{i + 1}: tables:{name} begins "
                                 + ("inside another region" if open_ else "twice"))
            open_ = (name, i)
        else:
            if not open_ or open_[0] != name:
                raise ValueError(f"{path}:{i + 1}: tables:{name} ends where it did not begin")
            found[name], open_ = (open_[1], i), None
    if open_:
        raise ValueError(f"{path}: tables:{open_[0]} begins and never ends")
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default=os.environ.get("THP_OUT", os.path.join(TOP, "out")))
    ap.add_argument("--only", nargs="+", metavar="NAME", help="regenerate only these regions")
    a = ap.parse_args(argv)
    try:
        stamp = series_stamp()
        docs = {}
        for path in a.files:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines(True)
            docs[path] = (lines, find_regions(path, lines))
        known = {"status", "bench", "counts", "iozone", "firsttouch", "summary", "gate",
                 "smallfiles", "collapse", "insns", "tests"}
        names = sorted({n for _, reg in docs.values() for n in reg} & set(a.only or known))
        unknown = sorted({n for _, reg in docs.values() for n in reg} - known)
        if unknown:
            raise ValueError(f"unknown region(s) tables:{', tables:'.join(unknown)}")
        if not names:
            raise ValueError("no tables:NAME regions to fill in " + ", ".join(a.files))
        if "status" in names and len(names) < len({n for _, reg in docs.values() for n in reg}):
            raise ValueError("tables:status speaks for every table: regenerate them all "
                             "(no --only), or leave it out")
        text = regions(a.out, names, stamp)
    except (OSError, ValueError, DataError) as e:
        print(f"tables.py: {e}".replace("\n", "\ntables.py: "), file=sys.stderr)
        print("tables.py: nothing written", file=sys.stderr)
        return 1
    for path, (lines, reg) in docs.items():
        # From the last region up, so that earlier indices stay valid.
        for name, (b, e) in sorted(reg.items(), key=lambda x: -x[1][0]):
            if name in text:
                lines[b + 1:e] = [text[name]]
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(lines))
        print(f"{path}: {', '.join(n for n in sorted(reg) if n in text)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
