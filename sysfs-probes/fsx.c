// A randomized page cache exerciser in the spirit of xfstests' fsx: a seeded
// sequence of write, read, mapped write, mapped read, truncate, punch hole,
// fallocate, split, copy_file_range within the file (splice: ->read_iter
// into a pipe and ->write_iter out of it) and fsync on one file of several
// MiB, checked against a shadow buffer (the op's range and a guard band
// after each op, the whole file every --check ops and at the end).  On a
// mismatch it prints the seed, the op number and the last ops, so that the
// run can be replayed.  A second result per seed checks the folio sizes
// against the page cache policy ("Hugepages in the page cache",
// transhuge.rst): under huge=always every write(2), fallocate(2) or mapped
// write into a 2 MiB block that held no cached page got a PMD-sized folio
// there, past EOF too; under huge=within_size only where the block ends
// within max(i_size, end of the write) (mapped writes: within i_size);
// under huge=never and huge=advise (fsx never madvises) no PMD-sized folio
// exists at all; under the global deny (--deny) no large folio exists at
// all, whatever the mount says.  A promised PMD-sized folio may be missing
// only when the allocator had no free 2 MiB block left.  Without huge= (the
// global page_cache file decides, which stress.sh flips meanwhile) there is
// no second result.
//
// usage: probe-fsx [--seeds N] [--ops N] [--size BYTES] [--check N] [--first SEED]
//                  [--huge always|within_size|advise|never|knob]  (ramfs huge=;
//                  knob: no huge= option, the page_cache file decides)
//                  [--deny]  (set the global page_cache file to deny for the run:
//                  4 KiB folios only, on a mount with any huge=)
//                  [--corrupt]  (flip one byte of the file behind fsx's back just
//                  before a whole-file check: the seed's result passes only if
//                  that check reports the flipped offset)
//                  [--pollute]  (after every size change and mapped write, store
//                  garbage past EOF in the EOF page through a mapping, as
//                  xfstests fsx -e 1 does: when the file grows it must read 0)
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* COLLAPSE_OP last: without --collapse a seed runs the ops it always ran. */
enum op { WRITE, READ, MAPWRITE, MAPREAD, TRUNCATE, PUNCH, FALLOC, SPLIT_OP, COPY_OP, FSYNC_OP,
	  COLLAPSE_OP, NR_OPS };
static const char *const op_name[] = { "write", "read", "mapwrite", "mapread", "truncate",
				       "punch", "fallocate", "split", "copy", "fsync",
				       "collapse" };
#define LOG	16
#define GUARD	(64 * KiB)

struct logent { long n; enum op op; uint64_t off, len, size, to; };

static struct {
	uint64_t max, size, seed;
	long huge0, huge_peak;	/* FileHugePages at the start, its highest since */
	int pollute, collapse, collapser;
	/* MADV_COLLAPSE calls that returned 0, all calls: both threads count. */
	long collapsed, collapses;
	long alloc0;		/* thp_collapse_alloc at the start of the seed */
	long copies;		/* copy_file_range ops done in the seed */
	int collapser_err;	/* an errno madvise(2) does not give MADV_COLLAPSE */
	int stop;		/* tells the collapser thread to end */
	unsigned char *shadow, *buf, *map;
	struct logent log[LOG];
	char path[128];
	int fd;
} f;

/*
 * huge=always: which 2 MiB blocks are known to hold no cached page, and
 * the promise the ramfs patch (fs/ramfs/huge.c, ramfs_add_folio()) makes
 * for them: the first page a write(2) or a shared write fault puts in an
 * empty block comes with a PMD-sized folio over the whole block, below
 * EOF or past it (always has no EOF rule, unlike within_size), unless the
 * allocator says no.  "Known empty" errs towards not empty: a block
 * wrongly taken for empty would be a false failure.
 */
