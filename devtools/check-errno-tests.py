#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
"""Every public call of the DPDK-facing libraries has a tested failure.

The public calls are the global names of the stable nodes of the version
maps of libmdevx, libmdevx_attach and libmdevx_share (not INTERNAL). Each
must appear in the first argument of at least one of app/test/test.h's
failure assertions (TEST_ASSERT_RC_ERRNO, _NULL_, _U32MAX_, _ZERO_ or
TEST_ASSERT_ERRNO_PAIR), which check that errno and rte_errno are both the
documented value. A call that has no failure is named in CANNOT_FAIL.
Prints the calls without one and exits 1 if there are any.

usage: check-errno-tests.py [TOP]
"""
import glob
import os
import re
import sys

MAPS = {
    "drivers/common/mlx5/mdevx_version.map": "MDEVX_0.1",
    "drivers/common/mlx5/attach/mdevx_attach_version.map": "MDEVX_ATTACH_0.1",
    "drivers/common/mlx5/share/mdevx_share_version.map": "MDEVX_SHARE_0.1",
}
# Calls without a failure: what they return for bad input is documented.
CANNOT_FAIL = {
    "mdevx_obj_kind_name",  # "unknown" for a kind it does not know
}
ASSERT = re.compile(r"\b(?:TEST_ASSERT_(?:RC|NULL|U32MAX|ZERO)_ERRNO|TEST_ASSERT_ERRNO_PAIR)\(")


def public_calls(top):
    calls = []
    for path, node in MAPS.items():
        text = open(os.path.join(top, path)).read()
        m = re.search(re.escape(node) + r"\s*\{(.*?)\}", text, re.S)
        if m is None:
            sys.exit("check-errno-tests: no node %s in %s" % (node, path))
        glob_part = re.search(r"global:(.*?)(?:local:|$)", m.group(1), re.S)
        calls += re.findall(r"(\w+)\s*;", glob_part.group(1))
    return calls


def first_argument(text, start):
    """The text of the macro's first argument, from just after its '('."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        i += 1
    return text[start:i]


def asserted_calls(top):
    seen = set()
    for path in glob.glob(os.path.join(top, "app/test/*.c")):
        text = open(path).read()
        for m in ASSERT.finditer(text):
            seen.update(re.findall(r"\b(mdevx_\w+)\s*\(", first_argument(text, m.end())))
    return seen


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    calls = public_calls(top)
    seen = asserted_calls(top)
    missing = [c for c in calls if c not in seen and c not in CANNOT_FAIL]
    stale = sorted(c for c in CANNOT_FAIL if c not in calls)
    print("%d public calls, %d with a failure asserted, %d that cannot fail" %
          (len(calls), len([c for c in calls if c in seen]), len(CANNOT_FAIL)))
    for c in missing:
        print("no failure of %s asserted with errno and rte_errno" % c)
    for c in stale:
        print("CANNOT_FAIL names %s, which no version map exports" % c)
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
