// A read(2) or write(2) that fails at once must not leave the range it asked
// for in the page cache: read(2) of a sparse 256 MiB file into a PROT_NONE
// buffer (the default policy, never, whose reads of holes add 4 KiB pages,
// and huge=always, the one policy under which read(2) fills holes with
// PMD-sized folios, in ramfs_file_read_iter() before the copy), write(2) of
// 256 MiB from one into an empty file (huge=always).  All must fail with
// EFAULT: nothing can be copied to or from PROT_NONE, so a count, even 0
// (EOF inside a 256 MiB file), is a bug.  At most the one folio the copy
// was about to enter may stay (512 + 1 pages), and unlink gives everything
// back.  No RWF_NOWAIT case: ramfs files have no FMODE_NOWAIT (6.1 and
// 6.12: only pipes, eventfd and a few disk filesystems set it), so
// preadv2(RWF_NOWAIT) fails with EOPNOTSUPP before it reaches ramfs.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIZE	(256 * MiB)
#define MAX_PINNED	((long)(HPAGE / PAGE) + 1)
#define SLACK	8		/* pages others may add or free meanwhile */

static unsigned char *none;	/* SIZE bytes of PROT_NONE */
static const char *dflt, *huge;

static void one(const char *dir, const char *what, int writing)
{
	long base = nr_file_pages(), fhp0 = meminfo_kb("FileHugePages"), pinned, fhp;
	char path[128], name[160];
	struct stat st = { 0 };
	ssize_t ret;
	int fd, err;

	snprintf(path, sizeof(path), "%s/failio", dir);
	snprintf(name, sizeof(name), "failio: %s", what);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (!writing && ftruncate(fd, SIZE))) {
		ksft_test_result_fail("%s: create %s: %s\n", name, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;		/* probe_case_end() fails the unlink result */
	}
	errno = 0;
	ret = writing ? write(fd, none, SIZE) : read(fd, none, SIZE);
	err = errno;
	fstat(fd, &st);
	pinned = nr_file_pages() - base;
	fhp = meminfo_kb("FileHugePages") - fhp0;
	ksft_test_result(ret < 0 && err == EFAULT &&
			 (writing ? st.st_size == 0 : st.st_size == (off_t)SIZE) && pinned <= MAX_PINNED,
			 "%s: returns %zd (%s), st_size %lld, nr_file_pages %+ld (at most %+ld), FileHugePages %+ld kB\n",
			 name, ret, ret < 0 ? strerror(err) : ret ? "a count" : "0: EOF inside the file", (long long)st.st_size, pinned,
			 MAX_PINNED, fhp);
	close(fd);
	result_unlinked(name, path, base, SLACK);
}

static void test_read(void)
{
	one(dflt, "read(2) of a sparse 256 MiB file into PROT_NONE, default policy (never)", 0);
	one(huge, "read(2) of a sparse 256 MiB file into PROT_NONE, huge=always", 0);
}

static void test_write(void)
{
	one(huge, "write(2) of 256 MiB from PROT_NONE into an empty file, huge=always", 1);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "read", test_read, 4 },	/* each call, then unlink */
		{ "write", test_write, 2 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	require_knob("never");	/* the default policy, as users get it */
	none = mmap(NULL, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	dflt = mount_fs("ramfs", "");
	huge = mount_fs("ramfs", "huge=always");
	if (none == MAP_FAILED || !dflt || !huge)
		ksft_exit_fail_msg("mmap/mount: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	munmap(none, SIZE);
	ksft_finished();
}
