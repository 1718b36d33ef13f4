// SPDX-License-Identifier: GPL-2.0
/*
 * CPython frames named, in every version walked: the code object that is
 * the frame's identity gives its qualname and file, and its location
 * table with the frame's PC (3.11/3.12 prev_instr, 3.13 instr_ptr: both
 * point at the instruction the frame is in, in 2-byte code units from
 * co_code_adaptive) gives the line. 3.12 and 3.13 keep 3.11's location
 * table format (Objects/locations.md at v3.12.1 and v3.13.0); only the
 * offsets differ, and those are the build's layout. 3.9 and 3.10 give
 * f_lasti + 1 as the PC: 3.9 in bytes with its co_lnotab, 3.10 in code
 * units with its co_linetable.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "util.h"
#include "vm/cpython/cpython.h"
#include "vm/cpython/cpython_lines.h"

/* A str's text as UTF-8 (compact strings only: code objects' are), or -1. */
static int read_str(const struct cpython_layout *L, int pid, uint64_t s, char *buf, size_t len)
{
	uint64_t n;
	uint32_t state, kind, c;
	unsigned char raw[1024];
	size_t i, o = 0;

	if (!s || read_target(pid, s + L->str_length, &n, 8) ||
	    read_target(pid, s + L->str_state, &state, 4) || !(state >> 5 & 1))
		return -1;
	kind = state >> 2 & 7;
	if ((kind != 1 && kind != 2 && kind != 4) || n > sizeof(raw) / kind)
		return -1;
	if (read_target(pid, s + ((state >> 6 & 1) ? L->str_ascii_data : L->str_compact_data),
			raw, n * kind))
		return -1;
	for (i = 0; i < n; i++) {
		if (kind == 1)
			c = raw[i];
		else if (kind == 2)
			c = (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8;
		else
			memcpy(&c, raw + 4 * i, 4);
		if (o + 5 > len)
			break;
		if (c < 0x80) {
			buf[o++] = (char)c;
		} else if (c < 0x800) {
			buf[o++] = (char)(0xc0 | c >> 6);
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			buf[o++] = (char)(0xe0 | c >> 12);
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			buf[o++] = (char)(0xf0 | (c >> 18 & 7));
			buf[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	buf[o] = 0;
	return 0;
}

/* The line the frame is at: from its last instruction, else the first line. */
static int frame_line(const struct cpython_layout *L, int pid, uint64_t code,
		      uint64_t prev_instr, int first)
{
	static unsigned char table[65536];
	uint64_t bytes, n;
	int64_t index;
	int line;

	if (!prev_instr || read_target(pid, code + L->co_linetable, &bytes, 8) ||
	    read_target(pid, bytes + L->bytes_size, &n, 8) || n > sizeof(table) ||
	    (n && read_target(pid, bytes + L->bytes_data, table, n)))
		return first;
	if (L->fr_lasti >= 0) {
		/* The PC is f_lasti + 1; the tables go by bytes. */
		if (prev_instr > (uint64_t)INT32_MAX + 1)
			return first;
		if (L->minor == 9)
			line = vmstack_py39_line(table, n, first, (long)prev_instr - 1);
		else
			line = vmstack_py310_line(table, n, first, 2 * ((long)prev_instr - 1));
		return line > 0 ? line : first;
	}
	/* A frame not started yet points before its first instruction. */
	index = ((int64_t)prev_instr - (int64_t)(code + L->co_code)) / 2;
	if (index < -1 || index > (int64_t)(8 * n + 8))
		return first;
	line = vmstack_py311_line(table, n, first, (long)index);
	return line > 0 ? line : first;
}

/*
 * The code object that is the frame's value: function qualname in file
 * co_filename, at the frame's line, shown "qualname (file.py:LINE)"; 3.9
 * and 3.10 have no qualname: their co_name.
 */
int cpython_name(const void *build, int pid, const struct vmstack_frame *f,
		 struct vmstack_name_buf *out)
{
	const struct cpython_build *b = build;
	const struct cpython_layout *L;
	uint64_t code = f->value & ((1ULL << VMSTACK_VM_IDENT_TAG_SHIFT) - 1), type, qual, file;
	uint32_t tag = (uint32_t)(f->value >> VMSTACK_VM_IDENT_TAG_SHIFT) & VMSTACK_VM_IDENT_TAG_MASK;
	int32_t first;
	int line;

	if (!b || f->kind != VMSTACK_FRAME_SCRIPT)
		return -1;
	L = &b->L;
	/*
	 * Another code object than was sampled (the tag, its first line's
	 * low bits, differs: the sampled one freed, its memory reused) is
	 * not named for it: the frame shows as unreadable. Tag 0 is not
	 * checked: a text descriptor's words carry none (nor a first line
	 * that is a multiple of 1024).
	 */
	if (read_target(pid, code + L->ob_type, &type, 8) || type != b->code_type ||
	    read_target(pid, code + L->co_firstlineno, &first, 4) ||
	    (tag && ((uint32_t)first & VMSTACK_VM_IDENT_TAG_MASK) != tag) ||
	    read_target(pid, code + (L->co_qualname >= 0 ? L->co_qualname : L->co_name),
			&qual, 8) ||
	    read_target(pid, code + L->co_filename, &file, 8) ||
	    read_str(L, pid, qual, out->function, sizeof(out->function)) ||
	    read_str(L, pid, file, out->file, sizeof(out->file)))
		return -1;
	line = frame_line(L, pid, code, f->pc, first);
	out->line = line > 0 ? (uint32_t)line : 0;
	out->start_line = first > 0 ? (uint32_t)first : 0;
	out->flags = VMSTACK_NAME_AT_LINE;
	return 0;
}

