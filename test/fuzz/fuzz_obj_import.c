/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Fuzz harness of the import of export buffers and of the use of what an
 * import accepts.
 *
 * Set up once: the software device daemon at $SWDEV_TEST_SOCKET, the
 * harness under `mlx5-swdev run` (test/uverbs_clients/run-client.sh, whose
 * daemon reads 16 counters per query in the meson tests and fuzz-long.sh),
 * so that libmdevx goes through libibverbs and libmlx5; a libmdevx context
 * on it, a second context on a
 * dup of its command fd (what an importing process has), two flow counter
 * bulks, two TIRs with their TD, PD, CQ, RQs and RQT, and the export buffers
 * of eight of them. Traffic is injected into every counter so that a read
 * shows which counters it read.
 *
 * Each input builds a buffer (see fuzz_obj_import.h): random, or a valid
 * export with bytes XORed, spliced or set, then its checksum corrected as
 * mdevx_export.c computes it, so that the structural checks behind the
 * checksum are what is exercised. It is imported with the flavours the input
 * selects and every import that succeeds is used: counter and TIR queries,
 * export and import again, revocation, use after unimport, unimport.
 *
 * Invariants (abort() when one breaks):
 * - acceptance is what the export format allows (doc comment of
 *   mdevx_export.c): every flavour accepts exactly the buffers that pass the
 *   magic, version, header size, backend, attribute size, checksum (not for
 *   _verified), exportable kind, attribute consistency and expected kind
 *   checks, and refuses the others with the errno of one failing check;
 * - an accepted import reads back the kind, id, bulk size, tirn, RX ICM
 *   address and generation the buffer claims (references too);
 * - the device's rules bound what a forged import reaches: a counter query
 *   succeeds exactly when every command names counters inside the bulk of
 *   the counter the backend handle names (aligned when reading several) and
 *   reads the values injected there; a TIR query succeeds exactly when the
 *   handle and the tirn name the same TIR, and reads its attributes; out of
 *   range or wrong-kind calls fail without a command (ERANGE, EPROTOTYPE);
 * - a re-export reproduces the header and the backend attributes;
 * - a revoked import gives ESTALE and an unimported one ENOENT;
 * - the importing context holds no object once the input is done, the
 *   exporting one its own, and the device's object count is unchanged.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include <mdevx.h>
#include <mdevx_driver.h>
#include <swdev_client.h>

#include "mdevx_csum.h"

#include "fuzz_obj_import.h"

#define DEV "mlx5_0"

/* Export buffer layout (mdevx_export.c). */
#define EXP_MAGIC 0x5856444du
#define EXP_VERSION 3
#define EXP_HDR 48
#define EXP_BACKEND_RDMA 1
#define ATTR_SIZE 32
#define EXP_SIZE (EXP_HDR + ATTR_SIZE)
#define OFF_MAGIC 0
#define OFF_VERSION 4
#define OFF_HDR_SIZE 6
#define OFF_BACKEND 8
#define OFF_KIND 12
#define OFF_ID 16
#define OFF_BULK 20
#define OFF_TIRN 24
#define OFF_GEN 28
#define OFF_ICM 32
#define OFF_ASZ 40
#define OFF_CSUM 44
/* The software device's attributes (swdev_client.c), after the header. */
#define OFF_A_HANDLE (EXP_HDR + 0)
#define OFF_A_TYPE (EXP_HDR + 4)
#define OFF_A_OID (EXP_HDR + 8)
#define OFF_A_ICM (EXP_HDR + 16)
#define OFF_A_RANGE (EXP_HDR + 24)
#define RDMA_TYPE_FLOW_COUNTER 2
#define RDMA_TYPE_TIR 6

#define BUF_MAX 1024
#define NUM_BASES 8
#define STATS_MAX 256		/* counters one query may read */
#define BOUNDED_N_MAX 64	/* ... unless the input asks for raw values */
#define CHECK_EVERY 4096	/* inputs between two full checks */

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_obj_import: invariant broken (%s:%d): ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)
#define CHECK(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)

struct fuzz_obj_import_stats fuzz_obj_import_stats;

struct base {
	struct mdevx_obj *obj;
	uint8_t buf[EXP_SIZE];
};

struct counter_shadow {
	uint32_t base;
	uint32_t size;
	uint32_t handle;
	uint64_t *packets;
	uint64_t *bytes;
};

static struct {
	bool up;
	char sock[128];
	struct mdevx_ctx *ctx1;		/* the exporter */
	struct mdevx_ctx *ctx2;		/* the importer: same uverbs file */
	struct swdev_ctl *ctl;
	struct mdevx_obj *cnt[2], *td, *pd, *cq, *rq[2], *rqt, *tir[2];
	struct base bases[NUM_BASES];
	unsigned int nbases;
	struct counter_shadow cs[2];
	uint32_t tir_handle[2];
	uint32_t tirn[2];
	struct mdevx_tir_attr tir_attr[2];
	uint32_t max_per_cmd;
	uint32_t dev_total;
	int nobjs1;
	unsigned long runs;
} g;


/* One input, decoded. */
struct input {
	uint8_t mode;
	uint8_t sel;
	uint8_t lenv;
	uint8_t use;
	uint32_t off;
	uint32_t n;
	const uint8_t *pl;
	size_t plen;
};

#define USE_CNT_QUERY 0x01
#define USE_TIR_QUERY 0x02
#define USE_REEXPORT 0x04
#define USE_AFTER_UNIMPORT 0x08
#define USE_REVOKE 0x10
#define USE_TWICE 0x20
#define USE_WRONG_KIND 0x40
#define USE_RAW_RANGE 0x80
#define MODE_FULL_CHECK 0x20
#define MODE_INJECT 0x40
#define MODE_CLEAR 0x80

