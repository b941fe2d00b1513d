#!/bin/sh
# stress-ng's file-system and memory-mapping stressors on ramfs, bounded for
# make test.  Each stressor runs once on a ramfs mounted huge=always (its
# own mount), once on /mnt/ramfs-4k (huge=never), and some once more on
# /mnt/ramfs (no huge=: the page_cache knob decides) while the knob flips
# always/never/within_size in the background.
#
# TAP, plan first: one point per stressor per mount.  A point passes only if
# stress-ng exits 0, printed no "fail:" line (its --verify failures are
# those) and the kernel logged no splat while it ran; a stressor that
# stress-ng skips (or exits 4, not implemented) is a SKIP with its reason.
# A failure prints the tail of stress-ng's output as diagnostics.  After
# each mount: the stressors' files removed, nr_file_pages is back within
# SLACK pages of before and nr_file_hugepages exactly (a leak fails), the
# huge=always mount made huge folios and the huge=never one made none.
#
# usage: stressng.sh [SECS]   seconds per stressor (default 3); from the
# kernel command line thp.stressng_secs=N and thp.stressng_only=a,b (run
# only those stressors; the plan follows).  STRESSNG_MOUNTS=huge,4k,knob.
. /guest/lib.sh

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }
secs=${1:-$(arg thp.stressng_secs)}
secs=${secs:-3}
only=$(arg thp.stressng_only | tr , ' ')
mounts=$(echo "${STRESSNG_MOUNTS:-huge,4k,knob}" | tr , ' ')
# Pages nr_file_pages may differ by after a mount's run (our own logs in
# /tmp, busybox's page cache): 1 MiB.
SLACK=256
KNOB=/sys/kernel/mm/transparent_hugepage/page_cache
HUGE=/mnt/stressng-huge
# The host's list (scripts/verdict.py SPLATS) and lockdep's reports.
SPLATS='BUG:|WARNING:|Oops|KASAN|possible circular locking|INFO: task .* blocked|Kernel panic|general protection fault|vmstat_refresh: |lockdep|inconsistent lock state|list_(add|del) corruption'
T=/tmp/stressng
rm -rf $T
mkdir -p $T

# The stressors: name, mounts (h: huge=always, 4: huge=never, k: the
# knob's mount while it flips), stress-ng options.  Sizes are small for a
# 2-vCPU TCG guest but span several 2 MiB folios; --verify wherever the
# stressor has it (it is ignored by the others).  A name that is not the
# stressor's own (hdd-seq) says which variant it is.
cat >$T/table <<'EOF'
hdd-seq    h4k --hdd 1 --hdd-bytes 16M --hdd-write-size 1M --hdd-opts wr-seq,rd-seq
hdd-rnd    h4k --hdd 2 --hdd-bytes 8M --hdd-write-size 4K --hdd-opts wr-rnd,rd-rnd,iovec,fsync
mmap       h4k --mmap 2 --mmap-file --mmap-bytes 8M --mmap-mprotect
msync      h4  --msync 1 --msync-bytes 8M
msyncmany  h4  --msyncmany 1
fault      h4k --fault 2
madvise    h4k --madvise 2
mincore    h4  --mincore 1 --mincore-random
fallocate  h4k --fallocate 1 --fallocate-bytes 8M
fpunch     h4k --fpunch 1
seek       h4  --seek 1 --seek-size 8M --seek-punch
readahead  h4k --readahead 1 --readahead-bytes 8M
revio      h4  --revio 1 --revio-bytes 8M
sendfile   h4  --sendfile 1 --sendfile-size 1M
copy-file  h4k --copy-file 1 --copy-file-bytes 128M
iomix      h4  --iomix 1 --iomix-bytes 8M
sync-file  h4  --sync-file 1 --sync-file-bytes 8M
file-ioctl h4  --file-ioctl 1
aio        h4  --aio 1 --aio-requests 8
rename     h4  --rename 1
dentry     h4  --dentry 1 --dentries 256
symlink    h4  --symlink 1
ramfs      k   --ramfs 1 --ramfs-size 8M --ramfs-fill
EOF

