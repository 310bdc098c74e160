/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * rdma-core backend: thin calls into libibverbs / libmlx5.
 *
 * Export / import / unimport: both paths are compiled into every build and
 * one is chosen at run time, once per process (rdma_rt_resolve()):
 * - native (rdma-core >= 63): mlx5dv_devx_obj_export, mlx5dv_devx_obj_import,
 *   mlx5dv_devx_obj_unimport and _mlx5dv_get_export_sizes, looked up with
 *   dlvsym(..., "MLX5_1.27") in the libmlx5 the process has loaded. No
 *   build refers to them at link time, so the library loads on any
 *   rdma-core; used when libmlx5 has all four.
 * - compatibility (rdma-core 38..62): the same behaviour over the private
 *   struct mlx5dv_devx_obj layout (mdevx_compat.c), producing and consuming
 *   the rdma-core 63 buffer layout (32 bytes). The layout is verified once
 *   per process on the first flow counter or TIR created through this
 *   backend; export/import before that create a single flow counter as a
 *   probe, check it and destroy it. A refused layout makes export and import
 *   fail with ENOTSUP for the rest of the process.
 * The meson option rdma_core_compat (MDEVX_RDMA_EXPORT_MODE) constrains the
 * choice: auto takes the native path when libmlx5 has it, native refuses
 * export/import (ENOTSUP) without it, compat never uses it. The choice and
 * the rdma-core release (from the file name of the loaded libmlx5) are
 * logged once, on the first rdma-core context the process opens or imports.
 *
 * Root steering (matchers and rules, mdevx_backend_rdma_flow.c) maps onto
 * mlx5dv_create_flow_matcher() and mlx5dv_create_flow(); see doc/driver.rst
 * for the mapping and for what the removal of a rule by handle relies on.
 *
 * Tested without a NIC on the software device: every device autotest runs
 * this backend through Debian's libibverbs and libmlx5 and the preload
 * library of `mlx5-swdev run`.
 */
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mdevx_build_config.h"
#include "mdevx_internal.h"
#include "mdevx_prm.h"

/* ---- export path, resolved at run time ---- */

/* Values of MDEVX_RDMA_EXPORT_MODE (meson option rdma_core_compat). */
#define RDMA_EXPORT_MODE_AUTO 0
#define RDMA_EXPORT_MODE_NATIVE 1
#define RDMA_EXPORT_MODE_COMPAT 2

/* Version node of the rdma-core 63 export calls in libmlx5.map. */
#define RDMA_NATIVE_VERSION "MLX5_1.27"

/*
 * Our own declarations of the rdma-core 63 interface (its prototypes, in
 * libmlx5.map node MLX5_1.27): the installed <infiniband/mlx5dv.h> of an
 * older rdma-core has none of them.
 */
struct rdma_export_sizes {
	uint32_t var_attrs_size;
	uint32_t devx_umem_attrs_size;
	uint32_t devx_obj_attrs_size;
};

typedef void (*rdma_get_export_sizes_fn)(struct rdma_export_sizes *sizes, size_t sizes_len);
typedef int (*rdma_devx_obj_export_fn)(struct mlx5dv_devx_obj *obj, void *data);
typedef struct mlx5dv_devx_obj *(*rdma_devx_obj_import_fn)(struct ibv_context *context,
							   void *data);
typedef void (*rdma_devx_obj_unimport_fn)(struct mlx5dv_devx_obj *obj);

#if MDEVX_HAVE_DEVX_OBJ_EXPORT
/*
 * The <infiniband/mlx5dv.h> of this build (rdma-core >= 63, or the stand-in
 * of test/rdma-core-63) declares the calls: ours must agree with them.
 * __typeof__ does not evaluate, so this makes no reference to the symbols.
 */
static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_devx_obj_export),
					   rdma_devx_obj_export_fn), "mlx5dv_devx_obj_export");
static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_devx_obj_import),
					   rdma_devx_obj_import_fn), "mlx5dv_devx_obj_import");
static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_devx_obj_unimport),
					   rdma_devx_obj_unimport_fn), "mlx5dv_devx_obj_unimport");
static_assert(__builtin_types_compatible_p(__typeof__(&_mlx5dv_get_export_sizes),
					   void (*)(struct mlx5dv_export_sizes *, size_t)),
	      "_mlx5dv_get_export_sizes");
