#!/usr/bin/env python3
"""Unit test of report.py and gate.py: the tables they compute, the rules
the figures follow (memcpy matched by block size, pages/s for touch-only
fault modes, "met" only with the figures it needs, the gate's missing and
failed cases), the plots they draw or leave out, and bad input.  Prints TAP."""
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import gate  # noqa: E402
import report  # noqa: E402
import tap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "testdata", "sample.jsonl")
MiB = 1 << 20
results = []


def check(cond, name):
    results.append((bool(cond), name))


def close(a, b):
    return a is not None and abs(a - b) < 1e-6


def knob(policy):
    """The global page_cache file of v4 as it reads with policy in force."""
    return " ".join(f"[{p}]" if p == policy else p
                    for p in ("never", "within_size", "advise", "always", "deny", "force"))


def rec(workload="write", mode="write", cfg="ramfs-4K", size=64 * MiB, bs=MiB, seed=1,
        wall=0.1, verify=0, deltas=None, **extra):
    """One workload record as the harness prints it, for configuration cfg:
    v4's, where the 4 KiB baseline is the global deny and ramfs-never a
    mount that follows the global never."""
    fs, huge, policy = {"ramfs-THP": ("ramfs", "", "always"), "ramfs-4K": ("ramfs", "", "deny"),
                        "ramfs-never": ("ramfs", "", "never"),
                        "tmpfs-huge": ("tmpfs", "always", "never"),
                        "tmpfs-4K": ("tmpfs", "never", "never"),
                        "ramfs-within_size": ("ramfs", "within_size", "never"),
                        "tmpfs-within_size": ("tmpfs", "within_size", "never"),
                        "memcpy": ("ramfs", "", "never")}[cfg]
    r = {"type": "workload", "workload": "memcpy" if cfg == "memcpy" else workload,
         "mode": "memcpy" if cfg == "memcpy" else mode,
         "params": {"size": size, "bs": bs, "seed": seed, "pattern": "seq", "verify": verify},
         "kernel": "6.12.57-test", "fs": fs, "mount": "rw" + (f",huge={huge}" if huge else ""),
         "knob": knob(policy), "wall_s": wall, "bytes": size,
         "deltas": deltas or {}, "ok": True, "error": ""}
    r.update(extra)
    return r


