#!/usr/bin/env python3
"""Turn workload JSON lines into report.md and PNG plots.

usage: report.py RESULTS.jsonl [...] --out DIR [--title T] [--icount]

Rows are grouped by case (workload, mode, size, block size, pattern,
madvise, private) and configuration (ramfs-THP, ramfs-4K, ramfs-never,
tmpfs-huge, tmpfs-4K, memcpy); each cell is the median over repetitions
with min and max.  Ratios between configurations are per repetition (runs with the same
seed ran back to back) and summarised by their median and range; memcpy is
matched by file size and block size."""
import argparse
import datetime
import os
import re
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import jsonl  # noqa: E402
import registry  # noqa: E402

CONFIGS = ["ramfs-THP", "ramfs-4K", "ramfs-never", "tmpfs-huge", "tmpfs-4K", "memcpy"]
PAGE = 4096
# fault.c touches one byte per 4 KiB page (a write mode fills the page
# only with --verify): its rate is pages per second, and no memcpy of
# whole bytes compares with it.
FILLING_MODES = ("write", "rewrite", "randwrite")
# fault.c's modes timed on a mapping faulted in by prepare(): what a PMD
# saves there is TLB misses and page walks, which an instruction count
# (QEMU -icount) does not see.
MAPPED = ("fault random", "fault reread", "fault rewrite", "fault randwrite")
# Under icount, a ratio this close to 1 is "no effect seen".
ICOUNT_TIE = 0.01
# Every PNG this script has ever written: ones not drawn this time are
# removed, so a stale plot never sits beside a new report.
PLOT_NAMES = ("speedup.png", "absolute.png", "counts.png", "size.png",
              "throughput.png", "faults.png", "xarray.png")


class InputError(Exception):
    pass


def read_lines(paths):
    """Every JSON object of the files, in order (any type); bad input
    raises InputError naming the file and line."""
    out = []
    for path in paths:
        try:
            out += [(path, n, r) for n, r in jsonl.read(path, strict=True)]
        except jsonl.Error as e:
            raise InputError(str(e))
    return out


def workload_rows(lines):
    rows = []
    for path, n, r in lines:
        if r.get("type") != "workload":
            continue
        for key in ("workload", "params", "wall_s", "bytes"):
            if key not in r:
                raise InputError(f"{path}:{n}: workload record without '{key}'")
        rows.append(r)
    return rows


def load(paths):
    rows = workload_rows(read_lines(paths))
    if not rows:
        raise InputError("no workload records in " + ", ".join(paths))
    return rows


def failed(r):
    """A run that failed: its own verdict, or the exit status the guest
    added for a run that died without one (run-bench.sh crashed())."""
    return not r.get("ok", True) or r.get("rc", 0) != 0


# Counters that move when the kernel wanted a huge folio and did not get
# one: tmpfs's.  ramfs counts no such event (v3's thp_write_alloc_failed,
# thp_read_alloc_failed and thp_fault_file_alloc_failed are gone).
FALLBACK_COUNTERS = ("thp_file_fallback",)


def fell_back(r):
    """A ramfs-THP or tmpfs huge=always run during which a huge folio was,
    or (ramfs) may have been, refused: its figure is partly of small
    folios, so it cannot show what huge folios give (nor be the tmpfs
    figure a target compares with).  tmpfs counts its fallbacks; for ramfs,
    which counts none, a run that started with fewer free 2 MiB blocks
    (free_2m, all nodes) than its file's 2 MiB ranges."""
    cfg = config_of(r)
    if cfg == "tmpfs-huge":
        d = r.get("deltas") or {}
        return any(d.get(k) for k in FALLBACK_COUNTERS)
    free = r.get("free_2m")
    if cfg != "ramfs-THP" or not isinstance(free, list) or \
            not all(isinstance(n, int) for n in free):
        return False
    return sum(free) < r["params"].get("size", 0) // (2 << 20)


def huge_of(r):
    """The policy in force: for ramfs the global page_cache file's deny or
    force (they override every mount), else the mount's huge= if given,
    else the file's; "deny" on a kernel without the file (stock: 4 KiB
    pages only).  tmpfs mounts default to never."""
    knob = r.get("knob", "")
    knob = knob.split("[")[1].split("]")[0] if "[" in knob else None
    if r.get("fs") == "ramfs" and knob in ("deny", "force"):
        return knob
    for opt in r.get("mount", "").split(","):
        if opt.startswith("huge="):
            return opt[5:]
    if r.get("fs") != "ramfs":
        return "never"
    return knob or "deny"


def config_of(r):
    """ramfs-THP (always, force), ramfs-4K (deny: 4 KiB pages only, the
    baseline), ramfs-never (the default: folios sized by the I/O, below
    PMD size), ramfs-<policy> otherwise; tmpfs-huge, tmpfs-4K (huge=never),
    tmpfs-within_size; memcpy.  A record of v3 (on 6.1), whose page_cache
    file had no deny, was 4 KiB pages under never: ramfs-4K."""
    if r["workload"] == "memcpy":
        return "memcpy"
    fs, huge = r.get("fs", "?"), huge_of(r)
    if fs == "tmpfs":
        return {"always": "tmpfs-huge", "within_size": "tmpfs-within_size"}.get(huge, "tmpfs-4K")
    if fs == "ramfs":
        v3 = "deny" not in r.get("knob", "").replace("[", " ").replace("]", " ").split()
        return {"always": "ramfs-THP", "force": "ramfs-THP", "deny": "ramfs-4K",
                "never": "ramfs-4K" if v3 else "ramfs-never"}.get(huge, f"ramfs-{huge}")
    return fs


def case_of(r):
    p = r["params"]
    name = f"{r['workload']} {r.get('mode', '')}".strip()
    extra = []
    if p.get("pattern") == "random":
        extra.append("random")
    if p.get("madvise", "none") != "none":
        extra.append("madv-" + p["madvise"])
    if p.get("private"):
        extra.append("private")
    return (name + (" " + " ".join(extra) if extra else ""), p.get("size", 0), p.get("bs", 0))


