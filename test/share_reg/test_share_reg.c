/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Unit and concurrency tests of the shared export registry (no DPDK): the
 * registry lives in a MAP_SHARED mapping, as it lives in a memzone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mdevx_share_reg.h"
#include "unit_check.h"

static void *
shared_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void
fill_info(struct mdevx_share_rec_info *info, const char *name, uint32_t salt)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	info->kind = 1 + (salt & 1);
	info->cookie = 0xc00c1e;
	info->owner_pid = getpid();
	info->object_id = salt * 7 + 1;
	info->size_or_tirn = 128;
	info->rx_icm_addr = 0x1000000ULL + salt;
	info->export_len = 32;
	for (int i = 0; i < 32; i++)
		info->export_buf[i] = (uint8_t)(salt * 31 + (uint32_t)i);
}

static void
test_basic(void)
{
	uint32_t cap = 8, idx, idx2, probes;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = shared_map(len);
	struct mdevx_share_rec_info info, out;
	struct mdevx_share_reg *reg, *rd, *rd2;
	uint64_t gen, gen2;
	uint16_t state;
	char name[80];

	CHECK(mdevx_share_reg_size(0) == 0);
	CHECK(mdevx_share_reg_size(MDEVX_SHARE_CAPACITY_MAX + 1) == 0);
	CHECK(mdevx_share_reg_attach(mem, len) == NULL && errno == EPROTO);
	reg = mdevx_share_reg_init(mem, len, cap, 0xc00c1e);
	CHECK(reg != NULL);
	CHECK(mdevx_share_reg_init(mem, len - 1, cap, 1) == NULL && errno == EINVAL);
	rd = mdevx_share_reg_attach(mem, len);
	CHECK(rd != NULL && rd != reg && mdevx_share_reg_base(rd) == mem);
	CHECK(mdevx_share_reg_capacity(rd) == cap);
	CHECK(mdevx_share_reg_attach(mem, len - 1) == NULL && errno == EPROTO);
	CHECK(mdevx_share_reg_probe(mem, len) == 0 && mdevx_share_reg_probe(mem, len - 1) == EPROTO);
	CHECK(mdevx_share_reg_cookie(reg) == 0xc00c1e);
	/*
	 * The offsets readers follow (header bytes 24: buckets, 32: records)
	 * are checked too: a header sending them outside the region is refused.
	 */
	for (size_t at = 24; at <= 32; at += 8) {
		uint64_t saved, bad = (uint64_t)1 << 40;

		memcpy(&saved, (uint8_t *)mem + at, sizeof(saved));
		memcpy((uint8_t *)mem + at, &bad, sizeof(bad));
		CHECK(mdevx_share_reg_attach(mem, len) == NULL && errno == EPROTO);
		memcpy((uint8_t *)mem + at, &saved, sizeof(saved));
	}
	rd2 = mdevx_share_reg_attach(mem, len);
	CHECK(rd2 != NULL);
	mdevx_share_reg_free(rd2);

	fill_info(&info, "ctr0", 5);
	/* A reader's handle writes nothing, and knows no owner's state. */
	CHECK(mdevx_share_reg_publish(rd, &info, &idx, &gen) == EPERM);
	CHECK(mdevx_share_reg_owner_find(rd, "ctr0", NULL, NULL, NULL) == EPERM);
	CHECK(mdevx_share_reg_publish(reg, &info, &idx, &gen) == 0);
	CHECK(mdevx_share_reg_count(reg) == 1 && mdevx_share_reg_count(rd) == 1);
	CHECK(mdevx_share_reg_withdraw(rd, idx, gen, NULL) == EPERM);
	CHECK(mdevx_share_reg_release(rd, idx) == EPERM);
	CHECK(mdevx_share_reg_owner_find(reg, "ctr0", &idx2, &gen2, &state) == 0);
	CHECK(idx2 == idx && gen2 == gen && state == MDEVX_SHARE_REC_PUBLISHED);
	CHECK(mdevx_share_reg_owner_find(reg, "ctr", NULL, NULL, NULL) == ENOENT);
	CHECK(mdevx_share_reg_owner_slot(reg, idx, &gen2) == MDEVX_SHARE_REC_PUBLISHED &&
	      gen2 == gen);
	CHECK(mdevx_share_reg_owner_slot(reg, cap, NULL) == MDEVX_SHARE_REC_FREE);
	CHECK(mdevx_share_reg_lookup(rd, "ctr0", &out, &idx2, NULL) == 0 && idx2 == idx);
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == EEXIST);
	CHECK(mdevx_share_reg_lookup(reg, "ctr0", &out, &idx2, &probes) == 0);
	CHECK(idx2 == idx && probes == 1);
	CHECK(out.state == MDEVX_SHARE_REC_PUBLISHED && out.generation == gen);
	CHECK(out.object_id == info.object_id && out.rx_icm_addr == info.rx_icm_addr);
	CHECK(out.export_len == 32 && memcmp(out.export_buf, info.export_buf, 32) == 0);
	CHECK(strcmp(out.name, "ctr0") == 0 && out.kind == info.kind);
	CHECK(out.owner_pid == info.owner_pid && out.cookie == info.cookie &&
	      out.size_or_tirn == info.size_or_tirn);
	CHECK(mdevx_share_reg_lookup(reg, "ctr0", NULL, NULL, NULL) == EINVAL);
	CHECK(mdevx_share_reg_lookup(NULL, "ctr0", &out, NULL, NULL) == EINVAL);
	CHECK(mdevx_share_reg_lookup(reg, "ctr1", &out, NULL, NULL) == ENOENT);
	CHECK(mdevx_share_reg_lookup(reg, "", &out, NULL, NULL) == EINVAL);
	CHECK(mdevx_share_reg_lookup(reg, NULL, &out, NULL, NULL) == EINVAL);
	/* In-place views: the same record, its buffer where it lies. */
	{
		struct mdevx_share_rec_view v;

		CHECK(mdevx_share_reg_find(reg, "ctr0", &v) == 0);
		CHECK(v.idx == idx && v.state == MDEVX_SHARE_REC_PUBLISHED &&
		      v.generation == gen && v.cookie == info.cookie);
		CHECK(v.object_id == info.object_id && v.export_len == 32 &&
		      memcmp(v.export_buf, info.export_buf, 32) == 0);
		CHECK(mdevx_share_reg_view_current(reg, &v));
		CHECK(mdevx_share_reg_find(reg, "ctr1", &v) == ENOENT);
		CHECK(mdevx_share_reg_find(reg, NULL, &v) == EINVAL);
		CHECK(mdevx_share_reg_find(reg, "ctr0", NULL) == EINVAL);
		CHECK(mdevx_share_reg_find(reg, "", &v) == EINVAL);
	}

	memset(name, 'x', sizeof(name));
	name[MDEVX_SHARE_NAME_MAX + 1] = '\0';
	CHECK(mdevx_share_reg_lookup(reg, name, &out, NULL, NULL) == ENAMETOOLONG);
	{
		struct mdevx_share_rec_view v;

		CHECK(mdevx_share_reg_find(reg, name, &v) == ENAMETOOLONG);
	}
	fill_info(&info, "", 1);
	memcpy(info.name, name, MDEVX_SHARE_NAME_MAX);	/* exactly the maximum */
	info.name[MDEVX_SHARE_NAME_MAX] = '\0';
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == 0);
	CHECK(mdevx_share_reg_lookup(reg, info.name, &out, NULL, NULL) == 0);
	info.export_len = MDEVX_SHARE_EXPORT_MAX + 1;
	snprintf(info.name, sizeof(info.name), "big");
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == EINVAL);
	/* the largest buffer a record holds, whole */
	info.export_len = MDEVX_SHARE_EXPORT_MAX;
	memset(info.export_buf, 0x5a, sizeof(info.export_buf));
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == 0);
	CHECK(mdevx_share_reg_lookup(reg, "big", &out, NULL, NULL) == 0);
	CHECK(out.export_len == MDEVX_SHARE_EXPORT_MAX &&
	      memcmp(out.export_buf, info.export_buf, MDEVX_SHARE_EXPORT_MAX) == 0);
	/*
	 * A name is its bytes up to the NUL: what lies after the NUL in the
	 * caller's buffer does not count (names of every length mod 8).
	 */
	for (size_t nlen = 1; nlen <= 17; nlen++) {
		char a[64], b[64];

		memset(a, 'p', sizeof(a));
		memset(b, 'q', sizeof(b));
		for (size_t i = 0; i < nlen; i++)
			a[i] = b[i] = (char)('A' + i);
		a[nlen] = b[nlen] = '\0';
		memset(&info, 0, sizeof(info));
		memcpy(info.name, a, sizeof(info.name));
		info.export_len = 8;
		if (mdevx_share_reg_count(reg) == cap)
			break;
		CHECK(mdevx_share_reg_publish(reg, &info, &idx2, NULL) == 0);
		CHECK(mdevx_share_reg_lookup(reg, b, &out, NULL, NULL) == 0);
		CHECK(strlen(out.name) == nlen && strcmp(out.name, b) == 0);
		CHECK(mdevx_share_reg_withdraw(reg, idx2, out.generation, NULL) == 0);
		CHECK(mdevx_share_reg_release(reg, idx2) == 0);
	}
	CHECK(mdevx_share_reg_owner_find(reg, "big", &idx2, &gen2, NULL) == 0);
	CHECK(mdevx_share_reg_withdraw(reg, idx2, gen2, NULL) == 0);
	CHECK(mdevx_share_reg_release(reg, idx2) == 0);

	/* Withdraw: generation bumps, old generation is stale. */
	CHECK(mdevx_share_reg_check(reg, idx, gen) == 0);
	CHECK(mdevx_share_reg_withdraw(reg, idx, gen + 1, NULL) == ESTALE);
	CHECK(mdevx_share_reg_release(reg, idx) == EBUSY);
	{
		struct mdevx_share_rec_view v;

		CHECK(mdevx_share_reg_find(reg, "ctr0", &v) == 0);
		CHECK(mdevx_share_reg_withdraw(reg, idx, gen, &gen2) == 0);
		/* a view taken before the withdrawal is no longer current */
		CHECK(!mdevx_share_reg_view_current(reg, &v));
		CHECK(mdevx_share_reg_find(reg, "ctr0", &v) == 0);
		CHECK(v.state == MDEVX_SHARE_REC_WITHDRAWN && v.generation == gen2);
		CHECK(mdevx_share_reg_view_current(reg, &v));
	}
	CHECK(gen2 == gen + 1);
	CHECK(mdevx_share_reg_check(reg, idx, gen) == ESTALE);
	CHECK(mdevx_share_reg_check(reg, idx, gen2) == ESTALE);
	CHECK(mdevx_share_reg_lookup(reg, "ctr0", &out, NULL, NULL) == 0);
	CHECK(out.state == MDEVX_SHARE_REC_WITHDRAWN && out.generation == gen2);
	fill_info(&info, "ctr0", 5);
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == EEXIST);
	CHECK(mdevx_share_reg_release(reg, idx) == 0);
	CHECK(mdevx_share_reg_release(reg, idx) == EINVAL);
	CHECK(mdevx_share_reg_lookup(reg, "ctr0", &out, NULL, NULL) == ENOENT);
	/* the freed slot reads as such (its write window closed) */
	CHECK(mdevx_share_reg_read(reg, idx, &out) == 0 && out.state == MDEVX_SHARE_REC_FREE);
	CHECK(mdevx_share_reg_withdraw(reg, cap, 1, NULL) == EINVAL);
	CHECK(mdevx_share_reg_release(reg, cap) == EINVAL);
	CHECK(mdevx_share_reg_read(reg, cap, &out) == EINVAL);
	CHECK(mdevx_share_reg_check(reg, cap, 1) == EINVAL);
	CHECK(mdevx_share_reg_raw_record(reg, cap, NULL) == NULL);
	CHECK(mdevx_share_reg_count(reg) == 1);

	/* Slot reuse never brings an old generation back. */
	CHECK(mdevx_share_reg_publish(reg, &info, &idx2, &gen) == 0);
	CHECK(idx2 == idx && gen > gen2);
	CHECK(mdevx_share_reg_check(reg, idx, gen2) == ESTALE);

	/* Full registry. */
	for (uint32_t i = mdevx_share_reg_count(reg); i < cap; i++) {
		snprintf(name, sizeof(name), "fill%u", i);
		fill_info(&info, name, i);
		CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == 0);
	}
	fill_info(&info, "one-too-many", 3);
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == ENOSPC);
	CHECK(mdevx_share_reg_count(reg) == cap);
	/* the writer's own view of every slot, the last one too */
	for (uint32_t i = 0; i < cap; i++)
		CHECK(mdevx_share_reg_owner_slot(reg, i, NULL) == MDEVX_SHARE_REC_PUBLISHED);
	{
		int64_t i = -1;
		uint32_t seen = 0;

		while ((i = mdevx_share_reg_next(reg, (uint32_t)(i + 1), &out)) >= 0)
			seen++;
		CHECK(seen == cap);
	}
	mdevx_share_reg_free(rd);
	mdevx_share_reg_free(reg);
	mdevx_share_reg_free(NULL);
	munmap(mem, len);
}

