#!/usr/bin/env bash
# make test: the host-side suites once, then test.sh on each kernel in turn
# (the patched kernel, then the debug kernel), each with its own TAP and
# count lines; last the kernel and harness count lines and the total over
# them all (verdict.py total).  Non-zero if anything failed.
# usage: test-all.sh VARIANT...
. "$(dirname "$0")/common.sh"

rc=0
sums=()
echo "# == host-side suites"
"$TOP/scripts/host-suites.sh" "$1" || rc=1
sums+=("host=$OUT/test-host/summary.json")
for v in "$@"; do
	sum=$OUT/test-$v/summary.json
	rm -f "$sum"
	echo "# == $v kernel"
	"$TOP/scripts/test.sh" "$v" || rc=1
	sums+=("$v=$sum")
done
echo "# total over: host-side suites and $*"
"$PY" "$TOP/scripts/verdict.py" total "${sums[@]}" || rc=1
exit "$rc"
