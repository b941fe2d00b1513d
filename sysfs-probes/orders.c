// Folio orders follow the I/O below PMD size, and deny gives 4 KiB only
// ("Hugepages in the page cache", transhuge.rst).  Under never, the
// default (a mount without huge=), and under advise (huge=advise), each
// write(2) or fallocate(2) gets, for each page it reaches that holds
// nothing yet, the largest folio below PMD size that starts there aligned
// to its size and ends by the request's end: pieces() computes them, and
// a file must hold exactly those, for one request or many, at aligned and
// unaligned offsets, so that it costs exactly its pages (nr_file_pages)
// and FileHugePages does not move; 64 files of 48 KiB cost 12 pages each.
// Under deny, on a huge=always mount, write(2), fallocate(2), read(2) of
// a hole, stores through a shared mapping and loads through an
// MADV_HUGEPAGE one add 4 KiB folios only.  Orders are read from
// /proc/kpageflags (lib/thp.c folio_orders()); the split of large folios
// is probe split's, single writes from offset 0 ramfs_thp_policy's.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NFILES		64
#define MAX_PAGES	(8 * MiB / PAGE)	/* the largest file of the cases below */
#define BELOW_PMD	(HPAGE_ORDER - 1)
#define SEED		7

static const char *dir, *dir_advise, *dir_always;

/*
 * The folios promised for @len bytes written (or allocated) in @bs-sized
 * requests from offset 0 of a new file: each request, for each page it
 * reaches that holds nothing yet, gets the largest folio of at most
 * 2^@cap pages that starts there, aligned to its size, over pages that
 * hold nothing, and ends by the request's end.  @hist as folio_orders().
 */
static void pieces(uint64_t len, size_t bs, int cap, unsigned long *hist)
{
	static unsigned char cached[MAX_PAGES];
	uint64_t off, idx, end, n, i;
	int o, busy;

	memset(hist, 0, MAX_FOLIO_ORDER * sizeof(*hist));
	memset(cached, 0, sizeof(cached));
	for (off = 0; off < len; off += bs) {
		idx = off / PAGE;
		end = ((off + bs < len ? off + bs : len) + PAGE - 1) / PAGE;
		while (idx < end) {
			if (cached[idx]) {
				idx++;
				continue;
			}
			for (o = cap; o > 0; o--) {
				n = 1UL << o;
				for (busy = 0, i = idx; i < idx + n && i < end; i++)
					busy |= cached[i];
				if (!(idx & (n - 1)) && idx + n <= end && !busy)
					break;
			}
			memset(cached + idx, 1, 1UL << o);
			hist[o]++;
			idx += 1UL << o;
		}
	}
}

static long hist_pages(const unsigned long *hist)
{
	long pages = 0;
	int o;

	for (o = 0; o < MAX_FOLIO_ORDER; o++)
		pages += (long)hist[o] << o;
	return pages;
}

/* hist_is() for a histogram rather than a list. */
static int hist_eq(const unsigned long *a, const unsigned long *b)
{
	return !memcmp(a, b, MAX_FOLIO_ORDER * sizeof(*a));
}

static void hist_text(const unsigned long *hist, char *text, size_t n)
{
	size_t at = 0;
	int o;

	text[0] = 0;
	for (o = 0; o < MAX_FOLIO_ORDER && at < n; o++)
		if (hist[o])
			at += snprintf(text + at, n - at, "%s%d:%lu", at ? " " : "", o, hist[o]);
}

