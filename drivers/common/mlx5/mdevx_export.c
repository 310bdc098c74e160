/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Export / import / unimport of wrapper objects.
 *
 * Export buffer = library header (host byte order) + the backend's DEVX
 * object attributes (rdma-core 63 layout, opaque here):
 *
 *   off  size  field
 *     0     4  magic "MDVX" (0x5856444d)
 *     4     2  version (3)
 *     6     2  header size (48)
 *     8     4  backend id (1 rdma; 2 was the software device backend)
 *    12     4  kind (enum mdevx_obj_kind)
 *    16     4  object id
 *    20     4  bulk size (counters)
 *    24     4  tirn (TIRs)
 *    28     4  generation
 *    32     8  RX ICM address (TIRs)
 *    40     4  backend attribute size
 *    44     4  checksum: mdevx_csum64 (mdevx_csum.h) folded to 32 bits, over
 *              the header before this field, then the attributes
 *    48     n  backend attributes
 *
 * Import validates everything it can (magic, version, sizes, checksum,
 * backend, kind, and the type / object id inside the rdma-core attributes)
 * but, as in rdma-core, cannot know whether the object still exists: a
 * stale import fails when used.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_build_config.h"
#include "mdevx_csum.h"
#include "mdevx_internal.h"
#include "mdevx_prm.h"

#define EXPORT_MAGIC 0x5856444du
#define EXPORT_VERSION 3	/* 2: word-wise checksum; 3: mdevx_csum64 */

struct export_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t backend;
	uint32_t kind;
	uint32_t id;
	uint32_t bulk_size;
	uint32_t tirn;
	uint32_t generation;
	uint64_t rx_icm_addr;
	uint32_t attr_size;
	uint32_t checksum;
};

static_assert(sizeof(struct export_hdr) == 48, "export header layout");

/*
 * Checksum of an export buffer in place: the header words before the
 * attribute size, the attribute size (in the seed), then the attributes.
 * The checksum field itself is the only byte range left out, and nothing
 * is copied (a header copy read back word by word stalls store forwarding
 * on the import fast path).
 */
static uint32_t
buf_checksum(const uint8_t *buf, uint32_t asz)
{
	uint64_t x;

	x = mdevx_csum64(buf, offsetof(struct export_hdr, attr_size),
			 EXPORT_MAGIC ^ ((uint64_t)asz << 32));
	x = mdevx_csum64(buf + sizeof(struct export_hdr), asz, x);
	return (uint32_t)(x ^ (x >> 32));
}

static_assert(offsetof(struct export_hdr, attr_size) % 8 == 0 &&
	      offsetof(struct export_hdr, checksum) == sizeof(struct export_hdr) - 4,
	      "checksummed header words");

/*
 * Verbs objects (PD, UAR, umem) have no DEVX export. DEVX flow tables,
 * groups and entries are not exportable either: an importer could only use
 * them by number in PRM mailboxes, which needs no import, and the library's
 * reference counting of groups and entries (mdevx_obj_destroy() EBUSY)
 * covers the creator's objects only.
 */
static bool
kind_exportable(uint32_t kind)
{
	switch (kind) {
	case MDEVX_OBJ_FLOW_COUNTER:
	case MDEVX_OBJ_TIR:
	case MDEVX_OBJ_TD:
	case MDEVX_OBJ_CQ:
	case MDEVX_OBJ_RQ:
	case MDEVX_OBJ_RQT:
		return true;
	default:
		return false;
	}
}

static int
attr_size(const struct mdevx_ctx *ctx, size_t *size)
{
	int rc;

	if (ctx->attr_size != 0) {
		*size = ctx->attr_size;
		return 0;
	}
	rc = ctx->ops->export_size(size);
	if (rc == 0 && (*size == 0 || *size > MDEVX_ATTR_SIZE_MAX))
		rc = ENOTSUP;
	return rc;
}

