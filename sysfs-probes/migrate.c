// Migration: a PMD-sized page cache folio that move_pages(2) moves from
// node 0 to node 1 must take its THP counter along, and stay one PMD-sized
// folio.  Stock 6.12's __folio_migrate_mapping() moves NR_FILE_PAGES,
// NR_SHMEM and NR_SHMEM_THPS but not NR_FILE_THPS (v4 patch 2 moves it):
// per-node FileHugePages (ramfs) would stay on node 0, and when the folio
// is freed on node 1 that node's counter goes below zero (read as 0) while
// node 0's stays up for good.  The global sums stay right, so only the
// per-node files and memcg's memory.numa_stat file_thp show it.  tmpfs
// (ShmemHugePages, moved by stock 6.12) is the control.
//
// Each folio is a read fault into a hole of a sparse file mapped
// MAP_SHARED on huge=always, with allocations bound to node 0: one clean,
// zero, PMD-sized folio.  Clean matters on ramfs, which has no
// migrate_folio: a dirty ramfs folio cannot migrate.  A folio that did not
// move is a failure with its errno, not a pass: the counter checks would
// mean nothing.  Fewer than two nodes or no move_pages (CONFIG_MIGRATION
// off) skip the whole probe.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FROM	0
#define TO	1
#define KB	((long)(HPAGE / KiB))
#define CG	"/sys/fs/cgroup/thp-migrate"
/* linux/mempolicy.h: set_mempolicy(2) and move_pages(2) flags. */
#define BIND		2	/* MPOL_BIND */
#define MOVE		2	/* MPOL_MF_MOVE */

struct fs {
	const char *name, *type, *meminfo, *memcg;
	int needs_series;	/* ramfs huge=always is the series' own */
};

static const struct fs fses[] = {
	{ "ramfs", "ramfs", "FileHugePages", "file_thp", 1 },
	{ "tmpfs", "tmpfs", "ShmemHugePages", "shmem_thp", 0 },
};

/* Results per file system: made, moved, nodes, memcg, freed, memcg freed. */
#define PER_FS	6

/* Node @node's value of @field ("file_thp N0=... N1=...") in CG's memory.numa_stat, bytes. */
static long long numa_stat(const char *field, int node)
{
	static char buf[8192];
	size_t fl = strlen(field);
	char tag[16], *line, *at;

	if (read_text(CG "/memory.numa_stat", buf, sizeof(buf)))
		return -1;
	snprintf(tag, sizeof(tag), " N%d=", node);
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, field, fl) || line[fl] != ' ')
			continue;
		at = strstr(line, tag);
		/* Unsigned in the file: a counter below zero would come out huge. */
		return at ? (long long)strtoull(at + strlen(tag), NULL, 10) : -1;
	}
	return -1;
}

struct counts {
	long node[2], all;
	long long cg[2];
};

static int in_cg;

static void counts(const struct fs *f, struct counts *c)
{
	int n;

	*c = (struct counts){ .all = -1 };
	vm_stat_refresh();
	c->all = meminfo_kb(f->meminfo);
	for (n = 0; n < 2; n++) {
		c->node[n] = node_meminfo_kb(n, f->meminfo);
		c->cg[n] = in_cg ? numa_stat(f->memcg, n) : 0;
	}
}

/*
 * memcg flushes its per-CPU stats when enough changed or every 2 s; read
 * again after that long if the first reading is not what was wanted.
 */
static void counts_settled(const struct fs *f, struct counts *c, const struct counts *base,
			   long long d0, long long d1)
{
	counts(f, c);
	if (in_cg && (c->cg[0] - base->cg[0] != d0 || c->cg[1] - base->cg[1] != d1)) {
		sleep(5);
		counts(f, c);
	}
}

static long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, MOVE);
}

/* The node the page at @p is on (move_pages with no target), or -errno. */
static int node_of(void *p)
{
	int status = -ENOENT;

	if (sys_move_pages(1, &p, NULL, &status))
		return -errno;
	return status;
}

static int bind_to(int node)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_set_mempolicy, BIND, &mask, sizeof(mask) * 8);
}

