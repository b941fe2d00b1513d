// The 6.1 tree's khugepaged selftest (tools/testing/selftests/vm/khugepaged.c)
// with its file-collapse cases driven on a ramfs file.  Its own "file" mode
// wants a block device's read_ahead_kb and a file opened read-only
// (READ_ONLY_THP_FOR_FS), neither of which ramfs has, so this adapter
// includes the selftest whole and gives it one more mem_ops: a ramfs file
// written under page_cache=never (small folios), then mapped shared under
// advise, so that khugepaged takes it only where the selftest sets
// MADV_HUGEPAGE.  Each case and context is one TAP result: it passes when
// the selftest's own fail() was not called while it ran.  The cases that
// cannot apply to ramfs are named, with the reason, outside the plan.
// usage: upstream-khugepaged-ramfs   (as root; mounts its own ramfs)
#define main upstream_khugepaged_main
#include "khugepaged.c"
#undef main

#include <sys/mount.h>
#include "kselftest.h"

#define PAGE_CACHE_KNOB	"/sys/kernel/mm/transparent_hugepage/page_cache"

static char ramfs_dir[] = "/tmp/khugepaged-ramfs.XXXXXX";
static char ramfs_path[PATH_MAX];
static int ramfs_fd = -1;

/* Write @word to the page_cache knob; 0 or -1. */
static int page_cache(const char *word)
{
	int fd = open(PAGE_CACHE_KNOB, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, word, strlen(word));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(word) ? 0 : -1;
}

static void *ramfs_setup_area(int nr_hpages)
{
	unsigned long size = nr_hpages * hpage_pmd_size;
	void *p;

	printf("Creating %s on ramfs, small folios...", ramfs_path);
	unlink(ramfs_path);
	if (page_cache("never"))
		goto fail;
	ramfs_fd = open(ramfs_path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (ramfs_fd < 0)
		goto fail;
	p = alloc_mapping(nr_hpages);
	fill_memory(p, 0, size);
	if (write(ramfs_fd, p, size) != (ssize_t)size)
		goto fail;
	munmap(p, size);
	if (page_cache("advise"))
		goto fail;
	p = mmap(BASE_ADDR, size, PROT_READ | PROT_WRITE, MAP_SHARED, ramfs_fd, 0);
	if (p != BASE_ADDR)
		goto fail;
	success("OK");
	return p;
fail:
	perror("ramfs_setup_area");
	exit(EXIT_FAILURE);
}

static void ramfs_cleanup_area(void *p, unsigned long size)
{
	munmap(p, size);
	close(ramfs_fd);
	unlink(ramfs_path);
}

/* Whether the VMA that starts at @p has VmFlags @flag (two letters). */
static bool vma_flag(void *p, const char *flag)
{
	char line[512], start[32], want[8];
	bool in_vma = false, found = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f) {
		perror("/proc/self/smaps");
		exit(EXIT_FAILURE);
	}
	snprintf(start, sizeof(start), "%08lx-", (unsigned long)p);
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, start, strlen(start)))
			in_vma = true;
		else if (in_vma && !strncmp(line, "VmFlags:", 8)) {
			found = strstr(line, want) != NULL;
			break;
		}
	}
	fclose(f);
	if (!in_vma) {
		printf("no VMA starts at %p in /proc/self/smaps\n", p);
		exit(EXIT_FAILURE);
	}
	return found;
}

/*
 * The selftest's khugepaged context sets MADV_NOHUGEPAGE after the scan
 * and then re-faults, expecting a PMD mapping of the collapsed folio.
 * This series maps a huge folio with PTEs in an MADV_NOHUGEPAGE VMA (as
 * upstream does since 6.12), so for that re-fault the adapter sets
 * MADV_HUGEPAGE first: the fault then maps what the page cache holds and
 * allocates nothing (the file has no hole).  Only then: a first fault in
 * an MADV_HUGEPAGE VMA lets khugepaged collapse the range while it is
 * being faulted in, and the rest of it is then PMD-mapped before the
 * selftest's "no huge page yet" sanity check.
 */
static void ramfs_fault(void *p, unsigned long start, unsigned long end)
{
	if (vma_flag(p, "nh") &&
	    madvise((char *)p + start, end - start, MADV_HUGEPAGE)) {
		perror("madvise(MADV_HUGEPAGE)");
		exit(EXIT_FAILURE);
	}
	file_fault(p, start, end);
}