MDEVX_API int
mdevx_export_size(const struct mdevx_ctx *ctx, size_t *size)
{
	size_t asz;
	int rc;

	if (size == NULL)
		return mdevx_ret(EINVAL);
	if (!mdevx_ctx_valid(ctx))
		return -errno;
	rc = attr_size(ctx, &asz);
	if (rc != 0)
		return mdevx_ret(rc);
	*size = sizeof(struct export_hdr) + asz;
	return 0;
}

/* mdevx_obj_export() of an object in use (mdevx_obj_get()). */
static int
obj_export(struct mdevx_obj *obj, void *buf, size_t len)
{
	struct export_hdr hdr;
	uint8_t *attrs;
	size_t asz;
	int rc;

	if (buf == NULL)
		return mdevx_ret(EINVAL);
	if (!kind_exportable(obj->kind)) {
		MDEVX_LOG(ERR, "%s objects are not exportable", mdevx_obj_kind_name(obj->kind));
		return mdevx_ret(ENOTSUP);
	}
	rc = attr_size(obj->ctx, &asz);
	if (rc != 0)
		return mdevx_ret(rc);
	if (len < sizeof(hdr) + asz)
		return mdevx_ret(ENOSPC);
	memset(buf, 0, sizeof(hdr) + asz);
	attrs = (uint8_t *)buf + sizeof(hdr);
	rc = obj->ctx->ops->obj_export(obj->bobj, attrs);
	if (rc != 0) {
		MDEVX_LOG(ERR, "backend export of %s %#x failed: %s",
			  mdevx_obj_kind_name(obj->kind), obj->id, strerror(rc));
		return mdevx_ret(rc);
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = EXPORT_MAGIC;
	hdr.version = EXPORT_VERSION;
	hdr.hdr_size = sizeof(hdr);
	hdr.backend = obj->ctx->ops->id;
	hdr.kind = obj->kind;
	hdr.id = obj->id;
	hdr.bulk_size = obj->bulk_size;
	hdr.tirn = obj->tirn;
	hdr.generation = obj->generation;
	hdr.rx_icm_addr = obj->rx_icm_addr;
	hdr.attr_size = (uint32_t)asz;
	memcpy(buf, &hdr, sizeof(hdr));
	hdr.checksum = buf_checksum(buf, hdr.attr_size);
	memcpy((uint8_t *)buf + offsetof(struct export_hdr, checksum), &hdr.checksum,
	       sizeof(hdr.checksum));
	return 0;
}

MDEVX_API int
mdevx_obj_export(struct mdevx_obj *obj, void *buf, size_t len)
{
	int rc = mdevx_obj_get(obj, MDEVX_OBJ_ANY);

	if (rc != 0)
		return mdevx_ret(rc);
	rc = obj_export(obj, buf, len);
	mdevx_obj_put(obj);
	return rc;
}

/*
 * Field loads straight from a buffer. Import reads the header this way
 * rather than through a struct copy: a copy made with vector stores and
 * read back field by field stalls store forwarding on the fast path.
 */
#define BUF_LD(type, buf, off) buf_ld_##type((const uint8_t *)(buf) + (off))

static inline uint32_t
buf_ld_uint32_t(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
buf_ld_uint64_t(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define HDR_LD(type, buf, field) BUF_LD(type, buf, offsetof(struct export_hdr, field))
#define ATTR_LD(type, attrs, field) \
	BUF_LD(type, attrs, offsetof(struct mdevx_devx_obj_attrs, field))

/*
 * Cross-check the header with the attributes where their layout is ours:
 * the software device's and the rdma-core compatibility path's (32 bytes:
 * handle, type, object_id at 0, 4, 8, as rdma-core 63 has it). rdma-core's
 * own export (the native path) keeps its layout private and may change it
 * under the same size: its buffer is opaque here, and only rdma-core's
 * import reads it.
 */
static bool
attrs_consistent(const struct mdevx_ctx *ctx, const struct export_hdr *hdr,
		 const uint8_t *attrs)
{
	uint32_t type, object_id;

	if (ctx->ops->id == MDEVX_BACKEND_RDMA && mdevx_rdma_export_native())
		return true;
	if (hdr->attr_size != sizeof(struct mdevx_devx_obj_attrs))
		return true;	/* another layout: opaque */
	type = ATTR_LD(uint32_t, attrs, type);
	object_id = ATTR_LD(uint32_t, attrs, object_id);
	switch (hdr->kind) {
	case MDEVX_OBJ_FLOW_COUNTER:
		return type == MDEVX_DEVX_TYPE_FLOW_COUNTER && object_id == hdr->id;
	case MDEVX_OBJ_TIR:
		return type == MDEVX_DEVX_TYPE_TIR && object_id == hdr->id &&
		       ATTR_LD(uint64_t, attrs, rx_icm_addr) == hdr->rx_icm_addr &&
		       hdr->tirn == hdr->id;
	default:
		return true;
	}
}

/*
 * The header of an export buffer, field by field (see BUF_LD). The first
 * three fields are checked here as one word, against a word built the same
 * way, so that no narrow stores are read back wide either.
 */
static bool
hdr_load(const void *buf, struct export_hdr *h)
{
	static const struct {
		uint32_t magic;
		uint16_t version;
		uint16_t hdr_size;
	} want = { EXPORT_MAGIC, EXPORT_VERSION, sizeof(struct export_hdr) };
	uint64_t head, w;

	memcpy(&w, &want, sizeof(w));
	head = BUF_LD(uint64_t, buf, 0);
	h->backend = HDR_LD(uint32_t, buf, backend);
	h->kind = HDR_LD(uint32_t, buf, kind);
	h->id = HDR_LD(uint32_t, buf, id);
	h->bulk_size = HDR_LD(uint32_t, buf, bulk_size);
	h->tirn = HDR_LD(uint32_t, buf, tirn);
	h->generation = HDR_LD(uint32_t, buf, generation);
	h->rx_icm_addr = HDR_LD(uint64_t, buf, rx_icm_addr);
	h->attr_size = HDR_LD(uint32_t, buf, attr_size);
	h->checksum = HDR_LD(uint32_t, buf, checksum);
	return head == w;
}

static struct mdevx_obj *
import_fail(bool quiet, int err, const char *why)
{
	if (!quiet)
		MDEVX_LOG_FN(ERR, "mdevx_obj_import", "import refused: %s", why);
	mdevx_set_errno(err);
	return NULL;
}

/*
 * Validate an export buffer for @p ctx and import its backend object: what
 * every import flavour shares. The checksum is skipped only when the
 * caller vouches for the bytes (@p verified); such a caller also logs the
 * refusals itself (it may be reading bytes being rewritten, and retry).
 * Returns the backend object or NULL + errno.
 */
static void *
import_backend(struct mdevx_ctx *ctx, const void *buf, size_t len,
	       enum mdevx_obj_kind expect, bool verified, struct export_hdr *hdr_out)
{
	struct export_hdr hdr;
	const uint8_t *attrs;
	void *bobj;
	size_t asz;
	int rc;

	if (!mdevx_ctx_valid(ctx))
		return NULL;
	if (buf == NULL || (unsigned int)expect >= MDEVX_OBJ_KIND_MAX) {
		mdevx_set_errno(EINVAL);
		return NULL;
	}
	if (len < sizeof(hdr))
		return import_fail(verified, EBADMSG, "buffer shorter than the export header");
	attrs = (const uint8_t *)buf + sizeof(hdr);
	if (!hdr_load(buf, &hdr))
		return import_fail(verified, EBADMSG, "not an mdevx export buffer (magic/version)");
	if (hdr.backend != (uint32_t)ctx->ops->id)
		return import_fail(verified, EXDEV, "exported from another backend");
	rc = attr_size(ctx, &asz);
	if (rc != 0) {
		mdevx_set_errno(rc);
		return NULL;
	}
	if (hdr.attr_size != asz || len < sizeof(hdr) + asz)
		return import_fail(verified, EBADMSG, "attribute size mismatch or short buffer");
	if (!verified && buf_checksum(buf, hdr.attr_size) != hdr.checksum)
		return import_fail(verified, EBADMSG, "checksum mismatch (corrupted buffer)");
	if (!kind_exportable(hdr.kind) || !attrs_consistent(ctx, &hdr, attrs))
		return import_fail(verified, EBADMSG, "inconsistent object kind / attributes");
	if (expect != MDEVX_OBJ_ANY && hdr.kind != (uint32_t)expect) {
		if (!verified)
			MDEVX_LOG(ERR, "import refused: buffer holds a %s, caller expects a %s",
				  mdevx_obj_kind_name(hdr.kind), mdevx_obj_kind_name(expect));
		mdevx_set_errno(EPROTOTYPE);
		return NULL;
	}
	rc = ctx->ops->obj_import(ctx->bctx, attrs, &bobj);
	if (rc != 0) {
		MDEVX_LOG(ERR, "backend import of %s %#x failed: %s",
			  mdevx_obj_kind_name(hdr.kind), hdr.id, strerror(rc));
		mdevx_set_errno(rc);
		return NULL;
	}
	*hdr_out = hdr;
	return bobj;
}

MDEVX_API struct mdevx_obj *
mdevx_obj_import(struct mdevx_ctx *ctx, const void *buf, size_t len,
		 enum mdevx_obj_kind expect)
{
	struct export_hdr hdr;
	struct mdevx_obj *obj;
	void *bobj;
	int rc;

	bobj = import_backend(ctx, buf, len, expect, false, &hdr);
	if (bobj == NULL)
		return NULL;
	obj = mdevx_obj_new(ctx, (enum mdevx_obj_kind)hdr.kind, bobj, hdr.id, true);
	if (obj == NULL) {
		ctx->ops->obj_unimport(bobj);
		return NULL;
	}
	obj->bulk_size = hdr.bulk_size;
	obj->tirn = hdr.tirn;
	obj->rx_icm_addr = hdr.rx_icm_addr;
	obj->generation = hdr.generation;
	rc = mdevx_obj_register(obj);
	if (rc != 0) {
		ctx->ops->obj_unimport(bobj);
		free(obj);
		mdevx_set_errno(rc);
		return NULL;
	}
	return obj;
}

static int
obj_unimport(struct mdevx_obj *obj, bool holder)
{
	void *bobj = NULL;
	int rc;

	if (obj == NULL)
		return mdevx_ret(EINVAL);
	rc = mdevx_obj_unregister_import(obj, &bobj, holder);
	if (rc == EPERM && !holder)
		MDEVX_LOG(ERR, "%s %#x is local (destroy it with mdevx_obj_destroy()), or held "
			  "by the layer that made it (release it there)",
			  mdevx_obj_kind_name(obj->kind), obj->id);
	else if (rc == EBUSY)
		MDEVX_LOG(ERR, "%s %#x is in use by another thread: not unimported",
			  mdevx_obj_kind_name(obj->kind), obj->id);
	if (rc != 0)
		return mdevx_ret(rc);
	/* A revoked import's backend object is released already. */
	if (bobj != NULL)
		rc = obj->ctx->ops->obj_unimport(bobj);
	free(obj);
	return rc != 0 ? mdevx_ret(rc) : 0;
}

MDEVX_API int
mdevx_obj_unimport(struct mdevx_obj *obj)
{
	return obj_unimport(obj, false);
}

MDEVX_INTERNAL int
mdevx_obj_hold(struct mdevx_obj *obj)
{
	int rc;

	if (obj == NULL)
		return mdevx_ret(EINVAL);
	rc = mdevx_obj_mark_held(obj);
	return rc != 0 ? mdevx_ret(rc) : 0;
}

MDEVX_INTERNAL int
mdevx_obj_unimport_held(struct mdevx_obj *obj)
{
	return obj_unimport(obj, true);
}

MDEVX_INTERNAL int
mdevx_obj_revoke(struct mdevx_obj *obj)
{
	const struct mdevx_backend_ops *ops;
	void *bobj;
	int rc;

	if (obj == NULL)
		return mdevx_ret(EINVAL);
	rc = mdevx_obj_mark_revoked(obj, &bobj, &ops);
	if (rc == ESTALE)
		return 0;		/* revoked before */
	if (rc != 0)
		return mdevx_ret(rc);
	/* Not obj->ctx: an unimport may have freed the wrapper by now. */
	rc = ops->obj_unimport(bobj);
	return rc != 0 ? mdevx_ret(rc) : 0;
}

static int
import_ref(struct mdevx_ctx *ctx, const void *buf, size_t len, enum mdevx_obj_kind expect,
	   bool verified, struct mdevx_obj_ref *ref)
{
	struct export_hdr hdr;
	void *bobj;

	if (ref == NULL)
		return mdevx_ret(EINVAL);
	if (expect != MDEVX_OBJ_FLOW_COUNTER && expect != MDEVX_OBJ_TIR)
		return mdevx_ret(EINVAL);
	bobj = import_backend(ctx, buf, len, expect, verified, &hdr);
	if (bobj == NULL)
		return -errno;
	/*
	 * Whole-struct assignment, no memset then field stores: callers read
	 * the fields back at once (id and size_or_tirn as one word), and a
	 * wide load of several narrow stores stalls store forwarding.
	 */
	*ref = (struct mdevx_obj_ref){
		.bobj = bobj,
		.rx_icm_addr = hdr.rx_icm_addr,
		.id = hdr.id,
		.size_or_tirn = expect == MDEVX_OBJ_FLOW_COUNTER ? hdr.bulk_size : hdr.tirn,
		.kind = (uint8_t)expect,
	};
	return 0;
}

MDEVX_API int
mdevx_obj_import_ref(struct mdevx_ctx *ctx, const void *buf, size_t len,
		     enum mdevx_obj_kind expect, struct mdevx_obj_ref *ref)
{
	return import_ref(ctx, buf, len, expect, false, ref);
}

MDEVX_INTERNAL int
mdevx_obj_import_ref_verified(struct mdevx_ctx *ctx, const void *buf, size_t len,
			      enum mdevx_obj_kind expect, struct mdevx_obj_ref *ref)
{
	return import_ref(ctx, buf, len, expect, true, ref);
}

MDEVX_API int
mdevx_obj_unimport_ref(struct mdevx_ctx *ctx, struct mdevx_obj_ref *ref)
{
	int rc;

	if (ref == NULL || ref->bobj == NULL)
		return mdevx_ret(EINVAL);
	if (!mdevx_ctx_valid(ctx))
		return -errno;
	rc = ctx->ops->obj_unimport(ref->bobj);
	ref->bobj = NULL;
	return rc != 0 ? mdevx_ret(rc) : 0;
}

int
mdevx_ref_to_obj(struct mdevx_ctx *ctx, const struct mdevx_obj_ref *ref,
		 enum mdevx_obj_kind kind, struct mdevx_obj *obj)
{
	if (ref == NULL || ref->bobj == NULL)
		return EINVAL;
	if (ref->kind != (uint8_t)kind)
		return EPROTOTYPE;
	if (!mdevx_ctx_valid(ctx))
		return errno;
	memset(obj, 0, sizeof(*obj));
	obj->ctx = ctx;
	obj->bobj = ref->bobj;
	obj->kind = (enum mdevx_obj_kind)ref->kind;
	obj->id = ref->id;
	obj->imported = true;
	obj->rx_icm_addr = ref->rx_icm_addr;
	if (ref->kind == MDEVX_OBJ_FLOW_COUNTER)
		obj->bulk_size = ref->size_or_tirn;
	else
		obj->tirn = ref->size_or_tirn;
	return 0;
}
