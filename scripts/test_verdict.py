#!/usr/bin/env python3
"""Unit test of the verdict code (verdict.py, summarize.py) on fixtures in
testdata/verdict/: every way a boot can go wrong must fail, by name, and a
clean boot must pass.  Also the guest's runner (guest/lib.sh) under busybox
when the host has it: a hung program and its children are killed.  Prints
TAP; exit 1 on a failure."""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import registry  # noqa: E402
import summarize  # noqa: E402
import tap  # noqa: E402
import verdict  # noqa: E402

DATA = os.path.join(HERE, "testdata", "verdict")
TOP = os.path.dirname(HERE)
results = []
verdict.CASES = os.path.join(DATA, "cases.txt")


def check(cond, name, detail=""):
    results.append((bool(cond), name, detail))


def boot(parts, console="console-clean.log", tests="", require=True, guest_rc=0,
         host=None, end="end.jsonl", release="6.1.192"):
    """Run summarize.py on base + parts; returns (exit status, output lines)."""
    tmp = tempfile.mkdtemp()
    try:
        res = os.path.join(tmp, "results.jsonl")
        with open(res, "w") as f:
            for p in ["base.jsonl"] + parts + ([end] if end else []):
                with open(os.path.join(DATA, p)) as g:
                    f.write(g.read())
        args = ["--results", res, "--console", os.path.join(DATA, console),
                "--release", release, "--guest-rc", str(guest_rc),
                "--tests-list", os.path.join(DATA, "tests.list"), "--tests", tests]
        if require:
            args.append("--require")
        if host is not None:
            hp = os.path.join(tmp, "host.jsonl")
            with open(hp, "w") as f:
                for r in host:
                    f.write(json.dumps(r) + "\n")
            args += ["--host", hp, "--host-suite", "unit"]
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = summarize.main(args)
        return rc, buf.getvalue().splitlines()
    finally:
        shutil.rmtree(tmp)


def failed(lines, *words):
    """Some 'not ok' line holds every one of words."""
    return any(l.startswith("not ok") and all(w in l for w in words) for l in lines)


def last(lines):
    return lines[-1] if lines else ""


GOOD = ["knob-good.jsonl", "workloads-good.jsonl"]

# A clean boot.
rc, out = boot(GOOD)
check(rc == 0 and last(out) == "14 passed, 0 failed, 0 skipped",
      "a clean boot passes: 14 passed, 0 failed, 0 skipped", last(out))
check(any(l.startswith("# info: upstream: split_huge_page_test") for l in out),
      "upstream's info lines are shown, not counted")
check(any(l.startswith("ok") and "workloads: --corrupt caught: wl-write on /mnt/ramfs" in l
          for l in out),
      "a --corrupt run that exits 1, ok:false, bad_off == corrupt_off passes")

