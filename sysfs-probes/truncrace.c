// Truncate racing reads and faults on two CPUs: one thread on CPU 0 takes
// the file up to 8 MiB (written, so with huge folios, or a hole) and down to
// a random size below 3 MiB, over and over; on CPU 1 one thread pread()s at
// random offsets and another touches a shared mapping of it (catching
// SIGBUS past EOF).  No folio may be left wholly beyond EOF: after each
// truncation nr_file_pages may hold at most the folios that reach below
// EOF, and at the end mincore() of a mapping longer than the file sees no
// page there; unlink gives everything back.  On huge=always (PMD-sized
// folios, past EOF too), huge=within_size (PMD-sized up to EOF, 4 KiB read
// fills), huge=never (folios sized by the I/O, below PMD size) and, with
// the global page_cache file at deny, on the huge=always mount (4 KiB pages
// only, whatever the mount says).  Under deny no folio is large, so no page
// at all may lie beyond EOF; elsewhere the EOF folio may be a large one
// whose split failed (a racing read held it), and only pages past it count.
//
// The race only tests something if the readers get into the window while
// the file is big: each run counts the rounds in which a read returned
// data, or a fault succeeded, past 3 MiB (beyond any size truncation
// leaves), and fails if there were none.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIG	(8 * MiB)
#define SMALL	(3 * MiB)
#define MAPLEN	(BIG + 2 * HPAGE)	/* longer than the file ever is */
#define ROUNDS	1000
#define SECONDS	8.0		/* or fewer rounds, when slow (debug kernel) */
#define SLACK	4		/* pages others may add or free meanwhile */

static int fd;
static unsigned char *map;
static volatile int stop;
/*
 * Accesses past SMALL that found the file big; reads among them that EOF
 * cut short, having moved mid-read.  One writer each.
 */
static volatile long read_hits, fault_hits, read_cuts;
static __thread sigjmp_buf bus_jmp;

/* Pages of the folios that reach below @size (at most 2 MiB each). */
static long allowed(uint64_t size)
{
	uint64_t pages = (size + PAGE - 1) / PAGE, per = HPAGE / PAGE;

	return (pages + per - 1) / per * per;
}

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void *reader(void *arg)
{
	uint64_t st = (uintptr_t)arg, off, len;
	unsigned char *buf = malloc(4 * MiB);
	ssize_t n;

	pin_cpu(1);
	if (!buf)
		msg("reader: no memory: faults alone race the truncation\n");
	while (buf && !stop) {
		off = rng_next(&st) % BIG;
		len = rng_next(&st) % (4 * MiB) + 1;	/* spans folios */
		n = pread(fd, buf, len, off);
		if (n < 0)
			break;
		if (off + n > SMALL)
			read_hits++;
		if (off + n > SMALL && (uint64_t)n < len && off + n < BIG)
			read_cuts++;
	}
	free(buf);
	return NULL;
}

static void *toucher(void *arg)
{
	uint64_t st = (uintptr_t)arg;
	volatile unsigned char sink = 0;

	pin_cpu(1);
	while (!stop) {
		uint64_t off = rng_next(&st) % BIG / PAGE * PAGE;

		if (!sigsetjmp(bus_jmp, 1)) {
			sink = map[off];
			if (off >= SMALL)
				fault_hits++;
		}
	}
	(void)sink;
	return NULL;
}

/* Page-cache pages at or after page @from, as mincore() sees them. */
static long resident_from(uint64_t from)
{
	static unsigned char vec[MAPLEN / PAGE];
	long n = 0;
	uint64_t i;

	if (mincore(map, MAPLEN, vec))
		return -1;
	for (i = from; i < MAPLEN / PAGE; i++)
		n += vec[i] & 1;
	return n;
}

