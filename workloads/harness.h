/* The workload harness: one command line for every workload, timing,
 * counter deltas and one JSON object per run.  A workload file defines
 * `workload` and its steps; only run() is timed, one call per pass. */
#ifndef THP_HARNESS_H
#define THP_HARNESS_H

#include "thp.h"

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
	int orders;		/* --orders: report the file's folio orders */
	int files;		/* --files: how many files (0: as --size needs) */
	char path[256];		/* dir/wl-<name>.<pid> */
};

struct result {
	uint64_t bytes;		/* moved by run() */
	uint64_t pages;		/* 4 KiB pages touched by run() (unit "pages") */
	long long bad;		/* first bad offset, or -1 */
	long long corrupt_off;	/* the byte --corrupt flipped, or -1 */
	char error[160];
};

struct workload {
	const char *name;
	const char *description;
	const char *modes;	/* valid --mode words, first is default */
	/*
	 * What run() counts: NULL or "bytes" (bytes moved: MiB/s), or
	 * "pages" (one access per 4 KiB page, whatever its bytes: pages/s).
	 */
	const char *unit;
	int size_multiple_of_bs;
	int size_multiple_of_page;
	int takes_files;	/* --files means something to it */
	int (*prepare)(const struct opts *o);		/* once, untimed */
	int (*setup)(const struct opts *o, int pass);	/* each pass, untimed */
	int (*run)(const struct opts *o, int pass, struct result *r);
	int (*verify)(const struct opts *o, struct result *r);
	/* --corrupt: flip a byte verify() reads; its offset, or -1 and fail() */
	long long (*corrupt)(const struct opts *o, struct result *r);
	void (*cleanup)(const struct opts *o);
	/* Fields of its own, each as ",\"name\":value", after the common ones. */
	void (*json)(FILE *f);
};

extern const struct workload workload;

/*
 * What the file workloads keep between their steps.  The harness closes,
 * frees and unlinks it all after cleanup(), whatever failed.
 */
struct wl_state {
	int fd;			/* -1 when closed */
	unsigned char *buf;	/* --bs bytes */
	uint64_t *order;	/* block order of the current pass */
};
extern struct wl_state wl;

/* Helpers for workloads. */
int fail(struct result *r, const char *fmt, ...);
int mode_is(const struct opts *o, const char *mode);
/* Order of the n blocks of a pass in *v (allocated on first use): 0..n-1,
 * or shuffled by seed and pass.  -1 when out of memory. */
int block_order(const struct opts *o, uint64_t **v, uint64_t n, int pass);
/* A new file at o->path: --size of the pattern of seed, or sparse. */
int create_file(const struct opts *o, int sparse, uint64_t seed);
/* Opens o->path into wl.fd (closing the last) and allocates wl.buf. */
int open_file(const struct opts *o, int flags);
/*
 * Reads o->path through check (with arg: check_pattern and &o->seed,
 * check_zero, or the workload's own) by read_check() of thp.h; a file
 * shorter than --size fails unless may_be_short.  Sets r->bad.
 */
int verify_with(const struct opts *o, struct result *r, check_fn check,
		const void *arg, int may_be_short);
/* verify(): the whole file holds the pattern of --seed. */
int verify_file(const struct opts *o, struct result *r);
int apply_madvise(const struct opts *o, void *addr, size_t len);

#endif
