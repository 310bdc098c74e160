/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Index maps: small integer -> pointer, lowest free index first (as the
 * uverbs handle idr), O(1) lookup, storage grown on demand up to a limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

void
swdev_idmap_init(struct swdev_idmap *m, uint32_t max)
{
	memset(m, 0, sizeof(*m));
	m->max = max;
}

void
swdev_idmap_fini(struct swdev_idmap *m)
{
	free(m->slot);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

int
swdev_idmap_reserve(struct swdev_idmap *m)
{
	uint32_t ncap;
	void **slot;
	uint64_t *used;

	if (m->count >= m->max)
		return ENOSPC;
	if (m->count < m->cap)
		return 0;
	ncap = m->cap ? m->cap * 2 : 64;
	if (ncap < m->cap || ncap > ((m->max + 63u) & ~63u))
		ncap = (m->max + 63u) & ~63u;
	if (ncap == 0 || ncap <= m->cap)
		return ENOSPC;
	slot = realloc(m->slot, sizeof(*slot) * ncap);
	if (slot == NULL)
		return ENOMEM;
	m->slot = slot;
	used = realloc(m->used, sizeof(*used) * (ncap / 64));
	if (used == NULL)
		return ENOMEM;
	memset(used + m->cap / 64, 0, sizeof(*used) * ((ncap - m->cap) / 64));
	memset(slot + m->cap, 0, sizeof(*slot) * (ncap - m->cap));
	m->used = used;
	m->cap = ncap;
	return 0;
}

uint32_t
swdev_idmap_alloc(struct swdev_idmap *m, void *p)
{
	uint32_t w = m->hint / 64;
	uint32_t idx;

	/* reserve() guarantees count < cap, so a free bit exists past hint */
	while (m->used[w] == UINT64_MAX)
		w++;
	idx = w * 64 + (uint32_t)__builtin_ctzll(~m->used[w]);
	m->used[w] |= 1ull << (idx % 64);
	m->slot[idx] = p;
	m->count++;
	m->hint = idx + 1;
	return idx;
}

void *
swdev_idmap_get(const struct swdev_idmap *m, uint32_t idx)
{
	if (idx >= m->cap)
		return NULL;
	return m->slot[idx];
}

void
swdev_idmap_free(struct swdev_idmap *m, uint32_t idx)
{
	if (idx >= m->cap || !(m->used[idx / 64] & (1ull << (idx % 64))))
		return;
	m->used[idx / 64] &= ~(1ull << (idx % 64));
	m->slot[idx] = NULL;
	m->count--;
	if (idx < m->hint)
		m->hint = idx;
}
