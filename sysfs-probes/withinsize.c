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
	before = meminfo_now_kb("FileHugePages");
	*bad = write_file(path, len, bs, 17) ? 0 : check_file(path, len, 17);
	after = meminfo_now_kb("FileHugePages");
	unlink(path);
	msg("%zu in %zu-byte writes: thp_write_alloc_failed %+ld\n", len, bs,
	    vmstat_get("thp_write_alloc_failed") - failed0);
	return after - before;
}

/* FileHugePages it must gain, in kB: from @min to @max. */
static const struct write_case {
	const char *what;
	size_t len, bs;
	long min, max;
} writes[] = {
	{ "64 MiB in one write(2) into a new file", SIZE, SIZE, SIZE / KiB, SIZE / KiB },
	{ "64 MiB appended in 2 MiB write(2)s", SIZE, HPAGE, SIZE / KiB, SIZE / KiB },
	{ "a 10 KiB file", 10 * KiB, 10 * KiB, 0, 0 },
};

static void test_writes(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		const struct write_case *w = &writes[i];
		long long bad;
		long kb = huge_kb(w->len, w->bs, &bad);

		ksft_test_result(kb >= w->min && kb <= w->max && bad < 0,
				 "withinsize: %s: FileHugePages %+ld kB (want %+ld to %+ld), mismatch %lld\n",
				 w->what, kb, w->min, w->max, bad);
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "writes", test_writes, ARRAY_SIZE(writes) },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	require_knob("within_size");	/* the default policy, as users get it */
	dir = mount_fs("ramfs", "");
	if (!dir)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