/*
 * Views at the edge: one of the last slot is current until the record
 * changes; one that names a slot past the registry (a caller's bug or a
 * scribbled copy) is never current and reads nothing (the registry lies in
 * heap memory of its exact size here: ASan sees a read past it).
 */
static void
test_view_edges(void)
{
	uint32_t cap = 4, idx = 0;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = aligned_alloc(64, (len + 63) & ~(size_t)63);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 3);
	struct mdevx_share_rec_info info;
	struct mdevx_share_rec_view v;
	char name[16];

	CHECK(reg != NULL);
	for (uint32_t i = 0; i < cap; i++) {
		snprintf(name, sizeof(name), "v%u", i);
		fill_info(&info, name, i);
		CHECK(mdevx_share_reg_publish(reg, &info, &idx, NULL) == 0);
	}
	CHECK(idx == cap - 1);		/* the free list hands slots out in order */
	CHECK(mdevx_share_reg_find(reg, name, &v) == 0 && v.idx == cap - 1);
	CHECK(mdevx_share_reg_view_current(reg, &v));
	v.idx = cap;
	CHECK(!mdevx_share_reg_view_current(reg, &v));
	v.idx = UINT32_MAX;
	CHECK(!mdevx_share_reg_view_current(reg, &v));
	mdevx_share_reg_free(reg);
	free(mem);
}

