#!/usr/bin/env bash
# v4-smoke.sh: the staged v4 series (thp-series/v4) on Debian's
# linux-source-6.12, before the harness moves to it (issue 32).  Applies
# the patch files to a fresh 6.12 tree (tree.sh), builds stock and patched
# 6.12 (kernel.sh with v4's config fragments), builds the series' ramfs_thp
# selftests from the patched tree, boots each kernel with them in a
# busybox initramfs and saves the console logs and TAP in out/v4-smoke/.
# Also boots v3 on 6.1 (the harness's own patched kernel, which these
# checks are meant to fail) when its tree is there.  Exits non-zero if the
# patched 6.12 kernel fails a selftest or prints a splat.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export THP_CACHE=${THP_CACHE_612:-$HOME/.cache/thp-pagecache-612}
export THP_SERIES_DIR=$top/thp-series/v4
. "$top/scripts/common.sh"
dir=$OUT/v4-smoke
mkdir -p "$CACHE" "$dir"

# Debian's 6.12 source package, unpacked beside the tree (never into
# /usr/src, where source_tarball() would hand it to the 6.1 harness).
tarball=$CACHE/linux-source-6.12.tar.xz
if [ ! -f "$tarball" ]; then
	(cd "$CACHE" && apt-get download -q linux-source-6.12)
	deb=$(ls "$CACHE"/linux-source-6.12_*.deb | sort -V | tail -n 1)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/linux-source-6.12.tar.xz' >"$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
fi
THP_SOURCE_TARBALL=$tarball "$top/scripts/tree.sh"
stock=$("$top/scripts/kernel.sh" stock)
patched=$("$top/scripts/kernel.sh" patched)
kernels="stock patched"
v3=
if [ -d "$HOME/.cache/thp-pagecache/linux/.git" ]; then
	v3=$(env -u THP_CACHE -u THP_SERIES_DIR "$top/scripts/kernel.sh" patched)
	kernels+=" v3"
fi

# The selftests: static, so the initramfs needs no libraries.
sel=$SRC/tools/testing/selftests/mm
bins=$dir/bin
rm -rf "$bins" && mkdir -p "$bins"
for c in "$sel"/ramfs_thp_*.c; do
	case $c in *_util.c) continue ;; esac
	gcc -O2 -Wall -Werror -static -I "$sel/.." -o "$bins/$(basename "$c" .c)" \
		"$c" "$sel/ramfs_thp_util.c"
done

root=$(mktemp -d)
mkdir -p "$root"/{bin,proc,sys,dev,tmp,t}
cp /bin/busybox "$root/bin/"
cp "$bins"/* "$root/t/"
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t cgroup2 none /sys/fs/cgroup; mount -t tmpfs tmpfs /tmp
echo "=== kernel $(uname -r)"
for t in /t/*; do echo "=== run ${t#/t/}"; $t; echo "=== exit ${t#/t/} $?"; done
echo "=== done"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$dir/initramfs.cpio"
rm -rf "$root"

boot() {
	timeout 900 qemu-system-x86_64 -accel tcg,thread=multi -smp 2 -m 3072 \
		-nodefaults -no-reboot -display none -kernel "$1" \
		-initrd "$dir/initramfs.cpio" -serial "file:$2" \
		-append "console=ttyS0 panic=-1 oops=panic" </dev/null || true
	tr -d '\r' <"$2" >"$2.tmp" && mv "$2.tmp" "$2"
}
boot "$stock" "$dir/stock.log"
boot "$patched" "$dir/patched.log"
[ -z "$v3" ] || boot "$v3" "$dir/v3.log"

rc=0
for k in $kernels; do
	log=$dir/$k.log
	grep -q '^=== done' "$log" || { echo "$k: the guest did not finish"; rc=1; }
	echo "$k: $(grep -c '^ok ' "$log") ok, $(grep -c '^not ok ' "$log") not ok"
	grep '^not ok ' "$log" | sed "s/^/  $k: /" || true
done
splats=$(splat_lines "$dir/patched.log")
[ -z "$splats" ] || { echo "patched: kernel splat:"; echo "$splats"; rc=1; }
! grep -q '^not ok ' "$dir/patched.log" || rc=1
# A test that bailed out (ksft_exit_fail_msg) prints no "not ok" line;
# its exit status says so.  4 is kselftest's skip.
bad=$(sed -n 's/^=== exit \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$dir/patched.log" |
	awk '$2 != 0 && $2 != 4')
[ -z "$bad" ] || { echo "patched: tests that exited with an error: $bad"; rc=1; }
exit "$rc"
