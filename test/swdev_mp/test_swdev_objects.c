/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Objects across uverbs files and the rdma-core 63 export / import /
 * unimport semantics, through the daemon: export writes the 32-byte private
 * attributes, import and unimport are local and unchecked, a bad or stale
 * handle is found only when used; a handle imported into an unrelated file
 * reaches that file's object of the same number or fails, never the
 * original; a command naming another file's object id is refused. Also
 * fault injection, a 65536-counter query (1 MiB reply) and the import of
 * a PD by handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdevx_prm.h"
#include "mp_common.h"

static uint32_t
total_of(struct swdev_ctl *ctl, uint32_t file_id)
{
	struct swdev_counts c;

	memset(&c, 0, sizeof(c));
	if (swdev_ctl_get_counts(ctl, MP_DEV, file_id, &c) != 0)
		return UINT32_MAX;
	return c.total;
}

static void
test_foreign_handles(struct swdev_ctl *ctl)
{
	struct swdev_ctx *c1, *c2;
	struct swdev_obj *ctr1, *ctr2, *imp, *td1, *imp_td;
	uint8_t attrs[32], td_attrs[32];
	uint64_t pk = 0;
	uint32_t base1 = 0, base2 = 0, f1, f2, before1;
	int err;

	printf("== handles and ids across uverbs files\n");
	c1 = swdev_open(mp_sock, MP_DEV);
	c2 = swdev_open(mp_sock, MP_DEV);
	CHECK(c1 != NULL && c2 != NULL, "two files: %s", strerror(errno));
	if (c1 == NULL || c2 == NULL)
		return;
	f1 = swdev_ctx_file_id(c1);
	f2 = swdev_ctx_file_id(c2);
	CHECK(f1 != f2, "distinct files %u %u", f1, f2);
	CHECK(swdev_ctx_uid(c1) != swdev_ctx_uid(c2), "distinct uids %u %u", swdev_ctx_uid(c1),
	      swdev_ctx_uid(c2));
	ctr1 = mp_counter_alloc(c1, 1, &base1, &err);
	ctr2 = mp_counter_alloc(c2, 1, &base2, &err);
	CHECK(ctr1 != NULL && ctr2 != NULL, "one bulk in each file");
	if (ctr1 == NULL || ctr2 == NULL)
		return;
	CHECK(base1 != base2, "object ids are per device: %u %u", base1, base2);
	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, base1, 111, 1110) == 0, "inject file 1");
	CHECK(swdev_ctl_inject_traffic(ctl, MP_DEV, base2, 222, 2220) == 0, "inject file 2");

	/* File 1's counter imported into file 2 (a wrong cmd fd was used). */
	CHECK(swdev_obj_export(ctr1, attrs) == 0, "export");
	imp = swdev_obj_import(c2, attrs);
	CHECK(imp != NULL, "import into an unrelated file needs no check");
	if (imp == NULL)
		return;
	err = mp_counter_query(imp, base1, false, &pk, NULL, NULL, NULL);
	CHECK(err != 0, "the original object is not reachable from file 2 (got %lu)",
	      (unsigned long)pk);
	CHECK(err == EINVAL || err == ENOENT || err == EREMOTEIO, "refused: %s", strerror(err));
	if (imp->handle == ctr2->handle) {
		/* Same handle number: it names file 2's own bulk. */
		err = mp_counter_query(imp, base2, false, &pk, NULL, NULL, NULL);
		CHECK(err == 0 && pk == 222, "handle %u reaches file 2's object: %s %lu",
		      imp->handle, strerror(err), (unsigned long)pk);
	} else {
		err = mp_counter_query(imp, base2, false, &pk, NULL, NULL, NULL);
		CHECK(err != 0, "a handle file 2 never gave out fails: %s", strerror(err));
	}
	swdev_obj_unimport(imp);

	/* File 2's own handle, naming file 1's counter id. */
	pk = 0;
	err = mp_counter_query(ctr2, base1, false, &pk, NULL, NULL, NULL);
	CHECK(err != 0 && pk != 111, "another file's counter id is refused: %s", strerror(err));
	err = mp_counter_query(ctr2, base2 + 127, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0, "own range still fine: %s", strerror(err));
	err = mp_counter_query(ctr2, base2 + 128, false, &pk, NULL, NULL, NULL);
	CHECK(err != 0, "one past the bulk is refused: %s", strerror(err));

	/* Destroy through a foreign import: file 1 keeps its objects. */
	td1 = mp_td_alloc(c1, NULL, &err);
	CHECK(td1 != NULL, "td in file 1");
	if (td1 != NULL) {
		swdev_obj_export(td1, td_attrs);
		before1 = total_of(ctl, f1);
		imp_td = swdev_obj_import(c2, td_attrs);
		err = swdev_obj_destroy(imp_td);
		if (err != 0)
			swdev_obj_unimport(imp_td);
		CHECK(total_of(ctl, f1) == before1, "file 1 untouched by file 2's destroy (%s)",
		      strerror(err));
		CHECK(swdev_obj_destroy(td1) == 0, "file 1 destroys its td");
	}
	err = mp_counter_query(ctr1, base1, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 111, "file 1's counter intact: %s %lu", strerror(err),
	      (unsigned long)pk);
	swdev_obj_destroy(ctr1);
	swdev_close(c1);
	swdev_close(c2);
	free(ctr2);	/* its file is closed: the daemon destroyed the bulk */
}

