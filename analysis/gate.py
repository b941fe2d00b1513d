#!/usr/bin/env python3
"""The non-regression gate: the patched kernel with huge pages off against
the stock kernel, from two icount (deterministic) runs.

usage: gate.py STOCK.jsonl PATCHED.jsonl [--limit 0.03]
Each case's median time on the patched kernel must be within --limit of
stock's.  Prints one row per case and exits 1 if any is out."""
import argparse
import statistics
import sys

import report


def medians(path):
    rows = report.load([path])
    out = {}
    for r in rows:
        key = (report.case_of(r), report.config_of(r))
        out.setdefault(key, []).append(r["wall_s"])
    return {k: statistics.median(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stock")
    ap.add_argument("patched")
    ap.add_argument("--limit", type=float, default=0.03)
    a = ap.parse_args()
    try:
        s, p = medians(a.stock), medians(a.patched)
    except report.InputError as e:
        print(f"gate.py: {e}", file=sys.stderr)
        return 2
    bad = 0
    print("| case | config | stock s | patched s | patched/stock | within 3% |")
    print("|---|---|---|---|---|---|")
    for key in sorted(set(s) & set(p)):
        (name, size, bs), cfg = key
        ratio = p[key] / s[key] if s[key] else float("inf")
        ok = ratio <= 1 + a.limit
        bad += not ok
        print(f"| {name} {report.size_str(size)}/{report.size_str(bs)} | {cfg} | {s[key]:.4f} "
              f"| {p[key]:.4f} | {ratio:.3f} | {'yes' if ok else 'NO'} |")
    if not set(s) & set(p):
        print("gate.py: no case in common", file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
