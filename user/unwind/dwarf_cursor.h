/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading .eh_frame's numbers: LEB128, fixed sizes, DW_EH_PE pointers.
 * Inline: the direct reader calls these a few times per instruction of
 * every FDE, and calls across files would cost it measurably.
 */
#ifndef VMSTACK_UNWIND_DWARF_CURSOR_H
#define VMSTACK_UNWIND_DWARF_CURSOR_H

#include <stdint.h>
#include <string.h>

/* Bytes [p, end) left to read; bad once a read went past end. */
struct cursor {
	const uint8_t *p, *end;
	int bad;
};

/*
 * A LEB128 number's bits; *@shift ends past its last byte and *@last is
 * that byte (get_sleb() extends the sign from them).
 */
static inline uint64_t get_leb(struct cursor *c, unsigned int *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		if (c->p >= c->end || *shift > 63) {
			c->bad = 1;
			*last = 0;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

static inline uint64_t get_uleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;

	return get_leb(c, &shift, &last);
}

static inline int64_t get_sleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;
	uint64_t v = get_leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

static inline uint64_t get_fixed(struct cursor *c, unsigned int n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n);	/* little-endian: x86-64 only */
	c->p += n;
	return v;
}

/* A pointer of DW_EH_PE encoding @enc, its value as stored (no base added). */
static inline uint64_t get_encoded(struct cursor *c, uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return get_fixed(c, 8);		/* absptr */
	case 0x01: return get_uleb(c);
	case 0x02: return get_fixed(c, 2);
	case 0x03: return get_fixed(c, 4);
	case 0x04: return get_fixed(c, 8);
	case 0x09: return (uint64_t)get_sleb(c);
	case 0x0a: return (uint64_t)(int16_t)get_fixed(c, 2);
	case 0x0b: return (uint64_t)(int32_t)get_fixed(c, 4);
	case 0x0c: return get_fixed(c, 8);
	}
	c->bad = 1;
	return 0;
}

#endif
