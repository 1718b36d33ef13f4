/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mapped file, as perf's dso or bcc's syms: one object per file (its
 * device, inode and path are its identity), shared by every process that
 * maps it, so a whole-machine recording reads libc once, not once per
 * process. It owns what is read from the file, each part on first use:
 * the ELF (opened while a process maps it, through that process's root),
 * its load segments, its separate debug file, its symbols, its build-id,
 * its unwind rows and its DWARF line tables with the frames of the
 * addresses looked up in them (--lines).
 */
#ifndef VMSTACK_FILE_H
#define VMSTACK_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi.h"
#include "frame.h"
#include "symtab.h"

struct vmstack_file;

/*
 * The file @path (on device @dev, inode @inode) as process @pid (0: this
 * one) maps it: a new reference, the file opened now if no process had it
 * open. An unreadable file is an object too: its names are offsets.
 */
struct vmstack_file *vmstack_file_get(uint64_t dev, uint64_t inode, const char *path,
				      int pid);
/* The same if some process has it open already, else NULL (nothing read). */
struct vmstack_file *vmstack_file_find(uint64_t dev, uint64_t inode, const char *path);
/* The vDSO, the same image in every process (ours is read): a new reference. */
struct vmstack_file *vmstack_file_vdso(void);
/* Drop a reference; the last one frees the file and all read from it. */
void vmstack_file_put(struct vmstack_file *f);

/* Its ELF (NULL if it could not be read), for the runtimes' detection. */
Elf *vmstack_file_elf(const struct vmstack_file *f);
/* A file offset to its link-time address (the load segments'); 0, or -1. */
int vmstack_file_vaddr(const struct vmstack_file *f, uint64_t offset, uint64_t *vaddr);
/* A link-time address to its file offset; 0, or -1. */
int vmstack_file_offset(const struct vmstack_file *f, uint64_t vaddr, uint64_t *offset);
/*
 * The function at link-time address @vaddr: its .symtab's, else its debug
 * file's, else its .dynsym's; NULL if none covers it.
 */
const struct vmstack_sym *vmstack_file_symbol(struct vmstack_file *f, uint64_t vaddr);
/*
 * @sym's name (@sym is one of vmstack_file_symbol's) as frames show it:
 * its symbol version cut (a .symtab's memcpy@@GLIBC_2.14 is memcpy) and
 * demangled (C++, Rust: user/demangle.h). Made the first time a frame is
 * named by it and kept with the file, shared by every process that maps
 * it: a profile names its symbols once per distinct stack, and most of a
 * file's never.
 */
const char *vmstack_file_shown_name(struct vmstack_file *f, const struct vmstack_sym *sym);
/* Its GNU build-id in hex, or "". */
const char *vmstack_file_build_id(struct vmstack_file *f);
/* Its unwind rows, or NULL if it has no usable CFI. */
const struct vmstack_cfi_table *vmstack_file_cfi(struct vmstack_file *f);
/*
 * The name of the rows of its mapping from @offset, @len bytes long, in
 * the module: the same in every process that maps it so. Never 0.
 */
uint64_t vmstack_file_rows_key(const struct vmstack_file *f, uint64_t offset,
			       uint64_t len);
/*
 * The frames at link-time address @vaddr with source lines (--lines),
 * outermost first: @function (its name without lines), then each function
 * inlined there (VMSTACK_NAME_INLINED), each with its source file and the
 * line of the call into the next (in the last, the address's line) when
 * DWARF has them (VMSTACK_NAME_AT_LINE). A C++ or Rust function inlined
 * is named as its symbol would be: demangled if @demangle, else as the
 * file spells it. At most @max in @names, valid while @f lives and
 * @demangle stays (kept: an address's frames are found once). Returns
 * the number of frames, at least 1 if @max is.
 */
#define VMSTACK_MAX_INLINE 16	/* frames of one address kept: the innermost past it go */
size_t vmstack_file_lines(struct vmstack_file *f, uint64_t vaddr, const char *function,
			  bool demangle, struct vmstack_name *names, size_t max);

#endif
