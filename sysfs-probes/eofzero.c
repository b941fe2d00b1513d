// What lies past EOF reads as zeros once the file grows over it, whatever
// the memory held before.  ramfs may leave the pages of a new large folio
// that lie past the page holding EOF unzeroed, and must zero them as EOF
// moves: by write(2), ftruncate(2), fallocate(2), a copy that faults
// halfway, a split.  Each case must run on memory that held non-zero bytes,
// or it proves nothing: under page_poison=1 (the debug kernel) all freed
// memory is; elsewhere a huge=always file of 0xa5 bytes is written and
// deleted just before the case, and the folio under test (the one holding
// the first byte that must read zero) must lie where that file's folios
// were.  A case that does not land there is run again, up to 3 times, and
// then did not run (allocator).  Each case must make a PMD-sized folio, or
// it fails: small folios would not test this at all.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define POISON_SIZE	(32 * MiB)
#define SEED		23

static const char *dir;
static char path[128];
static long huge0, huge_seen;	/* FileHugePages before a case, most above it */

/* Note how much FileHugePages has grown since the case began. */
static void note_huge(void)
{
	long kb = meminfo_now_kb("FileHugePages") - huge0;

	if (kb > huge_seen)
		huge_seen = kb;
}

/* The first PFN of each PMD-sized block of the last poison file. */
static long long poisoned[POISON_SIZE / HPAGE];

/* The PFN of the first page of [@off, ...) of @fd, through a mapping, or -1. */
static long long file_pfn(int fd, uint64_t off)
{
	unsigned char *m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off);
	long long pfn;

	if (m == MAP_FAILED)
		return -1;
	pfn = page_pfn(m);
	munmap(m, PAGE);
	return pfn;
}

/*
 * A file of 0xa5 bytes in huge folios, deleted: its memory is free and
 * dirty.  Where its folios were is kept, to tell whether a case reused one.
 */
static int poison(void)
{
	static unsigned char buf[MiB];
	char name[160];
	uint64_t off;
	int fd, err = 0;

	snprintf(name, sizeof(name), "%s/poison", dir);
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 0xa5, sizeof(buf));
	for (off = 0; off < POISON_SIZE && !err; off += sizeof(buf))
		err = pwrite(fd, buf, sizeof(buf), off) != sizeof(buf);
	for (off = 0; off < POISON_SIZE; off += HPAGE)
		poisoned[off / HPAGE] = file_pfn(fd, off);
	close(fd);
	unlink(name);
	return err ? -1 : 0;
}

/* Does the page at @off of @fd lie where the poison file's memory was? */
static int on_poison(int fd, uint64_t off)
{
	long long pfn = file_pfn(fd, off & ~(PAGE - 1));
	unsigned int i;

	for (i = 0; pfn >= 0 && i < ARRAY_SIZE(poisoned); i++)
		if (poisoned[i] >= 0 && pfn / (HPAGE / PAGE) == poisoned[i] / (HPAGE / PAGE))
			return 1;
	return 0;
}

/* @len pattern bytes at @off; 0 or -1. */
static int put(int fd, uint64_t off, size_t len)
{
	static unsigned char buf[2 * MiB];

	pattern_fill(buf, len, off, SEED);
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		return -1;
	note_huge();
	return 0;
}

/* The EOF page's bytes past EOF, seen through a mapping: -1 if all zero. */
static long long eof_page_zero(int fd, uint64_t size)
{
	uint64_t start = size & ~(PAGE - 1);
	unsigned char *m;
	long long bad;

	if (!(size % PAGE))
		return -1;
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, start);
	if (m == MAP_FAILED)
		return size;
	bad = zero_check(m + size % PAGE, PAGE - size % PAGE);
	munmap(m, PAGE);
	return bad < 0 ? -1 : (long long)size + bad;
}

/*
 * Each case grows a file in its own way and says which bytes hold the
 * pattern: [0, data) and [data2, data2 + len2), zeros up to @size.
 */
struct eof_case {
	const char *what;
	int (*run)(int fd);
	uint64_t data, data2, len2, size;
};

static int grow_truncate(int fd)
{
	return put(fd, 0, 4096) ?: ftruncate(fd, 2 * MiB);
}

static int grow_write_past(int fd)
{
	return put(fd, 0, 100) ?: put(fd, MiB + 10, 100);
}

static int grow_appends(int fd)
{
	return put(fd, 0, 100) ?: put(fd, 100, 4000) ?: put(fd, 4100, 200) ?:
	       (eof_page_zero(fd, 4300) >= 0 ? -1 : 0) ?: ftruncate(fd, 2 * MiB);
}

static int grow_page_appends(int fd)
{
	uint64_t off;

	for (off = 0; off < MiB; off += PAGE)
		if (put(fd, off, PAGE))
			return -1;
	return ftruncate(fd, 2 * MiB);
}

/* A write whose source's second page is unreadable copies its first page only. */
static int grow_short_copy(int fd)
{
	unsigned char *src;
	ssize_t got;

	if (put(fd, 0, 2 * MiB))
		return -1;
	src = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		return -1;
	pattern_fill(src, PAGE, 2 * MiB, SEED);
	mprotect(src + PAGE, PAGE, PROT_NONE);
	got = pwrite(fd, src, 2 * PAGE, 2 * MiB);
	munmap(src, 2 * PAGE);
	note_huge();
	if (huge_seen < 4096) {
		msg("eofzero: no PMD-sized folio past 2 MiB (FileHugePages %+ld kB)\n", huge_seen);
		return -1;
	}
	if (got != PAGE) {
		msg("eofzero: short copy wrote %zd bytes, want %lu\n", got, PAGE);
		return -1;
	}
	return eof_page_zero(fd, 2 * MiB + PAGE) >= 0 ? -1 : ftruncate(fd, 4 * MiB);
}

