#!/usr/bin/env bash
# Boot a kernel in QEMU (TCG) with our initramfs and collect its results.
# usage: guest.sh KERNEL OUTDIR MODE [TIMEOUT_S] [-- extra kernel args]
# THP_OVERLAY="A.cpio ...": archives added over the initramfs.
# MODE: test | bench | shell.  Results arrive on the second serial port as
# JSON lines in OUTDIR/results.jsonl; the console goes to OUTDIR/console.log.
# Exit: 0 guest finished, 3 timeout (hang; also no result line for
# THP_GUEST_IDLE_S seconds when that is set), 4 guest died without finishing
# (no end marker: init writes one only when the job list ran to its end).
. "$(dirname "$0")/common.sh"

kernel=$1 dir=$2 mode=$3 timeout=${4:-1500}
shift $(( $# >= 4 ? 4 : $# ))
[ "${1:-}" = -- ] && shift
extra="$*"
initrd=$OUT/initramfs.cpio
[ -f "$kernel" ] || die "no kernel $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd: run 'make initramfs'"
mkdir -p "$dir"
rm -f "$dir/results.raw" "$dir/results.jsonl" "$dir/console.log" "$dir/initrd.cpio"
# THP_OVERLAY: cpio archives whose files go over the initramfs's (make
# shell's thpmaps, make bench-untar's tar), kept out of the test image.
# The kernel unpacks archives laid end to end, one after the other.
if [ -n "${THP_OVERLAY:-}" ]; then
	for o in $THP_OVERLAY; do [ -f "$o" ] || die "no overlay $o"; done
	# shellcheck disable=SC2086
	cat "$initrd" $THP_OVERLAY >"$dir/initrd.cpio"
	initrd=$dir/initrd.cpio
fi

mem=${THP_GUEST_MB:-4096}
# Two sockets (sockets=2 or the kernel WARNs in topology_sane) and two
# NUMA nodes, emulated by the kernel (base.config has no ACPI to read
# QEMU's): numa=fake=2 halves memory, and the CPUs go round robin, one
# per node.  icount needs single-threaded TCG, where a second vCPU only
# halves the speed and makes the run order depend on scheduling, so the
# deterministic mode boots one CPU and one node.
machine="-accel tcg,thread=multi -smp 2,sockets=2,cores=1,threads=1"
numa="numa=fake=2"
# The clock: with no ACPI there is no HPET, and under TCG the kernel fails
# to calibrate the TSC against the PIT, which leaves jiffies (4 ms steps).
# TCG's TSC is the host's own, synchronized across vCPUs: give the guest
# its rate, and no watchdog, which would have nothing to check it against.
# Under icount time is virtual, and jiffies are what it counts.
khz=$(host_tsc_khz)
clock=${khz:+tsc_early_khz=$khz tsc=reliable}
[ -n "${THP_ICOUNT:-}" ] && machine="-accel tcg,thread=single -icount shift=0,sleep=off -smp 1" numa="" clock=""
# THP_QEMU_PLUGIN: a TCG plugin and its arguments (make bench WHAT=insns).
# shellcheck disable=SC2206
qemu=(qemu-system-x86_64 $machine -m "${mem}M" -nodefaults -no-reboot
	-kernel "$kernel" -initrd "$initrd" -display none
	${THP_QEMU_PLUGIN:+-plugin "$THP_QEMU_PLUGIN"})
# Stall detectors at about three times their defaults: a vCPU that TCG
# starves on a loaded host is no stall, and a real one still shows
# (guest/splats.ere).
cmdline="console=ttyS0 panic=-1 oops=panic rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
cmdline+="${numa:+ $numa}${clock:+ $clock} thp.mode=$mode $extra"

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio -serial "file:$dir/results.raw" -append "$cmdline"
fi

"${qemu[@]}" -serial "file:$dir/console.log" -serial "file:$dir/results.raw" \
	-append "$cmdline" </dev/null &
qpid=$!
t0=$(date +%s)
shown=0
rc=0
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1
	# Progress: print the guest's progress lines as they arrive.
	if [ -f "$dir/results.raw" ]; then
		lines=$(tr -d '\r' <"$dir/results.raw" | grep -c '"type":"progress"' || true)
		if [ "$lines" -gt "$shown" ]; then
			tr -d '\r' <"$dir/results.raw" | grep '"type":"progress"' | tail -n +$((shown + 1)) | \
				sed -e 's/.*"msg":"\([^"]*\)".*/\1/' -e "s/^/  [$(( $(date +%s) - t0 ))s] /" >&2
			shown=$lines
		fi
	fi
	if [ $(( $(date +%s) - t0 )) -ge "$timeout" ]; then
		kill -9 "$qpid" 2>/dev/null || true
		rc=3
		break
	fi
	# THP_GUEST_IDLE_S (test.sh): hung when no result line came for so long.
	if [ -n "${THP_GUEST_IDLE_S:-}" ]; then
		size=$(stat -c %s "$dir/results.raw" 2>/dev/null || echo 0)
		[ "$size" != "${last_size:-}" ] && last_size=$size last_t=$(date +%s)
		if [ $(( $(date +%s) - last_t )) -ge "$THP_GUEST_IDLE_S" ]; then
			kill -9 "$qpid" 2>/dev/null || true
			why="no result line for ${THP_GUEST_IDLE_S}s"
			rc=3
			break
		fi
	fi
done
wait "$qpid" 2>/dev/null || true
tr -d '\r' <"$dir/results.raw" >"$dir/results.jsonl" 2>/dev/null || true
if [ "$rc" = 3 ]; then
	echo "guest: ${why:-timeout after ${timeout}s} (hang?); console tail:" >&2
	tail -n 40 "$dir/console.log" >&2
elif ! grep -q '"type":"end"' "$dir/results.jsonl"; then
	rc=4
	echo "guest: died before finishing; console tail:" >&2
	tail -n 40 "$dir/console.log" >&2
fi
note "guest $mode: $(( $(date +%s) - t0 ))s"
exit "$rc"
