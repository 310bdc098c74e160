/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Helpers of the autotests on the software device, shared by
 * test_mlx5_devx_export.c and test_mlx5_devx_share*.c:
 *  - object ids, and the objects left on a device as the swdev daemon
 *    counts them (control channel);
 *  - the memzones of share registries ("mdevx_sh_*") and the EAL IPC
 *    socket of a process of the instance;
 *  - the fixture of a suite whose primary shares a sync memzone with the
 *    secondaries it starts: setup, teardown, a clean start of each case,
 *    waits on the memzone's counters;
 *  - the secondaries a test case starts (test_mp_spawn()), tracked so that
 *    a failed case leaves none running, and the checks in their roles.
 *  - the DPDK log of this process captured in memory (log_cap_*), to check
 *    the line a refusal logs.
 * The roles (REGISTER_TEST_SECONDARY) stay in the test files.
 */
#ifndef MDEVX_TEST_SHARE_UTIL_H
#define MDEVX_TEST_SHARE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "mdevx_share.h"	/* mdevx_share_imp_t, mdevx_share_rule_t */

struct mdevx_obj;
struct rte_memzone;
struct swdev_ctl;

/** The object id of @p o, UINT32_MAX when its info cannot be read. */
uint32_t test_obj_id(struct mdevx_obj *o);

/**
 * The number of objects on device @p dev (e.g. "mlx5_0") in @p total, as
 * the daemon behind @p ctl counts them, but for the UAR libmlx5 allocates
 * for each context it opens: 0, or the control channel's error.
 */
int test_dev_total(struct swdev_ctl *ctl, const char *dev, uint32_t *total);

/**
 * Wait up to @p ms milliseconds until @p dev holds no object but the UARs
 * libmlx5 keeps for the contexts still open (one each), and none at all once
 * no uverbs file is open (objects may take a moment to go once the last
 * holder exits): 0, or -1 after saying how many are left.
 */
int test_wait_dev_empty(struct swdev_ctl *ctl, const char *dev, unsigned int ms);

/** The number of share registry memzones ("mdevx_sh_*") of the instance. */
unsigned int test_registry_memzones(void);

/**
 * The path of the EAL IPC socket of process @p pid in our runtime
 * directory, in @p path of @p len bytes: 0, or -1 when there is none or it
 * does not fit.
 */
int test_mp_socket_of(pid_t pid, char *path, size_t len);

/** The address of memzone @p name (a primary's sync area), NULL without one. */
void *test_memzone_addr(const char *name);

/**
 * Wait until *@p v >= @p want, up to @p ms milliseconds: false at the
 * timeout, or as soon as *@p abort is nonzero (@p abort may be NULL).
 */
bool test_wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms,
			volatile uint32_t *abort);

/** At most this many children of a test case are tracked. */
#define TEST_CHILDREN_MAX 64

/*
 * Children of the current case: a failing assertion returns early, so the
 * teardown kills whatever is still running (only processes that are still
 * our unreaped children: a recycled pid is never signalled).
 */
struct test_children {
	pid_t pid[TEST_CHILDREN_MAX];
	int nb;
};

/** test_mp_spawn() of @p role in our instance, tracked in @p c: its pid, or -errno. */
pid_t test_children_spawn(struct test_children *c, const char *role, int argc,
			  const char *const argv[]);

/** Kill (SIGKILL) and reap the children of @p c still running, then forget them all. */
void test_children_kill(struct test_children *c);

/**
 * Wait up to @p timeout_ms for each child of @p c, then forget them: every
 * child must exit 0, a signal (128 + n) or a timeout is TEST_FAILED (said
 * for each child).
 */
int test_children_wait(struct test_children *c, unsigned int timeout_ms);

/*
 * A check in a secondary's role: when @p cond is false, say where and why
 * (printf arguments), set *@p failed (a volatile uint32_t *, evaluated
 * only then, may be NULL) for the primary to stop waiting, and go to the
 * role's label "out".
 */
#define TEST_ROLE_CHECK(failed, cond, ...) do {				\
	if (!(cond)) {							\
		volatile uint32_t *failed_ = (failed);			\
									\
		printf("[%d] %s:%d: ", (int)getpid(), __func__, __LINE__);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		fflush(stdout);						\
		if (failed_ != NULL)					\
			__atomic_store_n(failed_, 1, __ATOMIC_RELEASE);	\
		goto out;						\
	}								\
} while (0)

