// With memory fragmented so that no free 2 MiB block is left and
// compaction cannot make one, huge=always ramfs falls back: a 160 MiB
// write(2) and a 160 MiB fallocate(2) both succeed, the write's data reads
// back (the fallocated range, zeros), each file holds folios smaller than
// PMD size but still large (orders 1-8, not 4 KiB pages), and
// FileHugePages and nr_file_pages move by exactly the PMD folios and pages
// the file holds.  160 MiB is 80 PMD-sized attempts: more than the 64 for
// which a zone defers direct compaction after earlier failures.  (v3 also
// checked that transparent_hugepage/defrag "never" kept these allocations
// from stalling; v4 does not consult that knob for ramfs: its large folio
// allocations are __GFP_NORETRY with the mapping's gfp, a stated limit.)
//
// Fragmenting: anonymous THPs take every free 2 MiB block (defrag never, so
// their faults do not compact either), each is split and all but its first
// 4 KiB page freed, and the pages kept are mlocked with
// vm.compact_unevictable_allowed = 0, so that no compaction can move them.
// That leaves most of memory free, but in pieces of at most 2 MiB - 4 KiB.
// Proactive compaction is off meanwhile; khugepaged skips the range
// (MADV_NOHUGEPAGE).
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WRITE_SIZE	(160 * MiB)
#define DEFRAG		"/sys/kernel/mm/transparent_hugepage/defrag"
#define ENABLED		"/sys/kernel/mm/transparent_hugepage/enabled"
#define PROACTIVE	"/proc/sys/vm/compaction_proactiveness"
#define UNEVICTABLE	"/proc/sys/vm/compact_unevictable_allowed"
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
	/*
	 * Lock the pages kept, and only them (ONFAULT: nothing is faulted
	 * in): unevictable, which compaction may not move here.
	 */
	if (*off > start && mlock2(region + start, *off - start, MLOCK_ONFAULT))
		msg("mlock2: %s\n", strerror(errno));
	return n;
}

/*
 * Returns the number of free 2 MiB blocks left after compaction.  The
 * first round stops short of the watermarks (with THP on, min_free_kbytes
 * is near 90 MiB), in 2 MiB blocks that the freed memory then makes
 * usable; and compaction still makes blocks whole out of those that held
 * only a few movable pages of others when we filled.  So compact after
 * each round and go round again, until no block is left or a round
 * finds none.
 */
