// A randomized page cache exerciser in the spirit of xfstests' fsx: a seeded
// sequence of write, read, mapped write, mapped read, truncate, punch hole,
// fallocate, split, copy_file_range within the file (splice: ->read_iter
// into a pipe and ->write_iter out of it) and fsync (and collapse) on one
// file of several MiB, checked against a shadow
// buffer (the op's range and a guard band after each op, the whole file
// every --check ops and at the end).  On a mismatch it prints the seed, the
// op number and the last ops, so that the run can be replayed.  A second
// result per seed: under huge=always some huge folio existed during the run
// (FileHugePages rose), under huge=never none did; other policies and the
// knob (which others flip meanwhile) promise nothing here, so no result.
//
// usage: probe-fsx [--seeds N] [--ops N] [--size BYTES] [--check N] [--first SEED]
//                  [--huge always|within_size|advise|never|knob]  (ramfs huge=;
//                  knob: no huge= option, the page_cache knob decides)
//                  [--corrupt]  (flip one byte of the file behind fsx's back just
//                  before a whole-file check: the seed's result passes only if
//                  that check reports the flipped offset)
//                  [--pollute]  (after every size change and mapped write, store
//                  garbage past EOF in the EOF page through a mapping, as
//                  xfstests fsx -e 1 does: when the file grows it must read 0)
//                  [--collapse]  (an op more, MADV_COLLAPSE of the op's PMD ranges;
//                  some must make a huge page (thp_collapse_alloc), and huge=never
//                  then promises no huge folio only until the first call)
//                  [--collapser]  (a thread collapsing random PMD ranges meanwhile,
//                  racing every op; some must make a huge page; a replay is not exact)
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

static void dump(long n, const char *why, long long at)
{
	int i;

	msg("seed %llu op %ld: %s at offset %lld (file size %llu); last ops:\n",
	    (unsigned long long)f.seed, n, why, at, (unsigned long long)f.size);
	for (i = 0; i < LOG; i++) {
		struct logent *e = &f.log[(n + 1 + i) % LOG];

		if (e->n || !i)
			msg("  %6ld %-9s off %#llx len %#llx size %#llx%s%#llx\n", e->n,
			    op_name[e->op], (unsigned long long)e->off,
			    (unsigned long long)e->len, (unsigned long long)e->size,
			    e->op == COPY_OP ? " to " : "", (unsigned long long)e->to);
	}
	msg("replay: probe-fsx --first %llu --seeds 1 --ops %ld --size %llu%s%s (and the same --huge)\n",
	    (unsigned long long)f.seed, n + 1, (unsigned long long)f.max,
	    f.pollute ? " --pollute" : "", f.collapse ? " --collapse" : "");
}

