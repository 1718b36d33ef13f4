// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>

#include "unwind/eh_frame_hdr.h"

int eh_frame_hdr_find(Elf *elf, struct eh_frame_hdr *h)
{
	size_t i, nphdr;
	const uint8_t *hdr;
	GElf_Phdr ph;
	int32_t cnt;

	memset(h, 0, sizeof(*h));
	h->file = (const uint8_t *)elf_rawfile(elf, &h->size);
	if (!h->file || elf_getphdrnum(elf, &nphdr))
		return -1;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == nphdr || ph.p_offset + 12 > h->size)
		return -1;
	hdr = h->file + ph.p_offset;
	/* version 1; eh_frame_ptr pcrel|sdata4, count udata4, table datarel|sdata4 */
	if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b || (hdr[1] & 0x0f) != 0x0b)
		return -1;
	memcpy(&cnt, hdr + 8, 4);
	if (cnt <= 0 || ph.p_offset + 12 + (uint64_t)cnt * 8 > h->size)
		return -1;
	h->table = hdr + 12;
	h->n = (size_t)cnt;
	h->vaddr = ph.p_vaddr;
	return 0;
}
