// mmap of ramfs: faults on holes allocate huge folios under the policy and
// map them with one PMD (smaps says THPeligible 1 there); NOHUGEPAGE,
// PR_SET_THP_DISABLE and never give small folios; no PMD past EOF; a write
// keeps a read-made PMD; MAP_PRIVATE copies; MADV_POPULATE_WRITE
// pre-populates; partial mprotect keeps data.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SIZE	((long)(64 * MiB))
#define NR	((long)(SIZE / HPAGE))

static const char *dir;

/* Faults on ramfs holes count as major: filemap_fault() ran ->read_folio. */
static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * An open, already unlinked file: @len bytes of hole, or with @written
 * that many bytes of pattern from write(2).  Closing it frees it all.
 */
static int file(const char *name, size_t len, int written)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (written && write_file(path, len, len < MiB ? len : MiB, 11))
		return -1;
	fd = open(path, O_RDWR | O_CREAT, 0644);
	unlink(path);
	if (fd >= 0 && !written && ftruncate(fd, len)) {
		close(fd);
		return -1;
	}
	return fd;
}
#define sparse(name, len)	file(name, len, 0)

static unsigned char *map(int fd, size_t len, int flags)
{
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Touch every 4 KiB with the pattern; returns the faults it took. */
static long touch_write(unsigned char *p, size_t len)
{
	long f0 = minflt();
	size_t off;

	for (off = 0; off < len; off += PAGE)
		pattern_fill(p + off, PAGE, off, 11);
	return minflt() - f0;
}

/* smaps THPeligible of the VMA at @p: 1 where it can take PMD mappings. */
static long eligible(const void *p)
{
	return p ? smaps_get(p, "THPeligible") : -1;
}

/* read(2) of the file gives what the stores wrote: -1, or the bad offset. */
static long long read_back(int fd, size_t len)
{
	return fd_check_pattern(fd, 0, len, 11);
}

/* The main case, and the three ways of saying no (@how). */
static void test_fault(const char *how)
{
	long f, pmd, fhp0 = meminfo_kb("FileHugePages"), fhp, ev0, ev, mapped0, elig;
	int never = !strcmp(how, "never"), nohuge = !strcmp(how, "MADV_NOHUGEPAGE");
	int fd = sparse("fault", SIZE), huge = !*how;
	unsigned char *p;
	long long bad;

	knob_set(never ? "never" : "always");
	if (!strcmp(how, "PR_SET_THP_DISABLE"))
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	p = map(fd, SIZE, MAP_SHARED);
	if (!p) {
		ksft_test_result_fail("mmap %s: %s\n", how, strerror(errno));
		return;
	}
	if (nohuge)
		madvise(p, SIZE, MADV_NOHUGEPAGE);
	ev0 = vmstat_get("thp_fault_file_alloc");
	mapped0 = vmstat_get("thp_file_mapped");
	f = touch_write(p, SIZE);
	vm_stat_refresh();
	pmd = meminfo_kb("FilePmdMapped");
	fhp = meminfo_kb("FileHugePages") - fhp0;
	ev = vmstat_get("thp_fault_file_alloc") - ev0;
	elig = eligible(p);
	bad = read_back(fd, SIZE);
	if (huge)
		ksft_test_result(f <= NR + 16 && pmd == SIZE / KiB && fhp == SIZE / KiB && ev == NR &&
				 vmstat_get("thp_file_mapped") - mapped0 == NR && bad < 0 && elig == 1,
				 "mmap: 64 MiB sparse, always: %ld faults (<= %lu), FilePmdMapped %ld kB, THPeligible %ld, FileHugePages %+ld kB, thp_fault_file_alloc %+ld, read(2) mismatch %lld\n",
				 f, NR + 16, pmd, elig, fhp, ev, bad);
	else
		ksft_test_result(f >= (long)(SIZE / PAGE) && f <= (long)(SIZE / PAGE) + 16 &&
				 pmd == 0 && fhp == 0 && ev == 0 && bad < 0,
				 "mmap: 64 MiB sparse, %s: %ld faults (want %lu), no huge folio (FileHugePages %+ld kB, FilePmdMapped %ld kB), read(2) mismatch %lld\n",
				 how, f, SIZE / PAGE, fhp, pmd, bad);
	munmap(p, SIZE);
	vm_stat_refresh();
	if (huge)
		ksft_test_result(meminfo_kb("FilePmdMapped") == 0,
				 "mmap: FilePmdMapped back to 0 after munmap (%ld kB)\n",
				 meminfo_kb("FilePmdMapped"));
	close(fd);
}

static void fault_always(void)
{
	test_fault("");
}

static void fault_nohugepage(void)
{
	test_fault("MADV_NOHUGEPAGE");
}

static void fault_never(void)
{
	test_fault("never");
}

/* prctl() is for the whole process: do it in a child. */
static void child_disable_thp(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		test_fault("PR_SET_THP_DISABLE");
		/* _exit: the parent's atexit() cleanup is not ours to run. */
		_exit(ksft_get_fail_cnt() ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		ksft_test_result_fail("mmap: PR_SET_THP_DISABLE: fork/wait: %s\n", strerror(errno));
		return;
	}
	/* Exit 0 or 1: the child printed the TAP line; count it here. */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		ksft_inc_pass_cnt();
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		ksft_inc_fail_cnt();
	else
		ksft_test_result_fail("mmap: PR_SET_THP_DISABLE: the child died before its result (status %#x)\n",
				      st);
}

/* Written by write(2), read through a PMD mapping; then the reverse. */
static void test_read_through_map(void)
{
	unsigned char *p;
	long long bad;
	int fd;

	knob_set("always");
	fd = file("rmap", 8 * MiB, 1);
	p = map(fd, 8 * MiB, MAP_SHARED);
	bad = p ? pattern_check(p, 8 * MiB, 0, 11) : 0;
	vm_stat_refresh();
	ksft_test_result(bad < 0 && meminfo_kb("FilePmdMapped") == 8 * 1024 && eligible(p) == 1,
			 "mmap: data from write(2) reads back through a PMD mapping (mismatch %lld, FilePmdMapped %ld kB, THPeligible %ld)\n",
			 bad, meminfo_kb("FilePmdMapped"), eligible(p));
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

/* A read fault makes the PMD; writing through it must not split it. */
static void test_write_keeps_pmd(void)
{
	int fd = sparse("keep", 8 * MiB);
	unsigned char *p = map(fd, 8 * MiB, MAP_SHARED);
	long split0 = vmstat_get("thp_split_pmd"), pmd_read, pmd_written, sink = 0;
	size_t off;

	knob_set("always");
	for (off = 0; p && off < 8 * MiB; off += PAGE)
		sink += p[off];
	vm_stat_refresh();
	pmd_read = meminfo_kb("FilePmdMapped");
	if (p)
		touch_write(p, 8 * MiB);
	vm_stat_refresh();
	pmd_written = meminfo_kb("FilePmdMapped");
	ksft_test_result(sink == 0 && pmd_read == 8192 && pmd_written == 8192 &&
			 vmstat_get("thp_split_pmd") == split0 && read_back(fd, 8 * MiB) < 0 &&
			 eligible(p) == 1,
			 "mmap: a write keeps the PMD a read fault made (FilePmdMapped %ld -> %ld kB, thp_split_pmd %+ld, THPeligible %ld)\n",
			 pmd_read, pmd_written, vmstat_get("thp_split_pmd") - split0, eligible(p));
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

/*
 * A fault never maps past EOF, even in a folio that reaches past it: a
 * read fault, or a store, which maps the folio writable up to EOF.
 */
static void sigbus_past_eof(int store)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	int fd, st = 0, pfd[2], pmd;
	char got = 0;
	pid_t pid = -1;

	knob_set("always");
	fd = file("eof", PAGE, 1);	/* one huge folio under always */
	pmd = fd >= 0 && folio_orders(fd, PAGE, hist, MAX_FOLIO_ORDER) == 1 && hist[9] == 1;
	if (fd >= 0 && !pipe(pfd)) {
		pid = fork();
		if (!pid) {
			volatile unsigned char *p = map(fd, HPAGE, MAP_SHARED);
			unsigned char c;

			if (!p)
				_exit(3);
			if (store)
				p[0] = 1;
			else
				c = p[0];
			/* Within EOF it worked; say so before the access past it. */
			if (write(pfd[1], "0", 1) != 1)
				_exit(4);
			c = p[MiB];		/* past EOF: must not be mapped */
			(void)c;
			_exit(0);
		}
		close(pfd[1]);
		if (pid > 0 && read(pfd[0], &got, 1) != 1)
			got = 0;
		close(pfd[0]);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = 0;		/* as if it exited: a failure */
	ksft_test_result(pmd && got == '0' && WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
			 "mmap: 4 KiB file in a huge folio (%s), mapped 2 MiB, %s at 0 (%s), touched at 1 MiB: SIGBUS (status %#x)\n",
			 pmd ? "order 9" : "NOT one folio of order 9", store ? "stored" : "read",
			 got == '0' ? "ok" : "FAILED", st);
	if (fd >= 0)
		close(fd);
}

static void test_sigbus_past_eof(void)
{
	sigbus_past_eof(0);
	sigbus_past_eof(1);
}

static void test_private_cow(void)
{
	int fd = sparse("priv", 8 * MiB);
	unsigned char *p = map(fd, 8 * MiB, MAP_PRIVATE);
	long long bad = p ? -1 : 0, z;

	knob_set("always");
	if (p) {
		touch_write(p, 8 * MiB);
		bad = pattern_check(p, 8 * MiB, 0, 11);
	}
	z = fd_check_zero(fd, 0, 8 * MiB);
	ksft_test_result(bad < 0 && z < 0,
			 "mmap: MAP_PRIVATE write copies: mapping has the data (mismatch %lld), file still zeros (first non-zero %lld)\n",
			 bad, z);
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

static void test_populate_write(void)
{
	int fd = sparse("populate", 16 * MiB);
	unsigned char *p = map(fd, 16 * MiB, MAP_SHARED);
	long pmd, f;
	int err;

	knob_set("always");
	err = p ? madvise(p, 16 * MiB, MADV_POPULATE_WRITE) : -1;
	vm_stat_refresh();
	pmd = meminfo_kb("FilePmdMapped");
	f = p ? touch_write(p, 16 * MiB) : -1;
	ksft_test_result(!err && pmd == 16 * 1024 && f == 0 && read_back(fd, 16 * MiB) < 0 &&
			 eligible(p) == 1,
			 "mmap: MADV_POPULATE_WRITE maps huge folios by PMD (err %d, FilePmdMapped %ld kB, %ld faults after, THPeligible %ld)\n",
			 err, pmd, f, eligible(p));
	if (p)
		munmap(p, 16 * MiB);
	close(fd);
}

static void test_advise(void)
{
	int fd = sparse("advise", 8 * MiB), fd2 = sparse("advise2", 8 * MiB);
	unsigned char *p = map(fd, 8 * MiB, MAP_SHARED), *q = map(fd2, 8 * MiB, MAP_SHARED);
	long fhp0 = meminfo_kb("FileHugePages"), with, without;

	knob_set("advise");
	if (p && q) {
		madvise(p, 8 * MiB, MADV_HUGEPAGE);
		touch_write(p, 8 * MiB);
		with = meminfo_kb("FileHugePages") - fhp0;
		touch_write(q, 8 * MiB);
		without = meminfo_kb("FileHugePages") - fhp0 - with;
	} else {
		with = without = -1;
	}
	ksft_test_result(with == 8192 && without == 0,
			 "mmap: advise: huge under MADV_HUGEPAGE (%+ld kB), small without (%+ld kB)\n",
			 with, without);
	munmap(p, 8 * MiB);
	munmap(q, 8 * MiB);
	close(fd);
	close(fd2);
}

/* mprotect and munmap of part of a PMD split the mapping, not the data. */
static void test_partial_mprotect(void)
{
	int fd = sparse("mprot", 8 * MiB);
	unsigned char *p = map(fd, 8 * MiB, MAP_SHARED);
	long fhp0 = meminfo_kb("FileHugePages");
	long long bad = 0;
	int err = -1;

	knob_set("always");
	if (p) {
		touch_write(p, 8 * MiB);
		err = mprotect(p + MiB, PAGE, PROT_READ) ||
		      munmap(p + 5 * MiB, 64 * KiB);
		bad = pattern_check(p, MiB + PAGE, 0, 11);
		if (bad < 0)
			bad = read_back(fd, 8 * MiB);
	}
	vm_stat_refresh();
	ksft_test_result(!err && bad < 0 && meminfo_kb("FileHugePages") - fhp0 == 8192,
			 "mmap: partial mprotect/munmap split the mapping, data and huge folios stay (mismatch %lld, FileHugePages %+ld kB)\n",
			 bad, meminfo_kb("FileHugePages") - fhp0);
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "fault, always", fault_always, 2 },	/* faults, then munmap */
		{ "fault, MADV_NOHUGEPAGE", fault_nohugepage, 1 },
		{ "fault, never", fault_never, 1 },
		{ "fault, PR_SET_THP_DISABLE", child_disable_thp, 1 },
		{ "read through map", test_read_through_map, 1 },
		{ "write keeps PMD", test_write_keeps_pmd, 1 },
		{ "SIGBUS past EOF", test_sigbus_past_eof, 2 },
		{ "private COW", test_private_cow, 1 },
		{ "MADV_POPULATE_WRITE", test_populate_write, 1 },
		{ "advise", test_advise, 1 },
		{ "partial mprotect", test_partial_mprotect, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	dir = mount_fs("ramfs", "");
	if (!dir)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
