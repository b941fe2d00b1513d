#!/usr/bin/env bash
# partial.sh test|dev [kernels=LIST] [WHAT THE TARGET LEAVES OUT]...
# Says whether a run is narrower or more lenient than make test: THP_TESTS,
# THP_REQUIRE other than 1, THP_IMAGE, fewer kernels than the full list,
# and any THP_* variable that `make help` does not list (a misspelt one
# would otherwise be ignored without a word).  Prints "PARTIAL: ..." with
# each.  Mode test (make test, as .ci/run calls it): exit 1 if there is
# any, before anything is built.  Mode dev (test-fast, stress, ...): exit 0.
. "$(dirname "$0")/common.sh"

mode=$1
shift
FULL="patched patched-debug"	# in any order
why=()
for a in "$@"; do
	case "$a" in
	kernels=*) [ "$(echo ${a#kernels=} | tr ' ' '\n' | sort | xargs)" = "$FULL" ] || why+=("KERNELS=\"${a#kernels=}\": not \"$FULL\"") ;;
	*) why+=("$a") ;;
	esac
done
[ -z "${THP_TESTS:-}" ] || why+=("THP_TESTS=\"$THP_TESTS\": only those suites")
[ -z "${THP_REQUIRE:-}" ] || [ "$THP_REQUIRE" = 1 ] || why+=("THP_REQUIRE=$THP_REQUIRE: skips pass")
[ -z "${THP_IMAGE:-}" ] || why+=("THP_IMAGE=$THP_IMAGE: that image, not the tree's")
# The documented variables: the help lines of the Makefile ("##   THP_X").
# THP_CACHE and THP_OUT the Makefile itself exports, from CACHE= and OUT=.
known=" THP_CACHE THP_OUT $(sed -n 's/^##[[:space:]]*\(THP_[A-Z0-9_]*\).*/\1/p' "$TOP/Makefile" | tr '\n' ' ')"
for v in $(compgen -e | grep '^THP_' || true); do
	case "$known" in *" $v "*) ;; *) why+=("$v: not a variable that make help lists") ;; esac
done
[ ${#why[@]} -gt 0 ] || exit 0
msg=$(printf '%s; ' "${why[@]}")
echo "PARTIAL: ${msg%; }"
if [ "$mode" = test ]; then
	echo "make test runs whole or not at all: unset these (make help lists the variables)" >&2
	exit 1
fi
exit 0
