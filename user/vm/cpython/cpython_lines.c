// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.11's location table (co_linetable; Objects/locations.md and
 * Objects/codeobject.c in 3.11): a run of entries, each a header byte with
 * bit 7 set (bits 6..3 its code, bits 2..0 the code units it covers minus
 * one), then its own bytes, all with bit 7 clear:
 *
 *   0-9    short form       1 byte of columns          line delta 0
 *   10-12  one-line form    2 bytes of columns         line delta code - 10
 *   13     no columns       svarint line delta
 *   14     long form        svarint line delta, varint end line delta,
 *                           varint start column + 1, varint end column + 1
 *   15     no location      nothing                    line delta 0
 *
 * The line runs from co_firstlineno, each entry's delta added to it. A
 * "no location" entry gives no line, but leaves the running line as it
 * was (get_line_delta() returns 0 for it, and advance() adds that): the
 * entry after it is relative to the last entry that had one. The running
 * line may go below 0 and come back: such entries have no line either.
 *
 * The table comes from another process's memory, so it is parsed more
 * strictly than CPython does (which trusts its compiler and skips to the
 * next byte with bit 7 set): every entry up to the one asked about must
 * have exactly the bytes its code says, within @len.
 */
#include <limits.h>

#include "cpython_lines.h"

enum {
	PY311_LONG = 14,
	PY311_NO_COLUMNS = 13,
	PY311_ONE_LINE0 = 10,
	PY311_NONE = 15,
};

/*
 * One unsigned varint (6-bit chunks, low first, 0x40: more follow) at
 * *@pos. Six chunks hold the 32 bits CPython writes; more, a byte with
 * bit 7 set (the next entry), or the end of the table is a broken table.
 */
static int read_varint(const unsigned char *t, size_t len, size_t *pos, unsigned int *val)
{
	unsigned int shift = 0;
	unsigned char b;

	*val = 0;
	do {
		if (*pos >= len || shift > 30 || (t[*pos] & 0x80))
			return -1;
		b = t[(*pos)++];
		*val |= (unsigned int)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return 0;
}

/* A signed varint: the sign in bit 0 of the unsigned one. */
static int read_svarint(const unsigned char *t, size_t len, size_t *pos, long *val)
{
	unsigned int u;

	if (read_varint(t, len, pos, &u))
		return -1;
	*val = u & 1 ? -(long)(u >> 1) : (long)(u >> 1);
	return 0;
}

/* @n bytes of columns, none of them the start of an entry. */
static int skip_bytes(const unsigned char *t, size_t len, size_t *pos, int n)
{
	for (; n > 0; n--, (*pos)++)
		if (*pos >= len || (t[*pos] & 0x80))
			return -1;
	return 0;
}

int vmstack_py311_line(const unsigned char *table, size_t len, int firstlineno, long index)
{
	/* long long: a garbage delta must not overflow the sum before the check. */
	long long line = firstlineno;
	long start = 0;		/* the entry's first code unit */
	size_t pos = 0;

	/* As PyCode_Addr2Line: before the first instruction is co_firstlineno. */
	if (index < 0)
		return firstlineno;
	while (pos < len) {
		unsigned char head = table[pos++];
		int code = (head >> 3) & 15;
		long units = (head & 7) + 1;
		unsigned int skip;
		long delta = 0;
		int i, err = 0;

		if (!(head & 0x80))
			return -1;
		switch (code) {
		case PY311_NONE:	/* no bytes, no delta */
			break;
		case PY311_LONG:
			err = read_svarint(table, len, &pos, &delta);
			/* end line delta, start column + 1, end column + 1 */
			for (i = 0; i < 3 && !err; i++)
				err = read_varint(table, len, &pos, &skip);
			break;
		case PY311_NO_COLUMNS:
			err = read_svarint(table, len, &pos, &delta);
			break;
		default:
			if (code >= PY311_ONE_LINE0) {
				delta = code - PY311_ONE_LINE0;
				err = skip_bytes(table, len, &pos, 2);
			} else {	/* short form: start column / 8 is the code */
				err = skip_bytes(table, len, &pos, 1);
			}
		}
		if (err)
			return -1;
		line += delta;
		if (line < INT_MIN || line > INT_MAX)
			return -1;
		/* co_lines() says None for a line below 0 too (ar_line < 0). */
		if (index < start + units)
			return code == PY311_NONE || line < 0 ? -1 : (int)line;
		start += units;
	}
	return -1;
}

/*
 * CPython 3.10's co_linetable (Objects/lnotab_notes.txt in 3.10): pairs of
 * bytes, an unsigned count of bytecode bytes the entry covers and a
 * signed line delta added to the running line (from co_firstlineno);
 * a delta of -128 means the entry's bytes have no line, the running line
 * unchanged. Entries covering no bytes only move the line. The line of
 * byte offset @offset is that of the entry covering it.
 */
int vmstack_py310_line(const unsigned char *table, size_t len, int firstlineno, long offset)
{
	long start = 0, line = firstlineno;
	size_t i;

	if (offset < 0)
		return firstlineno;
	for (i = 0; i + 2 <= len; i += 2) {
		long end = start + table[i];
		int delta = (signed char)table[i + 1];

		if (delta != -128)
			line += delta;
		if (offset >= start && offset < end)
			return delta == -128 || line < 0 || line > INT_MAX ? -1 : (int)line;
		start = end;
	}
	return -1;
}

/*
 * CPython 3.9's co_lnotab (Objects/lnotab_notes.txt and PyCode_Addr2Line
 * in 3.9): pairs of bytes, an unsigned increment of the bytecode offset
 * and a signed increment of the line, both from 0 and co_firstlineno.
 * Each pair says that from its offset on the line is the running line
 * plus its increment; the line of byte @offset is the running line once
 * every pair at or before @offset has been added (past the table's last
 * pair: its line, as CPython says).
 */
int vmstack_py39_line(const unsigned char *table, size_t len, int firstlineno, long offset)
{
	long addr = 0, line = firstlineno;
	size_t i;

	if (offset < 0)
		return firstlineno;
	for (i = 0; i + 2 <= len; i += 2) {
		addr += table[i];
		if (addr > offset)
			break;
		line += (signed char)table[i + 1];
	}
	return line < 0 || line > INT_MAX ? -1 : (int)line;
}
