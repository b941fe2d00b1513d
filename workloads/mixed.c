// Readers, writers and a truncater on one file across --threads threads.
// Every byte is always either the pattern or zero (truncated away).
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct worker {
	const struct opts *o;
	int id, fd;
	uint64_t bytes;
	long long bad;
};

/* -1 if each byte of buf is the pattern or zero, else the bad offset. */
static long long pattern_or_zero(const struct opts *o, const unsigned char *buf,
				 size_t len, uint64_t off)
{
	unsigned char want[PAGE];
	size_t i, j;

	for (i = 0; i < len; i += PAGE) {
		size_t n = len - i < PAGE ? len - i : PAGE;

		pattern_fill(want, n, off + i, o->seed);
		if (!memcmp(buf + i, want, n))
			continue;
		for (j = 0; j < n; j++)
			if (buf[i + j] && buf[i + j] != want[j])
				return off + i + j;
	}
	return -1;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct opts *o = w->o;
	uint64_t st = o->seed * 7919 + w->id, nblk = o->size / o->bs, i;
	uint64_t ops = nblk * o->passes;
	unsigned char *buf = malloc(o->bs);

	for (i = 0; i < ops && w->bad < 0; i++) {
		uint64_t off = (rng_next(&st) % nblk) * o->bs;
		ssize_t got;

		if (w->id == 0) {		/* the truncater */
			if (i % 8 == 0 && ftruncate(w->fd, off + rng_next(&st) % o->bs))
				w->bad = off;
			else if (i % 8 == 4 && ftruncate(w->fd, o->size))
				w->bad = off;
			continue;
		}
		if (w->id % 2) {		/* writers */
			pattern_fill(buf, o->bs, off, o->seed);
			if (pwrite(w->fd, buf, o->bs, off) != (ssize_t)o->bs)
				w->bad = off;
		} else {			/* readers: short reads past EOF are fine */
			got = pread(w->fd, buf, o->bs, off);
			if (got < 0)
				w->bad = off;
			else
				w->bad = pattern_or_zero(o, buf, got, off);
		}
		w->bytes += o->bs;
	}
	free(buf);
	return NULL;
}

static int run(const struct opts *o, struct result *r)
{
	int n = o->threads < 3 ? 3 : o->threads, i;
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t *t = calloc(n, sizeof(*t));
	int fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		w[i] = (struct worker){ o, i, fd, 0, -1 };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		r->bytes += w[i].bytes;
		if (w[i].bad >= 0 && r->bad < 0)
			r->bad = w[i].bad;
	}
	close(fd);
	free(w);
	free(t);
	return r->bad >= 0 ? fail(r, "thread saw bad data or failed at %lld", r->bad) : 0;
}

static int verify(const struct opts *o, struct result *r)
{
	unsigned char *buf = malloc(MiB);
	int fd = open(o->path, O_RDONLY);
	uint64_t off;
	ssize_t got;

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	for (off = 0; off < o->size && r->bad < 0; off += MiB) {
		got = pread(fd, buf, MiB, off);
		if (got <= 0)
			break;
		r->bad = pattern_or_zero(o, buf, got, off);
	}
	close(fd);
	free(buf);
	return r->bad >= 0 ? -1 : 0;
}

const struct workload workload = {
	.name = "mixed", .description = "readers, writers and a truncater on one file",
	.modes = "mixed", .size_multiple_of_bs = 1,
	.run = run, .verify = verify,
};
