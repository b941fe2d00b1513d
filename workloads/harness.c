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
		"  --corrupt      flip one byte before verifying (tests the check)\n"
		"  --orders       report the file's page-cache folios by order afterwards\n"
		"                 (\"orders\" in the JSON; root, a file without holes)\n"
		"  --files N      how many files (smallfiles), instead of as many as --size holds\n",
		workload.name, workload.description, workload.modes);
}

static void bad(const char *what, const char *val)
{
	if (val && *val)
		fprintf(stderr, "wl-%s: bad %s '%s' (try --help)\n", workload.name, what, val);
	else
		fprintf(stderr, "wl-%s: bad %s (try --help)\n", workload.name, what);
	exit(2);
}

static uint64_t positive(const char *what, const char *val)
{
	uint64_t v;

	if (parse_size(val, &v) || v == 0)
		bad(what, val);
	return v;
}

/* A count: checked before it is narrowed to int, so 2^32+1 is no 1. */
static int count(const char *what, const char *val, uint64_t max)
{
	uint64_t v = positive(what, val);

	if (v > max)
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
		{ "corrupt", 0, 0, 'c' }, { "orders", 0, 0, 'o' }, { "files", 1, 0, 'F' },
		{ "help", 0, 0, 'h' }, { 0 } };
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
		case 'p': o->passes = count("--passes", optarg, 1000000); break;
		case 't': o->threads = count("--threads", optarg, 64); break;
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
		case 'o': o->orders = 1; break;
		case 'F':
			if (!workload.takes_files)
				bad("--files (only wl-smallfiles makes more than one file)", "");
			o->files = count("--files", optarg, 1000000);
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		bad("argument", argv[optind]);
	if (workload.size_multiple_of_bs && o->size % o->bs)
		bad("--size (not a multiple of --bs)", "");
	if (workload.size_multiple_of_page && o->size % PAGE)
		bad("--size (not a multiple of 4K)", "");
	if (o->corrupt && !o->verify)
		bad("--corrupt (nothing checks the flip under --no-verify)", "");
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

struct wl_state wl = { .fd = -1 };

int block_order(const struct opts *o, uint64_t **v, uint64_t n, int pass)
{
	uint64_t *p = *v, i, st = o->seed * 1000003 + pass;

	if (!p && !(p = *v = calloc(n ? n : 1, sizeof(*p))))
		return -1;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n; o->random && i > 1; i--) {
		uint64_t j = rng_next(&st) % i, t = p[i - 1];

		p[i - 1] = p[j];
		p[j] = t;
	}
	return 0;
}

int create_file(const struct opts *o, int sparse, uint64_t seed)
{
	int fd;

	if (!sparse)
		return write_file(o->path, o->size, o->bs, seed);
	fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, o->size)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int open_file(const struct opts *o, int flags)
{
	if (wl.fd >= 0)
		close(wl.fd);
	wl.fd = open(o->path, flags, 0644);
	if (wl.fd < 0)
		return -1;
	if (!wl.buf && !(wl.buf = malloc(o->bs)))
		return -1;
	return 0;
}

int verify_with(const struct opts *o, struct result *r, check_fn check,
		const void *arg, int may_be_short)
{
	int fd = open(o->path, O_RDONLY), err;
	long long bad, short_at;

	if (fd < 0)
		return fail(r, "verify: %s", strerror(errno));
	bad = read_check(fd, 0, o->size, check, arg, may_be_short, &short_at);
	err = errno;
	close(fd);
	/* bad_off names a byte that read back wrong, never one not read. */
	if (short_at >= 0)
		return fail(r, "verify: read at %lld: %s", short_at, strerror(err));
	r->bad = bad;
	return bad >= 0 ? -1 : 0;
}

int verify_file(const struct opts *o, struct result *r)
{
	return verify_with(o, r, check_pattern, &o->seed, 0);
}

/*
 * --corrupt: flip one byte in the middle of the file, as a bug would.  The
 * new value is neither the old one, nor zero, nor the pattern, so a check
 * for the pattern, for zeros or for either (mixed) must see it.
 */
