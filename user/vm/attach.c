// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attach.h"
#include "process.h"
#include "text.h"
#include "unwalked.h"
#include "desc3_prog.h"
#include "util.h"

/*
 * Hand @d4, or @d compiled to a program, to the module; from now on VM
 * a->n is named by @rt's namer.
 */
static int attach(struct vmstack_vm_attach *a, const struct vmstack_vm_desc *d,
		  const struct vmstack_vm_desc4 *d4, const char *label,
		  const struct vmstack_runtime *rt, const void *build,
		  const struct vmstack_vm_found *detected)
{
	static struct vmstack_vm_desc4 compiled;	/* 2 KB: not on the stack */
	const char *why;
	/*
	 * Call-site names for the runtime's own program, which marks what
	 * they depend on in the PC (Lua's tail calls), or its own ABI 3
	 * descriptor where nothing needs marking (sites_from_desc3); not
	 * for a text descriptor naming frames with this runtime.
	 */
	bool sites = d4 || (detected && rt->sites_from_desc3);
	struct vmstack_vm_namer namer = { rt->namer, sites ? rt->site_namer : NULL, build,
					  rt->names_by_pc, { 0 } };
	size_t len = strlen(a->label);
	char msg[256];

	/* Across native frames: for the runtime's own program, up to its stop. */
	if (d4 && detected && rt->across_mask && detected->across_stop_hi)
		namer.across = (struct vmstack_vm_across){ rt->across_mask, rt->across_bits,
							   detected->across_stop_lo,
							   detected->across_stop_hi };

	if (a->n == VMSTACK_VM_MAX) {
		fprintf(stderr, "%s: VM %s: more than %d VMs in one process; its frames are not merged\n",
			a->tool, label, VMSTACK_VM_MAX);
		return -1;
	}
	if (!d4) {
		why = vmstack_desc3_prog(d, &compiled);
		if (why) {
			fprintf(stderr, "%s: VM %s: descriptor refused: %s\n", a->tool, label, why);
			return -1;
		}
		d4 = &compiled;
	}
	if (a->add(a->arg, d4, msg, sizeof(msg))) {
		fprintf(stderr, "%s: VM %s: descriptor refused: %s\n", a->tool, label, msg);
		return -1;
	}
	vmstack_process_set_vm_namer(a->proc, a->n++, &namer);
	if (!strstr(a->label, label))
		snprintf(a->label + len, sizeof(a->label) - len, "%s%s",
			 len ? ", " : "", label);
	return 0;
}

void vmstack_vm_attach_map(struct vmstack_vm_attach *a, const struct vmstack_map *m)
{
	const struct vmstack_runtime *const *rt;
	struct vmstack_vm_found f;
	char why[256];
	int i;

	if (!a->detect)
		return;
	for (rt = vmstack_runtimes; *rt; rt++) {
		unsigned int bit = 1U << (rt - vmstack_runtimes);

		if (!(*rt)->detect || (a->only && a->only != *rt))
			continue;
		memset(&f, 0, sizeof(f));
		switch ((*rt)->detect(m, a->pid, &f, why, sizeof(why))) {
		case VMSTACK_DETECT_YES:
			/* The build's name: which layout, and what it leaves out. */
			if (!attach(a, &f.desc, f.prog ? &f.desc4 : NULL,
				    f.build_name ? f.build_name : (*rt)->label,
				    *rt, f.build, &f) &&
			    a->nfound < VMSTACK_VM_MAX) {
				a->found[a->nfound].rt = *rt;
				a->found[a->nfound++].build = f.build;
			}
			return;
		case VMSTACK_DETECT_UNKNOWN:
			if (!(a->unknown_said & bit))
				fprintf(stderr, "%s: %s in %s (pid %d): %s; its frames are not merged (native stacks only)\n",
					a->tool, (*rt)->label, m->path, a->pid, why);
			a->unknown_said |= bit;
			return;
		case VMSTACK_DETECT_NO:
			break;
		}
	}
	/* Not a runtime vmstack walks: one it knows of is named all the same. */
	if (a->only)
		return;
	i = vmstack_vm_unwalked(m, why, sizeof(why));
	if (i >= 0 && !(a->unwalked_said & (1U << i))) {
		fprintf(stderr, "%s: %s in %s (pid %d): a runtime vmstack does not walk yet; its frames are not merged (native stacks only)\n",
			a->tool, why, m->path, a->pid);
		a->unwalked_said |= 1U << i;
	}
}

/* The build a text descriptor's namer needs: the one detected, if any. */
static int text_build(struct vmstack_vm_attach *a, const struct vmstack_runtime *rt,
		      const void **build)
{
	unsigned int i;

	*build = NULL;
	if (!rt->detect)
		return 0;	/* a runtime that only names needs no build */
	for (i = 0; i < a->nfound; i++)
		if (a->found[i].rt == rt) {
			*build = a->found[i].build;
			return 0;
		}
	return -1;
}

/* Like perf with /tmp/perf-PID.map: only the target's owner's file. */
static int owned_by_target(const char *path, int pid)
{
	struct stat st, target;
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (stat(path, &st) || stat(proc, &target))
		return -1;
	return (st.st_uid && st.st_uid != target.st_uid) || (st.st_mode & 022) ? 0 : 1;
}

int vmstack_vm_attach_text(struct vmstack_vm_attach *a, const char *path,
			   int from_target)
{
	const char *tool = a->tool;
	struct vmstack_vm_text t[VMSTACK_VM_MAX];
	const void *build;
	char err[256], *text;
	int n, i, owned;

	if (from_target) {
		if (a->text_blocks < 0)
			return 0;
		owned = owned_by_target(path, a->pid);
		if (owned < 0)
			return 0;
		if (!owned) {
			fprintf(stderr, "%s: ignoring %s: not owned by the target's user, or writable by others\n",
				tool, path);
			a->text_blocks = -1;
			return 0;
		}
	}
	text = read_file(path, 1 << 20);
	if (!text) {
		if (!from_target)
			fprintf(stderr, "%s: cannot read %s: %s\n", tool, path, strerror(errno));
		return from_target ? 0 : -1;
	}
	if (from_target) {
		/*
		 * A registration being written may end in a torn line: drop
		 * it; the parser leaves the block it cuts short for later.
		 */
		char *nl = strrchr(text, '\n');

		if (nl)
			nl[1] = 0;
		else
			*text = 0;
	}
	n = vmstack_vm_text_parse(text, t, VMSTACK_VM_MAX, err, sizeof(err));
	free(text);
	if (n < 0) {
		fprintf(stderr, "%s: %s: %s\n", tool, path, err);
		if (from_target)
			a->text_blocks = -1;
		return -1;
	}
	for (i = from_target ? a->text_blocks : 0; i < n; i++) {
		if (text_build(a, t[i].namer, &build)) {
			fprintf(stderr, "%s: VM %s: namer %s needs a %s build vmstack knows in the target; none is mapped\n",
				tool, t[i].name, t[i].namer->name, t[i].namer->label);
			if (!from_target)
				return -1;
			continue;
		}
		if (attach(a, &t[i].desc, NULL, t[i].name, t[i].namer, build, NULL) &&
		    !from_target)
			return -1;
	}
	if (from_target && n > a->text_blocks)
		a->text_blocks = n;
	return 0;
}
