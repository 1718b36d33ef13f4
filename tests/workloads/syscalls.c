// SPDX-License-Identifier: GPL-2.0
/*
 * Time spent mostly in the kernel: read_zero_loop reads /dev/zero in 1 MiB
 * chunks, so samples land in the kernel's clearing of user memory below
 * the read system call. Usage: syscalls SECONDS
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

void read_zero_loop(double seconds)
{
	struct timespec t0, t;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		exit(1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	close(fd);
}

int main(int argc, char **argv)
{
	read_zero_loop(argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
