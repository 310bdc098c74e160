/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Per-process table of live contexts and wrapper objects.
 *
 * Every public call validates its context / object pointer here before
 * dereferencing it, so a pointer that was already destroyed, unimported or
 * closed (or never came from this library) gives ENOENT instead of a crash.
 * Open addressing with linear probing keyed by the pointer value, backward
 * shift deletion (no tombstones), grown by doubling at 50% load: O(1) per
 * operation, 16 bytes per slot.
 *
 * Limitation: a freed wrapper whose address malloc() hands out again for a
 * new wrapper is indistinguishable from the new one (ABA); the library
 * cannot detect that use-after-free.
 *
 * Context checks sit on the import fast path, so each thread remembers the
 * last context it found live together with the context epoch, which grows
 * (under the lock) whenever a context leaves the table: while the epoch is
 * unchanged, the context is still live and the check takes no lock. It is
 * as strong as the locked check (which also only answers for the moment it
 * was made).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>

#include "mdevx_internal.h"

struct reg_slot {
	uintptr_t key;		/* 0 = empty */
	uintptr_t type;
};

static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Signalled when the last call using a revoked object ends. */
static pthread_cond_t reg_users_done = PTHREAD_COND_INITIALIZER;
static struct reg_slot *reg_slots;
static size_t reg_cap;		/* power of two or 0 */
static size_t reg_used;
static atomic_uint reg_generation;
/* The context check's cache (see mdevx_ctx_valid() in mdevx_internal.h). */
uint64_t mdevx_ctx_epoch;	/* bumped (lock held) when a context leaves */
MDEVX_LIVE_TLS const struct mdevx_ctx *mdevx_live_ctx;
MDEVX_LIVE_TLS uint64_t mdevx_live_ctx_epoch;

void
mdevx_reg_lock(void)
{
	pthread_mutex_lock(&reg_mutex);
}

void
mdevx_reg_unlock(void)
{
	pthread_mutex_unlock(&reg_mutex);
}

