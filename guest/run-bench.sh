#!/bin/sh
# Measurements, not tests: every case on every configuration, interleaved
# (the innermost loop is the configuration) and repeated, in one boot.
# thp.suite=run|bench|counts|icount picks the set; thp.size_mb and thp.reps scale it.
# thp.suite=untar (make bench-untar) and thpmaps (make thpmaps) are scripts
# of their own.
. /guest/lib.sh
suite=$(arg thp.suite)
case "$suite" in untar | thpmaps) exec /guest/$suite.sh ;; esac
reps=$(arg thp.reps)
size=${THP_SIZE_MB:-64}M
only=$(arg thp.only | tr , ' ')

# spec NAME: the configuration NAME (thp.configs=, run.sh --policies) as
# DIR:POLICY, POLICY for the global page_cache file, which decides on
# /mnt/ramfs (no huge= option): ramfs huge folios (always), ramfs-4k the
# 4 KiB baseline (deny: no large folio on any mount), ramfs-never the
# default (folios sized by the I/O, below PMD size); any other NAME is the
# mount /mnt/NAME as it is (tmpfs-huge, tmpfs: huge=never, ramfs-within).
spec() {
	case "$1" in
	ramfs) echo /mnt/ramfs:always ;;
	ramfs-4k) echo /mnt/ramfs:deny ;;
	ramfs-never) echo /mnt/ramfs:never ;;
	*) echo "/mnt/$1" ;;
	esac
}
configs=$(arg thp.configs | tr , ' ')
configs=${configs:-"ramfs ramfs-4k tmpfs-huge tmpfs"}
configs=$(for c in $configs; do printf '%s ' "$(spec "$c")"; done)

case "${suite:-run}" in
run)
	reps=${reps:-3}
	cases=$(case_list run)
	sweep=""
	;;
icount)
	# One repetition per configuration: each runs once in each position.
	reps=${reps:-3}
	cases=$(case_list icount)
	sweep=""
	;;
*)
	# bench, and counts: the same cases under -icount (make bench), where
	# time is instructions and two repetitions agree.
	reps=${reps:-5}
	[ "$suite" = counts ] && reps=2
	cases=$(case_list bench)
	sweep="16 128 1024"
	[ "$suite" = counts ] && sweep=""
	# Small files in both: under -icount they tell a ratio from noise.
	small="write read unlink"
	;;
esac

# The cases of each suite are a column of guest/cases.txt, one a line.
[ -n "$cases" ] || { echo "run-bench.sh: no cases for suite ${suite:-run} in $THP_CASES" >&2; exit 1; }
n_cases=$(echo "$cases" | wc -l)
n_configs=$(echo $configs | wc -w)
# thp.only=NAME,... (by hand, to measure a few cases): case names, and
# sweep and smallfiles for the blocks below.
if [ -n "$only" ] && ! echo " $only " | grep -q " sweep "; then
	sweep=""
fi
# The small-file benchmark: seven configurations, the within_size mounts too.
if [ -n "$only" ] && ! echo " $only " | grep -q " smallfiles "; then
	small=""
fi
small_configs=$(for c in ramfs-4k ramfs-never ramfs-within ramfs tmpfs tmpfs-within tmpfs-huge; do
	printf '%s ' "$(spec $c)"; done)
n_small_configs=$(echo $small_configs | wc -w)
# Five wall-clock repetitions, as the cases above: a read of 10,000 files
# lasts about a second, and this host's noise moved single ones by 2x.
small_seeds="1 2 3 4 5"
[ "$suite" = counts ] && small_seeds="1 2"
n_small=$(( $(echo ${small:-} | wc -w) * $(echo $small_seeds | wc -w) * n_small_configs ))
total=$((reps * n_cases * (n_configs + 1) + $(echo $sweep | wc -w) * 3 * 2 * n_configs + n_small))
i=0
# A per-run limit only when the host asks for one (thp.timeout=).
limit=$(arg thp.timeout)
# run wl-NAME ARGS...: one measurement.  A run that exits non-zero without
# its own "ok":false record (a crash, bad arguments, the limit) gets one
# here, with its exit status, so that bench.sh and report.py count it.
run() {
	i=$((i + 1))
	echo "{\"type\":\"progress\",\"msg\":\"$i/$total: $*${on_policy:+ (page_cache $on_policy)}\"}"
	# shellcheck disable=SC2068
	limited "${limit:-0}" $@ --no-verify >/tmp/bench.out 2>/dev/console
	cat /tmp/bench.out
	[ "$lim_rc" = 0 ] && return 0
	grep -q '"ok":false' /tmp/bench.out && return 0
	crashed "$lim_rc" "$lim_timeout" "$@"
}

# policy P: set_policy P (guest/lib.sh), or stop: a figure under another
# policy than its configuration's name would be a wrong one.
policy() { set_policy "$1" || exit 1; }

