#!/usr/bin/env bash
# The main job: build what is missing, boot the patched kernel once, run the
# workload suite on ramfs (huge and 4K) and tmpfs (huge and 4K) beside
# memcpy, and write report.md with plots.
set -euo pipefail
cd "$(dirname "$0")"

usage() {
	cat <<USAGE
usage: ./run.sh [options]
  --size MB        file size per run (default 64)
  --reps N         repetitions, interleaved across configurations (default 3)
  --workloads L    comma list: write,read,rewrite,fault,truncate (default all)
  --policies L     comma list of ramfs (always), ramfs-never, ramfs-4k (deny),
                   tmpfs-huge, tmpfs (default: all but ramfs-never)
  --suite S        run (default) or bench (the make bench set)
  --kernel K       patched (default) or stock
  --debug          use the debug kernel (DEBUG_VM, PROVE_LOCKING, KASAN)
  --out DIR        where results go (default out/run)
  --keep-going     exit 0 even if a workload failed (it is in the report)
  -h, --help       this text
USAGE
}

size=64 reps=3 only="" configs="" suite=run kernel=patched debug="" out="" keep=""
while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=${2:?}; shift ;;
	--reps) reps=${2:?}; shift ;;
	--workloads) only=${2:?}; shift ;;
	--policies) configs=${2:?}; shift ;;
	--suite) suite=${2:?}; shift ;;
	--kernel) kernel=${2:?}; shift ;;
	--debug) debug=1 ;;
	--out) out=${2:?}; shift ;;
	--keep-going) keep=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
for n in "$size" "$reps"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: '$n' is not a positive number" >&2; exit 2; }
done
case "$suite" in run|bench) ;; *) echo "run.sh: bad --suite '$suite'" >&2; exit 2 ;; esac
case "$kernel" in patched|stock) ;; *) echo "run.sh: bad --kernel '$kernel'" >&2; exit 2 ;; esac

make -s kernel initramfs KERNEL="$kernel" ${debug:+DEBUG=1}
variant=$kernel${debug:+-debug}
export THP_KEEP_GOING=$keep
exec scripts/bench.sh "$suite" "${out:-$PWD/out/run}" "$variant" "thp.size_mb=$size" "thp.reps=$reps" \
	${only:+thp.only=$only} ${configs:+thp.configs=$configs}
