// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <sys/stat.h>

#include "detect_file.h"
#include "file.h"
#include "maps.h"
#include "unit.h"

enum vmstack_detect unit_detect_file(const char *runtime, const char *path, uint64_t start,
				     struct vmstack_vm_found *f, char *why, size_t len)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(runtime);
	struct vmstack_map m = { .start = start, .end = start + 0x10000000 };
	enum vmstack_detect v;
	struct stat st;

	memset(f, 0, sizeof(*f));
	*why = 0;
	CHECK(rt != NULL && !stat(path, &st));
	if (!rt || stat(path, &st))
		return VMSTACK_DETECT_NO;
	m.path = (char *)path;
	m.file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	v = rt->detect(&m, 0, f, why, len);
	vmstack_file_put(m.file);
	return v;
}