/* @small: no large folio can exist, so nothing may be cached past EOF. */
static void race(const char *dir, const char *what, uint64_t seed, int small)
{
	long base = nr_file_pages(), over = 0, worst = 0, beyond, exact, cached, opened = 0;
	unsigned char *data = malloc(BIG);
	uint64_t st = seed, size = 0;
	pthread_t t[2];
	struct stat sb;
	char path[128], name[64];
	double t0 = now_s();
	int r;

	snprintf(path, sizeof(path), "%s/race", dir);
	snprintf(name, sizeof(name), "truncrace: %s", what);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, MAPLEN, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || !data) {
		ksft_test_result_fail("%s: open/mmap/malloc: %s\n", name, strerror(errno));
		if (map != MAP_FAILED)
			munmap(map, MAPLEN);
		if (fd >= 0)
			close(fd);
		free(data);
		return;		/* probe_case_end() fails the unlink result */
	}
	pattern_fill(data, BIG, 0, seed);
	stop = 0;
	read_hits = fault_hits = read_cuts = 0;
	if (pthread_create(&t[0], NULL, reader, (void *)(uintptr_t)(seed + 1)) ||
	    pthread_create(&t[1], NULL, toucher, (void *)(uintptr_t)(seed + 2)))
		ksft_exit_fail_msg("%s: pthread_create failed\n", name);
	pin_cpu(0);
	for (r = 0; r < ROUNDS && now_s() - t0 < SECONDS; r++) {
		long excess, hits0 = read_hits + fault_hits;

		/* Up: written data in huge folios, or a hole to fill. */
		if (r % 8 == 0) {
			if (pwrite(fd, data, BIG, 0) != (ssize_t)BIG)
				msg("pwrite: %s\n", strerror(errno));
		} else if (ftruncate(fd, BIG)) {
			msg("ftruncate up: %s\n", strerror(errno));
		}
		size = rng_next(&st) % SMALL;
		if (ftruncate(fd, size))
			msg("ftruncate down: %s\n", strerror(errno));
		/* (A hit just after this check counts in the next round.) */
		if (read_hits + fault_hits != hits0)
			opened++;
		/* The refresh takes long enough for racing adds to land. */
		excess = nr_file_pages() - base - allowed(size);
		if (excess > SLACK) {
			over++;
			worst = excess > worst ? excess : worst;
		}
	}
	stop = 1;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	fstat(fd, &sb);
	cached = nr_file_pages() - base;
	beyond = resident_from(allowed(sb.st_size));
	exact = resident_from((sb.st_size + PAGE - 1) / PAGE);
	ksft_test_result(opened > 0 && !over && cached <= allowed(sb.st_size) + SLACK &&
			 beyond == 0 && (!small || exact == 0),
			 "%s: %d rounds in %.1fs, %ld with reads or faults past 3 MiB (%ld reads, %ld of them cut short by EOF moving, %ld faults; want > 0): %ld with pages beyond the EOF folio (worst %+ld pages); at the end size %lld, nr_file_pages %+ld (at most %ld), mincore: %ld pages beyond the EOF folio, %ld beyond EOF (want 0%s)\n",
			 name, r, now_s() - t0, opened, read_hits, read_cuts, fault_hits, over, worst,
			 (long long)sb.st_size, cached, allowed(sb.st_size), beyond, exact,
			 small ? "" : " unless in a huge EOF folio");
	munmap(map, MAPLEN);
	close(fd);
	free(data);
	result_unlinked(name, path, base, SLACK);
}

static const char *huge, *within, *never;
static char saved[32];		/* the page_cache file's policy at the start */

static void race_huge(void)
{
	race(huge, "huge=always", 1, 0);
}

static void race_within(void)
{
	race(within, "huge=within_size", 2, 0);
}

static void race_never(void)
{
	race(never, "huge=never", 3, 0);
}

/* deny overrides the mount's huge=always: 4 KiB pages only. */
static void race_deny(void)
{
	if (knob_set("deny")) {
		ksft_test_result_fail("truncrace: page_cache: deny: %s\n", strerror(errno));
		return;		/* probe_case_end() fails the unlink result */
	}
	race(huge, "huge=always under the global deny", 4, 1);
	if (knob_set(saved))
		ksft_exit_fail_msg("page_cache: %s back: %s\n", saved, strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "huge=always", race_huge, 2 },	/* the race, then unlink */
		{ "huge=within_size", race_within, 2 },
		{ "huge=never", race_never, 2 },
		{ "deny", race_deny, 2 },
	};
	struct sigaction sa = { .sa_handler = on_bus };

	probe_init(argc, argv, PAGECACHE_OPT);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		ksft_exit_skip("needs two CPUs\n");
	sigaction(SIGBUS, &sa, NULL);
	probe_cleanup_on_term();	/* deny must not outlive a kill */
	if (!knob_get())
		ksft_exit_fail_msg("%s: unreadable\n", KNOB);
	snprintf(saved, sizeof(saved), "%s", knob_get());
	huge = mount_fs("ramfs", "huge=always");
	within = mount_fs("ramfs", "huge=within_size");
	never = mount_fs("ramfs", "huge=never");
	if (!huge || !within || !never)
		ksft_exit_fail_msg("mount: %s\n", strerror(errno));
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
