// split_huge_page on ramfs folios through debugfs split_huge_pages: every
// offset class, clean/dirty, shared PMD mappings in two processes, private
// and mlocked mappings, and a split that must fail (a pipe holds a page).
// After each: data matches, counters agree, and the file keeps working.
// Then large folios of every order below PMD size (write(2) sizes them by
// the write on huge=never): split_huge_pages splits them all to 4 KiB, and
// a truncation into the middle of a folio of each order 1..9 splits that
// folio, frees its pages past EOF and leaves the folios before it whole.
//
// Clean and dirty: a ramfs folio that holds written data is dirty for good
// (ramfs has no writeback to clean it), so a clean huge folio is one that a
// read of a hole made, all zeros.  The cases check with /proc/kpageflags
// that the folios were in the state their name says before the split.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE	(8 * MiB)	/* four huge folios */

#define NR	((int)(SIZE / HPAGE))

static const char *dir;
static char path[128];

/*
 * The folios of the file, by their first page: how many are large (a
 * compound head) and how many of those are dirty, from /proc/kpageflags
 * through a read-only mapping (a read fault dirties nothing).  0, or -1
 * if the kernel would not say.
 */
static int folio_states(int *heads, int *dirty)
{
	int fd = open(path, O_RDONLY), ret = -1;
	unsigned char *p = fd < 0 ? MAP_FAILED : mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	long long flags;
	unsigned int i;

	*heads = *dirty = 0;
	if (p != MAP_FAILED) {
		for (i = 0; i < (unsigned int)NR; i++) {
			volatile unsigned char c = p[i * HPAGE];	/* map it */

			(void)c;
			flags = page_flags(p + i * HPAGE);
			if (flags < 0)
				break;
			*heads += flags >> KPF_COMPOUND_HEAD & 1;
			*dirty += flags >> KPF_DIRTY & 1;
		}
		ret = i == (unsigned int)NR ? 0 : -1;
	}
	if (p != MAP_FAILED)
		munmap(p, SIZE);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int split(uint64_t start, uint64_t end)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s,0x%llx,0x%llx", path,
		 (unsigned long long)start, (unsigned long long)end);
	return write_bytes(SPLIT, cmd, strlen(cmd));
}

static long fhp(void)
{
	vm_stat_refresh();
	return meminfo_kb("FileHugePages");
}

/* After a split: data, further writes, truncate and a fault all work. */
static int still_works(void)
{
	int fd = open(path, O_RDWR);
	unsigned char *p, buf[100];
	long long bad;

	if (fd < 0)
		return 0;
	bad = check_file(path, SIZE, 5);
	pattern_fill(buf, sizeof(buf), HPAGE - 50, 5);
	if (bad < 0 && pwrite(fd, buf, sizeof(buf), HPAGE - 50) != sizeof(buf))
		bad = 0;
	if (bad < 0 && (ftruncate(fd, SIZE - 4097) || ftruncate(fd, SIZE)))
		bad = 0;
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (bad < 0 && p != MAP_FAILED) {
		bad = pattern_check(p, SIZE - 4097, 0, 5);
		if (bad < 0 && zero_check(p + SIZE - 4097, 4097) >= 0)
			bad = SIZE - 4097;
	}
	if (p != MAP_FAILED)
		munmap(p, SIZE);
	/* Put the pattern back where the truncate zeroed it. */
	{
		unsigned char tail[4097];

		pattern_fill(tail, sizeof(tail), SIZE - 4097, 5);
		if (bad < 0 && pwrite(fd, tail, sizeof(tail), SIZE - 4097) != sizeof(tail))
			bad = SIZE - 4097;
	}
	close(fd);
	if (bad >= 0)
		msg("data mismatch at %lld after split\n", bad);
	return bad < 0;
}

/* -1 if the whole file reads zeros, else the first offset that does not. */
static long long check_file_zero(void)
{
	int fd = open(path, O_RDONLY);
	long long bad;

	if (fd < 0)
		return 0;
	bad = fd_check_zero(fd, 0, SIZE);
	close(fd);
	return bad;
}

