/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the tools: allocation that cannot fail quietly. */
#ifndef VMSTACK_UTIL_H
#define VMSTACK_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/* A whole file of at most @max bytes, NUL-terminated; NULL (errno) if not. */
char *read_file(const char *path, size_t max);

#endif
