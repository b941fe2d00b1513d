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
// there, past EOF too (mapped writes: within i_size); under
// huge=within_size only where the block ends within max(i_size, end of
// the write) (mapped writes: within i_size);
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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The ops, in the order seeds have always drawn them: a seed replays as it did. */
enum op { WRITE, READ, MAPWRITE, MAPREAD, TRUNCATE, PUNCH, FALLOC, SPLIT_OP, COPY_OP, FSYNC_OP,
	  NR_OPS };
static const char *const op_name[] = { "write", "read", "mapwrite", "mapread", "truncate",
				       "punch", "fallocate", "split", "copy", "fsync" };
#define LOG	16
#define GUARD	(64 * KiB)

struct logent { long n; enum op op; uint64_t off, len, size, to; };

/* What the mount's policy (or the global deny) lets the file hold. */
enum policy { P_KNOB, P_ALWAYS, P_WITHIN, P_NOPMD, P_DENY };

static struct {
	uint64_t max, size, seed;
	enum policy policy;
	long huge0, huge_peak;	/* FileHugePages at the start, its highest since */
	int pollute;
	long copies;		/* copy_file_range ops done in the seed */
	unsigned char *shadow, *buf, *map;
	struct logent log[LOG];
	char path[128];
	int fd;
} f;

/*
 * huge=always and within_size: which 2 MiB blocks are known to hold no
 * cached page, and the promise of ramfs_order() (fs/ramfs/file-mmu.c) for
 * them: a write(2) or fallocate(2) into an empty block gets a PMD-sized
 * folio over the whole block, under always even past EOF, under
 * within_size if the block ends within max(i_size, end of the write); a
 * write fault into one (a shared mapping) gets it if the VMA covers the
 * block and the block ends within i_size (a fault's folio never reaches
 * past EOF, where it could not be PMD-mapped).  The
 * allocator may say no only when it has no free 2 MiB block.  "Known
 * empty" errs towards not empty: a block wrongly taken for empty would be
 * a false failure.
 */
static struct {
	int on;			/* always or within_size: check the promise */
	uint64_t blocks;	/* 2 MiB blocks in f.max, rounded up */
	unsigned char *empty;	/* per block: known to hold no cached page */
	long checked, found, refused;	/* promised folios, PMD-sized, allocator short */
	long miss_op;		/* the first promised folio not found: op, or -1 */
	uint64_t miss_off;
	int miss_order;
} pmd;

/*
 * never/advise and deny: the largest folio order allowed (8, 0), checked
 * at every whole-file check; the first op after which a larger one was
 * there, and its order.
 */
static struct {
	int ceiling;
	long checks, bad_op;
	int bad_order;
} sizes;

/* What an op promises, read before it runs. */
struct promise {
	uint64_t off, len;
	uint64_t mask;		/* bit i: block off / HPAGE + i gets a PMD-sized folio */
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
	    f.pollute ? " --pollute" : "", f.policy == P_DENY ? " --deny" : "");
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
 * the shadow keeps zeros there, so the file must read zeros when it grows
 * (ramfs_zero_eof()).  (A huge folio is mapped only in whole pages below
 * EOF: the rest of it cannot be reached.)
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

static uint64_t page_up(uint64_t x)
{
	return (x + PAGE - 1) & ~(PAGE - 1);
}

/*
 * Does op @op on [@off, @off + @len) of a file of @old bytes promise a
 * PMD-sized folio over empty block @b?  write(2) and fallocate(2) size
 * their folios alike (RAMFS_WRITE); a mapped write faults (RAMFS_FAULT)
 * below EOF, in f.map, which a PMD-aligned mmap() gives.
 */
static int promised(enum op op, uint64_t b, uint64_t off, uint64_t len, uint64_t old)
{
	uint64_t end = (b + 1) * HPAGE;

	if (op == MAPWRITE)
		return end <= page_up(f.max) && end <= page_up(old);
	return f.policy == P_ALWAYS || end <= page_up(off + len > old ? off + len : old);
}

/* Before op @op on [@off, @off + @len) of a file of @old bytes: its promise. */
static struct promise promise_before(enum op op, uint64_t off, uint64_t len, uint64_t old)
{
	struct promise p = { off, len, 0 };
	uint64_t b, first = off / HPAGE;

	if (!pmd.on || (op != WRITE && op != MAPWRITE && op != FALLOC))
		return p;
	for (b = first; b <= (off + len - 1) / HPAGE && b - first < 64; b++)
		if (pmd.empty[b] && promised(op, b, off, len, old))
			p.mask |= 1ULL << (b - first);
	return p;
}

