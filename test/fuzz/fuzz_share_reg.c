/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Fuzzing of the share registry against a scribbled region: each input is
 * a program of operations on one registry (heap memory of exactly its
 * size, so that ASan sees any access past it): the writer publishes,
 * withdraws and releases; readers (a handle attached at the start, and
 * fresh ones) look up, find, read, check and iterate; a rogue writes
 * bytes, header fields, links and bit flips anywhere in the region.
 *
 * Invariants (abort() when broken):
 * - the writer's results follow a model kept here, whatever the region
 *   holds: publish EEXIST/ENOSPC/0 into a free slot of its own with a
 *   generation above the slot's last, withdraw and release of what it
 *   owns always succeed, its count is the model's;
 * - readers give 0 or ENOENT, EBADMSG, EAGAIN, ENODEV, never another
 *   errno, a slot out of range, or a walk that does not end (libFuzzer's
 *   -timeout); while nothing was scribbled they agree with the model
 *   exactly.
 *
 * Drivers: LLVMFuzzerTestOneInput (libFuzzer, -fsanitize=fuzzer), or with
 * FUZZ_STANDALONE the shared standalone driver (fuzz_driver.h): replay
 * FILE..., --iterations N [--seed S] pseudo-random programs, --emit.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdevx_share_reg.h"

#define NB_NAMES 24
#define CAP_MAX 32

struct model {
	uint16_t state[NB_NAMES];	/* enum mdevx_share_rec_state */
	uint32_t slot[NB_NAMES];
	uint64_t gen[NB_NAMES];
	uint64_t slot_gen[CAP_MAX];	/* the last generation each slot had */
	uint32_t count;
};

struct input {
	const uint8_t *p;
	size_t n;
};

#define CHECK(c) do {								\
	if (!(c)) {								\
		fprintf(stderr, "fuzz_share_reg: %s:%d: %s\n", __FILE__, __LINE__, #c); \
		abort();							\
	}									\
} while (0)

static uint8_t
take(struct input *in)
{
	uint8_t b = 0;

	if (in->n > 0) {
		b = *in->p++;
		in->n--;
	}
	return b;
}

static uint64_t
take64(struct input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | take(in);
	return v;
}

static void
name_of(unsigned int k, char *buf, size_t len)
{
	/* some long names: more than one word of the key */
	snprintf(buf, len, k % 3 == 0 ? "counter-bulk-of-the-fuzzer-%u" : "n%u", k);
}

static void
info_of(unsigned int k, struct mdevx_share_rec_info *info)
{
	memset(info, 0, sizeof(*info));
	name_of(k, info->name, sizeof(info->name));
	info->kind = 1 + (k & 1);
	info->cookie = 0xfeed;
	info->object_id = 1000 + k;
	info->size_or_tirn = 4 * k;
	info->rx_icm_addr = 0x10000ULL * k;
	info->export_len = 16 + k;
	for (uint32_t i = 0; i < info->export_len; i++)
		info->export_buf[i] = (uint8_t)(k * 13 + i);
}

static bool
reader_rc(int rc)
{
	return rc == 0 || rc == ENOENT || rc == EBADMSG || rc == EAGAIN || rc == ENODEV;
}

/* A reader's lookup of name @p k, checked against the model while the region is clean. */
static void
reader_lookup(const struct mdevx_share_reg *rd, const struct model *m, unsigned int k,
	      bool clean, uint32_t cap)
{
	struct mdevx_share_rec_info out, want;
	struct mdevx_share_rec_view v;
	char name[MDEVX_SHARE_NAME_MAX + 1];
	uint32_t idx = UINT32_MAX;
	int rc;

	name_of(k, name, sizeof(name));
	rc = mdevx_share_reg_lookup(rd, name, &out, &idx, NULL);
	CHECK(reader_rc(rc));
	CHECK(rc != 0 || idx < cap);
	CHECK(rc != 0 || out.export_len <= MDEVX_SHARE_EXPORT_MAX);
	if (clean) {
		CHECK((rc == 0) == (m->state[k] != MDEVX_SHARE_REC_FREE));
		if (rc == 0) {
			info_of(k, &want);
			CHECK(idx == m->slot[k] && out.state == m->state[k] &&
			      out.generation == m->gen[k] && out.object_id == want.object_id &&
			      out.export_len == want.export_len &&
			      memcmp(out.export_buf, want.export_buf, want.export_len) == 0);
		}
	}
	rc = mdevx_share_reg_find(rd, name, &v);
	CHECK(reader_rc(rc));
	CHECK(rc != 0 || (v.idx < cap && v.export_len <= MDEVX_SHARE_EXPORT_MAX));
	if (rc == 0) {
		volatile uint8_t sum = 0;

		/* the buffer lies in the region: reading it must stay inside */
		for (uint32_t i = 0; i < v.export_len; i++)
			sum += v.export_buf[i];
		(void)sum;
		(void)mdevx_share_reg_view_current(rd, &v);
	}
	if (clean)
		CHECK((rc == 0) == (m->state[k] != MDEVX_SHARE_REC_FREE));
}

