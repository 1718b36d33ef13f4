/* SPDX-License-Identifier: GPL-2.0 */
/* The mappings of a process, as /proc/PID/maps lists them over time. */
#ifndef VMSTACK_MAPS_H
#define VMSTACK_MAPS_H

#include <stdint.h>
#include <stdio.h>

struct vmstack_file;

struct vmstack_map {
	uint64_t start, end, offset, inode;
	uint64_t dev;		/* makedev(major, minor) of the file's device */
	char perms[5];
	char *path;		/* "" for anonymous memory */
	struct vmstack_file *file;	/* its file's object (user/file.h), if it has one */
};

/*
 * Every mapping ever seen: a process unmaps libraries and exits before the
 * recording ends, and its samples still need names.
 */
struct vmstack_maps {
	struct vmstack_map *v;
	size_t n, cap;
};

/* Parse one line of /proc/PID/maps; 0 on success. path points into line. */
int vmstack_map_parse(char *line, struct vmstack_map *m);
/* Add the mappings of @f not yet known; returns how many were new. */
size_t vmstack_maps_update(struct vmstack_maps *maps, FILE *f);
/* The newest mapping containing addr, or NULL. */
struct vmstack_map *vmstack_maps_find(const struct vmstack_maps *maps, uint64_t addr);
void vmstack_maps_free(struct vmstack_maps *maps);

#endif
