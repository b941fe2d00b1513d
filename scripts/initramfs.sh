#!/usr/bin/env bash
# make initramfs: busybox, our static programs ($OUT/bin), guest/ scripts,
# fio, numactl, perf, stress-ng and bash (run_vmtests.sh) with the shared
# libraries ldd names.
# Uncompressed: TCG decompresses slowly and QEMU loads the file directly.
. "$(dirname "$0")/common.sh"

img=$OUT/initramfs.cpio
root=$OUT/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,usr/bin,proc,sys,dev,tmp,mnt,guest,etc}
cp /bin/busybox "$root/bin/busybox"
cp -r "$TOP/guest/." "$root/guest/"
mv "$root/guest/init" "$root/init"
# Programs only: the objects beside them stay out of the image.
[ -d "$OUT/bin" ] && find "$OUT/bin" -maxdepth 1 -type f ! -name '*.o' -exec cp {} "$root/bin/" \;
# The tree's mm selftests where run_vmtests.sh expects them, beside it.
[ -d "$OUT/bin/selftests-mm" ] && mkdir -p "$root/selftests" && cp -r "$OUT/bin/selftests-mm" "$root/selftests/mm"

# bash where scripts look for it (/bin/bash), the others in /usr/bin.
for prog in /usr/bin/fio /usr/bin/numactl /usr/bin/perf /usr/bin/stress-ng /bin/bash; do
	[ -x "$prog" ] || die "$prog missing: run 'make deps'"
	case $prog in /bin/*) cp "$prog" "$root/bin/" ;; *) cp "$prog" "$root/usr/bin/" ;; esac
	ldd "$prog" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
# glibc looks for the loader here.
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || die "dynamic loader not copied"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$img.tmp"
mv "$img.tmp" "$img"
note "initramfs: $(du -h "$img" | cut -f1)"
