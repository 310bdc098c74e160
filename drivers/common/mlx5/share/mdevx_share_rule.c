/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Root rules on shared objects: the rules a process makes through the
 * library, their removal when a record they use is withdrawn, and in the
 * primary the rules its secondaries announced, removed when one dies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "mdevx_share.h"
#include "mdevx_share_internal.h"
#include "mdevx_share_private.h"

#define RULES_MAX (1u << 20)		/* root rules of one process on one device */
#define PEER_RULES_MAX (1u << 20)	/* primary: rules of secondaries, per device */

/* ---------------------------------------------------------------- */
/* Root rules on shared objects                                      */
/* ---------------------------------------------------------------- */

/*
 * A process's root rules live in the uverbs file it shares with the
 * primary (mdevx_import_device()): they would outlive the process, and
 * they keep the objects they use from being destroyed. So:
 * - every process keeps the rules it made through the library and removes
 *   those that use a withdrawn record before acknowledging the withdrawal;
 * - a secondary tells the primary each rule it makes and removes
 *   (MP_OP_RULE_ADD / MP_OP_RULE_DEL, on the acknowledgement socket, so the
 *   kernel names the sender), and the primary removes by handle the rules
 *   of a secondary that died, and those a withdrawal still finds (a
 *   secondary that did not acknowledge in time).
 */

static inline mdevx_share_rule_t
rule_id(uint32_t idx, const struct share_rule *r)
{
	mdevx_share_rule_t h = { .id = ((uint64_t)r->gen << 32) | (idx + 1) };

	return h;
}

/* The entry a handle names (live or gone), or NULL. rules_lock held. */
static struct share_rule *
rule_of(const struct mdevx_share_dev *dev, mdevx_share_rule_t h, uint32_t *idx_out)
{
	uint32_t idx = (uint32_t)h.id, gen = (uint32_t)(h.id >> 32);
	struct share_rule *r;

	if (idx == 0 || idx > dev->rules_cap)
		return NULL;
	r = &dev->rules[idx - 1];
	if (r->state == RULE_FREE || r->gen != gen)
		return NULL;
	*idx_out = idx - 1;
	return r;
}

/* A free entry (rules_lock held), or NULL with errno ENOMEM / ENOSPC. */
static struct share_rule *
rule_alloc(struct mdevx_share_dev *dev, uint32_t *idx_out)
{
	struct share_rule *r;
	uint32_t idx;

	if (dev->rules_free == 0) {
		uint32_t cap = dev->rules_cap == 0 ? 64 : dev->rules_cap * 2;
		struct share_rule *n;

		if (dev->rules_cap >= RULES_MAX) {
			errno = ENOSPC;
			return NULL;
		}
		if (cap > RULES_MAX)
			cap = RULES_MAX;
		n = realloc(dev->rules, (size_t)cap * sizeof(*n));
		if (n == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		memset(n + dev->rules_cap, 0, (size_t)(cap - dev->rules_cap) * sizeof(*n));
		for (uint32_t i = cap; i > dev->rules_cap; i--) {
			n[i - 1].next_free = dev->rules_free;
			dev->rules_free = i;
		}
		dev->rules = n;
		dev->rules_cap = cap;
	}
	idx = dev->rules_free - 1;
	r = &dev->rules[idx];
	dev->rules_free = r->next_free;
	r->next_free = 0;
	*idx_out = idx;
	return r;
}

/* Give an entry back (rules_lock held); its next handle differs. */
static void
rule_free(struct mdevx_share_dev *dev, struct share_rule *r, uint32_t idx)
{
	uint32_t gen = r->gen + 1;

	memset(r, 0, sizeof(*r));
	r->gen = gen;
	r->next_free = dev->rules_free;
	dev->rules_free = idx + 1;
}

static void self_rule_add(struct mdevx_share_dev *dev, uint32_t handle);
static void self_rule_del(struct mdevx_share_dev *dev, uint32_t handle);

/* Secondary: tell the primary about rule @p r (see share_conn_send() for @p tries). */
static void
rule_msg(const struct mdevx_share_dev *dev, enum mp_op op, const struct share_rule *r, int tries)
{
	struct mp_msg p;

	if (dev->primary || dev->orphan)
		return;
	share_mp_msg_init(&p, op, dev->devstr, dev->cookie);
	p.rule.handle = r->handle;
	p.rule.dst.idx = r->rec[0];
	p.rule.dst.gen = r->rec_gen[0];
	p.rule.ctr.idx = r->rec[1];
	p.rule.ctr.gen = r->rec_gen[1];
	share_conn_send(dev, &p, tries);
}

/*
 * Remove this process's rules that use record @p rec_idx of generation
 * @p gen (every rule when rec_idx is UINT32_MAX) or the local object
 * @p obj (may be NULL). dev->lock held for writing, so that no rule is
 * being made on an import meanwhile. The entries stay (RULE_GONE) until
 * mdevx_share_rule_destroy(). Returns how many were removed.
 */
uint32_t
share_rules_drop(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen,
	   const struct mdevx_obj *obj, int tries)
{
	uint32_t n = 0;

	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t i = 0; i < dev->rules_cap && dev->nb_rules > 0; i++) {
		struct share_rule *r = &dev->rules[i];
		bool hit = rec_idx == UINT32_MAX;
		int rc;

		if (r->state != RULE_LIVE)
			continue;
		for (int k = 0; k < 2 && !hit; k++)
			hit = (r->rec[k] == rec_idx && r->rec_gen[k] == gen) ||
			      (obj != NULL && r->obj[k] == obj);
		if (!hit)
			continue;
		rc = mdevx_rule_destroy(r->rule);
		if (rc != 0)
			SHARE_LOG(ERR, "%s: removing rule %u: %s (the primary removes it)",
				  dev->devstr, r->handle, strerror(-rc));
		else
			rule_msg(dev, MP_OP_RULE_DEL, r, tries);
		if (dev->primary)
			self_rule_del(dev, r->handle);
		r->rule = NULL;
		r->state = RULE_GONE;
		dev->nb_rules--;
		n++;
	}
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
}

