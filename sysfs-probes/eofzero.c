// What lies past the data reads as zeros, whatever the memory held before,
// at each place where v4's ramfs hands out memory it did not zero by
// allocation or keeps bytes that are not file data:
// - write_begin (simple_write_begin_order()): a write into a new folio
//   larger than the write, a PMD-sized one under huge=always or
//   within_size, zeroes the rest of it, before and after the write;
// - write_end: a short copy into a new folio trims what the write did not
//   fill;
// - the hole fills of ramfs_fill(): at a fault (read, and a write fault
//   under within_size), at read(2), and at fallocate(2);
// - ramfs_zero_eof(): bytes a mapping stored past EOF in the EOF page are
//   zeroed as the file grows over them, by ftruncate(2), write(2) and
//   fallocate(2) (huge=always and huge=never);
// and as EOF moves through truncation, a folio split, and sizes near
// LLONG_MAX.  Each case must run on memory that held non-zero bytes, or it
// proves nothing: under page_poison=1 (the debug kernel, with
// CONFIG_PAGE_POISONING) all freed memory is, and every case counts as on
// poison; elsewhere a huge=always file of 0xa5 bytes is written and
// deleted just before the case, and the folio under test must lie where
// that file's folios were.  A case that does not land there is run again,
// up to 3 times, and then did not run (allocator).  The post-EOF cases
// store their own garbage and need no poison.  The folio under test must
// have the size the case makes (PMD-sized on huge=always and within_size),
// or the case fails: small folios would not test this at all.
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
#define GARBAGE		0x5c	/* what a mapping stores past EOF */

enum mnt { ALWAYS, WITHIN, NEVER, NR_MNTS };
static const char *const mnt_opts[NR_MNTS] = { "huge=always", "huge=within_size", "huge=never" };
static const char *dirs[NR_MNTS];
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

/* The order of the folio holding the cached page at @off of @fd, or -1. */
static int file_order(int fd, uint64_t off)
{
	unsigned char *m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off);
	int order;

	if (m == MAP_FAILED)
		return -1;
	order = folio_order_at(m);
	munmap(m, PAGE);
	return order;
}

/*
 * A file of 0xa5 bytes in PMD-sized folios (huge=always), deleted: its
 * memory is free and dirty.  Where its folios were is kept, to tell
 * whether a case reused one.
 */
static int poison(void)
{
	static unsigned char buf[MiB];
	char name[160];
	uint64_t off;
	int fd, err = 0;

	snprintf(name, sizeof(name), "%s/poison", dirs[ALWAYS]);
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
 * Store garbage past EOF in the EOF page through a shared mapping, as
 * POSIX lets a program do; it is not file data.  0 or -1.
 */
static int garbage_past_eof(int fd)
{
	struct stat st;
	unsigned char *m;
	uint64_t in;

	if (fstat(fd, &st) || !(in = st.st_size % PAGE))
		return -1;
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, st.st_size - in);
	if (m == MAP_FAILED)
		return -1;
	memset(m + in, GARBAGE, PAGE - in);
	munmap(m, PAGE);
	return 0;
}

/*
 * The folio under test: PMD-sized, or (HEAD) the first page of what was
 * one and a later truncation split: order 9, or order 0 on a 2 MiB
 * aligned PFN.  ANY: not checked (the case checks FileHugePages itself).
 */
#define ANY	(-1)
#define HEAD	(-2)

/*
 * Each case grows a file in its own way and says which bytes hold the
 * pattern: [0, data) and [data2, data2 + len2), zeros up to @size.  @at
 * is the folio under test, which must lie on poison unless @self (the
 * case stores its own garbage) and have the size @order says.
 */
struct eof_case {
	const char *site, *what;
	enum mnt mnt;
	int (*run)(int fd);
	uint64_t data, data2, len2, size, at;
	int order, self;
};

static int grow_truncate(int fd)
{
	return put(fd, 0, 4096) ?: ftruncate(fd, 2 * MiB);
}

static int write_mid_block(int fd)
{
	return put(fd, MiB + 10, 100);
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

/*
 * A write whose source's second page is unreadable copies its first page
 * only: write_begin made a PMD-sized folio for 8 KiB at 2 MiB, and
 * ramfs_write_end() trims it back to the new EOF (a split).
 */
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
	if (got != PAGE) {
		msg("eofzero: short copy wrote %zd bytes, want %lu\n", got, PAGE);
		return -1;
	}
	return eof_page_zero(fd, 2 * MiB + PAGE) >= 0 ? -1 : ftruncate(fd, 4 * MiB);
}

/* fallocate(2) fills the empty second block (ramfs_fill_holes()). */
static int grow_fallocate(int fd)
{
	return put(fd, 0, 100) ?: fallocate(fd, 0, 0, 4 * MiB);
}

