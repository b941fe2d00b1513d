#!/usr/bin/env bash
# make test: boot the kernel once, run guest/tests.list, add the host's own
# checks, print TAP and the closing count line; non-zero on any failure.
# usage: test.sh VARIANT [extra kernel args]
# THP_IMAGE=path boots that bzImage as VARIANT instead of building one (its
# release is checked only if a .release file lies beside it).
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
shift || true
image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "$variant")}
release=$(cat "${image%.bzImage}.release" 2>/dev/null || true)
dir=$OUT/test-$variant
mkdir -p "$dir"
host=$dir/host.jsonl
: >"$host"
rm -f "$dir/summary.json"

# Host-side tests that need no guest: the analysis unit test.
if [ -f "$TOP/analysis/test_report.py" ]; then
	"$PY" "$TOP/analysis/test_report.py" 2>&1 | "$PY" "$TOP/scripts/tap2json.py" analysis >>"$host"
fi

timeout=${THP_TEST_TIMEOUT_S:-1800}
[[ "$variant" == *-debug ]] && timeout=$((timeout * 2))
grc=0
"$TOP/scripts/guest.sh" "$image" "$dir" test "$timeout" -- \
	${THP_TESTS:+thp.tests=${THP_TESTS// /,}} ${THP_REQUIRE:+thp.require=1} "$@" || grc=$?
"$PY" "$TOP/scripts/summarize.py" --results "$dir/results.jsonl" --console "$dir/console.log" \
	--release "$release" --guest-rc "$grc" --host "$host" --summary "$dir/summary.json"
