#define _GNU_SOURCE
#include "thp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return 0;
}

int cmdline_has(const char *word)
{
	char buf[4096], *p, *save;

	if (read_text("/proc/cmdline", buf, sizeof(buf)))
		return 0;
	for (p = strtok_r(buf, " \n", &save); p; p = strtok_r(NULL, " \n", &save))
		if (!strcmp(p, word))
			return 1;
	return 0;
}

long klog_count(const char *needle)
{
	static char buf[1 << 20];
	int n = klogctl(3, buf, sizeof(buf) - 1);
	long count = 0;
	char *p = buf;

	if (n < 0)
		return -1;
	buf[n] = 0;
	while ((p = strstr(p, needle)))
		count++, p++;
	return count;
}

int write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* "Name:   value kB" or "name value" lines; prefix lets node files match. */
static long field_in(const char *path, const char *prefix, const char *field)
{
	static char buf[64 * 1024];
	size_t fl = strlen(field);
	char *p;

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *q = p;

		if (prefix) {
			if (strncmp(q, prefix, strlen(prefix)))
				continue;
			q += strlen(prefix);
		}
		if (strncmp(q, field, fl) || (q[fl] != ':' && q[fl] != ' '))
			continue;
		return strtol(q + fl + 1, NULL, 10);
	}
	return -1;
}

long meminfo_kb(const char *field)
{
	return field_in("/proc/meminfo", NULL, field);
}

long node_meminfo_kb(int node, const char *field)
{
	char path[96], prefix[32];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	snprintf(prefix, sizeof(prefix), "Node %d ", node);
	return field_in(path, prefix, field);
}

long vmstat_get(const char *field)
{
	return field_in("/proc/vmstat", NULL, field);
}

long cgroup_stat(const char *cgroup, const char *file, const char *field)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	if (!*field) {		/* a file holding just a number */
		char buf[64];

		return read_text(path, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 10);
	}
	return field_in(path, NULL, field);
}

/*
 * A memcg's memory.stat @field, exact.  Reading memory.stat flushes the
 * per-CPU counts only once more than one batch of 64 pages per online CPU
 * (MEMCG_CHARGE_BATCH, counted over all memcgs) has piled up since the
 * last flush (a periodic one every 2 s), so it may lag.  Reading the cgroup's cpu.stat flushes
 * its subtree's rstat counts, memcg's among them, whatever changed.
 */
long memcg_stat_exact(const char *cgroup, const char *field)
{
	if (cgroup_stat(cgroup, "cpu.stat", "usage_usec") < 0)
		return -1;
	return cgroup_stat(cgroup, "memory.stat", field);
}

/* Active objects times object size, from /proc/slabinfo. */
long slab_bytes(const char *cache)
{
	static char buf[64 * 1024];
	long active, num, size;
	char *p;

	if (read_text("/proc/slabinfo", buf, sizeof(buf)))
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t cl = strlen(cache);

		if (strncmp(p, cache, cl) || p[cl] != ' ')
			continue;
		if (sscanf(p + cl, "%ld %ld %ld", &active, &num, &size) != 3)
			return -1;
		return active * size;
	}
	return -1;
}

/*
 * Pages waiting in the per-CPU free lists of every zone ("count:" in
 * /proc/zoneinfo, in pages whatever their order): free, yet not in
 * MemFree, and a freed huge folio may wait there whole.
 */
long pcp_pages(void)
{
	static char buf[256 * 1024];
	long total = 0, n;
	char *p;

	if (read_text("/proc/zoneinfo", buf, sizeof(buf)))
		return -1;
	for (p = buf; (p = strstr(p, "count:")); p += 6)
		if (sscanf(p + 6, "%ld", &n) == 1)
			total += n;
	return total;
}

/*
 * Free blocks of 2 MiB or more on @node (-1: every node), in 2 MiB units,
 * from /proc/buddyinfo ("Node 0, zone   DMA32   n0 n1 ... n10").  ZONE_DMA
 * is left out: its lowmem_reserve keeps user allocations away from it.
 * A page held in a per-CPU free list is not in buddyinfo: the block it
 * sits in is not counted, although a drain would make it whole.
 */
