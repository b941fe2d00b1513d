// The page_cache knob: every valid value (never, always, within_size,
// advise, deny, force, 0 and 1, with or without one newline) reads back;
// junk is refused with EINVAL and changes nothing (what follows a NUL is
// not looked at, as for enabled and defrag: sysfs_streq()); and while it flips under two writers, data stays intact
// and each file written wholly under one value holds the folios that value
// promises for write(2).
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *in, *want; } valid[] = {
	{ "always", "always" }, { "within_size", "within_size" },
	{ "advise", "advise" }, { "never", "never" },
	{ "always\n", "always" }, { "1", "always" }, { "0", "never" },
	{ "1\n", "always" }, { "deny", "deny" }, { "force", "force" },
};

static char big[4096];	/* 4 KiB of 'a', filled by test_junk() */
static const struct { const char *name; const char *buf; size_t len; } junk[] = {
	{ "a lone newline", "\n", 1 }, { "a space", " ", 1 },
	{ "spaces around", " always ", 8 }, { "2", "2", 1 },
	{ "-1", "-1", 2 }, { "two newlines", "always\n\n", 8 },
	{ "4 KiB of a", big, sizeof(big) - 1 },
	{ "partial word", "alw", 3 }, { "longer word", "alwaysx", 7 },
	{ "upper case", "ALWAYS", 6 }, { "default", "default", 7 },
	{ "01", "01", 2 }, { "never,always", "never,always", 12 },
};

static void test_valid(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(valid); i++) {
		/* Start elsewhere, or an ignored write would read back right. */
		const char *other = strcmp(valid[i].want, "never") ? "never" : "always";
		int err = knob_set(other) ?: knob_set(valid[i].in);
		const char *got = knob_get();

		ksft_test_result(!err && got && !strcmp(got, valid[i].want),
				 "knob: '%.*s' reads back as %s (err %d, got %s)\n",
				 (int)strcspn(valid[i].in, "\n"), valid[i].in,
				 valid[i].want, err, got ? got : "?");
	}
}

static void test_junk(void)
{
	unsigned int i;

	memset(big, 'a', sizeof(big) - 1);
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		const char *before, *after;
		char was[32];
		int err;

		knob_set(i % 2 ? "advise" : "within_size");
		before = knob_get();
		snprintf(was, sizeof(was), "%s", before ? before : "?");
		err = write_bytes(KNOB, junk[i].buf, junk[i].len);
		after = knob_get();
		ksft_test_result(err == -EINVAL && after && !strcmp(after, was),
				 "knob: junk (%s) gives EINVAL and keeps %s (err %d, now %s)\n",
				 junk[i].name, was, err, after ? after : "?");
	}
}

/*
 * Writers rewrite their own files, on a mount without huge= (it follows
 * the knob), while the knob flips; data must hold.  The knob moves on only
 * once each writer has finished a round wholly inside the current window
 * (counted, not timed), and such a round's file must hold the folios the
 * window's word promises for write(2) (the table of "Hugepages in the page
 * cache", transhuge.rst): under always, force and 1 a PMD-sized folio for
 * every 2 MiB block, the last one reaching past EOF; under within_size one
 * for each block a single write(2) covers, smaller ones elsewhere, nothing
 * past EOF; under never and 0 folios sized by the writes, some above order
 * 0, none PMD-sized, nothing past EOF; under deny 4 KiB pages only.
 * Writer 0 writes 2 MiB at a time, so that within_size differs from never;
 * writer 1 writes 256 KiB + 7, so that its writes start at every offset.
 */
static const char *const words[] = {
	"always", "never", "within_size", "deny", "force", "1", "0",
};
#define NWORDS		ARRAY_SIZE(words)
#define WINDOWS		(2 * NWORDS)
#define WINDOW_POLLS	3000	/* 10 ms each: 30 s, where a round takes under 1 s */

static volatile int window;	/* the word's index; -1 while the knob moves */
static volatile int stop;