static long long corrupt_file(const struct opts *o, struct result *r)
{
	static const unsigned char masks[] = { 0x40, 0x01, 0x41 };
	int fd = open(o->path, O_RDWR);
	long long at = o->size / 2 + 1;
	unsigned char b, want, to = 0;
	unsigned int i;

	if (fd < 0) {
		fail(r, "corrupt: open: %s", strerror(errno));
		return -1;
	}
	if (pread(fd, &b, 1, at) != 1) {
		close(fd);
		fail(r, "corrupt: no byte at %lld to flip", at);
		return -1;
	}
	pattern_fill(&want, 1, at, o->seed);
	for (i = 0; i < sizeof(masks) && (!to || to == want); i++)
		to = b ^ masks[i];
	if (pwrite(fd, &to, 1, at) != 1) {
		fail(r, "corrupt: pwrite: %s", strerror(errno));
		at = -1;
	}
	close(fd);
	return at;
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

/* One pass: its set-up untimed, run() timed; times add up over passes. */
static int one_pass(const struct opts *o, int pass, struct result *r,
		    double *wall, double *cpu)
{
	double t0, c0;
	int ret;

	if (workload.setup && workload.setup(o, pass))
		return fail(r, "setup: %s", strerror(errno));
	t0 = now_s();
	c0 = cpu_s();
	ret = workload.run(o, pass, r);
	*wall += now_s() - t0;
	*cpu += cpu_s() - c0;
	return ret;
}

/* An offset, or null when there is none. */
static void print_off(const char *name, long long off)
{
	if (off >= 0)
		printf(",\"%s\":%lld", name, off);
	else
		printf(",\"%s\":null", name);
}

/*
 * --orders: the folios of the file the run left, by order, if it is there
 * and wholly cached (folio_orders() would fill a hole).  NULL, or why not:
 * the verdict accepts holes only where no PMD folio is promised.
 */
static const char *file_orders(const char *path, unsigned long *orders)
{
	int fd = open(path, O_RDONLY);
	const char *why = "no file";
	struct stat st;

	if (fd < 0)
		return why;
	if (!fstat(fd, &st) && st.st_size > 0) {
		long pages = (st.st_size + PAGE - 1) / PAGE;
		void *p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);

		why = "no mapping";
		if (p != MAP_FAILED) {
			why = resident(p, st.st_size) == pages ? NULL : "holes";
			munmap(p, st.st_size);
		}
		if (!why && folio_orders(fd, st.st_size, orders, MAX_FOLIO_ORDER) < 0)
			why = "pagemap unreadable";
	}
	close(fd);
	return why;
}

/*
 * Free 2 MiB blocks on each node into @v (at most @max nodes), or one
 * figure for all memory on a kernel without NUMA.  Returns the count.
 */
static int free_2m_per_node(long *v, int max)
{
	char path[64];
	int n;

	for (n = 0; n < max; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			break;
		v[n] = free_2m_blocks(n);
	}
	if (!n)
		v[n++] = free_2m_blocks(-1);
	return n;
}

