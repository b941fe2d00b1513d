#!/bin/sh
# stress-ng's file-system and memory-mapping stressors on ramfs, bounded for
# make test.  Each stressor runs once on a ramfs mounted huge=always (its
# own mount), once on /mnt/ramfs-4k (huge=never: folios sized by the I/O,
# below PMD size; the name is older than that), and some once more on
# /mnt/ramfs (no huge=: the global page_cache file decides) while the file
# cycles always/never/within_size/advise/deny/force in the background.
#
# The stressors of a mount run together, in as few stress-ng runs as the
# table allows (see groups), each for the CPU time it would get alone.
#
# TAP, plan first: one point per stressor per mount.  A point passes only if
# no failure line names its stressor or none (its --verify failures are
# such lines), the run exited 0 (or with the status of a failure or skip a
# line names), the stressor did some work (alone, on a second run, if it
# did none in its group), and the kernel logged no splat
# while the run lasted; a stressor that stress-ng says it skips is a SKIP
# with its reason.
# A failure prints the tail of stress-ng's output as diagnostics.  A
# self-test shows that a data error does fail a point.  After
# each mount: the stressors' files removed, nr_file_pages is back within
# SLACK pages of before and nr_file_hugepages exactly (a leak fails), the
# huge=always mount had PMD-sized folios while its stressors ran and the
# huge=never one never had any (nr_file_hugepages sampled 5 times a second:
# no event counts ramfs's huge folios).
#
# usage: stressng.sh [SECS [TABLE]]   seconds per stressor instance (default 3),
# the stressors (default /guest/stressng.table); from the kernel command
# line (which wins) thp.stressng_secs=N, thp.stressng_table=PATH and
# thp.stressng_only=a,b (only those stressors; the plan follows).
# STRESSNG_MOUNTS=huge,4k,knob: the mounts, in order.
. /guest/lib.sh

# The kernel command line wins over the arguments.
secs=$(arg thp.stressng_secs)
secs=${secs:-${1:-3}}
table=$(arg thp.stressng_table)
table=${table:-${2:-/guest/stressng.table}}
only=$(arg thp.stressng_only | tr , ' ')
# Tests of the test (scratch runs only), thp.stressng_inject=WORD[,WORD]:
# corrupt runs the corrupter (see selftest) beside every run, bogus
# gives stress-ng an option it does not know, splat logs a WARNING: line
# during each run, leak holds a deleted 4 MiB file open past each
# mount's check.
inject=",$(arg thp.stressng_inject),"
injected() { case "$inject" in *",$1,"*) return 0 ;; esac; return 1; }
corrupt=""
injected corrupt && corrupt=1
mounts=$(echo "${STRESSNG_MOUNTS:-huge,4k,knob}" | tr , ' ')
# Pages nr_file_pages may differ by after a mount's run (our own logs in
# /tmp, busybox's page cache): 1 MiB.
SLACK=256
KNOB=/sys/kernel/mm/transparent_hugepage/page_cache
HUGE=/mnt/stressng-huge
T=/tmp/stressng
rm -rf $T
mkdir -p $T
# The splat patterns: the one list, guest/splats.ere, without its comments.
grep -v -e '^#' -e '^$' /guest/splats.ere >$T/splats

# The table: guest/stressng.table unless TABLE (or thp.stressng_table=)
# names another.
grep -v -e '^#' -e '^[[:space:]]*$' "$table" >$T/table

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
# sampler: until $T/stop-sampler exists, the highest nr_file_hugepages
# seen into $T/peak, every 0.2 s; read by the shell, no fork per sample.
# It moves by whole folios, past any per-CPU batch: no refresh needed.
sampler() {
	peak=$(vmstat nr_file_hugepages)
	echo "$peak" >$T/peak
	while [ ! -e $T/stop-sampler ]; do
		v=$peak
		while read -r k v; do
			[ "$k" = nr_file_hugepages ] && break
		done </proc/vmstat
		[ "$v" -gt "$peak" ] && peak=$v && echo "$peak" >$T/peak
		usleep 200000
	done
}
sampler=""
stop_sampler() {
	[ -n "$sampler" ] || return 0
	touch $T/stop-sampler
	wait "$sampler" 2>/dev/null
	sampler=""
}

