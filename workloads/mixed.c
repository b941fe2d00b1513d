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
	int id, pass;
	unsigned char *buf;	/* --bs bytes, allocated in prepare() */
	uint64_t bytes;
	long long bad;
};

static struct worker *w;
static pthread_t *t;
static int nw;

/*
 * -1 if each byte of buf is the pattern or zero, else the bad offset.  A
 * check_fn (@arg: the opts) for verify_with(); the readers call it directly.
 */
static long long pattern_or_zero(const void *arg, const unsigned char *buf,
				 size_t len, uint64_t off)
{
	const struct opts *o = arg;
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
	struct worker *me = arg;
	const struct opts *o = me->o;
	uint64_t st = (o->seed * 7919 + me->id) ^ ((uint64_t)me->pass << 32);
	uint64_t nblk = o->size / o->bs, i;

	for (i = 0; i < nblk && me->bad < 0; i++) {
		uint64_t off = (rng_next(&st) % nblk) * o->bs;
		ssize_t got;

		if (me->id == 0) {		/* the truncater */
			if (i % 8 == 0 && ftruncate(wl.fd, off + rng_next(&st) % o->bs))
				me->bad = off;
			else if (i % 8 == 4 && ftruncate(wl.fd, o->size))
				me->bad = off;
			continue;
		}
		if (me->id % 2) {		/* writers */
			pattern_fill(me->buf, o->bs, off, o->seed);
			if (pwrite(wl.fd, me->buf, o->bs, off) != (ssize_t)o->bs)
				me->bad = off;
		} else {			/* readers: short reads past EOF are fine */
			got = pread(wl.fd, me->buf, o->bs, off);
			if (got < 0)
				me->bad = off;
			else
				me->bad = pattern_or_zero(o, me->buf, got, off);
		}
		me->bytes += o->bs;
	}
	return NULL;
}

/* The file, the threads' slots and buffers: nothing of it is timed. */
static int prepare(const struct opts *o)
{
	int i;

	nw = o->threads < 3 ? 3 : o->threads;
	w = calloc(nw, sizeof(*w));
	t = calloc(nw, sizeof(*t));
	if (!w || !t)
		return -1;
	for (i = 0; i < nw; i++)
		if (!(w[i].buf = malloc(o->bs)))
			return -1;
	return open_file(o, O_RDWR | O_CREAT | O_TRUNC);
}

static int run(const struct opts *o, int pass, struct result *r)
{
	int i, started, err = 0;

	for (started = 0; started < nw && !err; started++) {
		struct worker *me = &w[started];

		*me = (struct worker){ o, started, pass, me->buf, 0, -1 };
		err = pthread_create(&t[started], NULL, work, me);
	}
	if (err)
		started--;
	for (i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		r->bytes += w[i].bytes;
		if (w[i].bad >= 0 && r->bad < 0)
			r->bad = w[i].bad;
	}
	if (err)
		return fail(r, "pthread_create: %s", strerror(err));
	return r->bad >= 0 ? fail(r, "thread saw bad data or failed at %lld", r->bad) : 0;
}

static int verify(const struct opts *o, struct result *r)
{
	return verify_with(o, r, pattern_or_zero, o, 1);
}

static void cleanup(const struct opts *o)
{
	int i;

	(void)o;
	for (i = 0; w && i < nw; i++)
		free(w[i].buf);
	free(w);
	free(t);
}

const struct workload workload = {
	.name = "mixed", .description = "readers, writers and a truncater on one file",
	.modes = "mixed", .size_multiple_of_bs = 1,
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