/* A read fault into the empty second block fills it (ramfs_fault()). */
static int fill_read_fault(int fd)
{
	volatile unsigned char *m;

	if (put(fd, 0, 100) || ftruncate(fd, 4 * MiB))
		return -1;
	m = mmap(NULL, 4 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	(void)m[3 * MiB];
	munmap((void *)m, 4 * MiB);
	return 0;
}

/* read(2) of one byte of the empty second block fills it (ramfs_file_read_iter()). */
static int fill_read(int fd)
{
	unsigned char b;

	return put(fd, 0, 100) ?: ftruncate(fd, 4 * MiB) ?:
	       (pread(fd, &b, 1, 3 * MiB) == 1 ? 0 : -1);
}

/* within_size: the write may take the PMD around it, up to i_size. */
static int within_write(int fd)
{
	return ftruncate(fd, 4 * MiB) ?: put(fd, MiB + 10, 100);
}

/* within_size: a write fault into a hole below i_size fills its block. */
static int within_write_fault(int fd)
{
	unsigned char *m;

	if (ftruncate(fd, 4 * MiB))
		return -1;
	m = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	pattern_fill(m + 3 * MiB, 1, 3 * MiB, SEED);
	munmap(m, 4 * MiB);
	return 0;
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

/* 100 bytes, garbage past EOF through a mapping, then the file grows over it. */
static int garbage_truncate(int fd)
{
	return put(fd, 0, 100) ?: garbage_past_eof(fd) ?: ftruncate(fd, 2 * MiB);
}

static int garbage_write(int fd)
{
	return put(fd, 0, 100) ?: garbage_past_eof(fd) ?: put(fd, MiB + 10, 100);
}

static int garbage_fallocate(int fd)
{
	return put(fd, 0, 100) ?: garbage_past_eof(fd) ?: fallocate(fd, 0, 0, MiB);
}

static int garbage_write_small(int fd)
{
	return put(fd, 0, 100) ?: garbage_past_eof(fd) ?: put(fd, 3000, 100) ?:
	       ftruncate(fd, 2 * PAGE);
}

static const struct eof_case cases[] = {
	{ "write_begin", "4 KiB written, ftruncate to 2 MiB", ALWAYS, grow_truncate,
	  4096, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 0 },
	{ "write_begin", "100 bytes written at 1 MiB + 10 into an empty file", ALWAYS,
	  write_mid_block, 0, MiB + 10, 100, MiB + 110, 0, HPAGE_ORDER, 0 },
	{ "write_begin", "within_size: ftruncate to 4 MiB, 100 bytes written at 1 MiB + 10",
	  WITHIN, within_write, 0, MiB + 10, 100, 4 * MiB, 0, HPAGE_ORDER, 0 },
	{ "write_begin", "appends of 100, 4000, 200 bytes (EOF page mapped), ftruncate to 2 MiB",
	  ALWAYS, grow_appends, 4300, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 0 },
	{ "write_begin", "4 KiB appends to 1 MiB, ftruncate to 2 MiB", ALWAYS, grow_page_appends,
	  MiB, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 0 },
	{ "write_end", "a write that copies 4 KiB of 8 KiB at 2 MiB, ftruncate to 4 MiB", ALWAYS,
	  grow_short_copy, 2 * MiB + PAGE, 0, 0, 4 * MiB, 2 * MiB, HEAD, 0 },
	{ "fault fill", "100 bytes, ftruncate to 4 MiB, a read fault at 3 MiB", ALWAYS,
	  fill_read_fault, 100, 0, 0, 4 * MiB, 2 * MiB, HPAGE_ORDER, 0 },
	{ "fault fill", "within_size: ftruncate to 4 MiB, a store at 3 MiB through a shared mapping",
	  WITHIN, within_write_fault, 0, 3 * MiB, 1, 4 * MiB, 2 * MiB, HPAGE_ORDER, 0 },
	{ "read fill", "100 bytes, ftruncate to 4 MiB, read(2) of 1 byte at 3 MiB", ALWAYS,
	  fill_read, 100, 0, 0, 4 * MiB, 2 * MiB, HPAGE_ORDER, 0 },
	{ "fallocate", "100 bytes, fallocate [0, 4 MiB)", ALWAYS, grow_fallocate,
	  100, 0, 0, 4 * MiB, 2 * MiB, HPAGE_ORDER, 0 },
	{ "zero_eof", "100 bytes, garbage past EOF through a mapping, ftruncate to 2 MiB", ALWAYS,
	  garbage_truncate, 100, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 1 },
	{ "zero_eof", "100 bytes, garbage past EOF through a mapping, a write at 1 MiB + 10",
	  ALWAYS, garbage_write, 100, MiB + 10, 100, MiB + 110, 0, HPAGE_ORDER, 1 },
	{ "zero_eof", "100 bytes, garbage past EOF through a mapping, fallocate to 1 MiB", ALWAYS,
	  garbage_fallocate, 100, 0, 0, MiB, 0, HPAGE_ORDER, 1 },
	{ "zero_eof", "never: 100 bytes, garbage past EOF through a mapping, a write at 3000, ftruncate to 8 KiB",
	  NEVER, garbage_write_small, 100, 3000, 100, 2 * PAGE, 0, 0, 1 },
	{ "truncate", "1 MiB + 100 written, ftruncate to 5000, then to 2 MiB", ALWAYS,
	  grow_after_cut, 5000, 0, 0, 2 * MiB, 0, HEAD, 0 },
	{ "split", "4 KiB written, folio split, ftruncate to 2 MiB", ALWAYS, grow_after_split,
	  4096, 0, 0, 2 * MiB, 0, ANY, 0 },
	{ "write_begin", "ftruncate to LLONG_MAX, 100 bytes written, ftruncate to 2 MiB", ALWAYS,
	  grow_from_max, 100, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 0 },
	{ "write_begin", "8 KiB written, ftruncate to LLONG_MAX, 100 bytes rewritten, ftruncate to 2 MiB",
	  ALWAYS, rewrite_at_max, 8192, 0, 0, 2 * MiB, 0, HPAGE_ORDER, 0 },
};

/* Freed memory is poisoned by the kernel itself (page_poison=1). */
static int page_poisoning;

/*
 * Is the folio under test as the case says?  Read before the checks,
 * whose reads fill holes too.  The order seen goes to *@seen.
 */
static int sized(const struct eof_case *c, int fd, int *seen)
{
	long long pfn;

	*seen = file_order(fd, c->at);
	if (c->order == ANY)
		return 1;
	if (c->order == HEAD && *seen == 0) {
		pfn = file_pfn(fd, c->at);
		return pfn >= 0 && pfn % (HPAGE / PAGE) == 0;
	}
	return *seen == (c->order == HEAD ? HPAGE_ORDER : c->order);
}

/*
 * One run of @c: 0, the first bad byte (or -1) in *@bad, whether the
 * folio under test lay on poison (*@on) and was as big as it must be
 * (*@big, its order in *@order); else -1.
 */
static int run_case(const struct eof_case *c, long long *bad, int *on, int *big, int *order)
{
	uint64_t end2 = c->data2 + c->len2;
	struct stat st;
	int fd, err;

	*bad = -1;
	*big = 0;
	*order = -1;
	err = c->self || page_poisoning ? 0 : poison();
	huge0 = meminfo_now_kb("FileHugePages");
	huge_seen = 0;
	snprintf(path, sizeof(path), "%s/eof", dirs[c->mnt]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err = err || fd < 0 || c->run(fd);
	err = err ?: fstat(fd, &st) ?: st.st_size != (off_t)c->size;
	if (!err) {
		note_huge();
		*big = sized(c, fd, order);
		*on = c->self || page_poisoning || on_poison(fd, c->at);
		*bad = fd_check_pattern(fd, 0, c->data, SEED);
		if (*bad < 0 && c->len2) {
			*bad = fd_check_zero(fd, c->data, c->data2 - c->data);
			*bad = *bad >= 0 ? *bad : fd_check_pattern(fd, c->data2, c->len2, SEED);
			*bad = *bad >= 0 ? *bad : fd_check_zero(fd, end2, c->size - end2);
		} else if (*bad < 0) {
			*bad = fd_check_zero(fd, c->data, c->size - c->data);
		}
		*bad = *bad >= 0 ? *bad : eof_page_zero(fd, c->size);
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
		int err, tries = 0, on = 0, big, order;
		/* Every case on always or within_size makes a PMD-sized folio. */
		long want_kb = c->mnt == NEVER ? 0 : (long)(HPAGE / KiB);
		long long bad;

		do
			err = run_case(c, &bad, &on, &big, &order);
		while (!err && bad < 0 && big && !on && ++tries < 3);
		/* A folio of the wrong size is a failure, wherever it lay. */
		if (!err && bad < 0 && big && !on) {
			ksft_test_result_skip("not run: allocator: eofzero: %s: %s: the folio under test never lay on poisoned memory in 3 tries\n",
					      c->site, c->what);
			continue;
		}
		ksft_test_result(!err && bad < 0 && big && huge_seen >= want_kb,
				 "eofzero: %s: %s (%s): zeros past the data (first bad byte %lld), folio at %#llx of order %d (want %s), FileHugePages up to %+ld kB (want >= %ld), %s%s\n",
				 c->site, c->what, mnt_opts[c->mnt], bad, (unsigned long long)c->at,
				 order, c->order == ANY ? "any" : c->order == HEAD ?
				 "9, or 0 at a 2 MiB aligned PFN" : c->order ? "9" : "0",
				 huge_seen, want_kb,
				 c->self ? "garbage of its own" : page_poisoning ? "page_poison=1" :
				 "on the poison file's memory", err ? ", error" : "");
	}
}

int main(int argc, char **argv)
{
	static const struct probe_case probe[] = {
		{ "cases", test_cases, ARRAY_SIZE(cases) },
	};
	unsigned int i;

	probe_init(argc, argv, PAGECACHE_OPT);
	/* The option without the boot parameter poisons nothing, and the reverse. */
	page_poisoning = cmdline_has("page_poison=1") && config_has("CONFIG_PAGE_POISONING");
	for (i = 0; i < NR_MNTS; i++) {
		dirs[i] = mount_fs("ramfs", mnt_opts[i]);
		if (!dirs[i])
			ksft_exit_fail_msg("mount -o %s: %s\n", mnt_opts[i], strerror(errno));
	}
	probe_run(probe, ARRAY_SIZE(probe));
	ksft_finished();
}
