#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int probe_node;
static char saved_knob[32];
static char mounts[8][64];
static int nr_mounts;

static void cleanup(void)
{
	while (nr_mounts > 0) {
		umount2(mounts[--nr_mounts], MNT_DETACH);
		rmdir(mounts[nr_mounts]);
	}
	if (saved_knob[0])
		write_bytes(KNOB, saved_knob, strlen(saved_knob));
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

void probe_init(int argc, char **argv, const char *opt)
{
	const char *req = getenv("THP_REQUIRE");
	int require = req && !strcmp(req, "1");
	int i;

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
	if (opt && !config_has(opt)) {
		if (require) {
			ksft_set_plan(1);
			ksft_test_result_fail("%s is not set in this kernel (--require)\n", opt);
			ksft_exit_fail();
		}
		ksft_exit_skip("%s is not set in this kernel\n", opt);
	}
}

const char *knob_get(void)
{
	static char buf[128];
	char *a, *b;

	if (read_text(KNOB, buf, sizeof(buf)))
		return NULL;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b)
		return NULL;
	*b = 0;
	return a + 1;
}

int knob_set(const char *word)
{
	if (!saved_knob[0]) {
		const char *cur = knob_get();

		if (cur)
			snprintf(saved_knob, sizeof(saved_knob), "%s", cur);
	}
	return write_bytes(KNOB, word, strlen(word));
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

int write_file(const char *path, size_t len, size_t bs, uint64_t seed)
{
	unsigned char *buf = malloc(bs);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), ret = 0;
	size_t off;

	if (fd < 0 || !buf) {
		free(buf);
		return -1;
	}
	for (off = 0; off < len && !ret; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		pattern_fill(buf, n, off, seed);
		if (write(fd, buf, n) != (ssize_t)n)
			ret = -1;
	}
	close(fd);
	free(buf);
	return ret;
}

long long check_file(const char *path, size_t len, uint64_t seed)
{
	size_t bs = MiB, off;
	unsigned char *buf = malloc(bs);
	int fd = open(path, O_RDONLY);
	long long bad = -1;

	if (fd < 0 || !buf) {
		free(buf);
		return 0;
	}
	for (off = 0; off < len && bad < 0; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		if (pread(fd, buf, n, off) != (ssize_t)n)
			bad = off;
		else
			bad = pattern_check(buf, n, off, seed);
	}
	close(fd);
	free(buf);
	return bad;
}