/* A closed registry: every read gives ENODEV (or ends), nothing else changes. */
static void
test_closed(void)
{
	uint32_t cap = 8, idx;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 9);
	struct mdevx_share_rec_info info, out;
	struct mdevx_share_rec_view v;
	uint64_t gen;

	fill_info(&info, "c0", 1);
	CHECK(mdevx_share_reg_publish(reg, &info, &idx, &gen) == 0);
	CHECK(!mdevx_share_reg_is_closed(reg));
	mdevx_share_reg_close(reg);
	CHECK(mdevx_share_reg_is_closed(reg));
	CHECK(mdevx_share_reg_lookup(reg, "c0", &out, NULL, NULL) == ENODEV);
	CHECK(mdevx_share_reg_find(reg, "c0", &v) == ENODEV);
	CHECK(mdevx_share_reg_read(reg, idx, &out) == ENODEV);
	CHECK(mdevx_share_reg_check(reg, idx, gen) == ENODEV);
	CHECK(mdevx_share_reg_next(reg, 0, &out) == -1);
	CHECK(mdevx_share_reg_count(reg) == 1);
	/* A reader attached after the close sees it too. */
	{
		struct mdevx_share_reg *rd = mdevx_share_reg_attach(mem, len);

		CHECK(rd != NULL && mdevx_share_reg_is_closed(rd));
		CHECK(mdevx_share_reg_lookup(rd, "c0", &out, NULL, NULL) == ENODEV);
		mdevx_share_reg_free(rd);
	}
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

