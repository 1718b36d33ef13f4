// SPDX-License-Identifier: GPL-2.0
/* The table of VM runtimes (runtime.h): one row each. */
#include <string.h>

#include "runtime.h"

extern const struct vmstack_runtime vmstack_rt_luajit;
extern const struct vmstack_runtime vmstack_rt_lua54;
extern const struct vmstack_runtime vmstack_rt_lua53;
extern const struct vmstack_runtime vmstack_rt_lua52;
extern const struct vmstack_runtime vmstack_rt_lua51;
extern const struct vmstack_runtime vmstack_rt_cpython;
extern const struct vmstack_runtime vmstack_rt_php;
extern const struct vmstack_runtime vmstack_rt_ruby;

const struct vmstack_runtime *const vmstack_runtimes[] = {
	&vmstack_rt_luajit,
	&vmstack_rt_lua54,
	&vmstack_rt_lua53,
	&vmstack_rt_lua52,
	&vmstack_rt_lua51,
	&vmstack_rt_cpython,
	&vmstack_rt_php,
	&vmstack_rt_ruby,
	&vmstack_rt_cstring,
	NULL,
};

const struct vmstack_runtime *vmstack_runtime_find(const char *name)
{
	const struct vmstack_runtime *const *r;

	for (r = vmstack_runtimes; *r; r++)
		if (!strcmp((*r)->name, name) ||
		    ((*r)->alias && !strcmp((*r)->alias, name)))
			return *r;
	return NULL;
}
