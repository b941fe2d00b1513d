#!/usr/bin/env bash
# The host-side suites of make test, once per make test (not once per boot):
# the unit tests of the analysis, the tables and the verdict (checks of the
# harness), and the kernel's own XArray test suite built from the tree under
# test (lib/xarray.c in user space: a check of the kernel).  Each runs as a
# suite (verdict.py host-run): a failure or a crash is counted, it does not
# stop make test.  Results in $OUT/test-host.
# usage: host-suites.sh VARIANT   (the tree of that kernel: stock or patched)
. "$(dirname "$0")/common.sh"

case "${1:-patched}" in stock*) tree=$STOCK ;; *) tree=$SRC ;; esac
dir=$OUT/test-host
mkdir -p "$dir"
host=$dir/host.jsonl
: >"$host"
rm -f "$dir/summary.json"
write_meta "$dir" test-host none
suites=()
for t in analysis:analysis/test_report.py untar:analysis/test_untar.py tables:analysis/test_tables.py \
	verdict:scripts/test_verdict.py xarray:scripts/xarray-test.sh; do
	suite=${t%%:*} t=${t#*:}
	case "$t" in
	*.py) cmd=("$PY" "$TOP/$t") ;;
	*) cmd=(bash "$TOP/$t" "$tree") ;;
	esac
	suites+=(--host-suite "$suite")
	"$PY" "$TOP/scripts/verdict.py" host-run "$suite" --timeout 300 -- "${cmd[@]}" >>"$host" ||
		echo "{\"type\":\"exit\",\"suite\":\"$suite\",\"rc\":255,\"host\":true}" >>"$host"
done
"$PY" "$TOP/scripts/summarize.py" --no-guest --host "$host" "${suites[@]}" --summary "$dir/summary.json"
