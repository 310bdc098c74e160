/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device engine: root steering rules and classification.
 *
 * What mlx5dv_create_flow_matcher() / mlx5dv_create_flow() do through the
 * kernel (drivers/infiniband/hw/mlx5/fs.c): a matcher is a priority and an
 * outer_headers mask on the NIC receive root, owned by a uverbs file; a
 * rule is a value on a matcher with its actions (a DEVX TIR or flow table
 * of the same file, drop, or count only), the objects given by handles of
 * the caller's file. Matchers belong to files but are evaluated device
 * wide, by priority (lower first, then creation order): the device keeps
 * them in one list sorted on insert, so classification never sorts. Each
 * matcher keeps its rules in a hash by masked value: one lookup per
 * matcher whatever the number of rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_engine_priv.h"

#define MATCH_PARAM_LEN MDEVX_ST_SZ_BYTES(fte_match_param)

static void
log_steer(struct swdev_file *f, const char *what, int err, const char *why)
{
	swdev_engine_logf(f->dev->eng, "%s file %u uid %u %s: errno %d (%s)", f->dev->name,
			  f->id, f->uid, what, err, why);
}

static struct swdev_steer *
steer_get(struct swdev_dev *dev)
{
	if (dev->steer == NULL)
		dev->steer = calloc(1, sizeof(*dev->steer));
	return dev->steer;
}

void
swdev_steer_fini(struct swdev_dev *dev)
{
	/* every file is closed: the matcher list is empty */
	free(dev->steer);
	dev->steer = NULL;
}

/* Link @p m after every matcher of a lower or equal priority. */
static void
matcher_link(struct swdev_steer *s, struct swdev_obj *m)
{
	struct swdev_obj *at;

	if (s->last == NULL || s->last->u.mt.priority <= m->u.mt.priority) {
		at = NULL;	/* the common case: append */
	} else {
		for (at = s->matchers; at != NULL; at = at->u.mt.next)
			if (at->u.mt.priority > m->u.mt.priority)
				break;
	}
	m->u.mt.next = at;
	m->u.mt.prev = at != NULL ? at->u.mt.prev : s->last;
	if (m->u.mt.prev != NULL)
		m->u.mt.prev->u.mt.next = m;
	else
		s->matchers = m;
	if (at != NULL)
		at->u.mt.prev = m;
	else
		s->last = m;
	s->nmatchers++;
}

static void
matcher_unlink(struct swdev_steer *s, struct swdev_obj *m)
{
	if (m->u.mt.prev != NULL)
		m->u.mt.prev->u.mt.next = m->u.mt.next;
	else
		s->matchers = m->u.mt.next;
	if (m->u.mt.next != NULL)
		m->u.mt.next->u.mt.prev = m->u.mt.prev;
	else
		s->last = m->u.mt.prev;
	m->u.mt.next = m->u.mt.prev = NULL;
	s->nmatchers--;
}

/* A new uverbs (non-DEVX) object of the file; the handle must be reserved. */
static struct swdev_obj *
steer_obj_new(struct swdev_file *f, enum swdev_kind kind)
{
	struct swdev_obj *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	o->kind = kind;
	o->devx = false;
	o->uid = f->uid;
	o->file = f;
	return o;
}

int
swdev_file_matcher_create(struct swdev_file *f, uint16_t priority,
			  uint8_t match_criteria_enable, const void *mask, size_t mask_len,
			  uint32_t *handle)
{
	uint8_t outer[SWDEV_MATCH_SET_LEN] = {0};
	const uint8_t *p = mask;
	struct swdev_steer *s;
	struct swdev_obj *m;
	size_t i;

	if (f == NULL || handle == NULL)
		return EINVAL;
	if (mask_len % 4 != 0 || mask_len > MATCH_PARAM_LEN || (mask == NULL && mask_len != 0)) {
		log_steer(f, "matcher_create", EINVAL, "mask length");
		return EINVAL;
	}
	if (match_criteria_enable & ~MDEVX_MATCH_CRITERIA_OUTER) {
		log_steer(f, "matcher_create", EINVAL, "criteria other than outer");
		return EINVAL;
	}
	if (mask_len != 0)
		memcpy(outer, p, mask_len < sizeof(outer) ? mask_len : sizeof(outer));
	for (i = sizeof(outer); i < mask_len; i++) {
		if (p[i] != 0) {
			log_steer(f, "matcher_create", EINVAL, "mask outside the outer headers");
			return EINVAL;
		}
	}
	if (!(match_criteria_enable & MDEVX_MATCH_CRITERIA_OUTER)) {
		for (i = 0; i < sizeof(outer); i++) {
			if (outer[i] != 0) {
				log_steer(f, "matcher_create", EINVAL, "outer mask not enabled");
				return EINVAL;
			}
		}
	}
	if (!swdev_match_mask_supported(outer)) {
		log_steer(f, "matcher_create", EOPNOTSUPP, "mask on a field not parsed");
		return EOPNOTSUPP;
	}
	if (swdev_idmap_reserve(&f->handles) != 0) {
		log_steer(f, "matcher_create", ENOMEM, "no free handle");
		return ENOMEM;
	}
	s = steer_get(f->dev);
	m = steer_obj_new(f, SWDEV_KIND_MATCHER);
	if (s == NULL || m == NULL || swdev_htab_init(&m->u.mt.vals) != 0) {
		free(m);
		return ENOMEM;
	}
	m->u.mt.priority = priority;
	m->u.mt.criteria = match_criteria_enable;
	m->u.mt.mask_len = (uint16_t)mask_len;
	m->u.mt.seq = s->next_seq++;
	memcpy(m->u.mt.mask, outer, sizeof(outer));
	matcher_link(s, m);
	swdev_file_attach(f, m);
	*handle = m->handle;
	return 0;
}