static void
test_corruption_and_dead_writer(void)
{
	uint32_t cap = 4, idx;
	size_t len = mdevx_share_reg_size(cap), rlen;
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 7);
	struct mdevx_share_rec_info info, out;
	unsigned int nonzero;
	uint8_t *raw;
	uint64_t gen;

	fill_info(&info, "tir-a", 2);
	CHECK(mdevx_share_reg_publish(reg, &info, &idx, &gen) == 0);
	raw = mdevx_share_reg_raw_record(reg, idx, &rlen);
	CHECK(raw != NULL && rlen >= 128);
	/*
	 * One flipped bit, in the name's padding (record bytes 64..111) or in
	 * the export buffer (112..239): the checksum catches either, through
	 * every reader.
	 */
	for (size_t at = 100; at <= 115; at += 15) {
		struct mdevx_share_rec_view v;

		raw[at] ^= 0x10;
		CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == EBADMSG);
		CHECK(mdevx_share_reg_find(reg, "tir-a", &v) == EBADMSG);
		CHECK(mdevx_share_reg_read(reg, idx, &out) == EBADMSG);
		raw[at] ^= 0x10;
	}
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == 0);
	/*
	 * The rest of the name's last word, after its NUL (record byte 70 for
	 * "tir-a"): a flipped bit there is a corrupted record (EBADMSG), not
	 * another name (ENOENT).
	 */
	raw[70] ^= 0x01;
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == EBADMSG);
	raw[70] ^= 0x01;
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == 0);
	/*
	 * The export length (record bytes 52..55) is covered: a changed one,
	 * even one far past the buffer, is EBADMSG, and no read goes past the
	 * record (the ASan build checks that).
	 */
	for (size_t at = 52; at <= 55; at += 3) {
		struct mdevx_share_rec_view v;
		uint8_t old = raw[at];

		raw[at] ^= 0x10;
		CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == EBADMSG);
		CHECK(mdevx_share_reg_find(reg, "tir-a", &v) == EBADMSG);
		raw[at] = old;
	}
	/*
	 * Bytes of the export buffer past its length (here 32: record bytes
	 * 144..239) are not part of the record: a change there is no
	 * corruption, and no reader ever returns them (they read as zero).
	 */
	raw[112 + 32 + 5] ^= 0x10;
	memset(&out, 0xa5, sizeof(out));
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == 0);
	CHECK(out.export_len == 32 && memcmp(out.export_buf, info.export_buf, 32) == 0);
	nonzero = 0;
	for (size_t i = 32; i < sizeof(out.export_buf); i++)
		nonzero += out.export_buf[i] != 0;
	CHECK(nonzero == 0);
	raw[112 + 32 + 5] ^= 0x10;
	/* A writer that died mid-write leaves an odd sequence: EAGAIN, no hang. */
	raw[0] |= 1;
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == EAGAIN);
	CHECK(mdevx_share_reg_check(reg, idx, gen) == EAGAIN);
	raw[0] &= (uint8_t)~1;
	CHECK(mdevx_share_reg_lookup(reg, "tir-a", &out, NULL, NULL) == 0);
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

