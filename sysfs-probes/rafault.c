// A fault in an MADV_HUGEPAGE mapping makes filemap_fault() read ahead a
// PMD-aligned window of twice the PMD size, even where readahead is off;
// on ramfs "reading" a hole allocates zeroed, unevictable memory, so stock
// 6.12 adds 1024 pages for one touched page (v4's patch "ramfs: fill a hole
// before filemap_fault() reads ahead into it").  A 64 MiB sparse file per
// case, mapped with MADV_HUGEPAGE, one page in the middle touched once:
// afterwards the file must hold exactly the folio that the fault columns of
// "Hugepages in the page cache" give that fault, nothing ahead of it: a
// read fault, a store in a shared mapping and a store in a private one
// (which counts as a read fault: the folio is only the source of the copy)
// on mounts huge=never (4 KiB), within_size (PMD for the shared store
// only), advise (PMD, the mapping has MADV_HUGEPAGE) and always (PMD).
// Where the folio is PMD-sized and the file's, the VMA maps it with a PMD.
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
#define PMD_PAGES	(long)(HPAGE / PAGE)

enum how { READ, SHARED_STORE, PRIVATE_STORE };
static const char *const how_name[] = {
	"read", "stored (shared)", "stored (private)",
};

/* The fault columns: pages the file caches after one fault of each kind. */
static const struct policy {
	const char *name;
	long pages[3];		/* by enum how */
} policies[] = {
	{ "never", { 1, 1, 1 } },
	{ "within_size", { 1, PMD_PAGES, 1 } },
	{ "advise", { PMD_PAGES, PMD_PAGES, PMD_PAGES } },
	{ "always", { PMD_PAGES, PMD_PAGES, PMD_PAGES } },
};

static void one(const char *dir, const struct policy *pol, enum how how)
{
	long base = nr_file_pages(), pages = -1, delta, pmd = -1, want = pol->pages[how];
	/* Only the file's own folio, mapped shared or read, is PMD-mapped. */
	long want_pmd = want == PMD_PAGES && how != PRIVATE_STORE ? (long)(HPAGE / KiB) : 0;
	volatile unsigned char *p = MAP_FAILED;
	char path[128];
	int fd, err = -1;

	snprintf(path, sizeof(path), "%s/rafault", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !ftruncate(fd, SIZE))
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
			 how == PRIVATE_STORE ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		err = madvise((void *)p, SIZE, MADV_HUGEPAGE);
		if (how == READ)
			(void)p[TOUCH];
		else
			p[TOUCH] = 1;
		pmd = smaps_get((void *)p, "FilePmdMapped");
		munmap((void *)p, SIZE);
		pages = cached_pages(fd, SIZE);
	}
	delta = nr_file_pages() - base;
	ksft_test_result(!err && pages == want && delta <= want + SLACK && pmd == want_pmd,
			 "rafault: huge=%s, 64 MiB sparse, MADV_HUGEPAGE (err %d), one page %s: file caches %ld pages (want %ld), nr_file_pages %+ld, VMA FilePmdMapped %ld kB (want %ld)\n",
			 pol->name, err, how_name[how], pages, want, delta, pmd, want_pmd);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void run_all(void)
{
	char opts[64];
	const char *dir;
	unsigned int i;
	enum how how;
	int err;

	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		snprintf(opts, sizeof(opts), "huge=%s", policies[i].name);
		dir = mount_fs("ramfs", opts);
		err = errno;
		for (how = READ; how <= PRIVATE_STORE; how++)
			if (dir)
				one(dir, &policies[i], how);
			else
				ksft_test_result_fail("rafault: mount ramfs %s: %s\n", opts,
						      strerror(err));
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "faults by policy", run_all, ARRAY_SIZE(policies) * 3 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
