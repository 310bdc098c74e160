/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Device commands through the backend, with one log line per failure (at
 * most MDEVX_CMD_LOG_BURST a second for the process) and a per-thread
 * record of every failure.
 *
 * Error decision: the public API returns the errno mapped from the PRM
 * status (mdevx_cmd_status_to_errno(), as rdma-core's internal callers and
 * the kernel do), not EREMOTEIO, so callers see EINVAL / ENOMEM / EBUSY /
 * EAGAIN / EIO like with older kernels. Status and syndrome are in the log
 * line and in mdevx_last_cmd_error().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mdevx_prm.h"

#include "mdevx_internal.h"

/*
 * A lost device fails every command, and a service polling it (the
 * counter snapshot service, a stats loop) would log one line per period
 * forever: at most this many failure lines are logged per second, the
 * first line of the next second logged says how many were not.
 */
#define MDEVX_CMD_LOG_BURST 10

/* The second counted (CLOCK_MONOTONIC, low 32 bits) << 32 | lines logged in it. */
static uint64_t log_window;
static uint64_t log_dropped;	/* lines not logged since the last one */

/*
 * Whether a failure line may be logged now (lock-free: any thread, and a
 * child forked meanwhile); if so, and lines were not logged before it,
 * @p note (empty from the caller) gets their count to append.
 */
