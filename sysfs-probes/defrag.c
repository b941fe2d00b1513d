// /sys/kernel/mm/transparent_hugepage/defrag governs ramfs huge folios as
// it does anonymous and shmem ones.  With memory fragmented so that no free
// 2 MiB block is left, a 160 MiB write to huge=always ramfs under defrag
// "never" must not stall: compact_stall and allocstall_* stay put, while
// the write succeeds and thp_write_alloc(_failed) count all 80 attempts.  The
// same write under "always" must compact or reclaim (the control: it shows
// the fragmentation held).  160 MiB is 80 huge folio allocations: more than
// the 64 attempts for which a zone defers direct compaction after earlier
// failures (other tests', or a ramfs folio's: it is not movable, so async
// compaction finds nothing to move for it), so that the control cannot
// miss every attempt.
//
// Fragmenting: anonymous THPs take every free 2 MiB block (defrag never, so
// their faults do not compact either), each is split and all but its first
// 4 KiB page freed.  That leaves most of memory free, but in pieces of at
// most 2 MiB - 4 KiB, and a compaction needs to move only one page to make
// a block.  Proactive compaction is off meanwhile, so that kcompactd does
// not undo it; khugepaged skips the range (MADV_NOHUGEPAGE).
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WRITE_SIZE	(160 * MiB)
#define DEFRAG		"/sys/kernel/mm/transparent_hugepage/defrag"
#define ENABLED		"/sys/kernel/mm/transparent_hugepage/enabled"
#define PROACTIVE	"/proc/sys/vm/compaction_proactiveness"
#define FLOOR_KB	(32 * 1024L)	/* stop filling with this much free */

static unsigned char *raw;
static size_t raw_len, nr_thp;

/*
 * Fault THPs into @region from @*off on, node by node, until no free 2 MiB
 * block is left that a THP fault could take; then split each and free all
 * but its first page.  Returns the number of THPs it made.
 */
static size_t fill_and_split(unsigned char *region, size_t len, size_t *off)
{
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t start = *off, n = 0, i;

	madvise(region, len, MADV_HUGEPAGE);
	/* A THP fault takes memory from its CPU's node only: fill each. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		long fallback0 = vmstat_get("thp_fault_fallback");

		if (pin_cpu(cpu))
			continue;
		while (*off < len && meminfo_kb("MemFree") > FLOOR_KB) {
			region[*off] = 1;
			*off += HPAGE;
			/* Nothing left here: that fault got 4 KiB instead. */
			if (vmstat_get("thp_fault_fallback") != fallback0)
				break;
			n++;
		}
	}
	/* khugepaged must not collapse them again. */
	madvise(region, len, MADV_NOHUGEPAGE);
	for (i = start; i < *off; i += HPAGE) {
		unsigned char *p = region + i;
		char cmd[96];

		/* A no-op where the fault got 4 KiB. */
		snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", getpid(), (unsigned long)p,
			 (unsigned long)(p + PAGE));
		if (write_bytes(SPLIT, cmd, strlen(cmd)) ||
		    madvise(p + PAGE, HPAGE - PAGE, MADV_DONTNEED))
			msg("split/free at %p failed\n", p);
	}
	return n;
}

/*
 * Returns the number of free 2 MiB blocks left.  The first round stops
 * short of the watermarks (with THP on, min_free_kbytes is near 90 MiB),
 * in 2 MiB blocks that the freed memory then makes usable: go round again
 * until none is left or a round finds none.
 */
