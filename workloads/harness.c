#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: wl-%s [options]\n%s\n"
		"  --size N       file size (K/M/G suffix), default 64M\n"
		"  --bs N         block size, default 1M\n"
		"  --passes N     repetitions of the timed step, default 1\n"
		"  --pattern P    seq | random, default seq\n"
		"  --seed N       seed for random order and data, default 1\n"
		"  --threads N    threads (mixed), default 1\n"
		"  --dir D        target directory (its mount decides the fs), default /mnt/ramfs\n"
		"  --verify / --no-verify   check every byte afterwards, default on\n"
		"  --mode M       one of: %s\n"
		"  --madvise A    none | huge | nohuge (mmap workloads)\n"
		"  --private      MAP_PRIVATE instead of MAP_SHARED\n"
		"  --corrupt      flip one byte before verifying (tests the check)\n",
		workload.name, workload.description, workload.modes);
}

static void bad(const char *what, const char *val)
{
	fprintf(stderr, "wl-%s: bad %s '%s' (try --help)\n", workload.name, what, val ? val : "");
	exit(2);
}

static uint64_t positive(const char *what, const char *val)
{
	uint64_t v;

	if (parse_size(val, &v) || v == 0)
		bad(what, val);
	return v;
}

int mode_is(const struct opts *o, const char *mode)
{
	return !strcmp(o->mode, mode);
}

static int word_in(const char *word, const char *list)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "size", 1, 0, 's' }, { "bs", 1, 0, 'b' }, { "passes", 1, 0, 'p' },
		{ "pattern", 1, 0, 'P' }, { "seed", 1, 0, 'S' }, { "threads", 1, 0, 't' },
		{ "dir", 1, 0, 'd' }, { "verify", 0, 0, 'v' }, { "no-verify", 0, 0, 'n' },
		{ "mode", 1, 0, 'm' }, { "madvise", 1, 0, 'a' }, { "private", 0, 0, 'x' },
		{ "corrupt", 0, 0, 'c' }, { "help", 0, 0, 'h' }, { 0 } };
	struct stat st;
	static char first[32];
	int c;

	sscanf(workload.modes, "%31s", first);
	*o = (struct opts){ .size = 64 * MiB, .bs = MiB, .passes = 1, .seed = 1,
			    .threads = 1, .dir = "/mnt/ramfs", .verify = 1,
			    .mode = first, .madvise = "none" };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->size = positive("--size", optarg); break;
		case 'b': o->bs = positive("--bs", optarg); break;
		case 'p': o->passes = positive("--passes", optarg); break;
		case 't': o->threads = positive("--threads", optarg); break;
		case 'S': if (parse_size(optarg, &o->seed)) bad("--seed", optarg); break;
		case 'P':
			if (strcmp(optarg, "seq") && strcmp(optarg, "random"))
				bad("--pattern", optarg);
			o->random = !strcmp(optarg, "random");
			break;
		case 'd': o->dir = optarg; break;
		case 'v': o->verify = 1; break;
		case 'n': o->verify = 0; break;
		case 'm':
			if (!word_in(optarg, workload.modes))
				bad("--mode", optarg);
			o->mode = optarg;
			break;
		case 'a':
			if (!word_in(optarg, "none huge nohuge"))
				bad("--madvise", optarg);
			o->madvise = optarg;
			break;
		case 'x': o->private_map = 1; break;
		case 'c': o->corrupt = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		bad("argument", argv[optind]);
	if (o->passes > 1000000 || o->threads > 64)
		bad(o->threads > 64 ? "--threads" : "--passes", "too large");
	if (workload.size_multiple_of_bs && o->size % o->bs)
		bad("--size (not a multiple of --bs)", "");
	if (stat(o->dir, &st) || !S_ISDIR(st.st_mode))
		bad("--dir (missing directory)", o->dir);
	snprintf(o->path, sizeof(o->path), "%s/wl-%s.%d", o->dir, workload.name, getpid());
}