static long fragment(void)
{
	size_t len = (size_t)meminfo_kb("MemFree") * KiB * 2 & ~(HPAGE - 1), off = 0, n;
	unsigned char *region;
	long left = -1;
	int round;

	raw_len = len + HPAGE;	/* address space only: twice MemFree */
	raw = mmap(NULL, raw_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	region = (unsigned char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	for (round = 0; round < 8; round++) {
		n = fill_and_split(region, len, &off);
		nr_thp += n;
		/* Drains the per-CPU LRU and mlock batches first. */
		write_bytes("/proc/sys/vm/compact_memory", "1", 1);
		left = free_2m_blocks(-1);
		msg("fragmenting, round %d: %zu THPs split, %ld free 2 MiB blocks left after compact_memory\n",
		    round + 1, n, left);
		if (!n || left <= 0)
			break;
	}
	return left;
}

enum how { WRITE, FALLOCATE };
static const char *const how_name[] = { "write(2)", "fallocate(2)" };

/*
 * Make the 160 MiB file by @how and check it: one result.  @left is what
 * fragmenting left, for the message.
 */
static void fall_back(const char *dir, enum how how, long left)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	long fhp0, nr0, fhp, nr, n;
	char path[128], text[200] = "";
	long long bad = 0;
	double t0 = now_s();
	int fd, err, o, mid = 0;

	snprintf(path, sizeof(path), "%s/defrag", dir);
	fhp0 = meminfo_now_kb("FileHugePages");
	nr0 = nr_file_pages();
	if (how == WRITE) {
		err = write_file(path, WRITE_SIZE, MiB, 21);
	} else {
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		err = fd < 0 || fallocate(fd, 0, 0, WRITE_SIZE);
		if (fd >= 0)
			close(fd);
	}
	fhp = meminfo_now_kb("FileHugePages") - fhp0;
	nr = nr_file_pages() - nr0;
	msg("%s of %lu MiB in %.2fs%s\n", how_name[how], WRITE_SIZE / MiB, now_s() - t0,
	    err ? " (FAILED)" : "");
	if (!err) {
		fd = open(path, O_RDONLY);
		bad = fd < 0 ? 0 : how == WRITE ? fd_check_pattern(fd, 0, WRITE_SIZE, 21) :
			      fd_check_zero(fd, 0, WRITE_SIZE);
		if (fd >= 0)
			close(fd);
	}
	n = orders_of(path, WRITE_SIZE, hist, text, sizeof(text));
	unlink(path);
	for (o = 1; o < HPAGE_ORDER; o++)
		mid += hist[o] > 0;
	/*
	 * Fewer PMD folios than attempts shows the fragmentation held; the
	 * rest must be large folios all the same, and the counters exact.
	 */
	ksft_test_result(!err && bad < 0 && n > 0 && hist[HPAGE_ORDER] < WRITE_SIZE / HPAGE && mid &&
			 (left == 0 || hist[HPAGE_ORDER] > 0) &&
			 fhp == (long)(hist[HPAGE_ORDER] * HPAGE / KiB) &&
			 nr == (long)(WRITE_SIZE / PAGE),
			 "defrag: fragmented (%ld free 2 MiB blocks left), %lu MiB %s to huge=always ramfs falls back: err %d, first bad byte %lld, folios by order %s (want fewer than %lu of order %d, some if blocks were left, and some of orders 1-%d), FileHugePages %+ld kB (want %+ld), nr_file_pages %+ld (want +%lu)\n",
			 left, WRITE_SIZE / MiB, how_name[how], err, bad, text, WRITE_SIZE / HPAGE,
			 HPAGE_ORDER, HPAGE_ORDER - 1, fhp,
			 n > 0 ? (long)(hist[HPAGE_ORDER] * HPAGE / KiB) : -1L, nr, WRITE_SIZE / PAGE);
}

static const char *dir;

/*
 * Leave free memory as whole as it was found.  The page kept of each block
 * goes, when unmapped, to the per-CPU free list of the CPU that unmaps it,
 * and waits there while the list is under its high mark (thousands of
 * pages here): no block it sits in can merge, and compaction cannot move
 * it.  On 6.1 no sysctl drained a CPU's lists of its own node's zones
 * (vmstat drains other nodes' ones, a batch now and then; not rechecked
 * on 6.12, where it is harmless either way), but taking a
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

/* PMD folios of a 4 MiB write to @dir: what huge=always gives unfragmented. */
static long pmd_folios_of_write(const char *dir)
{
	unsigned long hist[MAX_FOLIO_ORDER] = { 0 };
	char path[128], text[64];
	long n;

	snprintf(path, sizeof(path), "%s/control", dir);
	n = write_file(path, 4 * MiB, MiB, 22) ? -1 :
	    orders_of(path, 4 * MiB, hist, text, sizeof(text));
	unlink(path);
	return n < 0 ? -1 : (long)hist[HPAGE_ORDER];
}

/*
 * Three results: the fragmentation held against compaction (the control:
 * without it the others show nothing), then the write and the fallocate.
 */
static void test_defrag(void)
{
	long left, pre, before = free_2m_blocks(-1);

	/* All restored at exit. */
	setting_set(PROACTIVE, "0");
	setting_set(UNEVICTABLE, "0");
	setting_set(DEFRAG, "never");
	if (!strcmp(setting_get(ENABLED) ?: "", "never"))
		setting_set(ENABLED, "madvise");
	pre = pmd_folios_of_write(dir);
	left = fragment();
	msg("fragmented: %zu THPs split to one mlocked page each (Mlocked %ld kB), %ld free 2 MiB blocks left after compact_memory, MemFree %ld kB\n",
	    nr_thp, meminfo_kb("Mlocked"), left, meminfo_kb("MemFree"));
	ksft_test_result(pre == 2 && nr_thp > 0 && left >= 0 && left < (long)(WRITE_SIZE / HPAGE),
			 "defrag: before fragmenting a 4 MiB write got %ld PMD folios (want 2); fragmented (control): %zu THPs split, %ld free 2 MiB blocks left after compact_memory (want fewer than %lu)\n",
			 pre, nr_thp, left, WRITE_SIZE / HPAGE);
	fall_back(dir, WRITE, left);
	fall_back(dir, FALLOCATE, left);
	if (raw != MAP_FAILED)
		give_back(before);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "defrag", test_defrag, 3 },
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
