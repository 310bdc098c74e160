/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * mlx5_devx_share_rogue_autotest: libmdevx_share against processes of its
 * own DPDK instance that do not play by the rules.
 *
 * test_rogue_registry_writer (twice: the rogue acknowledges the close, or
 * stops acknowledging and keeps writing through it)
 *	a rogue secondary writes zeroes, 0xff, random bytes, each header
 *	field, chain and free links, record fields and bit flips into the
 *	registry memzone while an honest secondary imports, reads and
 *	unimports, and the primary publishes, withdraws and closes. Every
 *	withdrawal and the close succeed, the honest secondary only ever gets
 *	0 or a documented errno and, when a query succeeds, the values of the
 *	counter it imported; no process crashes or hangs; the device ends
 *	with 0 objects.
 * test_rogue_write_after_check
 *	the handle in a record's export buffer rewritten right after an
 *	import verified the record's checksum: the import is made from the
 *	bytes verified (its query reads its own counter) or refused.
 * test_rogue_key_collision
 *	two spellings of the device string with equal 32-bit FNV-1a hashes
 *	(found by brute force), opened as two share devices: withdrawing one's
 *	record revokes that device's import only.
 * test_rogue_forged_withdrawal
 *	a rogue secondary sends an honest one a WITHDRAW_ALL of their device
 *	(right device string and cookie) straight to its EAL IPC socket, as
 *	a one-way message and as a request: both are refused (not from the
 *	primary, says the honest one's log), the import stays live; the
 *	primary's own withdrawal then revokes it.
 *
 * test_rogue_ack_flood
 *	three rogues of another device flood their connections with
 *	acknowledgements: an honest secondary attaches and imports
 *	meanwhile, and a withdrawal gets its acknowledgement.
 * test_rogue_fd_flood
 *	1,000 requests to the primary and 1,000 forged withdrawals to a
 *	secondary, each carrying 8 descriptors: neither process's count of
 *	open descriptors changes, and a secondary attaches within its bound
 *	after the primary's flood.
 * test_rogue_conn_fds
 *	a secondary sends 100 messages on its connection carrying 8
 *	descriptors each (half of them of another size): the primary's count
 *	of open descriptors is the same once it read them.
 *
 * Needs $SWDEV_SOCKET (devtools/run-autotest.sh --swdev).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include <mdevx.h>
#include <mdevx_share.h>
#include <mdevx_share_internal.h>
#include <mdevx_share_private.h>
#include <mdevx_share_reg.h>
#include <swdev_client.h>

#include "process.h"
#include "test.h"
#include "test_share_util.h"

#define DEV "mlx5_0"
#define DEVSTR "rdma:" DEV
#define DEV2 "mlx5_1"
#define DEVSTR2 "rdma:" DEV2
#define SYNC_MZ "mdevx_t_rogue_sync"
#define CHILD_TIMEOUT_MS 60000
#define WAIT_MS 20000
#define NB_NAMES 16
#define BULK 128
#define SCRIBBLE_MS 4000	/* publish/withdraw rounds under the rogue, per variant */
#define DEVSTR_LEN 128		/* device strings of libmdevx_share: < 128 characters */

/* Shared between the test primary and its secondaries. */
struct rogue_sync {
	volatile uint32_t ready;
	volatile uint32_t go;
	volatile uint32_t closing;	/* the primary is about to close */
	volatile uint32_t rogue_quiet;	/* the rogue stopped writing, or acknowledging */
	volatile uint32_t stop;
	volatile uint32_t forged;	/* the forged withdrawals were sent */
	volatile int32_t holder_pid;
	volatile uint32_t failed;	/* a secondary failed: the primary stops waiting */
	/* the honest importer's account */
	volatile uint64_t rounds, imports, queries, verified, refused;
	volatile uint64_t rogue_rounds;
	volatile uint64_t errs[7];	/* refusals, by documented errno (see documented()) */
	/* the descriptor flood and the connection cases */
	volatile uint32_t phase;
	volatile int32_t victim_pid;
	volatile uint32_t handles[64];	/* rule handles of the honest secondaries */
	volatile uint32_t nb_handles;
	volatile uint64_t val[4];
	/* key collision: the two spellings and their counters' traffic */
	char devstr[2][DEVSTR_LEN];
	uint64_t packets[2], bytes[2];
};

static struct swdev_ctl *ctl;
static const struct rte_memzone *sync_mz;

static struct rogue_sync *
sync_area(void)
{
	return test_memzone_addr(SYNC_MZ);
}

/* Where a failed check tells the primary to stop waiting (NULL: nowhere). */
static volatile uint32_t *
failed_flag(void)
{
	struct rogue_sync *s = sync_area();

	return s != NULL ? &s->failed : NULL;
}

/* Wait until *v >= want, up to ms milliseconds, or until a secondary failed. */
static bool
wait_at_least(volatile uint32_t *v, uint32_t want, unsigned int ms)
{
	return test_wait_at_least(v, want, ms, failed_flag());
}

static void
sync_set(volatile uint32_t *v, uint32_t val)
{
	__atomic_store_n(v, val, __ATOMIC_RELEASE);
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t
rnd_seed(void)
{
	uint64_t s = test_now_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ULL;

	return s != 0 ? s : 1;
}

/* The traffic of a counter bulk: its counter 0 reads these. */
static uint64_t
id_packets(uint32_t id)
{
	return (uint64_t)id * 3 + 1;
}

static uint64_t
id_bytes(uint32_t id)
{
	return (uint64_t)id * 5 + 2;
}

/*
 * A new bulk on @p dev (device @p devname of the daemon) with id-derived
 * traffic on its counter 0 (or the given traffic), published as @p name.
 * 0 or -1.
 */
static int
publish_counter_on(struct mdevx_share_dev *dev, const char *devname, const char *name,
		   const uint64_t *packets, const uint64_t *bytes)
{
	struct mdevx_obj *cnt = mdevx_counter_alloc(mdevx_share_dev_ctx(dev), BULK);
	uint32_t id;

	if (cnt == NULL) {
		printf("counter alloc: %s\n", strerror(errno));
		return -1;
	}
	id = test_obj_id(cnt);
	if (swdev_ctl_inject_traffic(ctl, devname, id, packets != NULL ? *packets : id_packets(id),
				     bytes != NULL ? *bytes : id_bytes(id)) != 0) {
		printf("inject on counter %u failed\n", id);
		mdevx_obj_destroy(cnt);
		return -1;
	}
	if (mdevx_share_publish(dev, name, cnt) != 0) {
		printf("publish %s: %s\n", name, strerror(errno));
		mdevx_obj_destroy(cnt);
		return -1;
	}
	return 0;
}

static int
publish_counter(struct mdevx_share_dev *dev, const char *name, const uint64_t *packets,
		const uint64_t *bytes)
{
	return publish_counter_on(dev, DEV, name, packets, bytes);
}

/* Children of the current case; the teardown kills those still running. */
static struct test_children children;

/* Every child must exit 0: a signal (128 + n) or a timeout fails the case. */
static int
wait_children(void)
{
	return test_children_wait(&children, CHILD_TIMEOUT_MS);
}

/* A failed check says so to the primary, then leaves the role. */
#define ROLE_CHECK(cond, ...) TEST_ROLE_CHECK(failed_flag(), cond, __VA_ARGS__)

/* What a reader of a registry the rogue writes into may be told. */
static const int documented_errnos[] = {
	ENOENT, EBADMSG, EAGAIN, ESTALE, ENODEV, EXDEV, EPROTOTYPE,
};
static const char *const documented_names[] = {
	"ENOENT", "EBADMSG", "EAGAIN", "ESTALE", "ENODEV", "EXDEV", "EPROTOTYPE",
};

/* Is @p err documented? Counted in @p s when it is (s may be NULL). */
static bool
documented_count(int err, struct rogue_sync *s)
{
	for (unsigned int i = 0; i < RTE_DIM(documented_errnos); i++) {
		if (err == documented_errnos[i]) {
			if (s != NULL)
				__atomic_add_fetch(&s->errs[i], 1, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

static bool
documented(int err)
{
	return documented_count(err, NULL);
}

/* ------------------------------------------------------------------ */
/* Fixture                                                             */
/* ------------------------------------------------------------------ */

static struct mdevx_share_dev *pdev[2];

static int
suite_setup(void)
{
	return test_swdev_suite_setup(&ctl, &sync_mz, SYNC_MZ, sizeof(struct rogue_sync));
}

static void
suite_teardown(void)
{
	test_swdev_suite_teardown(&ctl, &sync_mz, &children);
}

static int
case_setup(void)
{
	return test_swdev_case_setup(ctl, DEV, sync_mz, sizeof(struct rogue_sync));
}

static void
case_teardown(void)
{
	struct rogue_sync *s = sync_mz->addr;

	sync_set(&s->stop, 1);
	sync_set(&s->go, 100);
	/* A failed case: let the children say why and exit, then kill the rest. */
	for (int i = 0; i < children.nb; i++)
		test_mp_wait(children.pid[i], 10000);
	children.nb = 0;
	for (int i = 0; i < 2; i++) {
		if (pdev[i] != NULL && mdevx_share_dev_close(pdev[i]) != 0)
			printf("share close: %s\n", strerror(errno));
		pdev[i] = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Rogue registry writer                                               */
/* ------------------------------------------------------------------ */

/*
 * What the rogue knows of the region: the layout of registry version 4
 * (drivers/common/mlx5/share/mdevx_share_reg_layout.h, struct reg_hdr and
 * struct reg_rec). Nothing checks that it is right: a wrong guess only
 * scribbles elsewhere.
 */
struct field {
	uint16_t off, len;
	const char *name;
};

static const struct field hdr_fields[] = {
	{ 0, 8, "magic" }, { 8, 2, "version" }, { 10, 2, "rec_size" }, { 12, 4, "closed" },
	{ 16, 4, "capacity" }, { 20, 4, "nb_buckets" }, { 24, 8, "buckets_off" },
	{ 32, 8, "records_off" }, { 40, 8, "total_size" }, { 48, 8, "cookie" },
	{ 56, 4, "count" }, { 60, 4, "reserved" },
};

#define REC_NEXT_OFF 4
#define REC_STATE_OFF 22
static const struct field rec_fields[] = {
	{ 0, 4, "seq" }, { 4, 4, "next" }, { 8, 8, "checksum" }, { 16, 4, "hash" },
	{ 20, 2, "kind" }, { 22, 2, "state" }, { 24, 8, "generation" }, { 32, 8, "cookie" },
	{ 40, 4, "owner_pid" }, { 44, 4, "object_id" }, { 48, 4, "size_or_tirn" },
	{ 52, 4, "export_len" }, { 56, 8, "rx_icm_addr" }, { 64, 48, "name" },
	{ 112, 128, "export_buf" },
};

enum scribble_op {
	SCR_ZERO,		/* a span of zeroes */
	SCR_FF,			/* a span of 0xff */
	SCR_RANDOM,		/* a span of random bytes */
	SCR_HEADER,		/* one header field, in turn */
	SCR_LINKS,		/* chain and free links, bucket heads */
	SCR_RECORD,		/* one field of a record */
	SCR_BITFLIP,		/* single bits anywhere */
	SCR_NB
};

struct scribbler {
	uint8_t *base;
	size_t size;
	uint8_t *buckets;	/* up to the records */
	size_t buckets_len;
	uint8_t *recs;
	size_t rec_len;
	uint32_t cap;
	uint8_t hdr[64];	/* as the rogue found it */
	uint64_t rng;
	uint64_t done[SCR_NB];
	unsigned int hdr_next;
};

/* A value to put in a field of @p len bytes (it holds @p cur). */
static void
field_value(struct scribbler *w, uint8_t *dst, size_t len)
{
	uint64_t v = 0, cur = 0;
	uint8_t buf[128];

	if (len > 8) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd(&w->rng);
		if (rnd(&w->rng) % 2 == 0)
			memset(buf, rnd(&w->rng) % 2 ? 0 : 0xff, len);
		memcpy(dst, buf, len);
		return;
	}
	memcpy(&cur, dst, len);
	switch (rnd(&w->rng) % 8) {
	case 0:
		v = 0;
		break;
	case 1:
		v = UINT64_MAX;
		break;
	case 2:
		v = cur + 1;
		break;
	case 3:
		v = cur - 1;
		break;
	case 4:
		v = w->cap + 1;		/* one past the end, as an index + 1 or a count */
		break;
	case 5:
		v = 0x40000001;		/* a capacity whose bucket count overflows */
		break;
	case 6:
		v = cur ^ (1ULL << (rnd(&w->rng) % (len * 8)));
		break;
	default:
		v = rnd(&w->rng);
		break;
	}
	memcpy(dst, &v, len);	/* little endian: the low bytes */
}

/* A link (index + 1) that leads nowhere good. */
static uint32_t
bad_link(struct scribbler *w, uint32_t self)
{
	switch (rnd(&w->rng) % 6) {
	case 0:
		return self + 1;			/* a loop onto itself */
	case 1:
		return w->cap + 1;			/* past the end */
	case 2:
		return UINT32_MAX;
	case 3:
		return 0;
	case 4:
		return (uint32_t)rnd(&w->rng);
	default:
		return (uint32_t)(rnd(&w->rng) % w->cap) + 1;	/* another slot */
	}
}

static uint8_t *
rec_at(struct scribbler *w, uint32_t idx)
{
	return w->recs + (size_t)idx * w->rec_len;
}

static void
scribble_span(struct scribbler *w, int op)
{
	size_t off = rnd(&w->rng) % w->size;
	size_t len = 1 + rnd(&w->rng) % 768;

	if (len > w->size - off)
		len = w->size - off;
	if (op == SCR_ZERO) {
		memset(w->base + off, 0, len);
	} else if (op == SCR_FF) {
		memset(w->base + off, 0xff, len);
	} else {
		for (size_t i = 0; i < len; i++)
			w->base[off + i] = (uint8_t)rnd(&w->rng);
	}
}

static void
scribble_links(struct scribbler *w)
{
	unsigned int n = 1 + rnd(&w->rng) % 8;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t a = (uint32_t)(rnd(&w->rng) % w->cap), link;
		uint16_t state;

		/* Free slots first (their links were the free list), then any. */
		for (unsigned int t = 0; t < 4; t++) {
			memcpy(&state, rec_at(w, a) + REC_STATE_OFF, sizeof(state));
			if (state == 0)
				break;
			a = (uint32_t)(rnd(&w->rng) % w->cap);
		}
		link = bad_link(w, a);
		memcpy(rec_at(w, a) + REC_NEXT_OFF, &link, sizeof(link));
		if (link >= 1 && link <= w->cap && link - 1 != a && rnd(&w->rng) % 2 == 0) {
			/* two slots that lead to each other */
			uint32_t back = a + 1;

			memcpy(rec_at(w, link - 1) + REC_NEXT_OFF, &back, sizeof(back));
		}
		if (w->buckets_len >= 4) {
			size_t b = rnd(&w->rng) % (w->buckets_len / 4);

			link = bad_link(w, a);
			memcpy(w->buckets + 4 * b, &link, sizeof(link));
		}
	}
}

static void
scribble_round(struct scribbler *w)
{
	int op = (int)(rnd(&w->rng) % SCR_NB);

	switch (op) {
	case SCR_ZERO:
	case SCR_FF:
	case SCR_RANDOM:
		scribble_span(w, op);
		break;
	case SCR_HEADER: {
		const struct field *f = &hdr_fields[w->hdr_next++ % RTE_DIM(hdr_fields)];

		field_value(w, w->base + f->off, f->len);
		break;
	}
	case SCR_LINKS:
		scribble_links(w);
		break;
	case SCR_RECORD: {
		const struct field *f = &rec_fields[rnd(&w->rng) % RTE_DIM(rec_fields)];

		field_value(w, rec_at(w, (uint32_t)(rnd(&w->rng) % w->cap)) + f->off, f->len);
		break;
	}
	default: {
		unsigned int n = 1 + rnd(&w->rng) % 8;

		for (unsigned int i = 0; i < n; i++) {
			size_t bit = rnd(&w->rng) % (w->size * 8);

			w->base[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		break;
	}
	}
	w->done[op]++;
	/*
	 * Half the time the header goes back to what it was, so that readers
	 * also meet scribbled records under a sound header (records come back
	 * as the primary rewrites them).
	 */
	if (rnd(&w->rng) % 2 == 0)
		memcpy(w->base, w->hdr, sizeof(w->hdr));
}

struct mz_find {
	const void *addr;
	size_t len;
	bool found;
};

static void
mz_find_cb(const struct rte_memzone *mz, void *arg)
{
	struct mz_find *f = arg;

	if (strncmp(mz->name, "mdevx_sh_", 9) == 0 && mz->addr == f->addr && mz->len >= f->len)
		f->found = true;
}

/*
 * The rogue: attach (for the registry's address and to answer
 * withdrawals), then write into the registry until told to stop. argv[0]:
 * "ack", stop writing when the primary is about to close (it frees the
 * memzone once everyone acknowledged); "mute", stop acknowledging instead
 * and keep writing through the close (the unacknowledged primary keeps the
 * memzone, marked closed) until the end.
 */
static int
role_rogue_writer(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	bool mute = argc > 0 && strcmp(argv[0], "mute") == 0;
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_share_reg *reg;
	struct scribbler w;
	struct mz_find f;
	size_t len;
	int ret = 1;

	memset(&w, 0, sizeof(w));
	w.rng = rnd_seed();
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	reg = mdevx_share_dev_reg(dev);
	ROLE_CHECK(reg != NULL, "no registry");
	w.base = mdevx_share_reg_base(reg);
	w.cap = mdevx_share_reg_capacity(reg);
	w.size = mdevx_share_reg_size(w.cap);
	ROLE_CHECK(w.base != NULL && w.size > 64, "registry of %u records", w.cap);
	/* The same memory as the memzone walk finds it. */
	f.addr = w.base;
	f.len = w.size;
	f.found = false;
	rte_memzone_walk(mz_find_cb, &f);
	ROLE_CHECK(f.found, "no mdevx_sh_ memzone at %p", (void *)w.base);
	w.recs = mdevx_share_reg_raw_record(reg, 0, &w.rec_len);
	ROLE_CHECK(w.recs != NULL && w.rec_len >= 256 &&
		   w.recs + (size_t)w.cap * w.rec_len == w.base + w.size, "record array");
	w.buckets = w.base + 64;
	w.buckets_len = (size_t)(w.recs - w.buckets);
	memcpy(w.hdr, w.base, sizeof(w.hdr));
	len = w.size;
	printf("[%d] rogue (%s): writing into %zu bytes at %p, %u records\n", (int)getpid(),
	       mute ? "mute" : "ack", len, (void *)w.base, w.cap);
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	for (uint64_t n = 0;; n++) {
		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			break;
		if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE) && !s->rogue_quiet) {
			if (!mute) {
				/* after this, the memzone may go back to the heap */
				sync_set(&s->rogue_quiet, 1);
				break;
			}
			mdevx_share_test_drop_acks(1);
			sync_set(&s->rogue_quiet, 1);
		}
		scribble_round(&w);
		__atomic_add_fetch(&s->rogue_rounds, 1, __ATOMIC_RELAXED);
		/* bursts, with breaks in which the primary rewrites records */
		if (n % 64 == 63)
			usleep(5000);
		else
			usleep((useconds_t)(rnd(&w.rng) % 200));
	}
	printf("[%d] rogue: %" PRIu64 " zero, %" PRIu64 " 0xff, %" PRIu64 " random spans, %"
	       PRIu64 " header fields, %" PRIu64 " link rounds, %" PRIu64 " record fields, %"
	       PRIu64 " bit flip rounds\n", (int)getpid(), w.done[SCR_ZERO], w.done[SCR_FF],
	       w.done[SCR_RANDOM], w.done[SCR_HEADER], w.done[SCR_LINKS], w.done[SCR_RECORD],
	       w.done[SCR_BITFLIP]);
	ROLE_CHECK(wait_at_least(&s->stop, 1, WAIT_MS), "no stop from the primary");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] rogue close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_writer, role_rogue_writer);

/*
 * The honest secondary: import a random name, take its object, read its
 * counter 0, unimport, until stop. Only 0 or documented errnos; a read
 * that succeeds gives the traffic of the very counter imported. Every
 * 16th import asks for a TIR, which no record is: it must never succeed.
 */
static int
role_honest(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	uint64_t rng = rnd_seed(), n = 0;
	mdevx_share_imp_t imp;
	int ret = 1, rc;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		enum mdevx_obj_kind kind = n++ % 16 == 15 ? MDEVX_OBJ_TIR : MDEVX_OBJ_FLOW_COUNTER;
		struct mdevx_counter_stats st;
		struct mdevx_obj *obj;
		uint32_t id = UINT32_MAX;
		char name[16];

		snprintf(name, sizeof(name), "c%u", (unsigned int)(rnd(&rng) % NB_NAMES));
		__atomic_add_fetch(&s->rounds, 1, __ATOMIC_RELAXED);
		rc = mdevx_share_import(dev, name, kind, &imp);
		if (rc != 0) {
			ROLE_CHECK(rc == -errno && documented_count(errno, s),
				   "import %s: %d (%s)", name, rc, strerror(-rc));
			__atomic_add_fetch(&s->refused, 1, __ATOMIC_RELAXED);
			if (rc == -ENODEV)
				usleep(100);	/* closed, or a scribbled flag: no spinning */
			continue;
		}
		ROLE_CHECK(kind == MDEVX_OBJ_FLOW_COUNTER, "%s imported as a TIR", name);
		__atomic_add_fetch(&s->imports, 1, __ATOMIC_RELAXED);
		obj = mdevx_share_import_obj(dev, imp);
		if (obj != NULL)
			id = test_obj_id(obj);
		else
			ROLE_CHECK(documented_count(errno, s), "import_obj %s: %s", name,
				   strerror(errno));
		rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
		if (rc == 0) {
			__atomic_add_fetch(&s->queries, 1, __ATOMIC_RELAXED);
			if (id != UINT32_MAX) {
				ROLE_CHECK(st.packets == id_packets(id) && st.bytes == id_bytes(id),
					   "%s, counter %u: %" PRIu64 "/%" PRIu64 ", want %" PRIu64
					   "/%" PRIu64, name, id, st.packets, st.bytes,
					   id_packets(id), id_bytes(id));
				__atomic_add_fetch(&s->verified, 1, __ATOMIC_RELAXED);
			}
		} else {
			ROLE_CHECK(documented_count(-rc, s), "query %s: %d (%s)", name, rc,
				   strerror(-rc));
		}
		ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport %s: %s", name,
			   strerror(errno));
	}
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports left");
	/* The primary closed the device. */
	rc = mdevx_share_import(dev, "c0", MDEVX_OBJ_FLOW_COUNTER, &imp);
	ROLE_CHECK(rc != 0 && documented(-rc), "import after the close: %d", rc);
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0) {
		printf("[%d] honest close: %s\n", (int)getpid(), strerror(errno));
		ret = 1;
	}
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_honest, role_honest);

static int
rogue_writer_run(const char *variant)
{
	/*
	 * A bound the honest secondary meets on a loaded 2-CPU machine: past
	 * it, the object would be destroyed under its import (documented).
	 */
	struct mdevx_share_conf conf = { .capacity = 64, .withdraw_timeout_ms = 2000 };
	struct rogue_sync *s = sync_mz->addr;
	const char *argv[] = { variant };
	bool published[NB_NAMES] = { false };
	uint64_t rng = rnd_seed(), end, t0;
	unsigned int nb_pub = 0, withdrawals = 0, publishes = 0, late = 0, acked;
	uint32_t total;
	char name[16];
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	for (unsigned int i = 0; i < NB_NAMES / 2; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		TEST_ASSERT_SUCCESS(publish_counter(pdev[0], name, NULL, NULL), "publish");
		published[i] = true;
		nb_pub++;
	}
	/* The honest one attaches to a sound registry, then the rogue comes. */
	TEST_ASSERT(test_children_spawn(&children, "rogue_honest", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "honest secondary not ready");
	TEST_ASSERT(test_children_spawn(&children, "rogue_writer", 1, argv) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "rogue not ready");
	t0 = test_now_ms();
	end = t0 + SCRIBBLE_MS;
	while (test_now_ms() < end) {
		unsigned int i = (unsigned int)(rnd(&rng) % NB_NAMES);

		snprintf(name, sizeof(name), "c%u", i);
		if (published[i]) {
			/* What it owns, from its own state: the memzone decides nothing. */
			rc = mdevx_share_withdraw(pdev[0], name, &acked);
			TEST_ASSERT_SUCCESS(rc, "withdraw %s: %s", name, strerror(-rc));
			late += acked < 2;
			published[i] = false;
			nb_pub--;
			withdrawals++;
		} else {
			TEST_ASSERT_SUCCESS(publish_counter(pdev[0], name, NULL, NULL),
					    "publish %s", name);
			published[i] = true;
			nb_pub++;
			publishes++;
		}
		TEST_ASSERT_EQUAL(mdevx_share_record_count(pdev[0]), nb_pub, "records");
		TEST_ASSERT(!s->failed, "a secondary failed");
	}
	TEST_ASSERT_SUCCESS(test_dev_total(ctl, DEV, &total), "counts");
	TEST_ASSERT_EQUAL(total, nb_pub, "objects on the device: %u, published %u", total,
			  nb_pub);
	sync_set(&s->closing, 1);
	TEST_ASSERT(wait_at_least(&s->rogue_quiet, 1, WAIT_MS), "rogue did not answer");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left after the close");
	if (strcmp(variant, "mute") == 0)
		usleep(200 * 1000);	/* the rogue writes on into the closed registry */
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	printf("%s: %u publishes, %u withdrawals (%u not acknowledged by both within the bound)"
	       " in %" PRIu64 " ms; rogue rounds %" PRIu64
	       "; honest: %" PRIu64 " rounds, %" PRIu64 " imports, %" PRIu64 " refused, %"
	       PRIu64 " reads, %" PRIu64 " of them checked\n", variant, publishes, withdrawals,
	       late, test_now_ms() - t0, s->rogue_rounds, s->rounds, s->imports, s->refused,
	       s->queries, s->verified);
	printf("%s: the honest secondary was told", variant);
	for (unsigned int i = 0; i < RTE_DIM(documented_errnos); i++)
		printf(" %s %" PRIu64, documented_names[i], s->errs[i]);
	printf("\n");
	TEST_ASSERT(s->rogue_rounds > 0 && s->verified > 0,
		    "the rogue never wrote, or the honest secondary never read a counter");
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

static int
test_rogue_registry_writer_ack(void)
{
	return rogue_writer_run("ack");
}

static int
test_rogue_registry_writer_mute(void)
{
	return rogue_writer_run("mute");
}

/* ------------------------------------------------------------------ */
/* A write into a record right after its checksum was verified         */
/* ------------------------------------------------------------------ */

/*
 * Where a record's export buffer holds the object's handle in its uverbs
 * file: the buffer at byte 112 of the record (doc/share.rst), after the
 * 48-byte library header, the handle first in the software device's
 * attributes (doc/driver.rst, struct mdevx_devx_obj_attrs).
 */
#define REC_EXPORT_OFF 112
#define EXPORT_HDR_LEN 48
#define REC_HANDLE_OFF (REC_EXPORT_OFF + EXPORT_HDR_LEN)

struct late_write {
	uint8_t *rec;		/* the raw record to write into */
	uint32_t idx;		/* its slot */
	uint32_t handle;	/* the handle it gets */
	volatile uint32_t armed;
	volatile uint32_t fired;
};

/*
 * Registry read hook (between a reader's copy and verification of a
 * record and its second sequence read): another process's write into
 * the export buffer, once. A rogue does not bump the sequence counter.
 */
static void
late_write_hook(uint32_t idx, void *arg)
{
	struct late_write *w = arg;

	if (idx != w->idx || !__atomic_exchange_n(&w->armed, 0, __ATOMIC_ACQ_REL))
		return;
	memcpy(w->rec + REC_HANDLE_OFF, &w->handle, sizeof(w->handle));
	w->fired = 1;
}

/*
 * A record's handle rewritten (to another live counter's) right after the
 * import verified the record's checksum: the import is made from the bytes
 * verified, or refused, never from the bytes written after the check (the
 * query of an import made from them is refused by the device, EINVAL).
 */
static int
test_rogue_write_after_check(void)
{
	struct mdevx_share_conf conf = { .capacity = 16 };
	struct mdevx_share_rec_info info[2];
	struct mdevx_counter_stats st;
	struct late_write w = { .armed = 0 };
	struct mdevx_share_reg *reg;
	uint32_t idx[2], h0, h1, id;
	mdevx_share_imp_t imp;
	size_t len;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	reg = mdevx_share_dev_reg(pdev[0]);
	for (int i = 0; i < 2; i++) {
		char name[8];

		snprintf(name, sizeof(name), "c%d", i);
		TEST_ASSERT_SUCCESS(publish_counter(pdev[0], name, NULL, NULL), "publish");
		TEST_ASSERT_SUCCESS(mdevx_share_reg_lookup(reg, name, &info[i], &idx[i], NULL),
				    "lookup %s", name);
		TEST_ASSERT(info[i].export_len >= EXPORT_HDR_LEN + sizeof(uint32_t),
			    "export buffer of %u bytes", info[i].export_len);
	}
	memcpy(&h0, info[0].export_buf + EXPORT_HDR_LEN, sizeof(h0));
	memcpy(&h1, info[1].export_buf + EXPORT_HDR_LEN, sizeof(h1));
	TEST_ASSERT(h0 != h1, "both counters have handle %u", h0);
	w.rec = mdevx_share_reg_raw_record(reg, idx[0], &len);
	TEST_ASSERT(w.rec != NULL && len >= REC_HANDLE_OFF + sizeof(h0) &&
		    memcmp(w.rec + REC_HANDLE_OFF, &h0, sizeof(h0)) == 0,
		    "no handle %u at byte %d of record %u", h0, REC_HANDLE_OFF, idx[0]);
	w.idx = idx[0];
	w.handle = h1;
	w.armed = 1;
	mdevx_share_reg_test_read_hook(late_write_hook, &w);
	rc = mdevx_share_import(pdev[0], "c0", MDEVX_OBJ_FLOW_COUNTER, &imp);
	mdevx_share_reg_test_read_hook(NULL, NULL);
	memcpy(w.rec + REC_HANDLE_OFF, &h0, sizeof(h0));	/* the record as it was */
	TEST_ASSERT(w.fired, "the hook did not run");
	TEST_ASSERT(rc == 0 || rc == -EBADMSG, "import: %d", rc);
	if (rc == 0) {
		id = info[0].object_id;
		rc = mdevx_share_counter_query(pdev[0], imp, 0, 1, 0, &st);
		TEST_ASSERT_SUCCESS(rc, "query of the import: %d (%s)", rc, strerror(-rc));
		TEST_ASSERT(st.packets == id_packets(id) && st.bytes == id_bytes(id),
			    "counter %u reads %" PRIu64 "/%" PRIu64, id, st.packets, st.bytes);
		TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev[0], imp), "unimport");
	}
	/* The record itself is sound: imported again, it reads its counter. */
	TEST_ASSERT_SUCCESS(mdevx_share_import(pdev[0], "c0", MDEVX_OBJ_FLOW_COUNTER, &imp),
			    "import again");
	TEST_ASSERT_SUCCESS(mdevx_share_counter_query(pdev[0], imp, 0, 1, 0, &st), "query");
	TEST_ASSERT_SUCCESS(mdevx_share_unimport(pdev[0], imp), "unimport");
	TEST_ASSERT_EQUAL(mdevx_share_dev_imports(pdev[0]), 0, "imports left");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Two device strings with equal 32-bit keys                           */
/* ------------------------------------------------------------------ */

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

static uint32_t
fnv1a(uint32_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/*
 * Two devices of the daemon whose device strings have equal FNV-1a keys,
 * found offline among "rdma:mlx5_k<hex>" (a birthday search; the case checks
 * the collision again): the test's daemon serves them (app/test/meson.build).
 */
#define COLLIDE_DEV_A "mlx5_ka5fd"
#define COLLIDE_DEV_B "mlx5_ka9b68"
static const char *const collide_dev[2] = { COLLIDE_DEV_A, COLLIDE_DEV_B };

/* Imports "c" of both devices; after each withdrawal, checks who lost it. */
static int
role_pair(int argc, char **argv)
{
	struct mdevx_share_dev *dev[2] = { NULL, NULL };
	struct rogue_sync *s = sync_area();
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp[2];
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	for (int i = 0; i < 2; i++) {
		dev[i] = mdevx_share_dev_attach(s->devstr[i]);
		ROLE_CHECK(dev[i] != NULL, "attach %s: %s", s->devstr[i], strerror(errno));
	}
	ROLE_CHECK(dev[0] != dev[1], "one device for both strings");
	for (int i = 0; i < 2; i++) {
		ROLE_CHECK(mdevx_share_import(dev[i], "c", MDEVX_OBJ_FLOW_COUNTER, &imp[i]) == 0,
			   "import on %c: %s", 'A' + i, strerror(errno));
		ROLE_CHECK(mdevx_share_counter_query(dev[i], imp[i], 0, 1, 0, &st) == 0 &&
			   st.packets == s->packets[i] && st.bytes == s->bytes[i],
			   "%c reads %" PRIu64, 'A' + i, st.packets);
	}
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	/* B's record was withdrawn: A's import is A's, live, with A's counter. */
	ROLE_CHECK(mdevx_share_counter_query(dev[0], imp[0], 0, 1, 0, &st) == 0,
		   "A's import after B's withdrawal: %s", strerror(errno));
	ROLE_CHECK(st.packets == s->packets[0] && st.bytes == s->bytes[0],
		   "A reads %" PRIu64 "/%" PRIu64 ", want %" PRIu64 "/%" PRIu64, st.packets,
		   st.bytes, s->packets[0], s->bytes[0]);
	ROLE_CHECK(mdevx_share_dev_imports(dev[0]) == 1, "A's imports: %u",
		   mdevx_share_dev_imports(dev[0]));
	ROLE_CHECK(mdevx_share_counter_query(dev[1], imp[1], 0, 1, 0, &st) == -ESTALE,
		   "B's import is not stale");
	ROLE_CHECK(mdevx_share_dev_imports(dev[1]) == 0, "B's imports: %u",
		   mdevx_share_dev_imports(dev[1]));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 2, WAIT_MS), "no go from the primary");
	ROLE_CHECK(mdevx_share_counter_query(dev[0], imp[0], 0, 1, 0, &st) == -ESTALE,
		   "A's import after A's withdrawal is not stale");
	for (int i = 0; i < 2; i++)
		ROLE_CHECK(mdevx_share_unimport(dev[i], imp[i]) == 0, "unimport");
	ret = 0;
out:
	for (int i = 0; i < 2; i++)
		if (dev[i] != NULL && mdevx_share_dev_close(dev[i]) != 0 && ret == 0)
			ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_pair, role_pair);

static int
test_rogue_key_collision(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 2000 };
	struct rogue_sync *s = sync_mz->addr;
	struct mdevx_share_record rec;
	unsigned int acked = 0;

	for (int i = 0; i < 2; i++)
		snprintf(s->devstr[i], DEVSTR_LEN, "rdma:%s", collide_dev[i]);
	TEST_ASSERT(strcmp(s->devstr[0], s->devstr[1]) != 0 &&
		    fnv1a(FNV_OFFSET, s->devstr[0], strlen(s->devstr[0])) ==
		    fnv1a(FNV_OFFSET, s->devstr[1], strlen(s->devstr[1])), "not a collision");
	printf("A: %s\nB: %s\n", s->devstr[0], s->devstr[1]);
	for (int i = 0; i < 2; i++) {
		pdev[i] = mdevx_share_dev_open(s->devstr[i], &conf);
		TEST_ASSERT_NOT_NULL(pdev[i], "open %c: %s", 'A' + i, strerror(errno));
		s->packets[i] = 1111u * (uint64_t)(i + 1);
		s->bytes[i] = 64u * s->packets[i] + (uint64_t)i;
		TEST_ASSERT_SUCCESS(publish_counter_on(pdev[i], collide_dev[i], "c",
						       &s->packets[i], &s->bytes[i]),
				    "publish on %c", 'A' + i);
	}
	TEST_ASSERT(test_children_spawn(&children, "rogue_pair", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "secondary not ready");
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev[1], "c", &acked), "withdraw on B");
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements");
	TEST_ASSERT_SUCCESS(mdevx_share_lookup(pdev[0], "c", &rec), "A's record");
	TEST_ASSERT(!rec.withdrawn, "A's record withdrawn");
	sync_set(&s->go, 1);
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "secondary did not check");
	TEST_ASSERT_SUCCESS(mdevx_share_withdraw(pdev[0], "c", &acked), "withdraw on A");
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements");
	sync_set(&s->go, 2);
	TEST_ASSERT_SUCCESS(wait_children(), "the secondary failed");
	for (int i = 0; i < 2; i++) {
		int rc = mdevx_share_dev_close(pdev[i]);

		pdev[i] = NULL;
		TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	}
	for (int i = 0; i < 2; i++)
		TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, collide_dev[i], 5000),
				    "objects left on %s", collide_dev[i]);
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* A withdrawal forged by a secondary                                  */
/* ------------------------------------------------------------------ */