struct writer {
	const char *dir;
	int id;
	size_t len, bs;
	int rounds[WINDOWS];	/* rounds wholly inside each window, as promised */
	int compacted;		/* a short round compacted memory; the next is the retry */
	long refused;		/* retries short while no free 2 MiB block was left */
	long long bad;
	char why[400];
};

/* 2 MiB blocks of [0, @len) that one of the @bs-sized writes from 0 covers whole. */
static unsigned long covered_blocks(size_t len, size_t bs)
{
	unsigned long n = 0;
	size_t at, end;

	for (at = 0; at + HPAGE <= len; at += HPAGE) {
		end = (at / bs + 1) * bs;
		n += (end < len ? end : len) >= at + HPAGE;
	}
	return n;
}

/*
 * Does a file written wholly under @word hold the folios it promises?  1 if
 * so; else 0 with @why said and *@missing the folios an allocator short of
 * memory could explain (0 where none could: a folio too large, or past EOF).
 */
static int promised(const char *word, const struct writer *w, const char *path,
		    long *missing, char *why, size_t n)
{
	unsigned long hist[MAX_FOLIO_ORDER] = { 0 }, pages = (w->len + PAGE - 1) / PAGE;
	unsigned long blocks = (w->len + HPAGE - 1) / HPAGE, sum = 0, large = 0, want;
	char text[160];
	int o;

	*missing = 0;
	if (orders_of(path, w->len, hist, text, sizeof(text)) < 0) {
		snprintf(why, n, "folio orders of %s: %s", path, text);
		return 0;
	}
	for (o = 0; o < MAX_FOLIO_ORDER; o++) {
		sum += hist[o] << o;
		if (o && o < HPAGE_ORDER)
			large += hist[o];
	}
	if (!strcmp(word, "always") || !strcmp(word, "force") || !strcmp(word, "1")) {
		if (hist[HPAGE_ORDER] == blocks && sum == blocks << HPAGE_ORDER)
			return 1;
		/* Fewer PMD folios, the rest smaller and within the file: a refusal. */
		if (hist[HPAGE_ORDER] < blocks && sum <= blocks << HPAGE_ORDER)
			*missing = blocks - hist[HPAGE_ORDER];
		snprintf(why, n, "%s: %s, want a PMD-sized folio per 2 MiB block (%lu)",
			 word, text, blocks);
		return 0;
	}
	if (!strcmp(word, "within_size")) {
		want = covered_blocks(w->len, w->bs);
		if (hist[HPAGE_ORDER] == want && sum == pages)
			return 1;
		if (hist[HPAGE_ORDER] < want && sum == pages)
			*missing = want - hist[HPAGE_ORDER];
		snprintf(why, n, "%s: %s, want %lu PMD-sized folios and %lu pages",
			 word, text, want, pages);
		return 0;
	}
	if (!strcmp(word, "deny")) {
		if (hist[0] == pages && sum == pages)
			return 1;
		snprintf(why, n, "%s: %s, want %lu pages of order 0", word, text, pages);
		return 0;
	}
	/* never, 0 */
	if (!hist[HPAGE_ORDER] && sum == pages && large)
		return 1;
	if (!hist[HPAGE_ORDER] && sum == pages)
		*missing = 1;
	snprintf(why, n, "%s: %s, want folios above order 0, none PMD-sized, %lu pages",
		 word, text, pages);
	return 0;
}

/*
 * A round short of folios an allocator could refuse: compact memory and
 * let the next round retry; if the retry is short too, excuse it only
 * when fewer free 2 MiB blocks than the folios missing are left.
 */
static int excused(struct writer *w, long missing)
{
	long free_blocks;

	if (!w->compacted) {
		write_bytes("/proc/sys/vm/compact_memory", "1", 1);
		w->compacted = 1;
		return 1;
	}
	w->compacted = 0;
	free_blocks = free_2m_blocks(-1);
	if (free_blocks >= 0 && free_blocks < missing) {
		w->refused++;
		return 1;
	}
	msg("writer %d: %ld free 2 MiB blocks after compaction, %ld folios missing\n",
	    w->id, free_blocks, missing);
	return 0;
}

