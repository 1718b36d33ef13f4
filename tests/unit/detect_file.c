// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
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

const char *unit_patched_copy(const char *path, const void *old, const void *new, size_t len,
			      int once, const char *out)
{
	FILE *f = fopen(path, "r");
	char *data = NULL, *p = NULL;
	long size = -1;

	if (f && !fseek(f, 0, SEEK_END))
		size = ftell(f);
	if (f && size > 0 && (data = malloc((size_t)size))) {
		rewind(f);
		if (fread(data, 1, (size_t)size, f) == (size_t)size)
			p = memmem(data, (size_t)size, old, len);
	}
	if (f)
		fclose(f);
	CHECK(p != NULL);
	if (p && once)
		CHECK(!memmem(p + 1, (size_t)size - (size_t)(p + 1 - data), old, len));
	if (p) {
		memcpy(p, new, len);
		f = fopen(out, "w");
		CHECK(f && fwrite(data, 1, (size_t)size, f) == (size_t)size);
		if (f)
			fclose(f);
	}
	free(data);
	return p ? out : NULL;
}

size_t unit_build_id_bytes(const char *path, unsigned char *out, size_t max)
{
	struct stat st;
	struct vmstack_file *file;
	const char *hex;
	size_t n = 0;
	unsigned int byte;

	if (stat(path, &st))
		return 0;
	file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	hex = file ? vmstack_file_build_id(file) : "";
	while (n < max && hex[2 * n] && sscanf(hex + 2 * n, "%2x", &byte) == 1)
		out[n++] = (unsigned char)byte;
	vmstack_file_put(file);
	return n;
}
