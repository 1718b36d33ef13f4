// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "debuginfo.h"
#include "elf_facts.h"

#define DEBUG_ROOT "/usr/lib/debug"

static int open_build_id(Elf *elf)
{
	char id[2 * 64 + 1], path[sizeof(DEBUG_ROOT) + sizeof(id) + 32];

	/* Shorter ids than 2 bytes name no file under .build-id/xx/. */
	if (vmstack_elf_build_id(elf, id, sizeof(id)) || strlen(id) < 4)
		return -1;
	snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%.2s/%s.debug", id, id + 2);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* .gnu_debuglink: the debug file's name, then (4-aligned) its CRC32. */
static int debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, len;
	Elf_Data *data;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(s = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(s, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return -1;
		len = strnlen(data->d_buf, data->d_size);
		len = (len + 4) & ~(size_t)3;
		if (len + 4 > data->d_size)
			return -1;
		*name = data->d_buf;
		memcpy(crc, (const char *)data->d_buf + len, 4);
		/* Written in the file's byte order. */
		if ((elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB) !=
		    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			*crc = __builtin_bswap32(*crc);
		return 0;
	}
	return -1;
}

/* zlib's CRC32 (as gdb checks it); its length is an unsigned int. */
static uint32_t crc32_of(const unsigned char *b, size_t size)
{
	uLong c = crc32(0, Z_NULL, 0);
	size_t n;

	for (; size; b += n, size -= n) {
		n = size < 1u << 30 ? size : 1u << 30;
		c = crc32(c, b, (uInt)n);
	}
	return (uint32_t)c;
}

/* @path if it is a file whose CRC32 is @crc. */
static int open_checked(const char *path, uint32_t crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;
	int ok;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    (p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	ok = crc32_of(p, st.st_size) == crc;
	munmap(p, st.st_size);
	if (ok)
		return fd;
	close(fd);
	return -1;
}

static int open_debuglink(Elf *elf, const char *path)
{
	const char *name, *slash = strrchr(path, '/');
	char cand[PATH_MAX];
	int dirlen, fd, i;
	uint32_t crc;

	if (!slash || debuglink(elf, &name, &crc) || strchr(name, '/'))
		return -1;
	dirlen = (int)(slash - path);
	for (i = 0; i < 3; i++) {
		static const char *const forms[] = { "%.*s/%s", "%.*s/.debug/%s",
						     DEBUG_ROOT "%.*s/%s" };

		/* The file itself, when it keeps its debug info under its own name. */
		if (snprintf(cand, sizeof(cand), forms[i], dirlen, path, name) >=
		    (int)sizeof(cand) || !strcmp(cand, path))
			continue;
		fd = open_checked(cand, crc);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

int vmstack_debuginfo_open(Elf *elf, const char *path)
{
	int fd = open_build_id(elf);

	return fd >= 0 ? fd : open_debuglink(elf, path);
}