static struct swdev_obj *
matcher_rule(const struct swdev_obj *m, const uint8_t *key, uint64_t h)
{
	const struct swdev_hnode *n;

	for (n = swdev_htab_chain(&m->u.mt.vals, h); n != NULL; n = n->next)
		if (n->hash == h && memcmp(n->obj->u.fl.value, key, SWDEV_MATCH_SET_LEN) == 0)
			return n->obj;
	return NULL;
}

/* Resolve @p handle of @p f to a DEVX object: 0, ENOENT, EINVAL (not DEVX). */
static int
devx_handle(struct swdev_file *f, uint32_t handle, struct swdev_obj **o)
{
	*o = swdev_idmap_get(&f->handles, handle);
	if (*o == NULL)
		return ENOENT;
	return (*o)->devx ? 0 : EINVAL;
}

/* The actions of @p attr: 0 or an errno; the objects in @p dest / @p bulk. */
static int
check_actions(struct swdev_file *f, const struct swdev_flow_attr *attr,
	      struct swdev_obj **dest, struct swdev_obj **bulk)
{
	int rc;

	*dest = NULL;
	*bulk = NULL;
	if (attr->reserved[0] != 0 || attr->reserved[1] != 0 || attr->has_counter > 1)
		return EINVAL;
	switch (attr->dest) {
	case SWDEV_FLOW_DEST_NONE:
		if (!attr->has_counter)
			return EINVAL;	/* a rule that does nothing */
		break;
	case SWDEV_FLOW_DEST_DROP:
		break;
	case SWDEV_FLOW_DEST_DEVX:
		rc = devx_handle(f, attr->dest_handle, dest);
		if (rc != 0)
			return rc;
		if ((*dest)->kind != SWDEV_KIND_TIR && (*dest)->kind != SWDEV_KIND_FLOW_TABLE)
			return EINVAL;
		break;
	default:
		return EINVAL;
	}
	if (attr->has_counter) {
		rc = devx_handle(f, attr->counter_handle, bulk);
		if (rc != 0)
			return rc;
		if ((*bulk)->kind != SWDEV_KIND_FLOW_COUNTER ||
		    attr->counter_offset >= (*bulk)->u.cnt.num)
			return EINVAL;
	}
	return 0;
}

int
swdev_file_flow_create(struct swdev_file *f, uint32_t matcher_handle, const void *value,
		       size_t value_len, const struct swdev_flow_attr *attr, uint32_t *handle)
{
	uint8_t key[SWDEV_MATCH_SET_LEN] = {0};
	struct swdev_obj *m, *fl, *dest, *bulk;
	uint64_t h;
	int rc;

	if (f == NULL || attr == NULL || handle == NULL)
		return EINVAL;
	m = swdev_idmap_get(&f->handles, matcher_handle);
	if (m == NULL) {
		log_steer(f, "flow_create", ENOENT, "no such matcher handle");
		return ENOENT;
	}
	if (m->kind != SWDEV_KIND_MATCHER) {
		log_steer(f, "flow_create", EINVAL, "handle is not a matcher");
		return EINVAL;
	}
	if (value_len != m->u.mt.mask_len || (value == NULL && value_len != 0)) {
		log_steer(f, "flow_create", EINVAL, "value length");
		return EINVAL;
	}
	rc = check_actions(f, attr, &dest, &bulk);
	if (rc != 0) {
		log_steer(f, "flow_create", rc, "actions");
		return rc;
	}
	if (value_len != 0)
		memcpy(key, value, value_len < sizeof(key) ? value_len : sizeof(key));
	swdev_set_and(key, key, m->u.mt.mask);
	h = swdev_hash_set(key);
	if (matcher_rule(m, key, h) != NULL) {
		log_steer(f, "flow_create", EEXIST, "same value on the matcher");
		return EEXIST;
	}
	if (swdev_idmap_reserve(&f->handles) != 0) {
		log_steer(f, "flow_create", ENOMEM, "no free handle");
		return ENOMEM;
	}
	fl = steer_obj_new(f, SWDEV_KIND_FLOW);
	if (fl == NULL)
		return ENOMEM;
	fl->u.fl.matcher = m;
	memcpy(fl->u.fl.value, key, sizeof(key));
	fl->u.fl.dest = attr->dest;
	fl->u.fl.dest_obj = dest;
	fl->u.fl.bulk = bulk;
	fl->u.fl.counter_id = bulk != NULL ? bulk->id + attr->counter_offset : 0;
	fl->u.fl.node.hash = h;
	fl->u.fl.node.obj = fl;
	swdev_htab_insert(&m->u.mt.vals, &fl->u.fl.node);
	swdev_obj_get(m);
	swdev_obj_get(dest);
	swdev_obj_get(bulk);
	swdev_file_attach(f, fl);
	*handle = fl->handle;
	return 0;
}