/*
 * EAL's datagram on its IPC sockets (DPDK 22.11,
 * lib/eal/common/eal_common_proc.c): struct mp_msg_internal { int type;
 * struct rte_mp_msg msg; }, sent without the fds array, whose type is one
 * of enum mp_type { MP_MSG, MP_REQ, MP_REP, MP_IGN }. EAL hands both a
 * one-way message and a request to the action's handler.
 */
struct eal_mp_wire {
	int type;
	struct rte_mp_msg msg;
};
#define EAL_MP_MSG 0
#define EAL_MP_REQ 1
#define EAL_MP_WIRE_LEN (sizeof(struct eal_mp_wire) - sizeof(((struct rte_mp_msg *)NULL)->fds))
#define NB_FORGED 2		/* the forgery as a one-way message, then as a request */

/* What the handler logs when it refuses a withdrawal from another peer. */
#define REFUSAL_LOG "not the primary"

/* Occurrences of REFUSAL_LOG in the log file @p fd (read from its start). */
static int
refusals(int fd, char *text, size_t len)
{
	ssize_t n = pread(fd, text, len - 1, 0);
	int count = 0;

	text[n > 0 ? n : 0] = '\0';
	for (const char *p = text; (p = strstr(p, REFUSAL_LOG)) != NULL; p++)
		count++;
	return count;
}

