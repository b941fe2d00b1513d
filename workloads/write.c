// Sequential or random write(2) of a new file; pwrite or O_APPEND variants.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Decided once in prepare(): the loop in run() is what is timed. */
static int append, at_pos;	/* O_APPEND; write(2) at the file position */

static int prepare(const struct opts *o)
{
	append = mode_is(o, "append");
	at_pos = append || (mode_is(o, "write") && !o->random);
	return 0;
}

/* A new file each pass: O_TRUNC frees the last pass's; neither is timed. */
static int setup(const struct opts *o, int pass)
{
	if (open_file(o, O_WRONLY | O_CREAT | O_TRUNC | (append ? O_APPEND : 0)))
		return -1;
	pattern_fill(wl.buf, o->bs, 0, o->seed);
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
		/* O_APPEND writes land at EOF: keep them in file order. */
		uint64_t off = (append ? i : wl.order[i]) * o->bs;
		ssize_t got;

		/* Unverified runs time the kernel, not the pattern. */
		if (o->verify)
			pattern_fill(wl.buf, o->bs, off, o->seed);
		if (at_pos)
			got = write(wl.fd, wl.buf, o->bs);
		else
			got = pwrite(wl.fd, wl.buf, o->bs, off);
		if (got != (ssize_t)o->bs)
			return fail(r, "write at %llu: %s", (unsigned long long)off, strerror(errno));
		r->bytes += o->bs;
	}
	return 0;
}

const struct workload workload = {
	.name = "write", .description = "write(2) a new file of --size in --bs blocks",
	.modes = "write pwrite append", .size_multiple_of_bs = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify_file,
};
