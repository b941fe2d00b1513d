#!/usr/bin/env bash
# old-kernels.sh: the series' ramfs_thp selftests, built from the patched
# tree, on the kernels they are meant to fail: stock 6.12 (the 2 MiB
# readahead per read fault into a hole of a MADV_HUGEPAGE mapping) and v3
# on 6.1 (tag v3-6.1, its image built by that tag's own harness from its
# cache, V3_CACHE, default ~/.cache/thp-pagecache-6.1).  One boot each
# through test.sh, results in $OUT/test-stock and $OUT/test-v3, and a
# summary of the "not ok" lines in $OUT/old-kernels.txt.  Not part of make
# test: a failure there is the expected outcome.
. "$(dirname "$0")/common.sh"

tests="ramfs_thp_faults ramfs_thp_holes ramfs_thp_policy ramfs_thp_stress"
v3cache=${V3_CACHE:-$HOME/.cache/thp-pagecache-6.1}
[ -d "$v3cache/linux/.git" ] || die "no v3 tree in $v3cache: make tree CACHE=$v3cache in a worktree of v3-6.1"
wt=$(mktemp -d)
trap 'git -C "$TOP" worktree remove --force "$wt" 2>/dev/null; rm -rf "$wt"' EXIT
# A clone may lack the tag: the commit it names (README.md).
git -C "$TOP" worktree add -q --detach "$wt" "$(git -C "$TOP" rev-parse -q --verify v3-6.1 || echo 077d8fd)"
v3=$(THP_CACHE=$v3cache "$wt/scripts/kernel.sh" patched)

sum=$OUT/old-kernels.txt
: >"$sum"
for k in stock v3; do
	img=""
	[ "$k" = v3 ] && img=$v3
	THP_IMAGE=$img THP_TESTS=$tests THP_REQUIRE=0 "$TOP/scripts/test.sh" "$k" >"$OUT/old-kernels-$k.log" 2>&1 || true
	{ echo "== $k: $(tail -n 1 "$OUT/old-kernels-$k.log")"
	  grep -h '^not ok' "$OUT/old-kernels-$k.log" || true; } >>"$sum"
done
cat "$sum"
