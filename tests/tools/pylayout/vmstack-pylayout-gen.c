// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-pylayout-gen [LIB...]: user/vm/cpython/layout_table.c on
 * standard output, from the reference builds' DWARF (gen.h). Without
 * arguments, the pyenv builds of 3.9.18, 3.10.13, 3.12.1 and 3.13.0
 * ($PYENV_ROOT, else ~/.pyenv). `make pylayout-table` runs it.
 */
#include <gelf.h>
#include <stdio.h>

#include "gen.h"

int main(int argc, char **argv)
{
	char paths[PYLAYOUT_BUILDS][512], why[512] = "";
	const char *libs[PYLAYOUT_BUILDS];
	const char *const *which = libs;
	unsigned int i, n = PYLAYOUT_BUILDS;

	elf_version(EV_CURRENT);
	for (i = 0; i < PYLAYOUT_BUILDS; i++) {
		pylayout_pyenv_lib(paths[i], sizeof(paths[i]), pylayout_pyenv_versions[i]);
		libs[i] = paths[i];
	}
	if (argc > 1) {
		which = (const char *const *)argv + 1;
		n = (unsigned int)argc - 1;
	}
	if (pylayout_gen(stdout, which, n, why, sizeof(why))) {
		fprintf(stderr, "vmstack-pylayout-gen: %s\n", why);
		return 1;
	}
	return 0;
}