# Each way of going wrong, with the name in the output.
cases = [
    (["workloads-good.jsonl"], {}, ("knob: did not run",), "a missing suite fails by name"),
    (["knob-short-plan.jsonl", "workloads-good.jsonl"], {}, ("knob: planned 3 tests, ran 2",),
     "a short TAP plan fails"),
    (["knob-short-exit.jsonl", "workloads-good.jsonl"], {},
     ("knob: planned 3 tests, ran 1", "exit 1; last output: Unexpected huge page"),
     "a short TAP plan says how the program stopped and what it printed last"),
    (["knob-crash.jsonl", "workloads-good.jsonl"], {}, ("knob: exited with status 139", "SIGSEGV"),
     "a crash (SIGSEGV) fails with its exit status"),
    (["knob-bailout.jsonl", "workloads-good.jsonl"], {}, ("knob: Bail out!", "unreadable"),
     "Bail out! fails the suite"),
    (["knob-timeout.jsonl", "workloads-good.jsonl"], {}, ("knob: killed by its time limit (300 s)",),
     "a program killed by its time limit fails, whatever it printed"),
    (["knob-broken.jsonl", "workloads-good.jsonl"], {}, ("knob: exited with status 1",),
     "a probe that prints only ok but exits 1 fails"),
    (["knob-skip-after-plan.jsonl", "workloads-good.jsonl"], {}, ("knob: planned 3 tests, ran 1",),
     "ksft_exit_skip after the plan fails"),
    (["knob-no-plan.jsonl", "workloads-good.jsonl"], {}, ("knob: no TAP plan",),
     "TAP without a plan fails"),
    (["knob-numbering.jsonl", "workloads-good.jsonl"], {}, ("knob: test number 3 out of sequence",),
     "test points out of sequence fail (a plan at the end is read)"),
    (["knob-silent.jsonl", "workloads-good.jsonl"], {}, ("knob: printed no result",),
     "a program that prints no result fails"),
    (["knob-no-exit.jsonl", "workloads-good.jsonl"], {}, ("knob: no exit status",),
     "a suite without its exit status fails"),
    (["knob-skip.jsonl", "workloads-good.jsonl"], {}, ("knob: knob: tracepoint", "skip under --require"),
     "a skip fails under --require"),
    (["knob-whole-skip.jsonl", "workloads-good.jsonl"], {}, ("knob: skipped as a whole", "--require"),
     "a whole-suite skip (1..0, exit 4) fails under --require"),
    (["knob-good.jsonl", "workloads-crash.jsonl"], {},
     ("workloads: wl-read --pattern random --bs 4K on /mnt/tmpfs", "exit 139"),
     "a crashing workload fails by case with its exit status"),
    (["knob-good.jsonl", "workloads-failed.jsonl"], {},
     ("workloads: wl-write on /mnt/ramfs", "data mismatch at offset 4096"),
     "a workload with ok:false fails with its error"),
    (["knob-good.jsonl", "workloads-hung.jsonl"], {},
     ("workloads: wl-write on /mnt/ramfs", "killed by its time limit"),
     "a hung workload fails by case"),
    (["knob-good.jsonl", "workloads-not-caught.jsonl"], {},
     ("workloads: --corrupt caught: wl-write on /mnt/ramfs", "not caught"),
     "--corrupt that reports ok:true fails"),
    (["knob-good.jsonl", "workloads-corrupt-elsewhere.jsonl"], {},
     ("workloads: --corrupt caught: wl-write on /mnt/ramfs",
      "the check found offset 12344, the flip was at 12345"),
     "--corrupt whose check found another offset fails"),
    (["knob-good.jsonl", "workloads-corrupt-no-offset.jsonl"], {},
     ("workloads: --corrupt caught: wl-write on /mnt/ramfs", "no corrupt_off"),
     "--corrupt without the offsets fails"),
    (["knob-good.jsonl", "workloads-stopped.jsonl"], {},
     ("workloads: --corrupt caught: wl-read --pattern random --bs 4K on /mnt/ramfs", "no result"),
     "a case list cut short names the cases that did not run"),
    (["knob-good.jsonl", "workloads-stopped.jsonl"], {}, ("workloads: no exit status",),
     "... and the suite's missing exit status"),
    (GOOD, {"console": "console-splat.log"}, ("host: kernel log has no splat", "WARNING: CPU: 1"),
     "a splat in the console log fails"),
    (GOOD, {"end": "abort.jsonl"}, ("host: guest finished its job list", "stopped early (exit 137)"),
     "an abort instead of the end marker fails"),
    (GOOD, {"end": None}, ("host: guest finished its job list", "no end marker"),
     "no end marker fails"),
    (GOOD, {"guest_rc": 3}, ("host: guest finished its job list", "timed out (hang)"),
     "a hung guest fails"),
    (GOOD, {"tests": "knob nope"}, ("THP_TESTS names 'nope'",),
     "a THP_TESTS name that tests.list lacks fails"),
    (GOOD, {"tests": "knob"}, ("smoke: ran, but was not asked for",),
     "a suite that ran without being asked for fails"),
    (GOOD, {"tests": "knob workloads stress"}, ("stress: did not run",),
     "a name! suite is expected when named"),
    (GOOD, {"host": [{"type": "out", "suite": "unit", "line": "1..1"},
                     {"type": "out", "suite": "unit", "line": "not ok 1 report.py sums"},
                     {"type": "exit", "suite": "unit", "rc": 1}]},
     ("unit: report.py sums",), "a failing host-side unit test counts as a failure"),
    (GOOD, {"host": []}, ("unit: did not run",), "a host-side suite that did not run fails"),
    (GOOD, {"release": ""}, ("host: guest runs the kernel just built", "no .release"),
     "a kernel without its .release fails the release check"),
]
for parts, kw, words, name in cases:
    rc, out = boot(parts, **kw)
    ok = rc == 1 and failed(out, *words) and last(out).endswith("skipped") and " 0 failed" not in last(out)
    check(ok, name, "\n".join(l for l in out if l.startswith("not ok")) or last(out))

