#!/usr/bin/env bash
# make bench WHAT=insns: where a workload's instructions go, by kernel function.
# Boots the kernel under -icount with the insncount TCG plugin
# (analysis/insncount.c), runs the workload there without perf, and prints
# instructions per call of a system call by function, the first mount
# against the last (analysis/insns.py).  Each mount boots twice, with the
# workload's N passes and with 2N: the counts of the first are subtracted
# from those of the second, so that the boot and the workload's one-off
# preparation (a read first writes its file) cancel and N further passes
# are measured.  What a pass does before its timed part stays in: nothing
# much for read, a truncation of the old file for write.
# usage: insns.sh VARIANT; THP_INSNS_WL (a workload of workloads/, without
# wl-, with --passes N once), THP_INSNS_PER (the symbol counted as one
# call) and THP_INSNS_MOUNTS (names under /mnt, each optionally
# VARIANT:NAME to boot another kernel, e.g. "stock:ramfs ramfs-4k": what a
# mount costs against the stock kernel) choose what is measured.
# Results in $OUT/insns/.
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
wl=${THP_INSNS_WL:-read --pattern random --bs 4K --size 64M --passes 100}
per=${THP_INSNS_PER:-__x64_sys_pread64}
read -r -a mounts <<<"${THP_INSNS_MOUNTS:-ramfs ramfs-4k}"
[ "${#mounts[@]}" -ge 2 ] || die "THP_INSNS_MOUNTS: name two mounts or more"
# The harness takes up to 1000000 passes: 2N must be one it takes.
passes=$(sed -n 's/^\(.* \)\{0,1\}--passes \([1-9][0-9]\{0,5\}\)\( .*\)\{0,1\}$/\2/p' <<<"$wl")
[ -n "$passes" ] && [ "$(grep -o -e '--passes' <<<"$wl" | wc -l)" = 1 ] &&
	[ "$((2 * passes))" -le 1000000 ] ||
	die "THP_INSNS_WL: give --passes N once, N from 1 to 500000 (N and 2N passes are counted)"
wl2=${wl/--passes $passes/--passes $((2 * passes))}
# image_of VARIANT: its image, whose System.map is beside it.
image_of() {
	local image
	if [ "$1" = "$variant" ] && [ -n "${THP_IMAGE:-}" ]; then
		image=$THP_IMAGE
	else
		image=$("$TOP/scripts/kernel.sh" "$1") || die "no $1 kernel"
	fi
	[ -f "${image%.bzImage}.map" ] ||
		die "no ${image%.bzImage}.map: an image built before kernel.sh kept System.map; rebuild it"
	echo "$image"
}
image=$(image_of "$variant")
map=${image%.bzImage}.map

# Every mount's kernel and name first, so that a bad spec or a missing
# image fails before the first boot, and before $OUT/insns is touched.
names=() imgs=()
for spec in "${mounts[@]}"; do
	m=${spec#*:} v=$variant
	[ "$m" = "$spec" ] || v=${spec%%:*}
	[ -n "$m" ] && [ -n "$v" ] || die "THP_INSNS_MOUNTS: '$spec' is not NAME or VARIANT:NAME"
	# The initramfs is x86_64: no i386 kernel.
	case $v in
	stock | patched | stock-debug | patched-debug | patched-off) ;;
	*) die "kernel variant $v (from '$spec' or the make bench WHAT=insns variant) cannot run make bench WHAT=insns: stock, patched, stock-debug, patched-debug, patched-off" ;;
	esac
	name=$m
	[ "$v" = "$variant" ] || name=$v-$m
	case " ${names[*]} " in *" $name "*) die "THP_INSNS_MOUNTS: '$spec' is named twice" ;; esac
	img=$(image_of "$v")
	names+=("$name") imgs+=("$img")
done
dir=$OUT/insns
mkdir -p "$dir"
rm -f "$dir/report.md"
# What make tables names the table by.
write_meta "$dir" insns "$image"
plugin=$OUT/bin/insncount.so
mkdir -p "$OUT/bin"
gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -o "$plugin" \
	"$TOP/analysis/insncount.c" || die "cannot build the plugin"

# count NAME WORKLOAD MOUNT IMAGE: one boot of IMAGE that runs WORKLOAD on
# /mnt/MOUNT under the plugin, its counts in $dir/NAME.counts.
count() {
	local name=$1 w=$2 m=$3 image=$4
	rm -f "$dir/$name.counts"
	note "insns: $w on /mnt/$m"
	# The boot alone (guest.sh), not test.sh: its host checks judge a make
	# test, and its results would replace $OUT/test-$variant.
	THP_ICOUNT=1 THP_QEMU_PLUGIN="$plugin,out=$dir/$name.counts" \
		"$TOP/scripts/guest.sh" "$image" "$dir/$name" test 1500 -- thp.tests=profile \
		"thp.profile=${w// /,}" "thp.profile_dirs=/mnt/$m" >"$dir/$name.log" 2>&1 || true
	grep -q "\"line\":\"ok [0-9]* unprofiled /mnt/$m\"" "$dir/$name/results.jsonl" 2>/dev/null ||
		die "the workload did not run to its end on /mnt/$m (see $dir/$name/console.log)"
	[ -s "$dir/$name.counts" ] || die "no counts from /mnt/$m (see $dir/$name.log)"
}

runs=() images=()
for k in "${!mounts[@]}"; do
	spec=${mounts[$k]} name=${names[$k]} img=${imgs[$k]} m=${mounts[$k]#*:}
	count "$name.base" "$wl" "$m" "$img"
	count "$name" "$wl2" "$m" "$img"
	runs+=("$spec=$dir/$name.counts,$dir/$name.base.counts@${img%.bzImage}.map")
	case " ${images[*]} " in *" $(basename "$img") "*) ;; *) images+=("$(basename "$img")") ;; esac
done
{
	echo "# make bench WHAT=insns: '$wl2' less '$wl', ${images[*]}"
	echo
	"$PY" "$TOP/analysis/insns.py" --map "$map" --per "$per" --rows 12 \
		--json "$dir/insns.json" "${runs[@]}"
} >"$dir/report.md"
cat "$dir/report.md"
