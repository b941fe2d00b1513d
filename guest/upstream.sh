#!/bin/sh
# The 6.1 tree's own vm selftests, as information outside our pass count:
# each prints what it printed and its exit status as one "info" line.
# split_huge_page_test prints no TAP, and its two anonymous cases are known
# to fail on a correct kernel: each faults 4 PMD pages, then asks smaps for
# exactly one ("No THP is allocated").
. /guest/lib.sh

# info NAME RC KNOWN OUTFILE
info() {
	out=$(tail -n 6 "$4" | tr '\n' '|' | sed 's/|$//')
	echo "{\"type\":\"info\",\"name\":\"$(jstr "$1")\",\"rc\":$2,\"known\":\"$(jstr "$3")\",\"output\":\"$(jstr "$out")\"}"
}

log=/tmp/upstream.out
for c in split_pmd_thp split_pte_mapped_thp split_file_backed_thp; do
	known=""
	[ $c != split_file_backed_thp ] && known="upstream bug: checks for 1 THP after faulting 4"
	timeout 120 upstream-split-cases $c >$log 2>&1
	rc=$(sed -n "s/^case $c: exit //p" $log)
	info "split_huge_page_test $c" "${rc:-255}" "$known" $log
done

# transhuge-stress loops forever by design: a timeout ends it (rc 143).
timeout 20 transhuge-stress 64 >$log 2>&1
info "transhuge-stress 64 MiB anon, 20 s" $? "runs until killed (timeout)" $log
rm -f $log
