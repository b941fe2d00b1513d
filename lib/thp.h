/*
 * The one C library of workloads/ and sysfs-probes/: kernel counters, the
 * checkable data pattern, files and sizes.  Each Makefile builds thp.c
 * with its own flags (the probes' may be -m32), so it depends on nothing
 * but libc.
 */
#ifndef THP_LIB_H
#define THP_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
/* KPF_* bits of /proc/kpageflags: the kernel's uapi header (linux-libc-dev). */
#include <linux/kernel-page-flags.h>

#define KiB	1024UL
#define MiB	(1024UL * KiB)
#define GiB	(1024UL * MiB)
#define HPAGE_ORDER	9	/* x86-64: a PMD maps 2 MiB */
#define HPAGE	(PAGE << HPAGE_ORDER)
#define PAGE	4096UL

/* Newer than some libc headers: the 6.1 values. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

/* Counters: a value, or -1 when the kernel does not have it. */
long meminfo_kb(const char *field);
long node_meminfo_kb(int node, const char *field);
long vmstat_get(const char *field);
long slab_bytes(const char *cache);
long free_2m_blocks(int node);
long pcp_pages(void);
void settle_slab(const char *cache);
void vm_stat_refresh(void);
/* @field "" reads a file that holds one number (memory.current). */
long cgroup_stat(const char *cgroup, const char *file, const char *field);
/* memory.stat's @field after a flush of the cgroup's counts. */
long memcg_stat_exact(const char *cgroup, const char *field);

/* A fixed set read at once, for deltas around a run. */
struct counters {
	long v[32];
	long minflt;
};
extern const char *const counter_names[];
extern const int nr_counters;
void counters_read(struct counters *c);
long counter_delta(const struct counters *a, const struct counters *b,
		   const char *name);
void counters_json(FILE *f, const char *key, const struct counters *a,
		   const struct counters *b);

/* The pattern: every byte depends on (seed, file offset). */
void pattern_fill(unsigned char *buf, size_t len, uint64_t off, uint64_t seed);
/* Returns -1 if buf matches, else the file offset of the first mismatch. */
long long pattern_check(const unsigned char *buf, size_t len, uint64_t off,
			uint64_t seed);
/* Returns -1 if all zero, else the offset in buf of the first non-zero. */
long long zero_check(const unsigned char *buf, size_t len);

/*
 * A check of @len bytes of @buf, read at file offset @off: -1, or the file
 * offset of its first bad byte.  @arg is what the caller passed along.
 */
typedef long long (*check_fn)(const void *arg, const unsigned char *buf,
			      size_t len, uint64_t off);
/* The two checks most callers want: @seed points to the pattern's seed. */
long long check_pattern(const void *seed, const unsigned char *buf,
			size_t len, uint64_t off);
long long check_zero(const void *unused, const unsigned char *buf,
		     size_t len, uint64_t off);

/*
 * The read-and-check loop, written once for workloads and probes alike:
 * [@off, @off + @len) of @fd is pread() in 1 MiB pieces, each handed to
 * @check.  Returns -1 if all of it passed, else the file offset of the
 * first bad byte, or of the first byte that a read failed on or did not
 * return; *@short_at (if not NULL) is then that offset too, else -1, so a
 * caller can tell the two apart.  errno says why a read stopped (ENODATA:
 * end of file; ENOMEM: no buffer).  With @to_eof a file that ends early
 * passes as far as it goes.  The buffer is filled with READ_POISON
 * before each read.  It calls @check through a pointer: verify
 * steps and probes only, never a workload's timed loop.
 */
/* What read buffers hold before a read: neither zero nor mostly pattern. */
#define READ_POISON	0xa5
long long read_check(int fd, uint64_t off, uint64_t len, check_fn check,
		     const void *arg, int to_eof, long long *short_at);
/* read_check() for the pattern of @seed, or for zeros; a bad read is bad. */
long long fd_check_pattern(int fd, uint64_t off, uint64_t len, uint64_t seed);
long long fd_check_zero(int fd, uint64_t off, uint64_t len);

/*
 * The fill loop, likewise once: @len pattern bytes of @seed written into
 * @fd from offset 0 with @bs-sized pwrite(2)s.  0, or -1.
 */
int fill_fd(int fd, uint64_t len, size_t bs, uint64_t seed);
/* fill_fd() on @path: into a new file (@flags O_TRUNC), or over what it has (0). */
int fill_file(const char *path, int flags, uint64_t len, size_t bs, uint64_t seed);
/* A new file of @len pattern bytes: fill_file(..., O_TRUNC, ...). */
int write_file(const char *path, uint64_t len, size_t bs, uint64_t seed);
/* Read it back: -1 if it holds the pattern, else the bad offset (0: no file). */
long long check_file(const char *path, uint64_t len, uint64_t seed);

/*
 * Pages through /proc/self/pagemap and /proc/kpageflags, read only here.
 * PFNs are shown to root only; each call opens the files afresh, because
 * pagemap is bound to the mm of whoever opened it (a descriptor kept
 * across fork() would read the parent's page tables).
 */
/* The PFN of the page mapped at @addr, or -1 if not mapped (or not root). */
long long page_pfn(const void *addr);
/*
 * /proc/kpageflags of the page mapped at @addr (bits KPF_*), or -1.  A
 * folio's dirty bit is on its head page only.
 */
long long page_flags(const void *addr);
/*
 * The page-cache folios of [0, @len) of @fd by order: @hist[o] (o < @max,
 * larger orders counted in @hist[@max - 1]) is the number of folios of
 * 2^o pages whose first page lies in the range.  Read from
 * /proc/self/pagemap and /proc/kpageflags (root only) through a read-only
 * shared mapping with MAP_POPULATE, which maps what is cached and fills
 * what is not: use it on files without holes.  Returns the number of
 * folios, or -1 (errno set).
 */
#define MAX_FOLIO_ORDER	11
long folio_orders(int fd, uint64_t len, unsigned long *hist, int max);
/*
 * Pages of the mapping [@p, @p + @len) (the last one may be partial) that
 * mincore() finds in the page cache, or -1.
 */
long resident(void *p, size_t len);
/*
 * Pages of [0, @len) of @fd in the page cache, or -1: resident() of a fresh
 * shared mapping, which sees the file's pages, not a private mapping's copies.
 */
long cached_pages(int fd, size_t len);
/* "orders":{"0":12,"9":2} (only orders that occur) for a JSON object. */
void folio_orders_json(FILE *f, const unsigned long *hist, int max);

/* Files: 0, or -errno.  read_text NUL-terminates. */
int read_text(const char *path, char *buf, size_t len);
/* Is @word ("name=value" or a flag) one of the kernel command line's? */
int cmdline_has(const char *word);
/* How many times the kernel log holds @needle now, or -1. */
long klog_count(const char *needle);
int write_bytes(const char *path, const void *buf, size_t len);

int parse_size(const char *s, uint64_t *out);
double now_s(void);
double cpu_s(void);
uint64_t rng_next(uint64_t *state);

/* The order of the folio holding the page mapped at @addr (kpageflags), or -1. */
int folio_order_at(const void *addr);

#endif
