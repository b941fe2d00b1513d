#!/usr/bin/env bash
# One boot of make test: boot the kernel once, run guest/tests.list, print
# the verdict's TAP and count lines; non-zero on any failure.  The host-side
# suites run once per make test (host-suites.sh, from test-all.sh).
# usage: test.sh VARIANT [extra kernel args]
# THP_IMAGE=path boots that bzImage as VARIANT instead of building one (a
# .release file must lie beside it, or the release check fails).
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
rm -f "$dir/summary.json"
write_meta "$dir" "$name-$variant" "$image"

# One time limit: THP_TEST_TIMEOUT_S is the limit of each program in the
# guest (doubled on the debug kernel), forwarded as thp.timeout=.  The boot
# as a whole gets that much per selected suite, plus one for booting, and
# is called hung when no result line arrives for the limit plus 2 minutes.
per=${THP_TEST_TIMEOUT_S:-300}
[[ "$per" =~ ^[1-9][0-9]*$ ]] || die "THP_TEST_TIMEOUT_S=$per: not a number of seconds"
# Debug kernels also poison freed pages (debug.config, PAGE_POISONING),
# and run the stress and race suites at 15% of their operations
# ($(load N) in guest/tests.list): the same checks, each operation under
# KASAN and lockdep at several times the cost.  They get 3 GiB, not 4: what
# fragments or compacts all free memory (defrag, settle) costs by the GiB.
debug=""
if [[ "$variant" == *-debug ]]; then
	per=$((per * 2)) debug="page_poison=1 thp.load=15"
	export THP_GUEST_MB=${THP_GUEST_MB:-3072}
fi
n=$("$PY" "$TOP/scripts/verdict.py" count --tests "${THP_TESTS:-}")
timeout=$((per * (n + 1)))
# The feature must be there on the patched kernels: a skip fails.  Skips are
# legal on stock and option-off kernels unless THP_REQUIRE=1 (make test-fast
# KERNELS=stock or patched-off); THP_REQUIRE=0 turns it off anywhere.
case "$variant" in
stock*|*-off*) require=${THP_REQUIRE:-0} ;;
*) require=${THP_REQUIRE:-1} ;;
esac
[ "$require" = 1 ] || require=""
grc=0
THP_GUEST_IDLE_S=$((per + 120)) "$TOP/scripts/guest.sh" "$image" "$dir" test "$timeout" -- \
	thp.timeout="$per" ${THP_TESTS:+thp.tests=${THP_TESTS// /,}} ${require:+thp.require=1} $debug "$@" || grc=$?
"$PY" "$TOP/scripts/summarize.py" --results "$dir/results.jsonl" --console "$dir/console.log" \
	--release "$release" --guest-rc "$grc" \
	--tests "${THP_TESTS:-}" ${require:+--require} --summary "$dir/summary.json"