/*
 * A chain link (not covered by the checksum: unlinking rewrites it) that a
 * corruption turned into a cycle: readers give up with EBADMSG instead of
 * walking forever (SIGALRM fails the test then); the writer unlinks from
 * its own chains, and writes the link it rewrites from them.
 */
static void
test_corrupted_chain(void)
{
	uint32_t cap = 2, ia, ib, probes;
	size_t len = mdevx_share_reg_size(cap), rlen;
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 11);
	struct mdevx_share_rec_info info, out;
	char same[2][32];
	uint64_t gen_a, gen_b;
	uint32_t *next_b;
	int n = 0;

	fill_info(&info, "a", 1);
	CHECK(mdevx_share_reg_publish(reg, &info, &ia, &gen_a) == 0);
	/* Two more names of a's bucket: their missing lookup visits "a". */
	for (int i = 0; i < 1000 && n < 2; i++) {
		snprintf(same[n], sizeof(same[n]), "b%d", i);
		if (mdevx_share_reg_lookup(reg, same[n], &out, NULL, &probes) == ENOENT &&
		    probes == 1)
			n++;
	}
	CHECK(n == 2);
	fill_info(&info, same[0], 2);
	CHECK(mdevx_share_reg_publish(reg, &info, &ib, &gen_b) == 0);	/* b -> a */
	CHECK(mdevx_share_reg_lookup(reg, same[1], &out, NULL, &probes) == ENOENT && probes == 2);
	/* b -> b: the link word follows the sequence word. */
	next_b = (uint32_t *)((uint8_t *)mdevx_share_reg_raw_record(reg, ib, &rlen) + 4);
	*next_b = ib + 1;
	alarm(5);
	CHECK(mdevx_share_reg_lookup(reg, same[1], &out, NULL, NULL) == EBADMSG);
	CHECK(mdevx_share_reg_lookup(reg, "a", &out, NULL, NULL) == EBADMSG);
	CHECK(mdevx_share_reg_withdraw(reg, ia, gen_a, NULL) == 0);
	CHECK(mdevx_share_reg_release(reg, ia) == 0);
	alarm(0);
	/* b's link in the region is the writer's again: b -> (end) */
	CHECK(*next_b == 0);
	CHECK(mdevx_share_reg_lookup(reg, same[0], &out, NULL, NULL) == 0);
	CHECK(mdevx_share_reg_lookup(reg, same[1], &out, NULL, &probes) == ENOENT && probes == 1);
	CHECK(mdevx_share_reg_count(reg) == 1);
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