static bool
log_allowed(char *note, size_t len)
{
	struct timespec ts;
	uint64_t cur, next, dropped;
	uint32_t sec;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sec = (uint32_t)ts.tv_sec;
	cur = __atomic_load_n(&log_window, __ATOMIC_RELAXED);
	do {
		if ((uint32_t)(cur >> 32) != sec) {
			next = (uint64_t)sec << 32 | 1;
		} else if ((uint32_t)cur < MDEVX_CMD_LOG_BURST) {
			next = cur + 1;
		} else {
			__atomic_add_fetch(&log_dropped, 1, __ATOMIC_RELAXED);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&log_window, &cur, next, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	dropped = __atomic_exchange_n(&log_dropped, 0, __ATOMIC_RELAXED);
	if (dropped > 0)
		snprintf(note, len, " (%" PRIu64 " command failures not logged before this one)",
			 dropped);
	return true;
}

static _Thread_local struct mdevx_cmd_error last_error;
static _Thread_local bool last_error_set;

static void
record(uint16_t opcode, uint8_t status, uint32_t syndrome, int err)
{
	last_error.opcode = opcode;
	last_error.status = status;
	last_error.syndrome = syndrome;
	last_error.err = err;
	last_error_set = true;
}

MDEVX_API int
mdevx_last_cmd_error(struct mdevx_cmd_error *err)
{
	if (err == NULL)
		return mdevx_ret(EINVAL);
	if (!last_error_set)
		return mdevx_ret(ENOENT);
	*err = last_error;
	return 0;
}

void
mdevx_cmd_fail(uint16_t opcode, const char *what, int err)
{
	char note[80] = "";

	record(opcode, 0, 0, err);
	if (log_allowed(note, sizeof(note)))
		MDEVX_LOG_PLAIN(ERR, "%s failed: errno=%d (%s)%s", what, err, strerror(err), note);
}

/* A failed device command (@p executed: by the device): recorded, and logged. */
static void
cmd_failed(uint16_t opcode, uint8_t status, uint32_t syndrome, int err, bool executed)
{
	char note[80] = "";

	record(opcode, status, syndrome, err);
	if (!log_allowed(note, sizeof(note)))
		return;
	MDEVX_LOG_PLAIN(ERR, "DevX %s (%#x) failed: errno=%d (%s) status=%#x (%s) syndrome=%#x%s%s",
			mdevx_cmd_op_name(opcode), opcode, err, strerror(err), status,
			mdevx_cmd_status_name(status), syndrome,
			executed ? "" : " (not executed by the device)", note);
}

/* Turn a backend return code and output mailbox into the API errno. */
static int
finish_opt(const void *in, size_t inlen, int rc, const void *out, size_t outlen, bool quiet)
{
	uint16_t opcode = 0;
	uint8_t status = 0;
	uint32_t syndrome = 0;
	int err;

	if (inlen >= 4)
		opcode = (uint16_t)MDEVX_GET(mbox_in, in, opcode);
	if (outlen >= MDEVX_ST_SZ_BYTES(mbox_out) && (rc == 0 || rc == EREMOTEIO)) {
		status = (uint8_t)MDEVX_GET(mbox_out, out, status);
		syndrome = MDEVX_GET(mbox_out, out, syndrome);
	}
	if (rc == 0 && status == MDEVX_CMD_STAT_OK)
		return 0;
	if (status != MDEVX_CMD_STAT_OK)
		err = mdevx_cmd_status_to_errno(status);
	else
		err = rc == EREMOTEIO ? EIO : rc;
	if (err == 0)
		err = EIO;
	if (!quiet)
		cmd_failed(opcode, status, syndrome, err, rc == 0 || rc == EREMOTEIO);
	return err;
}

static int
finish(const void *in, size_t inlen, int rc, const void *out, size_t outlen)
{
	return finish_opt(in, inlen, rc, out, outlen, false);
}

int
mdevx_cmd_create(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
		 size_t outlen, void **bobj)
{
	int rc;

	*bobj = NULL;
	memset(out, 0, outlen);
	rc = ctx->ops->obj_create(ctx->bctx, in, inlen, out, outlen, bobj);
	rc = finish(in, inlen, rc, out, outlen);
	if (rc != 0 && *bobj != NULL) {
		/* A status error with a created object cannot happen with
		 * rdma-core; do not leak it if a backend does it anyway. */
		ctx->ops->obj_destroy(*bobj);
		*bobj = NULL;
	}
	return rc;
}

int
mdevx_cmd_query(struct mdevx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen)
{
	int rc;

	memset(out, 0, outlen);
	rc = obj->ctx->ops->obj_query(obj->bobj, in, inlen, out, outlen);
	return finish(in, inlen, rc, out, outlen);
}

int
mdevx_cmd_modify(struct mdevx_obj *obj, const void *in, size_t inlen, void *out,
		 size_t outlen)
{
	int rc;

	memset(out, 0, outlen);
	rc = obj->ctx->ops->obj_modify(obj->bobj, in, inlen, out, outlen);
	return finish(in, inlen, rc, out, outlen);
}

int
mdevx_cmd_general(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
		  size_t outlen)
{
	int rc;

	memset(out, 0, outlen);
	rc = ctx->ops->general_cmd(ctx->bctx, in, inlen, out, outlen);
	return finish(in, inlen, rc, out, outlen);
}

/*
 * A lost device: the kernel fails every command of a disassociated uverbs
 * file (device removed or reset) with EIO, and every non-destroy command
 * of a device in internal error state with ENOLINK (EIO before Linux 6.0),
 * neither executed by the device. Its destroys are faked successful by the
 * kernel in internal error state; after a disassociation the kernel
 * destroyed the objects already, and rdma-core fails the destroy with EIO
 * (libibverbs' verbs objects release anyway only with
 * RDMAV_ALLOW_DISASSOC_DESTROY set): the library releases locally then,
 * as ibv_close_device() works.
 */
bool
mdevx_ctx_lost(struct mdevx_ctx *ctx, int err)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(query_hca_cap_out)];
	int rc;

	if (__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
		return true;
	if (err != EIO && err != ENOLINK)
		return false;
	MDEVX_SET(query_hca_cap_in, in, opcode, MDEVX_CMD_OP_QUERY_HCA_CAP);
	MDEVX_SET(query_hca_cap_in, in, op_mod, MDEVX_HCA_CAP_OP_MOD_GENERAL_CUR);
	memset(out, 0, sizeof(out));
	rc = ctx->ops->general_cmd(ctx->bctx, in, sizeof(in), out, sizeof(out));
	if (rc != EIO && rc != ENOLINK)
		return false;	/* answered (a status is an answer), or another failure */
	if (!__atomic_exchange_n(&ctx->lost, true, __ATOMIC_ACQ_REL))
		MDEVX_LOG(ERR, "%s: the device is lost (commands fail with errno=%d (%s) without "
			  "reaching it): objects are released locally from now on; close the "
			  "context", ctx->devstr, rc, strerror(rc));
	return true;
}

int
mdevx_cmd_general_quiet(struct mdevx_ctx *ctx, const void *in, size_t inlen, void *out,
			size_t outlen)
{
	int rc;

	memset(out, 0, outlen);
	rc = ctx->ops->general_cmd(ctx->bctx, in, inlen, out, outlen);
	return finish_opt(in, inlen, rc, out, outlen, true);
}
