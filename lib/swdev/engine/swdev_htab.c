/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: chained hash tables with nodes embedded in
 * the objects they link (flow table entries by index and by masked value,
 * root rules by masked value), and the hashes of match sets. Lookups cost
 * one hash and one short chain whatever the number of nodes: the bucket
 * array doubles when the nodes outnumber the buckets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define HTAB_FIRST_BUCKETS 16u
#define HTAB_MAX_BUCKETS (1u << 26)

int
swdev_htab_init(struct swdev_htab *h)
{
	h->n = 0;
	h->b = calloc(HTAB_FIRST_BUCKETS, sizeof(*h->b));
	if (h->b == NULL) {
		h->nb = 0;
		return ENOMEM;
	}
	h->nb = HTAB_FIRST_BUCKETS;
	return 0;
}

void
swdev_htab_fini(struct swdev_htab *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

/* Double the buckets; on allocation failure keep the longer chains. */
static void
htab_grow(struct swdev_htab *h)
{
	uint32_t nb = h->nb * 2, i;
	struct swdev_hnode **b;

	if (nb > HTAB_MAX_BUCKETS)
		return;
	b = calloc(nb, sizeof(*b));
	if (b == NULL)
		return;
	for (i = 0; i < h->nb; i++) {
		struct swdev_hnode *n = h->b[i], *next;

		for (; n != NULL; n = next) {
			next = n->next;
			n->next = b[n->hash & (nb - 1)];
			b[n->hash & (nb - 1)] = n;
		}
	}
	free(h->b);
	h->b = b;
	h->nb = nb;
}

void
swdev_htab_insert(struct swdev_htab *h, struct swdev_hnode *node)
{
	struct swdev_hnode **head;

	if (h->n >= h->nb)
		htab_grow(h);
	head = &h->b[node->hash & (h->nb - 1)];
	node->next = *head;
	*head = node;
	h->n++;
}

void
swdev_htab_remove(struct swdev_htab *h, struct swdev_hnode *node)
{
	struct swdev_hnode **pp;

	if (h->nb == 0)
		return;
	for (pp = &h->b[node->hash & (h->nb - 1)]; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == node) {
			*pp = node->next;
			node->next = NULL;
			h->n--;
			return;
		}
	}
}

static inline uint64_t
mix64(uint64_t x)
{
	/* the splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t
swdev_hash_set(const uint8_t *set)
{
	uint64_t h = 0x5d5d5d5d5d5d5d5dull, w;
	size_t i;

	for (i = 0; i < SWDEV_MATCH_SET_LEN; i += sizeof(w)) {
		memcpy(&w, set + i, sizeof(w));
		h = mix64(h ^ w);
	}
	return h;
}

uint64_t
swdev_hash_u32(uint32_t v)
{
	return mix64(v);
}

void
swdev_set_and(uint8_t *dst, const uint8_t *a, const uint8_t *b)
{
	uint64_t x, y;
	size_t i;

	for (i = 0; i < SWDEV_MATCH_SET_LEN; i += sizeof(x)) {
		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		x &= y;
		memcpy(dst + i, &x, sizeof(x));
	}
}
