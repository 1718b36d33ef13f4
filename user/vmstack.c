// SPDX-License-Identifier: GPL-2.0
/* vmstack: show the state of the loaded module. */
#include <stdio.h>
#include <string.h>

#include "vmstack_nl.h"

#define VMSTACK_TOOL_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmstack status     show the loaded module's version and sessions\n"
		"       vmstack --version  show this tool's version and ABI\n"
		"To profile a process, use vmstack-record.\n");
}

int main(int argc, char **argv)
{
	struct vmstack_status st;
	struct vmstack_nl *nl;
	char msg[256];
	int err;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("vmstack %s (ABI %d.%d)\n", VMSTACK_TOOL_VERSION,
		       VMSTACK_ABI_MAJOR, VMSTACK_ABI_MINOR);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "status")) {
		usage(stderr);
		return 2;
	}
	err = vmstack_nl_open(&nl, msg, sizeof(msg));
	if (!err) {
		err = vmstack_nl_status(nl, &st, msg, sizeof(msg));
		vmstack_nl_close(nl);
	}
	if (err) {
		fprintf(stderr, "vmstack: %s\n", msg);
		return 1;
	}
	printf("module: vmstack %s\nabi: %u.%u%s\nsessions: %u\n",
	       st.module_version, st.abi_major, st.abi_minor,
	       st.abi_major == VMSTACK_ABI_MAJOR ? "" : " (this tool: mismatch)",
	       st.nr_sessions);
	return st.abi_major == VMSTACK_ABI_MAJOR ? 0 : 1;
}
