// Sequential or random read(2)/pread of a written file, or of a sparse one.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Decided once in prepare(): the loop in run() is what is timed. */
static int hole, at_pos;	/* a sparse file; read(2) at the file position */

static int prepare(const struct opts *o)
{
	hole = mode_is(o, "hole");
	at_pos = mode_is(o, "read") && !o->random;
	if (create_file(o, hole, o->seed))
		return -1;
	return open_file(o, O_RDONLY);
}

static int setup(const struct opts *o, int pass)
{
	if (lseek(wl.fd, 0, SEEK_SET))
		return -1;
	return block_order(o, &wl.order, o->size / o->bs, pass);
}

/*
 * The timed loop.  read.c, write.c and rewrite.c each spell out their block
 * loop on purpose: a shared one would put a call through a pointer into
 * every block of what is measured.
 */
static int run(const struct opts *o, int pass, struct result *r)
{
	uint64_t n = o->size / o->bs, i;

	(void)pass;
	for (i = 0; i < n; i++) {
		uint64_t off = wl.order[i] * o->bs;
		ssize_t got = at_pos ? read(wl.fd, wl.buf, o->bs) :
				       pread(wl.fd, wl.buf, o->bs, off);

		if (got != (ssize_t)o->bs)
			return fail(r, "read at %llu: %s", (unsigned long long)off, strerror(errno));
		r->bytes += o->bs;
	}
	return 0;
}

static int verify(const struct opts *o, struct result *r)
{
	if (hole)
		return verify_with(o, r, check_zero, NULL, 0);
	return verify_with(o, r, check_pattern, &o->seed, 0);
}

const struct workload workload = {
	.name = "read", .description = "read(2) a file of --size in --bs blocks (mode hole: a sparse file)",
	.modes = "read pread hole", .size_multiple_of_bs = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify,
};