/* S: import "c", let R forge, check the import and the log, then the real withdrawal. */
static int
role_victim(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	FILE *log = tmpfile();
	char text[8192];
	int ret = 1, rc, nb = 0;
	uint64_t end;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL && log != NULL, "no sync memzone or no log file");
	/* What our handler logs goes to this file, to be read back. */
	rte_openlog_stream(log);
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0, "import: %s",
		   strerror(errno));
	ROLE_CHECK(mdevx_share_counter_query(dev, imp, 0, 1, 0, &st) == 0 &&
		   st.packets == s->packets[0], "query before the forgery");
	s->holder_pid = getpid();
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->forged, 1, WAIT_MS), "no forgery");
	/*
	 * Withdrawals are one-way: nothing answers R. Our handler is done
	 * with both forgeries once it logged both refusals (without the check
	 * there are none: the import is looked at after 3 s).
	 */
	end = test_now_ms() + 3000;
	while ((nb = refusals(fileno(log), text, sizeof(text))) < NB_FORGED &&
	       test_now_ms() < end)
		usleep(1000);
	rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	ROLE_CHECK(rc == 0, "query after the forged withdrawal: %d (%s)", rc, strerror(-rc));
	ROLE_CHECK(st.packets == s->packets[0] && st.bytes == s->bytes[0],
		   "reads %" PRIu64 " after the forged withdrawal", st.packets);
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 1, "imports: %u",
		   mdevx_share_dev_imports(dev));
	rte_openlog_stream(NULL);
	printf("[%d] victim's log:\n%s", (int)getpid(), text);
	ROLE_CHECK(nb == NB_FORGED, "%d refusals in the log, want %d", nb, NB_FORGED);
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	/* The primary's own withdrawal is obeyed. */
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	ROLE_CHECK(rc == -ESTALE, "query after the primary's withdrawal: %d", rc);
	ROLE_CHECK(mdevx_share_dev_imports(dev) == 0, "imports: %u",
		   mdevx_share_dev_imports(dev));
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
	ret = 0;