long free_2m_blocks(int node)
{
	char buf[4096];	/* not static: writer threads call it at once (knob) */
	long total = 0;
	char *line, *save = NULL;

	if (read_text("/proc/buddyinfo", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char zone[16], *p = strstr(line, "zone");
		int nid, order, n;
		long count;

		if (sscanf(line, "Node %d", &nid) != 1 || (node >= 0 && nid != node) ||
		    !p || sscanf(p, "zone %15s%n", zone, &n) != 1 || !strcmp(zone, "DMA"))
			continue;
		p += n;
		for (order = 0; sscanf(p, "%ld%n", &count, &n) == 1; order++, p += n)
			if (order >= 9)
				total += count << (order - 9);
	}
	return total;
}

/*
 * xarray nodes of a file deleted just before are freed after an RCU grace
 * period; counted during the next run they would show as negative.  Wait
 * (up to about a second) until the node count holds still for 3 x 10 ms.
 */
void settle_slab(const char *cache)
{
	long last = slab_bytes(cache), v;
	int still = 0, i;

	for (i = 0; i < 100 && last >= 0 && still < 3; i++) {
		usleep(10000);
		v = slab_bytes(cache);
		still = v == last ? still + 1 : 0;
		last = v;
	}
}

const char *const counter_names[] = {
	"FileHugePages", "FilePmdMapped", "MemFree", "Unevictable",
	"ShmemHugePages", "node0.FileHugePages", "node1.FileHugePages",
	"thp_file_alloc", "thp_file_fallback",
	"thp_file_mapped", "thp_split_page", "thp_split_page_failed",
	"thp_split_pmd", "pgfault", "nr_file_hugepages", "nr_dirty",
	"nr_file_pages", "radix_tree_node",
};
const int nr_counters = sizeof(counter_names) / sizeof(counter_names[0]);

/*
 * Fold the per-CPU vmstat diffs into the global counters, which otherwise
 * lag by up to a threshold per CPU: exact deltas need this first.
 */
void vm_stat_refresh(void)
{
	write_bytes("/proc/sys/vm/stat_refresh", "1", 1);
}

void counters_read(struct counters *c)
{
	struct rusage ru;
	int i;

	vm_stat_refresh();
	for (i = 0; i < nr_counters; i++) {
		const char *n = counter_names[i];

		if (!strncmp(n, "node", 4))
			c->v[i] = node_meminfo_kb(n[4] - '0', strchr(n, '.') + 1);
		else if (!strcmp(n, "radix_tree_node"))
			c->v[i] = slab_bytes(n);
		else if (n[0] >= 'A' && n[0] <= 'Z')
			c->v[i] = meminfo_kb(n);
		else
			c->v[i] = vmstat_get(n);
	}
	getrusage(RUSAGE_SELF, &ru);
	/* Faults on ramfs holes are major ones (->read_folio ran): count both. */
	c->minflt = ru.ru_minflt + ru.ru_majflt;
}

long counter_delta(const struct counters *a, const struct counters *b,
		   const char *name)
{
	int i;

	if (!strcmp(name, "minflt"))
		return b->minflt - a->minflt;
	for (i = 0; i < nr_counters; i++)
		if (!strcmp(counter_names[i], name))
			return (a->v[i] < 0 || b->v[i] < 0) ? 0 : b->v[i] - a->v[i];
	return 0;
}

/* "KEY":{...} with counters the kernel has; meminfo in kB. */
void counters_json(FILE *f, const char *key, const struct counters *a,
		   const struct counters *b)
{
	int i;

	fprintf(f, "\"%s\":{\"minflt\":%ld", key, b->minflt - a->minflt);
	for (i = 0; i < nr_counters; i++)
		if (a->v[i] >= 0 && b->v[i] >= 0)
			fprintf(f, ",\"%s\":%ld", counter_names[i], b->v[i] - a->v[i]);
	fprintf(f, "}");
}

static inline uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* One 64-bit word per 8 bytes of file: cheap enough under TCG. */
static inline uint64_t pattern_word(uint64_t seed, uint64_t word)
{
	return mix(seed ^ mix(word));
}

void pattern_fill(unsigned char *buf, size_t len, uint64_t off, uint64_t seed)
{
	while (len) {
		uint64_t w = pattern_word(seed, off / 8);
		size_t at = off % 8, n = 8 - at;

		if (n > len)
			n = len;
		memcpy(buf, (unsigned char *)&w + at, n);
		buf += n;
		off += n;
		len -= n;
	}
}

long long pattern_check(const unsigned char *buf, size_t len, uint64_t off,
			uint64_t seed)
{
	size_t i = 0;

	while (i < len) {
		uint64_t w = pattern_word(seed, (off + i) / 8);
		size_t at = (off + i) % 8, n = 8 - at;

		if (n > len - i)
			n = len - i;
		if (memcmp(buf + i, (unsigned char *)&w + at, n)) {
			while (buf[i] == ((unsigned char *)&w)[at])
				i++, at++;
			return off + i;
		}
		i += n;
	}
	return -1;
}

long long zero_check(const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i])
			return i;
	return -1;
}

