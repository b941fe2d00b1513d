#!/bin/sh
# Every workload in a small verify mode on each configuration, then each
# once more with --corrupt on ramfs.  A configuration is a directory, or
# DIR:POLICY: the case runs with POLICY in the global page_cache file
# (always, never or deny, the 4 KiB baseline), set just before it and put
# back just after it.  Each run prints its own JSON object and then one
# {"type":"case",...} line with its exit status; the host
# (scripts/verdict.py) builds the expected cases from the "test" column and
# the dirs: and corrupt_dir: lines of guest/cases.txt, and judges every
# case: a run that crashes, exits non-zero or hangs fails by name.
. /guest/lib.sh
# usage: workloads.sh [MiB]   the file size of each case (16), or thp.size_mb=.
size=${THP_SIZE_MB:-${1:-16}}M
cases=$(case_list test)
dirs=$(case_setting dirs)
corrupt_dir=$(case_setting corrupt_dir)
# one CONFIG CORRUPT "CASE" ARGS...: run wl-CASE ARGS on CONFIG (DIR or
# DIR:POLICY), then its case line, which names the configuration.
one() {
	cfg=$1 c=$2 w=$3
	shift 3
	d=${cfg%%:*} p=""
	[ "$d" = "$cfg" ] || p=${cfg#*:}
	settle
	set_policy "$p" || exit 1
	# shellcheck disable=SC2086
	limited "$THP_TEST_TIMEOUT" wl-$w "$@" --dir $d
	[ -z "$p" ] || set_policy "$boot_policy" || exit 1
	echo "{\"type\":\"case\",\"case\":\"$(jstr "$w")\",\"dir\":\"$cfg\",\"corrupt\":$c,\"rc\":$lim_rc,\"timeout\":$lim_timeout}"
}

[ -n "$cases" ] || { echo "workloads.sh: no \"test\" cases in $THP_CASES" >&2; exit 1; }
[ -n "$dirs" ] && [ -n "$corrupt_dir" ] || { echo "workloads.sh: no dirs: or corrupt_dir: in $THP_CASES" >&2; exit 1; }
echo "$cases" | grep -v '^$' >/tmp/workloads.cases
for cfg in $dirs; do
	while read -r w; do
		# shellcheck disable=SC2086
		one $cfg 0 "$w" --size $size --orders
	done </tmp/workloads.cases
done
# The check itself: with one byte flipped behind its back, every case on
# ramfs with huge folios must exit 1 with "ok":false (the host checks).
while read -r w; do
	# shellcheck disable=SC2086
	one $corrupt_dir 1 "$w" --size 4M --corrupt
done </tmp/workloads.cases
rm -f /tmp/workloads.cases
exit 0
