/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for addresses: ELF symbol tables of the files a process maps (with
 * libelf; .symtab, else the .symtab of the file's separate debug file,
 * else .dynsym), [vdso], /tmp/perf-PID.map for JIT code, and
 * /proc/kallsyms for the kernel; source lines and inlined calls from
 * DWARF (user/lines.c).
 */
#ifndef VMSTACK_SYMBOLS_H
#define VMSTACK_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind/cfi.h"
#include "frame.h"
#include "maps.h"

struct vmstack_lines;

struct vmstack_sym {
	uint64_t addr, size;
	const char *name;
	unsigned char rank;	/* of aliases, the lowest is kept: global, weak, local */
};

/* One symbol table: an ELF file's, the kernel's or a perf map's. */
struct vmstack_symtab {
	struct vmstack_sym *syms;
	size_t n, cap;
	char *strings;		/* owns the names when they are not in elf */
	size_t strings_len, strings_cap;
	/* ELF load segments: file offset to link-time address. */
	struct { uint64_t offset, vaddr, filesz; } *loads;
	size_t nloads;
	void *elf;		/* Elf *, kept open: names point into it */
	int fd;
	void *debug_elf;	/* the separate debug file's, or NULL */
	int debug_fd;
	struct vmstack_lines *lines;	/* DWARF lines, opened on first use */
	int lines_tried;
	int loaded;		/* 0: unreadable file; names will be offsets */
	struct vmstack_cfi_table *cfi;	/* unwind rows, made on first use */
	int cfi_tried;
	char build_id[41];	/* hex, "" if none; read on first use */
	int build_id_tried;
	/* Per symbol, its name as frames show it (demangled); NULL: not made yet. */
	const char **shown;
};

/*
 * Load an ELF file's symbols and load segments; @path (the file's path in
 * the target, or NULL) finds its separate debug file if it is stripped
 * (user/debuginfo.h). 0 or -1.
 */
int vmstack_symtab_load_elf(struct vmstack_symtab *t, int fd, const char *path);
int vmstack_symtab_load_elf_mem(struct vmstack_symtab *t, void *image,
				size_t size);
/* Lines "ADDR TYPE NAME [MODULE]"; text symbols only. */
int vmstack_symtab_load_kallsyms(struct vmstack_symtab *t, const char *path);
/* Lines "START SIZE NAME" (hex), as JITs write /tmp/perf-PID.map. */
int vmstack_symtab_load_perf_map(struct vmstack_symtab *t, const char *path);
/* Sort after loading; done by the loaders above. */
void vmstack_symtab_finish(struct vmstack_symtab *t);
const struct vmstack_sym *vmstack_symtab_find(const struct vmstack_symtab *t,
					      uint64_t addr);
/* A file offset to the address its ELF symbols use; 0 if not loaded. */
int vmstack_symtab_vaddr(const struct vmstack_symtab *t, uint64_t file_off,
			 uint64_t *vaddr);
void vmstack_symtab_free(struct vmstack_symtab *t);
/* The file's unwind rows (cached), or NULL if it has no usable CFI. */
const struct vmstack_cfi_table *vmstack_symtab_cfi(struct vmstack_symtab *t);

/* The file's GNU build-id in hex, or "" (read once). */
const char *vmstack_symtab_build_id(struct vmstack_symtab *t);

/* The symbolizer of one target process. */
struct vmstack_symbolizer;

struct vmstack_symbolizer *vmstack_symbolizer_new(int pid);
/*
 * Native functions' names demangled (C++, Rust: user/demangle.h), as they
 * are from the start, or as their files spell them (@on 0: --no-demangle).
 */
void vmstack_symbolizer_demangle(struct vmstack_symbolizer *s, bool on);
/*
 * Read /proc/PID/maps again; load the symbols of files seen first now.
 * Returns the number of new mappings, or -1.
 */
int vmstack_symbolizer_refresh(struct vmstack_symbolizer *s);
/* The same from maps lines in @f (a saved recording). */
int vmstack_symbolizer_add_maps(struct vmstack_symbolizer *s, FILE *f);
/* Every mapping seen, as maps lines (device numbers are not kept). */
int vmstack_symbolizer_write_maps(const struct vmstack_symbolizer *s, FILE *f);
size_t vmstack_symbolizer_nr_maps(const struct vmstack_symbolizer *s);
/* Is @addr in a mapping read so far (or a VM word)? */
int vmstack_symbolizer_knows(struct vmstack_symbolizer *s, uint64_t addr);
/*
 * Where a user address is, for formats that show addresses (pprof): the
 * mapping of a file that holds it, and the address a frame named by it
 * stands for: the entry of its function when it has one (a named frame
 * is the function, not one instruction), else the address itself.
 * 0, or -1 if no file holds @addr (anonymous memory, JIT code).
 */