enum flavour { FL_OBJ, FL_REF, FL_VERIFIED };
static const char *const flavour_names[] = {
	"mdevx_obj_import", "mdevx_obj_import_ref", "mdevx_obj_import_ref_verified",
};

/* Host-order loads from a byte buffer, at any alignment. */
#define LD(type, p) __extension__ ({ type v_; memcpy(&v_, (p), sizeof(v_)); v_; })
#define ld16(p) LD(uint16_t, p)
#define ld32(p) LD(uint32_t, p)
#define ld64(p) LD(uint64_t, p)

static void
st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The export checksum, as mdevx_export.c's buf_checksum() computes it. */
static uint32_t
exp_checksum(const uint8_t *buf, uint32_t asz)
{
	uint64_t x;

	x = mdevx_csum64(buf, OFF_ASZ, EXP_MAGIC ^ ((uint64_t)asz << 32));
	x = mdevx_csum64(buf + EXP_HDR, asz, x);
	return (uint32_t)(x ^ (x >> 32));
}

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                               */
/* ------------------------------------------------------------------ */

static uint32_t
device_total(void)
{
	struct swdev_counts c;

	memset(&c, 0, sizeof(c));
	CHECK(swdev_ctl_get_counts(g.ctl, DEV, 0, &c) == 0, "device counts: %s",
	      strerror(errno));
	/* Not the UAR libmlx5 allocates for each context it opens. */
	return c.total - c.by_kind[SWDEV_KIND_UAR];
}

static struct mdevx_obj *
must(struct mdevx_obj *o, const char *what)
{
	if (o == NULL)
		FAIL("set-up: %s: %s", what, strerror(errno));
	return o;
}

static uint32_t
obj_id(struct mdevx_obj *o)
{
	struct mdevx_obj_info info;

	CHECK(mdevx_obj_info(o, &info) == 0, "set-up: info: %s", strerror(errno));
	return info.id;
}

static void
add_base(struct mdevx_obj *o)
{
	struct base *b = &g.bases[g.nbases++];

	b->obj = o;
	CHECK(mdevx_obj_export(o, b->buf, sizeof(b->buf)) == 0, "set-up: export: %s",
	      strerror(errno));
}

static void
make_objects(void)
{
	static const uint8_t key[MDEVX_TOEPLITZ_KEY_LEN] = {
		0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
		0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
		0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
		0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
	};
	struct mdevx_cq_attr cqa = { .log_cq_size = 6, .eq_vector = 0 };
	struct mdevx_rq_attr rqa = { .log_wq_size = 6, .log_wq_stride = 6 };
	struct mdevx_tir_attr ta;
	int i;

	g.cnt[0] = must(mdevx_counter_alloc(g.ctx1, 128), "counter bulk of 128");
	g.cnt[1] = must(mdevx_counter_alloc(g.ctx1, 1), "single counter");
	g.td = must(mdevx_td_alloc(g.ctx1), "TD");
	g.pd = must(mdevx_pd_alloc(g.ctx1), "PD");
	g.cq = must(mdevx_cq_create(g.ctx1, &cqa), "CQ");
	rqa.cq = g.cq;
	rqa.pd = g.pd;
	for (i = 0; i < 2; i++) {
		rqa.user_index = (uint32_t)i;
		g.rq[i] = must(mdevx_rq_create(g.ctx1, &rqa), "RQ");
	}
	g.rqt = must(mdevx_rqt_create(g.ctx1, g.rq, 2), "RQT");
	memset(&ta, 0, sizeof(ta));
	ta.disp_type = MDEVX_TIR_DISP_DIRECT;
	ta.inline_rqn = obj_id(g.rq[0]);
	ta.transport_domain = obj_id(g.td);
	g.tir[0] = must(mdevx_tir_create(g.ctx1, &ta), "direct TIR");
	memset(&ta, 0, sizeof(ta));
	ta.disp_type = MDEVX_TIR_DISP_INDIRECT;
	ta.indirect_table = obj_id(g.rqt);
	ta.transport_domain = obj_id(g.td);
	ta.rx_hash_fn = MDEVX_TIR_HASH_FN_TOEPLITZ;
	ta.outer_l3_prot_type = MDEVX_L3_PROT_IPV4;
	ta.outer_l4_prot_type = MDEVX_L4_PROT_UDP;
	ta.outer_selected_fields = MDEVX_HASH_FIELD_SRC_IP | MDEVX_HASH_FIELD_DST_IP |
				   MDEVX_HASH_FIELD_L4_SPORT | MDEVX_HASH_FIELD_L4_DPORT;
	memcpy(ta.toeplitz_key, key, sizeof(key));
	g.tir[1] = must(mdevx_tir_create(g.ctx1, &ta), "RSS TIR");

	/* bases 0, 1: the counters; 2, 3: the TIRs */
	add_base(g.cnt[0]);
	add_base(g.cnt[1]);
	add_base(g.tir[0]);
	add_base(g.tir[1]);
	add_base(g.td);
	add_base(g.cq);
	add_base(g.rq[0]);
	add_base(g.rqt);
}