# A case the registry lists and the results lack fails by name.
verdict.CASES = os.path.join(DATA, "cases-more.txt")
rc, out = boot(GOOD)
verdict.CASES = os.path.join(DATA, "cases.txt")
check(rc == 1 and failed(out, "workloads: wl-truncate --mode unlink on /mnt/tmpfs", "no result")
      and failed(out, "--corrupt caught: wl-truncate --mode unlink on /mnt/ramfs", "no result"),
      "a registry case missing from the results fails by name, on every dir and --corrupt")
verdict.CASES = os.path.join(DATA, "nope.txt")
rc, out = boot(GOOD)
verdict.CASES = os.path.join(DATA, "cases.txt")
check(rc == 1 and failed(out, "host: read the case list of workloads", "nope.txt"),
      "a missing registry fails the boot by name")

# judge_flip on its own: each missing or wrong offset fails by name.
for rec, want in [({"corrupt_off": 7, "bad_off": 7}, ("pass", "")),
                  ({"corrupt_off": 7, "bad_off": 8}, ("fail", "the check found offset 8")),
                  ({"corrupt_off": 7}, ("fail", "no bad_off")),
                  ({"corrupt_off": 7, "bad_off": None}, ("fail", "no bad_off")),
                  ({"bad_off": 7}, ("fail", "no corrupt_off")),
                  ({"corrupt_off": True, "bad_off": True}, ("fail", "no corrupt_off")),
                  ({"corrupt_off": "7", "bad_off": "7"}, ("fail", "no corrupt_off"))]:
    st, why = verdict.judge_flip(rec)
    check(st == want[0] and want[1] in why, f"judge_flip {json.dumps(rec)}: {want[0]}", why)

# Skips stay legal where the feature may be absent (no --require).
rc, out = boot(["knob-skip.jsonl", "workloads-good.jsonl"], require=False)
check(rc == 0 and last(out) == "13 passed, 0 failed, 1 skipped",
      "without --require a skip is a skip", last(out))
rc, out = boot(["knob-whole-skip.jsonl", "workloads-good.jsonl"], require=False)
check(rc == 0 and last(out).endswith("1 skipped"),
      "without --require a whole-suite skip (exit 4) is a skip", last(out))
rc, out = boot(GOOD, tests="knob workloads", require=False)
check(rc == 1 and not failed(out, "stress") and not failed(out, "knob"),
      "name! suites are not expected unless named")

# The expected lists from the real files.
tests = verdict.read_tests_list(os.path.join(TOP, "guest", "tests.list"))
names = [n for n, _ in tests]
exp, unk = verdict.expected_suites(tests, "")
check(len(names) == len(set(names)) and "knob" in exp and "stress" not in exp and not unk,
      f"guest/tests.list: {len(exp)} suites by default, name! ones left out")
check(verdict.tests_list_name("workloads@4") == ("workloads", False, 4)
      and verdict.tests_list_name("stress!@2") == ("stress", True, 2)
      and verdict.tests_list_name("knob") == ("knob", False, 1),
      "tests.list: name@N gives a suite N limits, name! runs it only when named")
exp, unk = verdict.expected_suites(tests, "stress,knob")
check(exp == ["knob", "stress"] and not unk, "THP_TESTS picks names in list order, name! included")
wcases = verdict.read_case_lists(registry.PATH)
check(len(wcases) >= 20 and len(set(wcases)) == len(wcases) and any(c[2] for c in wcases),
      f"guest/cases.txt: {len(wcases)} expected workload cases (with --corrupt)")
