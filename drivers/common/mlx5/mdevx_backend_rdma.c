/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core backend: thin calls into libibverbs / libmlx5.
 *
 * Export / import / unimport:
 * - MDEVX_USE_NATIVE_EXPORT (rdma-core >= 63): mlx5dv_devx_obj_export,
 *   mlx5dv_devx_obj_import, mlx5dv_devx_obj_unimport, mlx5dv_get_export_sizes.
 * - otherwise (rdma-core 38..62): the compatibility path over the private
 *   struct mlx5dv_devx_obj layout (mdevx_compat.c), producing and consuming
 *   the rdma-core 63 buffer layout (32 bytes). The layout is verified once
 *   per process on the first flow counter or TIR created through this
 *   backend; export/import before that create a single flow counter as a
 *   probe, check it and destroy it. A refused layout makes export and import
 *   fail with ENOTSUP for the rest of the process.
 * - MDEVX_RDMA_CORE_STUB (CI compile check of the native path against the
 *   stand-in header of test/rdma-core-63): the four rdma-core 63 functions
 *   are weak references; when the loaded libmlx5 lacks them the calls fail
 *   with ENOTSUP instead of jumping to address 0.
 *
 * Root steering (matchers and rules) maps onto mlx5dv_create_flow_matcher()
 * and mlx5dv_create_flow(); see doc/driver.rst for the mapping and for what
 * the removal of a rule by handle relies on. Compile-checked only: no test
 * runs it (no NIC).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mdevx_build_config.h"
#include "mdevx_internal.h"

/* Our handle on an rdma-core object: the context is known without relying
 * on rdma-core's private layout. */
enum rdma_obj_type {
	RDMA_OBJ_DEVX,
	RDMA_OBJ_UMEM,
	RDMA_OBJ_UAR,
	RDMA_OBJ_PD,
};

struct rdma_obj {
	struct ibv_context *ctx;
	enum rdma_obj_type type;
	bool imported;
	union {
		struct mlx5dv_devx_obj *devx;
		struct mlx5dv_devx_umem *umem;
		struct mlx5dv_devx_uar *uar;
		struct ibv_pd *pd;
	};
};

/* Opcodes whose create output rdma-core records an object id for. */
#define RDMA_OP_CREATE_TIR 0x900
#define RDMA_OP_ALLOC_FLOW_COUNTER 0x939

static int
errno_or(int fallback)
{
	return errno != 0 ? errno : fallback;
}

static int
rdma_open(const char *spec, void **bctx)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0, i, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (list == NULL)
		return errno_or(ENODEV);
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), spec) != 0)
			continue;
		if (!mlx5dv_is_supported(list[i])) {
			err = ENOTSUP;
			break;
		}
		errno = 0;
		ctx = mlx5dv_open_device(list[i], &attr);
		if (ctx == NULL)
			err = errno_or(EIO);
		break;
	}
	ibv_free_device_list(list);
	if (ctx == NULL) {
		MDEVX_LOG(ERR, "rdma-core: cannot open DEVX context on %s: %s", spec,
			  strerror(err));
		return err;
	}
	*bctx = ctx;
	return 0;
}

#if MDEVX_HAVE_IBV_IMPORT_DEVICE
/*
 * Serialises the imports of the process: two of the same uverbs file at
 * once (two attaches with the same command fd) could otherwise each take
 * the other's reused descriptor number for its own dup below.
 */
static pthread_mutex_t import_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static int
rdma_import_device(int cmd_fd, void **bctx)
{
#if MDEVX_HAVE_IBV_IMPORT_DEVICE
	struct ibv_context *ctx;
	int fd, err;

	pthread_mutex_lock(&import_lock);
	/* Import a dup so that the caller keeps its fd on failure. */
	fd = fcntl(cmd_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		pthread_mutex_unlock(&import_lock);
		return err;
	}
	errno = 0;
	ctx = ibv_import_device(fd);
	if (ctx == NULL) {
		err = errno_or(EIO);
		/*
		 * rdma-core closes the fd it was given on some failure paths
		 * (inside the provider's import_context) and not on others
		 * (fstat, no such device). Once it is closed, another thread may
		 * own the same number: close it only if it still is our dup.
		 * If that cannot be told, leak one descriptor rather than close
		 * somebody else's. The same file under the reused number in
		 * another thread would still pass the check: import_lock keeps
		 * our own imports out of that window; a descriptor of the same
		 * file that the application receives meanwhile is not covered.
		 */
		switch (mdevx_fd_same_file(fd, cmd_fd)) {
		case 1:
			close(fd);
			break;
		case 0:
			break;
		default:
			MDEVX_LOG(WARNING, "import of fd %d failed; cannot tell whether "
				  "rdma-core closed its duplicate %d: left open", cmd_fd, fd);
			break;
		}
		pthread_mutex_unlock(&import_lock);
		return err;
	}
	pthread_mutex_unlock(&import_lock);
	close(cmd_fd);
	*bctx = ctx;
	return 0;
#else
	(void)cmd_fd;
	(void)bctx;
	return ENOTSUP;
#endif
}

