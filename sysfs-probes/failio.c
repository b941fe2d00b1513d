// A read(2) or write(2) that fails at once must not leave the range it asked
// for in the page cache: read(2) of a sparse 256 MiB file into a PROT_NONE
// buffer (default policy, and huge=always, the one policy under which reads
// of holes allocate huge folios, one step at a time), write(2) of 256 MiB
// from one into an empty file (huge=always).  All fail with EFAULT; at most
// the one folio the copy was about to enter may stay (512 + 1 pages), and
// unlink gives everything back.  A non-blocking read (RWF_NOWAIT) of a hole
// must allocate nothing: it returns EAGAIN, or EOPNOTSUPP where ramfs files
// do not take RWF_NOWAIT at all (6.1: no FMODE_NOWAIT; io_uring is not
// built), in which case the kernel's IOCB_NOWAIT path cannot be reached
// from here and the check only guards the refusal.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
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
	/* EFAULT, or a short count: nothing can be copied from or to PROT_NONE. */
	ksft_test_result(((ret < 0 && err == EFAULT) || (ret >= 0 && ret < (ssize_t)SIZE)) &&
			 (writing ? st.st_size == 0 : st.st_size == (off_t)SIZE) && pinned <= MAX_PINNED,
			 "%s: returns %zd (%s), st_size %lld, nr_file_pages %+ld (at most %+ld), FileHugePages %+ld kB\n",
			 name, ret, ret < 0 ? strerror(err) : "short", (long long)st.st_size, pinned,
			 MAX_PINNED, fhp);
	close(fd);
	result_unlinked(name, path, base, SLACK);
}

/* preadv2(RWF_NOWAIT) of a hole on huge=always: nothing may be allocated. */
static void nowait(const char *dir)
{
	long base = nr_file_pages(), ev0 = vmstat_get("thp_read_alloc"), pages, ev;
	static unsigned char buf[4 * MiB];
	struct iovec iov = { buf, sizeof(buf) };
	char path[128];
	ssize_t ret = -1;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/nowait", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !ftruncate(fd, SIZE)) {
		errno = 0;
		ret = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
		err = errno;
	}
	pages = nr_file_pages() - base;
	ev = vmstat_get("thp_read_alloc") - ev0;
	ksft_test_result(ret < 0 && (err == EAGAIN || err == EOPNOTSUPP) && ev == 0 &&
			 pages <= SLACK,
			 "failio: RWF_NOWAIT read of a hole, huge=always: returns %zd (%s), thp_read_alloc %+ld, nr_file_pages %+ld (at most %+d)\n",
			 ret, ret < 0 ? strerror(err) : "data", ev, pages, SLACK);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void test_read(void)
{
	one(dflt, "read(2) of a sparse 256 MiB file into PROT_NONE, default policy", 0);
	one(huge, "read(2) of a sparse 256 MiB file into PROT_NONE, huge=always", 0);
}

static void test_write(void)
{
	one(huge, "write(2) of 256 MiB from PROT_NONE into an empty file, huge=always", 1);
}

static void test_nowait(void)
{
	nowait(huge);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "read", test_read, 4 },	/* each call, then unlink */
		{ "write", test_write, 2 },
		{ "nowait", test_nowait, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	require_knob("within_size");	/* the default policy, as users get it */
	none = mmap(NULL, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	dflt = mount_fs("ramfs", "");
	huge = mount_fs("ramfs", "huge=always");
	if (none == MAP_FAILED || !dflt || !huge)
		ksft_exit_fail_msg("mmap/mount: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	munmap(none, SIZE);
	ksft_finished();
}
