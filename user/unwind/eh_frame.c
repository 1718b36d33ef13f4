// SPDX-License-Identifier: GPL-2.0
/*
 * The direct path: .eh_frame read here, each FDE's program run once, a row
 * at each advance. libdw's dwarf_cfi_addrframe runs the CIE's and FDE's
 * programs again from the start for every row and looks the FDE up each
 * time: most of the 50-70 ms vmstack-record spent on python3.11's rules
 * (host; about 20x that under TCG) before its first sample. Anything this
 * does not know (an augmentation, an opcode, an encoding) sends the file
 * to libdw (libdw_frames.c); both fill the same frame state.
 */
#include <gelf.h>

#include "unwind/cfa_program.h"
#include "unwind/eh_frame_hdr.h"

/* The CIE at @p (its length field), with bytes up to @limit. */
static int parse_cie(const uint8_t *p, const uint8_t *limit, struct cie *cie)
{
	struct cursor c = { p, limit, 0 };
	uint64_t len = get_fixed(&c, 4);
	const char *aug;
	uint8_t version;
	int signal = 0;

	if (len < 8 || len == 0xffffffff || len > (uint64_t)(limit - c.p))
		return -1;
	c.end = c.p + len;
	if (get_fixed(&c, 4) != 0)	/* a CIE's id is 0 in .eh_frame */
		return -1;
	version = (uint8_t)get_fixed(&c, 1);
	aug = (const char *)c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p++ >= c.end || (version != 1 && version != 3))
		return -1;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = 0;		/* absptr */
	cie->code_align = get_uleb(&c);
	cie->data_align = get_sleb(&c);
	if (version == 1)
		get_fixed(&c, 1);
	else
		get_uleb(&c);
	if (*aug == 'z') {
		uint64_t alen = get_uleb(&c);
		const uint8_t *after;

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		after = c.p + alen;
		cie->has_z = 1;
		for (aug++; *aug; aug++) {
			if (*aug == 'R') {
				cie->fde_enc = (uint8_t)get_fixed(&c, 1);
			} else if (*aug == 'L') {
				get_fixed(&c, 1);
			} else if (*aug == 'P') {
				uint8_t enc = (uint8_t)get_fixed(&c, 1);

				get_encoded(&c, enc);
			} else if (*aug == 'S') {
				signal = 1;
			} else {
				return -1;
			}
		}
		c.p = after;
	} else if (*aug) {
		return -1;
	}
	if (c.bad || cie->fde_enc == 0xff)
		return -1;
	/* The ABI's start (libdw's for x86-64): CFA rsp + 8, RA at CFA - 8. */
	cie->init = (struct frame_state){ .signal = signal, .cfa = CFA_REG,
					  .cfa_reg = DW_REG_RSP, .cfa_off = 8,
					  .ra = SAVED_AT_CFA, .ra_off = -8,
					  .rbp = SAVED_SAME };
	return cfa_program_run(&c, cie, &cie->init, 0, 0, NULL);
}

/* File bytes at link-time address @vaddr through the load segments. */
static const uint8_t *vaddr_bytes(Elf *elf, const struct eh_frame_hdr *h,
				  uint64_t vaddr, uint64_t *avail)
{
	size_t i, nphdr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nphdr))
		return NULL;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz &&
		    ph.p_offset + ph.p_filesz <= h->size) {
			*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
			return h->file + ph.p_offset + (vaddr - ph.p_vaddr);
		}
	return NULL;
}

/*
 * FDE @i of @h (with its CIE in @cie, parsed again only when it changes):
 * its rows up to the next FDE's start. 0, or -1 for what is not known.
 */
static int read_fde(Elf *elf, const struct eh_frame_hdr *h, size_t i, struct cie *cie,
		    uint64_t *cie_at, struct vmstack_cfi_table *t)
{
	uint64_t start = eh_frame_hdr_start(h, i), fde_vaddr = eh_frame_hdr_fde(h, i);
	uint64_t next = i + 1 < h->n ? eh_frame_hdr_start(h, i + 1) : UINT64_MAX;
	uint64_t range, this_cie, len, avail;
	const uint8_t *fde = vaddr_bytes(elf, h, fde_vaddr, &avail);
	struct frame_state st;
	struct cursor c;
	int32_t cie_ptr;

	if (!fde || avail < 8)
		return -1;
	c = (struct cursor){ fde, fde + avail, 0 };
	len = get_fixed(&c, 4);
	/* At least the CIE pointer and a 4-byte pc_begin. */
	if (len < 8 || len == 0xffffffff || len > avail - 4)
		return -1;
	c.end = c.p + len;
	memcpy(&cie_ptr, c.p, 4);
	/* CIE pointer: back from this field to the CIE. */
	this_cie = fde_vaddr + 4 - (uint64_t)(int64_t)cie_ptr;
	c.p += 4;
	if (cie_ptr <= 0)
		return -1;
	if (this_cie != *cie_at) {
		const uint8_t *cp = vaddr_bytes(elf, h, this_cie, &avail);

		if (!cp || parse_cie(cp, cp + avail, cie))
			return -1;
		*cie_at = this_cie;
	}
	get_encoded(&c, cie->fde_enc);		/* pc_begin: the table's */
	range = get_encoded(&c, cie->fde_enc & 0x0f);
	if (cie->has_z) {
		uint64_t alen = get_uleb(&c);

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		c.p += alen;
	}
	if (c.bad)
		return -1;
	t->fdes++;
	/* An FDE that runs into the next ends there; an empty one has no rows. */
	if (!range)
		return 0;
	if (range > next - start)
		range = next - start;
	st = cie->init;
	if (cfa_program_run(&c, cie, &st, start, start + range, t))
		return -1;
	/* A gap up to the next FDE: no rule there. */
	if (start + range < next)
		cfi_table_add_gap(t, start + range);
	return 0;
}

int vmstack_cfi_build_direct(Elf *elf, struct vmstack_cfi_table *t)
{
	uint64_t cie_at = UINT64_MAX;
	struct eh_frame_hdr h;
	struct cie cie;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (eh_frame_hdr_find(elf, &h))
		return -1;
	for (i = 0; i < h.n; i++)
		if (read_fde(elf, &h, i, &cie, &cie_at, t)) {
			vmstack_cfi_free(t);
			return -1;
		}
	return 0;
}