static void
run(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint32_t cap = 1 + take(&in) % CAP_MAX;
	size_t len = mdevx_share_reg_size(cap);
	uint8_t *mem = aligned_alloc(64, (len + 63) & ~(size_t)63);
	struct mdevx_share_reg *wr, *rd;
	struct model m;
	bool clean = true;

	CHECK(mem != NULL);
	memset(&m, 0, sizeof(m));
	wr = mdevx_share_reg_init(mem, len, cap, 0xfeed);
	CHECK(wr != NULL);
	rd = mdevx_share_reg_attach(mem, len);
	CHECK(rd != NULL && mdevx_share_reg_capacity(rd) == cap);
	for (int steps = 0; in.n > 0 && steps < 256; steps++) {
		uint8_t op = take(&in), a = take(&in);
		unsigned int k = a % NB_NAMES;
		struct mdevx_share_rec_info info, out;
		char name[MDEVX_SHARE_NAME_MAX + 1];
		uint64_t gen;
		uint16_t state;
		uint32_t idx;
		int rc;

		name_of(k, name, sizeof(name));
		switch (op % 11) {
		case 0:	/* publish */
			info_of(k, &info);
			rc = mdevx_share_reg_publish(wr, &info, &idx, &gen);
			if (m.state[k] != MDEVX_SHARE_REC_FREE) {
				CHECK(rc == EEXIST);
			} else if (m.count == cap) {
				CHECK(rc == ENOSPC);
			} else {
				CHECK(rc == 0 && idx < cap && gen > m.slot_gen[idx]);
				for (unsigned int j = 0; j < NB_NAMES; j++)
					CHECK(m.state[j] == MDEVX_SHARE_REC_FREE || m.slot[j] != idx);
				m.state[k] = MDEVX_SHARE_REC_PUBLISHED;
				m.slot[k] = idx;
				m.gen[k] = m.slot_gen[idx] = gen;
				m.count++;
			}
			break;
		case 1:	/* withdraw */
			rc = mdevx_share_reg_owner_find(wr, name, &idx, &gen, &state);
			CHECK(rc == (m.state[k] == MDEVX_SHARE_REC_FREE ? ENOENT : 0));
			if (rc != 0)
				break;
			CHECK(idx == m.slot[k] && gen == m.gen[k] && state == m.state[k]);
			rc = mdevx_share_reg_withdraw(wr, idx, gen, &gen);
			if (m.state[k] == MDEVX_SHARE_REC_PUBLISHED) {
				CHECK(rc == 0 && gen == m.gen[k] + 1);
				m.state[k] = MDEVX_SHARE_REC_WITHDRAWN;
				m.gen[k] = m.slot_gen[idx] = gen;
			} else {
				CHECK(rc == ESTALE);
			}
			break;
		case 2:	/* release */
			rc = mdevx_share_reg_owner_find(wr, name, &idx, NULL, NULL);
			if (rc != 0)
				break;
			rc = mdevx_share_reg_release(wr, idx);
			if (m.state[k] == MDEVX_SHARE_REC_WITHDRAWN) {
				CHECK(rc == 0);
				m.state[k] = MDEVX_SHARE_REC_FREE;
				m.count--;
			} else {
				CHECK(rc == EBUSY);
			}
			break;
		case 3:	/* rogue: bytes anywhere */
		case 4: {
			size_t at = ((size_t)a << 8 | take(&in)) % len;
			size_t n = 1 + take(&in) % 16;

			for (size_t i = 0; i < n && at + i < len; i++)
				mem[at + i] = op % 11 == 3 ? take(&in) : (uint8_t)(take(&in) & 1 ? 0xff : 0);
			clean = false;
			break;
		}
		case 5: {	/* rogue: a header field, a link or a sequence counter */
			static const uint8_t hdr_off[] = { 8, 10, 12, 16, 20, 24, 32, 40, 48, 56, 60 };
			uint64_t v = take64(&in);
			size_t at;

			if (a & 0x80) {
				/* a record's sequence (0) or link (4) */
				at = len - (size_t)cap * 256 + (size_t)(a % cap) * 256 + ((a & 0x40) ? 4 : 0);
				memcpy(mem + at, &v, 4);
			} else {
				at = hdr_off[a % sizeof(hdr_off)];
				memcpy(mem + at, &v, at + 8 <= 64 ? 8 : 4);
			}
			clean = false;
			break;
		}
		case 6: {	/* rogue: one bit */
			size_t at = ((size_t)a << 8 | take(&in)) % len;

			mem[at] ^= (uint8_t)(1u << (take(&in) & 7));
			clean = false;
			break;
		}
		case 7:	/* readers by name: the attached one and the writer's own */
			reader_lookup(rd, &m, k, clean, cap);
			reader_lookup(wr, &m, k, clean, cap);
			break;
		case 8:	/* readers by slot */
			idx = a % (cap + 2);
			rc = mdevx_share_reg_read(rd, idx, &out);
			CHECK(idx >= cap ? rc == EINVAL : reader_rc(rc));
			rc = mdevx_share_reg_check(rd, idx, take64(&in));
			CHECK(idx >= cap ? rc == EINVAL : reader_rc(rc) || rc == ESTALE);
			for (int64_t i = -1; (i = mdevx_share_reg_next(rd, (uint32_t)(i + 1), &out)) >= 0;)
				CHECK(i < cap);
			CHECK(mdevx_share_reg_count(rd) <= cap);
			break;
		case 9: {	/* a reader attaching now: the header as it is */
			struct mdevx_share_reg *r2 = mdevx_share_reg_attach(mem, len);

			CHECK(r2 != NULL || errno == EPROTO);
			CHECK(r2 == NULL || mdevx_share_reg_capacity(r2) == cap);
			if (r2 != NULL)
				reader_lookup(r2, &m, k, clean, cap);
			mdevx_share_reg_free(r2);
			break;
		}
		default:	/* heal: the writer rewrites everything it owns from its state */
			if ((a & 7) != 0)
				break;
			memset(mem + 64, 0, len - 64);
			for (unsigned int j = 0; j < NB_NAMES; j++) {
				if (m.state[j] == MDEVX_SHARE_REC_FREE)
					continue;
				name_of(j, name, sizeof(name));
				if (m.state[j] == MDEVX_SHARE_REC_PUBLISHED) {
					CHECK(mdevx_share_reg_withdraw(wr, m.slot[j], m.gen[j], &gen) == 0);
					m.gen[j] = m.slot_gen[m.slot[j]] = gen;
				}
				CHECK(mdevx_share_reg_release(wr, m.slot[j]) == 0);
				m.state[j] = MDEVX_SHARE_REC_FREE;
				m.count--;
			}
			break;
		}
		CHECK(mdevx_share_reg_count(wr) == m.count);
	}
	/* Whatever happened, the writer withdraws and releases all it owns. */
	for (unsigned int j = 0; j < NB_NAMES; j++) {
		if (m.state[j] == MDEVX_SHARE_REC_PUBLISHED)
			CHECK(mdevx_share_reg_withdraw(wr, m.slot[j], m.gen[j], NULL) == 0);
		if (m.state[j] != MDEVX_SHARE_REC_FREE)
			CHECK(mdevx_share_reg_release(wr, m.slot[j]) == 0);
	}
	CHECK(mdevx_share_reg_count(wr) == 0);
	mdevx_share_reg_free(rd);
	mdevx_share_reg_free(wr);
	free(mem);
}

#ifndef FUZZ_STANDALONE
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size);
	return 0;
}
#else
#include "fuzz_driver.h"

#define INPUT_MAX (16 + 255 * 4)

/* A program of 16 to 1036 random bytes; one in four with no rogue step. */
static size_t
generate(uint8_t *buf)
{
	static unsigned long programs;
	size_t n = 16 + (fuzz_rnd() & 0xff) * 4;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)fuzz_rnd();
	/* clean stretches: the readers are checked against the model */
	if (programs++ % 4 == 0)
		for (size_t i = 1; i < n; i += 2)
			if (buf[i] % 11 >= 3 && buf[i] % 11 <= 6)
				buf[i] = 7;
	return n;
}

/* Nothing outlives an input: each program makes and frees its registry. */
static void
fini(void)
{
}

const struct fuzz_harness fuzz_harness = {
	.input_max = INPUT_MAX,
	.one = run,
	.generate = generate,
	.fini = fini,
};
#endif