where = registry.settings(registry.PATH)
check({"/mnt/ramfs:always", "/mnt/ramfs:never", "/mnt/ramfs:deny"} <= set(where["dirs"].split())
      and where["corrupt_dir"] == "/mnt/ramfs:always"
      and any(c == ("/mnt/ramfs:deny", "write", 0) for c in wcases),
      "guest/cases.txt: ramfs runs under always, never and deny (the 4 KiB baseline), "
      "each a case of its own", json.dumps(where))

# The registry: the real one parses, each list in its order; a bad one
# fails with its line.
reg = registry.read()
lists = {col: [r["case"] for r in registry.ordered(reg, col)] for col in registry.LISTS}
check(lists["test"][:2] == ["write", "write --mode pwrite --pattern random --bs 64K"]
      and lists["icount"][0] == "write --bs 4K" and len(lists["bench"]) >= 20,
      f"guest/cases.txt: {len(reg)} cases, each list in its own order")
check(all(c in lists["bench"] for c in lists["table"] + lists["iozone"]),
      "every case of the headline and IOzone tables runs in make bench")
with tempfile.TemporaryDirectory() as d:
    good = open(registry.PATH).read()
    head, first = [l for l in good.splitlines()
                   if l and not l.startswith("#") and not registry.setting_line(l)][:2]
    for name, text, words in (
            ("a case listed twice", good + first + "\n", "listed twice"),
            ("a position out of sequence", good.replace(first, first.replace("| 1 ", "| 9 ", 1)),
             "not the positions"),
            ("a target that is no number", good.replace(first, first.replace("| -      |", "| x      |", 1)),
             "target 'x'"),
            ("a row short of a column", good + "write --bs 8K | 1\n", "2 columns"),
            ("a case of no workload", good.replace(first, "wirte" + first[5:], 1), "no workload wirte"),
            ("a header without a column", good.replace(head, head.replace("| table ", "| tabel ")),
             "lacks column(s) table"),
            ("no dirs: line", good.replace("\ndirs:", "\n#dirs:"), "no setting dirs")):
        bad = os.path.join(d, "cases.txt")
        with open(bad, "w") as f:
            f.write(text)
        try:
            registry.read(bad)
            registry.settings(bad)
            msg = ""
        except ValueError as e:
            msg = str(e)
        check(words in msg and msg.startswith(bad), f"registry: {name} fails with its place", msg)

# TAP details.
t = verdict.parse_tap(["1..2", "ok 1 - a # SKIP why", "not ok 2 b # TODO later", "okay"])
check([p[3] for p in t["points"]] == ["SKIP", "TODO"] and t["points"][0][2] == "a"
      and t["points"][0][4] == "why", "directives SKIP and TODO are read; 'okay' is no test point")

# Directives as TAP 13 has them, and TODO no softer than SKIP.
EXIT0 = {"type": "exit", "rc": 0, "taint0": 0, "taint1": 0}


def statuses(lines, require, rc=0):
    res, _ = verdict.judge_suite("s", lines, dict(EXIT0, rc=rc), require)
    return [st for st, _, _ in res]


check(statuses(["1..1", "not ok 1 freed # TODO later"], True) == ["fail"],
      "a TODO fails under --require")
check(statuses(["1..1", "not ok 1 freed # TODO later"], False) == ["skip"],
      "a TODO is a skip without --require")
check(statuses(["1..1", "not ok 1 split # skipped 2 pages"], False, 1) == ["fail"],
      "'# skipped' in a failing line's text is no SKIP directive")
check(statuses(["1..1", "ok 1 # SKIP no numactl"], False) == ["skip"],
      "'# SKIP' right after the number is a directive")
check(verdict.SPLATS.search("[   12.3] vmstat_refresh: nr_dirty -511"),
      "a negative vmstat counter (vmstat_refresh: warning) is a splat")
for line in ("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
             "rcu: INFO: rcu_sched self-detected stall on CPU",
             "watchdog: BUG: soft lockup - CPU#1 stuck for 64s! [probe-knob:231]",
             "INFO: trying to register non-static key.",
             "INFO: rcu_sched detected expedited stalls on CPUs/tasks: {",
             "INFO: rcu_tasks detected stalls on tasks:",
             "pagealloc: memory corruption",
             "kernel BUG at mm/filemap.c:1534!"):
    check(verdict.SPLATS.search(line), f"splat pattern: {line[:40]}")
