#!/bin/sh
# fsx processes in parallel, each on its own ramfs mount without huge= (so
# the page_cache knob decides), while the knob cycles through its policies:
# every process must pass, and the knob must have changed while it ran.
# Where the kernel has per-size knobs (hugepages-<size>kB/page_cache), each
# flip also sets one of them, so that every folio size comes and goes, and
# those must have changed while each process ran too.  Each fsx process
# runs a collapser thread (MADV_COLLAPSE of random 2 MiB ranges) as well.
# usage: stress.sh [PROCESSES] [OPS]
# make stress: 4 x 250k ops; make test: a bounded 2 x 5k.  run_one (lib.sh)
# runs this in its own process group: at its time limit the fsx processes
# and the flipper are killed with it.
procs=${1:-4}
ops=${2:-250000}
knob=/sys/kernel/mm/transparent_hugepage/page_cache
stop=/tmp/stress.stop
flipped=/tmp/stress.flipped
sflipped=/tmp/stress.sflipped
rm -f /tmp/stress.* $stop
: >$flipped
: >$sflipped
old=""
[ -w $knob ] && old=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
sizes=$(ls -d /sys/kernel/mm/transparent_hugepage/hugepages-*kB 2>/dev/null)
for d in $sizes; do
	sed 's/.*\[\(.*\)\].*/\1/' "$d/page_cache" >"/tmp/stress.old.${d##*-}"
done
restore() {
	[ -n "$old" ] && echo "$old" >$knob
	for d in $sizes; do cat "/tmp/stress.old.${d##*-}" >"$d/page_cache"; done
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
	(probe-fsx --huge knob --collapser --first $((i * 1000)) --seeds 1 --ops "$ops" --check 5000 \
		>/tmp/stress.$i 2>&1
	echo $? >/tmp/stress.rc.$i
	wc -l <$flipped >/tmp/stress.flips.$i
	wc -l <$sflipped >/tmp/stress.sflips.$i) &
	pids="$pids $!"
done
if [ -n "$old" ]; then
	# A flip is a write the kernel took that changed the policy.
	(prev=$old; n=0; while [ ! -e $stop ]; do
		for w in always never within_size; do
			[ -e $stop ] && break
			[ "$w" = "$prev" ] && continue
			echo $w >$knob && prev=$w && echo $w >>$flipped
			# One size per flip, round the sizes and their words.
			# shellcheck disable=SC2086
			set -- $sizes
			if [ $# -gt 0 ]; then
				k=$#
				shift $((n % k))
				d=$1
				set -- never always within_size inherit
				shift $((n / k % 4))
				echo "$1" >"$d/page_cache" && echo "$d $1" >>$sflipped
				n=$((n + 1))
			fi
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
	sflips=$(cat /tmp/stress.sflips.$i 2>/dev/null | tr -d ' ')
	if [ "$rc" != 0 ] || ! grep -q '^ok 1' /tmp/stress.$i; then
		echo "not ok $i stress: fsx process $i (exit $rc)"
		bad=1
		sed 's/^/# /' /tmp/stress.$i
	elif [ -n "$old" ] && [ "${flips:-0}" = 0 ]; then
		# The run would not have tested what it says it tested.
		echo "not ok $i stress: fsx process $i passed, but the knob never flipped while it ran"
		bad=1
	elif [ -n "$old" ] && [ -n "$sizes" ] && [ "${sflips:-0}" = 0 ]; then
		echo "not ok $i stress: fsx process $i passed, but no per-size knob changed while it ran"
		bad=1
	else
		echo "ok $i stress: fsx process $i, $ops ops, knob flipped ${flips:-0} times and per-size knobs ${sflips:-0} times while it ran"
	fi
done
rm -f /tmp/stress.* $stop
exit $bad
