// SPDX-License-Identifier: GPL-2.0
/*
 * One write per registration to a file only this process writes: a reader
 * sees whole blocks or waits for the rest (it parses up to the last "end").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmstack.h"

static pid_t registered_by;

static void vmstack_path(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "/tmp/vmstack-%d.vm", (int)pid);
}

static void vmstack_unregister(void)
{
	char path[64];

	/* A forked child inherits the handler, not the file. */
	if (getpid() != registered_by)
		return;
	vmstack_path(path, sizeof(path), registered_by);
	unlink(path);
}

int vmstack_register_vm(const char *text)
{
	size_t len = strlen(text);
	char path[64];
	ssize_t w;
	int fd, flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC;

	vmstack_path(path, sizeof(path), getpid());
	/* A file left by an earlier process with this PID is not ours. */
	if (registered_by != getpid())
		flags |= O_TRUNC;
	fd = open(path, flags | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	w = write(fd, text, len);
	if (w != (ssize_t)len) {
		if (w >= 0)
			errno = EIO;
		close(fd);
		return -1;
	}
	if (close(fd))
		return -1;
	if (registered_by != getpid()) {
		registered_by = getpid();
		atexit(vmstack_unregister);
	}
	return 0;
}
