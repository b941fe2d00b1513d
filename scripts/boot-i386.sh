#!/usr/bin/env bash
# make boot-i386: boot the 32-bit HIGHMEM64G (PAE) kernel in qemu-system-i386
# (TCG, 2 GiB: over 1 GiB of it highmem, where the page cache's huge folios
# land) and run probe-verify there, built -m32 -static.  Debian's busybox is
# 64-bit, so the initramfs holds only sysfs-probes/i386/init.c as /init and
# the probe.  Prints the probe's TAP, host checks (highmem present, probe
# finished, no kernel splat) and "N passed, N failed"; non-zero on a failure.
# usage: boot-i386.sh [VARIANT]  (patched-i386, default, or stock-i386)
# THP_IMAGE=path boots that bzImage instead of building the variant.
. "$(dirname "$0")/common.sh"

variant=${1:-patched-i386}
timeout=${THP_TIMEOUT:-900}
image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "$variant")}
[ -f "$image" ] || die "no kernel $image"
dir=$OUT/boot-$variant
bin=$dir/bin
root=$dir/initramfs
mkdir -p "$bin"
rm -f "$dir/console.log"

# The probe's kselftest.h comes from the tree, as for the 64-bit probes.
make -s -C "$TOP/sysfs-probes" OUT="$bin" CC="gcc -m32" KSRC="$SRC" "$bin/probe-verify" ||
	die "32-bit probe-verify did not build (gcc-multilib missing? run 'make deps')"
gcc -m32 -static -O2 -Wall -Wextra -Werror -o "$bin/init" "$TOP/sysfs-probes/i386/init.c"
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$bin/init" "$root/init"
cp "$bin/probe-verify" "$root/bin/"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$dir/initramfs.cpio"

note "booting $variant ($(basename "$image")) in qemu-system-i386"
t0=$(date +%s)
rc=0
timeout --kill-after=10 "$timeout" qemu-system-i386 -accel tcg,thread=multi -cpu max \
	-smp 2 -m 2048M -nodefaults -no-reboot -display none \
	-kernel "$image" -initrd "$dir/initramfs.cpio" -serial "file:$dir/console.log" \
	-append "console=ttyS0 panic=-1 oops=panic rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30" </dev/null || rc=$?
note "guest i386: $(( $(date +%s) - t0 ))s"
tr -d '\r' <"$dir/console.log" >"$dir/console.txt"

pass=0 failn=0
check() { # check OK DESCRIPTION
	if [ "$1" = 1 ]; then pass=$((pass + 1)); echo "ok $2"; else failn=$((failn + 1)); echo "not ok $2"; fi
}
grep -E '^i386-init: ' "$dir/console.txt" | sed 's/^/# /'
# The probe's own lines: "ok N verify: ..." / "not ok N ...".
while IFS= read -r line; do
	case "$line" in
	"not ok "*) check 0 "${line#not ok [0-9]* }" ;;
	"ok "*) check 1 "${line#ok [0-9]* }" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$dir/console.txt")
high=$(sed -n 's/^i386-init: \/proc\/meminfo: HighTotal: *\([0-9]*\) kB/\1/p' "$dir/console.txt")
check "$([ "${high:-0}" -gt 0 ] && echo 1)" "host: the guest has highmem (HighTotal ${high:-?} kB)"
why="qemu status $rc"
[ "$rc" = 124 ] && why="timeout after ${timeout}s: hang?"
check "$([ "$rc" = 0 ] && grep -qx 'i386-init: probe-verify exit status 0' "$dir/console.txt" && echo 1)" \
	"host: probe-verify finished with status 0 ($why)"
splats=$(splat_lines "$dir/console.txt")
check "$([ -z "$splats" ] && echo 1)" "host: kernel log has no splat"
[ -z "$splats" ] || echo "$splats" | head -n 5 | sed 's/^/# splat: /'
echo "# console: $dir/console.txt"
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