# selected MOUNTLETTER: the table's lines for that mount (and thp.stressng_only).
selected() {
	while read -r name where opts; do
		case "$where" in *"$1"*) ;; *) continue ;; esac
		if [ -n "$only" ] && ! echo " $only " | grep -q " $name "; then
			continue
		fi
		echo "$name $opts"
	done <$T/table
}

letter() { case "$1" in huge) echo h ;; 4k) echo 4 ;; knob) echo k ;; esac; }

# Counters, per-CPU diffs folded in first (a negative one makes the kernel
# print "vmstat_refresh:", which the splat check sees).
refresh() { echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
thp_allocs() {
	awk '$1 == "thp_write_alloc" || $1 == "thp_read_alloc" || $1 == "thp_fault_file_alloc" \
		{ n += $2 } END { print n + 0 }' /proc/vmstat
}

n=0
for m in $mounts; do
	n=$((n + $(selected "$(letter $m)" | wc -l) + 1))
done
[ -w $KNOB ] || { echo "1..0 # SKIP no $KNOB: the kernel lacks the page_cache knob"; exit 4; }
command -v stress-ng >/dev/null || { echo "1..0 # SKIP no stress-ng in the initramfs"; exit 4; }
echo "1..$n"
echo "# $(stress-ng --version), $secs s per stressor"

old_knob=$(sed 's/.*\[\(.*\)\].*/\1/' $KNOB)
flipper=""
stop_flipper() {
	[ -n "$flipper" ] || return 0
	touch $T/stop
	wait "$flipper" 2>/dev/null
	flipper=""
	echo "$old_knob" >$KNOB
}
cleanup() {
	stop_flipper
	grep -q " $HUGE " /proc/mounts && umount $HUGE
	rm -rf $T
}
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 130' INT

i=0
mark=0
bad=0
point() {	# point OK|FAIL|SKIP DESC [REASON]
	i=$((i + 1))
	case "$1" in
	OK) echo "ok $i $2" ;;
	SKIP) echo "ok $i $2 # SKIP $3" ;;
	*) echo "not ok $i $2${3:+ # $3}"; bad=1 ;;
	esac
}

# run_stressor NAME MOUNT DIR OPTS...: one stress-ng run and its point.
run_stressor() {
	name=$1 mname=$2 dir=$3
	shift 3
	mark=$((mark + 1))
	tag="stressng-mark-$mark"
	echo "$tag: $name on $mname" >/dev/kmsg
	log=$T/log
	mkdir -p "$dir/stress-ng"
	t0=$(date +%s)
	# The time limit is for a hang: stress-ng stops each stressor itself.
	limited $((secs * 4 + 60)) --group stress-ng "$@" --timeout "$secs" --verify \
		--temp-path "$dir/stress-ng" --metrics-brief >$log 2>&1
	rc=$lim_rc took=$(($(date +%s) - t0))
	dmesg >$T/dmesg
	if grep -q "$tag:" $T/dmesg; then
		sed -n "/$tag:/,\$p" $T/dmesg >$T/since
	else
		cp $T/dmesg $T/since	# the ring wrapped: all of it, to be safe
	fi
	splat=$(grep -E "$SPLATS" $T/since | head -n 5)
	fails=$(grep -E '^stress-ng: (fail|error):' $log | head -n 5)
	skip=$(grep -iE 'skipping|will be skipped|not implemented' $log | grep -vi 'not skipping' | head -n 1)
	ops=$(awk -v s="$(echo "$*" | sed 's/^--\([a-z-]*\).*/\1/')" \
		'$4 == s && $5 ~ /^[0-9]+$/ { print $5 " bogo ops" }' $log | head -n 1)
	desc="$name on $mname"
	why=""
	if [ "$lim_timeout" = 1 ]; then
		why="hung: killed after $took s (stress-ng --timeout $secs)"
	elif [ -n "$splat" ]; then
		why="kernel splat while it ran: $(echo "$splat" | head -n 1)"
	elif [ -n "$fails" ]; then
		why="stress-ng exit $rc, $(echo "$fails" | head -n 1 | sed 's/^stress-ng: //')"
	elif [ "$rc" = 4 ] || { [ "$rc" = 0 ] && [ -n "$skip" ]; }; then
		point SKIP "$desc" "stress-ng: ${skip:-exit 4, not implemented}"
	elif [ "$rc" != 0 ]; then
		why="stress-ng exit $rc"
	else
		point OK "$desc (${ops:-no bogo ops line}, $took s)"
	fi
	if [ -n "$why" ]; then
		point FAIL "$desc" "$why"
		echo "# stress-ng $* --timeout $secs --verify --temp-path $dir/stress-ng"
		tail -n 20 $log | sed 's/^/#   /'
		[ -n "$splat" ] && echo "$splat" | sed 's/^/# dmesg: /'
	fi
	rm -rf "$dir/stress-ng"
	rm -f $log $T/dmesg $T/since
}

