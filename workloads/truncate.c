// Repeated shrink/extend, punch-hole, or unlink of a written file.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Holes punched: [k * 4M + 1M + 123, + 2M + 5) for every k that fits. */
#define PUNCH_STEP	(4 * MiB)
#define PUNCH_AT	(MiB + 123)
#define PUNCH_LEN	(2 * MiB + 5)

static int prepare(const struct opts *o)
{
	int fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644), ret;

	if (fd < 0)
		return -1;
	ret = fill_file(o, fd, o->seed);
	close(fd);
	return ret;
}

/* An unaligned point inside a 2M folio, so partial truncation is hit. */
static off_t shrink_to(const struct opts *o)
{
	return o->size / 2 - 4097;
}

static int run(const struct opts *o, struct result *r)
{
	int fd, pass;
	uint64_t off;

	if (mode_is(o, "unlink")) {
		r->bytes = o->size;
		return unlink(o->path) ? fail(r, "unlink: %s", strerror(errno)) : 0;
	}
	fd = open(o->path, O_RDWR);
	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (pass = 0; pass < o->passes; pass++) {
		if (mode_is(o, "shrink")) {
			if (ftruncate(fd, shrink_to(o)) || ftruncate(fd, o->size))
				return fail(r, "ftruncate: %s", strerror(errno));
			r->bytes += o->size - shrink_to(o);
			continue;
		}
		for (off = 0; off + PUNCH_AT + PUNCH_LEN <= o->size; off += PUNCH_STEP) {
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      off + PUNCH_AT, PUNCH_LEN))
				return fail(r, "punch at %llu: %s", (unsigned long long)(off + PUNCH_AT),
					    strerror(errno));
			r->bytes += PUNCH_LEN;
		}
	}
	close(fd);
	return 0;
}

/* Check [from, to) of buf (file offset base) as pattern or as zeros. */
static long long check_part(const unsigned char *buf, uint64_t base, uint64_t from,
			    uint64_t to, int zero, uint64_t seed)
{
	long long z;

	if (from >= to)
		return -1;
	if (!zero)
		return pattern_check(buf + (from - base), to - from, from, seed);
	z = zero_check(buf + (from - base), to - from);
	return z < 0 ? -1 : (long long)from + z;
}

static int in_hole(const struct opts *o, uint64_t off, uint64_t *end)
{
	uint64_t k = off / PUNCH_STEP * PUNCH_STEP, at = k + PUNCH_AT;

	if (mode_is(o, "shrink")) {
		*end = off < (uint64_t)shrink_to(o) ? (uint64_t)shrink_to(o) : o->size;
		return off >= (uint64_t)shrink_to(o);
	}
	if (at + PUNCH_LEN > o->size) {		/* past the last hole */
		*end = o->size;
		return 0;
	}
	if (off < at) {
		*end = at;
		return 0;
	}
	*end = at + PUNCH_LEN < k + PUNCH_STEP ? at + PUNCH_LEN : k + PUNCH_STEP;
	if (off >= at + PUNCH_LEN) {
		*end = k + PUNCH_STEP;
		return 0;
	}
	return 1;
}

static int verify(const struct opts *o, struct result *r)
{
	unsigned char *buf = malloc(MiB);
	uint64_t base, off, end;
	int fd;

	if (mode_is(o, "unlink"))
		return 0;
	fd = open(o->path, O_RDONLY);
	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (base = 0; base < o->size && r->bad < 0; base += MiB) {
		uint64_t lim = o->size - base < MiB ? o->size : base + MiB;

		if (pread(fd, buf, lim - base, base) != (ssize_t)(lim - base))
			return fail(r, "short read at %llu", (unsigned long long)base);
		for (off = base; off < lim && r->bad < 0; off = end) {
			int zero = in_hole(o, off, &end);

			if (end > lim)
				end = lim;
			r->bad = check_part(buf, base, off, end, zero, o->seed);
		}
	}
	close(fd);
	free(buf);
	return r->bad >= 0 ? -1 : 0;
}

const struct workload workload = {
	.name = "truncate", .description = "shrink and re-extend, punch holes in, or unlink a written file",
	.modes = "shrink punch unlink", .size_multiple_of_bs = 1,
	.prepare = prepare, .run = run, .verify = verify,
};
