// SPDX-License-Identifier: GPL-2.0
/*
 * The line a PUC Lua activation is at, as lua_getinfo's currentline: its
 * current instruction (the one before its saved pc) looked up in the
 * Proto's line information. 5.1 and 5.3 keep a line per instruction;
 * 5.4 keeps each instruction's difference from the one before (a signed
 * byte) and, every so often and where a difference does not fit, an
 * absolute line (abslineinfo: pc, line), from which it adds up. And a
 * frame's name with that line, for the runtimes' namers.
 */
#include <stdlib.h>

#include "util.h"
#include "vm/lua/lua_code.h"

/* More than a function has (lineinfo has one per instruction). */
#define MAX_ABS	(1 << 16)

static int line54(const struct lua_code_facts *C, int pid, uint64_t proto, int pc)
{
	uint64_t li, abs;
	int32_t nabs, first, e[2], base = -1, i;
	int8_t d[256];
	int line, n;

	if (read_target(pid, proto + C->p_lineinfo, &li, 8) || !li ||
	    read_target(pid, proto + C->p_abslineinfo, &abs, 8) ||
	    read_target(pid, proto + C->p_sizeabslineinfo, &nabs, 4) || nabs < 0 ||
	    nabs > MAX_ABS || read_target(pid, proto + C->str.p_linedefined, &first, 4))
		return -1;
	/* The last absolute entry at or before pc (getbaseline). */
	line = first;
	for (i = 0; i < nabs; i++) {
		if (read_target(pid, abs + 8 * (uint64_t)i, e, 8))
			return -1;
		if (e[0] > pc)
			break;
		base = e[0];
		line = e[1];
	}
	/* Then the differences of the instructions after it, up to pc. */
	for (i = base + 1; i <= pc; i += n) {
		int k;

		n = pc - i + 1 < (int)sizeof(d) ? pc - i + 1 : (int)sizeof(d);
		if (read_target(pid, li + (uint64_t)i, d, (size_t)n))
			return -1;
		for (k = 0; k < n; k++)
			line += d[k];
	}
	return line;
}

int vmstack_lua_current_line(const struct lua_code_facts *C, int pid, uint64_t proto,
			     uint64_t savedpc)
{
	uint64_t code, li;
	int32_t size, line;
	int pc;

	savedpc &= ~(uint64_t)3;	/* what the programs mark there */
	if (read_target(pid, proto + C->p_code, &code, 8) ||
	    read_target(pid, proto + C->p_sizecode, &size, 4) || size <= 0 ||
	    savedpc < code + 4 || (savedpc - code) % 4 || (savedpc - code) / 4 > (uint64_t)size)
		return -1;
	pc = (int)((savedpc - code) / 4) - 1;
	if (C->version == 54)
		return line54(C, pid, proto, pc);
	if (read_target(pid, proto + C->p_lineinfo, &li, 8) || !li ||
	    read_target(pid, li + 4 * (uint64_t)pc, &line, 4))
		return -1;
	return line;
}

int vmstack_lua_frame_name(const void *build, int pid, const struct vmstack_frame *f,
			   struct vmstack_name_buf *out)
{
	const struct lua_code_facts *C = build;
	int line;

	if (f->kind != VMSTACK_FRAME_SCRIPT || vmstack_lua_proto_name(&C->str, pid, f->value, out))
		return -1;
	line = f->pc ? vmstack_lua_current_line(C, pid, f->value, f->pc) : -1;
	if (line > 0)
		out->line = (uint32_t)line;
	return 0;
}
