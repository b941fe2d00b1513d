// split_huge_page on ramfs folios through debugfs split_huge_pages: every
// offset class, clean/dirty, shared PMD mappings in two processes, private
// and mlocked mappings, and a split that must fail (a pipe holds a page).
// After each: data matches, counters agree, and the file keeps working.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE	(8 * MiB)	/* four huge folios */

static const char *dir;
static char path[128];

static int split(uint64_t start, uint64_t end)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s,0x%llx,0x%llx", path,
		 (unsigned long long)start, (unsigned long long)end);
	return write_bytes(SPLIT, cmd, strlen(cmd));
}

static long fhp(void)
{
	vm_stat_refresh();
	return meminfo_kb("FileHugePages");
}

/* After a split: data, further writes, truncate and a fault all work. */
static int still_works(void)
{
	int fd = open(path, O_RDWR);
	unsigned char *p, buf[100];
	long long bad;

	if (fd < 0)
		return 0;
	bad = check_file(path, SIZE, 5);
	pattern_fill(buf, sizeof(buf), HPAGE - 50, 5);
	if (bad < 0 && pwrite(fd, buf, sizeof(buf), HPAGE - 50) != sizeof(buf))
		bad = 0;
	if (bad < 0 && (ftruncate(fd, SIZE - 4097) || ftruncate(fd, SIZE)))
		bad = 0;
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (bad < 0 && p != MAP_FAILED) {
		bad = pattern_check(p, SIZE - 4097, 0, 5);
		if (bad < 0 && zero_check(p + SIZE - 4097, 4097) >= 0)
			bad = SIZE - 4097;
	}
	if (p != MAP_FAILED)
		munmap(p, SIZE);
	/* Put the pattern back where the truncate zeroed it. */
	{
		unsigned char tail[4097];

		pattern_fill(tail, sizeof(tail), SIZE - 4097, 5);
		if (bad < 0 && pwrite(fd, tail, sizeof(tail), SIZE - 4097) != sizeof(tail))
			bad = SIZE - 4097;
	}
	close(fd);
	if (bad >= 0)
		msg("data mismatch at %lld after split\n", bad);
	return bad < 0;
}

static void fresh(int clean)
{
	int fd;

	unlink(path);
	if (!clean) {
		write_file(path, SIZE, MiB, 5);
		return;
	}
	/* Clean folios: made by reading holes, then filled by mmap writes. */
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd >= 0 && !ftruncate(fd, SIZE)) {
		unsigned char *buf = malloc(SIZE);

		if (pread(fd, buf, SIZE, 0) == SIZE) {
			pattern_fill(buf, SIZE, 0, 5);
			if (pwrite(fd, buf, SIZE, 0) != SIZE)
				msg("pwrite failed\n");
		}
		free(buf);
	}
	close(fd);
}

static void test_range(const char *what, uint64_t start, uint64_t end, int folios, int clean)
{
	long before, after, splits, dirty, dirty0 = vmstat_get("nr_dirty");
	int err;

	fresh(clean);
	before = fhp();
	splits = vmstat_get("thp_split_page");
	err = split(start, end);
	after = fhp();
	splits = vmstat_get("thp_split_page") - splits;
	dirty = vmstat_get("nr_dirty") - dirty0;
	ksft_test_result(!err && before - after == folios * 2048L && splits == folios &&
			 !dirty && still_works(),
			 "split: %s [%#llx, %#llx): FileHugePages -%ld kB (want -%d), thp_split_page %+ld, nr_dirty %+ld, err %d\n",
			 what, (unsigned long long)start, (unsigned long long)end, before - after,
			 folios * 2048, splits, dirty, err);
}

