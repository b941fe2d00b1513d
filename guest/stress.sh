#!/bin/sh
# make stress: four fsx processes in parallel on their own ramfs mounts,
# 250k ops each, knob flipping meanwhile; every one must pass.
ops=${THP_STRESS_OPS:-250000}
for i in 1 2 3 4; do
	probe-fsx --first $((i * 1000)) --seeds 1 --ops "$ops" --check 5000 >/tmp/stress.$i 2>&1 &
done
(while [ -n "$(jobs -p)" ]; do
	for w in always never within_size; do
		echo $w >/sys/kernel/mm/transparent_hugepage/page_cache; sleep 2
	done
done) &
wait
n=0
for i in 1 2 3 4; do
	n=$((n + 1))
	if grep -q '^ok 1' /tmp/stress.$i; then
		echo "ok $n stress: fsx process $i, $ops ops"
	else
		echo "not ok $n stress: fsx process $i"
		sed 's/^/# /' /tmp/stress.$i
	fi
done
