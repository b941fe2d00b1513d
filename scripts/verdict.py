#!/usr/bin/env python3
"""The verdict of one boot, decided on the host.

The guest forwards what each program printed ({"type":"out"} lines) and how
it ended ({"type":"exit"}: status, killed by its time limit); it judges
nothing.  Here the expected suites come from guest/tests.list (and the
expected workload cases from guest/cases.txt), TAP
is parsed in full (plan, numbering, directives, "Bail out!") and every way
a suite can go wrong is a failing result carrying its name:

- an expected suite or case with no result at all;
- a non-zero exit status or a kill by the time limit, whatever was printed;
- a plan that does not match the test points, or no plan;
- "Bail out!";
- a skip, when the kernel must have the feature (--require);
- a --corrupt workload case whose check did not find the byte it flipped
  (bad_off == corrupt_off), whatever else failed;
- a guest that stopped before the end of its job list, a hang, a splat.

Used by summarize.py (the closing count line of make test) and test.sh
("host-run" runs a host-side unit test as a suite; "count" sizes the
boot's time limit).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jsonl  # noqa: E402
import registry  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS_LIST = os.path.join(TOP, "guest", "tests.list")
# Suites that print {"type":"case"} lines: their cases are the "test" column
# of guest/cases.txt, on each of its dirs: and then on its corrupt_dir:.
CASE_SUITES = ("workloads",)
CASES = registry.PATH

SPLATS_FILE = os.path.join(TOP, "guest", "splats.ere")


def read_splats(path=SPLATS_FILE):
    """guest/splats.ere as one regular expression (the one list of the
    kernel log lines that fail a run)."""
    with open(path, encoding="utf-8") as f:
        pats = [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")]
    return re.compile("|".join(f"(?:{p})" for p in pats))


SPLATS = read_splats()
KSFT_SKIP = 4

# "not run: <reason>" (xfstests' _notrun): a point that could not run for a
# reason outside the kernel.  Counted as skipped and listed on its own line;
# --require accepts it only for a reason that begins with one of these.
NOT_RUN = "not run:"
NOT_RUN_OK = ("fewer than 2 CPUs", "allocator")

# Checks of the harness itself rather than of the kernel: the host's unit
# suites, and the self-tests that show a check can fail (--corrupt,
# stress-ng's corrupter).  Counted on their own line.
HARNESS_SUITES = ("analysis", "untar", "tables", "verdict", "fsx-corrupt")
HARNESS_PREFIXES = ("workloads: --corrupt caught:", "stressng: self-test:",
                    "stressng-long: self-test:")

# /proc/sys/kernel/tainted, bit by bit (kernel/panic.c taint_flags).
TAINT_LETTERS = "PFSRMBUDAWCIOELKXTN"


# ---------------------------------------------------------------- expected

def tests_list_name(field):
    """(name, only_when_named, limits) of a first field "name[!][@N]": "!"
    runs it only when named, "@N" gives it N times the per-program limit."""
    name, _, mult = field.partition("@")
    return name.rstrip("!"), name.endswith("!"), int(mult or 1)


def read_tests_list(path=TESTS_LIST, limits=False):
    """[(name, only_when_named)] in file order; with limits=True
    [(name, only_when_named, limits)]."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            t = tests_list_name(line.split()[0])
            out.append(t if limits else t[:2])
    return out


def expected_suites(tests, selected):
    """The suites the guest must run, as run-test.sh picks them: all names
    without "!" when nothing is selected, else exactly the selected ones.
    Returns (names, selected names that tests.list does not have)."""
    sel = [s for s in (selected or "").replace(",", " ").split() if s]
    if not sel:
        return [n for n, only in tests if not only], []
    known = {n for n, _ in tests}
    return [n for n, _ in tests if n in sel], [s for s in sel if s not in known]


