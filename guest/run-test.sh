#!/bin/sh
# Run the guest test list (or the names in $THP_TESTS) and print JSON lines:
# each program's output and exit status (lib.sh run_one).  The host builds
# the same list from tests.list and judges (scripts/verdict.py).
. /guest/lib.sh
# The host checks that this is the kernel it just built.
echo "{\"type\":\"uname\",\"release\":\"$(uname -r)\",\"version\":\"$(uname -v)\"}"
# A bad thp.load= would change what every scaled suite runs: abort.
load 1 >/dev/null || exit 1
list=/tmp/tests.list
grep -v -e '^#' -e '^[[:space:]]*$' /guest/tests.list >$list
n=$(wc -l <$list)
i=0
# Not a pipe: the loop runs in this shell, so if it dies the script's exit
# status says so and init writes no end marker.
while read -r name cmd; do
	i=$((i + 1))
	# "name@N": N times the per-program limit, for a suite of cases each
	# with a limit of its own; "name!" runs only when named in $THP_TESTS.
	mult=1
	case "$name" in *@*) mult=${name##*@} name=${name%@*} ;; esac
	case "$name" in *!) [ -z "$THP_TESTS" ] && continue; name=${name%!} ;; esac
	if [ -n "$THP_TESTS" ] && ! echo " $THP_TESTS " | grep -q " $name "; then
		continue
	fi
	echo "{\"type\":\"progress\",\"msg\":\"test $i/$n: $name\"}"
	THP_SUITE_LIMIT=$((THP_TEST_TIMEOUT * mult))
	# The command's $(load N) (lib.sh) expand here, so the console and the
	# results name what actually ran.  Commands are words and $(load N)
	# only: a ; & | or > would run outside run_one's limit and group, and
	# a syntax error ends the run (the host reports the abort).
	eval "set -- $cmd"
	run_one "$name" "$@"
	# Leave no state behind for the next test: a suite killed at its time
	# limit may have left its files and the global policy changed.
	rm -rf /mnt/ramfs/* /mnt/ramfs-4k/* /mnt/tmpfs-huge/* /mnt/tmpfs/* 2>/dev/null
	set_policy "$boot_policy" || true
	settle
done <$list
rm -f $list
echo "{\"type\":\"dmesg_lines\",\"n\":$(dmesg | wc -l)}"
exit 0