int
swdev_file_steer_destroy(struct swdev_file *f, uint32_t handle, enum swdev_kind kind)
{
	struct swdev_obj *o;

	if (f == NULL || (kind != SWDEV_KIND_MATCHER && kind != SWDEV_KIND_FLOW))
		return EINVAL;
	o = swdev_idmap_get(&f->handles, handle);
	if (o == NULL)
		return ENOENT;
	if (o->kind != kind)
		return EINVAL;
	if (o->refcnt != 0) {
		log_steer(f, "matcher_destroy", EBUSY, "matcher still has rules");
		return EBUSY;
	}
	swdev_obj_force_destroy(f->dev, o);
	return 0;
}

void
swdev_steer_obj_teardown(struct swdev_dev *dev, struct swdev_obj *obj)
{
	switch (obj->kind) {
	case SWDEV_KIND_FLOW:
		swdev_htab_remove(&obj->u.fl.matcher->u.mt.vals, &obj->u.fl.node);
		swdev_obj_put(obj->u.fl.matcher);
		swdev_obj_put(obj->u.fl.dest_obj);
		swdev_obj_put(obj->u.fl.bulk);
		break;
	case SWDEV_KIND_MATCHER:
		matcher_unlink(dev->steer, obj);
		swdev_htab_fini(&obj->u.mt.vals);
		break;
	default:
		break;
	}
}

/* ---- classification ---- */

static void
count(struct swdev_dev *dev, uint32_t id, const struct swdev_pkt *pkt)
{
	swdev_counter_add(&dev->cnt, id, 1, pkt->len);
}

/*
 * Evaluate flow table @p t and the tables it leads to. Every step goes to
 * a table of a strictly higher level (entry destinations and miss tables
 * are checked so), hence at most max_ft_level steps.
 */
static void
table_walk(struct swdev_dev *dev, const struct swdev_obj *t, const struct swdev_pkt *pkt,
	   struct swdev_steer_verdict *v)
{
	const struct swdev_obj *fte;
	uint32_t i;

	while (t != NULL) {
		fte = swdev_flow_table_match(t, pkt->outer);
		if (fte == NULL) {
			if (t->u.ft.miss_action != MDEVX_FLOW_TABLE_MISS_FWD)
				break;
			t = t->u.ft.miss;
			continue;
		}
		if (fte->u.fte.action & MDEVX_FLOW_CONTEXT_ACTION_COUNT)
			for (i = 0; i < fte->u.fte.ncnt; i++)
				count(dev, fte->u.fte.cnts[i].id, pkt);
		if (fte->u.fte.action & MDEVX_FLOW_CONTEXT_ACTION_DROP) {
			v->verdict = SWDEV_RX_DROP;
			return;
		}
		/* FWD_DEST with one destination (replication is not emulated) */
		if (fte->u.fte.dests[0].type == MDEVX_FLOW_DEST_TYPE_TIR) {
			v->verdict = SWDEV_RX_DELIVERED;
			v->tir = fte->u.fte.dests[0].obj;
			return;
		}
		t = fte->u.fte.dests[0].obj;
	}
	v->verdict = SWDEV_RX_MISS;
}

void
swdev_steer_classify(struct swdev_dev *dev, const struct swdev_pkt *pkt,
		     struct swdev_steer_verdict *v)
{
	uint8_t key[SWDEV_MATCH_SET_LEN];
	const struct swdev_obj *m, *fl;

	v->verdict = SWDEV_RX_MISS;
	v->tir = NULL;
	if (dev->steer == NULL)
		return;
	for (m = dev->steer->matchers; m != NULL; m = m->u.mt.next) {
		if (m->u.mt.vals.n == 0)
			continue;
		swdev_set_and(key, pkt->outer, m->u.mt.mask);
		fl = matcher_rule(m, key, swdev_hash_set(key));
		if (fl == NULL)
			continue;
		if (fl->u.fl.bulk != NULL)
			count(dev, fl->u.fl.counter_id, pkt);
		switch (fl->u.fl.dest) {
		case SWDEV_FLOW_DEST_DROP:
			v->verdict = SWDEV_RX_DROP;
			return;
		case SWDEV_FLOW_DEST_DEVX:
			if (fl->u.fl.dest_obj->kind == SWDEV_KIND_TIR) {
				v->verdict = SWDEV_RX_DELIVERED;
				v->tir = fl->u.fl.dest_obj;
			} else {
				table_walk(dev, fl->u.fl.dest_obj, pkt, v);
			}
			return;
		default:
			break;	/* count only: on to the next matcher */
		}
	}
}