long long check_pattern(const void *seed, const unsigned char *buf,
			size_t len, uint64_t off)
{
	return pattern_check(buf, len, off, *(const uint64_t *)seed);
}

long long check_zero(const void *unused, const unsigned char *buf,
		     size_t len, uint64_t off)
{
	long long z = zero_check(buf, len);

	(void)unused;
	return z < 0 ? -1 : (long long)off + z;
}

long long read_check(int fd, uint64_t off, uint64_t len, check_fn check,
		     const void *arg, int to_eof, long long *short_at)
{
	/* A small fixed buffer, whatever @len: 1 MiB, two reads a huge folio. */
	unsigned char *buf = malloc(MiB);
	uint64_t end = off + len, at;
	long long bad = -1, cut = -1;
	int err = ENOMEM;

	if (!buf)
		cut = off;
	for (at = off; buf && at < end && bad < 0 && cut < 0; at += MiB) {
		size_t want = end - at < MiB ? end - at : MiB;
		ssize_t got;

		/* Bytes a read claims but does not copy must not pass as zeros. */
		memset(buf, READ_POISON, want);
		got = pread(fd, buf, want, at);

		if (got > 0)
			bad = check(arg, buf, got, at);
		err = got < 0 ? errno : ENODATA;
		/* A bad byte before the cut is the first thing wrong. */
		if (bad < 0 && (got < 0 || ((size_t)got < want && !to_eof)))
			cut = at + (got > 0 ? got : 0);
		if (got < (ssize_t)want)
			break;
	}
	free(buf);
	if (short_at)
		*short_at = cut;
	if (cut >= 0)
		errno = err;
	return bad >= 0 ? bad : cut;
}

long long fd_check_pattern(int fd, uint64_t off, uint64_t len, uint64_t seed)
{
	return read_check(fd, off, len, check_pattern, &seed, 0, NULL);
}

long long fd_check_zero(int fd, uint64_t off, uint64_t len)
{
	return read_check(fd, off, len, check_zero, NULL, 0, NULL);
}

int fill_fd(int fd, uint64_t len, size_t bs, uint64_t seed)
{
	unsigned char *buf = malloc(bs);
	uint64_t off;
	int ret = buf ? 0 : -1;

	for (off = 0; off < len && !ret; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		pattern_fill(buf, n, off, seed);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			ret = -1;
	}
	free(buf);
	return ret;
}

int fill_file(const char *path, int flags, uint64_t len, size_t bs, uint64_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644), ret;

	if (fd < 0)
		return -1;
	ret = fill_fd(fd, len, bs, seed);
	close(fd);
	return ret;
}

int write_file(const char *path, uint64_t len, size_t bs, uint64_t seed)
{
	return fill_file(path, O_TRUNC, len, bs, seed);
}

long long check_file(const char *path, uint64_t len, uint64_t seed)
{
	int fd = open(path, O_RDONLY);
	long long bad;

	if (fd < 0)
		return 0;
	bad = fd_check_pattern(fd, 0, len, seed);
	close(fd);
	return bad;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v, mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = KiB; end++; break;
	case 'm': case 'M': mult = MiB; end++; break;
	case 'g': case 'G': mult = GiB; end++; break;
	}
	/* 20000000000G would wrap to a small size: refuse it. */
	if (*end || v > ULLONG_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

uint64_t rng_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return mix(*state);
}

/* A pagemap entry: bit 63 present, bits 0-54 the PFN (0 unless root). */
#define PM_PRESENT		(1ULL << 63)
#define PM_PFN_MASK		((1ULL << 55) - 1)

/*
 * The PFNs of the @n pages from @addr into @pfn, 0 where a page is not
 * present or its PFN hidden: 0, or -1 if pagemap would not say.
 */
static int pagemap_pfns(const void *addr, size_t n, uint64_t *pfn)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), ret = -1;
	size_t i;

	if (pm >= 0 && pread(pm, pfn, n * 8, (uintptr_t)addr / PAGE * 8) == (ssize_t)(n * 8))
		ret = 0;
	if (pm >= 0)
		close(pm);
	for (i = 0; !ret && i < n; i++)
		pfn[i] = pfn[i] & PM_PRESENT ? pfn[i] & PM_PFN_MASK : 0;
	return ret;
}

