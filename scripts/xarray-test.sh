#!/usr/bin/env bash
# The kernel's own XArray test suite (tools/testing/radix-tree: lib/xarray.c
# and lib/test_xarray.c built for user space, with ASan and UBSan), run on
# a kernel tree: the xas_*() walks and multi-index entries that ramfs's
# large folios and its hole search rely on.  Prints TAP; a make test host
# suite (scripts/host-suites.sh).
# usage: xarray-test.sh TREE
# The tree is not written to: the test directory is copied to a temporary
# one whose lib/, include/ and tools/ links point into TREE.
set -u
tree=${1:?usage: xarray-test.sh TREE}

skip() { echo "1..0 # SKIP $*"; exit 4; }
[ -f "$tree/tools/testing/radix-tree/Makefile" ] || skip "no tools/testing/radix-tree in $tree"
# liburcu: the test harness's RCU (Debian's liburcu-dev, from make deps).
echo 'int main(void){return 0;}' | gcc -x c - -lurcu -o /dev/null 2>/dev/null ||
	skip "liburcu is not installed (make deps installs liburcu-dev)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tools/testing"
cp -r "$tree/tools/testing/radix-tree" "$tree/tools/testing/shared" "$tmp/tools/testing/"
for d in lib include tools/include tools/lib; do
	ln -s "$tree/$d" "$tmp/$d"
done
t=$tmp/tools/testing/radix-tree
# Programs and objects a build in the tree left would look newer than
# lib/xarray.c: build from the sources alone.
make -s -C "$t" clean >/dev/null 2>&1
# UBSan only prints by default: make its first finding fail the program.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

echo "1..2"
if ! make -s -C "$t" xarray multiorder >"$tmp/build.log" 2>&1; then
	sed 's/^/# /' "$tmp/build.log" | tail -20
	echo "not ok 1 xarray: the test suite does not build"
	echo "not ok 2 multiorder: the test suite does not build"
	exit 1
fi

fail=0
out=$(cd "$t" && ./xarray 2>&1)
rc=$?
line=$(grep -m1 '^XArray: [0-9]\+ of [0-9]\+ tests passed' <<<"$out")
read -r _ passed _ total _ <<<"$line"
# A leak still reachable at the end is printed, not an exit status.
if [ "$rc" = 0 ] && [ -n "$line" ] && [ "$passed" = "$total" ] && [ "$total" -gt 0 ] &&
	! grep -q -e '^nr_allocated = ' -e 'runtime error:' <<<"$out"; then
	echo "ok 1 xarray: $line"
else
	sed 's/^/# /' <<<"$out" | tail -20
	echo "not ok 1 xarray: exit $rc${line:+, $line}"
	fail=1
fi

out=$(cd "$t" && ./multiorder 2>&1)
rc=$?
if [ "$rc" = 0 ] && ! grep -q -e '^nr_allocated = ' -e 'runtime error:' <<<"$out"; then
	echo "ok 2 multiorder: multi-index entries, iteration and tags"
else
	sed 's/^/# /' <<<"$out" | tail -20
	echo "not ok 2 multiorder: exit $rc"
	fail=1
fi
exit "$fail"
