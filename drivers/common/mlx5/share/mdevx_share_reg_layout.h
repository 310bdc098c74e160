/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export registry in shared memory: the layout of the region (header,
 * buckets, records), the writer's private slots and the handle, and what
 * both halves of the registry need of them (the checksum of a record, the
 * closed flag, the key of a name). Shared by mdevx_share_reg.c and
 * mdevx_share_reg_lookup.c only: no other file includes it, and it is
 * never installed. See mdevx_share_reg.h for the model.
 */
#ifndef MDEVX_SHARE_REG_LAYOUT_H
#define MDEVX_SHARE_REG_LAYOUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdevx_csum.h"
#include "mdevx_share_reg.h"

#define REG_MAGIC 0x6d64657678726567ULL	/* "mdevxreg" */
#define REG_VERSION 4u			/* 4: the free list is the writer's, not in the region */
#define REC_SIZE 256

/*
 * Shared layout: header, bucket array (uint32_t record index + 1, 0 = empty),
 * record array. Offsets are fixed by the header so a reader of another
 * binary finds everything from the base address; each handle checks and
 * copies them once.
 */
struct reg_hdr {
	uint64_t magic;
	uint16_t version;
	uint16_t rec_size;
	uint32_t closed;		/* the owner closed the device: reads give ENODEV */
	uint32_t capacity;
	uint32_t nb_buckets;		/* power of two, >= 2 * capacity */
	uint64_t buckets_off;
	uint64_t records_off;
	uint64_t total_size;
	uint64_t cookie;
	uint32_t count;			/* used slots (published + withdrawn), for readers */
	uint32_t reserved;
};

/*
 * What a lookup reads first (sequence, link, checksum, the fields) shares
 * the record's first cache line; the name and the export buffer follow.
 */
struct reg_rec {
	uint32_t seq;			/* odd while being written */
	uint32_t next;			/* hash chain or free list: index + 1 */
	uint64_t checksum;		/* of what follows, to the export buffer's end */
	/* --- covered by the checksum from here --- */
	uint32_t hash;
	uint16_t kind;
	uint16_t state;
	uint64_t generation;
	uint64_t cookie;
	int32_t owner_pid;
	uint32_t object_id;
	uint32_t size_or_tirn;
	uint32_t export_len;
	uint64_t rx_icm_addr;
	char name[MDEVX_SHARE_NAME_MAX + 1];
	uint8_t export_buf[MDEVX_SHARE_EXPORT_MAX];
	/* --- to here: export_len bytes of the buffer (the rest is zero) --- */
	uint8_t reserved[REC_SIZE - 240];
};

_Static_assert(sizeof(struct reg_rec) == REC_SIZE, "record size");
_Static_assert(sizeof(struct reg_hdr) <= 64, "header fits a cache line");

/*
 * The writer's truth of one slot: what it writes into the region, never
 * reads back from it.
 */
struct reg_wslot {
	uint64_t generation;
	uint32_t seq;			/* even: the last value written */
	uint32_t next;			/* hash chain or free list: index + 1 */
	uint32_t hash;
	uint16_t kind;
	uint16_t state;
	char name[MDEVX_SHARE_NAME_MAX + 1];
	/* what the writer's own listing (mdevx_share_reg_next()) returns */
	uint64_t rx_icm_addr;
	int32_t owner_pid;
	uint32_t object_id;
	uint32_t size_or_tirn;
	uint32_t export_len;
};

_Static_assert(sizeof(struct reg_wslot) == 96, "the writer's slot (doc/share.rst)");

/* A handle: private memory, the only place the structure is read from. */
struct mdevx_share_reg {
	struct reg_hdr *hdr;		/* in the region: magic, closed and count only */
	uint32_t *buckets;		/* in the region */
	struct reg_rec *recs;		/* in the region */
	size_t size;
	uint32_t capacity;
	uint32_t mask;			/* bucket count - 1 */
	uint64_t cookie;
	/* the writer's handle only */
	struct reg_wslot *ws;		/* capacity slots; NULL in a reader's handle */
	uint32_t *wbuckets;		/* chain heads, index + 1 */
	uint32_t free_head;		/* index + 1 */
	/*
	 * The header as the writer wrote it: what every repair writes back.
	 * Its closed and count words, the slots' state and the listing's
	 * fields change under hlock, a leaf lock (nothing is taken under it),
	 * so that the periodic repair and the writer's listing may run in
	 * other threads than the writer.
	 */
	struct reg_hdr himage;
	pthread_mutex_t hlock;
	bool hlock_init;
	uint64_t repairs;		/* header words found changed and rewritten */
	uint32_t count;
	bool closed;
};

#define CSUM_START offsetof(struct reg_rec, hash)
#define CSUM_FIXED (offsetof(struct reg_rec, export_buf) - CSUM_START)
_Static_assert(offsetof(struct reg_rec, name) == 64, "fields in the first cache line");

/* The writer trusts its own word, readers the region's. */
static inline bool
reg_closed(const struct mdevx_share_reg *reg)
{
	if (reg->ws != NULL)
		return __atomic_load_n(&reg->closed, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&reg->hdr->closed, __ATOMIC_ACQUIRE) != 0;
}

/*
 * A name as the records hold it: zero-padded to the full field, so that it
 * hashes word by word.
 */
#define NAME_WORDS ((MDEVX_SHARE_NAME_MAX + 1) / 8)
_Static_assert((MDEVX_SHARE_NAME_MAX + 1) % 8 == 0, "name field in whole words");

struct name_key {
	uint64_t w[NAME_WORDS];
	uint64_t last_mask;		/* last word: the bytes of the name and its NUL */
	uint32_t last;			/* index of that word */
	uint32_t hash;
};

/* Check a name and make its key (mdevx_share_reg_lookup.c). */
int share_reg_make_key(const char *name, struct name_key *key);

/*
 * Record checksum, seeded with the slot index: a record copied to another
 * slot fails. It covers the fields, the name and the @p export_len bytes of
 * the export buffer that are in use (the length is itself a covered field,
 * so a changed length changes the sum; a corrupted one is bounded here).
 */
static inline uint64_t
rec_checksum(const struct reg_rec *rec, uint32_t idx, uint32_t export_len)
{
	if (export_len > MDEVX_SHARE_EXPORT_MAX)
		export_len = MDEVX_SHARE_EXPORT_MAX;
	/* compared whole: no finaliser needed (see mdevx_csum.h) */
	return mdevx_csum64_wide((const uint8_t *)rec + CSUM_START, CSUM_FIXED + export_len,
				 REG_MAGIC ^ ((uint64_t)idx << 20));
}

#endif /* MDEVX_SHARE_REG_LAYOUT_H */
