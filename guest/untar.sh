#!/bin/sh
# The real-world case (make bench-untar, scripts/untar.sh): a tar of part of
# the kernel source, /data/src.tar in an overlay, unpacked with the guest's
# tar (busybox) and read back whole, on each configuration in turn
# (interleaved) and repeated; then unpacked onto ramfs huge=always and onto
# tmpfs huge=always in a memcg capped at 1 GiB, until the cap stops it.
#
# Pages are the mount's own: each unpack runs in a memcg of its own, whose
# "file" counter holds the page cache it charged, which is that of the
# files it wrote (the tar it reads was cached at boot, by another).
# One JSON line a run: {"type":"untar","config","rep","cap","rc","files",
# "file_pages","thp_pages","untar_s","read_s","oom_kill","max_events"}.
. /guest/lib.sh

TAR=/data/src.tar
CG=/sys/fs/cgroup/untar
ALWAYS=/mnt/untar-always
reps=$(arg thp.reps)
reps=${reps:-3}
case "$reps" in '' | *[!0-9]* | 0*) echo "untar: thp.reps=$reps: not a count" >&2; exit 2 ;; esac
[ -r $TAR ] || { echo "untar: no $TAR (the host adds it as an overlay)" >&2; exit 2; }

# up: seconds since boot, 10 ms steps (busybox date has no %N here).
up() { cut -d' ' -f1 /proc/uptime; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $CG/memory.stat; }
event_of() { awk -v k="$1" '$1 == k { print $2 }' $CG/memory.events; }

# in_cg CMD...: CMD in the memcg $CG.
in_cg() { sh -c 'echo $$ >'$CG'/cgroup.procs && exec "$@"' _ "$@"; }

# one NAME DIR POLICY REP CAP: unpack into DIR/src under POLICY (the global
# page_cache file, "" to leave it), in $CG with memory.max CAP ("" for
# none), read back what was unpacked, print the record, remove it all.
one() {
	name=$1 dir=$2 pol=$3 rep=$4 cap=$5
	set_policy "$pol" || exit 1
	settle
	mkdir $CG || exit 1
	[ -z "$cap" ] || echo "$cap" >$CG/memory.max || exit 1
	mkdir -p "$dir/src"
	t0=$(up)
	in_cg tar -xf $TAR -C "$dir/src" 2>/tmp/untar.err
	rc=$?
	t1=$(up)
	in_cg find "$dir/src" -type f -exec cat {} + >/dev/null
	t2=$(up)
	files=$(find "$dir/src" -type f | wc -l)
	# memory.stat folds in per-CPU counts only past a threshold (up to 64
	# pages a CPU stay out), or every 2 s: read it after that.
	sleep 3
	file=$(stat_of file) thp=$(($(stat_of file_thp) + $(stat_of shmem_thp)))
	printf '{"type":"untar","config":"%s","rep":%s,"cap":"%s","rc":%s,"files":%s,' \
		"$name" "$rep" "$cap" "$rc" "$files"
	printf '"file_pages":%s,"thp_pages":%s,"untar_s":%s,"read_s":%s,' \
		$((file / 4096)) $((thp / 4096)) "$(awk "BEGIN { print $t1 - $t0 }")" \
		"$(awk "BEGIN { print $t2 - $t1 }")"
	printf '"oom_kill":%s,"max_events":%s,"error":"%s"}\n' \
		"$(event_of oom_kill)" "$(event_of max)" "$(jstr "$(head -n 1 /tmp/untar.err)")"
	rm -rf "$dir/src"
	rmdir $CG
	set_policy "$boot_policy" || exit 1
}

# NAME DIR POLICY: a mount without huge= (it follows the global never),
# ramfs huge=within_size, 4 KiB pages (the global deny) and tmpfs.
configs="ramfs:/mnt/ramfs:never ramfs-within:/mnt/ramfs-within:never
ramfs-deny:/mnt/ramfs:deny tmpfs:/mnt/tmpfs:never"
echo "{\"type\":\"progress\",\"msg\":\"untar: $(stat -c %s $TAR) bytes, $(tar -tf $TAR | wc -l) entries, $reps reps\"}"
# Read once before the first run, so that no run pays for the first read.
cat $TAR >/dev/null
rep=1
while [ $rep -le "$reps" ]; do
	for c in $configs; do
		rest=${c#*:}
		one "${c%%:*}" "${rest%%:*}" "${rest#*:}" $rep ""
	done
	rep=$((rep + 1))
done
mkdir -p $ALWAYS
mount -t ramfs -o huge=always ramfs $ALWAYS || exit 1
one ramfs-always $ALWAYS never 1 1G
umount $ALWAYS
one tmpfs-always /mnt/tmpfs-huge never 1 1G
