/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device: client library.
 *
 * The same calls as libibverbs / libmlx5 (rdma-core 63) offer for a real
 * NIC, answered by the swdev daemon over a Unix socket:
 *
 *   ibv_open_device + DEVX ctx   -> swdev_open()        (connect = uverbs file)
 *   ibv_import_device(cmd_fd)    -> swdev_import_device()
 *   ctx->cmd_fd                  -> swdev_cmd_fd()
 *   mlx5dv_devx_obj_create ...   -> swdev_obj_create() ...
 *   mlx5dv_devx_obj_export ...   -> swdev_obj_export() ... (rdma-core 63 semantics:
 *                                   purely local, no check, no command)
 *
 * Errors: NULL or -1 with errno, or a positive errno return, exactly where
 * the rdma-core call does the same. EREMOTEIO means the device ran the
 * command and failed; the output mailbox holds status and syndrome.
 *
 * Thread safety: one context may be used by several threads; calls are
 * serialised on the context's private reply channel.
 */
#ifndef SWDEV_CLIENT_H
#define SWDEV_CLIENT_H

#include <stddef.h>
#include <stdint.h>

/* The types shared with the engine (enum swdev_kind, struct swdev_counts). */
#include "swdev_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default daemon socket, overridden by $SWDEV_SOCKET. */
#define SWDEV_DEFAULT_SOCKET "/run/mlx5-swdev/swdev.sock"

struct swdev_ctx;

/** Local object, the counterpart of rdma-core's struct mlx5dv_devx_obj. */
struct swdev_obj {
	struct swdev_ctx *ctx;
	uint32_t handle;
	uint32_t type;		/**< enum mlx5_devx_obj_type (MDEVX_DEVX_TYPE_*), else 0 */
	uint32_t object_id;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
	uint8_t kind;		/**< local: 0 DEVX object, else PD/UAR/umem (private) */
};

/** rdma-core's struct mlx5dv_export_sizes. */
struct swdev_export_sizes {
	uint32_t var_attrs_size;
	uint32_t devx_umem_attrs_size;
	uint32_t devx_obj_attrs_size;	/**< 32 */
};

/**
 * Open device @p devname on the daemon at @p sock_path (NULL: $SWDEV_SOCKET,
 * else SWDEV_DEFAULT_SOCKET): a new uverbs file. NULL with errno
 * (ENOENT/ECONNREFUSED no daemon, ENODEV no such device, ...).
 */
struct swdev_ctx *swdev_open(const char *sock_path, const char *devname);
/**
 * Join the uverbs file behind @p cmd_fd (received from another process or
 * dup()ed). On success the context owns @p cmd_fd; on failure the caller
 * still owns it. NULL with errno (EBADF, ENOTSOCK, EPROTO).
 */
struct swdev_ctx *swdev_import_device(int cmd_fd);
/** The command fd: what ibv_context->cmd_fd is (pass it to import). */
int swdev_cmd_fd(const struct swdev_ctx *ctx);
/** Close the context and its command fd. 0 or errno. */
int swdev_close(struct swdev_ctx *ctx);
const char *swdev_ctx_devname(const struct swdev_ctx *ctx);
uint16_t swdev_ctx_uid(const struct swdev_ctx *ctx);
/** Device-unique id of the uverbs file (for the control path). */
uint32_t swdev_ctx_file_id(const struct swdev_ctx *ctx);

struct swdev_obj *swdev_obj_create(struct swdev_ctx *ctx, const void *in, size_t inlen,
				   void *out, size_t outlen);
int swdev_obj_query(struct swdev_obj *obj, const void *in, size_t inlen,
		    void *out, size_t outlen);
int swdev_obj_modify(struct swdev_obj *obj, const void *in, size_t inlen,
		     void *out, size_t outlen);
/** Destroy the kernel object (for everyone) and free @p obj on success. */
int swdev_obj_destroy(struct swdev_obj *obj);
int swdev_general_cmd(struct swdev_ctx *ctx, const void *in, size_t inlen,
		      void *out, size_t outlen);

/* rdma-core 63 export / import (local only). */
void swdev_get_export_sizes(struct swdev_export_sizes *sizes);
int swdev_obj_export(struct swdev_obj *obj, void *data);
struct swdev_obj *swdev_obj_import(struct swdev_ctx *ctx, const void *data);
void swdev_obj_unimport(struct swdev_obj *obj);

/* Verbs side. Each returns a local object (kind != 0) destroyed with
 * swdev_obj_destroy(); the number comes back through the pointer. */
struct swdev_obj *swdev_pd_alloc(struct swdev_ctx *ctx, uint32_t *pdn);
/**
 * ibv_import_pd(): a local object for the PD @p pd_handle of the context's
 * uverbs file (created by any process sharing the file; the handle comes
 * with the command fd), its pdn in @p pdn. swdev_obj_unimport() releases
 * the local object only (ibv_unimport_pd()); swdev_obj_destroy()
 * deallocates the PD for every holder (ibv_dealloc_pd()). NULL with errno:
 * ENOENT (no such handle in the file), EINVAL (the handle is not a PD),
 * EIO (daemon gone).
 */
