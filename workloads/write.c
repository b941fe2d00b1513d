// Sequential or random write(2) of a new file; pwrite or O_APPEND variants.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const struct opts *o, struct result *r)
{
	uint64_t n = o->size / o->bs, i, *order;
	unsigned char *buf = malloc(o->bs);

	pattern_fill(buf, o->bs, 0, o->seed);
	int pass;

	for (pass = 0; pass < o->passes; pass++) {
		int flags = O_WRONLY | O_CREAT | O_TRUNC | (mode_is(o, "append") ? O_APPEND : 0);
		int fd = open(o->path, flags, 0644);

		if (fd < 0)
			return fail(r, "open: %s", strerror(errno));
		order = block_order(o, n, pass);
		for (i = 0; i < n; i++) {
			/* O_APPEND writes land at EOF: keep them in file order. */
			uint64_t off = (mode_is(o, "append") ? i : order[i]) * o->bs;
			ssize_t got;

			/* Unverified runs time the kernel, not the pattern. */
			if (o->verify)
				pattern_fill(buf, o->bs, off, o->seed);
			if (mode_is(o, "write") && !o->random)
				got = write(fd, buf, o->bs);
			else if (mode_is(o, "append"))
				got = write(fd, buf, o->bs);
			else
				got = pwrite(fd, buf, o->bs, off);
			if (got != (ssize_t)o->bs)
				return fail(r, "write at %llu: %s", (unsigned long long)off, strerror(errno));
			r->bytes += o->bs;
		}
		free(order);
		close(fd);
	}
	free(buf);
	return 0;
}

const struct workload workload = {
	.name = "write", .description = "write(2) a new file of --size in --bs blocks",
	.modes = "write pwrite append", .size_multiple_of_bs = 1,
	.run = run, .verify = verify_file,
};
