// Data: random writes of random lengths (1 byte up to 3 MiB, unaligned,
// across 2 MiB boundaries) read back identical to a shadow buffer, holes
// read zeros; on ramfs with huge folios and without, and tmpfs huge=always.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILE_MAX	(12 * MiB)

static unsigned char *shadow, *buf;

/* Offsets near 2 MiB boundaries half of the time: where folios meet. */
static uint64_t pick(uint64_t *st, uint64_t max)
{
	uint64_t r = rng_next(st);

	if (r & 1)
		return (r >> 8) % max;
	return ((r >> 8) % (max / HPAGE)) * HPAGE + ((r >> 40) % 17) - 8 + HPAGE;
}

static void run(const char *dir, const char *what, uint64_t seed, int ops)
{
	uint64_t st = seed, size = 0;
	long long bad = -1;
	char path[128];
	int fd, i;

	if (!dir) {
		ksft_test_result_fail("verify: %s: could not mount\n", what);
		return;
	}
	snprintf(path, sizeof(path), "%s/v", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(shadow, 0, FILE_MAX);
	for (i = 0; i < ops && fd >= 0; i++) {
		uint64_t off = pick(&st, FILE_MAX - 1) % (FILE_MAX - 1);
		uint64_t r = rng_next(&st), len;

		len = r % 4 == 0 ? 1 : r % 4 == 1 ? (r >> 8) % 4096 + 1 : (r >> 8) % (3 * MiB) + 1;
		if (off + len > FILE_MAX)
			len = FILE_MAX - off;
		pattern_fill(shadow + off, len, off, seed + i);
		if (pwrite(fd, shadow + off, len, off) != (ssize_t)len) {
			bad = off;
			break;
		}
		if (off + len > size)
			size = off + len;
	}
	if (bad < 0 && fd >= 0) {
		ssize_t got = pread(fd, buf, FILE_MAX, 0);

		if (got != (ssize_t)size)
			bad = got < 0 ? 0 : got;
		else
			for (uint64_t o = 0; o < size; o++)
				if (buf[o] != shadow[o]) {
					bad = o;
					break;
				}
	}
	if (fd >= 0)
		close(fd);
	ksft_test_result(fd >= 0 && bad < 0,
			 "verify: %s seed %llu: %d random writes read back (size %llu, first mismatch %lld), FileHugePages %ld kB\n",
			 what, (unsigned long long)seed, ops, (unsigned long long)size, bad,
			 meminfo_kb("FileHugePages"));
	unlink(path);
}

int main(int argc, char **argv)
{
	const char *huge, *small, *tmpfs;
	int s;

	probe_init(argc, argv, NULL);
	ksft_set_plan(3 * 3);
	shadow = malloc(FILE_MAX);
	buf = malloc(FILE_MAX);
	huge = mount_fs("ramfs", "huge=always");
	small = mount_fs("ramfs", "huge=never");
	tmpfs = mount_fs("tmpfs", "huge=always");
	for (s = 1; s <= 3; s++) {
		run(huge, "ramfs huge=always", s, 300);
		run(small, "ramfs huge=never", s + 100, 300);
		run(tmpfs, "tmpfs huge=always", s + 200, 300);
	}
	ksft_finished();
}
