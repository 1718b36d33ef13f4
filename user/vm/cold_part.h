/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of a VM's interpreter function that GCC moved out of it
 * (FUNC.cold): its unlikely paths, or with a profile (PGO) whatever the
 * profile found cold, which in Debian's CPython 3.14 is the whole eval
 * loop. It runs in the function's own native frame, so it is one more
 * entry range of the VM's descriptor; a stripped file keeps no symbol
 * for it.
 */
#ifndef VMSTACK_VM_COLD_PART_H
#define VMSTACK_VM_COLD_PART_H

#include <gelf.h>
#include <stdint.h>

/*
 * The FDE range (.eh_frame) in @fn's section that @fn's rel32 jumps leave
 * it for and that jumps back into @fn's middle most often, both counted:
 * 0 and [*lo, *hi) (file addresses), or -1 when no range has 8 such jumps
 * with 4 of them back (a few stray byte patterns are not a cold part; a
 * real one has dozens: Debian's CPython 3.14.10, 12 out and 206 back;
 * PHP 8.2's execute_ex, 58 and 30).
 */
int vmstack_cold_part(Elf *elf, const GElf_Sym *fn, uint64_t *lo, uint64_t *hi);

#endif
