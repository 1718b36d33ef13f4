// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.11 location tables: the line of every code unit of the code
 * objects Debian's python3.11 compiled (py311_lines_vectors.h, from
 * gen_py311_lines.py) is the line CPython's co_lines() gave; the edges;
 * and tables cut short or made up, read without a byte past their end.
 * 3.10's and 3.9's tables by hand; 3.9's against pyenv's python3.9.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "py311_lines_vectors.h"
#include "unit.h"
#include "vm/cpython/cpython_lines.h"

#define NVEC ((int)(sizeof(py311_lines_vectors) / sizeof(py311_lines_vectors[0])))

/* Every code unit of every vector, as CPython says. */
UNIT_TEST(py311_lines_as_cpython)
{
	int v;

	for (v = 0; v < NVEC; v++) {
		const struct py311_lines_vector *c = &py311_lines_vectors[v];
		long i, bad = 0;

		for (i = 0; i < c->n; i++) {
			int got = vmstack_py311_line(c->table, c->len, c->firstlineno, i);

			if (got != c->lines[i] && bad++ < 3)
				fprintf(stderr, "  %s: unit %ld: line %d, CPython %d\n",
					c->name, i, got, c->lines[i]);
		}
		CHECK(bad == 0);
	}
}

/* Before the first instruction, co_firstlineno; past the last, none. */
UNIT_TEST(py311_lines_edges)
{
	int v;

	for (v = 0; v < NVEC; v++) {
		const struct py311_lines_vector *c = &py311_lines_vectors[v];

		CHECK(vmstack_py311_line(c->table, c->len, c->firstlineno, -1) == c->firstlineno);
		CHECK(vmstack_py311_line(c->table, c->len, c->firstlineno, LONG_MIN) ==
		      c->firstlineno);
		CHECK(vmstack_py311_line(c->table, c->len, c->firstlineno, c->n) == -1);
		CHECK(vmstack_py311_line(c->table, c->len, c->firstlineno, c->n + 100) == -1);
		CHECK(vmstack_py311_line(c->table, c->len, c->firstlineno, LONG_MAX) == -1);
	}
	CHECK(vmstack_py311_line(NULL, 0, 7, -1) == 7);
	CHECK(vmstack_py311_line(NULL, 0, 7, 0) == -1);
}

/*
 * Tables written by hand from Objects/locations.md. A "no location" entry
 * leaves the running line alone: the entry after it counts from the line
 * before it.
 */
UNIT_TEST(py311_lines_by_hand)
{
	/* short form (1 unit), no location (2 units), one-line form +1 (1 unit) */
	static const unsigned char none[] = { 0x80, 0x00, 0xf9, 0xd8, 0x00, 0x01 };
	/* no columns: -100 (svarint 201: 0x49 0x03), then +200 (400: 0x50 0x06) */
	static const unsigned char nocol[] = { 0xe8, 0x49, 0x03, 0xe8, 0x50, 0x06 };
	/* long form, 8 units: +3, end line +200 (0x48 0x03), columns 5 and 7 */
	static const unsigned char lng[] = { 0xf7, 0x06, 0x48, 0x03, 0x06, 0x08 };

	CHECK(vmstack_py311_line(none, sizeof(none), 10, 0) == 10);
	CHECK(vmstack_py311_line(none, sizeof(none), 10, 1) == -1);
	CHECK(vmstack_py311_line(none, sizeof(none), 10, 2) == -1);
	CHECK(vmstack_py311_line(none, sizeof(none), 10, 3) == 11);
	CHECK(vmstack_py311_line(none, sizeof(none), 10, 4) == -1);
	CHECK(vmstack_py311_line(nocol, sizeof(nocol), 150, 0) == 50);
	CHECK(vmstack_py311_line(nocol, sizeof(nocol), 150, 1) == 250);
	CHECK(vmstack_py311_line(lng, sizeof(lng), 1, 0) == 4);
	CHECK(vmstack_py311_line(lng, sizeof(lng), 1, 7) == 4);
	CHECK(vmstack_py311_line(lng, sizeof(lng), 1, 8) == -1);
}

/*
 * Every prefix of every vector, in a heap block of exactly its length (so
 * ASan sees a read past it): a unit whose entry is whole in the prefix has
 * its line, any other none. Entries start at the bytes with bit 7 set.
 */
