// Many small files: create and write, read, or unlink files of 4 KiB to
// --bs (in 4 KiB steps, drawn by --seed), --files of them or until they
// hold --size bytes, in a directory of their own.  What the files cost shows in "mem_kib": the
// page cache (nr_file_pages) they hold when the run ends, beside
// "data_kib", their bytes.  Only the mode's step is timed.
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t *sizes;		/* bytes of each file */
static int nfiles, writes, reads;	/* the mode, decided once */
static uint64_t total;
static long base_pages, mem_kib = -1;
static char dir[300];

static const char *file_path(int i)
{
	static char path[320];

	snprintf(path, sizeof(path), "%s/%d", dir, i);
	return path;
}

/*
 * Every file starts the pattern of --seed at offset 0: filled once, so
 * that the timed loop writes rather than computes.
 */
static uint64_t file_seed(const struct opts *o, int i)
{
	(void)i;
	return o->seed;
}

static long file_pages(void)
{
	vm_stat_refresh();
	return vmstat_get("nr_file_pages");
}

static int create_all(const struct opts *o)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (write_file(file_path(i), sizes[i], sizes[i], file_seed(o, i)))
			return -1;
	return 0;
}

static void remove_all(void)
{
	int i;

	for (i = 0; i < nfiles; i++)
		unlink(file_path(i));
}

static int prepare(const struct opts *o)
{
	uint64_t rng = o->seed, steps = o->bs / PAGE;

	writes = mode_is(o, "write");
	reads = mode_is(o, "read");
	if (o->bs < PAGE || o->bs % PAGE || o->bs > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	while (o->files ? nfiles < o->files : total < o->size) {
		uint32_t *n = realloc(sizes, (nfiles + 1) * sizeof(*sizes));

		if (!n)
			return -1;
		sizes = n;
		sizes[nfiles] = (rng_next(&rng) % steps + 1) * PAGE;
		total += sizes[nfiles++];
	}
	wl.buf = malloc(o->bs);
	snprintf(dir, sizeof(dir), "%s.d", o->path);
	if (!wl.buf || mkdir(dir, 0755))
		return -1;
	pattern_fill(wl.buf, o->bs, 0, file_seed(o, 0));
	base_pages = file_pages();
	return writes ? 0 : create_all(o);
}

/* Each pass starts from the state the mode needs, made here, untimed. */
static int setup(const struct opts *o, int pass)
{
	if (!pass)
		return 0;
	if (writes)
		remove_all();
	return writes || reads ? 0 : create_all(o);
}

static int run(const struct opts *o, int pass, struct result *r)
{
	int i;

	(void)o;
	(void)pass;
	for (i = 0; i < nfiles; i++) {
		const char *path = file_path(i);
		int fd;
		ssize_t n;

		if (!writes && !reads) {
			if (unlink(path))
				return fail(r, "unlink %s: %s", path, strerror(errno));
			r->bytes += sizes[i];
			continue;
		}
		fd = open(path, writes ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY, 0644);
		if (fd < 0)
			return fail(r, "open %s: %s", path, strerror(errno));
		n = writes ? write(fd, wl.buf, sizes[i]) : read(fd, wl.buf, sizes[i]);
		close(fd);
		if (n != (ssize_t)sizes[i])
			return fail(r, "%s %s: %s", writes ? "write" : "read", path,
				    n < 0 ? strerror(errno) : "short");
		r->bytes += n;
	}
	return 0;
}

/*
 * Every file holds its pattern (none is left after unlink).  A bad byte's
 * offset counts from the first file, the files end to end.
 */
static int verify(const struct opts *o, struct result *r)
{
	uint64_t at = 0;
	int i;

	for (i = 0; i < nfiles; at += sizes[i++]) {
		int fd = open(file_path(i), O_RDONLY);
		long long bad;

		if (!writes && !reads) {
			if (fd < 0)
				continue;
			close(fd);
			r->bad = at;
			return fail(r, "%s is still there after unlink", file_path(i));
		}
		if (fd < 0)
			return fail(r, "open %s: %s", file_path(i), strerror(errno));
		bad = fd_check_pattern(fd, 0, sizes[i], file_seed(o, i));
		/* Nothing past its size either: a longer file is wrong too. */
		if (bad < 0 && lseek(fd, 0, SEEK_END) != sizes[i])
			bad = sizes[i];
		close(fd);
		if (bad >= 0) {
			r->bad = at + bad;
			return -1;
		}
	}
	return 0;
}

/*
 * --corrupt: the last byte of the last file flipped, or after unlink the
 * last file back again (its first byte is where verify() finds it).
 */
static long long corrupt(const struct opts *o, struct result *r)
{
	const char *path = file_path(nfiles - 1);
	unsigned char c;
	int fd = open(path, writes || reads ? O_RDWR : O_RDWR | O_CREAT, 0644);
	long long off = -1;

	(void)o;
	if (fd >= 0 && !writes && !reads)
		off = total - sizes[nfiles - 1];
	else if (fd >= 0 && pread(fd, &c, 1, sizes[nfiles - 1] - 1) == 1) {
		c ^= 0x5a;
		if (pwrite(fd, &c, 1, sizes[nfiles - 1] - 1) == 1)
			off = total - 1;
	}
	if (fd >= 0)
		close(fd);
	if (off < 0)
		fail(r, "corrupt %s: %s", path, strerror(errno));
	return off;
}

/* The page cache the files hold as the run ends (none after unlink). */
static void cleanup(const struct opts *o)
{
	long now = file_pages();

	(void)o;
	if (dir[0] && now >= 0 && base_pages >= 0)
		mem_kib = (now - base_pages) * (long)(PAGE / KiB);
	remove_all();
	rmdir(dir);
	free(sizes);
}

static void json(FILE *f)
{
	fprintf(f, ",\"files\":%d,\"data_kib\":%llu,\"mem_kib\":%ld", nfiles,
		(unsigned long long)(total / KiB), mem_kib);
}

const struct workload workload = {
	.name = "smallfiles",
	.description = "create+write, read or unlink many files of 4K to --bs",
	.modes = "write read unlink", .size_multiple_of_page = 1, .takes_files = 1,
	.prepare = prepare, .setup = setup, .run = run, .verify = verify,
	.corrupt = corrupt, .cleanup = cleanup, .json = json,
};
