/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * Software mlx5 device, preload library: RDMA_VERBS_IOCTL and the legacy
 * write() commands of a uverbs file, decoded as the kernel decodes them
 * (uapi headers rdma/rdma_user_ioctl_cmds.h, ib_user_ioctl_cmds.h,
 * mlx5_user_ioctl_cmds.h, ib_user_verbs.h, mlx5-abi.h) and answered
 * locally (device, port, context) or by the daemon (every object).
 *
 * Header: length == 24 + 16 * num_attrs and at most a page (EINVAL),
 * reserved fields zero (EPROTONOSUPPORT), driver_id mlx5 (EINVAL); unknown
 * object or method: EPROTONOSUPPORT. Attributes: an unknown id is ignored
 * unless marked mandatory (EPROTONOSUPPORT); a repeated id, a missing
 * mandatory one, a bad length or nonzero reserved bits: EINVAL; an enum
 * variant outside the method's: EOPNOTSUPP. Input of at most 8 bytes is
 * inline, longer input and every output is a pointer into the caller's
 * memory, read and written without faulting (EFAULT). Outputs written get
 * UVERBS_ATTR_F_VALID_OUTPUT; new handles and descriptors go back in the
 * attribute's data, as the kernel writes them.
 *
 * This file: the header and its attributes checked against the method
 * table, and the dispatch. The methods, the attribute access they use and
 * the method table: uverbs_methods.c. The device as queried and the
 * write() commands: uverbs_write.c.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "uverbs_priv.h"

/* Attributes read with the header in one copy, when they are that few. */
#define SPEC_ATTRS 8

static unsigned int
num_specs(const struct mspec *m)
{
	unsigned int i;

	for (i = 0; i < MAX_SPEC && m->attrs[i].id != 0xffff; i++)
		;
	return i;
}

/* Check one attribute against its spec, as the kernel's attribute parser. */
static int
check_attr(const struct aspec *s, const struct ib_uverbs_attr *a)
{
	switch (s->type) {
	case T_PTR_IN:
	case T_PTR_OUT:
		if (a->attr_data.reserved != 0)
			return EINVAL;
		if (a->len < s->min_len || (s->max_len != 0 && a->len > s->max_len))
			return EINVAL;
		return 0;
	case T_ENUM:
		if (a->attr_data.enum_data.reserved != 0)
			return EINVAL;
		if (a->attr_data.enum_data.elem_id != 0)
			return EOPNOTSUPP;
		if (a->len > s->max_len)
			return EINVAL;
		return 0;
	case T_IDR:
	case T_FD:
		if (a->attr_data.reserved != 0 || a->len != 0)
			return EINVAL;
		return 0;
	case T_IDRS:
		if (a->attr_data.reserved != 0 || a->len % 4 != 0 ||
		    a->len / 4 < s->min_len || a->len / 4 > s->max_len)
			return EINVAL;
		return 0;
	default:
		return EINVAL;
	}
}

/* Is the channel's other end gone? Then the device is gone: EIO. */
static bool
daemon_gone(struct uv_file *f)
{
	struct pollfd p = { .fd = f->chan, .events = POLLRDHUP };

	if (f->broken || f->chan < 0)
		return true;
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
		uv_log("%s: the daemon closed the file: device gone", f->devname);
		f->broken = true;
		return true;
	}
	return false;
}

/*
 * The header, and as many attributes as one read of the caller's memory
 * gets without going past the header's page or SPEC_ATTRS (b->have of
 * them): most commands need no second read. 0 or EFAULT.
 */
