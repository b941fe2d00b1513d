// Large folios of every order (hugepages-<size>kB/page_cache): the folio
// sizes a file gets follow its writes.  Under the default policy
// (within_size, a mount without huge=) 64 files of 48 KiB cost exactly
// their pages and each holds a large folio; one write(2) of 4 MiB + 64
// KiB gives two PMD folios and a 64 KiB one; 64 KiB writes give 64 KiB
// folios and 1 MiB appends 1 MiB folios.  A per-size knob at never takes
// that size out; at always, within_size or advise (the top-level knob at
// never) it gives that size as the policy says.  huge=never takes every
// size out, junk leaves a knob unchanged, a read fault and a shared write
// fault map a whole 1 MiB folio, and debugfs splits a file holding one
// folio of each order from 16 KiB to 2 MiB with data and counters intact.
// Orders are read from /proc/kpageflags (lib/thp.c folio_orders()).
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES	64

static const char *dir, *dir_never;

static void test_small_files(void)
{
	long before = nr_file_pages(), grown;
	int i, without = 0;
	long long bad = -1;
	char path[160], text[160] = "";

	for (i = 0; i < NFILES && bad < 0; i++) {
		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		if (write_file(path, 48 * KiB, 48 * KiB, i))
			bad = 0;
	}
	grown = nr_file_pages() - before;
	for (i = 0; i < NFILES && bad < 0; i++) {
		static const int want[][2] = { { 3, 1 }, { 2, 1 }, { -1 } };
		unsigned long hist[MAX_FOLIO_ORDER];

		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		bad = check_file(path, 48 * KiB, i);
		if (orders_of(path, 48 * KiB, hist, text, sizeof(text)) < 0 ||
		    !hist_is(hist, want))
			without++;
	}
	ksft_test_result(before >= 0 && grown == NFILES * 12 && !without && bad < 0,
			 "orders: %d files of 48 KiB: nr_file_pages %+ld (want %+d), %d not one 32 KiB and one 16 KiB folio (last: %s), mismatch %lld\n",
			 NFILES, grown, NFILES * 12, without, text, bad);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/small.%d", dir, i);
		unlink(path);
	}
}

/* One file written in @bs-sized writes: its folios must be exactly @want. */
static const struct order_case {
	const char *what;
	const char **dir;
	uint64_t len;
	size_t bs;
	const char *knob_kb, *knob;	/* a per-size knob set for the case */
	int want[MAX_FOLIO_ORDER + 1][2];
} cases[] = {
	{ "4 MiB + 64 KiB in one write(2)", &dir, 4 * MiB + 64 * KiB, 4 * MiB + 64 * KiB,
	  NULL, NULL, { { 9, 2 }, { 4, 1 }, { -1 } } },
	{ "4 MiB + 64 KiB in 64 KiB writes", &dir, 4 * MiB + 64 * KiB, 64 * KiB,
	  NULL, NULL, { { 4, 65 }, { -1 } } },
	{ "4 MiB appended in 1 MiB writes", &dir, 4 * MiB, MiB,
	  NULL, NULL, { { 8, 4 }, { -1 } } },
	{ "one write(2) of 2 MiB + 1 MiB + ... + 16 KiB", &dir, 4 * MiB - 16 * KiB,
	  4 * MiB - 16 * KiB, NULL, NULL,
	  { { 9, 1 }, { 8, 1 }, { 7, 1 }, { 6, 1 }, { 5, 1 }, { 4, 1 }, { 3, 1 }, { 2, 1 },
	    { -1 } } },
	{ "4 MiB + 64 KiB in one write(2), hugepages-2048kB at never", &dir,
	  4 * MiB + 64 * KiB, 4 * MiB + 64 * KiB, "2048", "never",
	  { { 8, 4 }, { 4, 1 }, { -1 } } },
	{ "48 KiB on huge=never", &dir_never, 48 * KiB, 48 * KiB,
	  NULL, NULL, { { 0, 12 }, { -1 } } },
};

