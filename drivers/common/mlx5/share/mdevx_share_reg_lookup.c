/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export registry in shared memory: the lock-free readers. The key of a
 * name (its hash, which the writer's publish and find use too), the walk
 * of a hash chain, the copies of a record out of the region verified
 * against its checksum (any process may scribble any byte of it), the
 * validity check of an import, and the listing (the writer's from its
 * private slots). See mdevx_share_reg.h for the model.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mdevx_share_reg.h"
#include "mdevx_share_reg_layout.h"

#define READ_RETRIES 64			/* a reader gives up (EAGAIN) after this */
/*
 * For the lookup's parts: each caller gets its own copy, with the outputs
 * it does not ask for folded away (an import asks for a view only).
 */
#define REG_ALWAYS_INLINE inline __attribute__((always_inline))

#ifdef MDEVX_SHARE_TEST_HOOKS
static void (*test_read_hook)(uint32_t idx, void *arg);
static void *test_read_arg;
#endif

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline uint32_t
load_acq32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

#ifdef MDEVX_SHARE_TEST_HOOKS
void
mdevx_share_reg_test_read_hook(void (*fn)(uint32_t idx, void *arg), void *arg)
{
	test_read_arg = arg;
	__atomic_store_n(&test_read_hook, fn, __ATOMIC_RELEASE);
}

/* Between a reader's copy of slot @p idx and its second sequence read. */
static inline void
read_hook(uint32_t idx)
{
	void (*fn)(uint32_t, void *) = __atomic_load_n(&test_read_hook, __ATOMIC_ACQUIRE);

	if (__builtin_expect(fn != NULL, 0))
		fn(idx, test_read_arg);
}
#else
/* Without the test hooks (the installed library): nothing to call. */
static inline void
read_hook(uint32_t idx)
{
	(void)idx;
}
#endif

/* The scalar fields both kinds of reader take (the length bounded). */
#define REC_FIELDS_COPY(dst, rec) do {						\
	uint32_t elen_ = (rec)->export_len;					\
										\
	(dst)->kind = (rec)->kind;						\
	(dst)->state = (rec)->state;						\
	(dst)->generation = (rec)->generation;					\
	(dst)->cookie = (rec)->cookie;						\
	(dst)->object_id = (rec)->object_id;					\
	(dst)->size_or_tirn = (rec)->size_or_tirn;				\
	(dst)->rx_icm_addr = (rec)->rx_icm_addr;				\
	/* torn or corrupted: must not overrun; the checksum decides */	\
	(dst)->export_len = elen_ <= MDEVX_SHARE_EXPORT_MAX ? elen_ : MDEVX_SHARE_EXPORT_MAX; \
} while (0)

/*
 * Copy record @p rec (slot @p idx) out of shared memory as it is now, and
 * verify its checksum on the shared bytes themselves (no intermediate
 * copy). Only meaningful if the caller then finds the sequence counter
 * unchanged: a concurrent writer can make both the copy and the verdict
 * garbage. Returns whether the checksum matched (FREE slots carry none).
 */
static bool
rec_copy_out(const struct reg_rec *rec, uint32_t idx, struct mdevx_share_rec_info *out)
{
	REC_FIELDS_COPY(out, rec);
	out->owner_pid = rec->owner_pid;
	memcpy(out->name, rec->name, sizeof(out->name));
	out->name[MDEVX_SHARE_NAME_MAX] = '\0';
	/*
	 * The whole field (a fixed-size copy is cheaper than a variable
	 * one), then the tail past the length zeroed: the checksum does not
	 * cover it, so no caller may see those bytes.
	 */
	memcpy(out->export_buf, rec->export_buf, sizeof(out->export_buf));
	memset(out->export_buf + out->export_len, 0, sizeof(out->export_buf) - out->export_len);
	return out->state == MDEVX_SHARE_REC_FREE ||
	       rec->checksum == rec_checksum(rec, idx, out->export_len);
}

/*
 * The same for a view: the bytes the checksum covers copied out first,
 * then the copy verified and the fields and export buffer taken from it.
 * The sequence counter only tells of the writer's rewrites: another
 * process may write any byte at any time without touching it, so nothing
 * read from the region after the check (the export buffer, by the
 * import) would be what was verified.
 */
