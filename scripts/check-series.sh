#!/usr/bin/env bash
# make check-series: after every patch of thp-series/, in order,
#  - checkpatch --strict prints no ERROR, and every WARNING and CHECK it
#    still prints is named in that patch's commit message: the message
#    mentions checkpatch and the warning's type (CAMEL_CASE, also written
#    "CamelCase" or "camel case"), a word in capitals from the warning's
#    text (MAINTAINERS) or a text it quotes (<Opt_huge> -> Opt_huge);
#  - the kernel builds without a warning for x86_64 (tinyconfig +
#    base.config) and for 32-bit i386 with HIGHMEM64G (tinyconfig +
#    i386.config), each + series.config, and every option the fragments ask
#    for holds (series.config's once the patch defining it is in);
#  - after the last patch, also with options the series must build
#    without: x86_64 with SHMEM=n (noshmem.config: ramfs then backs shared
#    anonymous memory and SysV shm) and with TRANSPARENT_HUGEPAGE=n
#    (nothp.config), each merged last over base.config and series.config.
# The base itself is configured and built first, so a warning of the stock
# tree is not blamed on patch 1.  TAP on stdout, build times on stderr;
# non-zero on any failure.
# Runs in a worktree of its own ($CACHE/linux-bisect), O=$BUILD/bisect and
# O=$BUILD/bisect-i386.  THP_CHECK_ARCHES="x86_64" builds only the named
# configurations; THP_CHECK_ARCHES= (empty) runs checkpatch only, and
# THP_CHECK_ENDS (default "x86_64-noshmem x86_64-nothp") the end builds;
# THP_CHECK_FROM=N starts the builds at patch N (see below).
. "$(dirname "$0")/common.sh"

wt=$CACHE/linux-bisect
read -r -a arches <<<"${THP_CHECK_ARCHES-x86_64 i386-highmem}"
# With THP_CHECK_ARCHES= (checkpatch only), no end builds unless named.
read -r -a ends <<<"${THP_CHECK_ENDS-x86_64-noshmem x86_64-nothp}"
[ -n "${THP_CHECK_ENDS+set}" ] || [ "${#arches[@]}" -gt 0 ] || ends=()
log=$(mktemp /tmp/check-series.XXXXXX)
msg=$(mktemp /tmp/check-series-msg.XXXXXX)
trap 'rm -f "$log" "$log.cfg" "$log.err" "$log.want" "$msg"' EXIT

for c in "${arches[@]}"; do
	case $c in x86_64|i386-highmem) ;; *) die "unknown configuration '$c' (x86_64, i386-highmem)" ;; esac
done
for c in "${ends[@]}"; do
	case $c in x86_64-noshmem|x86_64-nothp) ;; *) die "unknown end configuration '$c' (x86_64-noshmem, x86_64-nothp)" ;; esac
done
obj_of() { case $1 in x86_64) echo "$BUILD/bisect" ;; i386-highmem) echo "$BUILD/bisect-i386" ;; *) echo "$BUILD/bisect-${1#x86_64-}" ;; esac; }
arch_of() { case $1 in i386-highmem) echo i386 ;; *) echo x86_64 ;; esac; }
frag_of() { case $1 in i386-highmem) echo "$CONFIG_DIR/i386.config" ;; *) echo "$CONFIG_DIR/base.config" ;; esac; }
# An end configuration's own fragment, merged last: it wins.
last_of() { case $1 in x86_64-*) echo "$CONFIG_DIR/${1#x86_64-}.config" ;; esac; }
kmake() { local c=$1; shift; make -s -C "$wt" O="$(obj_of "$c")" ARCH="$(arch_of "$c")" CC="ccache gcc" "$@"; }

# Is every option of fragment $1 a symbol some Kconfig file of the tree defines?
defined_in_tree() {
	local sym
	for sym in $(sed -n 's/^\(# \)\{0,1\}CONFIG_\([A-Za-z0-9_]*\)[= ].*/\2/p' "$1"); do
		git grep -qE "^[[:space:]]*(menu)?config[[:space:]]+$sym([[:space:]]|$)" -- '*Kconfig*' || return 1
	done
}

# Merge the fragments into the configuration's .config (fresh from
# tinyconfig when $2 is "fresh"), olddefconfig, verify.  Kconfig's own
# chatter ("override: ... changes choice state") goes to $log.cfg, shown only
# on failure; options that did not hold go to $log.
configure() {
	local c=$1 obj frags last
	obj=$(obj_of "$c")
	frags=("$(frag_of "$c")")
	last=$(last_of "$c")
	mkdir -p "$obj"
	if [ "${2:-}" = fresh ]; then
		kmake "$c" tinyconfig >>"$log.cfg" 2>&1 || return 1
	fi
	scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "${frags[@]}" \
		"$CONFIG_DIR/series.config" ${last:+"$last"} >>"$log.cfg" 2>&1 || return 1
	kmake "$c" olddefconfig >>"$log.cfg" 2>&1 || return 1
	defined_in_tree "$CONFIG_DIR/series.config" && frags+=("$CONFIG_DIR/series.config")
	if [ -z "$last" ]; then
		config_verify "$obj/.config" "${frags[@]}" 2>>"$log"
		return
	fi
	# An end build: its fragment's lines replace the others' for the same
	# options, as merge_config.sh merges them.
	frags+=("$last")
	cat "${frags[@]}" | tac | awk '/^(# )?CONFIG_[A-Za-z0-9_]*(=| is not set)/ {
		o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o); if (seen[o]++) next } { print }' |
		tac >"$log.want"
	config_verify "$obj/.config" "$log.want" 2>>"$log"
}

