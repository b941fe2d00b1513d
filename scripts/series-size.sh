#!/usr/bin/env bash
# series-size.sh [REV]: the size of the series in thp-series/ (of REV, a
# commit or tag of this repository; default the working tree): patches, and
# lines added and removed inside fs/ramfs/, in tools/testing/ and elsewhere
# (git apply --numstat of each patch file named by the series file).
. "$(dirname "$0")/common.sh"

rev=${1:-}
show() { if [ -n "$rev" ]; then git -C "$TOP" show "$rev:thp-series/$1"; else cat "$SERIES_DIR/$1"; fi; }
n=0 tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for p in $(show series | sed -e 's/#.*//' -e 's/[[:space:]].*//' | grep -v '^$'); do
	show "$p" | git apply --numstat - >>"$tmp"
	n=$((n + 1))
done
awk -v n="$n" -v name="${rev:-working tree}" '
	{ k = $3 ~ /^fs\/ramfs\// ? "ramfs" : $3 ~ /^tools\/testing\// ? "tests" : "other"
	  a[k] += $1; d[k] += $2 }
	END { printf "%s: %d patches; fs/ramfs +%d -%d; tools/testing +%d -%d; elsewhere +%d -%d\n",
		name, n, a["ramfs"], d["ramfs"], a["tests"], d["tests"], a["other"], d["other"] }' "$tmp"