/* Traffic on every counter, different everywhere; the shadow keeps it. */
static void
make_traffic(void)
{
	struct mdevx_obj_info info;
	struct counter_shadow *cs;
	uint32_t c, k;

	for (c = 0; c < 2; c++) {
		cs = &g.cs[c];
		CHECK(mdevx_obj_info(g.cnt[c], &info) == 0, "set-up: counter info");
		cs->base = info.id;
		cs->size = info.bulk_size;
		cs->handle = ld32(g.bases[c].buf + OFF_A_HANDLE);
		cs->packets = calloc(cs->size, sizeof(uint64_t));
		cs->bytes = calloc(cs->size, sizeof(uint64_t));
		CHECK(cs->packets != NULL && cs->bytes != NULL, "set-up: out of memory");
		for (k = 0; k < cs->size; k++) {
			cs->packets[k] = 1000 * (c + 1) + k;
			cs->bytes[k] = cs->packets[k] * 64;
			CHECK(swdev_ctl_inject_traffic(g.ctl, DEV, cs->base + k, cs->packets[k],
						       cs->bytes[k]) == 0,
			      "set-up: inject: %s", strerror(errno));
		}
	}
	for (c = 0; c < 2; c++) {
		g.tir_handle[c] = ld32(g.bases[2 + c].buf + OFF_A_HANDLE);
		g.tirn[c] = obj_id(g.tir[c]);
		CHECK(mdevx_tir_query(g.tir[c], &g.tir_attr[c]) == 0, "set-up: TIR query: %s",
		      strerror(errno));
	}
}

static void
setup(void)
{
	struct mdevx_caps caps;
	const char *ext;
	size_t esz;
	int fd;

	/* every refusal is logged: quiet, or the fuzzer only writes */
	if (getenv("FUZZ_VERBOSE") == NULL)
		rte_log_set_global_level(RTE_LOG_CRIT);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * A daemon of its own, the harness under `mlx5-swdev run`
	 * (test/uverbs_clients/run-client.sh): libmdevx through libibverbs
	 * and libmlx5, as on a NIC.
	 */
	ext = getenv("SWDEV_TEST_SOCKET");
	CHECK(ext != NULL && getenv("SYSFS_PATH") != NULL, "set-up: run under "
	      "test/uverbs_clients/run-client.sh (a daemon, `mlx5-swdev run`)");
	snprintf(g.sock, sizeof(g.sock), "%s", ext);
	g.ctx1 = mdevx_open("rdma:" DEV);
	CHECK(g.ctx1 != NULL, "set-up: mdevx_open(rdma:" DEV "): %s", strerror(errno));
	g.ctl = swdev_ctl_open(g.sock);
	CHECK(g.ctl != NULL, "set-up: control channel: %s", strerror(errno));
	fd = dup(mdevx_cmd_fd(g.ctx1));
	CHECK(fd >= 0, "set-up: dup: %s", strerror(errno));
	g.ctx2 = mdevx_import_device("rdma:" DEV, fd);
	CHECK(g.ctx2 != NULL, "set-up: mdevx_import_device: %s", strerror(errno));

	CHECK(mdevx_export_size(g.ctx2, &esz) == 0 && esz == EXP_SIZE,
	      "export size %zu, the harness knows %d", esz, EXP_SIZE);
	CHECK(mdevx_get_caps(g.ctx2, &caps) == 0, "caps");
	g.max_per_cmd = caps.max_counters_per_query;
	make_objects();
	make_traffic();
	g.dev_total = device_total();
	g.nobjs1 = mdevx_ctx_nb_objs(g.ctx1);
	CHECK(mdevx_ctx_nb_objs(g.ctx2) == 0, "importer holds objects at set-up");
	g.up = true;
	atexit(fuzz_obj_import_fini);
}

void
fuzz_obj_import_print_stats(FILE *f)
{
	const struct fuzz_obj_import_stats *s = &fuzz_obj_import_stats;

	fprintf(f, "inputs %lu; accepted/refused: obj %lu/%lu, ref %lu/%lu, ref_verified %lu/%lu\n",
		s->inputs, s->accepted[0], s->refused[0], s->accepted[1], s->refused[1],
		s->accepted[2], s->refused[2]);
	fprintf(f, "counter queries %lu ok, %lu refused; TIR queries %lu ok, %lu refused; "
		"device commands asked %lu\n", s->cnt_query_ok, s->cnt_query_fail,
		s->tir_query_ok, s->tir_query_fail, s->device_cmds);
}

void
fuzz_obj_import_fini(void)
{
	struct mdevx_obj **objs[] = {
		&g.tir[1], &g.tir[0], &g.rqt, &g.rq[1], &g.rq[0], &g.cq, &g.pd, &g.td,
		&g.cnt[1], &g.cnt[0],
	};
	size_t i;

	if (!g.up)
		return;
	g.up = false;
	if (getenv("FUZZ_STATS") != NULL)
		fuzz_obj_import_print_stats(stderr);
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		CHECK(mdevx_obj_destroy(*objs[i]) == 0, "tear-down: destroy: %s",
		      strerror(errno));
		*objs[i] = NULL;
	}
	CHECK(device_total() == 0, "tear-down: objects left on the device");
	CHECK(mdevx_close(g.ctx2) == 0, "tear-down: close the importer: %s", strerror(errno));
	CHECK(mdevx_close(g.ctx1) == 0, "tear-down: close the exporter: %s", strerror(errno));
	swdev_ctl_close(g.ctl);
	for (i = 0; i < 2; i++) {
		free(g.cs[i].packets);
		free(g.cs[i].bytes);
	}
	memset(&g, 0, sizeof(g));
}

/* ------------------------------------------------------------------ */
/* Buffers                                                            */
/* ------------------------------------------------------------------ */

/* Correct the checksum of buf[0..len) where its attribute size lets us. */
static void
fix_checksum(uint8_t *buf, size_t len)
{
	uint32_t asz;

	if (len < EXP_HDR)
		return;
	asz = ld32(buf + OFF_ASZ);
	if (asz <= len - EXP_HDR)
		st32(buf + OFF_CSUM, exp_checksum(buf, asz));
}