def write_jsonl(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    return path


def quiet(fn, *args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = fn(*args)
    return rc, out.getvalue(), err.getvalue()


# --- the fixed sample --------------------------------------------------------
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
check(close(report.vs_memcpy(s, case, "ramfs-THP"), 320 / 1280.0),
      "vs memcpy: ramfs-THP's median over memcpy's (1280 MiB/s, same size and bs)")
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
check("| write write | 64M | 1M | ramfs-THP | 3 | 320.0 |" in md and "(1 failed)" in md
      and "| MiB/s | 3.00 |" in md, "the markdown table shows medians, units, per-rep ratios "
      "and failures")
# tmpfs-4K failed in every repetition: tmpfs's ratio does not exist.
check(report.met(s, case, 1.5, ">= 1.5x, >= tmpfs's") == "n/a",
      "met: a target against tmpfs's ratio with no tmpfs-4K result is n/a, not yes")
check("| >= 1.5x, >= tmpfs's | n/a |" in report.headline(s, 64 << 20),
      "the headline table shows that n/a")

# --- memcpy matched by size and block size -----------------------------------
mc = report.summarize([rec(cfg="ramfs-4K", bs=4096, wall=0.2),
                       rec(cfg="memcpy", bs=4096, wall=0.1),
                       rec(cfg="memcpy", bs=MiB, wall=0.02),
                       rec(cfg="memcpy", bs=MiB, size=16 * MiB, wall=0.001),
                       rec(cfg="ramfs-4K", bs=64 << 10, wall=0.2)])
check(close(report.vs_memcpy(mc, ("write write", 64 * MiB, 4096), "ramfs-4K"), 0.5),
      "vs memcpy: a 4K write is set against memcpy in 4K blocks of the same size, "
      "not the median over all block sizes")
check(report.vs_memcpy(mc, ("write write", 64 * MiB, 64 << 10), "ramfs-4K") is None,
      "vs memcpy: no memcpy run of that block size gives no ratio")

# --- touch-only fault modes in pages per second ------------------------------
fw = report.summarize([rec("fault", "read", wall=0.5), rec(cfg="memcpy", wall=0.05),
                       rec("fault", "write", verify=1, wall=0.5)])
fr = fw[("fault read", 64 * MiB, MiB)]["ramfs-4K"]
check(fr["unit"] == "pages/s" and close(fr["median"], 16384 / 0.5),
      "a touch-only fault mode is rated in 4 KiB pages per second (bytes / 4096 / s)")
check(report.vs_memcpy(fw, ("fault read", 64 * MiB, MiB), "ramfs-4K") is None,
      "a touch-only fault mode is not set beside memcpy's bytes per second")
check(fw[("fault write", 64 * MiB, MiB)]["ramfs-4K"]["unit"] == "MiB/s",
      "fault write with --verify fills whole pages: MiB/s")

# --- configurations: the policy in force, as v4 and v3 records say it -------
cfgs = [report.config_of(dict(rec(), mount=m, knob=k)) for m, k in (
    ("rw", knob("deny")), ("rw,huge=always", knob("deny")), ("rw,huge=never", knob("force")),
    ("rw,huge=never", knob("always")), ("rw", knob("never")), ("rw", "n/a"),
    ("rw,huge=never", "always within_size advise [never]"))]
check(cfgs == ["ramfs-4K", "ramfs-4K", "ramfs-THP", "ramfs-never", "ramfs-never", "ramfs-4K",
               "ramfs-4K"],
      "config_of: deny is the 4K baseline on any mount, force huge on any; never (mount or "
      "global) sized by the I/O; no page_cache file (stock) or v3's never: 4K")

# --- met: per-repetition ratios, missing figures, what icount cannot see -----
def reps(name, mode, walls):
    """walls: {cfg: [seconds of repetitions 1, 2, ...]}"""
    return [rec(name, mode, cfg=cfg, seed=i + 1, wall=w)
            for cfg, ws in walls.items() for i, w in enumerate(ws)]


# Medians: THP 1.0 s, 4K 2.0 s -> 2.0x; but per repetition 1/1, 1/2, 3/3 -> 1.0x.
m = report.summarize(reps("write", "write", {"ramfs-THP": [1, 1, 3], "ramfs-4K": [1, 2, 3],
                                             "tmpfs-huge": [1, 1, 1],
                                             "tmpfs-4K": [1, 1, 1]}))
wc = ("write write", 64 * MiB, MiB)
check(report.met(m, wc, 1.5, ">= 1.5x") == "no",
      "met judges the per-repetition ratio (1.0x), not the ratio of medians (2.0x)")
m2 = report.summarize(reps("write", "write", {"ramfs-THP": [1, 1], "ramfs-4K": [2, 2]}))
check(report.met(m2, wc, 1.5, ">= 1.5x, >= tmpfs's") == "n/a"
      and report.met(m2, wc, 1.5, ">= 1.5x") == "yes",
      "met: a missing tmpfs figure makes a tmpfs target n/a; the plain target is yes")
check(report.met(m2, wc, None, "") == "-", "met: no target, no verdict")
tie = report.summarize(reps("fault", "random", {c: [1, 1] for c in report.COUNT_CONFIGS}))
rc_ = ("fault random", 64 * MiB, MiB)
check(report.met(tie, rc_, None, ">= tmpfs's", icount=True) == "n/a (icount)",
      "met: under icount a tie on an access through an existing mapping is n/a (icount)")
check(report.met(tie, rc_, None, ">= tmpfs's", icount=False) == "yes",
      "met: the same tie in wall-clock time is judged")
wtie = report.summarize(reps("write", "write", {c: [1, 1] for c in report.COUNT_CONFIGS}))
check(report.met(wtie, wc, None, ">= tmpfs's", icount=True) == "yes",
      "met: icount sees write(2); a tie there is judged")

fb = reps("write", "write", {"ramfs-THP": [1, 1], "ramfs-4K": [2, 2]})
for r in fb:
    r["free_2m"] = [40, 0]
fb[1]["free_2m"] = [20, 11]
check(report.met(report.summarize(fb), wc, 1.5, ">= 1.5x") == "n/a (1 fell back)",
      "met: a ramfs-THP run that began with fewer free 2 MiB blocks than its file's 32 "
      "(ramfs counts no refused huge folio) is not judged as huge")
tfb = reps("write", "write", {"ramfs-THP": [1, 1], "ramfs-4K": [2, 2],
                              "tmpfs-huge": [1, 1], "tmpfs-4K": [2, 2]})
for r in tfb:
    if report.config_of(r) == "tmpfs-huge":
        r["deltas"] = {"thp_file_fallback": 5}
        break
check(report.met(report.summarize(tfb), wc, 1.5, ">= 1.5x, >= tmpfs's") == "n/a (1 tmpfs fell back)"
      and report.met(report.summarize(tfb), wc, 1.5, ">= 1.5x") == "yes",
      "met: a tmpfs huge run that fell back is no figure for a tmpfs target; a plain target is judged")

# --- the three summary lines --------------------------------------------------
lines = report.summary_lines(m, 64 * MiB, [], icount=False)
check(len(lines) == 3 and "in 0 of 1 workloads" in lines[0] and "1.00x" in lines[0]
      and "Targets: 0 of 1 met" in lines[2],
      "the summary is three lines computed from the run")

# --- the gate ----------------------------------------------------------------
def gate_run(d, stock, patched, *args):
    return quiet(gate.main, [write_jsonl(os.path.join(d, "s.jsonl"), stock),
                             write_jsonl(os.path.join(d, "p.jsonl"), patched)] + list(args))


PATCHED = "6.1.192-patched"


def icount_side(scale=1.0, drop=None, fail=None, progress=True, end=True,
                kernel="6.1.192-stock", cfg=None):
    """Two repetitions of two cases on cfg (default: each configuration the
    gate requires of the kernel's side), as a results.jsonl."""
    if cfg is None:
        # Every configuration the gate requires of that side.
        cfgs = gate.REQUIRED["stock" if "stock" in kernel else "patched"]
        return [r for c in cfgs for r in icount_side(scale, drop, fail, progress, end, kernel, c)
                if r["type"] == "workload" or c == cfgs[0]]
    out, runs = [], [("write", "write", 0.10), ("read", "read", 0.05)]
    total = 2 * len(runs)
    for seed in (1, 2):
        for name, mode, wall in runs:
            if progress:
                out.append({"type": "progress", "msg": f"{len(out) // 2 + 1}/{total}: wl-{name}"})
            if name == drop:
                continue
            r = rec(name, mode, cfg=cfg, seed=seed, wall=wall * scale, kernel=kernel)
            if name == fail and seed == 2:
                r.update(ok=False, wall_s=0, bytes=0, rc=139, error="exit 139")
            out.append(r)
    return out + ([{"type": "end"}] if end else [])


with tempfile.TemporaryDirectory() as d:
    rc, out, _ = gate_run(d, icount_side(), icount_side(1.009, kernel=PATCHED))
    check(rc == 0 and "PASS: 6 of 6" in out, "gate: 0.9% slower passes the default 1% limit")
    check("limit 1%" in out and "within 1% |" in out,
          "gate: the header prints the default limit")
    rc, out, _ = gate_run(d, icount_side(), icount_side(1.011, kernel=PATCHED))
    check(rc == 1 and "| NO |" in out, "gate: 1.1% slower fails the default limit")
    rc, out, _ = gate_run(d, icount_side(), icount_side(1.02, kernel=PATCHED), "--limit", "0.03")
    check(rc == 0 and "limit 3%" in out and "within 3% |" in out,
          "gate: --limit 0.03 is the limit printed and applied")
    never = (icount_side(kernel=PATCHED, cfg="ramfs-4K") + icount_side(kernel=PATCHED, cfg="tmpfs-4K")
             + icount_side(1.02, kernel=PATCHED, cfg="ramfs-never"))
    rc, out, _ = gate_run(d, icount_side(), never)
    check(rc == 1 and "PASS" not in out and out.count("| yes |") == 4
          and out.count("ramfs-never (stock ramfs-4K)") == 2 and out.count("| NO |") == 2,
          "gate: patched ramfs under never is held to stock ramfs (ramfs-4K)")
    no_never = icount_side(kernel=PATCHED, cfg="ramfs-4K") + icount_side(kernel=PATCHED, cfg="tmpfs-4K")
    rc, out, _ = gate_run(d, icount_side(), no_never)
    check(rc == 1 and "patched: no ramfs-never runs" in out,
          "gate: a patched run without ramfs under never fails, every case it has within")
    rc, out, _ = gate_run(d, icount_side(), icount_side(drop="read", progress=False, kernel=PATCHED))
    check(rc == 1 and "missing on patched" in out, "gate: a case missing on one side fails")
    rc, out, _ = gate_run(d, icount_side(fail="write"), icount_side(kernel=PATCHED))
    check(rc == 1 and "1 failed on stock" in out and "0.100000 |" in out,
          "gate: a failed run (ok false, rc 139) is dropped from the median and fails its case")
    bad_case = icount_side(kernel=PATCHED)
    bad_case.insert(2, {"type": "case", "case": "write", "dir": "/mnt/ramfs-4k", "rc": 1})
    rc, out, _ = gate_run(d, icount_side(), bad_case)
    check(rc == 1 and "1 failed on patched" in out,
          "gate: a non-zero rc case line fails the run it follows")
    rc, out, _ = gate_run(d, icount_side(), icount_side(kernel=PATCHED)[:5])
    check(rc == 1 and "2 of 4 runs have a result" in out and "no end marker" in out,
          "gate: a boot that stopped early fails, though each case has a result")
    rc, out, _ = gate_run(d, icount_side(), icount_side())
    check(rc == 1 and "both sides ran on 6.1.192-stock" in out,
          "gate: the same kernel on both sides fails, though every case is within the limit")
    rc, _, err = quiet(gate.main, [os.path.join(d, "none.jsonl"), os.path.join(d, "s.jsonl")])
    check(rc == 2 and err.startswith("gate.py: cannot read"), "gate: a missing file, exit 2")

# --- plots: one per question, none empty or degenerate -----------------------
def pngs(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".png"))


full = reps("write", "write", {"ramfs-THP": [1, 1.1], "ramfs-4K": [2, 2.1],
                               "tmpfs-huge": [1.5, 1.4], "tmpfs-4K": [2, 2]})
full += [rec("write", "write", cfg=c, wall=0.1, deltas={"minflt": f, "radix_tree_node": x})
         for c, f, x in (("ramfs-THP", 10, 576), ("ramfs-4K", 100, 9000),
                         ("tmpfs-4K", 100, 0))]
sweep = [rec("write", "write", cfg=c, size=z * MiB, wall=z / 1000 * k, seed=9)
         for z in (16, 128) for c, k in (("ramfs-THP", 1), ("ramfs-4K", 2))]
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "throughput.png"), "w").close()
    rc, _, _ = quiet(report.main, [write_jsonl(os.path.join(d, "r.jsonl"), full), "--out", d])
    check(rc == 0 and pngs(d) == ["absolute.png", "counts.png", "speedup.png"],
          "no size sweep: no size.png; an old plot of another name is removed")
    text = open(os.path.join(d, "report.md")).read()
    check(text.startswith("# ") and text.split("\n")[2].startswith("Huge folios on ramfs: faster")
          and text.split("\n")[5] == "", "report.md opens with the three-line summary")
    rc, _, _ = quiet(report.main, [write_jsonl(os.path.join(d, "r.jsonl"), full + sweep),
                                   "--out", d])
    check("size.png" in pngs(d), "with a size sweep, size.png is drawn")
    no_thp = [r for r in full if report.config_of(r) in ("ramfs-4K", "tmpfs-4K")]
    rc, _, _ = quiet(report.main, [write_jsonl(os.path.join(d, "r.jsonl"), no_thp), "--out", d])
    check(rc == 0 and pngs(d) == ["counts.png"],
          "no huge-page runs: no speed-up or absolute plot (nothing to compare)")
    one = [rec("write", "write", cfg="ramfs-4K", deltas={"minflt": 5})]
    rc, _, _ = quiet(report.main, [write_jsonl(os.path.join(d, "r.jsonl"), one), "--out", d])
    check(rc == 0 and pngs(d) == [], "a single value is no plot: none is written")
