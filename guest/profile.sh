#!/bin/sh
# Kernel profile of one workload on ramfs (huge and 4K) and tmpfs huge
# (perf record -e cpu-clock: software events work under TCG; call graphs
# do not, without frame pointers).  Used by `make profile`; the workload
# comes from thp.profile= on the kernel command line, commas for spaces.
# /mnt/ramfs has no huge= option: the global page_cache file decides, set
# per run to always for huge folios and to deny (4 KiB pages only on every
# mount) for /mnt/ramfs-4k, whose huge=never alone would give folios sized
# by the I/O; other mounts run under the default policy.
. /guest/lib.sh
wl=$(arg thp.profile | tr , ' ')
wl="wl-${wl:-write --bs 4K --size 128M} --no-verify"
# policy DIR: the page_cache policy a run on DIR wants, or none.
policy() {
	case "$1" in
	/mnt/ramfs) echo always ;;
	/mnt/ramfs-4k) echo deny ;;
	esac
}
# Under TCG a sample interrupt is slow, and the kernel would lower the
# rate to a few hundred per second: turn that throttling off.
# The rate first: with the limit at 0 the kernel no longer accepts writes
# to perf_event_max_sample_rate.
echo 20000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
# make insns: thp.profile_dirs= names the mounts (commas), and the workload
# runs without perf, whose sampling would be counted too.
dirs=$(arg thp.profile_dirs | tr , ' ')
list=${dirs:-/mnt/ramfs /mnt/ramfs-4k /mnt/tmpfs-huge}
echo "1..$(echo $list | wc -w)"
n=0
for d in $list; do
	n=$((n + 1))
	p=$(policy "$d")
	if ! set_policy "$p"; then
		echo "not ok $n $d # cannot set $knob to $p"
		continue
	fi
	if [ -n "$dirs" ]; then
		# shellcheck disable=SC2086
		if $wl --dir $d >/dev/null 2>&1; then
			echo "ok $n unprofiled $d"
		else
			echo "not ok $n unprofiled $d # the workload failed"
		fi
		continue
	fi
	# shellcheck disable=SC2086
	perf record -q -e cpu-clock -F 20000 -o /tmp/perf.data -- $wl --dir $d >/dev/null 2>&1
	echo "# profile of '$wl' on $d"
	perf report -i /tmp/perf.data --stdio --sort symbol 2>/dev/null | grep -E '^ +[0-9]' | head -${THP_PROFILE_LINES:-40} | sed 's/^/# /'
	echo "ok $n profile $d"
done
set_policy "$boot_policy"
exit 0
