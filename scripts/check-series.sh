#!/usr/bin/env bash
# make check-series: every patch of thp-series/ must pass checkpatch --strict
# (remaining warnings are justified in its commit message: they are listed
# here so a reviewer can check) and the kernel must build after each one.
# Runs in a worktree of its own ($CACHE/linux-bisect) and O=$BUILD/bisect.
. "$(dirname "$0")/common.sh"

wt=$CACHE/linux-bisect
obj=$BUILD/bisect
[ -d "$wt" ] || git -C "$SRC" worktree add -q --detach "$wt" base
cd "$wt"
git am --abort >/dev/null 2>&1 || true
git checkout -q --detach base
git reset -q --hard base
mkdir -p "$obj"
kmake() { make -s -C "$wt" O="$obj" ARCH=x86_64 CC="ccache gcc" "$@"; }
kmake tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
	"$CONFIG_DIR/base.config" "$CONFIG_DIR/series.config" >/dev/null
kmake olddefconfig >/dev/null

fail=0
for p in $(series_patches); do
	git am -q "$SERIES_DIR/$p" || { git am --abort; die "patch $p does not apply"; }
	report=$(scripts/checkpatch.pl --strict -q "$SERIES_DIR/$p" 2>/dev/null | grep -E '^(ERROR|WARNING|CHECK)' || true)
	if echo "$report" | grep -q '^ERROR'; then
		echo "not ok checkpatch $p"; echo "$report" | sed 's/^/#   /'; fail=1
	else
		echo "ok checkpatch $p${report:+ # justified in the commit message: $(echo "$report" | tr '\n' ' ')}"
	fi
	kmake olddefconfig >/dev/null
	if kmake -j"$(( $(nproc) + 1 ))" bzImage >/tmp/check-series.$$ 2>&1 && \
	   ! grep -q 'warning:' /tmp/check-series.$$; then
		echo "ok builds after $p"
	else
		echo "not ok builds after $p"; grep -E 'error|warning' /tmp/check-series.$$ | head -5 | sed 's/^/#   /'
		fail=1
	fi
done
rm -f /tmp/check-series.$$
exit $fail
