#!/bin/sh
# Every workload in a small verify mode on each filesystem/policy, then each
# once more with --corrupt on ramfs.  Each run prints its own JSON object and
# then one {"type":"case",...} line with its exit status; the host
# (scripts/verdict.py) builds the expected cases from the "test" column and
# the dirs: and corrupt_dir: lines of guest/cases.txt, and judges every
# case: a run that crashes, exits non-zero or hangs fails by name.
. /guest/lib.sh
size=${THP_SIZE_MB:-16}M
cases=$(case_list test)
dirs=$(case_setting dirs)
corrupt_dir=$(case_setting corrupt_dir)

# one DIR CORRUPT "CASE" ARGS...: run wl-CASE ARGS on DIR, then its case line.
one() {
	d=$1 c=$2 w=$3
	shift 3
	settle
	# shellcheck disable=SC2086
	limited "$THP_TEST_TIMEOUT" wl-$w "$@" --dir $d
	echo "{\"type\":\"case\",\"case\":\"$(jstr "$w")\",\"dir\":\"$d\",\"corrupt\":$c,\"rc\":$lim_rc,\"timeout\":$lim_timeout}"
}

[ -n "$cases" ] || { echo "workloads.sh: no \"test\" cases in $THP_CASES" >&2; exit 1; }
[ -n "$dirs" ] && [ -n "$corrupt_dir" ] || { echo "workloads.sh: no dirs: or corrupt_dir: in $THP_CASES" >&2; exit 1; }
echo "$cases" | grep -v '^$' >/tmp/workloads.cases
for dir in $dirs; do
	# A kernel with the knob must take it: the verdict then wants PMD folios.
	knob=/sys/kernel/mm/transparent_hugepage/page_cache
	if [ "$dir" = /mnt/ramfs ] && [ -e $knob ] && ! echo always >$knob; then
		echo "workloads.sh: cannot set $knob to always" >&2
		exit 1
	fi
	while read -r w; do
		# shellcheck disable=SC2086
		one $dir 0 "$w" --size $size --orders
	done </tmp/workloads.cases
done
# The check itself: with one byte flipped behind its back, every case on
# ramfs with huge folios must exit 1 with "ok":false (the host checks).
while read -r w; do
	# shellcheck disable=SC2086
	one $corrupt_dir 1 "$w" --size 4M --corrupt
done </tmp/workloads.cases
rm -f /tmp/workloads.cases
echo within_size >/sys/kernel/mm/transparent_hugepage/page_cache 2>/dev/null
exit 0
