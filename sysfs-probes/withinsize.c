// The default policy, within_size, as files are usually written: the size
// it goes by includes the end of the write(2) under way.  64 MiB in one
// write(2) into a new file gets 32 huge folios, 64 MiB appended in 2 MiB
// write(2)s (each covering a whole aligned 2 MiB range) at least 30, and a
// 10 KiB file none.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE	(64 * MiB)

static const char *dir;

/* Write @len in @bs-sized write(2)s; returns the FileHugePages delta in kB. */
static long huge_kb(size_t len, size_t bs, long long *bad)
{
	long before, after;
	char path[128];

	snprintf(path, sizeof(path), "%s/within", dir);
	vm_stat_refresh();
	before = meminfo_kb("FileHugePages");
	*bad = write_file(path, len, bs, 17) ? 0 : check_file(path, len, 17);
	vm_stat_refresh();
	after = meminfo_kb("FileHugePages");
	unlink(path);
	return after - before;
}

int main(int argc, char **argv)
{
	long long bad;
	long kb;

	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE");
	require_knob("within_size");	/* the default policy, as users get it */
	ksft_set_plan(3);
	dir = mount_fs("ramfs", "");
	if (!dir)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	kb = huge_kb(SIZE, SIZE, &bad);
	ksft_test_result(kb == (long)(SIZE / KiB) && bad < 0,
			 "withinsize: 64 MiB in one write(2) into a new file: FileHugePages %+ld kB (want %+lu), mismatch %lld\n",
			 kb, SIZE / KiB, bad);
	kb = huge_kb(SIZE, HPAGE, &bad);
	ksft_test_result(kb >= (long)(30 * HPAGE / KiB) && bad < 0,
			 "withinsize: 64 MiB appended in 2 MiB write(2)s: FileHugePages %+ld kB (want >= %+lu), mismatch %lld\n",
			 kb, 30 * HPAGE / KiB, bad);
	kb = huge_kb(10 * KiB, 10 * KiB, &bad);
	ksft_test_result(kb == 0 && bad < 0,
			 "withinsize: a 10 KiB file: FileHugePages %+ld kB (want 0), mismatch %lld\n",
			 kb, bad);
	ksft_finished();
}
