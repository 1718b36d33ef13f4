// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "unit.h"
#include "util.h"
#include "walk_host.h"

#define MAX_REGIONS 64	/* a live process's writable mappings: test_vm_lua_live.c */

static struct {
	uint64_t base;
	size_t len;
	unsigned char *bytes;
} regions[MAX_REGIONS];
static int nregions;
/* Reads outside the regions go to this process's memory (0: none). */
static int live_pid;
static unsigned long reads, faults;
static uint64_t clock_ns, read_ns, fault_ns;

void fake_mem_reset(void)
{
	int i;

	for (i = 0; i < nregions; i++)
		free(regions[i].bytes);
	nregions = 0;
	live_pid = 0;
	reads = 0;
	faults = 0;
	clock_ns = 0;
	read_ns = 0;
	fault_ns = 0;
}

/* The last walk test's regions, freed when the tests are done. */
__attribute__((destructor)) static void fake_mem_release(void)
{
	fake_mem_reset();
}

void fake_mem_map(uint64_t base, size_t len)
{
	if (nregions == MAX_REGIONS)
		abort();
	regions[nregions].base = base;
	regions[nregions].len = len;
	regions[nregions].bytes = calloc(1, len);
	if (!regions[nregions].bytes)
		abort();
	nregions++;
}

static unsigned char *at(uint64_t addr, size_t len)
{
	int i;

	for (i = 0; i < nregions; i++)
		if (addr >= regions[i].base && len <= regions[i].len &&
		    addr - regions[i].base <= regions[i].len - len)
			return regions[i].bytes + (addr - regions[i].base);
	return NULL;
}

static void put(uint64_t addr, const void *v, size_t len)
{
	unsigned char *p = at(addr, len);

	/* A test that writes outside its regions is itself wrong. */
	CHECK(p != NULL);
	if (p)
		memcpy(p, v, len);
}

void fake_put64(uint64_t addr, uint64_t v) { put(addr, &v, 8); }
void fake_put32(uint64_t addr, uint32_t v) { put(addr, &v, 4); }
void fake_put16(uint64_t addr, uint16_t v) { put(addr, &v, 2); }
void fake_put8(uint64_t addr, uint8_t v) { put(addr, &v, 1); }
unsigned long fake_mem_reads(void) { return reads; }
unsigned long fake_mem_faults(void) { return faults; }

void fake_mem_process(int pid)
{
	live_pid = pid;
}

void fake_mem_costs(uint64_t read, uint64_t fault)
{
	read_ns = read;
	fault_ns = fault;
}

u64 vmstack_walk_clock(void) { return clock_ns; }

bool vmstack_read_user(void *dst, unsigned long addr, size_t len)
{
	unsigned char *p = at(addr, len);

	reads++;
	if (!p && live_pid > 0 && !read_target(live_pid, addr, dst, len)) {
		clock_ns += read_ns;
		return true;
	}
	if (!p) {
		faults++;
		clock_ns += fault_ns;
		return false;
	}
	clock_ns += read_ns;
	memcpy(dst, p, len);
	return true;
}