/*
 * A new file of four huge folios: dirty ones from write(2) of the pattern,
 * or clean ones from read(2) of a hole (which must read zeros).  0, or -1.
 */
static int fresh(int clean)
{
	int fd, ret = -1;

	unlink(path);
	if (!clean)
		return write_file(path, SIZE, MiB, 5);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	if (!ftruncate(fd, SIZE) && fd_check_zero(fd, 0, SIZE) < 0)
		ret = 0;
	close(fd);
	return ret;
}

static const struct range {
	const char *what;
	uint64_t start, end;	/* in pages */
	int folios;		/* how many it splits */
	int clean;
} ranges[] = {
	{ "first subpage", 0, 1, 1, 0 },
	{ "middle subpage", 512 + 256, 512 + 257, 1, 0 },
	{ "last subpage", 511, 512, 1, 0 },
	{ "three folios", 100, 3 * 512 - 1, 3, 0 },
	{ "whole file", 0, SIZE / PAGE, 4, 0 },
	{ "clean folios (read of holes, zeros)", 0, SIZE / PAGE, 4, 1 },
	{ "past EOF (nothing)", SIZE / PAGE, 2 * SIZE / PAGE, 0, 0 },
};

static void test_range(const struct range *r)
{
	long before, after, splits, dirty, dirty0 = vmstat_get("nr_dirty");
	int err, heads = 0, dirty_folios = 0, state, made;
	long long zeros = -1;

	made = fresh(r->clean);
	/* As the name says: four huge folios, dirty or clean. */
	state = !made && !folio_states(&heads, &dirty_folios) && heads == NR &&
		dirty_folios == (r->clean ? 0 : NR);
	before = fhp();
	splits = vmstat_get("thp_split_page");
	err = split(r->start, r->end);
	after = fhp();
	splits = vmstat_get("thp_split_page") - splits;
	dirty = vmstat_get("nr_dirty") - dirty0;
	/* Clean folios hold zeros: check them, then give still_works() its pattern. */
	if (r->clean) {
		zeros = check_file_zero();
		if (zeros < 0 && fill_file(path, 0, SIZE, MiB, 5))
			zeros = 0;
	}
	ksft_test_result(state && !err && before - after == r->folios * 2048L &&
			 splits == r->folios && !dirty && zeros < 0 && still_works(),
			 "split: %s [%#llx, %#llx): %d huge folios, %d dirty (want %d) before; FileHugePages -%ld kB (want -%d), thp_split_page %+ld, nr_dirty %+ld, err %d%s\n",
			 r->what, (unsigned long long)r->start, (unsigned long long)r->end, heads,
			 dirty_folios, r->clean ? 0 : (int)NR, before - after, r->folios * 2048,
			 splits, dirty, err, zeros >= 0 ? ", zeros lost" : "");
}

static void test_ranges(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ranges); i++)
		test_range(&ranges[i]);
}

/*
 * @pmd: the file's folios are PMD-mapped before the split.  Not so under
 * mlock of a private writable mapping: mlock faults it in for writing, so
 * it holds anonymous copies and the file's folios are not mapped at all.
 */
static const struct mapped {
	const char *what;
	int flags, lock, child, pmd;
} mapped[] = {
	{ "shared PMD mapping, two processes", MAP_SHARED, 0, 1, 1 },
	{ "private mapping", MAP_PRIVATE, 0, 0, 1 },
	{ "mlocked shared mapping", MAP_SHARED, 1, 0, 1 },
	{ "mlocked private mapping", MAP_PRIVATE, 1, 1, 0 },
};

