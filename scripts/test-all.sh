#!/usr/bin/env bash
# make test: test.sh on each variant in turn (the patched kernel, then the
# debug kernel), each with its own TAP and count line, then the total as
# the last line.  Non-zero if any variant failed.
# usage: test-all.sh VARIANT...
. "$(dirname "$0")/common.sh"

pass=0 fail=0 skip=0 rc=0
for v in "$@"; do
	sum=$OUT/test-$v/summary.json
	rm -f "$sum"
	echo "# == $v kernel"
	"$TOP/scripts/test.sh" "$v" || rc=1
	if [ -f "$sum" ]; then
		read -r p f s < <("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["pass"], c["fail"], c["skip"])' "$sum")
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	else
		echo "not ok - $v: no summary (build or boot failed)"
		fail=$((fail + 1)) rc=1
	fi
done
echo "# total over: $*"
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