static void test_orders(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct order_case *c = &cases[i];
		unsigned long hist[MAX_FOLIO_ORDER];
		char path[160], text[200];
		long long bad;
		int set = 0;

		if (c->knob)
			set = setting_set(size_path(atol(c->knob_kb), "page_cache"), c->knob);
		snprintf(path, sizeof(path), "%s/orders", *c->dir);
		bad = write_file(path, c->len, c->bs, 7) ? 0 : check_file(path, c->len, 7);
		orders_of(path, c->len, hist, text, sizeof(text));
		if (c->knob)
			set |= setting_set(size_path(atol(c->knob_kb), "page_cache"), "inherit");
		ksft_test_result(!set && hist_is(hist, c->want) && bad < 0,
				 "orders: %s: folios by order %s, mismatch %lld\n",
				 c->what, text, bad);
		unlink(path);
	}
}

/*
 * Each per-size policy has its effect on its size alone: with the
 * top-level knob at never (every other size inherits it), one size at
 * always, within_size or advise.  @bs 0 stores through a shared mapping
 * of a sparse file, with MADV_HUGEPAGE if @hint; @pages is the growth of
 * nr_file_pages (a folio under always reaches past EOF).
 */
static const struct size_case {
	const char *what;
	unsigned long kb;
	const char *policy;
	uint64_t len;
	size_t bs;
	int hint;
	long pages;
	int want[3][2];
} size_cases[] = {
	{ "hugepages-64kB always: 4 KiB written", 64, "always", 4 * KiB, 4 * KiB, 0, 16,
	  { { 4, 1 }, { -1 } } },
	{ "hugepages-64kB within_size: 4 KiB written", 64, "within_size", 4 * KiB, 4 * KiB, 0, 1,
	  { { 0, 1 }, { -1 } } },
	{ "hugepages-64kB within_size: 132 KiB in one write(2)", 64, "within_size",
	  132 * KiB, 132 * KiB, 0, 33, { { 4, 2 }, { 0, 1 }, { -1 } } },
	{ "hugepages-64kB advise: 128 KiB by write(2)", 64, "advise", 128 * KiB, 128 * KiB, 0, 32,
	  { { 0, 32 }, { -1 } } },
	{ "hugepages-64kB advise: 128 KiB stored through an MADV_HUGEPAGE mapping", 64, "advise",
	  128 * KiB, 0, 1, 32, { { 4, 2 }, { -1 } } },
	{ "hugepages-64kB advise: 128 KiB stored through a mapping without it", 64, "advise",
	  128 * KiB, 0, 0, 32, { { 0, 32 }, { -1 } } },
	{ "hugepages-2048kB always: 4 KiB written", 2048, "always", 4 * KiB, 4 * KiB, 0, 512,
	  { { 9, 1 }, { -1 } } },
};

/* Store the pattern over [0, @len) of a new sparse file through a shared mapping. */
static int store_file(const char *path, uint64_t len, int hint, uint64_t seed)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char *p = MAP_FAILED;
	int err = fd < 0 || ftruncate(fd, len);

	if (!err)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || (hint && madvise(p, len, MADV_HUGEPAGE)))
		err = 1;
	if (!err)
		pattern_fill(p, len, 0, seed);
	if (p != MAP_FAILED)
		munmap(p, len);
	if (fd >= 0)
		close(fd);
	return err;
}

static void test_sizes(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(size_cases); i++) {
		const struct size_case *c = &size_cases[i];
		unsigned long hist[MAX_FOLIO_ORDER];
		char knob[160], path[160], text[200] = "";
		long pages0, pages;
		long long bad = 0;
		int set;

		/* Our own copy: size_path() returns a static buffer. */
		snprintf(knob, sizeof(knob), "%s", size_path(c->kb, "page_cache"));
		set = knob_set("never");
		set |= setting_set(knob, c->policy);
		snprintf(path, sizeof(path), "%s/sizes", dir);
		pages0 = nr_file_pages();
		if (!set && !(c->bs ? write_file(path, c->len, c->bs, 13) :
			      store_file(path, c->len, c->hint, 13)))
			bad = check_file(path, c->len, 13);
		pages = nr_file_pages() - pages0;
		orders_of(path, c->len, hist, text, sizeof(text));
		set |= setting_set(knob, "inherit");
		set |= knob_set("within_size");
		ksft_test_result(!set && bad < 0 && pages == c->pages && hist_is(hist, c->want),
				 "orders: top-level never, %s: folios by order %s, nr_file_pages %+ld (want %+ld), mismatch %lld\n",
				 c->what, text, pages, c->pages, bad);
		unlink(path);
	}
}