/**
 * Suite setup of a primary that starts secondaries on the software device:
 * TEST_SKIPPED without $SWDEV_SOCKET or in a secondary; otherwise the
 * control channel in @p ctl and a zeroed memzone @p mz_name of @p size
 * bytes in @p mz, or TEST_FAILED.
 */
int test_swdev_suite_setup(struct swdev_ctl **ctl, const struct rte_memzone **mz,
			   const char *mz_name, size_t size);

/** Its teardown: the children of @p c killed, the memzone freed, the channel closed. */
void test_swdev_suite_teardown(struct swdev_ctl **ctl, const struct rte_memzone **mz,
			       struct test_children *c);

/**
 * The start of a case: the first @p size bytes of the sync memzone @p mz
 * zeroed, and device @p dev must hold no object.
 */
int test_swdev_case_setup(struct swdev_ctl *ctl, const char *dev,
			  const struct rte_memzone *mz, size_t size);

/*
 * Files that processes of different instances (a killed primary's and the
 * test's) exchange: @p text written to <dir>/<name> atomically (a rename),
 * 0 or -1.
 */
int test_file_write(const char *dir, const char *name, const char *text);
/**
 * Read <dir>/<name> into @p buf (NUL-terminated, at most @p len - 1 bytes),
 * waiting up to @p wait_ms for it to appear: 0, or -1 at the timeout.
 */
int test_file_read(const char *dir, const char *name, char *buf, size_t len,
		   unsigned int wait_ms);
/**
 * Remove the exchange directory @p dir and the files in it (no
 * subdirectories): 0, or -1 with errno (a line is printed).
 */
int test_dir_remove(const char *dir);

/*
 * The log of this process, captured in memory: every line our two
 * libraries (lines "mdevx_share: ..." and "mdevx: ...") write between two
 * log_cap_take() calls, libmdevx_share's from @p share_level, libmdevx's
 * from INFO. The stream and the levels are restored by
 * log_cap_stop().
 */
struct log_cap {
	FILE *f;
	char *buf;
	size_t len, pos;
	int share_type, mdevx_type;
	int share_level, mdevx_level;
	uint32_t global_level;
	char text[8192];	/* what the last log_cap_take() took */
};

/** Start capturing (libmdevx_share's lines from @p share_level). 0, or -1. */
int log_cap_start(struct log_cap *c, uint32_t share_level);

/** Restore EAL's default stream and the levels; the capture is freed. */
void log_cap_stop(struct log_cap *c);

/**
 * The lines of @p prefix ("mdevx_share: ", or both libraries with NULL)
 * logged since the last take, in c->text; how many.
 */
unsigned int log_cap_take(struct log_cap *c, const char *prefix);

/**
 * Exactly one line (of @p prefix, or of both libraries with NULL) since
 * the last take, holding each of @p n1, @p n2, @p n3 (NULL: none). NULL,
 * or why not (the text is printed).
 */
const char *log_cap_once(struct log_cap *c, const char *prefix, const char *n1, const char *n2,
			 const char *n3);

/**
 * The match of the steering tests, made with mdevx_match_set(): IP
 * protocol UDP and UDP destination port @p port, as a matcher's @p mask
 * and a rule's @p value (MDEVX_MATCH_PARAM_LEN bytes each).
 */
void test_udp_mask_value(uint8_t *mask, uint8_t *value, uint16_t port);

/** A matcher of priority @p prio on the IP protocol and UDP destination port. */
struct mdevx_matcher *test_udp_matcher(struct mdevx_ctx *ctx, uint16_t prio);

/**
 * A rule of @p dev on matcher @p m (test_udp_matcher()) for UDP port
 * @p port to the imported TIR @p tir, counting on the imported bulk @p cnt
 * at offset 0 (id 0: none); its handle, id 0 with errno on failure.
 */
mdevx_share_rule_t test_udp_rule(struct mdevx_share_dev *dev, struct mdevx_matcher *m,
				 uint16_t port, mdevx_share_imp_t tir, mdevx_share_imp_t cnt);

#endif /* MDEVX_TEST_SHARE_UTIL_H */