# Mounts no stressor of the table runs on are left out.
n=0 used=""
for m in $mounts; do
	k=$(selected "$(letter $m)" | wc -l)
	[ "$k" -gt 0 ] && n=$((n + k + 1)) used="$used $m"
done
case " $used " in *" huge "*) n=$((n + 1)) ;; esac	# the self-test
mounts=$used
[ -w $KNOB ] || { echo "1..0 # SKIP no $KNOB: the kernel lacks the page_cache knob"; exit 4; }
command -v stress-ng >/dev/null || { echo "1..0 # SKIP no stress-ng in the initramfs"; exit 4; }
echo "1..$n"
echo "# $(stress-ng --version), $secs s per stressor instance, on $(nproc) CPUs"

old_knob=$(sed 's/.*\[\(.*\)\].*/\1/' $KNOB)
flipper=""
stop_flipper() {
	[ -n "$flipper" ] || return 0
	touch $T/stop
	wait "$flipper" 2>/dev/null
	flipper=""
	echo "$old_knob" >$KNOB
}
leaker=""
cleanup() {
	stop_flipper
	stop_sampler
	# shellcheck disable=SC2086
	[ -n "$leaker" ] && { kill $leaker 2>/dev/null; wait $leaker 2>/dev/null; }
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

# corrupter DIR: until $T/stop-corrupt exists, overwrite the first MiB of
# every file under DIR that a stress-ng process holds open (through
# /proc/PID/fd, so unlinked files too) with random bytes: data a --verify
# must not miss.  Only stress-ng's processes are looked at (comm
# stress-ng*, read without a fork): a scan of all of /proc is too slow
# under TCG on the debug kernel.
corrupter() {
	while [ ! -e $T/stop-corrupt ]; do
		for c in /proc/[0-9]*/comm; do
			read -r comm <"$c" 2>/dev/null || continue
			case "$comm" in stress-ng*) ;; *) continue ;; esac
			for f in "${c%/comm}"/fd/*; do
				case "$(readlink "$f" 2>/dev/null)" in
				"$1"/*) dd if=/dev/urandom of="$f" bs=64k count=16 conv=notrunc 2>/dev/null ;;
				esac
			done
		done
		usleep 100000
	done
}

# groups: the lines of $T/list (NAME OPTS) as "G SECS NAME OPTS", G the
# group each goes to: the stressors of a group run at once, in one
# stress-ng, so that both CPUs work and each run's start and checks are
# paid once a group, not once a stressor.  A group has each stressor once
# (its options are the run's), so a second hdd line starts a second group.
# A group's --timeout is SECS for each instance on a CPU of its own:
# SECS x instances / CPUs, so that each gets the time it would alone.
# ALONE: stressors that run in a group of their own.  On the debug kernel
# one operation of theirs takes seconds of CPU, and in a group they
# finished none by its end: a run that did nothing checked nothing.
ALONE="mmap msyncmany"
groups() {
	awk -v secs="$secs" -v cpus="$(nproc)" -v alone=" $ALONE " '
	{
		s = $2; sub(/^--/, "", s)
		g = index(alone, " " s " ") ? 1000 + NR : 1
		while (has[g " " s])
			g++
		has[g " " s] = 1
		line[NR] = $0
		grp[NR] = g
		n[g] += ($3 ~ /^[0-9]+$/) ? $3 : 1
	}
	END {
		for (i = 1; i <= NR; i++) {
			t = int((secs * n[grp[i]] + cpus - 1) / cpus)
			if (t < secs)
				t = secs
			print grp[i], t, line[i]
		}
	}' $T/list
}

# sng MOUNT DIR SECS OPTS...: one stress-ng run under a time limit, with
# --timeout SECS, --verify and --temp-path DIR/stress-ng.  Sets rc, took,
# hung and splat (splat lines logged while it ran); $T/log is its output.
# With $corrupt set, corrupter runs beside it.
sng() {
	on=$1 dir=$2 tsecs=$3
	shift 3
	mark=$((mark + 1))
	tag="stressng-mark-$mark"
	echo "$tag: $* on $on" >/dev/kmsg
	mkdir -p "$dir/stress-ng"
	cmd="stress-ng $* --timeout $tsecs --verify --temp-path $dir/stress-ng --metrics-brief"
	injected bogus && cmd="$cmd --no-such-option"
	rm -f $T/stop-corrupt
	cpid=""
	if [ -n "$corrupt" ]; then
		corrupter "$dir/stress-ng" &
		cpid=$!
	fi
	injected splat && echo "WARNING: stressng.sh injected this line (thp.stressng_inject=splat)" >/dev/kmsg
	t0=$(date +%s)
	# The time limit is for a hang: stress-ng stops each stressor itself.
	# shellcheck disable=SC2086
	limited $((tsecs * 4 + 60)) --group $cmd >$T/log 2>&1
	rc=$lim_rc hung=$lim_timeout took=$(($(date +%s) - t0))
	if [ -n "$cpid" ]; then
		touch $T/stop-corrupt
		wait "$cpid"
	fi
	dmesg >$T/dmesg
	if grep -q "$tag:" $T/dmesg; then
		sed -n "/$tag:/,\$p" $T/dmesg >$T/since
	else
		cp $T/dmesg $T/since	# the ring wrapped: all of it, to be safe
	fi
	splat=$(grep -E -f $T/splats $T/since | head -n 5)
	rm -rf "$dir/stress-ng" $T/dmesg $T/since
}

# named RE: the pattern of the lines that name a stressor of RE (a name,
# or names joined by |): after the pid ("[123] hdd: ..."), as the parent
# names a child ("(stress-ng-hdd)"), or in "hdd stressor will be skipped".
# mine RE: those lines of $T/log.
named() { echo "\] ($1): |\((stress-ng-)?($1)\)|(^|[[:space:]])($1) stressor"; }
mine() { grep -E "$(named "$1")" $T/log; }

# about STRESSOR: sets fails (its fail: and error: lines, its data
# mismatches: aiol reports a bad read back as info, and its child's
# end by an error or a signal), skip (its reason for skipping) and ops,
# from $T/log.
# Failure lines that name no stressor of the run count for every
# stressor ($orphans).
# A child killed by SIGKILL is left out: stress-ng's own way to end a
# straggler at the time limit; a hang shows as one.
FAILS='^stress-ng: (fail|error):|data mismatch|terminated with an error|terminated on signal: ([0-8]|[1-9][0-9])'
SKIPS='skipping|will be skipped|not implemented'
about() {
	fails=$(mine "$1" | grep -E "$FAILS" | head -n 5)
	fails=${fails:-$orphans}
	skip=$(mine "$1" | grep -iE "$SKIPS" | grep -vi 'not skipping' | head -n 1 | sed 's/^stress-ng: //')
	ops=$(awk -v s="$1" '$4 == s && $5 ~ /^[0-9]+$/ { print $5 " bogo ops" }' $T/log | head -n 1)
}

# diag: what a failed point prints after it: the command, the tail of
# stress-ng's output, the splat lines.
diag() {
	echo "# $cmd"
	tail -n 20 $T/log | sed 's/^/#   /'
	[ -n "$splat" ] && echo "$splat" | sed 's/^/# dmesg: /'
	return 0
}

# judge_group MOUNT DIR: one group's stress-ng run ($T/group: SECS NAME
# OPTS lines) and a verdict for each of its stressors into $T/verdicts,
# one a line: OK|SKIP|FAIL, the stressor, then the point's text.
judge_group() {
	tsecs=$(awk 'NR == 1 { print $1 }' $T/group)
	# shellcheck disable=SC2046
	sng "$1" "$2" "$tsecs" $(cut -d' ' -f3- $T/group)
	: >$T/verdicts
	names=$(awk '{ s = $3; sub(/^--/, "", s); printf "%s%s", sep, s; sep = "|" }' $T/group)
	orphans=$(grep -E "$FAILS" $T/log | grep -vE "$(named "$names")" | head -n 5)
	# A non-zero exit is the group's: when a line names the stressor it
	# came from (a failure or a skip: 4 is "not implemented", 3 "out of
	# system resources", how xattr ends after "will be skipped"), the
	# others are judged by their own lines.  Without one they all fail.
	grc=$rc
	[ "$rc" != 0 ] && [ -z "$orphans" ] && mine "$names" | grep -qiE "$FAILS|$SKIPS" && grc=0
	bad_all=""
	[ "$hung" = 1 ] && bad_all="hung: killed after $took s (stress-ng --timeout $tsecs)"
	[ -z "$bad_all" ] && [ -n "$splat" ] && bad_all="kernel splat while its group ran: $(echo "$splat" | head -n 1)"
	while read -r _ name opts; do
		s=${opts%% *}
		s=${s#--}
		about "$s"
		desc="$name on $1"
		why="$bad_all"
		if [ -n "$why" ]; then
			:
		elif [ -n "$fails" ]; then
			why="stress-ng exit $rc, $(echo "$fails" | head -n 1 | sed 's/^stress-ng: //')"
		elif [ -n "$skip" ] && [ "$grc" = 0 ]; then
			echo "SKIP $s $desc # SKIP stress-ng: $skip" >>$T/verdicts
		elif [ "$grc" != 0 ]; then
			why="stress-ng exit $rc"
		elif [ -z "$ops" ] || [ "${ops%% *}" = 0 ]; then
			# A stressor that did nothing checked nothing.
			why="no work done (${ops:-no bogo ops line})"
		else
			echo "OK $s $desc ($ops, $took s with its run)" >>$T/verdicts
		fi
		[ -n "$why" ] && echo "FAIL $s $desc # $why" >>$T/verdicts
	done <$T/group
}

# run_group MOUNT DIR: judge_group, and its verdicts as points.  A
# stressor that finished no operation runs again, alone, for four times
# the time it had: a vCPU the host left waiting is no kernel bug, and a
# stressor that still does nothing fails.
run_group() {
	judge_group "$@"
	# The evidence of a failure, before a second run overwrites it.
	: >$T/diag
	grep -v ' # no work done' $T/verdicts | grep -q '^FAIL' && diag >$T/diag
	cp $T/group $T/group.all
	cp $T/verdicts $T/verdicts.all
	# Only a stressor that ran, said so, and counted 0 (its run exited 0):
	# not one that left no metrics line or ended with the run.
	again=""
	[ "$rc" = 0 ] && again=$(awk '/ # no work done \(0 bogo ops\)$/ { print $2 }' $T/verdicts.all)
	for s in $again; do
		awk -v s="$s" -v secs="$secs" -v cpus="$(nproc)" '
			{ o = $3; sub(/^--/, "", o) }
			o == s {
				n = ($4 ~ /^[0-9]+$/) ? $4 : 1
				t = int((4 * secs * n + cpus - 1) / cpus)
				$1 = (t < 4 * secs) ? 4 * secs : t
				print
			}' $T/group.all >$T/group
		retry=$s
		judge_group "$@"
		[ -s $T/verdicts ] || echo "FAIL $retry $retry # its run alone gave no verdict" >$T/verdicts
		grep -q '^FAIL' $T/verdicts && diag >>$T/diag
		awk -v s="$retry" 'FILENAME == ARGV[1] { if ($2 == s) line = $0; next }
			$2 == s { $0 = line " (run again alone)" } { print }' \
			$T/verdicts $T/verdicts.all >$T/verdicts.new
		mv $T/verdicts.new $T/verdicts.all
	done
	mv $T/verdicts.all $T/verdicts
	failed=""
	while read -r v _ text; do
		case $v in
		OK) point OK "$text" ;;
		SKIP) point SKIP "${text%% # SKIP *}" "${text#* # SKIP }" ;;
		*) point FAIL "${text%% # *}" "${text#* # }"; failed=1 ;;
		esac
	done <$T/verdicts
	[ -n "$failed" ] && cat $T/diag
	rm -f $T/log $T/diag
}

# selftest DIR MOUNT: the check can fail, and blames the right stressor.
# readahead --verify reads back a file it wrote; run as a group beside
# rename (whose files hold no data to check) with those files overwritten
# behind their backs, readahead must fail with a line of its own and
# rename must pass.
selftest() {
	# At least 8 s: on the debug kernel the file takes seconds to write.
	echo "$((secs < 8 ? 8 : secs)) readahead --readahead 1 --readahead-bytes 8M" >$T/group
	echo "$((secs < 8 ? 8 : secs)) rename --rename 1" >>$T/group
	was=$corrupt corrupt=1
	judge_group "$2" "$1"
	corrupt=$was
	ra=$(grep '^FAIL readahead ' $T/verdicts)
	desc="self-test: readahead --verify on $2 reports data corrupted behind its back, rename beside it passes"
	if [ -n "$ra" ] && [ -z "$orphans" ] && grep -q '^OK rename ' $T/verdicts; then
		point OK "$desc (${ra##* # })"
	else
		point FAIL "$desc" "verdicts: $(tr '\n' ';' <$T/verdicts)"
		diag
	fi
	rm -f $T/log
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
	pages0=$(vmstat nr_file_pages) huge0=$(vmstat nr_file_hugepages)
	rm -f $T/stop-sampler $T/peak
	sampler &
	sampler=$!
	if [ $m = knob ]; then
		rm -f $T/stop $T/flips
		# A flip is a write the kernel took that changed the policy.
		(prev=$old_knob; while [ ! -e $T/stop ]; do
			for w in always never within_size advise deny force; do
				[ -e $T/stop ] && break
				[ "$w" = "$prev" ] && continue
				echo $w >$KNOB && prev=$w && echo $w >>$T/flips
				usleep 300000
			done
		done) &
		flipper=$!
	fi
	groups >$T/groups
	for g in $(cut -d' ' -f1 $T/groups | sort -un); do
		awk -v g="$g" '$1 == g { sub(/^[0-9]+ /, ""); print }' $T/groups >$T/group
		run_group "$mname" "$dir"
	done
	[ $m = huge ] && selftest "$dir" "$mname"
	flips=$(cat $T/flips 2>/dev/null | wc -l)
	stop_flipper
	stop_sampler
	peak=$(cat $T/peak 2>/dev/null || echo "$huge0")
	if injected leak; then
		dd if=/dev/zero of="$dir/leak" bs=1M count=4 2>/dev/null
		sleep 3600 <"$dir/leak" &
		leaker="$leaker $!"
		# Unlinked before the child opened it, it would leak nothing.
		k=0
		while [ "$(readlink /proc/$!/fd/0)" != "$dir/leak" ] && [ $k -lt 50 ]; do
			usleep 100000
			k=$((k + 1))
		done
	fi
	rm -rf "${dir:?}"/* 2>/dev/null
	refresh
	pages1=$(vmstat nr_file_pages) huge1=$(vmstat nr_file_hugepages)
	dpages=$((pages1 - pages0))
	desc="accounting on $mname: nr_file_pages $pages0 -> $pages1, nr_file_hugepages $huge0 -> $huge1, at most $peak while the stressors ran"
	[ $m = knob ] && desc="$desc, policy flipped $flips times"
	left=$(ls -A "$dir" | head -n 3 | tr '\n' ' ')
	if [ -n "$left" ]; then
		point FAIL "$desc" "files left on the mount: $left"
	elif [ $dpages -gt $SLACK ] || [ $dpages -lt -$SLACK ] || [ "$huge1" != "$huge0" ]; then
		point FAIL "$desc" "leak: the stressors' files are gone, their pages are not"
	elif [ $m = huge ] && [ "$peak" -le "$huge0" ]; then
		point FAIL "$desc" "no PMD-sized folio was seen: the run tested nothing huge"
	elif [ $m = 4k ] && [ "$peak" != "$huge0" ]; then
		point FAIL "$desc" "PMD-sized folios on a huge=never mount"
	elif [ $m = knob ] && [ "$flips" = 0 ]; then
		point FAIL "$desc" "the policy never flipped"
	else
		point OK "$desc"
	fi
	[ $m = huge ] && umount $HUGE
done
cleanup
exit $bad