static void test_small_files(void)
{
	unsigned long hist[MAX_FOLIO_ORDER], want[MAX_FOLIO_ORDER];
	long before = nr_file_pages(), huge = meminfo_now_kb("FileHugePages"), grown;
	char path[160], text[160] = "", wtext[160];
	long long bad = -1;
	int i, other = 0;

	pieces(48 * KiB, 48 * KiB, BELOW_PMD, want);
	hist_text(want, wtext, sizeof(wtext));
	for (i = 0; i < NFILES && bad < 0; i++) {
		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		if (write_file(path, 48 * KiB, 48 * KiB, i))
			bad = 0;
	}
	grown = nr_file_pages() - before;
	huge = meminfo_now_kb("FileHugePages") - huge;
	for (i = 0; i < NFILES && bad < 0; i++) {
		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		bad = check_file(path, 48 * KiB, i);
		if (orders_of(path, 48 * KiB, hist, text, sizeof(text)) < 0 ||
		    !hist_eq(hist, want))
			other++;
	}
	ksft_test_result(before >= 0 && grown == NFILES * hist_pages(want) && !huge &&
			 !other && bad < 0,
			 "orders: never: %d files of 48 KiB: nr_file_pages %+ld (want %+ld), FileHugePages %+ld kB (want +0), %d not %s (last: %s), mismatch %lld\n",
			 NFILES, grown, NFILES * hist_pages(want), huge, other, wtext, text, bad);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		unlink(path);
	}
}

enum op {
	WRITE,		/* @len in @bs-sized write(2)s from offset 0 */
	FALLOC,		/* fallocate(2) of @len */
	READ,		/* read(2) of a sparse file of @len */
	STORE,		/* the pattern stored through a shared mapping of a sparse file */
	LOAD,		/* a load from each page of an MADV_HUGEPAGE mapping of a sparse file */
};

static const struct order_case {
	const char *what;
	const char *knob;	/* the page_cache file for the case */
	const char **dir;
	enum op op;
	uint64_t len;
	size_t bs;
	int cap;		/* the largest order promised */
} cases[] = {
	{ "never: one write(2) of 4 MiB - 16 KiB", "never", &dir,
	  WRITE, 4 * MiB - 16 * KiB, 4 * MiB - 16 * KiB, BELOW_PMD },
	{ "never: 4 MiB + 64 KiB in 64 KiB write(2)s", "never", &dir,
	  WRITE, 4 * MiB + 64 * KiB, 64 * KiB, BELOW_PMD },
	{ "never: 4 MiB in write(2)s of 1 MiB + 12 KiB", "never", &dir,
	  WRITE, 4 * MiB, MiB + 12 * KiB, BELOW_PMD },
	{ "never: 1 MiB in write(2)s of 100000 bytes", "never", &dir,
	  WRITE, MiB, 100000, BELOW_PMD },
	{ "never: fallocate(2) of 4 MiB + 64 KiB", "never", &dir,
	  FALLOC, 4 * MiB + 64 * KiB, 4 * MiB + 64 * KiB, BELOW_PMD },
	{ "huge=advise: one write(2) of 4 MiB - 16 KiB", "never", &dir_advise,
	  WRITE, 4 * MiB - 16 * KiB, 4 * MiB - 16 * KiB, BELOW_PMD },
	{ "deny, huge=always: one write(2) of 4 MiB + 64 KiB", "deny", &dir_always,
	  WRITE, 4 * MiB + 64 * KiB, 4 * MiB + 64 * KiB, 0 },
	{ "deny, huge=always: fallocate(2) of 4 MiB", "deny", &dir_always,
	  FALLOC, 4 * MiB, 4 * MiB, 0 },
	{ "deny, huge=always: read(2) of a 4 MiB hole", "deny", &dir_always,
	  READ, 4 * MiB, 4 * MiB, 0 },
	{ "deny, huge=always: stores through a shared mapping of a 4 MiB hole", "deny",
	  &dir_always, STORE, 4 * MiB, 4 * MiB, 0 },
	{ "deny, huge=always: loads through an MADV_HUGEPAGE mapping of a 4 MiB hole",
	  "deny", &dir_always, LOAD, 4 * MiB, 4 * MiB, 0 },
};

