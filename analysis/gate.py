#!/usr/bin/env python3
"""The non-regression gate: the patched kernel where no one asked for huge
pages against the stock kernel, from two icount (deterministic) runs.

usage: gate.py STOCK.jsonl PATCHED.jsonl [--limit 0.01]
Each file is a run's results.jsonl (or its workload lines alone).  Each
case's median time over the runs that succeeded on the patched kernel must
be within --limit of stock's on the same filesystem: stock ramfs (4 KiB
pages) is the baseline of both patched ramfs under deny and under the
default, never.  A case that failed on either side, that only
one side has, a run that stopped before its last case, or two sides run on
one kernel fail the gate.
Prints one row per case and exits 1 if any is out, 2 on unreadable input."""
import argparse
import re
import statistics
import sys

import report

LIMIT = 0.01        # what make bench-icount applies
# The stock configuration a patched one is measured against, where not its
# own: stock ramfs has no policy, and is ramfs-4K.
BASELINE = {"ramfs-never": "ramfs-4K"}
# What each side must have measured: a run without one of them gates
# nothing there (make bench-icount runs all three on both kernels, in the
# same order; on stock, ramfs-never is ramfs as it is, ramfs-4K).
REQUIRED = {"stock": ("ramfs-4K", "tmpfs-4K"),
            "patched": ("ramfs-never", "ramfs-4K", "tmpfs-4K")}
PROGRESS = re.compile(r"^(\d+)/(\d+): ")


def side(path):
    """({(case, config): [seconds of the good runs]}, {key: failed runs},
    [problems of the run as a whole], {kernel releases of its records})."""
    raw = report.read_lines([path])
    lines, rows = [r for _, _, r in raw], report.workload_rows(raw)
    times, bad, problems = {}, {}, []
    since_case = []
    for r in lines:
        t = r.get("type")
        if t == "workload":
            key = (report.case_of(r), report.config_of(r))
            since_case.append((key, not report.failed(r)))
            if report.failed(r):
                bad[key] = bad.get(key, 0) + 1
            else:
                times.setdefault(key, []).append(r["wall_s"])
        elif t == "case":
            # The guest's verdict on the program that just ran: a non-zero
            # exit fails what it printed, or the run itself if it printed
            # nothing.
            if r.get("rc", 0) != 0 or r.get("timeout"):
                for key, good in since_case:
                    if good:
                        times[key].pop()
                        bad[key] = bad.get(key, 0) + 1
                if not since_case:
                    problems.append(f"'{r.get('case')}' on {r.get('dir')} exited {r.get('rc')} "
                                    "with no result")
            since_case = []
        elif t == "abort":
            problems.append(f"the guest's job list aborted (rc {r.get('rc')})")
    # The guest announces "i/N: ..." before each run: fewer results than N
    # means the boot stopped early (hang, crash, time limit).
    totals = [int(m.group(2)) for r in lines if r.get("type") == "progress"
              for m in [PROGRESS.match(str(r.get("msg", "")))] if m]
    if totals and len(rows) < max(totals):
        problems.append(f"{len(rows)} of {max(totals)} runs have a result: the boot stopped early")
    if totals and not any(r.get("type") == "end" for r in lines):
        problems.append("no end marker: the guest did not finish")
    if not rows:
        problems.append("no workload records")
    times = {k: v for k, v in times.items() if v}
    kernels = {r.get("kernel") for r in rows}
    return times, bad, problems, kernels


def gate(stock, patched, limit):
    """Rows [(name, config, stock s, patched s, ratio, verdict)], problems,
    and whether the gate passes."""
    (st, sbad, sprob, skern), (pt, pbad, pprob, pkern) = stock, patched
    problems = [f"stock: {p}" for p in sprob] + [f"patched: {p}" for p in pprob]
    # The same file twice, or two runs of one kernel, compare nothing.
    if skern & pkern:
        problems.append(f"both sides ran on {', '.join(sorted(map(str, skern & pkern)))}")
    for name, keys in (("stock", set(st) | set(sbad)), ("patched", set(pt) | set(pbad))):
        have = {cfg for _, cfg in keys}
        problems += [f"{name}: no {cfg} runs" for cfg in REQUIRED[name] if cfg not in have]
    rows = []
    pkeys = set(pt) | set(pbad)
    base = {k: (k[0], BASELINE.get(k[1], k[1])) for k in pkeys}
    # A stock case no patched one is measured against: missing on patched.
    pkeys |= (set(st) | set(sbad)) - set(base.values())
    for key in sorted(pkeys):
        (name, size, bs), cfg = key
        skey = base.get(key, key)
        label = f"{name} {report.size_str(size)}/{report.size_str(bs)}"
        s = statistics.median(st[skey]) if skey in st else None
        p = statistics.median(pt[key]) if key in pt else None
        why = [f"{n} failed on {w}" for n, w in ((sbad.get(skey), "stock"),
                                                 (pbad.get(key), "patched")) if n]
        why += [f"missing on {w}" for v, b, k, w in ((s, sbad, skey, "stock"),
                                                     (p, pbad, key, "patched"))
                if v is None and k not in b]
        ratio = p / s if s and p else None
        if why:
            verdict = "FAIL: " + ", ".join(why)
        elif ratio is None:
            verdict = "FAIL: no time"
        else:
            verdict = "yes" if ratio <= 1 + limit else "NO"
        if skey[1] != cfg:
            cfg = f"{cfg} (stock {skey[1]})"
        rows.append((label, cfg, s, p, ratio, verdict))
    ok = rows and not problems and all(r[5] == "yes" for r in rows)
    return rows, problems, bool(ok)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stock")
    ap.add_argument("patched")
    ap.add_argument("--limit", type=float, default=LIMIT,
                    help=f"largest patched/stock - 1 allowed (default {LIMIT:g})")
    a = ap.parse_args(argv)
    try:
        s, p = side(a.stock), side(a.patched)
    except report.InputError as e:
        print(f"gate.py: {e}", file=sys.stderr)
        return 2
    rows, problems, ok = gate(s, p, a.limit)
    pct = f"{a.limit * 100:g}%"
    print(f"gate: patched / stock median time per case must be <= {1 + a.limit:g} "
          f"(limit {pct}, --limit {a.limit:g})")
    print(f"| case | config | stock s | patched s | patched/stock | within {pct} |")
    print("|---|---|---|---|---|---|")
    for label, cfg, s_, p_, ratio, verdict in rows:
        print(f"| {label} | {cfg} | {report.fmt(s_, 6)} | {report.fmt(p_, 6)} "
              f"| {report.fmt(ratio, 3)} | {verdict} |")
    for prob in problems:
        print(f"gate: {prob}")
    failed = [r for r in rows if r[5] != "yes"]
    print(f"gate: {'PASS' if ok else 'FAIL'}: {len(rows) - len(failed)} of {len(rows)} "
          f"cases within {pct}" + (f"; {len(problems)} problem(s) with the runs, above"
                                   if problems else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
