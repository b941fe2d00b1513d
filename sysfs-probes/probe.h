/* Shared by the probes: kselftest TAP output, the knob, mounts, config. */
#ifndef THP_PROBE_H
#define THP_PROBE_H

#include "kselftest.h"
#include "thp.h"

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
/* Restore what probe_init() and later calls changed when TERM arrives. */
void probe_cleanup_on_term(void);
int config_has(const char *opt);
/*
 * The kernel lacks what the probe checks (@fmt says so): skip the whole
 * probe, or fail it under --require.  Before the plan only.
 */
void probe_missing(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/*
 * A sysfs or procfs setting: its current value (the word in brackets of a
 * choice list such as "always [never]", else the text without the newline),
 * or NULL.  setting_set() returns 0 or -errno; the first value it replaced
 * is written back at exit.
 */
const char *setting_get(const char *path);
int setting_set(const char *path, const char *value);

/* The page_cache knob, through the two above. */
const char *knob_get(void);
int knob_set(const char *word);
/*
 * For probes of the default policy, as a user gets it: fail (before the
 * plan) unless the knob is at @word, its value when the kernel boots.
 */
void require_knob(const char *word);

/* The series' option, read once: feature checks SKIP (with it as the reason) without it. */
int has_pagecache_thp(void);
#define PAGECACHE_OPT	"CONFIG_TRANSPARENT_HUGEPAGE_PAGECACHE"

/* A fresh ramfs (or tmpfs) mount with @opts; unmounted at exit. */
const char *mount_fs(const char *type, const char *opts);

/* Files of the pattern, written and read back: fill_file() and the rest, in thp.h. */

/*
 * Move the calling process into cgroup v2 @cg (a directory under
 * /sys/fs/cgroup): 1 if /proc/self/cgroup then names it, else 0.
 */
int cgroup_join(const char *cg);

/* Run the calling thread on @cpu only; 0 or -1 (with a message). */
int pin_cpu(int cpu);

/* nr_file_pages from /proc/vmstat, per-CPU diffs folded in first. */
long nr_file_pages(void);
/*
 * unlink(@path), then one result: nr_file_pages is back within @slack pages
 * of @base; with _huge, FileHugePages is back at @huge kB too, exactly.  A
 * macro, so that the result counts in the probe's own file.
 */
#define result_unlinked(name, path, base, slack)				\
	result_unlinked_(name, path, base, slack, 0, 0)
#define result_unlinked_huge(name, path, base, slack, huge)			\
	result_unlinked_(name, path, base, slack, 1, huge)
#define result_unlinked_(name, path, base, slack, check_huge, huge) do {	\
	long left_, huge_ = 0;							\
	char text_[64] = "";							\
										\
	unlink(path);								\
	left_ = nr_file_pages() - (base);					\
	if (check_huge) {							\
		huge_ = meminfo_now_kb("FileHugePages") - (huge);		\
		snprintf(text_, sizeof(text_), ", FileHugePages %+ld kB (want 0)", huge_); \
	}									\
	ksft_test_result(labs(left_) <= (slack) && !huge_,			\
			 "%s: unlink gives it back: nr_file_pages %+ld from before (within %d)%s\n", \
			 name, left_, (int)(slack), text_);			\
} while (0)

/* FileHugePages (or ShmemHugePages...) of /proc/meminfo, per-CPU diffs folded first. */
long meminfo_now_kb(const char *field);

/*
 * Plan == emitted, by construction.  A probe is a table of cases, each
 * promising a number of TAP results (counted from the tables it loops
 * over); probe_run() plans their sum, runs them in order and, after each,
 * reports as failures the results an early return left out, or bails out
 * if a case reported more.  Inline: it must use the probe's own copy of
 * kselftest.h's static counters.
 */
struct probe_case {
	const char *name;
	void (*run)(void);
	unsigned int results;
};

static inline void probe_case_end(unsigned int start, unsigned int want, const char *name)
{
	unsigned int got = ksft_test_num() - start;

	if (got > want)
		ksft_exit_fail_msg("%s reported %u results, %u planned\n", name, got, want);
	while (got < want)
		ksft_test_result_fail("%s: result %u of %u was not reported\n", name, ++got, want);
}

static inline void probe_run(const struct probe_case *c, size_t n)
{
	unsigned int plan = 0, start;
	size_t i;

	for (i = 0; i < n; i++)
		plan += c[i].results;
	ksft_set_plan(plan);
	for (i = 0; i < n; i++) {
		start = ksft_test_num();
		c[i].run();
		probe_case_end(start, c[i].results, c[i].name);
	}
}

/*
 * @field ("FilePmdMapped", "Rss") of the VMA holding @addr in
 * /proc/self/smaps, or -1.
 */
long smaps_get(const void *addr, const char *field);

#define msg(...) ksft_print_msg(__VA_ARGS__)

/*
 * The folios of [0, @len) of @path by order (lib/thp.c folio_orders()):
 * @hist filled, @text "o:n o:n".  The number of folios, or -1.
 */
long orders_of(const char *path, uint64_t len, unsigned long *hist,
	       char *text, size_t tlen);
/* Does @hist hold exactly the folios of @want ({order, count}, ends at -1)? */
int hist_is(const unsigned long *hist, const int (*want)[2]);

#endif
