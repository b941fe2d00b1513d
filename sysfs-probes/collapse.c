// Collapse of ramfs ranges: MADV_COLLAPSE and khugepaged copy the small
// (or smaller large) folios of an aligned 2 MiB range into one PMD-sized
// folio, fill holes with zeros, and PMD-map it.  An 8 MiB file written in
// 64 KiB writes with the policy at never becomes four PMD folios mapped by
// PMDs, with its data, nr_file_pages unchanged and FileHugePages +8 MiB;
// a range that crosses EOF, a page held by a pipe (a small folio's or one
// inside a 64 KiB folio), MADV_NOHUGEPAGE, PR_SET_THP_DISABLE, the knob's
// deny and a full memcg each stop it with the errno of madvise(2), the
// data untouched; a file written in one memcg and collapsed from another
// moves its file pages to the second.  khugepaged collapses an
// MADV_HUGEPAGE mapping under "advise" within 60 s, and nothing under
// "never".
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
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
			     off += c->holes ? 2 * BS : BS) {
				unsigned char b[BS];

				pattern_fill(b, BS, off, 3);
				ok = pwrite(fd, b, BS, off) == BS;
			}
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

/* A memcg's "file" or "file_thp" of memory.stat, in kB. */
static long memcg_kb(const char *cg, const char *field)
{
	long b = cgroup_stat(cg, "memory.stat", field);

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
 * the memcg's file pages as they were.  memory.stat may lag by a per-CPU
 * batch: 256 kB of slack.
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
	ksft_test_result(err == EBUSY && bad < 0 && labs(file - 4096) <= 256 &&
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
		/* The small folios are freed: A is no longer charged for them. */
		a_freed = (a_cur - cgroup_stat(CG "-a", "memory.current", "")) / (long)KiB;
		a_file = memcg_kb(CG "-a", "file");
		b_file = memcg_kb(CG "-b", "file");
		b_thp = memcg_kb(CG "-b", "file_thp");
	}
	unlink(path);
	a_left = memcg_kb(CG "-a", "file");
	b_left = memcg_kb(CG "-b", "file");
	ksft_test_result(!err && labs(a_file) <= 256 && labs(b_file - 4096) <= 256 &&
			 b_thp == 4096 && a_freed >= 4096 - 256 && labs(a_left) <= 256 &&
			 labs(b_left) <= 256,
			 "collapse: written in memcg A, collapsed from B (%s): file A %ld kB, B %ld kB (want 0, 4096), B file_thp %ld kB, A's memory.current -%ld kB (want ~4096); after unlink A %ld kB, B %ld kB (want 0)\n",
			 err >= 0 && err < 200 ? strerror(err) : "setup failed",
			 a_file, b_file, b_thp, a_freed, a_left, b_left);
	rmdir(CG "-a");
	rmdir(CG "-b");
}

/*
 * khugepaged, its sleeps at 10 ms: under "never" it leaves an
 * MADV_HUGEPAGE mapping alone for three full scans; under "advise" (and
 * MADV_HUGEPAGE again, which registers the mm) it collapses the file
 * within 60 s.
 */
static void test_khugepaged(void)
{
	long huge0, huge = 0, scans0, scans = 0, never = -1;
	unsigned char *m = NULL, *anon;
	int fd = -1, i;
	double t0, secs = -1;
	long long bad = 0;
	const char *setup = NULL;	/* the step that failed: nothing would be proved */

	if (setting_set(KHUGEPAGED "scan_sleep_millisecs", "10") ||
	    setting_set(KHUGEPAGED "alloc_sleep_millisecs", "10") ||
	    setting_set("/sys/kernel/mm/transparent_hugepage/enabled", "madvise"))
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
		scans0 = atol(setting_get(KHUGEPAGED "full_scans") ?: "0");
		for (i = 0; i < 300 && scans < 3; i++) {
			usleep(100000);
			scans = atol(setting_get(KHUGEPAGED "full_scans") ?: "0") - scans0;
		}
		never = meminfo_now_kb("FileHugePages") - huge0;
		if (knob_set("advise") || madvise(m, 8 * MiB, MADV_HUGEPAGE))
			setup = "the knob at advise, or MADV_HUGEPAGE again";
		t0 = now_s();
		while (now_s() - t0 < 60 &&
		       (huge = meminfo_now_kb("FileHugePages") - huge0) < 8192)
			usleep(100000);
		secs = now_s() - t0;
		bad = pattern_check(m, 8 * MiB, 0, 6) >= 0 || check_file(path, 8 * MiB, 6) >= 0;
	}
	knob_set("never");
	if (anon != MAP_FAILED)
		munmap(anon, HPAGE);
	ksft_test_result(!setup && never == 0 && scans >= 3 && huge == 8192 && !bad,
			 "collapse: khugepaged: FileHugePages %+ld kB after %ld full scans at never, %+ld kB (want 8192) %.1f s after advise, data %s, setup: %s\n",
			 never, scans, huge, secs, bad ? "BAD" : "intact",
			 setup ? setup : "done");
	unmap_file(m, 8 * MiB, fd);
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
		{ "khugepaged", test_khugepaged, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	if (access(KHUGEPAGED "full_scans", F_OK))
		probe_missing("no khugepaged");
	dir = mount_fs("ramfs", "");
	dir_never = mount_fs("ramfs", "huge=never");
	if (!dir || !dir_never)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(pcases, ARRAY_SIZE(pcases));
	ksft_finished();
}
