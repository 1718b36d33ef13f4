/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output formats, one file each in user/output/, behind one table
 * (outputs.c): --format, -o's suffix, the help texts and which options
 * apply all loop over it. A format's file defines its row, a struct
 * vmstack_output saying what it is and what it can do; adding a format is
 * that file and its row in the table. A format writes a named profile
 * (profile.h) from its frames' parts and kinds (the styles below), never
 * by taking a name apart.
 */
#ifndef VMSTACK_OUTPUT_H
#define VMSTACK_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "frame.h"
#include "profile.h"

/* A flame graph's title when the caller gives none. */
#define VMSTACK_SVG_TITLE "vmstack flame graph"

struct vmstack_output_opts {
	const char *title;	/* NULL: the format's own */
	int inverted;		/* svg: an icicle, stacks merged from the leaf */
};

struct vmstack_output {
	const char *name;	/* --format NAME */
	const char *suffix;	/* an output file named *SUFFIX gets this format */
	const char *help;	/* one line for --help */
	int (*write)(const struct vmstack_profile *p,
		     const struct vmstack_output_opts *o, FILE *out);
	/* What it can do, as the options ask (vmstack_output_refuses). */
	bool inverted;		/* draws stacks merged from the leaf */
};

/* The formats, NULL-terminated; the first is the default. */
extern const struct vmstack_output *const vmstack_outputs[];
const struct vmstack_output *vmstack_output_find(const char *name);
/* The format whose suffix ends @path, or NULL. */
const struct vmstack_output *vmstack_output_for_path(const char *path);
/*
 * Why @f cannot write with @o, a message for the user (callers check
 * before a recording starts), or NULL.
 */
const char *vmstack_output_refuses(const struct vmstack_output *f,
				   const struct vmstack_output_opts *o);
/* "folded, svg": the names, for messages. */
const char *vmstack_output_names(void);
/* The formats, one line each, for --help. */
void vmstack_output_help(FILE *f);
/*
 * Write @p in format @o to the file @path (NULL: standard output); a
 * failure is said on standard error after "@tool: ". 0, or -1.
 */
int vmstack_output_to_path(const struct vmstack_output *o,
			   const struct vmstack_profile *p,
			   const struct vmstack_output_opts *oo, const char *path,
			   const char *tool);

/*
 * How a frame kind looks: the suffix collapsed stacks give it (perf's
 * _[k] and _[j], ours _[vm]), and its class for colours and legends.
 */
enum vmstack_kind_class {
	VMSTACK_CLASS_NATIVE,
	VMSTACK_CLASS_KERNEL,
	VMSTACK_CLASS_VM,
	VMSTACK_CLASS_JIT,
};

struct vmstack_kind_style {
	const char *suffix;
	enum vmstack_kind_class class;
};

extern const struct vmstack_kind_style vmstack_kind_styles[VMSTACK_NR_FRAME_KINDS];

/*
 * Collapsed stacks read back, for vmstack-flamegraph: add the lines of
 * @in ("a;b;c COUNT", frames' kinds from their suffixes, the first frame
 * the root) to @p. Returns the number of lines that are not of that form.
 */
unsigned long vmstack_folded_read(struct vmstack_profile *p, FILE *in);

#endif