check(not verdict.SPLATS.search("[    0.1] rcu: Hierarchical RCU implementation."),
      "splat pattern: RCU's boot banner is no splat")
hits = verdict.splat_hits(["== smoke: /guest/smoke.sh\n", "== knob: probe-knob\n",
                           "[ 1.0] WARNING: CPU: 1 PID: 2 at mm/filemap.c:1 x\n"])
check(hits == ["[ 1.0] WARNING: CPU: 1 PID: 2 at mm/filemap.c:1 x [during knob]"],
      "a splat is charged to the program that was running", hits)
hits = verdict.splat_hits(["== knob: probe-knob\n", "| ok 1 knob: no BUG: here\n",
                           "| ok 2 knob: a[   3.25] BUG: soft lockup - CPU#0 stuck\n"])
check(len(hits) == 1 and "soft lockup" in hits[0],
      "a program's own line is no splat, but a kernel line glued to it is", hits)

# Taint: a flag a program raised fails it by name; unread flags fail.
res, _ = verdict.judge_suite("knob", ["1..1", "ok 1 a"], dict(EXIT0, taint0=0, taint1=1 << 9))
check(("fail", "knob: tainted the kernel", "new taint flags W (0x200)") in res,
      "taint: a WARN during a program fails that program, flag W named", res)
res, _ = verdict.judge_suite("knob", ["1..1", "ok 1 a"], dict(EXIT0, taint0=1 << 9, taint1=1 << 9))
check([st for st, _, _ in res] == ["pass"], "taint: a flag set before the program is not its", res)
res, _ = verdict.judge_suite("knob", ["1..1", "ok 1 a"], {"type": "exit", "rc": 0})
check(any(n == "knob: taint flags not read" for st, n, _ in res if st == "fail"),
      "taint: a guest exit record without the flags fails", res)

# "not run: <reason>": skipped, accepted under --require only for a listed reason.
nr = ["1..1", "ok 1 pmd # SKIP not run: allocator: no 2 MiB block (thp_file_fallback +1)"]
res, _ = verdict.judge_suite("s", nr, EXIT0, True)
check([st for st, _, _ in res] == ["notrun"], "not run: a listed reason passes --require", res)
res, _ = verdict.judge_suite("s", ["1..1", "ok 1 pmd # SKIP not run: no madvise"], EXIT0, True)
check([st for st, _, _ in res] == ["fail"], "not run: an unlisted reason fails --require", res)
buf = io.StringIO()
with redirect_stdout(buf):
    c = verdict.render([("notrun", "s: pmd", "allocator: x"), ("pass", "s: a", ""),
                        ("pass", "verdict: b", "")], [], [])
lines = buf.getvalue().splitlines()
check(c["skip"] == 1 and c["notrun"] == 1 and "ok 1 s: pmd # SKIP not run: allocator: x" in lines
      and "# not run: s: pmd: allocator: x" in lines
      and "# kernel checks: 1 passed, 0 failed, 1 skipped (1 of them not run)" in lines
      and "# harness checks: 1 passed, 0 failed, 0 skipped" in lines
      and lines[-1] == "2 passed, 0 failed, 1 skipped",
      "render: not run listed on its own line; kernel and harness count lines; the total last",
      "\n".join(lines))

# The total of a make test: a missing summary fails by name.
with tempfile.TemporaryDirectory() as d:
    sp = os.path.join(d, "s.json")
    with open(sp, "w") as f:
        f.write(json.dumps(c) + "\n")
    buf = io.StringIO()
    with redirect_stdout(buf):
        tot = verdict.total([f"host={sp}", f"patched={sp}", f"patched-debug={d}/nope.json"])
    lines = buf.getvalue().splitlines()
    check(tot["fail"] == 1 and tot["pass"] == 4 and lines[-1] == "4 passed, 1 failed, 2 skipped"
          and any(l.startswith("not ok - patched-debug: no summary") for l in lines),
          "total: adds the summaries; a missing one fails by name", "\n".join(lines))

# Host-side suites: exit status and time limit count.
r = verdict.host_run("h", ["sh", "-c", "echo 1..1; echo ok 1 fine; exit 3"], 10)
res, _ = verdict.judge_suite("h", [x["line"] for x in r if x["type"] == "out"], r[-1])
check(any("exited with status 3" in n for s, n, _ in res if s == "fail"),
      "host-run: a host test that prints ok but exits 3 fails")