/*
 * A mapping of @p len bytes with an inaccessible page right after it: a
 * write past the region is a SIGSEGV, not a silent overwrite.
 */
static void *
guarded_map(size_t len, size_t *map_len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t body = (len + (size_t)pg - 1) & ~((size_t)pg - 1);
	uint8_t *p = shared_map(body + (size_t)pg);

	if (p == NULL)
		return NULL;
	CHECK(mprotect(p + body, (size_t)pg, PROT_NONE) == 0);
	*map_len = body + (size_t)pg;
	return p;
}

/* The reader errnos a scribbled region may cost. */
static bool
reader_errno(int ret)
{
	return ret == 0 || ret == ENOENT || ret == EBADMSG || ret == EAGAIN || ret == ENODEV;
}

/*
 * The free links, the header's structure and every record scribbled: the
 * writer still publishes into its own slots only (no write past the
 * region), finds, withdraws and releases everything it owns; readers
 * attached before keep their structure, get an errno, never crash or hang.
 */
static void
test_scribbled_region(void)
{
	uint32_t cap = 16, idx, n = 0;
	size_t len = mdevx_share_reg_size(cap), map_len = 0, rlen;
	uint8_t *mem = guarded_map(len, &map_len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 5);
	struct mdevx_share_reg *rd = mdevx_share_reg_attach(mem, len);
	struct mdevx_share_rec_info info, out;
	uint64_t gen, seed = 12345;
	uint8_t hdr[64];
	char name[32];

	CHECK(reg != NULL && rd != NULL);
	/* Half published; every free record's link sent past the registry. */
	for (uint32_t i = 0; i < cap / 2; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		fill_info(&info, name, i);
		CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == 0);
	}
	for (uint32_t i = 0; i < cap; i++) {
		uint8_t *raw = mdevx_share_reg_raw_record(reg, i, &rlen);
		uint32_t past = cap + 1;

		if (mdevx_share_reg_owner_slot(reg, i, NULL) == MDEVX_SHARE_REC_FREE)
			memcpy(raw + 4, &past, sizeof(past));
	}
	/* capacity, bucket count, offsets (and the closed flag): as a rogue would set them */
	memcpy(hdr, mem, sizeof(hdr));
	memset(mem + 8, 0xff, 40);
	CHECK(mdevx_share_reg_attach(mem, len) == NULL && errno == EPROTO);
	for (uint32_t i = cap / 2; i < cap; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		fill_info(&info, name, i);
		CHECK(mdevx_share_reg_publish(reg, &info, &idx, NULL) == 0 && idx < cap);
	}
	fill_info(&info, "one-more", 1);
	CHECK(mdevx_share_reg_publish(reg, &info, NULL, NULL) == ENOSPC);
	/* The records themselves, buckets and all: random bytes, then zeros. */
	for (int round = 0; round < 2; round++) {
		for (size_t at = 64; at < len; at += 8) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			memcpy(mem + at, round == 0 ? (void *)&seed : (void *)"\0\0\0\0\0\0\0", 8);
		}
		alarm(5);
		for (uint32_t i = 0; i < cap; i++) {
			snprintf(name, sizeof(name), "s%u", i);
			CHECK(reader_errno(mdevx_share_reg_lookup(rd, name, &out, NULL, NULL)));
			CHECK(reader_errno(mdevx_share_reg_read(rd, i, &out)));
			CHECK(reader_errno(mdevx_share_reg_check(rd, i, 1)) ||
			      mdevx_share_reg_check(rd, i, 1) == ESTALE);
		}
		for (int64_t i = -1; (i = mdevx_share_reg_next(rd, (uint32_t)(i + 1), &out)) >= 0;)
			CHECK(i < cap);
		alarm(0);
	}
	/* The writer's records are all still its own. */
	for (uint32_t i = 0; i < cap; i++) {
		uint16_t state;

		snprintf(name, sizeof(name), "s%u", i);
		CHECK(mdevx_share_reg_owner_find(reg, name, &idx, &gen, &state) == 0);
		CHECK(state == MDEVX_SHARE_REC_PUBLISHED);
		CHECK(mdevx_share_reg_withdraw(reg, idx, gen, NULL) == 0);
		n += mdevx_share_reg_release(reg, idx) == 0;
	}
	CHECK(n == cap && mdevx_share_reg_count(reg) == 0);
	/* Written anew from the writer's state: readers find them again. */
	memcpy(mem, hdr, sizeof(hdr));
	for (uint32_t i = 0; i < cap; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		fill_info(&info, name, i);
		CHECK(mdevx_share_reg_publish(reg, &info, &idx, &gen) == 0);
		CHECK(mdevx_share_reg_lookup(rd, name, &out, NULL, NULL) == 0);
		CHECK(out.generation == gen && out.object_id == info.object_id);
	}
	mdevx_share_reg_free(rd);
	mdevx_share_reg_free(reg);
	munmap(mem, map_len);
}

