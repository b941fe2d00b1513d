// Accounting: for each policy and each way of creating folios, FileHugePages
// (global, per node), nr_file_hugepages, nr_file_pages and memcg file_thp
// and file move by exactly the expected amount and return to baseline after
// unlink.  v4 counts no event per huge allocation: these counters are the
// whole account.  A PMD folio missing is excused only when the allocator
// had no free 2 MiB block left on our node after compaction and a retry.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define SIZE	(64 * MiB)
#define NR	(SIZE / HPAGE)
#define CG	"/sys/fs/cgroup/thp-account"

enum how { WRITE, WRITE_SIZED, READ_HOLE, FALLOCATE, WRITE_FAULT };
static const char *const how_name[] = { "write", "write into ftruncated", "read of hole",
					"fallocate", "shared write fault" };

struct snap {
	long fhp, node, nr_thps, nr_pages, unevict, memcg, memcg_file;
};

static void snap(struct snap *s)
{
	vm_stat_refresh();
	s->fhp = meminfo_kb("FileHugePages");
	s->node = node_meminfo_kb(probe_node, "FileHugePages");
	s->nr_thps = vmstat_get("nr_file_hugepages");
	s->nr_pages = vmstat_get("nr_file_pages");
	s->unevict = meminfo_kb("Unevictable");
	s->memcg = memcg_stat_exact(CG, "file_thp");
	s->memcg_file = memcg_stat_exact(CG, "file");
}

/*
 * A PMD folio that did not come is the allocator's doing only if, after
 * compaction (and the caller's retry), fewer free 2 MiB blocks than the
 * folios missing are left on the node we allocate from (numactl binds us
 * to --node).
 */
static void compact(void)
{
	write_bytes("/proc/sys/vm/compact_memory", "1", 1);
}

static int allocator_short(long missing)
{
	long free = free_2m_blocks(probe_node);

	return free >= 0 && free < missing;
}

/* Every page of a MAP_SHARED mapping of @fd (@len long) written once. */
static int write_faults(int fd, size_t len)
{
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t off;

	if (p == MAP_FAILED)
		return -1;
	for (off = 0; off < len; off += PAGE)
		p[off] = 7;
	return munmap(p, len);
}

/*
 * The file of @how, in 1 MiB calls (reads of the hole must read zeros),
 * or by one fallocate(2), or by one write fault per page.
 */
static int make(const char *path, enum how how)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), ret = 0;

	if (fd < 0)
		return -1;
	if (how == WRITE_SIZED || how == READ_HOLE || how == WRITE_FAULT)
		ret = ftruncate(fd, SIZE);
	if (!ret && how == READ_HOLE)
		ret = fd_check_zero(fd, 0, SIZE) < 0 ? 0 : -1;
	else if (!ret && how == FALLOCATE)
		ret = fallocate(fd, 0, 0, SIZE);
	else if (!ret && how == WRITE_FAULT)
		ret = write_faults(fd, SIZE);
	else if (!ret)
		ret = fill_fd(fd, SIZE, MiB, 7);
	close(fd);
	return ret;
}

/* Expected number of huge folios for this policy and way of creation. */
static long expect(const char *policy, enum how how)
{
	if (!strcmp(policy, "always"))
		return NR;
	/*
	 * Within i_size, or within the end of the fallocate(2) call, or a
	 * shared write fault within i_size; the 1 MiB appending writes never
	 * reach a 2 MiB boundary in one call, and a read of a hole gets huge
	 * folios only under always.
	 */
	if (!strcmp(policy, "within_size"))
		return how == WRITE_SIZED || how == FALLOCATE || how == WRITE_FAULT ? NR : 0;
	return 0;
}

static const char *const policies[] = { "always", "within_size", "never" };
static const char *dir;
static int in_cg;	/* we joined CG: memcg file_thp is checked */

/* Make the file of @how under @policy between two snapshots. */
static int attempt(const char *path, enum how how, struct snap *a, struct snap *b)
{
	int err;

	snap(a);
	err = make(path, how);
	snap(b);
	return err;
}