/* PMD-mapped by this process and a child; both see the data after. */
static void test_mapped(const char *what, int flags, int lock, int child)
{
	int fd, go[2], ready[2], st = 0, ok;
	unsigned char *p;
	long before, pmd_before, after, pmd_after;
	volatile unsigned long sink = 0;
	pid_t pid = -1;
	uint64_t off;
	char c;

	fresh(0);
	fd = open(path, O_RDWR);
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED) {
		ksft_test_result_fail("split: %s: mmap: %s\n", what, strerror(errno));
		return;
	}
	if (lock && mlock(p, SIZE))
		msg("mlock: %s\n", strerror(errno));
	for (off = 0; off < SIZE; off += PAGE)
		sink += p[off];
	if (child && !pipe(go) && !pipe(ready)) {
		pid = fork();
		if (!pid) {
			/* Fault our own PMDs in, wait for the split, then check. */
			for (off = 0; off < SIZE; off += PAGE)
				sink += p[off];
			if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
			_exit(pattern_check(p, SIZE, 0, 5) < 0 ? 0 : 1);
		}
		if (read(ready[0], &c, 1) != 1)
			msg("child did not start\n");
	}
	pmd_before = (vm_stat_refresh(), meminfo_kb("FilePmdMapped"));
	before = fhp();
	split(0, SIZE / PAGE);
	after = fhp();
	pmd_after = meminfo_kb("FilePmdMapped");
	ok = pattern_check(p, SIZE, 0, 5) < 0;
	if (pid > 0) {
		if (write(go[1], "g", 1) != 1)
			msg("could not wake the child\n");
		waitpid(pid, &st, 0);
		ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		close(go[0]);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);
	}
	munmap(p, SIZE);
	close(fd);
	ksft_test_result(ok && after == before - 4 * 2048 && pmd_after == 0 && still_works(),
			 "split: %s: data intact in %s, FileHugePages %ld -> %ld kB, FilePmdMapped %ld -> %ld kB\n",
			 what, child ? "both processes" : "the mapping", before, after, pmd_before, pmd_after);
}

/* A pipe holds a reference to a page of folio 0: its split must fail. */
static void test_pinned(void)
{
	long before, after, fail0, sp0;
	int fd, pfd[2], err;
	loff_t off = 0;

	fresh(0);
	fd = open(path, O_RDONLY);
	if (pipe(pfd) || splice(fd, &off, pfd[1], NULL, PAGE, 0) != PAGE) {
		ksft_test_result_fail("split: pinned: splice: %s\n", strerror(errno));
		return;
	}
	before = fhp();
	fail0 = vmstat_get("thp_split_page_failed");
	sp0 = vmstat_get("thp_split_page");
	err = split(0, HPAGE / PAGE);
	after = fhp();
	ksft_test_result(!err && after == before && vmstat_get("thp_split_page") == sp0 &&
			 vmstat_get("thp_split_page_failed") - fail0 >= 1 && still_works(),
			 "split: a folio pinned by a pipe stays whole, thp_split_page_failed %+ld, data intact\n",
			 vmstat_get("thp_split_page_failed") - fail0);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	before = fhp();
	split(0, HPAGE / PAGE);
	ksft_test_result(fhp() == before - 2048 && still_works(),
			 "split: once the pipe is gone the split succeeds (FileHugePages %ld -> %ld kB)\n",
			 before, fhp());
}

int main(int argc, char **argv)
{
	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE");
	if (access(SPLIT, W_OK))
		ksft_exit_skip("%s not writable (debugfs?)\n", SPLIT);
	ksft_set_plan(7 + 4 + 2);
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%s/split", dir);
	test_range("first subpage", 0, 1, 1, 0);
	test_range("middle subpage", 512 + 256, 512 + 257, 1, 0);
	test_range("last subpage", 511, 512, 1, 0);
	test_range("three folios", 100, 3 * 512 - 1, 3, 0);
	test_range("whole file", 0, SIZE / PAGE, 4, 0);
	test_range("clean folios from reads", 0, SIZE / PAGE, 4, 1);
	test_range("past EOF (nothing)", SIZE / PAGE, 2 * SIZE / PAGE, 0, 0);
	test_mapped("shared PMD mapping, two processes", MAP_SHARED, 0, 1);
	test_mapped("private mapping", MAP_PRIVATE, 0, 0);
	test_mapped("mlocked shared mapping", MAP_SHARED, 1, 0);
	test_mapped("mlocked private mapping", MAP_PRIVATE, 1, 1);
	test_pinned();
	ksft_finished();
}