static void
test_export_semantics(struct swdev_ctl *ctl)
{
	struct swdev_export_sizes sz;
	struct swdev_ctx *ctx;
	struct swdev_obj *ctr, *imp, *imp2, *junk, *ctr_new;
	uint8_t buf[64];
	uint64_t pk = 0;
	uint32_t base = 0, base_new = 0, f, u32, before, h_old;
	uint64_t u64;
	uint8_t status = 0;
	int err, i, zero;

	printf("== export / import / unimport (rdma-core 63)\n");
	memset(&sz, 0xff, sizeof(sz));
	swdev_get_export_sizes(&sz);
	CHECK(sz.devx_obj_attrs_size == 32, "devx_obj_attrs_size %u", sz.devx_obj_attrs_size);
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	f = swdev_ctx_file_id(ctx);
	ctr = mp_counter_alloc(ctx, 1, &base, &err);
	CHECK(ctr != NULL, "bulk");
	if (ctr == NULL)
		return;
	CHECK(ctr->type == 2 && ctr->object_id == base && ctr->rx_icm_addr == 0,
	      "rdma-core fields of a counter: type %u id %u", ctr->type, ctr->object_id);
	CHECK(swdev_obj_export(NULL, buf) == EINVAL, "export NULL object");
	CHECK(swdev_obj_export(ctr, NULL) == EINVAL, "export to NULL");
	memset(buf, 0xa5, sizeof(buf));
	CHECK(swdev_obj_export(ctr, buf) == 0, "export");
	memcpy(&u32, buf + 0, 4);
	CHECK(u32 == ctr->handle, "handle at 0: %u", u32);
	memcpy(&u32, buf + 4, 4);
	CHECK(u32 == 2, "type at 4: %u", u32);
	memcpy(&u32, buf + 8, 4);
	CHECK(u32 == base, "object_id at 8: %u", u32);
	memcpy(&u64, buf + 16, 8);
	CHECK(u64 == ctr->rx_icm_addr, "rx_icm_addr at 16");
	CHECK(buf[24] == ctr->log_obj_range, "log_obj_range at 24");
	zero = 1;
	for (i = 12; i < 16; i++)
		zero &= buf[i] == 0;
	for (i = 25; i < 32; i++)
		zero &= buf[i] == 0;
	CHECK(zero, "padding zero-filled");
	CHECK(buf[32] == 0xa5, "nothing written past 32 bytes");

	before = total_of(ctl, f);
	imp = swdev_obj_import(ctx, buf);
	imp2 = swdev_obj_import(ctx, buf);
	CHECK(imp != NULL && imp2 != NULL && imp != ctr && imp != imp2, "two local imports");
	if (imp == NULL || imp2 == NULL)
		return;
	CHECK(imp->handle == ctr->handle && imp->type == 2 && imp->object_id == base &&
	      imp->ctx == ctx, "import copies the fields");
	CHECK(total_of(ctl, f) == before, "import sends no command");
	swdev_ctl_inject_traffic(ctl, MP_DEV, base + 1, 4, 40);
	err = mp_counter_query(imp, base + 1, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 4, "query through the import: %s", strerror(err));
	swdev_obj_unimport(imp2);
	CHECK(total_of(ctl, f) == before, "unimport frees the local object only");
	err = mp_counter_query(ctr, base + 1, false, &pk, NULL, NULL, NULL);
	CHECK(err == 0 && pk == 4, "original still works after unimport");

	/* Garbage buffer: import accepts it, use fails. */
	memset(buf + 32, 0, 32);
	u32 = 4000;
	memcpy(buf + 32, &u32, 4);
	junk = swdev_obj_import(ctx, buf + 32);
	CHECK(junk != NULL, "import of a garbage buffer is not checked");
	if (junk != NULL) {
		err = mp_counter_query(junk, base, false, &pk, NULL, NULL, NULL);
		CHECK(err != 0, "use of a garbage handle fails: %s", strerror(err));
		swdev_obj_unimport(junk);
	}

	/* Use after destroy. */
	h_old = ctr->handle;
	CHECK(swdev_obj_destroy(ctr) == 0, "destroy the original");
	CHECK(total_of(ctl, f) == before - 1, "one object less");
	err = mp_counter_query(imp, base + 1, false, &pk, NULL, &status, NULL);
	CHECK(err != 0, "query through the import after destroy fails: %s", strerror(err));
	err = swdev_obj_destroy(imp);
	CHECK(err != 0, "destroy again through the import fails: %s", strerror(err));
	/* Handles are reused: the stale import may now name a new object. */
	ctr_new = mp_counter_alloc(ctx, 1, &base_new, &err);
	CHECK(ctr_new != NULL, "new bulk");
	if (ctr_new != NULL && ctr_new->handle == h_old) {
		swdev_ctl_inject_traffic(ctl, MP_DEV, base_new + 1, 9, 90);
		pk = 0;
		err = mp_counter_query(imp, base + 1, false, &pk, NULL, NULL, NULL);
		if (base_new == base)
			/* Handle and ids both reused: the stale import names the
			 * new bulk (what the driver's generation check is for). */
			CHECK(err == 0 && pk == 9, "stale import reaches the new object: %s %lu",
			      strerror(err), (unsigned long)pk);
		else
			CHECK(err != 0, "stale import on a reused handle: old id refused: %s",
			      strerror(err));
	} else if (ctr_new != NULL) {
		err = mp_counter_query(imp, base + 1, false, &pk, NULL, NULL, NULL);
		CHECK(err == ENOENT, "stale handle not reused: ENOENT: %s", strerror(err));
	}
	swdev_obj_unimport(imp);	/* after the original's destroy: local free only */
	if (ctr_new != NULL)
		CHECK(swdev_obj_destroy(ctr_new) == 0, "destroy the new bulk");
	CHECK(total_of(ctl, f) == before - 1, "counts back");
	swdev_close(ctx);
}

