// mmap faults: touch every 4 KiB of a written (read) or sparse (write)
// file; or work through an existing, faulted-in mapping: random 4 KiB reads
// (random), sequential reads (reread), sequential or random 4 KiB writes
// over older data (rewrite, randwrite), IOzone's mmap-mode set.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char *map;
static int fd = -1;
static uint64_t *order;
static volatile unsigned long sink;

/* Modes timed on a mapping whose faults were taken in prepare(). */
static int prefaulted(const struct opts *o)
{
	return mode_is(o, "random") || mode_is(o, "reread") ||
	       mode_is(o, "rewrite") || mode_is(o, "randwrite");
}

static int overwrites(const struct opts *o)
{
	return mode_is(o, "rewrite") || mode_is(o, "randwrite");
}

/* The data rewrite and randwrite find in the file before they write. */
static uint64_t old_seed(const struct opts *o)
{
	return o->seed + 1000;
}

static int prepare(const struct opts *o)
{
	uint64_t off;

	fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (mode_is(o, "write") ? ftruncate(fd, o->size) :
	    fill_file(o, fd, overwrites(o) ? old_seed(o) : o->seed))
		return -1;
	map = mmap(NULL, o->size, PROT_READ | PROT_WRITE,
		   o->private_map ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || apply_madvise(o, map, o->size))
		return -1;
	if (prefaulted(o))
		for (off = 0; off < o->size; off += PAGE)
			sink += map[off];
	if (mode_is(o, "randwrite")) {
		/* Every page once, in a seeded random order. */
		struct opts ro = *o;

		ro.random = 1;
		order = block_order(&ro, o->size / PAGE, 0);
	}
	return 0;
}

static int run(const struct opts *o, struct result *r)
{
	uint64_t off, i, n = o->size / PAGE, st = o->seed;
	/* Decided once: the loop below is what is timed. */
	int random = mode_is(o, "random");
	int reads = mode_is(o, "read") || mode_is(o, "reread");
	int pass;

	for (pass = 0; pass < o->passes; pass++) {
		for (i = 0; i < n; i++) {
			if (random) {
				sink += map[(rng_next(&st) % n) * PAGE + (i & 63) * 8];
				continue;
			}
			off = (order ? order[i] : i) * PAGE;
			if (reads)
				sink += map[off];
			/* Verifiable data costs a fill; a bare touch does not. */
			else if (o->verify)
				pattern_fill(map + off, PAGE, off, o->seed);
			else
				map[off] = 1;
		}
		r->bytes += o->size;
	}
	return 0;
}

static int verify(const struct opts *o, struct result *r)
{
	unsigned char *buf = malloc(MiB);
	uint64_t off;

	/* --corrupt flipped a byte in the file: both checks below see it. */
	r->bad = pattern_check(map, o->size, 0, o->seed);
	if (r->bad >= 0)
		goto out;
	/*
	 * Through read(2): a shared mapping's writes are in the file; a
	 * private one's are not (the file keeps its older data or zeros).
	 */
	for (off = 0; off < o->size && r->bad < 0; off += MiB) {
		long long z;

		if (pread(fd, buf, MiB, off) != (ssize_t)MiB) {
			free(buf);
			return fail(r, "short read at %llu", (unsigned long long)off);
		}
		if (!o->private_map)
			r->bad = pattern_check(buf, MiB, off, o->seed);
		else if (overwrites(o))
			r->bad = pattern_check(buf, MiB, off, old_seed(o));
		else if (!mode_is(o, "write"))
			r->bad = pattern_check(buf, MiB, off, o->seed);
		else if ((z = zero_check(buf, MiB)) >= 0)
			r->bad = off + z;
	}
out:
	free(buf);
	return r->bad >= 0 ? -1 : 0;
}

static void cleanup(const struct opts *o)
{
	if (map && map != MAP_FAILED)
		munmap(map, o->size);
	free(order);
	if (fd >= 0)
		close(fd);
	unlink(o->path);
}

const struct workload workload = {
	.name = "fault", .description = "mmap a file of --size and touch every 4 KiB (--private, --madvise)",
	.modes = "write read random reread rewrite randwrite", .size_multiple_of_bs = 0,
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
