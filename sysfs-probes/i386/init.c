// PID 1 of the 32-bit boot (make boot-i386): the initramfs has no busybox
// (Debian's busybox-static is 64-bit), so mount what probe-verify needs, show
// that the guest has highmem, run the probe on the console and reboot (QEMU
// runs with -no-reboot: that ends it).
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!prefix || !strncmp(line, prefix, strlen(prefix)))
			printf("i386-init: %s: %s", path, line);
	if (f)
		fclose(f);
}

int main(void)
{
	char *argv[] = { "/bin/probe-verify", NULL };
	struct utsname u;
	int status = -1;
	pid_t pid;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 01777);
	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	printf("i386-init: %s %s %s\n", u.sysname, u.release, u.machine);
	show("/proc/meminfo", "HighTotal");
	show("/proc/meminfo", "LowTotal");
	show("/sys/kernel/mm/transparent_hugepage/page_cache", NULL);
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		perror("i386-init: exec probe-verify");
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	printf("i386-init: probe-verify exit status %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	sync();
	/* No ACPI in this config to power off: reboot, and QEMU's -no-reboot exits. */
	reboot(RB_AUTOBOOT);
	return 0;
}