static int
rdma_cmd_fd(void *bctx)
{
	return ((struct ibv_context *)bctx)->cmd_fd;
}

static int
rdma_close(void *bctx)
{
	return ibv_close_device(bctx);
}

static struct rdma_obj *
rdma_obj_new(struct ibv_context *ctx, enum rdma_obj_type type)
{
	struct rdma_obj *o = calloc(1, sizeof(*o));

	if (o != NULL) {
		o->ctx = ctx;
		o->type = type;
	}
	return o;
}

#if !MDEVX_USE_NATIVE_EXPORT
static uint32_t
be32_at(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return __builtin_bswap32(v);
}

/* Compatibility path: 0 unknown, 1 verified, -1 refused (process-wide: the
 * layout is a property of the loaded libmlx5). */
static atomic_int compat_state;

static void
compat_verify(struct ibv_context *ctx, struct mlx5dv_devx_obj *obj, const void *in,
	      const void *out)
{
	uint16_t opcode = (uint16_t)(be32_at(in, 0) >> 16);
	uint32_t id;

	if (atomic_load(&compat_state) != 0)
		return;
	if (opcode == RDMA_OP_ALLOC_FLOW_COUNTER)
		id = be32_at(out, 8);
	else if (opcode == RDMA_OP_CREATE_TIR)
		id = be32_at(out, 8) & 0xffffff;
	else
		return;
	if (mdevx_compat_check_layout(obj, ctx, id) == 0) {
		atomic_store(&compat_state, 1);
		MDEVX_LOG(INFO, "rdma-core %s: compatibility export path verified",
			  MDEVX_RDMA_CORE_VERSION);
	} else {
		atomic_store(&compat_state, -1);
	}
}

/*
 * Make sure the layout was checked; create a probe counter if needed. A
 * probe that cannot be had (counters exhausted, a transient error) is no
 * verdict on the layout: its errno is returned, and the next export or
 * import probes again. ENOTSUP only for a layout refused.
 */
static int
compat_ensure(struct ibv_context *ctx)
{
	uint32_t in[4] = { 0 }, out[4] = { 0 };
	struct mlx5dv_devx_obj *probe;
	int rc;

	if (atomic_load(&compat_state) == 0) {
		in[0] = __builtin_bswap32((uint32_t)RDMA_OP_ALLOC_FLOW_COUNTER << 16);
		errno = 0;
		probe = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
		if (probe == NULL) {
			rc = errno_or(EIO);
			MDEVX_LOG(ERR, "rdma-core compatibility path: probe flow counter "
				  "failed (%s, status %#x syndrome %#x), layout not verified",
				  strerror(rc), be32_at(out, 0) >> 24, be32_at(out, 4));
			return rc;
		}
		compat_verify(ctx, probe, in, out);
		rc = mlx5dv_devx_obj_destroy(probe);
		if (rc != 0)
			MDEVX_LOG(ERR, "rdma-core compatibility path: freeing the probe flow "
				  "counter failed (%s): one counter left on the device",
				  strerror(rc));
	}
	return atomic_load(&compat_state) == 1 ? 0 : ENOTSUP;
}
#endif

static int
rdma_obj_create(void *bctx, const void *in, size_t inlen, void *out, size_t outlen,
		void **bobj)
{
	struct ibv_context *ctx = bctx;
	struct rdma_obj *o = rdma_obj_new(ctx, RDMA_OBJ_DEVX);

	if (o == NULL)
		return ENOMEM;
	errno = 0;
	o->devx = mlx5dv_devx_obj_create(ctx, in, inlen, out, outlen);
	if (o->devx == NULL) {
		free(o);
		return errno_or(EIO);
	}
#if !MDEVX_USE_NATIVE_EXPORT
	compat_verify(ctx, o->devx, in, out);
#endif
	*bobj = o;
	return 0;
}

static int
rdma_obj_query(void *bobj, const void *in, size_t inlen, void *out, size_t outlen)
{
	struct rdma_obj *o = bobj;

	return mlx5dv_devx_obj_query(o->devx, in, inlen, out, outlen);
}

