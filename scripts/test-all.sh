#!/usr/bin/env bash
# make test: the host-side suites once, then test.sh on each kernel (make
# test: the debug kernel, then the patched one), each with its own TAP and
# count lines; last the kernel and harness checks and the total over them
# all (verdict.py total).  Non-zero if anything failed.
# usage: test-all.sh VARIANT...
#
# A guest under TCG leaves much of the host idle, so the kernels are built
# one after the other in the order given, the first in the open and the
# rest at the lowest priority, and each kernel's guest starts as soon as
# its image is there, beside the guests still running.  The first kernel
# named should be the one whose guest runs longest.  Each guest's output
# is kept and printed whole, in the order given, as soon as it and those
# before it are done.
. "$(dirname "$0")/common.sh"

rc=0
sums=()
echo "# == host-side suites"
"$TOP/scripts/host-suites.sh" "$1" || rc=1
sums+=("host=$OUT/test-host/summary.json")

# In a process group of its own (setsid does not fork here: a background
# job is no group leader), so that an interrupted make test leaves no
# build or guest behind.
pids=() guests=()
trap 'for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null; done; true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

first=1
for v in "$@"; do
	log=$OUT/test-all-$v.log
	rm -f "$OUT/test-$v/summary.json" "$log.rc"
	if [ -n "$first" ]; then
		"$TOP/scripts/kernel.sh" "$v" >/dev/null || rc=1
	else
		# Waited for in the background: a signal is taken at once.  If
		# this fails, test.sh builds it again in the open, and fails there.
		setsid nice -n 19 "$TOP/scripts/kernel.sh" "$v" >"$OUT/kernel-$v.log" 2>&1 </dev/null &
		pids+=($!)
		wait $! || note "building $v beside the guests failed: $OUT/kernel-$v.log"
	fi
	first=""
	setsid bash -c '"$1" "$2"; echo $? >"$3.rc"' _ "$TOP/scripts/test.sh" "$v" "$log" \
		>"$log" 2>&1 </dev/null &
	pids+=($!)
	guests+=($!)
done

for i in "${!guests[@]}"; do
	v=${*:$((i + 1)):1}
	wait "${guests[$i]}" || true
	echo "# == $v kernel"
	cat "$OUT/test-all-$v.log"
	[ "$(cat "$OUT/test-all-$v.log.rc" 2>/dev/null)" = 0 ] || rc=1
	sums+=("$v=$OUT/test-$v/summary.json")
done
trap - EXIT INT TERM HUP
echo "# total over: host-side suites and $*"
"$PY" "$TOP/scripts/verdict.py" total "${sums[@]}" || rc=1
exit "$rc"