static void one(const char *policy, enum how how)
{
	struct snap a, b, c;
	char path[128];
	long n = expect(policy, how), kb = n * HPAGE / KiB;
	int ok, err;

	snprintf(path, sizeof(path), "%s/acct", dir);
	knob_set(policy);
	err = attempt(path, how, &a, &b);
	if (!err && b.nr_thps - a.nr_thps < n) {
		unlink(path);
		compact();
		err = attempt(path, how, &a, &b);
	}
	ok = !err && b.fhp - a.fhp == kb && b.node - a.node == kb &&
	     b.nr_thps - a.nr_thps == n && b.nr_pages - a.nr_pages == (long)(SIZE / PAGE) &&
	     (!in_cg || (a.memcg >= 0 && b.memcg >= 0 && b.memcg - a.memcg == n * (long)HPAGE &&
			 b.memcg_file - a.memcg_file == (long)SIZE));
	if (!err && b.nr_thps - a.nr_thps < n && allocator_short(n - (b.nr_thps - a.nr_thps)))
		ksft_test_result_skip("not run: allocator: account: %s, %s: %ld of %ld PMD folios, %ld free 2 MiB blocks on node %d after compaction and a retry\n",
				      policy, how_name[how], b.nr_thps - a.nr_thps, n,
				      free_2m_blocks(probe_node), probe_node);
	else
		ksft_test_result(ok, "account: %s, %s: FileHugePages %+ld kB (want %+ld), node%d %+ld, nr_file_hugepages %+ld, nr_file_pages %+ld (want %+ld), memcg file_thp %+ld, file %+ld (want %+ld), err %d\n",
				 policy, how_name[how], b.fhp - a.fhp, kb, probe_node, b.node - a.node,
				 b.nr_thps - a.nr_thps, b.nr_pages - a.nr_pages, (long)(SIZE / PAGE),
				 b.memcg - a.memcg, b.memcg_file - a.memcg_file,
				 in_cg ? (long)SIZE : 0L, err);
	unlink(path);
	snap(&c);
	ksft_test_result(c.fhp == a.fhp && c.node == a.node && c.nr_thps == a.nr_thps &&
			 c.nr_pages == a.nr_pages && c.unevict == a.unevict &&
			 (!in_cg || (a.memcg >= 0 && c.memcg == a.memcg &&
				     c.memcg_file == a.memcg_file)),
			 "account: %s, %s: unlink returns FileHugePages (%+ld kB), nr_file_pages (%+ld), Unevictable (%+ld kB), memcg file_thp (%+ld), file (%+ld)\n",
			 policy, how_name[how], c.fhp - a.fhp, c.nr_pages - a.nr_pages,
			 c.unevict - a.unevict, c.memcg - a.memcg, c.memcg_file - a.memcg_file);
}

static void test_all_ways(void)
{
	unsigned int p, h;

	for (p = 0; p < ARRAY_SIZE(policies); p++)
		for (h = 0; h < ARRAY_SIZE(how_name); h++)
			one(policies[p], h);
}

/*
 * Free memory in kB: MemFree (NR_FREE_PAGES, refreshed: its per-CPU diffs
 * lag by up to a threshold per CPU and zone) plus the per-CPU free lists,
 * which MemFree leaves out and where a freed 2 MiB folio may wait whole.
 */
static long free_kb(void)
{
	long pcp;

	vm_stat_refresh();
	pcp = pcp_pages();
	return pcp < 0 ? -1 : meminfo_kb("MemFree") + pcp * (long)(PAGE / KiB);
}

/*
 * A leak loses its memory in every round; other tasks' noise is not the
 * same twice, so any one of 3 rounds within 1 MiB passes.
 */
static void test_memfree(void)
{
	char path[128];
	long before = 0, after = 0;
	int err, round;

	snprintf(path, sizeof(path), "%s/memfree", dir);
	knob_set("always");
	err = make(path, WRITE);	/* warm-up */
	unlink(path);
	for (round = 1; !err; round++) {
		before = free_kb();
		/* A write that failed would return nothing because it took nothing. */
		err = make(path, WRITE);
		unlink(path);
		after = free_kb();
		if ((before >= 0 && after >= 0 && labs(after - before) <= 1024) || round == 3)
			break;
	}
	ksft_test_result(!err && before >= 0 && after >= 0 && labs(after - before) <= 1024,
			 "account: MemFree + per-CPU free lists return within 1 MiB after a %lu MiB write+unlink (%+ld kB in round %d, err %d)\n",
			 SIZE / MiB, after - before, round, err);
}