/* Compare [off, off + len) of the file, clipped to its size. */
static long long compare(uint64_t off, uint64_t len)
{
	uint64_t i;

	if (off >= f.size)
		return -1;
	if (off + len > f.size)
		len = f.size - off;
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

static long long one(long n, uint64_t *st)
{
	enum op op = rng_next(st) % (f.collapse ? NR_OPS : COLLAPSE_OP);
	uint64_t r = rng_next(st), off, len, old = f.size, to = 0;
	long long bad;
	long kb;
	char cmd[200];

	off = pick_off(st, op == TRUNCATE || op == FALLOC || op == WRITE ? f.max : f.size);
	len = r % 3 == 0 ? 1 + r % 512 : r % 3 == 1 ? 1 + r % (64 * KiB) : 1 + r % (3 * MiB);
	if (off + len > f.max)
		len = f.max - off;
	if (!len)
		len = 1, off = off ? off - 1 : 0;
	if ((op == MAPWRITE || op == MAPREAD || op == PUNCH || op == READ || op == COPY_OP) &&
	    off + len > f.size) {
		if (!f.size)
			op = WRITE;
		else if (off >= f.size)
			off = f.size - 1, len = 1;
		else
			len = f.size - off;
	}
	if (op == COPY_OP) {
		/* Anywhere in the file's room, past EOF too, but not over the source. */
		to = pick_off(st, f.max - len + 1);
		if (to < off + len && off < to + len)
			to = off + len + len <= f.max ? off + len : off >= len ? off - len : to;
		if (to < off + len && off < to + len)
			op = READ;
	}
	f.log[n % LOG] = (struct logent){ n, op, off, len, f.size, to };

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
		break;		/* READ: compared below */
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

/* Second result of a seed: were there huge folios, as the mount says? */
static void result_huge(const char *mopts, uint64_t seed)
{
	int always = !strcmp(mopts, "huge=always");

	if (!has_pagecache_thp()) {
		ksft_test_result_skip("fsx: seed %llu: huge folios not checked: no %s\n",
				      (unsigned long long)seed, PAGECACHE_OPT);
		return;
	}
	/* Only collapses (2 MiB each) may make huge folios on huge=never. */
	long most = 2048 * (vmstat_get("thp_collapse_alloc") - f.alloc0);

	ksft_test_result(always ? f.huge_peak > 0 : f.huge_peak <= most,
			 "fsx: seed %llu, ramfs -o '%s': FileHugePages at most %+ld kB during the run (want %s%ld)\n",
			 (unsigned long long)seed, mopts, f.huge_peak, always ? "> " : "<= ",
			 always ? 0 : most);
}

int main(int argc, char **argv)
{
	uint64_t v, first = 1;
	long seeds = 3, ops = 5000, check = 500, i;
	unsigned int per_seed;
	char mopts[32] = "huge=always";
	const char *dir;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pollute")) {
			f.pollute = 1;
			continue;
		}
		if (!strcmp(argv[i], "--corrupt")) {
			corrupting = 1;
			continue;
		}
		if (!strcmp(argv[i], "--collapse")) {
			f.collapse = 1;
			continue;
		}
		if (!strcmp(argv[i], "--collapser")) {
			f.collapser = 1;
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
			else if (snprintf(mopts, sizeof(mopts), "huge=%s", argv[i]) >=
				 (int)sizeof(mopts)) {
				fprintf(stderr, "probe-fsx: bad value '%s' for --huge\n", argv[i]);
				return 2;
			}
			continue;
		}
		if (parse_size(argv[i + 1], &v) || !v) {
			fprintf(stderr, "probe-fsx: bad value '%s' for %s\n", argv[i + 1], argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--seeds"))
			seeds = v;
		else if (!strcmp(argv[i], "--ops"))
			ops = v;
		else if (!strcmp(argv[i], "--size"))
			f.max = v;
		else if (!strcmp(argv[i], "--check"))
			check = v;
		else if (!strcmp(argv[i], "--first"))
			first = v;
		else {
			fprintf(stderr, "probe-fsx: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	if (!f.max)
		f.max = 9 * MiB + 12345;
	/* Results per seed: the data, then the huge folios where promised. */
	per_seed = 1 + (!strcmp(mopts, "huge=always") || !strcmp(mopts, "huge=never"));
	probe_init(1, argv, NULL);
	dir = mount_fs("ramfs", mopts);
	if (!dir)
		ksft_exit_fail_msg("mount ramfs -o '%s': %s\n", mopts, strerror(errno));
	snprintf(f.path, sizeof(f.path), "%s/fsx", dir);
	f.shadow = malloc(f.max);
	f.buf = malloc(f.max + GUARD);
	if (!f.shadow || !f.buf)
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
		else {
			/*
			 * With --collapse(r), some collapse must have copied
			 * small folios (a new huge page), not only found huge
			 * ones there already.
			 */
			long made = vmstat_get("thp_collapse_alloc") - f.alloc0;
			int busy = f.collapse || f.collapser;

			/* One op in ten is a copy: a long run without one is not fsx's. */
			ksft_test_result(bad < 0 && (!busy || (f.collapsed && made > 0)) &&
					 !f.collapser_err && (ops < 1000 || f.copies),
					 "fsx: seed %llu, %ld ops (%ld copy_file_range) on a %llu-byte file, ramfs -o '%s'%s%s%s, %ld of %ld collapses returned 0, thp_collapse_alloc %+ld, errno %d (%.1fs, FileHugePages %ld kB at end)\n",
					 (unsigned long long)(first + i), ops, f.copies, (unsigned long long)f.max,
					 mopts, f.pollute ? ", post-EOF pollution" : "",
					 f.collapse ? ", MADV_COLLAPSE ops" : "",
					 f.collapser ? ", a collapser thread" : "", f.collapsed,
					 f.collapses, made, f.collapser_err, now_s() - t0,
					 meminfo_kb("FileHugePages"));
		}
		if (per_seed == 2)
			result_huge(mopts, first + i);
		probe_case_end(start, per_seed, "fsx seed");
	}
	ksft_finished();
}
