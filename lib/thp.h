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

#define KiB	1024UL
#define MiB	(1024UL * KiB)
#define GiB	(1024UL * MiB)
#define HPAGE	(2 * MiB)
#define PAGE	4096UL

/* Counters: a value, or -1 when the kernel does not have it. */
long meminfo_kb(const char *field);
long node_meminfo_kb(int node, const char *field);
long vmstat_get(const char *field);
long slab_bytes(const char *cache);
void settle_slab(const char *cache);
void vm_stat_refresh(void);
/* @field "" reads a file that holds one number (memory.current). */
long cgroup_stat(const char *cgroup, const char *file, const char *field);

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
void counters_json(FILE *f, const struct counters *a,
		   const struct counters *b);

/* The pattern: every byte depends on (seed, file offset). */
void pattern_fill(unsigned char *buf, size_t len, uint64_t off, uint64_t seed);
/* Returns -1 if buf matches, else the file offset of the first mismatch. */
long long pattern_check(const unsigned char *buf, size_t len, uint64_t off,
			uint64_t seed);
/* Returns -1 if all zero, else the offset in buf of the first non-zero. */
long long zero_check(const unsigned char *buf, size_t len);

/* Files: 0, or -errno.  read_text NUL-terminates. */
int read_text(const char *path, char *buf, size_t len);
int write_bytes(const char *path, const void *buf, size_t len);

int parse_size(const char *s, uint64_t *out);
double now_s(void);
double cpu_s(void);
uint64_t rng_next(uint64_t *state);

#endif