/*
 * Primary: the secondaries' rules, by handle (a hash on the handle in
 * dev->prule_buckets, chains through hnext) and by owner (the peer's id).
 * The primary's own rules are there too (OWNER_SELF), so that nobody can
 * claim them. An entry whose owner is gone is OWNER_DYING until the
 * reader removes it on the device; one being removed is "taken" and stays
 * in the hash until its destroy returned: its handle is never claimed,
 * and never destroyed twice. Device calls are made with no lock of ours
 * but reap_lock (which only a device close waits for).
 */
#define OWNER_SELF (UINT64_MAX - 1)
#define OWNER_DYING UINT64_MAX
#define RULES_PER_PEER (1u << 17)	/* rules one secondary may announce on a device */
#define REMOVE_BATCH 256		/* rules removed per round, no lock held */

static uint32_t
prule_bucket(const struct mdevx_share_dev *dev, uint32_t handle)
{
	return (handle * 2654435761u) & dev->prule_mask;
}

/* rules_lock held: the entry of @p handle (index into prules) or UINT32_MAX. */
static uint32_t
prule_find(const struct mdevx_share_dev *dev, uint32_t handle)
{
	if (dev->prule_buckets == NULL)
		return UINT32_MAX;
	for (uint32_t i = dev->prule_buckets[prule_bucket(dev, handle)]; i != 0;
	     i = dev->prules[i - 1].hnext)
		if (dev->prules[i - 1].handle == handle)
			return i - 1;
	return UINT32_MAX;
}

/* rules_lock held: twice the room, rehashed. 0, ENOMEM or ENOSPC. */
static int
prule_grow(struct mdevx_share_dev *dev)
{
	uint32_t cap = dev->prules_cap == 0 ? 64 : dev->prules_cap * 2;
	struct peer_rule *e;
	uint32_t *b;

	if (dev->prules_cap >= PEER_RULES_MAX)
		return ENOSPC;
	b = calloc(cap, sizeof(*b));
	if (b == NULL)
		return ENOMEM;
	e = realloc(dev->prules, (size_t)cap * sizeof(*e));
	if (e == NULL) {
		free(b);
		return ENOMEM;
	}
	memset(e + dev->prules_cap, 0, (size_t)(cap - dev->prules_cap) * sizeof(*e));
	free(dev->prule_buckets);
	dev->prules = e;
	dev->prule_buckets = b;
	dev->prule_mask = cap - 1;
	for (uint32_t i = 0; i < dev->prules_cap; i++) {
		if (e[i].owner != 0) {
			uint32_t k = prule_bucket(dev, e[i].handle);

			e[i].hnext = b[k];
			b[k] = i + 1;
		}
	}
	for (uint32_t i = cap; i > dev->prules_cap; i--) {
		e[i - 1].hnext = dev->prule_free;
		dev->prule_free = i;
	}
	dev->prules_cap = cap;
	return 0;
}

