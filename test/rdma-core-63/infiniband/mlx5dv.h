/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-in for <infiniband/mlx5dv.h> of rdma-core >= 63, for building
 * libmdevx against the rdma-core 63 declarations on a system with an older
 * rdma-core:
 *
 *   meson setup build-stub -Drdma_core_stub_dir=$PWD/test/rdma-core-63
 *
 * It pulls in the installed header with #include_next and adds the
 * declarations of the four rdma-core 63 calls the native export path uses
 * (libmlx5.map node MLX5_1.27), as rdma-core 63 declares them. The library
 * resolves those calls at run time and refers to none of them at link
 * time; built with this header, it checks its own prototypes of them
 * against these (static assertions in mdevx_backend_rdma.c), and the
 * result must still load and run on the installed rdma-core, on the
 * compatibility path (test rdma_export_path, devtools/test.sh). A real
 * rdma-core 63 build never sees this file.
 */
#ifndef MDEVX_STUB_RDMA_CORE_63_MLX5DV_H
#define MDEVX_STUB_RDMA_CORE_63_MLX5DV_H

#include_next <infiniband/mlx5dv.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * config/ puts this directory on the include path only when the installed
 * header lacks these declarations (rdma-core < 63).
 */
#ifndef MLX5DV_HAVE_EXPORT_SIZES_STUB
#define MLX5DV_HAVE_EXPORT_SIZES_STUB 1

/* Sizes of the export buffers, per object type (rdma-core 63 API). */
struct mlx5dv_export_sizes {
	uint32_t var_attrs_size;
	uint32_t devx_umem_attrs_size;
	uint32_t devx_obj_attrs_size;
};

void _mlx5dv_get_export_sizes(struct mlx5dv_export_sizes *sizes, size_t sizes_len);

static inline void
mlx5dv_get_export_sizes(struct mlx5dv_export_sizes *sizes)
{
	_mlx5dv_get_export_sizes(sizes, sizeof(*sizes));
}

int mlx5dv_devx_obj_export(struct mlx5dv_devx_obj *obj, void *data);

struct mlx5dv_devx_obj *mlx5dv_devx_obj_import(struct ibv_context *context, void *data);

void mlx5dv_devx_obj_unimport(struct mlx5dv_devx_obj *obj);

#endif

#ifdef __cplusplus
}
#endif

#endif /* MDEVX_STUB_RDMA_CORE_63_MLX5DV_H */