static struct {
	int on;			/* huge=always: check the promise */
	uint64_t blocks;	/* 2 MiB blocks in f.max, rounded up */
	unsigned char *empty;	/* per block: known to hold no cached page */
	long checked, found, refused;	/* promised folios, PMD-sized, allocator said no */
	long exempt;		/* writes into empty blocks ramfs_may_add() skips */
	long miss_op;		/* the first promised folio not found: op, or -1 */
	uint64_t miss_off;
	int miss_order;
} pmd;

/* What an op promises, read before it runs. */
struct promise {
	uint64_t off, len;
	uint64_t mask;		/* bit i: block off / HPAGE + i was empty */
	long refusals;		/* thp_refusals() before the op */
};

static void dump(long n, const char *why, long long at)
{
	long i;

	msg("seed %llu op %ld: %s at offset %lld (file size %llu); last ops:\n",
	    (unsigned long long)f.seed, n, why, at, (unsigned long long)f.size);
	/* Ops n - LOG + 1 to n, those the log still holds (op 0 too). */
	for (i = n >= LOG ? n - LOG + 1 : 0; i <= n; i++) {
		struct logent *e = &f.log[i % LOG];
		char to[32] = "";

		if (e->op == COPY_OP)
			snprintf(to, sizeof(to), " to %#llx", (unsigned long long)e->to);
		msg("  %6ld %-9s off %#llx len %#llx size %#llx%s\n", e->n, op_name[e->op],
		    (unsigned long long)e->off, (unsigned long long)e->len,
		    (unsigned long long)e->size, to);
	}
	msg("replay: probe-fsx --first %llu --seeds 1 --ops %ld --size %llu%s%s (and the same --huge)\n",
	    (unsigned long long)f.seed, n + 1, (unsigned long long)f.max,
	    f.pollute ? " --pollute" : "", f.collapse ? " --collapse" : "");
}

/*
 * [@off, @off + @len) holds pages now, or may: a read of a hole below
 * EOF fills it too (a huge folio under always, a small one otherwise).
 */
static void blocks_used(uint64_t off, uint64_t len)
{
	uint64_t b;

	for (b = off / HPAGE; len && b <= (off + len - 1) / HPAGE && b < pmd.blocks; b++)
		pmd.empty[b] = 0;
}

/*
 * The blocks wholly inside [@from, @to) hold nothing now: a punch frees
 * every folio it covers whole, and ftruncate(2) (up or down:
 * truncate_setsize() calls truncate_pagecache() both ways) every page
 * past the new size.  A folio never crosses a 2 MiB boundary.
 */
static void blocks_emptied(uint64_t from, uint64_t to)
{
	uint64_t b;

	for (b = (from + HPAGE - 1) / HPAGE; b < pmd.blocks && (b + 1) * HPAGE <= to; b++)
		pmd.empty[b] = 1;
}

/* Compare [off, off + len) of the file, clipped to its size. */
static long long compare(uint64_t off, uint64_t len)
{
	uint64_t i;

	if (off >= f.size)
		return -1;
	if (off + len > f.size)
		len = f.size - off;
	blocks_used(off, len);
	/* Every byte unlike the one expected: a byte not read cannot pass. */
	for (i = 0; i < len; i++)
		f.buf[i] = ~f.shadow[off + i];
	if (pread(f.fd, f.buf, len, off) != (ssize_t)len)
		return off;
	if (!memcmp(f.buf, f.shadow + off, len))
		return -1;
	for (i = 0; f.buf[i] == f.shadow[off + i]; i++)
		;
	return off + i;
}

static uint64_t pick_off(uint64_t *st, uint64_t lim)
{
	uint64_t r = rng_next(st);

	if (!lim)
		return 0;
	/* Half of the offsets sit next to a 2 MiB boundary. */
	if (r & 1)
		return (r >> 1) % lim;
	r = ((r >> 1) % (lim / HPAGE + 1)) * HPAGE + (r >> 40) % 64 - 32;
	return r % lim;
}