/* PMD-mapped by this process and a child; both see the data after. */
static void test_mapped(const char *what, int flags, int lock, int child, int pmd)
{
	int fd, go[2], ready[2], st = 0, ok;
	unsigned char *p;
	long before, pmd_before, after, pmd_after;
	volatile unsigned long sink = 0;
	pid_t pid = -1;
	uint64_t off;
	char c;

	fd = fresh(0) ? -1 : open(path, O_RDWR);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, SIZE, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED) {
		ksft_test_result_fail("split: %s: write/mmap: %s\n", what, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Not mlocked, the case would be another's: fail it. */
	if (lock && mlock(p, SIZE)) {
		ksft_test_result_fail("split: %s: mlock: %s\n", what, strerror(errno));
		munmap(p, SIZE);
		close(fd);
		return;
	}
	for (off = 0; off < SIZE; off += PAGE)
		sink += p[off];
	if (child) {
		if (pipe(go) || pipe(ready))
			ksft_exit_fail_msg("split: pipe: %s\n", strerror(errno));
		pid = fork();
		if (!pid) {
			/* Fault our own PMDs in, wait for the split, then check. */
			for (off = 0; off < SIZE; off += PAGE)
				sink += p[off];
			if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
			_exit(pattern_check(p, SIZE, 0, 5) < 0 ? 0 : 1);
		}
		if (pid < 0 || read(ready[0], &c, 1) != 1)
			msg("child did not start\n");
	}
	pmd_before = (vm_stat_refresh(), meminfo_kb("FilePmdMapped"));
	before = fhp();
	split(0, SIZE / PAGE);
	after = fhp();
	pmd_after = meminfo_kb("FilePmdMapped");
	ok = pattern_check(p, SIZE, 0, 5) < 0 && (!child || pid > 0);
	if (pid > 0) {
		if (write(go[1], "g", 1) != 1)
			msg("could not wake the child\n");
		waitpid(pid, &st, 0);
		ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	if (child) {
		close(go[0]);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);
	}
	munmap(p, SIZE);
	close(fd);
	ksft_test_result(ok && after == before - 4 * 2048 && pmd_before == (pmd ? 8192 : 0) &&
			 pmd_after == 0 && still_works(),
			 "split: %s: data intact in %s, FileHugePages %ld -> %ld kB, FilePmdMapped %ld -> %ld kB\n",
			 what, child ? "both processes" : "the mapping", before, after, pmd_before, pmd_after);
}

static void test_all_mapped(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mapped); i++)
		test_mapped(mapped[i].what, mapped[i].flags, mapped[i].lock, mapped[i].child,
			    mapped[i].pmd);
}