check(report.counts_data(report.summarize(one), 64 * MiB) == {},
      "a counts panel needs two positive values")

# --- first stores (MADV_POPULATE_WRITE) ---------------------------------------
def ft(cfg, hint, seed, p99, mx, ret=0, failed=False):
    """A firsttouch record; after MADV_POPULATE_WRITE no store faults, and
    the workload prints null fault quantiles."""
    q = {"faults_p50_us": p99 / 10, "faults_p99_us": p99, "faults_max_us": mx}
    if hint == "populate":
        q = dict.fromkeys(q)
    return rec("firsttouch", hint, cfg=cfg, seed=seed, hint=hint, hint_ret=ret, hint_s=0.1,
               stores_s=0.2, faults=0 if hint == "populate" else 128, stores_p99_us=p99,
               stores_max_us=mx, ok=not failed, **q)


fts = [ft("ramfs-THP", "none", s, 9000 + s, 17000) for s in (1, 2, 3)] + \
      [ft("ramfs-THP", "populate", s, 2 + s, 5000) for s in (1, 2, 3)] + \
      [ft("ramfs-THP", "populate", 4, 1, 1, ret=-1, failed=True)] + \
      [ft("ramfs-4K", "none", 1, 100, 900)]
t = report.firsttouch(fts, 64 * MiB)
row = [l for l in t.splitlines() if l.startswith("| ramfs-THP | none")]
check(len(row) == 1 and "| 3 | 0 |" in row[0] and "9002.0 (9001.0-9003.0)" in row[0],
      "firsttouch: medians with min-max over the runs, hint's return shown")
