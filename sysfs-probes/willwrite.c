// MADV_WILLWRITE (advice 26; "mm: add MADV_WILLWRITE" and "ramfs: prepare
// ranges for MADV_WILLWRITE"), Lutomirski's 2013 RFC: a shared writable
// mapping whose first stores must be cheap asks for their expensive part
// now.  On ramfs that is allocating and zeroing the folios, huge where the
// policy wants them; the call returns the bytes prepared, stops at EOF,
// and writes, dirties and maps nothing: i_size, mtime and data stay.
// Anything without the hook returns 0 (the caller falls back); a mapping
// of ramfs that is not shared and writable is refused.  Past a memcg
// limit it returns what it prepared, or ENOMEM, and kills nothing.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_WILLWRITE
#define MADV_WILLWRITE	26
#endif

#define SIZE	(64 * MiB)
#define SLACK	8		/* pages others may add meanwhile */
#define CG	"/sys/fs/cgroup/thp-willwrite"	/* memory.max = 8M */

static const char *always, *never, *within, *tmpfs;

/* The system call itself: glibc's madvise() returns an int. */
static long willwrite(void *p, size_t len)
{
	return syscall(SYS_madvise, p, len, MADV_WILLWRITE);
}

/*
 * A sparse file of @size bytes, "ww" in @dir, mapped over @maplen bytes
 * from file offset @off; NULL if any step failed.  @path gets its name.
 */