def read_case_lists(cases_path=None):
    """Expected (dir, case, corrupt) of workloads.sh: the "test" cases of
    the registry on each of its dirs:, then on its corrupt_dir:."""
    path = cases_path or CASES
    where = registry.settings(path)
    cases = [r["case"] for r in registry.ordered(registry.read(path), "test")]
    if not cases:
        raise ValueError(f"{path}: no case in column test")
    out = [(d, w, 0) for d in where["dirs"].split() for w in cases]
    return out + [(where["corrupt_dir"], w, 1) for w in cases]


def case_name(d, case, corrupt):
    return (f"--corrupt caught: wl-{case} on {d}" if corrupt else f"wl-{case} on {d}")


# --------------------------------------------------------------------- TAP

TAP_POINT = re.compile(r"^(not )?ok(?:\s+(\d+))?(?:\s+(?:-\s*)?(.*))?$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)\s*(?:#\s*(.*))?$")
# As TAP 13: "# SKIP" or "# TODO", in capitals, as a word ("# skipped 2
# pages" in a description is not a directive).
DIRECTIVE = re.compile(r"(?:^|\s)#\s*(SKIP|TODO)\b\s*(.*)$")


def parse_tap(lines):
    """Read TAP (and JSON lines) in full.  Returns a dict:
    points: [(num or None, ok, desc, directive or "", reason)];
    plans: [(n, comment)]; bail: message or None; json: [objects];
    plan_after_points: whether a plan followed test points (legal at the end)."""
    t = {"points": [], "plans": [], "bail": None, "json": [], "late_plan": False,
         "malformed": []}
    for line in lines:
        line = line.rstrip("\r\n")
        if t["bail"] is not None:
            break
        s = line.strip()
        if s.startswith("{"):
            try:
                obj = json.loads(s)
            except ValueError:
                t["malformed"].append(s[:80])
                continue
            if isinstance(obj, dict):
                t["json"].append(obj)
            continue
        if line.startswith("Bail out!"):
            t["bail"] = s[len("Bail out!"):].strip()
            continue
        m = TAP_PLAN.match(line)
        if m:
            if t["points"]:
                t["late_plan"] = True
            t["plans"].append((int(m.group(1)), m.group(2) or ""))
            continue
        m = TAP_POINT.match(line)
        if m:
            desc, directive, reason = m.group(3) or "", "", ""
            d = DIRECTIVE.search(desc)
            if d:
                directive, reason = d.group(1).upper(), d.group(2).strip()
                desc = desc[:d.start()]
            elif "#" in desc:
                desc, reason = [x.strip() for x in desc.split("#", 1)]
            num = int(m.group(2)) if m.group(2) else None
            t["points"].append((num, not m.group(1), desc.strip(), directive, reason))
    return t


def status_text(rc):
    if isinstance(rc, int) and rc > 128:
        try:
            return f"exit {rc} ({signal.Signals(rc - 128).name})"
        except ValueError:
            pass
    return f"exit {rc}"


def stopped_how(lines, exit_rec):
    """Why a program's TAP stopped short: its exit status and the last
    line it printed (often the reason: a selftest's exit(1) message)."""
    why = "no exit status" if exit_rec is None else status_text(exit_rec.get("rc"))
    last = [ln.strip() for ln in lines if ln.strip()]
    return f"{why}; last output: {last[-1][:160]}" if last else why