static_assert(sizeof(struct mlx5dv_export_sizes) == sizeof(struct rdma_export_sizes),
	      "struct mlx5dv_export_sizes size");
static_assert(offsetof(struct mlx5dv_export_sizes, devx_obj_attrs_size) ==
	      offsetof(struct rdma_export_sizes, devx_obj_attrs_size),
	      "struct mlx5dv_export_sizes layout");
#endif

enum rdma_export_path {
	RDMA_PATH_COMPAT,
	RDMA_PATH_NATIVE,
	RDMA_PATH_NONE,		/**< rdma_core_compat=native without the calls */
};

/* What rdma_rt_resolve() found; written once, read-only afterwards. */
static struct {
	enum rdma_export_path path;
	bool have_native;	/**< libmlx5 has all four MLX5_1.27 calls */
	rdma_get_export_sizes_fn get_export_sizes;
	rdma_devx_obj_export_fn obj_export;
	rdma_devx_obj_import_fn obj_import;
	rdma_devx_obj_unimport_fn obj_unimport;
	char file[NAME_MAX + 1];	/**< libmlx5's file name, or "libmlx5" */
	char release[32];		/**< rdma-core release, or "unknown" */
} rdma_rt;

static pthread_once_t rdma_rt_once = PTHREAD_ONCE_INIT;
static pthread_once_t rdma_rt_log_once = PTHREAD_ONCE_INIT;

/*
 * rdma-core's release from the name of libmlx5's file: providers are
 * installed as lib<name>.so.1.<ABI>.<rdma-core version>, e.g.
 * libmlx5.so.1.24.44.0 for rdma-core 44.0. "unknown" for anything else
 * (the soname alone, a renamed file).
 */
static void
rdma_rt_release(const char *path)
{
	static const char prefix[] = "libmlx5.so.1.";
	const char *base = strrchr(path, '/');
	const char *rel;
	size_t i, n;

	base = base != NULL ? base + 1 : path;
	snprintf(rdma_rt.file, sizeof(rdma_rt.file), "%s", base);
	snprintf(rdma_rt.release, sizeof(rdma_rt.release), "unknown");
	if (strncmp(base, prefix, sizeof(prefix) - 1) != 0)
		return;
	/* Skip the ABI minor: the rest is the release. */
	rel = strchr(base + sizeof(prefix) - 1, '.');
	if (rel == NULL || rel == base + sizeof(prefix) - 1 || rel[1] < '0' || rel[1] > '9')
		return;
	rel++;
	n = strlen(rel);
	if (n >= sizeof(rdma_rt.release))
		return;
	for (i = 0; i < n; i++) {
		if (!((rel[i] >= '0' && rel[i] <= '9') || (rel[i] >= 'a' && rel[i] <= 'z') ||
		      (rel[i] >= 'A' && rel[i] <= 'Z') || rel[i] == '.' || rel[i] == '_' ||
		      rel[i] == '-'))
			return;
	}
	memcpy(rdma_rt.release, rel, n + 1);
}

/* Where the loaded libmlx5 lives, into rdma_rt.file and rdma_rt.release. */
static void
rdma_rt_locate(void *lib)
{
	struct link_map *map = NULL;
	const char *name = NULL;
	char *real;
	Dl_info info;

	if (lib != NULL && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL)
		name = map->l_name;
	/* No handle: the object that holds a libmlx5 function we link to. */
	if ((name == NULL || name[0] == '\0') &&
	    dladdr((void *)(uintptr_t)&mlx5dv_devx_obj_create, &info) != 0)
		name = info.dli_fname;
	if (name == NULL || name[0] == '\0') {
		snprintf(rdma_rt.file, sizeof(rdma_rt.file), "libmlx5");
		snprintf(rdma_rt.release, sizeof(rdma_rt.release), "unknown");
		return;
	}
	/* The link map names the soname link (libmlx5.so.1): follow it. */
	real = realpath(name, NULL);
	rdma_rt_release(real != NULL ? real : name);
	free(real);
}

