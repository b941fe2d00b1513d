#!/bin/sh
# fsx processes in parallel, each on its own ramfs mount without huge= (so
# the page_cache knob decides), while the knob cycles through its policies:
# every process must pass.  usage: stress.sh [PROCESSES] [OPS]
# make stress: 4 x 250k ops; make test: a bounded 2 x 5k.
procs=${1:-4}
ops=${2:-250000}
knob=/sys/kernel/mm/transparent_hugepage/page_cache
stop=/tmp/stress.stop
rm -f $stop
pids=""
i=0
while [ $i -lt "$procs" ]; do
	i=$((i + 1))
	probe-fsx --huge knob --first $((i * 1000)) --seeds 1 --ops "$ops" --check 5000 \
		>/tmp/stress.$i 2>&1 &
	pids="$pids $!"
done
flips=0
if [ -w $knob ]; then
	old=$(sed 's/.*\[\(.*\)\].*/\1/' $knob)
	# Count only the writes the kernel took.
	(n=0; while [ ! -e $stop ]; do
		for w in always never within_size; do
			echo $w >$knob && n=$((n + 1)); sleep 1
		done
	done; echo $n >/tmp/stress.flips) &
	flipper=$!
fi
# shellcheck disable=SC2086
wait $pids
touch $stop
[ -n "${flipper:-}" ] && wait "$flipper" && flips=$(cat /tmp/stress.flips) && echo "$old" >$knob
n=0
i=0
while [ $i -lt "$procs" ]; do
	i=$((i + 1))
	n=$((n + 1))
	if [ -w $knob ] && [ "$flips" = 0 ]; then
		# The run would not have tested what it says it tested.
		echo "not ok $n stress: fsx process $i passed, but the knob never flipped"
	elif grep -q '^ok 1' /tmp/stress.$i; then
		echo "ok $n stress: fsx process $i, $ops ops, knob flipped $flips times meanwhile"
	else
		echo "not ok $n stress: fsx process $i"
		sed 's/^/# /' /tmp/stress.$i
	fi
done
rm -f /tmp/stress.* $stop
