/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export registry in shared memory: the storage of libmdevx_share's records.
 *
 * A fixed-size region (a memzone in hugepage memory in DPDK; any shared
 * mapping in the unit tests) holds export records: name, kind, the opaque
 * export buffer, object id, bulk size or tirn / RX ICM address, state,
 * generation, owner pid, instance cookie and a checksum. It contains no
 * pointers: every link is a record index, so processes that map it at other
 * addresses, or other binaries, read it alike.
 *
 * Lookup by name is a chained hash with at least two buckets per record
 * (load <= 0.5: about 1.25 probes for a hit at full capacity).
 *
 * One writer at a time, serialised by the caller (only the primary
 * writes). Readers take no lock: every record carries a sequence counter
 * that is odd while the record is written; a reader copies the record
 * (or only its fields, for an in-place view) and verifies the checksum on
 * the shared bytes between two reads of the counter, and retries
 * (boundedly) when they differ. A writer that dies mid-write leaves an odd
 * counter: readers give up with EAGAIN, never block and never use the
 * half-written record. (As in every sequence lock, the reads between the
 * two counter reads race with the writer by design; only a copy read
 * between two equal even counters is used.)
 *
 * When the owner closes the device while a reader may still be on the
 * region, it marks the registry closed instead of freeing it: every read
 * then gives ENODEV.
 *
 * The region is input. Any process that maps it can change any byte of it
 * at any time, so a struct mdevx_share_reg is a private handle: the
 * structure (capacity, bucket count, where buckets and records lie) is
 * taken from the header once, checked, when the handle is made, and never
 * read from the region again; every index read from the region is checked
 * against it. The writer's handle also keeps the truth of every slot
 * (state, generation, hash, name, chain and free links, sequence) in
 * private memory and writes the region from it, never reads it back: a
 * scribbled region costs readers an errno (ENOENT, EBADMSG, EAGAIN,
 * ENODEV), never the writer its records, and nobody a write out of the
 * region or an endless walk. The writer also keeps the whole header
 * (magic, structure, cookie, closed flag, count) as it wrote it, and
 * writes it back at every publish, withdrawal, release and close and at
 * each mdevx_share_reg_repair() (the primary's counter snapshot thread
 * calls it once per period): a scribbled header denies readers until the
 * next of these, no longer.
 *
 * Internal: libmdevx_share.so does not export these functions (its
 * version map names the API of mdevx_share.h only) and this header is not
 * installed. The registry's sources are mdevx_share_reg.c (format,
 * handles, header, the writer) and mdevx_share_reg_lookup.c (name hashing,
 * lookup, verified reads), with their layout in mdevx_share_reg_layout.h.
 * Tests compile both files themselves or link the library's static test
 * build (mdevx_share_test_dep).
 */