static int
rdma_obj_modify(void *bobj, const void *in, size_t inlen, void *out, size_t outlen)
{
	struct rdma_obj *o = bobj;

	return mlx5dv_devx_obj_modify(o->devx, in, inlen, out, outlen);
}

static int
rdma_obj_destroy(void *bobj)
{
	struct rdma_obj *o = bobj;
	int rc = mlx5dv_devx_obj_destroy(o->devx);

	if (rc == 0)
		free(o);
	return rc;
}

static int
rdma_general_cmd(void *bctx, const void *in, size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_general_cmd(bctx, in, inlen, out, outlen);
}

#if MDEVX_USE_NATIVE_EXPORT
/* ---- native rdma-core >= 63 path ---- */

static bool
native_available(void)
{
#if MDEVX_RDMA_CORE_STUB
	/* Weak references from the stand-in header: NULL when absent. */
	return &mlx5dv_devx_obj_export != NULL && &mlx5dv_devx_obj_import != NULL &&
	       &mlx5dv_devx_obj_unimport != NULL && &_mlx5dv_get_export_sizes != NULL;
#else
	return true;
#endif
}

static int
rdma_export_size(size_t *size)
{
	struct mlx5dv_export_sizes sizes = { 0 };

	if (!native_available())
		return ENOTSUP;
	mlx5dv_get_export_sizes(&sizes);
	*size = sizes.devx_obj_attrs_size;
	return 0;
}

static int
rdma_obj_export(void *bobj, void *data)
{
	struct rdma_obj *o = bobj;

	if (!native_available())
		return ENOTSUP;
	return mlx5dv_devx_obj_export(o->devx, data);
}

static int
rdma_obj_import(void *bctx, const void *data, void **bobj)
{
	struct rdma_obj *o;

	if (!native_available())
		return ENOTSUP;
	o = rdma_obj_new(bctx, RDMA_OBJ_DEVX);
	if (o == NULL)
		return ENOMEM;
	errno = 0;
	/* rdma-core does not write through data; its prototype lacks const. */
	o->devx = mlx5dv_devx_obj_import(bctx, (void *)(uintptr_t)data);
	if (o->devx == NULL) {
		free(o);
		return errno_or(EIO);
	}
	o->imported = true;
	*bobj = o;
	return 0;
}

static int
rdma_obj_unimport(void *bobj)
{
	struct rdma_obj *o = bobj;

	if (!native_available())
		return ENOTSUP;
	mlx5dv_devx_obj_unimport(o->devx);
	free(o);
	return 0;
}

#else
/* ---- compatibility path, rdma-core 38..62 ---- */

static int
rdma_export_size(size_t *size)
{
	*size = sizeof(struct mdevx_compat_export_attrs);
	return 0;
}

static int
rdma_obj_export(void *bobj, void *data)
{
	struct rdma_obj *o = bobj;
	const struct mdevx_compat_devx_obj *d = (const void *)o->devx;
	struct mdevx_compat_export_attrs a;
	int rc = compat_ensure(o->ctx);

	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.handle = d->handle;
	a.type = d->type;
	a.object_id = d->object_id;
	a.rx_icm_addr = d->rx_icm_addr;
	a.log_obj_range = d->log_obj_range;
	memcpy(data, &a, sizeof(a));
	return 0;
}

static int
rdma_obj_import(void *bctx, const void *data, void **bobj)
{
	struct mdevx_compat_export_attrs a;
	struct mdevx_compat_devx_obj *d;
	struct rdma_obj *o;
	int rc = compat_ensure(bctx);

	if (rc != 0)
		return rc;
	memcpy(&a, data, sizeof(a));
	o = rdma_obj_new(bctx, RDMA_OBJ_DEVX);
	/* Allocated like rdma-core allocates its own objects (calloc), so that
	 * mlx5dv_devx_obj_destroy() could free it as well. */
	d = calloc(1, sizeof(*d));
	if (o == NULL || d == NULL) {
		free(o);
		free(d);
		return ENOMEM;
	}
	d->context = bctx;
	d->handle = a.handle;
	d->type = a.type;
	d->object_id = a.object_id;
	d->rx_icm_addr = a.rx_icm_addr;
	d->log_obj_range = a.log_obj_range;
	o->devx = (struct mlx5dv_devx_obj *)(void *)d;
	o->imported = true;
	*bobj = o;
	return 0;
}

static int
rdma_obj_unimport(void *bobj)
{
	struct rdma_obj *o = bobj;

	free(o->devx);
	free(o);
	return 0;
}
#endif

