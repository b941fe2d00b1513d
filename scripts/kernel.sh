#!/usr/bin/env bash
# make kernel: tinyconfig + thp-series/config fragments, checked, built with
# ccache out of tree.  Usage: kernel.sh VARIANT   (stock|patched)[-debug],
# patched-off, or (stock|patched)-i386: 32-bit, i386 tinyconfig + i386.config.
# Prints the path of the bzImage; images are keyed by source tree and config,
# so switching variants or going back to an old series does not rebuild.
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
case "$variant" in
stock|stock-debug|stock-i386) src=$STOCK ;;
patched|patched-debug|patched-off|patched-i386) src=$SRC ;;
*) die "unknown kernel variant '$variant' (stock, patched, stock-debug, patched-debug, patched-off, stock-i386, patched-i386)" ;;
esac
[ -d "$src" ] || die "$src missing: run 'make tree'"

arch=x86_64
frags=("$CONFIG_DIR/base.config")
case "$variant" in *-i386) arch=i386; frags=("$CONFIG_DIR/i386.config") ;; esac
case "$variant" in
patched-off) frags+=("$CONFIG_DIR/off.config") ;;
patched*) frags+=("$CONFIG_DIR/series.config") ;;
esac
case "$variant" in *-debug) frags+=("$CONFIG_DIR/debug.config") ;; esac

treeid=$(git -C "$src" rev-parse 'HEAD^{tree}')
# Uncommitted edits (eofzero-inject.sh's) are part of what is built: an
# image of an edited tree never stands in for the committed one.
key=$( (echo "$variant $treeid"; cat "${frags[@]}"; git -C "$src" diff HEAD) | sha256sum | cut -c1-10)
image=$IMAGES/$variant-$key.bzImage
if [ -f "$image" ] && [ -f "$IMAGES/$variant-$key.release" ]; then
	echo "$image"
	exit 0
fi

obj=$BUILD/$variant
mkdir -p "$obj" "$IMAGES" "$CCACHE_DIR"
# One build at a time in an object directory (make test builds the next
# kernel beside a guest); the one that waited may find the image made.
exec 9>"$obj.lock"
flock 9
if [ -f "$image" ] && [ -f "$IMAGES/$variant-$key.release" ]; then
	echo "$image"
	exit 0
fi
kmake() { make -s -C "$src" O="$obj" ARCH="$arch" CC="ccache gcc" "$@"; }

note "configuring $variant ($key)"
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null
# The booted kernel names what it was built from: the host checks uname -r.
"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION "-$variant-$key" \
	--disable LOCALVERSION_AUTO
kmake olddefconfig >/dev/null

# Every option the fragments ask for must hold in the final .config.
config_verify "$obj/.config" "${frags[@]}" ||
	die "config options did not hold after olddefconfig (see above)"

note "building $variant with $(nproc) jobs"
kmake -j"$(( $(nproc) + 1 ))" bzImage
cp "$obj/arch/x86/boot/bzImage" "$image.tmp"
cp "$obj/.config" "$IMAGES/$variant-$key.config"
cp "$obj/include/config/kernel.release" "$IMAGES/$variant-$key.release"
# make bench WHAT=insns names the functions of an instruction count with it.
cp "$obj/System.map" "$IMAGES/$variant-$key.map"
mv "$image.tmp" "$image"
echo "$image"