/* rules_lock held: a new entry for @p handle of @p owner (index), or UINT32_MAX, errno. */
static uint32_t
prule_new(struct mdevx_share_dev *dev, uint32_t handle, uint64_t owner)
{
	struct peer_rule *e;
	uint32_t i, k;
	int err;

	if (dev->prule_free == 0) {
		err = prule_grow(dev);
		if (err != 0) {
			errno = err;
			return UINT32_MAX;
		}
	}
	i = dev->prule_free - 1;
	e = &dev->prules[i];
	dev->prule_free = e->hnext;
	memset(e, 0, sizeof(*e));
	e->owner = owner;
	e->handle = handle;
	e->rec[0] = UINT32_MAX;
	e->rec[1] = UINT32_MAX;
	k = prule_bucket(dev, handle);
	e->hnext = dev->prule_buckets[k];
	dev->prule_buckets[k] = i + 1;
	if (owner != OWNER_SELF)
		dev->nb_prules++;
	return i;
}

/* rules_lock held: entry @p i out of the hash and the counts. */
static void
prule_free(struct mdevx_share_dev *dev, uint32_t i)
{
	struct peer_rule *e = &dev->prules[i];
	uint32_t *link = &dev->prule_buckets[prule_bucket(dev, e->handle)];

	while (*link != 0 && *link != i + 1)
		link = &dev->prules[*link - 1].hnext;
	if (*link == i + 1)
		*link = e->hnext;
	if (e->owner != OWNER_SELF)
		dev->nb_prules--;
	if (e->owner == OWNER_DYING && !e->taken)
		__atomic_store_n(&dev->nb_dying, dev->nb_dying - 1, __ATOMIC_RELAXED);
	memset(e, 0, sizeof(*e));
	e->hnext = dev->prule_free;
	dev->prule_free = i + 1;
}

static void
prule_set_recs(struct peer_rule *e, const struct mp_msg *p)
{
	e->rec[0] = p->rule.dst.idx;
	e->rec_gen[0] = p->rule.dst.gen;
	e->rec[1] = p->rule.ctr.idx;
	e->rec_gen[1] = p->rule.ctr.gen;
}

/* Primary, rules_lock held: our own rule @p handle, that nobody may claim. */
static void
self_rule_add(struct mdevx_share_dev *dev, uint32_t handle)
{
	uint32_t i = prule_find(dev, handle);

	if (i != UINT32_MAX && !dev->prules[i].taken) {
		/* The kernel just gave us the handle: whoever claimed it lied. */
		SHARE_LOG(WARNING, "%s: rule %u was claimed by peer %#" PRIx64 " before it "
			  "existed: ours now", dev->devstr, handle, dev->prules[i].owner);
		prule_free(dev, i);
	}
	if (prule_new(dev, handle, OWNER_SELF) == UINT32_MAX)
		SHARE_LOG(WARNING, "%s: own rule %u not recorded: %s", dev->devstr, handle,
			  strerror(errno));
}

/* Primary, rules_lock held: our own rule @p handle is gone. */
static void
self_rule_del(struct mdevx_share_dev *dev, uint32_t handle)
{
	uint32_t i = prule_find(dev, handle);

	if (i != UINT32_MAX && dev->prules[i].owner == OWNER_SELF)
		prule_free(dev, i);
}

/*
 * Remove on the device the handles @p idx[@p n] (entries taken), with
 * no lock of ours held, then their entries.
 */
static void
prules_destroy(struct mdevx_share_dev *dev, const uint32_t *idx, const uint32_t *handle,
	       const uint64_t *owner, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		int rc = mdevx_rule_destroy_handle(dev->ctx, handle[k]);

		if (rc != 0 && rc != -ENOENT)
			SHARE_LOG(ERR, "%s: removing rule %u of peer %#" PRIx64 ": %s",
				  dev->devstr, handle[k], owner[k], strerror(-rc));
		else
			SHARE_LOG(DEBUG, "%s: removed rule %u of peer %#" PRIx64, dev->devstr,
				  handle[k], owner[k]);
	}
	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t k = 0; k < n; k++)
		prule_free(dev, idx[k]);
	pthread_mutex_unlock(&dev->rules_lock);
}

