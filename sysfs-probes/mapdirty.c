// Stores through a shared mapping must dirty the folios they land in, or
// drop_caches drops them as clean and the data is gone: ramfs has nothing
// behind its page cache.  The folios here are made clean by faults on a
// hole, not by write(2): stores into the hole (write faults), and stores
// into pages a read fault mapped first (a read-only PMD or PTE that the
// store must make writable).  Each on huge=always (faults give PMD-sized
// folios, PMD-mapped) and huge=never (faults give 4 KiB folios, PTEs).
// While mapped, every folio must be dirty (kpageflags); after munmap and
// drop_caches=3 the data must read back and every page stay cached.  The
// control, read faults alone, shows that drop_caches does drop such folios
// when clean, so the survival above is not for free.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE	(8 * MiB)
#define DROP	"/proc/sys/vm/drop_caches"

enum how { READ_ONLY, STORE, READ_THEN_STORE };
static const char *const how_name[] = {
	"read faults only (control)", "stores into the hole (write faults)",
	"read faults, then stores",
};

/* Folios starting every @stride bytes of @p that kpageflags calls dirty. */
static long dirty(const unsigned char *p, size_t len, size_t stride)
{
	long n = 0;
	size_t off;

	for (off = 0; off < len; off += stride) {
		long long f = page_flags(p + off);

		if (f < 0)
			return -1;
		n += (f >> KPF_DIRTY) & 1;
	}
	return n;
}

static void one(const char *dir, int huge, enum how how)
{
	size_t stride = huge ? HPAGE : PAGE, off;
	long want_pmd = huge ? (long)(SIZE / KiB) : 0, pmd, d = -1, left;
	unsigned char *p;
	volatile unsigned char sink = 0;
	long long bad = 0;
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/mapdirty", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	p = fd < 0 || ftruncate(fd, SIZE) ? MAP_FAILED :
	    mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ksft_test_result_fail("mapdirty: %s: open/mmap: %s\n", dir, strerror(errno));
		goto out;
	}
	if (how != STORE)
		for (off = 0; off < SIZE; off += PAGE)
			sink = p[off];
	(void)sink;
	if (how != READ_ONLY)
		for (off = 0; off < SIZE; off += PAGE)
			pattern_fill(p + off, PAGE, off, 9);
	pmd = smaps_get(p, "FilePmdMapped");
	d = dirty(p, SIZE, stride);
	/*
	 * A folio still in an LRU-add batch holds a reference that
	 * drop_caches could not drop: 6.12's drop_caches drains every
	 * CPU's batch first (lru_add_drain_all()), so the control can
	 * expect every clean folio gone.
	 */
	munmap(p, SIZE);
	write_bytes(DROP, "3", 1);
	left = cached_pages(fd, SIZE);
	bad = how == READ_ONLY ? fd_check_zero(fd, 0, SIZE) : fd_check_pattern(fd, 0, SIZE, 9);
	if (how == READ_ONLY)
		ok = pmd == want_pmd && d == 0 && left == 0 && bad < 0;
	else
		ok = pmd == want_pmd && d == (long)(SIZE / stride) &&
		     left == (long)(SIZE / PAGE) && bad < 0;
	ksft_test_result(ok, "mapdirty: %s, %s: FilePmdMapped %ld kB (want %ld), %ld of %zu folios dirty while mapped (want %zu); after munmap and drop_caches %ld pages cached (want %zu), %s mismatch %lld\n",
			 huge ? "huge=always" : "huge=never", how_name[how], pmd, want_pmd, d,
			 SIZE / stride, how == READ_ONLY ? 0 : SIZE / stride, left,
			 how == READ_ONLY ? 0 : SIZE / PAGE,
			 how == READ_ONLY ? "zeros," : "data", bad);
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
}

int main(int argc, char **argv)
{
	const char *huge, *small;
	int h;

	/* Only THP: the 4K cases mean the same on a kernel without the series. */
	probe_init(argc, argv, "CONFIG_TRANSPARENT_HUGEPAGE");
	ksft_set_plan(2 * 3);
	huge = mount_fs("ramfs", "huge=always");
	small = mount_fs("ramfs", "huge=never");
	if (!huge || !small)
		ksft_exit_fail_msg("mount ramfs: %s\n", strerror(errno));
	for (h = 1; h >= 0; h--) {
		one(h ? huge : small, h, READ_ONLY);
		one(h ? huge : small, h, STORE);
		one(h ? huge : small, h, READ_THEN_STORE);
	}
	ksft_finished();
}
