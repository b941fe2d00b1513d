#!/usr/bin/env bash
# thpmaps (the tree's tools/mm/thpmaps) in the guest: it needs python3 and
# numpy, which stay out of the test initramfs, in an overlay of their own.
# usage: thpmaps.sh overlay          build it if stale; print its path
#        thpmaps.sh run [VARIANT]    make thpmaps: boot VARIANT with it, run
#                                    guest/thpmaps.sh, keep $OUT/thpmaps
. "$(dirname "$0")/common.sh"

PYVER=$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
NUMPY=/usr/lib/python3/dist-packages/numpy
dir=$OUT/thpmaps
ov=$dir/overlay.cpio

overlay() {
	local root=$dir/overlay key
	[ -f "$SRC/tools/mm/thpmaps" ] || die "no $SRC/tools/mm/thpmaps: run 'make tree'"
	[ -d "$NUMPY" ] || die "no numpy at $NUMPY: run 'make deps'"
	key="$(sha256sum "$SRC/tools/mm/thpmaps" /usr/bin/python3 | cut -c1-16 | xargs) $PYVER"
	[ -f "$ov" ] && [ "$(cat "$dir/overlay.key" 2>/dev/null)" = "$key" ] && return 0
	rm -rf "$root"
	mkdir -p "$root/usr/bin" "$root/usr/lib/python3/dist-packages"
	cp -L /usr/bin/python3 "$root/usr/bin/python3"
	cp "$SRC/tools/mm/thpmaps" "$root/usr/bin/thpmaps"
	# The standard library without its tests and tools; numpy without its.
	rsync -a --exclude test --exclude tests --exclude idlelib --exclude tkinter \
		--exclude ensurepip --exclude lib2to3 --exclude 'config-*' \
		"/usr/lib/python$PYVER" "$root/usr/lib/"
	rsync -a --exclude tests "$NUMPY" "$root/usr/lib/python3/dist-packages/"
	# The shared libraries of the interpreter and of every extension.
	find "$root" -type f \( -name '*.so*' -o -path '*/bin/python3' \) -print0 |
		xargs -0 ldd 2>/dev/null | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }' | sort -u |
		while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	# Not ".": its owner and mode would become those of the guest's /.
	(cd "$root" && find . -mindepth 1 -print0 | cpio --null -o -H newc --quiet) >"$ov.tmp"
	mv "$ov.tmp" "$ov"
	echo "$key" >"$dir/overlay.key"
	note "thpmaps overlay: $(du -h "$ov" | cut -f1)"
}

mkdir -p "$dir"
case "${1:-}" in
overlay)
	overlay >&2
	echo "$ov"
	;;
run)
	overlay
	image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "${2:-patched}")}
	write_meta "$dir" thpmaps "$image"
	rc=0
	THP_OVERLAY=$ov "$TOP/scripts/guest.sh" "$image" "$dir" bench 1800 -- thp.suite=thpmaps || rc=$?
	# The script's output: what the results port carried, but its end marker.
	tr -d '\r' <"$dir/results.raw" 2>/dev/null | { grep -v '^{"type":' || true; } >"$dir/thpmaps.txt"
	cat "$dir/thpmaps.txt"
	[ "$rc" = 0 ] || die "thpmaps: the guest failed (exit $rc, $dir/console.log)"
	grep -q '^thpmaps: ok' "$dir/thpmaps.txt" || die "thpmaps: no result ($dir/thpmaps.txt)"
	;;
*) die "usage: thpmaps.sh overlay | run [VARIANT]" ;;
esac