static void *writer(void *arg)
{
	struct writer *w = arg;
	char path[128];
	uint64_t seed;
	long missing;

	snprintf(path, sizeof(path), "%s/w%d", w->dir, w->id);
	for (seed = 1; !stop && w->bad < 0 && !w->why[0]; seed++) {
		int win = window;

		if (write_file(path, w->len, w->bs, seed))
			w->bad = 0;
		else
			w->bad = check_file(path, w->len, seed);
		if (w->bad < 0 && win >= 0 && win == window && win < (int)WINDOWS) {
			if (promised(words[win % NWORDS], w, path, &missing, w->why,
				     sizeof(w->why))) {
				w->rounds[win]++;
				w->compacted = 0;
			} else if (missing && excused(w, missing)) {
				w->why[0] = 0;	/* the allocator's no, not the kernel's */
			}
		}
		unlink(path);
	}
	return NULL;
}

static void test_toggle_under_load(void)
{
	const char *dir = mount_fs("ramfs", "");
	struct writer w[2];
	pthread_t t[2];
	int i, win, polls, ok = 1, starved = -1;

	if (!dir) {
		ksft_test_result_fail("knob: mount ramfs: %s\n", strerror(errno));
		return;
	}
	window = 0;
	stop = 0;
	if (knob_set(words[0]))
		ok = 0;
	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ .dir = dir, .id = i, .bad = -1,
					.len = (3 + i) * MiB + 12345,
					.bs = i ? 256 * KiB + 7 : HPAGE };
		if (pthread_create(&t[i], NULL, writer, &w[i]))
			ksft_exit_fail_msg("knob: pthread_create failed\n");
	}
	for (win = 0; win < (int)WINDOWS && ok; win++) {
		for (polls = 0; polls < WINDOW_POLLS; polls++) {
			if ((w[0].rounds[win] && w[1].rounds[win]) || w[0].why[0] || w[1].why[0] ||
			    w[0].bad >= 0 || w[1].bad >= 0)
				break;
			usleep(10000);
		}
		if (!w[0].rounds[win] || !w[1].rounds[win]) {
			msg("window %d (%s): rounds %d and %d\n", win, words[win % NWORDS],
			    w[0].rounds[win], w[1].rounds[win]);
			starved = win;
			ok = 0;
			break;
		}
		window = -1;
		if (win + 1 < (int)WINDOWS && knob_set(words[(win + 1) % NWORDS]))
			ok = 0;
		window = win + 1;
	}
	stop = 1;
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (w[i].bad >= 0) {
			msg("writer %d: data mismatch at offset %lld\n", i, w[i].bad);
			ok = 0;
		}
		if (w[i].why[0]) {
			msg("writer %d: %s\n", i, w[i].why);
			ok = 0;
		}
	}
	/* A window starved only by an allocator out of 2 MiB blocks did not run. */
	if (starved >= 0 && w[0].refused + w[1].refused && w[0].bad < 0 && w[1].bad < 0 &&
	    !w[0].why[0] && !w[1].why[0])
		ksft_test_result_skip("not run: allocator: knob: window %d (%s) got no round with the folios promised, %ld retries short with no free 2 MiB block left\n",
				      starved, words[starved % NWORDS], w[0].refused + w[1].refused);
	else
		ksft_test_result(ok, "knob: %d windows of %zu words under 2 writers, each with a round of each writer, folios as promised, data intact (%ld retries short with no free 2 MiB block left)\n",
				 win, NWORDS, w[0].refused + w[1].refused);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "valid values", test_valid, ARRAY_SIZE(valid) },
		{ "junk", test_junk, ARRAY_SIZE(junk) },
		{ "toggle under load", test_toggle_under_load, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