#ifndef MDEVX_SHARE_REG_H
#define MDEVX_SHARE_REG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * MDEVX_SHARE_NAME_MAX and MDEVX_SHARE_CAPACITY_MAX are public API too:
 * mdevx_share.h repeats them (another value there is a macro redefinition
 * diagnostic, an error in this project's -Werror build).
 */
/** Longest record name, without the terminating NUL. */
#define MDEVX_SHARE_NAME_MAX 47
/** Largest opaque export buffer a record holds (the mdevx export buffer is 80 bytes today). */
#define MDEVX_SHARE_EXPORT_MAX 128
/** Largest capacity (records) of one registry. */
#define MDEVX_SHARE_CAPACITY_MAX (1u << 22)

enum mdevx_share_rec_state {
	MDEVX_SHARE_REC_FREE = 0,
	MDEVX_SHARE_REC_PUBLISHED = 1,
	MDEVX_SHARE_REC_WITHDRAWN = 2,
};

/** A consistent copy of one record. */
struct mdevx_share_rec_info {
	char name[MDEVX_SHARE_NAME_MAX + 1];
	uint16_t kind;			/**< enum mdevx_obj_kind */
	uint16_t state;			/**< enum mdevx_share_rec_state */
	uint64_t generation;		/**< per slot, only grows */
	uint64_t cookie;		/**< instance cookie of the publisher */
	int32_t owner_pid;
	uint32_t object_id;
	uint32_t size_or_tirn;		/**< counter: bulk size; TIR: tirn */
	uint32_t export_len;
	uint64_t rx_icm_addr;
	uint8_t export_buf[MDEVX_SHARE_EXPORT_MAX];
};

/**
 * A record found by mdevx_share_reg_find(): its fields (but the name) and
 * its export buffer, copied out of the registry and verified on the copy,
 * so that no later write into the registry reaches them.
 * mdevx_share_reg_view_current() tells whether the writer rewrote the
 * record since (a withdrawal, say).
 */
struct mdevx_share_rec_view {
	const uint8_t *export_buf;	/**< export_copy */
	uint64_t generation;
	uint64_t cookie;
	uint64_t rx_icm_addr;
	uint32_t idx;			/**< slot */
	uint32_t seq;			/**< sequence when verified */
	uint32_t object_id;
	uint32_t size_or_tirn;
	uint32_t export_len;
	uint16_t kind;
	uint16_t state;
	uint8_t export_copy[MDEVX_SHARE_EXPORT_MAX];	/**< export_len bytes used */
};

struct mdevx_share_reg;

/** Bytes a registry of @p capacity records needs (0 if capacity is invalid). */
size_t mdevx_share_reg_size(uint32_t capacity);

/**
 * Format @p mem (at least mdevx_share_reg_size(capacity) bytes, 64-byte
 * aligned) as an empty registry. Returns the writer's handle, or NULL with
 * errno EINVAL or ENOMEM (its private state: about 100 bytes per record).
 */
struct mdevx_share_reg *mdevx_share_reg_init(void *mem, size_t len, uint32_t capacity,
					     uint64_t cookie);

/**
 * A reader's handle on the registry in @p mem: the header's magic, version
 * and structure are checked and copied. NULL with errno EPROTO (no
 * registry, or one that does not fit @p len) or ENOMEM.
 */
struct mdevx_share_reg *mdevx_share_reg_attach(void *mem, size_t len);

/** Does @p mem hold a registry that fits @p len (as attach checks)? 0 or EPROTO. */
int mdevx_share_reg_probe(const void *mem, size_t len);

/** Free a handle from init or attach; the region is left as it is. NULL is ignored. */
void mdevx_share_reg_free(struct mdevx_share_reg *reg);

/** The region a handle is on. */
void *mdevx_share_reg_base(const struct mdevx_share_reg *reg);

uint32_t mdevx_share_reg_capacity(const struct mdevx_share_reg *reg);
/** Used slots: the writer's own count, or (readers) the region's, at most the capacity. */
uint32_t mdevx_share_reg_count(const struct mdevx_share_reg *reg);
uint64_t mdevx_share_reg_cookie(const struct mdevx_share_reg *reg);

/*
 * ---- writer side (the handle from init; the caller serialises) ----
 * Every writer call decides from the handle's private state alone; a
 * reader's handle gets EPERM.
 */

/**
 * Add a record in state PUBLISHED. info->name/kind/cookie/owner/object
 * fields/export buffer are taken; state and generation are set here.
 * @return 0, EEXIST (name present, published or withdrawn), ENOSPC (full),
 *         ENAMETOOLONG, EINVAL, EPERM.
 */
int mdevx_share_reg_publish(struct mdevx_share_reg *reg, const struct mdevx_share_rec_info *info,
			    uint32_t *idx, uint64_t *generation);
/**
 * Mark record @p idx of generation @p generation WITHDRAWN and bump its
 * generation. @return 0, ESTALE (other generation or not published), EINVAL,
 * EPERM.
 */
int mdevx_share_reg_withdraw(struct mdevx_share_reg *reg, uint32_t idx, uint64_t generation,
			     uint64_t *new_generation);
/**
 * Unlink a withdrawn record and free its slot. 0, EINVAL (not withdrawn),
 * EBUSY (still published), EPERM.
 */
int mdevx_share_reg_release(struct mdevx_share_reg *reg, uint32_t idx);
/**
 * The writer's record of @p name, from its private state: slot and
 * generation. 0, ENOENT, EINVAL, ENAMETOOLONG, EPERM. @p state (optional)
 * receives its enum mdevx_share_rec_state.
 */
int mdevx_share_reg_owner_find(const struct mdevx_share_reg *reg, const char *name,
			       uint32_t *idx, uint64_t *generation, uint16_t *state);
/**
 * The writer's slot @p idx, from its private state: its enum
 * mdevx_share_rec_state (FREE for an index out of range or a reader's
 * handle), and its generation in @p generation (optional).
 */
uint16_t mdevx_share_reg_owner_slot(const struct mdevx_share_reg *reg, uint32_t idx,
				    uint64_t *generation);

/* ---- reader side (lock-free, any process) ---- */

/**
 * Find @p name. On 0, @p out is a consistent, checksum-verified copy.
 * @return 0, ENOENT, ENAMETOOLONG, EINVAL, EBADMSG (checksum mismatch:
 *         corrupted record), EAGAIN (record kept changing or is being
 *         written by a writer that may have died), ENODEV (registry
 *         closed: mdevx_share_reg_close()).
 * @p probes (optional) receives the number of records visited.
 */
int mdevx_share_reg_lookup(const struct mdevx_share_reg *reg, const char *name,
			   struct mdevx_share_rec_info *out, uint32_t *idx, uint32_t *probes);
/**
 * mdevx_share_reg_lookup() for the import fast path: @p view receives a
 * verified copy of what an import needs, not the whole record. Same errors.
 */
int mdevx_share_reg_find(const struct mdevx_share_reg *reg, const char *name,
			 struct mdevx_share_rec_view *view);
/**
 * Has the writer left the record of @p view as it was when it was verified
 * (not withdrawn or rewritten since)?
 */
bool mdevx_share_reg_view_current(const struct mdevx_share_reg *reg,
				  const struct mdevx_share_rec_view *view);
/** Consistent, verified copy of slot @p idx. Same errors as lookup. */
int mdevx_share_reg_read(const struct mdevx_share_reg *reg, uint32_t idx,
			 struct mdevx_share_rec_info *out);
/**
 * Fast validity check for a user of an import: 0 when slot @p idx is
 * PUBLISHED with @p generation, ESTALE otherwise, EAGAIN if it could not be
 * read consistently, ENODEV if the registry is closed.
 */
int mdevx_share_reg_check(const struct mdevx_share_reg *reg, uint32_t idx, uint64_t generation);

/**
 * Iterate: the first used slot at or after @p start (PUBLISHED or
 * WITHDRAWN), copied into @p out. Returns the slot index, or -1 at the end.
 * On the writer's handle, from its private state alone (any thread): every
 * record it owns is listed whatever the region holds; @p out then carries
 * no export buffer (zero; export_len is the record's).
 */
int64_t mdevx_share_reg_next(const struct mdevx_share_reg *reg, uint32_t start,
			     struct mdevx_share_rec_info *out);

/**
 * Owner: the device is closed but the region cannot be freed yet (a reader
 * may still be on it). From now on every read gives ENODEV (iteration
 * ends); the region must stay mapped.
 */
void mdevx_share_reg_close(struct mdevx_share_reg *reg);
bool mdevx_share_reg_is_closed(const struct mdevx_share_reg *reg);

/**
 * Writer (any thread): write the region's header back from the private
 * image (magic, version, record size, closed flag, capacity, bucket count,
 * offsets, size, cookie, count), the words that differ only. Returns how
 * many differed; 0 on a reader's handle or NULL.
 */
unsigned int mdevx_share_reg_repair(struct mdevx_share_reg *reg);
/** Writer: header words repaired so far (at every write and every repair). */
uint64_t mdevx_share_reg_repairs(struct mdevx_share_reg *reg);

#ifdef MDEVX_SHARE_TEST_HOOKS
/**
 * Test hook, called by lookups and reads between their copy of a record
 * (slot @p idx) and their second read of its sequence counter; NULL to
 * remove. Only in a build with MDEVX_SHARE_TEST_HOOKS defined.
 */
void mdevx_share_reg_test_read_hook(void (*fn)(uint32_t idx, void *arg), void *arg);
#endif

/** Test hook: a pointer to the raw bytes of slot @p idx and their size. */
void *mdevx_share_reg_raw_record(struct mdevx_share_reg *reg, uint32_t idx, size_t *len);

#endif /* MDEVX_SHARE_REG_H */
