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
vs=("$@")
for i in "${!vs[@]}"; do
	v=${vs[$i]}
	next=${vs[$((i + 1))]:-}
	sum=$OUT/test-$v/summary.json
	rm -f "$sum"
	echo "# == $v kernel"
	# A guest under TCG leaves much of the second core idle: build the
	# next kernel meanwhile, at the lowest priority, so that it takes what
	# the guest leaves.  If that fails, test.sh builds it again in the
	# open, and fails there.
	"$TOP/scripts/kernel.sh" "$v" >/dev/null || rc=1
	pid=""
	if [ -n "$next" ]; then
		# In a process group of its own (setsid does not fork here: a
		# background job is no group leader), so that an interrupted make
		# test leaves no build behind.
		setsid nice -n 19 "$TOP/scripts/kernel.sh" "$next" >"$OUT/kernel-$next.log" 2>&1 </dev/null &
		pid=$!
		trap 'kill -- -$pid 2>/dev/null || true' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		trap 'exit 129' HUP
	fi
	"$TOP/scripts/test.sh" "$v" || rc=1
	[ -z "$pid" ] || wait "$pid" || note "building $next beside the $v guest failed: $OUT/kernel-$next.log"
	trap - EXIT INT TERM HUP
	sums+=("$v=$sum")
done
echo "# total over: host-side suites and $*"
"$PY" "$TOP/scripts/verdict.py" total "${sums[@]}" || rc=1
exit "$rc"