/*
 * One read(2) from cached data into holes and back, under always: a
 * 10 MiB file whose PMD folios 0 and 3 hold data at their ends (the last
 * page of folio 0, the first and last pages of folio 3), read from 1 MiB
 * to EOF in one call into a buffer that holds no zeros.  Setting up, each
 * 4 KiB write into an empty 2 MiB block gets the PMD around it (always:
 * PMD first), even the one that starts 4 KiB before the block's end: two
 * PMD folios.  Every byte comes back, and the holes, and only they, get
 * PMD folios as they are read: 2-6 MiB and 8-10 MiB, three.
 */
#define ACROSS_FROM	MiB
#define ACROSS_LEN	(9 * MiB)

static const unsigned long across_data[] = { 2 * MiB - PAGE, 6 * MiB, 8 * MiB - PAGE };

struct across {
	long setup, nr;		/* PMD folios the setup and the read made */
	ssize_t got;		/* what the read returned */
	long long bad;		/* first bad byte, or -1 */
	int err;
};

static void read_across(const char *path, struct across *r)
{
	static unsigned char buf[ACROSS_LEN], want[ACROSS_LEN];
	unsigned int i;
	long nr0;
	int fd;

	*r = (struct across){ .got = -1, .bad = -1 };
	vm_stat_refresh();
	nr0 = vmstat_get("nr_file_hugepages");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	r->err = fd < 0 || ftruncate(fd, ACROSS_FROM + ACROSS_LEN);
	memset(want, 0, sizeof(want));
	for (i = 0; i < ARRAY_SIZE(across_data); i++) {
		unsigned char *w = want + across_data[i] - ACROSS_FROM;

		pattern_fill(w, PAGE, across_data[i], 5);
		r->err = r->err || pwrite(fd, w, PAGE, across_data[i]) != PAGE;
	}
	vm_stat_refresh();
	r->setup = vmstat_get("nr_file_hugepages") - nr0;
	nr0 += r->setup;
	memset(buf, 0xa5, sizeof(buf));
	if (!r->err)
		r->got = pread(fd, buf, sizeof(buf), ACROSS_FROM);
	vm_stat_refresh();
	r->nr = vmstat_get("nr_file_hugepages") - nr0;
	for (i = 0; r->got > 0 && i < (size_t)r->got && r->bad < 0; i++)
		if (buf[i] != want[i])
			r->bad = ACROSS_FROM + i;
	if (fd >= 0)
		close(fd);
}

static void test_read_across(void)
{
	struct across r;
	char path[128];

	snprintf(path, sizeof(path), "%s/across", dir);
	knob_set("always");
	read_across(path, &r);
	if (!r.err && r.setup + r.nr < 5) {
		unlink(path);
		compact();
		read_across(path, &r);
	}
	unlink(path);
	if (!r.err && r.setup <= 2 && r.nr <= 3 && r.setup + r.nr < 5 &&
	    allocator_short(5 - r.setup - r.nr))
		ksft_test_result_skip("not run: allocator: account: read across holes: %ld + %ld of 2 + 3 PMD folios, %ld free 2 MiB blocks on node %d after compaction and a retry\n",
				      r.setup, r.nr, free_2m_blocks(probe_node), probe_node);
	else
		ksft_test_result(!r.err && r.setup == 2 && r.got == (ssize_t)ACROSS_LEN &&
				 r.bad < 0 && r.nr == 3,
				 "account: one read(2) over cached, hole, cached, hole: setup made %ld PMD folios (want 2: each 4 KiB write gets the PMD around it), read %zd of %lu bytes, first bad byte at %lld, nr_file_hugepages %+ld (want +3), err %d\n",
				 r.setup, r.got, ACROSS_LEN, r.bad, r.nr, r.err);
}

/*
 * The adds of the file @st in a trace of mm_filemap_add_to_page_cache
 * ("dev M:m ino HEX pfn=... ofs=... order=N"; inode numbers repeat across
 * mounts, so the device too): those of PMD order in *pmd, the others
 * returned.
 */