/* Mode 4: (op/word, 32-bit value) records on the 20 words of an export. */
static void
set_fields(uint8_t *w, const uint8_t *pl, size_t plen)
{
	size_t i;

	for (i = 0; i + 5 <= plen; i += 5) {
		unsigned int word = (pl[i] & 31u) % (EXP_SIZE / 4), op = pl[i] >> 5;
		uint32_t v = ld32(pl + i + 1);
		uint8_t *p = w + 4 * word;

		switch (op) {
		case 0:
		case 1:
		case 2:
		case 3:
			st32(p, v);
			break;
		case 4:
		case 5:
			/* a small step from the current value */
			st32(p, ld32(p) + (uint32_t)(int32_t)(int8_t)v);
			break;
		default:
			/* the same word of another export (a handle, an id...) */
			memcpy(p, g.bases[v % g.nbases].buf + 4 * word, 4);
			break;
		}
	}
}

/* Build the buffer of @p in into @p w (BUF_MAX bytes); returns its length. */
static size_t
build_buffer(const struct input *in, uint8_t *w)
{
	const struct base *b = &g.bases[(in->sel & 15u) % g.nbases];
	unsigned int src = in->mode & 7u, k = in->lenv >> 2;
	size_t natural, len, i, off;

	memset(w, 0, BUF_MAX);
	if (src <= 1) {
		natural = in->plen < BUF_MAX ? in->plen : BUF_MAX;
		memcpy(w, in->pl, natural);
	} else {
		memcpy(w, b->buf, EXP_SIZE);
		natural = EXP_SIZE;
	}
	switch (src) {
	case 2:
	case 5:
		for (i = 0; i + 1 < in->plen; i += 2)
			w[in->pl[i] % EXP_SIZE] ^= in->pl[i + 1];
		break;
	case 3:
		if (in->plen > 0) {
			off = in->pl[0] % EXP_SIZE;
			len = in->plen - 1 < BUF_MAX - off ? in->plen - 1 : BUF_MAX - off;
			memcpy(w + off, in->pl + 1, len);
			if (off + len > natural)
				natural = off + len;
		}
		break;
	case 4:
		set_fields(w, in->pl, in->plen);
		break;
	case 7:
		if (in->plen > 0) {
			memcpy(w + EXP_HDR, g.bases[in->pl[0] % g.nbases].buf + EXP_HDR, ATTR_SIZE);
			for (i = 1; i + 1 < in->plen; i += 2)
				w[in->pl[i] % EXP_SIZE] ^= in->pl[i + 1];
		}
		break;
	default:
		break;
	}
	switch (in->lenv & 3u) {
	case 1:
		len = natural > k ? natural - k : 0;
		break;
	case 2:
		len = natural + k;	/* zeros (or payload bytes) past the export */
		break;
	case 3:
		len = k;
		break;
	default:
		len = natural;
		break;
	}
	if (len > BUF_MAX)
		len = BUF_MAX;
	if (src != 0 && src != 5)
		fix_checksum(w, len);
	return len;
}

/* ------------------------------------------------------------------ */
/* What the export format and the device allow                         */
/* ------------------------------------------------------------------ */

#define EB_EINVAL 0x01u
#define EB_EBADMSG 0x02u
#define EB_EXDEV 0x04u
#define EB_EPROTOTYPE 0x08u

static unsigned int
ebit(int e)
{
	switch (e) {
	case EINVAL:
		return EB_EINVAL;
	case EBADMSG:
		return EB_EBADMSG;
	case EXDEV:
		return EB_EXDEV;
	case EPROTOTYPE:
		return EB_EPROTOTYPE;
	default:
		return 0x80u;
	}
}

static bool
kind_exportable(uint32_t kind)
{
	return kind == MDEVX_OBJ_FLOW_COUNTER || kind == MDEVX_OBJ_TIR ||
	       kind == MDEVX_OBJ_TD || kind == MDEVX_OBJ_CQ || kind == MDEVX_OBJ_RQ ||
	       kind == MDEVX_OBJ_RQT;
}

/* The header against the software device's attributes. */
static bool
attrs_consistent(const uint8_t *b)
{
	uint32_t id = ld32(b + OFF_ID);

	switch (ld32(b + OFF_KIND)) {
	case MDEVX_OBJ_FLOW_COUNTER:
		return ld32(b + OFF_A_TYPE) == RDMA_TYPE_FLOW_COUNTER &&
		       ld32(b + OFF_A_OID) == id;
	case MDEVX_OBJ_TIR:
		return ld32(b + OFF_A_TYPE) == RDMA_TYPE_TIR && ld32(b + OFF_A_OID) == id &&
		       ld64(b + OFF_A_ICM) == ld64(b + OFF_ICM) && ld32(b + OFF_TIRN) == id;
	default:
		return true;
	}
}

/*
 * The errnos with which the format refuses importing buf[0..len) as
 * @p expect through @p fl (one bit per failing check), 0 if it accepts.
 */