/*
 * Primary: remove by handle the secondaries' rules that use record
 * @p rec_idx of generation @p gen (every one when rec_idx is UINT32_MAX):
 * those a withdrawal still finds once its wait is over (a secondary that
 * did not remove its own in time), before the object is destroyed.
 * Device calls outside rules_lock. Returns how many were removed.
 */
uint32_t
share_prules_remove(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen)
{
	uint32_t idx[REMOVE_BATCH], handle[REMOVE_BATCH], total = 0, pos = 0, n;
	uint64_t owner[REMOVE_BATCH];

	do {
		n = 0;
		pthread_mutex_lock(&dev->rules_lock);
		for (; pos < dev->prules_cap && n < REMOVE_BATCH; pos++) {
			struct peer_rule *e = &dev->prules[pos];

			if (e->owner == 0 || e->owner == OWNER_SELF || e->taken)
				continue;
			if (rec_idx != UINT32_MAX &&
			    !(e->rec[0] == rec_idx && e->rec_gen[0] == gen) &&
			    !(e->rec[1] == rec_idx && e->rec_gen[1] == gen))
				continue;
			if (e->owner == OWNER_DYING)
				__atomic_store_n(&dev->nb_dying, dev->nb_dying - 1,
						 __ATOMIC_RELAXED);
			e->taken = true;
			idx[n] = pos;
			handle[n] = e->handle;
			owner[n] = e->owner;
			n++;
		}
		pthread_mutex_unlock(&dev->rules_lock);
		prules_destroy(dev, idx, handle, owner, n);
		total += n;
	} while (n == REMOVE_BATCH);
	return total;
}

#ifdef MDEVX_SHARE_TEST_HOOKS
void
mdevx_share_test_rule_msg(const struct mdevx_share_dev *dev, int add, uint32_t handle)
{
	struct share_rule r;

	memset(&r, 0, sizeof(r));
	r.handle = handle;
	r.rec[0] = UINT32_MAX;
	r.rec[1] = UINT32_MAX;
	rule_msg(dev, add ? MP_OP_RULE_ADD : MP_OP_RULE_DEL, &r, RULE_MSG_TRIES);
}
#endif

/* Log refusals 1, 2, 4, 8, ...: a flood of them is no flood of the log. */
static bool
refusal_logged(struct mdevx_share_dev *dev)
{
	uint64_t n = ++dev->nb_refused;

	return (n & (n - 1)) == 0;
}

static const char *
owner_name(uint64_t owner)
{
	return owner == OWNER_SELF ? "the primary" :
	       owner == OWNER_DYING ? "a peer that is gone" : "another peer";
}

/*
 * Primary, reader: peer @p id made or removed a rule. Only a peer of the
 * device's instance counts. A claim of a handle recorded for another
 * owner (a live peer, the primary, one gone whose rules are being
 * removed) is refused, and so is a removal of a rule that is not the
 * sender's; a peer records at most RULES_PER_PEER rules. The entry is
 * only ever used to remove that handle when the peer is gone or a
 * withdrawal finds it.
 */
