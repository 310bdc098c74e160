/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Import slots: one per import of a process on a device, in chunks that
 * never move, named by a handle (mdevx_share_imp_t) that carries the
 * slot's generation, so that a stale or repeated handle is detected.
 * Every function here runs with the device's import lock held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"

/* The live (or stale) slot a handle names, or NULL. Lock held. */
struct imp_slot *
share_slot_of(const struct mdevx_share_dev *dev, mdevx_share_imp_t h, uint32_t *idx_out)
{
	uint32_t idx = (uint32_t)h.id, gen = (uint32_t)(h.id >> 32);
	struct imp_slot *s;

	if (idx == 0 || idx > dev->nb_slots)
		return NULL;
	s = slot_at(dev, idx - 1);
	if (s->state == IMP_FREE || s->gen != gen)
		return NULL;
	if (idx_out != NULL)
		*idx_out = idx - 1;
	return s;
}

/* A free slot (lock held). NULL with ENOMEM / ENOSPC. */
struct imp_slot *
share_slot_alloc(struct mdevx_share_dev *dev, uint32_t *idx_out)
{
	struct imp_slot *s;
	uint32_t idx;

	if (dev->free_head == 0) {
		uint32_t c = dev->nb_slots >> IMP_CHUNK_SHIFT;

		if (c >= IMP_MAX_CHUNKS) {
			errno = ENOSPC;
			return NULL;
		}
		dev->chunks[c] = calloc(IMP_CHUNK, sizeof(struct imp_slot));
		if (dev->chunks[c] == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		for (uint32_t i = IMP_CHUNK; i > 0; i--) {
			s = &dev->chunks[c][i - 1];
			s->next_free = dev->free_head;
			dev->free_head = dev->nb_slots + i;
		}
		dev->nb_slots += IMP_CHUNK;
	}
	idx = dev->free_head - 1;
	s = slot_at(dev, idx);
	dev->free_head = s->next_free;
	s->next_free = 0;
	*idx_out = idx;
	return s;
}

/*
 * A slot whose generation would wrap is retired (never handed out again,
 * 64 bytes kept until the device closes): a handle of its first
 * generation must not name a live import again. The free list hands the
 * same slot back first, so a plain import/unimport loop gets there after
 * 2^32 rounds, minutes on a fast CPU.
 */
void
share_slot_free(struct mdevx_share_dev *dev, struct imp_slot *s, uint32_t idx)
{
	if (s->state == IMP_LIVE)
		dev->nb_live--;
	s->state = IMP_FREE;
	s->obj = NULL;
	s->ref.bobj = NULL;
	if (++s->gen == 0) {
		s->next_free = 0;
		return;
	}
	s->next_free = dev->free_head;
	dev->free_head = idx + 1;
}

#ifdef MDEVX_SHARE_TEST_HOOKS
mdevx_share_imp_t
mdevx_share_test_slot_gen(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t gen)
{
	mdevx_share_imp_t h = { .id = 0 };
	struct imp_slot *s;
	uint32_t idx;

	if (dev == NULL)
		return h;
	mdevx_share_lock_write(&dev->lock);
	s = share_slot_of(dev, imp, &idx);
	if (s != NULL) {
		s->gen = gen;
		h = slot_handle(idx, s);
	}
	mdevx_share_unlock_write(&dev->lock);
	return h;
}
#endif

/*
 * Unimport every import of record @p rec_idx of generation @p gen (all if
 * rec_idx is UINT32_MAX). Write lock held. Returns how many. The wrapper
 * the application may hold (mdevx_share_import_obj()) is revoked, not
 * freed: its calls give ESTALE until mdevx_share_unimport() frees it.
 */
uint32_t
share_unimport_record(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_slots; i++) {
		struct imp_slot *s = slot_at(dev, i);

		if (s->state != IMP_LIVE)
			continue;
		if (rec_idx != UINT32_MAX && (s->rec_idx != rec_idx || s->rec_gen != gen))
			continue;
		mdevx_obj_unimport_ref(dev->ctx, &s->ref);
		if (s->obj != NULL && mdevx_obj_revoke(s->obj) != 0)
			SHARE_LOG(ERR, "%s: revoking the wrapper of import %u: %s", dev->devstr,
				  i, strerror(errno));
		s->state = IMP_STALE;
		dev->nb_live--;
		n++;
	}
	return n;
}

/*
 * Free the wrapper of slot @p s (lock held): 0, or -EBUSY when another
 * thread of the application is in a call with it (the slot is unchanged).
 */
int
share_slot_drop_wrapper(struct imp_slot *s)
{
	int rc;

	if (s->obj == NULL)
		return 0;
	rc = mdevx_obj_unimport_held(s->obj);
	if (rc == -EBUSY)
		return rc;
	s->obj = NULL;		/* freed, or not ours to free any more */
	return 0;
}