static unsigned int
model_import(const uint8_t *buf, size_t len, uint32_t expect, enum flavour fl)
{
	unsigned int m = 0;
	uint32_t kind;

	if (fl == FL_OBJ ? expect >= MDEVX_OBJ_KIND_MAX :
	    expect != MDEVX_OBJ_FLOW_COUNTER && expect != MDEVX_OBJ_TIR)
		return EB_EINVAL;
	if (len < EXP_HDR)
		return EB_EBADMSG;
	if (ld32(buf + OFF_MAGIC) != EXP_MAGIC || ld16(buf + OFF_VERSION) != EXP_VERSION ||
	    ld16(buf + OFF_HDR_SIZE) != EXP_HDR)
		m |= EB_EBADMSG;
	if (ld32(buf + OFF_BACKEND) != EXP_BACKEND_RDMA)
		m |= EB_EXDEV;
	if (ld32(buf + OFF_ASZ) != ATTR_SIZE || len < EXP_SIZE)
		return m | EB_EBADMSG;
	if (fl != FL_VERIFIED && ld32(buf + OFF_CSUM) != exp_checksum(buf, ATTR_SIZE))
		m |= EB_EBADMSG;
	kind = ld32(buf + OFF_KIND);
	if (!kind_exportable(kind) || !attrs_consistent(buf))
		m |= EB_EBADMSG;
	if (expect != MDEVX_OBJ_ANY && kind != expect)
		m |= EB_EPROTOTYPE;
	return m;
}

/* What an accepted buffer claims. */
struct claim {
	uint32_t kind;
	uint32_t id;
	uint32_t bulk;
	uint32_t tirn;
	uint32_t generation;
	uint64_t icm;
	uint32_t handle;
};

static void
read_claim(const uint8_t *b, struct claim *c)
{
	c->kind = ld32(b + OFF_KIND);
	c->id = ld32(b + OFF_ID);
	c->bulk = ld32(b + OFF_BULK);
	c->tirn = ld32(b + OFF_TIRN);
	c->generation = ld32(b + OFF_GEN);
	c->icm = ld64(b + OFF_ICM);
	c->handle = ld32(b + OFF_A_HANDLE);
}

static struct counter_shadow *
counter_by_handle(uint32_t handle)
{
	return handle == g.cs[0].handle ? &g.cs[0] : handle == g.cs[1].handle ? &g.cs[1] : NULL;
}

/*
 * Counters [off, off + n) of an import claiming @p c, as libmdevx splits
 * them into commands and the device checks each: the kernel wants the first
 * counter inside the bulk the handle names, the firmware the whole range,
 * aligned to 4 when it reads more than one. Returns 0 (all read), -EINVAL or
 * -ERANGE (refused before any command) or 1 (a command refused); *read:
 * counters read by the commands before the refused one.
 */
static int
predict_counter_query(const struct claim *c, uint32_t off, uint32_t n, uint32_t *read,
		      struct counter_shadow **csp)
{
	struct counter_shadow *cs = counter_by_handle(c->handle);
	uint32_t done, chunk, first;

	*read = 0;
	*csp = cs;
	if (n == 0)
		return -EINVAL;
	if (off >= c->bulk || n > c->bulk - off)
		return -ERANGE;
	for (done = 0; done < n; done += chunk) {
		chunk = n - done < g.max_per_cmd ? n - done : g.max_per_cmd;
		first = c->id + off + done;
		if (cs == NULL || first < cs->base ||
		    (uint64_t)first + chunk > (uint64_t)cs->base + cs->size ||
		    (chunk > 1 && first % 4 != 0)) {
			*read = done;
			return 1;
		}
	}
	*read = n;
	return 0;
}

/* The counter range an input asks for, bounded unless it asks otherwise. */
static void
counter_range(const struct input *in, const struct claim *c, uint32_t *off, uint32_t *n)
{
	*off = in->off;
	*n = in->n;
	if (!(in->use & USE_RAW_RANGE)) {
		*off = (uint32_t)(in->off % ((uint64_t)c->bulk + 2));
		*n = in->n % (BOUNDED_N_MAX + 1);
	} else if (*n > STATS_MAX && *off < c->bulk && *n <= c->bulk - *off) {
		/* the caller's array has STATS_MAX entries */
		*n = 1 + *n % STATS_MAX;
	}
}

/* ------------------------------------------------------------------ */
/* Use                                                                */
/* ------------------------------------------------------------------ */

/*
 * Query counters through an import (@p obj) or a reference (@p ref) and
 * check the outcome against the device's rules and the shadow.
 */
static void
use_counter(const struct input *in, const struct claim *c, struct mdevx_obj *obj,
	    const struct mdevx_obj_ref *ref)
{
	struct mdevx_counter_stats *stats;
	struct counter_shadow *cs;
	uint32_t off, n, read, i, at;
	int clear = (in->mode & MODE_CLEAR) != 0, want, rc;

	counter_range(in, c, &off, &n);
	want = predict_counter_query(c, off, n, &read, &cs);
	/* refused before any command: one entry, so that a write past it shows */
	stats = calloc(want < 0 ? 1 : n, sizeof(*stats));
	CHECK(stats != NULL, "out of memory");
	if (want >= 0)
		fuzz_obj_import_stats.device_cmds += (n + g.max_per_cmd - 1) / g.max_per_cmd;
	errno = 0;
	if (obj != NULL)
		rc = mdevx_counter_query(obj, off, n, clear, stats);
	else
		rc = mdevx_ref_counter_query(g.ctx2, ref, off, n, clear, stats);
	if (want < 0)
		CHECK(rc == want, "counter query [%u, +%u) of a bulk of %u: %d, expected %d",
		      off, n, c->bulk, rc, want);
	else if (want > 0)
		CHECK(rc < 0 && rc != -ERANGE,
		      "counter query of counters %#x + [%u, +%u) through handle %u: %d, "
		      "the device refuses it", c->id, off, n, c->handle, rc);
	else
		CHECK(rc == 0, "counter query of counters %#x + [%u, +%u) through handle %u "
		      "failed (%d), the device allows it", c->id, off, n, c->handle, rc);
	if (rc == 0) {
		fuzz_obj_import_stats.cnt_query_ok++;
		for (i = 0; i < n; i++) {
			at = c->id + off + i - cs->base;
			CHECK(stats[i].packets == cs->packets[at] &&
			      stats[i].bytes == cs->bytes[at],
			      "counter %#x read %lu/%lu, it holds %lu/%lu", cs->base + at,
			      (unsigned long)stats[i].packets, (unsigned long)stats[i].bytes,
			      (unsigned long)cs->packets[at], (unsigned long)cs->bytes[at]);
		}
	} else {
		fuzz_obj_import_stats.cnt_query_fail++;
	}
	/* what the commands before a refused one read, they cleared */
	for (i = 0; clear && i < read; i++) {
		at = c->id + off + i - cs->base;
		cs->packets[at] = 0;
		cs->bytes[at] = 0;
	}
	free(stats);
}

