// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "maps.h"
#include "util.h"

int vmstack_map_parse(char *line, struct vmstack_map *m)
{
	unsigned long long start, end, offset, inode;
	unsigned int major, minor;
	char perms[8];
	int pos = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &offset, &major, &minor, &inode, &pos) < 7 || !pos ||
	    end <= start || strlen(perms) != 4)
		return -1;
	m->dev = makedev(major, minor);
	m->start = start;
	m->end = end;
	m->offset = offset;
	m->inode = inode;
	memcpy(m->perms, perms, 5);
	m->path = line + pos;
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

static int same_map(const struct vmstack_map *a, const struct vmstack_map *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && a->inode == b->inode && a->dev == b->dev &&
	       !strcmp(a->perms, b->perms) && !strcmp(a->path, b->path);
}

size_t vmstack_maps_update(struct vmstack_maps *maps, FILE *f)
{
	char line[4096 + 128];
	struct vmstack_map m;
	size_t i, added = 0;

	while (fgets(line, sizeof(line), f)) {
		if (vmstack_map_parse(line, &m))
			continue;
		for (i = 0; i < maps->n; i++)
			if (same_map(&maps->v[i], &m))
				break;
		if (i < maps->n)
			continue;
		if (maps->n == maps->cap) {
			maps->cap = maps->cap ? 2 * maps->cap : 64;
			maps->v = xrealloc(maps->v, maps->cap * sizeof(m));
		}
		m.path = xstrdup(m.path);
		maps->v[maps->n++] = m;
		added++;
	}
	return added;
}

struct vmstack_map *vmstack_maps_find(const struct vmstack_maps *maps, uint64_t addr)
{
	size_t i;

	for (i = maps->n; i-- > 0;)
		if (addr >= maps->v[i].start && addr < maps->v[i].end)
			return &maps->v[i];
	return NULL;
}

void vmstack_maps_free(struct vmstack_maps *maps)
{
	size_t i;

	for (i = 0; i < maps->n; i++)
		free(maps->v[i].path);
	free(maps->v);
	memset(maps, 0, sizeof(*maps));
}