static long trace_adds(const char *buf, const struct stat *st, long *pmd)
{
	char key[64];
	const char *p = buf;
	unsigned int order;
	long other = 0;

	snprintf(key, sizeof(key), "dev %u:%u ino %lx ", major(st->st_dev), minor(st->st_dev),
		 (unsigned long)st->st_ino);
	*pmd = 0;
	while ((p = strstr(p, key))) {
		p += strlen(key);
		p = strstr(p, "order=");
		if (!p || sscanf(p, "order=%u", &order) != 1)
			break;
		if (order == HPAGE_ORDER)
			(*pmd)++;
		else
			other++;
	}
	return other;
}

/*
 * A 4 MiB file under always, traced: the adds of the file's inode (-1 on
 * an error, with *err set).
 */
static long traced(const char *path, const char *ev, long *pmd, int *err)
{
	static char buf[256 * 1024];
	struct stat st = { 0 };
	long other = -1;
	int fd;

	*pmd = 0;
	/* Opened with O_TRUNC the buffer empties: no entries of an earlier run. */
	fd = open("/sys/kernel/tracing/trace", O_WRONLY | O_TRUNC);
	*err = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	*err = *err ?: write_bytes(ev, "1", 1) ?: write_file(path, 4 * MiB, MiB, 3);
	write_bytes(ev, "0", 1);
	buf[0] = 0;
	*err = *err ?: read_text("/sys/kernel/tracing/trace", buf, sizeof(buf));
	*err = *err ?: stat(path, &st) ? -errno : 0;
	if (!*err)
		other = trace_adds(buf, &st, pmd);
	unlink(path);
	return other;
}

/* mm_filemap_add_to_page_cache names the inode and the folio order. */
static void test_tracepoint(void)
{
	const char *ev = "/sys/kernel/tracing/events/filemap/mm_filemap_add_to_page_cache/enable";
	long pmd, other, want = 4 * MiB / HPAGE;
	char path[128];
	int err;

	if (access(ev, W_OK)) {
		ksft_test_result_skip("account: tracepoint not available (%s)\n", ev);
		return;
	}
	snprintf(path, sizeof(path), "%s/trace", dir);
	knob_set("always");
	other = traced(path, ev, &pmd, &err);
	if (!err && pmd < want) {
		compact();
		other = traced(path, ev, &pmd, &err);
	}
	/* Two PMD-order adds of its inode, no other. */
	if (!err && pmd < want && allocator_short(want - pmd))
		ksft_test_result_skip("not run: allocator: account: %ld of %ld PMD-order adds, %ld free 2 MiB blocks on node %d after compaction and a retry\n",
				      pmd, want, free_2m_blocks(probe_node), probe_node);
	else
		ksft_test_result(!err && pmd == want && other == 0,
				 "account: mm_filemap_add_to_page_cache: %ld adds of order %d and %ld of others for the file's inode (err %d)\n",
				 pmd, HPAGE_ORDER, other, err);
}

/*
 * A memcg of our own, so that memory.stat file_thp is ours alone.  Without
 * one the memcg part of each case cannot be checked: say so as a SKIP (a
 * failure under --require) rather than pass the cases quietly without it.
 */
static char pid[16];

static void join_memcg(void)
{
	int err;

	mkdir(CG, 0755);
	snprintf(pid, sizeof(pid), "%d", getpid());
	err = write_bytes(CG "/cgroup.procs", pid, strlen(pid));
	in_cg = !err && cgroup_stat(CG, "memory.stat", "file_thp") >= 0;
	if (in_cg)
		ksft_test_result_pass("account: in memcg %s, memory.stat file_thp checked in every case\n", CG);
	else
		ksft_test_result_skip("account: memcg file_thp not checked: %s\n",
				      err ? "cannot join " CG : "no file_thp in " CG "/memory.stat");
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "memcg", join_memcg, 1 },
		{ "policies x ways", test_all_ways, ARRAY_SIZE(policies) * ARRAY_SIZE(how_name) * 2 },
		{ "MemFree", test_memfree, 1 },
		{ "read across holes", test_read_across, 1 },
		{ "tracepoint", test_tracepoint, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	dir = mount_fs("ramfs", "");
	if (!dir)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	if (in_cg) {
		write_bytes("/sys/fs/cgroup/cgroup.procs", pid, strlen(pid));
		rmdir(CG);
	}
	ksft_finished();
}
