#!/usr/bin/env bash
# make tree: extract the packaged kernel into the cache as a git repo with a
# pristine "base" tag, and (re)apply thp-series/series on branch "series"
# whenever a patch or the series file changed.
. "$(dirname "$0")/common.sh"

pkg=$(source_package)
tarball=$(source_tarball)
[ -n "$tarball" ] || die "$pkg is not installed: run 'make deps'"
# What the base is: the package and its version.  A tree extracted from
# another one (an older base) is replaced, unless it holds unexported work.
source="$pkg $(dpkg-query -W -f='${Version}' "$pkg")"
if [ -d "$SRC/.git" ] && [ "$(git -C "$SRC" config thp.source || true)" != "$source" ]; then
	[ "$(git -C "$SRC" rev-parse HEAD)" = "$(git -C "$SRC" config thp.head || true)" ] || [ -n "${FORCE:-}" ] ||
		die "$SRC was extracted from another source ($(git -C "$SRC" config thp.source || echo unknown)) and has commits not exported: 'make tree FORCE=1' replaces it"
	note "replacing the tree of $(git -C "$SRC" config thp.source || echo 'another source') with $source"
	rm -rf "$SRC" "$STOCK" "$BUILD"
fi

if [ ! -d "$SRC/.git" ]; then
	note "extracting $tarball"
	rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -C "$SRC.tmp" -xf "$tarball"
	top=$(ls "$SRC.tmp")
	rm -rf "$SRC" "$STOCK" && mv "$SRC.tmp/$top" "$SRC" && rmdir "$SRC.tmp"
	cd "$SRC"
	git init -q -b series
	git config user.name "thp-pagecache"
	git config user.email "thp-pagecache@localhost"
	git config am.keepcr false
	git config thp.source "$source"
	# Debian's .gitignore ignores everything at the top level ("/*"):
	# force-add the extracted tree as it is.
	git add -f -A
	v=$(make -s kernelversion)
	git commit -q -m "Linux $v from $source"
	git tag base
	note "pristine base: Linux $v"
fi
cd "$SRC"
[ -d "$STOCK" ] || git worktree add -q --detach "$STOCK" base

# What the series is: the series file plus every patch it names.
stamp=$(series_stamp)
applied=$(git config thp.applied || true)
if [ "$stamp" = "$applied" ] && [ "$(git rev-parse HEAD)" = "$(git config thp.head)" ]; then
	exit 0
fi

if [ -n "$(git status --porcelain --untracked-files=no)" ] && [ -z "${FORCE:-}" ]; then
	die "$SRC has uncommitted changes: commit them and run 'make export', or 'make tree FORCE=1' to drop them"
fi
if [ "$(git rev-parse HEAD)" != "$(git config thp.head || true)" ] && \
   [ "$(git rev-parse HEAD)" != "$(git rev-parse base)" ] && [ -z "${FORCE:-}" ]; then
	die "$SRC has commits not exported to thp-series/: run 'make export', or 'make tree FORCE=1' to drop them"
fi

note "applying thp-series on a fresh base"
git am --abort >/dev/null 2>&1 || true
git checkout -q -B series base
git reset -q --hard base
n=0
for p in $(series_patches); do
	if ! git am -q "$SERIES_DIR/$p" >/tmp/thp-am.$$ 2>&1; then
		cat /tmp/thp-am.$$ >&2; rm -f /tmp/thp-am.$$
		git am --abort >/dev/null 2>&1 || true
		git config thp.applied ""
		die "patch thp-series/$p does not apply"
	fi
	n=$((n + 1))
done
rm -f /tmp/thp-am.$$
git config thp.applied "$stamp"
git config thp.head "$(git rev-parse HEAD)"
note "applied $n patches"
