/* SPDX-License-Identifier: BSD-3-Clause */
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

/* Secondary: tell the primary about rule @p r (see conn_send() for @p tries). */
static void
rule_msg(const struct mdevx_share_dev *dev, enum mp_op op, const struct share_rule *r, int tries)
{
	struct mp_param p;

	if (dev->primary || dev->orphan)
		return;
	memset(&p, 0, sizeof(p));
	p.op = op;
	p.cookie = dev->cookie;
	p.handle = r->handle;
	p.rec_idx = r->rec[0];
	p.generation = r->rec_gen[0];
	p.rec_idx2 = r->rec[1];
	p.generation2 = r->rec_gen[1];
	snprintf(p.devstr, sizeof(p.devstr), "%s", dev->devstr);
	conn_send(dev, &p, tries);
}

/*
 * Remove this process's rules that use record @p rec_idx of generation
 * @p gen (every rule when rec_idx is UINT32_MAX) or the local object
 * @p obj (may be NULL). dev->lock held for writing, so that no rule is
 * being made on an import meanwhile. The entries stay (RULE_GONE) until
 * mdevx_share_rule_destroy(). Returns how many were removed.
 */
uint32_t
rules_drop(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen,
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
		r->rule = NULL;
		r->state = RULE_GONE;
		dev->nb_rules--;
		n++;
	}
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
}

/*
 * Primary: remove by handle the secondaries' rules that use record
 * @p rec_idx of generation @p gen (every one when rec_idx is UINT32_MAX),
 * or, with @p owner != 0, those of peer @p owner. rules_lock held.
 */
static uint32_t
prules_remove_locked(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen,
		     uint64_t owner)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < dev->nb_prules;) {
		struct peer_rule *e = &dev->prules[i];
		bool hit;
		int rc;

		if (owner != 0)
			hit = e->owner == owner;
		else
			hit = rec_idx == UINT32_MAX ||
			      (e->rec[0] == rec_idx && e->rec_gen[0] == gen) ||
			      (e->rec[1] == rec_idx && e->rec_gen[1] == gen);
		if (!hit) {
			i++;
			continue;
		}
		rc = mdevx_rule_destroy_handle(dev->ctx, e->handle);
		if (rc != 0 && rc != -ENOENT)
			SHARE_LOG(ERR, "%s: removing rule %u of peer %#" PRIx64 ": %s",
				  dev->devstr, e->handle, e->owner, strerror(-rc));
		else
			SHARE_LOG(DEBUG, "%s: removed rule %u of peer %#" PRIx64, dev->devstr,
				  e->handle, e->owner);
		*e = dev->prules[--dev->nb_prules];
		n++;
	}
	return n;
}

