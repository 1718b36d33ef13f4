// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

static void *check(void *p)
{
	if (!p) {
		fputs("vmstack: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }

/* FNV-1a: short keys, no adversary; speed and spread are all we need. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t hash_words(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ seed, w;

	for (; n--; b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	/* Every input bit reaches the low bits a table's mask keeps. */
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 32);
}

size_t count_at_or_below(const void *base, size_t n, size_t size, size_t key_off,
			 uint64_t key)
{
	size_t lo = 0, hi = n;
	uint64_t k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&k, (const char *)base + mid * size + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

char *find_in_dirs(const char *dirs, const char *name, int amode)
{
	char *dup = xstrdup(dirs), *dir, *save = NULL, *found = NULL;
	size_t len;

	for (dir = strtok_r(dup, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		len = strlen(dir) + strlen(name) + 2;
		found = xmalloc(len);
		snprintf(found, len, "%s/%s", dir, name);
		if (access(found, amode)) {
			free(found);
			found = NULL;
		}
	}
	free(dup);
	return found;
}

char *read_file(const char *path, size_t max)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = xmalloc(max + 1);
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		free(buf);
		fclose(f);
		errno = n > max ? EFBIG : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	return buf;
}

int read_target(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}
