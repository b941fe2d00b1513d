#!/usr/bin/env python3
"""Unit test of tables.py on fixture data: fresh data replace exactly the
marked regions, stale or missing data fail by name and write nothing, and
results saved without meta.json are checked by their kernel's image key.
Prints TAP."""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import tables  # noqa: E402
import tap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "testdata", "sample.jsonl")
results = []

DOC = """# Title
hand-written text stays

<!-- tables:status begin -->
old status
<!-- tables:status end -->
between
<!-- tables:bench begin -->
old bench | 1.23 |
<!-- tables:bench end -->
<!-- tables:counts begin -->
<!-- tables:counts end -->
<!-- tables:iozone begin -->
<!-- tables:iozone end -->
<!-- tables:summary begin -->
<!-- tables:summary end -->
<!-- tables:gate begin -->
old gate
<!-- tables:gate end -->
<!-- tables:tests begin -->
old tests
<!-- tables:tests end -->
tail text
"""


def check(cond, name, detail=""):
    results.append((bool(cond), name, detail))


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = tables.main(list(args))
    return rc, err.getvalue()


def save(out, name, meta, rows_from=SAMPLE, kernel=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(rows_from) as f, open(os.path.join(d, "workloads.jsonl"), "w") as g:
        for line in f:
            r = json.loads(line)
            if kernel and r.get("type") == "workload":
                r["kernel"] = kernel
            g.write(json.dumps(r) + "\n")
    if meta:
        with open(os.path.join(d, "meta.json"), "w") as g:
            json.dump(meta, g)


def git(repo, *args):
    subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True)


