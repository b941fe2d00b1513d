// The ramfs huge= mount option: valid words (never, always, within_size,
// advise) mount and show in /proc/mounts, bad ones fail with EINVAL and
// mount nothing, remount changes the value, a failed remount and a remount
// without huge= keep it; unknown keys stay ignored.  That huge= beats the
// page_cache file, and deny and force beat huge=, is ramfs_thp_policy's
// (the series' selftest), as are huge=deny and huge=force, which fail.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* The huge= shown for @dir in /proc/mounts, "" if none, NULL if absent. */
static const char *shown(const char *dir)
{
	static char line[512], want[128];
	char *p, *e;
	FILE *f = fopen("/proc/mounts", "r");

	snprintf(want, sizeof(want), " %s ramfs ", dir);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, want))
			continue;
		fclose(f);
		p = strstr(line, "huge=");
		if (!p)
			return "";
		p += 5;
		e = strpbrk(p, ", ");
		if (e)
			*e = 0;
		return p;
	}
	if (f)
		fclose(f);
	return NULL;
}

/* Does @dir show huge=@want?  NULL (not mounted) never matches. */
static int shows(const char *dir, const char *want)
{
	const char *got = shown(dir);

	return got && !strcmp(got, want);
}

static const char *const words[] = { "always", "within_size", "advise", "never" };
static const char *const bad[] = { "huge=", "huge=bogus", "huge=1", "huge=alway",
				   "huge=ALWAYS", "huge=always ", "huge" };

static void test_valid(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		char opts[32];
		const char *dir, *got;

		snprintf(opts, sizeof(opts), "huge=%s", words[i]);
		dir = mount_fs("ramfs", opts);
		got = dir ? shown(dir) : NULL;
		ksft_test_result(got && !strcmp(got, words[i]),
				 "mount: huge=%s mounts and shows in /proc/mounts (got %s)\n",
				 words[i], got ? got : "no mount");
		if (dir)
			umount(dir);
	}
}

static void test_bad(void)
{
	char dir[64];
	unsigned int i;

	snprintf(dir, sizeof(dir), "/tmp/badmount.%d", getpid());
	mkdir(dir, 0755);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = mount("ramfs", dir, "ramfs", 0, bad[i]), e = errno;

		if (!ret)
			umount(dir);
		ksft_test_result(ret && e == EINVAL && !shown(dir),
				 "mount: '%s' fails with EINVAL, nothing mounted (ret %d, %s)\n",
				 bad[i], ret, ret ? strerror(e) : "mounted");
	}
	rmdir(dir);
}

static void test_remount(void)
{
	const char *dir = mount_fs("ramfs", "huge=always,nosuchoption=1");
	const char *got;
	int ret, e;

	ksft_test_result(dir && shows(dir, "always"),
			 "mount: unknown keys are ignored (huge=always,nosuchoption=1 mounts: %s)\n",
			 dir ? "yes" : strerror(errno));
	if (!dir)
		return;		/* probe_run() fails the other three */
	ret = mount("ramfs", dir, "ramfs", MS_REMOUNT, "huge=never");
	got = shown(dir);
	ksft_test_result(!ret && shows(dir, "never"),
			 "mount: remount huge=never takes effect (ret %d, shows %s)\n", ret, got ?: "no mount");
	ret = mount("ramfs", dir, "ramfs", MS_REMOUNT, "huge=junk");
	e = errno;
	got = shown(dir);
	ksft_test_result(ret && e == EINVAL && shows(dir, "never"),
			 "mount: bad remount fails with EINVAL and keeps huge=never (shows %s)\n",
			 got ?: "no mount");
	ret = mount("ramfs", dir, "ramfs", MS_REMOUNT, "mode=700");
	got = shown(dir);
	ksft_test_result(!ret && shows(dir, "never"),
			 "mount: remount without huge= keeps it (shows %s)\n", got ?: "no mount");
}

int main(int argc, char **argv)
{
	static const struct probe_case cases[] = {
		{ "valid words", test_valid, ARRAY_SIZE(words) },
		{ "bad values", test_bad, ARRAY_SIZE(bad) },
		{ "remount", test_remount, 4 },
	};

	probe_init(argc, argv, PAGECACHE_OPT);
	probe_run(cases, ARRAY_SIZE(cases));
	ksft_finished();
}
