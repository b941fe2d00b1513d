// Huge folios that write(2) already put in the page cache must not be
// mapped by PMD where the user refused huge pages: in a MADV_NOHUGEPAGE
// VMA, or in a process with PR_SET_THP_DISABLE.  The refusal is
// do_set_pmd()'s, at fault time, as stock 6.12 has it ("mm: don't install
// PMD mappings when THPs are disabled by the hw/process/vma"); v3 carried
// it as a patch of its own.  A sparse file cannot show it: the fault would
// not allocate a huge folio there in the first place (ramfs_thp_faults
// checks that side).  So: 8 MiB by write(2) on huge=always, which gives
// PMD-sized folios, then every page read through a read-only shared
// mapping, with smaps of that VMA saying how much was PMD-mapped.  The
// control, a plain mapping, must be PMD-mapped in full; the vetoed ones not
// at all, with the data intact and the folios still huge.  The same on
// tmpfs huge=always, which shares do_set_pmd().
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE	(8 * MiB)

enum how { PLAIN, NOHUGEPAGE, THP_DISABLE };
static const char *const how_name[] = {
	"plain mapping (control)", "MADV_NOHUGEPAGE", "PR_SET_THP_DISABLE child",
};

/* What a look at the file saw; in shared memory, for the child's sake. */
struct seen {
	long pmd;
	long long bad;
};

/* Map @fd, refuse huge pages as @how says, read every byte, unmap. */
static void look(int fd, const char *pmd_field, enum how how, struct seen *s)
{
	unsigned char *p;

	if (how == THP_DISABLE && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return;
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	if (how == NOHUGEPAGE && madvise(p, SIZE, MADV_NOHUGEPAGE))
		goto out;
	s->bad = pattern_check(p, SIZE, 0, 5);
	s->pmd = smaps_get(p, pmd_field);
out:
	munmap(p, SIZE);
}

/*
 * @huge_field: the meminfo count of this filesystem's huge folios;
 * @pmd_field: the smaps count of its PMD mappings.
 */
static void test_fs(const char *type, const char *huge_field, const char *pmd_field)
{
	struct seen *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const char *dir = mount_fs(type, "huge=always");
	long huge0, huge, still;
	char path[128];
	enum how how;
	int fd = -1;

	if (dir)
		snprintf(path, sizeof(path), "%s/pmdveto", dir);
	vm_stat_refresh();
	huge0 = meminfo_kb(huge_field);
	if (!dir || s == MAP_FAILED || write_file(path, SIZE, MiB, 5) ||
	    (fd = open(path, O_RDONLY)) < 0)
		msg("%s: mount/write: %s\n", type, strerror(errno));
	vm_stat_refresh();
	huge = meminfo_kb(huge_field) - huge0;
	for (how = PLAIN; how <= THP_DISABLE; how++) {
		long want = how == PLAIN ? (long)(SIZE / KiB) : 0;
		pid_t pid;
		int st = 0;

		s->pmd = -1;
		s->bad = 0;
		if (fd >= 0 && how == THP_DISABLE) {
			pid = fork();
			if (!pid) {
				look(fd, pmd_field, how, s);
				_exit(0);
			}
			waitpid(pid, &st, 0);
		} else if (fd >= 0) {
			look(fd, pmd_field, how, s);
		}
		vm_stat_refresh();
		still = meminfo_kb(huge_field) - huge0;
		ksft_test_result(huge == (long)(SIZE / KiB) && still == huge && s->pmd == want &&
				 s->bad < 0 && st == 0,
				 "pmdveto: %s huge=always, 8 MiB by write(2) (%s %+ld kB, want +%lu), %s: VMA %s %ld kB (want %ld), data mismatch %lld, %s now %+ld kB\n",
				 type, huge_field, huge, SIZE / KiB, how_name[how], pmd_field,
				 s->pmd, want, s->bad, huge_field, still);
	}
	if (fd >= 0)
		close(fd);
	if (dir)
		unlink(path);
	if (s != MAP_FAILED)
		munmap(s, sizeof(*s));
}

int main(int argc, char **argv)
{
	/* Only THP: tmpfs has huge folios without the series. */
	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE");
	ksft_set_plan(2 * 3);
	test_fs("ramfs", "FileHugePages", "FilePmdMapped");
	test_fs("tmpfs", "ShmemHugePages", "ShmemPmdMapped");
	ksft_finished();
}