static int
tir_index(const struct claim *c)
{
	int j;

	for (j = 0; j < 2; j++)
		if (c->handle == g.tir_handle[j] && c->tirn == g.tirn[j])
			return j;
	return -1;
}

static void
use_tir(const struct claim *c, struct mdevx_obj *obj, const struct mdevx_obj_ref *ref)
{
	struct mdevx_tir_attr attr;
	int j = tir_index(c), rc;

	fuzz_obj_import_stats.device_cmds++;
	memset(&attr, 0x5a, sizeof(attr));
	if (obj != NULL)
		rc = mdevx_tir_query(obj, &attr);
	else
		rc = mdevx_ref_tir_query(g.ctx2, ref, &attr);
	if (j < 0) {
		CHECK(rc < 0, "TIR query of tirn %#x through handle %u succeeded: no such TIR",
		      c->tirn, c->handle);
		fuzz_obj_import_stats.tir_query_fail++;
		return;
	}
	CHECK(rc == 0, "TIR query of TIR %#x through its handle failed: %d", c->tirn, rc);
	CHECK(memcmp(&attr, &g.tir_attr[j], sizeof(attr)) == 0,
	      "TIR %#x read through an import differs from the original", c->tirn);
	fuzz_obj_import_stats.tir_query_ok++;
}

/* Queries an import or reference of @p c answers without a command. */
static void
use_wrong_kind(const struct claim *c, struct mdevx_obj *obj, const struct mdevx_obj_ref *ref)
{
	struct mdevx_counter_stats s;
	struct mdevx_tir_attr attr;
	int rc;

	if (c->kind != MDEVX_OBJ_FLOW_COUNTER) {
		rc = obj != NULL ? mdevx_counter_query(obj, 0, 1, 0, &s) :
		     mdevx_ref_counter_query(g.ctx2, ref, 0, 1, 0, &s);
		CHECK(rc == -EPROTOTYPE, "counter query of a %s: %d",
		      mdevx_obj_kind_name(c->kind), rc);
	}
	if (c->kind != MDEVX_OBJ_TIR) {
		rc = obj != NULL ? mdevx_tir_query(obj, &attr) :
		     mdevx_ref_tir_query(g.ctx2, ref, &attr);
		CHECK(rc == -EPROTOTYPE, "TIR query of a %s: %d", mdevx_obj_kind_name(c->kind),
		      rc);
	}
}

static void
check_info(struct mdevx_obj *obj, const struct claim *c)
{
	struct mdevx_obj_info info;

	CHECK(mdevx_obj_info(obj, &info) == 0, "info of an import: %s", strerror(errno));
	CHECK(info.imported == 1, "an import is not flagged imported");
	CHECK((uint32_t)info.kind == c->kind, "import of a %u reads kind %u", c->kind,
	      info.kind);
	CHECK(info.id == c->id, "import of id %#x reads id %#x", c->id, info.id);
	CHECK(info.bulk_size == c->bulk, "import of a bulk of %u reads %u", c->bulk,
	      info.bulk_size);
	CHECK(info.tirn == c->tirn, "import of tirn %#x reads %#x", c->tirn, info.tirn);
	CHECK(info.rx_icm_addr == c->icm, "RX ICM address differs");
	CHECK(info.generation == c->generation, "generation %u reads %u", c->generation,
	      info.generation);
	CHECK(mdevx_obj_ctx(obj) == g.ctx2, "import on another context");
}

/* Export an import again: the same header and attributes; import that. */
static void
reexport(struct mdevx_obj *obj, const uint8_t *buf, const struct claim *c)
{
	uint8_t out[EXP_SIZE + 8];
	struct mdevx_obj *again;

	CHECK(mdevx_obj_export(obj, out, EXP_SIZE - 1) == -ENOSPC, "short re-export");
	memset(out, 0xee, sizeof(out));
	CHECK(mdevx_obj_export(obj, out, sizeof(out)) == 0, "re-export: %s", strerror(errno));
	CHECK(memcmp(out, buf, OFF_CSUM) == 0, "re-export header differs from the import's");
	CHECK(ld32(out + OFF_CSUM) == exp_checksum(out, ATTR_SIZE), "re-export checksum");
	CHECK(ld32(out + OFF_A_HANDLE) == ld32(buf + OFF_A_HANDLE) &&
	      ld32(out + OFF_A_TYPE) == ld32(buf + OFF_A_TYPE) &&
	      ld32(out + OFF_A_OID) == ld32(buf + OFF_A_OID) &&
	      ld64(out + OFF_A_ICM) == ld64(buf + OFF_A_ICM) &&
	      out[OFF_A_RANGE] == buf[OFF_A_RANGE], "re-export attributes differ");
	CHECK(out[EXP_SIZE] == 0xee, "re-export wrote past its size");
	again = mdevx_obj_import(g.ctx2, out, EXP_SIZE, MDEVX_OBJ_ANY);
	CHECK(again != NULL, "import of a re-export: %s", strerror(errno));
	check_info(again, c);
	CHECK(mdevx_obj_unimport(again) == 0, "unimport of a re-export's import");
}