static bool ramfs_check_huge(void *addr, int nr_hpages)
{
	return check_huge_file(addr, nr_hpages, hpage_pmd_size);
}

static struct mem_ops ramfs_ops = {
	.setup_area = &ramfs_setup_area,
	.cleanup_area = &ramfs_cleanup_area,
	.fault = &ramfs_fault,
	.check_huge = &ramfs_check_huge,
	.name = "ramfs",
};

typedef void (*test_fn)(struct collapse_context *c, struct mem_ops *ops);

static const struct ramfs_case {
	const char *name;
	test_fn fn;
	bool khugepaged, madvise;
	const char *na;		/* why it cannot apply to ramfs, or NULL */
} cases[] = {
	{ "collapse_full", collapse_full, true, true, NULL },
	{ "collapse_single_pte_entry", collapse_single_pte_entry, true, true, NULL },
	{ "collapse_max_ptes_none", collapse_max_ptes_none, true, true,
	  "a written ramfs file has every page in the page cache, and max_ptes_none "
	  "counts page cache holes (the selftest skips tmpfs likewise)" },
	{ "collapse_single_pte_entry_compound", collapse_single_pte_entry_compound, true, true,
	  "MADV_DONTNEED does not evict ramfs pages (the selftest skips tmpfs likewise)" },
	{ "collapse_full_of_compound", collapse_full_of_compound, true, true, NULL },
	{ "madvise_collapse_existing_thps", madvise_collapse_existing_thps, false, true, NULL },
	{ "madvise_retracted_page_tables", madvise_retracted_page_tables, false, true, NULL },
};

int main(void)
{
	struct settings default_settings = {
		.thp_enabled = THP_MADVISE,
		.thp_defrag = THP_DEFRAG_ALWAYS,
		.shmem_enabled = SHMEM_ADVISE,
		.use_zero_page = 0,
		.khugepaged = {
			.defrag = 1,
			.alloc_sleep_millisecs = 10,
			.scan_sleep_millisecs = 10,
		},
	};
	char old[64] = "", *b;
	unsigned int i, plan = 0;

	setbuf(stdout, NULL);
	ksft_print_header();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!cases[i].na)
			plan += cases[i].khugepaged + cases[i].madvise;
	ksft_set_plan(plan);
	if (read_file(PAGE_CACHE_KNOB, old, sizeof(old)) <= 0 ||
	    !(b = strchr(old, '[')) || !strchr(b, ']'))
		ksft_exit_fail_msg("no %s: not the patched kernel\n", PAGE_CACHE_KNOB);
	memmove(old, b + 1, strlen(b));
	*strchr(old, ']') = 0;
	if (!mkdtemp(ramfs_dir) || mount("ramfs", ramfs_dir, "ramfs", 0, NULL))
		ksft_exit_fail_msg("mount ramfs on %s: %s\n", ramfs_dir, strerror(errno));
	snprintf(ramfs_path, sizeof(ramfs_path), "%s/" TEST_FILE, ramfs_dir);

	page_size = getpagesize();
	hpage_pmd_size = read_pmd_pagesize();
	hpage_pmd_nr = hpage_pmd_size / page_size;
	default_settings.khugepaged.max_ptes_none = hpage_pmd_nr - 1;
	default_settings.khugepaged.max_ptes_swap = hpage_pmd_nr / 8;
	default_settings.khugepaged.max_ptes_shared = hpage_pmd_nr / 2;
	default_settings.khugepaged.pages_to_scan = hpage_pmd_nr * 8;
	save_settings();
	push_settings(&default_settings);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ramfs_case *t = &cases[i];
		struct collapse_context *ctx[2] = {
			t->khugepaged ? &__khugepaged_context : NULL,
			t->madvise ? &__madvise_context : NULL,
		};
		int k;

		for (k = 0; k < 2; k++) {
			int failed = exit_status;

			if (!ctx[k])
				continue;
			if (t->na) {
				ksft_print_msg("khugepaged selftest %s (%s): not for ramfs, not run: %s\n",
					       t->name, ctx[k]->name, t->na);
				continue;
			}
			printf("\nRun test: %s (%s:ramfs)\n", t->name, ctx[k]->name);
			t->fn(ctx[k], &ramfs_ops);
			ksft_test_result(exit_status == failed, "khugepaged selftest %s (%s:ramfs)\n",
					 t->name, ctx[k]->name);
		}
	}

	write_settings(&saved_settings);
	page_cache(old);
	umount(ramfs_dir);
	rmdir(ramfs_dir);
	ksft_finished();
}