static bool
rec_view_fill(const struct reg_rec *rec, uint32_t idx, struct mdevx_share_rec_view *v)
{
	struct reg_rec c;
	uint64_t sum = rec->checksum;

	memcpy((uint8_t *)&c + CSUM_START, (const uint8_t *)rec + CSUM_START,
	       CSUM_FIXED + MDEVX_SHARE_EXPORT_MAX);
	REC_FIELDS_COPY(v, &c);
	memcpy(v->export_copy, c.export_buf, sizeof(v->export_copy));
	v->export_buf = v->export_copy;
	v->idx = idx;
	return sum == rec_checksum(&c, idx, v->export_len);
}

/*
 * Consistent, verified copy of one record: copied between two reads of an
 * even sequence counter. Returns 0, EAGAIN (kept changing), EBADMSG
 * (checksum).
 */
static int
rec_snapshot(const struct mdevx_share_reg *reg, uint32_t idx, struct mdevx_share_rec_info *out)
{
	const struct reg_rec *rec = &reg->recs[idx];

	if (reg_closed(reg))
		return ENODEV;
	for (int i = 0; i < READ_RETRIES; i++) {
		uint32_t s1 = load_acq32(&rec->seq), s2;
		bool sum_ok;

		if (s1 & 1) {
			cpu_relax();
			continue;
		}
		sum_ok = rec_copy_out(rec, idx, out);
		read_hook(idx);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&rec->seq, __ATOMIC_RELAXED);
		if (s1 != s2)
			continue;
		return sum_ok ? 0 : EBADMSG;
	}
	return EAGAIN;
}

/*
 * Does record @p rec hold the name of @p key? The name and its NUL only:
 * the padding after it is the checksum's business (a flipped bit there is
 * EBADMSG, not "no such name").
 */
static inline bool
name_equal(const struct reg_rec *rec, const struct name_key *key)
{
	uint64_t w;
	uint32_t i;

	for (i = 0; i < key->last; i++) {
		memcpy(&w, rec->name + 8 * i, 8);
		if (w != key->w[i])
			return false;
	}
	memcpy(&w, rec->name + 8 * i, 8);
	return ((w ^ key->w[i]) & key->last_mask) == 0;
}

/*
 * BYTE_SHIFT: the shift that puts byte @p k of a word in place, in memory
 * order; BYTE_MASK: the mask of the first @p n (< 8) bytes.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BYTE_SHIFT(k) (8 * (k))
#define BYTE_MASK(n) ((1ULL << (8 * (n))) - 1)
#else
#define BYTE_SHIFT(k) (56 - 8 * (k))
#define BYTE_MASK(n) (~0ULL << (64 - 8 * (n)))
#endif

/*
 * Hash of a name: its words up to and including the one with the NUL, one
 * multiply each, then a finaliser that brings the high bits down to the
 * bucket index (a product's low bits never see its operand's high bits).
 * Not a checksum: only the spread matters (1.25 probes per hit at full
 * load, measured). Computed as the key is built, in registers.
 */
#define HASH_SEED 0x9e3779b97f4a7c15ULL

static inline uint64_t
hash_step(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0xff51afd7ed558ccdULL;
}

static inline uint32_t
hash_final(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return (uint32_t)h;
}

/*
 * Check @p name and make its key: 0, EINVAL (NULL or empty), ENAMETOOLONG.
 * Words past the one with the NUL are left unset: a lookup never reads
 * them, publish zeroes them.
 */
