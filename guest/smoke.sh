#!/bin/sh
# Pipeline smoke test: the kernel we built, its config, NUMA, PMD-sized
# page-cache folios at all (tmpfs huge=always).
n=0 bad=0
# The exit status says too: 1 when any check failed, as kselftest's do.
t() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2"; else bad=1; echo "not ok $n $2${3:+ # $3}"; fi; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
cfg() { zcat /proc/config.gz | grep -E "^$1=|^# $1 is not set" || echo "$1 absent"; }
mem() { sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo; }

echo "1..5"

# BASE_SMALL would cap the page cache's folios below PMD size.
c=$(cfg CONFIG_BASE_SMALL)
[ "$c" = "# CONFIG_BASE_SMALL is not set" ]; t $? "CONFIG_BASE_SMALL is off" "got: $c"

# Emulated (numa=fake=2, guest.sh): probes such as defrag take CPU N to be
# on node N.  That is cpu_to_node(), the cpuN/nodeM link; an emulated
# node's cpulist holds every CPU of the real node beneath it.
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
cpu_node() { ls -d /sys/devices/system/cpu/cpu$1/node[0-9]* 2>/dev/null | sed 's/.*node//' | tr '\n' ' '; }
cpus="$(cpu_node 0)$(cpu_node 1)"
[ "$nodes" = 2 ] && [ "$cpus" = "0 1 " ]; t $? "two NUMA nodes, CPU 0 on node 0 and CPU 1 on node 1" "got $nodes nodes, nodes of CPUs 0 and 1: $cpus"

c=$(cfg CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE)
case "$c" in
*absent) [ "$THP_REQUIRE" = 1 ] && t 1 "CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE=y" "option absent" \
	|| skip "CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE=y" "option not in this kernel's tree" ;;
*) [ "$c" = CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE=y ]; t $? "CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE=y" "got: $c" ;;
esac

before=$(mem ShmemHugePages)
dd if=/dev/zero of=/mnt/tmpfs-huge/smoke bs=1M count=64 2>/dev/null
during=$(mem ShmemHugePages)
[ $((during - before)) -ge 32768 ]; t $? "tmpfs huge=always: 64 MiB write adds >= 32768 kB ShmemHugePages" \
	"before $before kB, after $during kB"
rm /mnt/tmpfs-huge/smoke
after=$(mem ShmemHugePages)
[ "$after" = "$before" ]; t $? "tmpfs huge=always: unlink returns ShmemHugePages" "before $before kB, after unlink $after kB"
exit $bad