static void resize(uint64_t size)
{
	if (size < f.size)
		memset(f.shadow + size, 0, f.size - size);
	f.size = size;
}

/*
 * POSIX: what a mapping stores past EOF in the EOF page is not file data.
 * Store garbage in [size, end of its page) through a mapping of its own;
 * the shadow keeps zeros there, so the file must read zeros when it grows.
 * (A huge folio is mapped only in whole pages below EOF: the rest of it
 * cannot be reached.)
 */
static void pollute_eof(long n)
{
	uint64_t in = f.size % PAGE;
	unsigned char *p;

	if (!f.pollute || !in)
		return;
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, f.size - in);
	if (p == MAP_FAILED) {
		msg("pollute: mmap at %#llx: %s\n", (unsigned long long)(f.size - in),
		    strerror(errno));
		return;
	}
	memset(p + in, 0x80 | (n & 0x7f), PAGE - in);
	munmap(p, PAGE);
	blocks_used(f.size - in, 1);
}

/* A call of op @n failed: say which and why; the run stops at @off. */
static long long op_failed(long n, enum op op, uint64_t off)
{
	msg("seed %llu op %ld: %s at %#llx failed: %s\n", (unsigned long long)f.seed, n,
	    op_name[op], (unsigned long long)off, strerror(errno));
	return off;
}

/*
 * MADV_COLLAPSE of the PMD-sized ranges that [@off, @off + @len) touches,
 * within the mapping.  0, or -1 for an errno that madvise(2) does not give
 * MADV_COLLAPSE (EAGAIN: something held a folio; EINVAL: the range crosses
 * EOF; EBUSY, ENOMEM: no memory).  The data must not change either way.
 */
static int collapse_range(uint64_t from, uint64_t to)
{
	__atomic_add_fetch(&f.collapses, 1, __ATOMIC_RELAXED);
	if (!madvise(f.map + from, to - from, MADV_COLLAPSE)) {
		__atomic_add_fetch(&f.collapsed, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return errno == EAGAIN || errno == EINVAL || errno == EBUSY || errno == ENOMEM ? 0 : -1;
}

static int collapse_op(uint64_t off, uint64_t len)
{
	uint64_t from = off & ~(HPAGE - 1), to = (off + len + HPAGE - 1) & ~(HPAGE - 1);

	if (to > (f.max & ~(HPAGE - 1)))
		to = f.max & ~(HPAGE - 1);
	return to <= from ? 0 : collapse_range(from, to);
}

/*
 * --collapser: a second thread collapses a random 2 MiB range of the
 * mapping every millisecond while the ops run, so that collapse races
 * each of them (the ops' checks see any data it loses).
 */
static void *collapser(void *arg)
{
	uint64_t st = (uintptr_t)arg, pmds = f.max / HPAGE;

	while (pmds && !__atomic_load_n(&f.stop, __ATOMIC_RELAXED)) {
		uint64_t i = rng_next(&st) % pmds;

		if (collapse_range(i * HPAGE, (i + 1) * HPAGE) && !f.collapser_err)
			f.collapser_err = errno;
		usleep(1000);
	}
	return NULL;
}

/*
 * copy_file_range(2) of [@off, @off + @len) to @to in the same file, in
 * as many calls as it takes: the range lies below EOF, so a call that
 * copies nothing before the end is a failure.  The ranges do not overlap
 * (the kernel refuses that).  0, or -1 with errno.
 */
static int copy_op(uint64_t off, uint64_t len, uint64_t to)
{
	loff_t in = off, out = to;

	while (in < (loff_t)(off + len)) {
		ssize_t got = copy_file_range(f.fd, &in, f.fd, &out, off + len - in, 0);

		if (got <= 0) {
			if (!got)
				errno = ENODATA;
			return -1;
		}
	}
	memmove(f.shadow + to, f.shadow + off, len);
	if (to + len > f.size)
		f.size = to + len;
	return 0;
}

/*
 * Pages of the file in the page cache, past EOF too: mincore() of a
 * mapping that is never touched looks them up without adding any.  No
 * folio reaches past the last 2 MiB block of f.max.
 */
static long cached_pages(void)
{
	size_t len = pmd.blocks * HPAGE;
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, f.fd, 0);
	long n = p == MAP_FAILED ? -1 : resident(p, len);

	if (p != MAP_FAILED)
		munmap(p, len);
	return n;
}

/*
 * The order of the folio holding the page at @off, which is cached:
 * through a read-only mapping of that page alone, whose fault only maps
 * it.  -1 if pagemap or kpageflags would not say.
 */
static int order_at(uint64_t off)
{
	volatile unsigned char *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, f.fd,
					 off & ~(PAGE - 1));
	int order;

	if (p == MAP_FAILED)
		return -1;
	(void)p[0];
	order = folio_order_at((const void *)p);
	munmap((void *)p, PAGE);
	return order;
}

