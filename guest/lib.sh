# Guest-side helpers for run-test.sh and run-bench.sh (busybox sh).

# JSON string escape for one line.
jstr() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g'; }

# result SUITE STATUS "ok N name" [REASON]: one JSON result line.
result() {
	name=$(echo "$3" | sed -e 's/^ok [0-9]* *//' -e 's/^- //' -e 's/ *$//')
	echo "{\"type\":\"tap\",\"suite\":\"$1\",\"status\":\"$2\",\"name\":\"$(jstr "$name")\",\"reason\":\"$(jstr "$4")\"}"
}

# Run one test program, echo its output to the console and turn its TAP
# lines into JSON results on stdout; JSON lines it prints pass through.
run_one() {
	suite=$1; shift
	echo "== $suite: $*" >/dev/console
	rcfile=/tmp/rc.$$
	# kselftest/TAP: "ok N desc", "not ok N desc", "ok N desc # SKIP why".
	( timeout "${THP_TEST_TIMEOUT:-300}" "$@" 2>&1; echo $? >$rcfile ) | \
	while IFS= read -r line; do
		echo "$line" >/dev/console
		case "$line" in
		'{'*) echo "{\"suite\":\"$suite\",${line#?}" ;;
		"ok "*"# SKIP"*|"ok "*"# skip"*)
			r=${line#*# [Ss][Kk][Ii][Pp] }
			result "$suite" skip "${line%%#*}" "$r" ;;
		"ok "*) result "$suite" pass "$line" ;;
		"not ok "*) result "$suite" fail "${line#not }" ;;
		"1..0 # SKIP"*|"1..0 # skip"*)
			result "$suite" skip "ok 0 $suite" "${line#1..0 # ???? }" ;;
		esac
	done
	rc=$(cat $rcfile 2>/dev/null || echo 255)
	rm -f $rcfile
	echo "{\"type\":\"exit\",\"suite\":\"$suite\",\"rc\":$rc}"
}
