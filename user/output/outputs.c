// SPDX-License-Identifier: GPL-2.0
/* The table of output formats, and how frame kinds look in them. */
#include <errno.h>
#include <string.h>

#include "output.h"

static const struct vmstack_output folded = {
	.name = "folded",
	.suffix = ".folded",
	.help = "collapsed stacks, one 'root;...;leaf COUNT' line per stack",
	.write = vmstack_folded_write,
};

static const struct vmstack_output svg = {
	.name = "svg",
	.suffix = ".svg",
	.help = "a flame graph picture",
	.write = vmstack_svg_write,
};

static const struct vmstack_output pprof = {
	.name = "pprof",
	.suffix = ".pb.gz",
	.help = "pprof's profile.proto, gzipped (go tool pprof, Pyroscope)",
	.write = vmstack_pprof_write,
};

const struct vmstack_output *const vmstack_outputs[] = { &folded, &svg, &pprof, NULL };

const struct vmstack_kind_style vmstack_kind_styles[VMSTACK_NR_FRAME_KINDS] = {
	[VMSTACK_FRAME_ROOT] = { "", VMSTACK_CLASS_NATIVE },
	[VMSTACK_FRAME_NATIVE] = { "", VMSTACK_CLASS_NATIVE },
	[VMSTACK_FRAME_KERNEL] = { "_[k]", VMSTACK_CLASS_KERNEL },
	[VMSTACK_FRAME_SCRIPT] = { "_[vm]", VMSTACK_CLASS_VM },
	[VMSTACK_FRAME_BUILTIN] = { "_[vm]", VMSTACK_CLASS_VM },
	[VMSTACK_FRAME_JIT] = { "_[j]", VMSTACK_CLASS_JIT },
	[VMSTACK_FRAME_CUT] = { "_[vm]", VMSTACK_CLASS_VM },
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

const char *vmstack_output_refuses(const struct vmstack_output *f,
				   const struct vmstack_output_opts *o)
{
	/* Only a drawing merges stacks; folded stacks and pprof keep each whole. */
	return o->inverted && f != &svg ? "--inverted applies to svg only" : NULL;
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