static size_t
reg_hash(uintptr_t key, size_t cap)
{
	uint64_t h = (uint64_t)key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

static void
reg_insert_slot(struct reg_slot *slots, size_t cap, uintptr_t key, uintptr_t type)
{
	size_t i = reg_hash(key, cap);

	while (slots[i].key != 0)
		i = (i + 1) & (cap - 1);
	slots[i].key = key;
	slots[i].type = type;
}

static int
reg_grow(void)
{
	size_t ncap = reg_cap ? reg_cap * 2 : 64;
	struct reg_slot *ns = calloc(ncap, sizeof(*ns));
	size_t i;

	if (ns == NULL)
		return ENOMEM;
	for (i = 0; i < reg_cap; i++)
		if (reg_slots[i].key != 0)
			reg_insert_slot(ns, ncap, reg_slots[i].key, reg_slots[i].type);
	free(reg_slots);
	reg_slots = ns;
	reg_cap = ncap;
	return 0;
}

static ssize_t
reg_index(uintptr_t key)
{
	size_t i;

	if (reg_cap == 0 || key == 0)
		return -1;
	i = reg_hash(key, reg_cap);
	while (reg_slots[i].key != 0) {
		if (reg_slots[i].key == key)
			return (ssize_t)i;
		i = (i + 1) & (reg_cap - 1);
	}
	return -1;
}

int
mdevx_reg_add_locked(const void *p, enum mdevx_reg_type type)
{
	int rc;

	if ((reg_used + 1) * 2 > reg_cap) {
		rc = reg_grow();
		if (rc != 0)
			return rc;
	}
	reg_insert_slot(reg_slots, reg_cap, (uintptr_t)p, (uintptr_t)type);
	reg_used++;
	return 0;
}

enum mdevx_reg_type
mdevx_reg_find_locked(const void *p)
{
	ssize_t i = reg_index((uintptr_t)p);

	return i < 0 ? MDEVX_REG_NONE : (enum mdevx_reg_type)reg_slots[i].type;
}

int
mdevx_reg_del_locked(const void *p)
{
	ssize_t idx = reg_index((uintptr_t)p);
	size_t i, j, k;

	if (idx < 0)
		return ENOENT;
	i = (size_t)idx;
	if (reg_slots[i].type == MDEVX_REG_CTX)
		__atomic_store_n(&mdevx_ctx_epoch, mdevx_ctx_epoch + 1, __ATOMIC_RELEASE);
	reg_slots[i].key = 0;
	reg_used--;
	/* Backward shift: move later entries of the cluster into the hole. */
	j = i;
	for (;;) {
		j = (j + 1) & (reg_cap - 1);
		if (reg_slots[j].key == 0)
			break;
		k = reg_hash(reg_slots[j].key, reg_cap);
		/* Entry j may move to i unless its home k lies cyclically in (i, j]. */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		reg_slots[i] = reg_slots[j];
		reg_slots[j].key = 0;
		i = j;
	}
	if (reg_used == 0) {
		free(reg_slots);
		reg_slots = NULL;
		reg_cap = 0;
	}
	return 0;
}

bool
mdevx_ctx_valid_slow(const struct mdevx_ctx *ctx)
{
	enum mdevx_reg_type t;
	uint64_t epoch;

	if (ctx == NULL) {
		mdevx_set_errno(EINVAL);
		return false;
	}
	mdevx_reg_lock();
	t = mdevx_reg_find_locked(ctx);
	epoch = mdevx_ctx_epoch;
	mdevx_reg_unlock();
	if (t != MDEVX_REG_CTX) {
		mdevx_set_errno(ENOENT);
		return false;
	}
	mdevx_live_ctx = ctx;
	mdevx_live_ctx_epoch = epoch;
	return true;
}

/* mdevx_obj_check() with the lock held. */
static int
obj_check_locked(const struct mdevx_obj *obj, enum mdevx_obj_kind kind)
{
	if (mdevx_reg_find_locked(obj) != MDEVX_REG_OBJ)
		return ENOENT;
	if (obj->revoked)
		return ESTALE;
	if (kind != MDEVX_OBJ_ANY && obj->kind != kind)
		return EPROTOTYPE;
	return 0;
}

int
mdevx_obj_check(const struct mdevx_obj *obj, enum mdevx_obj_kind kind)
{
	int rc;

	if (obj == NULL)
		return EINVAL;
	mdevx_reg_lock();
	rc = obj_check_locked(obj, kind);
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_get(struct mdevx_obj *obj, enum mdevx_obj_kind kind)
{
	int rc;

	if (obj == NULL)
		return EINVAL;
	mdevx_reg_lock();
	rc = obj_check_locked(obj, kind);
	if (rc == 0)
		obj->users++;
	mdevx_reg_unlock();
	return rc;
}

void
mdevx_obj_put(struct mdevx_obj *obj)
{
	mdevx_reg_lock();
	if (--obj->users == 0 && obj->revoked)
		pthread_cond_broadcast(&reg_users_done);
	mdevx_reg_unlock();
}

int
mdevx_obj_copy(const struct mdevx_obj *obj, struct mdevx_obj *copy)
{
	int rc;

	if (obj == NULL)
		return EINVAL;
	mdevx_reg_lock();
	rc = obj_check_locked(obj, MDEVX_OBJ_ANY);
	if (rc == 0 || rc == ESTALE)
		*copy = *obj;
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_mark_revoked(struct mdevx_obj *obj, void **bobj,
		       const struct mdevx_backend_ops **ops)
{
	int rc;

	mdevx_reg_lock();
	rc = obj_check_locked(obj, MDEVX_OBJ_ANY);
	if (rc == 0 && !obj->imported)
		rc = EPERM;
	if (rc == 0 || (rc == ESTALE && obj->bobj != NULL)) {
		/*
		 * The first revocation waits for the calls in flight, a later
		 * one until the first took the backend object. Either keeps
		 * the wrapper from being unimported (EBUSY) while it waits,
		 * and neither touches it once it lets go of the lock.
		 */
		obj->revoked = true;
		obj->revokers++;
		while (rc == 0 ? obj->users != 0 : obj->bobj != NULL)
			pthread_cond_wait(&reg_users_done, &reg_mutex);
		obj->revokers--;
		if (rc == 0) {
			*bobj = obj->bobj;
			*ops = obj->ctx->ops;
			obj->bobj = NULL;
			pthread_cond_broadcast(&reg_users_done);
		}
	}
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_unregister_import(struct mdevx_obj *obj, void **bobj, bool holder)
{
	int rc;

	mdevx_reg_lock();
	if (mdevx_reg_find_locked(obj) != MDEVX_REG_OBJ)
		rc = ENOENT;
	else if (!obj->imported || obj->held != holder)
		rc = EPERM;
	else if (obj->users != 0 || obj->revokers != 0)
		rc = EBUSY;
	else
		rc = mdevx_reg_del_locked(obj);
	if (rc == 0) {
		obj->ctx->nobjs--;
		*bobj = obj->bobj;
	}
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_mark_held(struct mdevx_obj *obj)
{
	int rc = 0;

	mdevx_reg_lock();
	if (mdevx_reg_find_locked(obj) != MDEVX_REG_OBJ)
		rc = ENOENT;
	else if (!obj->imported)
		rc = EPERM;
	else
		obj->held = true;
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_ref_take(struct mdevx_obj *obj, uint32_t kinds, const struct mdevx_ctx *ctx)
{
	int rc;

	if (obj == NULL)
		return EINVAL;
	mdevx_reg_lock();
	rc = obj_check_locked(obj, MDEVX_OBJ_ANY);
	if (rc == 0 && !(kinds & (1u << obj->kind)))
		rc = EPROTOTYPE;
	else if (rc == 0 && obj->ctx != ctx)
		rc = EINVAL;
	else if (rc == 0 && !obj->imported && obj->dying)
		rc = ENOENT;
	if (rc == 0) {
		if (obj->imported)
			obj->users++;
		else
			obj->refs++;
	}
	mdevx_reg_unlock();
	return rc;
}

void
mdevx_obj_ref_drop(struct mdevx_obj *obj)
{
	if (obj->imported) {
		mdevx_obj_put(obj);
		return;
	}
	mdevx_reg_lock();
	obj->refs--;
	mdevx_reg_unlock();
}

int
mdevx_obj_destroy_begin(struct mdevx_obj *obj, struct mdevx_obj *copy)
{
	int rc;

	if (obj == NULL)
		return EINVAL;
	mdevx_reg_lock();
	rc = obj_check_locked(obj, MDEVX_OBJ_ANY);
	if (rc == 0 || rc == ESTALE)
		*copy = *obj;
	if (rc == 0 && !obj->imported) {
		if (obj->refs != 0 || obj->dying)
			rc = EBUSY;
		else
			obj->dying = true;
	}
	mdevx_reg_unlock();
	return rc;
}

void
mdevx_obj_destroy_abort(struct mdevx_obj *obj)
{
	mdevx_reg_lock();
	obj->dying = false;
	mdevx_reg_unlock();
}

struct mdevx_obj *
mdevx_obj_new(struct mdevx_ctx *ctx, enum mdevx_obj_kind kind, void *bobj, uint32_t id,
	      bool imported)
{
	struct mdevx_obj *obj = calloc(1, sizeof(*obj));

	if (obj == NULL) {
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	obj->ctx = ctx;
	obj->kind = kind;
	obj->bobj = bobj;
	obj->id = id;
	obj->imported = imported;
	return obj;
}

int
mdevx_obj_register(struct mdevx_obj *obj)
{
	int rc;

	mdevx_reg_lock();
	rc = mdevx_reg_add_locked(obj, MDEVX_REG_OBJ);
	if (rc == 0)
		obj->ctx->nobjs++;
	mdevx_reg_unlock();
	return rc;
}

int
mdevx_obj_unregister(struct mdevx_obj *obj)
{
	int rc;

	mdevx_reg_lock();
	rc = mdevx_reg_del_locked(obj);
	if (rc == 0)
		obj->ctx->nobjs--;
	mdevx_reg_unlock();
	return rc;
}

uint32_t
mdevx_next_generation(void)
{
	uint32_t g;

	do {
		g = atomic_fetch_add(&reg_generation, 1) + 1;
	} while (g == 0);
	return g;
}
