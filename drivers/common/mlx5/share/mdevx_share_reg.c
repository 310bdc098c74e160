/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export registry in shared memory: the region's format and the handles
 * (init, attach, the header's checks and repair), the writer (its record
 * slots, publish, withdraw, release, its own find) and close. The layout
 * both halves use is in mdevx_share_reg_layout.h; the lock-free readers
 * (name hashing, lookup, verified reads, the listing) are in
 * mdevx_share_reg_lookup.c. See mdevx_share_reg.h for the model.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_csum.h"
#include "mdevx_share_reg.h"
#include "mdevx_share_reg_layout.h"

static inline void
store_rel32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline bool
capacity_valid(uint32_t capacity)
{
	return capacity != 0 && capacity <= MDEVX_SHARE_CAPACITY_MAX;
}

/* Buckets for a valid capacity (2^23 at most: no overflow). */
static uint32_t
buckets_for(uint32_t capacity)
{
	uint32_t n = 1;

	while (n < 2 * capacity)
		n <<= 1;
	return n;
}

size_t
mdevx_share_reg_size(uint32_t capacity)
{
	size_t buckets;

	if (!capacity_valid(capacity))
		return 0;
	buckets = (size_t)buckets_for(capacity) * sizeof(uint32_t);
	buckets = (buckets + 63) & ~(size_t)63;
	return 64 + buckets + (size_t)capacity * REC_SIZE;
}

/* A handle on @p mem for @p capacity records, laid out as init lays them. */
static struct mdevx_share_reg *
handle_new(void *mem, uint32_t capacity, uint64_t cookie)
{
	struct mdevx_share_reg *reg = calloc(1, sizeof(*reg));

	if (reg == NULL)
		return NULL;
	reg->size = mdevx_share_reg_size(capacity);
	reg->capacity = capacity;
	reg->mask = buckets_for(capacity) - 1;
	reg->cookie = cookie;
	reg->hdr = mem;
	reg->buckets = (uint32_t *)((uint8_t *)mem + 64);
	reg->recs = (struct reg_rec *)((uint8_t *)mem + reg->size - (size_t)capacity * REC_SIZE);
	return reg;
}

struct mdevx_share_reg *
mdevx_share_reg_init(void *mem, size_t len, uint32_t capacity, uint64_t cookie)
{
	size_t need = mdevx_share_reg_size(capacity);
	struct mdevx_share_reg *reg;
	struct reg_hdr *hdr = mem;

	if (mem == NULL || need == 0 || len < need || ((uintptr_t)mem & 63) != 0) {
		errno = EINVAL;
		return NULL;
	}
	reg = handle_new(mem, capacity, cookie);
	if (reg != NULL) {
		reg->ws = calloc(capacity, sizeof(*reg->ws));
		reg->wbuckets = calloc((size_t)reg->mask + 1, sizeof(*reg->wbuckets));
	}
	if (reg == NULL || reg->ws == NULL || reg->wbuckets == NULL) {
		mdevx_share_reg_free(reg);
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_mutex_init(&reg->hlock, NULL) != 0) {
		mdevx_share_reg_free(reg);
		errno = ENOMEM;
		return NULL;
	}
	reg->hlock_init = true;
	for (uint32_t i = 0; i < capacity; i++)
		reg->ws[i].next = i + 2 <= capacity ? i + 2 : 0;
	reg->free_head = 1;
	memset(mem, 0, need);
	reg->himage.magic = REG_MAGIC;
	reg->himage.version = REG_VERSION;
	reg->himage.rec_size = REC_SIZE;
	reg->himage.capacity = capacity;
	reg->himage.nb_buckets = reg->mask + 1;
	reg->himage.buckets_off = (uint64_t)((uint8_t *)reg->buckets - (uint8_t *)mem);
	reg->himage.records_off = (uint64_t)((uint8_t *)reg->recs - (uint8_t *)mem);
	reg->himage.total_size = need;
	reg->himage.cookie = cookie;
	hdr->version = reg->himage.version;
	hdr->rec_size = reg->himage.rec_size;
	hdr->capacity = reg->himage.capacity;
	hdr->nb_buckets = reg->himage.nb_buckets;
	hdr->buckets_off = reg->himage.buckets_off;
	hdr->records_off = reg->himage.records_off;
	hdr->total_size = reg->himage.total_size;
	hdr->cookie = reg->himage.cookie;
	/* The magic last: a reader never sees a half-formatted registry. */
	__atomic_store_n(&hdr->magic, REG_MAGIC, __ATOMIC_RELEASE);
	return reg;
}

/*
 * Writer, hlock held: every word of the header as the private image has
 * it. Only the words that differ are written (readers keep the line in
 * their caches otherwise), the magic last. Returns the number of words
 * that differed.
 */
