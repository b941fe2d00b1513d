#!/usr/bin/env bash
# make export: regenerate thp-series/ from the commits on the tree's series
# branch (base..HEAD): one git format-patch file per commit, the series file,
# and 0000-cover-letter.patch from thp-series/cover.txt (subject line, blank
# line, body).  The cover letter stays out of series: git am stops on it.
. "$(dirname "$0")/common.sh"

cd "$SRC"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "commit your changes in $SRC first"
n=$(git rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits on top of base in $SRC"
tmp=$(mktemp -d)
git format-patch -q --cover-letter --no-signature -o "$tmp" base..HEAD
cover=$SERIES_DIR/cover.txt
if [ -f "$cover" ]; then
	subject=$(head -n 1 "$cover")
	python3 - "$tmp/0000-cover-letter.patch" "$subject" "$cover" <<'PY'
import sys
path, subject, cover = sys.argv[1:]
body = open(cover).read().split("\n", 1)[1].lstrip("\n")
# make tables' region markers are for the project, not for the list.
body = "".join(l for l in body.splitlines(True) if not l.startswith("<!-- tables:"))
s = open(path).read()
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body.rstrip())
open(path, "w").write(s)
PY
fi
rm -f "$SERIES_DIR"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$SERIES_DIR/"
rm -rf "$tmp"
(echo "# quilt series: applied in order by scripts/tree.sh (git am) or quilt push -a"
 cd "$SERIES_DIR" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$SERIES_DIR/series"
stamp=$(series_stamp)
git config thp.applied "$stamp"
git config thp.head "$(git rev-parse HEAD)"
note "exported $n patches to thp-series/"
