#!/usr/bin/env bash
# List make test's suites: each name in guest/tests.list, its command, and
# the first comment paragraph of its source (sysfs-probes/NAME.c, the
# guest script, or the selftest's source in the patched tree), which is its
# description.  A name ending in "!" runs only when asked for by name;
# "@N" gives a suite of cases N times the per-program limit.
# usage: scripts/list-tests.sh [NAME...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${THP_CACHE:-$HOME/.cache/thp-pagecache}/linux
# The comment paragraph at the top of FILE, comment marks stripped.
header() {
	awk -v c="${1##*.}" 'NR == 1 && /^#!/ || /SPDX-License-Identifier/ { next }
		{ s = $0; ok = c == "c" ? sub(/^[ \t]*(\/\/|\/\*+|\*+\/?)[ \t]?/, "", s) : sub(/^#[ \t]?/, "", s) }
		!ok || s == "" { if (n) exit; next }
		{ sub(/[ \t]*\*\/[ \t]*$/, "", s); print "    " s; n++ }' "$1"
}
grep -v '^[[:space:]]*\(#\|$\)' "$top/guest/tests.list" | while read -r name cmd; do
	name=${name%@*}
	[ $# -eq 0 ] || [[ " $* " == *" ${name%!} "* ]] || continue
	src=""
	for w in $cmd; do
		case $w in
		probe-*) src=sysfs-probes/${w#probe-}.c ;;
		/selftests/mm/*) src=$tree/tools/testing/selftests/mm/${w##*/}.c ;;
		/guest/*) src=${w#/} ;;
		*) continue ;;
		esac
		break
	done
	echo "$name: $cmd${src:+ (${src#$top/})}"
	case $src in /*) ;; ?*) src=$top/$src ;; esac
	if [ -n "$src" ] && [ -f "$src" ]; then header "$src"; else echo "    (no source found)"; fi
done