/*
 * Before op @op on [@off, @off + @len) of a file of @old bytes: the
 * empty blocks where it promises a PMD-sized folio.  A mapped write
 * faults below EOF, into ramfs_fault(), which adds one for any block it
 * finds empty.  A write(2) adds them in ramfs_write_add_folios(), except
 * that ramfs_may_add() sends one that ends at or below EOF down the
 * generic path (small folios) when the page count says the file has no
 * hole, as pages past EOF can make it say.
 */
static struct promise promise_before(enum op op, uint64_t off, uint64_t len, uint64_t old)
{
	struct promise p = { off, len, 0, 0 };
	uint64_t b, first = off / HPAGE;

	if (!pmd.on || (op != WRITE && op != MAPWRITE))
		return p;
	for (b = first; b <= (off + len - 1) / HPAGE && b - first < 64; b++)
		if (pmd.empty[b])
			p.mask |= 1ULL << (b - first);
	if (p.mask && op == WRITE && off + len <= old && cached_pages() * (long)PAGE >= (long)old) {
		pmd.exempt++;
		p.mask = 0;
	}
	if (p.mask)
		p.refusals = thp_refusals();
	return p;
}

/*
 * After op @n: a PMD-sized folio at the first offset it wrote in each
 * block that was empty, or a refusal by the allocator during the op.
 * The first miss is dumped with the replay line.
 */
static void pmd_check(long n, const struct promise *p)
{
	long refused = p->mask && thp_refusals() > p->refusals;
	uint64_t i, first = p->off / HPAGE;
	char why[80];

	for (i = 0; i < 64; i++) {
		uint64_t at = (first + i) * HPAGE > p->off ? (first + i) * HPAGE : p->off;
		int order;

		if (!(p->mask & (1ULL << i)))
			continue;
		order = order_at(at);
		pmd.checked++;
		if (order == HPAGE_ORDER)
			pmd.found++;
		else if (refused)
			pmd.refused++;
		else if (pmd.miss_op < 0) {
			pmd.miss_op = n;
			pmd.miss_off = at;
			pmd.miss_order = order;
			snprintf(why, sizeof(why), "no PMD-sized folio where promised (order %d)", order);
			dump(n, why, at);
		}
	}
}

/*
 * What op @op did to the blocks.  Split, fsync and collapse leave them
 * as they were: a collapse (like khugepaged's) fills the holes of a range
 * only if it holds a page, under invalidate_lock, and never past EOF.
 */
static void model_after(enum op op, uint64_t off, uint64_t len, uint64_t to)
{
	switch (op) {
	case TRUNCATE:
		blocks_emptied(off, pmd.blocks * HPAGE);
		break;
	case PUNCH:
		blocks_emptied(off, off + len);
		break;
	case COPY_OP:
		blocks_used(to, len);
		blocks_used(off, len);	/* the source is read: a hole fills */
		break;
	case WRITE:
	case READ:
	case MAPWRITE:
	case MAPREAD:
	case FALLOC:
		blocks_used(off, len);
		break;
	default:
		break;
	}
}

