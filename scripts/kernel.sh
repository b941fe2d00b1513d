#!/usr/bin/env bash
# make kernel: tinyconfig + thp-series/config fragments, checked, built with
# ccache out of tree.  Usage: kernel.sh VARIANT   (stock|patched)[-debug]
# Prints the path of the bzImage; images are keyed by source tree and config,
# so switching variants or going back to an old series does not rebuild.
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
case "$variant" in
stock|stock-debug) src=$STOCK ;;
patched|patched-debug|patched-off) src=$SRC ;;
*) die "unknown kernel variant '$variant' (stock, patched, stock-debug, patched-debug, patched-off)" ;;
esac
[ -d "$src" ] || die "$src missing: run 'make tree'"

frags=("$CONFIG_DIR/base.config")
case "$variant" in
patched-off) frags+=("$CONFIG_DIR/off.config") ;;
patched*) frags+=("$CONFIG_DIR/series.config") ;;
esac
case "$variant" in *-debug) frags+=("$CONFIG_DIR/debug.config") ;; esac

treeid=$(git -C "$src" rev-parse 'HEAD^{tree}')
key=$( (echo "$variant $treeid"; cat "${frags[@]}") | sha256sum | cut -c1-10)
image=$IMAGES/$variant-$key.bzImage
if [ -f "$image" ] && [ -f "$IMAGES/$variant-$key.release" ]; then
	echo "$image"
	exit 0
fi

obj=$BUILD/$variant
mkdir -p "$obj" "$IMAGES" "$CCACHE_DIR"
kmake() { make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" "$@"; }

note "configuring $variant ($key)"
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null
# The booted kernel names what it was built from: the host checks uname -r.
"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION "-$variant-$key" \
	--disable LOCALVERSION_AUTO
kmake olddefconfig >/dev/null

# Every option the fragments ask for must hold in the final .config.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*}
		grep -qxF "$line" "$obj/.config" || {
			echo "config: $line requested, got: $(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || echo "$opt absent")" >&2
			bad=1; }
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -qE "^$opt=[ym]" "$obj/.config"; then
			echo "config: $line requested, got: $(grep -E "^$opt=" "$obj/.config")" >&2
			bad=1
		fi
		;;
	esac
done < <(cat "${frags[@]}")
[ "$bad" = 0 ] || die "config options did not hold after olddefconfig (see above)"

note "building $variant with $(nproc) jobs"
kmake -j"$(( $(nproc) + 1 ))" bzImage
cp "$obj/arch/x86/boot/bzImage" "$image.tmp"
cp "$obj/.config" "$IMAGES/$variant-$key.config"
cp "$obj/include/config/kernel.release" "$IMAGES/$variant-$key.release"
mv "$image.tmp" "$image"
echo "$image"
