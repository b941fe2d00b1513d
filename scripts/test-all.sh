#!/usr/bin/env bash
# make test: the host-side suites once, then test.sh on each kernel (make
# test: the debug kernel, then the patched one), each with its own TAP and
# count lines; last the kernel and harness checks and the total over them
# all (verdict.py total).  Non-zero if anything failed.
# usage: test-all.sh VARIANT...
#
# A guest under TCG leaves much of the host idle, so the kernels are built
# one after the other in the order given, the rest beside the guests, and
# each kernel's guest starts as soon as its image is there, beside the
# guests still running.  The first kernel named should be the one whose
# guest runs longest.  Each guest's output goes to $OUT/test-all-VARIANT.log
# and is printed whole, in the order given, as soon as it and those before
# it are done; a build's to $OUT/kernel-VARIANT.log.
. "$(dirname "$0")/common.sh"

rc=0
sums=()
echo "# == host-side suites"
"$TOP/scripts/host-suites.sh" "$1" || rc=1
sums+=("host=$OUT/test-host/summary.json")

# Each build and guest runs in a session of its own (setsid does not
# fork here: a background job is no group leader), so that the EXIT trap
# can end it whole, and an interrupted make test leaves none behind.  A
# session is also a scheduler autogroup: the CPU is shared fairly between
# the next build and each guest, and a build does not starve a guest.
live=()		# the sessions not yet waited for
trap 'for p in "${live[@]}"; do kill -- -"$p" 2>/dev/null; done; true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
# reap PID: wait for it, and forget it (a pid can be used again).
reap() {
	local r=0 p keep=()
	wait "$1" || r=$?
	for p in "${live[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	live=("${keep[@]}")
	return "$r"
}

guests=()
first=1
for v in "$@"; do
	log=$OUT/test-all-$v.log
	rm -f "$OUT/test-$v/summary.json" "$log.rc"
	if [ -n "$first" ]; then
		"$TOP/scripts/kernel.sh" "$v" >/dev/null || rc=1
	else
		# Waited for in the background: a signal is taken at once.  If
		# this fails, test.sh builds it again in the open, and fails there.
		setsid "$TOP/scripts/kernel.sh" "$v" >"$OUT/kernel-$v.log" 2>&1 </dev/null &
		live+=($!)
		reap $! || note "building $v beside the guests failed: $OUT/kernel-$v.log"
	fi
	first=""
	setsid bash -c '"$1" "$2"; echo $? >"$3.rc"' _ "$TOP/scripts/test.sh" "$v" "$log" \
		>"$log" 2>&1 </dev/null &
	live+=($!)
	guests+=($!)
done

for i in "${!guests[@]}"; do
	v=${*:$((i + 1)):1}
	reap "${guests[$i]}" || true
	echo "# == $v kernel"
	cat "$OUT/test-all-$v.log"
	[ "$(cat "$OUT/test-all-$v.log.rc" 2>/dev/null)" = 0 ] || rc=1
	sums+=("$v=$OUT/test-$v/summary.json")
done
trap - EXIT INT TERM HUP
echo "# total over: host-side suites and $*"
"$PY" "$TOP/scripts/verdict.py" total "${sums[@]}" || rc=1
exit "$rc"