static int grow_fallocate(int fd)
{
	return put(fd, 0, 100) ?: fallocate(fd, 0, 0, MiB);
}

static int grow_after_cut(int fd)
{
	return put(fd, 0, MiB + 100) ?: ftruncate(fd, 5000) ?: ftruncate(fd, 2 * MiB);
}

static int grow_after_split(int fd)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "%s,0x0,0x200", path);
	if (put(fd, 0, 4096) || write_bytes(SPLIT, cmd, strlen(cmd)))
		return -1;
	if (meminfo_now_kb("FileHugePages") != huge0) {
		msg("eofzero: the split left FileHugePages %+ld kB\n",
		    meminfo_now_kb("FileHugePages") - huge0);
		return -1;
	}
	return ftruncate(fd, 2 * MiB);
}

/*
 * Near MAX_LFS_FILESIZE a round_up() of i_size to a page overflows a
 * signed offset: a write at 0 must still zero the rest of a new folio
 * (which the shrink to 2 MiB then keeps), and must not zero the data
 * after it in a folio it rewrites.
 */
static int grow_from_max(int fd)
{
	return ftruncate(fd, LLONG_MAX) ?: put(fd, 0, 100) ?: ftruncate(fd, 2 * MiB);
}

static int rewrite_at_max(int fd)
{
	return put(fd, 0, 8192) ?: ftruncate(fd, LLONG_MAX) ?: put(fd, 0, 100) ?:
	       ftruncate(fd, 2 * MiB);
}

static const struct eof_case cases[] = {
	{ "4 KiB written, ftruncate to 2 MiB", grow_truncate, 4096, 0, 0, 2 * MiB },
	{ "100 bytes, then a write at 1 MiB + 10", grow_write_past, 100, MiB + 10, 100,
	  MiB + 110 },
	{ "appends of 100, 4000, 200 bytes (EOF page mapped), ftruncate to 2 MiB",
	  grow_appends, 4300, 0, 0, 2 * MiB },
	{ "4 KiB appends to 1 MiB, ftruncate to 2 MiB", grow_page_appends, MiB, 0, 0,
	  2 * MiB },
	{ "a write that copies 4 KiB of 8 KiB past 2 MiB, ftruncate to 4 MiB",
	  grow_short_copy, 2 * MiB + PAGE, 0, 0, 4 * MiB },
	{ "100 bytes, fallocate to 1 MiB", grow_fallocate, 100, 0, 0, MiB },
	{ "1 MiB + 100 written, ftruncate to 5000, then to 2 MiB", grow_after_cut, 5000, 0, 0,
	  2 * MiB },
	{ "4 KiB written, folio split, ftruncate to 2 MiB", grow_after_split, 4096, 0, 0,
	  2 * MiB },
	{ "ftruncate to LLONG_MAX, 100 bytes written, ftruncate to 2 MiB", grow_from_max, 100,
	  0, 0, 2 * MiB },
	{ "8 KiB written, ftruncate to LLONG_MAX, 100 bytes rewritten, ftruncate to 2 MiB",
	  rewrite_at_max, 8192, 0, 0, 2 * MiB },
};

/* Freed memory is poisoned by the kernel itself (page_poison=1). */
static int page_poisoning;

/* One run of @c: 0 and the first bad byte (or -1) in *@bad, else -1. */
static int run_case(const struct eof_case *c, long long *bad, int *poisoned_mem)
{
	uint64_t end2 = c->data2 + c->len2;
	struct stat st;
	int fd, err;

	*bad = -1;
	err = poison();
	huge0 = meminfo_now_kb("FileHugePages");
	huge_seen = 0;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = err || fd < 0 || c->run(fd);
	err = err ?: fstat(fd, &st) ?: st.st_size != (off_t)c->size;
	if (!err) {
		*bad = fd_check_pattern(fd, 0, c->data, SEED);
		if (*bad < 0 && c->len2) {
			*bad = fd_check_zero(fd, c->data, c->data2 - c->data);
			*bad = *bad >= 0 ? *bad : fd_check_pattern(fd, c->data2, c->len2, SEED);
			*bad = *bad >= 0 ? *bad : fd_check_zero(fd, end2, c->size - end2);
		} else if (*bad < 0) {
			*bad = fd_check_zero(fd, c->data, c->size - c->data);
		}
		*bad = *bad >= 0 ? *bad : eof_page_zero(fd, c->size);
		*poisoned_mem = page_poisoning || on_poison(fd, c->data);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	return err ? -1 : 0;
}

static void test_cases(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct eof_case *c = &cases[i];
		int err, tries = 0, on = 0;
		long long bad;

		do
			err = run_case(c, &bad, &on);
		while (!err && bad < 0 && !on && ++tries < 3);
		if (!err && bad < 0 && !on) {
			ksft_test_result_skip("not run: allocator: eofzero: %s: the folio under test never lay on poisoned memory in 3 tries\n",
					      c->what);
			continue;
		}
		ksft_test_result(!err && bad < 0 && huge_seen >= 2048,
				 "eofzero: %s: zeros past the data (first bad byte %lld), FileHugePages up to %+ld kB, %s\n",
				 c->what, bad, huge_seen, err ? strerror(errno) : "no error");
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case probe[] = {
		{ "cases", test_cases, ARRAY_SIZE(cases) },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	page_poisoning = cmdline_has("page_poison=1");
	dir = mount_fs("ramfs", "huge=always");
	if (!dir)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%s/eof", dir);
	probe_run(probe, ARRAY_SIZE(probe));
	ksft_finished();
}