/* Pick an op: its kind, range, copy destination (@to) and spare bits (@r). */
static enum op pick(uint64_t *st, uint64_t *off, uint64_t *len, uint64_t *to, uint64_t *r)
{
	enum op op = rng_next(st) % (f.collapse ? NR_OPS : COLLAPSE_OP);

	*r = rng_next(st);
	*off = pick_off(st, op == TRUNCATE || op == FALLOC || op == WRITE ? f.max : f.size);
	*len = *r % 3 == 0 ? 1 + *r % 512 : *r % 3 == 1 ? 1 + *r % (64 * KiB) : 1 + *r % (3 * MiB);
	if (*off + *len > f.max)
		*len = f.max - *off;
	if (!*len)
		*len = 1, *off = *off ? *off - 1 : 0;
	if ((op == MAPWRITE || op == MAPREAD || op == PUNCH || op == READ || op == COPY_OP) &&
	    *off + *len > f.size) {
		if (!f.size)
			op = WRITE;
		else if (*off >= f.size)
			*off = f.size - 1, *len = 1;
		else
			*len = f.size - *off;
	}
	if (op == COPY_OP) {
		/* Anywhere in the file's room, past EOF too, but not over the source. */
		*to = pick_off(st, f.max - *len + 1);
		if (*to < *off + *len && *off < *to + *len)
			*to = *off + *len + *len <= f.max ? *off + *len : *off >= *len ? *off - *len : *to;
		if (*to < *off + *len && *off < *to + *len)
			op = READ;
	}
	return op;
}