static void
test_faults(struct swdev_ctl *ctl)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t out[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)];
	struct swdev_ctx *ctx;
	struct swdev_obj *obj;
	uint32_t f, before;
	int err;

	printf("== fault injection\n");
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	f = swdev_ctx_file_id(ctx);
	before = total_of(ctl, f);
	err = swdev_ctl_set_fault(ctl, MP_DEV, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, 1,
				  MDEVX_CMD_STAT_BAD_PARAM_ERR, 0x1234abcd, 0);
	CHECK(err == 0, "set fault: %s", strerror(err));
	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	memset(out, 0xee, sizeof(out));
	obj = swdev_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	err = errno;
	CHECK(obj == NULL && err == EREMOTEIO, "create fails with EREMOTEIO: %s", strerror(err));
	CHECK(MDEVX_GET(alloc_flow_counter_out, out, status) == MDEVX_CMD_STAT_BAD_PARAM_ERR,
	      "status in the out mailbox: %#x", MDEVX_GET(alloc_flow_counter_out, out, status));
	CHECK(MDEVX_GET(alloc_flow_counter_out, out, syndrome) == 0x1234abcd,
	      "syndrome in the out mailbox: %#x", MDEVX_GET(alloc_flow_counter_out, out, syndrome));
	CHECK(total_of(ctl, f) == before, "no object created");
	obj = swdev_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	CHECK(obj != NULL, "the next create succeeds: %s", strerror(errno));
	if (obj != NULL)
		swdev_obj_destroy(obj);
	CHECK(swdev_ctl_set_fault(ctl, "mlx5_nope", MDEVX_CMD_OP_ALLOC_FLOW_COUNTER, 1,
				  MDEVX_CMD_STAT_BAD_PARAM_ERR, 0, 0) != 0,
	      "fault on an unknown device refused");
	swdev_close(ctx);
}