r = verdict.host_run("h", ["sh", "-c", "echo 1..1; echo ok 1 fine; sleep 30"], 1)
res, _ = verdict.judge_suite("h", [x["line"] for x in r if x["type"] == "out"], r[-1])
check(r[-1]["timeout"] == 1 and any("time limit" in n for s, n, _ in res if s == "fail"),
      "host-run: a host test that hangs is killed and fails")
with tempfile.TemporaryDirectory() as d:
    t0 = time.monotonic()
    r = verdict.host_run("h", ["sh", "-c", f"sleep 30 & echo $! >{d}/pid; wait"], 1)
    pid = int(open(f"{d}/pid").read())
    try:
        os.kill(pid, 0)
        alive = not open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    except ProcessLookupError:
        alive = False
    check(r[-1]["timeout"] == 1 and not alive and time.monotonic() - t0 < 10,
          "host-run: at the time limit what the host test started is killed too")

buf = io.StringIO()
with redirect_stdout(buf):
    verdict.main(["host-run", "cli", "--timeout", "5", "--", "sh", "-c", "echo 1..1; echo ok 1 x"])
r = [json.loads(l) for l in buf.getvalue().splitlines()]
check(r[-1] == {"type": "exit", "suite": "cli", "rc": 0, "timeout": 0, "limit": 5, "host": True}
      and r[1]["line"] == "ok 1 x", "verdict.py host-run SUITE --timeout N -- CMD: the command after --")

# The guest's runner under busybox: output forwarded, exit status, time limit.
def busybox_run(script, limit):
    bb = shutil.which("busybox") or "/bin/busybox"
    if not os.path.exists(bb):
        return None
    tmp = tempfile.mkdtemp()
    try:
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        for a in subprocess.run([bb, "--list"], capture_output=True, text=True).stdout.split():
            os.symlink(bb, os.path.join(bindir, a))
        env = {"PATH": bindir, "THP_CONSOLE": os.path.join(tmp, "console"), "THP_CASES": registry.PATH,
               "THP_TEST_TIMEOUT": str(limit), "TMPDIR": tmp}
        src = f". {TOP}/guest/lib.sh\n" + script
        p = subprocess.run([os.path.join(bindir, "sh"), "-c", src], env=env, timeout=60,
                           capture_output=True, text=True)
        return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    finally:
        shutil.rmtree(tmp)


rows = busybox_run("""
run_one crash sh -c 'echo 1..2; echo "ok 1 a \\"quoted\\" \\\\ line"; kill -SEGV $$'
run_one hang sh -c 'echo 1..1; (sleep 59.7; echo child) & sleep 59.7'
echo "{\\"type\\":\\"left\\",\\"n\\":$(ps -o args | grep -c '^[s]leep 59.7')}"
""", 1)
if rows is None:
    check(True, "guest/lib.sh under busybox # SKIP no busybox on this host")
else:
    ex = {r["suite"]: r for r in rows if r.get("type") == "exit"}
    lines = [r["line"] for r in rows if r.get("type") == "out" and r["suite"] == "crash"]
    check(ex.get("crash", {}).get("rc") == 139 and 'ok 1 a "quoted" \\ line' in lines,
          "guest/lib.sh run_one: forwards each line escaped, and a crash's status (139)",
          json.dumps(rows)[:300])
    left = [r["n"] for r in rows if r.get("type") == "left"]
    # The guest's reader of the registry gives the host's lists, in order.
    got = {}
    for r in busybox_run(r"""
for col in test run bench icount nope; do
	case_list $col | while read -r c; do echo "{\"col\":\"$col\",\"case\":\"$c\"}"; done
done
""", 1):
        got.setdefault(r["col"], []).append(r["case"])
    check(all(got.get(c) == lists[c] for c in ("test", "run", "bench", "icount")) and "nope" not in got,
          "guest/lib.sh case_list: each list of guest/cases.txt in the host's order, none for an "
          "unknown column", json.dumps(got)[:300])
    check(ex.get("hang", {}).get("timeout") == 1 and left == [0],
          "guest/lib.sh run_one: a hung program and its children are killed at the limit",
          json.dumps([ex.get("hang"), left]))

