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

static int run(const struct opts *o, struct result *r)
{
	uint64_t off;
	int pass;

	for (pass = 0; pass < o->passes; pass++)
		for (off = 0; off < o->size; off += o->bs) {
			memcpy(dst + off, src, o->bs);
			r->bytes += o->bs;
		}
	__asm__ volatile("" : : "r"(dst) : "memory");
	return 0;
}

static int verify(const struct opts *o, struct result *r)
{
	uint64_t off;

	if (o->corrupt)
		dst[o->size / 2 + 1] ^= 0x40;
	for (off = 0; off < o->size; off += o->bs)
		if (memcmp(dst + off, src, o->bs)) {
			r->bad = off;
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
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
