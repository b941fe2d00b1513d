// The within_size policy (a huge=within_size mount) on write(2) and
// fallocate(2): a PMD-sized folio first wherever one fits, then smaller
// ones, and never past the larger of i_size and the end of the request.
// 64 MiB in one write(2) into a new file, or appended in 2 MiB write(2)s,
// gets 32 PMD-sized folios; 3 MiB + 12 KiB in one write(2) one PMD-sized
// folio and then 1 MiB, 8 KiB and 4 KiB ones; a 10 KiB file 8 KiB and 4
// KiB; 5 MiB by fallocate(2) two PMD-sized folios and 1 MiB.  In a sparse
// 8 MiB file, i_size lets a 4 KiB write(2) into an empty 2 MiB block take
// the whole block, at its start or in its middle.  Each case checks the
// folios by order (/proc/kpageflags), the growth of nr_file_pages (nothing
// past that end) and of FileHugePages, and the data.  A PMD-sized folio
// that did not come after compaction and a retry is the allocator's only
// while fewer free 2 MiB blocks than the folios missing are left: then the
// case is not run.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE	(64 * MiB)
#define SPARSE	(8 * MiB)
#define SEED	17

static const char *dir;

enum op {
	WRITE,		/* @len in @arg-sized write(2)s into a new file */
	FALLOC,		/* fallocate(2) of @len on a new file */
	HOLES,		/* a sparse @len file, 4 KiB written at @arg into each 2 MiB block */
};

static const struct within_case {
	const char *what;
	enum op op;
	uint64_t len;
	size_t arg;
	int want[5][2];	/* the folios by order: {order, count}, ends at -1 */
} cases[] = {
	{ "64 MiB in one write(2) into a new file", WRITE, SIZE, SIZE,
	  { { 9, SIZE / HPAGE }, { -1 } } },
	{ "64 MiB appended in 2 MiB write(2)s", WRITE, SIZE, HPAGE,
	  { { 9, SIZE / HPAGE }, { -1 } } },
	{ "3 MiB + 12 KiB in one write(2)", WRITE, 3 * MiB + 12 * KiB, 3 * MiB + 12 * KiB,
	  { { 9, 1 }, { 8, 1 }, { 1, 1 }, { 0, 1 }, { -1 } } },
	{ "a 10 KiB file", WRITE, 10 * KiB, 10 * KiB, { { 1, 1 }, { 0, 1 }, { -1 } } },
	{ "5 MiB by fallocate(2) on a new file", FALLOC, 5 * MiB, 0,
	  { { 9, 2 }, { 8, 1 }, { -1 } } },
	{ "4 KiB written at the start of each 2 MiB block of a sparse 8 MiB file", HOLES,
	  SPARSE, 0, { { 9, SPARSE / HPAGE }, { -1 } } },
	{ "4 KiB written in the middle of each 2 MiB block of a sparse 8 MiB file", HOLES,
	  SPARSE, HPAGE / 2, { { 9, SPARSE / HPAGE }, { -1 } } },
};

/* Make the case's file: 0, or -1 with errno. */
static int make(const struct within_case *c, const char *path)
{
	unsigned char buf[PAGE];
	uint64_t at;
	int fd, err;

	if (c->op == WRITE)
		return write_file(path, c->len, c->arg, SEED);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (c->op == FALLOC) {
		err = fallocate(fd, 0, 0, c->len);
	} else {
		err = ftruncate(fd, c->len);
		for (at = c->arg; !err && at < c->len; at += HPAGE) {
			pattern_fill(buf, PAGE, at, SEED);
			err = pwrite(fd, buf, PAGE, at) != PAGE;
		}
	}
	close(fd);
	return err ? -1 : 0;
}

/* -1 if the file holds what make() put there, else the first bad offset. */
static long long check(const struct within_case *c, const char *path)
{
	long long bad = -1;
	uint64_t at;
	int fd;

	if (c->op == WRITE)
		return check_file(path, c->len, SEED);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (c->op == FALLOC)
		bad = fd_check_zero(fd, 0, c->len);
	for (at = 0; c->op == HOLES && bad < 0 && at < c->len; at += HPAGE) {
		bad = fd_check_zero(fd, at, c->arg);
		if (bad < 0)
			bad = fd_check_pattern(fd, at + c->arg, PAGE, SEED);
		if (bad < 0)
			bad = fd_check_zero(fd, at + c->arg + PAGE, HPAGE - c->arg - PAGE);
	}
	close(fd);
	return bad;
}

struct outcome {
	long pages, huge_kb;	/* growth of nr_file_pages and FileHugePages */
	unsigned long hist[MAX_FOLIO_ORDER];
	char text[160];
	long long bad;
};

/* Make the file, measure it, read it back; the file stays. */
static void run(const struct within_case *c, const char *path, struct outcome *r)
{
	long pages, huge;

	unlink(path);
	pages = nr_file_pages();
	huge = meminfo_now_kb("FileHugePages");
	r->bad = make(c, path) ? 0 : -1;
	r->pages = nr_file_pages() - pages;
	r->huge_kb = meminfo_now_kb("FileHugePages") - huge;
	/* After the counters: orders_of() maps the file, which a hole would fill. */
	orders_of(path, c->len, r->hist, r->text, sizeof(r->text));
	if (r->bad < 0)
		r->bad = check(c, path);
}

static void test_cases(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct within_case *c = &cases[i];
		long want_pages = 0, want_pmd = 0, blocks;
		struct outcome r;
		char path[128];
		int k;

		for (k = 0; c->want[k][0] >= 0; k++) {
			want_pages += (long)c->want[k][1] << c->want[k][0];
			if (c->want[k][0] == HPAGE_ORDER)
				want_pmd = c->want[k][1];
		}
		snprintf(path, sizeof(path), "%s/within", dir);
		run(c, path, &r);
		if ((long)r.hist[HPAGE_ORDER] < want_pmd) {
			/* Compact and retry once; excused only while 2 MiB blocks are short. */
			write_bytes("/proc/sys/vm/compact_memory", "1", 1);
			run(c, path, &r);
			blocks = free_2m_blocks(-1);
			if ((long)r.hist[HPAGE_ORDER] < want_pmd && blocks >= 0 &&
			    blocks < want_pmd - (long)r.hist[HPAGE_ORDER] && r.bad < 0) {
				ksft_test_result_skip("not run: allocator: withinsize: %s: folios by order %s, %ld free 2 MiB blocks after compaction\n",
						      c->what, r.text, blocks);
				unlink(path);
				continue;
			}
		}
		ksft_test_result(hist_is(r.hist, c->want) && r.pages == want_pages &&
				 r.huge_kb == want_pmd * (long)(HPAGE / KiB) && r.bad < 0,
				 "withinsize: %s: folios by order %s, nr_file_pages %+ld (want %+ld), FileHugePages %+ld kB (want %+ld), mismatch %lld\n",
				 c->what, r.text, r.pages, want_pages, r.huge_kb,
				 want_pmd * (long)(HPAGE / KiB), r.bad);
		unlink(path);
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case pcases[] = {
		{ "cases", test_cases, ARRAY_SIZE(cases) },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	/* huge= rules unless the file says deny or force: never, its default. */
	if (knob_set("never"))
		ksft_exit_fail_msg("page_cache: cannot set never\n");
	dir = mount_fs("ramfs", "huge=within_size");
	if (!dir)
		ksft_exit_fail_msg("mount ramfs huge=within_size: %s\n", strerror(errno));
	probe_run(pcases, ARRAY_SIZE(pcases));
	ksft_finished();
}
