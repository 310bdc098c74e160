/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Records and imports: publish and withdraw (primary), lookup and walk of
 * the registry, import by name, unimport, and the calls that use an
 * import (queries, counter snapshot reads, the imported object).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"
#include "mdevx_share_snap.h"

#define IMPORT_RETRIES 8		/* record rewritten while imported: try again */
#define REFRESH_POLL_US 200		/* mdevx_share_counter_refresh() looks this often */

#ifdef MDEVX_SHARE_TEST_HOOKS
static void (*test_import_hook)(void *arg);
static void *test_import_arg;
static void (*test_import_obj_hook)(void *arg);
static void *test_import_obj_arg;

void
mdevx_share_test_import_hook(void (*fn)(void *arg), void *arg)
{
	test_import_arg = arg;
	test_import_hook = fn;
}

void
mdevx_share_test_import_obj_hook(void (*fn)(void *arg), void *arg)
{
	test_import_obj_arg = arg;
	test_import_obj_hook = fn;
}
#endif

/* ---------------------------------------------------------------- */
/* Published objects by pointer (primary, wlock held)                */
/* ---------------------------------------------------------------- */

/* Open addressing, linear probing, backward shift deletion. */
static uint32_t
owned_home(const struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint64_t h = (uint64_t)(uintptr_t)obj;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h & dev->owned_mask;
}

static bool
owned_has(const struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj);

	for (; dev->owned_set[i] != NULL; i = (i + 1) & dev->owned_mask)
		if (dev->owned_set[i] == obj)
			return true;
	return false;
}

static void
owned_add(struct mdevx_share_dev *dev, struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj);

	while (dev->owned_set[i] != NULL)
		i = (i + 1) & dev->owned_mask;
	dev->owned_set[i] = obj;
}

