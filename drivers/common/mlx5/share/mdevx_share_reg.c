/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export registry in shared memory: layout, writer, lock-free readers.
 * See mdevx_share_reg.h for the model.
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

#define REG_MAGIC 0x6d64657678726567ULL	/* "mdevxreg" */
#define REG_VERSION 4u			/* 4: the free list is the writer's, not in the region */
#define READ_RETRIES 64			/* a reader gives up (EAGAIN) after this */
#define REC_SIZE 256
/*
 * For the lookup's parts: each caller gets its own copy, with the outputs
 * it does not ask for folded away (an import asks for a view only).
 */
#define REG_ALWAYS_INLINE inline __attribute__((always_inline))

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

static inline uint32_t
load_acq32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void
store_rel32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
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
static REG_ALWAYS_INLINE int
make_key(const char *name, struct name_key *key)
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
	ret = make_key(info->name, &key);
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
	ret = make_key(name, &key);
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

int
mdevx_share_reg_lookup(const struct mdevx_share_reg *reg, const char *name,
		       struct mdevx_share_rec_info *out, uint32_t *idx, uint32_t *probes)
{
	struct name_key key;
	int ret;

	if (reg == NULL || out == NULL)
		return EINVAL;
	ret = make_key(name, &key);
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
	ret = make_key(name, &key);
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