/* Make the case's file: 0, or -1. */
static int make(const struct order_case *c, const char *path)
{
	volatile unsigned char *p = MAP_FAILED;
	unsigned char sum = 0;
	int fd, err;
	uint64_t off;

	if (c->op == WRITE)
		return write_file(path, c->len, c->bs, SEED);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (c->op == FALLOC) {
		err = fallocate(fd, 0, 0, c->len);
	} else {
		err = ftruncate(fd, c->len);
		if (!err && c->op == READ)
			err = fd_check_zero(fd, 0, c->len) >= 0;	/* reads every page */
		if (!err && c->op != READ)
			p = mmap(NULL, c->len, PROT_READ | (c->op == STORE ? PROT_WRITE : 0),
				 MAP_SHARED, fd, 0);
		if (!err && c->op != READ && p == MAP_FAILED)
			err = 1;
		if (!err && c->op == LOAD)
			err = madvise((void *)p, c->len, MADV_HUGEPAGE);
		if (!err && c->op == STORE)
			pattern_fill((unsigned char *)p, c->len, 0, SEED);
		for (off = 0; !err && c->op == LOAD && off < c->len; off += PAGE)
			sum |= p[off];
		if (p != MAP_FAILED)
			munmap((void *)p, c->len);
		err |= sum != 0;
	}
	close(fd);
	return err ? -1 : 0;
}

/* Run @c once: the folios by order in @hist, the growth of the counters. */
static long long run(const struct order_case *c, const char *path, unsigned long *hist,
		     char *text, size_t n, long *pages, long *huge)
{
	long long bad;
	int fd;

	unlink(path);
	*pages = nr_file_pages();
	*huge = meminfo_now_kb("FileHugePages");
	bad = make(c, path) ? 0 : -1;
	*pages = nr_file_pages() - *pages;
	*huge = meminfo_now_kb("FileHugePages") - *huge;
	orders_of(path, c->len, hist, text, n);
	if (bad >= 0)
		return bad;
	if (c->op == WRITE || c->op == STORE)
		return check_file(path, c->len, SEED);
	fd = open(path, O_RDONLY);
	bad = fd < 0 ? 0 : fd_check_zero(fd, 0, c->len);
	if (fd >= 0)
		close(fd);
	return bad;
}

static void test_orders(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct order_case *c = &cases[i];
		unsigned long hist[MAX_FOLIO_ORDER], want[MAX_FOLIO_ORDER];
		char path[160], text[200], wtext[200];
		long pages, huge, blocks;
		long long bad;
		int set;

		pieces(c->len, c->bs, c->cap, want);
		hist_text(want, wtext, sizeof(wtext));
		set = knob_set(c->knob);
		snprintf(path, sizeof(path), "%s/orders", *c->dir);
		bad = run(c, path, hist, text, sizeof(text), &pages, &huge);
		/*
		 * Smaller folios than promised, within the file: an order
		 * above 0 may fail to allocate.  Compact and retry once;
		 * excused only with no free 2 MiB block left.
		 */
		if (!set && bad < 0 && c->cap && !hist_eq(hist, want) &&
		    hist_pages(hist) == hist_pages(want)) {
			write_bytes("/proc/sys/vm/compact_memory", "1", 1);
			bad = run(c, path, hist, text, sizeof(text), &pages, &huge);
			blocks = free_2m_blocks(-1);
			if (bad < 0 && !hist_eq(hist, want) && !blocks &&
			    hist_pages(hist) == hist_pages(want)) {
				ksft_test_result_skip("not run: allocator: orders: %s: folios by order %s, want %s, no free 2 MiB block after compaction\n",
						      c->what, text, wtext);
				unlink(path);
				continue;
			}
		}
		set |= knob_set("never");
		ksft_test_result(!set && hist_eq(hist, want) && pages == hist_pages(want) &&
				 !huge && bad < 0,
				 "orders: %s: folios by order %s (want %s), nr_file_pages %+ld (want %+ld), FileHugePages %+ld kB (want +0), mismatch %lld\n",
				 c->what, text, wtext, pages, hist_pages(want), huge, bad);
		unlink(path);
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case pcases[] = {
		{ "small files", test_small_files, 1 },
		{ "orders", test_orders, ARRAY_SIZE(cases) },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	require_knob("never");	/* the default policy, as users get it */
	dir = mount_fs("ramfs", "");
	dir_advise = mount_fs("ramfs", "huge=advise");
	dir_always = mount_fs("ramfs", "huge=always");
	if (!dir || !dir_advise || !dir_always)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(pcases, ARRAY_SIZE(pcases));
	ksft_finished();
}
