// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin that counts the guest instructions executed
 * at every address, for make insns.  Under -icount, make bench's rates are
 * instruction counts; this says which functions the instructions are in,
 * exactly, where perf's samples leave a noise of about 1%.
 *
 * Each translation block gets one counter, bumped inline each time the
 * block runs; at exit every address of every block is written with its
 * block's count (a block cut short by an exception counts whole: rare
 * beside millions of calls).  A rep-prefixed instruction runs as a block
 * of its own once per iteration, so each iteration counts, as under
 * -icount.
 *
 * Built against the plugin ABI of Debian 12's QEMU 7.2 (API version 1,
 * whose inline counters take a plain pointer); QEMU ships no header for it,
 * so the few calls used are declared here.
 * usage: -plugin insncount.so,out=FILE   (lines "hexaddress count")
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *userdata);

EXPORT int qemu_plugin_version = 1;

/* One per translation: how often it ran, and its instructions' addresses. */
struct block {
	uint64_t count;
	struct block *next;
	size_t n;
	uint64_t addr[];
};

static struct block *blocks;
static const char *out_path;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b = calloc(1, sizeof(*b) + n * sizeof(b->addr[0]));

	if (!b)
		abort();
	b->n = n;
	for (i = 0; i < n; i++)
		b->addr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;
	size_t i;

	if (!f) {
		perror(out_path);
		return;
	}
	for (b = blocks; b; b = b->next)
		for (i = 0; b->count && i < b->n; i++)
			fprintf(f, "%llx %llu\n", (unsigned long long)b->addr[i],
				(unsigned long long)b->count);
	if (fclose(f))
		perror(out_path);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insncount: no out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