static int
read_hdr(struct bundle *b, uint64_t uhdr)
{
	uint8_t pre[sizeof(struct ib_uverbs_ioctl_hdr) + SPEC_ATTRS * sizeof(struct ib_uverbs_attr)];
	size_t want = sizeof(pre), room = PAGE_BYTES - (size_t)(uhdr % PAGE_BYTES);
	uint16_t n;
	long got;

	if (room < want)
		want = room < sizeof(b->hdr) ? sizeof(b->hdr) : room;
	got = uv_copy_in_upto(pre, uhdr, want);
	if (got < (long)sizeof(b->hdr))
		return EFAULT;	/* the header itself is not readable */
	memcpy(&b->hdr, pre, sizeof(b->hdr));
	n = (uint16_t)(((size_t)got - sizeof(b->hdr)) / sizeof(b->ua[0]));
	if (n > b->hdr.num_attrs)
		n = b->hdr.num_attrs;
	memcpy(b->ua, pre + sizeof(b->hdr), (size_t)n * sizeof(b->ua[0]));
	b->have = n;
	return 0;
}

int
uv_ioctl(struct uv_file *f, uint64_t uhdr)
{
	struct bundle bundle, *b = &bundle;
	unsigned int i, n;
	int err, si;

	/* Only what is read is set: the attributes are copied in below. */
	b->f = f;
	b->uhdr = uhdr;
	b->m = NULL;
	b->writeback = false;
	err = read_hdr(b, uhdr);
	if (err != 0)
		goto out;
	if (b->hdr.length > PAGE_BYTES ||
	    b->hdr.length != sizeof(b->hdr) + (size_t)b->hdr.num_attrs * sizeof(b->ua[0])) {
		err = EINVAL;
		goto out;
	}
	if (b->hdr.reserved1 != 0 || b->hdr.reserved2 != 0) {
		err = EPROTONOSUPPORT;
		goto out;
	}
	if (b->have < b->hdr.num_attrs &&
	    uv_copy_in(&b->ua[b->have], uhdr + sizeof(b->hdr) + b->have * sizeof(b->ua[0]),
		       (size_t)(b->hdr.num_attrs - b->have) * sizeof(b->ua[0])) != 0) {
		err = EFAULT;
		goto out;
	}
	b->m = uv_find_method(b->hdr.object_id, b->hdr.method_id);
	/* A method that asks the daemon first learns of its loss there (EIO). */
	if ((b->m == NULL || !b->m->remote) && daemon_gone(f)) {
		err = EIO;
		goto out;
	}
	if (b->m == NULL) {
		uv_log("%s: object %#x method %#x: not emulated", f->devname, b->hdr.object_id,
		       b->hdr.method_id);
		err = EPROTONOSUPPORT;
		goto out;
	}
	if (b->hdr.driver_id != RDMA_DRIVER_MLX5) {
		err = EINVAL;
		goto out;
	}
	for (i = 0; i < MAX_SPEC; i++)
		b->slot[i] = -1;
	for (i = 0; i < b->hdr.num_attrs; i++) {
		const struct ib_uverbs_attr *a = &b->ua[i];

		si = uv_spec_of(b->m, a->attr_id);
		if (si < 0) {
			if (a->flags & UVERBS_ATTR_F_MANDATORY) {
				err = EPROTONOSUPPORT;
				goto out;
			}
			continue;
		}
		if (b->slot[si] >= 0) {
			err = EINVAL;	/* the same attribute twice */
			goto out;
		}
		err = check_attr(&b->m->attrs[si], a);
		if (err != 0)
			goto out;
		b->slot[si] = (int)i;
	}
	n = num_specs(b->m);
	for (i = 0; i < n; i++) {
		if (b->m->attrs[i].mandatory && b->slot[i] < 0) {
			err = EINVAL;
			goto out;
		}
	}
	err = b->m->fn(b);
	if (b->writeback) {
		int e2 = uv_copy_out(uhdr + sizeof(b->hdr), b->ua,
				     (size_t)b->hdr.num_attrs * sizeof(b->ua[0]));

		if (e2 != 0 && err == 0)
			err = e2;
	}
	if (err != 0)
		uv_log("%s: object %#x method %#x: errno %d (%s)", f->devname, b->hdr.object_id,
		       b->hdr.method_id, err, strerror(err));
out:
	return err;
}