/* A pipe holds a reference to a page of folio 0: its split must fail. */
static void test_pinned(void)
{
	long before, after, fail0, sp0;
	int fd, pfd[2], err;
	loff_t off = 0;

	fd = fresh(0) ? -1 : open(path, O_RDONLY);
	if (fd < 0 || pipe(pfd)) {
		ksft_test_result_fail("split: pinned: write/pipe: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (splice(fd, &off, pfd[1], NULL, PAGE, 0) != PAGE) {
		ksft_test_result_fail("split: pinned: splice: %s\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		close(fd);
		return;
	}
	before = fhp();
	fail0 = vmstat_get("thp_split_page_failed");
	sp0 = vmstat_get("thp_split_page");
	err = split(0, HPAGE / PAGE);
	after = fhp();
	ksft_test_result(!err && after == before && vmstat_get("thp_split_page") == sp0 &&
			 vmstat_get("thp_split_page_failed") - fail0 >= 1 && still_works(),
			 "split: a folio pinned by a pipe stays whole, thp_split_page_failed %+ld, data intact\n",
			 vmstat_get("thp_split_page_failed") - fail0);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	before = fhp();
	split(0, HPAGE / PAGE);
	ksft_test_result(fhp() == before - 2048 && still_works(),
			 "split: once the pipe is gone the split succeeds (FileHugePages %ld -> %ld kB)\n",
			 before, fhp());
}

/*
 * A 2 MiB file on huge=never of one folio of each order 8..1 and two of
 * order 0, from writes of 256, 128, ..., 2, 1 and 1 pages in turn: each
 * write gets the largest folio that fits at its offset, below PMD size.
 * The order-@o folio (o >= 1) starts at page mix_start(@o).
 */
#define MIX_TOP	(HPAGE_ORDER - 1)
static const char *never_dir;
static char mix_path[128];

static uint64_t mix_start(int o)
{
	return (HPAGE >> 12) - (2UL << o);
}

static int mix_fresh(void)
{
	static unsigned char buf[HPAGE / 2];
	uint64_t off = 0;
	size_t len;
	int fd, o, ret = 0;

	unlink(mix_path);
	fd = open(mix_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (o = MIX_TOP; o >= -1 && !ret; o--) {
		len = PAGE << (o < 0 ? 0 : o);	/* the last two: a page each */
		pattern_fill(buf, len, off, 5);
		if (pwrite(fd, buf, len, off) != (ssize_t)len)
			ret = -1;
		off += len;
	}
	close(fd);
	return ret;
}

/* Does the file hold the folios mix_fresh() makes?  Their orders in @text. */
static int mix_is_fresh(char *text, size_t tlen)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	int want[MIX_TOP + 2][2], o;

	for (o = 1; o <= MIX_TOP; o++) {
		want[o - 1][0] = o;
		want[o - 1][1] = 1;
	}
	want[MIX_TOP][0] = 0;
	want[MIX_TOP][1] = 2;
	want[MIX_TOP + 1][0] = -1;
	return orders_of(mix_path, HPAGE, hist, text, tlen) >= 0 &&
	       hist_is(hist, (const int (*)[2])want);
}

/* debugfs split of the whole file: every folio to order 0, data intact. */
static void test_split_orders(void)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	static const int all_small[][2] = { { 0, HPAGE / PAGE }, { -1, 0 } };
	char before[128], after[128], cmd[256];
	int fresh_ok, err = -1;
	long long bad;

	fresh_ok = !mix_fresh() && mix_is_fresh(before, sizeof(before));
	snprintf(cmd, sizeof(cmd), "%s,0x0,0x%lx", mix_path, HPAGE / PAGE);
	if (fresh_ok)
		err = write_bytes(SPLIT, cmd, strlen(cmd));
	orders_of(mix_path, HPAGE, hist, after, sizeof(after));
	bad = check_file(mix_path, HPAGE, 5);
	ksft_test_result(fresh_ok && !err && hist_is(hist, all_small) && bad < 0,
			 "split: folios of orders %d..1 (huge=never, sized by write(2)): folios by order before \"%s\" (want one of each order, two of order 0), after split_huge_pages (err %d) \"%s\" (want 0:%lu), data mismatch %lld\n",
			 MIX_TOP, before, err, after, HPAGE / PAGE, bad);
	unlink(mix_path);
}

/*
 * Truncate @path (a fresh file whose order-@o folio starts at page
 * @start) into the middle of that folio, not on a page boundary.  The
 * folio must split: the file keeps its folios before it whole (@keep:
 * their orders), then order-0 pages up to EOF, and no page past EOF; data
 * before EOF intact, the rest of the EOF page zeros through a mapping.
 * 1 if so; @why says what was seen.
 */
static int truncate_into(const char *path, int o, uint64_t start, const int (*keep)[2],
			 char *why, size_t wlen)
{
	uint64_t size = (start + (1UL << (o - 1))) * PAGE + 17;
	size_t pages = (size + PAGE - 1) / PAGE, mlen = pages * PAGE;
	unsigned long hist[MAX_FOLIO_ORDER], want[MAX_FOLIO_ORDER] = { 0 };
	long left = -1;
	long long bad = 0, tail = 0;
	char text[128] = "";
	unsigned char *p;
	int fd = open(path, O_RDWR), o2, same;

	if (fd < 0 || ftruncate(fd, size)) {
		snprintf(why, wlen, "open/ftruncate: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (; (*keep)[0] >= 0; keep++)
		want[(*keep)[0]] = (*keep)[1];
	want[0] += pages - start;
	orders_of(path, size, hist, text, sizeof(text));
	for (same = 1, o2 = 0; o2 < MAX_FOLIO_ORDER; o2++)
		same = same && hist[o2] == want[o2];
	/* Mapped over the old 2 MiB: mincore() finds no page past EOF. */
	p = mmap(NULL, HPAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		left = resident(p, HPAGE);
		tail = zero_check(p + size, mlen - size);
		munmap(p, HPAGE);
	}
	bad = fd_check_pattern(fd, 0, size, 5);
	close(fd);
	snprintf(why, wlen, "order %d at page %llu, truncated to %llu: folios \"%s\", %ld pages cached (want %zu), data mismatch %lld, non-zero past EOF at %lld",
		 o, (unsigned long long)start, (unsigned long long)size, text, left, pages, bad,
		 tail < 0 ? -1 : (long long)size + tail);
	return same && left == (long)pages && bad < 0 && tail < 0;
}

static void test_truncate_orders(void)
{
	int keep[MIX_TOP + 1][2], o, k, failed = 0;
	char why[512], first[600] = "";
	long fhp0, fhp1 = 0;

	for (o = MIX_TOP; o >= 1; o--) {
		/* The folios of orders above @o stay, one of each. */
		for (k = 0; k < MIX_TOP - o; k++) {
			keep[k][0] = MIX_TOP - k;
			keep[k][1] = 1;
		}
		keep[k][0] = -1;
		if (mix_fresh()) {
			snprintf(why, sizeof(why), "order %d: write: %s", o, strerror(errno));
		} else if (truncate_into(mix_path, o, mix_start(o), (const int (*)[2])keep,
					 why, sizeof(why))) {
			msg("truncate: ok: %s\n", why);
			continue;
		}
		msg("truncate: FAILED: %s\n", why);
		if (!failed++)
			snprintf(first, sizeof(first), "; first failure: %s", why);
	}
	unlink(mix_path);
	/* Order 9: one PMD-sized folio from one write on huge=always. */
	keep[0][0] = -1;
	unlink(path);		/* the cases before leave huge folios in it */
	fhp0 = fhp();
	if (write_file(path, HPAGE, HPAGE, 5)) {
		snprintf(why, sizeof(why), "order 9: write: %s", strerror(errno));
	} else {
		fhp1 = fhp() - fhp0;
		if (truncate_into(path, HPAGE_ORDER, 0, (const int (*)[2])keep, why, sizeof(why)) &&
		    fhp1 == 2048 && fhp() == fhp0) {
			msg("truncate: ok: %s\n", why);
			goto done;
		}
	}
	msg("truncate: FAILED: %s, FileHugePages %+ld kB by the write, %+ld kB after\n", why,
	    fhp1, fhp() - fhp0);
	if (!failed++)
		snprintf(first, sizeof(first), "; first failure: %s", why);
done:
	unlink(path);
	ksft_test_result(!failed,
			 "split: truncation into the middle of a folio of each order 1..9 splits it, frees the pages past EOF, keeps the folios before it and the data (%d orders failed%s)\n",
			 failed, first);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "ranges", test_ranges, ARRAY_SIZE(ranges) },
		{ "mapped", test_all_mapped, ARRAY_SIZE(mapped) },
		{ "pinned", test_pinned, 2 },
		{ "every order, split_huge_pages", test_split_orders, 1 },
		{ "every order, truncation", test_truncate_orders, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	if (access(SPLIT, W_OK))
		ksft_exit_skip("%s not writable (debugfs?)\n", SPLIT);
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%s/split", dir);
	/* huge=never: write(2) sizes folios by the write, below PMD size. */
	never_dir = mount_fs("ramfs", "huge=never");
	if (!never_dir)
		ksft_exit_fail_msg("mount huge=never: %s\n", strerror(errno));
	snprintf(mix_path, sizeof(mix_path), "%s/orders", never_dir);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