# run_on SPEC wl-NAME ARGS...: run on SPEC (DIR or DIR:POLICY, of spec())
# with --dir DIR, POLICY in force for this run alone.
run_on() {
	on_dir=${1%%:*} on_policy=""
	[ "$on_dir" = "$1" ] || on_policy=${1#*:}
	shift
	policy "$on_policy"
	# shellcheck disable=SC2068,SC2086
	run $@ --dir $on_dir
	[ -n "$on_policy" ] && policy "$boot_policy"
	on_policy=""
	return 0
}

# crashed RC TIMEOUT wl-NAME ARGS...: a failed workload record for report.py.
crashed() {
	rc=$1 to=$2 wl=${3#wl-}
	shift 3
	mode="" bs=1M sz=$size dir="" seed=0 pattern=seq
	while [ $# -gt 0 ]; do
		case "$1" in
		--mode) mode=$2; shift ;;
		--bs) bs=$2; shift ;;
		--size) sz=$2; shift ;;
		--dir) dir=$2; shift ;;
		--seed) seed=$2; shift ;;
		--pattern) pattern=$2; shift ;;
		esac
		shift
	done
	why="exit $rc"
	[ "$to" = 1 ] && why="killed by its ${limit}s limit (exit $rc)"
	echo "{\"type\":\"workload\",\"workload\":\"$wl\",\"mode\":\"$mode\",\"params\":{\"size\":$(bytes "$sz"),\"bs\":$(bytes "$bs"),\"pattern\":\"$pattern\",\"seed\":$seed},\"dir\":\"$dir\",\"fs\":\"$(echo "$dir" | sed 's|/mnt/||; s|-.*||')\",\"knob\":\"$(cat $knob 2>/dev/null || echo n/a)\",\"wall_s\":0,\"bytes\":0,\"rc\":$rc,\"ok\":false,\"error\":\"$why\"}"
}

# bytes 4K|64M|...: the number.
bytes() {
	case "$1" in
	*K) echo $(( ${1%K} * 1024 )) ;;
	*M) echo $(( ${1%M} * 1048576 )) ;;
	*G) echo $(( ${1%G} * 1073741824 )) ;;
	*) echo "$1" ;;
	esac
}
# Each repetition starts one configuration further on, so that over the
# repetitions each runs in each position: a case's first run in the boot
# can cost more than the next (whatever the last case left to the page
# allocator), and that must not count against one configuration.
r=0
while [ $r -lt "$reps" ]; do
	r=$((r + 1))
	order=$(echo $configs | awk -v k=$(((r - 1) % n_configs)) \
		'{ for (i = 0; i < NF; i++) printf "%s ", $((i + k) % NF + 1) }')
	echo "$cases" | while read -r c; do
		if [ -n "$only" ] && ! echo " $only " | grep -q " ${c%% *} "; then
			continue
		fi
		for d in $order; do
			# shellcheck disable=SC2086
			run_on $d wl-$c --size $size --seed $r
		done
		# The physical limit for the same bytes and block size.
		bs=$(echo "$c" | sed -n 's/.*--bs \([^ ]*\).*/\1/p')
		run wl-memcpy --size $size --bs ${bs:-1M}
	done
	# The loop above ran in a pipe's subshell: advance the count here.
	i=$((i + n_cases * (n_configs + 1)))
done
# Size sweep for write and fault-in: three reps, interleaved.
for s in $sweep; do
	for r in 1 2 3; do
		for c in "write" "fault --mode write"; do
			for d in $configs; do
				# shellcheck disable=SC2086
				run_on $d wl-$c --size ${s}M --seed $r
			done
		done
	done
done
# Small files, 4K to 256K: interleaved.  10,000 files (about 1.3 GiB) on
# every configuration but huge=always, which gives each file a 2 MiB
# folio: 10,000 of them would be 20 GiB, five times the guest, so always
# gets 1,000 (about 2 GiB) and the table reports page cache per byte of
# data beside the file count.  Under -icount (counts) every configuration
# gets 1,000: instructions need no long runs.
if [ -n "${small:-}" ]; then
	for r in $small_seeds; do
		for m in ${small:-}; do
			for d in $small_configs; do
				case $suite:$d in
				counts:* | *:/mnt/ramfs:always | *:/mnt/tmpfs-huge) nf=1000 ;;
				*) nf=10000 ;;
				esac
				# A run killed half way leaves its files behind, and
				# 1,000 always files fill a fifth of the guest.
				rm -rf "${d%%:*}"/wl-smallfiles.*.d
				run_on $d wl-smallfiles --mode $m --bs 256K --files $nf --seed $r
			done
		done
	done
fi
# fio as an independent check, on ramfs with and without huge folios and tmpfs.
if [ "$suite" = bench ] && command -v fio >/dev/null; then
	for on in $configs; do
		d=${on%%:*} p=""
		[ "$d" = "$on" ] || p=${on#*:}
		policy "$p"
		for rw in write read randread; do
			echo "{\"type\":\"progress\",\"msg\":\"fio $rw on $d\"}"
			fio --name=t --directory=$d --rw=$rw --bs=$([ $rw = randread ] && echo 4k || echo 1m) \
				--size=$size --ioengine=psync --output-format=json 2>/dev/null | \
				tr -d '\n' | sed "s|^|{\"type\":\"fio\",\"dir\":\"$d\",\"config\":\"$on\",\"rw\":\"$rw\",\"fio\":|; s|\$|}|"
			echo
			rm -f $d/t.*
		done
		[ -n "$p" ] && policy "$boot_policy"
	done
fi
rm -f /tmp/bench.out
exit 0
