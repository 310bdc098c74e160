/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software device backend: a thin shim over the swdev client library, whose
 * calls mirror rdma-core's (same return conventions, EREMOTEIO with status
 * and syndrome in the output mailbox).
 *
 * Device spec: "<dev>" (daemon socket from $SWDEV_SOCKET, else the default)
 * or "<socket path>:<dev>" (split at the last ':').
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swdev_client.h"

#include "mdevx_internal.h"

static int
errno_or(int fallback)
{
	return errno != 0 ? errno : fallback;
}

static int
sw_open(const char *spec, void **bctx)
{
	const char *colon = strrchr(spec, ':');
	char path[PATH_MAX];
	struct swdev_ctx *ctx;
	size_t plen;

	errno = 0;
	if (colon == NULL) {
		/* the socket the client library resolves to, for the error below */
		const char *env = getenv("SWDEV_SOCKET");

		snprintf(path, sizeof(path), "%s",
			 env != NULL && env[0] != '\0' ? env : SWDEV_DEFAULT_SOCKET);
		ctx = swdev_open(NULL, spec);
	} else {
		plen = (size_t)(colon - spec);
		if (plen == 0 || plen >= sizeof(path) || colon[1] == '\0')
			return EINVAL;
		memcpy(path, spec, plen);
		path[plen] = '\0';
		ctx = swdev_open(path, colon + 1);
	}
	if (ctx == NULL) {
		int rc = errno_or(EIO);

		/* no daemon, or not ours to use: say which socket was tried */
		MDEVX_LOG(ERR, "software device %s at %s: %s", colon == NULL ? spec : colon + 1,
			  path, strerror(rc));
		return rc;
	}
	*bctx = ctx;
	return 0;
}

static int
sw_import_device(int cmd_fd, void **bctx)
{
	struct swdev_ctx *ctx;

	errno = 0;
	ctx = swdev_import_device(cmd_fd);
	if (ctx == NULL)
		return errno_or(EIO);
	*bctx = ctx;
	return 0;
}

static int
sw_cmd_fd(void *bctx)
{
	return swdev_cmd_fd(bctx);
}

static int
sw_close(void *bctx)
{
	return swdev_close(bctx);
}

static int
sw_obj_create(void *bctx, const void *in, size_t inlen, void *out, size_t outlen,
	      void **bobj)
{
	struct swdev_obj *o;

	errno = 0;
	o = swdev_obj_create(bctx, in, inlen, out, outlen);
	if (o == NULL)
		return errno_or(EIO);
	*bobj = o;
	return 0;
}

static int
sw_obj_query(void *bobj, const void *in, size_t inlen, void *out, size_t outlen)
{
	return swdev_obj_query(bobj, in, inlen, out, outlen);
}

static int
sw_obj_modify(void *bobj, const void *in, size_t inlen, void *out, size_t outlen)
{
	return swdev_obj_modify(bobj, in, inlen, out, outlen);
}

static int
sw_obj_destroy(void *bobj)
{
	return swdev_obj_destroy(bobj);
}

static int
sw_general_cmd(void *bctx, const void *in, size_t inlen, void *out, size_t outlen)
{
	return swdev_general_cmd(bctx, in, inlen, out, outlen);
}

static int
sw_export_size(size_t *size)
{
	struct swdev_export_sizes s = { 0 };

	swdev_get_export_sizes(&s);
	*size = s.devx_obj_attrs_size;
	return 0;
}

static int
sw_obj_export(void *bobj, void *data)
{
	return swdev_obj_export(bobj, data);
}

static int
sw_obj_import(void *bctx, const void *data, void **bobj)
{
	/* Every failure of swdev_obj_import() sets errno (EINVAL, ENOMEM). */
	struct swdev_obj *o = swdev_obj_import(bctx, data);

	if (o == NULL)
		return errno_or(EIO);
	*bobj = o;
	return 0;
}

static int
sw_obj_unimport(void *bobj)
{
	swdev_obj_unimport(bobj);
	return 0;
}

static int
sw_umem_reg(void *bctx, void *addr, size_t size, uint32_t access, void **bobj,
	    uint32_t *umem_id)
{
	struct swdev_obj *o;

	errno = 0;
	o = swdev_umem_reg(bctx, addr, size, access, umem_id);
	if (o == NULL)
		return errno_or(EIO);
	*bobj = o;
	return 0;
}

