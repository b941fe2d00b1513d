// Sequential or random read(2)/pread of a written file, or of a sparse one.
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
	ret = mode_is(o, "hole") ? ftruncate(fd, o->size) : fill_file(o, fd, o->seed);
	close(fd);
	return ret;
}

static int run(const struct opts *o, struct result *r)
{
	uint64_t n = o->size / o->bs, i, *order;
	unsigned char *buf = malloc(o->bs);
	int fd = open(o->path, O_RDONLY), pass;

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (pass = 0; pass < o->passes; pass++) {
		order = block_order(o, n, pass);
		for (i = 0; i < n; i++) {
			uint64_t off = order[i] * o->bs;
			ssize_t got = (!o->random && mode_is(o, "read")) ? read(fd, buf, o->bs) :
				      pread(fd, buf, o->bs, off);

			if (got != (ssize_t)o->bs)
				return fail(r, "read at %llu: %s", (unsigned long long)off, strerror(errno));
			r->bytes += o->bs;
		}
		free(order);
		lseek(fd, 0, SEEK_SET);
	}
	close(fd);
	free(buf);
	return 0;
}

static int verify(const struct opts *o, struct result *r)
{
	unsigned char *buf = malloc(MiB);
	int fd = open(o->path, O_RDONLY);
	uint64_t off;

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (off = 0; off < o->size && r->bad < 0; off += MiB) {
		size_t len = o->size - off < MiB ? o->size - off : MiB;
		long long z;

		if (pread(fd, buf, len, off) != (ssize_t)len)
			return fail(r, "short read at %llu", (unsigned long long)off);
		if (!mode_is(o, "hole"))
			r->bad = pattern_check(buf, len, off, o->seed);
		else if ((z = zero_check(buf, len)) >= 0)
			r->bad = off + z;
	}
	close(fd);
	free(buf);
	return r->bad >= 0 ? -1 : 0;
}

const struct workload workload = {
	.name = "read", .description = "read(2) a file of --size in --bs blocks (mode hole: a sparse file)",
	.modes = "read pread hole", .size_multiple_of_bs = 1,
	.prepare = prepare, .run = run, .verify = verify,
};