struct vmstack_where {
	const struct vmstack_map *map;
	const char *build_id;	/* hex, "" if none */
	uint64_t addr;
};
int vmstack_symbolizer_where(struct vmstack_symbolizer *s, uint64_t addr,
			     int ret, struct vmstack_where *w);
/* Called for each executable file mapping when it is first seen. */
typedef void (*vmstack_new_map_fn)(void *arg, struct vmstack_map *m);
void vmstack_symbolizer_on_new_map(struct vmstack_symbolizer *s,
				   vmstack_new_map_fn fn, void *arg);
/*
 * Load a file's symbols and unwind rows before the target maps it (for a
 * command about to start), so that the mapping can be served at once.
 */
void vmstack_symbolizer_prewarm(struct vmstack_symbolizer *s, const char *path);
/*
 * VM frames: each VM word (a script identity, a builtin function, a
 * compiled code object) is named by the namer of the VM that produced it
 * (its descriptor's index), read from the live target the first time the
 * word is seen, then cached. A namer returns -1 for what it cannot name.
 */
struct vmstack_vm_namer {
	int (*name)(const void *build, int pid, const struct vmstack_frame *f,
		    struct vmstack_name_buf *out);
	const void *build;	/* the runtime's description of the build */
	bool by_pc;		/* names differ by the frame's PC (lines): kept by word and PC */
};
void vmstack_symbolizer_set_vm_namer(struct vmstack_symbolizer *s,
				     unsigned int vm,
				     const struct vmstack_vm_namer *namer);
/* Name VM frame @f now (while the target lives), if not named yet. */
void vmstack_symbolizer_note_vm(struct vmstack_symbolizer *s,
				const struct vmstack_frame *f);
/*
 * The cached names, by tagged word and PC, for saving and loading
 * recordings (@n's kind is the word's).
 */
void vmstack_symbolizer_add_vm_name(struct vmstack_symbolizer *s,
				    uint64_t ident, uint64_t pc,
				    const struct vmstack_name *n);
size_t vmstack_symbolizer_nr_vm_names(const struct vmstack_symbolizer *s);
/* @fn for each cached name until it returns non-zero, which is returned. */
typedef int (*vmstack_vm_name_fn)(void *arg, uint64_t ident, uint64_t pc,
				  const struct vmstack_name *n);
int vmstack_symbolizer_each_vm_name(const struct vmstack_symbolizer *s,
				    vmstack_vm_name_fn fn, void *arg);
/*
 * The name of any frame (its kind says what it is), in @n; its strings
 * are in @buf or the symbolizer's, valid until the next call.
 */
void vmstack_symbolize(struct vmstack_symbolizer *s, const struct vmstack_frame *f,
		       struct vmstack_name *n, char *buf, size_t len);
/* Read /tmp/perf-PID.map (JIT code), if the target wrote one. */
void vmstack_symbolizer_load_perf_map(struct vmstack_symbolizer *s);
/*
 * Name of a user or kernel address, written to buf. @ret: the address is a
 * return address, so the call is the instruction before it. A native
 * frame's name in @n (vmstack_symbolize) is whole; one written to @buf is
 * cut to its @len.
 */
const char *vmstack_symbolize_user(struct vmstack_symbolizer *s, uint64_t addr,
				   int ret, char *buf, size_t len);
/*
 * The frames of user address @addr with source lines (--lines), outermost
 * first: its function as vmstack_symbolize_user() names it, then each
 * function inlined there (VMSTACK_NAME_INLINED), each with its source
 * file and the line of the call into the next (in the last, the
 * address's line) when DWARF has them (VMSTACK_NAME_AT_LINE); without
 * DWARF a frame is its function alone. At most @max in @names, valid until
 * the next call (kept per file and address: a file's frames are found
 * once). Returns the number of frames, at least 1 if @max is.
 */
#define VMSTACK_MAX_INLINE 16	/* frames of one address kept: the innermost past it go */
size_t vmstack_symbolize_user_lines(struct vmstack_symbolizer *s, uint64_t addr,
				    int ret, struct vmstack_name *names, size_t max);
/* Kernel symbols are the same for every process: read once for all. */
const char *vmstack_symbolize_kernel(uint64_t addr, int ret, char *buf, size_t len);
void vmstack_symbolizer_free(struct vmstack_symbolizer *s);

#endif
