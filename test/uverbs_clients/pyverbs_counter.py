#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
"""Debian's python3-pyverbs on the software device, through libmlx5 and the
preload: open the device with DEVX, then allocate, query and destroy a flow
counter bulk from PRM mailboxes built here, byte by byte.

Run under the launcher (see run-client.sh). Arguments: the device name
(default mlx5_0). SWDEV_TEST_SOCKET and SWDEV_TEST_DAEMON, when set, let the
test read the daemon's object counts and command counts (--ctl).

Exit 0 passed, 1 failed, 77 skipped (python3-pyverbs is not installed)."""

import os
import struct
import subprocess
import sys

SKIP = 77

# PRM opcodes and op_mods (PRM "Command Reference").
QUERY_HCA_CAP = 0x100
HCA_CAP_GENERAL_CUR = (0 << 1) | 1
ALLOC_FLOW_COUNTER = 0x939
DEALLOC_FLOW_COUNTER = 0x93A
QUERY_FLOW_COUNTER = 0x93B

# Bit offsets in cmd_hca_cap (PRM, "HCA Capabilities"): (offset, width).
CAP_VHCA_ID = (0x30, 16)
CAP_MAX_FLOW_COUNTER_31_16 = (0x2C0, 16)
CAP_FLOW_COUNTER_BULK_ALLOC = (0x310, 8)
CAP_LOG_MAX_FLOW_COUNTER_BULK = (0x348, 8)
CAP_MAX_FLOW_COUNTER_15_0 = (0x350, 16)

MBOX_HDR = 16            # status/syndrome or opcode/op_mod, two dwords reserved
TRAFFIC_COUNTER = 16     # packets (64 bits), octets (64 bits)


