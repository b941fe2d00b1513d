#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int probe_node;
static int require;
/* Copies: callers may build the path in a buffer they reuse. */
static struct { char path[160]; char value[64]; } saved[8];
static int nr_saved;
static char mounts[8][64];
static int nr_mounts;

static void cleanup(void)
{
	while (nr_mounts > 0) {
		umount2(mounts[--nr_mounts], MNT_DETACH);
		rmdir(mounts[nr_mounts]);
	}
	while (nr_saved > 0) {
		nr_saved--;
		write_bytes(saved[nr_saved].path, saved[nr_saved].value,
			    strlen(saved[nr_saved].value));
	}
}

/*
 * A time limit's TERM: undo the mounts and knobs, then _exit().  exit()
 * would also run stdio's handlers, which a signal handler must not;
 * cleanup() makes only async-signal-safe calls.
 */
static void on_term(int sig)
{
	(void)sig;
	cleanup();
	_exit(KSFT_FAIL);
}

void probe_cleanup_on_term(void)
{
	signal(SIGTERM, on_term);
}

int config_has(const char *opt)
{
	char cmd[160], line[256];
	FILE *f;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "zcat /proc/config.gz 2>/dev/null | grep -x '%s=[ym]'", opt);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		found = 1;
	pclose(f);
	return found;
}

void probe_missing(const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (require) {
		ksft_set_plan(1);
		ksft_test_result_fail("%s (--require)\n", what);
		ksft_exit_fail();
	}
	ksft_exit_skip("%s\n", what);
	exit(KSFT_SKIP);	/* kselftest.h does not say it does not return */
}

void probe_init(int argc, char **argv, const char *opt)
{
	const char *req = getenv("THP_REQUIRE");
	int i;

	require = req && !strcmp(req, "1");

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--require")) {
			require = 1;
		} else if (!strcmp(argv[i], "--node") && i + 1 < argc) {
			probe_node = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--require] [--node N]\n", argv[0]);
			exit(2);
		}
	}
	/* Unbuffered: a crash must not swallow the lines before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	atexit(cleanup);
	/* A time limit's TERM restores what the probe changed, too. */
	probe_cleanup_on_term();
	if (opt && !config_has(opt))
		probe_missing("%s is not set in this kernel", opt);
}

int has_pagecache_thp(void)
{
	static int has = -1;

	/* The knob exists only with the option; a guest without zcat (boot-i386) has it too. */
	if (has < 0)
		has = !access(KNOB, F_OK) || config_has(PAGECACHE_OPT);
	return has;
}

const char *setting_get(const char *path)
{
	static char buf[256];
	char *a, *b;

	if (read_text(path, buf, sizeof(buf)))
		return NULL;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a) {
		buf[strcspn(buf, "\n")] = 0;
		return buf;
	}
	if (!b)
		return NULL;
	*b = 0;
	return a + 1;
}

int setting_set(const char *path, const char *value)
{
	int i;

	for (i = 0; i < nr_saved && strcmp(saved[i].path, path); i++)
		;
	if (i == nr_saved && nr_saved < (int)(sizeof(saved) / sizeof(saved[0]))) {
		const char *cur = setting_get(path);

		if (cur) {
			snprintf(saved[nr_saved].path, sizeof(saved[0].path), "%s", path);
			snprintf(saved[nr_saved].value, sizeof(saved[0].value), "%s", cur);
			nr_saved++;
		}
	}
	return write_bytes(path, value, strlen(value));
}

const char *knob_get(void)
{
	return setting_get(KNOB);
}

int knob_set(const char *word)
{
	return setting_set(KNOB, word);
}

void require_knob(const char *word)
{
	const char *cur = knob_get();

	if (!cur || strcmp(cur, word))
		ksft_exit_fail_msg("page_cache is %s, not %s as the kernel boots\n",
				   cur ? cur : "unreadable", word);
}

const char *mount_fs(const char *type, const char *opts)
{
	char *dir;

	if (nr_mounts == 8) {
		errno = EMFILE;
		return NULL;
	}
	dir = mounts[nr_mounts];
	snprintf(dir, sizeof(mounts[0]), "/tmp/%s.%d.%d", type, getpid(), nr_mounts);
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, opts)) {
		int e = errno;

		rmdir(dir);
		errno = e;
		return NULL;
	}
	nr_mounts++;
	return dir;
}

long nr_file_pages(void)
{
	vm_stat_refresh();
	return vmstat_get("nr_file_pages");
}

long meminfo_now_kb(const char *field)
{
	vm_stat_refresh();
	return meminfo_kb(field);
}

long smaps_get(const void *addr, const char *field)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long a = (unsigned long)addr, start, end;
	size_t fl = strlen(field);
	char line[512];
	int in = 0;
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A VMA's header line: "start-end perms offset dev inode path". */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = a >= start && a < end;
		else if (in && !strncmp(line, field, fl) && line[fl] == ':') {
			v = strtol(line + fl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int cgroup_join(const char *cg)
{
	char buf[512], want[128], pid[16];

	snprintf(buf, sizeof(buf), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_bytes(buf, pid, strlen(pid)))
		return 0;
	/* The line of the unified hierarchy: "0::/thp-memcg". */
	snprintf(want, sizeof(want), "0::%s\n", cg + strlen("/sys/fs/cgroup"));
	return !read_text("/proc/self/cgroup", buf, sizeof(buf)) && strstr(buf, want);
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		return 0;
	msg("pin to CPU %d: %s\n", cpu, strerror(errno));
	return -1;
}

long orders_of(const char *path, uint64_t len, unsigned long *hist,
	       char *text, size_t tlen)
{
	int fd = open(path, O_RDONLY);
	long n;
	size_t at = 0;
	int o;

	memset(hist, 0, MAX_FOLIO_ORDER * sizeof(*hist));
	n = fd < 0 ? -1 : folio_orders(fd, len, hist, MAX_FOLIO_ORDER);

	if (fd >= 0)
		close(fd);
	text[0] = 0;
	for (o = 0; n >= 0 && o < MAX_FOLIO_ORDER; o++)
		if (hist[o] && at < tlen)
			at += snprintf(text + at, tlen - at, "%s%d:%lu", at ? " " : "",
				       o, hist[o]);
	if (n < 0)
		snprintf(text, tlen, "unreadable (%s)", strerror(errno));
	return n;
}

int hist_is(const unsigned long *hist, const int (*want)[2])
{
	unsigned long expect[MAX_FOLIO_ORDER] = { 0 };
	int o;

	for (; (*want)[0] >= 0; want++)
		expect[(*want)[0]] = (*want)[1];
	for (o = 0; o < MAX_FOLIO_ORDER; o++)
		if (hist[o] != expect[o])
			return 0;
	return 1;
}