uint32_t
prules_remove(struct mdevx_share_dev *dev, uint32_t rec_idx, uint64_t gen)
{
	uint32_t n;

	pthread_mutex_lock(&dev->rules_lock);
	n = prules_remove_locked(dev, rec_idx, gen, 0);
	pthread_mutex_unlock(&dev->rules_lock);
	return n;
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

/* Primary, rules_lock held: is @p handle one of our own live rules? */
static bool
own_rule_handle(const struct mdevx_share_dev *dev, uint32_t handle)
{
	for (uint32_t i = 0; i < dev->rules_cap; i++)
		if (dev->rules[i].state == RULE_LIVE && dev->rules[i].handle == handle)
			return true;
	return false;
}

/* Primary, rules_lock held: record rule @p p of peer @p owner. 0 or ENOMEM/ENOSPC. */
static int
prule_append(struct mdevx_share_dev *dev, const struct mp_param *p, uint64_t owner)
{
	struct peer_rule *e;

	if (dev->nb_prules == dev->prules_cap) {
		uint32_t cap = dev->prules_cap == 0 ? 64 : dev->prules_cap * 2;

		if (dev->prules_cap >= PEER_RULES_MAX)
			return ENOSPC;
		e = realloc(dev->prules, (size_t)cap * sizeof(*e));
		if (e == NULL)
			return ENOMEM;
		dev->prules = e;
		dev->prules_cap = cap;
	}
	e = &dev->prules[dev->nb_prules++];
	e->owner = owner;
	e->handle = p->handle;
	e->rec[0] = p->rec_idx;
	e->rec_gen[0] = p->generation;
	e->rec[1] = p->rec_idx2;
	e->rec_gen[1] = p->generation2;
	return 0;
}

/*
 * Primary, reader: peer @p id made or removed a rule. Only a peer of the
 * device's instance counts; the entry is only ever used to remove that
 * handle when the peer is gone or a withdrawal finds it, and a handle
 * already known for the same peer is replaced (it was freed and made
 * again).
 */
void
peer_rule_msg(const struct mp_param *p, uint64_t id)
{
	struct mdevx_share_dev *dev;
	pid_t pid = 0;

	pthread_mutex_lock(&share_devs_lock);
	dev = peer_dev_locked(id, &pid);
	if (dev == NULL || !dev->primary || dev->cookie != p->cookie ||
	    strcmp(dev->devstr, p->devstr) != 0) {
		pthread_mutex_unlock(&share_devs_lock);
		SHARE_LOG(DEBUG, "rule message %u of peer %#" PRIx64 ": not for its device: "
			  "ignored", p->op, id);
		return;
	}
	pthread_mutex_lock(&dev->rules_lock);
	for (uint32_t i = 0; i < dev->nb_prules; i++) {
		if (dev->prules[i].handle != p->handle)
			continue;
		if (dev->prules[i].owner != id)
			break;		/* not theirs to forget */
		dev->prules[i] = dev->prules[--dev->nb_prules];
		break;
	}
	if (p->op == MP_OP_RULE_ADD) {
		if (own_rule_handle(dev, p->handle))
			SHARE_LOG(WARNING, "%s: pid %d announced rule %u, one of ours: ignored",
				  dev->devstr, (int)pid, p->handle);
		else if (prule_append(dev, p, id) != 0)
			SHARE_LOG(ERR, "%s: no room for rule %u of pid %d: it is not removed "
				  "if the process dies", dev->devstr, p->handle, (int)pid);
	}
	pthread_mutex_unlock(&dev->rules_lock);
	pthread_mutex_unlock(&share_devs_lock);
}

/*
 * Primary, reader, share_devs_lock held: peer @p id is gone; remove its
 * rules (they are in our uverbs file: only we can).
 */
void
prules_owner_gone(struct mdevx_share_dev *dev, uint64_t id)
{
	uint32_t n;

	pthread_mutex_lock(&dev->rules_lock);
	n = prules_remove_locked(dev, 0, 0, id);
	pthread_mutex_unlock(&dev->rules_lock);
	if (n > 0)
		SHARE_LOG(NOTICE, "%s: peer %#" PRIx64 " gone with %u rules: removed",
			  dev->devstr, id, n);
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
	struct imp_slot *s = slot_of(dev, imp, NULL);

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

	err = check_dev(dev);
	if (err == 0 && (matcher == NULL || attr == NULL ||
			 (attr->dest_imp.id != 0 && attr->dest_obj != NULL) ||
			 (attr->counter_imp.id != 0 && attr->counter_obj != NULL)))
		err = EINVAL;
	if (err != 0) {
		SHARE_LOG(ERR, "rule create: %s", strerror(err));
		set_errno(err);
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
		set_errno(err);
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
		}
	}
	pthread_mutex_unlock(&dev->rules_lock);
	mdevx_share_unlock_read(&dev->lock);
	if (h.id == 0) {
		SHARE_LOG(ERR, "%s: rule create: %s", dev->devstr, strerror(err));
		set_errno(err);
	}
	return h;
}

int
mdevx_share_rule_destroy(struct mdevx_share_dev *dev, mdevx_share_rule_t rule)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	if (r == NULL) {
		pthread_mutex_unlock(&dev->rules_lock);
		return fail(ENOENT);
	}
	if (r->state == RULE_LIVE) {
		ret = mdevx_rule_destroy(r->rule);
		if (ret != 0) {
			pthread_mutex_unlock(&dev->rules_lock);
			SHARE_LOG(ERR, "%s: rule %u: destroy: %s", dev->devstr, r->handle,
				  strerror(-ret));
			return fail(-ret);
		}
		rule_msg(dev, MP_OP_RULE_DEL, r, RULE_MSG_TRIES);
		__atomic_store_n(&dev->nb_rules, dev->nb_rules - 1, __ATOMIC_RELAXED);
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
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	pthread_mutex_unlock(&dev->rules_lock);
	return ret == 0 ? 0 : fail(ret);
}

int
mdevx_share_rule_handle(struct mdevx_share_dev *dev, mdevx_share_rule_t rule, uint32_t *handle)
{
	struct share_rule *r;
	uint32_t idx;
	int ret = check_dev(dev);

	if (ret == 0 && handle == NULL)
		ret = EINVAL;
	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&dev->rules_lock);
	r = rule_of(dev, rule, &idx);
	ret = r == NULL ? ENOENT : r->state == RULE_LIVE ? 0 : ESTALE;
	if (ret == 0)
		*handle = r->handle;
	pthread_mutex_unlock(&dev->rules_lock);
	return ret == 0 ? 0 : fail(ret);
}

int
mdevx_share_dev_rules(const struct mdevx_share_dev *dev, uint32_t *own, uint32_t *peers)
{
	struct mdevx_share_dev *d = (struct mdevx_share_dev *)(uintptr_t)dev;
	int ret = check_dev(dev);

	if (ret != 0)
		return fail(ret);
	pthread_mutex_lock(&d->rules_lock);
	if (own != NULL)
		*own = d->nb_rules;
	if (peers != NULL)
		*peers = d->nb_prules;
	pthread_mutex_unlock(&d->rules_lock);
	return 0;
}