UNIT_TEST(py311_lines_truncated)
{
	int v;

	for (v = 0; v < NVEC; v++) {
		const struct py311_lines_vector *c = &py311_lines_vectors[v];
		size_t *end = calloc((size_t)c->n, sizeof(*end));	/* of each unit's entry */
		size_t b, e, p;
		long i, u = 0, bad = 0;

		CHECK(end != NULL);
		if (!end)
			return;
		for (b = 0; b < c->len; b = e) {
			long units = (c->table[b] & 7) + 1;

			for (e = b + 1; e < c->len && !(c->table[e] & 0x80); e++)
				;
			for (i = 0; i < units && u < c->n; i++)
				end[u++] = e;
		}
		CHECK(u == c->n);
		for (p = 0; p <= c->len; p++) {
			unsigned char *t = malloc(p ? p : 1);

			CHECK(t != NULL);
			if (!t)
				break;
			memcpy(t, c->table, p);
			for (i = 0; i <= c->n; i++) {
				int want = i < c->n && end[i] <= p ? c->lines[i] : -1;
				int got = vmstack_py311_line(t, p, c->firstlineno, i);

				if (got != want && bad++ < 3)
					fprintf(stderr, "  %s, %zu bytes: unit %ld: %d, not %d\n",
						c->name, p, i, got, want);
			}
			free(t);
		}
		CHECK(bad == 0);
		free(end);
	}
}

/* What no compiler writes: refused, and nothing read past the end. */
UNIT_TEST(py311_lines_garbage)
{
	static const struct {
		unsigned char t[16];
		size_t len;
		int first;
		long index;
		int want;
	} bad[] = {
		{ { 0x00 }, 1, 1, 0, -1 },			/* no header bit */
		{ { 0x80 }, 1, 1, 0, -1 },			/* short form, no column byte */
		{ { 0x80, 0x00, 0x00 }, 3, 1, 0, 1 },		/* one byte too many: */
		{ { 0x80, 0x00, 0x00 }, 3, 1, 1, -1 },		/* what follows is broken */
		{ { 0x80, 0x80, 0x80 }, 3, 1, 0, -1 },		/* a header for a column */
		{ { 0xd0, 0x01 }, 2, 1, 0, -1 },		/* one-line form, one byte */
		{ { 0xf0 }, 1, 1, 0, -1 },			/* long form, nothing after */
		{ { 0xf0, 0x40 }, 2, 1, 0, -1 },		/* a varint running off */
		{ { 0xf0, 0x02, 0x00, 0x01 }, 4, 1, 0, -1 },	/* one column short */
		{ { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00 }, 8, 1, 0, -1 }, /* 7 chunks */
		/* 32-bit deltas: +INT_MAX; -INT_MAX, below 0 (no line), and back */
		{ { 0xe8, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f }, 7, 0, 0, INT_MAX },
		{ { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f }, 7, 5, 0, -1 },
		{ { 0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f,
		    0xe8, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f }, 14, 5, 1, 5 },
		{ { 0xe8, 0x04, 0xe8, 0x04 }, 4, INT_MAX - 3, 1, -1 },	/* past INT_MAX */
		{ { 0xe8, 0x05, 0xe8, 0x05 }, 4, INT_MIN + 3, 1, -1 },	/* below INT_MIN */
	};
	unsigned int seed = 12345;
	size_t k;
	int n;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		unsigned char *t = malloc(bad[k].len);

		CHECK(t != NULL);
		if (!t)
			return;
		memcpy(t, bad[k].t, bad[k].len);
		if (vmstack_py311_line(t, bad[k].len, bad[k].first, bad[k].index) != bad[k].want) {
			fprintf(stderr, "  case %zu\n", k);
			CHECK(0);
		}
		free(t);
	}
	/* Random bytes, mostly headers: only ASan and UBSan have a say. */
	for (n = 0; n < 2000; n++) {
		size_t len = (size_t)n % 40, i;
		unsigned char *t = malloc(len ? len : 1);
		long index;

		CHECK(t != NULL);
		if (!t)
			return;
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			t[i] = (unsigned char)(seed >> 16);
		}
		for (index = -1; index < 80; index++)
			CHECK(vmstack_py311_line(t, len, n % 3 ? 1 : INT_MAX, index) >= -1);
		free(t);
	}
}

/*
 * 3.10's line table (pairs: bytes covered, signed line delta; -128: no
 * line), by hand: 6 bytes at +1, a zero-width +2, 4 bytes without a line,
 * 2 bytes at +1 from the line before them.
 */
