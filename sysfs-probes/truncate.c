// Truncate and punch hole at offsets around 2 MiB boundaries: data before
// the cut stays, re-extension reads zeros, and huge folios past the cut go.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE	(8 * MiB)	/* four huge folios */

static const uint64_t cuts[] = { 0, 1, 4095, 4096, HPAGE - 1, HPAGE, HPAGE + 1,
				 3 * MiB + 123, 2 * HPAGE - 4096, 2 * HPAGE, SIZE - 1 };
#define NCUTS (sizeof(cuts) / sizeof(cuts[0]))

static const char *dir;
static long dirty0, warned0;	/* at the start */

/* Expect pattern in [0, from) and [to, SIZE), zeros in [from, to). */
static long long check(int fd, uint64_t from, uint64_t to)
{
	long long bad;

	if ((bad = fd_check_pattern(fd, 0, from, 5)) >= 0)
		return bad;
	if ((bad = fd_check_zero(fd, from, to - from)) >= 0)
		return bad;
	return fd_check_pattern(fd, to, SIZE - to, 5);
}

static void cut(uint64_t at, int punch)
{
	char path[128];
	long before, after, want;
	long long bad;
	int fd, err;

	snprintf(path, sizeof(path), "%s/t", dir);
	fd = write_file(path, SIZE, MiB, 5) ? -1 : open(path, O_RDWR);
	if (fd < 0) {
		ksft_test_result_fail("truncate: %s at %llu: write %s: %s\n", punch ? "punch" : "cut",
				      (unsigned long long)at, path, strerror(errno));
		unlink(path);
		return;
	}
	before = meminfo_kb("FileHugePages");
	if (punch) {
		/* Punch [at, at + 2M + 1): covers a whole folio or two partials. */
		uint64_t len = at + HPAGE + 1 > SIZE ? SIZE - at : HPAGE + 1;

		err = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, len);
		after = meminfo_kb("FileHugePages");
		bad = err ? 0 : check(fd, at, at + len);
		/* Folios the hole touches are freed or split; the others stay. */
		want = (long)((SIZE / HPAGE) - ((at + len + HPAGE - 1) / HPAGE - at / HPAGE)) * 2048;
		ksft_test_result(!err && bad < 0 && after - before == want - 4 * 2048,
				 "truncate: punch [%llu, +%llu): data kept, hole zeros (mismatch %lld), FileHugePages %ld -> %ld kB (want %ld)\n",
				 (unsigned long long)at, (unsigned long long)len, bad, before, after, want);
	} else {
		err = ftruncate(fd, at) || ftruncate(fd, SIZE);
		after = meminfo_kb("FileHugePages");
		bad = err ? 0 : check(fd, at, SIZE);
		want = (long)(at / HPAGE) * 2048;
		ksft_test_result(!err && bad < 0 && after - before == want - 4 * 2048,
				 "truncate: to %llu and back: data kept, tail zeros (mismatch %lld), FileHugePages %ld -> %ld kB (want %ld)\n",
				 (unsigned long long)at, bad, before, after, want);
	}
	close(fd);
	unlink(path);
}

static void test_truncates(void)
{
	unsigned int i;

	for (i = 0; i < NCUTS; i++)
		cut(cuts[i], 0);
}

static void test_punches(void)
{
	unsigned int i;

	for (i = 0; i < NCUTS; i++)
		cut(cuts[i], 1);
}

/*
 * ramfs folios are never counted dirty: splits must not uncount them.
 * /proc/vmstat shows a negative counter as 0, so an uncount shows only as
 * the warning a refresh prints ("vmstat_refresh: nr_dirty -N"): refresh
 * here, so that it is this probe that fails, not whichever test comes next.
 * The refresh also folds the per-CPU diffs, without which nr_dirty lags
 * by up to a batch per CPU: a write to stat_refresh that failed would
 * leave both unseen, so it is part of the result.
 */
#define NEGATIVE_DIRTY	"vmstat_refresh: nr_dirty "
#define STAT_REFRESH	"/proc/sys/vm/stat_refresh"

static int refresh_err;		/* the first failed write to stat_refresh, or 0 */

static long dirty_now(void)
{
	int err = write_bytes(STAT_REFRESH, "1", 1);

	if (err && !refresh_err)
		refresh_err = err;
	return vmstat_get("nr_dirty");
}

static void test_dirty(void)
{
	long now, warned;

	now = dirty_now();
	warned = klog_count(NEGATIVE_DIRTY);
	ksft_test_result(!refresh_err && now == dirty0 && warned == warned0 && warned >= 0,
			 "truncate: nr_dirty unchanged across splits (%ld -> %ld), never negative (%ld warnings, was %ld), %s %s\n",
			 dirty0, now, warned, warned0, STAT_REFRESH,
			 refresh_err ? strerror(-refresh_err) : "written before each read");
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "truncate", test_truncates, NCUTS },
		{ "punch", test_punches, NCUTS },
		{ "nr_dirty", test_dirty, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	dirty0 = dirty_now();
	warned0 = klog_count(NEGATIVE_DIRTY);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