/* hugepages-64kB/stats/page_cache_alloc counts each 64 KiB folio added. */
static void test_stats(void)
{
	long a0 = size_stat(64, "stats/page_cache_alloc");
	long f0 = size_stat(64, "stats/page_cache_fallback");
	long pmd0 = size_stat(2048, "stats/page_cache_alloc");
	long wa0 = vmstat_get("thp_write_alloc");
	char path[160];
	long long bad;
	long a, pmd, wa;

	snprintf(path, sizeof(path), "%s/stats", dir);
	bad = write_file(path, 2 * MiB + 192 * KiB, 2 * MiB + 192 * KiB, 3);
	a = size_stat(64, "stats/page_cache_alloc") - a0;
	pmd = size_stat(2048, "stats/page_cache_alloc") - pmd0;
	wa = vmstat_get("thp_write_alloc") - wa0;
	ksft_test_result(a0 >= 0 && f0 >= 0 && !bad && a == 1 && pmd == 1 && wa == 1,
			 "orders: 2 MiB + 192 KiB in one write(2): hugepages-64kB page_cache_alloc %+ld (want +1), hugepages-2048kB %+ld, thp_write_alloc %+ld (want +1 each), fallback %+ld\n",
			 a, pmd, wa, size_stat(64, "stats/page_cache_fallback") - f0);
	unlink(path);
}

/* Every size from 16 KiB to 2 MiB has its knob, inherit by default; junk is refused. */
static void test_knobs(void)
{
	/* deny, force and 0/1 are the top-level knob's only; default is huge='s. */
	static const char *const junk[] = {
		"junk", "deny", "force", "default", "1", "0", "always junk", "inherit\n\n",
	};
	unsigned long kb;
	int missing = 0, bad = 0;
	unsigned int i;

	for (kb = 16; kb <= 2048; kb *= 2) {
		const char *v = setting_get(size_path(kb, "page_cache"));

		if (!v || strcmp(v, "inherit") || size_stat(kb, "stats/page_cache_fallback") < 0 ||
		    size_stat(kb, "stats/page_cache_fallback_charge") < 0)
			missing++;
	}
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		/* Through setting_set(): should one be taken, exit restores it. */
		int err = setting_set(size_path(64, "page_cache"), junk[i]);
		const char *v = setting_get(size_path(64, "page_cache"));

		if (err != -EINVAL || !v || strcmp(v, "inherit")) {
			msg("'%s': %s, now %s\n", junk[i], strerror(-err), v ? v : "unreadable");
			bad++;
		}
	}
	ksft_test_result(!missing && !bad && setting_get(size_path(8, "page_cache")) == NULL,
			 "orders: hugepages-16kB..2048kB: %d missing or not inherit, %d junk writes not refused with EINVAL or changing the value, no hugepages-8kB\n",
			 missing, bad);
}

/*
 * Through a mapping, a fault maps the whole large folio under it: a read
 * fault, not only a 64 KiB fault-around window, and a write fault in a
 * shared mapping, writable, not only its page; a store into a folio a read
 * fault mapped (read-only, for write notification) makes all of it
 * writable.  4 MiB of 1 MiB folios: 4 faults, 8 to read all, then store.
 * Stores still move the mtime (->page_mkwrite() ran), and reach the file.
 */
enum { READ, STORE, READ_STORE };

