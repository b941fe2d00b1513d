#!/usr/bin/env python3
"""Unit test of report.py on a fixed sample: the tables it computes and
its handling of bad input.  Prints TAP."""
import io
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "testdata", "sample.jsonl")
results = []


def check(cond, name):
    results.append((bool(cond), name))


def close(a, b):
    return a is not None and abs(a - b) < 1e-6


rows = report.load([SAMPLE])
check(len(rows) == 12, "loads the 12 workload records and skips other types")
s = report.summarize(rows)
case = ("write write", 64 << 20, 1 << 20)
check(case in s, "groups runs by (workload mode, size, bs)")
thp, k4 = s[case]["ramfs-THP"], s[case]["ramfs-4K"]
# 64 MiB in 0.1/0.2/0.3 s -> 640/320/213.3 MiB/s: median 320.
check(close(thp["median"], 320.0) and close(thp["max"], 640.0) and thp["n"] == 3,
      "ramfs-THP median 320 MiB/s, max 640, n 3")
check(close(k4["median"], 128.0) and close(k4["min"], 64 / 0.6), "ramfs-4K median 128 MiB/s")
r = report.ratios(s, case)
check(close(r["ramfs-THP"][0], 2.5), "ratio vs ramfs-4K is 2.5 for ramfs-THP")
check(close(r["ramfs-4K"][0], 1.0), "ratio vs ramfs-4K is 1 for ramfs-4K itself")
check(close(r["ramfs-THP"][1], 320 / 1280.0), "ratio vs memcpy uses memcpy's median (1280 MiB/s)")
check(s[case]["tmpfs-4K"]["failed"] == 1 and s[case]["tmpfs-4K"]["median"] is None,
      "a failed run is counted as failed, not averaged")
check(close(thp["faults_gib"], 32 * 16) and close(k4["xa_gib"], 28800 * 16),
      "faults and xarray bytes are scaled per GiB")
# Seeds pair the runs: THP 0.1/0.2/0.3 s with 4K 0.5/0.6/0.4 s.
pr = report.paired(s, case, "ramfs-THP")
check(pr and close(pr[0], 3.0) and close(pr[1], 0.4 / 0.3) and close(pr[2], 5.0),
      "per-repetition ratios pair runs by seed: median 3, min 1.33, max 5")
check(report.paired(s, case, "tmpfs-4K") is None, "no pairs (all failed): no ratio")
ioz = report.iozone_both(s, 64 << 20, s, 64 << 20)
check("| syscall | initial write | write write (1M) | 3.00 (1.33-5.00) |" in ioz
      and "| 3.00 |" in ioz and "fault" not in ioz,
      "the IOzone table pairs by seed in both columns and leaves out absent cases")
# The registry's cases under the names summarize() gives their runs.
check(report.case_key("write") == ("write write", 1 << 20)
      and report.case_key("fault --mode write --private --bs 4K") == ("fault write private", 4096)
      and report.case_key("read --pattern random --bs 64K") == ("read read random", 65536)
      and report.case_key("truncate") == ("truncate shrink", 1 << 20),
      "case_key: a registry case named as its records are (default mode from workloads/*.c)")
table_rows = report.registry.ordered(report.CASES, "table")
check([h[2] for h in report.HEADLINE] == [r["target"] for r in table_rows]
      and len(report.IOZONE) == len(report.registry.ordered(report.CASES, "iozone"))
      and all(len(io) == 4 and io[0] in ("syscall", "mmap") for io in report.IOZONE),
      f"guest/cases.txt gives the headline ({len(report.HEADLINE)} rows, targets) and IOzone tables")
md = report.table(s)
check("| write write | 64M | 1M | ramfs-THP | 3 | 320.0 |" in md and "(1 failed)" in md,
      "the markdown table shows medians and failures")

with tempfile.TemporaryDirectory() as d:
    bad = os.path.join(d, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"type":"workload","workload":"write"}\n')
    for path, what in ((os.path.join(d, "missing.jsonl"), "missing file"),
                       (bad, "record without fields")):
        err = io.StringIO()
        with redirect_stderr(err):
            rc = report.main([path, "--out", d])
        check(rc == 2 and err.getvalue().startswith("report.py: ") and "Traceback" not in err.getvalue(),
              f"{what}: clear message, exit 2")
    with open(bad, "w") as f:
        f.write("{not json\n")
    err = io.StringIO()
    with redirect_stderr(err):
        rc = report.main([bad, "--out", d])
    check(rc == 2 and ":1: not JSON" in err.getvalue(), "malformed line: names the line, exit 2")
    with redirect_stdout(io.StringIO()):
        rc = report.main([SAMPLE, "--out", d])
    pngs = [p for p in os.listdir(d) if p.endswith(".png")]
    check(rc == 0 and os.path.exists(os.path.join(d, "report.md")) and len(pngs) >= 3,
          f"writes report.md and {len(pngs)} plots")

print(f"1..{len(results)}")
for i, (ok, name) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
