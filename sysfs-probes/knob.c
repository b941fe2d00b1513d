// The page_cache knob: every valid value reads back, junk is refused with
// EINVAL and changes nothing, and toggling it under load keeps data intact.
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
	{ "NUL then junk", "always\0junk", 11 },
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

static void test_empty_write(void)
{
	const char *after;
	int err;

	knob_set("advise");
	err = write_bytes(KNOB, "", 0);
	after = knob_get();
	ksft_test_result(!err && after && !strcmp(after, "advise"),
			 "knob: a 0-byte write is a no-op (err %d, now %s)\n",
			 err, after ? after : "?");
}

/*
 * Writers rewrite their own files while the knob flips; data must hold.
 * The knob moves on only once each writer has finished a round wholly
 * inside the current window (counted, not timed), and such a round's file
 * must hold the folios the window's word promises: a PMD-sized one under
 * always, none above order 0 under never.
 */
#define WINDOWS		10
#define WINDOW_POLLS	3000	/* 10 ms each: 30 s, where a round takes under 1 s */

static const char *const words[] = { "always", "never", "within_size", "1", "0" };
static volatile int window;	/* the word's index; -1 while the knob moves */
static volatile int stop;

struct writer {
	const char *dir;
	int id;
	int rounds[WINDOWS];	/* rounds wholly inside each window, as promised */
	long refused;		/* rounds short of a PMD folio the allocator refused */
	long long bad;
	char why[192];
};

/* Does a file written wholly under @word hold the folios it promises? */
static int promised(const char *word, const char *path, size_t len, char *why, size_t n)
{
	unsigned long hist[MAX_FOLIO_ORDER] = { 0 };
	int fd = open(path, O_RDONLY), o, big = 0;
	long got = fd < 0 ? -1 : folio_orders(fd, len, hist, MAX_FOLIO_ORDER);

	if (fd >= 0)
		close(fd);
	if (got < 0) {
		snprintf(why, n, "folio orders of %s: %s", path, strerror(errno));
		return 0;
	}
	for (o = 1; o < MAX_FOLIO_ORDER; o++)
		big += hist[o] != 0;
	if (!strcmp(word, "always") || !strcmp(word, "1")) {
		if (hist[HPAGE_ORDER])
			return 1;
		snprintf(why, n, "%s: no PMD-sized folio", word);
		return 0;
	}
	if ((!strcmp(word, "never") || !strcmp(word, "0")) && big) {
		snprintf(why, n, "%s: a folio above order 0", word);
		return 0;
	}
	return 1;
}

static void *writer(void *arg)
{
	struct writer *w = arg;
	size_t len = (3 + w->id) * MiB + 12345;
	char path[128];
	uint64_t seed;

	snprintf(path, sizeof(path), "%s/w%d", w->dir, w->id);
	for (seed = 1; !stop && w->bad < 0 && !w->why[0]; seed++) {
		long refusals = thp_refusals();
		int win = window;

		if (write_file(path, len, 256 * KiB + 7 * w->id, seed))
			w->bad = 0;
		else
			w->bad = check_file(path, len, seed);
		if (w->bad < 0 && win >= 0 && win == window && win < WINDOWS) {
			if (promised(words[win % 5], path, len, w->why, sizeof(w->why)))
				w->rounds[win]++;
			else if (thp_refusals() > refusals) {
				w->why[0] = 0;	/* the allocator's no, not the kernel's */
				w->refused++;
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
		w[i] = (struct writer){ .dir = dir, .id = i, .bad = -1 };
		if (pthread_create(&t[i], NULL, writer, &w[i]))
			ksft_exit_fail_msg("knob: pthread_create failed\n");
	}
	for (win = 0; win < WINDOWS && ok; win++) {
		for (polls = 0; polls < WINDOW_POLLS; polls++) {
			if ((w[0].rounds[win] && w[1].rounds[win]) || w[0].why[0] || w[1].why[0] ||
			    w[0].bad >= 0 || w[1].bad >= 0)
				break;
			usleep(10000);
		}
		if (!w[0].rounds[win] || !w[1].rounds[win]) {
			msg("window %d (%s): rounds %d and %d\n", win, words[win % 5],
			    w[0].rounds[win], w[1].rounds[win]);
			starved = win;
			ok = 0;
			break;
		}
		window = -1;
		if (win + 1 < WINDOWS && knob_set(words[(win + 1) % 5]))
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
	/* A window starved only by refused allocations did not run. */
	if (starved >= 0 && w[0].refused + w[1].refused && w[0].bad < 0 && w[1].bad < 0 &&
	    !w[0].why[0] && !w[1].why[0])
		ksft_test_result_skip("not run: allocator: knob: window %d (%s) got no round with the folios promised, %ld rounds refused a PMD folio\n",
				      starved, words[starved % 5], w[0].refused + w[1].refused);
	else
		ksft_test_result(ok, "knob: %d windows of 5 words under 2 writers, each with a round of each writer, folios as promised, data intact (%ld rounds refused a PMD folio)\n",
				 win, w[0].refused + w[1].refused);
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "valid values", test_valid, ARRAY_SIZE(valid) },
		{ "junk", test_junk, ARRAY_SIZE(junk) },
		{ "empty write", test_empty_write, 1 },
		{ "toggle under load", test_toggle_under_load, 1 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
