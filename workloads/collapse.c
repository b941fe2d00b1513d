// MADV_COLLAPSE of a file written with small folios (on a huge=never
// mount: collapse overrides the policy), through a PMD-aligned mapping,
// timed: the rate is the file's bytes per second of the one madvise(2)
// call, so seconds per GiB are 1024 / MiB/s.  The mapping is faulted in
// first, as a user's would be, so the time includes retracting its page
// tables.  The file must hold PMD-sized folios only afterwards (with
// --orders the JSON shows them, and make test's verdict checks it).
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char *map = MAP_FAILED;
static volatile unsigned long sink;

/*
 * A PMD-aligned shared mapping of the file: ramfs aligns its mappings
 * itself, tmpfs huge=never does not, and collapse wants aligned ranges.
 */
static unsigned char *map_aligned(int fd, uint64_t size)
{
	unsigned char *area, *at;

	area = mmap(NULL, size + HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	at = (unsigned char *)(((uintptr_t)area + HPAGE - 1) & ~(uintptr_t)(HPAGE - 1));
	if (at > area)
		munmap(area, at - area);
	munmap(at + size, area + size + HPAGE - (at + size));
	return mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
}

static int prepare(const struct opts *o)
{
	uint64_t off;

	if (create_file(o, 0, o->seed) || open_file(o, O_RDWR))
		return -1;
	map = map_aligned(wl.fd, o->size);
	if (map == MAP_FAILED)
		return -1;
	for (off = 0; off < o->size; off += PAGE)
		sink += map[off];
	return 0;
}

static int run(const struct opts *o, int pass, struct result *r)
{
	if (pass)
		return fail(r, "one pass only: the file is collapsed after the first");
	if (madvise(map, o->size, MADV_COLLAPSE))
		return fail(r, "MADV_COLLAPSE: %s", strerror(errno));
	r->bytes += o->size;
	return 0;
}

/* The data, through the mapping (now PMD-mapped) and through read(2). */
static int verify(const struct opts *o, struct result *r)
{
	r->bad = pattern_check(map, o->size, 0, o->seed);
	if (r->bad >= 0)
		return -1;
	return verify_file(o, r);
}

static void cleanup(const struct opts *o)
{
	if (map != MAP_FAILED)
		munmap(map, o->size);
}

const struct workload workload = {
	.name = "collapse",
	.description = "MADV_COLLAPSE a faulted-in mapping of a file of --size written in --bs writes",
	.modes = "madvise", .size_multiple_of_page = 1,
	.prepare = prepare, .run = run, .verify = verify, .cleanup = cleanup,
};