out:
	rte_openlog_stream(NULL);
	if (log != NULL)
		fclose(log);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_victim, role_victim);

/*
 * R: attach (same device string and cookie as S), forge the primary's
 * WITHDRAW_ALL and send it to S's socket from a socket of our own in the
 * runtime directory: as a one-way message (what the primary sends), then
 * as a request.
 */
static int
role_forger(int argc, char **argv)
{
	struct sockaddr_un self = { .sun_family = AF_UNIX }, peer = { .sun_family = AF_UNIX };
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct eal_mp_wire out;
	bool bound = false;
	int ret = 1, fd = -1, n;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	memset(&out, 0, sizeof(out));
	ROLE_CHECK(mdevx_share_test_withdraw_msg(dev, UINT32_MAX, 0, &out.msg) == 0, "forge");
	ROLE_CHECK(test_mp_socket_of(s->holder_pid, peer.sun_path, sizeof(peer.sun_path)) == 0,
		   "no IPC socket of pid %d", (int)s->holder_pid);
	/* Not mp_socket_*: the primary's broadcasts must not come here. */
	n = snprintf(self.sun_path, sizeof(self.sun_path), "%s/rogue_%d",
		     rte_eal_get_runtime_dir(), (int)getpid());
	ROLE_CHECK(n > 0 && (size_t)n < sizeof(self.sun_path), "socket path");
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ROLE_CHECK(fd >= 0, "socket: %s", strerror(errno));
	unlink(self.sun_path);
	ROLE_CHECK(bind(fd, (struct sockaddr *)&self, sizeof(self)) == 0, "bind: %s",
		   strerror(errno));
	bound = true;
	for (int i = 0; i < NB_FORGED; i++) {
		struct iovec iov = { .iov_base = &out, .iov_len = EAL_MP_WIRE_LEN };
		struct msghdr mh = {
			.msg_name = &peer, .msg_namelen = sizeof(peer),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		ssize_t r;

		out.type = i == 0 ? EAL_MP_MSG : EAL_MP_REQ;
		r = sendmsg(fd, &mh, 0);
		ROLE_CHECK(r == (ssize_t)EAL_MP_WIRE_LEN, "sendmsg to %s: %s", peer.sun_path,
			   strerror(errno));
	}
	printf("[%d] forged WITHDRAW_ALL (%s) sent to %s as a message and as a request\n",
	       (int)getpid(), out.msg.name, peer.sun_path);
	sync_set(&s->forged, 1);
	ROLE_CHECK(wait_at_least(&s->stop, 1, WAIT_MS), "no stop from the primary");
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (bound)
		unlink(self.sun_path);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_forger, role_forger);

static int
test_rogue_forged_withdrawal(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 2000 };
	struct rogue_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	s->packets[0] = 4242;
	s->bytes[0] = 4242 * 64;
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", &s->packets[0], &s->bytes[0]),
			    "publish");
	TEST_ASSERT(test_children_spawn(&children, "rogue_victim", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "victim not ready");
	TEST_ASSERT(test_children_spawn(&children, "rogue_forger", 0, NULL) > 0, "spawn");
	if (!wait_at_least(&s->ready, 2, WAIT_MS)) {
		sync_set(&s->stop, 1);
		wait_children();
		TEST_ASSERT(false, "the victim's import did not survive the forgery");
	}
	/* Both secondaries attached: both acknowledge the real one. */
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(acked, 2, "acknowledgements");
	sync_set(&s->go, 1);
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Descriptors sent with rte_mp messages                               */
/* ------------------------------------------------------------------ */

#define FD_FLOOD 1000		/* messages carrying descriptors */
#define FD_PER_MSG RTE_MP_MAX_FD_NUM

/* Open descriptors of this process (/proc/self/fd), or -1. */
static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;		/* the directory's own */
}