static void
owned_del(struct mdevx_share_dev *dev, const struct mdevx_obj *obj)
{
	uint32_t i = owned_home(dev, obj), j, k;

	while (dev->owned_set[i] != obj) {
		if (dev->owned_set[i] == NULL)
			return;
		i = (i + 1) & dev->owned_mask;
	}
	dev->owned_set[i] = NULL;
	for (j = (i + 1) & dev->owned_mask; dev->owned_set[j] != NULL;
	     j = (j + 1) & dev->owned_mask) {
		k = owned_home(dev, dev->owned_set[j]);
		/* Entry j stays if its home k lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		dev->owned_set[i] = dev->owned_set[j];
		dev->owned_set[j] = NULL;
		i = j;
	}
}

/* ---------------------------------------------------------------- */
/* Records                                                           */
/* ---------------------------------------------------------------- */

/* A name too long is logged with its length up to this. */
#define NAME_LOG_LEN_MAX 4096

static int
check_name(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return EINVAL;
	if (strnlen(name, MDEVX_SHARE_NAME_MAX + 1) > MDEVX_SHARE_NAME_MAX)
		return ENAMETOOLONG;
	return 0;
}

/*
 * The characters a published name may hold: letters, digits and "._:/-"
 * (printable, no space, nothing a terminal, a shell or JSON reads
 * specially): is @p c one of them?
 */
static bool
name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == '/' || c == '-';
}

/* The index of the first byte of @p name a published name may not hold, or -1. */
static int
name_bad_char(const char *name)
{
	for (int i = 0; name[i] != '\0'; i++)
		if (!name_char_ok(name[i]))
			return i;
	return -1;
}

/*
 * @p name as a log line may hold it, in @p buf: the bytes a published name
 * may hold, any other as '?' (a name that looks up nothing may hold
 * anything: escapes, newlines).
 */
static const char *
name_for_log(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < len; i++)
		buf[i] = name_char_ok(name[i]) ? name[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* The line of a name refused by check_name() (EINVAL, ENAMETOOLONG) in call @p fn. */
static void
name_refused_log(const struct mdevx_share_dev *dev, const char *fn, const char *name, int err)
{
	size_t len;

	if (err == EINVAL) {
		SHARE_LOG(ERR, "%s: %s(): %s name", dev->devstr, fn,
			  name == NULL ? "NULL" : "empty");
	} else if (err == ENAMETOOLONG) {
		len = strnlen(name, NAME_LOG_LEN_MAX);
		SHARE_LOG(ERR, "%s: %s(): name of %zu%s bytes, longer than the limit of %d "
			  "(MDEVX_SHARE_NAME_MAX)", dev->devstr, fn, len,
			  len == NAME_LOG_LEN_MAX ? " or more" : "", MDEVX_SHARE_NAME_MAX);
	}
}

/* check_name(), and its line. */
static int
check_name_log(const struct mdevx_share_dev *dev, const char *fn, const char *name)
{
	int err = check_name(name);

	if (err != 0)
		name_refused_log(dev, fn, name, err);
	return err;
}

/*
 * The line of a lookup or an import of @p name that failed with @p err.
 * Caller errors at ERR; what the registry holds (no such record, one
 * withdrawn, corrupted or of another instance: outcomes that other
 * processes decide) at DEBUG.
 */
static void
lookup_refused_log(const struct mdevx_share_dev *dev, const char *fn, const char *name,
		   int err)
{
	char buf[MDEVX_SHARE_NAME_MAX + 1];

	if (err == EINVAL || err == ENAMETOOLONG)
		name_refused_log(dev, fn, name, err);
	else if (err == ENOENT)
		SHARE_LOG(DEBUG, "%s: %s(\"%s\"): no record of that name", dev->devstr, fn,
			  name_for_log(name, buf, sizeof(buf)));
	else if (err == ENODEV)
		SHARE_LOG(DEBUG, "%s: %s(\"%s\"): the primary closed the device", dev->devstr,
			  fn, name_for_log(name, buf, sizeof(buf)));
	else
		SHARE_LOG(DEBUG, "%s: %s(\"%s\"): %s", dev->devstr, fn,
			  name_for_log(name, buf, sizeof(buf)), strerror(err));
}

static void
info_to_record(const struct mdevx_share_rec_info *info, struct mdevx_share_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	memcpy(rec->name, info->name, sizeof(rec->name));
	rec->kind = (enum mdevx_obj_kind)info->kind;
	rec->withdrawn = info->state == MDEVX_SHARE_REC_WITHDRAWN;
	rec->generation = info->generation;
	rec->owner_pid = info->owner_pid;
	rec->object_id = info->object_id;
	if (info->kind == MDEVX_OBJ_FLOW_COUNTER) {
		rec->bulk_size = info->size_or_tirn;
	} else {
		rec->tirn = info->size_or_tirn;
		rec->rx_icm_addr = info->rx_icm_addr;
	}
}

int
mdevx_share_publish(struct mdevx_share_dev *dev, const char *name, struct mdevx_obj *obj)
{
	struct mdevx_share_rec_info info;
	struct mdevx_obj_info oi;
	uint32_t idx;
	uint64_t gen;
	bool owned;
	int ret, bad;

	ret = CHECK_DEV(dev);
	if (ret != 0)
		return mdevx_ret(ret);
	if (obj == NULL) {
		SHARE_LOG(ERR, "%s: mdevx_share_publish(): NULL object", dev->devstr);
		return mdevx_ret(EINVAL);
	}
	ret = check_name_log(dev, __func__, name);
	if (ret != 0)
		return mdevx_ret(ret);
	if (!dev->primary) {
		SHARE_LOG(ERR, "%s: mdevx_share_publish() in a secondary: only the primary "
			  "publishes", dev->devstr);
		return mdevx_ret(EPERM);
	}
	bad = name_bad_char(name);
	if (bad >= 0) {
		/* the byte in hex: the name itself may hold anything */
		SHARE_LOG(ERR, "%s: publish: name refused: byte %d is 0x%02x, outside "
			  "[A-Za-z0-9._:/-]", dev->devstr, bad, (unsigned int)(uint8_t)name[bad]);
		return mdevx_ret(EINVAL);
	}
	if (mdevx_obj_info(obj, &oi) != 0) {
		ret = errno;
		SHARE_LOG(ERR, "%s: publish %s: not an object: %s", dev->devstr, name,
			  strerror(ret));
		return mdevx_ret(ret);
	}
	if (oi.imported) {
		SHARE_LOG(ERR, "%s: publish %s: %s %#x is an import: only objects this process "
			  "made are published", dev->devstr, name, mdevx_obj_kind_name(oi.kind),
			  oi.id);
		return mdevx_ret(EPERM);
	}
	/* A handle of another uverbs file names nothing, or another object, here. */
	if (mdevx_obj_ctx(obj) != dev->ctx) {
		SHARE_LOG(ERR, "%s: publish %s: %s %#x is of another device context", dev->devstr,
			  name, mdevx_obj_kind_name(oi.kind), oi.id);
		return mdevx_ret(EXDEV);
	}
	memset(&info, 0, sizeof(info));
	if (oi.kind == MDEVX_OBJ_FLOW_COUNTER) {
		info.kind = MDEVX_OBJ_FLOW_COUNTER;
		info.size_or_tirn = oi.bulk_size;
	} else if (oi.kind == MDEVX_OBJ_TIR) {
		info.kind = MDEVX_OBJ_TIR;
		info.size_or_tirn = oi.tirn;
		info.rx_icm_addr = oi.rx_icm_addr;
	} else {
		SHARE_LOG(ERR, "%s: publish %s: a %s is not shared (flow counter bulks and TIRs "
			  "only)", dev->devstr, name, mdevx_obj_kind_name(oi.kind));
		return mdevx_ret(EPROTOTYPE);
	}
	snprintf(info.name, sizeof(info.name), "%s", name);
	info.cookie = dev->cookie;
	info.owner_pid = getpid();
	info.object_id = oi.id;
	info.export_len = (uint32_t)dev->export_size;
	ret = mdevx_obj_export(obj, info.export_buf, sizeof(info.export_buf));
	if (ret != 0) {
		SHARE_LOG(ERR, "%s: publish %s: export of %s %#x failed: %s", dev->devstr, name,
			  mdevx_obj_kind_name(oi.kind), oi.id, strerror(-ret));
		return mdevx_ret(-ret);
	}
	pthread_mutex_lock(&dev->wlock);
	/* Owned already (under another name): a second owner would destroy it twice. */
	owned = owned_has(dev, obj);
	ret = owned ? EEXIST : mdevx_share_reg_publish(dev->reg, &info, &idx, &gen);
	if (ret == 0) {
		dev->owned[idx] = obj;
		owned_add(dev, obj);
		if (info.kind == MDEVX_OBJ_FLOW_COUNTER)
			share_snap_add(dev->snap, idx, gen, obj, info.size_or_tirn);
	}
	pthread_mutex_unlock(&dev->wlock);
	if (ret != 0) {
		if (owned)
			SHARE_LOG(ERR, "%s: publish %s: %s %#x is published already under another "
				  "name", dev->devstr, name, mdevx_obj_kind_name(oi.kind), oi.id);
		else if (ret == EEXIST)
			SHARE_LOG(ERR, "%s: publish %s: a record of that name exists", dev->devstr,
				  name);
		else if (ret == ENOSPC)
			SHARE_LOG(ERR, "%s: publish %s: the registry is full (its capacity: %u)",
				  dev->devstr, name, mdevx_share_reg_capacity(dev->reg));
		else
			SHARE_LOG(ERR, "%s: publish %s: %s", dev->devstr, name, strerror(ret));
		return mdevx_ret(ret);
	}
	SHARE_LOG(DEBUG, "%s: published %s (%s id %u) in slot %u gen %" PRIu64, dev->devstr,
		  name, info.kind == MDEVX_OBJ_FLOW_COUNTER ? "counter" : "tir", oi.id, idx, gen);
	return 0;
}

int
mdevx_share_withdraw(struct mdevx_share_dev *dev, const char *name, unsigned int *acked)
{
	uint64_t gen, old_gen;
	unsigned int n_acked;
	uint16_t state;
	uint32_t idx;
	int ret, nb_sent;

	ret = CHECK_DEV(dev);
	if (ret == 0)
		ret = check_name_log(dev, __func__, name);
	if (ret != 0)
		return mdevx_ret(ret);
	if (!dev->primary) {
		SHARE_LOG(ERR, "%s: mdevx_share_withdraw() in a secondary: only the primary "
			  "withdraws", dev->devstr);
		return mdevx_ret(EPERM);
	}
	pthread_mutex_lock(&dev->wlock);
	/* The registry's private state: the memzone's bytes decide nothing. */
	ret = mdevx_share_reg_owner_find(dev->reg, name, &idx, &old_gen, &state);
	if (ret == 0 && state != MDEVX_SHARE_REC_PUBLISHED)
		ret = ENOENT;
	if (ret == 0)
		ret = mdevx_share_reg_withdraw(dev->reg, idx, old_gen, &gen);
	if (ret != 0) {
		pthread_mutex_unlock(&dev->wlock);
		if (ret == ENOENT)
			SHARE_LOG(ERR, "%s: mdevx_share_withdraw(): no record \"%s\" published",
				  dev->devstr, name);
		else
			SHARE_LOG(ERR, "%s: withdraw %s: %s", dev->devstr, name, strerror(ret));
		return mdevx_ret(ret);
	}
	/* Out of the counter snapshot: a refresh of it in progress ends first. */
	share_snap_del(dev->snap, idx);
	/* From here on every use of an import fails with ESTALE. */
	n_acked = share_notify_withdraw(dev, MP_OP_WITHDRAW, idx, old_gen, &nb_sent, NULL);
	/* The primary's own rules and imports of the record go too. */
	mdevx_share_lock_write(&dev->lock);
	share_rules_drop(dev, idx, old_gen, dev->owned[idx], 0);
	share_unimport_record(dev, idx, old_gen);
	mdevx_share_unlock_write(&dev->lock);
	/* And the rules of secondaries that did not remove theirs in time. */
	share_prules_remove(dev, idx, old_gen);
	ret = mdevx_obj_destroy(dev->owned[idx]);
	if (ret == 0) {
		owned_del(dev, dev->owned[idx]);
		dev->owned[idx] = NULL;
		mdevx_share_reg_release(dev->reg, idx);
	} else {
		SHARE_LOG(ERR, "%s: withdraw %s: destroy failed: %s (record kept withdrawn)",
			  dev->devstr, name, strerror(-ret));
	}
	pthread_mutex_unlock(&dev->wlock);
	SHARE_LOG(DEBUG, "%s: withdrew %s: %u of %d secondaries acknowledged", dev->devstr,
		  name, n_acked, nb_sent);
	if (acked != NULL)
		*acked = n_acked;
	return ret == 0 ? 0 : mdevx_ret(-ret);
}

/*
 * Registry lookup. The registry itself needs no lock; the process's read
 * lock only keeps the withdraw-all handler from declaring the device
 * orphaned (and the primary from freeing the registry) under a reader.
 * ENODEV once orphaned.
 */
static int
reg_lookup(struct mdevx_share_dev *dev, const char *name, struct mdevx_share_rec_info *info,
	   uint32_t *idx)
{
	int ret;

	mdevx_share_lock_read(&dev->lock);
	ret = dev->orphan ? ENODEV : mdevx_share_reg_lookup(dev->reg, name, info, idx, NULL);
	mdevx_share_unlock_read(&dev->lock);
	return ret;
}

int
mdevx_share_lookup(struct mdevx_share_dev *dev, const char *name, struct mdevx_share_record *rec)
{
	struct mdevx_share_rec_info info;
	int ret;

	ret = CHECK_DEV(dev);
	if (ret != 0)
		return mdevx_ret(ret);
	if (rec == NULL) {
		SHARE_LOG(ERR, "%s: mdevx_share_lookup(): NULL record", dev->devstr);
		return mdevx_ret(EINVAL);
	}
	ret = reg_lookup(dev, name, &info, NULL);
	if (ret != 0) {
		lookup_refused_log(dev, __func__, name, ret);
		return mdevx_ret(ret);
	}
	info_to_record(&info, rec);
	return 0;
}

int64_t
mdevx_share_record_next(struct mdevx_share_dev *dev, uint32_t start,
			struct mdevx_share_record *rec)
{
	struct mdevx_share_rec_info info;
	int64_t i;

	int err = CHECK_DEV(dev);

	if (err == 0 && rec == NULL) {
		SHARE_LOG(ERR, "%s: mdevx_share_record_next(): NULL record", dev->devstr);
		err = EINVAL;
	}
	if (err != 0) {
		mdevx_set_errno(err);
		return -1;
	}
	mdevx_share_lock_read(&dev->lock);
	i = dev->orphan ? -1 : mdevx_share_reg_next(dev->reg, start, &info);
	mdevx_share_unlock_read(&dev->lock);
	if (i >= 0)
		info_to_record(&info, rec);
	return i;
}

/*
 * Primary close: withdraw everything with one notification and destroy
 * what was published. wlock held. A record whose object cannot be
 * destroyed stays (withdrawn, with its object) for the next close to try
 * again. Returns 0 or the first destroy error; @p all_acked tells whether
 * every secondary that was told acknowledged.
 */
int
share_primary_withdraw_all(struct mdevx_share_dev *dev, bool *all_acked)
{
	uint32_t cap = mdevx_share_reg_capacity(dev->reg);
	int nb_sent, ret = 0;
	uint64_t gen;

	/* From the registry's private state: the memzone's bytes decide nothing. */
	for (uint32_t s = 0; s < cap; s++) {
		if (mdevx_share_reg_owner_slot(dev->reg, s, &gen) == MDEVX_SHARE_REC_PUBLISHED)
			mdevx_share_reg_withdraw(dev->reg, s, gen, NULL);
		/* out of the counter snapshot before any destroy */
		if (dev->owned[s] != NULL)
			share_snap_del(dev->snap, s);
	}
	/* complete: every secondary told acknowledged this very request */
	share_notify_withdraw(dev, MP_OP_WITHDRAW_ALL, UINT32_MAX, 0, &nb_sent, all_acked);
	share_prules_remove(dev, UINT32_MAX, 0);
	for (uint32_t s = 0; s < cap; s++) {
		if (dev->owned[s] != NULL) {
			int r = mdevx_obj_destroy(dev->owned[s]);

			if (r != 0) {
				if (ret == 0)
					ret = r;
				continue;	/* record and object kept */
			}
			owned_del(dev, dev->owned[s]);
			dev->owned[s] = NULL;
		}
		if (mdevx_share_reg_owner_slot(dev->reg, s, NULL) == MDEVX_SHARE_REC_WITHDRAWN)
			mdevx_share_reg_release(dev->reg, s);
	}
	return ret;
}

/* ---------------------------------------------------------------- */
/* Imports                                                           */
/* ---------------------------------------------------------------- */

/*
 * One attempt at an import (write lock held): find the record (a copy of
 * it, verified), validate it, import from the copy straight into a slot,
 * then make sure the writer did not rewrite the record meanwhile.
 * 0, EAGAIN (it changed: try again), or the error.
 */
static int
import_once(struct mdevx_share_dev *dev, const char *name, enum mdevx_obj_kind kind,
	    mdevx_share_imp_t *imp, bool *logged)
{
	struct mdevx_share_rec_view v;
	struct imp_slot *s;
	uint32_t sidx;
	bool imported;
	int ret;

	ret = mdevx_share_reg_find(dev->reg, name, &v);
	if (ret != 0)
		return ret;
	if (v.state != MDEVX_SHARE_REC_PUBLISHED)
		return ESTALE;
	if (v.cookie != dev->cookie)
		return EXDEV;
	if (kind != MDEVX_OBJ_ANY && v.kind != kind)
		return EPROTOTYPE;
	if (v.export_len != dev->export_size)
		return EBADMSG;
	s = share_slot_alloc(dev, &sidx);
	if (s == NULL)
		return errno;
	/*
	 * The record's checksum, verified on this copy, covers the export
	 * buffer: the registry's bytes may have changed since (any process
	 * can write them), the copy has not.
	 */
	/* Asked as a TIR unless a counter: the buffer's own kind must match. */
	ret = -mdevx_obj_import_ref_verified(dev->ctx, v.export_buf, v.export_len,
					     v.kind == MDEVX_OBJ_FLOW_COUNTER ?
					     MDEVX_OBJ_FLOW_COUNTER : MDEVX_OBJ_TIR, &s->ref);
	imported = ret == 0;
	SHARE_TEST_HOOK(test_import_hook, test_import_arg);
	if (!mdevx_share_reg_view_current(dev->reg, &v))
		ret = EAGAIN;		/* read while rewritten: no verdict, try again */
	else if (ret == 0 &&
		 /* the export buffer must describe the object the record names */
		 (s->ref.id != v.object_id || s->ref.size_or_tirn != v.size_or_tirn ||
		  (v.kind == MDEVX_OBJ_TIR && s->ref.rx_icm_addr != v.rx_icm_addr)))
		ret = EBADMSG;
	if (ret != 0) {
		if (imported)
			mdevx_obj_unimport_ref(dev->ctx, &s->ref);
		share_slot_free(dev, s, sidx);
		if (ret != EAGAIN) {
			SHARE_LOG(ERR, "%s: record \"%s\": export buffer refused: %s",
				  dev->devstr, name, strerror(ret));
			*logged = true;
		}
		return ret == EPROTOTYPE ? EBADMSG : ret;
	}
	s->obj = NULL;
	s->rec_idx = v.idx;
	s->rec_gen = v.generation;
	s->kind = v.kind;
	s->state = IMP_LIVE;
	dev->nb_live++;
	*imp = slot_handle(sidx, s);
	return 0;
}

int
mdevx_share_import(struct mdevx_share_dev *dev, const char *name, enum mdevx_obj_kind kind,
		   mdevx_share_imp_t *imp)
{
	bool logged = false;
	int ret = CHECK_DEV(dev);

	if (ret != 0)
		return mdevx_ret(ret);
	if (imp == NULL || kind > MDEVX_OBJ_TIR) {
		if (imp == NULL)
			SHARE_LOG(ERR, "%s: mdevx_share_import(): NULL handle", dev->devstr);
		else
			SHARE_LOG(ERR, "%s: mdevx_share_import(): kind %d is not a record's kind "
				  "(a flow counter, a TIR or any)", dev->devstr, (int)kind);
		return mdevx_ret(EINVAL);
	}
	ret = EAGAIN;
	/*
	 * One exclusive section from the lookup to the visible slot. The
	 * primary marks a record withdrawn before it notifies, and the
	 * notification takes this lock: it either ran before (the lookup sees
	 * the mark) or runs after (and finds the slot). The backend import is
	 * local (no command), so holding the lock across it costs nothing.
	 */
	mdevx_share_lock_write(&dev->lock);
	for (int i = 0; i < IMPORT_RETRIES && ret == EAGAIN; i++)
		ret = dev->orphan ? ENODEV : import_once(dev, name, kind, imp, &logged);
	mdevx_share_unlock_write(&dev->lock);
	if (ret == 0)
		return 0;
	if (!logged)
		lookup_refused_log(dev, __func__, name, ret);
	return mdevx_ret(ret);
}

int
mdevx_share_unimport(struct mdevx_share_dev *dev, mdevx_share_imp_t imp)
{
	struct mdevx_obj_ref ref = { .bobj = NULL };
	struct imp_slot *s;
	uint32_t sidx;
	int err = CHECK_DEV(dev);

	if (err != 0)
		return mdevx_ret(err);
	mdevx_share_lock_write(&dev->lock);
	s = share_slot_of(dev, imp, &sidx);
	if (s == NULL) {
		mdevx_share_unlock_write(&dev->lock);
		SHARE_LOG(ERR, "%s: mdevx_share_unimport(): %#" PRIx64 " is not a live import "
			  "(unimported already?)", dev->devstr, imp.id);
		return mdevx_ret(ENOENT);
	}
	/* The wrapper (live or revoked) first: a call in flight keeps the import. */
	if (share_slot_drop_wrapper(s) != 0) {
		mdevx_share_unlock_write(&dev->lock);
		SHARE_LOG(ERR, "%s: mdevx_share_unimport(): import %#" PRIx64 ": another thread "
			  "is in a call on its object: nothing released", dev->devstr, imp.id);
		return mdevx_ret(EBUSY);
	}
	if (s->state == IMP_LIVE)
		ref = s->ref;
	share_slot_free(dev, s, sidx);
	mdevx_share_unlock_write(&dev->lock);
	if (ref.bobj != NULL)
		mdevx_obj_unimport_ref(dev->ctx, &ref);
	return 0;
}

static void
use_end(struct mdevx_share_dev *dev, bool excl)
{
	if (excl)
		mdevx_share_unlock_write(&dev->lock);
	else
		mdevx_share_unlock_read(&dev->lock);
}

/*
 * Lock taken on success (shared, or exclusive with @p excl): the caller
 * uses the slot, then unlocks with use_end().
 */
static struct imp_slot *
use_begin(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, enum mdevx_obj_kind kind,
	  bool excl, int *err, const char *fn)
{
	struct imp_slot *s;

	*err = share_check_dev_log(dev, fn);
	if (*err != 0)
		return NULL;
	if (excl)
		mdevx_share_lock_write(&dev->lock);
	else
		mdevx_share_lock_read(&dev->lock);
	s = share_slot_of(dev, imp, NULL);
	if (s == NULL) {
		*err = ENOENT;
	} else if (s->state == IMP_STALE || dev->orphan) {
		*err = ESTALE;
	} else if (kind != MDEVX_OBJ_ANY && s->kind != kind) {
		*err = EPROTOTYPE;
	} else {
		*err = mdevx_share_reg_check(dev->reg, s->rec_idx, s->rec_gen);
		if (*err == 0)
			return s;
		if (*err == ENODEV)	/* registry closed: as when orphaned */
			*err = ESTALE;
	}
	use_end(dev, excl);
	/* ESTALE, and what the registry says (scribbled): outcomes, no line */
	if (*err == ENOENT)
		SHARE_LOG(ERR, "%s: %s(): %#" PRIx64 " is not a live import", dev->devstr, fn,
			  imp.id);
	else if (*err == EPROTOTYPE)
		SHARE_LOG(ERR, "%s: %s(): import %#" PRIx64 " is not a %s", dev->devstr, fn,
			  imp.id, mdevx_obj_kind_name(kind));
	return NULL;
}

struct mdevx_obj *
mdevx_share_import_obj(struct mdevx_share_dev *dev, mdevx_share_imp_t imp)
{
	struct mdevx_share_rec_info info;
	struct mdevx_obj *obj;
	struct imp_slot *s;
	int err = 0;

	s = use_begin(dev, imp, MDEVX_OBJ_ANY, true, &err, __func__);
	if (s == NULL) {
		mdevx_set_errno(err);
		return NULL;
	}
	SHARE_TEST_HOOK(test_import_obj_hook, test_import_obj_arg);
	/* First call: the full wrapper, from the record's export buffer. */
	if (s->obj == NULL) {
		err = mdevx_share_reg_read(dev->reg, s->rec_idx, &info);
		if (err == 0 && (info.state != MDEVX_SHARE_REC_PUBLISHED ||
				 info.generation != s->rec_gen))
			err = ESTALE;
		if (err == 0) {
			s->obj = mdevx_obj_import(dev->ctx, info.export_buf, info.export_len,
						  (enum mdevx_obj_kind)s->ref.kind);
			if (s->obj == NULL) {
				err = errno;
			} else if (mdevx_obj_hold(s->obj) != 0) {
				/* ours to give out: mdevx_obj_unimport() must refuse it */
				err = errno;
				mdevx_obj_unimport(s->obj);
				s->obj = NULL;
			}
		}
	}
	obj = s->obj;
	use_end(dev, true);
	if (obj == NULL) {
		if (err != ESTALE)
			SHARE_LOG(ERR, "%s: mdevx_share_import_obj(): import %#" PRIx64 ": no "
				  "object: %s", dev->devstr, imp.id, strerror(err));
		mdevx_set_errno(err);
	}
	return obj;
}

int
mdevx_share_counter_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t offset,
			  uint32_t n, int clear, struct mdevx_counter_stats *stats)
{
	struct imp_slot *s;
	int err, ret;

	s = use_begin(dev, imp, MDEVX_OBJ_FLOW_COUNTER, false, &err, __func__);
	if (s == NULL)
		return mdevx_ret(err);
	ret = mdevx_ref_counter_query(dev->ctx, &s->ref, offset, n, clear, stats);
	use_end(dev, false);
	return ret == 0 ? 0 : mdevx_ret(-ret);
}

/*
 * The snapshot is read under the process's read lock, like the registry:
 * it keeps the withdraw-all handler from declaring the device orphaned
 * (and the primary from freeing the area) under the reader. That lock is
 * private to the process: no other process can hold it.
 */
int
mdevx_share_counter_read(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, uint32_t offset,
			 uint32_t n, struct mdevx_counter_stats *stats,
			 struct mdevx_share_counter_snap *snap)
{
	struct imp_slot *s;
	uint32_t bulk;
	int err;

	err = CHECK_DEV(dev);
	if (err != 0)
		return mdevx_ret(err);
	if (stats == NULL || n == 0) {
		SHARE_LOG(ERR, "%s: mdevx_share_counter_read(): %s", dev->devstr,
			  stats == NULL ? "NULL stats" : "no counter asked (n 0)");
		return mdevx_ret(EINVAL);
	}
	s = use_begin(dev, imp, MDEVX_OBJ_FLOW_COUNTER, false, &err, __func__);
	if (s == NULL)
		return mdevx_ret(err);
	bulk = s->ref.size_or_tirn;
	if (offset >= bulk || n > bulk - offset)
		err = ERANGE;
	else
		err = share_snap_read(dev->snap, s->rec_idx, s->rec_gen, bulk, offset, n, stats,
				      snap);
	use_end(dev, false);
	/* EAGAIN, ENODATA, ESTALE: outcomes of a hot path, no line */
	if (err == ERANGE)
		SHARE_LOG(ERR, "%s: mdevx_share_counter_read(): counters %u to %" PRIu64 " are "
			  "past the bulk of %u", dev->devstr, offset, (uint64_t)offset + n - 1,
			  bulk);
	else if (err == EIO)
		SHARE_LOG(DEBUG, "%s: mdevx_share_counter_read(): import %#" PRIx64 ": the "
			  "snapshot slot does not match it (scribbled)", dev->devstr, imp.id);
	return err == 0 ? 0 : mdevx_ret(err);
}

int
mdevx_share_counter_refresh(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
			    unsigned int timeout_ms)
{
	uint64_t t0 = share_snap_now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000ull;
	struct mp_msg p;
	struct imp_slot *s;
	uint64_t gen, started = 0;
	uint32_t idx;
	int err, last;

	s = use_begin(dev, imp, MDEVX_OBJ_FLOW_COUNTER, false, &err, __func__);
	if (s == NULL)
		return mdevx_ret(err);
	idx = s->rec_idx;
	gen = s->rec_gen;
	last = dev->snap == NULL ? ENODATA : 0;
	use_end(dev, false);
	if (last != 0)
		return mdevx_ret(last);
	/*
	 * Asked also when the slot reads as not in the service: a scribble
	 * can make it look so, and the refresh writes it anew. The primary
	 * refreshes only what is in its (private) service.
	 */
	if (dev->primary) {
		share_snap_request(dev->snap, idx, gen);
	} else {
		share_mp_msg_init(&p, MP_OP_REFRESH, dev->devstr, dev->cookie);
		p.refresh.rec.idx = idx;
		p.refresh.rec.gen = gen;
		share_ack_send(&p, ACK_SEND_TRIES);
	}
	/* Poll the bulk's slot: no lock of another process, bounded. */
	for (;;) {
		s = use_begin(dev, imp, MDEVX_OBJ_FLOW_COUNTER, false, &err, __func__);
		if (s == NULL)
			return mdevx_ret(err);
		err = share_snap_started(dev->snap, idx, gen, &started);
		use_end(dev, false);
		if (err == 0 && started >= t0)
			return 0;
		if (err != EAGAIN)
			last = err;
		if (share_snap_now_ns() >= deadline)
			return mdevx_ret(last == ENODATA ? ENODATA : ETIMEDOUT);
		usleep(REFRESH_POLL_US);
	}
}

int
mdevx_share_service_stats(struct mdevx_share_dev *dev, struct mdevx_share_service_stats *st)
{
	int err = CHECK_DEV(dev);

	if (err != 0)
		return mdevx_ret(err);
	if (st == NULL) {
		SHARE_LOG(ERR, "%s: mdevx_share_service_stats(): NULL stats", dev->devstr);
		return mdevx_ret(EINVAL);
	}
	mdevx_share_lock_read(&dev->lock);
	if (dev->snap == NULL || dev->orphan)
		err = ENODATA;
	else
		share_snap_stats(dev->snap, st);
	mdevx_share_unlock_read(&dev->lock);
	return err == 0 ? 0 : mdevx_ret(err);
}

int
mdevx_share_tir_query(struct mdevx_share_dev *dev, mdevx_share_imp_t imp,
		      struct mdevx_tir_attr *attr)
{
	struct imp_slot *s;
	int err, ret;

	s = use_begin(dev, imp, MDEVX_OBJ_TIR, false, &err, __func__);
	if (s == NULL)
		return mdevx_ret(err);
	ret = mdevx_ref_tir_query(dev->ctx, &s->ref, attr);
	use_end(dev, false);
	return ret == 0 ? 0 : mdevx_ret(-ret);
}