/*
 * After op @n: a PMD-sized folio at the first offset it touched in each
 * block it promised one, unless the allocator has no free 2 MiB block
 * left (read at once: later frees or a compaction would hide it).  The
 * first miss is dumped with the replay line.
 */
static void pmd_check(long n, const struct promise *p)
{
	uint64_t i, first = p->off / HPAGE;
	char why[80];

	for (i = 0; i < 64; i++) {
		uint64_t at = (first + i) * HPAGE > p->off ? (first + i) * HPAGE : p->off;
		int order;

		/*
		 * fallocate(KEEP_SIZE) past EOF: the folio is there, but a
		 * mapping cannot reach it (SIGBUS); left unchecked.
		 */
		if (!(p->mask & (1ULL << i)) || at >= f.size)
			continue;
		order = order_at(at);
		pmd.checked++;
		if (order == HPAGE_ORDER)
			pmd.found++;
		else if (free_2m_blocks(-1) == 0)
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
 * never/advise, deny: after a whole-file check, which filled every hole
 * below EOF, no folio of the file may be larger than the ceiling.
 */
static void sizes_check(long n)
{
	unsigned long hist[MAX_FOLIO_ORDER];
	char text[160], why[240];
	int o;

	if (!sizes.ceiling && f.policy != P_DENY)
		return;
	if (!f.size)
		return;
	sizes.checks++;
	if (orders_of(f.path, f.size, hist, text, sizeof(text)) < 0) {
		msg("seed %llu op %ld: folio orders: %s\n", (unsigned long long)f.seed, n, text);
		o = MAX_FOLIO_ORDER;
	} else {
		for (o = MAX_FOLIO_ORDER - 1; o > 0 && !hist[o]; o--)
			;
	}
	if (o > sizes.ceiling && sizes.bad_op < 0) {
		sizes.bad_op = n;
		sizes.bad_order = o;
		snprintf(why, sizeof(why), "a folio of order %d, above %d (orders %s)", o,
			 sizes.ceiling, text);
		dump(n, why, 0);
	}
}

/*
 * What op @op did to the blocks.  Split and fsync leave them as they
 * were.
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
	enum op op = rng_next(st) % NR_OPS;

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
	/* Exact without a refresh: it moves by 512 pages, past any per-CPU batch. */
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

	*flipped = -1;
	*flip_op = -1;
	f.seed = seed;
	f.size = 0;
	memset(f.shadow, 0, f.max);
	memset(f.log, 0, sizeof(f.log));
	unlink(f.path);
	/* Free 2 MiB blocks made now, so that only a real shortage excuses a miss. */
	write_bytes("/proc/sys/vm/compact_memory", "1", 1);
	f.huge0 = meminfo_now_kb("FileHugePages");
	f.huge_peak = 0;
	f.copies = 0;
	/* A new file: every block empty. */
	memset(pmd.empty, 1, pmd.blocks);
	pmd.checked = pmd.found = pmd.refused = 0;
	pmd.miss_op = -1;
	sizes.checks = 0;
	sizes.bad_op = -1;
	f.fd = open(f.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	f.map = f.fd < 0 ? MAP_FAILED :
		mmap(NULL, f.max, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (f.map == MAP_FAILED) {
		msg("open/mmap %s: %s\n", f.path, strerror(errno));
		if (f.fd >= 0)
			close(f.fd);
		return 0;
	}
	for (n = 0; n < ops && bad < 0; n++) {
		int full = n % check == check - 1 || n == ops - 1;

		bad = one(n, &st);
		if (bad < 0 && full && corrupting && *flipped < 0 && f.size) {
			*flipped = corrupt(&cst);
			*flip_op = n;
		}
		if (bad < 0 && full) {
			bad = compare(0, f.max);
			sizes_check(n);
		}
	}
	if (bad >= 0)
		dump(n - 1, "data mismatch", bad);
	munmap(f.map, f.max);
	close(f.fd);
	unlink(f.path);
	return bad;
}

/*
 * always, within_size: each promised folio PMD-sized, or the allocator
 * had no free 2 MiB block.  Short of blocks in more than half of them:
 * not run.  None promised: the run exercised nothing, a failure.
 */
static void result_pmd(const char *mopts, uint64_t seed)
{
	long missed = pmd.checked - pmd.found - pmd.refused;
	char text[400];
	int len;

	len = snprintf(text, sizeof(text),
		       "fsx: seed %llu, ramfs -o '%s': %ld PMD-sized folios promised by writes, fallocates and mapped writes into empty 2 MiB blocks, %ld found, %ld missing with no free 2 MiB block",
		       (unsigned long long)seed, mopts, pmd.checked, pmd.found, pmd.refused);
	if (missed && len > 0 && len < (int)sizeof(text))
		snprintf(text + len, sizeof(text) - len,
			 ", %ld missing, the first at op %ld offset %#llx (order %d)", missed,
			 pmd.miss_op, (unsigned long long)pmd.miss_off, pmd.miss_order);
	if (!missed && pmd.checked && pmd.refused * 2 > pmd.checked)
		ksft_test_result_skip("not run: allocator: %s\n", text);
	else
		ksft_test_result(!missed && pmd.checked, "%s\n", text);
}

/* Second result of a seed: the folio sizes, as the policy says. */
static void result_huge(const char *mopts, uint64_t seed)
{
	if (!has_pagecache_thp()) {
		ksft_test_result_skip("fsx: seed %llu: folio sizes not checked: no %s\n",
				      (unsigned long long)seed, PAGECACHE_OPT);
		return;
	}
	if (pmd.on) {
		result_pmd(mopts, seed);
		return;
	}
	/* never/advise, deny: no PMD-sized folio ever, none above the ceiling at the checks. */
	ksft_test_result(f.huge_peak <= 0 && sizes.bad_op < 0 && sizes.checks > 0,
			 "fsx: seed %llu, ramfs -o '%s'%s: FileHugePages at most %+ld kB during the run (want 0), %ld whole-file checks of folio orders, %s%d (want <= %d)\n",
			 (unsigned long long)seed, mopts,
			 f.policy == P_DENY ? " under the global deny" : "", f.huge_peak,
			 sizes.checks, sizes.bad_op < 0 ? "largest order <= " : "order ",
			 sizes.bad_op < 0 ? sizes.ceiling : sizes.bad_order, sizes.ceiling);
}

/* First result of a seed: the data. */
static void result_data(uint64_t seed, long ops, long long bad, double t0, const char *mopts)
{
	/* One op in ten is a copy: 250 without one (0.9^250) are not fsx's. */
	ksft_test_result(bad < 0 && (ops < 250 || f.copies),
			 "fsx: seed %llu, %ld ops (%ld copy_file_range) on a %llu-byte file, ramfs -o '%s'%s%s (%.1fs, FileHugePages %ld kB at end)\n",
			 (unsigned long long)seed, ops, f.copies, (unsigned long long)f.max,
			 mopts, f.policy == P_DENY ? " under the global deny" : "",
			 f.pollute ? ", post-EOF pollution" : "", now_s() - t0,
			 meminfo_kb("FileHugePages"));
}

/* The options into @n (seeds, ops, check, first), @mopts, @deny: 0, or 2 (usage). */
static int parse_args(int argc, char **argv, uint64_t n[4], char *mopts, size_t mlen, int *deny)
{
	static const char *const names[] = { "--seeds", "--ops", "--check", "--first" };
	uint64_t v;
	int i, k;

	for (i = 1; i < argc; i++) {
		int *flag = !strcmp(argv[i], "--pollute") ? &f.pollute :
			    !strcmp(argv[i], "--corrupt") ? &corrupting :
			    !strcmp(argv[i], "--deny") ? deny : NULL;

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
	int deny = 0;

	if (parse_args(argc, argv, n, mopts, sizeof(mopts), &deny))
		return 2;
	seeds = n[0], ops = n[1], check = n[2], first = n[3];
	if (!f.max)
		f.max = 9 * MiB + 12345;
	f.policy = deny ? P_DENY : !strcmp(mopts, "huge=always") ? P_ALWAYS :
		   !strcmp(mopts, "huge=within_size") ? P_WITHIN :
		   !strcmp(mopts, "huge=never") || !strcmp(mopts, "huge=advise") ? P_NOPMD :
		   P_KNOB;
	pmd.on = f.policy == P_ALWAYS || f.policy == P_WITHIN;
	sizes.ceiling = f.policy == P_NOPMD ? HPAGE_ORDER - 1 : 0;
	pmd.blocks = (f.max + HPAGE - 1) / HPAGE;
	/* Results per seed: the data, then the folio sizes where the policy is known. */
	per_seed = 1 + (f.policy != P_KNOB);
	probe_init(1, argv, NULL);
	probe_cleanup_on_term();
	if (deny && knob_set("deny"))
		ksft_exit_fail_msg("page_cache: deny: %s\n", strerror(errno));
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