def get_bits(buf, off, width):
    """A big-endian bit field of a PRM layout: `off` counts from the MSB of
    byte 0, as in the PRM tables."""
    val = 0
    for i in range(off, off + width):
        val = (val << 1) | ((buf[i // 8] >> (7 - i % 8)) & 1)
    return val


def cmd_header(opcode, op_mod=0):
    # dword 0: opcode (31:16), uid (15:0, the kernel's); dword 1: op_mod (15:0)
    return struct.pack(">HHHH", opcode, 0, 0, op_mod)


def alloc_flow_counter_in(bulk_bitmap):
    # dword 2: pd (23:0); dword 3: flow_counter_bulk_log_size (12:8),
    # flow_counter_bulk (7:0), bit i asks for 128 << i counters.
    return cmd_header(ALLOC_FLOW_COUNTER) + struct.pack(">II", 0, bulk_bitmap & 0xFF)


def query_flow_counter_in(counter_id, num):
    # dword 2 reserved, dword 3 mkey, dwords 4-5 address (no dump to
    # memory), dword 6: clear (31), dump_to_memory (30), num_of_counters,
    # dword 7: flow_counter_id.
    return (cmd_header(QUERY_FLOW_COUNTER)
            + struct.pack(">IIQII", 0, 0, 0, num & 0x3FFFFFFF, counter_id))


def query_hca_cap_in():
    return cmd_header(QUERY_HCA_CAP, HCA_CAP_GENERAL_CUR) + bytes(8)


def out_status(out):
    return out[0], struct.unpack_from(">I", out, 4)[0]


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)
    print("ok: " + what)


def ctl(*args):
    """`mlx5-swdev --ctl SOCKET ARGS` as a dict, or None when the test runs
    without the daemon's socket. The control client runs without the
    preload: it is no verbs program."""
    sock = os.environ.get("SWDEV_TEST_SOCKET")
    daemon = os.environ.get("SWDEV_TEST_DAEMON")
    if not sock or not daemon:
        return None
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    res = subprocess.run([daemon, "--ctl", sock] + list(args), env=env,
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise Failure("--ctl %s: exit %d: %s" % (" ".join(args), res.returncode,
                                                   res.stderr.strip()))
    return dict(line.split("=", 1) for line in res.stdout.split("\n") if "=" in line)


def run(dev):
    try:
        from pyverbs.pyverbs_error import PyverbsRDMAError
        from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DVContextAttr,
                                                  Mlx5DevxObj)
        from pyverbs.providers.mlx5 import mlx5_enums
    except ImportError as exc:
        print("SKIP: python3-pyverbs is not installed (%s)" % exc)
        return SKIP

    before = ctl("counts", dev)
    if before is not None:
        check(before["total"] == "0", "the device holds no object before the test")
        deallocs = int(ctl("cmd-count", dev, "DEALLOC_FLOW_COUNTER")["count"])

    attr = Mlx5DVContextAttr(flags=mlx5_enums.MLX5DV_CONTEXT_FLAGS_DEVX)
    ctx = Mlx5Context(attr, name=dev)
    check(ctx.name == dev, "Mlx5Context opened %s with DEVX" % dev)

    # General capabilities through a DEVX general command.
    out = ctx.devx_general_cmd(query_hca_cap_in(), MBOX_HDR + 4096)
    status, syndrome = out_status(out)
    check(status == 0, "QUERY_HCA_CAP status 0 (got 0x%x, syndrome 0x%x)" % (status, syndrome))
    cap = out[MBOX_HDR:]
    bulk_bitmap = get_bits(cap, *CAP_FLOW_COUNTER_BULK_ALLOC)
    max_counters = (get_bits(cap, *CAP_MAX_FLOW_COUNTER_31_16) << 16
                    | get_bits(cap, *CAP_MAX_FLOW_COUNTER_15_0))
    log_max_bulk = get_bits(cap, *CAP_LOG_MAX_FLOW_COUNTER_BULK)
    print("caps: vhca_id=%d flow_counter_bulk_alloc=0x%x max_flow_counter=%d "
          "log_max_flow_counter_bulk=%d" % (get_bits(cap, *CAP_VHCA_ID), bulk_bitmap,
                                            max_counters, log_max_bulk))
    check(bulk_bitmap & 1, "bulks of 128 counters are supported")
    check(max_counters >= 128, "at least 128 flow counters")
    check(log_max_bulk >= 7, "one query reads at least 128 counters")

    # Allocate a bulk of 128 counters as a DEVX object.
    bulk = 128
    cnt = Mlx5DevxObj(ctx, alloc_flow_counter_in(1), MBOX_HDR)
    status, syndrome = out_status(cnt.out_view)
    check(status == 0, "ALLOC_FLOW_COUNTER status 0 (got 0x%x, syndrome 0x%x)"
          % (status, syndrome))
    counter_id = struct.unpack_from(">I", cnt.out_view, 8)[0]
    check(counter_id != 0, "a nonzero flow counter id (0x%x)" % counter_id)
    check(counter_id % bulk == 0, "the bulk's base id is aligned to its size")

    during = ctl("counts", dev)
    if during is not None:
        check(during["flow_counter"] == "1", "the device holds one flow counter bulk")

    # Query the whole bulk: fresh counters count nothing.
    out = cnt.query(query_flow_counter_in(counter_id, bulk), MBOX_HDR + bulk * TRAFFIC_COUNTER)
    status, syndrome = out_status(out)
    check(status == 0, "QUERY_FLOW_COUNTER of %d counters status 0 (got 0x%x, syndrome 0x%x)"
          % (bulk, status, syndrome))
    stats = [struct.unpack_from(">QQ", out, MBOX_HDR + i * TRAFFIC_COUNTER) for i in range(bulk)]
    check(all(p == 0 and o == 0 for p, o in stats), "every counter of the bulk reads 0/0")

    # The last counter of the bulk alone.
    out = cnt.query(query_flow_counter_in(counter_id + bulk - 1, 1),
                    MBOX_HDR + TRAFFIC_COUNTER)
    check(out_status(out)[0] == 0, "QUERY_FLOW_COUNTER of the bulk's last counter status 0")

    # A counter past the bulk is no id of this object: the kernel refuses
    # the query before the device sees it.
    try:
        cnt.query(query_flow_counter_in(counter_id + bulk, 1), MBOX_HDR + TRAFFIC_COUNTER)
        refused = False
    except PyverbsRDMAError:
        refused = True
    check(refused, "a query of the counter past the bulk is refused")

    # Destroy: the kernel side issues DEALLOC_FLOW_COUNTER for the object.
    cnt.close()
    if before is not None:
        after = ctl("counts", dev)
        check(after["flow_counter"] == "0", "no flow counter left after the destroy")
        now = int(ctl("cmd-count", dev, "DEALLOC_FLOW_COUNTER")["count"])
        check(now == deallocs + 1, "the device ran one DEALLOC_FLOW_COUNTER (0x%x)"
              % DEALLOC_FLOW_COUNTER)
    ctx.close()
    if before is not None:
        check(ctl("counts", dev)["total"] == "0", "the device holds no object after close")
    return 0


def main():
    dev = sys.argv[1] if len(sys.argv) > 1 else "mlx5_0"
    try:
        rc = run(dev)
    except Failure as exc:
        print("FAIL: " + str(exc))
        return 1
    except Exception as exc:  # pyverbs raises PyverbsRDMAError/PyverbsError
        print("FAIL: %s: %s" % (type(exc).__name__, exc))
        return 1
    if rc == 0:
        print("pyverbs flow counter test passed")
    return rc


if __name__ == "__main__":
    sys.exit(main())