# --orders: small folios only under ramfs's global deny (whatever the
# mount says) and on tmpfs huge=never.
DENY = "always within_size advise never [deny] force"
never = {"ok": True, "fs": "ramfs", "mount": "rw,relatime", "knob": DENY,
         "params": {"size": 16 << 20, "bs": 1 << 20}, "orders": {"0": 12}}
check(verdict.judge_case({"rc": 0}, [never]) == ("pass", ""),
      "orders: small folios only under deny pass")
big = dict(never, orders={"0": 4, "2": 2})
st, why = verdict.judge_case({"rc": 0}, [big])
check(st == "fail" and "deny" in why and "order 2" in why,
      "orders: a large folio under deny fails the case", why)
st, why = verdict.judge_orders(dict(big, mount="rw,huge=always"))
check(st == "fail" and "order 2" in why,
      "orders: deny overrides a ramfs mount's huge=always", why)
st, why = verdict.judge_orders(dict(big, fs="tmpfs", mount="rw,huge=never", knob="n/a"))
check(st == "fail" and "tmpfs huge=never" in why, "orders: a large folio on tmpfs huge=never fails",
      why)
# ramfs under never (its mount's huge=, or the global file's): folios
# sized by the I/O, below PMD size.
io = dict(never, mount="rw,huge=never", knob="[always] within_size advise never deny force",
          orders={"0": 8, "8": 15})
check(verdict.judge_orders(io) == ("pass", ""),
      "orders: ramfs huge=never: folios of the 1 MiB writes pass")
st, why = verdict.judge_orders(dict(io, orders={"8": 14, "9": 1}))
check(st == "fail" and "order 9" in why, "orders: ramfs huge=never: a PMD folio fails", why)
st, why = verdict.judge_orders(dict(io, mount="rw", knob="always within_size advise [never] deny force",
                                    params={"size": 16 << 20, "bs": 64 << 10},
                                    orders={"4": 200, "5": 28}))
check(st == "fail" and "order 5" in why and "order 4 at most" in why,
      "orders: ramfs under the global never: a folio larger than the 64 KiB writes fails", why)
check(verdict.judge_orders(dict(big, knob="[always] within_size advise never deny force",
                                mount="rw,huge=within_size")) == ("pass", ""),
      "orders: large folios elsewhere are no verdict")
st, why = verdict.judge_case({"rc": 0}, [dict(never, orders=None)])
check(st == "fail" and "no folio orders" in why, "orders: a case that reports none fails", why)
check(verdict.judge_orders(dict(never, orders=None, workload="memcpy"))[0] == "pass"
      and verdict.judge_orders(dict(never, orders=None, workload="smallfiles"))[0] == "pass"
      and verdict.judge_orders(dict(never, orders=None, no_orders="holes"))[0] == "pass",
      "orders: memcpy, smallfiles and files with holes report none, each for a reason")
# huge=always (or a ramfs mount following the knob at always): a file of
# 2 MiB or more written through write(2) must hold a PMD-sized folio.
always = {"ok": True, "workload": "write", "fs": "ramfs", "mount": "rw,relatime",
          "knob": "[always] within_size advise never", "params": {"size": 16 << 20},
          "orders": {"0": 4096}}
st, why = verdict.judge_orders(dict(always, orders=None, no_orders="holes"))
check(st == "fail" and "holes" in why, "orders: holes where PMD folios are promised fail", why)
check(verdict.judge_orders(dict(always, orders=None, no_orders="holes", fs="tmpfs",
                                mount="rw,huge=always", mode="hole"))[0] == "pass",
      "orders: tmpfs reads a hole without filling it: no orders, none promised")
st, why = verdict.judge_orders(always)
check(st == "fail" and "0 PMD-sized folios of 8" in why,
      "orders: small folios only where the knob says always fails", why)
check("allocation failed" not in why, "orders: no failure counted, none named", why)
st, why = verdict.judge_orders(dict(always, deltas={"thp_file_fallback": 8, "pgfault": 3}))
check(st == "fail" and why.endswith("; allocation failed: thp_file_fallback +8"),
      "orders: a failed allocation is named beside the missing PMD folio", why)
