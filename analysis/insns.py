#!/usr/bin/env python3
"""Instructions per call, by kernel function, from insncount's counts.

usage: insns.py --map System.map --per SYMBOL [--rows N] [--json F]
                LABEL=COUNTS[,BASE][@MAP] [LABEL=COUNTS[,BASE][@MAP] ...]

Each COUNTS file (make insns: one boot, one mount) holds "hexaddress count"
lines.  Addresses are named by the image's System.map; user space is one
row.  LABEL=COUNTS,BASE subtracts a second boot's counts (BASE) address by
address: make insns gives the same workload with fewer passes as BASE, so
that the boot and the workload's setup cancel and what is left is the
extra passes alone.  Everything is divided by the number of calls of
SYMBOL (the count at its first instruction, e.g. __x64_sys_pread64).
@MAP names a run's addresses by another image's System.map than --map's,
so that two kernels (stock and patched) compare function by function.
The table lists the functions that differ most between the first and the
last LABEL, then the totals; the difference of the totals is the whole
story, the rows where it comes from."""
import argparse
import bisect
import collections
import json
import sys

KERNEL = 0xffffffff80000000


def load_map(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def per_function(path, addrs, names):
    """Counts by function, and how often each function's first address ran."""
    by_fn = collections.Counter()
    entries = collections.Counter()
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"insns.py: {e}")
    with f:
        for line in f:
            a, n = line.split()
            a, n = int(a, 16), int(n)
            if a < KERNEL:
                by_fn["[user]"] += n
                continue
            i = bisect.bisect_right(addrs, a) - 1
            name = names[i] if i >= 0 else "[unknown]"
            by_fn[name] += n
            if i >= 0 and addrs[i] == a:
                entries[name] += n
    return by_fn, entries


def counted(spec, addrs, names):
    """per_function() of COUNTS, less that of BASE if the spec names one."""
    path, _, base = spec.partition(",")
    by_fn, entries = per_function(path, addrs, names)
    if base:
        b_fn, b_entries = per_function(base, addrs, names)
        by_fn.subtract(b_fn)
        entries.subtract(b_entries)
        # What cancels exactly is no row; what is left below zero is the
        # two boots differing (timers, the allocator), and stays.
        by_fn = collections.Counter({k: v for k, v in by_fn.items() if v})
    return by_fn, entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--map", required=True)
    ap.add_argument("--per", required=True)
    ap.add_argument("--rows", type=int, default=25)
    ap.add_argument("--json")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    if len(args.runs) < 2 or any("=" not in r for r in args.runs):
        sys.exit("insns.py: give at least two LABEL=COUNTS")
    maps, runs = {}, []
    for run in args.runs:
        label, spec = run.split("=", 1)
        spec, at, path = spec.rpartition("@")
        if not at:
            spec, path = path, args.map
        if path not in maps:
            try:
                maps[path] = load_map(path)
            except OSError as e:
                sys.exit(f"insns.py: {label}: {e}")
            if args.per not in maps[path][1]:
                sys.exit(f"insns.py: {args.per} is not a function of {path}")
        runs.append((label, spec, maps[path]))
    labels, per_call = [], []
    for label, spec, (addrs, names) in runs:
        by_fn, entries = counted(spec, addrs, names)
        calls = entries.get(args.per, 0)
        if calls <= 0:
            sys.exit(f"insns.py: {label}: {args.per} ran {calls} times"
                     f"{' more than in its base (are the two swapped?)' if ',' in spec else ''}")
        labels.append(label)
        per_call.append(({k: v / calls for k, v in by_fn.items()}, calls))
    first, last = per_call[0][0], per_call[-1][0]
    fns = set().union(*(p for p, _ in per_call))
    diff = {k: first.get(k, 0) - last.get(k, 0) for k in fns}
    rows = sorted(fns, key=lambda k: -abs(diff[k]))[:args.rows]
    print(f"Instructions per call of {args.per}, by function "
          f"({', '.join(f'{l}: {c} calls' for l, (_, c) in zip(labels, per_call))}).")
    print()
    print("| function | " + " | ".join(labels) + f" | {labels[0]} - {labels[-1]} |")
    print("|---|" + "---:|" * (len(labels) + 1))
    for k in rows:
        print(f"| {k} | " + " | ".join(f"{p.get(k, 0):.1f}" for p, _ in per_call) +
              f" | {diff[k]:+.1f} |")
    kern = [sum(v for k, v in p.items() if k != "[user]") for p, _ in per_call]
    print("| **kernel, all functions** | " + " | ".join(f"{t:.1f}" for t in kern) +
          f" | {kern[0] - kern[-1]:+.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"per": args.per, "labels": labels,
                       "calls": [c for _, c in per_call],
                       "per_call": [p for p, _ in per_call]}, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
