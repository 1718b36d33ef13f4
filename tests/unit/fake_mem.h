/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake address space for the walker's unit tests: a few regions at
 * chosen addresses; reads outside them fail, as a nofault copy would.
 */
#ifndef VMSTACK_FAKE_MEM_H
#define VMSTACK_FAKE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Forget every region and the read count. */
void fake_mem_reset(void);
/* A zeroed region of @len bytes at @base. */
void fake_mem_map(uint64_t base, size_t len);
void fake_put64(uint64_t addr, uint64_t v);
void fake_put32(uint64_t addr, uint32_t v);
void fake_put16(uint64_t addr, uint16_t v);
void fake_put8(uint64_t addr, uint8_t v);
/* Reads made since the reset, and the bytes they asked for. */
unsigned long fake_mem_reads(void);

#endif