static int
sw_uar_alloc(void *bctx, void **bobj, uint32_t *page_id)
{
	struct swdev_obj *o;

	errno = 0;
	o = swdev_uar_alloc(bctx, page_id);
	if (o == NULL)
		return errno_or(EIO);
	*bobj = o;
	return 0;
}

static int
sw_pd_alloc(void *bctx, void **bobj, uint32_t *pdn)
{
	struct swdev_obj *o;

	errno = 0;
	o = swdev_pd_alloc(bctx, pdn);
	if (o == NULL)
		return errno_or(EIO);
	*bobj = o;
	return 0;
}

static int
sw_pd_handle(void *bobj, uint32_t *handle)
{
	*handle = swdev_obj_handle(bobj);
	return 0;
}

static int
sw_query_eqn(void *bctx, uint32_t vector, uint32_t *eqn)
{
	return swdev_query_eqn(bctx, vector, eqn);
}

/* ---- root steering: the client's calls mirror rdma-core's ---- */

static int
sw_matcher_create(void *bctx, const struct mdevx_matcher_attr *attr, void **bmatcher)
{
	struct swdev_obj *o;

	errno = 0;
	o = swdev_matcher_create(bctx, attr->priority, attr->match_criteria_enable, attr->mask,
				 attr->mask_len);
	if (o == NULL)
		return errno_or(EIO);
	*bmatcher = o;
	return 0;
}

static int
sw_flow_create(void *bmatcher, const void *value, size_t len, int dest, void *dest_bobj,
	       void *cnt_bobj, uint32_t cnt_offset, void **bflow)
{
	struct swdev_flow_actions act = {
		.dest_obj = dest_bobj,
		.counter = cnt_bobj,
		.counter_offset = cnt_offset,
	};
	struct swdev_obj *o;

	switch (dest) {
	case MDEVX_RULE_DEST_NONE:
		act.dest = SWDEV_FLOW_DEST_NONE;
		break;
	case MDEVX_RULE_DEST_OBJ:
		act.dest = SWDEV_FLOW_DEST_DEVX;
		break;
	case MDEVX_RULE_DEST_DROP:
		act.dest = SWDEV_FLOW_DEST_DROP;
		break;
	default:
		return EINVAL;
	}
	errno = 0;
	o = swdev_flow_create(bmatcher, value, len, &act);
	if (o == NULL)
		return errno_or(EIO);
	*bflow = o;
	return 0;
}

static uint32_t
sw_flow_handle(const void *bflow)
{
	return swdev_obj_handle(bflow);
}

static int
sw_flow_destroy_handle(void *bctx, uint32_t handle)
{
	return swdev_flow_destroy_handle(bctx, handle);
}

/* A rule removed by handle: the client's object is local memory only. */
static void
sw_flow_forget(void *bflow)
{
	swdev_obj_unimport(bflow);
}

const struct mdevx_backend_ops mdevx_backend_swdev_ops = {
	.name = "swdev",
	.id = MDEVX_BACKEND_SWDEV,
	.open = sw_open,
	.import_device = sw_import_device,
	.cmd_fd = sw_cmd_fd,
	.close = sw_close,
	.obj_create = sw_obj_create,
	.obj_query = sw_obj_query,
	.obj_modify = sw_obj_modify,
	.obj_destroy = sw_obj_destroy,
	.general_cmd = sw_general_cmd,
	.export_size = sw_export_size,
	.obj_export = sw_obj_export,
	.obj_import = sw_obj_import,
	.obj_unimport = sw_obj_unimport,
	.umem_reg = sw_umem_reg,
	.umem_dereg = sw_obj_destroy,
	.uar_alloc = sw_uar_alloc,
	.uar_free = sw_obj_destroy,
	.pd_alloc = sw_pd_alloc,
	.pd_free = sw_obj_destroy,
	.pd_handle = sw_pd_handle,
	.query_eqn = sw_query_eqn,
	.matcher_create = sw_matcher_create,
	.matcher_destroy = sw_obj_destroy,
	.flow_create = sw_flow_create,
	.flow_destroy = sw_obj_destroy,
	.flow_handle = sw_flow_handle,
	.flow_destroy_handle = sw_flow_destroy_handle,
	.flow_forget = sw_flow_forget,
};