/* 65536 counters in one bulk, read in one query: a 1 MiB reply frame. */
static void
test_large(struct swdev_ctl *ctl)
{
	uint8_t in[MDEVX_ST_SZ_BYTES(alloc_flow_counter_in)] = { 0 };
	uint8_t aout[MDEVX_ST_SZ_BYTES(alloc_flow_counter_out)] = { 0 };
	uint8_t qin[MDEVX_ST_SZ_BYTES(query_flow_counter_in)] = { 0 };
	const uint32_t n = 65536;
	size_t outlen = MDEVX_ST_SZ_BYTES(query_flow_counter_out) +
			(size_t)n * MDEVX_ST_SZ_BYTES(traffic_counter);
	struct swdev_ctx *ctx;
	struct swdev_obj *obj;
	uint8_t *out;
	uint32_t base;
	int err, ok = 1;
	uint32_t i;

	printf("== 65536 counters in one query (%zu bytes)\n", outlen);
	ctx = swdev_open(mp_sock, MP_DEV);
	out = malloc(outlen);
	CHECK(ctx != NULL && out != NULL, "open");
	if (ctx == NULL || out == NULL)
		return;
	MDEVX_SET(alloc_flow_counter_in, in, opcode, MDEVX_CMD_OP_ALLOC_FLOW_COUNTER);
	MDEVX_SET(alloc_flow_counter_in, in, flow_counter_bulk_log_size, 16);
	obj = swdev_obj_create(ctx, in, sizeof(in), aout, sizeof(aout));
	CHECK(obj != NULL, "bulk of 2^16 counters: %s status %#x syndrome %#x", strerror(errno),
	      MDEVX_GET(alloc_flow_counter_out, aout, status),
	      MDEVX_GET(alloc_flow_counter_out, aout, syndrome));
	if (obj == NULL)
		goto out;
	base = obj->object_id;
	swdev_ctl_inject_traffic(ctl, MP_DEV, base, 1, 2);
	swdev_ctl_inject_traffic(ctl, MP_DEV, base + n / 2, 3, 4);
	swdev_ctl_inject_traffic(ctl, MP_DEV, base + n - 1, 5, 6);
	MDEVX_SET(query_flow_counter_in, qin, opcode, MDEVX_CMD_OP_QUERY_FLOW_COUNTER);
	MDEVX_SET(query_flow_counter_in, qin, flow_counter_id, base);
	MDEVX_SET(query_flow_counter_in, qin, num_of_counters, n);
	memset(out, 0xcc, outlen);
	err = swdev_obj_query(obj, qin, sizeof(qin), out, outlen);
	CHECK(err == 0, "query 65536: %s status %#x", strerror(err),
	      MDEVX_GET(query_flow_counter_out, out, status));
	if (err == 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *e = out + 16 + 16 * (size_t)i;
			uint64_t p = MDEVX_GET64(traffic_counter, e, packets);
			uint64_t b = MDEVX_GET64(traffic_counter, e, octets);
			uint64_t wp = i == 0 ? 1 : i == n / 2 ? 3 : i == n - 1 ? 5 : 0;

			if (p != wp || b != (wp == 0 ? 0 : wp + 1))
				ok = 0;
		}
		CHECK(ok, "every one of the 65536 entries is right");
	}
	/* A second context keeps working after the big frame. */
	CHECK(mp_counter_query(obj, base + n - 1, false, NULL, NULL, NULL, NULL) == 0,
	      "small query after the big one");
	swdev_obj_destroy(obj);
