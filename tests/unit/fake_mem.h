/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake address space for the walker's unit tests: a few regions at
 * chosen addresses; reads outside them fail, as a nofault copy would. And
 * a fake clock that reads advance, for the walker's deadline.
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
/* Reads made since the reset, and of them those that failed. */
unsigned long fake_mem_reads(void);
unsigned long fake_mem_faults(void);
/*
 * Reads outside the regions read process @pid's memory (a live
 * interpreter under the fake native stack), until the next reset.
 */
void fake_mem_process(int pid);
/*
 * What a read that succeeds and one that fails advance the walker's clock
 * by (vmstack_walk_clock(), in ns from the reset; 0 until set).
 */
void fake_mem_costs(uint64_t read, uint64_t fault);

#endif