row = [l for l in t.splitlines() if l.startswith("| ramfs-THP | populate")]
check(len(row) == 1 and "| 3 | 0 |" in row[0] and "| - | - | - |" in row[0],
      "firsttouch: failed runs left out; no faults after MADV_POPULATE_WRITE: quantiles -")
check("willwrite" not in t, "firsttouch: no MADV_WILLWRITE row (not in v4)")
lines = report.firsttouch_lines(fts, 64 * MiB)
check(len(lines) == 1 and "MADV_POPULATE_WRITE" in lines[0]
      and "4.0 us at p99 against 9002.0 us" in lines[0]
      and "5000 us against 17000 us" in lines[0],
      "firsttouch: the summary line compares the stores' p99 and max after the hint with none")
check(report.firsttouch(fts, 32 * MiB) == "" and report.firsttouch_lines(fts, 32 * MiB) == [],
      "firsttouch: no runs of that size, no table")

# The small-file table: memory after writing and seconds per step, per
# configuration and file count; within_size against 4K as per-repetition
# ratios.  Two counts of ramfs-4K are never pooled.
sm = []
for seed in (1, 2, 3):
    for cfg, mem, w in (("ramfs-4K", 3072, 0.4), ("ramfs-within_size", 3072, 0.2),
                        ("ramfs-never", 3072, 0.25),
                        ("ramfs-THP", 131072, 0.3), ("tmpfs-within_size", 3100, 0.5)):
        for mode, wall in (("write", w), ("read", w / 2), ("unlink", w / 4)):
            sm.append(rec("smallfiles", mode, cfg=cfg, seed=seed, wall=wall + seed * 0.01,
                          files=64, data_kib=3072, mem_kib=mem if mode != "unlink" else 0))
    # 640 files of 4K: 10x the data, 1.0 per 1,000 files whatever the seed
    for mode in ("write", "read", "unlink"):
        sm.append(rec("smallfiles", mode, cfg="ramfs-4K", seed=seed, wall=0.64, files=640,
                      data_kib=2560, mem_kib=5120 if mode != "unlink" else 0))
