// drop_caches on ramfs huge folios: written data survives intact, a clean
// folio made by reading a hole may go but the hole still reads zeros, and
// the upstream log line (one per write until bit 4 silences it) behaves.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#define DROP	"/proc/sys/vm/drop_caches"
#define SIZE	(8 * MiB)

/* How many "drop_caches: " lines the kernel log holds now. */
static int log_lines(void)
{
	static char buf[1 << 20];
	int n = klogctl(3, buf, sizeof(buf) - 1), count = 0;
	char *p = buf;

	if (n < 0)
		return -1;
	buf[n] = 0;
	while ((p = strstr(p, "drop_caches: ")))
		count++, p++;
	return count;
}

static char written[128];
static int fd;			/* the hole file, read once */

static void test_drop(void)
{
	long long bad, z;
	long fhp0, fhp1;
	int l0, l1, l2;

	fhp0 = meminfo_now_kb("FileHugePages");

	l0 = log_lines();
	write_bytes(DROP, "3", 1);
	l1 = log_lines();
	fhp1 = meminfo_now_kb("FileHugePages");
	bad = check_file(written, SIZE, 13);
	ksft_test_result(bad < 0, "dropcaches: written huge folios survive drop_caches=3 (mismatch %lld, FileHugePages %ld -> %ld kB)\n",
			 bad, fhp0, fhp1);
	z = fd_check_zero(fd, 0, SIZE);
	ksft_test_result(z < 0 && fhp1 >= fhp0 - (long)(SIZE / KiB),
			 "dropcaches: the hole still reads zeros (first non-zero %lld); at most its clean folios went\n", z);
	ksft_test_result(l0 >= 0 && l1 == l0 + 1,
			 "dropcaches: a write logs one line (%d -> %d)\n", l0, l1);
	write_bytes(DROP, "4", 1);	/* bit 4: silence the message for good */
	l1 = log_lines();
	write_bytes(DROP, "1", 1);
	l2 = log_lines();
	/* l1 >= 0: an unreadable log (-1 == -1) is no evidence. */
	ksft_test_result(l1 >= 0 && l2 == l1,
			 "dropcaches: after bit 4 no more lines (%d -> %d)\n", l1, l2);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "drop_caches", test_drop, 4 },
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
