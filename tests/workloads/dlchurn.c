// SPDX-License-Identifier: GPL-2.0
/*
 * A process that dlopens and dlcloses many libraries: DIR/lib0.so ..
 * lib(N-1).so, WINDOW of them open at once, spending MS milliseconds in
 * each one's lib_spin before the next is loaded.
 * Usage: dlchurn DIR N WINDOW MS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *open[64] = { 0 };
	int n, window, i;
	double ms;
	char path[4096];

	if (argc != 5)
		return 2;
	n = atoi(argv[2]);
	window = atoi(argv[3]);
	ms = atof(argv[4]);
	if (window < 1 || window > 64)
		return 2;
	for (i = 0; i < n; i++) {
		void (*spin)(double);
		void **slot = &open[i % window];

		if (*slot)
			dlclose(*slot);
		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		*slot = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!*slot) {
			fprintf(stderr, "dlchurn: %s\n", dlerror());
			return 1;
		}
		spin = (void (*)(double))dlsym(*slot, "lib_spin");
		if (!spin)
			return 1;
		spin(ms / 1000);
	}
	return 0;
}