static void
peer_rule_msg(const struct mp_msg *p, uint64_t id)
{
	struct mdevx_share_dev *dev;
	uint32_t *count, i;
	pid_t pid = 0;

	pthread_mutex_lock(&share_devs_lock);
	dev = share_peer_dev_locked(id, &pid);
	if (dev == NULL || !dev->primary || dev->cookie != p->hdr.cookie ||
	    strcmp(dev->devstr, p->hdr.devstr) != 0) {
		pthread_mutex_unlock(&share_devs_lock);
		SHARE_LOG(DEBUG, "rule message %u of peer %#" PRIx64 ": not for its device: "
			  "ignored", p->hdr.op, id);
		return;
	}
	count = share_peer_nb_rules_locked(id);
	pthread_mutex_lock(&dev->rules_lock);
	i = prule_find(dev, p->rule.handle);
	if (p->hdr.op == MP_OP_RULE_DEL) {
		if (i != UINT32_MAX && dev->prules[i].owner == id && !dev->prules[i].taken) {
			prule_free(dev, i);
			(*count)--;
		} else if (i != UINT32_MAX && refusal_logged(dev)) {
			SHARE_LOG(WARNING, "%s: pid %d removes rule %u of %s: "
				  "refused (%" PRIu64 " refusals)", dev->devstr, (int)pid,
				  p->rule.handle,
				  owner_name(dev->prules[i].owner), dev->nb_refused);
		}
	} else if (i != UINT32_MAX) {
		if (dev->prules[i].owner == id && !dev->prules[i].taken)
			prule_set_recs(&dev->prules[i], p);	/* freed and made again */
		else if (refusal_logged(dev))
			SHARE_LOG(WARNING, "%s: pid %d claims rule %u of %s: "
				  "refused (%" PRIu64 " refusals)", dev->devstr, (int)pid,
				  p->rule.handle,
				  owner_name(dev->prules[i].owner), dev->nb_refused);
	} else if (*count >= RULES_PER_PEER) {
		if (refusal_logged(dev))
			SHARE_LOG(ERR, "%s: pid %d has %u rules recorded: rule %u "
				  "refused, it is not removed if the process dies", dev->devstr,
				  (int)pid, RULES_PER_PEER, p->rule.handle);
	} else {
		i = prule_new(dev, p->rule.handle, id);
		if (i == UINT32_MAX) {
			SHARE_LOG(ERR, "%s: no room for rule %u of pid %d: it is not removed "
				  "if the process dies", dev->devstr, p->rule.handle, (int)pid);
		} else {
			prule_set_recs(&dev->prules[i], p);
			(*count)++;
		}
	}
	pthread_mutex_unlock(&dev->rules_lock);
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Primary, reader, share_devs_lock held: peer @p id is gone; its rules
 * (in our uverbs file: only we can remove them) are left to
 * prules_reap(), no device call here.
 */
static void
prules_owner_gone(struct mdevx_share_dev *dev, uint64_t id)
{
	uint32_t n = 0;

	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t i = 0; i < dev->prules_cap; i++) {
		if (dev->prules[i].owner == id) {
			dev->prules[i].owner = OWNER_DYING;
			n++;
		}
	}
	__atomic_store_n(&dev->nb_dying, dev->nb_dying + n, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->rules_lock);
	if (n > 0)
		SHARE_LOG(NOTICE, "%s: peer %#" PRIx64 " gone with %u rules: removing them",
			  dev->devstr, id, n);
}

/*
 * Primary, reader: remove up to REMOVE_BATCH rules of peers that are
 * gone, on one device, holding only its reap_lock during the device
 * calls (an attach, a withdrawal, the reader's other work never wait for
 * it). Returns whether any were found (call again).
 */
static bool
prules_reap(void)
{
	uint32_t idx[REMOVE_BATCH], handle[REMOVE_BATCH], n = 0;
	uint64_t owner[REMOVE_BATCH];
	struct mdevx_share_dev *dev;

	pthread_mutex_lock(&share_devs_lock);
	TAILQ_FOREACH(dev, &share_devs, next)
		if (dev->primary && __atomic_load_n(&dev->nb_dying, __ATOMIC_RELAXED) > 0)
			break;
	if (dev == NULL) {
		pthread_mutex_unlock(&share_devs_lock);
		return false;
	}
	/* A close waits for it after taking the device off the list. */
	pthread_mutex_lock(&dev->reap_lock);
	pthread_mutex_unlock(&share_devs_lock);
	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t k = 0; k < dev->prules_cap && n < REMOVE_BATCH; k++) {
		uint32_t pos = (dev->reap_pos + k) % dev->prules_cap;
		struct peer_rule *e = &dev->prules[pos];

		if (e->owner != OWNER_DYING || e->taken)
			continue;
		e->taken = true;
		__atomic_store_n(&dev->nb_dying, dev->nb_dying - 1, __ATOMIC_RELAXED);
		idx[n] = pos;
		handle[n] = e->handle;
		owner[n] = e->owner;
		n++;
		dev->reap_pos = pos;
	}
	pthread_mutex_unlock(&dev->rules_lock);
	prules_destroy(dev, idx, handle, owner, n);
	pthread_mutex_unlock(&dev->reap_lock);
	return true;
}

/* ---------------------------------------------------------------- */
/* Root rules: API                                                   */
/* ---------------------------------------------------------------- */

/*
 * The import an attribute names for destination (0) or counter (1), with
 * the lock held: NULL and *err when it cannot be used.
 */
