# Guest-side helpers for run-test.sh, workloads.sh and run-bench.sh (busybox
# sh).  The guest judges nothing: it forwards what each program printed and
# how it ended, and the host (scripts/verdict.py) reads TAP and decides.

# The per-program time limit, forwarded from the host (THP_TEST_TIMEOUT_S
# -> thp.timeout= -> THP_TEST_TIMEOUT); 300 s when booted by hand.
THP_TEST_TIMEOUT=${THP_TEST_TIMEOUT:-300}
console=${THP_CONSOLE:-/dev/console}

# JSON string escape for one line.
jstr() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/[[:cntrl:]]/ /g'; }

# limited SECS [--group] CMD...: run CMD with a time limit, stdout and
# stderr as the caller's, stdin /dev/null.  With --group, CMD runs in its
# own session and process group, and the whole group (children, helpers
# left in the background) gets TERM at the limit, KILL 5 s later, and KILL
# again when CMD exits.  Sets lim_rc (exit status, 128+signal if killed)
# and lim_timeout (1 if the limit killed it, else 0).  SECS 0: no limit.
limited() {
	lim_secs=$1; shift
	lim_group=""
	[ "$1" = --group ] && { lim_group=1; shift; }
	lim_flag=/tmp/limited.$$.timeout
	rm -f $lim_flag
	if [ -n "$lim_group" ]; then
		# Not a group leader (no job control here): setsid does not fork,
		# so $! is CMD itself and its pid names the new process group.
		setsid "$@" </dev/null &
	else
		"$@" </dev/null &
	fi
	lim_pid=$!
	lim_target=$lim_pid
	[ -n "$lim_group" ] && lim_target=-$lim_pid
	lim_watch=""
	if [ "$lim_secs" -gt 0 ] 2>/dev/null; then
		(
			end=$(( $(date +%s) + lim_secs ))
			while [ "$(date +%s)" -lt $end ]; do
				kill -0 $lim_pid 2>/dev/null || exit 0
				sleep 1
			done
			: >$lim_flag
			kill -TERM -- $lim_target 2>/dev/null
			sleep 5
			kill -KILL -- $lim_target 2>/dev/null
		) >/dev/null 2>&1 &
		lim_watch=$!
	fi
	wait $lim_pid
	lim_rc=$?
	[ -n "$lim_watch" ] && { kill $lim_watch 2>/dev/null; wait $lim_watch 2>/dev/null; }
	# Nothing of CMD's may outlive it into the next test.
	[ -n "$lim_group" ] && kill -KILL -- -$lim_pid 2>/dev/null
	lim_timeout=0
	[ -e $lim_flag ] && lim_timeout=1
	rm -f $lim_flag
	return 0
}

# run_one SUITE CMD...: run one test program in its own process group under
# the time limit (THP_SUITE_LIMIT if set, else THP_TEST_TIMEOUT); echo its
# output to the console and forward every line of it (stdout and stderr)
# as {"type":"out","suite":S,"line":...}, then one
# {"type":"exit","suite":S,"rc":N,"timeout":0|1,"secs":N,"limit":N,
# "taint0":N,"taint1":N}.
run_one() {
	suite=$1; shift
	echo "== $suite: $*" >"$console"
	fifo=/tmp/run_one.$$.fifo
	rm -f $fifo
	mkfifo $fifo
	# One process: the w command copies the raw line to the console before
	# it is escaped, behind "| " so that the host's splat scan tells it from
	# the kernel's lines.  sed's stdout is the results port (a tty: line
	# buffered).
	sed -e 's/^/| /' -e "w $console" -e 's/^| //' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/[[:cntrl:]]/ /g' \
		-e "s/^/{\"type\":\"out\",\"suite\":\"$suite\",\"line\":\"/" -e 's/$/"}/' <$fifo &
	reader=$!
	t0=$(date +%s)
	# The taint flags before and after, as LTP reads them: a WARN (flag W)
	# is charged to the program that caused it.
	taint0=$(cat /proc/sys/kernel/tainted 2>/dev/null || echo null)
	limit=${THP_SUITE_LIMIT:-$THP_TEST_TIMEOUT}
	limited "$limit" --group "$@" >$fifo 2>&1
	taint1=$(cat /proc/sys/kernel/tainted 2>/dev/null || echo null)
	secs=$(( $(date +%s) - t0 ))
	# The group is gone, so the fifo's writers are; bound the wait anyway.
	( sleep 10; kill $reader 2>/dev/null ) >/dev/null 2>&1 &
	k=$!
	wait $reader
	kill $k 2>/dev/null
	rm -f $fifo
	echo "{\"type\":\"exit\",\"suite\":\"$suite\",\"rc\":$lim_rc,\"timeout\":$lim_timeout,\"secs\":$secs,\"limit\":$limit,\"taint0\":$taint0,\"taint1\":$taint1}"
}