static int
rdma_umem_reg(void *bctx, void *addr, size_t size, uint32_t access, void **bobj,
	      uint32_t *umem_id)
{
	struct rdma_obj *o = rdma_obj_new(bctx, RDMA_OBJ_UMEM);

	if (o == NULL)
		return ENOMEM;
	errno = 0;
	o->umem = mlx5dv_devx_umem_reg(bctx, addr, size, access);
	if (o->umem == NULL) {
		free(o);
		return errno_or(EIO);
	}
	*umem_id = o->umem->umem_id;
	*bobj = o;
	return 0;
}

static int
rdma_umem_dereg(void *bobj)
{
	struct rdma_obj *o = bobj;
	int rc = mlx5dv_devx_umem_dereg(o->umem);

	if (rc == 0)
		free(o);
	return rc;
}

static int
rdma_uar_alloc(void *bctx, void **bobj, uint32_t *page_id)
{
	struct rdma_obj *o = rdma_obj_new(bctx, RDMA_OBJ_UAR);

	if (o == NULL)
		return ENOMEM;
	errno = 0;
	o->uar = mlx5dv_devx_alloc_uar(bctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (o->uar == NULL) {
		free(o);
		return errno_or(EIO);
	}
	*page_id = o->uar->page_id;
	*bobj = o;
	return 0;
}

static int
rdma_uar_free(void *bobj)
{
	struct rdma_obj *o = bobj;

	mlx5dv_devx_free_uar(o->uar);
	free(o);
	return 0;
}

static int
rdma_pd_alloc(void *bctx, void **bobj, uint32_t *pdn)
{
	struct rdma_obj *o = rdma_obj_new(bctx, RDMA_OBJ_PD);
	struct mlx5dv_pd dvpd = { 0 };
	struct mlx5dv_obj dv = { 0 };
	int rc;

	if (o == NULL)
		return ENOMEM;
	errno = 0;
	o->pd = ibv_alloc_pd(bctx);
	if (o->pd == NULL) {
		free(o);
		return errno_or(EIO);
	}
	dv.pd.in = o->pd;
	dv.pd.out = &dvpd;
	rc = mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD);
	if (rc != 0) {
		ibv_dealloc_pd(o->pd);
		free(o);
		return rc > 0 ? rc : EIO;
	}
	*pdn = dvpd.pdn;
	*bobj = o;
	return 0;
}

static int
rdma_pd_free(void *bobj)
{
	struct rdma_obj *o = bobj;
	int rc = ibv_dealloc_pd(o->pd);

	if (rc == 0)
		free(o);
	return rc;
}

static int
rdma_query_eqn(void *bctx, uint32_t vector, uint32_t *eqn)
{
	return mlx5dv_devx_query_eqn(bctx, vector, eqn);
}

/* ---- root steering ---- */

/* A match buffer as rdma-core takes it (size, then the PRM bytes). */
static struct mlx5dv_flow_match_parameters *
match_params(const void *buf, size_t len)
{
	size_t words = (len + sizeof(uint64_t) - 1) / sizeof(uint64_t);
	struct mlx5dv_flow_match_parameters *p;

	p = calloc(1, sizeof(*p) + words * sizeof(uint64_t));
	if (p == NULL)
		return NULL;
	p->match_sz = len;
	memcpy(p->match_buf, buf, len);
	return p;
}

static int
rdma_matcher_create(void *bctx, const struct mdevx_matcher_attr *attr, void **bmatcher)
{
	struct mlx5dv_flow_matcher_attr ma;
	struct mlx5dv_flow_matcher *m;
	int rc = 0;

	memset(&ma, 0, sizeof(ma));
	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.priority = attr->priority;
	ma.match_criteria_enable = attr->match_criteria_enable;
	ma.match_mask = match_params(attr->mask, attr->mask_len);
	if (ma.match_mask == NULL)
		return ENOMEM;
#if MDEVX_HAVE_FLOW_MATCHER_FT_TYPE
	/* Without it the kernel picks the same table: NIC receive bypass. */
	ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	ma.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
#endif
	errno = 0;
	m = mlx5dv_create_flow_matcher(bctx, &ma);
	if (m == NULL)
		rc = errno_or(EIO);
	free(ma.match_mask);
	if (rc == 0)
		*bmatcher = m;
	return rc;
}

static int
rdma_matcher_destroy(void *bmatcher)
{
	return mlx5dv_destroy_flow_matcher(bmatcher);
}