struct swdev_obj *swdev_pd_import(struct swdev_ctx *ctx, uint32_t pd_handle, uint32_t *pdn);
struct swdev_obj *swdev_uar_alloc(struct swdev_ctx *ctx, uint32_t *page_id);
struct swdev_obj *swdev_umem_reg(struct swdev_ctx *ctx, void *addr, size_t size,
				 uint32_t access, uint32_t *umem_id);
int swdev_query_eqn(struct swdev_ctx *ctx, uint32_t vector, uint32_t *eqn);

/*
 * Root steering rules, as mlx5dv_create_flow_matcher() / mlx5dv_create_flow()
 * reach the kernel. Both return local objects destroyed with
 * swdev_obj_destroy(). @p act's objects must belong to the matcher's
 * context (DEVX TIR or flow table; DEVX counter bulk).
 */
struct swdev_flow_actions {
	uint8_t dest;			/**< enum swdev_flow_dest */
	struct swdev_obj *dest_obj;	/**< DEST_DEVX */
	struct swdev_obj *counter;	/**< NULL: no counter */
	uint32_t counter_offset;
};
struct swdev_obj *swdev_matcher_create(struct swdev_ctx *ctx, uint16_t priority,
				       uint8_t match_criteria_enable, const void *mask,
				       size_t mask_len);
struct swdev_obj *swdev_flow_create(struct swdev_obj *matcher, const void *value,
				    size_t value_len, const struct swdev_flow_actions *act);
/** The object's handle in its uverbs file. */
uint32_t swdev_obj_handle(const struct swdev_obj *obj);
/**
 * Destroy the root rule @p handle of the context's uverbs file, whoever
 * created it (every process of the file may): 0, ENOENT, EINVAL (not a
 * root rule).
 */
int swdev_flow_destroy_handle(struct swdev_ctx *ctx, uint32_t handle);

/*
 * Control path (tests): a separate socket, <sock_path>.ctl. @p devname is
 * a device of the daemon, by its name (mlx5_0) or by the device string a
 * program opens (rdma:mlx5_0).
 */
struct swdev_ctl;
struct swdev_ctl *swdev_ctl_open(const char *sock_path);
void swdev_ctl_close(struct swdev_ctl *ctl);
int swdev_ctl_get_counts(struct swdev_ctl *ctl, const char *devname, uint32_t file_id,
			 struct swdev_counts *counts);
int swdev_ctl_get_num_files(struct swdev_ctl *ctl, const char *devname, uint32_t *nfiles);
int swdev_ctl_inject_traffic(struct swdev_ctl *ctl, const char *devname, uint32_t counter_id,
			     uint64_t packets, uint64_t bytes);
int swdev_ctl_set_fault(struct swdev_ctl *ctl, const char *devname, uint16_t opcode,
			uint32_t count, uint8_t status, uint32_t syndrome, uint32_t delay_us);
/*
 * Receive path (needs a daemon in --test-mode): frames into the device's
 * port, statistics and captured frames out. All return 0 or a positive
 * errno.
 */
int swdev_ctl_send_frame(struct swdev_ctl *ctl, const char *devname, const void *frame,
			 size_t len, struct swdev_rx_info *info);
/** What a pcap replay did. */
struct swdev_pcap_summary {
	uint64_t frames;	/**< frames sent */
	uint64_t bytes;
	uint64_t verdicts[4];	/**< by enum swdev_rx_verdict */
};
/**
 * Replay a pcap file (read with libpcap, Ethernet link type) into the
 * port. The whole file is read and checked first: a malformed or truncated
 * file, a frame cut short by the capture (caplen < len) or one longer than
 * SWDEV_MAX_FRAME_LEN gives EINVAL (EBADMSG for a file libpcap cannot
 * read) and sends nothing.
 */
int swdev_ctl_send_pcap(struct swdev_ctl *ctl, const char *devname, const char *path,
			struct swdev_pcap_summary *sum);
int swdev_ctl_get_port_stats(struct swdev_ctl *ctl, const char *devname,
			     struct swdev_port_stats *stats);
int swdev_ctl_get_rq_stats(struct swdev_ctl *ctl, const char *devname, uint32_t rqn,
			   struct swdev_rq_stats *stats);
int swdev_ctl_get_rq_capture(struct swdev_ctl *ctl, const char *devname, uint32_t rqn,
			     uint32_t idx, void *buf, size_t buflen,
			     struct swdev_capture_info *ci);

/**
 * Commands with @p opcode the device has executed (or refused in
 * firmware) since it started, whatever file sent them: 0 or a positive
 * errno. For tests that count the device's load.
 */
int swdev_ctl_get_cmd_count(struct swdev_ctl *ctl, const char *devname, uint16_t opcode,
			    uint64_t *count);
/**
 * Test mode: disassociate every uverbs file of @p devname, as the kernel
 * does when a device is removed or reset: the daemon destroys the files'
 * objects and closes their connections, so that every later command of
 * those files' processes fails with EIO (and closing them works). New
 * opens of the device work. 0 and *nfiles (may be NULL) the files
 * disassociated, or a positive errno (ENODEV, EPERM outside test mode).
 */
int swdev_ctl_disassociate(struct swdev_ctl *ctl, const char *devname, uint32_t *nfiles);
/** Round trip to the daemon without touching any device: 0 when it answers. */
int swdev_ctl_ping(struct swdev_ctl *ctl);

#ifdef __cplusplus
}
#endif

#endif /* SWDEV_CLIENT_H */