/* Run op @n on the file and the shadow: -1, or the offset where it failed. */
static long long do_op(long n, enum op op, uint64_t off, uint64_t len, uint64_t to, uint64_t r)
{
	char cmd[200];

	switch (op) {
	case WRITE:
		pattern_fill(f.shadow + off, len, off, f.seed + n);
		if (pwrite(f.fd, f.shadow + off, len, off) != (ssize_t)len)
			return op_failed(n, op, off);
		if (off + len > f.size)
			f.size = off + len;
		break;
	case READ:
	case MAPREAD:
		if (op == MAPREAD && memcmp(f.map + off, f.shadow + off, len))
			return off;
		break;		/* READ: compared by the caller */
	case MAPWRITE:
		pattern_fill(f.shadow + off, len, off, f.seed + n);
		memcpy(f.map + off, f.shadow + off, len);
		break;
	case TRUNCATE:
		if (ftruncate(f.fd, off))
			return op_failed(n, op, off);
		resize(off);
		break;
	case PUNCH:
		if (fallocate(f.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
			return op_failed(n, op, off);
		memset(f.shadow + off, 0, len);
		break;
	case FALLOC:
		if (fallocate(f.fd, r & 8 ? FALLOC_FL_KEEP_SIZE : 0, off, len))
			return op_failed(n, op, off);
		if (!(r & 8) && off + len > f.size)
			f.size = off + len;
		break;
	case SPLIT_OP:
		snprintf(cmd, sizeof(cmd), "%s,0x%llx,0x%llx", f.path,
			 (unsigned long long)(off / PAGE), (unsigned long long)((off + len) / PAGE + 1));
		if (write_bytes(SPLIT, cmd, strlen(cmd)))
			return op_failed(n, op, off);
		break;
	case COPY_OP:
		if (copy_op(off, len, to))
			return op_failed(n, op, off);
		f.copies++;
		break;
	case FSYNC_OP:
		if (fsync(f.fd))
			return op_failed(n, op, off);
		break;
	case COLLAPSE_OP:
		if (collapse_op(off, len))
			return op_failed(n, op, off);
		break;
	case NR_OPS:
		break;
	}
	return -1;
}

static long long one(long n, uint64_t *st)
{
	uint64_t off, len, to = 0, r, old = f.size;
	enum op op = pick(st, &off, &len, &to, &r);
	struct promise p;
	long long bad;
	long kb;

	f.log[n % LOG] = (struct logent){ n, op, off, len, f.size, to };
	p = promise_before(op, off, len, old);
	bad = do_op(n, op, off, len, to, r);
	if (bad >= 0)
		return bad;
	/* Before the compares below, whose reads of holes allocate too. */
	pmd_check(n, &p);
	model_after(op, off, len, to);
	bad = compare(off, len + GUARD);
	if (bad < 0 && op == COPY_OP)
		bad = compare(to, len + GUARD);
	/* Grown: what was past the old EOF must read as the shadow says. */
	if (bad < 0 && f.size > old)
		bad = compare(old, PAGE);
	if (f.size != old || op == MAPWRITE)
		pollute_eof(n);
	/*
	 * Exact without a refresh: it moves by 512 pages, past any per-CPU
	 * batch.  Collapses make huge folios whatever the mount: on a
	 * huge=never mount result_huge() allows what they made.
	 */
	kb = meminfo_kb("FileHugePages") - f.huge0;
	if (kb > f.huge_peak)
		f.huge_peak = kb;
	return bad;
}

/*
 * --corrupt: flip one byte of the file behind fsx's back (another open file,
 * the shadow untouched), as a bug would, just before a whole-file check so
 * that no op can overwrite it first.  Returns its offset, or -1.
 */
static int corrupting;

static long long corrupt(uint64_t *st)
{
	long long at = rng_next(st) % f.size;
	int fd = open(f.path, O_RDWR);
	unsigned char b;
	int ok;

	ok = fd >= 0 && pread(fd, &b, 1, at) == 1;
	b ^= 0x20;
	ok = ok && pwrite(fd, &b, 1, at) == 1;
	blocks_used(at, 1);
	if (fd >= 0)
		close(fd);
	if (!ok)
		msg("corrupt: flipping the byte at %lld: %s\n", at, strerror(errno));
	return ok ? at : -1;
}

/*
 * One seed.  Returns the first mismatch (-1: none) and, with --corrupt,
 * where the byte was flipped (@flipped, -1: not done) and after which op.
 */
static long long run(uint64_t seed, long ops, long check, long long *flipped, long *flip_op)
{
	uint64_t st = seed, cst = ~seed;
	long n;
	long long bad = -1;
	pthread_t thread;
	int threaded = 0;

	*flipped = -1;
	*flip_op = -1;
	f.seed = seed;
	f.size = 0;
	memset(f.shadow, 0, f.max);
	memset(f.log, 0, sizeof(f.log));
	unlink(f.path);
	f.huge0 = meminfo_now_kb("FileHugePages");
	f.huge_peak = 0;
	f.collapsed = f.collapses = f.copies = 0;
	f.collapser_err = f.stop = 0;
	f.alloc0 = vmstat_get("thp_collapse_alloc");
	/* A new file: every block empty. */
	memset(pmd.empty, 1, pmd.blocks);
	pmd.checked = pmd.found = pmd.refused = pmd.exempt = 0;
	pmd.miss_op = -1;
	f.fd = open(f.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	f.map = f.fd < 0 ? MAP_FAILED :
		mmap(NULL, f.max, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (f.map == MAP_FAILED) {
		msg("open/mmap %s: %s\n", f.path, strerror(errno));
		if (f.fd >= 0)
			close(f.fd);
		return 0;
	}
	if (f.collapser)
		threaded = !pthread_create(&thread, NULL, collapser, (void *)(uintptr_t)~seed);
	for (n = 0; n < ops && bad < 0; n++) {
		int full = n % check == check - 1 || n == ops - 1;

		bad = one(n, &st);
		if (bad < 0 && full && corrupting && *flipped < 0 && f.size) {
			*flipped = corrupt(&cst);
			*flip_op = n;
		}
		if (bad < 0 && full)
			bad = compare(0, f.max);
	}
	if (threaded) {
		__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
		pthread_join(thread, NULL);
	}
	if (bad >= 0)
		dump(n - 1, "data mismatch", bad);
	munmap(f.map, f.max);
	close(f.fd);
	unlink(f.path);
	return bad;
}

/*
 * huge=always: each promised folio PMD-sized, or the allocator refused it.
 * Allocator refusals in more than half of them: not run.  None promised:
 * the run exercised nothing, a failure.
 */
static void result_pmd(const char *mopts, uint64_t seed)
{
	long missed = pmd.checked - pmd.found - pmd.refused;
	char text[400];
	int len;

	len = snprintf(text, sizeof(text),
		       "fsx: seed %llu, ramfs -o '%s': %ld PMD-sized folios promised by writes into empty 2 MiB blocks, %ld found, %ld refused by the allocator (%ld writes exempt: no hole by the page count)",
		       (unsigned long long)seed, mopts, pmd.checked, pmd.found, pmd.refused,
		       pmd.exempt);
	if (missed && len > 0 && len < (int)sizeof(text))
		snprintf(text + len, sizeof(text) - len,
			 ", %ld missing, the first at op %ld offset %#llx (order %d)", missed,
			 pmd.miss_op, (unsigned long long)pmd.miss_off, pmd.miss_order);
	if (!missed && pmd.checked && pmd.refused * 2 > pmd.checked)
		ksft_test_result_skip("not run: allocator: %s\n", text);
	else
		ksft_test_result(!missed && pmd.checked, "%s\n", text);
}

/* Second result of a seed: were there huge folios, as the mount says? */
static void result_huge(const char *mopts, uint64_t seed)
{
	if (!has_pagecache_thp()) {
		ksft_test_result_skip("fsx: seed %llu: huge folios not checked: no %s\n",
				      (unsigned long long)seed, PAGECACHE_OPT);
		return;
	}
	if (pmd.on) {
		result_pmd(mopts, seed);
		return;
	}
	/* huge=never: only collapses (2 MiB each) may make huge folios. */
	long most = 2048 * (vmstat_get("thp_collapse_alloc") - f.alloc0);

	ksft_test_result(f.huge_peak <= most,
			 "fsx: seed %llu, ramfs -o '%s': FileHugePages at most %+ld kB during the run (want <= %ld)\n",
			 (unsigned long long)seed, mopts, f.huge_peak, most);
}

/* First result of a seed: the data, and with --collapse(r) the collapses. */
static void result_data(uint64_t seed, long ops, long long bad, double t0, const char *mopts)
{
	/*
	 * With --collapse(r), some collapse must have copied small folios
	 * (a new huge page), not only found huge ones there already.
	 */
	long made = vmstat_get("thp_collapse_alloc") - f.alloc0;
	int busy = f.collapse || f.collapser;

	/* One op in ten is a copy: a long run without one is not fsx's. */
	ksft_test_result(bad < 0 && (!busy || (f.collapsed && made > 0)) &&
			 !f.collapser_err && (ops < 1000 || f.copies),
			 "fsx: seed %llu, %ld ops (%ld copy_file_range) on a %llu-byte file, ramfs -o '%s'%s%s%s, %ld of %ld collapses returned 0, thp_collapse_alloc %+ld, errno %d (%.1fs, FileHugePages %ld kB at end)\n",
			 (unsigned long long)seed, ops, f.copies, (unsigned long long)f.max,
			 mopts, f.pollute ? ", post-EOF pollution" : "",
			 f.collapse ? ", MADV_COLLAPSE ops" : "",
			 f.collapser ? ", a collapser thread" : "", f.collapsed,
			 f.collapses, made, f.collapser_err, now_s() - t0,
			 meminfo_kb("FileHugePages"));
}

/* The options into @n (seeds, ops, check, first) and @mopts: 0, or 2 (usage). */
static int parse_args(int argc, char **argv, uint64_t n[4], char *mopts, size_t mlen)
{
	static const char *const names[] = { "--seeds", "--ops", "--check", "--first" };
	uint64_t v;
	int i, k;

	for (i = 1; i < argc; i++) {
		int *flag = !strcmp(argv[i], "--pollute") ? &f.pollute :
			    !strcmp(argv[i], "--corrupt") ? &corrupting :
			    !strcmp(argv[i], "--collapse") ? &f.collapse :
			    !strcmp(argv[i], "--collapser") ? &f.collapser : NULL;

		if (flag) {
			*flag = 1;
			continue;
		}
		if (i + 1 == argc) {
			fprintf(stderr, "probe-fsx: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--huge")) {
			/* The kernel rejects a bad word at mount time. */
			if (!strcmp(argv[++i], "knob"))
				mopts[0] = 0;
			else if (snprintf(mopts, mlen, "huge=%s", argv[i]) >= (int)mlen) {
				fprintf(stderr, "probe-fsx: bad value '%s' for --huge\n", argv[i]);
				return 2;
			}
			continue;
		}
		if (parse_size(argv[i + 1], &v) || !v) {
			fprintf(stderr, "probe-fsx: bad value '%s' for %s\n", argv[i + 1], argv[i]);
			return 2;
		}
		for (k = 0; k < 4 && strcmp(argv[i], names[k]); k++)
			;
		if (k < 4)
			n[k] = v;
		else if (!strcmp(argv[i], "--size"))
			f.max = v;
		else {
			fprintf(stderr, "probe-fsx: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n[4] = { 3, 5000, 500, 1 }, first;	/* seeds, ops, check, first */
	long seeds, ops, check, i;
	unsigned int per_seed;
	char mopts[32] = "huge=always";
	const char *dir;

	if (parse_args(argc, argv, n, mopts, sizeof(mopts)))
		return 2;
	seeds = n[0], ops = n[1], check = n[2], first = n[3];
	if (!f.max)
		f.max = 9 * MiB + 12345;
	pmd.on = !strcmp(mopts, "huge=always");
	pmd.blocks = (f.max + HPAGE - 1) / HPAGE;
	/* Results per seed: the data, then the huge folios where promised. */
	per_seed = 1 + (pmd.on || !strcmp(mopts, "huge=never"));
	probe_init(1, argv, NULL);
	dir = mount_fs("ramfs", mopts);
	if (!dir)
		ksft_exit_fail_msg("mount ramfs -o '%s': %s\n", mopts, strerror(errno));
	snprintf(f.path, sizeof(f.path), "%s/fsx", dir);
	f.shadow = malloc(f.max);
	f.buf = malloc(f.max + GUARD);
	pmd.empty = malloc(pmd.blocks);
	if (!f.shadow || !f.buf || !pmd.empty)
		ksft_exit_fail_msg("malloc %llu: %s\n", (unsigned long long)f.max, strerror(errno));
	ksft_set_plan(seeds * per_seed);
	for (i = 0; i < seeds; i++) {
		unsigned int start = ksft_test_num();
		double t0 = now_s();
		long long flipped, bad;
		long flip_op;

		bad = run(first + i, ops, check, &flipped, &flip_op);
		if (corrupting)
			ksft_test_result(flipped >= 0 && bad == flipped,
					 "fsx: --corrupt seed %llu: byte flipped at offset %lld after op %ld, fsx's check reported offset %lld\n",
					 (unsigned long long)(first + i), flipped, flip_op, bad);
		else
			result_data(first + i, ops, bad, t0, mopts);
		if (per_seed == 2)
			result_huge(mopts, first + i);
		probe_case_end(start, per_seed, "fsx seed");
	}
	ksft_finished();
}
