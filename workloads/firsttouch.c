// First stores into a sparse shared mapping, one per 4 KiB page in order:
// how long each waits with no hint (the fault allocates and zeroes) and
// after MADV_POPULATE_WRITE (no fault left).  Each store is timed alone and
// getrusage() says which ones faulted (minor or major); run() times the hint and the
// stores together.  The JSON adds the hint's own time and return value
// and the quantiles of the store times and of the faulting ones.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

static unsigned char *map = MAP_FAILED;
static uint32_t *store_ns;	/* every store of every pass */
static uint32_t *fault_ns;	/* the stores that took a fault */
static size_t nstores, nfaults;
static double hint_s;		/* all passes */
static long hint_ret;		/* of the last pass */
static int advice;		/* 0: no hint */

static uint64_t ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Faults taken so far: a fault retried after dropping mmap_lock counts as major. */
static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static int prepare(const struct opts *o)
{
	size_t n = o->size / PAGE * o->passes;

	advice = mode_is(o, "populate") ? MADV_POPULATE_WRITE : 0;
	store_ns = malloc(n * sizeof(*store_ns));
	fault_ns = malloc(n * sizeof(*fault_ns));
	if (!store_ns || !fault_ns) {
		errno = ENOMEM;
		return -1;
	}
	/* Fault the samples in now, or their faults would count as the stores'. */
	memset(store_ns, 0xff, n * sizeof(*store_ns));
	memset(fault_ns, 0xff, n * sizeof(*fault_ns));
	return create_file(o, 1, o->seed) || open_file(o, O_RDWR);
}

/* Each pass starts from a hole: the last pass's pages are truncated away. */
static int setup(const struct opts *o, int pass)
{
	(void)pass;
	if (map != MAP_FAILED)
		munmap(map, o->size);
	map = MAP_FAILED;
	if (ftruncate(wl.fd, 0) || ftruncate(wl.fd, o->size))
		return -1;
	map = mmap(NULL, o->size, PROT_READ | PROT_WRITE, MAP_SHARED, wl.fd, 0);
	if (map == MAP_FAILED)
		return -1;
	return apply_madvise(o, map, o->size);
}

static int run(const struct opts *o, int pass, struct result *r)
{
	uint64_t off, t0, t1;
	double h0 = now_s();
	long f0, f1;

	(void)pass;
	/* The raw call, its return as the kernel gave it (a long). */
	if (advice)
		hint_ret = syscall(SYS_madvise, map, o->size, advice);
	hint_s += now_s() - h0;
	if (hint_ret < 0)
		return fail(r, "madvise %d: %s", advice, strerror(errno));
	f0 = faults();
	for (off = 0; off < o->size; off += PAGE) {
		t0 = ns_now();
		map[off] = 1;
		t1 = ns_now();
		f1 = faults();
		store_ns[nstores++] = t1 - t0;
		if (f1 != f0)
			fault_ns[nfaults++] = t1 - t0;
		f0 = f1;
		if (o->verify)
			pattern_fill(map + off, PAGE, off, o->seed);
	}
	r->bytes += o->size;
	r->pages += o->size / PAGE;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* "name_p50_us":..,"name_p99_us":..,"name_p999_us":..,"name_max_us":.., or nulls. */
static void quantiles(FILE *f, const char *name, uint32_t *v, size_t n)
{
	static const struct { const char *q; double at; } qs[] = {
		{ "p50", 0.5 }, { "p99", 0.99 }, { "p999", 0.999 }, { "max", 1.0 },
	};
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u32);
	fprintf(f, ",\"%s\":%zu", name, n);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		if (!n)
			fprintf(f, ",\"%s_%s_us\":null", name, qs[i].q);
		else
			fprintf(f, ",\"%s_%s_us\":%.3f", name, qs[i].q,
				v[(size_t)(qs[i].at * (n - 1))] / 1000.0);
	}
}

static void json(FILE *f)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < nstores; i++)
		sum += store_ns[i];
	fprintf(f, ",\"hint\":\"%s\",\"hint_s\":%.6f,\"hint_ret\":%ld,\"stores_s\":%.6f",
		advice ? "populate" : "none",
		hint_s, hint_ret, sum / 1e9);
	quantiles(f, "stores", store_ns, nstores);
	quantiles(f, "faults", fault_ns, nfaults);
}

/* The samples stay: json() reads them after cleanup(), then the process ends. */
static void cleanup(const struct opts *o)
{
	if (map != MAP_FAILED)
		munmap(map, o->size);
}

const struct workload workload = {
	.name = "firsttouch",
	.description = "time the first store into each 4 KiB of a sparse shared mapping, "
		       "after no hint or MADV_POPULATE_WRITE",
	.modes = "none populate", .unit = "pages", .size_multiple_of_page = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify_file,
	.json = json, .cleanup = cleanup,
};