# A file made in prepare: the whole case's counters, not the timed run's.
st, why = verdict.judge_orders(dict(always, deltas={"thp_file_fallback": 0},
                                    case_deltas={"thp_file_fallback": 8}, free_2m=[0, 80],
                                    fs="tmpfs", mount="rw,huge=always"))
check(st == "notrun" and why.startswith("allocator: ")
      and why.endswith("; allocation failed: thp_file_fallback +8; "
                       "free 2 MiB blocks per node before: [0, 80]"),
      "orders: a failed allocation on a node short of free 2 MiB blocks did not run, named", why)
st, why = verdict.judge_orders(dict(always, case_deltas={"thp_file_fallback": 8},
                                    free_2m=[900, 880]))
check(st == "fail", "orders: a failed allocation with free 2 MiB blocks on every node fails", why)
st, why = verdict.judge_orders(dict(always, case_deltas={"thp_file_fallback": 8}, free_2m=[0, 80]))
check(st == "fail", "orders: ramfs falls back to the other node: its free blocks count", why)
# ramfs counts no event for a huge folio it could not get: the free blocks
# alone tell; tmpfs must also have counted its fallback.
st, why = verdict.judge_orders(dict(always, free_2m=[0, 3]))
check(st == "notrun" and why.startswith("allocator: ") and "[0, 3]" in why,
      "orders: ramfs with fewer free 2 MiB blocks than the folios missing did not run", why)
st, why = verdict.judge_orders(dict(always, free_2m=[0, 3], fs="tmpfs", mount="rw,huge=always"))
check(st == "fail", "orders: tmpfs short of blocks but with no fallback counted fails", why)
res, _ = verdict.judge_suite("s", ["1..1", "not ok 1 x # SKIP not run: allocator: y"], EXIT0, True)
check([st for st, _, _ in res] == ["fail"], "not run: a 'not ok' point is never 'not run'", res)
st, why = verdict.judge_orders(dict(always, orders={"9": 7, "0": 512}))
check(st == "fail" and "7 PMD-sized folios of 8" in why,
      "orders: one PMD folio short of size / 2 MiB fails", why)
# The global force, as always on every mount; a private mapping's write
# fault is a read fault, which under always fills the hole with PMD folios.
st, why = verdict.judge_orders(dict(always, mount="rw,huge=never",
                                    knob="always within_size advise never deny [force]"))
check(st == "fail" and "0 PMD-sized folios of 8" in why,
      "orders: small folios under the global force fail, whatever the mount says", why)
st, why = verdict.judge_orders(dict(always, params={"size": 16 << 20, "private": 1}))
check(st == "fail" and "0 PMD-sized folios of 8" in why,
      "orders: ramfs private write faults under always promise PMD folios", why)
st, why = verdict.judge_orders(dict(always, params={"size": 16 << 20, "private": 1}, fs="tmpfs",
                                    mount="rw,huge=always"))
check(st == "fail" and "0 PMD-sized folios of 8" in why,
      "orders: tmpfs huge=always private write faults promise PMD folios too", why)
# mixed's truncater cuts the file while its writers write: splits, so no
# PMD promise; the same folios from a plain write still fail.
st, why = verdict.judge_orders(dict(always, workload="mixed", orders={"9": 7, "0": 154}))
check(st == "pass", "orders: mixed (a truncater among the writers) promises no PMD folios", why)
st, why = verdict.judge_orders(dict(always, workload="write", orders={"9": 7, "0": 154}))
check(st == "fail", "orders: the same folios from write fail", why)
check(verdict.judge_orders(dict(always, orders={"9": 8})) == ("pass", "")
      and verdict.judge_orders(dict(always, params={"size": 16 << 20, "madvise": "nohuge"}))
      == ("pass", "")
      and verdict.judge_orders(dict(always, params={"size": 1 << 20})) == ("pass", "")
      and verdict.judge_orders(dict(always, mount="rw,huge=within_size")) == ("pass", ""),
      "orders: PMD folios there pass; MADV_NOHUGEPAGE, a 1 MiB file or another policy "
      "promise none")

tap.finish(results)
