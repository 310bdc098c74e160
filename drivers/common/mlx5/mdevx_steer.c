/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Flow steering: root matchers and rules (backend ops, mlx5dv_create_flow()
 * on rdma-core) and DEVX flow tables, groups and entries (PRM mailboxes
 * through the backend's DEVX object create).
 *
 * Matchers and rules are registered like wrapper objects (ENOENT for a
 * pointer not live, counted on their context: mdevx_close() is EBUSY while
 * any is alive). A rule keeps a reference on its matcher and on the local
 * objects it uses (destination, counter bulk), so that their destroy is
 * EBUSY while it lives. An import it uses is held like a query holds it
 * (users, mdevx_obj_get()) for the time of the device call only: a
 * revocation waits for the call, and a rule creation that comes after it
 * gets ESTALE. No library lock is held across a device call.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

/*
 * Match buffers, criteria, entry actions and destination types of the
 * public attributes go into the PRM mailboxes (fte_match_param,
 * match_criteria_enable, flow_context.action, dest_format) as they are:
 * the public constants of mdevx.h must be the PRM ones.
 */
static_assert(MDEVX_MATCH_PARAM_LEN == MDEVX_ST_SZ_BYTES(fte_match_param),
	      "fte_match_param size");
static_assert(MDEVX_MATCH_OUTER == MDEVX_MATCH_CRITERIA_OUTER,
	      "match_criteria_enable outer headers");
static_assert(MDEVX_FTE_ACTION_DROP == MDEVX_FLOW_CONTEXT_ACTION_DROP, "action drop");
static_assert(MDEVX_FTE_ACTION_FWD_DEST == MDEVX_FLOW_CONTEXT_ACTION_FWD_DEST,
	      "action fwd_dest");
static_assert(MDEVX_FTE_ACTION_COUNT == MDEVX_FLOW_CONTEXT_ACTION_COUNT, "action count");
static_assert(MDEVX_FTE_DEST_FLOW_TABLE == MDEVX_FLOW_DEST_TYPE_FLOW_TABLE,
	      "destination_type flow table");
static_assert(MDEVX_FTE_DEST_TIR == MDEVX_FLOW_DEST_TYPE_TIR, "destination_type TIR");

/* Bytes of fte_match_param this library matches on: the outer headers. */
#define OUTER_LEN MDEVX_ST_SZ_BYTES(fte_match_set_lyr_2_4)
/* Largest table this library creates (PRM log_max_ft_size is 6 bits). */
#define FT_LOG_SIZE_MAX 24
#define KIND_BIT(k) (1u << (k))

struct mdevx_matcher {
	struct mdevx_ctx *ctx;
	void *bmatcher;
	size_t mask_len;
	uint32_t nrules;		/* registry lock */
	uint16_t priority;
};

struct mdevx_rule {
	struct mdevx_matcher *matcher;
	void *bflow;
	uint32_t handle;
	/* Local objects the rule holds a reference on (NULL: none or an import). */
	struct mdevx_obj *dest;
	struct mdevx_obj *counter;
	/* Removed from the device by mdevx_rule_destroy_handle() (registry lock). */
	bool gone;
	struct mdevx_rule *prev, *next;	/* live rules of the process (registry lock) */
};

static struct mdevx_rule *rules_head;

static int
fail(const char *fn, int err, const char *what)
{
	MDEVX_LOG_FN(ERR, fn, "%s: errno=%d (%s)", what, err, strerror(err));
	return err;
}

static struct mdevx_obj *
fail_null(const char *fn, int err, const char *what)
{
	mdevx_set_errno(fail(fn, err, what));
	return NULL;
}

/*
 * A match mask or value of @p len bytes: outer headers only (the rest of
 * fte_match_param zero), and no bit at all when @p criteria is 0.
 */
static bool
match_bytes_ok(const void *buf, size_t len, uint8_t criteria)
{
	const uint8_t *p = buf;
	size_t i, from = criteria & MDEVX_MATCH_OUTER ? OUTER_LEN : 0;

	for (i = from; i < len; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Root matchers and rules                                            */
/* ------------------------------------------------------------------ */

static int
matcher_attr_check(const struct mdevx_matcher_attr *a)
{
	if (a->match_criteria_enable & ~MDEVX_MATCH_OUTER)
		return EINVAL;
	if (a->mask == NULL || a->mask_len == 0 || a->mask_len % 4 != 0 ||
	    a->mask_len > MDEVX_MATCH_PARAM_LEN)
		return EINVAL;
	if (!match_bytes_ok(a->mask, a->mask_len, a->match_criteria_enable))
		return EINVAL;
	return 0;
}

MDEVX_API struct mdevx_matcher *
mdevx_matcher_create(struct mdevx_ctx *ctx, const struct mdevx_matcher_attr *attr)
{
	struct mdevx_matcher *m;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (attr == NULL || matcher_attr_check(attr) != 0) {
		fail(__func__, EINVAL, "invalid matcher attributes (criteria: outer only; mask: "
		     "4..512 bytes, a multiple of 4, outer headers only)");
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	m->ctx = ctx;
	m->mask_len = attr->mask_len;
	m->priority = attr->priority;
	rc = ctx->ops->matcher_create(ctx->bctx, attr, &m->bmatcher);
	if (rc != 0) {
		fail(__func__, rc, "creating the matcher");
		free(m);
		mdevx_set_errno(rc);
		return NULL;
	}
	mdevx_reg_lock();
	rc = mdevx_reg_add_locked(m, MDEVX_REG_MATCHER);
	if (rc == 0)
		ctx->nobjs++;
	mdevx_reg_unlock();
	if (rc != 0) {
		ctx->ops->matcher_destroy(m->bmatcher);
		free(m);
		mdevx_set_errno(rc);
		return NULL;
	}
	return m;
}

MDEVX_API int
mdevx_matcher_destroy(struct mdevx_matcher *matcher)
{
	uint32_t nrules = 0;
	int rc = 0;

	if (matcher == NULL)
		return mdevx_ret(EINVAL);
	mdevx_reg_lock();
	if (mdevx_reg_find_locked(matcher) != MDEVX_REG_MATCHER)
		rc = ENOENT;
	else if (matcher->nrules != 0)
		rc = EBUSY;
	else
		mdevx_reg_del_locked(matcher);	/* no rule can start on it now */
	nrules = rc == EBUSY ? matcher->nrules : 0;
	mdevx_reg_unlock();
	if (rc == EBUSY)
		MDEVX_LOG(ERR, "matcher of priority %u: errno=%d (%s): %u rules left",
			  matcher->priority, rc, strerror(rc), nrules);
	if (rc != 0)
		return mdevx_ret(rc);
	rc = matcher->ctx->ops->matcher_destroy(matcher->bmatcher);
	/* A lost device: released locally, libmlx5's struct left to the context. */
	if (rc != 0 && mdevx_ctx_lost(matcher->ctx, rc)) {
		matcher->ctx->ops->matcher_forget(matcher->bmatcher);
		rc = 0;
	}
	mdevx_reg_lock();
	if (rc != 0)
		mdevx_reg_add_locked(matcher, MDEVX_REG_MATCHER);	/* still alive */
	else
		matcher->ctx->nobjs--;
	mdevx_reg_unlock();
	if (rc != 0) {
		mdevx_cmd_fail(0, "destroying a matcher", rc);
		return mdevx_ret(rc);
	}
	free(matcher);
	return 0;
}

/* Take the matcher for a rule being created: 0, ENOENT. */
static int
matcher_take(struct mdevx_matcher *m)
{
	int rc = 0;

	mdevx_reg_lock();
	if (mdevx_reg_find_locked(m) != MDEVX_REG_MATCHER)
		rc = ENOENT;
	else
		m->nrules++;
	mdevx_reg_unlock();
	return rc;
}

static void
matcher_drop(struct mdevx_matcher *m)
{
	mdevx_reg_lock();
	m->nrules--;
	mdevx_reg_unlock();
}

/* What a rule uses: a wrapper object or a compact reference, resolved. */
struct rule_use {
	struct mdevx_obj *obj;		/* taken with mdevx_obj_ref_take() */
	void *bobj;
	uint32_t bulk_size;		/* counters */
};

/*
 * Resolve the destination or counter of a rule: @p obj (kinds @p kinds)
 * or @p ref (kind @p ref_kind); at most one of them. @p u->bobj NULL when
 * neither is given.
 */
static int
use_take(struct mdevx_ctx *ctx, struct mdevx_obj *obj, const struct mdevx_obj_ref *ref,
	 uint32_t kinds, enum mdevx_obj_kind ref_kind, struct rule_use *u)
{
	int rc;

	memset(u, 0, sizeof(*u));
	if (obj != NULL && ref != NULL)
		return EINVAL;
	if (obj != NULL) {
		rc = mdevx_obj_ref_take(obj, kinds, ctx);
		if (rc != 0)
			return rc;
		u->obj = obj;
		u->bobj = obj->bobj;
		u->bulk_size = obj->bulk_size;
	} else if (ref != NULL) {
		if (ref->bobj == NULL)
			return EINVAL;		/* released */
		if (ref->kind != (uint8_t)ref_kind)
			return EPROTOTYPE;
		u->bobj = ref->bobj;
		u->bulk_size = ref->size_or_tirn;
	}
	return 0;
}

static void
use_drop(struct rule_use *u)
{
	if (u->obj != NULL)
		mdevx_obj_ref_drop(u->obj);
	u->obj = NULL;
}

/* What mdevx_rule_create() checks before it takes anything. */
static int
rule_attr_check(const struct mdevx_matcher *m, const struct mdevx_rule_attr *a,
		const char **why)
{
	bool has_dest = a->dest_obj != NULL || a->dest_ref != NULL;
	bool has_cnt = a->counter != NULL || a->counter_ref != NULL;

	*why = "invalid rule attributes";
	if (a->value == NULL || a->value_len != m->mask_len) {
		*why = "the match value must have the matcher's mask length";
		return EINVAL;
	}
	switch (a->dest) {
	case MDEVX_RULE_DEST_OBJ:
		if (!has_dest || (a->dest_obj != NULL && a->dest_ref != NULL)) {
			*why = "DEST_OBJ takes exactly one of dest_obj and dest_ref";
			return EINVAL;
		}
		break;
	case MDEVX_RULE_DEST_NONE:
		if (!has_cnt) {
			*why = "a rule with no destination must count";
			return EINVAL;
		}
		/* fall through */
	case MDEVX_RULE_DEST_DROP:
		if (has_dest) {
			*why = "a destination object without DEST_OBJ";
			return EINVAL;
		}
		break;
	default:
		*why = "unknown destination kind";
		return EINVAL;
	}
	if (a->counter != NULL && a->counter_ref != NULL) {
		*why = "both counter and counter_ref";
		return EINVAL;
	}
	if (!has_cnt && a->counter_offset != 0) {
		*why = "a counter offset without a counter";
		return EINVAL;
	}
	return 0;
}

MDEVX_API struct mdevx_rule *
mdevx_rule_create(struct mdevx_matcher *matcher, const struct mdevx_rule_attr *attr)
{
	struct rule_use dest, cnt;
	struct mdevx_rule *r;
	struct mdevx_ctx *ctx;
	const char *why;
	int rc;

	if (matcher == NULL || attr == NULL) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	rc = matcher_take(matcher);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	/* The matcher cannot go now (nrules): its fields are stable. */
	ctx = matcher->ctx;
	rc = rule_attr_check(matcher, attr, &why);
	if (rc != 0) {
		fail(__func__, rc, why);
		matcher_drop(matcher);
		mdevx_set_errno(rc);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		matcher_drop(matcher);
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	rc = use_take(ctx, attr->dest_obj, attr->dest_ref,
		      KIND_BIT(MDEVX_OBJ_TIR) | KIND_BIT(MDEVX_OBJ_FLOW_TABLE), MDEVX_OBJ_TIR,
		      &dest);
	if (rc != 0) {
		why = rc == EINVAL ? "destination of another context, or a released reference" :
		      "destination (a TIR or a flow table)";
		goto err;
	}
	rc = use_take(ctx, attr->counter, attr->counter_ref, KIND_BIT(MDEVX_OBJ_FLOW_COUNTER),
		      MDEVX_OBJ_FLOW_COUNTER, &cnt);
	if (rc != 0) {
		why = rc == EINVAL ? "counter of another context, or a released reference" :
		      "counter bulk";
		use_drop(&dest);
		goto err;
	}
	if (cnt.bobj != NULL && attr->counter_offset >= cnt.bulk_size) {
		rc = EINVAL;
		why = "counter offset past the bulk";
	} else {
		rc = ctx->ops->flow_create(matcher->bmatcher, attr->value, attr->value_len,
					   attr->dest, dest.bobj, cnt.bobj, attr->counter_offset,
					   &r->bflow);
		why = "creating the rule";
	}
	/* An import is used for the call only; a local object stays referenced. */
	if (rc != 0 || (dest.obj != NULL && dest.obj->imported))
		use_drop(&dest);
	if (rc != 0 || (cnt.obj != NULL && cnt.obj->imported))
		use_drop(&cnt);
	if (rc != 0)
		goto err;
	r->matcher = matcher;
	r->dest = dest.obj;
	r->counter = cnt.obj;
	r->handle = ctx->ops->flow_handle(r->bflow);
	mdevx_reg_lock();
	rc = mdevx_reg_add_locked(r, MDEVX_REG_RULE);
	if (rc == 0) {
		ctx->nobjs++;
		r->next = rules_head;
		if (rules_head != NULL)
			rules_head->prev = r;
		rules_head = r;
	}
	mdevx_reg_unlock();
	if (rc == 0)
		return r;
	ctx->ops->flow_destroy(r->bflow);
	use_drop(&dest);
	use_drop(&cnt);
	why = "registering the rule";
err:
	fail(__func__, rc, why);
	matcher_drop(matcher);
	free(r);
	mdevx_set_errno(rc);
	return NULL;
}

/* Unlink a rule (lock held) once its device object is gone. */
static void
rule_unlink_locked(struct mdevx_rule *r)
{
	mdevx_reg_del_locked(r);
	r->matcher->ctx->nobjs--;
	r->matcher->nrules--;
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		rules_head = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	if (r->dest != NULL)
		r->dest->refs--;
	if (r->counter != NULL)
		r->counter->refs--;
}

MDEVX_API int
mdevx_rule_destroy(struct mdevx_rule *rule)
{
	const struct mdevx_backend_ops *ops;
	bool gone;
	int rc = 0;

	if (rule == NULL)
		return mdevx_ret(EINVAL);
	mdevx_reg_lock();
	if (mdevx_reg_find_locked(rule) != MDEVX_REG_RULE)
		rc = ENOENT;
	gone = rc == 0 && rule->gone;
	mdevx_reg_unlock();
	if (rc != 0)
		return mdevx_ret(rc);
	ops = rule->matcher->ctx->ops;
	if (!gone) {
		rc = ops->flow_destroy(rule->bflow);
		if (rc == ENOENT) {
			/* Removed by handle from another process sharing the file. */
			MDEVX_LOG(WARNING, "rule %u is no longer in the uverbs file: released",
				  rule->handle);
			gone = true;
		} else if (rc != 0 && mdevx_ctx_lost(rule->matcher->ctx, rc)) {
			gone = true;	/* the device's rules went with it */
		} else if (rc != 0) {
			mdevx_cmd_fail(0, "destroying a rule", rc);
			return mdevx_ret(rc);
		}
	}
	if (gone)
		ops->flow_forget(rule->bflow);
	mdevx_reg_lock();
	rule_unlink_locked(rule);
	mdevx_reg_unlock();
	free(rule);
	return 0;
}

MDEVX_API uint32_t
mdevx_rule_handle(const struct mdevx_rule *rule)
{
	uint32_t h = UINT32_MAX;
	int rc = 0;

	if (rule == NULL) {
		mdevx_set_errno(EINVAL);
		return UINT32_MAX;
	}
	mdevx_reg_lock();
	if (mdevx_reg_find_locked(rule) != MDEVX_REG_RULE)
		rc = ENOENT;
	else
		h = rule->handle;
	mdevx_reg_unlock();
	if (rc != 0)
		mdevx_set_errno(rc);
	return h;
}

/*
 * Is @p r a rule of the uverbs file of @p ctx? Its context, or one of the
 * same backend whose command fd refers to the same open file (kcmp()).
 * When that cannot be told, yes: a rule of another file wrongly marked is
 * only left on the device until its file closes, whereas a rule of this
 * file left unmarked would have its destroy remove the next object that
 * takes the handle.
 */
static bool
rule_in_file_locked(const struct mdevx_rule *r, const struct mdevx_ctx *ctx, int fd)
{
	const struct mdevx_ctx *rctx = r->matcher->ctx;
	int rfd;

	if (rctx == ctx)
		return true;
	if (rctx->ops != ctx->ops)
		return false;
	rfd = rctx->ops->cmd_fd(rctx->bctx);
	if (rfd < 0 || fd < 0)
		return true;
	return mdevx_fd_same_file(rfd, fd) != 0;
}

MDEVX_API int
mdevx_rule_destroy_handle(struct mdevx_ctx *ctx, uint32_t handle)
{
	struct mdevx_rule *r;
	int rc, fd;

	if (!mdevx_ctx_valid(ctx))
		return -errno;
	rc = ctx->ops->flow_destroy_handle(ctx->bctx, handle);
	if (rc != 0) {
		MDEVX_LOG(ERR, "%s: rule handle %u: errno=%d (%s)", ctx->devstr, handle, rc,
			  strerror(rc));
		return mdevx_ret(rc);
	}
	/*
	 * A rule of this process was removed under its wrapper: mark it, so
	 * that its mdevx_rule_destroy() releases it without a command (the
	 * handle may name another object by then).
	 */
	fd = ctx->ops->cmd_fd(ctx->bctx);
	mdevx_reg_lock();
	for (r = rules_head; r != NULL; r = r->next) {
		if (r->handle == handle && !r->gone && rule_in_file_locked(r, ctx, fd)) {
			r->gone = true;
			break;
		}
	}
	mdevx_reg_unlock();
	return 0;
}

/* ------------------------------------------------------------------ */
/* DEVX flow tables, groups and entries                               */
/* ------------------------------------------------------------------ */

static int
table_attr_check(const struct mdevx_ctx *ctx, const struct mdevx_flow_table_attr *a,
		 const char **why)
{
	if (a->level == 0) {
		*why = "level 0 is the root table, the kernel's: use a root rule";
		return EINVAL;
	}
	if (a->log_size > FT_LOG_SIZE_MAX) {
		*why = "log_size above 24";
		return EINVAL;
	}
	/* The device's bounds, when it reports its NIC flow table capabilities. */
	if (ctx->has_ft_caps && a->log_size > ctx->log_max_ft_size) {
		*why = "log_size above the device's log_max_ft_size";
		return EINVAL;
	}
	if (ctx->has_ft_caps && ctx->max_ft_level != 0 && a->level > ctx->max_ft_level) {
		*why = "level above the device's max_ft_level";
		return EINVAL;
	}
	if (a->miss_fwd > 1 || (a->miss_fwd == 0 && a->miss_table_id != 0) ||
	    a->miss_table_id > 0xffffff) {
		*why = "miss_table_id is a 24-bit table id, and only with miss_fwd 1";
		return EINVAL;
	}
	return 0;
}

MDEVX_API struct mdevx_obj *
mdevx_flow_table_create(struct mdevx_ctx *ctx, const struct mdevx_flow_table_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_flow_table_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(create_flow_table_out)];
	const char *why = "NULL attributes";
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (attr == NULL || table_attr_check(ctx, attr, &why) != 0)
		return fail_null(__func__, EINVAL, why);
	MDEVX_SET(create_flow_table_in, in, opcode, MDEVX_CMD_OP_CREATE_FLOW_TABLE);
	MDEVX_SET(create_flow_table_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.level, attr->level);
	MDEVX_SET(create_flow_table_in, in, flow_table_context.log_size, attr->log_size);
	if (attr->miss_fwd) {
		MDEVX_SET(create_flow_table_in, in, flow_table_context.table_miss_action,
			  MDEVX_FLOW_TABLE_MISS_FWD);
		MDEVX_SET(create_flow_table_in, in, flow_table_context.table_miss_id,
			  attr->miss_table_id);
	}
	rc = mdevx_cmd_create(ctx, in, sizeof(in), out, sizeof(out), &bobj);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(ctx, MDEVX_OBJ_FLOW_TABLE, bobj,
			     MDEVX_GET(create_flow_table_out, out, table_id));
	if (obj == NULL)
		return NULL;
	obj->ft_level = attr->level;
	obj->ft_log_size = attr->log_size;
	return mdevx_obj_finish(obj);
}

MDEVX_API int
mdevx_flow_table_query(struct mdevx_obj *table, struct mdevx_flow_table_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_flow_table_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_flow_table_out)];
	int rc;

	if (attr == NULL)
		return mdevx_ret(EINVAL);
	rc = mdevx_obj_get(table, MDEVX_OBJ_FLOW_TABLE);
	if (rc != 0)
		return mdevx_ret(rc);
	MDEVX_SET(query_flow_table_in, in, opcode, MDEVX_CMD_OP_QUERY_FLOW_TABLE);
	MDEVX_SET(query_flow_table_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(query_flow_table_in, in, table_id, table->id);
	rc = mdevx_cmd_query(table, in, sizeof(in), out, sizeof(out));
	mdevx_obj_put(table);
	if (rc != 0)
		return mdevx_ret(rc);
	memset(attr, 0, sizeof(*attr));
#define FTC(fld) MDEVX_GET(query_flow_table_out, out, flow_table_context.fld)
	attr->level = (uint8_t)FTC(level);
	attr->log_size = (uint8_t)FTC(log_size);
	attr->miss_fwd = FTC(table_miss_action) == MDEVX_FLOW_TABLE_MISS_FWD;
	attr->miss_table_id = attr->miss_fwd ? FTC(table_miss_id) : 0;
#undef FTC
	return 0;
}

/* Take @p table (a local flow table of its context) as the parent of a group. */
static int
parent_take(struct mdevx_obj *parent, enum mdevx_obj_kind kind)
{
	struct mdevx_obj o;
	int rc = mdevx_obj_copy(parent, &o);

	if (rc != 0)
		return rc;
	if (o.kind != kind)
		return EPROTOTYPE;
	/* Steering objects are never imports: its own context. */
	return mdevx_obj_ref_take(parent, KIND_BIT(kind), o.ctx);
}

static int
group_attr_check(const struct mdevx_obj *table, const struct mdevx_flow_group_attr *a,
		 const char **why)
{
	if (a->start_index > a->end_index ||
	    (uint64_t)a->end_index >= (1ull << table->ft_log_size)) {
		*why = "the index range must be ordered and inside the table";
		return EINVAL;
	}
	if (a->match_criteria_enable & ~MDEVX_MATCH_OUTER) {
		*why = "match criteria other than the outer headers";
		return EINVAL;
	}
	if (a->mask_len > MDEVX_MATCH_PARAM_LEN || (a->mask_len != 0 && a->mask == NULL) ||
	    (a->mask_len != 0 && !match_bytes_ok(a->mask, a->mask_len,
						  a->match_criteria_enable))) {
		*why = "mask: at most 512 bytes, outer headers only";
		return EINVAL;
	}
	return 0;
}

MDEVX_API struct mdevx_obj *
mdevx_flow_group_create(struct mdevx_obj *table, const struct mdevx_flow_group_attr *attr)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(create_flow_group_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(create_flow_group_out)];
	const char *why = "NULL attributes";
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	rc = parent_take(table, MDEVX_OBJ_FLOW_TABLE);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	if (attr == NULL || group_attr_check(table, attr, &why) != 0) {
		mdevx_obj_ref_drop(table);
		return fail_null(__func__, EINVAL, why);
	}
	MDEVX_SET(create_flow_group_in, in, opcode, MDEVX_CMD_OP_CREATE_FLOW_GROUP);
	MDEVX_SET(create_flow_group_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(create_flow_group_in, in, table_id, table->id);
	MDEVX_SET(create_flow_group_in, in, start_flow_index, attr->start_index);
	MDEVX_SET(create_flow_group_in, in, end_flow_index, attr->end_index);
	MDEVX_SET(create_flow_group_in, in, match_criteria_enable, attr->match_criteria_enable);
	if (attr->mask_len != 0)
		memcpy(MDEVX_ADDR_OF(create_flow_group_in, in, match_criteria), attr->mask,
		       attr->mask_len);
	rc = mdevx_cmd_create(table->ctx, in, sizeof(in), out, sizeof(out), &bobj);
	if (rc != 0) {
		mdevx_obj_ref_drop(table);
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(table->ctx, MDEVX_OBJ_FLOW_GROUP, bobj,
			     MDEVX_GET(create_flow_group_out, out, group_id));
	if (obj != NULL) {
		obj->ft_table_id = table->id;
		obj->ft_first = attr->start_index;
		obj->ft_last = attr->end_index;
		obj = mdevx_obj_finish(obj);
	}
	if (obj == NULL) {
		rc = errno;
		mdevx_obj_ref_drop(table);
		mdevx_set_errno(rc);
		return NULL;
	}
	obj->parent = table;
	return obj;
}

static int
fte_attr_check(const struct mdevx_obj *table, const struct mdevx_obj *group,
	       const struct mdevx_fte_attr *a, const char **why)
{
	const uint32_t actions = MDEVX_FTE_ACTION_DROP | MDEVX_FTE_ACTION_FWD_DEST |
				 MDEVX_FTE_ACTION_COUNT;
	uint32_t i;

	if (group->ft_table_id != table->id || group->ctx != table->ctx) {
		*why = "the group belongs to another table";
		return EINVAL;
	}
	if (a->flow_index < group->ft_first || a->flow_index > group->ft_last) {
		*why = "flow index outside the group's range";
		return EINVAL;
	}
	if (a->action == 0 || (a->action & ~actions) != 0 ||
	    (a->action & MDEVX_FTE_ACTION_DROP && a->action & MDEVX_FTE_ACTION_FWD_DEST)) {
		*why = "action: DROP or FWD_DEST, and/or COUNT";
		return EINVAL;
	}
	if ((a->action & MDEVX_FTE_ACTION_FWD_DEST ? a->ndests == 0 : a->ndests != 0) ||
	    a->ndests > MDEVX_FTE_MAX_DESTS) {
		*why = "FWD_DEST takes 1..16 destinations, other actions none";
		return EINVAL;
	}
	if ((a->action & MDEVX_FTE_ACTION_COUNT ? a->ncounters == 0 : a->ncounters != 0) ||
	    a->ncounters > MDEVX_FTE_MAX_DESTS) {
		*why = "COUNT takes 1..16 counters, other actions none";
		return EINVAL;
	}
	for (i = 0; i < a->ndests; i++) {
		if ((a->dests[i].type != MDEVX_FTE_DEST_TIR &&
		     a->dests[i].type != MDEVX_FTE_DEST_FLOW_TABLE) || a->dests[i].id > 0xffffff) {
			*why = "destination: a TIR or flow table, by its 24-bit number";
			return EINVAL;
		}
		if (a->dests[i].type == MDEVX_FTE_DEST_FLOW_TABLE && a->dests[i].id == table->id) {
			*why = "a table cannot forward to itself";
			return EINVAL;
		}
	}
	if (a->value_len > MDEVX_MATCH_PARAM_LEN || (a->value_len != 0 && a->value == NULL) ||
	    (a->value_len != 0 && !match_bytes_ok(a->value, a->value_len, MDEVX_MATCH_OUTER))) {
		*why = "match value: at most 512 bytes, outer headers only";
		return EINVAL;
	}
	return 0;
}

MDEVX_API struct mdevx_obj *
mdevx_fte_create(struct mdevx_obj *table, struct mdevx_obj *group,
		 const struct mdevx_fte_attr *attr)
{
	const size_t base = MDEVX_ST_SZ_BYTES(set_fte_in);
	const size_t stride = MDEVX_ST_SZ_BYTES(dest_format);
	uint8_t out[MDEVX_ST_SZ_BYTES(set_fte_out)];
	const char *why = "NULL attributes";
	struct mdevx_obj o, *obj;
	uint8_t *in, *d;
	size_t inlen;
	void *bobj;
	uint32_t i;
	int rc;

	rc = mdevx_obj_copy(table, &o);
	if (rc == 0 && o.kind != MDEVX_OBJ_FLOW_TABLE)
		rc = EPROTOTYPE;
	if (rc == 0)
		rc = parent_take(group, MDEVX_OBJ_FLOW_GROUP);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	if (attr == NULL || fte_attr_check(&o, group, attr, &why) != 0) {
		mdevx_obj_ref_drop(group);
		return fail_null(__func__, EINVAL, why);
	}
	inlen = base + stride * (attr->ndests + attr->ncounters);
	in = calloc(1, inlen);
	if (in == NULL) {
		mdevx_obj_ref_drop(group);
		mdevx_set_errno(ENOMEM);
		return NULL;
	}
	MDEVX_SET(set_fte_in, in, opcode, MDEVX_CMD_OP_SET_FLOW_TABLE_ENTRY);
	MDEVX_SET(set_fte_in, in, op_mod, MDEVX_SET_FTE_OP_MOD_CREATE);
	MDEVX_SET(set_fte_in, in, table_type, MDEVX_FLOW_TABLE_TYPE_NIC_RX);
	MDEVX_SET(set_fte_in, in, table_id, o.id);
	MDEVX_SET(set_fte_in, in, flow_index, attr->flow_index);
	MDEVX_SET(set_fte_in, in, flow_context.group_id, group->id);
	MDEVX_SET(set_fte_in, in, flow_context.action, attr->action);
	MDEVX_SET(set_fte_in, in, flow_context.destination_list_size, attr->ndests);
	MDEVX_SET(set_fte_in, in, flow_context.flow_counter_list_size, attr->ncounters);
	if (attr->value_len != 0)
		memcpy(MDEVX_ADDR_OF(set_fte_in, in, flow_context.match_value), attr->value,
		       attr->value_len);
	/* Destinations, then counters, 8 bytes each, from byte 832. */
	for (i = 0; i < attr->ndests; i++) {
		d = in + base + stride * i;
		MDEVX_SET(dest_format, d, destination_type, attr->dests[i].type);
		MDEVX_SET(dest_format, d, destination_id, attr->dests[i].id);
	}
	for (i = 0; i < attr->ncounters; i++) {
		d = in + base + stride * (attr->ndests + i);
		MDEVX_SET(flow_counter_list, d, flow_counter_id, attr->counter_ids[i]);
	}
	rc = mdevx_cmd_create(o.ctx, in, inlen, out, sizeof(out), &bobj);
	free(in);
	if (rc != 0) {
		mdevx_obj_ref_drop(group);
		mdevx_set_errno(rc);
		return NULL;
	}
	obj = mdevx_obj_wrap(o.ctx, MDEVX_OBJ_FTE, bobj, attr->flow_index);
	if (obj != NULL) {
		obj->ft_table_id = o.id;
		obj = mdevx_obj_finish(obj);
	}
	if (obj == NULL) {
		rc = errno;
		mdevx_obj_ref_drop(group);
		mdevx_set_errno(rc);
		return NULL;
	}
	obj->parent = group;
	return obj;
}
