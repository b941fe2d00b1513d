#!/usr/bin/env python3
"""Turn workload JSON lines into report.md and PNG plots.

usage: report.py RESULTS.jsonl [...] --out DIR [--title T]

Rows are grouped by case (workload, mode, size, block size, pattern,
madvise, private) and configuration (ramfs-THP, ramfs-4K, tmpfs-huge,
tmpfs-4K, memcpy); each cell is the median over repetitions with min and
max, and the ratio against ramfs-4K and memcpy of the same run."""
import argparse
import json
import os
import re
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import registry  # noqa: E402

CONFIGS = ["ramfs-THP", "ramfs-4K", "tmpfs-huge", "tmpfs-4K", "memcpy"]


class InputError(Exception):
    pass


def load(paths):
    rows = []
    for path in paths:
        try:
            f = open(path, encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot read {path}: {e.strerror}")
        with f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    raise InputError(f"{path}:{n}: not JSON: {line[:60]}")
                if not isinstance(r, dict):
                    raise InputError(f"{path}:{n}: not a JSON object")
                if r.get("type") != "workload":
                    continue
                for key in ("workload", "params", "wall_s", "bytes"):
                    if key not in r:
                        raise InputError(f"{path}:{n}: workload record without '{key}'")
                rows.append(r)
    if not rows:
        raise InputError("no workload records in " + ", ".join(paths))
    return rows


def huge_of(r):
    """The policy in force: the mount's huge= if given, else (ramfs) the
    page_cache knob's; tmpfs mounts default to never."""
    for opt in r.get("mount", "").split(","):
        if opt.startswith("huge="):
            return opt[5:]
    if r.get("fs") != "ramfs":
        return "never"
    knob = r.get("knob", "")
    if "[" in knob:
        return knob.split("[")[1].split("]")[0]
    return "never"


def config_of(r):
    if r["workload"] == "memcpy":
        return "memcpy"
    fs, huge = r.get("fs", "?"), huge_of(r)
    if fs == "tmpfs":
        return "tmpfs-huge" if huge in ("always", "within_size") else "tmpfs-4K"
    if fs == "ramfs":
        return {"always": "ramfs-THP", "never": "ramfs-4K"}.get(huge, f"ramfs-{huge}")
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


def mib_s(r):
    return r["bytes"] / 1048576 / r["wall_s"] if r["wall_s"] > 0 else 0.0


def per_gib(r, key):
    d = r.get("deltas", {}).get(key)
    if d is None or not r["bytes"]:
        return None
    return d * (1 << 30) / r["bytes"]


def summarize(rows):
    """{case: {config: {"n", "median", "min", "max", "by_seed", "faults_gib", "xa_gib",
    "failed"}}}"""
    cells = {}
    for r in rows:
        cells.setdefault(case_of(r), {}).setdefault(config_of(r), []).append(r)
    out = {}
    for case, by_cfg in cells.items():
        out[case] = {}
        for cfg, rs in by_cfg.items():
            good = [x for x in rs if x.get("ok", True)]
            v = [mib_s(x) for x in good]
            f = [per_gib(x, "minflt") for x in good if per_gib(x, "minflt") is not None]
            xa = [per_gib(x, "radix_tree_node") for x in good
                  if per_gib(x, "radix_tree_node") is not None]
            out[case][cfg] = {
                "n": len(v), "failed": len(rs) - len(good),
                # Repetition r of every config ran back to back: pair by seed.
                "by_seed": {x["params"].get("seed"): mib_s(x) for x in good},
                "median": statistics.median(v) if v else None,
                "min": min(v) if v else None, "max": max(v) if v else None,
                "faults_gib": statistics.median(f) if f else None,
                "xa_gib": statistics.median(xa) if xa else None,
            }
    return out


def memcpy_median(summary, size):
    v = [c["memcpy"]["median"] for (name, sz, bs), c in summary.items()
         if sz == size and "memcpy" in c and c["memcpy"]["median"]]
    return statistics.median(v) if v else None


def ratios(summary, case):
    """Ratio of each config's median to ramfs-4K's and to memcpy's."""
    c = summary[case]
    base = c.get("ramfs-4K", {}).get("median")
    mc = memcpy_median(summary, case[1])
    res = {}
    for cfg, s in c.items():
        m = s["median"]
        res[cfg] = (m / base if m and base else None, m / mc if m and mc else None)
    return res


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


def table(summary):
    lines = ["| case | size | bs | config | n | MiB/s median | min | max | vs ramfs-4K | vs memcpy "
             "| faults/GiB | xarray B/GiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in sorted(summary, key=lambda k: (k[0], k[1], k[2])):
        rat = ratios(summary, case)
        for cfg in CONFIGS + sorted(set(summary[case]) - set(CONFIGS)):
            s = summary[case].get(cfg)
            if not s:
                continue
            med = fmt(s["median"], 1) + (f" ({s['failed']} failed)" if s["failed"] else "")
            lines.append(f"| {case[0]} | {size_str(case[1])} | {size_str(case[2])} | {cfg} | {s['n']} "
                         f"| {med} | {fmt(s['min'], 1)} | {fmt(s['max'], 1)} "
                         f"| {fmt(rat[cfg][0])} | {fmt(rat[cfg][1])} "
                         f"| {fmt(s['faults_gib'], 0)} | {fmt(s['xa_gib'], 0)} |")
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


def headline(summary, size):
    """The short table for the README and the cover letter."""
    lines = ["| workload (bs) | ramfs-4K MiB/s | ramfs-THP MiB/s | THP / 4K | per-rep THP / 4K "
             "(min-max) | tmpfs huge / 4K | THP / memcpy | faults per GiB, 4K -> THP "
             "| xarray KiB per GiB, 4K -> THP | target | met |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, bs, target, what in HEADLINE:
        c = summary.get((name, size, bs))
        if not c or "ramfs-4K" not in c or "ramfs-THP" not in c:
            continue
        r = ratios(summary, (name, size, bs))
        t4 = c.get("tmpfs-4K", {}).get("median")
        th = c.get("tmpfs-huge", {}).get("median")
        tmpfs = th / t4 if th and t4 else None
        thp = r["ramfs-THP"][0]
        met = "-"
        if target is not None and thp is not None:
            met = "yes" if thp >= target and (tmpfs is None or "tmpfs" not in what
                                              or thp >= tmpfs) else "no"
        elif "tmpfs" in what and thp is not None and tmpfs is not None:
            met = "yes" if thp >= tmpfs else "no"
        xa = [c[k]["xa_gib"] / 1024 if c[k]["xa_gib"] is not None else None
              for k in ("ramfs-4K", "ramfs-THP")]
        lines.append(f"| {name} ({size_str(bs)}) | {fmt(c['ramfs-4K']['median'], 0)} "
                     f"| {fmt(c['ramfs-THP']['median'], 0)} | {fmt(thp)} "
                     f"| {fmt_spread(paired(summary, (name, size, bs), 'ramfs-THP'))} | {fmt(tmpfs)} "
                     f"| {fmt(r['ramfs-THP'][1])} | {fmt(c['ramfs-4K']['faults_gib'], 0)} -> "
                     f"{fmt(c['ramfs-THP']['faults_gib'], 0)} | {fmt(xa[0], 0)} -> {fmt(xa[1], 0)} "
                     f"| {what or '-'} | {met} |")
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


def plots(summary, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    cases = sorted(summary, key=lambda k: (k[0], k[1], k[2]))
    labels = [f"{c[0]}\n{size_str(c[1])}/{size_str(c[2])}" for c in cases]

    def bars(key, title, fname, ylabel, log=False):
        fig, ax = plt.subplots(figsize=(max(8, len(cases) * 0.9), 5))
        w = 0.8 / len(CONFIGS)
        for i, cfg in enumerate(CONFIGS):
            ys = [(summary[c].get(cfg) or {}).get(key) or 0 for c in cases]
            ax.bar([x + i * w for x in range(len(cases))], ys, w, label=cfg)
        ax.set_xticks([x + 0.4 for x in range(len(cases))])
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if log:
            ax.set_yscale("symlog")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(outdir, fname)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        made.append(path)

    bars("median", "Throughput per workload (median)", "throughput.png", "MiB/s")
    bars("faults_gib", "Minor faults per GiB", "faults.png", "faults/GiB", log=True)
    bars("xa_gib", "xarray (radix_tree_node) bytes per GiB", "xarray.png", "bytes/GiB", log=True)

    fig, ax = plt.subplots(figsize=(7, 5))
    for name in sorted({c[0] for c in cases if c[0].startswith(("write", "fault"))}):
        for cfg in CONFIGS[:4]:
            pts = sorted((c[1], summary[c][cfg]["median"]) for c in cases
                         if c[0] == name and cfg in summary[c] and summary[c][cfg]["median"])
            if len(pts) > 1:
                ax.plot([p[0] / 1048576 for p in pts], [p[1] for p in pts], marker="o",
                        label=f"{name} {cfg}")
    ax.set_xscale("log")
    ax.set_xlabel("file size (MiB)")
    ax.set_ylabel("MiB/s")
    ax.set_title("Throughput against file size")
    if ax.get_lines():
        ax.legend(fontsize=6)
    fig.tight_layout()
    path = os.path.join(outdir, "size.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    made.append(path)
    return made


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="THP page cache workloads")
    ap.add_argument("--headline", type=int, metavar="BYTES",
                    help="print only the short table for files of BYTES")
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
    if a.headline:
        print(headline(summary, a.headline))
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
    made = plots(summary, a.out)
    kernels = sorted({r.get("kernel", "?") for r in rows})
    failed = [r for r in rows if not r.get("ok", True)]
    md = [f"# {a.title}", "", f"Kernel: {', '.join(kernels)}; {len(rows)} runs.", "",
          "Medians over repetitions in one boot; ratios are of medians.", ""]
    sizes = sorted({k[1] for k in summary})
    if sizes:
        main_size = max(sizes, key=lambda n: sum(1 for k in summary if k[1] == n))
        md += [f"## Headline ({size_str(main_size)})", "", headline(summary, main_size), ""]
        io = iozone(summary, main_size)
        if io:
            md += [f"## IOzone-like set ({size_str(main_size)})", "", io, ""]
    md += ["## All runs", "", table(summary), ""]
    if failed:
        md += ["## Failed runs", ""] + [f"- {r['workload']} {r.get('mode', '')} on {r.get('dir')}: "
                                        f"{r.get('error')}" for r in failed] + [""]
    md += [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in made]
    with open(os.path.join(a.out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    print(os.path.join(a.out, "report.md"))
    for p in made:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
