// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-cfi-dump FILE: print the unwind rows vmstack derives from FILE's
 * CFI, one per line: "VADDR cfa=KIND off=N rbp=KIND rbpoff=M". The host
 * tests compare them with readelf's own decoding (tests/host/). Why rules
 * fell back to the frame pointer goes to stderr ("refused: REASON N ...").
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>

#include "unwind/cfi.h"

int main(int argc, char **argv)
{
	struct vmstack_cfi_table t;
	size_t i;
	Elf *e;
	int fd;

	if (argc != 2)
		return 2;
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!e || vmstack_cfi_build(e, &t)) {
		fprintf(stderr, "%s: no usable CFI\n", argv[1]);
		return 1;
	}
	printf("fdes %zu rows %zu fallback %zu\n", t.fdes, t.n, t.fallback_rows);
	if (t.fallback_rows) {
		fprintf(stderr, "refused:");
		for (i = 0; i < VMSTACK_CFI_REFUSALS; i++)
			if (t.refused[i])
				fprintf(stderr, " %s %zu", vmstack_cfi_refusal_name(i), t.refused[i]);
		fprintf(stderr, "\n");
	}
	for (i = 0; i < t.n; i++)
		printf("%" PRIx64 " cfa=%d off=%d rbp=%d rbpoff=%d\n", t.rows[i].vaddr,
		       t.rows[i].rule.cfa, t.rows[i].rule.cfa_off, t.rows[i].rule.rbp,
		       t.rows[i].rule.rbp_off);
	vmstack_cfi_free(&t);
	return 0;
}
