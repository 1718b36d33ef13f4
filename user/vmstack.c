// SPDX-License-Identifier: GPL-2.0
/* vmstack: show the state of the loaded module. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "vmstack_nl.h"

static const struct cli_option options[] = {
	{ NULL, 0, NULL, NULL },
};

static const struct cli status_cli = {
	.tool = "vmstack",
	.usage = "status",
	.about = "Show the loaded vmstack.ko's version, the ABI it speaks and how many\n"
		 "sessions are open. To profile a process, use vmstack-record.",
	.options = options,
	.footer = "Exit status: 0 on success, 1 if the module is not loaded or speaks another\n"
		  "ABI major, 2 on a usage error.\n",
};

int main(int argc, char **argv)
{
	struct vmstack_status st;
	struct vmstack_nl *nl;
	char msg[256];
	int first, err;

	first = cli_parse(&status_cli, argc, argv, NULL, NULL);
	if (first < 0 || first != argc - 1 || strcmp(argv[first], "status")) {
		if (first >= 0)
			cli_help(&status_cli, stderr);
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