tmp = tempfile.mkdtemp()
try:
    # A series of two patches, and the saved runs of it.
    series = os.path.join(tmp, "thp-series")
    os.makedirs(os.path.join(series, "config"))
    for name, text in (("series", "# quilt\n0001-a.patch\n0002-b.patch\n"), ("0001-a.patch", "a\n"),
                       ("0002-b.patch", "b\n"), ("config/base.config", "CONFIG_X=y\n"),
                       ("config/series.config", "CONFIG_Y=y\n")):
        with open(os.path.join(series, name), "w") as f:
            f.write(text)
    tables.SERIES_DIR = series
    tables.CACHE = os.path.join(tmp, "cache")
    stamp = tables.series_stamp()
    out = os.path.join(tmp, "out")
    meta = {"suite": "bench", "kernel": "6.1.192-test", "series": stamp,
            "commit": "abc123def456", "date": "2026-12-04T08:10:00Z"}
    for name in ("bench", "bench-counts", "icount-stock", "icount-patched"):
        save(out, name, meta)
    os.makedirs(os.path.join(out, "test-patched"))
    with open(os.path.join(out, "test-patched", "summary.json"), "w") as f:
        f.write('{"pass": 350, "fail": 0, "skip": 2}\n')
    with open(os.path.join(out, "test-patched", "meta.json"), "w") as f:
        json.dump(dict(meta, kernel=""), f)
    doc = os.path.join(tmp, "README.md")

    def fresh_doc():
        with open(doc, "w") as f:
            f.write(DOC)

    def text():
        with open(doc) as f:
            return f.read()

    # The shell's stamp (scripts/common.sh) and ours agree on the real series.
    sh = subprocess.run(["bash", "-c", f". {tables.TOP}/scripts/common.sh; series_stamp"],
                        capture_output=True, text=True).stdout.strip()
    real = tables.SERIES_DIR
    tables.SERIES_DIR = os.path.join(tables.TOP, "thp-series")
    check(sh and sh == tables.series_stamp(), "series_stamp matches scripts/common.sh's", sh)
    tables.SERIES_DIR = real

    # Fresh data: every region replaced, the text around it untouched.
    fresh_doc()
    rc, err = run(doc, "--out", out)
    t = text()
    check(rc == 0 and err == "", "fresh data: exit 0", err)
    outside = [l for l in t.splitlines() if not l.startswith(("|", "<!--"))]
    check(t.startswith("# Title\nhand-written text stays\n\n<!-- tables:status begin -->\n")
          and "\nbetween\n<!-- tables:bench begin -->\n" in t and t.endswith("<!-- tables:tests end -->\ntail text\n")
          and "old" not in t and t.count("<!-- tables:") == 14,
          "fresh data: exactly the marked regions are replaced, markers and text kept", t[:400])
    check("| write write (1M) |" in t and "make bench of project commit abc123def456, thp-series "
          f"{stamp}, Linux 6.1.192-test, 2026-12-04 08:10 UTC" in " ".join(t.split()),
          "each table names the commit, series, kernel and date of its data")
    check("| write write (1M), 64M | 1.000 | - | 1.000 |" in t, "the gate table: patched / stock per case")
    # The sample has a case that failed on one side: the verdict says so.
    check("Gate (analysis/gate.py, limit 3%): FAIL, 4 of 5 case and configuration pairs "
          "within the limit" in " ".join(t.split()),
          "the gate table ends with gate.py's verdict and limit", t[t.find("Median time"):])
    check("Wall clock (64M): Huge folios on ramfs:" in " ".join(t.split())
          and "Instructions (64M):" in " ".join(t.split()),
          "the summary: report.py's sentences for both runs", t)
    check("make test: patched: 350 passed, 0 failed, 2 skipped" in " ".join(t.split())
          and "patched-debug: no results of this series" in " ".join(t.split()),
          "the test counts, and an absent debug run said as such")
    rc, _ = run(doc, "--out", out)
    check(rc == 0 and text() == t, "a second run changes nothing")

    # Stale data: another series.
    save(out, "bench-counts", dict(meta, series="0123456789abcdef"))
    fresh_doc()
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "bench-counts is of thp-series 0123456789abcdef" in err
          and "rerun make bench" in err and "nothing written" in err and text() == DOC,
          "stale data (another series' meta.json) fail by name, nothing written", err)
    save(out, "bench-counts", dict(meta, kernel="6.1.192-other"))
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "meta.json names 6.1.192-other" in err and text() == DOC,
          "results of another kernel than meta.json names fail", err)
    save(out, "bench-counts", meta)

    with open(os.path.join(out, "test-patched", "meta.json"), "w") as f:
        json.dump(dict(meta, kernel="", tests="stress"), f)
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "test-patched is a run of THP_TESTS=stress only: rerun make test" in err,
          "a test run of some suites only (make stress, profile) is no make test", err)
    with open(os.path.join(out, "test-patched", "meta.json"), "w") as f:
        json.dump(dict(meta, kernel=""), f)

    # Missing data.
    shutil.rmtree(os.path.join(out, "bench"))
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "bench/workloads.jsonl missing: rerun make bench" in err and text() == DOC,
          "missing data (no out/bench) fail by name, nothing written", err)
    rc, err = run(doc, "--out", out, "--only", "gate")
    check(rc == 0 and "old bench" in text() and "old gate" not in text(),
          "--only gate fills the gate alone, whatever else is missing")
    fresh_doc()
    rc, err = run(doc, "--out", out, "--only", "gate", "status")
    check(rc == 1 and "tables:status speaks for every table" in err and text() == DOC,
          "status with --only is refused: it would speak for tables left old")
    save(out, "bench", meta)

    # make insns: the table of out/insns/report.md, named by its meta.json.
    with open(doc, "w") as f:
        f.write("<!-- tables:insns begin -->\nold insns\n<!-- tables:insns end -->\n")
    rc, err = run(doc, "--out", out, "--only", "insns")
    check(rc == 1 and "insns/report.md missing: rerun make insns" in err and "old insns" in text(),
          "insns: no out/insns fails by name, nothing written", err)
    os.makedirs(os.path.join(out, "insns"))
    with open(os.path.join(out, "insns", "meta.json"), "w") as f:
        json.dump(dict(meta, suite="insns"), f)
    with open(os.path.join(out, "insns", "report.md"), "w") as f:
        f.write("# make insns: 'read --bs 4K --passes 2' less 'read --bs 4K --passes 1', "
                "patched-x.bzImage\n\nInstructions per call of "
                "sys_x, by function (a: 2 calls, b: 2 calls).\n\n| function | a | b | a - b |\n"
                "|---|---:|---:|---:|\n| f | 3.0 | 1.0 | +2.0 |\n")
    rc, err = run(doc, "--out", out, "--only", "insns")
    check(rc == 0 and "| f | 3.0 | 1.0 | +2.0 |" in text()
          and "Workload 'read --bs 4K --passes 2' less 'read --bs 4K --passes 1'" in " ".join(text().split())
          and "project commit abc123def456" in " ".join(text().split()) and "old insns" not in text(),
          "insns: report.md's table, with its workload and the commit of its data", err)
    with open(os.path.join(out, "insns", "meta.json"), "w") as f:
        json.dump(dict(meta, suite="insns", series="0123456789abcdef"), f)
    rc, err = run(doc, "--out", out, "--only", "insns")
    check(rc == 1 and "insns is of thp-series 0123456789abcdef" in err,
          "insns: counts of another series fail", err)

    # Bad markers.
    with open(doc, "w") as f:
        f.write("<!-- tables:bench begin -->\nx\n")
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "tables:bench begins and never ends" in err, "an unclosed region fails", err)
    with open(doc, "w") as f:
        f.write("<!-- tables:bnech begin -->\n<!-- tables:bnech end -->\n")
    rc, err = run(doc, "--out", out)
    check(rc == 1 and "unknown region(s) tables:bnech" in err, "an unknown region fails", err)

    # Saved before meta.json: the kernel release must carry the image key
    # that today's tree and config give (scripts/kernel.sh's).
    tree = os.path.join(tables.CACHE, "linux")
    os.makedirs(tree)
    git(tree, "init", "-q")
    git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    head = subprocess.run(["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    git(tree, "config", "thp.applied", stamp)
    git(tree, "config", "thp.head", head)
    key = tables.image_key("patched")
    save(out, "icount-patched", None, kernel=f"6.1.192-patched-{key}+")
    os.remove(os.path.join(out, "icount-patched", "meta.json"))
    fresh_doc()
    rc, err = run(doc, "--out", out, "--only", "gate")
    check(key and rc == 0 and f"Patched: Linux 6.1.192-patched-{key}+ (no meta.json" in " ".join(text().split()),
          "no meta.json: results of today's kernel image pass, labelled with their file time", err)
    save(out, "icount-patched", None, kernel="6.1.192-patched-0000000000+")
    rc, err = run(doc, "--out", out, "--only", "gate")
    check(rc == 1 and f"give patched-{key}" in err, "no meta.json: another kernel image fails", err)
    git(tree, "config", "thp.applied", "0123456789abcdef")
    save(out, "icount-patched", None, kernel=f"6.1.192-patched-{key}+")
    rc, err = run(doc, "--out", out, "--only", "gate")
    check(rc == 1 and "does not hold today's series" in err,
          "no meta.json: a kernel tree of another series fails", err)
finally:
    shutil.rmtree(tmp)

tap.finish(results)
