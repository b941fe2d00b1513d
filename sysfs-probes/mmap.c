// mmap of ramfs: faults on holes allocate huge folios under the policy (the
// fault columns of "Hugepages in the page cache") and map them with one PMD
// (FilePmdMapped); NOHUGEPAGE, PR_SET_THP_DISABLE and never give small
// folios; no mapping past EOF, whether write(2) or a fault made the huge
// folio that reaches past it; stores into a read-made PMD leave it
// PMD-mapped (6.12 tears it down and maps it again: shown, not failed);
// MAP_PRIVATE copies; MADV_POPULATE_WRITE
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

/* read(2) of the file gives what the stores wrote: -1, or the bad offset. */
static long long read_back(int fd, size_t len)
{
	return fd_check_pattern(fd, 0, len, 11);
}

/* The main case, and the three ways of saying no (@how). */
static void test_fault(const char *how)
{
	long f, pmd, fhp0, fhp, mapped0, mapped;
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
	vm_stat_refresh();
	fhp0 = meminfo_kb("FileHugePages");
	mapped0 = vmstat_get("thp_file_mapped");
	f = touch_write(p, SIZE);
	vm_stat_refresh();
	pmd = meminfo_kb("FilePmdMapped");
	fhp = meminfo_kb("FileHugePages") - fhp0;
	mapped = vmstat_get("thp_file_mapped") - mapped0;
	bad = read_back(fd, SIZE);
	if (huge)
		ksft_test_result(f <= NR + 16 && pmd == SIZE / KiB && fhp == SIZE / KiB &&
				 mapped == NR && bad < 0,
				 "mmap: 64 MiB sparse, always: %ld faults (<= %lu), FilePmdMapped %ld kB, FileHugePages %+ld kB, thp_file_mapped %+ld (want %ld), read(2) mismatch %lld\n",
				 f, NR + 16, pmd, fhp, mapped, NR, bad);
	else
		ksft_test_result(f >= (long)(SIZE / PAGE) && f <= (long)(SIZE / PAGE) + 16 &&
				 pmd == 0 && fhp == 0 && mapped == 0 && bad < 0,
				 "mmap: 64 MiB sparse, %s: %ld faults (want %lu), no huge folio (FileHugePages %+ld kB, FilePmdMapped %ld kB, thp_file_mapped %+ld), read(2) mismatch %lld\n",
				 how, f, SIZE / PAGE, fhp, pmd, mapped, bad);
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

/* Written by write(2), read through a PMD mapping. */
static void test_read_through_map(void)
{
	unsigned char *p;
	long long bad;
	long pmd;
	int fd;

	knob_set("always");
	fd = file("rmap", 8 * MiB, 1);
	p = map(fd, 8 * MiB, MAP_SHARED);
	bad = p ? pattern_check(p, 8 * MiB, 0, 11) : 0;
	vm_stat_refresh();
	pmd = meminfo_kb("FilePmdMapped");
	ksft_test_result(bad < 0 && pmd == 8 * 1024,
			 "mmap: data from write(2) reads back through a PMD mapping (mismatch %lld, FilePmdMapped %ld kB)\n",
			 bad, pmd);
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

/*
 * A read fault makes a read-only PMD (ramfs mappings are write-notified:
 * the first store must dirty the folio).  6.12 cannot make a file PMD
 * writable where it is (no ->huge_fault for page cache folios, as for
 * XFS): wp_huge_pmd() tears it down and the same fault maps it again,
 * writable.  What a user must get is the data and the PMD back; the
 * teardowns (thp_split_pmd) are shown, a known cost, not a failure.
 */
static void test_write_keeps_pmd(void)
{
	unsigned char *p;
	long split0, mapped0, pmd_read, pmd_written, split, mapped, sink = 0;
	long long bad;
	size_t off;
	int fd;

	knob_set("always");	/* before mmap: it aligns the mapping */
	fd = sparse("keep", 8 * MiB);
	p = map(fd, 8 * MiB, MAP_SHARED);
	for (off = 0; p && off < 8 * MiB; off += PAGE)
		sink += p[off];
	vm_stat_refresh();
	pmd_read = meminfo_kb("FilePmdMapped");
	split0 = vmstat_get("thp_split_pmd");
	mapped0 = vmstat_get("thp_file_mapped");
	if (p)
		touch_write(p, 8 * MiB);
	split = vmstat_get("thp_split_pmd") - split0;
	mapped = vmstat_get("thp_file_mapped") - mapped0;
	vm_stat_refresh();
	pmd_written = meminfo_kb("FilePmdMapped");
	bad = p ? read_back(fd, 8 * MiB) : 0;
	ksft_test_result(sink == 0 && pmd_read == 8192 && pmd_written == 8192 &&
			 mapped == split && bad < 0,
			 "mmap: stores into a read fault's PMD leave it PMD-mapped (FilePmdMapped %ld -> %ld kB; during the stores thp_split_pmd %+ld, thp_file_mapped %+ld, as many remapped as torn down; read(2) mismatch %lld)\n",
			 pmd_read, pmd_written, split, mapped, bad);
	if (p)
		munmap(p, 8 * MiB);
	close(fd);
}

/*
 * A fault never maps past EOF, even in a huge folio that reaches past it
 * (finish_fault() and filemap_map_pages() then map it with PTEs): a 4 KiB
 * file whose one folio is PMD-sized, as always gives write(2), mapped
 * 2 MiB, then read or stored into at 0.  A store into the hole at 0 of
 * such a file fills it with one 4 KiB folio: a fault's folio never
 * reaches past EOF, where it could never be PMD-mapped.  Either way an
 * access at 1 MiB must raise SIGBUS.
 */
enum eof_how { EOF_WRITE_READ, EOF_WRITE_STORE, EOF_HOLE_STORE };
static const char *const eof_name[] = {
	"write(2), read at 0", "write(2), stored at 0", "hole, stored at 0 (fault fills it)",
};

static void sigbus_past_eof(enum eof_how how)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	int fd, st = 0, pfd[2], pmd = 0, want;
	char got = 0;
	pid_t pid = -1;

	knob_set("always");
	fd = file("eof", PAGE, how != EOF_HOLE_STORE);
	if (fd >= 0 && !pipe(pfd)) {
		pid = fork();
		if (!pid) {
			volatile unsigned char *p = map(fd, HPAGE, MAP_SHARED);
			unsigned char c;

			if (!p)
				_exit(3);
			if (how == EOF_WRITE_READ)
				c = p[0];
			else
				p[0] = 1;
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
	/* One folio: PMD-sized from write(2), 4 KiB from the fault. */
	want = how == EOF_HOLE_STORE ? 0 : HPAGE_ORDER;
	pmd = fd >= 0 && folio_orders(fd, PAGE, hist, MAX_FOLIO_ORDER) == 1 && hist[want] == 1;
	ksft_test_result(pmd && got == '0' && WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
			 "mmap: 4 KiB file, one folio (%s, want order %d), %s (%s), mapped 2 MiB, touched at 1 MiB: SIGBUS (status %#x)\n",
			 pmd ? "so" : "NOT so", want, eof_name[how],
			 got == '0' ? "ok" : "FAILED", st);
	if (fd >= 0)
		close(fd);
}

static void test_sigbus_past_eof(void)
{
	sigbus_past_eof(EOF_WRITE_READ);
	sigbus_past_eof(EOF_WRITE_STORE);
	sigbus_past_eof(EOF_HOLE_STORE);
}

static void test_private_cow(void)
{
	unsigned char *p;
	long long bad = 0, z;
	int fd;

	knob_set("always");
	fd = sparse("priv", 8 * MiB);
	p = map(fd, 8 * MiB, MAP_PRIVATE);
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
	unsigned char *p;
	long pmd, f;
	int err, fd;

	knob_set("always");
	fd = sparse("populate", 16 * MiB);
	p = map(fd, 16 * MiB, MAP_SHARED);
	err = p ? madvise(p, 16 * MiB, MADV_POPULATE_WRITE) : -1;
	vm_stat_refresh();
	pmd = meminfo_kb("FilePmdMapped");
	f = p ? touch_write(p, 16 * MiB) : -1;
	ksft_test_result(!err && pmd == 16 * 1024 && f == 0 && read_back(fd, 16 * MiB) < 0,
			 "mmap: MADV_POPULATE_WRITE maps huge folios by PMD (err %d, FilePmdMapped %ld kB, %ld faults after)\n",
			 err, pmd, f);
	if (p)
		munmap(p, 16 * MiB);
	close(fd);
}

/* advise: huge folios for faults in MADV_HUGEPAGE mappings only. */
static void test_advise(void)
{
	unsigned char *p, *q;
	long fhp0, with = -1, without = -1;
	int fd, fd2;

	knob_set("advise");
	fd = sparse("advise", 8 * MiB);
	fd2 = sparse("advise2", 8 * MiB);
	p = map(fd, 8 * MiB, MAP_SHARED);
	q = map(fd2, 8 * MiB, MAP_SHARED);
	vm_stat_refresh();
	fhp0 = meminfo_kb("FileHugePages");
	if (p && q && !madvise(p, 8 * MiB, MADV_HUGEPAGE)) {
		touch_write(p, 8 * MiB);
		vm_stat_refresh();
		with = meminfo_kb("FileHugePages") - fhp0;
		touch_write(q, 8 * MiB);
		vm_stat_refresh();
		without = meminfo_kb("FileHugePages") - fhp0 - with;
	}
	ksft_test_result(with == 8192 && without == 0,
			 "mmap: advise: huge under MADV_HUGEPAGE (%+ld kB), small without (%+ld kB)\n",
			 with, without);
	if (p)
		munmap(p, 8 * MiB);
	if (q)
		munmap(q, 8 * MiB);
	close(fd);
	close(fd2);
}

/* mprotect and munmap of part of a PMD split the mapping, not the data. */
static void test_partial_mprotect(void)
{
	unsigned char *p;
	long fhp0;
	long long bad = 0;
	int err = -1, fd;

	knob_set("always");
	fd = sparse("mprot", 8 * MiB);
	p = map(fd, 8 * MiB, MAP_SHARED);
	vm_stat_refresh();
	fhp0 = meminfo_kb("FileHugePages");
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
		{ "stores keep a PMD mapping", test_write_keeps_pmd, 1 },
		{ "SIGBUS past EOF", test_sigbus_past_eof, 3 },
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
