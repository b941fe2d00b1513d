#!/usr/bin/env python3
"""Turn one boot's results (JSON lines from the guest) plus the host's own
checks into TAP lines and the closing 'N passed, N failed, N skipped' line.

A suite that exits non-zero without a failing line, or prints no result at
all, counts as a failure: a test that ran nothing has not passed."""
import argparse
import json
import re
import sys

SPLATS = re.compile(r"BUG:|WARNING:|Oops|KASAN|possible circular locking|"
                    r"INFO: task .* blocked|Kernel panic|general protection fault")


def load(path):
    rows = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    rows.append({"type": "tap", "suite": "results", "status": "fail",
                                 "name": f"malformed result line {n}: {line[:80]}"})
    except OSError as e:
        rows.append({"type": "tap", "suite": "results", "status": "fail",
                     "name": f"no results: {e}"})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--release", help="kernel release the guest must report")
    ap.add_argument("--guest-rc", type=int, default=0)
    ap.add_argument("--host", action="append", default=[],
                    help="extra JSON-lines file of host-side results")
    ap.add_argument("--summary", help="append totals as one JSON line here")
    a = ap.parse_args()

    rows = load(a.results)
    for h in a.host:
        rows += load(h)
    out = []  # (status, name, reason)
    info = []
    seen = {}
    for r in rows:
        t = r.get("type")
        if t == "tap":
            st = r.get("status")
            if st not in ("pass", "fail", "skip"):
                st = "fail"
            out.append((st, f"{r.get('suite')}: {r.get('name')}", r.get("reason", "")))
            seen.setdefault(r.get("suite"), []).append(st)
        elif t == "exit":
            s, rc = r.get("suite"), r.get("rc")
            got = seen.get(s, [])
            if rc not in (0, 4) and "fail" not in got:
                out.append(("fail", f"{s}: exited with status {rc}", ""))
            elif not got:
                out.append(("fail", f"{s}: printed no result", ""))
        elif t == "info":
            # Reported, not counted: the tree's own selftests (upstream.sh).
            info.append(f"{r.get('suite')}: {r.get('name')}: exit {r.get('rc')}"
                        + (f" (known: {r['known']})" if r.get("known") else "")
                        + f": {r.get('output', '')}")
            seen.setdefault(r.get("suite"), []).append("info")
        elif t == "workload":
            name = (f"{r.get('workload')} {r.get('mode')} on {r.get('fs')} "
                    f"{r.get('mount', '')} (knob {r.get('knob')})")
            ok = r.get("ok") is True
            out.append(("pass" if ok else "fail", f"{r.get('suite', 'workload')}: {name}",
                        "" if ok else str(r.get("error"))))
            seen.setdefault(r.get("suite"), []).append("pass" if ok else "fail")
        elif t == "uname" and a.release:
            rel = r.get("release", "")
            ok = rel.rstrip("+") == a.release.rstrip("+")
            out.append(("pass" if ok else "fail",
                        "host: guest runs the kernel just built",
                        "" if ok else f"expected {a.release}, guest says {rel}"))

    if a.release and not any(r.get("type") == "uname" for r in rows):
        out.append(("fail", "host: guest reported its kernel release", "no uname line"))
    end = any(r.get("type") == "end" for r in rows)
    reason = {3: "timed out (hang)", 4: "died before finishing"}.get(a.guest_rc, "")
    out.append(("pass" if end and not reason else "fail", "host: guest finished its job list",
                reason or ("" if end else "no end marker")))
    try:
        with open(a.console, encoding="utf-8", errors="replace") as f:
            hits = [l.rstrip() for l in f if SPLATS.search(l)]
    except OSError as e:
        hits = [f"no console log: {e}"]
    out.append(("pass" if not hits else "fail", "host: kernel log has no splat",
                "; ".join(hits[:5])))
    for h in hits[:20]:
        print(f"# splat: {h}")

    for line in info:
        print(f"# info: {line}")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    print(f"1..{len(out)}")
    for i, (st, name, why) in enumerate(out, 1):
        counts[st] += 1
        if st == "pass":
            print(f"ok {i} {name}")
        elif st == "skip":
            print(f"ok {i} {name} # SKIP {why}")
        else:
            print(f"not ok {i} {name}" + (f" # {why}" if why else ""))
    if a.summary:
        with open(a.summary, "a", encoding="utf-8") as f:
            f.write(json.dumps(counts) + "\n")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