/*
 * Send @p msg (as @p type) @p nb times to the IPC socket @p to, from a
 * socket of our own bound in the runtime directory, each carrying
 * FD_PER_MSG descriptors (/dev/null). With @p await, each request's reply
 * is read before the next is sent. 0 or -1.
 */
static int
send_with_fds(const char *to, int type, const struct rte_mp_msg *msg, int nb, bool await)
{
	struct sockaddr_un self = { .sun_family = AF_UNIX }, peer = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(sizeof(int) * FD_PER_MSG)];
	struct eal_mp_wire out, in;
	int fd = -1, nul = -1, ret = -1;
	struct timeval tv = { .tv_sec = 5 };

	snprintf(peer.sun_path, sizeof(peer.sun_path), "%s", to);
	snprintf(self.sun_path, sizeof(self.sun_path), "%s/rogue_fd_%d",
		 rte_eal_get_runtime_dir(), (int)getpid());
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(self.sun_path);
	if (nul < 0 || fd < 0 || bind(fd, (struct sockaddr *)&self, sizeof(self)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
		printf("rogue socket: %s\n", strerror(errno));
		goto out;
	}
	memset(&out, 0, sizeof(out));
	out.type = type;
	out.msg = *msg;
	out.msg.num_fds = FD_PER_MSG;	/* as rte_mp says it, with every descriptor */
	for (int i = 0; i < nb; i++) {
		struct iovec iov = { .iov_base = &out, .iov_len = EAL_MP_WIRE_LEN };
		struct msghdr mh = {
			.msg_name = &peer, .msg_namelen = sizeof(peer),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * FD_PER_MSG);
		for (int k = 0; k < FD_PER_MSG; k++)
			memcpy(CMSG_DATA(c) + k * sizeof(int), &nul, sizeof(int));
		if (sendmsg(fd, &mh, 0) != (ssize_t)EAL_MP_WIRE_LEN) {
			printf("sendmsg %d to %s: %s\n", i, to, strerror(errno));
			goto out;
		}
		if (await && recv(fd, &in, sizeof(in), 0) <= 0) {
			printf("no reply to request %d: %s\n", i, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (nul >= 0)
		close(nul);
	unlink(self.sun_path);
	return ret;
}

/*
 * S: attach within its bound after the primary's flood, count our
 * descriptors, let the primary flood us with forged withdrawals carrying
 * descriptors, then count again.
 */
static int
role_fd_victim(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	mdevx_share_imp_t imp;
	uint64_t t0;
	int ret = 1, before, after = -1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	t0 = test_now_ms();
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach after the flood: %s", strerror(errno));
	ROLE_CHECK(test_now_ms() - t0 < 5000, "attach took %" PRIu64 " ms",
		   test_now_ms() - t0);
	ROLE_CHECK(mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0,
		   "import: %s", strerror(errno));
	/* A message to the primary first: whatever it opens to send is open before. */
	mdevx_share_test_rule_msg(dev, 0, 0xdead0);
	before = count_fds();
	s->victim_pid = getpid();
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	/* The primary's withdrawal of "c" comes after the forged ones: they are handled. */
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	after = count_fds();
	printf("[%d] descriptors: %d before %d forged withdrawals carrying %d each, %d after\n",
	       (int)getpid(), before, FD_FLOOD, FD_PER_MSG, after);
	ROLE_CHECK(after == before, "descriptors: %d before, %d after", before, after);
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_fd_victim, role_fd_victim);

static int
test_rogue_fd_flood(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 5000 };
	struct rogue_sync *s = sync_mz->addr;
	char own[PATH_MAX], victim[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	struct rte_mp_msg msg;
	unsigned int acked = 0;
	int before, after, rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", NULL, NULL), "publish");
	/* Requests to the primary: a message of ours (here a withdrawal, refused). */
	TEST_ASSERT_SUCCESS(mdevx_share_test_withdraw_msg(pdev[0], 5, 1, &msg), "forge");
	snprintf(own, sizeof(own), "%s/mp_socket", rte_eal_get_runtime_dir());
	before = count_fds();
	TEST_ASSERT_SUCCESS(send_with_fds(own, EAL_MP_REQ, &msg, FD_FLOOD, true), "flood");
	after = count_fds();
	printf("primary: descriptors %d before %d requests carrying %d each, %d after\n",
	       before, FD_FLOOD, FD_PER_MSG, after);
	TEST_ASSERT_EQUAL(after, before, "the primary's descriptors");
	/* An attach still works, within its bound (the role checks it). */
	TEST_ASSERT(test_children_spawn(&children, "rogue_fd_victim", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "victim not ready");
	TEST_ASSERT_SUCCESS(test_mp_socket_of(s->victim_pid, victim, sizeof(victim)),
			    "no IPC socket of the victim");
	TEST_ASSERT_SUCCESS(send_with_fds(victim, EAL_MP_MSG, &msg, FD_FLOOD, false),
			    "flood of the secondary");
	/* Handled in order: its acknowledgement says the forged ones were read. */
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements");
	sync_set(&s->go, 1);
	TEST_ASSERT_SUCCESS(wait_children(), "the secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Forged acknowledgements and detaches, phantom peers                 */
/* ------------------------------------------------------------------ */

/* What libmdevx_share used to read acknowledgements on; nothing now. */
#define OLD_ACK_SOCK "mdevx_share_ack"

/*
 * Send @p p as a message of the library would go, with SCM_CREDENTIALS
 * naming process @p as_pid (root may): on the connection @p conn
 * (-1: none) and to the old acknowledgement socket's path if there is a
 * socket there. How many were sent.
 */
static int
send_forged(int conn, const struct mp_msg *p, pid_t as_pid)
{
	struct sockaddr_un old = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct ucred cred = { .pid = as_pid, .uid = getuid(), .gid = getgid() };
	int nb = 0, fd;

	snprintf(old.sun_path, sizeof(old.sun_path), "%s/%s", rte_eal_get_runtime_dir(),
		 OLD_ACK_SOCK);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (int k = 0; k < 2; k++) {
		struct iovec iov = { .iov_base = (void *)(uintptr_t)p, .iov_len = sizeof(*p) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		int out = k == 0 ? conn : fd;

		if (out < 0)
			continue;
		if (k == 1) {
			mh.msg_name = &old;
			mh.msg_namelen = sizeof(old);
		}
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(cred));
		memcpy(CMSG_DATA(c), &cred, sizeof(cred));
		if (sendmsg(out, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(*p))
			nb++;
	}
	if (fd >= 0)
		close(fd);
	return nb;
}

/*
 * A socket in the runtime directory named as a secondary's IPC socket:
 * the primary's notifications to every secondary come here too. -1 or
 * the descriptor; @p path receives its path.
 */
static int
sniffer_open(char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_usec = 20000 };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mp_socket_%d_sniffer",
		 rte_eal_get_runtime_dir(), (int)getpid());
	snprintf(path, len, "%s", sa.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(sa.sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* V: attach, import "c", then (stopped by the primary meanwhile) see it revoked. */
static int
role_ack_victim(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	int ret = 1, rc;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	ROLE_CHECK(mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0, "import: %s",
		   strerror(errno));
	s->victim_pid = getpid();
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	ROLE_CHECK(rc == -ESTALE, "query after the withdrawal: %d", rc);
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_ack_victim, role_ack_victim);

/*
 * R: attached too; reads the primary's withdrawal notifications on a
 * socket named as a secondary's, and answers each with an
 * acknowledgement naming the victim (SCM_CREDENTIALS with its pid), on
 * our own connection and on the old acknowledgement socket.
 */
static int
role_ack_forger(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	int ret = 1, fd = -1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	fd = sniffer_open(path, sizeof(path));
	ROLE_CHECK(fd >= 0, "sniffer socket: %s", strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!s->stop) {
		struct eal_mp_wire in;
		struct mp_msg req, ack;
		ssize_t n = recv(fd, &in, sizeof(in), 0);

		if (n < (ssize_t)EAL_MP_WIRE_LEN || strcmp(in.msg.name, MP_ACTION) != 0 ||
		    share_mp_msg_unpack(&in.msg, &req) != 0)
			continue;
		if (req.hdr.op != MP_OP_WITHDRAW)
			continue;
		share_mp_msg_init(&ack, MP_OP_ACK, req.hdr.devstr, req.hdr.cookie);
		ack.ack.op = req.hdr.op;
		ack.ack.rec = req.withdraw.rec;
		ack.ack.seq = req.withdraw.seq;
		for (int k = 0; k < 8; k++)
			s->val[0] += send_forged(mdevx_share_test_conn_fd(dev), &ack,
						 s->victim_pid);
	}
	ret = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_ack_forger, role_ack_forger);

/* Is process @p pid in state @p state (/proc/<pid>/stat: T stopped, Z zombie)? */
static bool
proc_state_is(pid_t pid, char state)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL)
		z = p[1] == ' ' && p[2] == state;
	fclose(f);
	return z;
}

/* Wait up to WAIT_MS for process @p pid to be in state @p state. */
static bool
wait_proc_state(pid_t pid, char state)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	while (!proc_state_is(pid, state) && test_now_ms() < end)
		usleep(1000);
	return proc_state_is(pid, state);
}

/*
 * Forged acknowledgements: the victim is stopped, the rogue answers each
 * notification in its name (as root, SCM_CREDENTIALS with its pid). The
 * withdrawal waits its whole bound for the victim all the same, and
 * counts the rogue's own acknowledgement only.
 */
static int
test_rogue_forged_ack(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 1500 };
	struct rogue_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	pid_t victim;
	uint64_t t0, dt;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", NULL, NULL), "publish");
	victim = test_children_spawn(&children, "rogue_ack_victim", 0, NULL);
	TEST_ASSERT(victim > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "victim not ready");
	TEST_ASSERT(test_children_spawn(&children, "rogue_ack_forger", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "forger not ready");
	TEST_ASSERT_SUCCESS(kill(victim, SIGSTOP), "stop the victim");
	/* A signal is not a stop: every thread of it is stopped once its state says so. */
	TEST_ASSERT(wait_proc_state(victim, 'T'), "the victim did not stop");
	t0 = test_now_ms();
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	dt = test_now_ms() - t0;
	kill(victim, SIGCONT);
	printf("withdrawal: %u acknowledged in %" PRIu64 " ms, %" PRIu64 " forgeries sent\n",
	       acked, dt, (uint64_t)s->val[0]);
	sync_set(&s->go, 1);
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT(s->val[0] > 0, "no forgery was sent");
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements (the rogue's own only)");
	TEST_ASSERT(dt >= conf.withdraw_timeout_ms - 50, "the withdrawal ended after %" PRIu64
		    " ms, before its bound: a forgery counted", dt);
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

/*
 * R: attached; sends a DETACH naming the victim (SCM_CREDENTIALS with its
 * pid) on its connection and on the old acknowledgement socket, then a
 * rule announcement the primary counts (the same ways): once the primary
 * counts it, it has read the DETACH.
 */
static int
role_detach_forger(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mp_msg p;
	int ret = 1;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	share_mp_msg_init(&p, MP_OP_DETACH, DEVSTR, mdevx_share_dev_cookie(dev));
	s->val[0] = send_forged(mdevx_share_test_conn_fd(dev), &p, s->victim_pid);
	mdevx_share_test_rule_msg(dev, 1, 0xdead0);
	sync_set(&s->forged, 1);
	ROLE_CHECK(wait_at_least(&s->stop, 1, WAIT_MS), "no stop from the primary");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_detach_forger, role_detach_forger);

/*
 * A forged DETACH in the victim's name: the primary still counts the
 * victim, whose acknowledgement the withdrawal waits for and gets.
 */
static int
test_rogue_forged_detach(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 3000 };
	struct rogue_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	uint32_t prules = 0;
	uint64_t end;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", NULL, NULL), "publish");
	TEST_ASSERT(test_children_spawn(&children, "rogue_ack_victim", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "victim not ready");
	TEST_ASSERT(test_children_spawn(&children, "rogue_detach_forger", 0, NULL) > 0,
		    "spawn");
	TEST_ASSERT(wait_at_least(&s->forged, 1, WAIT_MS), "no forgery");
	/* The rule announcement after the forgery: read in order on the same channel. */
	end = test_now_ms() + 5000;
	while (mdevx_share_dev_rules(pdev[0], NULL, &prules) == 0 && prules == 0 &&
	       test_now_ms() < end)
		usleep(1000);
	TEST_ASSERT_EQUAL(prules, 1, "the rogue's announcement was not read");
	TEST_ASSERT(s->val[0] > 0, "no forgery was sent");
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	sync_set(&s->go, 1);
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(acked, 2, "acknowledgements: the victim is still counted");
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

#define CONN_FD_MSGS 100	/* messages carrying descriptors on a connection */

/*
 * R: attached; once told, sends CONN_FD_MSGS messages on its connection,
 * each carrying FD_PER_MSG descriptors (/dev/null; half of them shaped as
 * its messages, half not), then a rule announcement the primary counts:
 * once it counts it, it has read the others.
 */
static int
role_conn_fd_sender(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	char cbuf[CMSG_SPACE(sizeof(int) * FD_PER_MSG)];
	int ret = 1, conn, nul = -1;
	struct mp_msg p;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	conn = mdevx_share_test_conn_fd(dev);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ROLE_CHECK(conn >= 0 && nul >= 0, "connection %d, /dev/null %d", conn, nul);
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	share_mp_msg_init(&p, MP_OP_REFRESH, DEVSTR, mdevx_share_dev_cookie(dev));
	for (int i = 0; i < CONN_FD_MSGS; i++) {
		struct iovec iov = { .iov_base = &p, .iov_len = i % 2 ? sizeof(p) : 7 };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * FD_PER_MSG);
		for (int k = 0; k < FD_PER_MSG; k++)
			memcpy(CMSG_DATA(c) + k * sizeof(int), &nul, sizeof(int));
		while (sendmsg(conn, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			ROLE_CHECK(errno == EAGAIN || errno == ENOBUFS, "sendmsg %d: %s", i,
				   strerror(errno));
			sched_yield();	/* its queue is full: the primary reads a burst a turn */
		}
	}
	mdevx_share_test_rule_msg(dev, 1, 0xdead0);
	sync_set(&s->forged, 1);
	ROLE_CHECK(wait_at_least(&s->stop, 1, WAIT_MS), "no stop from the primary");
	ret = 0;
out:
	if (nul >= 0)
		close(nul);
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_conn_fd_sender, role_conn_fd_sender);

/*
 * Descriptors a secondary sends along its messages on its connection: the
 * primary's reader closes every one, whatever the message.
 */
static int
test_rogue_conn_fds(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 2000 };
	struct rogue_sync *s = sync_mz->addr;
	uint32_t prules = 0;
	int before, after, rc;
	uint64_t end;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	TEST_ASSERT(test_children_spawn(&children, "rogue_conn_fd_sender", 0, NULL) > 0,
		    "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "sender not ready");
	before = count_fds();
	sync_set(&s->go, 1);
	TEST_ASSERT(wait_at_least(&s->forged, 1, WAIT_MS), "nothing sent");
	end = test_now_ms() + 5000;
	while (mdevx_share_dev_rules(pdev[0], NULL, &prules) == 0 && prules == 0 &&
	       test_now_ms() < end)
		usleep(1000);
	TEST_ASSERT_EQUAL(prules, 1, "the announcement after the messages was not read");
	after = count_fds();
	printf("primary: descriptors %d before %d messages carrying %d each, %d after\n",
	       before, CONN_FD_MSGS, FD_PER_MSG, after);
	sync_set(&s->stop, 1);
	TEST_ASSERT_EQUAL(after, before, "descriptors: %d before, %d after", before, after);
	TEST_ASSERT_SUCCESS(wait_children(), "the secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

#define NB_PHANTOMS 70		/* more than the peers of a device */

/*
 * P: attach requests from sockets that are no secondary's: one with an
 * abstract address (no pid in its name), closed at once, and
 * NB_PHANTOMS named after pid 1, kept open and never read (one request
 * each: EAL's replies block once a queue holds 10).
 */
static int
role_phantom(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	const char *dir = rte_eal_get_runtime_dir();
	int fd[NB_PHANTOMS + 1], ret = 1;
	struct eal_mp_wire out;
	struct mp_msg p;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	for (int k = 0; k <= NB_PHANTOMS; k++)
		fd[k] = -1;
	ROLE_CHECK(s != NULL, "no sync memzone");
	snprintf(to.sun_path, sizeof(to.sun_path), "%s/mp_socket", dir);
	share_mp_msg_init(&p, MP_OP_ATTACH, DEVSTR, 0);
	memset(&out, 0, sizeof(out));
	out.type = EAL_MP_REQ;
	share_mp_msg_pack(&out.msg, MP_ACTION, &p);
	for (int k = 0; k <= NB_PHANTOMS; k++) {
		struct sockaddr_un self = { .sun_family = AF_UNIX };
		socklen_t len = sizeof(self);

		if (k == 0) {
			snprintf(self.sun_path + 1, sizeof(self.sun_path) - 1, "phantom_%d",
				 (int)getpid());
			len = offsetof(struct sockaddr_un, sun_path) + 1 +
			      strlen(self.sun_path + 1);
		} else {
			snprintf(self.sun_path, sizeof(self.sun_path), "%s/mp_socket_1_%d", dir, k);
			unlink(self.sun_path);
		}
		fd[k] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ROLE_CHECK(fd[k] >= 0 && bind(fd[k], (struct sockaddr *)&self, len) == 0,
			   "phantom socket %d: %s", k, strerror(errno));
		ROLE_CHECK(sendto(fd[k], &out, EAL_MP_WIRE_LEN, 0, (struct sockaddr *)&to,
				  sizeof(to)) == (ssize_t)EAL_MP_WIRE_LEN, "send: %s",
			   strerror(errno));
	}
	/* The abstract one is closed once its reply came (or never reads it). */
	usleep(1000);
	close(fd[0]);
	fd[0] = -1;
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->stop, 1, WAIT_MS), "no stop from the primary");
	ret = 0;
out:
	for (int k = 0; k <= NB_PHANTOMS; k++) {
		char path[sizeof(to.sun_path)];

		if (fd[k] >= 0)
			close(fd[k]);
		snprintf(path, sizeof(path), "%s/mp_socket_1_%d", dir, k);
		if (k > 0)
			unlink(path);
	}
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_phantom, role_phantom);

/* Z: attach, import "c", say so, exit: the primary leaves us a zombie. */
static int
role_zombie(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev;
	mdevx_share_imp_t imp;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (s == NULL)
		_exit(1);
	dev = mdevx_share_dev_attach(DEVSTR);
	if (dev == NULL || mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp) != 0)
		_exit(1);
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	_exit(0);
}
REGISTER_TEST_SECONDARY(rogue_zombie, role_zombie);

/* H: attach (the table may be full for a while), import "c", see it revoked. */
static int
role_after_phantoms(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mdevx_counter_stats st;
	mdevx_share_imp_t imp;
	uint64_t t0 = test_now_ms();
	int ret = 1, rc;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	while ((dev = mdevx_share_dev_attach(DEVSTR)) == NULL && errno == ENOSPC &&
	       test_now_ms() - t0 < 8000)
		usleep(10000);
	ROLE_CHECK(dev != NULL, "attach after the phantoms: %s after %" PRIu64 " ms",
		   strerror(errno), test_now_ms() - t0);
	printf("[%d] attached %" PRIu64 " ms after the phantoms\n", (int)getpid(),
	       test_now_ms() - t0);
	ROLE_CHECK(mdevx_share_import(dev, "c", MDEVX_OBJ_FLOW_COUNTER, &imp) == 0, "import: %s",
		   strerror(errno));
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	ROLE_CHECK(wait_at_least(&s->go, 1, WAIT_MS), "no go from the primary");
	rc = mdevx_share_counter_query(dev, imp, 0, 1, 0, &st);
	ROLE_CHECK(rc == -ESTALE, "query after the withdrawal: %d", rc);
	ROLE_CHECK(mdevx_share_unimport(dev, imp) == 0, "unimport");
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_after_phantoms, role_after_phantoms);

/*
 * Phantom peers: 70 attach requests from an abstract socket (closed) and
 * 70 from a socket named after pid 1 (kept open, never reading), and a
 * secondary that died unreaped (a zombie) with an import. An honest
 * secondary attaches all the same, and a withdrawal waits for it only:
 * well within its bound.
 */
static int
test_rogue_phantom_peers(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 3000 };
	struct rogue_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	uint64_t t0, dt;
	pid_t zombie;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", NULL, NULL), "publish");
	zombie = test_children_spawn(&children, "rogue_zombie", 0, NULL);
	TEST_ASSERT(zombie > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 1, WAIT_MS), "zombie not ready");
	TEST_ASSERT(wait_proc_state(zombie, 'Z'), "process %d is no zombie", (int)zombie);
	TEST_ASSERT(test_children_spawn(&children, "rogue_phantom", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 2, WAIT_MS), "phantoms not sent");
	TEST_ASSERT(test_children_spawn(&children, "rogue_after_phantoms", 0, NULL) > 0,
		    "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, 3, WAIT_MS), "honest secondary not ready");
	t0 = test_now_ms();
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	dt = test_now_ms() - t0;
	printf("withdrawal: %u acknowledged in %" PRIu64 " ms\n", acked, dt);
	sync_set(&s->go, 1);
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements");
	TEST_ASSERT(dt < conf.withdraw_timeout_ms / 2, "the withdrawal took %" PRIu64 " ms", dt);
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	rc = mdevx_share_dev_close(pdev[0]);
	pdev[0] = NULL;
	TEST_ASSERT_SUCCESS(rc, "close: %s", strerror(-rc));
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

/*
 * R: attached to the second device; floods its connection with
 * acknowledgements (every sequence number but the current ones, and
 * wrong devices and ops) as fast as it can until stop, counting those
 * sent in val[1].
 */
static int
role_ack_flooder(int argc, char **argv)
{
	struct rogue_sync *s = sync_area();
	struct mdevx_share_dev *dev = NULL;
	struct mp_msg p;
	uint64_t k = 0;
	int ret = 1, fd;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	ROLE_CHECK(s != NULL, "no sync memzone");
	dev = mdevx_share_dev_attach(DEVSTR2);
	ROLE_CHECK(dev != NULL, "attach: %s", strerror(errno));
	fd = mdevx_share_test_conn_fd(dev);
	ROLE_CHECK(fd >= 0, "no connection");
	__atomic_add_fetch(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		share_mp_msg_init(&p, MP_OP_ACK, k % 5 ? DEVSTR : "rdma:mlx5_9",
			    k % 2 ? mdevx_share_dev_cookie(dev) : k);
		p.ack.op = k % 3 == 0 ? MP_OP_WITHDRAW_ALL : MP_OP_WITHDRAW;
		p.ack.rec.idx = (uint32_t)(k % 20);
		p.ack.rec.gen = k;
		p.ack.seq = UINT64_MAX - k;
		if (send(fd, &p, sizeof(p), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(p))
			__atomic_add_fetch(&s->val[1], 1, __ATOMIC_RELAXED);
		else
			sched_yield();	/* its queue is full: the primary reads a burst a turn */
		k++;
	}
	ret = 0;
out:
	if (dev != NULL && mdevx_share_dev_close(dev) != 0 && ret == 0)
		ret = 1;
	return ret;
}
REGISTER_TEST_SECONDARY(rogue_ack_flooder, role_ack_flooder);

/*
 * An acknowledgement flood: while NB_FLOODERS rogues attached to another
 * device of the primary flood their connections (read by the same reader)
 * with acknowledgements, an honest secondary attaches and imports, and a
 * withdrawal gets its acknowledgement. The rogues are not waited for: a
 * flooder's own acknowledgement can be lost in its own full queue (seen
 * under ASan), which is its loss, not the honest one's. On 2 CPUs the primary's reader keeps up
 * even when it drains each connection whole (a planted PEER_BURST of
 * INT_MAX passes): this shows the flood costs nothing, not the turn bound.
 */
#define NB_FLOODERS 3

static int
test_rogue_ack_flood(void)
{
	struct mdevx_share_conf conf = { .capacity = 16, .withdraw_timeout_ms = 10000 };
	struct rogue_sync *s = sync_mz->addr;
	unsigned int acked = 0;
	uint64_t t0, dt, sent0, sent1, sent2;
	int rc;

	pdev[0] = mdevx_share_dev_open(DEVSTR, &conf);
	TEST_ASSERT_NOT_NULL(pdev[0], "share open: %s", strerror(errno));
	pdev[1] = mdevx_share_dev_open(DEVSTR2, &conf);
	TEST_ASSERT_NOT_NULL(pdev[1], "share open: %s", strerror(errno));
	TEST_ASSERT_SUCCESS(publish_counter(pdev[0], "c", NULL, NULL), "publish");
	for (int i = 0; i < NB_FLOODERS; i++)
		TEST_ASSERT(test_children_spawn(&children, "rogue_ack_flooder", 0, NULL) > 0,
			    "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, NB_FLOODERS, WAIT_MS), "flooders not ready");
	t0 = test_now_ms();
	while (__atomic_load_n(&s->val[1], __ATOMIC_RELAXED) < 10000 && test_now_ms() < t0 + WAIT_MS)
		usleep(1000);
	sent0 = __atomic_load_n(&s->val[1], __ATOMIC_RELAXED);
	TEST_ASSERT(sent0 >= 10000, "the flood did not start (%" PRIu64 " sent)", sent0);
	/* Attach and import under the flood. */
	TEST_ASSERT(test_children_spawn(&children, "rogue_ack_victim", 0, NULL) > 0, "spawn");
	TEST_ASSERT(wait_at_least(&s->ready, NB_FLOODERS + 1, WAIT_MS), "honest secondary not ready");
	sent1 = __atomic_load_n(&s->val[1], __ATOMIC_RELAXED);
	t0 = test_now_ms();
	rc = mdevx_share_withdraw(pdev[0], "c", &acked);
	dt = test_now_ms() - t0;
	sent2 = __atomic_load_n(&s->val[1], __ATOMIC_RELAXED);
	printf("withdrawal: %u acknowledged in %" PRIu64 " ms; forged acknowledgements: %"
	       PRIu64 " before, %" PRIu64 " while the honest one attached, %" PRIu64
	       " during the withdrawal\n", acked, dt, sent0, sent1 - sent0, sent2 - sent1);
	sync_set(&s->go, 1);
	sync_set(&s->stop, 1);
	TEST_ASSERT_SUCCESS(rc, "withdraw: %s", strerror(-rc));
	TEST_ASSERT_EQUAL(acked, 1, "acknowledgements (the honest one's)");
	TEST_ASSERT(sent1 > sent0, "no flood while the honest one attached");
	TEST_ASSERT_SUCCESS(wait_children(), "a secondary failed");
	for (int i = 0; i < 2; i++) {
		rc = mdevx_share_dev_close(pdev[i]);
		pdev[i] = NULL;
		TEST_ASSERT_SUCCESS(rc, "close %d: %s", i, strerror(-rc));
	}
	TEST_ASSERT_SUCCESS(test_wait_dev_empty(ctl, DEV, 5000), "objects left");
	return TEST_SUCCESS;
}

static struct unit_test_suite rogue_suite = {
	.suite_name = "mlx5 devx share rogue processes",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.unit_test_cases = {
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_registry_writer_ack),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_registry_writer_mute),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_write_after_check),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_key_collision),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_forged_withdrawal),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_fd_flood),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_conn_fds),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_forged_ack),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_ack_flood),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_forged_detach),
		TEST_CASE_ST(case_setup, case_teardown, test_rogue_phantom_peers),
		TEST_CASES_END()
	}
};

static int
test_share_rogue(void)
{
	return unit_test_suite_runner(&rogue_suite);
}
REGISTER_TEST_COMMAND(mlx5_devx_share_rogue_autotest, test_share_rogue);