out:
	free(out);
	swdev_close(ctx);
}

/* Client-side argument checks: no request reaches the daemon. */
static void
test_arguments(struct swdev_ctl *ctl)
{
	uint8_t in[64] = { 0 }, out[64];
	struct swdev_ctx *ctx;
	struct swdev_obj *pd, *o;
	uint32_t pdn, eqn, f;
	uint8_t *huge;

	printf("== argument checks\n");
	ctx = swdev_open(mp_sock, MP_DEV);
	CHECK(ctx != NULL, "open");
	if (ctx == NULL)
		return;
	f = swdev_ctx_file_id(ctx);
	CHECK(swdev_obj_query(NULL, in, 16, out, 16) == EINVAL, "query NULL object");
	CHECK(swdev_obj_modify(NULL, in, 16, out, 16) == EINVAL, "modify NULL object");
	CHECK(swdev_obj_destroy(NULL) == EINVAL, "destroy NULL object");
	o = swdev_obj_create(ctx, NULL, 16, out, sizeof(out));
	CHECK(o == NULL && errno == EINVAL, "create without input: %s", strerror(errno));
	o = swdev_obj_create(ctx, in, 16, NULL, 16);
	CHECK(o == NULL && errno == EINVAL, "create without output: %s", strerror(errno));
	o = swdev_obj_create(NULL, in, 16, out, 16);
	CHECK(o == NULL && errno == EINVAL, "create without context: %s", strerror(errno));
	huge = calloc(1, 3u << 20);
	if (huge != NULL) {
		CHECK(swdev_general_cmd(ctx, huge, 3u << 20, out, 16) == EINVAL,
		      "3 MiB input refused by the library");
		CHECK(swdev_general_cmd(ctx, in, 16, huge, 3u << 20) == EINVAL,
		      "3 MiB output refused by the library");
		free(huge);
	}
	CHECK(swdev_query_eqn(ctx, 0, NULL) == EINVAL, "query_eqn without result");
	CHECK(swdev_query_eqn(ctx, 0, &eqn) == 0, "query_eqn");
	pd = swdev_pd_alloc(ctx, &pdn);
	CHECK(pd != NULL, "pd");
	if (pd != NULL) {
		CHECK(swdev_obj_query(pd, in, 16, out, 16) == EINVAL,
		      "DEVX query on a PD object refused locally");
		CHECK(total_of(ctl, f) == 1, "one object: %u", total_of(ctl, f));
		CHECK(swdev_obj_destroy(pd) == 0, "destroy pd");
	}
	CHECK(swdev_cmd_fd(NULL) == -1 && errno == EINVAL, "cmd fd of NULL");
	CHECK(swdev_close(NULL) == EINVAL, "close NULL");
	CHECK(swdev_obj_import(NULL, in) == NULL && errno == EINVAL, "import on NULL context");
	swdev_obj_unimport(NULL);
	CHECK(total_of(ctl, f) == 0, "nothing left: %u", total_of(ctl, f));
	CHECK(swdev_close(ctx) == 0, "close");
}

/*
 * ibv_import_pd() on the device: a PD handle of the file, received with a
 * dup of the command fd, resolves there to the same pdn; a handle of
 * another kind, an unknown one and one looked up in another file do not.
 * Unimport is local; a destroy through the import removes the PD for all.
 */