static void
check_refusal(enum flavour fl, unsigned int model, int err)
{
	fuzz_obj_import_stats.refused[fl]++;
	CHECK(model != 0 || err == ENOMEM, "%s refused (%s) a buffer the format accepts",
	      flavour_names[fl], strerror(err));
	CHECK(model == 0 || (model & ebit(err)) != 0,
	      "%s refused with %s; the failing checks allow mask %#x", flavour_names[fl],
	      strerror(err), model);
}

static void
run_obj(const struct input *in, const uint8_t *buf, size_t len, uint32_t expect)
{
	unsigned int model = model_import(buf, len, expect, FL_OBJ);
	struct mdevx_obj *imp, *twin = NULL;
	struct mdevx_counter_stats s;
	struct claim c;
	uint8_t out[EXP_SIZE];

	errno = 0;
	imp = mdevx_obj_import(g.ctx2, buf, len, (enum mdevx_obj_kind)expect);
	if (imp == NULL) {
		check_refusal(FL_OBJ, model, errno);
		return;
	}
	fuzz_obj_import_stats.accepted[FL_OBJ]++;
	CHECK(model == 0, "mdevx_obj_import accepted a buffer the format refuses "
	      "(checks failing: %#x)", model);
	read_claim(buf, &c);
	check_info(imp, &c);
	CHECK(mdevx_ctx_nb_objs(g.ctx2) == 1, "importer holds %d objects, not 1",
	      mdevx_ctx_nb_objs(g.ctx2));
	if (in->use & USE_TWICE) {
		twin = mdevx_obj_import(g.ctx2, buf, len, (enum mdevx_obj_kind)expect);
		CHECK(twin != NULL && twin != imp, "second import: %s", strerror(errno));
		check_info(twin, &c);
		CHECK(mdevx_ctx_nb_objs(g.ctx2) == 2, "two imports, %d objects",
		      mdevx_ctx_nb_objs(g.ctx2));
	}
	if (in->use & USE_REVOKE) {
		CHECK(mdevx_obj_revoke(imp) == 0, "revoke: %s", strerror(errno));
		CHECK(mdevx_obj_info(imp, &(struct mdevx_obj_info){ 0 }) == -ESTALE,
		      "info of a revoked import");
		CHECK(mdevx_counter_query(imp, 0, 1, 0, &s) == -ESTALE,
		      "query of a revoked import");
		CHECK(mdevx_obj_export(imp, out, sizeof(out)) == -ESTALE,
		      "export of a revoked import");
		CHECK(mdevx_obj_revoke(imp) == 0, "second revoke");
		CHECK(mdevx_obj_destroy(imp) == -EPERM, "destroy of a revoked import");
	} else {
		CHECK(mdevx_obj_destroy(imp) == -EPERM, "destroy of an import");
		if (in->use & USE_CNT_QUERY && c.kind == MDEVX_OBJ_FLOW_COUNTER)
			use_counter(in, &c, imp, NULL);
		if (in->use & USE_TIR_QUERY && c.kind == MDEVX_OBJ_TIR)
			use_tir(&c, imp, NULL);
		if (in->use & USE_WRONG_KIND)
			use_wrong_kind(&c, imp, NULL);
		if (in->use & USE_REEXPORT)
			reexport(imp, buf, &c);
	}
	CHECK(mdevx_obj_unimport(imp) == 0, "unimport: %s", strerror(errno));
	if (twin != NULL) {
		if (in->use & USE_CNT_QUERY && c.kind == MDEVX_OBJ_FLOW_COUNTER)
			use_counter(in, &c, twin, NULL);
		CHECK(mdevx_obj_unimport(twin) == 0, "unimport of the second import");
	}
	if (in->use & USE_AFTER_UNIMPORT) {
		CHECK(mdevx_obj_unimport(imp) == -ENOENT, "second unimport");
		CHECK(mdevx_obj_info(imp, &(struct mdevx_obj_info){ 0 }) == -ENOENT,
		      "info after unimport");
		CHECK(mdevx_counter_query(imp, 0, 1, 0, &s) == -ENOENT, "query after unimport");
		CHECK(mdevx_obj_export(imp, out, sizeof(out)) == -ENOENT, "export after unimport");
		CHECK(mdevx_obj_revoke(imp) == -ENOENT, "revoke after unimport");
	}
}

static void
run_ref(const struct input *in, const uint8_t *buf, size_t len, uint32_t expect,
	enum flavour fl)
{
	unsigned int model = model_import(buf, len, expect, fl);
	struct mdevx_obj_ref ref;
	struct claim c;
	int rc;