static struct imp_slot *
rule_slot(struct mdevx_share_dev *dev, mdevx_share_imp_t imp, enum mdevx_obj_kind kind,
	  int *err)
{
	struct imp_slot *s = share_slot_of(dev, imp, NULL);

	if (s == NULL) {
		*err = ENOENT;
	} else if (s->state == IMP_STALE) {
		*err = ESTALE;
	} else if (s->kind != kind) {
		*err = EPROTOTYPE;
	} else {
		*err = mdevx_share_reg_check(dev->reg, s->rec_idx, s->rec_gen);
		if (*err == ENODEV)
			*err = ESTALE;
	}
	return *err == 0 ? s : NULL;
}

mdevx_share_rule_t
mdevx_share_rule_create(struct mdevx_share_dev *dev, struct mdevx_matcher *matcher,
			const struct mdevx_share_rule_attr *attr)
{
	mdevx_share_rule_t h = { .id = 0 };
	struct imp_slot *slot[2] = { NULL, NULL };
	struct mdevx_rule_attr ra;
	struct share_rule *r;
	struct mdevx_rule *rule;
	uint32_t idx;
	int err;

	err = CHECK_DEV(dev);
	if (err != 0) {
		mdevx_set_errno(err);
		return h;
	}
	if (matcher == NULL || attr == NULL ||
	    (attr->dest_imp.id != 0 && attr->dest_obj != NULL) ||
	    (attr->counter_imp.id != 0 && attr->counter_obj != NULL)) {
		SHARE_LOG(ERR, "%s: mdevx_share_rule_create(): %s", dev->devstr,
			  matcher == NULL ? "NULL matcher" : attr == NULL ? "NULL attributes" :
			  attr->dest_obj != NULL && attr->dest_imp.id != 0 ?
			  "both an imported and a local destination" :
			  "both an imported and a local counter");
		mdevx_set_errno(EINVAL);
		return h;
	}
	/* Shared lock: a withdrawal (exclusive) waits for the rule, then removes it. */
	mdevx_share_lock_read(&dev->lock);
	if (dev->orphan)
		err = ESTALE;
	if (err == 0 && attr->dest_imp.id != 0)
		slot[0] = rule_slot(dev, attr->dest_imp, MDEVX_OBJ_TIR, &err);
	if (err == 0 && attr->counter_imp.id != 0)
		slot[1] = rule_slot(dev, attr->counter_imp, MDEVX_OBJ_FLOW_COUNTER, &err);
	if (err != 0) {
		mdevx_share_unlock_read(&dev->lock);
		SHARE_LOG(ERR, "%s: rule create: import: %s", dev->devstr, strerror(err));
		mdevx_set_errno(err);
		return h;
	}
	memset(&ra, 0, sizeof(ra));
	ra.value = attr->value;
	ra.value_len = attr->value_len;
	ra.dest = attr->dest;
	ra.dest_obj = attr->dest_obj;
	ra.dest_ref = slot[0] != NULL ? &slot[0]->ref : NULL;
	ra.counter = attr->counter_obj;
	ra.counter_ref = slot[1] != NULL ? &slot[1]->ref : NULL;
	ra.counter_offset = attr->counter_offset;
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_alloc(dev, &idx);
	if (r == NULL) {
		err = errno;
	} else {
		rule = mdevx_rule_create(matcher, &ra);
		if (rule == NULL) {
			err = errno;
			rule_free(dev, r, idx);
		} else {
			r->rule = rule;
			r->handle = mdevx_rule_handle(rule);
			r->obj[0] = attr->dest_obj;
			r->obj[1] = attr->counter_obj;
			for (int k = 0; k < 2; k++) {
				r->rec[k] = slot[k] != NULL ? slot[k]->rec_idx : UINT32_MAX;
				r->rec_gen[k] = slot[k] != NULL ? slot[k]->rec_gen : 0;
			}
			r->state = RULE_LIVE;
			__atomic_store_n(&dev->nb_rules, dev->nb_rules + 1, __ATOMIC_RELAXED);
			h = rule_id(idx, r);
			/* Under the lock: a removal's message never overtakes this one. */
			rule_msg(dev, MP_OP_RULE_ADD, r, RULE_MSG_TRIES);
			if (dev->primary)
				self_rule_add(dev, r->handle);
		}
	}
	pthread_mutex_unlock(&dev->rules_lock);
	mdevx_share_unlock_read(&dev->lock);
	if (h.id == 0) {
		SHARE_LOG(ERR, "%s: rule create: %s", dev->devstr, strerror(err));
		mdevx_set_errno(err);
	}
	return h;
}

