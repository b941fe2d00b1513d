"""The end of the host's unit tests (analysis/test_report.py,
analysis/test_tables.py, scripts/test_verdict.py): their results as TAP,
for verdict.py's host-run to judge like any guest suite."""
import sys


def finish(results):
    """Print [(ok, name) or (ok, name, detail)] as a TAP plan and test
    points, up to 10 lines of a failure's detail as comments; exit 0 if all
    passed, else 1."""
    print(f"1..{len(results)}")
    for i, (ok, name, *detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok and detail and detail[0]:
            for line in str(detail[0]).splitlines()[:10]:
                print(f"# {line}")
    sys.exit(0 if all(r[0] for r in results) else 1)
