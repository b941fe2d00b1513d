#!/bin/sh
# Every workload in a small verify mode on each filesystem/policy: each
# prints one JSON object, and "ok":false fails it (scripts/summarize.py).
size=${THP_SIZE_MB:-16}M
cases="write|write --mode pwrite --pattern random --bs 64K|write --mode append --bs 4K|\
read|read --mode hole|read --pattern random --bs 4K|rewrite --passes 2|\
truncate|truncate --mode punch|fault --mode write|fault --mode read|\
fault --mode write --private|fault --mode random|fault --mode reread|\
fault --mode rewrite|fault --mode randwrite --private|fault --mode write --madvise huge|\
fault --mode write --madvise nohuge|mixed --threads 4 --bs 64K|memcpy"
for dir in /mnt/ramfs /mnt/ramfs-4k /mnt/tmpfs-huge /mnt/tmpfs; do
	[ "$dir" = /mnt/ramfs ] && echo always >/sys/kernel/mm/transparent_hugepage/page_cache 2>/dev/null
	echo "$cases" | tr '|' '\n' | while read -r w; do
		# shellcheck disable=SC2086
		wl-$w --dir $dir --size $size || true
	done
done
# The check itself: with one byte flipped behind its back, every case
# on ramfs with huge folios must report ok:false.
n=0
echo "$cases" | tr '|' '\n' | while read -r w; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	out=$(wl-$w --dir /mnt/ramfs --size 4M --corrupt 2>&1)
	case "$out" in
	*'"ok":false'*) echo "ok $n --corrupt caught: $w" ;;
	*) echo "not ok $n --corrupt not caught: $w # $(echo "$out" | tail -c 200)" ;;
	esac
done
echo within_size >/sys/kernel/mm/transparent_hugepage/page_cache 2>/dev/null || true