def judge_suite(suite, lines, exit_rec, require=False, cases=None):
    """Results [(status, name, reason)] and info strings for one suite.
    lines: what the program printed; exit_rec: its {"type":"exit"} record
    or None; cases: expected [(dir, case, corrupt)] for a case suite."""
    res, info = [], []

    def add(st, name, why=""):
        res.append((st, f"{suite}: {name}", why))

    t = parse_tap(lines)
    points, plans = t["points"], t["plans"]
    whole_skip = None
    if len(plans) == 1 and plans[0][0] == 0 and not points:
        whole_skip = re.sub(r"^(?i:skip)\b\s*", "", plans[0][1]).strip() or "no reason given"
        if require:
            add("fail", "skipped as a whole", f"skip under --require: {whole_skip}")
        else:
            add("skip", "skipped as a whole", whole_skip)

    for i, (num, ok, desc, directive, reason) in enumerate(points, 1):
        if num is not None and num != i:
            add("fail", f"test number {num} out of sequence (expected {i}): {desc}")
        if directive == "SKIP" and ok and reason.startswith(NOT_RUN):
            why = reason[len(NOT_RUN):].strip()
            if require and not why.startswith(NOT_RUN_OK):
                add("fail", desc, f"not run under --require, for a reason not on the list "
                                  f"{NOT_RUN_OK}: {why}")
            else:
                add("notrun", desc, why)
        elif directive and require:
            add("fail", desc, f"{directive.lower()} under --require: {reason}".strip())
        elif directive:
            add("skip", desc, f"{'TODO ' if directive == 'TODO' else ''}{reason}".strip())
        elif ok:
            add("pass", desc)
        else:
            add("fail", desc, reason)

    if len(plans) > 1:
        add("fail", "more than one TAP plan", ", ".join(f"1..{n}" for n, _ in plans))
    elif (len(plans) == 1 and plans[0][0] != len(points) and whole_skip is None
          and t["bail"] is None):
        add("fail", f"planned {plans[0][0]} tests, ran {len(points)}", stopped_how(lines, exit_rec))
    elif not plans and points and t["bail"] is None:
        add("fail", "no TAP plan (1..N)", f"{len(points)} test points")
    if t["bail"] is not None:
        add("fail", "Bail out!", t["bail"])
    for m in t["malformed"]:
        add("fail", "malformed JSON line", m)

    # JSON lines: info (not counted), workloads and their case lines.
    pending = []
    seen_cases = set()
    counted_json = 0
    for obj in t["json"]:
        ty = obj.get("type")
        if ty == "info":
            info.append(f"{suite}: {obj.get('name')}: exit {obj.get('rc')}"
                        + (f" ({obj['known']})" if obj.get("known") else "")
                        + f": {obj.get('output', '')}")
            counted_json += 1
        elif ty == "workload":
            if cases is None:
                ok = obj.get("ok") is True
                add("pass" if ok else "fail",
                    f"{obj.get('workload')} {obj.get('mode')} on {obj.get('fs')} "
                    f"{obj.get('mount', '')} (knob {obj.get('knob')})",
                    "" if ok else str(obj.get("error")))
                counted_json += 1
            else:
                pending.append(obj)
        elif ty == "case":
            key = (obj.get("dir"), obj.get("case"), int(obj.get("corrupt") or 0))
            seen_cases.add(key)
            st, why = judge_case(obj, pending)
            add(st, case_name(*key), why)
            pending = []
            counted_json += 1
    for key in (cases or []):
        if key not in seen_cases:
            add("fail", case_name(*key), "no result: the case did not run or did not end")

    if exit_rec is None:
        add("fail", "no exit status", "the guest stopped while it ran")
    else:
        rc = exit_rec.get("rc")
        failed = any(st == "fail" for st, _, _ in res)
        if exit_rec.get("timeout"):
            add("fail", f"killed by its time limit ({exit_rec.get('limit', '?')} s)",
                status_text(rc))
        elif rc == 0:
            pass
        elif rc == KSFT_SKIP and (whole_skip is not None or
                                  (points and all(p[3] == "SKIP" for p in points))):
            pass
        elif rc == 1 and failed:
            pass            # kselftest's KSFT_FAIL after its failing lines
        else:
            add("fail", f"exited with status {rc}", status_text(rc))
    if exit_rec is not None and not exit_rec.get("host"):
        judge_taint(exit_rec, add)
    quiet_exit = exit_rec is not None and exit_rec.get("rc") == 0 and not exit_rec.get("timeout")
    if quiet_exit and not points and not plans and not counted_json and t["bail"] is None:
        add("fail", "printed no result", "no TAP and no result lines")
    return res, info