/*
 * Look @p name up at RDMA_NATIVE_VERSION into the function pointer at @p fn
 * (NULL if absent). POSIX makes dlvsym()'s result usable as a function
 * pointer; the copy keeps ISO C's object-to-function conversion out.
 */
static void
rdma_rt_sym(void *lib, const char *name, void *fn)
{
	void *sym = dlvsym(lib != NULL ? lib : RTLD_DEFAULT, name, RDMA_NATIVE_VERSION);

	static_assert(sizeof(sym) == sizeof(rdma_devx_obj_export_fn), "function pointer size");
	memcpy(fn, &sym, sizeof(sym));
}

static void
rdma_rt_resolve(void)
{
	void *lib;

	/*
	 * The libmlx5 this library was linked with is loaded already:
	 * RTLD_NOLOAD only takes a reference on it, kept for the life of the
	 * process (the library needs libmlx5 anyway).
	 */
	lib = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_NOLOAD);
	rdma_rt_sym(lib, "_mlx5dv_get_export_sizes", &rdma_rt.get_export_sizes);
	rdma_rt_sym(lib, "mlx5dv_devx_obj_export", &rdma_rt.obj_export);
	rdma_rt_sym(lib, "mlx5dv_devx_obj_import", &rdma_rt.obj_import);
	rdma_rt_sym(lib, "mlx5dv_devx_obj_unimport", &rdma_rt.obj_unimport);
	rdma_rt.have_native = rdma_rt.get_export_sizes != NULL && rdma_rt.obj_export != NULL &&
			      rdma_rt.obj_import != NULL && rdma_rt.obj_unimport != NULL;
	rdma_rt_locate(lib);
	if (MDEVX_RDMA_EXPORT_MODE == RDMA_EXPORT_MODE_COMPAT)
		rdma_rt.path = RDMA_PATH_COMPAT;
	else if (rdma_rt.have_native)
		rdma_rt.path = RDMA_PATH_NATIVE;
	else if (MDEVX_RDMA_EXPORT_MODE == RDMA_EXPORT_MODE_NATIVE)
		rdma_rt.path = RDMA_PATH_NONE;
	else
		rdma_rt.path = RDMA_PATH_COMPAT;
}

static enum rdma_export_path
rdma_rt_path(void)
{
	pthread_once(&rdma_rt_once, rdma_rt_resolve);
	return rdma_rt.path;
}

static const char *
rdma_rt_path_name(enum rdma_export_path path)
{
	switch (path) {
	case RDMA_PATH_NATIVE:
		return "native";
	case RDMA_PATH_COMPAT:
		return "compat";
	default:
		return "none";
	}
}

/* The log line of doc/driver.rst, once per process. */
static void
rdma_rt_log(void)
{
	enum rdma_export_path path = rdma_rt_path();

	if (path == RDMA_PATH_NATIVE)
		MDEVX_LOG_PLAIN(NOTICE, "rdma-core %s (%s): export/import on the native path "
				"(mlx5dv_devx_obj_export@%s)", rdma_rt.release, rdma_rt.file,
				RDMA_NATIVE_VERSION);
	else if (path == RDMA_PATH_COMPAT)
		MDEVX_LOG_PLAIN(NOTICE, "rdma-core %s (%s): export/import on the compatibility "
				"path (%s)", rdma_rt.release, rdma_rt.file,
				rdma_rt.have_native ? "rdma_core_compat=compat" :
				"no mlx5dv_devx_obj_export@" RDMA_NATIVE_VERSION);
	else
		MDEVX_LOG_PLAIN(ERR, "rdma-core %s (%s): no export/import: built with "
				"rdma_core_compat=native and libmlx5 lacks "
				"mlx5dv_devx_obj_export@%s", rdma_rt.release, rdma_rt.file,
				RDMA_NATIVE_VERSION);
}

MDEVX_INTERNAL const char *
mdevx_rdma_export_path(char *release, size_t len)
{
	enum rdma_export_path path = rdma_rt_path();

	if (release != NULL && len > 0)
		snprintf(release, len, "%s", rdma_rt.release);
	return rdma_rt_path_name(path);
}

bool
mdevx_rdma_export_native(void)
{
	return rdma_rt_path() == RDMA_PATH_NATIVE;
}