int
mdevx_share_rule_destroy(struct mdevx_share_dev *dev, mdevx_share_rule_t rule)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = CHECK_DEV(dev);

	if (ret != 0)
		return mdevx_ret(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	if (r == NULL) {
		pthread_mutex_unlock(&dev->rules_lock);
		SHARE_LOG(ERR, "%s: mdevx_share_rule_destroy(): %#" PRIx64 " is not a rule of "
			  "this process (destroyed already?)", dev->devstr, rule.id);
		return mdevx_ret(ENOENT);
	}
	if (r->state == RULE_LIVE) {
		ret = mdevx_rule_destroy(r->rule);
		if (ret != 0) {
			pthread_mutex_unlock(&dev->rules_lock);
			SHARE_LOG(ERR, "%s: rule %u: destroy: %s", dev->devstr, r->handle,
				  strerror(-ret));
			return mdevx_ret(-ret);
		}
		rule_msg(dev, MP_OP_RULE_DEL, r, RULE_MSG_TRIES);
		__atomic_store_n(&dev->nb_rules, dev->nb_rules - 1, __ATOMIC_RELAXED);
		if (dev->primary)
			self_rule_del(dev, r->handle);
	}
	rule_free(dev, r, idx);
	pthread_mutex_unlock(&dev->rules_lock);
	return 0;
}

int
mdevx_share_rule_state(struct mdevx_share_dev *dev, mdevx_share_rule_t rule)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = CHECK_DEV(dev);

	if (ret != 0)
		return mdevx_ret(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	pthread_mutex_unlock(&dev->rules_lock);
	/* ESTALE is the answer, not a refusal */
	if (ret == ENOENT)
		SHARE_LOG(ERR, "%s: mdevx_share_rule_state(): %#" PRIx64 " is not a rule of "
			  "this process", dev->devstr, rule.id);
	return ret == 0 ? 0 : mdevx_ret(ret);
}

int
mdevx_share_rule_handle(struct mdevx_share_dev *dev, mdevx_share_rule_t rule, uint32_t *handle)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = CHECK_DEV(dev);

	if (ret != 0)
		return mdevx_ret(ret);
	if (handle == NULL) {
		SHARE_LOG(ERR, "%s: mdevx_share_rule_handle(): NULL handle", dev->devstr);
		return mdevx_ret(EINVAL);
	}
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	if (ret == 0)
		*handle = r->handle;
	pthread_mutex_unlock(&dev->rules_lock);
	if (ret == ENOENT)
		SHARE_LOG(ERR, "%s: mdevx_share_rule_handle(): %#" PRIx64 " is not a rule of "
			  "this process", dev->devstr, rule.id);
	return ret == 0 ? 0 : mdevx_ret(ret);
}

int
mdevx_share_dev_rules(const struct mdevx_share_dev *dev, uint32_t *own, uint32_t *peers)
{
	struct mdevx_share_dev *d = (struct mdevx_share_dev *)(uintptr_t)dev;
	int ret = CHECK_DEV(dev);

	if (ret != 0)
		return mdevx_ret(ret);
	pthread_mutex_lock(&d->rules_lock);
	if (own != NULL)
		*own = d->nb_rules;
	if (peers != NULL)
		*peers = d->nb_prules;
	pthread_mutex_unlock(&d->rules_lock);
	return 0;
}

#ifdef MDEVX_SHARE_TEST_HOOKS
uint32_t
mdevx_share_test_rules_dying(struct mdevx_share_dev *dev)
{
	uint32_t n;

	pthread_mutex_lock(&dev->rules_lock);
	n = __atomic_load_n(&dev->nb_dying, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
}
#endif

/* The messages and events of the transport this file handles, before any can arrive. */
RTE_INIT(mdevx_share_rule_init)
{
	share_mp_on_peer(MP_OP_RULE_ADD, peer_rule_msg);
	share_mp_on_peer(MP_OP_RULE_DEL, peer_rule_msg);
	share_mp_on_peer_gone(prules_owner_gone);
	share_mp_on_idle(prules_reap);
}
