// The same bytes copied in user memory: the limit for any data mover.
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static unsigned char *src, *dst;

static int prepare(const struct opts *o)
{
	src = malloc(o->bs);
	dst = malloc(o->size);
	if (!src || !dst)
		return -1;
	pattern_fill(src, o->bs, 0, o->seed);
	memset(dst, 1, o->size);	/* fault it in: copy only is timed */
	return 0;
}

static int run(const struct opts *o, int pass, struct result *r)
{
	uint64_t off;

	(void)pass;
	for (off = 0; off < o->size; off += o->bs) {
		memcpy(dst + off, src, o->bs);
		r->bytes += o->bs;
	}
	__asm__ volatile("" : : "r"(dst) : "memory");
	return 0;
}

/* No file here: the byte flipped is in the copy. */
static long long corrupt(const struct opts *o, struct result *r)
{
	uint64_t at = o->size / 2 + 1;

	(void)r;
	dst[at] ^= 0x40;
	return at;
}

/* Every block holds src: the pattern of offsets 0..bs-1. */
static int verify(const struct opts *o, struct result *r)
{
	uint64_t off;
	long long bad;

	for (off = 0; off < o->size; off += o->bs)
		if ((bad = pattern_check(dst + off, o->bs, 0, o->seed)) >= 0) {
			r->bad = off + bad;
			return -1;
		}
	return 0;
}

static void cleanup(const struct opts *o)
{
	(void)o;
	free(src);
	free(dst);
}

const struct workload workload = {
	.name = "memcpy", .description = "memcpy --size bytes in --bs blocks in user memory",
	.modes = "memcpy", .size_multiple_of_bs = 1,
	.prepare = prepare, .run = run, .verify = verify, .corrupt = corrupt,
	.cleanup = cleanup,
};