static void fault_folios(int mode)
{
	static const char *const what[] = {
		"reading", "storing into", "reading, then storing into",
	};
	/* A 2001 timestamp: a store's ->page_mkwrite() moves it. */
	static const struct timespec aged[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	int store = mode != READ, mtime_moved = -1;
	long want = mode == READ_STORE ? 8 : 4;
	uint64_t len = 4 * MiB, off;
	unsigned long hist[MAX_FOLIO_ORDER], hist2[MAX_FOLIO_ORDER];
	char path[160], text[200], after[200] = "";
	long faults = -1;
	long long bad;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/fault", dir);
	bad = write_file(path, len, MiB, 5) ? 0 : -1;
	orders_of(path, len, hist, text, sizeof(text));
	fd = open(path, O_RDWR);
	if (fd >= 0 && !futimens(fd, aged)) {
		int prot = PROT_READ | (store ? PROT_WRITE : 0);
		unsigned char *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

		if (p != MAP_FAILED) {
			volatile unsigned char *v = p, sum = 0;
			struct rusage a, b;

			getrusage(RUSAGE_SELF, &a);
			/* Separate passes: x86 may store with one RMW instruction. */
			for (off = 0; mode != STORE && off < len; off += PAGE)
				sum += v[off];
			for (off = 0; store && off < len; off += PAGE) {
				unsigned char flip;

				pattern_fill(&flip, 1, off, 5);
				v[off] = flip ^ 0xff;
			}
			getrusage(RUSAGE_SELF, &b);
			faults = b.ru_minflt + b.ru_majflt - a.ru_minflt - a.ru_majflt;
			munmap(p, len);
		}
		mtime_moved = !fstat(fd, &st) && st.st_mtim.tv_sec != aged[1].tv_sec;
		/* Each store is in the file (pread), then put back as written. */
		for (off = 0; store && bad < 0 && off < len; off += PAGE) {
			unsigned char byte, got = 0;

			pattern_fill(&byte, 1, off, 5);
			byte ^= 0xff;
			if (pread(fd, &got, 1, off) != 1 || got != byte)
				bad = off;
			byte ^= 0xff;
			if (pwrite(fd, &byte, 1, off) != 1)
				bad = off;
		}
	}
	if (fd >= 0)
		close(fd);
	if (bad < 0)
		bad = check_file(path, len, 5);
	/* Said when the faults are wrong: were the folios still whole? */
	if (faults != want)
		orders_of(path, len, hist2, after, sizeof(after));
	ksft_test_result(faults == want && bad < 0 && mtime_moved == store &&
			 hist_is(hist, (const int[][2]){ { 8, 4 }, { -1 } }),
			 "orders: %s 4 MiB of 1 MiB folios (%s%s%s) through a shared mapping: %ld faults (want %ld), mtime %s (want %s), mismatch %lld\n",
			 what[mode], text, *after ? ", after: " : "", after, faults, want,
			 mtime_moved < 0 ? "unread" : mtime_moved ? "moved" : "kept",
			 store ? "moved" : "kept", bad);
	unlink(path);
}

static void test_fault(void)
{
	fault_folios(READ);
	fault_folios(STORE);
	fault_folios(READ_STORE);
}

/* debugfs split_huge_pages on a file with one folio of each order 2..9. */
static void test_split(void)
{
	uint64_t len = 4 * MiB - 16 * KiB;
	unsigned long hist[MAX_FOLIO_ORDER];
	long pages0, pages, thp0, thp;
	char path[160], cmd[200], text[200];
	long long bad;
	int err;

	snprintf(path, sizeof(path), "%s/split", dir);
	bad = write_file(path, len, len, 11) ? 0 : -1;
	pages0 = nr_file_pages();
	thp0 = meminfo_now_kb("FileHugePages");
	snprintf(cmd, sizeof(cmd), "%s,0x0,0x%lx", path, (unsigned long)(len / PAGE));
	err = write_bytes(SPLIT, cmd, strlen(cmd));
	pages = nr_file_pages() - pages0;
	thp = meminfo_now_kb("FileHugePages") - thp0;
	if (bad < 0)
		bad = check_file(path, len, 11);
	orders_of(path, len, hist, text, sizeof(text));
	ksft_test_result(!err && bad < 0 && pages0 >= 0 && thp0 >= 0 && pages == 0 && thp == -2048 &&
			 hist_is(hist, (const int[][2]){ { 0, len / PAGE }, { -1 } }),
			 "orders: split of folios of orders 2..9: %s, nr_file_pages %+ld (want 0), FileHugePages %+ld kB (want -2048), folios by order %s, mismatch %lld\n",
			 err ? strerror(-err) : "ok", pages, thp, text, bad);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct probe_case pcases[] = {
		{ "knobs", test_knobs, 1 },
		{ "small files", test_small_files, 1 },
		{ "orders", test_orders, ARRAY_SIZE(cases) },
		{ "sizes", test_sizes, ARRAY_SIZE(size_cases) },
		{ "stats", test_stats, 1 },
		{ "fault", test_fault, 3 },
		{ "split", test_split, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	if (access(size_path(2048, "page_cache"), F_OK))
		probe_missing("no hugepages-<size>kB/page_cache knobs");
	require_knob("within_size");	/* the default policy, as users get it */
	dir = mount_fs("ramfs", "");
	dir_never = mount_fs("ramfs", "huge=never");
	if (!dir || !dir_never)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(pcases, ARRAY_SIZE(pcases));
	ksft_finished();
}
