// A fault in an MADV_HUGEPAGE mapping makes filemap_fault() read ahead two
// PMD-sized ranges even where readahead is off; on ramfs "reading" a hole
// allocates zeroed, unevictable memory, so stock 6.1 adds 1024 pages for
// one touched page (the patch "ramfs: don't read ahead 4MB on a fault in
// an MADV_HUGEPAGE mapping").  A 64 MiB sparse file, mapped shared with
// MADV_HUGEPAGE, one page touched: on huge=never the file must hold that
// one page afterwards (mincore), by a read or a write fault; on
// huge=always the one huge folio the fault needs (512 pages), nothing
// ahead of it.  A write fault in a private mapping copies one page out
// and must add no huge folio to the file, even under huge=always ("ramfs:
// map huge folios with PMDs"): 1 page, where a huge folio would pin 512.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE	(64 * MiB)
#define TOUCH	(33 * MiB + 5 * PAGE)	/* in the middle, not aligned */
#define SLACK	8			/* pages others may add meanwhile */

static const char *never, *always;

static void one(const char *dir, const char *what, int writing, int shared, long want)
{
	long base = nr_file_pages(), pages = -1, delta;
	volatile unsigned char *p = MAP_FAILED;
	char path[128];
	int fd, err = -1;

	snprintf(path, sizeof(path), "%s/rafault", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !ftruncate(fd, SIZE))
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
			 shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED) {
		err = madvise((void *)p, SIZE, MADV_HUGEPAGE);
		if (writing)
			p[TOUCH] = 1;
		else
			(void)p[TOUCH];
		pages = resident((void *)p, SIZE);
		munmap((void *)p, SIZE);
	}
	delta = nr_file_pages() - base;
	ksft_test_result(!err && pages == want && delta <= want + SLACK,
			 "rafault: %s, 64 MiB sparse, %s, MADV_HUGEPAGE (err %d), one page %s: %ld pages resident (want %ld), nr_file_pages %+ld\n",
			 what, shared ? "shared" : "private", err, writing ? "written" : "read",
			 pages, want, delta);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void never_read(void)
{
	one(never, "huge=never", 0, 1, 1);
}

static void never_write(void)
{
	one(never, "huge=never", 1, 1, 1);
}

static void always_read(void)
{
	one(always, "huge=always", 0, 1, HPAGE / PAGE);
}

/* The copied page is resident in the mapping, the file holds one page. */
static void always_cow(void)
{
	one(always, "huge=always", 1, 0, 1);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "huge=never read", never_read, 1 },
		{ "huge=never write", never_write, 1 },
		{ "huge=always read", always_read, 1 },
		{ "huge=always private write", always_cow, 1 },
	};

	/* Only THP: the readahead is stock 6.1's, and so is the check. */
	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE");
	never = mount_fs("ramfs", "huge=never");
	always = mount_fs("ramfs", "huge=always");
	if (!never || !always)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