for m in $mounts; do
	case $m in
	huge)
		mkdir -p $HUGE
		mount -t ramfs -o huge=always ramfs $HUGE || { echo "Bail out! cannot mount ramfs huge=always"; exit 1; }
		dir=$HUGE mname="ramfs huge=always" ;;
	4k) dir=/mnt/ramfs-4k mname="ramfs huge=never" ;;
	knob) dir=/mnt/ramfs mname="ramfs (knob flipping)" ;;
	esac
	selected "$(letter $m)" >$T/list
	refresh
	pages0=$(vmstat nr_file_pages) huge0=$(vmstat nr_file_hugepages) allocs0=$(thp_allocs)
	if [ $m = knob ]; then
		rm -f $T/stop $T/flips
		# A flip is a write the kernel took that changed the policy.
		(prev=$old_knob; while [ ! -e $T/stop ]; do
			for w in always never within_size; do
				[ -e $T/stop ] && break
				[ "$w" = "$prev" ] && continue
				echo $w >$KNOB && prev=$w && echo $w >>$T/flips
				usleep 300000
			done
		done) &
		flipper=$!
	fi
	while read -r name opts; do
		# shellcheck disable=SC2086
		run_stressor "$name" "$mname" "$dir" $opts
	done <$T/list
	flips=$(cat $T/flips 2>/dev/null | wc -l)
	stop_flipper
	rm -rf "${dir:?}"/* 2>/dev/null
	refresh
	pages1=$(vmstat nr_file_pages) huge1=$(vmstat nr_file_hugepages) allocs1=$(thp_allocs)
	made=$((allocs1 - allocs0)) dpages=$((pages1 - pages0))
	desc="accounting on $mname: nr_file_pages $pages0 -> $pages1, nr_file_hugepages $huge0 -> $huge1, $made huge folios made"
	[ $m = knob ] && desc="$desc, knob flipped $flips times"
	left=$(ls -A "$dir" | head -n 3 | tr '\n' ' ')
	if [ -n "$left" ]; then
		point FAIL "$desc" "files left on the mount: $left"
	elif [ $dpages -gt $SLACK ] || [ $dpages -lt -$SLACK ] || [ "$huge1" != "$huge0" ]; then
		point FAIL "$desc" "leak: the stressors' files are gone, their pages are not"
	elif [ $m = huge ] && [ $made = 0 ]; then
		point FAIL "$desc" "no huge folio was made: the run tested nothing huge"
	elif [ $m = 4k ] && [ $made != 0 ]; then
		point FAIL "$desc" "huge folios made on a huge=never mount"
	elif [ $m = knob ] && [ "$flips" = 0 ]; then
		point FAIL "$desc" "the knob never flipped"
	else
		point OK "$desc"
	fi
	[ $m = huge ] && umount $HUGE
done
cleanup
exit $bad
