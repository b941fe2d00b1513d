// drop_caches on ramfs huge folios: written data survives intact, and a
// clean folio made by reading a hole may go but the hole still reads zeros.
// drop_caches' log line is stock printk behaviour, not checked here.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DROP	"/proc/sys/vm/drop_caches"
#define SIZE	(8 * MiB)

static char written[128];
static int fd;			/* the hole file, read once */

static void test_drop(void)
{
	long long bad, z;
	long fhp0, fhp1;

	fhp0 = meminfo_now_kb("FileHugePages");
	write_bytes(DROP, "3", 1);
	fhp1 = meminfo_now_kb("FileHugePages");
	bad = check_file(written, SIZE, 13);
	ksft_test_result(bad < 0, "dropcaches: written huge folios survive drop_caches=3 (mismatch %lld, FileHugePages %ld -> %ld kB)\n",
			 bad, fhp0, fhp1);
	z = fd_check_zero(fd, 0, SIZE);
	ksft_test_result(z < 0, "dropcaches: the hole still reads zeros (first non-zero %lld)\n", z);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "drop_caches", test_drop, 2 },
	};
	char hole[128];
	const char *dir;

	probe_init(argc, argv, PAGECACHE_OPT);
	/* Before the plan: a probe that cannot set up is a failure as a whole. */
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	snprintf(written, sizeof(written), "%s/written", dir);
	snprintf(hole, sizeof(hole), "%s/hole", dir);
	if (write_file(written, SIZE, MiB, 13))
		ksft_exit_fail_msg("write %s: %s\n", written, strerror(errno));
	fd = open(hole, O_RDWR | O_CREAT, 0644);
	/* Clean huge folios: read of the hole, which must read zeros. */
	if (fd < 0 || ftruncate(fd, SIZE) || fd_check_zero(fd, 0, SIZE) >= 0)
		ksft_exit_fail_msg("hole file: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	close(fd);
	ksft_finished();
}