static int
rdma_open(const char *spec, void **bctx)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0, i, err = ENODEV;

	pthread_once(&rdma_rt_log_once, rdma_rt_log);
	errno = 0;
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		/*
		 * No device list: ENOSYS when the kernel has no uverbs (no
		 * /sys/class/infiniband_verbs). For the caller that is no such
		 * device, as for an empty list.
		 */
		err = errno_or(ENODEV);
		MDEVX_LOG(DEBUG, "rdma-core: no device list (%s): no device %s", strerror(err),
			  spec);
		return err == ENOSYS ? ENODEV : err;
	}
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
	/* mdevx_open() logs the refusal: its line names the device string */
	if (ctx == NULL) {
		MDEVX_LOG(DEBUG, "rdma-core: cannot open DEVX context on %s: %s", spec,
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

	pthread_once(&rdma_rt_log_once, rdma_rt_log);
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
	pthread_once(&rdma_rt_log_once, rdma_rt_log);
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

/* ---- compatibility path (rdma-core 38..62): the layout check ---- */

/* Compatibility path: 0 unknown, 1 verified, -1 refused (process-wide: the
 * layout is a property of the loaded libmlx5). */
static atomic_int compat_state;

static void
compat_verify(struct ibv_context *ctx, struct mlx5dv_devx_obj *obj, const void *in,
	      const void *out)
{
	uint32_t opcode = MDEVX_GET(mbox_in, in, opcode);
	uint32_t id;

	if (atomic_load(&compat_state) != 0)
		return;
	/* The two creates whose output carries the id rdma-core records. */
	if (opcode == MDEVX_CMD_OP_ALLOC_FLOW_COUNTER)
		id = MDEVX_GET(alloc_flow_counter_out, out, flow_counter_id);
	else if (opcode == MDEVX_CMD_OP_CREATE_TIR)
		id = MDEVX_GET(create_tir_out, out, tirn);
	else
		return;
	if (mdevx_compat_check_layout(obj, ctx, id) == 0) {
		atomic_store(&compat_state, 1);
		MDEVX_LOG(INFO, "rdma-core %s: compatibility export path verified",
			  rdma_rt.release);
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
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)] = { 0 };
	struct mlx5dv_devx_obj *probe;
	int rc;

	if (atomic_load(&compat_state) == 0) {
		MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
		errno = 0;
		probe = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
		if (probe == NULL) {
			rc = errno_or(EIO);
			MDEVX_LOG(ERR, "rdma-core compatibility path: probe flow counter "
				  "failed (%s, status %#x syndrome %#x), layout not verified",
				  strerror(rc), MDEVX_GET(alloc_flow_counter_out, out, status),
				  MDEVX_GET(alloc_flow_counter_out, out, syndrome));
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
	if (rdma_rt_path() == RDMA_PATH_COMPAT)
		compat_verify(ctx, o->devx, in, out);
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

/* ---- native path: rdma-core >= 63, calls resolved by rdma_rt_resolve() ---- */

static int
native_export_size(size_t *size)
{
	struct rdma_export_sizes sizes = { 0 };

	rdma_rt.get_export_sizes(&sizes, sizeof(sizes));
	*size = sizes.devx_obj_attrs_size;
	return 0;
}

static int
native_obj_export(struct rdma_obj *o, void *data)
{
	int rc;

	errno = 0;
	rc = rdma_rt.obj_export(o->devx, data);
	if (rc == 0)
		return 0;
	return rc > 0 ? rc : errno_or(EIO);
}

static int
native_obj_import(struct ibv_context *ctx, const void *data, void **bobj)
{
	struct rdma_obj *o = rdma_obj_new(ctx, RDMA_OBJ_DEVX);

	if (o == NULL)
		return ENOMEM;
	errno = 0;
	/* rdma-core does not write through data; its prototype lacks const. */
	o->devx = rdma_rt.obj_import(ctx, (void *)(uintptr_t)data);
	if (o->devx == NULL) {
		free(o);
		return errno_or(EIO);
	}
	o->imported = true;
	*bobj = o;
	return 0;
}

static void
native_obj_unimport(struct rdma_obj *o)
{
	rdma_rt.obj_unimport(o->devx);
}

/* ---- compatibility path: our own export over the private layout ---- */

static int
compat_obj_export(struct rdma_obj *o, void *data)
{
	const struct mdevx_compat_devx_obj *d = (const void *)o->devx;
	struct mdevx_devx_obj_attrs a;
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
compat_obj_import(struct ibv_context *ctx, const void *data, void **bobj)
{
	struct mdevx_devx_obj_attrs a;
	struct mdevx_compat_devx_obj *d;
	struct rdma_obj *o;
	int rc = compat_ensure(ctx);

	if (rc != 0)
		return rc;
	memcpy(&a, data, sizeof(a));
	o = rdma_obj_new(ctx, RDMA_OBJ_DEVX);
	/* Allocated like rdma-core allocates its own objects (calloc), so that
	 * mlx5dv_devx_obj_destroy() could free it as well. */
	d = calloc(1, sizeof(*d));
	if (o == NULL || d == NULL) {
		free(o);
		free(d);
		return ENOMEM;
	}
	d->context = ctx;
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

/* ---- the backend ops: the path of the process ---- */

static int
rdma_export_size(size_t *size)
{
	switch (rdma_rt_path()) {
	case RDMA_PATH_NATIVE:
		return native_export_size(size);
	case RDMA_PATH_COMPAT:
		*size = sizeof(struct mdevx_devx_obj_attrs);
		return 0;
	default:
		return ENOTSUP;
	}
}

static int
rdma_obj_export(void *bobj, void *data)
{
	switch (rdma_rt_path()) {
	case RDMA_PATH_NATIVE:
		return native_obj_export(bobj, data);
	case RDMA_PATH_COMPAT:
		return compat_obj_export(bobj, data);
	default:
		return ENOTSUP;
	}
}

static int
rdma_obj_import(void *bctx, const void *data, void **bobj)
{
	switch (rdma_rt_path()) {
	case RDMA_PATH_NATIVE:
		return native_obj_import(bctx, data, bobj);
	case RDMA_PATH_COMPAT:
		return compat_obj_import(bctx, data, bobj);
	default:
		return ENOTSUP;
	}
}

/* Only objects rdma_obj_import() made come here: the path is the same. */
static int
rdma_obj_unimport(void *bobj)
{
	struct rdma_obj *o = bobj;

	if (rdma_rt_path() == RDMA_PATH_NATIVE)
		native_obj_unimport(o);
	else
		free(o->devx);
	free(o);
	return 0;
}

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
rdma_pd_handle(void *bobj, uint32_t *handle)
{
	const struct rdma_obj *o = bobj;

	if (o->type != RDMA_OBJ_PD)
		return EINVAL;
	*handle = o->pd->handle;
	return 0;
}

static int
rdma_query_eqn(void *bctx, uint32_t vector, uint32_t *eqn)
{
	return mlx5dv_devx_query_eqn(bctx, vector, eqn);
}

/* ---- a lost device ---- */

/*
 * A lost device: libmlx5 keeps its struct of an object whose destroy
 * failed (its memory goes with the process: a few dozen bytes per object
 * held at the loss); ours goes now. Under AddressSanitizer the kept block
 * is marked as left on purpose, not reported as a leak.
 */
static void
rdma_provider_left(void *p)
{
#ifdef __SANITIZE_ADDRESS__
	__lsan_ignore_object(p);
#else
	(void)p;
#endif
}

static void
rdma_obj_forget(void *bobj)
{
	struct rdma_obj *o = bobj;

	rdma_provider_left(o->devx);	/* the union's pointer, whatever the type */
	free(o);
}

static void
rdma_matcher_forget(void *bmatcher)
{
	rdma_provider_left(bmatcher);
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
	.pd_handle = rdma_pd_handle,
	.query_eqn = rdma_query_eqn,
	.matcher_create = mdevx_rdma_matcher_create,
	.matcher_destroy = mdevx_rdma_matcher_destroy,
	.flow_create = mdevx_rdma_flow_create,
	.flow_destroy = mdevx_rdma_flow_destroy,
	.flow_handle = mdevx_rdma_flow_handle,
	.flow_destroy_handle = mdevx_rdma_flow_destroy_handle,
	.flow_forget = mdevx_rdma_flow_forget,
	.obj_forget = rdma_obj_forget,
	.matcher_forget = rdma_matcher_forget,
};
