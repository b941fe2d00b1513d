// Repeated shrink/extend, punch-hole, or unlink of a written file.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Holes punched: [k * 4M + 1M + 123, + 2M + 5) for every k that fits. */
#define PUNCH_STEP	(4 * MiB)
#define PUNCH_AT	(MiB + 123)
#define PUNCH_LEN	(2 * MiB + 5)

static int unlinks, shrinks;	/* the mode, decided once */

/* unlink frees the file only if no descriptor holds it: keep none then. */
static int prepare(const struct opts *o)
{
	unlinks = mode_is(o, "unlink");
	shrinks = mode_is(o, "shrink");
	if (create_file(o, 0, o->seed))
		return -1;
	return unlinks ? 0 : open_file(o, O_RDWR);
}

/* Each pass of unlink needs a file to unlink: written here, untimed. */
static int setup(const struct opts *o, int pass)
{
	return unlinks && pass ? create_file(o, 0, o->seed) : 0;
}

/* An unaligned point inside a 2M folio, so partial truncation is hit. */
static off_t shrink_to(const struct opts *o)
{
	return o->size / 2 - 4097;
}

static int run(const struct opts *o, int pass, struct result *r)
{
	uint64_t off;

	(void)pass;
	if (unlinks) {
		r->bytes += o->size;
		return unlink(o->path) ? fail(r, "unlink: %s", strerror(errno)) : 0;
	}
	if (shrinks) {
		if (ftruncate(wl.fd, shrink_to(o)) || ftruncate(wl.fd, o->size))
			return fail(r, "ftruncate: %s", strerror(errno));
		r->bytes += o->size - shrink_to(o);
		return 0;
	}
	for (off = 0; off + PUNCH_AT + PUNCH_LEN <= o->size; off += PUNCH_STEP) {
		if (fallocate(wl.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off + PUNCH_AT, PUNCH_LEN))
			return fail(r, "punch at %llu: %s", (unsigned long long)(off + PUNCH_AT),
				    strerror(errno));
		r->bytes += PUNCH_LEN;
	}
	return 0;
}

/* Check [from, to) of buf (file offset base) as pattern or as zeros. */
static long long check_part(const unsigned char *buf, uint64_t base, uint64_t from,
			    uint64_t to, int zero, const uint64_t *seed)
{
	if (from >= to)
		return -1;
	if (zero)
		return check_zero(NULL, buf + (from - base), to - from, from);
	return check_pattern(seed, buf + (from - base), to - from, from);
}

static int in_hole(const struct opts *o, uint64_t off, uint64_t *end)
{
	uint64_t k = off / PUNCH_STEP * PUNCH_STEP, at = k + PUNCH_AT;

	if (shrinks) {
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

/* One piece read by verify_with() (@arg: the opts): pattern outside the holes, zeros inside. */
static long long check(const void *arg, const unsigned char *buf, size_t len,
		       uint64_t base)
{
	const struct opts *o = arg;
	uint64_t off, end, lim = base + len;
	long long bad = -1;

	for (off = base; off < lim && bad < 0; off = end) {
		int zero = in_hole(o, off, &end);

		if (end > lim)
			end = lim;
		bad = check_part(buf, base, off, end, zero, &o->seed);
	}
	return bad;
}

static int verify(const struct opts *o, struct result *r)
{
	return unlinks ? 0 : verify_with(o, r, check, o, 0);
}

const struct workload workload = {
	.name = "truncate", .description = "shrink and re-extend, punch holes in, or unlink a written file",
	.modes = "shrink punch unlink", .size_multiple_of_bs = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify,
};