# build CONFIGURATION WHAT: one TAP line "ok builds WHAT (CONFIGURATION)".
build() {
	local c=$1 what=$2 t0 ok=1
	t0=$(date +%s)
	: >"$log"; : >"$log.cfg"
	configure "$c" "${3:-}" || { ok=0; tail -n 3 "$log.cfg" >>"$log"; }
	if [ "$ok" = 1 ]; then
		kmake "$c" -j"$(( $(nproc) + 1 ))" bzImage >>"$log" 2>&1 || ok=0
		! grep -q 'warning:' "$log" || ok=0
	fi
	note "build $c $what: $(( $(date +%s) - t0 ))s"
	if [ "$ok" = 1 ]; then
		echo "ok builds $what ($c)"
	else
		echo "not ok builds $what ($c)"
		{ grep -E 'error|warning|^config:' "$log" || tail -n 5 "$log"; } | head -8 | sed 's/^/#   /'
		fail=1
	fi
}

# named TYPE TEXT: does the commit message in $msg name this warning?
# Prints the words that name it.
named() {
	local type=$1 text=$2 t
	grep -qi checkpatch "$msg" || return 1
	t=$(grep -oiE "(^|[^A-Za-z0-9_])${type//_/[_ -]?}([^A-Za-z0-9_]|$)" "$msg" | head -n 1 |
		sed -E 's/^[^A-Za-z0-9_]//; s/[^A-Za-z0-9_]$//') && [ -n "$t" ] && { echo "$t"; return 0; }
	for t in $(grep -oE '\b[A-Z][A-Z0-9_]{3,}\b' <<<"$text" | sort -u); do
		grep -qwF -- "$t" "$msg" && { echo "$t"; return 0; }
	done
	while IFS= read -r t; do
		[ "${#t}" -ge 3 ] && grep -qF -- "$t" "$msg" && { echo "$t"; return 0; }
	done < <(grep -oE "<[^>]+>|'[^']+'|\"[^\"]+\"" <<<"$text" | sed 's/^.//; s/.$//')
	return 1
}

# checkpatch PATCH: one TAP line "ok checkpatch PATCH", the patch being HEAD.
checkpatch() {
	local p=$1 line level type text word bad=() ok=()
	# The message without its trailers (Signed-off-by: names are not reasons).
	git log -1 --format=%B | sed -E '/^[A-Za-z-]+-by: /d' >"$msg"
	# checkpatch exits 0 (clean) or 1 (findings) and, without -q, always
	# ends with its "total:" line: anything else (a crash) is no pass.
	local rc=0
	# Its SPDX check runs python3 with ply and GitPython: Debian's.
	PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --show-types "$SERIES_DIR/$p" \
		>"$log" 2>"$log.err" || rc=$?
	if [ "$rc" -gt 1 ] || [ -s "$log.err" ] || ! grep -q '^total: ' "$log"; then
		echo "not ok checkpatch $p # checkpatch did not run to the end (exit $rc)"
		sed 's/^/#   /' "$log.err" | head -n 5
		fail=1
		return
	fi
	while IFS= read -r line; do
		level=${line%%:*}; line=${line#*:}
		type=${line%%:*}; text=${line#*: }
		if [ "$level" = ERROR ]; then
			bad+=("$level:$type: $text")
		elif word=$(named "$type" "$text"); then
			ok+=("$level:$type (\"$word\")")
		else
			bad+=("$level:$type: $text")
		fi
	done < <(grep -E '^(ERROR|WARNING|CHECK):' "$log" || true)
	if [ "${#bad[@]}" -gt 0 ]; then
		echo "not ok checkpatch $p # unjustified: ${bad[0]}$([ "${#bad[@]}" -gt 1 ] && echo " (and $(( ${#bad[@]} - 1 )) more)")"
		printf '#   %s\n' "${bad[@]}"
		fail=1
	else
		echo "ok checkpatch $p${ok[0]:+ # justified in the commit message: ${ok[*]}}"
	fi
}

[ -d "$wt" ] || git -C "$SRC" worktree add -q --detach "$wt" base
cd "$wt"
git am --abort >/dev/null 2>&1 || true
git checkout -q --detach base
git reset -q --hard base

patches=$(series_patches)
n=$(echo "$patches" | grep -c . || true)
# THP_CHECK_FROM=N builds only from patch N on: the tree after patch N-1
# is built fresh as the baseline (as the base is otherwise), and the
# builds before it are skipped; checkpatch still runs on every patch.
from=${THP_CHECK_FROM:-1}
[[ $from =~ ^[1-9][0-9]*$ ]] && [ "$from" -le "$n" ] ||
	die "THP_CHECK_FROM=$from: give a patch number from 1 to $n"
echo "1..$(( (from == 1 ? ${#arches[@]} : 0) + n * (1 + ${#arches[@]}) + ${#ends[@]} ))"
fail=0
t_start=$(date +%s)
if [ "$from" = 1 ]; then
	for c in "${arches[@]}"; do
		build "$c" base fresh
	done
fi
i=0
for p in $patches; do
	i=$((i + 1))
	if ! git am -q "$SERIES_DIR/$p" >/dev/null 2>&1; then
		git am --abort >/dev/null 2>&1 || true
		echo "Bail out! patch $p does not apply"
		exit 1
	fi
	checkpatch "$p"
	for c in "${arches[@]}"; do
		if [ "$i" -lt $((from - 1)) ]; then
			echo "ok builds after $p ($c) # SKIP before THP_CHECK_FROM=$from"
		elif [ "$i" = $((from - 1)) ]; then
			build "$c" "after $p" fresh
		else
			build "$c" "after $p"
		fi
	done
done
for c in "${ends[@]}"; do
	build "$c" "after $p" fresh
done
note "check-series: $n patches, $(( $(date +%s) - t_start ))s"
exit $fail