/*
 * Headers that must be refused at once: a capacity whose bucket count
 * overflows (attach used to loop forever on 0x40000001 with size 0), zero,
 * one past the maximum, and an all-ones header.
 */
static void
test_bad_headers(void)
{
	uint32_t cap = 4;
	size_t len = mdevx_share_reg_size(cap);
	uint8_t *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 5);
	const uint32_t caps[] = { 0x40000001u, 0x80000000u, 0xffffffffu, 0,
				  MDEVX_SHARE_CAPACITY_MAX + 1 };
	uint8_t saved[64];

	CHECK(reg != NULL);
	memcpy(saved, mem, sizeof(saved));
	alarm(5);
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		uint64_t zero = 0;

		memcpy(mem + 16, &caps[k], 4);		/* capacity */
		for (int z = 0; z < 2; z++) {
			if (z == 1)
				memcpy(mem + 40, &zero, 8);	/* total size */
			CHECK(mdevx_share_reg_attach(mem, len) == NULL && errno == EPROTO);
			CHECK(mdevx_share_reg_probe(mem, len) == EPROTO);
		}
		memcpy(mem, saved, sizeof(saved));
	}
	memset(mem + 8, 0xff, 56);
	CHECK(mdevx_share_reg_attach(mem, len) == NULL && errno == EPROTO);
	alarm(0);
	memcpy(mem, saved, sizeof(saved));
	CHECK(mdevx_share_reg_probe(mem, len) == 0);
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

/*
 * The sequence retry, made deterministic: a hook between a reader's copy
 * of the record and its second sequence read rewrites the record once.
 * The reader must retry and return the new contents, never the copy it
 * made before (nor EBADMSG from a checksum of mixed bytes).
 */
struct rewrite_once {
	struct mdevx_share_reg *reg;
	uint32_t idx;
	uint64_t gen;
	uint64_t new_gen;
	int calls;
	int rc;
};

static void
rewrite_once(uint32_t idx, void *arg)
{
	struct rewrite_once *r = arg;

	if (r->calls++ != 0 || idx != r->idx)
		return;
	r->rc = mdevx_share_reg_withdraw(r->reg, r->idx, r->gen, &r->new_gen);
}

static void
test_read_retry(void)
{
	uint32_t cap = 4, idx;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 5);
	struct mdevx_share_rec_info info, out;
	struct mdevx_share_rec_view v;
	struct rewrite_once r;
	uint64_t gen;

	for (int reader = 0; reader < 3; reader++) {
		fill_info(&info, "r", 3);
		CHECK(mdevx_share_reg_publish(reg, &info, &idx, &gen) == 0);
		memset(&r, 0, sizeof(r));
		r.reg = reg;
		r.idx = idx;
		r.gen = gen;
		mdevx_share_reg_test_read_hook(rewrite_once, &r);
		memset(&out, 0, sizeof(out));
		memset(&v, 0, sizeof(v));
		if (reader == 0)
			CHECK(mdevx_share_reg_lookup(reg, "r", &out, NULL, NULL) == 0);
		else if (reader == 1)
			CHECK(mdevx_share_reg_read(reg, idx, &out) == 0);
		else
			CHECK(mdevx_share_reg_find(reg, "r", &v) == 0);
		mdevx_share_reg_test_read_hook(NULL, NULL);
		CHECK(r.rc == 0 && r.calls == 2);
		if (reader < 2)
			CHECK(out.state == MDEVX_SHARE_REC_WITHDRAWN && out.generation == r.new_gen &&
			      out.object_id == info.object_id);
		else
			CHECK(v.state == MDEVX_SHARE_REC_WITHDRAWN && v.generation == r.new_gen &&
			      mdevx_share_reg_view_current(reg, &v));
		CHECK(mdevx_share_reg_release(reg, idx) == 0);
	}
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