	memset(&ref, 0xa5, sizeof(ref));
	if (fl == FL_VERIFIED)
		rc = mdevx_obj_import_ref_verified(g.ctx2, buf, len,
						   (enum mdevx_obj_kind)expect, &ref);
	else
		rc = mdevx_obj_import_ref(g.ctx2, buf, len, (enum mdevx_obj_kind)expect, &ref);
	if (rc != 0) {
		CHECK(rc < 0, "%s returned %d", flavour_names[fl], rc);
		check_refusal(fl, model, -rc);
		return;
	}
	fuzz_obj_import_stats.accepted[fl]++;
	CHECK(model == 0, "%s accepted a buffer the format refuses (checks failing: %#x)",
	      flavour_names[fl], model);
	read_claim(buf, &c);
	CHECK(ref.bobj != NULL && ref.kind == c.kind && ref.id == c.id &&
	      ref.size_or_tirn == (c.kind == MDEVX_OBJ_FLOW_COUNTER ? c.bulk : c.tirn) &&
	      ref.rx_icm_addr == c.icm,
	      "%s: the reference differs from what the buffer claims", flavour_names[fl]);
	if (in->use & USE_CNT_QUERY && c.kind == MDEVX_OBJ_FLOW_COUNTER)
		use_counter(in, &c, NULL, &ref);
	if (in->use & USE_TIR_QUERY && c.kind == MDEVX_OBJ_TIR)
		use_tir(&c, NULL, &ref);
	if (in->use & USE_WRONG_KIND)
		use_wrong_kind(&c, NULL, &ref);
	CHECK(mdevx_ctx_nb_objs(g.ctx2) == 0, "a reference counts as an object");
	CHECK(mdevx_obj_unimport_ref(g.ctx2, &ref) == 0, "unimport_ref: %s", strerror(errno));
	CHECK(ref.bobj == NULL, "unimport_ref left the backend object");
	if (in->use & USE_AFTER_UNIMPORT)
		CHECK(mdevx_obj_unimport_ref(g.ctx2, &ref) == -EINVAL, "second unimport_ref");
}

/* The device and the exporter as set up; the originals read what they did. */
static void
full_check(void)
{
	struct mdevx_counter_stats s[16];
	struct mdevx_tir_attr attr;
	struct counter_shadow *cs;
	uint32_t c, k, n, i;

	CHECK(device_total() == g.dev_total, "the device holds %u objects, %u at set-up",
	      device_total(), g.dev_total);
	CHECK(mdevx_ctx_nb_objs(g.ctx1) == g.nobjs1, "the exporter holds %d objects, %d at "
	      "set-up", mdevx_ctx_nb_objs(g.ctx1), g.nobjs1);
	for (c = 0; c < 2; c++) {
		CHECK(mdevx_tir_query(g.tir[c], &attr) == 0 &&
		      memcmp(&attr, &g.tir_attr[c], sizeof(attr)) == 0, "original TIR %u changed",
		      c);
		cs = &g.cs[c];
		for (k = 0; k < cs->size; k += n) {
			n = cs->size - k < 16 ? cs->size - k : 16;
			CHECK(mdevx_counter_query(g.cnt[c], k, n, 0, s) == 0, "original counters");
			for (i = 0; i < n; i++)
				CHECK(s[i].packets == cs->packets[k + i] &&
				      s[i].bytes == cs->bytes[k + i],
				      "original counter %#x changed", cs->base + k + i);
		}
	}
}

static void
inject(const struct input *in)
{
	struct counter_shadow *cs = &g.cs[in->off & 1u];
	uint32_t k = in->n % cs->size;
	uint64_t packets = 1 + ((in->off >> 8) & 0xff);

	fuzz_obj_import_stats.device_cmds++;
	CHECK(swdev_ctl_inject_traffic(g.ctl, DEV, cs->base + k, packets, packets * 60) == 0,
	      "inject: %s", strerror(errno));
	cs->packets[k] += packets;
	cs->bytes[k] += packets * 60;
}

void
fuzz_obj_import_one(const uint8_t *data, size_t size)
{
	static const uint32_t bad_kinds[] = {
		MDEVX_OBJ_KIND_MAX, MDEVX_OBJ_KIND_MAX + 1, 100, 0x7fffffff, 0x80000000u,
		0xffffffffu,
	};
	uint8_t hdr[FUZZ_IMPORT_HDR_LEN] = { 0 };
	uint8_t *work, *buf;
	struct input in;
	uint32_t expect;
	unsigned int fl;
	size_t len;

	if (!g.up)
		setup();
	memcpy(hdr, data, size < sizeof(hdr) ? size : sizeof(hdr));
	in.mode = hdr[0];
	in.sel = hdr[1];
	in.lenv = hdr[2];
	in.use = hdr[3];
	in.off = ld32(hdr + 4);
	in.n = ld32(hdr + 8);
	in.pl = size > sizeof(hdr) ? data + sizeof(hdr) : hdr;
	in.plen = size > sizeof(hdr) ? size - sizeof(hdr) : 0;
	expect = in.sel >> 4;
	if (expect >= MDEVX_OBJ_KIND_MAX)
		expect = bad_kinds[expect - MDEVX_OBJ_KIND_MAX];
	fuzz_obj_import_stats.inputs++;

	work = malloc(BUF_MAX);
	CHECK(work != NULL, "out of memory");
	len = build_buffer(&in, work);
	/* exactly len bytes: a read past the buffer is a sanitizer report */
	buf = malloc(len > 0 ? len : 1);
	CHECK(buf != NULL, "out of memory");
	memcpy(buf, work, len);
	free(work);

	if (in.mode & MODE_INJECT)
		inject(&in);
	fl = (in.mode >> 3) & 3u;
	if (fl == FL_OBJ || fl == 3)
		run_obj(&in, buf, len, expect);
	if (fl == FL_REF || fl == 3)
		run_ref(&in, buf, len, expect, FL_REF);
	if (fl == FL_VERIFIED || fl == 3)
		run_ref(&in, buf, len, expect, FL_VERIFIED);
	free(buf);

	CHECK(mdevx_ctx_nb_objs(g.ctx2) == 0, "the importer holds %d objects after the input",
	      mdevx_ctx_nb_objs(g.ctx2));
	if (in.mode & MODE_FULL_CHECK || ++g.runs % CHECK_EVERY == 0)
		full_check();
}