#define HDR_FIX(field, n) do {							\
	if (__atomic_load_n(&hdr->field, __ATOMIC_RELAXED) != img->field) {	\
		__atomic_store_n(&hdr->field, img->field, __ATOMIC_RELAXED);	\
		(n)++;								\
	}									\
} while (0)

static unsigned int
hdr_sync(struct mdevx_share_reg *reg)
{
	const struct reg_hdr *img = &reg->himage;
	struct reg_hdr *hdr = reg->hdr;
	unsigned int n = 0;
	bool magic_bad;

	magic_bad = __atomic_load_n(&hdr->magic, __ATOMIC_RELAXED) != img->magic;
	HDR_FIX(version, n);
	HDR_FIX(rec_size, n);
	HDR_FIX(closed, n);
	HDR_FIX(capacity, n);
	HDR_FIX(nb_buckets, n);
	HDR_FIX(buckets_off, n);
	HDR_FIX(records_off, n);
	HDR_FIX(total_size, n);
	HDR_FIX(cookie, n);
	HDR_FIX(count, n);
	HDR_FIX(reserved, n);
	if (magic_bad) {
		__atomic_store_n(&hdr->magic, img->magic, __ATOMIC_RELEASE);
		n++;
	}
	reg->repairs += n;
	return n;
}

unsigned int
mdevx_share_reg_repair(struct mdevx_share_reg *reg)
{
	unsigned int n;

	if (reg == NULL || reg->ws == NULL)
		return 0;
	pthread_mutex_lock(&reg->hlock);
	n = hdr_sync(reg);
	pthread_mutex_unlock(&reg->hlock);
	return n;
}

uint64_t
mdevx_share_reg_repairs(struct mdevx_share_reg *reg)
{
	uint64_t n;

	if (reg == NULL || reg->ws == NULL)
		return 0;
	pthread_mutex_lock(&reg->hlock);
	n = reg->repairs;
	pthread_mutex_unlock(&reg->hlock);
	return n;
}

/*
 * The header's structure, checked as a whole from one copy (another
 * process may change it meanwhile): the capacity first, so that nothing
 * is computed from an invalid one. 0 with the capacity, or EPROTO.
 */
static int
hdr_check(const void *mem, size_t len, uint32_t *capacity, uint64_t *cookie)
{
	struct reg_hdr h;
	size_t size;

	if (mem == NULL || len < sizeof(h) || ((uintptr_t)mem & 63) != 0)
		return EPROTO;
	if (__atomic_load_n(&((const struct reg_hdr *)mem)->magic, __ATOMIC_ACQUIRE) != REG_MAGIC)
		return EPROTO;
	memcpy(&h, mem, sizeof(h));
	if (h.version != REG_VERSION || h.rec_size != REC_SIZE || !capacity_valid(h.capacity))
		return EPROTO;
	size = mdevx_share_reg_size(h.capacity);
	if (h.total_size != size || size > len || h.nb_buckets != buckets_for(h.capacity) ||
	    /* where init puts them: the handle computes them, never reads them */
	    h.buckets_off != 64 || h.records_off != size - (size_t)h.capacity * REC_SIZE)
		return EPROTO;
	*capacity = h.capacity;
	*cookie = h.cookie;
	return 0;
}

int
mdevx_share_reg_probe(const void *mem, size_t len)
{
	uint32_t capacity;
	uint64_t cookie;

	return hdr_check(mem, len, &capacity, &cookie);
}

struct mdevx_share_reg *
mdevx_share_reg_attach(void *mem, size_t len)
{
	struct mdevx_share_reg *reg;
	uint32_t capacity;
	uint64_t cookie;

	if (hdr_check(mem, len, &capacity, &cookie) != 0) {
		errno = EPROTO;
		return NULL;
	}
	reg = handle_new(mem, capacity, cookie);
	if (reg == NULL)
		errno = ENOMEM;
	return reg;
}

void
mdevx_share_reg_free(struct mdevx_share_reg *reg)
{
	if (reg == NULL)
		return;
	if (reg->hlock_init)
		pthread_mutex_destroy(&reg->hlock);
	free(reg->ws);
	free(reg->wbuckets);
	free(reg);
}

void *
mdevx_share_reg_base(const struct mdevx_share_reg *reg)
{
	return reg != NULL ? reg->hdr : NULL;
}

uint32_t
mdevx_share_reg_capacity(const struct mdevx_share_reg *reg)
{
	return reg->capacity;
}

