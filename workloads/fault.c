// mmap faults: touch every 4 KiB of a written (read) or sparse (write)
// file, or random 4 KiB reads through an existing mapping (random).
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
static volatile unsigned long sink;

static int prepare(const struct opts *o)
{
	uint64_t off;

	fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (mode_is(o, "write") ? ftruncate(fd, o->size) : fill_file(o, fd, o->seed))
		return -1;
	map = mmap(NULL, o->size, PROT_READ | PROT_WRITE,
		   o->private_map ? MAP_PRIVATE : MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || apply_madvise(o, map, o->size))
		return -1;
	if (mode_is(o, "random"))	/* only the accesses are timed */
		for (off = 0; off < o->size; off += PAGE)
			sink += map[off];
	return 0;
}

static int run(const struct opts *o, struct result *r)
{
	uint64_t off, i, n = o->size / PAGE, st = o->seed;
	int pass;

	for (pass = 0; pass < o->passes; pass++) {
		if (mode_is(o, "random")) {
			for (i = 0; i < n; i++)
				sink += map[(rng_next(&st) % n) * PAGE + (i & 63) * 8];
		} else if (mode_is(o, "read")) {
			for (off = 0; off < o->size; off += PAGE)
				sink += map[off];
		} else {
			for (off = 0; off < o->size; off += PAGE) {
				/* Verifiable data costs a fill; a bare touch does not. */
				if (o->verify)
					pattern_fill(map + off, PAGE, off, o->seed);
				else
					map[off] = 1;
			}
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
	 * private one's are not (the sparse file still reads zeros).
	 */
	for (off = 0; off < o->size && r->bad < 0; off += MiB) {
		long long z;

		if (pread(fd, buf, MiB, off) != (ssize_t)MiB) {
			free(buf);
			return fail(r, "short read at %llu", (unsigned long long)off);
		}
		if (!o->private_map || !mode_is(o, "write"))
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
	if (fd >= 0)
		close(fd);
	unlink(o->path);
}

const struct workload workload = {
	.name = "fault", .description = "mmap a file of --size and touch every 4 KiB (--private, --madvise)",
	.modes = "write read random", .size_multiple_of_bs = 0,
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
