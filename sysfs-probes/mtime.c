// mtime through a shared mapping: a store into a page that a read fault
// mapped must update the file's mtime, whether the read made a PMD
// (huge=always) or PTEs (huge=never's folios sized by the 1 MiB writes, or
// a VMA too small for a PMD), and the byte must be in the file.  A read
// fault must map the folio read-only, PMD and fault-around alike, so that
// the store faults into ->page_mkwrite (filemap_page_mkwrite(), which
// updates the times); mapped writable at once, the store would never fault.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIZE	(4 * MiB)	/* two huge folios */
#define MARK	0x5a

/* A 2001 timestamp: any update by the kernel differs from it. */
static const struct timespec old = { 1000000000, 123456789 };

/*
 * Write the file, age its mtime, map @maplen of it, read-fault @nread pages
 * from offset 0, store one byte at @store, unmap; check mtime and the byte.
 * @pmd: the read must have made a PMD mapping (1), must not have (0).
 */
static void one(const char *dir, const char *what, size_t maplen, size_t nread,
		size_t store, int pmd)
{
	const struct timespec times[2] = { old, old };
	unsigned char *p, byte = 0;
	volatile unsigned char sink;
	long mapped = -1;
	struct stat st = { 0 };
	char path[128];
	int fd, ok;
	size_t off;

	snprintf(path, sizeof(path), "%s/mtime", dir);
	if (write_file(path, SIZE, MiB, 3) || (fd = open(path, O_RDWR)) < 0) {
		ksft_test_result_fail("mtime: %s: write %s: %s\n", what, path, strerror(errno));
		return;
	}
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || futimens(fd, times)) {
		ksft_test_result_fail("mtime: %s: mmap/futimens: %s\n", what, strerror(errno));
		close(fd);
		unlink(path);
		return;
	}
	for (off = 0; off < nread * PAGE; off += PAGE)
		sink = p[off];
	mapped = smaps_get(p, "FilePmdMapped");
	(void)sink;
	p[store] = MARK;
	munmap(p, maplen);
	fstat(fd, &st);
	if (pread(fd, &byte, 1, store) != 1)
		byte = 0;
	ok = (st.st_mtim.tv_sec != old.tv_sec || st.st_mtim.tv_nsec != old.tv_nsec) &&
	     byte == MARK && (pmd ? mapped > 0 : mapped == 0);
	ksft_test_result(ok, "mtime: %s: %zu page(s) read-faulted (VMA FilePmdMapped %ld kB, want %s), store at %#zx, munmap: mtime %ld.%09ld (was %ld.%09ld), byte %#x (want %#x)\n",
			 what, nread, mapped, pmd ? "> 0" : "0", store, (long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec, (long)old.tv_sec, old.tv_nsec, byte, MARK);
	close(fd);
	unlink(path);
}

/*
 * Every page read first: PMDs on huge=always, PTEs on never (no folio is
 * PMD-sized); then one store.  Or one page read; fault-around maps its
 * neighbours too: the store into the next page finds a PTE already there.
 * A 1 MiB VMA cannot take a PMD, so on huge=always the huge folio is
 * mapped by PTEs.
 */
static const struct mtime_case {
	int huge;
	const char *what;
	size_t maplen, nread, store;
	int pmd;
} cases_[] = {
	{ 1, "huge=always, whole 4 MiB read (PMD)", SIZE, SIZE / PAGE, 3 * MiB + 5, 1 },
	{ 0, "huge=never (1 MiB folios), whole 4 MiB read (PTEs)", SIZE, SIZE / PAGE, 3 * MiB + 5, 0 },
	{ 1, "huge=always, 1 MiB VMA, one page read (PTEs)", MiB, 1, PAGE + 7, 0 },
	{ 0, "huge=never (1 MiB folios), one page read (PTEs)", SIZE, 1, PAGE + 7, 0 },
};
static const char *huge, *small;

static void test_all(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases_); i++) {
		const struct mtime_case *c = &cases_[i];

		one(c->huge ? huge : small, c->what, c->maplen, c->nread, c->store, c->pmd);
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "stores", test_all, ARRAY_SIZE(cases_) },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	huge = mount_fs("ramfs", "huge=always");
	small = mount_fs("ramfs", "huge=never");
	if (!huge || !small)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
