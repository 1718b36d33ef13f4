/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lua 5.1 to 5.3's interpreter loop, luaV_execute, where no symbol names
 * it (Debian's builds, Redis's copy: it is a hidden function). The C API
 * reaches it in two direct calls: lua_call (5.1) or lua_callk (5.2, 5.3)
 * calls luaD_call (through luaD_callnoyield in 5.3), which calls
 * luaV_execute once luaD_precall has pushed a Lua function. So it is
 * among the functions two or three direct calls away from the exported
 * entry; which one is told by its first instructions, each version's
 * caller (lua51.c, lua53.c) giving the bytes its layout implies. And
 * how each version's detection (5.1 to 5.4) ends once its loop is found.
 */
#ifndef VMSTACK_VM_LUA_FIND_H
#define VMSTACK_VM_LUA_FIND_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/runtime.h"

/* The bytes a function starts with: 0 if they are the loop's, as @arg wants it. */
typedef int lua_loop_test(const unsigned char *code, size_t len, void *arg);

/*
 * The FDE range [*lo, *hi) of the one function, at most @depth direct
 * calls below exported @api, whose first bytes pass @test; in *@caller
 * (may be NULL) the first function seen calling it. 0, or -1 (none, or
 * more than one).
 */
int vmstack_lua_find_loop(Elf *elf, const char *api, unsigned int depth,
			  lua_loop_test *test, void *arg, uint64_t *lo, uint64_t *hi,
			  uint64_t *caller);

struct lua_code_facts;
struct vm_prog;

/*
 * How each version's detection ends once it has found its loop [start,
 * end) (link-time addresses) in mapping @m, whose link-time address is
 * @lo, and written program @p: the descriptor in f->desc4, the loop's
 * native frames left by their own unwind rules, and what its namers read
 * (@code, the facts of the version's code; @name, the build's). With
 * @pid, first checked that the process runs the file's code there.
 * VMSTACK_DETECT_YES, or VMSTACK_DETECT_UNKNOWN with why in @why.
 */
enum vmstack_detect vmstack_lua_found(const struct vmstack_map *m, int pid, Elf *elf,
				      uint64_t lo, uint64_t start, uint64_t end,
				      struct vm_prog *p, const struct lua_code_facts *code,
				      const char *name, struct vmstack_vm_found *f, char *why,
				      size_t len);

/* Whether @code holds the @n bytes of @what. */
int vmstack_lua_has(const unsigned char *code, size_t len, const unsigned char *what,
		    size_t n);

#endif