def touch_only(r):
    if r["workload"] == "firsttouch":
        return not r["params"].get("verify")
    return r["workload"] == "fault" and not (r["params"].get("verify")
                                             and r.get("mode") in FILLING_MODES)


def unit_of(r):
    return "pages/s" if touch_only(r) else "MiB/s"


def rate(r):
    """MiB/s, or 4 KiB pages/s for a touch-only fault mode."""
    if r["wall_s"] <= 0:
        return 0.0
    return r["bytes"] / (PAGE if touch_only(r) else 1048576) / r["wall_s"]


def per_gib(r, key):
    d = r.get("deltas", {}).get(key)
    if d is None or not r["bytes"]:
        return None
    return d * (1 << 30) / r["bytes"]


def median_of(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(rows):
    """{case: {config: {"n", "failed", "fell_back", "unit", "median", "min", "max",
    "by_seed", "faults_gib", "xa_gib"}}}.  The small-file runs have a
    table of their own (smallfiles()): their --size is the harness's
    default, which would pool them with the cases of a 64 MiB run."""
    cells = {}
    for r in rows:
        if r.get("workload") == "smallfiles":
            continue
        cells.setdefault(case_of(r), {}).setdefault(config_of(r), []).append(r)
    out = {}
    for case, by_cfg in cells.items():
        out[case] = {}
        for cfg, rs in by_cfg.items():
            good = [x for x in rs if not failed(x)]
            v = [rate(x) for x in good]
            out[case][cfg] = {
                "n": len(v), "failed": len(rs) - len(good),
                "fell_back": sum(fell_back(x) for x in good),
                "unit": unit_of(rs[0]),
                # Repetition r of every config ran back to back: pair by seed.
                "by_seed": {x["params"].get("seed"): rate(x) for x in good},
                "median": median_of(v), "min": min(v) if v else None,
                "max": max(v) if v else None,
                "faults_gib": median_of(per_gib(x, "minflt") for x in good),
                "xa_gib": median_of(per_gib(x, "radix_tree_node") for x in good),
            }
    return out


def memcpy_cell(summary, case):
    """memcpy of the same total size and block size as the case."""
    for (name, sz, bs), c in summary.items():
        if sz == case[1] and bs == case[2] and "memcpy" in c:
            return c["memcpy"]
    return None


def vs_memcpy(summary, case, cfg):
    """cfg's median over memcpy's for the same size and block size; None
    when there is no such memcpy run or the case is not in bytes."""
    s = summary[case].get(cfg)
    mc = memcpy_cell(summary, case)
    if not s or not mc or s["unit"] != "MiB/s" or not s["median"] or not mc["median"]:
        return None
    return s["median"] / mc["median"]


def paired(summary, case, cfg, base="ramfs-4K"):
    """Median, min and max of the per-repetition ratios cfg / base: runs of
    one repetition are adjacent in time, so their ratio cancels slow drift
    of the machine that a ratio of medians keeps."""
    c = summary.get(case, {})
    a, b = c.get(cfg, {}).get("by_seed", {}), c.get(base, {}).get("by_seed", {})
    v = [a[k] / b[k] for k in a if k in b and b[k]]
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def fmt_spread(p):
    return "-" if p is None else f"{p[0]:.2f} ({p[1]:.2f}-{p[2]:.2f})"


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def size_str(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def case_str(case):
    return f"{case[0]} ({size_str(case[2])})"


def sorted_cases(summary, size=None):
    return sorted((k for k in summary if size is None or k[1] == size),
                  key=lambda k: (k[0], k[1], k[2]))


def table(summary):
    lines = ["| case | size | bs | config | n | median | min | max | unit "
             "| vs ramfs-4K, per-rep | vs memcpy (same size, bs) | faults/GiB | xarray B/GiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in sorted_cases(summary):
        for cfg in CONFIGS + sorted(set(summary[case]) - set(CONFIGS)):
            s = summary[case].get(cfg)
            if not s:
                continue
            med = fmt(s["median"], 1) + (f" ({s['failed']} failed)" if s["failed"] else "")
            vs4k = paired(summary, case, cfg) if cfg != "memcpy" else None
            lines.append(f"| {case[0]} | {size_str(case[1])} | {size_str(case[2])} | {cfg} "
                         f"| {s['n']} "
                         f"| {med} | {fmt(s['min'], 1)} | {fmt(s['max'], 1)} | {s['unit']} "
                         f"| {fmt(vs4k[0] if vs4k else None)} "
                         f"| {fmt(vs_memcpy(summary, case, cfg))} "
                         f"| {fmt(s['faults_gib'], 0)} | {fmt(s['xa_gib'], 0)} |")
    return "\n".join(lines)


# MADV_WILLWRITE ("willwrite") is not in v4 yet: firsttouch runs without it.
HINTS = ("none", "populate")
HINT_NAMES = {"populate": "MADV_POPULATE_WRITE"}


def firsttouch_cells(rows, size):
    """{(config, hint): [runs]} of the firsttouch runs of files of size that
    did not fail."""
    cells = {}
    for r in rows:
        if r["workload"] == "firsttouch" and r["params"].get("size") == size \
                and not failed(r):
            cells.setdefault((config_of(r), r.get("hint", r.get("mode"))), []).append(r)
    return cells


def spread(rs, key, scale=1.0, nd=0):
    """Median of a field over the runs, with its min-max: "12 (10-15)"."""
    v = [r[key] * scale for r in rs if r.get(key) is not None]
    if not v:
        return "-"
    m = statistics.median(v)
    return f"{m:.{nd}f} ({min(v):.{nd}f}-{max(v):.{nd}f})"


def firsttouch(rows, size):
    """The first-store table: per config and hint, the hint's time and
    return, the faults, and the latency of the faulting stores and of all
    stores (medians over runs of each run's quantile, with min-max)."""
    cells = firsttouch_cells(rows, size)
    if not cells:
        return ""
    lines = ["| config | hint | runs | madvise returns | hint ms | stores s | faults "
             "| fault p50 us | fault p99 us | fault max us | store p99 us | store max us |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    cfgs = [c for c in CONFIGS if any(k[0] == c for k in cells)]
    for cfg in cfgs + sorted({k[0] for k in cells} - set(cfgs)):
        for hint in HINTS:
            rs = cells.get((cfg, hint))
            if not rs:
                continue
            rets = sorted({r.get("hint_ret") for r in rs}, key=str)
            lines.append(f"| {cfg} | {hint} | {len(rs)} | {', '.join(map(str, rets))} "
                         f"| {spread(rs, 'hint_s', 1e3, 1)} | {spread(rs, 'stores_s', 1, 3)} "
                         f"| {spread(rs, 'faults')} | {spread(rs, 'faults_p50_us', 1, 1)} "
                         f"| {spread(rs, 'faults_p99_us', 1, 1)} | {spread(rs, 'faults_max_us')} "
                         f"| {spread(rs, 'stores_p99_us', 1, 1)} | {spread(rs, 'stores_max_us')} |")
    return "\n".join(lines)


def firsttouch_lines(rows, size):
    """One computed sentence per config and hint that ran beside none: the
    first stores at p99 and the slowest one, after the hint and without."""
    cells = firsttouch_cells(rows, size)
    out = []

    def med(rs, key):
        v = [r[key] for r in rs if r.get(key) is not None]
        return statistics.median(v) if v else None
    for cfg in sorted({k[0] for k in cells}):
        none = cells.get((cfg, "none"))
        for hint in HINTS[1:]:
            hinted = cells.get((cfg, hint))
            if not none or not hinted:
                continue
            p99 = (med(none, "stores_p99_us"), med(hinted, "stores_p99_us"))
            mx = (med(none, "stores_max_us"), med(hinted, "stores_max_us"))
            if None in p99 or None in mx or med(hinted, "hint_s") is None:
                continue
            out.append(f"- {cfg}: after {HINT_NAMES[hint]} ({med(hinted, 'hint_s') * 1e3:.1f} ms) "
                       f"the first stores take {p99[1]:.1f} us at p99 against {p99[0]:.1f} us "
                       f"with no hint; the slowest store {mx[1]:.0f} us against {mx[0]:.0f} us.")
    return out


SMALL_CONFIGS = ["ramfs-4K", "ramfs-never", "ramfs-within_size", "ramfs-THP", "tmpfs-4K",
                 "tmpfs-within_size", "tmpfs-huge"]
SMALL_NAMES = {"ramfs-THP": "ramfs always", "ramfs-within_size": "ramfs within_size",
               "ramfs-4K": "ramfs deny (4K)", "ramfs-never": "ramfs never (sized by the I/O)",
               "tmpfs-huge": "tmpfs always",
               "tmpfs-within_size": "tmpfs within_size", "tmpfs-4K": "tmpfs never (4K)"}


def smallfiles_runs(rows):
    """{(config, mode, files): [good wl-smallfiles runs]}: runs of different
    file counts are never pooled (time per file and memory per byte both
    move with the count)."""
    by = {}
    for r in rows:
        if r.get("workload") == "smallfiles" and not failed(r) and r.get("files"):
            by.setdefault((config_of(r), r.get("mode"), r["files"]), []).append(r)
    return by


def smallfiles(rows):
    """The small-file table: per configuration and file count the page
    cache its files held after writing, beside their bytes, and the time
    of each step per 1,000 files (in make bench's wall-clock boot the
    always configurations run fewer files: they would not fit): medians
    over the runs (min-max)."""
    by = smallfiles_runs(rows)

    def per_k(key):
        v = [x["wall_s"] * 1000 / x["files"] for x in by.get(key, [])]
        return f"{median_of(v):.3f} ({min(v):.3f}-{max(v):.3f})" if v else "-"

    lines = ["| configuration | files | data MiB (median) | page cache MiB after writing (min-max) "
             "| page cache / data | create+write s per 1,000 files | read s per 1,000 "
             "| unlink s per 1,000 |", "|---|---|---|---|---|---|---|---|"]
    for cfg in SMALL_CONFIGS:
        for n in sorted({k[2] for k in by if k[0] == cfg and k[1] == "write"}):
            w = [x for x in by[(cfg, "write", n)] if x.get("mem_kib", -1) >= 0]
            if not w:
                continue
            mem = [x["mem_kib"] / 1024 for x in w]
            per = median_of(x["mem_kib"] / x["data_kib"] for x in w if x.get("data_kib"))
            data = median_of(x.get("data_kib", 0) / 1024 for x in w)
            lines.append(f"| {SMALL_NAMES[cfg]} | {n} | {data:.1f} "
                         f"| {median_of(mem):.1f} ({min(mem):.1f}-{max(mem):.1f}) "
                         f"| {'-' if per is None else f'{per:.3f}'} "
                         f"| {per_k((cfg, 'write', n))} | {per_k((cfg, 'read', n))} "
                         f"| {per_k((cfg, 'unlink', n))} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def smallfiles_lines(rows):
    """What the small-file table says about ramfs within_size against
    ramfs-4K, for each file count both ran: memory, and time per step as
    per-repetition ratios (same seed)."""
    by = smallfiles_runs(rows)
    out = []
    counts = sorted({k[2] for k in by if k[0] == "ramfs-4K"} &
                    {k[2] for k in by if k[0] == "ramfs-within_size"})
    for n in counts:
        base, wsz = by.get(("ramfs-4K", "write", n)), by.get(("ramfs-within_size", "write", n))
        if base and wsz:
            m4 = median_of(x["mem_kib"] for x in base if x.get("mem_kib", -1) >= 0)
            mw = median_of(x["mem_kib"] for x in wsz if x.get("mem_kib", -1) >= 0)
            if m4 and mw is not None:
                out.append(f"{n} files: ramfs within_size holds {mw / m4:.3f}x the page cache "
                           f"of ramfs-4K after writing the same files "
                           f"({mw / 1024:.1f} vs {m4 / 1024:.1f} MiB).")
        for mode in ("write", "read", "unlink"):
            a = {x["params"].get("seed"): x["wall_s"] for x in by.get(("ramfs-4K", mode, n), [])}
            b = {x["params"].get("seed"): x["wall_s"]
                 for x in by.get(("ramfs-within_size", mode, n), [])}
            ratios = sorted(a[k] / b[k] for k in a if k in b and b[k] > 0)
            if ratios:
                out.append(f"{n} files, {mode}: ramfs within_size is {median_of(ratios):.2f}x "
                           f"as fast as ramfs-4K (per-repetition "
                           f"{min(ratios):.2f}-{max(ratios):.2f}).")
    return out


def collapse_runs(rows):
    """{name: [good runs]} of the collapse benchmark (make bench): the
    collapse itself ("collapse", ramfs-4K), and random 4 KiB reads through
    a mapping of small folios ("before"), of the same file after
    MADV_COLLAPSE ("after"), and of tmpfs huge=always ("tmpfs-huge")."""
    by = {}
    for r in rows:
        if failed(r):
            continue
        cfg, madv = config_of(r), r["params"].get("madvise", "none")
        if r["workload"] == "collapse" and cfg == "ramfs-4K" and \
                (r["params"].get("size"), r["params"].get("bs")) == COLLAPSE_RUN:
            by.setdefault("collapse", []).append(r)
        elif r["workload"] == "fault" and r.get("mode") == "random":
            name = {("ramfs-4K", "none"): "before", ("ramfs-4K", "collapse"): "after",
                    ("tmpfs-huge", "none"): "tmpfs-huge"}.get((cfg, madv))
            if name and (r["params"].get("size"), r["params"].get("bs")) == COLLAPSE_RUN:
                by.setdefault(name, []).append(r)
    return by


# guest/run-bench.sh's collapse block: size and --bs (apart from the headline's)
COLLAPSE_RUN = (256 << 20, 2 << 20)


def collapse(rows):
    """The collapse table: seconds of MADV_COLLAPSE per GiB, and random
    4 KiB reads through the mapping before and after it beside tmpfs
    huge=always, medians (min-max); ratios per repetition (same seed)."""
    by = collapse_runs(rows)
    if "collapse" not in by or "before" not in by:
        return ""

    def spread(v, fmt):
        return f"{fmt.format(median_of(v))} ({fmt.format(min(v))}-{fmt.format(max(v))})"

    secs = [r["wall_s"] * (1 << 30) / r["bytes"] for r in by["collapse"] if r["bytes"]]
    base = {r["params"].get("seed"): rate(r) for r in by["before"]}
    lines = ["| what | runs | median (min-max) | against before, per repetition |",
             "|---|---|---|---|",
             f"| MADV_COLLAPSE, s per GiB (256 MiB of 4 KiB folios, faulted in) "
             f"| {len(secs)} | {spread(secs, '{:.3f}')} | - |"]
    for name, what in (("before", "random 4 KiB reads, ramfs small folios, pages/s"),
                       ("after", "the same after MADV_COLLAPSE, pages/s"),
                       ("tmpfs-huge", "tmpfs huge=always, pages/s")):
        runs = by.get(name, [])
        if not runs:
            continue
        ratios = sorted(rate(r) / base[r["params"].get("seed")] for r in runs
                        if base.get(r["params"].get("seed")))
        lines.append(f"| {what} | {len(runs)} | {spread([rate(r) for r in runs], '{:.0f}')} "
                     f"| {spread(ratios, '{:.2f}x') if ratios and name != 'before' else '-'} |")
    return "\n".join(lines)


def size_bytes(text):
    """4K, 64M, 1G or a plain number: bytes (as the workloads read --bs)."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if mult > 1 else text) * mult


def case_key(args):
    """(case name, bs) under which summarize() groups the runs of a registry
    case (guest/cases.txt): the record wl-ARGS would print, named by
    case_of().  The mode defaults to the first of the workload's .modes."""
    words = args.split()
    opt = {"--bs": "1M", "--pattern": "seq", "--madvise": "none"}
    for i, w in enumerate(words[1:], 1):
        if w.startswith("--"):
            has_value = i + 1 < len(words) and not words[i + 1].startswith("--")
            opt[w] = words[i + 1] if has_value else True
    if "--mode" not in opt:
        with open(os.path.join(TOP, "workloads", words[0] + ".c"), encoding="utf-8") as f:
            opt["--mode"] = re.search(r'\.modes\s*=\s*"([^"\s]+)', f.read()).group(1)
    bs = size_bytes(opt["--bs"])
    r = {"workload": words[0], "mode": opt["--mode"],
         "params": {"pattern": opt["--pattern"], "madvise": opt["--madvise"],
                    "private": "--private" in opt, "size": 0, "bs": bs}}
    return case_of(r)[0], bs


# The targets and the IOzone mapping live in the case registry,
# guest/cases.txt, beside the lists that run the cases.
try:
    CASES = registry.read()
except (OSError, ValueError) as e:
    sys.exit(f"report.py: case registry: {e}")
# (case name, bs, target ratio ramfs-THP / ramfs-4K or None, what the target is)
HEADLINE = [case_key(r["case"]) + (r["target"], r["goal"] or "")
            for r in registry.ordered(CASES, "table")]


def met(summary, case, target, what, icount=False):
    """Whether ramfs-THP meets its target, judged on the per-repetition
    ratios: "yes", "no", "n/a" (a figure it needs is missing), "n/a
    (icount)" (instruction counts cannot see the effect), "n/a (N fell
    back)" (N ramfs-THP runs had a huge folio refused), "n/a (N tmpfs fell
    back)" (the same of tmpfs huge=always, for a target of tmpfs's ratio),
    "-" (no target)."""
    wants_tmpfs = "tmpfs" in what
    if target is None and not wants_tmpfs:
        return "-"
    fb = summary.get(case, {}).get("ramfs-THP", {}).get("fell_back")
    if fb:
        return f"n/a ({fb} fell back)"
    fb = summary.get(case, {}).get("tmpfs-huge", {}).get("fell_back")
    if wants_tmpfs and fb:
        return f"n/a ({fb} tmpfs fell back)"
    thp = paired(summary, case, "ramfs-THP")
    tmpfs = paired(summary, case, "tmpfs-huge", "tmpfs-4K") if wants_tmpfs else None
    if thp is None or (wants_tmpfs and tmpfs is None):
        return "n/a"
    t, f = thp[0], tmpfs[0] if tmpfs else None
    if icount and case[0] in MAPPED and abs(t - 1) < ICOUNT_TIE \
            and (f is None or abs(f - 1) < ICOUNT_TIE):
        return "n/a (icount)"
    return "yes" if (target is None or t >= target) and (f is None or t >= f) else "no"


def headline_rows(summary, size):
    """(case, target, what) of HEADLINE that ran on ramfs-THP and ramfs-4K."""
    out = []
    for name, bs, target, what in HEADLINE:
        c = summary.get((name, size, bs))
        if c and "ramfs-4K" in c and "ramfs-THP" in c:
            out.append(((name, size, bs), target, what))
    return out


def headline(summary, size, icount=False):
    """The short table for the README and the cover letter."""
    rows = headline_rows(summary, size)
    if not rows:
        return f"No headline case ran on both ramfs-THP and ramfs-4K at {size_str(size)}."
    lines = ["| workload (bs) | unit | ramfs-4K | ramfs-THP | per-rep THP / 4K (min-max) "
             "| per-rep tmpfs huge / 4K (min-max) | THP / memcpy (same size, bs) "
             "| faults per GiB, 4K -> THP | xarray KiB per GiB, 4K -> THP | target | met |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for case, target, what in rows:
        c = summary[case]
        xa = [c[k]["xa_gib"] / 1024 if c[k]["xa_gib"] is not None else None
              for k in ("ramfs-4K", "ramfs-THP")]
        lines.append(f"| {case_str(case)} | {c['ramfs-THP']['unit']} "
                     f"| {fmt(c['ramfs-4K']['median'], 0)} | {fmt(c['ramfs-THP']['median'], 0)} "
                     f"| {fmt_spread(paired(summary, case, 'ramfs-THP'))} "
                     f"| {fmt_spread(paired(summary, case, 'tmpfs-huge', 'tmpfs-4K'))} "
                     f"| {fmt(vs_memcpy(summary, case, 'ramfs-THP'))} "
                     f"| {fmt(c['ramfs-4K']['faults_gib'], 0)} -> "
                     f"{fmt(c['ramfs-THP']['faults_gib'], 0)} "
                     f"| {fmt(xa[0], 0)} -> {fmt(xa[1], 0)} "
                     f"| {what or '-'} | {met(summary, case, target, what, icount)} |")
    return "\n".join(lines)


# IOzone's tests as the 2013 posts ran them (v4: mmap mode), and our case for
# each.  ramfs has no cold read: read and re-read are the same cached read.
IOZONE = [tuple(r["as"].split(": ", 1)) + (case_key(r["case"]), r["2013"])
          for r in registry.ordered(CASES, "iozone")]


def iozone(summary, size):
    lines = ["| mode | IOzone test | our case | THP / 4K (per-rep min-max) | tmpfs huge / 4K "
             "| 2013 v4 (ramfs, 1 thread) |", "|---|---|---|---|---|---|"]
    for mode, test, (name, bs), then in IOZONE:
        case = (name, size, bs)
        thp = paired(summary, case, "ramfs-THP")
        if thp is None:
            continue
        lines.append(f"| {mode} | {test} | {name} ({size_str(bs)}) | {fmt_spread(thp)} "
                     f"| {fmt_spread(paired(summary, case, 'tmpfs-huge', 'tmpfs-4K'))} "
                     f"| {then or '-'} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def iozone_both(wall, wsize, counts, csize):
    """The IOzone-like table with a wall-clock and an instruction-count
    (icount) column side by side, as the README shows it."""
    def ratio(summ, case, cfg, base):
        p = paired(summ, case, cfg, base)
        return "-" if p is None else f"{p[0]:.2f}"

    lines = ["| mode | IOzone test | our case | wall clock, THP / 4K (per-rep min-max) "
             "| tmpfs huge / 4K | instructions (icount), THP / 4K | tmpfs huge / 4K "
             "| 2013 v4 (ramfs, mmap mode) |", "|---|---|---|---|---|---|---|---|"]
    for mode, test, (name, bs), then in IOZONE:
        w, c = (name, wsize, bs), (name, csize, bs)
        if paired(wall, w, "ramfs-THP") is None and paired(counts, c, "ramfs-THP") is None:
            continue
        lines.append(f"| {mode} | {test} | {name} ({size_str(bs)}) "
                     f"| {fmt_spread(paired(wall, w, 'ramfs-THP'))} "
                     f"| {fmt_spread(paired(wall, w, 'tmpfs-huge', 'tmpfs-4K'))} "
                     f"| {ratio(counts, c, 'ramfs-THP', 'ramfs-4K')} "
                     f"| {ratio(counts, c, 'tmpfs-huge', 'tmpfs-4K')} | {then or '-'} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def span(ratios):
    """'from 0.97x (read read random (4K)) to 7.44x (fault write (1M))'."""
    lo = min(ratios, key=lambda cr: cr[1])
    hi = max(ratios, key=lambda cr: cr[1])
    if len(ratios) == 1:
        return f"{lo[1]:.2f}x ({case_str(lo[0])})"
    return f"from {lo[1]:.2f}x ({case_str(lo[0])}) to {hi[1]:.2f}x ({case_str(hi[0])})"


def summary_lines(summary, size, rows, icount=False):
    """Three lines that say what the run shows, all computed from it."""
    cases = [k for k in sorted_cases(summary, size) if not k[0].startswith("memcpy")]
    faster = "fewer instructions" if icount else "faster"

    def ratios(cfg, base):
        return [(k, paired(summary, k, cfg, base)[0]) for k in cases
                if paired(summary, k, cfg, base)]

    thp, tmpfs = ratios("ramfs-THP", "ramfs-4K"), ratios("tmpfs-huge", "tmpfs-4K")
    if thp:
        up = sum(1 for _, v in thp if v > 1)
        one = (f"Huge folios on ramfs: {faster} than ramfs-4K in {up} of {len(thp)} workloads "
               f"at {size_str(size)} (per-repetition median), {span(thp)}")
        if tmpfs:
            one += (f"; tmpfs huge=always over tmpfs-4K: {sum(1 for _, v in tmpfs if v > 1)} "
                    f"of {len(tmpfs)}")
        one += "."
    else:
        one = (f"No workload at {size_str(size)} ran on both ramfs-THP and ramfs-4K: "
               f"this run shows no huge-folio speed-up")
        fs = ratios("ramfs-4K", "tmpfs-4K")
        if fs:
            one += (f"; ramfs-4K against tmpfs-4K: {faster} in {sum(1 for _, v in fs if v > 1)} "
                    f"of {len(fs)} workloads, {span(fs)}")
        one += "."
    vs = ratios("ramfs-THP", "tmpfs-huge")
    if vs:
        two = (f"ramfs-THP against tmpfs huge=always, absolute: {faster} in "
               f"{sum(1 for _, v in vs if v > 1)} of {len(vs)} workloads, {span(vs)}.")
    else:
        two = "No workload ran on both ramfs-THP and tmpfs huge=always: no absolute comparison."
    verdicts = [(case, met(summary, case, t, w, icount)) for case, t, w in
                headline_rows(summary, size) if t is not None or "tmpfs" in w]
    yes = [c for c, v in verdicts if v == "yes"]
    no = [case_str(c) for c, v in verdicts if v == "no"]
    na = [case_str(c) for c, v in verdicts if v.startswith("n/a")]
    bad = sum(1 for r in rows if failed(r))
    three = (f"Targets: {len(yes)} of {len(verdicts)} met" if verdicts else
             "Targets: none judged (no case with a target ran on ramfs-THP and ramfs-4K)")
    if no:
        three += f"; not met: {', '.join(no)}"
    if na:
        three += f"; n/a: {', '.join(na)}"
    three += f". {bad} of {len(rows)} runs failed."
    return [one, two, three]


def run_label(rows, summary, cases, date, icount):
    """Kernel, sizes, repetitions, date and measure of the cases: under
    every plot."""
    kernels = ", ".join(sorted({r.get("kernel", "?") for r in rows}))
    sizes = ", ".join(size_str(z) for z in sorted({k[1] for k in cases}))
    ns = [s["n"] for k in cases for cfg, s in summary[k].items() if cfg != "memcpy"]
    reps = "?" if not ns else str(max(ns)) if min(ns) == max(ns) else f"{min(ns)}-{max(ns)}"
    reps += " rep" if reps == "1" else " reps"
    measure = "instruction count (QEMU -icount)" if icount else "wall clock"
    return f"{kernels}; {sizes} files; {reps}; {date}; {measure}"


# The plots: each *_data function gathers what one plot shows and returns
# nothing when there is too little to show, and then no plot is drawn (no
# empty or degenerate plot).

def speedup_data(summary, size):
    """[(case, ramfs-THP / ramfs-4K, tmpfs-huge / tmpfs-4K)], per-rep spreads."""
    out = []
    for k in sorted_cases(summary, size):
        thp = paired(summary, k, "ramfs-THP")
        if thp:
            out.append((k, thp, paired(summary, k, "tmpfs-huge", "tmpfs-4K")))
    return out


def absolute_data(summary, size):
    """{unit: [(case, ramfs-THP cell, tmpfs-huge cell)]}"""
    out = {}
    for k in sorted_cases(summary, size):
        a, b = summary[k].get("ramfs-THP"), summary[k].get("tmpfs-huge")
        if a and b and a["median"] and b["median"]:
            out.setdefault(a["unit"], []).append((k, a, b))
    return out


COUNT_CONFIGS = ["ramfs-4K", "ramfs-never", "ramfs-THP", "tmpfs-4K", "tmpfs-huge"]


def counts_data(summary, size):
    """{key: [(case, {config: value})]} for faults and xarray KiB per GiB;
    a case is kept when some config has a positive value (log scale), a
    panel when it has two such values to set beside each other."""
    out = {}
    for key, scale in (("faults_gib", 1), ("xa_gib", 1 / 1024)):
        rows = []
        for k in sorted_cases(summary, size):
            vals = {cfg: summary[k][cfg][key] * scale for cfg in COUNT_CONFIGS
                    if cfg in summary[k] and summary[k][cfg][key] is not None}
            if any(v > 0 for v in vals.values()):
                rows.append((k, vals))
        if sum(1 for _, vals in rows for v in vals.values() if v > 0) >= 2:
            out[key] = rows
    return out


def size_data(summary):
    """{(case name, bs, unit): {config: [(size, median)]}}, the lines with
    two sizes or more: only the size sweep has them."""
    series = {}
    for k in sorted_cases(summary):
        for cfg, s in summary[k].items():
            if cfg != "memcpy" and s["median"]:
                series.setdefault((k[0], k[2], s["unit"]), {}).setdefault(cfg, []).append(
                    (k[1], s["median"]))
    out = {}
    for key, by_cfg in series.items():
        lines = {cfg: sorted(p) for cfg, p in by_cfg.items() if len({x for x, _ in p}) > 1}
        if lines:
            out[key] = lines
    return out


def si(v):
    """1500 -> '1.5k', 2e6 -> '2M': tick labels a reader takes in at once."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


def log_axis(ax, values, which="x", suffix=""):
    """A log axis over the positive values, at least one decade wide, with
    ticks at 1, 2 and 5 times powers of ten written as numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    pos = [v for v in values if v and v > 0]
    lo, hi = min(pos) / 1.6, max(pos) * 1.6
    if hi / lo < 10:
        mid = (hi * lo) ** 0.5
        lo, hi = mid / 10 ** 0.5, mid * 10 ** 0.5
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    # 2 and 5 as well only where they do not crowd.
    axis.set_major_locator(LogLocator(subs=(1, 2, 5) if hi / lo < 1000 else (1,)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: si(v) + suffix))
    axis.set_minor_formatter(NullFormatter())


COLORS = {"ramfs-THP": "tab:blue", "ramfs-4K": "tab:cyan", "ramfs-never": "tab:purple",
          "tmpfs-huge": "tab:orange", "tmpfs-4K": "tab:olive"}


def plots(summary, size, outdir, label):
    """Write the plots that have data; returns [(path, caption)].  label(cases)
    is the line that says what run the cases come from."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.transforms import blended_transform_factory
    except ImportError:
        return []
    made = []

    def save(fig, name, caption, cases=None):
        cases = cases or sorted_cases(summary, size)
        fig.text(0.5, 0.005, label(cases), ha="center", va="bottom", fontsize=7, color="0.3")
        fig.tight_layout(rect=(0, 0.025, 1, 1))
        path = os.path.join(outdir, name)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        made.append((path, caption))

    def per_case(ax, cases):
        ax.set_yticks(range(len(cases)))
        ax.set_yticklabels([case_str(k) for k in cases], fontsize=7)
        ax.set_ylim(len(cases) - 0.5, -0.5)
        ax.grid(axis="x", which="major", lw=0.3)

    def figure(n, panels=1):
        return plt.subplots(1, panels, figsize=(max(8, 7 * panels), 1.8 + 0.4 * n),
                            squeeze=False)

    sp = speedup_data(summary, size)
    if sp:
        fig, axs = figure(len(sp))
        ax, h, seen = axs[0][0], 0.38, []
        for j, (name, cfg) in enumerate((("ramfs-THP / ramfs-4K", "ramfs-THP"),
                                         ("tmpfs huge=always / tmpfs-4K", "tmpfs-huge"))):
            pts = [(i + (j - 0.5) * h, row[1 + j]) for i, row in enumerate(sp) if row[1 + j]]
            if not pts:
                continue
            ys, ps = [y for y, _ in pts], [p for _, p in pts]
            seen += [v for p in ps for v in p]
            # Bars grow from 1 (no change): to the left for a slow-down.
            ax.barh(ys, [p[0] - 1 for p in ps], h, left=1, color=COLORS[cfg], label=name,
                    xerr=[[p[0] - p[1] for p in ps], [p[2] - p[0] for p in ps]],
                    capsize=2, error_kw={"elinewidth": 0.8})
            for y, p in pts:
                ax.text(p[2] if p[0] >= 1 else p[1], y, f" {p[0]:.2f}x ", va="center",
                        fontsize=6, ha="left" if p[0] >= 1 else "right")
        ax.axvline(1, color="0.2", lw=0.8)
        log_axis(ax, seen + [1], suffix="x")
        per_case(ax, [row[0] for row in sp])
        ax.set_xlabel("over 4 KiB pages: per-repetition median, bar ends min-max; log scale")
        ax.set_title("Speed-up from huge folios, per workload")
        ax.legend(fontsize=7, loc="best")
        save(fig, "speedup.png", "Speed-up of ramfs-THP over ramfs-4K per workload, "
             "tmpfs huge=always over tmpfs-4K beside it")

    ab = absolute_data(summary, size)
    if ab:
        units = sorted(ab)
        fig, axs = figure(max(len(v) for v in ab.values()), len(units))
        for ax, unit in zip(axs[0], units):
            rows = ab[unit]
            for j, cfg in enumerate(("ramfs-THP", "tmpfs-huge")):
                cells = [r[1 + j] for r in rows]
                ax.errorbar([c["median"] for c in cells],
                            [i + (j - 0.5) * 0.3 for i in range(len(rows))],
                            xerr=[[c["median"] - c["min"] for c in cells],
                                  [c["max"] - c["median"] for c in cells]],
                            fmt="o", ms=4, capsize=2, color=COLORS[cfg],
                            label="tmpfs huge=always" if cfg == "tmpfs-huge" else cfg)
            log_axis(ax, [c[x] for r in rows for c in r[1:] for x in ("min", "max")])
            per_case(ax, [r[0] for r in rows])
            ax.set_xlabel(f"{unit}: median, bars min-max; log scale")
            ax.legend(fontsize=7)
        fig.suptitle("ramfs-THP against tmpfs huge=always, absolute")
        save(fig, "absolute.png", "ramfs-THP and tmpfs huge=always, absolute rates")

    co = counts_data(summary, size)
    if co:
        keys = [k for k in ("faults_gib", "xa_gib") if k in co]
        fig, axs = figure(max(len(co[k]) for k in keys), len(keys))
        for ax, key in zip(axs[0], keys):
            rows = co[key]
            trans = blended_transform_factory(ax.transAxes, ax.transData)
            for j, cfg in enumerate(COUNT_CONFIGS):
                off = (j - (len(COUNT_CONFIGS) - 1) / 2) * 0.16
                pts = [(i + off, r[1][cfg]) for i, r in enumerate(rows) if cfg in r[1]]
                pos = [(y, v) for y, v in pts if v > 0]
                if pts:
                    ax.plot([v for _, v in pos], [y for y, _ in pos], "o", ms=4,
                            color=COLORS[cfg], label=cfg)
                # A log axis has no 0: the value is written at the left edge.
                for y, v in pts:
                    if v <= 0:
                        ax.text(0.01, y, f"{v:.0f}", transform=trans, fontsize=6,
                                va="center", color=COLORS[cfg])
            log_axis(ax, [v for r in rows for v in r[1].values()])
            per_case(ax, [r[0] for r in rows])
            ax.set_xlabel("faults (minor + major) per GiB of file; log scale"
                          if key == "faults_gib" else
                          "xarray nodes: radix_tree_node slab KiB per GiB; log scale")
            ax.legend(fontsize=7)
        zeros = any(v <= 0 for k in keys for _, vals in co[k] for v in vals.values())
        what = " and ".join({"faults_gib": "Page faults", "xa_gib": "xarray nodes"}[k]
                            for k in keys) + " per GiB of file"
        fig.suptitle(what + " (median)" +
                     ("\na value <= 0 is written at the left edge" if zeros else ""))
        save(fig, "counts.png", what)

    sz = size_data(summary)
    if sz:
        keys = sorted(sz)
        fig, axs = plt.subplots(1, len(keys), figsize=(6 * len(keys), 4.5), squeeze=False)
        for ax, key in zip(axs[0], keys):
            xs, ys = [], []
            for cfg in CONFIGS:
                pts = sz[key].get(cfg)
                if pts:
                    xs += [p[0] / 1048576 for p in pts]
                    ys += [p[1] for p in pts]
                    ax.plot([p[0] / 1048576 for p in pts], [p[1] for p in pts], "o-",
                            color=COLORS.get(cfg), label=cfg)
            log_axis(ax, xs)
            log_axis(ax, ys, which="y")
            ax.grid(which="major", lw=0.3)
            ax.set_xlabel("file size, MiB; log scale")
            ax.set_ylabel(f"{key[2]}, median; log scale")
            ax.set_title(f"{key[0]} ({size_str(key[1])})")
            ax.legend(fontsize=7)
        fig.suptitle("Throughput against file size")
        save(fig, "size.png", "Throughput against file size (size sweep)",
             [k for k in summary if (k[0], k[2]) in {key[:2] for key in keys}])
    return made


def main_size_of(summary):
    """The file size most cells ran at with a result; the others are the
    size sweep (or the --corrupt checks of make test, which fail by design)."""
    sizes = {}
    for k, c in summary.items():
        sizes[k[1]] = sizes.get(k[1], 0) + sum(1 for s in c.values() if s["n"])
    return max(sorted(sizes), key=lambda n: sizes[n])


def results_date(paths):
    """The day the results were written (their files' mtime), UTC."""
    t = max(os.path.getmtime(p) for p in paths)
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="THP page cache workloads")
    ap.add_argument("--icount", action="store_true",
                    default=os.environ.get("THP_ICOUNT", "") not in ("", "0"),
                    help="the runs were under QEMU -icount: times are instruction "
                         "counts (default: on when THP_ICOUNT is set, as bench.sh runs it)")
    ap.add_argument("--headline", type=int, metavar="BYTES",
                    help="print only the short table for files of BYTES")
    ap.add_argument("--firsttouch", type=int, metavar="BYTES",
                    help="print only the first-store (MADV_POPULATE_WRITE) table for files of BYTES")
    ap.add_argument("--iozone", type=int, metavar="BYTES",
                    help="print only the IOzone-like table for files of BYTES")
    ap.add_argument("--counts", nargs=2, metavar=("JSONL", "BYTES"),
                    help="with --iozone: add the instruction-count column from an "
                         "icount run (make bench's out/bench-counts) at BYTES")
    a = ap.parse_args(argv)
    try:
        rows = load(a.results)
    except InputError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    summary = summarize(rows)
    if a.firsttouch:
        print(firsttouch(rows, a.firsttouch))
        return 0
    if a.headline:
        print(headline(summary, a.headline, a.icount))
        return 0
    if a.iozone and a.counts:
        if not a.counts[1].isdigit():
            print(f"report.py: --counts: size '{a.counts[1]}' is not a number of bytes",
                  file=sys.stderr)
            return 2
        try:
            counts = summarize(load([a.counts[0]]))
        except InputError as e:
            print(f"report.py: --counts: {e}", file=sys.stderr)
            return 2
        csize = int(a.counts[1])
        print(iozone_both(summary, a.iozone, counts, csize))
        return 0
    if a.iozone:
        print(iozone(summary, a.iozone))
        return 0
    os.makedirs(a.out, exist_ok=True)
    main_size = main_size_of(summary)
    date = results_date(a.results)

    def label(cases):
        return run_label(rows, summary, cases, date, a.icount)
    for name in PLOT_NAMES:
        stale = os.path.join(a.out, name)
        if os.path.exists(stale):
            os.remove(stale)
    made = plots(summary, main_size, a.out, label)
    run = label(sorted_cases(summary, main_size))
    bad = [r for r in rows if failed(r)]
    md = [f"# {a.title}", ""] + summary_lines(summary, main_size, rows, a.icount) + [
        "", f"Run: {run}; {len(rows)} runs.", "",
        "Rates are MiB/s, or 4 KiB pages/s for fault modes (they touch one byte a page). "
        "Ratios are per repetition (runs of one repetition ran back to back): median and "
        "range. memcpy is matched by file size and block size.", ""]
    md += [f"## Headline ({size_str(main_size)})", "", headline(summary, main_size, a.icount), ""]
    io = iozone(summary, main_size)
    if io:
        md += [f"## IOzone-like set ({size_str(main_size)})", "", io, ""]
    ft = firsttouch(rows, main_size)
    if ft:
        md += [f"## First stores into a sparse shared mapping ({size_str(main_size)})", "",
               "One store per 4 KiB page, each timed alone; a fault is a store during "
               "which the process's minor fault count moved.  Medians over runs of each "
               "run's figure, with min-max.", ""] + firsttouch_lines(rows, main_size) + \
            ["", ft, ""]
    sm = smallfiles(rows)
    if sm:
        md += ["## Small files", "", "Times are medians (min-max) per 1,000 files"
               + (" (virtual seconds: 10^9 instructions)" if a.icount else "") + ".", ""] + \
            smallfiles_lines(rows) + ["", sm, ""]
    md += ["## All runs", "", table(summary), ""]
    if bad:
        md += ["## Failed runs", ""] + [f"- {r['workload']} {r.get('mode', '')} on {r.get('dir')}: "
                                        f"{r.get('error') or 'exit ' + str(r.get('rc'))}"
                                        for r in bad] + [""]
    if made:
        md += ["## Plots", ""]
        for p, caption in made:
            md += [f"![{caption}]({os.path.basename(p)})", ""]
    with open(os.path.join(a.out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    print(os.path.join(a.out, "report.md"))
    for p, _ in made:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
