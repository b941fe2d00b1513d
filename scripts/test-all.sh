#!/usr/bin/env bash
# make test: the host-side suites once, and test.sh on each kernel (make
# test: the debug kernel, then the patched one), each with its own TAP and
# count lines; last the kernel and harness checks and the total over them
# all (verdict.py total).  Non-zero if anything failed.
# usage: test-all.sh VARIANT...
#
# A guest under TCG leaves much of the host idle, so the kernels are built
# one after the other in the order given, the rest beside the guests, and
# each kernel's guest starts as soon as its image is there, beside the
# guests still running; the host-side suites run beside the first build.
# The first kernel named should be the one whose guest runs longest.  The
# output of those suites and of each guest goes to $OUT/test-all-NAME.log
# and is printed whole, the host-side suites' first and then the guests' in
# the order given, once the last build is done and it and those before it
# have ended; a build's to $OUT/kernel-VARIANT.log.
. "$(dirname "$0")/common.sh"

rc=0
sums=()

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

# spawn NAME CMD...: CMD in a session of its own, its output into
# $OUT/test-all-NAME.log and its status into that .rc; sets job.
spawn() {
	local log=$OUT/test-all-$1.log
	shift
	rm -f "$log.rc"
	setsid bash -c '"$@" >"$0" 2>&1 </dev/null; echo $? >"$0.rc"' "$log" "$@" &
	job=$!
	live+=("$job")
}
# show NAME PID HEADER: wait for the job, print its log; rc=1 unless it
# exited 0.
show() {
	local log=$OUT/test-all-$1.log
	reap "$2" || true
	echo "# == $3"
	cat "$log" 2>/dev/null || echo "# no output: $log"
	[ "$(cat "$log.rc" 2>/dev/null)" = 0 ] || rc=1
}

# The host-side suites run beside the first build.
rm -f "$OUT/test-host/summary.json"
spawn host "$TOP/scripts/host-suites.sh" "$1"
host=$job
guests=()
first=1
for v in "$@"; do
	rm -f "$OUT/test-$v/summary.json"
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
	spawn "$v" "$TOP/scripts/test.sh" "$v"
	guests+=("$job")
done

show host "$host" "host-side suites"
sums+=("host=$OUT/test-host/summary.json")
for i in "${!guests[@]}"; do
	v=${*:$((i + 1)):1}
	show "$v" "${guests[$i]}" "$v kernel"
	sums+=("$v=$OUT/test-$v/summary.json")
done
trap - EXIT INT TERM HUP
echo "# total over: host-side suites and $*"
"$PY" "$TOP/scripts/verdict.py" total "${sums[@]}" || rc=1
exit "$rc"