static void
test_probes_at_full_load(void)
{
	uint32_t cap = 65536, total = 0, max = 0, p;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 9);
	struct mdevx_share_rec_info info, out;
	char name[32];
	double avg;

	for (uint32_t i = 0; i < cap; i++) {
		snprintf(name, sizeof(name), "counter-bulk-%u", i);
		fill_info(&info, name, i);
		if (mdevx_share_reg_publish(reg, &info, NULL, NULL) != 0)
			break;
	}
	CHECK(mdevx_share_reg_count(reg) == cap);
	for (uint32_t i = 0; i < cap; i++) {
		snprintf(name, sizeof(name), "counter-bulk-%u", i);
		if (mdevx_share_reg_lookup(reg, name, &out, NULL, &p) != 0) {
			CHECK(0);
			break;
		}
		total += p;
		max = p > max ? p : max;
	}
	avg = (double)total / cap;
	printf("probes at full load (%u records): average %.3f, max %u\n", cap, avg, max);
	CHECK(avg <= 1.5);
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

/* Writer publishes/withdraws/releases; readers verify every hit is whole. */
static void
test_concurrent_readers(void)
{
	const uint32_t cap = 256, names = 512, nreaders = 3;
	size_t len = mdevx_share_reg_size(cap);
	void *mem = shared_map(len);
	struct mdevx_share_reg *reg = mdevx_share_reg_init(mem, len, cap, 11);
	volatile uint32_t *stop = shared_map(4096);
	pid_t pids[8];
	struct timespec t0, t1;
	uint64_t ops = 0;

	fflush(stdout);
	for (uint32_t r = 0; r < nreaders; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			struct mdevx_share_rec_info out, want;
			uint64_t hits = 0, bad = 0, seed = r + 1;
			char name[32];

			while (!*stop) {
				uint32_t n;
				int ret;

				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				n = (uint32_t)(seed % names);
				snprintf(name, sizeof(name), "obj%u", n);
				ret = mdevx_share_reg_lookup(reg, name, &out, NULL, NULL);
				if (ret == 0) {
					/* object_id: the version the payload is built from */
					fill_info(&want, name, (out.object_id - 1) / 7);
					hits++;
					if (memcmp(out.export_buf, want.export_buf, 32) != 0 ||
					    out.rx_icm_addr != want.rx_icm_addr ||
					    strcmp(out.name, name) != 0)
						bad++;
				} else if (ret != ENOENT && ret != EAGAIN) {
					bad++;
				}
			}
			printf("reader %u: %lu hits, %lu torn or invalid\n", r,
			       (unsigned long)hits, (unsigned long)bad);
			fflush(stdout);
			_exit(bad == 0 && hits > 0 ? 0 : 1);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (uint32_t n = 0; n < names; n++) {
			struct mdevx_share_rec_info info, out;
			uint32_t idx;
			char name[32];

			snprintf(name, sizeof(name), "obj%u", n);
			if (mdevx_share_reg_lookup(reg, name, &out, &idx, NULL) == 0) {
				uint64_t g;

				if (out.state == MDEVX_SHARE_REC_PUBLISHED)
					mdevx_share_reg_withdraw(reg, idx, out.generation, &g);
				mdevx_share_reg_release(reg, idx);
			} else {
				fill_info(&info, name, (uint32_t)ops);
				mdevx_share_reg_publish(reg, &info, NULL, NULL);
			}
			ops++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	*stop = 1;
	printf("writer: %lu publish/withdraw operations\n", (unsigned long)ops);
	for (uint32_t r = 0; r < nreaders; r++) {
		int st;

		CHECK(waitpid(pids[r], &st, 0) == pids[r] && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0);
	}
	mdevx_share_reg_free(reg);
	munmap(mem, len);
}

int
main(void)
{
	test_basic();
	test_view_edges();
	test_corruption_and_dead_writer();
	test_closed();
	test_corrupted_chain();
	test_scribbled_region();
	test_bad_headers();
	test_read_retry();
	test_probes_at_full_load();
	test_concurrent_readers();
	return check_summary();
}
