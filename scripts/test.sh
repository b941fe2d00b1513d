#!/usr/bin/env bash
# make test: boot the kernel once, run guest/tests.list, add the host's own
# checks, print TAP and the closing count line; non-zero on any failure.
# usage: test.sh VARIANT [extra kernel args]
# THP_IMAGE=path boots that bzImage as VARIANT instead of building one (its
# release is checked only if a .release file lies beside it).
# Results go to $OUT/test-VARIANT, which make tables reads; a profile or
# stress run (THP_TESTS=profile, stress) to $OUT/profile-VARIANT or
# $OUT/stress-VARIANT, apart from them.
. "$(dirname "$0")/common.sh"

variant=${1:-patched}
shift || true
image=${THP_IMAGE:-$("$TOP/scripts/kernel.sh" "$variant")}
release=$(cat "${image%.bzImage}.release" 2>/dev/null || true)
case "${THP_TESTS:-}" in
profile|stress) name=$THP_TESTS ;;
*) name=test ;;
esac
dir=$OUT/$name-$variant
mkdir -p "$dir"
host=$dir/host.jsonl
: >"$host"
rm -f "$dir/summary.json"
write_meta "$dir" "$name-$variant" "$image"

# Host-side suites that need no guest: the unit tests of the analysis and
# of the verdict code, and the kernel's XArray test suite built from the
# tree this kernel comes from.  Each runs as a suite (verdict.py host-run):
# a failure or a crash is counted in the total, it does not stop the boot.
# The XArray suite tests the tree, not the kernel: once per make test, on
# the non-debug boot, and not in a run of some tests alone (THP_TESTS).
case "$variant" in stock*) tree=$STOCK ;; *) tree=$SRC ;; esac
suites="analysis:analysis/test_report.py tables:analysis/test_tables.py verdict:scripts/test_verdict.py"
case "$variant" in
*-debug) ;;
*) [ -n "${THP_TESTS:-}" ] || suites+=" xarray:scripts/xarray-test.sh" ;;
esac
host_suites=()
for t in $suites; do
	suite=${t%%:*} t=${t#*:}
	case "$t" in
	*.py) cmd=("$PY" "$TOP/$t") ;;
	*) cmd=(bash "$TOP/$t" "$tree") ;;
	esac
	host_suites+=(--host-suite "$suite")
	"$PY" "$TOP/scripts/verdict.py" host-run "$suite" --timeout 300 -- "${cmd[@]}" >>"$host" ||
		echo "{\"type\":\"exit\",\"suite\":\"$suite\",\"rc\":255}" >>"$host"
done

# One time limit: THP_TEST_TIMEOUT_S is the limit of each program in the
# guest (doubled on the debug kernel), forwarded as thp.timeout=.  The boot
# as a whole gets that much per selected suite, plus one for booting, and
# is called hung when no result line arrives for the limit plus 2 minutes.
per=${THP_TEST_TIMEOUT_S:-300}
[[ "$per" =~ ^[1-9][0-9]*$ ]] || die "THP_TEST_TIMEOUT_S=$per: not a number of seconds"
[[ "$variant" == *-debug ]] && per=$((per * 2))
n=$("$PY" "$TOP/scripts/verdict.py" count --tests "${THP_TESTS:-}")
timeout=$((per * (n + 1)))
# The feature must be there on the patched kernels: a skip fails.  Skips are
# legal on stock and option-off kernels unless THP_REQUIRE=1 (test-stock,
# test-off); THP_REQUIRE=0 turns it off anywhere.
case "$variant" in
stock*|*-off*) require=${THP_REQUIRE:-0} ;;
*) require=${THP_REQUIRE:-1} ;;
esac
[ "$require" = 1 ] || require=""
grc=0
THP_GUEST_IDLE_S=$((per + 120)) "$TOP/scripts/guest.sh" "$image" "$dir" test "$timeout" -- \
	thp.timeout="$per" ${THP_TESTS:+thp.tests=${THP_TESTS// /,}} ${require:+thp.require=1} "$@" || grc=$?
"$PY" "$TOP/scripts/summarize.py" --results "$dir/results.jsonl" --console "$dir/console.log" \
	--release "$release" --guest-rc "$grc" --host "$host" "${host_suites[@]}" \
	--tests "${THP_TESTS:-}" ${require:+--require} --summary "$dir/summary.json"