sm.append(rec("smallfiles", "write", cfg="ramfs-4K", seed=4, wall=9, ok=False, mem_kib=1,
              files=64, data_kib=3072))
t = report.smallfiles(sm)
check("| ramfs within_size | 64 | 3.0 | 3.0 (3.0-3.0) | 1.000 | 3.438 (3.281-3.594) "
      "| 1.875 (1.719-2.031) | 1.094 (0.938-1.250) |" in t
      and "| ramfs deny (4K) | 64 | 3.0 | 3.0 (3.0-3.0) | 1.000 | 6.563 (6.406-6.719) |" in t
      and "| ramfs deny (4K) | 640 | 2.5 | 5.0 (5.0-5.0) | 2.000 | 1.000 (1.000-1.000) "
      "| 1.000 (1.000-1.000) | 1.000 (1.000-1.000) |" in t
      and "| ramfs always | 64 | 3.0 | 128.0 (128.0-128.0) | 42.667 |" in t
      and "| ramfs never (sized by the I/O) | 64 | 3.0 | 3.0 (3.0-3.0) | 1.000 |" in t
      and t.index("ramfs deny (4K)") < t.index("ramfs never (sized")
      and "tmpfs always" not in t,
      "smallfiles: memory, memory per byte and seconds per 1,000 files per configuration "
      "and file count, failed runs left out, absent configs too")