uint32_t
mdevx_share_reg_count(const struct mdevx_share_reg *reg)
{
	uint32_t n;

	if (reg->ws != NULL)
		return __atomic_load_n(&reg->count, __ATOMIC_RELAXED);
	n = __atomic_load_n(&reg->hdr->count, __ATOMIC_RELAXED);
	return n <= reg->capacity ? n : reg->capacity;
}

uint64_t
mdevx_share_reg_cookie(const struct mdevx_share_reg *reg)
{
	return reg->cookie;
}

/*
 * Writer: open and close the write window of a record. The sequence comes
 * from the writer's own count: whatever the region's counter holds, the
 * window opens odd and closes on a value no reader saw before it.
 */
static inline struct reg_rec *
rec_write_begin(struct mdevx_share_reg *reg, uint32_t idx)
{
	struct reg_rec *rec = &reg->recs[idx];

	store_rel32(&rec->seq, reg->ws[idx].seq + 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return rec;
}

/* The fields the writer keeps, written from its copy; then the checksum. */
static inline void
rec_write_end(struct mdevx_share_reg *reg, uint32_t idx)
{
	struct reg_wslot *w = &reg->ws[idx];
	struct reg_rec *rec = &reg->recs[idx];

	rec->hash = w->hash;
	rec->kind = w->kind;
	rec->state = w->state;
	rec->generation = w->generation;
	memcpy(rec->name, w->name, sizeof(rec->name));
	rec->checksum = rec_checksum(rec, idx, rec->export_len);
	w->seq += 2;
	store_rel32(&rec->seq, w->seq);
}

/* The writer's slot of @p key, walking its private chains: index + 1, or 0. */
static uint32_t
owner_find(const struct mdevx_share_reg *reg, const struct name_key *key, const char *name)
{
	uint32_t cur = reg->wbuckets[key->hash & reg->mask];

	while (cur != 0) {
		const struct reg_wslot *w = &reg->ws[cur - 1];

		if (w->hash == key->hash && strcmp(w->name, name) == 0)
			return cur;
		cur = w->next;
	}
	return 0;
}

int
mdevx_share_reg_publish(struct mdevx_share_reg *reg, const struct mdevx_share_rec_info *info,
			uint32_t *idx_out, uint64_t *gen_out)
{
	struct reg_wslot *w;
	struct reg_rec *rec;
	struct name_key key;
	uint32_t idx, bucket;
	int ret;

	if (reg == NULL || info == NULL || info->export_len > MDEVX_SHARE_EXPORT_MAX)
		return EINVAL;
	if (reg->ws == NULL)
		return EPERM;
	ret = share_reg_make_key(info->name, &key);
	if (ret != 0)
		return ret;
	if (owner_find(reg, &key, info->name) != 0)
		return EEXIST;
	if (reg->free_head == 0)
		return ENOSPC;
	idx = reg->free_head - 1;
	w = &reg->ws[idx];
	bucket = key.hash & reg->mask;
	pthread_mutex_lock(&reg->hlock);
	reg->free_head = w->next;
	w->hash = key.hash;
	w->kind = info->kind;
	w->state = MDEVX_SHARE_REC_PUBLISHED;
	w->generation++;
	/* zero-padded, as lookups compare it */
	memset(w->name, 0, sizeof(w->name));
	memcpy(w->name, info->name, strlen(info->name));
	w->rx_icm_addr = info->rx_icm_addr;
	w->owner_pid = info->owner_pid;
	w->object_id = info->object_id;
	w->size_or_tirn = info->size_or_tirn;
	w->export_len = info->export_len;
	w->next = reg->wbuckets[bucket];
	reg->wbuckets[bucket] = idx + 1;

	rec = rec_write_begin(reg, idx);
	rec->next = w->next;
	rec->cookie = info->cookie;
	rec->owner_pid = info->owner_pid;
	rec->object_id = info->object_id;
	rec->size_or_tirn = info->size_or_tirn;
	rec->export_len = info->export_len;
	rec->rx_icm_addr = info->rx_icm_addr;
	memset(rec->export_buf, 0, sizeof(rec->export_buf));
	memcpy(rec->export_buf, info->export_buf, info->export_len);
	rec_write_end(reg, idx);
	/* Link last: a reader reaches the record only once it is complete. */
	store_rel32(&reg->buckets[bucket], idx + 1);
	__atomic_store_n(&reg->count, reg->count + 1, __ATOMIC_RELAXED);
	reg->himage.count = reg->count;
	/* the header too, from the private image, whatever it holds now */
	hdr_sync(reg);
	pthread_mutex_unlock(&reg->hlock);
	if (idx_out != NULL)
		*idx_out = idx;
	if (gen_out != NULL)
		*gen_out = w->generation;
	return 0;
}

int
mdevx_share_reg_withdraw(struct mdevx_share_reg *reg, uint32_t idx, uint64_t generation,
			 uint64_t *new_generation)
{
	struct reg_wslot *w;

	if (reg == NULL || idx >= reg->capacity)
		return EINVAL;
	if (reg->ws == NULL)
		return EPERM;
	w = &reg->ws[idx];
	if (w->state != MDEVX_SHARE_REC_PUBLISHED || w->generation != generation)
		return ESTALE;
	pthread_mutex_lock(&reg->hlock);
	w->state = MDEVX_SHARE_REC_WITHDRAWN;
	w->generation++;
	rec_write_begin(reg, idx);
	rec_write_end(reg, idx);
	hdr_sync(reg);
	pthread_mutex_unlock(&reg->hlock);
	if (new_generation != NULL)
		*new_generation = w->generation;
	return 0;
}

int
mdevx_share_reg_release(struct mdevx_share_reg *reg, uint32_t idx)
{
	uint32_t *link, pred = 0, bucket;
	struct reg_wslot *w;
	struct reg_rec *rec;

	if (reg == NULL || idx >= reg->capacity)
		return EINVAL;
	if (reg->ws == NULL)
		return EPERM;
	w = &reg->ws[idx];
	if (w->state == MDEVX_SHARE_REC_PUBLISHED)
		return EBUSY;
	if (w->state != MDEVX_SHARE_REC_WITHDRAWN)
		return EINVAL;
	pthread_mutex_lock(&reg->hlock);
	/* Unlink from the private chain (a withdrawn slot is always on it). */
	bucket = w->hash & reg->mask;
	link = &reg->wbuckets[bucket];
	while (*link != idx + 1) {
		pred = *link;
		link = &reg->ws[pred - 1].next;
	}
	*link = w->next;
	/*
	 * The same link in the region, written from the private one whatever
	 * the region held: readers on the slot keep their next until the
	 * slot's sequence changes below.
	 */
	store_rel32(pred == 0 ? &reg->buckets[bucket] : &reg->recs[pred - 1].next, w->next);
	w->state = MDEVX_SHARE_REC_FREE;
	w->next = reg->free_head;
	reg->free_head = idx + 1;
	rec = rec_write_begin(reg, idx);
	rec->next = 0;
	rec_write_end(reg, idx);
	__atomic_store_n(&reg->count, reg->count - 1, __ATOMIC_RELAXED);
	reg->himage.count = reg->count;
	hdr_sync(reg);
	pthread_mutex_unlock(&reg->hlock);
	return 0;
}

int
mdevx_share_reg_owner_find(const struct mdevx_share_reg *reg, const char *name, uint32_t *idx,
			   uint64_t *generation, uint16_t *state)
{
	struct name_key key;
	uint32_t cur;
	int ret;

	if (reg == NULL)
		return EINVAL;
	if (reg->ws == NULL)
		return EPERM;
	ret = share_reg_make_key(name, &key);
	if (ret != 0)
		return ret;
	cur = owner_find(reg, &key, name);
	if (cur == 0)
		return ENOENT;
	if (idx != NULL)
		*idx = cur - 1;
	if (generation != NULL)
		*generation = reg->ws[cur - 1].generation;
	if (state != NULL)
		*state = reg->ws[cur - 1].state;
	return 0;
}

uint16_t
mdevx_share_reg_owner_slot(const struct mdevx_share_reg *reg, uint32_t idx,
			   uint64_t *generation)
{
	if (reg == NULL || reg->ws == NULL || idx >= reg->capacity)
		return MDEVX_SHARE_REC_FREE;
	if (generation != NULL)
		*generation = reg->ws[idx].generation;
	return reg->ws[idx].state;
}

void
mdevx_share_reg_close(struct mdevx_share_reg *reg)
{
	if (reg == NULL)
		return;
	if (reg->ws == NULL) {
		__atomic_store_n(&reg->hdr->closed, 1, __ATOMIC_RELEASE);
		return;
	}
	pthread_mutex_lock(&reg->hlock);
	__atomic_store_n(&reg->closed, true, __ATOMIC_RELEASE);
	reg->himage.closed = 1;
	__atomic_store_n(&reg->hdr->closed, 1, __ATOMIC_RELEASE);
	hdr_sync(reg);
	pthread_mutex_unlock(&reg->hlock);
}

bool
mdevx_share_reg_is_closed(const struct mdevx_share_reg *reg)
{
	return reg != NULL && reg_closed(reg);
}

void *
mdevx_share_reg_raw_record(struct mdevx_share_reg *reg, uint32_t idx, size_t *len)
{
	if (reg == NULL || idx >= reg->capacity)
		return NULL;
	if (len != NULL)
		*len = REC_SIZE;
	return &reg->recs[idx];
}
