/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the tools: allocation that cannot fail quietly,
 * whole files, the target's memory.
 */
#ifndef VMSTACK_UTIL_H
#define VMSTACK_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/*
 * The same for @n 64-bit words at @p (any alignment): one multiply a word,
 * not one a byte, for keys that are addresses (a sample's stack).
 */
uint64_t hash_words(const void *p, size_t n, uint64_t seed);
/*
 * In @n elements of @size bytes from @base, sorted by the uint64_t at
 * @key_off in each: how many have a key at or below @key (the last such
 * is at the result - 1; 0: none).
 */
size_t count_at_or_below(const void *base, size_t n, size_t size, size_t key_off,
			 uint64_t key);
/*
 * The first DIR/@name, DIR from the colon-separated list @dirs, that
 * access(@amode) allows (malloc'd), or NULL.
 */
char *find_in_dirs(const char *dirs, const char *name, int amode);
/* A whole file of at most @max bytes, NUL-terminated; NULL (errno) if not. */
char *read_file(const char *path, size_t max);
/* @len bytes of process @pid at @addr, all of them: 0, or -1. */
int read_target(int pid, uint64_t addr, void *buf, size_t len);

#endif