lines = report.smallfiles_lines(sm)
check(lines and lines[0].startswith("64 files: ramfs within_size holds 1.000x the page cache "
                                    "of ramfs-4K")
      and "64 files, write: ramfs within_size is 1.91x as fast as ramfs-4K "
      "(per-repetition 1.87-1.95)." in lines
      and "64 files, read: ramfs within_size is 1.83x as fast as ramfs-4K "
      "(per-repetition 1.77-1.91)." in lines
      and not any(l.startswith("640 files") for l in lines),
      "smallfiles: within_size against 4K per file count, memory and per-repetition speed; "
      "a count only one side ran gives no line")
check(report.smallfiles([rec()]) == "" and report.smallfiles_lines([rec()]) == [],
      "smallfiles: no runs, no table")
# Their --size is the harness default: in the summary they would be cases
# of a 64 MiB run (make bench's -icount boot) beside the real ones.
check(list(report.summarize(sm + [rec()])) == list(report.summarize([rec()])),
      "smallfiles: kept out of the size-keyed summary (headline, plots, sentences)")
# The collapse table: seconds per GiB, random reads before/after/tmpfs.
co = []
for seed in (1, 2, 3):
    co.append(rec("collapse", "madvise", cfg="ramfs-4K", size=256 * MiB, bs=2 * MiB,
                  seed=seed, wall=0.25 + seed * 0.01))
    for cfg, madv, wall in (("ramfs-4K", "none", 1.0), ("ramfs-4K", "collapse", 0.5),
                            ("tmpfs-huge", "none", 0.4)):
        r = rec("fault", "random", cfg=cfg, size=256 * MiB, bs=2 * MiB, seed=seed, wall=wall)
        r["params"]["madvise"] = madv
        co.append(r)
co.append(rec("collapse", "madvise", cfg="ramfs-4K", size=256 * MiB, bs=2 * MiB, seed=4, wall=9,
              ok=False))
# The headline's own fault random runs (1M) are not the collapse block's.
co.append(rec("fault", "random", cfg="ramfs-4K", size=256 * MiB, seed=1, wall=100))
t = report.collapse(co)
check("| MADV_COLLAPSE, s per GiB (256 MiB of 4 KiB folios, faulted in) | 3 | 1.080 (1.040-1.120) | - |" in t
      and "| the same after MADV_COLLAPSE, pages/s | 3 | 131072 (131072-131072) | 2.00x (2.00x-2.00x) |" in t
      and "| tmpfs huge=always, pages/s | 3 | 163840 (163840-163840) | 2.50x (2.50x-2.50x) |" in t,
      "collapse: seconds per GiB, failed runs left out; reads after collapse and on tmpfs against before")
check(report.collapse(sm) == "", "collapse: no runs, no table")
check(report.unit_of(ft("ramfs-THP", "none", 1, 1, 1)) == "pages/s",
      "firsttouch without --verify touches one byte a page: pages/s")

# --- bad input ---------------------------------------------------------------
with tempfile.TemporaryDirectory() as d:
    bad = os.path.join(d, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"type":"workload","workload":"write"}\n')
    for path, what in ((os.path.join(d, "missing.jsonl"), "missing file"),
                       (bad, "record without fields")):
        rc, _, err = quiet(report.main, [path, "--out", d])
        check(rc == 2 and err.startswith("report.py: ") and "Traceback" not in err,
              f"{what}: clear message, exit 2")
    with open(bad, "w") as f:
        f.write("{not json\n")
    rc, _, err = quiet(report.main, [bad, "--out", d])
    check(rc == 2 and ":1: not JSON" in err, "malformed line: names the line, exit 2")

tap.finish(results)