UNIT_TEST(py310_lines_by_hand)
{
	static const unsigned char t[] = { 6, 1, 0, 2, 4, 0x80, 2, 1 };

	CHECK(vmstack_py310_line(t, sizeof(t), 10, -2) == 10);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 0) == 11);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 5) == 11);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 6) == -1);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 9) == -1);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 10) == 14);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 11) == 14);
	CHECK(vmstack_py310_line(t, sizeof(t), 10, 12) == -1);
	CHECK(vmstack_py310_line(t, 7, 10, 10) == -1);	/* a torn pair is not read */
	CHECK(vmstack_py310_line(NULL, 0, 7, 0) == -1);
}

/*
 * 3.9's co_lnotab (pairs: offset increment, signed line increment), by
 * hand: +1 at byte 6, then +2 at the same byte, -1 at 10, an offset jump
 * of 250 with no line change (as the compiler splits jumps over 255), +3
 * at 270.
 */
UNIT_TEST(py39_lines_by_hand)
{
	static const unsigned char t[] = { 6, 1, 0, 2, 4, 0xff, 250, 0, 10, 3 };
	static const unsigned char below[] = { 2, 0xfe };

	CHECK(vmstack_py39_line(t, sizeof(t), 10, -1) == 10);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 0) == 10);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 5) == 10);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 6) == 13);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 9) == 13);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 10) == 12);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 269) == 12);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 270) == 15);
	CHECK(vmstack_py39_line(t, sizeof(t), 10, 1000) == 15);
	CHECK(vmstack_py39_line(t, 9, 10, 270) == 12);	/* a torn pair is not read */
	CHECK(vmstack_py39_line(below, sizeof(below), 1, 2) == -1);
	CHECK(vmstack_py39_line(NULL, 0, 7, 4) == 7);
}

/*
 * Every instruction of the code objects pyenv's python3.9 compiles from
 * three of its own modules (threading, dis, argparse: long functions, loops,
 * multi-line expressions whose lines go back): the line CPython's own
 * dis.findlinestarts() gives it. One line per code object: co_firstlineno,
 * co_lnotab in hex, then the line of each instruction (every 2 bytes).
 */
static const char py39_dump[] =
	"import argparse, dis, threading\n"
	"def walk(c):\n"
	"    starts = list(dis.findlinestarts(c))\n"
	"    lines = []\n"
	"    for o in range(0, len(c.co_code), 2):\n"
	"        ln = c.co_firstlineno\n"
	"        for a, l in starts:\n"
	"            if a <= o: ln = l\n"
	"        lines.append(str(ln))\n"
	"    print(c.co_firstlineno, c.co_lnotab.hex() or '-', ','.join(lines) or '-')\n"
	"    for k in c.co_consts:\n"
	"        if hasattr(k, 'co_code'): walk(k)\n"
	"for m in (threading, dis, argparse):\n"
	"    walk(compile(open(m.__file__).read(), m.__file__, 'exec'))\n";

UNIT_TEST(py39_lines_as_cpython)
{
	const char *home = getenv("HOME");
	char python[512], cmd[640], *text = NULL, *hex, *csv, *save;
	unsigned char table[65536];
	size_t cap = 0, n, i;
	unsigned int byte;
	long codes = 0, insns = 0, bad = 0, off;
	int first;
	FILE *p;

	snprintf(python, sizeof(python), "%s/.pyenv/versions/3.9.18/bin/python3.9",
		 home ? home : "/root");
	if (access(python, X_OK)) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", python);
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s -c \"$VMSTACK_PY39_DUMP\"", python);
	setenv("VMSTACK_PY39_DUMP", py39_dump, 1);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && getline(&text, &cap, p) > 0) {
		first = (int)strtol(strtok_r(text, " ", &save), NULL, 10);
		hex = strtok_r(NULL, " ", &save);
		csv = strtok_r(NULL, " \n", &save);
		CHECK(hex && csv);
		if (!hex || !csv)
			break;
		for (n = 0; *hex != '-' && n < sizeof(table) && sscanf(hex + 2 * n, "%2x", &byte) == 1;
		     n++)
			table[n] = (unsigned char)byte;
		for (off = 0, i = 0; *csv != '-' && *csv; off += 2, i++) {
			int want = (int)strtol(csv, &csv, 10), got = vmstack_py39_line(table, n, first, off);

			if (got != want && bad++ < 3)
				fprintf(stderr, "  code at line %d: byte %ld: line %d, CPython %d\n",
					first, off, got, want);
			insns++;
			if (*csv == ',')
				csv++;
		}
		codes++;
	}
	free(text);
	CHECK(p && pclose(p) == 0);
	fprintf(stderr, "  %ld code objects, %ld instructions\n", codes, insns);
	CHECK(codes > 100 && insns > 10000 && bad == 0);
}
