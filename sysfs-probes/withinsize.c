// The default policy, within_size, as files are usually written: the size
// it goes by includes the end of the write(2) under way.  64 MiB in one
// write(2) into a new file gets 32 huge folios, 64 MiB appended in 2 MiB
// write(2)s 32 too, and a 10 KiB file none.  Each 2 MiB append starts on a
// 2 MiB boundary and ends where the file will end, so within_size wants a
// huge folio for every one of them: none may be small.  Only a failed
// allocation could make one small, as it could in the single write, which
// asks for exactly 32 as well; thp_write_alloc_failed is printed to tell
// such a failure from a policy that refused.
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
	long before, after, failed0 = vmstat_get("thp_write_alloc_failed");
	char path[128];

	snprintf(path, sizeof(path), "%s/within", dir);
	vm_stat_refresh();
	before = meminfo_kb("FileHugePages");
	*bad = write_file(path, len, bs, 17) ? 0 : check_file(path, len, 17);
	vm_stat_refresh();
	after = meminfo_kb("FileHugePages");
	unlink(path);
	msg("%zu in %zu-byte writes: thp_write_alloc_failed %+ld\n", len, bs,
	    vmstat_get("thp_write_alloc_failed") - failed0);
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
	ksft_test_result(kb == (long)(SIZE / KiB) && bad < 0,
			 "withinsize: 64 MiB appended in 2 MiB write(2)s: FileHugePages %+ld kB (want %+lu), mismatch %lld\n",
			 kb, SIZE / KiB, bad);
	kb = huge_kb(10 * KiB, 10 * KiB, &bad);
	ksft_test_result(kb == 0 && bad < 0,
			 "withinsize: a 10 KiB file: FileHugePages %+ld kB (want 0), mismatch %lld\n",
			 kb, bad);
	ksft_finished();
}
