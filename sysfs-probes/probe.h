/* Shared by the probes: kselftest TAP output, the knob, mounts, config. */
#ifndef THP_PROBE_H
#define THP_PROBE_H

#include "kselftest.h"
#include "util.h"

#define KNOB	"/sys/kernel/mm/transparent_hugepage/page_cache"
#define SPLIT	"/sys/kernel/debug/split_huge_pages"

extern int probe_node;		/* --node N: where memory should land */

/*
 * Skip the whole probe unless the kernel has @opt (from /proc/config.gz);
 * with --require or THP_REQUIRE=1 a missing option is a failure instead.
 * The probe then calls ksft_set_plan() itself: kselftest.h keeps its
 * counters static, one copy per file, so all ksft_* result calls and
 * ksft_finished() must come from the probe's own file.
 */
void probe_init(int argc, char **argv, const char *opt);
int config_has(const char *opt);

/* The knob's current word (the one in brackets), or NULL. */
const char *knob_get(void);
int knob_set(const char *word);		/* 0 or -errno; restored at exit */

/* A fresh ramfs (or tmpfs) mount with @opts; unmounted at exit. */
const char *mount_fs(const char *type, const char *opts);

/* A file of @len pattern bytes written with @bs-sized write(2)s. */
int write_file(const char *path, size_t len, size_t bs, uint64_t seed);
/* Read it back: -1 if it matches the pattern, else the bad offset. */
long long check_file(const char *path, size_t len, uint64_t seed);

#define msg(...) ksft_print_msg(__VA_ARGS__)

#endif
