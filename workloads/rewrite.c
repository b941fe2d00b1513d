// Overwrite an existing file in place, pass after pass (new data each pass).
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static uint64_t seed;		/* the data of the current pass */

static int prepare(const struct opts *o)
{
	if (create_file(o, 0, o->seed + 1000))
		return -1;
	return open_file(o, O_WRONLY);
}

static int setup(const struct opts *o, int pass)
{
	/* The last pass writes the data verify() expects. */
	seed = pass == o->passes - 1 ? o->seed : o->seed + 2000 + pass;
	pattern_fill(wl.buf, o->bs, 0, seed);
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

		/* Unverified runs time the kernel, not the pattern. */
		if (o->verify)
			pattern_fill(wl.buf, o->bs, off, seed);
		if (pwrite(wl.fd, wl.buf, o->bs, off) != (ssize_t)o->bs)
			return fail(r, "pwrite at %llu: %s", (unsigned long long)off, strerror(errno));
		r->bytes += o->bs;
	}
	return 0;
}

const struct workload workload = {
	.name = "rewrite", .description = "overwrite a file of --size in place, --passes times",
	.modes = "rewrite", .size_multiple_of_bs = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify_file,
};