# settle: give the next test or case the free memory a fresh boot would.
# Huge folios are allocated without direct compaction (defrag=madvise, the
# default) and tmpfs's only on the local node, so once hundreds of tests
# have left free memory in scattered pages such an allocation can fail
# where a fresh boot's would not, and a check that wants a PMD-sized folio
# would fail by the order the tests ran in.  Freed slab first (dentries and
# inodes of deleted files hold pages), then every zone compacted.  Pages
# waiting in a CPU's free lists of its own node's zones are out of its
# reach (see defrag in tests.list).
settle() {
	sync
	echo 2 >/proc/sys/vm/drop_caches 2>/dev/null
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	return 0
}

# case_list LIST: the cases of LIST (a column of guest/cases.txt: test, run,
# bench, icount), one a line, in that column's order.  Prints nothing for
# an unknown column or a missing file: the caller fails on no cases.
THP_CASES=${THP_CASES:-/guest/cases.txt}
case_list() {
	awk -F'|' -v col="$1" '
		/^#/ || !NF || NF == 1 { next }
		{ for (i = 1; i <= NF; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i) }
		!c { for (i = 1; i <= NF; i++) if ($i == col) c = i; if (!c) exit; next }
		$c != "-" { print $c "|" $1 }' "$THP_CASES" 2>/dev/null | sort -n | cut -d'|' -f2
}

# case_setting NAME: the value of guest/cases.txt's "NAME: value" line.
case_setting() {
	sed -n "s/^$1:[[:space:]]*//p" "$THP_CASES" 2>/dev/null | head -n 1
}

# The global page_cache policy file, and the policy the boot left in it
# ("" on a kernel without it).
knob=/sys/kernel/mm/transparent_hugepage/page_cache
boot_policy=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $knob 2>/dev/null)

# set_policy P: write P to the page_cache file.  A kernel with the file
# must take it (non-zero if not), or a run would be judged by a policy not
# in force; on a kernel without it (stock) it does nothing, and a record's
# "knob":"n/a" says so.  "" does nothing either.
set_policy() {
	[ -n "$1" ] && [ -e $knob ] || return 0
	echo "$1" >$knob && return 0
	echo "cannot set $knob to $1" >&2
	return 1
}

# arg NAME: the value of the last NAME=value on the kernel command line, or
# nothing.  The one /proc/cmdline parser: init and every script source it.
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }

# load N: N operations (or seconds, or MiB) scaled by the boot's load,
# thp.load= in percent, 100 when unset, never below 1.  make test boots the
# debug kernel at 15%: the same checks with fewer operations, since
# each costs it several times what it costs the patched kernel.
load() {
	case "${THP_LOAD:=$(arg thp.load)}" in
	'') THP_LOAD=100 ;;
	*[!0-9]*|0*) echo "load: thp.load=$THP_LOAD: not a percentage above 0" >&2; return 1 ;;
	esac
	echo $(( ($1 * THP_LOAD + 99) / 100 ))
}
