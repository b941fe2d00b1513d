#!/usr/bin/env bash
# make bench-untar: the real-world case.  A tar of part of the kernel tree
# (many small files and a few large ones, about 100 MiB) is made here from
# the extracted tree, added to the initramfs as an overlay, and unpacked
# and read back in the patched guest by guest/untar.sh; analysis/untar.py
# writes the table.  usage: untar.sh [VARIANT]   results in $OUT/untar
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
shift || true
dir=$OUT/untar
mkdir -p "$dir"
# The sources: whole directories, and the largest header of the tree.
paths=(mm fs kernel lib block drivers/gpu/drm/amd/include/asic_reg/dcn/dcn_3_2_0_sh_mask.h)
tarball=$dir/overlay/data/src.tar
overlay=$dir/overlay.cpio
# The tar is of the working tree: edits count.
key="$(git -C "$SRC" rev-parse HEAD) $(git -C "$SRC" diff HEAD -- "${paths[@]}" | sha256sum | cut -c1-16) ${paths[*]}"
if [ ! -f "$overlay" ] || [ "$(cat "$dir/overlay.key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$dir/overlay" "$overlay"
	mkdir -p "$(dirname "$tarball")"
	# Tracked files only, in a fixed order, with fixed owners and times.
	git -C "$SRC" ls-files -z -- "${paths[@]}" |
		tar -C "$SRC" --null -T - --sort=name --owner=0 --group=0 --numeric-owner \
			--mtime=@0 -cf "$tarball"
	# Not ".": its owner and mode would become those of the guest's /.
	(cd "$dir/overlay" && find . -mindepth 1 -print0 | cpio --null -o -H newc --quiet) >"$overlay.tmp"
	mv "$overlay.tmp" "$overlay"
	echo "$key" >"$dir/overlay.key"
fi
note "untar: $(stat -c %s "$tarball") bytes, $(tar -tf "$tarball" | wc -l) files"

image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "$variant")}
write_meta "$dir" untar "$image"
rc=0
THP_OVERLAY=$overlay "$TOP/scripts/guest.sh" "$image" "$dir" bench "${THP_BENCH_TIMEOUT_S:-3600}" -- \
	thp.suite=untar "$@" || rc=$?
splats=$(splat_lines "$dir/console.log")
[ -z "$splats" ] || { echo "$splats" | head -n 5 | sed 's/^/splat: /' >&2; die "untar: the kernel log has a splat"; }
[ "$rc" = 0 ] || die "untar: the guest failed (exit $rc, $dir/console.log)"
rc=0
"$PY" "$TOP/analysis/untar.py" "$dir/results.jsonl" --out "$dir/report.md" || rc=$?
cat "$dir/report.md"
exit "$rc"
