// Data: random writes of random lengths (1 byte up to 3 MiB, unaligned,
// across 2 MiB boundaries) read back identical to a shadow buffer, holes
// read zeros; on ramfs huge=always and huge=never, and tmpfs huge=always.
// On the huge=always mounts every 2 MiB range a write touched must be one
// PMD-sized folio (FileHugePages, ShmemHugePages for tmpfs), past EOF too,
// and on ramfs every other 2 MiB range below EOF as well: the read back
// fills its holes with PMD-sized folios (tmpfs reads holes as the zero
// page); on ramfs huge=never, whose folios are sized by the I/O below PMD
// size, none.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILE_MAX	(12 * MiB)

#define SEEDS		3
#define OPS		300

static unsigned char *shadow, *buf;

static const struct mnt {
	const char *type, *opts, *what;
	const char *counter;	/* of /proc/meminfo: this fs's huge folios */
	int huge;		/* 1: each written 2 MiB range is a PMD-sized folio; 0: none */
	int feature;		/* ramfs huge= needs the series: without it, a SKIP */
	int fills;		/* 1: read(2) fills holes with PMD-sized folios too */
} mnts[] = {
	{ "ramfs", "huge=always", "ramfs huge=always", "FileHugePages", 1, 1, 1 },
	{ "ramfs", "huge=never", "ramfs huge=never", "FileHugePages", 0, 0, 0 },
	{ "tmpfs", "huge=always", "tmpfs huge=always", "ShmemHugePages", 1, 0, 0 },
};
static const char *dirs[ARRAY_SIZE(mnts)];

/* Offsets near 2 MiB boundaries half of the time: where folios meet. */
static uint64_t pick(uint64_t *st, uint64_t max)
{
	uint64_t r = rng_next(st);

	if (r & 1)
		return (r >> 8) % max;
	return ((r >> 8) % (max / HPAGE)) * HPAGE + ((r >> 40) % 17) - 8 + HPAGE;
}

/* The huge folios of one run, against what the mount promises. */
static void result_huge(const struct mnt *m, uint64_t seed, long kb, long ranges)
{
	long want = m->huge ? ranges * (long)(HPAGE / KiB) : 0;

	if (m->feature && !has_pagecache_thp()) {
		ksft_test_result_skip("verify: %s seed %llu: huge folios not checked: no %s (%s %+ld kB)\n",
				      m->what, (unsigned long long)seed, PAGECACHE_OPT, m->counter, kb);
		return;
	}
	ksft_test_result(kb == want,
			 "verify: %s seed %llu: %s %+ld kB while the file existed (want %+ld: %ld 2 MiB ranges written%s)\n",
			 m->what, (unsigned long long)seed, m->counter, kb, want, ranges,
			 m->fills ? " or read below EOF" : "");
}

/* Two results: the data, then the huge folios it was kept in. */
static void run(const struct mnt *m, const char *dir, uint64_t seed)
{
	uint64_t st = seed, size = 0;
	long long bad = -1;
	char path[128], touched[FILE_MAX / HPAGE] = { 0 };
	long kb0, kb = 0, ranges = 0;
	int fd = -1, i;

	if (!dir) {
		ksft_test_result_fail("verify: %s: could not mount\n", m->what);
		return;		/* probe_case_end() fails the huge result */
	}
	snprintf(path, sizeof(path), "%s/v", dir);
	kb0 = meminfo_now_kb(m->counter);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(shadow, 0, FILE_MAX);
	for (i = 0; i < OPS && fd >= 0; i++) {
		uint64_t off = pick(&st, FILE_MAX - 1) % (FILE_MAX - 1);
		uint64_t r = rng_next(&st), len, h;

		len = r % 4 == 0 ? 1 : r % 4 == 1 ? (r >> 8) % 4096 + 1 : (r >> 8) % (3 * MiB) + 1;
		if (off + len > FILE_MAX)
			len = FILE_MAX - off;
		pattern_fill(shadow + off, len, off, seed + i);
		if (pwrite(fd, shadow + off, len, off) != (ssize_t)len) {
			bad = off;
			break;
		}
		for (h = off / HPAGE; h <= (off + len - 1) / HPAGE; h++)
			touched[h] = 1;
		if (off + len > size)
			size = off + len;
	}
	if (bad < 0 && fd >= 0) {
		ssize_t got;

		/* Every byte unlike the one expected: a byte not read cannot pass. */
		for (uint64_t o = 0; o < size; o++)
			buf[o] = ~shadow[o];
		got = pread(fd, buf, FILE_MAX, 0);

		if (got != (ssize_t)size)
			bad = got < 0 ? 0 : got;
		else
			for (uint64_t o = 0; o < size; o++)
				if (buf[o] != shadow[o]) {
					bad = o;
					break;
				}
	}
	if (fd >= 0) {
		kb = meminfo_now_kb(m->counter) - kb0;
		close(fd);
	}
	/* The read back covered [0, size): under ramfs always, each range there. */
	for (i = 0; i < (int)sizeof(touched); i++)
		ranges += touched[i] || (m->fills && (uint64_t)i * HPAGE < size);
	ksft_test_result(fd >= 0 && bad < 0,
			 "verify: %s seed %llu: %d random writes read back (size %llu, first mismatch %lld)\n",
			 m->what, (unsigned long long)seed, OPS, (unsigned long long)size, bad);
	if (fd >= 0)
		result_huge(m, seed, kb, ranges);
	unlink(path);
}

static void test_all(void)
{
	unsigned int s, i;

	for (s = 1; s <= SEEDS; s++)
		for (i = 0; i < ARRAY_SIZE(mnts); i++) {
			unsigned int start = ksft_test_num();

			run(&mnts[i], dirs[i], s + 100 * i);
			probe_case_end(start, 2, mnts[i].what);
		}
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "random writes", test_all, SEEDS * ARRAY_SIZE(mnts) * 2 },
	};
	unsigned int i;

	probe_init(argc, argv, NULL);
	shadow = malloc(FILE_MAX);
	buf = malloc(FILE_MAX);
	if (!shadow || !buf)
		ksft_exit_fail_msg("malloc: %s\n", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(mnts); i++)
		dirs[i] = mount_fs(mnts[i].type, mnts[i].opts);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
