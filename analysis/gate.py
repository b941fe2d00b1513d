#!/usr/bin/env python3
"""The non-regression gate: the patched kernel with huge pages off against
the stock kernel, from two icount (deterministic) runs.

usage: gate.py STOCK.jsonl PATCHED.jsonl [--limit 0.03]
Each file is a run's results.jsonl (or its workload lines alone).  Each
case's median time over the runs that succeeded on the patched kernel must
be within --limit of stock's.  A case that failed on either side, that only
one side has, a run that stopped before its last case, or two sides run on
one kernel fail the gate.
Prints one row per case and exits 1 if any is out, 2 on unreadable input."""
import argparse
import re
import statistics
import sys

import report

LIMIT = 0.03        # what make bench-icount and the README's table apply
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
    rows = []
    for key in sorted(set(st) | set(pt) | set(sbad) | set(pbad)):
        (name, size, bs), cfg = key
        label = f"{name} {report.size_str(size)}/{report.size_str(bs)}"
        s = statistics.median(st[key]) if key in st else None
        p = statistics.median(pt[key]) if key in pt else None
        why = [f"{n} failed on {w}" for n, w in ((sbad.get(key), "stock"),
                                                 (pbad.get(key), "patched")) if n]
        why += [f"missing on {w}" for v, b, w in ((s, sbad, "stock"), (p, pbad, "patched"))
                if v is None and key not in b]
        ratio = p / s if s and p else None
        if why:
            verdict = "FAIL: " + ", ".join(why)
        elif ratio is None:
            verdict = "FAIL: no time"
        else:
            verdict = "yes" if ratio <= 1 + limit else "NO"
        rows.append((label, cfg, s, p, ratio, verdict))
    ok = rows and not problems and all(r[5] == "yes" for r in rows)
    return rows, problems, bool(ok)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stock")
    ap.add_argument("patched")
    ap.add_argument("--limit", type=float, default=LIMIT,
                    help="largest patched/stock - 1 allowed (default 0.03)")
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
