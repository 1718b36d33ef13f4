// SPDX-License-Identifier: GPL-2.0
/* The table of output formats, and how frame kinds look in them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

/* The rows, each defined by its format's file; the first is the default. */
extern const struct vmstack_output vmstack_output_folded, vmstack_output_svg,
	vmstack_output_pprof;

const struct vmstack_output *const vmstack_outputs[] = {
	&vmstack_output_folded,
	&vmstack_output_svg,
	&vmstack_output_pprof,
	NULL,
};

const struct vmstack_kind_style vmstack_kind_styles[VMSTACK_NR_FRAME_KINDS] = {
	[VMSTACK_FRAME_ROOT] = { "", VMSTACK_CLASS_NATIVE },
	[VMSTACK_FRAME_NATIVE] = { "", VMSTACK_CLASS_NATIVE },
	[VMSTACK_FRAME_KERNEL] = { "_[k]", VMSTACK_CLASS_KERNEL },
	[VMSTACK_FRAME_SCRIPT] = { "_[vm]", VMSTACK_CLASS_VM },
	[VMSTACK_FRAME_BUILTIN] = { "_[vm]", VMSTACK_CLASS_VM },
	[VMSTACK_FRAME_JIT] = { "_[j]", VMSTACK_CLASS_JIT },
	[VMSTACK_FRAME_CUT] = { "_[vm]", VMSTACK_CLASS_VM },
	[VMSTACK_FRAME_UNVERIFIED] = { "_[vm]", VMSTACK_CLASS_VM },
};

const struct vmstack_output *vmstack_output_find(const char *name)
{
	const struct vmstack_output *const *o;

	for (o = vmstack_outputs; *o; o++)
		if (!strcmp((*o)->name, name))
			return *o;
	return NULL;
}

const struct vmstack_output *vmstack_output_for_path(const char *path)
{
	const struct vmstack_output *const *o;
	size_t len = strlen(path), sl;

	for (o = vmstack_outputs; *o; o++) {
		sl = strlen((*o)->suffix);
		if (len > sl && !strcmp(path + len - sl, (*o)->suffix))
			return *o;
	}
	return NULL;
}

/* "--OPTION applies to NAME[, NAME] only", of the formats @can says can. */
static const char *applies_only(char *buf, size_t len, const char *option,
				bool (*can)(const struct vmstack_output *))
{
	const struct vmstack_output *const *o;
	size_t n = (size_t)snprintf(buf, len, "--%s applies to", option);
	const char *sep = " ";

	for (o = vmstack_outputs; *o && n < len; o++)
		if (can(*o)) {
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, (*o)->name);
			sep = ", ";
		}
	if (n < len)
		snprintf(buf + n, len - n, " only");
	return buf;
}

static bool draws_inverted(const struct vmstack_output *f)
{
	return f->inverted;
}

const char *vmstack_output_refuses(const struct vmstack_output *f,
				   const struct vmstack_output_opts *o)
{
	static char why[128];

	if (o->inverted && !f->inverted)
		return applies_only(why, sizeof(why), "inverted", draws_inverted);
	return NULL;
}

const char *vmstack_output_names(void)
{
	static char names[128];
	const struct vmstack_output *const *o;
	size_t n = 0;

	if (!names[0])
		for (o = vmstack_outputs; *o && n < sizeof(names); o++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
					      n ? ", " : "", (*o)->name);
	return names;
}

void vmstack_output_help(FILE *f)
{
	const struct vmstack_output *const *o;

	fprintf(f, "Output formats (--format NAME, or -o FILE%s...):\n",
		vmstack_outputs[0]->suffix);
	for (o = vmstack_outputs; *o; o++)
		fprintf(f, "  %-21s %s (%s)\n", (*o)->name, (*o)->help, (*o)->suffix);
}

int vmstack_output_to_path(const struct vmstack_output *o,
			   const struct vmstack_profile *p,
			   const struct vmstack_output_opts *oo, const char *path,
			   const char *tool)
{
	FILE *out = path ? fopen(path, "w") : stdout;
	int err = 0;

	if (!out) {
		fprintf(stderr, "%s: cannot write %s: %s\n", tool, path, strerror(errno));
		return -1;
	}
	if (o->write(p, oo, out) || fflush(out)) {
		fprintf(stderr, "%s: writing %s failed\n", tool, path ? path : "the output");
		err = -1;
	}
	if (out != stdout && fclose(out))
		err = -1;
	return err;
}
