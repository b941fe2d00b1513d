// SPDX-License-Identifier: GPL-2.0
/*
 * Driver for the 6.1 tree's tools/testing/selftests/vm/split_huge_page_test.c,
 * which is linked in with its main() renamed.  Upstream's main() runs three
 * cases and exits at the first failure, and its first case (split_pmd_thp)
 * fails on a correct kernel: it faults four PMD-sized pages and then asks
 * smaps for exactly one.  So each case named on the command line runs here
 * in its own child, and its exit status is printed after its own output:
 *
 *   case <name>: exit <status>
 *
 * The results are informational; our own split probe is the one we count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/wait.h>

/* Globals and cases of split_huge_page_test.c. */
extern uint64_t pagesize, pmd_pagesize;
extern unsigned int pageshift;
uint64_t read_pmd_pagesize(void);
void split_pmd_thp(void);
void split_pte_mapped_thp(void);
void split_file_backed_thp(void);

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "split_pmd_thp", split_pmd_thp },
	{ "split_pte_mapped_thp", split_pte_mapped_thp },
	{ "split_file_backed_thp", split_file_backed_thp },
};

static int run_case(const char *name)
{
	size_t i;
	pid_t pid;
	int st;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, name))
			break;
	if (i == sizeof(cases) / sizeof(cases[0])) {
		fprintf(stderr, "split-cases: unknown case '%s'\n", name);
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		cases[i].fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("waitpid");
		return 2;
	}
	if (WIFEXITED(st))
		printf("case %s: exit %d\n", name, WEXITSTATUS(st));
	else
		printf("case %s: signal %d\n", name, WTERMSIG(st));
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CASE...\n", argv[0]);
		return 2;
	}
	pagesize = getpagesize();
	pageshift = ffs(pagesize) - 1;
	pmd_pagesize = read_pmd_pagesize();
	for (i = 1; i < argc; i++)
		rc |= run_case(argv[i]);
	return rc;
}
