# Sourced by every script: where things live and small helpers.
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${THP_CACHE:-$HOME/.cache/thp-pagecache}
SRC=$CACHE/linux            # git repo: branch "series" = base + thp-series
STOCK=$CACHE/linux-stock    # worktree pinned at the pristine base
BUILD=$CACHE/build          # one O= directory per variant
IMAGES=$CACHE/images        # bzImages keyed by what they were built from
OUT=${THP_OUT:-$TOP/out}    # our own outputs (initramfs, logs, results)
SERIES_DIR=$TOP/thp-series
CONFIG_DIR=$SERIES_DIR/config

# Debian's python3 (with python3-matplotlib), not whatever is first on PATH.
PY=/usr/bin/python3
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

die() { echo "error: $*" >&2; exit 1; }
note() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Time a phase and print it, as `make test` promises.
phase() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	note "$name: $(( $(date +%s) - t0 ))s"
	return "$rc"
}

# Patches named by thp-series/series, in order (quilt format: first word).
series_patches() {
	[ -f "$SERIES_DIR/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]].*//' "$SERIES_DIR/series" | grep -v '^$' || true
}

# config_verify DOTCONFIG FRAGMENT...: every option the fragments ask for
# must hold in the final .config (after olddefconfig), "# CONFIG_X is not
# set" lines included.  Prints each one that did not to stderr; non-zero if any.
config_verify() {
	local dotconfig=$1 line opt bad=0
	shift
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}
			grep -qxF "$line" "$dotconfig" || {
				echo "config: $line requested, got: $(grep -E "^$opt=|^# $opt is not set" "$dotconfig" || echo "$opt absent")" >&2
				bad=1; }
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			if grep -qE "^$opt=[ym]" "$dotconfig"; then
				echo "config: $line requested, got: $(grep -E "^$opt=" "$dotconfig")" >&2
				bad=1
			fi
			;;
		esac
	done < <(cat "$@")
	return "$bad"
}

# The Debian source package the series applies to (thp-series/base), and
# the tarball it installed; make deps installs it.
source_package() { cat "$SERIES_DIR/base"; }
source_tarball() {
	dpkg -L "$(source_package)" 2>/dev/null | grep -m1 '/linux-source-.*\.tar\.xz$' || true
}

# series_stamp: what thp-series/ is (the series file and every patch it
# names, hashed); tree.sh records the stamp it applied as thp.applied.
series_stamp() {
	(cat "$SERIES_DIR/series" 2>/dev/null; for p in $(series_patches); do
		[ -f "$SERIES_DIR/$p" ] || die "thp-series/series names $p, which does not exist"
		cat "$SERIES_DIR/$p"; done) | sha256sum | cut -c1-16
}

# write_meta DIR SUITE IMAGE: DIR/meta.json, what a run is a measurement
# of: the project commit, the series stamp the tree had applied ("modified"
# when the tree holds changes that thp-series/ lacks, "unknown" for a
# THP_IMAGE), the kernel release, the date and THP_TESTS (a run of some
# suites only, as make stress and profile are, is no make test).  make tables
# (analysis/tables.py) refuses data whose series is not today's.
write_meta() {
	local dir=$1 suite=$2 image=$3 commit series
	commit=$(git -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	[ -z "$(GIT_OPTIONAL_LOCKS=0 git -C "$TOP" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
		commit=$commit-dirty
	series=$(git -C "$SRC" config thp.applied 2>/dev/null || echo none)
	if [ "$(git -C "$SRC" rev-parse HEAD 2>/dev/null)" != "$(git -C "$SRC" config thp.head 2>/dev/null)" ] ||
	   [ -n "$(GIT_OPTIONAL_LOCKS=0 git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		series=modified
	fi
	[ -z "${THP_IMAGE:-}" ] || series=unknown
	printf '{"suite":"%s","kernel":"%s","image":"%s","series":"%s","commit":"%s","date":"%s","tests":"%s"}\n' \
		"$suite" "$(cat "${image%.bzImage}.release" 2>/dev/null || true)" "$(basename "$image")" \
		"$series" "$commit" "$(date -u +%FT%TZ)" "${THP_TESTS:-}" >"$dir/meta.json"
}

# splat_lines FILE: the kernel log lines of FILE that fail a run (the
# patterns of guest/splats.ere, the one list).  A program's line ("| ...",
# guest/lib.sh run_one) counts only from a kernel timestamp glued to it.
splat_lines() {
	sed -E -e 's/^\| .*(\[ *[0-9]+\.[0-9]+\] )/\1/' -e '/^\| /d' "$1" |
		grep -E -f <(grep -v -e '^#' -e '^$' "$TOP/guest/splats.ere") || true
}

# host_tsc_khz: the host's TSC rate in kHz, as its kernel measured it
# (dmesg), else as /proc/cpuinfo gives it where the TSC runs at a known,
# constant rate; nothing if neither says.
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: \(Refined TSC clocksource calibration\|Detected\): \([0-9.]*\) MHz.*/\2/p' | tail -n 1)
	# Only in a VM with a known TSC rate: on bare metal "cpu MHz" is the
	# current clock, not the TSC's.
	if [ -z "$mhz" ] && grep -qw tsc_known_freq /proc/cpuinfo && grep -qw hypervisor /proc/cpuinfo; then
		mhz=$(sed -n 's/^cpu MHz[[:space:]]*: \([0-9.]*\)$/\1/p' /proc/cpuinfo | head -n 1)
	fi
	[ -n "$mhz" ] && awk -v m="$mhz" 'BEGIN { printf "%d\n", m * 1000 + 0.5 }'
	return 0
}
