// Collapse of ramfs ranges: MADV_COLLAPSE and khugepaged copy the small
// (or smaller large) folios of an aligned 2 MiB range into one PMD-sized
// folio, fill holes with zeros, and PMD-map it.  An 8 MiB file written in
// 64 KiB writes with the policy at never becomes four PMD folios mapped by
// PMDs, with its data, nr_file_pages unchanged and FileHugePages +8 MiB;
// a range that crosses EOF, a page held by a pipe (a small folio's or one
// inside a 64 KiB folio), MADV_NOHUGEPAGE, PR_SET_THP_DISABLE, the knob's
// deny and a full memcg each stop it with the errno of madvise(2), the
// data untouched; a file written in one memcg and collapsed from another
// moves its file pages to the second.  A collapser racing truncation
// leaves no page past EOF, and two collapsers racing each other get 0 or
// EAGAIN and one PMD folio per range.  khugepaged collapses an
// MADV_HUGEPAGE mapping under "advise" within 60 s, and nothing under
// "never"; over 64 KiB folios with holes, only from max_ptes_none = the
// pages of the holes on.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KHUGEPAGED	"/sys/kernel/mm/transparent_hugepage/khugepaged/"
#define CG		"/sys/fs/cgroup/thp-collapse"
#define BS		(64 * KiB)

static const char *dir, *dir_never;
static char path[160];

/* A mapping of [0, @len) of @path, PMD-aligned (thp_get_unmapped_area). */
static unsigned char *map_file(const char *p, size_t len, int *fd)
{
	void *m;

	*fd = open(p, O_RDWR);
	if (*fd < 0)
		return NULL;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (m == MAP_FAILED) {
		close(*fd);
		*fd = -1;	/* callers close it again */
		return NULL;
	}
	return m;
}

static void unmap_file(unsigned char *m, size_t len, int fd)
{
	if (m)
		munmap(m, len);
	if (fd >= 0)
		close(fd);
}

/* madvise(MADV_COLLAPSE): 0 or errno. */
static int collapse(void *p, size_t len)
{
	return madvise(p, len, MADV_COLLAPSE) ? errno : 0;
}

/* Fault every page of the mapping in with a read, as a user of it would. */
static void touch(const unsigned char *m, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += PAGE)
		(void)*(volatile const unsigned char *)(m + i);
}

/*
 * A file of @len pattern bytes (@seed) in @bs writes, the knob at @knob;
 * then the knob at never, so that khugepaged leaves the file to the test
 * (MADV_COLLAPSE overrides the policy).
 */
static int make_file(const char *d, const char *name, uint64_t len, size_t bs,
		     const char *knob, int seed)
{
	int ret;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	if (knob_set(knob))
		return -1;
	ret = write_file(path, len, bs, seed);
	return knob_set("never") ? -1 : ret;
}

/*
 * The pattern of @seed into [@from, @to) of @fd, in pwrite(2)s that end at
 * 64 KiB boundaries (on a mount that sizes folios by the write, 64 KiB
 * folios): 0, or -1.
 */
static int write_range(int fd, uint64_t from, uint64_t to, int seed)
{
	unsigned char b[BS];
	size_t n;

	for (; from < to; from += n) {
		n = (from / BS + 1) * BS;
		n = (n < to ? n : to) - from;
		pattern_fill(b, n, from, seed);
		if (pwrite(fd, b, n, from) != (ssize_t)n)
			return -1;
	}
	return 0;
}

/* The main case: 8 MiB of small folios become four PMD folios. */
static void test_madvise(void)
{
	static const int small[][2] = { { 0, 2048 }, { -1 } }, pmd[][2] = { { 9, 4 }, { -1 } };
	unsigned long hist[MAX_FOLIO_ORDER];
	long pages0, huge0, alloc0, pmdmap = -1, pages, huge, alloc;
	char before[160] = "", after[160] = "";
	long long bad = 0, mbad = 0, seen = 0;
	unsigned char *m = NULL, buf[64];
	int fd = -1, err = -1, was_small = 0;

	pages0 = nr_file_pages();
	huge0 = meminfo_now_kb("FileHugePages");
	alloc0 = vmstat_get("thp_collapse_alloc");
	if (make_file(dir, "eight", 8 * MiB, BS, "never", 1) == 0) {
		was_small = orders_of(path, 8 * MiB, hist, before, sizeof(before)) >= 0 &&
			    hist_is(hist, small);
		pages0 = nr_file_pages();
		/*
		 * Mapped under never, so that the mapping does not hand the
		 * mm to khugepaged, which would race us (EAGAIN); then the
		 * collapse under always.
		 */
		m = map_file(path, 8 * MiB, &fd);
		if (m && knob_set("always")) {
			unmap_file(m, 8 * MiB, fd);
			m = NULL;
		}
	}
	if (m) {
		touch(m, 8 * MiB);
		err = collapse(m, 8 * MiB);
		pmdmap = smaps_get(m, "FilePmdMapped");
	}
	pages = nr_file_pages() - pages0;
	huge = meminfo_now_kb("FileHugePages") - huge0;
	alloc = vmstat_get("thp_collapse_alloc") - alloc0;
	orders_of(path, 8 * MiB, hist, after, sizeof(after));
	ksft_test_result(was_small && !err && huge == 8192 && pages == 0 && alloc == 4 &&
			 hist_is(hist, pmd),
			 "collapse: 8 MiB of small folios (%s): MADV_COLLAPSE %s, FileHugePages %+ld kB, nr_file_pages %+ld, thp_collapse_alloc %+ld, folios %s\n",
			 before, strerror(err), huge, pages, alloc, after);
	ksft_test_result(pmdmap == 8192,
			 "collapse: the range is then PMD-mapped: FilePmdMapped %ld kB (want 8192)\n",
			 pmdmap);
	if (m) {
		bad = check_file(path, 8 * MiB, 1);
		mbad = pattern_check(m, 8 * MiB, 0, 1);
	}
	ksft_test_result(m && bad < 0 && mbad < 0,
			 "collapse: data intact through read(2) (mismatch %lld) and the mapping (%lld)\n",
			 bad, mbad);
	/* A write(2) after the collapse lands in the folio the PMD maps. */
	if (m) {
		pattern_fill(buf, sizeof(buf), 5 * MiB + 100, 2);
		seen = pwrite(fd, buf, sizeof(buf), 5 * MiB + 100) == sizeof(buf) &&
		       !memcmp(m + 5 * MiB + 100, buf, sizeof(buf));
		/* And a store through the mapping is seen by read(2). */
		pattern_fill(m + 3 * MiB + 7, sizeof(buf), 3 * MiB + 7, 3);
		seen = seen && pread(fd, buf, sizeof(buf), 3 * MiB + 7) == sizeof(buf) &&
		       pattern_check(buf, sizeof(buf), 3 * MiB + 7, 3) < 0;
	}
	ksft_test_result(seen, "collapse: afterwards a pwrite(2) is seen through the mapping, a store through it by pread(2)\n");
	unmap_file(m, 8 * MiB, fd);
	knob_set("never");
	result_unlinked("collapse", path, pages0 - 2048, 0);
}

