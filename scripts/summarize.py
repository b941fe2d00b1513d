#!/usr/bin/env python3
"""One boot's verdict, or the host-side suites' (--no-guest): the results
(JSON lines) judged against what should have run (scripts/verdict.py), as
TAP lines, the kernel and harness count lines and the closing
'N passed, N failed, N skipped' line.  Exit 1 on any failure."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--results")
    ap.add_argument("--console")
    ap.add_argument("--no-guest", action="store_true",
                    help="host-side suites alone: no boot, no guest suites expected")
    ap.add_argument("--release", help="kernel release the guest must report")
    ap.add_argument("--guest-rc", type=int, default=0)
    ap.add_argument("--host", action="append", default=[],
                    help="JSON-lines file of host-side suites (verdict.py host-run)")
    ap.add_argument("--host-suite", action="append", default=[],
                    help="a host-side suite that must have run")
    ap.add_argument("--tests-list", default=verdict.TESTS_LIST)
    ap.add_argument("--tests", default="", help="THP_TESTS: the names asked for")
    ap.add_argument("--require", action="store_true",
                    help="the kernel must have the feature: a skip is a failure")
    ap.add_argument("--summary", help="append totals as one JSON line here")
    a = ap.parse_args(argv)
    if not a.no_guest and not (a.results and a.console):
        ap.error("--results and --console are required unless --no-guest")

    rows = [] if a.no_guest else verdict.load(a.results)
    for h in a.host:
        rows += verdict.load(h)
    pre = []
    try:
        expected, unknown = ([], []) if a.no_guest else verdict.expected_suites(
            verdict.read_tests_list(a.tests_list), a.tests)
    except OSError as e:
        expected, unknown = [], []
        pre.append(("fail", "host: read the test list", str(e)))
    cases = {}
    for suite in verdict.CASE_SUITES:
        if suite in expected:
            try:
                cases[suite] = verdict.read_case_lists()
            except (OSError, ValueError) as e:
                pre.append(("fail", f"host: read the case list of {suite}", str(e)))
    console = []
    try:
        if not a.no_guest:
            with open(a.console, encoding="utf-8", errors="replace") as f:
                console = f.readlines()
    except OSError as e:
        console = [f"no console log: {e}\n"]
        pre.append(("fail", "host: console log", str(e)))
    out, info, hits = verdict.judge(rows, expected, unknown, a.require, a.release,
                                    a.guest_rc, console, a.host_suite, cases,
                                    guest=not a.no_guest)
    counts = verdict.render(pre + out, info, hits)
    if a.summary:
        with open(a.summary, "a", encoding="utf-8") as f:
            f.write(json.dumps(counts) + "\n")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
