// mmap faults: touch every 4 KiB of a written (read) or sparse (write)
// file; or work through an existing, faulted-in mapping: random 4 KiB reads
// (random), sequential reads (reread), sequential or random 4 KiB writes
// over older data (rewrite, randwrite), IOzone's mmap-mode set.  Each step
// is one access to one page: the rate is in pages/s (unit "pages").
#define _GNU_SOURCE
#include "harness.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char *map = MAP_FAILED;
static volatile unsigned long sink;
static uint64_t rng;		/* random mode: one stream across passes */
/* The mode, decided once in prepare(): run()'s loop is what is timed. */
static int random_reads, reads, overwrites, sparse;

/* The data rewrite and randwrite find in the file before they write. */
static uint64_t old_seed(const struct opts *o)
{
	return o->seed + 1000;
}

static int prepare(const struct opts *o)
{
	/* Modes timed on a mapping whose faults were taken here. */
	int prefaulted;
	uint64_t off;

	random_reads = mode_is(o, "random");
	reads = mode_is(o, "read") || mode_is(o, "reread");
	overwrites = mode_is(o, "rewrite") || mode_is(o, "randwrite");
	sparse = mode_is(o, "write");
	prefaulted = random_reads || mode_is(o, "reread") || overwrites;
	rng = o->seed;
	if (create_file(o, sparse, overwrites ? old_seed(o) : o->seed) ||
	    open_file(o, O_RDWR))
		return -1;
	map = mmap(NULL, o->size, PROT_READ | PROT_WRITE,
		   o->private_map ? MAP_PRIVATE : MAP_SHARED, wl.fd, 0);
	if (map == MAP_FAILED || apply_madvise(o, map, o->size))
		return -1;
	if (prefaulted)
		for (off = 0; off < o->size; off += PAGE)
			sink += map[off];
	if (mode_is(o, "randwrite")) {
		/* Every page once, in a seeded random order. */
		struct opts ro = *o;

		ro.random = 1;
		return block_order(&ro, &wl.order, o->size / PAGE, 0);
	}
	return 0;
}

static int run(const struct opts *o, int pass, struct result *r)
{
	uint64_t off, i, n = o->size / PAGE;

	(void)pass;
	for (i = 0; i < n; i++) {
		if (random_reads) {
			sink += map[(rng_next(&rng) % n) * PAGE + (i & 63) * 8];
			continue;
		}
		off = (wl.order ? wl.order[i] : i) * PAGE;
		if (reads)
			sink += map[off];
		/* Verifiable data costs a fill; a bare touch does not. */
		else if (o->verify)
			pattern_fill(map + off, PAGE, off, o->seed);
		else
			map[off] = 1;
	}
	r->bytes += o->size;
	r->pages += n;
	return 0;
}

/*
 * Through read(2) (a check_fn, @arg: the opts): a shared mapping's writes
 * are in the file; a private one's are not (the file keeps its older data
 * or zeros).
 */
static long long check_read(const void *arg, const unsigned char *buf,
			    size_t len, uint64_t off)
{
	const struct opts *o = arg;

	if (!o->private_map)
		return pattern_check(buf, len, off, o->seed);
	if (overwrites)
		return pattern_check(buf, len, off, old_seed(o));
	if (!sparse)
		return pattern_check(buf, len, off, o->seed);
	return check_zero(NULL, buf, len, off);
}

static int verify(const struct opts *o, struct result *r)
{
	/*
	 * A byte --corrupt flipped in the file shows here unless a private
	 * mapping has its own copy of that page; the read(2) check sees it.
	 */
	r->bad = pattern_check(map, o->size, 0, o->seed);
	if (r->bad >= 0)
		return -1;
	return verify_with(o, r, check_read, o, 0);
}

static void cleanup(const struct opts *o)
{
	if (map != MAP_FAILED)
		munmap(map, o->size);
}

const struct workload workload = {
	.name = "fault", .description = "mmap a file of --size and touch every 4 KiB (--private, --madvise)",
	.modes = "write read random reread rewrite randwrite", .unit = "pages",
	.size_multiple_of_page = 1,
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
