#!/usr/bin/env bash
# eofzero-inject.sh: show that eofzero, the stale-data probe, sees each
# place where v4 zeroes memory it hands out.  For each site below, the
# patched tree is built with that one zeroing call removed, as a debug
# kernel (page poisoning), and booted with eofzero alone: eofzero itself
# must fail there.  The unedited debug kernel is booted first and must pass
# it.  Results in $OUT/test-nozero-SITE-debug, eofzero's "not ok" lines in
# $OUT/eofzero-inject.txt; non-zero if the control failed or a site went
# unnoticed.  Not part of make test.  The tree is edited in place and put
# back on exit; its images are keyed by the edit (kernel.sh), so they never
# stand in for the real one.  Run no other build meanwhile.
# usage: eofzero-inject.sh [SITE...]   (default: all of them)
. "$(dirname "$0")/common.sh"

sites="write_begin write_begin_fill fault_fill read_fill fallocate_fill zero_eof"
[ $# -gt 0 ] && sites="$*"
cd "$SRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "$SRC has uncommitted changes"
[ "$(git rev-parse HEAD)" = "$(git config thp.head || true)" ] &&
	[ "$(git config thp.applied || true)" = "$(series_stamp)" ] || die "$SRC is not thp-series/ applied: run make tree"
for s in $sites; do
	case " write_begin write_begin_fill fault_fill read_fill fallocate_fill zero_eof " in
	*" $s "*) ;; *) die "unknown site $s" ;; esac
done
trap 'git -C "$SRC" checkout -q -- fs' EXIT

# inject SITE: remove that site's zeroing from the working tree.
inject() {
	"$PY" - "$1" <<'EOF'
import re, sys
site = sys.argv[1]
def edit(path, old, new):
    s = open(path).read()
    if s.count(old) != 1:
        sys.exit(f"{site}: {old!r} is not in {path} exactly once")
    open(path, "w").write(s.replace(old, new))
mmu = "fs/ramfs/file-mmu.c"
zero = "\t\tfolio_zero_range(folio, 0, folio_size(folio));\n"
def nozero_fill(caller):
    # A copy of ramfs_fill() without its zeroing, called by @caller only.
    s = open(mmu).read()
    m = re.search(r"static int ramfs_fill\(.*?\n}\n", s, re.S)
    if not m or m.group(0).count(zero) != 1:
        sys.exit(f"{site}: ramfs_fill() and its one zeroing not found")
    copy = m.group(0).replace("ramfs_fill(", "ramfs_fill_nozero(").replace(zero, "")
    s = s[:m.end()] + "\n" + copy + s[m.end():]
    m = re.search(r"\n(static [^\n]* %s\(.*?\n}\n)" % caller, s, re.S)
    if not m or m.group(1).count("ramfs_fill(") != 1:
        sys.exit(f"{site}: {caller}() with one ramfs_fill() call not found")
    body = m.group(1).replace("ramfs_fill(", "ramfs_fill_nozero(")
    open(mmu, "w").write(s[:m.start(1)] + body + s[m.end(1):])
if site == "write_begin":
    edit("fs/libfs.c", "\t\tfolio_zero_segments(folio, 0, from, to, folio_size(folio));\n", "\t\t;\n")
elif site.endswith("_fill"):
    nozero_fill({"write_begin_fill": "ramfs_write_begin", "fault_fill": "ramfs_fault",
                 "read_fill": "ramfs_read_fill", "fallocate_fill": "ramfs_fill_holes"}[site])
elif site == "zero_eof":
    edit(mmu, "\tfolio_zero_range(folio, from,\n", "\tif (0) folio_zero_range(folio, from,\n")
else:
    sys.exit(f"unknown site {site}")
EOF
}

sum=$OUT/eofzero-inject.txt
: >"$sum"
bad=0
for s in control $sites; do
	git checkout -q -- fs
	[ "$s" = control ] || inject "$s" || die "cannot inject $s"
	note "eofzero, $s: $(git diff --shortstat || true)"
	img=$("$TOP/scripts/kernel.sh" patched-debug)
	log=$OUT/eofzero-inject-$s.log
	rc=0
	THP_IMAGE=$img THP_TESTS=eofzero "$TOP/scripts/test.sh" "nozero-$s-debug" >"$log" 2>&1 || rc=$?
	# eofzero's own failures ("eofzero: eofzero: ..."), not the boot's
	# or the host's about the suite ("eofzero: did not run", a timeout).
	caught=$(grep -c '^not ok [0-9]* eofzero: eofzero: ' "$log" || true)
	if [ "$s" = control ]; then
		verdict="must pass: passed"
		[ "$rc" = 0 ] || { bad=1; verdict="must pass: FAILED"; }
	else
		verdict="must fail: caught by $caught checks"
		[ "$caught" -gt 0 ] || { bad=1; verdict="must fail: NOT CAUGHT"; }
	fi
	{ echo "== $s: $verdict (exit $rc; $(tail -n 1 "$log"))"
	  grep '^not ok' "$log" | cut -c1-200 | head -n 12 || true
	} >>"$sum"
done
cat "$sum"
exit "$bad"