static void *map_new(const char *dir, off_t size, size_t maplen, off_t off,
		     int prot, int flags, char path[128])
{
	void *p = MAP_FAILED;
	int fd;

	snprintf(path, 128, "%s/ww", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && !ftruncate(fd, size))
		p = mmap(NULL, maplen, prot, flags, fd, off);
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static struct stat stat_of(const char *path)
{
	struct stat st = { 0 };

	stat(path, &st);
	return st;
}

static int same_mtime(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* -1 if the first @len bytes of @path read as zeros, else the bad offset. */
static long long check_zeros(const char *path, size_t len)
{
	int fd = open(path, O_RDONLY);
	long long bad = fd < 0 ? 0 : fd_check_zero(fd, 0, len);

	if (fd >= 0)
		close(fd);
	return bad;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/*
 * 64 MiB of a sparse shared mapping: all of it prepared, huge where
 * @folio is, nothing mapped, the file still a hole of the same size and
 * mtime; then every byte stored takes at most one fault per folio, and
 * reads back.
 */
static void sparse(const char *dir, const char *name, size_t folio)
{
	long base = nr_file_pages(), huge0 = meminfo_now_kb("FileHugePages");
	long pages, huge, rss, faults;
	struct stat st0, st1, st2;
	char path[128];
	unsigned char *p = map_new(dir, SIZE, SIZE, 0, PROT_READ | PROT_WRITE,
				   MAP_SHARED, path);
	long ret = -1, err = 0;

	st0 = stat_of(path);
	/* A change of mtime would show after a jiffy. */
	usleep(20000);
	if (p) {
		ret = willwrite(p, SIZE);
		err = ret < 0 ? errno : 0;
	}
	pages = nr_file_pages() - base;
	huge = meminfo_now_kb("FileHugePages") - huge0;
	rss = p ? smaps_get(p, "Rss") : -1;
	st1 = stat_of(path);
	ksft_test_result(ret == (long)SIZE,
			 "willwrite: %s, 64 MiB sparse shared: returns %ld (errno %ld), want %lu\n",
			 name, ret, err, SIZE);
	ksft_test_result(pages >= (long)(SIZE / PAGE) && pages <= (long)(SIZE / PAGE) + SLACK &&
			 huge == (folio == HPAGE ? (long)(SIZE / KiB) : 0) && rss == 0,
			 "willwrite: %s: nr_file_pages %+ld (want %lu), FileHugePages %+ld kB, Rss %ld kB (nothing mapped)\n",
			 name, pages, SIZE / PAGE, huge, rss);
	ksft_test_result(check_zeros(path, SIZE) < 0 && st1.st_size == (off_t)SIZE &&
			 same_mtime(&st0, &st1),
			 "willwrite: %s: reads zeros, size %lld, mtime %s\n", name,
			 (long long)st1.st_size, same_mtime(&st0, &st1) ? "unchanged" : "CHANGED");
	faults = -1;
	if (p && ret == (long)SIZE) {
		faults = minflt();
		pattern_fill(p, SIZE, 0, 5);
		faults = minflt() - faults;
	}
	st2 = stat_of(path);
	ksft_test_result(faults >= 0 && faults <= (long)(SIZE / folio) &&
			 check_file(path, SIZE, 5) < 0 && !same_mtime(&st1, &st2),
			 "willwrite: %s: storing every byte took %ld faults (at most %lu), data reads back, mtime %s\n",
			 name, faults, SIZE / folio, same_mtime(&st1, &st2) ? "NOT updated" : "updated");
	if (p)
		munmap(p, SIZE);
	result_unlinked(name, path, base, SLACK);
}

static void sparse_always(void)
{
	sparse(always, "huge=always", HPAGE);
}

static void sparse_never(void)
{
	sparse(never, "huge=never", PAGE);
}

/* A file full of data: everything is ready already, nothing changes. */
static void data(void)
{
	size_t len = 8 * MiB;
	char path[128];
	void *p = NULL;
	long base, pages, ret = -1;
	struct stat st0, st1;

	p = map_new(always, len, len, 0, PROT_READ | PROT_WRITE, MAP_SHARED, path);
	/* The data by write(2): nothing of it is mapped. */
	if (p && fill_file(path, 0, len, 64 * KiB, 7)) {
		munmap(p, len);
		p = NULL;
	}
	st0 = stat_of(path);
	usleep(20000);
	base = nr_file_pages();
	if (p)
		ret = willwrite(p, len);
	pages = nr_file_pages() - base;
	st1 = stat_of(path);
	ksft_test_result(ret == (long)len && labs(pages) <= SLACK &&
			 check_file(path, len, 7) < 0 && same_mtime(&st0, &st1) &&
			 smaps_get(p, "Rss") == 0,
			 "willwrite: 8 MiB of data: returns %ld (want %lu), nr_file_pages %+ld, data and mtime unchanged, nothing mapped\n",
			 ret, len, pages);
	if (p)
		munmap(p, len);
	unlink(path);
}

/* A mapping from file offset 2 MiB prepares the file pages it maps. */
static void offset(void)
{
	char path[128];
	unsigned char *p = map_new(always, 8 * MiB, 4 * MiB, 2 * MiB,
				   PROT_READ | PROT_WRITE, MAP_SHARED, path);
	unsigned char vec[8 * MiB / PAGE];
	long ret = p ? willwrite(p, 4 * MiB) : -1;
	void *all = MAP_FAILED;
	int fd = open(path, O_RDONLY), first = -1, last = -1, n = 0;
	size_t i;

	if (fd >= 0)
		all = mmap(NULL, 8 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	if (all != MAP_FAILED && !mincore(all, 8 * MiB, vec)) {
		for (i = 0; i < sizeof(vec); i++) {
			if (!(vec[i] & 1))
				continue;
			if (first < 0)
				first = i;
			last = i;
			n++;
		}
	}
	ksft_test_result(ret == (long)(4 * MiB) && n == 1024 && first == 512 && last == 1535,
			 "willwrite: file offset 2 MiB, 4 MiB mapped: returns %ld, file pages %d-%d cached (%d; want 512-1535)\n",
			 ret, first, last, n);
	if (all != MAP_FAILED)
		munmap(all, 8 * MiB);
	if (fd >= 0)
		close(fd);
	if (p)
		munmap(p, 4 * MiB);
	unlink(path);
}

/*
 * 8 MiB mapped over a file of 3 MiB + 100 bytes: only the bytes up to EOF.
 * within_size: huge folios for the first 2 MiB, small ones for the rest.
 */
static void eof(void)
{
	off_t size = 3 * MiB + 100;
	long base = nr_file_pages(), huge0 = meminfo_now_kb("FileHugePages");
	char path[128];
	void *p = map_new(within, size, 8 * MiB, 0, PROT_READ | PROT_WRITE,
			  MAP_SHARED, path);
	long ret = p ? willwrite(p, 8 * MiB) : -1;
	long pages = nr_file_pages() - base;
	long huge = meminfo_now_kb("FileHugePages") - huge0;
	long want = (size + PAGE - 1) / PAGE;

	ksft_test_result(ret == (long)size && stat_of(path).st_size == size &&
			 pages >= want && pages <= want + SLACK && huge == 2048,
			 "willwrite: huge=within_size, 8 MiB over a %lld-byte file: returns %ld, nr_file_pages %+ld (want %ld), FileHugePages %+ld kB (want 2048), size unchanged\n",
			 (long long)size, ret, pages, want, huge);
	if (p)
		munmap(p, 8 * MiB);
	unlink(path);
}

/* No ->willwrite: nothing to prepare, 0, and the caller falls back. */
static void zero(const char *what, const char *dir, int flags)
{
	char path[128];
	void *p;
	long ret;

	if (dir)
		p = map_new(dir, 4 * MiB, 4 * MiB, 0, PROT_READ | PROT_WRITE, flags, path);
	else
		p = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		p = NULL;
	ret = p ? willwrite(p, 4 * MiB) : -2;
	ksft_test_result(ret == 0, "willwrite: %s: returns %ld (errno %d), want 0\n",
			 what, ret, ret < 0 ? errno : 0);
	if (p)
		munmap(p, 4 * MiB);
	if (dir)
		unlink(path);
}

static void zeros(void)
{
	zero("anonymous private", NULL, MAP_PRIVATE);
	zero("anonymous shared (shmem)", NULL, MAP_SHARED);
	zero("tmpfs shared", tmpfs, MAP_SHARED);
}

/*
 * The count is a prefix of the range: it stops at the first mapping that
 * cannot prepare.  4 MiB of ramfs with anonymous memory put over its
 * second half gives 2 MiB; the same from the anonymous half gives 0.
 */
static void prefix(void)
{
	char path[128];
	char *p = map_new(always, 4 * MiB, 4 * MiB, 0, PROT_READ | PROT_WRITE, MAP_SHARED, path);
	long first = -2, second = -2;

	if (p && mmap(p + 2 * MiB, 2 * MiB, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
		first = willwrite(p, 4 * MiB);
		second = willwrite(p + 2 * MiB, 2 * MiB);
	}
	ksft_test_result(first == (long)(2 * MiB) && second == 0,
			 "willwrite: 2 MiB of ramfs then 2 MiB anonymous: returns %ld (want 2097152), from the anonymous part %ld (want 0)\n",
			 first, second);
	if (p)
		munmap(p, 4 * MiB);
	unlink(path);
}

/* What cannot be prepared for writing is an error, and changes nothing. */
static void error(const char *what, int prot, int flags, size_t skip, int unmap, int want)
{
	long base = nr_file_pages(), ret = 0, pages;
	char path[128];
	char *p = map_new(always, 4 * MiB, 4 * MiB, 0, prot, flags, path);
	int err = 0;

	if (p && unmap)
		munmap(p + 2 * MiB, 2 * MiB);
	if (p) {
		ret = willwrite(p + skip, 4 * MiB - skip);
		err = ret < 0 ? errno : 0;
	}
	pages = nr_file_pages() - base;
	ksft_test_result(p && ret == -1 && err == want && pages <= SLACK,
			 "willwrite: %s: returns %ld, errno %s (want %s), nr_file_pages %+ld\n",
			 what, ret, strerror(err), strerror(want), pages);
	if (p)
		munmap(p, unmap ? 2 * MiB : 4 * MiB);
	unlink(path);
}

static void errors(void)
{
	error("ramfs read-only shared", PROT_READ, MAP_SHARED, 0, 0, EACCES);
	error("ramfs writable private", PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, 0, EACCES);
	error("start not page-aligned", PROT_READ | PROT_WRITE, MAP_SHARED, 100, 0, EINVAL);
	/* The second half is unmapped; the first half must not be prepared either. */
	error("range half unmapped", PROT_READ | PROT_WRITE, MAP_SHARED, 2 * MiB, 1, ENOMEM);
}

/*
 * A child in a memcg with memory.max = 8M asks for 64 MiB: it gets a
 * partial count or ENOMEM, and lives.  The memcg is then full of ramfs
 * pages, which nothing can reclaim, as after a write(2) that filled it:
 * the child's next allocation could meet the memcg's OOM killer.  So it
 * reports through a page it touched (page tables and all) before joining,
 * and sets up its file before too.
 */
static void memcg(int advised)
{
	long oom0 = cgroup_stat(CG, "memory.events", "oom_kill");
	struct report { long ret, err; int joined; } *r;
	char path[128];
	int st = -1;
	pid_t pid;

	r = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (oom0 < 0 || r == MAP_FAILED) {
		ksft_test_result_skip("willwrite: memcg: no %s/memory.events\n", CG);
		return;
	}
	*r = (struct report){ .ret = -2 };
	pid = fork();
	if (!pid) {
		void *p;

		r->err = 0;
		p = map_new(always, SIZE, SIZE, 0, PROT_READ | PROT_WRITE, MAP_SHARED, path);
		/* MADV_HUGEPAGE: huge allocations and charges may reclaim. */
		if (p && advised)
			madvise(p, SIZE, MADV_HUGEPAGE);
		r->joined = cgroup_join(CG);
		if (r->joined && p) {
			r->ret = willwrite(p, SIZE);
			r->err = r->ret < 0 ? errno : 0;
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	ksft_test_result(WIFEXITED(st) && !WEXITSTATUS(st) && r->joined &&
			 ((r->ret > 0 && r->ret <= (long)(8 * MiB)) ||
			  (r->ret == -1 && r->err == ENOMEM)) &&
			 cgroup_stat(CG, "memory.events", "oom_kill") == oom0,
			 "willwrite: 64 MiB in a memcg of 8 MiB%s: joined %d, returns %ld (errno %ld), child %s, oom_kill %+ld\n",
			 advised ? ", MADV_HUGEPAGE" : "", r->joined, r->ret, r->err, WIFEXITED(st) ? "exited" : "killed",
			 cgroup_stat(CG, "memory.events", "oom_kill") - oom0);
	munmap(r, PAGE);
	snprintf(path, sizeof(path), "%s/ww", always);
	unlink(path);
}

static void memcg_plain(void)
{
	memcg(0);
}

static void memcg_advised(void)
{
	memcg(1);
}

/*
 * A fatal signal stops it: 512 MiB of small folios take the call well over
 * a second here.  The kill comes once the call has prepared its first
 * 4 MiB (by the page count, not by a time, so a parent held up on the host
 * cannot make it late), and then most of the range must stay unprepared:
 * a call that ignores the signal prepares the rest, whenever it came.
 */
#define KILL_AT_PAGES	(4 * MiB / PAGE)

static void killed(void)
{
	size_t len = 512 * MiB;
	long base = 0, pages = 0, at_kill = -1;
	volatile int *started;
	char path[128];
	int st = -1, try, polls;
	pid_t pid;

	started = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (started == MAP_FAILED) {
		ksft_test_result_fail("willwrite: SIGKILL: mmap: %s\n", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/ww", never);
	for (try = 1; try <= 3; try++) {
		unlink(path);
		base = nr_file_pages();
		*started = 0;
		pid = fork();
		if (!pid) {
			void *p = map_new(never, len, len, 0, PROT_READ | PROT_WRITE, MAP_SHARED, path);

			*started = 1;
			if (p)
				willwrite(p, len);
			_exit(0);
		}
		while (pid > 0 && !*started)
			usleep(1000);
		/* No refresh: it would wait for the child's CPU; 10 s at most. */
		for (polls = 0; pid > 0 && polls < 10000 &&
		     vmstat_get("nr_file_pages") - base < (long)KILL_AT_PAGES; polls++)
			usleep(1000);
		if (pid > 0) {
			kill(pid, SIGKILL);
			at_kill = vmstat_get("nr_file_pages") - base;
			waitpid(pid, &st, 0);
		}
		pages = nr_file_pages() - base;
		/* A child that finished before the kill came shows nothing: again. */
		if (!WIFEXITED(st))
			break;
	}
	ksft_test_result(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
			 at_kill >= (long)KILL_AT_PAGES &&
			 pages - at_kill < (long)(len / PAGE / 4),
			 "willwrite: SIGKILL once 4 MiB of 512 MiB are prepared (huge=never): child %s in try %d, %ld of %lu pages prepared, %+ld after the kill (want < %lu)\n",
			 WIFSIGNALED(st) ? "killed" : "exited", try > 3 ? 3 : try, pages, len / PAGE,
			 pages - at_kill, len / PAGE / 4);
	munmap((void *)started, PAGE);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "sparse, huge=always", sparse_always, 5 },
		{ "sparse, huge=never", sparse_never, 5 },
		{ "file with data", data, 1 },
		{ "file offset", offset, 1 },
		{ "EOF", eof, 1 },
		{ "no hook", zeros, 3 },
		{ "prefix", prefix, 1 },
		{ "errors", errors, 4 },
		{ "memcg", memcg_plain, 1 },
		{ "memcg, MADV_HUGEPAGE", memcg_advised, 1 },
		{ "fatal signal", killed, 1 },
	};
	void *anon;

	probe_init(argc, argv, NULL);
	/* A kernel without the advice refuses it: EINVAL on any mapping. */
	anon = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED || willwrite(anon, PAGE))
		probe_missing("MADV_WILLWRITE is not in this kernel (madvise: %s)", strerror(errno));
	munmap(anon, PAGE);
	always = mount_fs("ramfs", "huge=always");
	never = mount_fs("ramfs", "huge=never");
	within = mount_fs("ramfs", "huge=within_size");
	tmpfs = mount_fs("tmpfs", "huge=never");
	if (!always || !never || !within || !tmpfs)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	mkdir(CG, 0755);
	write_bytes(CG "/memory.max", "8M", 2);
	probe_run(cases, ARRAY_SIZE(cases));
	rmdir(CG);
	ksft_finished();
}