REG_ALWAYS_INLINE int
share_reg_make_key(const char *name, struct name_key *key)
{
	uint64_t h = HASH_SEED, w, tail = 0;
	size_t len, i, n;

	if (name == NULL)
		return EINVAL;
	len = strnlen(name, MDEVX_SHARE_NAME_MAX + 1);
	if (len > MDEVX_SHARE_NAME_MAX)
		return ENAMETOOLONG;
	if (len == 0)
		return EINVAL;
	/*
	 * Whole words, then the tail assembled in a register: the checksum
	 * loads words that were stored as words (a byte-wise store read back
	 * as a word stalls store forwarding, on every lookup).
	 */
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, name + i, 8);
		key->w[i / 8] = w;
		h = hash_step(h, w);
	}
	n = len - i;		/* bytes in the last word, 0..7 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n != 0 && len >= 8) {
		/* the word that ends with the name, shifted down: no byte loop */
		memcpy(&tail, name + len - 8, 8);
		tail >>= 8 * (8 - n);
	} else {
		for (size_t j = 0; j < n; j++)
			tail |= (uint64_t)(uint8_t)name[i + j] << BYTE_SHIFT(j);
	}
#else
	for (size_t j = 0; j < n; j++)
		tail |= (uint64_t)(uint8_t)name[i + j] << BYTE_SHIFT(j);
#endif
	key->last = (uint32_t)(i / 8);
	key->w[key->last] = tail;
	/* the name's bytes in that word and the NUL: len - i + 1 <= 8 */
	n = len - i + 1;
	key->last_mask = n == 8 ? ~0ULL : BYTE_MASK(n);
	key->hash = hash_final(hash_step(h, tail));
	return 0;
}

/*
 * Walk the chain of @p key. 0 with the record verified and copied into
 * @p out, or described in place by @p view (either may be NULL), ENOENT,
 * EAGAIN, EBADMSG. A reader that lands on a
 * slot that was unlinked and reused meanwhile notices it (sequence
 * changed, or the slot's hash belongs to another bucket) and starts the
 * walk again.
 */
static REG_ALWAYS_INLINE int
reg_find(const struct mdevx_share_reg *reg, const struct name_key *key,
	 struct mdevx_share_rec_info *out, struct mdevx_share_rec_view *view, uint32_t *idx_out,
	 uint32_t *probes_out)
{
	const uint32_t mask = reg->mask;
	const uint32_t bucket = key->hash & mask;
	const struct reg_rec *recs = reg->recs;
	uint32_t probes = 0;

	if (reg_closed(reg))
		return ENODEV;
	for (int attempt = 0; attempt < READ_RETRIES; attempt++) {
		uint32_t cur = load_acq32(&reg->buckets[bucket]);
		bool restart = false;

		probes = 0;
		while (cur != 0) {
			const struct reg_rec *rec;
			uint32_t idx = cur - 1, s1, s2, rhash, next;
			bool match, sum_ok = true;
			uint16_t state;

			/*
			 * A corrupted link: out of range, or a cycle (links are not
			 * covered by the checksum). A walk changed under our feet
			 * revisits a record only after a reuse, so a legitimate one
			 * never comes near twice the capacity.
			 */
			if (idx >= reg->capacity || probes > 2 * reg->capacity + 2)
				return EBADMSG;
			rec = &recs[idx];
			probes++;
			s1 = load_acq32(&rec->seq);
			if (s1 & 1) {
				restart = true;
				break;
			}
			rhash = rec->hash;
			next = rec->next;
			state = rec->state;
			match = rhash == key->hash && state != MDEVX_SHARE_REC_FREE &&
				name_equal(rec, key);
			if (match && out != NULL)
				sum_ok = rec_copy_out(rec, idx, out);
			else if (match && view != NULL)
				sum_ok = rec_view_fill(rec, idx, view);
			if (match)
				read_hook(idx);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			s2 = __atomic_load_n(&rec->seq, __ATOMIC_RELAXED);
			if (s1 != s2 || state == MDEVX_SHARE_REC_FREE || (rhash & mask) != bucket) {
				restart = true;
				break;
			}
			if (match) {
				if (view != NULL)
					view->seq = s1;
				if (idx_out != NULL)
					*idx_out = idx;
				if (probes_out != NULL)
					*probes_out = probes;
				return sum_ok ? 0 : EBADMSG;
			}
			cur = next;
		}
		if (!restart) {
			if (probes_out != NULL)
				*probes_out = probes;
			return ENOENT;
		}
		cpu_relax();
	}
	return EAGAIN;
}

