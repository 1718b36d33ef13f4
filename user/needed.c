// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "needed.h"
#include "util.h"

/* Append the DT_NEEDED names of @path found in @dirs and not yet in @out. */
static size_t add_needed(const char *path, const char *dirs, char **out,
			 size_t n, size_t max)
{
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return n;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Dyn dyn;
		int i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; gelf_getdyn(data, i, &dyn) && dyn.d_tag != DT_NULL; i++) {
			const char *name = dyn.d_tag == DT_NEEDED ?
				elf_strptr(e, sh.sh_link, dyn.d_un.d_val) : NULL;
			char *found, real[PATH_MAX];
			size_t k;

			if (!name || strchr(name, '/') || n == max)
				continue;
			found = find_in_dirs(dirs, name, F_OK);
			if (!found || !realpath(found, real)) {
				free(found);
				continue;
			}
			free(found);
			for (k = 0; k < n && strcmp(out[k], real); k++)
				;
			if (k == n)
				out[n++] = xstrdup(real);
		}
	}
	elf_end(e);
	close(fd);
	return n;
}

size_t vmstack_needed(const char *exe, const char *dirs, char **out, size_t max)
{
	size_t n, done;

	elf_version(EV_CURRENT);
	n = add_needed(exe, dirs, out, 0, max);
	/* Breadth first: each library found adds the ones it needs. */
	for (done = 0; done < n; done++)
		n = add_needed(out[done], dirs, out, n, max);
	return n;
}
