/* The workload harness: one command line for every workload, timing,
 * counter deltas and one JSON object per run.  A workload file defines
 * `workload` and its three steps; only run() is timed. */
#ifndef THP_HARNESS_H
#define THP_HARNESS_H

#include "util.h"

struct opts {
	uint64_t size;		/* --size: bytes per file */
	uint64_t bs;		/* --bs: bytes per call or per touch */
	int passes;		/* --passes */
	int random;		/* --pattern random */
	uint64_t seed;		/* --seed */
	int threads;		/* --threads */
	const char *dir;	/* --dir */
	int verify;		/* --verify / --no-verify */
	const char *mode;	/* --mode: workload-specific variant */
	const char *madvise;	/* --madvise none|huge|nohuge */
	int private_map;	/* --private: MAP_PRIVATE for mmap workloads */
	int corrupt;		/* --corrupt: flip a byte before verifying */
	char path[256];		/* dir/wl-<name>.<pid> */
};

struct result {
	uint64_t bytes;		/* moved by run() */
	long long bad;		/* first bad offset, or -1 */
	char error[160];
};

struct workload {
	const char *name;
	const char *description;
	const char *modes;	/* valid --mode words, first is default */
	int size_multiple_of_bs;
	int (*prepare)(const struct opts *o);
	int (*run)(const struct opts *o, struct result *r);
	int (*verify)(const struct opts *o, struct result *r);
	void (*cleanup)(const struct opts *o);
};

extern const struct workload workload;

/* Helpers for workloads. */
int fail(struct result *r, const char *fmt, ...);
int mode_is(const struct opts *o, const char *mode);
/* Order of the blocks of a pass: 0..n-1, or shuffled by seed. */
uint64_t *block_order(const struct opts *o, uint64_t n, int pass);
int fill_file(const struct opts *o, int fd, uint64_t seed);
long long check_fd(const struct opts *o, int fd, uint64_t seed);
/* verify(): the whole file holds the pattern of --seed. */
int verify_file(const struct opts *o, struct result *r);
void corrupt_file(const struct opts *o);
int apply_madvise(const struct opts *o, void *addr, size_t len);

#endif