static void
test_pd_import(struct swdev_ctl *ctl)
{
	struct swdev_ctx *c1, *c2, *c3;
	struct swdev_obj *pd, *imp, *ctr;
	uint32_t pdn = 0, pdn2 = 0, base = 0, f1, before;
	int fd, err;

	printf("== PD import by handle\n");
	c1 = swdev_open(mp_sock, MP_DEV);
	CHECK(c1 != NULL, "open: %s", strerror(errno));
	if (c1 == NULL)
		return;
	f1 = swdev_ctx_file_id(c1);
	fd = dup(swdev_cmd_fd(c1));
	c2 = fd >= 0 ? swdev_import_device(fd) : NULL;
	CHECK(c2 != NULL, "import of a dup of the command fd: %s", strerror(errno));
	c3 = swdev_open(mp_sock, MP_DEV);
	CHECK(c3 != NULL, "another file: %s", strerror(errno));
	pd = swdev_pd_alloc(c1, &pdn);
	ctr = mp_counter_alloc(c1, 0, &base, &err);
	CHECK(pd != NULL && ctr != NULL, "a PD and a counter in the file");
	if (c2 == NULL || c3 == NULL || pd == NULL || ctr == NULL)
		return;
	before = total_of(ctl, f1);
	imp = swdev_pd_import(c2, swdev_obj_handle(pd), &pdn2);
	CHECK(imp != NULL, "import of handle %u: %s", swdev_obj_handle(pd), strerror(errno));
	CHECK(pdn2 == pdn, "imported pdn %#x, allocated %#x", pdn2, pdn);
	CHECK(swdev_obj_handle(imp) == swdev_obj_handle(pd), "import keeps the handle");
	CHECK(total_of(ctl, f1) == before, "an import creates nothing: %u -> %u", before,
	      total_of(ctl, f1));
	errno = 0;
	CHECK(swdev_pd_import(c2, swdev_obj_handle(ctr), NULL) == NULL && errno == EINVAL,
	      "a counter's handle is not a PD: %s", strerror(errno));
	errno = 0;
	CHECK(swdev_pd_import(c2, 0xfffff0, NULL) == NULL && errno == ENOENT,
	      "unknown handle: %s", strerror(errno));
	errno = 0;
	CHECK(swdev_pd_import(c3, swdev_obj_handle(pd), NULL) == NULL && errno == ENOENT,
	      "the handle in a file without objects: %s", strerror(errno));
	errno = 0;
	CHECK(swdev_pd_import(NULL, swdev_obj_handle(pd), NULL) == NULL && errno == EINVAL,
	      "NULL context: %s", strerror(errno));
	/* Unimport is local: the PD is still there for both contexts. */
	swdev_obj_unimport(imp);
	imp = swdev_pd_import(c2, swdev_obj_handle(pd), &pdn2);
	CHECK(imp != NULL && pdn2 == pdn, "imported again after the unimport");
	CHECK(total_of(ctl, f1) == before, "still %u objects: %u", before, total_of(ctl, f1));
	/* ibv_dealloc_pd() through the import: gone for the allocator too. */
	if (imp != NULL)
		CHECK(swdev_obj_destroy(imp) == 0, "destroy through the import");
	CHECK(total_of(ctl, f1) == before - 1, "the PD is gone: %u", total_of(ctl, f1));
	errno = 0;
	CHECK(swdev_pd_import(c1, swdev_obj_handle(pd), NULL) == NULL && errno == ENOENT,
	      "a destroyed PD's handle: %s", strerror(errno));
	CHECK(swdev_obj_destroy(pd) == ENOENT, "the allocator's destroy finds nothing");
	swdev_obj_unimport(pd);
	CHECK(swdev_obj_destroy(ctr) == 0, "destroy the counter");
	CHECK(total_of(ctl, f1) == 0, "nothing left: %u", total_of(ctl, f1));
	swdev_close(c3);
	swdev_close(c2);
	swdev_close(c1);
}

int
main(int argc, char **argv)
{
	static const char *const extra[] = {
		"--max-counters", "200000", "--counter-bulk-log-max", "16",
		"--log-max-counter-bulk", "16", NULL,
	};
	struct swdev_ctl *ctl;

	mp_init(argc, argv, "objects");
	if (mp_daemon_start(mp_sock, extra) < 0) {
		CHECK(0, "daemon start");
		return mp_finish();
	}
	ctl = swdev_ctl_open(mp_sock);
	CHECK(ctl != NULL, "control");
	if (ctl == NULL)
		return mp_finish();
	test_foreign_handles(ctl);
	test_export_semantics(ctl);
	test_faults(ctl);
	test_large(ctl);
	test_arguments(ctl);
	test_pd_import(ctl);
	swdev_ctl_close(ctl);
	return mp_finish();
}