static void one(const struct fs *f)
{
	struct counts a, b, c, d;
	const char *dir;
	unsigned char *p = MAP_FAILED;
	volatile unsigned char sink;
	long long flags = -1;
	int fd = -1, to = TO, status = -ENOENT, made_on, moved_to, clean, order;
	long rc;
	char path[128];
	int i;

	if (f->needs_series && !has_pagecache_thp()) {
		ksft_print_msg("%s: huge=always is the series' own\n", f->name);
		for (i = 0; i < PER_FS; i++)
			ksft_test_result_skip("migrate: %s: %s is not set\n", f->name, PAGECACHE_OPT);
		return;
	}
	dir = mount_fs(f->type, "huge=always");
	if (!dir) {
		ksft_test_result_fail("migrate: %s: mount huge=always: %s\n", f->name, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/migrate", dir);
	counts(f, &a);

	/* One clean zero folio, allocated on node FROM. */
	if (bind_to(FROM)) {
		ksft_test_result_fail("migrate: %s: set_mempolicy(MPOL_BIND, node %d): %s\n",
				      f->name, FROM, strerror(errno));
		return;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !ftruncate(fd, HPAGE))
		p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		sink = p[HPAGE / 2];
		(void)sink;
		flags = page_flags(p);
	}
	syscall(SYS_set_mempolicy, 0, NULL, 0);		/* MPOL_DEFAULT */
	counts_settled(f, &b, &a, HPAGE, 0);
	made_on = p == MAP_FAILED ? -ENOENT : node_of(p);
	clean = flags >= 0 && !((flags >> KPF_DIRTY) & 1);
	ksft_test_result(p != MAP_FAILED && made_on == FROM && flags >= 0 &&
			 ((flags >> KPF_THP) & 1) && ((flags >> KPF_COMPOUND_HEAD) & 1) &&
			 (clean || !f->needs_series) &&
			 b.node[FROM] - a.node[FROM] == KB && b.node[TO] == a.node[TO] &&
			 b.all - a.all == KB,
			 "migrate: %s: a read fault makes one %s PMD-sized folio on node %d: node %d, kpageflags thp %lld head %lld dirty %lld, %s node%d %+ld kB node%d %+ld kB global %+ld kB (want %+ld, 0, %+ld)\n",
			 f->name, f->needs_series ? "clean" : "zero", FROM, made_on,
			 flags < 0 ? -1 : (flags >> KPF_THP) & 1,
			 flags < 0 ? -1 : (flags >> KPF_COMPOUND_HEAD) & 1,
			 flags < 0 ? -1 : (flags >> KPF_DIRTY) & 1, f->meminfo,
			 FROM, b.node[FROM] - a.node[FROM], TO, b.node[TO] - a.node[TO],
			 b.all - a.all, KB, KB);
	if (p == MAP_FAILED || made_on != FROM) {
		ksft_print_msg("%s: no folio on node %d to move (open/mmap: %s)\n", f->name, FROM,
			       p == MAP_FAILED ? strerror(errno) : "ok");
		goto out;
	}

	/* Move it: the status must say node TO, or the checks below mean nothing. */
	rc = sys_move_pages(1, (void **)&p, &to, &status);
	/*
	 * Migration may leave the range unmapped (a PMD mapping of a file
	 * folio is zapped, not replaced by migration entries): read it back
	 * in, from the page cache, before asking where it is.
	 */
	sink = p[HPAGE / 2];
	(void)sink;
	moved_to = node_of(p);
	/* Moved whole: migration must not have split it into smaller folios. */
	order = folio_order_at(p);
	ksft_test_result(!rc && status == TO && moved_to == TO && order == HPAGE_ORDER,
			 "migrate: %s: move_pages to node %d: returned %ld (%s), status %d (%s), now on node %d, a folio of order %d (want %d)\n",
			 f->name, TO, rc, rc ? strerror(errno) : "ok", status,
			 status < 0 ? strerror(-status) : "a node", moved_to, order, HPAGE_ORDER);
	if (rc || status != TO)
		goto out;

	counts_settled(f, &c, &b, -(long long)HPAGE, HPAGE);
	ksft_test_result(c.node[FROM] - b.node[FROM] == -KB && c.node[TO] - b.node[TO] == KB &&
			 c.all == b.all,
			 "migrate: %s: %s moves with the folio: node%d %+ld kB (want %+ld), node%d %+ld kB (want %+ld), global %+ld kB (want 0)\n",
			 f->name, f->meminfo, FROM, c.node[FROM] - b.node[FROM], -KB,
			 TO, c.node[TO] - b.node[TO], KB, c.all - b.all);
	if (in_cg)
		ksft_test_result(c.cg[FROM] - b.cg[FROM] == -(long long)HPAGE &&
				 c.cg[TO] - b.cg[TO] == (long long)HPAGE,
				 "migrate: %s: memcg numa_stat %s moves: N%d %+lld (want %+lld), N%d %+lld (want %+lld)\n",
				 f->name, f->memcg, FROM, c.cg[FROM] - b.cg[FROM], -(long long)HPAGE,
				 TO, c.cg[TO] - b.cg[TO], (long long)HPAGE);
	else
		ksft_test_result_skip("migrate: %s: memcg numa_stat not checked (no memcg of our own)\n",
				      f->name);

	/* Free it on node TO: both nodes must read as before it was made. */
	munmap(p, HPAGE);
	p = MAP_FAILED;
	close(fd);
	fd = -1;
	unlink(path);
	counts_settled(f, &d, &a, 0, 0);
	ksft_test_result(d.node[FROM] == a.node[FROM] && d.node[TO] == a.node[TO] && d.all == a.all,
			 "migrate: %s: unlink returns %s: node%d %ld kB (before %ld), node%d %ld kB (before %ld), global %+ld kB\n",
			 f->name, f->meminfo, FROM, d.node[FROM], a.node[FROM], TO, d.node[TO],
			 a.node[TO], d.all - a.all);
	if (in_cg)
		ksft_test_result(d.cg[FROM] == a.cg[FROM] && d.cg[TO] == a.cg[TO],
				 "migrate: %s: unlink returns memcg %s: N%d %lld (before %lld), N%d %lld (before %lld)\n",
				 f->name, f->memcg, FROM, d.cg[FROM], a.cg[FROM], TO, d.cg[TO], a.cg[TO]);
	else
		ksft_test_result_skip("migrate: %s: memcg numa_stat not checked after unlink (no memcg of our own)\n",
				      f->name);
out:
	if (p != MAP_FAILED)
		munmap(p, HPAGE);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void test_ramfs(void)
{
	one(&fses[0]);
}

static void test_tmpfs(void)
{
	one(&fses[1]);
}

/*
 * memory.numa_stat of a memcg that holds only this process: join one,
 * or say why not (a SKIP, which fails under --require).
 */
static char self[16];

static void test_memcg(void)
{
	const char *why = NULL;

	snprintf(self, sizeof(self), "%d", getpid());
	if (mkdir(CG, 0755) && errno != EEXIST)
		why = "cannot make " CG;
	else if (write_bytes(CG "/cgroup.procs", self, strlen(self)))
		why = "cannot join " CG;
	else if (numa_stat("file_thp", FROM) < 0 || numa_stat("shmem_thp", TO) < 0)
		why = "no file_thp/shmem_thp N0=/N1= in " CG "/memory.numa_stat";
	in_cg = !why;
	if (in_cg)
		ksft_test_result_pass("migrate: in memcg %s: memory.numa_stat checked per node\n", CG);
	else
		ksft_test_result_skip("migrate: memcg per-node counters not checked: %s\n", why);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "memcg", test_memcg, 1 },
		{ "ramfs", test_ramfs, PER_FS },
		{ "tmpfs", test_tmpfs, PER_FS },
	};

	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE");
	if (node_meminfo_kb(TO, "MemTotal") <= 0)
		ksft_exit_skip("fewer than 2 NUMA nodes with memory: nothing to migrate to\n");
	if (sys_move_pages(0, NULL, NULL, NULL) && errno == ENOSYS)
		ksft_exit_skip("move_pages: ENOSYS (CONFIG_MIGRATION is off)\n");
	probe_run(cases, ARRAY_SIZE(cases));
	if (in_cg) {
		write_bytes("/sys/fs/cgroup/cgroup.procs", self, strlen(self));
		rmdir(CG);
	}
	ksft_finished();
}
