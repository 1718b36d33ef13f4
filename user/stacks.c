// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "util.h"

void vmstack_stacks_init(struct vmstack_stacks *st, int per_thread)
{
	memset(st, 0, sizeof(*st));
	st->per_thread = per_thread;
	st->nslots = 1024;
	st->slots = xcalloc(st->nslots, sizeof(*st->slots));
}

static uint64_t stack_hash(uint32_t pid, uint32_t tid, uint16_t nk,
			   uint16_t nu, const void *ips)
{
	/* The ips word by word: this runs once a sample. */
	uint64_t key[2] = { (uint64_t)pid << 32 | tid, (uint64_t)nk << 16 | nu };

	return hash_words(ips, (size_t)nk + nu, hash_words(key, 2, 0));
}

static int same(const struct vmstack_stack *s, uint32_t pid, uint32_t tid,
		uint16_t nk, uint16_t nu, const void *ips)
{
	return s->pid == pid && s->tid == tid && s->nr_kernel == nk &&
	       s->nr_user == nu && !memcmp(s->ips, ips, (size_t)(nk + nu) * 8);
}

static void grow(struct vmstack_stacks *st)
{
	struct vmstack_stack **old = st->slots;
	size_t i, j, nold = st->nslots;

	st->nslots *= 2;
	st->slots = xcalloc(st->nslots, sizeof(*st->slots));
	for (i = 0; i < nold; i++) {
		struct vmstack_stack *s = old[i];

		if (!s)
			continue;
		j = stack_hash(s->pid, s->tid, s->nr_kernel, s->nr_user, s->ips) &
		    (st->nslots - 1);
		while (st->slots[j])
			j = (j + 1) & (st->nslots - 1);
		st->slots[j] = s;
	}
	free(old);
}

int vmstack_stacks_add(struct vmstack_stacks *st,
		       const struct vmstack_rec_sample *rec)
{
	return vmstack_stacks_add_weight(st, rec, 1);
}

int vmstack_stacks_add_weight(struct vmstack_stacks *st,
			      const struct vmstack_rec_sample *rec, uint64_t weight)
{
	uint32_t tid = st->per_thread ? rec->tid : 0;
	uint16_t nk = rec->nr_kernel, nu = rec->nr_user;
	struct vmstack_stack *s;
	size_t j, n = (size_t)nk + nu;

	st->samples += weight != 0;
	st->added = NULL;
	if (2 * (st->n + 1) > st->nslots)
		grow(st);
	j = stack_hash(rec->pid, tid, nk, nu, rec->ips) & (st->nslots - 1);
	for (; (s = st->slots[j]); j = (j + 1) & (st->nslots - 1)) {
		if (same(s, rec->pid, tid, nk, nu, rec->ips)) {
			s->count += weight;
			return 0;
		}
	}
	s = xmalloc(sizeof(*s) + n * 8);
	s->count = weight;
	s->pid = rec->pid;
	s->tid = tid;
	s->nr_kernel = nk;
	s->nr_user = nu;
	s->flags = rec->hdr.flags;
	memcpy(s->ips, rec->ips, n * 8);
	st->slots[j] = s;
	st->added = s;
	st->n++;
	return 1;
}

void vmstack_stacks_free(struct vmstack_stacks *st)
{
	size_t i;

	for (i = 0; i < st->nslots; i++)
		free(st->slots[i]);
	free(st->slots);
	memset(st, 0, sizeof(*st));
}