static int
rdma_flow_create(void *bmatcher, const void *value, size_t len, int dest, void *dest_bobj,
		 void *cnt_bobj, uint32_t cnt_offset, void **bflow)
{
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_match_parameters *mv;
	struct ibv_flow *flow;
	size_t n = 0;
	int rc = 0;

	memset(act, 0, sizeof(act));
	if (dest == MDEVX_RULE_DEST_OBJ) {
		act[n].type = MLX5DV_FLOW_ACTION_DEST_DEVX;
		act[n++].obj = ((struct rdma_obj *)dest_bobj)->devx;
	} else if (dest == MDEVX_RULE_DEST_DROP) {
		act[n++].type = MLX5DV_FLOW_ACTION_DROP;
	}
	if (cnt_bobj != NULL) {
		struct mlx5dv_devx_obj *cnt = ((struct rdma_obj *)cnt_bobj)->devx;

		if (cnt_offset == 0) {
			act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
			act[n++].obj = cnt;
		} else {
#if MDEVX_HAVE_FLOW_COUNTER_OFFSET
			act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET;
			act[n].bulk_obj.obj = cnt;
			act[n++].bulk_obj.offset = cnt_offset;
#else
			MDEVX_LOG_FN(ERR, "mdevx_rule_create", "rdma-core %s cannot count on "
				     "counter %u of a bulk (MLX5DV_FLOW_ACTION_COUNTERS_DEVX_"
				     "WITH_OFFSET, rdma-core >= 60): errno=%d (%s)",
				     MDEVX_RDMA_CORE_VERSION, cnt_offset, ENOTSUP,
				     strerror(ENOTSUP));
			return ENOTSUP;
#endif
		}
	}
	mv = match_params(value, len);
	if (mv == NULL)
		return ENOMEM;
	errno = 0;
	flow = mlx5dv_create_flow(bmatcher, mv, n, act);
	if (flow == NULL)
		rc = errno_or(EIO);
	free(mv);
	if (rc == 0)
		*bflow = flow;
	return rc;
}

static int
rdma_flow_destroy(void *bflow)
{
	return ibv_destroy_flow(bflow);
}

static uint32_t
rdma_flow_handle(const void *bflow)
{
	return ((const struct ibv_flow *)bflow)->handle;
}

/*
 * What libmlx5's destroy_flow (mlx5_destroy_flow(), rdma-core 44 to 63)
 * receives: the struct ibv_flow at the start of its private struct
 * mlx5_flow { struct ibv_flow flow_id; struct mlx5_counters *mcounters; },
 * which it reads (mcounters NULL: no verbs counters object) and free()s on
 * success. Zeroed room past the known fields, should a later version read
 * more of them.
 */
struct rdma_flow_stub {
	struct ibv_flow flow;
	void *provider_priv[8];
};

static int
rdma_flow_destroy_handle(void *bctx, uint32_t handle)
{
	struct rdma_flow_stub *s = calloc(1, sizeof(*s));
	int rc;

	if (s == NULL)
		return ENOMEM;
	s->flow.context = bctx;
	s->flow.handle = handle;
	/* DESTROY_FLOW on the handle in the uverbs file of bctx; frees s on success. */
	rc = ibv_destroy_flow(&s->flow);
	if (rc != 0)
		free(s);
	return rc;
}

/* libmlx5 allocated the flow (calloc) with the struct ibv_flow first. */
static void
rdma_flow_forget(void *bflow)
{
	free(bflow);
}

const struct mdevx_backend_ops mdevx_backend_rdma_ops = {
	.name = "rdma",
	.id = MDEVX_BACKEND_RDMA,
	.open = rdma_open,
	.import_device = rdma_import_device,
	.cmd_fd = rdma_cmd_fd,
	.close = rdma_close,
	.obj_create = rdma_obj_create,
	.obj_query = rdma_obj_query,
	.obj_modify = rdma_obj_modify,
	.obj_destroy = rdma_obj_destroy,
	.general_cmd = rdma_general_cmd,
	.export_size = rdma_export_size,
	.obj_export = rdma_obj_export,
	.obj_import = rdma_obj_import,
	.obj_unimport = rdma_obj_unimport,
	.umem_reg = rdma_umem_reg,
	.umem_dereg = rdma_umem_dereg,
	.uar_alloc = rdma_uar_alloc,
	.uar_free = rdma_uar_free,
	.pd_alloc = rdma_pd_alloc,
	.pd_free = rdma_pd_free,
	.query_eqn = rdma_query_eqn,
	.matcher_create = rdma_matcher_create,
	.matcher_destroy = rdma_matcher_destroy,
	.flow_create = rdma_flow_create,
	.flow_destroy = rdma_flow_destroy,
	.flow_handle = rdma_flow_handle,
	.flow_destroy_handle = rdma_flow_destroy_handle,
	.flow_forget = rdma_flow_forget,
};