int
mdevx_share_reg_lookup(const struct mdevx_share_reg *reg, const char *name,
		       struct mdevx_share_rec_info *out, uint32_t *idx, uint32_t *probes)
{
	struct name_key key;
	int ret;

	if (reg == NULL || out == NULL)
		return EINVAL;
	ret = share_reg_make_key(name, &key);
	if (ret != 0)
		return ret;
	return reg_find(reg, &key, out, NULL, idx, probes);
}

int
mdevx_share_reg_find(const struct mdevx_share_reg *reg, const char *name,
		     struct mdevx_share_rec_view *view)
{
	struct name_key key;
	int ret;

	if (reg == NULL || view == NULL)
		return EINVAL;
	ret = share_reg_make_key(name, &key);
	if (ret != 0)
		return ret;
	return reg_find(reg, &key, NULL, view, NULL, NULL);
}

bool
mdevx_share_reg_view_current(const struct mdevx_share_reg *reg,
			     const struct mdevx_share_rec_view *view)
{
	if (view->idx >= reg->capacity)
		return false;
	/* The caller's reads of the buffer happen before the sequence read. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&reg->recs[view->idx].seq, __ATOMIC_RELAXED) == view->seq;
}

int
mdevx_share_reg_read(const struct mdevx_share_reg *reg, uint32_t idx,
		     struct mdevx_share_rec_info *out)
{
	if (reg == NULL || out == NULL || idx >= reg->capacity)
		return EINVAL;
	return rec_snapshot(reg, idx, out);
}

int
mdevx_share_reg_check(const struct mdevx_share_reg *reg, uint32_t idx, uint64_t generation)
{
	const struct reg_rec *rec;

	if (reg == NULL || idx >= reg->capacity)
		return EINVAL;
	if (reg_closed(reg))
		return ENODEV;
	rec = &reg->recs[idx];
	for (int i = 0; i < READ_RETRIES; i++) {
		uint32_t s1 = load_acq32(&rec->seq);
		uint64_t gen;
		uint16_t state;

		if (s1 & 1) {
			cpu_relax();
			continue;
		}
		gen = rec->generation;
		state = rec->state;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&rec->seq, __ATOMIC_RELAXED) != s1)
			continue;
		return state == MDEVX_SHARE_REC_PUBLISHED && gen == generation ? 0 : ESTALE;
	}
	return EAGAIN;
}

/*
 * The writer's listing: its own slots, never the region's bytes (a record
 * scribbled there is still listed). No export buffer: export_len is the
 * record's, the buffer is zero.
 */
static int64_t
owner_next(struct mdevx_share_reg *reg, uint32_t start, struct mdevx_share_rec_info *out)
{
	int64_t found = -1;

	pthread_mutex_lock(&reg->hlock);
	for (uint32_t i = start; !reg->closed && i < reg->capacity; i++) {
		const struct reg_wslot *w = &reg->ws[i];

		if (w->state == MDEVX_SHARE_REC_FREE)
			continue;
		memset(out, 0, sizeof(*out));
		memcpy(out->name, w->name, sizeof(out->name));
		out->kind = w->kind;
		out->state = w->state;
		out->generation = w->generation;
		out->cookie = reg->cookie;
		out->owner_pid = w->owner_pid;
		out->object_id = w->object_id;
		out->size_or_tirn = w->size_or_tirn;
		out->export_len = w->export_len;
		out->rx_icm_addr = w->rx_icm_addr;
		found = i;
		break;
	}
	pthread_mutex_unlock(&reg->hlock);
	return found;
}

int64_t
mdevx_share_reg_next(const struct mdevx_share_reg *reg, uint32_t start,
		     struct mdevx_share_rec_info *out)
{
	if (reg != NULL && reg->ws != NULL)
		return owner_next((struct mdevx_share_reg *)(uintptr_t)reg, start, out);
	for (uint32_t i = start; reg != NULL && !reg_closed(reg) && i < reg->capacity; i++) {
		if (mdevx_share_reg_read(reg, i, out) == 0 &&
		    out->state != MDEVX_SHARE_REC_FREE)
			return i;
	}
	return -1;
}