int main(int argc, char **argv)
{
	struct counters start, a, b, end;
	struct result r = { .bad = -1, .corrupt_off = -1 };
	struct utsname u;
	struct opts o;
	const char *unit = workload.unit ? workload.unit : "bytes";
	char fs[256], mopts[256], knob[128] = "n/a", *nl;
	double wall = 0, cpu = 0;
	unsigned long orders[MAX_FOLIO_ORDER];
	long free2m[8];
	const char *no_orders = "not asked";
	int ret = 0, pass, nodes, i;

	parse(argc, argv, &o);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	mount_of(o.dir, fs, mopts, sizeof(fs));
	if (!read_text("/sys/kernel/mm/transparent_hugepage/page_cache", knob, sizeof(knob)) &&
	    (nl = strchr(knob, '\n')))
		*nl = 0;

	/*
	 * A huge folio needs a free 2 MiB block: with none the kernel falls
	 * back, as it should.  These and the counters over the whole case
	 * (the file may be made in prepare) let the verdict tell that from a
	 * policy that never tried.
	 */
	nodes = free_2m_per_node(free2m, sizeof(free2m) / sizeof(free2m[0]));
	counters_read(&start);
	if (workload.prepare && workload.prepare(&o))
		ret = fail(&r, "prepare: %s", strerror(errno));
	settle_slab("radix_tree_node");
	counters_read(&a);
	for (pass = 0; !ret && pass < o.passes; pass++)
		ret = one_pass(&o, pass, &r, &wall, &cpu);
	counters_read(&b);
	if (!ret && o.corrupt) {
		r.corrupt_off = (workload.corrupt ? workload.corrupt : corrupt_file)(&o, &r);
		ret = r.corrupt_off < 0;
	}
	if (!ret && o.verify && workload.verify)
		ret = workload.verify(&o, &r);
	if (o.orders)
		no_orders = file_orders(o.path, orders);
	counters_read(&end);
	if (workload.cleanup)
		workload.cleanup(&o);
	if (wl.fd >= 0)
		close(wl.fd);
	free(wl.buf);
	free(wl.order);
	unlink(o.path);

	/*
	 * Fields other code reads are never renamed; new ones are added.
	 * unit "pages": pages and pages_s count 4 KiB pages touched, one
	 * access each.  corrupt_off, bad_off: the byte --corrupt flipped and
	 * the first bad byte verify() found, null when none.  params.files:
	 * --files as given, 0 when the file count follows from --size.
	 * case_deltas: the counters from before prepare to after --orders;
	 * free_2m: free 2 MiB blocks per node before prepare.
	 */
	printf("{\"type\":\"workload\",\"workload\":\"%s\",\"mode\":\"%s\","
	       "\"params\":{\"size\":%llu,\"bs\":%llu,\"passes\":%d,\"pattern\":\"%s\","
	       "\"seed\":%llu,\"threads\":%d,\"madvise\":\"%s\",\"private\":%d,\"verify\":%d,"
	       "\"files\":%d},"
	       "\"kernel\":\"%s\",\"dir\":\"%s\",\"fs\":\"%s\",\"mount\":\"%s\",\"knob\":\"%s\","
	       "\"wall_s\":%.6f,\"cpu_s\":%.6f,\"bytes\":%llu,\"mib_s\":%.3f,\"unit\":\"%s\",",
	       workload.name, o.mode, (unsigned long long)o.size, (unsigned long long)o.bs,
	       o.passes, o.random ? "random" : "seq", (unsigned long long)o.seed, o.threads,
	       o.madvise, o.private_map, o.verify, o.files, u.release, o.dir, fs, mopts, knob,
	       wall, cpu, (unsigned long long)r.bytes,
	       wall > 0 ? (double)r.bytes / MiB / wall : 0.0, unit);
	if (!strcmp(unit, "pages"))
		printf("\"pages\":%llu,\"pages_s\":%.1f,", (unsigned long long)r.pages,
		       wall > 0 ? (double)r.pages / wall : 0.0);
	counters_json(stdout, "deltas", &a, &b);
	printf(",");
	counters_json(stdout, "case_deltas", &start, &end);
	printf(",\"free_2m\":[");
	for (i = 0; i < nodes; i++)
		printf("%s%ld", i ? "," : "", free2m[i]);
	printf("]");
	if (r.bad >= 0 && !r.error[0])
		snprintf(r.error, sizeof(r.error), "data mismatch at offset %lld", r.bad);
	print_off("corrupt_off", r.corrupt_off);
	print_off("bad_off", r.bad);
	if (workload.json)
		workload.json(stdout);
	if (o.orders) {
		printf(",");
		if (!no_orders)
			folio_orders_json(stdout, orders, MAX_FOLIO_ORDER);
		else
			printf("\"orders\":null,\"no_orders\":\"%s\"", no_orders);
	}
	printf(",\"ok\":%s,\"error\":\"%s\"}\n", ret ? "false" : "true", r.error);
	return ret ? 1 : 0;
}