def judge_taint(exit_rec, add):
    """A guest program's exit record carries the taint flags from before
    and after it (guest/lib.sh run_one): a flag it raised, W for a WARN
    above all, fails that program by name."""
    t0, t1 = exit_rec.get("taint0"), exit_rec.get("taint1")
    if type(t0) is not int or type(t1) is not int:
        add("fail", "taint flags not read", f"taint0={t0!r} taint1={t1!r}")
    elif t1 & ~t0:
        new = t1 & ~t0
        letters = "".join(c for i, c in enumerate(TAINT_LETTERS) if new >> i & 1)
        add("fail", "tainted the kernel", f"new taint flags {letters or '?'} (0x{new:x})")


def judge_case(obj, pending):
    """One workload case: its exit status and the JSON the run printed."""
    rc = obj.get("rc")
    if obj.get("timeout"):
        return "fail", f"killed by its time limit ({status_text(rc)})"
    oks = [w.get("ok") for w in pending]
    err = "; ".join(str(w.get("error")) for w in pending if w.get("ok") is not True)
    if obj.get("corrupt"):
        if rc == 1 and oks == [False]:
            return judge_flip(pending[0])
        if oks == [True]:
            return "fail", f"the flipped byte was not caught ({status_text(rc)})"
        return "fail", f"{status_text(rc)}, {len(pending)} workload records" + (f": {err}" if err else "")
    if rc == 0 and oks == [True]:
        return judge_orders(pending[0])
    if not pending:
        return "fail", f"{status_text(rc)}, no workload record (crashed?)"
    if rc == 0 and len(pending) != 1:
        return "fail", f"{len(pending)} workload records, expected 1"
    return "fail", (f"{status_text(rc)}: {err}" if err else status_text(rc))


PMD_ORDER = 9       # x86-64: 2 MiB


PMD_SIZE = 4096 << PMD_ORDER
# Workloads whose record has no folio orders, and why.
NO_ORDERS = {
    "memcpy": "copies anonymous memory: there is no file",
    "smallfiles": "writes hundreds of files below 2 MiB: there is no one file to report",
}


def policy_of(w):
    """The policy the record's file was made under, as its mount and the
    global page_cache file (the record's "knob", "[never] always ...")
    say: tmpfs, its mount's huge= (None without one: shmem_enabled, which
    the record does not hold, decides then); ramfs, a global
    deny or force (they override every mount), else its mount's huge=, else
    the global file; None for a ramfs without the file (a kernel without
    the series) or another filesystem."""
    mount = str(w.get("mount", "")).split(",")
    huge = next((m[len("huge="):] for m in mount if m.startswith("huge=")), None)
    m = re.search(r"\[(\w+)\]", str(w.get("knob", "")))
    knob = m.group(1) if m else None
    if w.get("fs") == "tmpfs":
        return huge
    if w.get("fs") != "ramfs":
        return None
    if knob in ("deny", "force"):
        return knob
    return huge or knob