static int kpageflags_of(int kf, uint64_t pfn, uint64_t *flags)
{
	return pread(kf, flags, 8, pfn * 8) == 8 ? 0 : -1;
}

long long page_pfn(const void *addr)
{
	uint64_t pfn;

	return pagemap_pfns(addr, 1, &pfn) || !pfn ? -1 : (long long)pfn;
}

long long page_flags(const void *addr)
{
	long long pfn = page_pfn(addr), ret = -1;
	int kf = pfn < 0 ? -1 : open("/proc/kpageflags", O_RDONLY);
	uint64_t flags;

	if (kf >= 0 && !kpageflags_of(kf, pfn, &flags))
		ret = (long long)flags;
	if (kf >= 0)
		close(kf);
	return ret;
}

long resident(void *p, size_t len)
{
	size_t i, pages = (len + PAGE - 1) / PAGE;
	unsigned char *vec = malloc(pages);
	long n = 0;

	if (!vec || mincore(p, len, vec))
		n = -1;
	for (i = 0; n >= 0 && i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

long cached_pages(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	long n;

	if (p == MAP_FAILED)
		return -1;
	n = resident(p, len);
	munmap(p, len);
	return n;
}

/* Pages of the folio whose head is @pfn: the tails follow it in PFN order. */
static unsigned long folio_pages_at(int kf, uint64_t pfn)
{
	unsigned long n = 1;
	uint64_t flags;

	while (!kpageflags_of(kf, pfn + n, &flags) &&
	       (flags & (1ULL << KPF_COMPOUND_TAIL)))
		n++;
	return n;
}

long folio_orders(int fd, uint64_t len, unsigned long *hist, int max)
{
	size_t pages = (len + PAGE - 1) / PAGE, i = 0;
	int kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t *pfns = malloc(pages * 8 + 8);
	unsigned char *p = MAP_FAILED;
	long folios = -1;
	int err = 0;

	memset(hist, 0, max * sizeof(*hist));
	if (kf < 0 || !pfns || !pages)
		goto out;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED || pagemap_pfns(p, pages, pfns))
		goto out;
	folios = 0;
	while (i < pages) {
		uint64_t pfn = pfns[i], flags;
		unsigned long n = 1;
		int order = 0;

		/* Not present, or no PFN (not root): nothing to tell. */
		if (!pfn || kpageflags_of(kf, pfn, &flags)) {
			folios = -1;
			errno = EPERM;
			break;
		}
		if (flags & (1ULL << KPF_COMPOUND_HEAD))
			n = folio_pages_at(kf, pfn);
		while ((2UL << order) <= n)
			order++;
		hist[order < max ? order : max - 1]++;
		folios++;
		i += n;
	}
out:
	err = errno;
	if (p != MAP_FAILED)
		munmap(p, len);
	free(pfns);
	if (kf >= 0)
		close(kf);
	errno = err;
	return folios;
}

void folio_orders_json(FILE *f, const unsigned long *hist, int max)
{
	const char *sep = "";
	int o;

	fprintf(f, "\"orders\":{");
	for (o = 0; o < max; o++) {
		if (!hist[o])
			continue;
		fprintf(f, "%s\"%d\":%lu", sep, o, hist[o]);
		sep = ",";
	}
	fprintf(f, "}");
}

/*
 * The order of the folio holding the page mapped at @addr, or -1.  A
 * tail's flags do not say how far its head is, but a folio is a buddy
 * block, naturally aligned in PFNs: its head is the page at the smallest
 * alignment around @addr's that kpageflags does not call a tail.
 */
int folio_order_at(const void *addr)
{
	long long pfn = page_pfn(addr);
	int kf = pfn < 0 ? -1 : open("/proc/kpageflags", O_RDONLY);
	uint64_t head = pfn, flags, n = 1;
	int order = -1, o = 0;

	if (kf < 0)
		return -1;
	while (!kpageflags_of(kf, head, &flags) &&
	       (flags & (1ULL << KPF_COMPOUND_TAIL)) && o < MAX_FOLIO_ORDER)
		head = pfn & ~((2ULL << o++) - 1);
	if (!kpageflags_of(kf, head, &flags) && !(flags & (1ULL << KPF_COMPOUND_TAIL))) {
		if (flags & (1ULL << KPF_COMPOUND_HEAD))
			n = folio_pages_at(kf, head);
		/* A head whose folio ends before @addr's page is not its head. */
		for (order = 0; (2ULL << order) <= n; order++)
			;
		if (head + n <= (uint64_t)pfn)
			order = -1;
	}
	close(kf);
	return order;
}
