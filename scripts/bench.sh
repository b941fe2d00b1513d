#!/usr/bin/env bash
# Boot one kernel once, run a measurement suite (guest/run-bench.sh) and turn
# its JSON lines into report.md and plots.
# usage: bench.sh SUITE OUTDIR VARIANT [extra kernel args]
. "$(dirname "$0")/common.sh"

suite=$1 dir=$2 variant=${3:-patched}
shift 3 || true
image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "$variant")}
mkdir -p "$dir"
write_meta "$dir" "$suite" "$image"
note "$suite suite on $variant ($(basename "$image")), results in $dir"
rc=0
# SLUB debugging on radix_tree_node alone (sanity checks) keeps no per-CPU
# slabs, so /proc/slabinfo's active count is exact and the xarray column
# counts nodes rather than slab churn.  The icount gate runs without it.
slub="slub_debug=F,radix_tree_node"
[ "$suite" = icount ] || [ "${THP_XA_EXACT:-1}" = 0 ] && slub=""
"$TOP/scripts/guest.sh" "$image" "$dir" bench "${THP_BENCH_TIMEOUT_S:-3000}" -- \
	"thp.suite=$suite" $slub "$@" || rc=$?
grep '"type":"workload"' "$dir/results.jsonl" >"$dir/workloads.jsonl" || true
# A kernel that warned gets no report: its figures are not of a working kernel.
rm -f "$dir/report.md" "$dir"/*.png
splats=$(splat_lines "$dir/console.log")
if [ -n "$splats" ]; then
	echo "$splats" | head -n 5 | sed 's/^/splat: /' >&2
	echo "$suite: the kernel log has a splat ($dir/console.log): no report written" >&2
	exit 1
fi
"$PY" "$TOP/analysis/report.py" "$dir/workloads.jsonl" --out "$dir" \
	--title "$suite suite, $(basename "$image" .bzImage), $(date -u +%F)" >/dev/null || rc=1
if [ -f "$dir/report.md" ]; then
	# The short table on the terminal: sequential 1M and fault-in rows.
	grep -E '^\| (case|---|write write \| [0-9]+M \| 1M|read read \| [0-9]+M \| 1M|fault write|truncate unlink)' \
		"$dir/report.md" | cut -d'|' -f2-10 | head -40
	echo "report: $dir/report.md"
	ls "$dir"/*.png 2>/dev/null | sed 's/^/plot: /'
fi
failed=$(grep -c '"ok":false' "$dir/workloads.jsonl" || true)
[ "$failed" = 0 ] || { echo "$failed workload runs failed (see report)"; [ -n "${THP_KEEP_GOING:-}" ] || rc=1; }
exit "$rc"