int fail(struct result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t *block_order(const struct opts *o, uint64_t n, int pass)
{
	uint64_t *v = malloc(n * sizeof(*v)), i, st = o->seed * 1000003 + pass;

	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n; o->random && i > 1; i--) {
		uint64_t j = rng_next(&st) % i, t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
	return v;
}

int fill_file(const struct opts *o, int fd, uint64_t seed)
{
	unsigned char *buf = malloc(o->bs);
	uint64_t off;
	int ret = 0;

	for (off = 0; off < o->size && !ret; off += o->bs) {
		size_t n = o->size - off < o->bs ? o->size - off : o->bs;

		pattern_fill(buf, n, off, seed);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			ret = -1;
	}
	free(buf);
	return ret;
}

long long check_fd(const struct opts *o, int fd, uint64_t seed)
{
	unsigned char *buf = malloc(MiB);
	uint64_t off;
	long long bad = -1;

	for (off = 0; off < o->size && bad < 0; off += MiB) {
		size_t n = o->size - off < MiB ? o->size - off : MiB;

		if (pread(fd, buf, n, off) != (ssize_t)n)
			bad = off;
		else
			bad = pattern_check(buf, n, off, seed);
	}
	free(buf);
	return bad;
}

int verify_file(const struct opts *o, struct result *r)
{
	int fd = open(o->path, O_RDONLY);

	if (fd < 0)
		return fail(r, "open: %s", strerror(errno));
	r->bad = check_fd(o, fd, o->seed);
	close(fd);
	return r->bad >= 0 ? -1 : 0;
}

/* Flip one byte in the middle of the file, as a bug would. */
void corrupt_file(const struct opts *o)
{
	int fd = open(o->path, O_RDWR);
	unsigned char b;
	off_t at = o->size / 2 + 1;

	if (fd < 0)
		return;
	if (pread(fd, &b, 1, at) == 1) {
		b ^= 0x40;
		if (pwrite(fd, &b, 1, at) != 1)
			perror("corrupt");
	}
	close(fd);
}

int apply_madvise(const struct opts *o, void *addr, size_t len)
{
	if (!strcmp(o->madvise, "huge"))
		return madvise(addr, len, MADV_HUGEPAGE);
	if (!strcmp(o->madvise, "nohuge"))
		return madvise(addr, len, MADV_NOHUGEPAGE);
	return 0;
}

/* Filesystem type and options of the mount holding dir, from /proc/mounts. */
static void mount_of(const char *dir, char *fs, char *mopts, size_t len)
{
	char line[512], mp[256], type[64], op[256], best[256] = "";
	FILE *f = fopen("/proc/mounts", "r");

	snprintf(fs, len, "?");
	mopts[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%*s %255s %63s %255s", mp, type, op) != 3)
			continue;
		n = strlen(mp);
		if (!strncmp(dir, mp, n) && (dir[n] == '/' || !dir[n] || n == 1) &&
		    n >= strlen(best)) {
			snprintf(best, sizeof(best), "%s", mp);
			snprintf(fs, len, "%s", type);
			snprintf(mopts, len, "%s", op);
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct counters a, b;
	struct result r = { .bad = -1 };
	struct utsname u;
	struct opts o;
	char fs[256], mopts[256], knob[128] = "n/a", *nl;
	double t0, t1, c0, c1;
	int ret = 0;

	parse(argc, argv, &o);
	uname(&u);
	mount_of(o.dir, fs, mopts, sizeof(fs));
	if (!read_text("/sys/kernel/mm/transparent_hugepage/page_cache", knob, sizeof(knob)) &&
	    (nl = strchr(knob, '\n')))
		*nl = 0;

	if (workload.prepare && workload.prepare(&o))
		ret = fail(&r, "prepare: %s", strerror(errno));
	settle_slab("radix_tree_node");
	counters_read(&a);
	t0 = now_s();
	c0 = cpu_s();
	if (!ret)
		ret = workload.run(&o, &r);
	t1 = now_s();
	c1 = cpu_s();
	counters_read(&b);
	if (!ret && o.corrupt)
		corrupt_file(&o);
	if (!ret && o.verify && workload.verify)
		ret = workload.verify(&o, &r);
	if (workload.cleanup)
		workload.cleanup(&o);
	else
		unlink(o.path);

	printf("{\"type\":\"workload\",\"workload\":\"%s\",\"mode\":\"%s\","
	       "\"params\":{\"size\":%llu,\"bs\":%llu,\"passes\":%d,\"pattern\":\"%s\","
	       "\"seed\":%llu,\"threads\":%d,\"madvise\":\"%s\",\"private\":%d,\"verify\":%d},"
	       "\"kernel\":\"%s\",\"dir\":\"%s\",\"fs\":\"%s\",\"mount\":\"%s\",\"knob\":\"%s\","
	       "\"wall_s\":%.6f,\"cpu_s\":%.6f,\"bytes\":%llu,\"mib_s\":%.3f,",
	       workload.name, o.mode, (unsigned long long)o.size, (unsigned long long)o.bs,
	       o.passes, o.random ? "random" : "seq", (unsigned long long)o.seed, o.threads,
	       o.madvise, o.private_map, o.verify, u.release, o.dir, fs, mopts, knob,
	       t1 - t0, c1 - c0, (unsigned long long)r.bytes,
	       t1 > t0 ? r.bytes / MiB / (t1 - t0) : 0.0);
	counters_json(stdout, &a, &b);
	if (r.bad >= 0 && !r.error[0])
		snprintf(r.error, sizeof(r.error), "data mismatch at offset %lld", r.bad);
	printf(",\"ok\":%s,\"error\":\"%s\"}\n", ret ? "false" : "true", r.error);
	return ret ? 1 : 0;
}
