// Overwrite an existing file in place, pass after pass (new data each pass).
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int prepare(const struct opts *o)
{
	int fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644), ret;

	if (fd < 0)
		return -1;
	ret = fill_file(o, fd, o->seed + 1000);
	close(fd);
	return ret;
}

static int run(const struct opts *o, struct result *r)
{
	uint64_t n = o->size / o->bs, i, *order;
	unsigned char *buf = malloc(o->bs);

	pattern_fill(buf, o->bs, 0, o->seed);
	int fd = open(o->path, O_WRONLY), pass;

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (pass = 0; pass < o->passes; pass++) {
		/* The last pass writes the data verify() expects. */
		uint64_t seed = pass == o->passes - 1 ? o->seed : o->seed + 2000 + pass;

		order = block_order(o, n, pass);
		for (i = 0; i < n; i++) {
			uint64_t off = order[i] * o->bs;

			/* Unverified runs time the kernel, not the pattern. */
			if (o->verify)
				pattern_fill(buf, o->bs, off, seed);
			if (pwrite(fd, buf, o->bs, off) != (ssize_t)o->bs)
				return fail(r, "pwrite at %llu: %s", (unsigned long long)off, strerror(errno));
			r->bytes += o->bs;
		}
		free(order);
	}
	close(fd);
	free(buf);
	return 0;
}

const struct workload workload = {
	.name = "rewrite", .description = "overwrite a file of --size in place, --passes times",
	.modes = "rewrite", .size_multiple_of_bs = 1,
	.prepare = prepare, .run = run, .verify = verify_file,
};
