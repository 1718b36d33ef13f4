// SPDX-License-Identifier: GPL-2.0
/*
 * Where _PyEval_EvalFrameDefault keeps the shim frame it pushes (3.12+),
 * read off its first instructions, so that the program (shim_prog.c) can
 * prove a shim it meets is its native frame's own. Compilers place the
 * frame's locals from sp (GCC 12's pyenv builds: "movb $3, DISP(%rsp)",
 * entry_frame.owner = FRAME_OWNED_BY_CSTACK) or from the frame pointer
 * (GCC 16's Debian 3.14, PGO: "push %rbp; mov %rsp,%rbp", then the owner
 * stored with its neighbours, "movl $0x30000, -0x48(%rbp)", and the
 * shim's address taken for frame->previous, "lea -0x90(%rbp), REG").
 * Bytes are matched, not decoded: the bp form is only taken when the
 * code shows the place twice over (the store and the lea), the sp form
 * from the first store of the owner's value to the stack.
 */
#include <string.h>

#include "vm/cpython/cpython.h"

int32_t cpython_shim_place(const unsigned char *code, size_t len, const struct cpython_layout *L)
{
	size_t i;
	int32_t disp;

	for (i = 0; i + 5 <= len; i++) {
		/* movb $imm8, disp8(%rsp): c6 44 24 disp8 imm8 */
		if (code[i] == 0xc6 && code[i + 1] == 0x44 && code[i + 2] == 0x24 &&
		    code[i + 4] == L->owner_cstack) {
			disp = (int8_t)code[i + 3];
			return disp >= L->fr_owner ? disp - L->fr_owner : -1;
		}
		/* movb $imm8, disp32(%rsp): c6 84 24 disp32 imm8 */
		if (i + 8 <= len && code[i] == 0xc6 && code[i + 1] == 0x84 && code[i + 2] == 0x24 &&
		    code[i + 7] == L->owner_cstack) {
			memcpy(&disp, code + i + 3, 4);
			return disp >= L->fr_owner ? disp - L->fr_owner : -1;
		}
	}
	return -1;
}

/* "lea DISP(%rbp), REG" (REX.W, any register) with DISP @want, at @c? */
static bool lea_rbp(const unsigned char *c, size_t n, int32_t want)
{
	int32_t disp;

	if (n < 4 || (c[0] & 0xfb) != 0x48 || c[1] != 0x8d || (c[2] & 0x07) != 5)
		return false;
	if ((c[2] & 0xc0) == 0x40)
		return (int8_t)c[3] == want;
	if ((c[2] & 0xc0) != 0x80 || n < 7)
		return false;
	memcpy(&disp, c + 3, 4);
	return disp == want;
}

/* Whether "lea @want(%rbp), REG" is anywhere in @code. */
static bool has_lea_rbp(const unsigned char *code, size_t len, int32_t want)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (lea_rbp(code + i, len - i, want))
			return true;
	return false;
}

int32_t cpython_shim_place_bp(const unsigned char *code, size_t len,
			      const struct cpython_layout *L, int32_t *own_from)
{
	static const unsigned char frame[] = { 0x55, 0x48, 0x89, 0xe5 };
	const unsigned char *at_frame;
	unsigned int width, k, at;
	int32_t disp, shim;
	size_t i;

	/* push %rbp; mov %rsp,%rbp among the first instructions (after endbr64) */
	at_frame = len < 12 ? NULL : memmem(code, 12, frame, sizeof(frame));
	if (!at_frame)
		return 0;
	*own_from = (int32_t)(at_frame - code) + (int32_t)sizeof(frame);
	for (i = 1; i + 4 <= len; i++) {
		/* mov $imm, disp8/disp32(%rbp): c6 (byte), 66 c7 (word), c7 (long), 48 c7 (quad) */
		if ((code[i] != 0xc6 && code[i] != 0xc7) || (code[i + 1] != 0x45 && code[i + 1] != 0x85))
			continue;
		/* A REX prefix with B set makes the base r13, not rbp. */
		if ((code[i - 1] & 0xf0) == 0x40 && (code[i - 1] & 1))
			continue;
		width = code[i] == 0xc6 ? 1 : code[i - 1] == 0x66 ? 2 : 4;
		at = code[i + 1] == 0x45 ? 3 : 6;
		if (i + at + width > len)
			continue;
		if (at == 3) {
			disp = (int8_t)code[i + 2];
		} else {
			memcpy(&disp, code + i + 2, 4);
		}
		for (k = 0; k < width; k++) {
			if (code[i + at + k] != L->owner_cstack)
				continue;
			shim = disp + (int32_t)k - L->fr_owner;
			if (shim < 0 && has_lea_rbp(code, len, shim))
				return shim;
		}
	}
	return 0;
}
