// drop_caches on ramfs huge folios: written data survives intact, and so
// do the folios fallocate(2) reserved (ramfs marks them dirty so that
// they stay: every page still cached, reading zeros); a clean folio made
// by reading a hole may go, but the hole still reads zeros.
// drop_caches' log line is stock printk behaviour, not checked here.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DROP	"/proc/sys/vm/drop_caches"
#define SIZE	(8 * MiB)

static char written[128], reserved[128];
static int fd;			/* the hole file, read once */

/* Pages of the first SIZE bytes of @path in the page cache (mincore), or -1. */
static long cached(const char *path)
{
	int f = open(path, O_RDONLY);
	void *p = f < 0 ? MAP_FAILED : mmap(NULL, SIZE, PROT_READ, MAP_SHARED, f, 0);
	long n = p == MAP_FAILED ? -1 : resident(p, SIZE);

	if (p != MAP_FAILED)
		munmap(p, SIZE);
	if (f >= 0)
		close(f);
	return n;
}

static void test_drop(void)
{
	unsigned long wh[MAX_FOLIO_ORDER] = { 0 }, rh[MAX_FOLIO_ORDER] = { 0 };
	char wt[64] = "", rt[64] = "";
	long long bad, z, zr = 0;
	long fhp0, fhp1, wc, rc;
	int f;

	fhp0 = meminfo_now_kb("FileHugePages");
	write_bytes(DROP, "3", 1);
	fhp1 = meminfo_now_kb("FileHugePages");
	/* Before any read, which would fill what went missing. */
	wc = cached(written);
	rc = cached(reserved);
	bad = check_file(written, SIZE, 13);
	/* Wholly cached now, so reading the orders fills nothing. */
	orders_of(written, SIZE, wh, wt, sizeof(wt));
	orders_of(reserved, SIZE, rh, rt, sizeof(rt));
	ksft_test_result(bad < 0 && wc == (long)(SIZE / PAGE) && wh[HPAGE_ORDER] == SIZE / HPAGE,
			 "dropcaches: written huge folios survive drop_caches=3: %ld of %lu pages cached, folios %s, mismatch %lld (FileHugePages %ld -> %ld kB)\n",
			 wc, SIZE / PAGE, wt, bad, fhp0, fhp1);
	f = open(reserved, O_RDONLY);
	zr = f < 0 ? 0 : fd_check_zero(f, 0, SIZE);
	if (f >= 0)
		close(f);
	ksft_test_result(rc == (long)(SIZE / PAGE) && rh[HPAGE_ORDER] == SIZE / HPAGE && zr < 0,
			 "dropcaches: fallocated huge folios stay: %ld of %lu pages cached after drop_caches=3, folios %s, first non-zero %lld\n",
			 rc, SIZE / PAGE, rt, zr);
	z = fd_check_zero(fd, 0, SIZE);
	ksft_test_result(z < 0, "dropcaches: the hole still reads zeros (first non-zero %lld)\n", z);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "drop_caches", test_drop, 3 },
	};
	char hole[128];
	const char *dir;
	int rfd;

	probe_init(argc, argv, PAGECACHE_OPT);
	/* Before the plan: a probe that cannot set up is a failure as a whole. */
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	snprintf(written, sizeof(written), "%s/written", dir);
	snprintf(reserved, sizeof(reserved), "%s/reserved", dir);
	snprintf(hole, sizeof(hole), "%s/hole", dir);
	if (write_file(written, SIZE, MiB, 13))
		ksft_exit_fail_msg("write %s: %s\n", written, strerror(errno));
	rfd = open(reserved, O_RDWR | O_CREAT, 0644);
	if (rfd < 0 || fallocate(rfd, 0, 0, SIZE))
		ksft_exit_fail_msg("fallocate %s: %s\n", reserved, strerror(errno));
	close(rfd);
	fd = open(hole, O_RDWR | O_CREAT, 0644);
	/* Clean huge folios: read of the hole, which must read zeros. */
	if (fd < 0 || ftruncate(fd, SIZE) || fd_check_zero(fd, 0, SIZE) >= 0)
		ksft_exit_fail_msg("hole file: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	close(fd);
	ksft_finished();
}
