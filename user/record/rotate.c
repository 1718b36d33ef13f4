// SPDX-License-Identifier: GPL-2.0
/* Continuous recording: a profile file per interval (rotate.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"
#include "rotate.h"
#include "util.h"

#define PREFIX "vmstack-"

int vmstack_rotate_open(struct vmstack_rotate *rt)
{
	struct stat st;

	if (mkdir(rt->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s: %s\n", rt->tool, rt->dir, strerror(errno));
		return -1;
	}
	if (stat(rt->dir, &st) || !S_ISDIR(st.st_mode) || access(rt->dir, W_OK)) {
		fprintf(stderr, "%s: %s is not a directory this user can write\n", rt->tool,
			rt->dir);
		return -1;
	}
	return 0;
}

/* One of our profiles: PREFIX, the format's suffix, not a temporary. */
static int is_profile(const struct vmstack_rotate *rt, const char *name)
{
	size_t n = strlen(name), s = strlen(rt->format->suffix);

	return !strncmp(name, PREFIX, strlen(PREFIX)) && n > s &&
	       !strcmp(name + n - s, rt->format->suffix);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remove the oldest profiles beyond rt->keep: names sort by start time. */
static void prune(struct vmstack_rotate *rt)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	DIR *d;

	if (!rt->keep || !(d = opendir(rt->dir)))
		return;
	while ((e = readdir(d))) {
		if (!is_profile(rt, e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (i + rt->keep < n) {
			snprintf(path, sizeof(path), "%s/%s", rt->dir, names[i]);
			if (unlink(path) && errno != ENOENT)
				fprintf(stderr, "%s: cannot remove %s: %s\n", rt->tool, path,
					strerror(errno));
		}
		free(names[i]);
	}
	free(names);
}

int vmstack_rotate_write(struct vmstack_rotate *rt, const struct vmstack_profile *p,
			 const struct vmstack_output_opts *oo, time_t start)
{
	char stamp[32], tmp[4096];
	struct tm tm;
	unsigned int k;
	int err;

	gmtime_r(&start, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* Two intervals in one second (SIGHUP): the second gets a number. */
	for (k = 0;; k++) {
		if (k)
			snprintf(rt->last, sizeof(rt->last), "%s/" PREFIX "%s-%u%s", rt->dir,
				 stamp, k, rt->format->suffix);
		else
			snprintf(rt->last, sizeof(rt->last), "%s/" PREFIX "%s%s", rt->dir,
				 stamp, rt->format->suffix);
		if (access(rt->last, F_OK))
			break;
	}
	snprintf(tmp, sizeof(tmp), "%s/." PREFIX "%s.tmp", rt->dir, stamp);
	err = vmstack_output_to_path(rt->format, p, oo, tmp, rt->tool);
	if (!err && rename(tmp, rt->last)) {
		fprintf(stderr, "%s: cannot rename %s: %s\n", rt->tool, tmp, strerror(errno));
		err = -1;
	}
	if (err)
		unlink(tmp);
	prune(rt);
	return err;
}