/*
 * Other layouts of a 2 MiB range, each collapsed by MADV_COLLAPSE: the
 * file's folios after, nr_file_pages' change (holes are filled) and the
 * data (holes read as zeros).
 */
static void test_layouts(void)
{
	static const int pmd[][2] = { { 9, 2 }, { -1 } };
	static const struct layout {
		const char *what, **dir, *knob;
		size_t bs;
		int holes;	/* every other 64 KiB left unwritten */
		long grow;	/* nr_file_pages, in pages */
		int untouched;	/* no fault before the collapse: no page table */
		int falloc;	/* fallocate(2)d whole, never written: zeros */
		int start;	/* the order of every folio before, or -1: not read */
	} cases[] = {
		{ "64 KiB folios (4 MiB in 64 KiB writes, within_size)", &dir,
		  "within_size", BS, 0, 0, 0, 0, 4 },
		{ "half holes, not faulted (every other 64 KiB written, never)", &dir, "never", BS,
		  1, 512, 1, 0, -1 },
		{ "a huge=never mount (MADV_COLLAPSE overrides the policy)", &dir_never,
		  "never", BS, 0, 0, 0, 0, 0 },
		{ "a mapping not faulted in (the next fault maps the PMD)", &dir, "never", BS,
		  0, 0, 1, 0, 0 },
		{ "fallocate(2)d under within_size, not faulted (PMD folios, no page table)",
		  &dir, "within_size", BS, 0, 0, 1, 1, -1 },
		{ "fallocate(2)d under never, not faulted (small folios)", &dir,
		  "never", BS, 0, 0, 1, 1, -1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct layout *c = &cases[i];
		unsigned long hist[MAX_FOLIO_ORDER];
		char text[160] = "", before[160] = "not read";
		long pages0, pages = 0, pmdmap;
		long long bad = 0;
		unsigned char *m = NULL;
		int fd = -1, err = -1, ok = 0;
		uint64_t off;

		snprintf(path, sizeof(path), "%s/layout", *c->dir);
		if (knob_set(c->knob) == 0) {
			/* Appends (64 KiB folios under within_size), or a sparse file. */
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			ok = fd >= 0 && (!c->holes || !ftruncate(fd, 4 * MiB));
			if (ok && c->falloc)
				ok = !fallocate(fd, 0, 0, 4 * MiB);
			for (off = 0; ok && !c->falloc && off < 4 * MiB;
			     off += c->holes ? 2 * BS : BS)
				ok = !write_range(fd, off, off + BS, 3);
			if (fd >= 0)
				close(fd);
		}
		ok = !knob_set("never") && ok;
		/* The layout is what the case says, before the collapse. */
		if (ok && c->start >= 0) {
			const int want[][2] = { { c->start, (4 * MiB / PAGE) >> c->start }, { -1 } };

			ok = orders_of(path, 4 * MiB, hist, before, sizeof(before)) >= 0 &&
			     hist_is(hist, want);
		}
		pages0 = nr_file_pages();
		if (ok)
			m = map_file(path, 4 * MiB, &fd);
		if (m) {
			if (!c->untouched)
				touch(m, 4 * MiB);
			err = collapse(m, 4 * MiB);
			pages = nr_file_pages() - pages0;
			for (off = 0; bad == 0 && off < 4 * MiB; off += BS) {
				int hole = c->falloc || (c->holes && (off / BS) % 2);

				if (hole ? zero_check(m + off, BS) >= 0 :
					   pattern_check(m + off, BS, off, 3) >= 0)
					bad = off + 1;
			}
		}
		/* Faulted in (again): PMDs map the whole file. */
		if (m)
			touch(m, 4 * MiB);
		pmdmap = m ? smaps_get(m, "FilePmdMapped") : -1;
		orders_of(path, 4 * MiB, hist, text, sizeof(text));
		ksft_test_result(m && !err && pages == c->grow && !bad && hist_is(hist, pmd) &&
				 pmdmap == 4096,
				 "collapse: %s: folios before %s, MADV_COLLAPSE %s, nr_file_pages %+ld (want %+ld), folios %s, FilePmdMapped %ld kB after a fault, data %s\n",
				 c->what, before, strerror(err), pages, c->grow, text, pmdmap,
				 bad ? "BAD" : "intact");
		unmap_file(m, 4 * MiB, fd);
		unlink(path);
	}
}

/*
 * What must not collapse: the errno, and nothing changed but the ranges
 * that may collapse.  Each refusal that can be taken back (the pipe
 * closed, MADV_HUGEPAGE, the prctl cleared, the knob at never) is, and the
 * same range must then collapse: the refusal came from what the case set
 * up.  At EOF the range must end within the page holding it: a file that
 * ends inside its last page collapses whole, one that ends a page earlier
 * does not.
 */
static void test_refused(void)
{
	enum { PIPE = 1, NOHUGE = 2, PRCTL = 4, DENY = 8, UNDO = PIPE | NOHUGE | PRCTL | DENY };
	static const int folios64k[][2] = { { 4, 64 }, { -1 } };
	static const struct refusal {
		const char *what, *knob;	/* the knob the file is written under */
		int how, want;
		long huge;			/* FileHugePages it must gain, in kB */
		long pipe_off;			/* the page spliced into a pipe */
		uint64_t len;			/* the file's size, if not 4 MiB */
	} cases[] = {
		{ "a range crossing EOF (3 MiB file, 4 MiB mapped)", "never", 0, EINVAL, 2048,
		  .len = 3 * MiB },
		{ "a range crossing EOF by a page (4 MiB - 4 KiB file)", "never", 0, EINVAL, 2048,
		  .len = 4 * MiB - PAGE },
		{ "no range: EOF inside the last page (4 MiB - 1000 bytes), both collapse", "never", 0, 0,
		  4096, .len = 4 * MiB - 1000 },
		{ "a page held by a pipe (splice)", "never", PIPE, EAGAIN, 2048, .pipe_off = 0 },
		{ "a page inside a 64 KiB folio held by a pipe (splice)", "within_size", PIPE,
		  EAGAIN, 2048, .pipe_off = BS + 5 * PAGE },
		{ "MADV_NOHUGEPAGE", "never", NOHUGE, EINVAL, 0, .len = 0 },
		{ "PR_SET_THP_DISABLE", "never", PRCTL, EINVAL, 0, .len = 0 },
		{ "the knob at deny", "never", DENY, EINVAL, 0, .len = 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct refusal *c = &cases[i];
		uint64_t len = c->len ?: 4 * MiB;
		long pages0, huge0, pages = 0, huge = 0, huge_after = 0;
		unsigned long hist[MAX_FOLIO_ORDER];
		char layout[160] = "";
		unsigned char *m = NULL;
		int fd = -1, err = -1, pfd[2] = { -1, -1 }, after = 0, setup = 0;
		long long bad = 0;

		if (make_file(dir, "refused", len, BS, c->knob, 4) == 0)
			m = map_file(path, 4 * MiB, &fd);
		if (m) {
			touch(m, len);
			setup = 1;
			/* Within_size appends make 64 KiB folios: the pin is inside one. */
			if (!strcmp(c->knob, "within_size"))
				setup = orders_of(path, len, hist, layout, sizeof(layout)) >= 0 &&
					hist_is(hist, folios64k);
			if (c->how & PIPE)
				setup = setup && !pipe(pfd) &&
					splice(fd, &(loff_t){ c->pipe_off }, pfd[1], NULL, PAGE, 0) ==
					PAGE;
			if (c->how & NOHUGE)
				setup = setup && !madvise(m, 4 * MiB, MADV_NOHUGEPAGE);
			if (c->how & PRCTL)
				setup = setup && !prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
			if (c->how & DENY)
				setup = setup && !knob_set("deny");
			if (!setup)
				msg("collapse: %s: setup failed (%s), folios %s\n", c->what,
				    strerror(errno), layout);
			pages0 = nr_file_pages();
			huge0 = meminfo_now_kb("FileHugePages");
			err = collapse(m, 4 * MiB);
			pages = nr_file_pages() - pages0;
			huge = meminfo_now_kb("FileHugePages") - huge0;
			bad = check_file(path, len, 4) >= 0 || pattern_check(m, len, 0, 4) >= 0 ||
			      zero_check(m + len, -len % PAGE) >= 0;
			/* Taken back, the refusal must go: the same range collapses. */
			if (c->how & PIPE) {
				close(pfd[0]);
				close(pfd[1]);
			}
			if (c->how & NOHUGE)
				madvise(m, 4 * MiB, MADV_HUGEPAGE);
			prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
			knob_set("never");
			if (c->how & UNDO) {
				after = collapse(m, 4 * MiB);
				huge_after = meminfo_now_kb("FileHugePages") - huge0;
			}
		}
		ksft_test_result(m && setup && err == c->want && pages == 0 && huge == c->huge &&
				 !bad && !after && (!(c->how & UNDO) || huge_after == 4096),
				 "collapse: refused for %s: %s (want %s), nr_file_pages %+ld, FileHugePages %+ld kB (want %+ld), data %s; taken back: %s, FileHugePages %+ld kB\n",
				 c->what, strerror(err), strerror(c->want), pages, huge, c->huge,
				 bad ? "BAD" : "intact", strerror(after), huge_after);
		unmap_file(m, 4 * MiB, fd);
		unlink(path);
	}
}

/*
 * Run @fn in a child that has joined memcg @cg: its exit status (what @fn
 * returns, 255 if the join failed), or -1.
 */
static int in_memcg(const char *cg, int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(cgroup_join(cg) ? fn() : 255);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A memcg's "file" or "file_thp" of memory.stat, in kB, exact. */
static long memcg_kb(const char *cg, const char *field)
{
	long b = memcg_stat_exact(cg, field);

	return b < 0 ? b : b / (long)KiB;
}

/* The child parts: write the file, or map and collapse it (the errno). */
static int cg_write(void)
{
	return write_file(path, 4 * MiB, BS, 5) ? 254 : 0;
}

static int cg_collapse(void)
{
	unsigned char *m;
	int fd;

	m = map_file(path, 4 * MiB, &fd);
	if (!m)
		return 254;
	touch(m, 4 * MiB);
	return collapse(m, 4 * MiB);
}

/* memory.max just above what the memcg holds: no room for 2 MiB more. */
static int cg_limit_collapse(void)
{
	char max[32];

	snprintf(max, sizeof(max), "%ld",
		 cgroup_stat(CG, "memory.current", "") + 512 * (long)KiB);
	if (write_bytes(CG "/memory.max", max, strlen(max)))
		return 253;
	return cg_collapse();
}

/*
 * A memcg with no room for the new folio: EBUSY, no OOM kill, the data and
 * the memcg's file pages as they were (exactly: memcg_kb() flushes).
 */
static void test_memcg(void)
{
	long oom0, file;
	int err = -1;
	long long bad;

	mkdir(CG, 0755);
	oom0 = cgroup_stat(CG, "memory.events", "oom_kill");
	snprintf(path, sizeof(path), "%s/memcg", dir);
	knob_set("never");
	if (in_memcg(CG, cg_write) == 0)
		err = in_memcg(CG, cg_limit_collapse);
	file = memcg_kb(CG, "file");
	write_bytes(CG "/memory.max", "max", 3);
	bad = check_file(path, 4 * MiB, 5);
	ksft_test_result(err == EBUSY && bad < 0 && file == 4096 &&
			 cgroup_stat(CG, "memory.events", "oom_kill") == oom0,
			 "collapse: a memcg without room for the folio: %s (want %s; >= 253: setup failed), no OOM kill, memcg file %ld kB (want 4096), data intact (mismatch %lld)\n",
			 err > 0 && err < 200 ? strerror(err) : "-", strerror(EBUSY), file, bad);
	unlink(path);
	rmdir(CG);
}

/*
 * Written in memcg A, collapsed by a process of memcg B, which pays for
 * the new folio: A's file pages go to B with it, and after unlink neither
 * keeps any (6.1 left them in A for ever, and B went negative).
 */
static void test_memcg_move(void)
{
	long a_file = -1, b_file = -1, b_thp = -1, a_left, b_left, a_freed = -1;
	int err = -1;

	mkdir(CG "-a", 0755);
	mkdir(CG "-b", 0755);
	snprintf(path, sizeof(path), "%s/moved", dir);
	knob_set("never");
	if (in_memcg(CG "-a", cg_write) == 0) {
		long a_cur = cgroup_stat(CG "-a", "memory.current", "");

		err = in_memcg(CG "-b", cg_collapse);
		/*
		 * The small folios are freed: A is no longer charged for them.
		 * memory.current also holds kernel memory and a per-CPU stock
		 * of precharged pages, which can only go down meanwhile: at
		 * least 4096 kB.
		 */
		a_freed = (a_cur - cgroup_stat(CG "-a", "memory.current", "")) / (long)KiB;
		a_file = memcg_kb(CG "-a", "file");
		b_file = memcg_kb(CG "-b", "file");
		b_thp = memcg_kb(CG "-b", "file_thp");
	}
	unlink(path);
	a_left = memcg_kb(CG "-a", "file");
	b_left = memcg_kb(CG "-b", "file");
	ksft_test_result(!err && a_file == 0 && b_file == 4096 && b_thp == 4096 &&
			 a_freed >= 4096 && a_left == 0 && b_left == 0,
			 "collapse: written in memcg A, collapsed from B (%s): file A %ld kB, B %ld kB (want 0, 4096), B file_thp %ld kB, A's memory.current -%ld kB (want >= 4096); after unlink A %ld kB, B %ld kB (want 0)\n",
			 err >= 0 && err < 200 ? strerror(err) : "setup failed",
			 a_file, b_file, b_thp, a_freed, a_left, b_left);
	rmdir(CG "-a");
	rmdir(CG "-b");
}

/*
 * A collapser racing truncation: MADV_COLLAPSE of each 2 MiB range of an
 * 8 MiB mapping, over and over, on CPU 1, while CPU 0 cuts the file to a
 * size inside the last 4 MiB (not 2 MiB or page aligned) and takes it back
 * up, rewriting what it cut with a new seed each round.  The mapping is
 * never touched: past EOF it would SIGBUS, and MADV_COLLAPSE must fail
 * there on its own (EINVAL).
 */
#define RACE_ROUNDS	400
#define RACE_SECS	5.0
#define RACE_CHUNKS	(8 * MiB / BS)

struct race {
	unsigned char *m;
	int fd;
	volatile int stop, pinned;
	/* One writer each: the collapser.  Per 2 MiB range. */
	volatile long ok[4], einval[4], eagain[4], other[4], last_other, spanned;
};

static off_t fd_size(int fd)
{
	struct stat sb;

	return fstat(fd, &sb) ? -1 : sb.st_size;
}

static void *race_collapser(void *arg)
{
	struct race *r = arg;
	off_t a, b, low;
	int i, err;

	r->pinned = !pin_cpu(1);
	while (!r->stop) {
		for (i = 0; i < 4; i++) {
			/* i_size on both sides of the call: did a cut or an extension land in it? */
			a = fd_size(r->fd);
			err = collapse(r->m + i * HPAGE, HPAGE);
			b = fd_size(r->fd);
			low = a < b ? a : b;
			if (!err) {
				r->ok[i]++;
				/* A collapse that succeeded on a range cut at one end of the call. */
				r->spanned += a != b && low >= 0 && low < (off_t)((i + 1) * HPAGE);
			} else if (err == EINVAL) {
				r->einval[i]++;
			} else if (err == EAGAIN) {
				r->eagain[i]++;
			} else {
				r->other[i]++;
				r->last_other = err;
			}
		}
	}
	return NULL;
}

/* [@from, @to) of @fd against the seed of each 64 KiB chunk: -1, or the first bad offset. */
static long long seeds_check(int fd, uint64_t from, uint64_t to, const int *seed_of)
{
	long long bad = -1;
	uint64_t n;

	for (; bad < 0 && from < to; from += n) {
		n = ((from / BS + 1) * BS < to ? (from / BS + 1) * BS : to) - from;
		bad = fd_check_pattern(fd, from, n, seed_of[from / BS]);
	}
	return bad;
}

static long sum4(const volatile long *v)
{
	return v[0] + v[1] + v[2] + v[3];
}

/*
 * Afterwards, cut to S: mincore() of the mapping (which reports the page
 * cache past EOF too: mincore_page() looks up the index, i_size or not)
 * finds every page below EOF and none from the page after it; read(2)
 * gives each 64 KiB chunk the seed it was last written with, up to S, and
 * the file is S long; nr_file_pages holds exactly the file's pages (small
 * folios, the EOF folio split by the truncation, PMD folios wholly below
 * S).  In the race, right after each cut no page lies beyond the folio
 * holding EOF, and in that folio past EOF either none or all (a PMD folio
 * a collapse held, so the split failed: collapse_pte_mapped_thp() unlocks
 * before it drops its reference); once extended, all of [cut, 8 MiB)
 * reads zeros and the chunk holding the cut still has its seed below it.
 * The race is on only if some collapses succeeded on a range cut at one
 * end of the call, some met EOF (EINVAL on ranges 2-3) and one copied
 * (thp_collapse_alloc rose); and only across CPUs if both threads were
 * pinned (a failed pin fails, named in the result).  Unlink gives back all
 * the pages and huge pages: a folio the race counted twice, or added and
 * never removed, stays counted.
 */
static void test_race_truncate(void)
{
	const uint64_t S = 5 * MiB + 3 * PAGE + 777, end = (S + PAGE - 1) / PAGE * PAGE;
	long pages0, alloc0, alloc = 0, past = -1, below = -1, pages = 0, stale = 0, lost = 0;
	long huge0, control, beyond = 0, kept = 0, partial = 0, n;
	uint64_t st = 42, cut, eof, folio_end, c;
	struct race r = { 0 };
	pthread_t th;
	int fd = -1, rounds = 0, started = 0, ok = 0, seed_of[RACE_CHUNKS];
	long long bad = 0;
	struct stat sb = { 0 };
	cpu_set_t cpus;
	double t0;
	const char *failed = NULL;	/* the step that failed, setup or I/O */

	/*
	 * The check can see pages past EOF: a 4 KiB write under always gets
	 * a PMD folio, and mincore() finds its 511 pages past EOF.
	 */
	if (make_file(dir, "race-control", PAGE, PAGE, "always", 7) == 0)
		r.m = map_file(path, HPAGE, &fd);
	control = r.m ? resident(r.m + PAGE, HPAGE - PAGE) : -1;
	unmap_file(r.m, HPAGE, fd);
	unlink(path);
	r.m = NULL;

	for (c = 0; c < RACE_CHUNKS; c++)
		seed_of[c] = 7;
	pages0 = nr_file_pages();
	huge0 = meminfo_now_kb("FileHugePages");
	alloc0 = vmstat_get("thp_collapse_alloc");
	if (make_file(dir_never, "race", 8 * MiB, BS, "never", 7) == 0)
		r.m = map_file(path, 8 * MiB, &fd);
	r.fd = fd;
	/* The affinity to restore: without it this thread would stay on CPU 0. */
	if (!r.m)
		failed = "the file";
	else if (sched_getaffinity(0, sizeof(cpus), &cpus))
		failed = "sched_getaffinity";
	else if (pthread_create(&th, NULL, race_collapser, &r))
		failed = "the collapser thread";
	else
		started = 1;
	if (started) {
		if (pin_cpu(0))
			failed = "pin to CPU 0";
		ok = !failed;
		/* Twice as long while no collapse has yet spanned a size change (a debug kernel). */
		for (t0 = now_s(); ok && rounds < RACE_ROUNDS &&
		     now_s() - t0 < (r.spanned ? RACE_SECS : 2 * RACE_SECS); rounds++) {
			uint64_t base;

			cut = 4 * MiB + rng_next(&st) % (4 * MiB - 1) / 2 * 2 + 1;
			base = cut / BS * BS;
			eof = (cut + PAGE - 1) / PAGE * PAGE;
			folio_end = (cut + HPAGE - 1) / HPAGE * HPAGE;
			ok = !ftruncate(fd, cut);
			/* No page beyond the folio holding EOF. */
			beyond += ok && folio_end < 8 * MiB &&
				  resident(r.m + folio_end, 8 * MiB - folio_end) != 0;
			/* Within it, past EOF: none, or all of a PMD folio kept whole. */
			n = ok && folio_end > eof ? resident(r.m + eof, folio_end - eof) : 0;
			kept += n && n == (long)((folio_end - eof) / PAGE);
			partial += n && n != (long)((folio_end - eof) / PAGE);
			ok = ok && !ftruncate(fd, 8 * MiB);
			/* Nothing of the old data comes back past the cut; below it, all stays. */
			stale += ok && fd_check_zero(fd, cut, 8 * MiB - cut) >= 0;
			lost += ok && seeds_check(fd, base, cut, seed_of) >= 0;
			ok = ok && !write_range(fd, base, 8 * MiB, 8 + rounds);
			for (c = base / BS; c < RACE_CHUNKS; c++)
				seed_of[c] = 8 + rounds;
		}
		r.stop = 1;
		pthread_join(th, NULL);
		if (!r.pinned)
			failed = failed ?: "pin to CPU 1";
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			failed = failed ?: "restoring the affinity";
		if (!ok)
			failed = failed ?: "a cut, an extension or a rewrite";
		if (!failed && (ftruncate(fd, S) || fstat(fd, &sb)))
			failed = "the cut to S";
		ok = !failed;
		alloc = vmstat_get("thp_collapse_alloc") - alloc0;
		below = resident(r.m, end);
		past = resident(r.m + end, 8 * MiB - end);
		bad = seeds_check(fd, 0, S, seed_of);
		pages = nr_file_pages() - pages0;
	}
	/*
	 * Ranges 0-1 lie below every cut (> 4 MiB), and nothing here splits
	 * their PMD folios (that EINVAL came from split_huge_pages racing
	 * collapse_pte_mapped_thp()), so EINVAL there is a collapse refused
	 * for no reason.  Any errno but EINVAL and EAGAIN fails (ENOMEM too:
	 * 8 MiB of file in a guest of hundreds).
	 */
	ksft_test_result(ok && control == 511 && r.spanned > 0 && alloc > 0 &&
			 r.einval[2] + r.einval[3] > 0 && !r.einval[0] && !r.einval[1] &&
			 !sum4(r.other) && !beyond && !partial &&
			 below == (long)(end / PAGE) && past == 0,
			 "collapse: racing truncation (failed: %s; %d rounds, MADV_COLLAPSE ok %ld/%ld/%ld/%ld by range, %ld of them on a range the size crossed during the call, EINVAL %ld/%ld/%ld/%ld (want 0 on 0-1), EAGAIN %ld, other %ld (last %s), thp_collapse_alloc %+ld): pages beyond the EOF folio in %ld rounds (want 0), some of the EOF folio's past EOF in %ld (want 0), all in %ld; then cut to %llu bytes, mincore finds %ld of %llu pages below EOF and %ld past it (want 0; it finds %ld of 511 past a 4 KiB file's EOF in a PMD folio)\n",
			 failed ?: "nothing", rounds, r.ok[0], r.ok[1], r.ok[2], r.ok[3],
			 r.spanned, r.einval[0], r.einval[1], r.einval[2], r.einval[3],
			 sum4(r.eagain), sum4(r.other),
			 sum4(r.other) ? strerror(r.last_other) : "-", alloc, beyond, partial, kept,
			 (unsigned long long)S, below, (unsigned long long)(end / PAGE), past,
			 control);
	ksft_test_result(ok && bad < 0 && sb.st_size == (off_t)S && !stale && !lost,
			 "collapse: racing truncation: read(2) %s against each chunk's last seed (mismatch %lld), size %lld (want %llu); non-zero past the cut once extended in %ld rounds, the cut chunk's data below the cut changed in %ld (want 0, 0)\n",
			 bad < 0 ? "intact" : "BAD", bad, (long long)sb.st_size,
			 (unsigned long long)S, stale, lost);
	ksft_test_result(ok && pages == (long)(end / PAGE),
			 "collapse: racing truncation: nr_file_pages %+ld (want %+llu, the file's pages)\n",
			 pages, (unsigned long long)(end / PAGE));
	unmap_file(r.m, 8 * MiB, fd);
	result_unlinked_huge("collapse: racing truncation", path, pages0, 0, huge0);
}

/*
 * Two collapsers at once, on the same ranges: each round a new file of
 * small folios, and two threads released together, each calling
 * MADV_COLLAPSE until it returns 0 (EAGAIN, a page the other holds, is
 * the only other answer allowed).  Every other round the second one works
 * through a second mapping, at file offset 2 MiB (6 MiB long).  Then the
 * file is four PMD folios, counted once, with its data.  The first calls
 * of the two must overlap in time in some round: else it was one after
 * the other, and proved nothing about two at once.  Unlink gives back all
 * the pages and huge pages: a loser's folio counted, then dropped, stays.
 */
#define TWIN_ROUNDS	4
#define TWIN_TRIES	50

struct twin {
	unsigned char *m;
	size_t len;
	pthread_barrier_t *go;
	int cpu, bad, eagain;	/* bad: an errno but EAGAIN */
	double t0, t1;		/* the first call's start and end */
};

static void *twin_collapser(void *arg)
{
	struct twin *t = arg;
	int i, err = EAGAIN;

	pin_cpu(t->cpu);
	pthread_barrier_wait(t->go);
	for (i = 0; i < TWIN_TRIES && err == EAGAIN; i++) {
		double t0 = now_s();

		err = collapse(t->m, t->len);
		if (!i) {
			t->t0 = t0;
			t->t1 = now_s();
		}
		t->eagain += err == EAGAIN;
	}
	/* Still EAGAIN after all the tries: the range stays small, which the state check sees. */
	if (err && err != EAGAIN)
		t->bad = err;
	return NULL;
}

static void test_race_twin(void)
{
	static const int pmd[][2] = { { 9, 4 }, { -1 } }, small[][2] = { { 0, 2048 }, { -1 } };
	unsigned long hist[MAX_FOLIO_ORDER];
	char before[160] = "", after[160] = "";
	long pages0, huge0, pages = 0, huge = 0;
	int round, bad = 0, eagain = 0, state_ok = 1, setup = 1, overlap = 0;
	long long dbad = 0;

	pages0 = nr_file_pages();
	huge0 = meminfo_now_kb("FileHugePages");
	for (round = 0; round < TWIN_ROUNDS && setup && state_ok; round++) {
		pthread_barrier_t go;
		struct twin t[2] = { { .cpu = 0 }, { .cpu = 1 } };
		unsigned char *m = NULL, *m2 = MAP_FAILED;
		/* Read only where created[i]: zeroed for the analyzer's sake. */
		pthread_t th[2] = { 0, 0 };
		int fd = -1, i, started = 0, created[2] = { 0, 0 };

		setup = make_file(dir_never, "twin", 8 * MiB, BS, "never", 8 + round) == 0 &&
			orders_of(path, 8 * MiB, hist, before, sizeof(before)) >= 0 &&
			hist_is(hist, small);
		if (setup)
			m = map_file(path, 8 * MiB, &fd);
		if (m)
			m2 = mmap(NULL, 6 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * MiB);
		setup = m && m2 != MAP_FAILED && !pthread_barrier_init(&go, NULL, 2);
		t[0].m = t[1].m = m;
		t[0].len = t[1].len = 8 * MiB;
		if (round % 2) {
			t[1].m = m2;
			t[1].len = 6 * MiB;
		}
		for (i = 0; setup && i < 2; i++) {
			t[i].go = &go;
			created[i] = !pthread_create(&th[i], NULL, twin_collapser, &t[i]);
			started += created[i];
		}
		/* A thread that did not start: this one lets the other go. */
		if (setup && started == 1)
			pthread_barrier_wait(&go);
		for (i = 0; i < 2; i++)
			if (created[i])
				pthread_join(th[i], NULL);
		if (setup)
			pthread_barrier_destroy(&go);
		setup = setup && started == 2;
		overlap += setup && (t[0].t0 > t[1].t0 ? t[0].t0 : t[1].t0) <
				    (t[0].t1 < t[1].t1 ? t[0].t1 : t[1].t1);
		for (i = 0; i < 2; i++) {
			bad = bad ?: t[i].bad;
			eagain += t[i].eagain;
		}
		pages = nr_file_pages() - pages0;
		huge = meminfo_now_kb("FileHugePages") - huge0;
		orders_of(path, 8 * MiB, hist, after, sizeof(after));
		if (setup)
			dbad = check_file(path, 8 * MiB, 8 + round) >= 0 ||
			       pattern_check(m, 8 * MiB, 0, 8 + round) >= 0 ||
			       pattern_check(m2, 6 * MiB, 2 * MiB, 8 + round) >= 0;
		state_ok = setup && !dbad && pages == 2048 && huge == 8192 && hist_is(hist, pmd);
		if (m2 != MAP_FAILED)
			munmap(m2, 6 * MiB);
		unmap_file(m, 8 * MiB, fd);
	}
	ksft_test_result(setup && !bad && overlap > 0,
			 "collapse: two at once, %d rounds (folios before %s): first calls overlapping in %d rounds (want > 0: else no overlap), every MADV_COLLAPSE 0 or EAGAIN (%d EAGAIN), first other: %s\n",
			 round, before, overlap, eagain, bad ? strerror(bad) : "none");
	ksft_test_result(setup && state_ok,
			 "collapse: two at once: after round %d folios %s, FileHugePages %+ld kB (want 8192), nr_file_pages %+ld (want 2048), data %s through read(2) and both mappings\n",
			 round, after, huge, pages, dbad ? "BAD" : "intact");
	result_unlinked_huge("collapse: two at once", path, pages0, 0, huge0);
}

/* khugepaged awake every 10 ms, and running (it stops when enabled is never): 0, or -1. */
static int khugepaged_fast(void)
{
	return setting_set(KHUGEPAGED "scan_sleep_millisecs", "10") ||
	       setting_set(KHUGEPAGED "alloc_sleep_millisecs", "10") ||
	       setting_set("/sys/kernel/mm/transparent_hugepage/enabled", "madvise") ? -1 : 0;
}

/*
 * The first khugepaged check that failed: later ones fail at once rather
 * than wait (30-90 s each), so that the probe ends well within its time
 * limit, with its results and its settings restored.
 */
static char kh_failed[48];

static long full_scans(void)
{
	return atol(setting_get(KHUGEPAGED "full_scans") ?: "0");
}

/*
 * Wait until khugepaged has made @scans full scans and @secs have passed,
 * or (the scans short) 30 s: the scans made.
 */
static long khugepaged_wait(long scans, double secs)
{
	long s0 = full_scans(), n = 0;
	double t0 = now_s();

	while (!kh_failed[0] && ((n = full_scans() - s0) < scans || now_s() - t0 < secs) &&
	       now_s() - t0 < 30)
		usleep(50000);
	return n;
}

/* Wait up to 60 s for FileHugePages to reach @base + @kb: the seconds it took, or -1. */
static double khugepaged_until(long base, long kb)
{
	double t0 = now_s();

	while (meminfo_now_kb("FileHugePages") - base < kb) {
		if (kh_failed[0] || now_s() - t0 > 60)
			return -1;
		usleep(50000);
	}
	return now_s() - t0;
}

/*
 * khugepaged, its sleeps at 10 ms: under "never" it leaves an
 * MADV_HUGEPAGE mapping alone for three full scans; under "advise" (and
 * MADV_HUGEPAGE again, which registers the mm) it collapses the file
 * within 60 s.
 */
static void test_khugepaged(void)
{
	long huge0, huge = 0, scans = 0, never = -1;
	unsigned char *m = NULL, *anon;
	int fd = -1;
	double secs = -1;
	long long bad = 0;
	const char *setup = NULL;	/* the step that failed: nothing would be proved */

	if (khugepaged_fast())
		setup = "khugepaged knobs";
	/*
	 * An anonymous MADV_HUGEPAGE region hands this mm to khugepaged
	 * whatever the page_cache policy, so that its full scans under never
	 * do pass over the file's mapping.
	 */
	anon = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED || madvise(anon, HPAGE, MADV_HUGEPAGE))
		setup = setup ?: "anonymous MADV_HUGEPAGE";
	if (make_file(dir, "khugepaged", 8 * MiB, BS, "never", 6) == 0)
		m = map_file(path, 8 * MiB, &fd);
	if (!m || knob_set("never"))
		setup = setup ?: "the file, or the knob at never";
	huge0 = meminfo_now_kb("FileHugePages");
	if (!setup && madvise(m, 8 * MiB, MADV_HUGEPAGE))
		setup = "MADV_HUGEPAGE on the file";
	if (!setup) {
		touch(m, 8 * MiB);
		scans = khugepaged_wait(3, 0);
		never = meminfo_now_kb("FileHugePages") - huge0;
		if (knob_set("advise") || madvise(m, 8 * MiB, MADV_HUGEPAGE))
			setup = "the knob at advise, or MADV_HUGEPAGE again";
		secs = khugepaged_until(huge0, 8192);
		huge = meminfo_now_kb("FileHugePages") - huge0;
		bad = pattern_check(m, 8 * MiB, 0, 6) >= 0 || check_file(path, 8 * MiB, 6) >= 0;
	}
	knob_set("never");
	if (anon != MAP_FAILED)
		munmap(anon, HPAGE);
	if (!(!setup && never == 0 && scans >= 3 && huge == 8192 && !bad))
		snprintf(kh_failed, sizeof(kh_failed), "khugepaged");
	ksft_test_result(!kh_failed[0],
			 "collapse: khugepaged: FileHugePages %+ld kB after %ld full scans at never, %+ld kB (want 8192) %.1f s after advise, data %s, setup: %s\n",
			 never, scans, huge, secs, bad ? "BAD" : "intact",
			 setup ? setup : "done");
	unmap_file(m, 8 * MiB, fd);
	unlink(path);
}

/*
 * khugepaged and max_ptes_none over 64 KiB folios: a 4 MiB file written
 * in 64 KiB writes with hugepages-64kB at always, with one 64 KiB hole
 * (16 pages) in its first 2 MiB and two in its second.  khugepaged counts
 * a large folio as all of its pages present, so the first range may
 * collapse from max_ptes_none 16 on, the second from 32 (refused while
 * present < 512 - max_ptes_none): at 15 neither does, at 16 and 31 the
 * first alone, at 32 and 511 (the default) both, holes becoming zeros.
 * A refusal counts only if khugepaged made two full scans meanwhile and
 * counted a refusal for too many holes (thp_scan_exceed_none_pte) for
 * each range still small in each of them.  The knobs changed here
 * (max_ptes_none, hugepages-64kB/page_cache) go back to what they were.
 */
#define NONE_PTES	KHUGEPAGED "max_ptes_none"

static int is_hole(uint64_t chunk)
{
	return chunk == 16 || chunk == 40 || chunk == 56;
}

static void test_max_ptes_none(void)
{
	static const int pmd[][2] = { { 9, 2 }, { -1 } }, prefix[][2] = { { 4, 16 }, { -1 } };
	static const struct phase {
		const char *none;
		long huge, pages;	/* FileHugePages (kB), nr_file_pages after */
	} phases[] = {
		{ "15", 0, 976 }, { "16", 2048, 992 }, { "31", 2048, 992 }, { "32", 4096, 1024 },
		{ "511", 4096, 1024 },
	};
	unsigned long hist[MAX_FOLIO_ORDER];
	char orig[32] = "", orig64[32] = "", before[160] = "", after[160] = "";
	long pages0, huge0, holes = -1;
	unsigned char *m = NULL;
	int fd = -1, ok;
	long long bad = 0;
	uint64_t c;
	unsigned int i;

	snprintf(orig, sizeof(orig), "%s", setting_get(NONE_PTES) ?: "");
	snprintf(orig64, sizeof(orig64), "%s", setting_get(size_path(64, "page_cache")) ?: "");
	snprintf(path, sizeof(path), "%s/none", dir);
	pages0 = nr_file_pages();
	huge0 = meminfo_now_kb("FileHugePages");
	/*
	 * 64 KiB folios and no other size (under within_size a write past
	 * a hole may get a larger folio that covers the hole too).
	 */
	ok = orig64[0] && !knob_set("never") && !setting_set(size_path(64, "page_cache"), "always");
	fd = ok ? open(path, O_RDWR | O_CREAT | O_TRUNC, 0644) : -1;
	ok = ok && fd >= 0;
	for (c = 0; ok && c < 4 * MiB / BS; c++)
		ok = is_hole(c) || !write_range(fd, c * BS, (c + 1) * BS, 9);
	if (fd >= 0)
		close(fd);
	fd = -1;
	ok = orig64[0] && !setting_set(size_path(64, "page_cache"), orig64) && ok &&
	     orders_of(path, 16 * BS, hist, before, sizeof(before)) >= 0 && hist_is(hist, prefix);
	if (ok)
		m = map_file(path, 4 * MiB, &fd);
	if (m)
		holes = resident(m + 16 * BS, BS) + resident(m + 40 * BS, BS) +
			resident(m + 56 * BS, BS);
	/* Refusing from the first scan on: max_ptes_none before the mm is handed over. */
	ok = m && !holes && nr_file_pages() - pages0 == phases[0].pages && !khugepaged_fast() &&
	     !setting_set(NONE_PTES, phases[0].none) && !knob_set("advise") &&
	     !madvise(m, 4 * MiB, MADV_HUGEPAGE);
	if (!ok)
		msg("collapse: max_ptes_none: setup failed: folios of the first 1 MiB %s, hole pages cached %ld, nr_file_pages %+ld\n",
		    before, holes, nr_file_pages() - pages0);
	for (i = 0; i < ARRAY_SIZE(phases); i++) {
		const struct phase *p = &phases[i];
		long scans = 0, exceed0 = vmstat_get("thp_scan_exceed_none_pte"), exceed = 0;
		long huge = 0, pages = 0, small = (4096 - p->huge) / 2048, want;
		double secs = 0;
		int pass, restored = 1;
		int skipped = kh_failed[0];
		char back[64] = "";

		if (ok && setting_set(NONE_PTES, p->none))
			ok = 0;
		if (ok && p->huge > (i ? phases[i - 1].huge : 0))
			secs = khugepaged_until(huge0, p->huge);
		/*
		 * What is still refused stays so for two full scans more, each
		 * refusing every range still small once.  A full scan is counted
		 * when khugepaged_scan_mm_slot() leaves the last mm of its list;
		 * it visits each 2 MiB range of each mm once, resuming at
		 * khugepaged_scan.address, and skips the rest of an mm only if
		 * a writer holds or waits for its mmap_lock (nothing here takes
		 * it for writing while waiting).  The first scan counted may
		 * have begun before the wait: scans - 1 lie wholly inside it.
		 * Refusals before it, and of other mms, only add.
		 */
		if (ok && p->huge < 4096) {
			scans = khugepaged_wait(2, 1.0);
			exceed = vmstat_get("thp_scan_exceed_none_pte") - exceed0;
		}
		huge = meminfo_now_kb("FileHugePages") - huge0;
		pages = nr_file_pages() - pages0;
		if (ok && p->huge == 4096) {
			for (c = 0; !bad && c < 4 * MiB / BS; c++)
				if (is_hole(c) ? fd_check_zero(fd, c * BS, BS) >= 0 ||
						 zero_check(m + c * BS, BS) >= 0 :
						 fd_check_pattern(fd, c * BS, BS, 9) >= 0 ||
						 pattern_check(m + c * BS, BS, c * BS, 9) >= 0)
					bad = c * BS + 1;
			orders_of(path, 4 * MiB, hist, after, sizeof(after));
		}
		want = small * (scans > 1 ? scans - 1 : 1);
		/* The last phase puts max_ptes_none back as it was, or fails. */
		if (i == ARRAY_SIZE(phases) - 1) {
			restored = orig[0] && !setting_set(NONE_PTES, orig);
			snprintf(back, sizeof(back), "; max_ptes_none back to %s: %s",
				 orig[0] ? orig : "(not read)", restored ? "done" : "FAILED");
		}
		pass = ok && huge == p->huge && pages == p->pages && secs >= 0 && restored &&
		       (p->huge == 4096 ? !bad && hist_is(hist, pmd) :
					  scans >= 2 && exceed >= want);
		if (!pass && !kh_failed[0])
			snprintf(kh_failed, sizeof(kh_failed), "max_ptes_none %s", p->none);
		ksft_test_result(pass,
				 "collapse: khugepaged, max_ptes_none %s, 64 KiB folios (%s) with 16 and 32 pages of holes: FileHugePages %+ld kB (want %+ld) in %.1f s, nr_file_pages %+ld (want %+ld); %ld full scans refusing %ld ranges for holes (want >= %ld)%s%s%s%s%s%s\n",
				 p->none, before, huge, p->huge, secs, pages, p->pages, scans, exceed, want,
				 p->huge == 4096 ? ", folios " : "", p->huge == 4096 ? after : "",
				 p->huge == 4096 ? (bad ? ", data BAD" : ", holes zeros, data intact") : "",
				 skipped ? "; not waited for, failed first: " : "",
				 skipped ? kh_failed : "", back);
	}
	knob_set("never");
	unmap_file(m, 4 * MiB, fd);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct probe_case pcases[] = {
		{ "madvise", test_madvise, 5 },
		{ "layouts", test_layouts, 6 },
		{ "refused", test_refused, 8 },
		{ "memcg", test_memcg, 1 },
		{ "memcg move", test_memcg_move, 1 },
		{ "race truncate", test_race_truncate, 4 },
		{ "race twin", test_race_twin, 3 },
		{ "khugepaged", test_khugepaged, 1 },
		{ "max_ptes_none", test_max_ptes_none, 5 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	probe_cleanup_on_term();
	if (access(KHUGEPAGED "full_scans", F_OK))
		probe_missing("no khugepaged");
	dir = mount_fs("ramfs", "");
	dir_never = mount_fs("ramfs", "huge=never");
	if (!dir || !dir_never)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(pcases, ARRAY_SIZE(pcases));
	ksft_finished();
}