def io_order(w):
    """The largest folio order a ramfs write of the record's --bs may make
    under never: sized by the I/O (the workloads write and read in --bs
    blocks, and fault one page at a time), below PMD size."""
    bs = (w.get("params") or {}).get("bs", 0)
    order = (bs // 4096).bit_length() - 1 if isinstance(bs, int) and bs >= 4096 else 0
    return min(order, PMD_ORDER - 1)


def judge_orders(w):
    """--orders, the file's page-cache folios by order after the run.
    Every case reports them, but those of NO_ORDERS and a file with holes
    (the record's no_orders: folio_orders() would fill them) where no PMD
    folio is promised: tmpfs reads holes without filling them.  Small
    folios (order 0) only under ramfs's global deny and on tmpfs huge=never;
    on ramfs under never (the mount's huge= or the global file's) folios
    sized by the I/O, none larger than --bs nor PMD-sized.  Where PMD
    folios are promised (promised_pmd()), every whole 2 MiB of the file is
    one, or the case did not run for the allocator's sake
    (allocator_short())."""
    orders = w.get("orders")
    params = w.get("params") or {}
    if w.get("workload") in NO_ORDERS:
        return "pass", f"no orders: {NO_ORDERS[w['workload']]}"
    if not isinstance(orders, dict):
        why = w.get("no_orders", "not said why")
        if why == "holes" and not promised_pmd(w):
            return "pass", "no orders: the file has holes, which folio_orders() would fill"
        return "fail", f"no folio orders reported (--orders: {why}): the folio sizes went unchecked"
    policy = policy_of(w)
    if policy == "deny" or (policy == "never" and w.get("fs") == "tmpfs"):
        big = sorted(int(o) for o, n in orders.items() if o != "0" and n)
        if big:
            what = "page_cache deny" if policy == "deny" else "tmpfs huge=never"
            return "fail", (f"{what}, yet the file holds folios of order "
                            f"{', '.join(map(str, big))} ({orders})")
    elif policy == "never":
        top = io_order(w)
        big = sorted(int(o) for o, n in orders.items() if int(o) > top and n)
        if big:
            return "fail", (f"ramfs never: folios sized by the I/O ({params.get('bs')} bytes, "
                            f"order {top} at most), yet the file holds folios of order "
                            f"{', '.join(map(str, big))} ({orders})")
    if promised_pmd(w):
        want = params["size"] // PMD_SIZE
        have = sum(n for o, n in orders.items() if int(o) >= PMD_ORDER)
        if have < want:
            why = (f"huge pages promised, yet the file holds {have} PMD-sized folios "
                   f"of {want} ({orders}){alloc_failures(w)}")
            if allocator_short(w, want - have):
                return "notrun", f"allocator: {why}"
            return "fail", why
    return "pass", ""


def allocator_short(w, missing):
    """Did the allocator, rather than the kernel under test, say no?  Only
    if the free 2 MiB blocks before the case were fewer than the folios
    that are missing: on all nodes together for ramfs, which falls back to
    the other node and counts no event for a huge folio it could not get
    (the blocks are all there is to go by); and on any node for tmpfs,
    which allocates huge folios on the local node only, if it counted a
    fallback (thp_file_fallback).  With enough free blocks a missing PMD
    folio is the kernel's."""
    free = w.get("free_2m")
    if not (isinstance(free, list) and free and all(isinstance(n, int) for n in free)):
        return False
    if w.get("fs") == "ramfs":
        return sum(free) < missing
    deltas = w.get("case_deltas") or w.get("deltas") or {}
    tried = any(isinstance(deltas.get(n), int) and deltas[n] > 0 for n in FAILED_COUNTERS)
    return tried and min(free) < missing


# The counters a huge folio allocation that failed raises: tmpfs's.  ramfs
# counts none (v3's thp_write_alloc_failed, thp_read_alloc_failed and
# thp_fault_file_alloc_failed are gone).
FAILED_COUNTERS = ("thp_file_fallback",)


def alloc_failures(w):
    """'; allocation failed: thp_file_fallback +8; free 2 MiB blocks per
    node before: [0, 80]': the counters of a failed allocation (from
    before the file was made: case_deltas, else the timed run's deltas)
    and the free 2 MiB blocks, which tell the allocator's "no" from a
    policy that never tried."""
    deltas = w.get("case_deltas") or w.get("deltas") or {}
    seen = [f"{n} +{deltas[n]}" for n in FAILED_COUNTERS
            if isinstance(deltas.get(n), int) and deltas[n] > 0]
    text = f"; allocation failed: {', '.join(seen)}" if seen else ""
    if isinstance(w.get("free_2m"), list):
        text += f"; free 2 MiB blocks per node before: {w['free_2m']}"
    return text


def promised_pmd(w):
    """Must the file of this record hold PMD-sized folios?  Under always
    (tmpfs huge=always; ramfs huge=always, or the global always or force),
    for a file of 2 MiB or more, written through write(2) or faulted
    through a mapping without MADV_NOHUGEPAGE, and not cut by truncate or
    punch, which split (the truncate workload, and mixed, whose truncater
    cuts the file while the writers write).  A write fault through a private mapping is a read
    fault into the file, which fills the hole with a PMD folio under always
    (both filesystems).  tmpfs reads a hole without filling it: read(2) of
    a sparse file promises nothing there (ramfs fills it, with PMD folios
    under always)."""
    params = w.get("params") or {}
    ramfs = w.get("fs") == "ramfs"
    always = policy_of(w) in (("always", "force") if ramfs else ("always",))
    tmpfs_hole = w.get("fs") == "tmpfs" and w.get("mode") == "hole"
    return (always and params.get("size", 0) >= PMD_SIZE
            and params.get("madvise") != "nohuge"
            and w.get("workload") not in ("truncate", "mixed") and not tmpfs_hole)


def judge_flip(w):
    """A --corrupt run passes only if its check found the very byte it
    flipped (bad_off == corrupt_off): failing for another reason, or at
    another offset, would show nothing about the check."""
    flip, bad = w.get("corrupt_off"), w.get("bad_off")
    if type(flip) is not int or flip < 0:
        return "fail", f"no corrupt_off: which byte was flipped is not said ({w.get('error')})"
    if type(bad) is not int or bad < 0:
        return "fail", f"no bad_off: the check named no bad byte, flipped {flip} ({w.get('error')})"
    if bad != flip:
        return "fail", f"the check found offset {bad}, the flip was at {flip}"
    return "pass", ""


# ------------------------------------------------------------------- a boot

def load(path):
    """Every line of a results file; a garbled one or a missing file comes
    back as a "malformed" or "missing" record, which judge() fails."""
    return [r for _, r in jsonl.read(path, strict=False)]


def judge(rows, expected, unknown=(), require=False, release=None, guest_rc=0,
          console_lines=(), host_suites=(), case_lists=None, guest=True):
    """All results of one boot: [(status, name, reason)], info, splat lines.
    rows: guest and host JSON lines; expected: guest suites that must have
    run; host_suites: host-side suites (unit tests) that must have run;
    guest=False: host-side suites alone, no boot to judge."""
    case_lists = case_lists if case_lists is not None else {}
    out, info = [], []
    lines, exits, order = {}, {}, []
    for r in rows:
        t = r.get("type")
        s = r.get("suite")
        if t in ("out", "exit") and s not in lines:
            lines[s], order = [], order + [s]
        if t == "out":
            lines[s].append(str(r.get("line", "")))
        elif t == "exit":
            if s in exits:
                out.append(("fail", f"{s}: ran twice", ""))
            exits[s] = r
        elif t == "malformed":
            out.append(("fail", f"results: malformed line {r['n']}", r["line"]))
        elif t == "missing":
            out.append(("fail", "results: no results file", r["error"]))
    for u in unknown:
        out.append(("fail", f"host: THP_TESTS names '{u}', which guest/tests.list does not have", ""))
    must = list(host_suites) + list(expected)
    for s in must + [s for s in order if s not in must]:
        if s not in lines:
            out.append(("fail", f"{s}: did not run", "no output and no exit status"))
            continue
        res, inf = judge_suite(s, lines[s], exits.get(s), require, case_lists.get(s))
        if s not in must:
            res.append(("fail", f"{s}: ran, but was not asked for", ""))
        out += res
        info += inf

    if guest:
        out += judge_boot(rows, release, guest_rc, console_lines)
    return out, info, splat_hits(console_lines) if guest else []


def judge_boot(rows, release, guest_rc, console_lines):
    """What a boot as a whole must show: the kernel just built (its .release
    file beside the image is required), the end of the job list, no splat."""
    out = []
    unames = [r for r in rows if r.get("type") == "uname"]
    if not release:
        out.append(("fail", "host: guest runs the kernel just built",
                    "no .release beside the image: which kernel booted is unknown"))
    elif not unames:
        out.append(("fail", "host: guest reported its kernel release", "no uname line"))
    for r in unames if release else []:
        rel = r.get("release", "")
        ok = rel.rstrip("+") == release.rstrip("+")
        out.append(("pass" if ok else "fail", "host: guest runs the kernel just built",
                    "" if ok else f"expected {release}, guest says {rel}"))
    end = any(r.get("type") == "end" for r in rows)
    aborts = [r for r in rows if r.get("type") == "abort"]
    reason = {3: "timed out (hang)", 4: "died before finishing"}.get(guest_rc, "")
    if aborts:
        reason = f"the job list stopped early (exit {aborts[0].get('rc')})"
    elif not reason and not end:
        reason = "no end marker"
    elif not reason and guest_rc:
        reason = f"guest runner exit {guest_rc}"
    out.append(("fail" if reason else "pass", "host: guest finished its job list", reason))
    hits = splat_hits(console_lines)
    out.append(("pass" if not hits else "fail", "host: kernel log has no splat",
                "; ".join(hits[:5])))
    return out


# guest/lib.sh run_one writes "== SUITE: command" to the console first,
# then each line the program prints behind "| ": a kernel line glued to one
# of those starts at its timestamp.
RUN_MARK = re.compile(r"^== ([^:\s]+): ")
PROGRAM_LINE = re.compile(r"^\| (?:.*?(\[ *\d+\.\d+\] .*))?")


def kernel_part(line):
    """The kernel's part of a console line: all of it, but of a program's
    line ("| ...") only what follows a kernel timestamp in it."""
    m = PROGRAM_LINE.match(line)
    return line if not m else (m.group(1) or "")


def splat_hits(console_lines):
    """The splat lines of the console, each with the program that was
    running when it came ("[during knob]"), so that a splat is charged to
    the test that caused it even when the taint flags were already set."""
    hits, during = [], "boot"
    for line in console_lines:
        m = RUN_MARK.match(line)
        if m:
            during = m.group(1)
        elif SPLATS.search(kernel_part(line)):
            hits.append(f"{line.rstrip()} [during {during}]")
    return hits


def kind(name):
    """'harness' for a check of the harness itself, else 'kernel'."""
    if name.split(":", 1)[0] in HARNESS_SUITES or name.startswith(HARNESS_PREFIXES):
        return "harness"
    return "kernel"


def tally(out):
    """Counts of [(status, name, why)]: pass, fail, skip (not run included),
    notrun, and the same per kind."""
    counts = {"pass": 0, "fail": 0, "skip": 0, "notrun": 0}
    for k in ("kernel", "harness"):
        counts[k] = dict(counts)
    for st, name, _ in out:
        for c in (counts, counts[kind(name)]):
            c["skip" if st == "notrun" else st] += 1
            c["notrun"] += st == "notrun"
    return counts


def count_line(c):
    return f"{c['pass']} passed, {c['fail']} failed, {c['skip']} skipped"


def render_counts(counts, write=print):
    """The count lines: kernel checks, harness checks, what did not run and
    why, and last the plain total over both."""
    for k in ("kernel", "harness"):
        c = counts[k]
        write(f"# {k} checks: {count_line(c)}"
              + (f" ({c['notrun']} of them not run)" if c["notrun"] else ""))
    write(count_line(counts))


def render(out, info, hits, write=print):
    """TAP of the verdict and the count lines; returns the counts."""
    for h in hits[:20]:
        write(f"# splat: {h}")
    for line in info:
        write(f"# info: {line}")
    write(f"1..{len(out)}")
    for i, (st, name, why) in enumerate(out, 1):
        if st == "pass":
            write(f"ok {i} {name}")
        elif st == "skip":
            write(f"ok {i} {name} # SKIP {why}")
        elif st == "notrun":
            write(f"ok {i} {name} # SKIP {NOT_RUN} {why}")
        else:
            write(f"not ok {i} {name}" + (f" # {why}" if why else ""))
    for st, name, why in out:
        if st == "notrun":
            write(f"# {NOT_RUN} {name}: {why}")
    counts = tally(out)
    render_counts(counts, write)
    return counts


# --------------------------------------------------------- host-side suites

def host_run(suite, cmd, limit):
    """Run a host-side test program as a suite: the same out/exit lines the
    guest prints.  Never raises: a crash or a hang is the suite's result.
    The program runs in a session of its own, and at its time limit, or
    when this process is told to stop, the whole session is killed: what
    it started (a build, the test binaries) goes with it."""
    rows = []

    def kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    except OSError as e:
        p, text, rc, to = None, str(e).encode(), 127, 0
    if p:
        def stop(sig, _frame):
            kill(p)
            sys.exit(128 + sig)
        old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
        try:
            text, _ = p.communicate(timeout=limit)
            rc, to = p.returncode, 0
            if rc < 0:
                rc = 128 - rc
        except subprocess.TimeoutExpired:
            kill(p)
            text, _ = p.communicate()
            rc, to = 128 + signal.SIGKILL, 1
        finally:
            for s, h in old.items():
                signal.signal(s, h)
    for line in text.decode("utf-8", "replace").splitlines():
        rows.append({"type": "out", "suite": suite, "line": line})
    rows.append({"type": "exit", "suite": suite, "rc": rc, "timeout": to, "limit": limit,
                 "host": True})
    return rows


def total(parts, write=print):
    """Add up the summaries of a make test (NAME=summary.json each; the last
    line of each file counts).  A missing or unreadable one is a failure of
    NAME.  Prints the count lines; returns the counts."""
    out = {"pass": 0, "fail": 0, "skip": 0, "notrun": 0}
    for k in ("kernel", "harness"):
        out[k] = dict(out)
    for part in parts:
        name, _, path = part.partition("=")
        try:
            with open(path, encoding="utf-8") as f:
                c = json.loads(f.read().strip().splitlines()[-1])
            per = [(out, c), (out["kernel"], c["kernel"]), (out["harness"], c["harness"])]
            for dst, src in per:
                for key in ("pass", "fail", "skip", "notrun"):
                    dst[key] += src[key]
        except (OSError, ValueError, IndexError, KeyError, TypeError) as e:
            write(f"not ok - {name}: no summary (build or boot failed: {e})")
            out["fail"] += 1
            out["kernel"]["fail"] += 1
    render_counts(out, write)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("host-run", help="run a host-side test as a suite (JSON lines)")
    h.add_argument("suite")
    h.add_argument("--timeout", type=int, default=300)
    h.add_argument("command", nargs="*", help="after --")
    c = sub.add_parser("count", help="the per-program limits the suites THP_TESTS selects "
                                     "take together (a suite of name@N counts N)")
    c.add_argument("--list", default=TESTS_LIST)
    c.add_argument("--tests", default="")
    t = sub.add_parser("total", help="add up summaries: NAME=summary.json ...")
    t.add_argument("parts", nargs="+")
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    a = ap.parse_args(argv)
    if a.cmd == "host-run":
        cmd = cmd or a.command
        for r in host_run(a.suite, cmd, a.timeout):
            print(json.dumps(r))
        return 0
    if a.cmd == "total":
        return 1 if total(a.parts)["fail"] else 0
    names, _ = expected_suites(read_tests_list(a.list), a.tests)
    limits = {n: m for n, _, m in read_tests_list(a.list, limits=True)}
    print(sum(limits[n] for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
