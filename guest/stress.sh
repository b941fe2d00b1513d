#!/bin/sh
# fsx processes in parallel, each on its own ramfs mount without huge= (so
# the global page_cache file decides), while the file cycles through its
# policies (always, never, within_size, advise, deny, force): every process
# must pass, and the policy must have changed while it ran.
# usage: stress.sh [PROCESSES] [OPS]
# make stress: 4 x 250k ops; make test: a bounded 2 x 3k.  run_one (lib.sh)
# runs this in its own process group: at its time limit the fsx processes
# and the flipper are killed with it.
procs=${1:-4}
ops=${2:-250000}
knob=/sys/kernel/mm/transparent_hugepage/page_cache
stop=/tmp/stress.stop
flipped=/tmp/stress.flipped
rm -f /tmp/stress.* $stop
: >$flipped
old=""
[ -w $knob ] && old=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
restore() {
	[ -n "$old" ] && echo "$old" >$knob
}
trap 'touch $stop; restore; exit 143' TERM
trap 'touch $stop; restore; exit 130' INT

echo "1..$procs"
pids=""
i=0
while [ $i -lt "$procs" ]; do
	i=$((i + 1))
	# The subshell notes how many flips the kernel had taken when this fsx
	# ended: only those happened while it ran.
	(probe-fsx --huge knob --first $((i * 1000)) --seeds 1 --ops "$ops" --check 5000 \
		>/tmp/stress.$i 2>&1
	echo $? >/tmp/stress.rc.$i
	wc -l <$flipped >/tmp/stress.flips.$i) &
	pids="$pids $!"
done
if [ -n "$old" ]; then
	# A flip is a write the kernel took that changed the policy.
	(prev=$old; while [ ! -e $stop ]; do
		for w in always never within_size advise deny force; do
			[ -e $stop ] && break
			[ "$w" = "$prev" ] && continue
			echo $w >$knob && prev=$w && echo $w >>$flipped
			sleep 1
		done
	done) &
	flipper=$!
fi
# shellcheck disable=SC2086
wait $pids
touch $stop
[ -n "${flipper:-}" ] && wait "$flipper"
restore
bad=0
i=0
while [ $i -lt "$procs" ]; do
	i=$((i + 1))
	rc=$(cat /tmp/stress.rc.$i 2>/dev/null || echo none)
	flips=$(cat /tmp/stress.flips.$i 2>/dev/null | tr -d ' ')
	if [ "$rc" != 0 ] || ! grep -q '^ok 1' /tmp/stress.$i; then
		echo "not ok $i stress: fsx process $i (exit $rc)"
		bad=1
		sed 's/^/# /' /tmp/stress.$i
	elif [ -n "$old" ] && [ "${flips:-0}" -lt 2 ]; then
		# The run would not have tested what it says it tested: the
		# first flip may come before fsx's first operation.
		echo "not ok $i stress: fsx process $i passed, but the policy flipped ${flips:-0} times, not twice or more, while it ran"
		bad=1
	else
		echo "ok $i stress: fsx process $i, $ops ops, policy flipped ${flips:-0} times while it ran"
	fi
done
rm -f /tmp/stress.* $stop
exit $bad