static long fragment(void)
{
	size_t len = (size_t)meminfo_kb("MemFree") * KiB * 2 & ~(HPAGE - 1), off = 0, n;
	unsigned char *region;
	long left;
	int round;

	raw_len = len + HPAGE;	/* address space only: twice MemFree */
	raw = mmap(NULL, raw_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	region = (unsigned char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	for (round = 0; round < 4; round++) {
		n = fill_and_split(region, len, &off);
		nr_thp += n;
		left = free_2m_blocks(-1);
		msg("fragmenting, round %d: %zu THPs split, %ld free 2 MiB blocks left\n",
		    round + 1, n, left);
		if (!n || left <= 0)
			break;
	}
	return left;
}

struct stalls {
	long compact, alloc, huge, fallback;
	long pmd_fallback;	/* hugepages-2048kB/stats/page_cache_fallback */
	int err;	/* the write failed */
};

static void stalls(struct stalls *s)
{
	vm_stat_refresh();
	s->compact = vmstat_get("compact_stall");
	s->alloc = vmstat_sum("allocstall_");
	s->huge = vmstat_get("thp_write_alloc");
	s->fallback = vmstat_get("thp_write_alloc_failed");
	s->pmd_fallback = size_stat(2048, "stats/page_cache_fallback");
}

/* The write under @defrag; @d gets the counters' deltas. */
static void write_under(const char *dir, const char *defrag, struct stalls *d)
{
	struct stalls a, b;
	char path[128];
	double t0;
	int err;

	snprintf(path, sizeof(path), "%s/defrag", dir);
	setting_set(DEFRAG, defrag);
	stalls(&a);
	t0 = now_s();
	err = write_file(path, WRITE_SIZE, MiB, 21);
	stalls(&b);
	unlink(path);
	d->compact = b.compact - a.compact;
	d->alloc = b.alloc - a.alloc;
	d->huge = b.huge - a.huge;
	d->fallback = b.fallback - a.fallback;
	d->pmd_fallback = a.pmd_fallback < 0 ? -1 : b.pmd_fallback - a.pmd_fallback;
	d->err = err;
	msg("defrag %s: %lu MiB in %.2fs%s: compact_stall %+ld, allocstall_* %+ld, huge folios %+ld, fallbacks %+ld\n",
	    defrag, WRITE_SIZE / MiB, now_s() - t0, err ? " (write failed)" : "",
	    d->compact, d->alloc, d->huge, d->fallback);
}

static const char *dir;

/*
 * Leave free memory as whole as it was found.  The page kept of each block
 * goes, when unmapped, to the per-CPU free list of the CPU that unmaps it,
 * and waits there while the list is under its high mark (thousands of
 * pages here): no block it sits in can merge, and compaction cannot move
 * it.  On 6.1 no sysctl drains a CPU's lists of its own node's zones
 * (vmstat drains other nodes' ones, a batch now and then), but taking a
 * CPU offline empties all of its lists (page_alloc_cpu_dead()).  So all
 * is unmapped on the last CPU that can go offline, which then goes
 * offline and back.  Without one the memory is unmapped all the same.
 */
static void give_back(long before)
{
	long cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	char online[64] = "";
	int cycled = 0;

	for (; cpu > 0; cpu--) {
		snprintf(online, sizeof(online), "/sys/devices/system/cpu/cpu%ld/online", cpu);
		if (!access(online, W_OK) && !pin_cpu(cpu))
			break;
	}
	munmap(raw, raw_len);
	raw = MAP_FAILED;
	if (cpu > 0 && !pin_cpu(0)) {
		cycled = !write_bytes(online, "0", 1);
		/* The tests after this one want every CPU. */
		if (write_bytes(online, "1", 1))
			ksft_exit_fail_msg("%s: cannot bring CPU %ld back online\n", online, cpu);
	}
	msg("given back%s: %ld free 2 MiB blocks (%ld before fragmenting)\n",
	    cycled ? ", per-CPU lists emptied" : ", per-CPU lists NOT emptied",
	    free_2m_blocks(-1), before);
}

/* Two results: under never (the claim), under always (the control). */
static void test_defrag(void)
{
	struct stalls never, always;
	long left, before = free_2m_blocks(-1);
	int moved;

	/* All restored at exit. */
	setting_set(PROACTIVE, "0");
	setting_set(DEFRAG, "never");
	if (!strcmp(setting_get(ENABLED) ?: "", "never"))
		setting_set(ENABLED, "madvise");
	left = fragment();
	msg("fragmented: %zu THPs split to one page each, %ld free 2 MiB blocks left, MemFree %ld kB\n",
	    nr_thp, left, meminfo_kb("MemFree"));
	write_under(dir, "never", &never);
	write_under(dir, "always", &always);
	if (raw != MAP_FAILED)
		give_back(before);
	moved = always.compact > 0 || always.alloc > 0;
	/*
	 * No stall is only news if the write worked and tried every folio.
	 * Each PMD allocation that failed counts as a fallback of that size.
	 */
	ksft_test_result(moved && !never.compact && !never.alloc && !never.err &&
			 never.huge + never.fallback == (long)(WRITE_SIZE / HPAGE) &&
			 never.fallback >= 1 && never.pmd_fallback == never.fallback,
			 "defrag: never, fragmented: %lu MiB to huge=always ramfs%s: compact_stall %+ld, allocstall_* %+ld (want 0; control under always %s), huge folios %+ld + fallbacks %+ld (want %lu attempts, some fallbacks), hugepages-2048kB page_cache_fallback %+ld (want the fallbacks)\n",
			 WRITE_SIZE / MiB, never.err ? " (write FAILED)" : "", never.compact,
			 never.alloc, moved ? "moved" : "did NOT move: fragmentation failed",
			 never.huge, never.fallback, WRITE_SIZE / HPAGE, never.pmd_fallback);
	ksft_test_result(moved,
			 "defrag: always, fragmented (control): compact_stall %+ld, allocstall_* %+ld (want > 0; %zu THPs split, %ld free 2 MiB blocks were left)\n",
			 always.compact, always.alloc, nr_thp, left);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "defrag", test_defrag, 2 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	if (access(SPLIT, W_OK) || access(DEFRAG, W_OK))
		ksft_exit_skip("%s or %s not writable\n", SPLIT, DEFRAG);
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
