#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Every C example of the guides is a program a test builds and runs: each
# ".. code-block:: c" of doc/*.rst carries ":caption: test/install/<file>.c"
# and shows that file exactly (the install test, devtools/test-install.sh,
# builds those files with pkg-config alone and runs them), and no other
# literal block of the guides holds C code (a call of our APIs or DPDK's
# ending in ';', an #include, a struct definition), so nothing compiles
# only on paper.
#
# usage: check-doc-examples.py [SOURCE_ROOT]   (default: this script's tree)
# exit:  0, or 1 with one line per problem.
import os
import re
import sys

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    for line in open(__file__).read().split("\n")[3:13]:
        print(line[2:])
    sys.exit(0)
root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
C_LINE = re.compile(r"^\s*(#include\s*<|struct\s+\w+\s*\{|.*\b(mdevx|swdev|rte)_\w+\s*\(.*\)\s*;)")
problems = []
checked = 0


def block_of(lines, i):
    """The indented block after line i (a directive or a '::' line)."""
    j = i + 1
    while j < len(lines) and (lines[j].startswith("   :") or lines[j] == ""):
        j += 1
    block = []
    for line in lines[j:]:
        if line and not line.startswith(" "):
            break
        block.append(line)
    while block and block[-1] == "":
        block.pop()
    return block


docdir = os.path.join(root, "doc")
for name in sorted(os.listdir(docdir)):
    if not name.endswith(".rst"):
        continue
    path = os.path.join(docdir, name)
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        where = "doc/%s:%d" % (name, i + 1)
        if line.strip() == ".. code-block:: c":
            cap = lines[i + 1].strip() if i + 1 < len(lines) else ""
            m = re.match(r":caption: (test/install/[\w.-]+\.c)$", cap)
            if m is None:
                problems.append(where + ": a C code block without a caption naming "
                                "test/install/<file>.c")
                continue
            src = os.path.join(root, m.group(1))
            if not os.path.exists(src):
                problems.append(where + ": " + m.group(1) + " does not exist")
                continue
            text = "\n".join(l[3:] for l in block_of(lines, i)) + "\n"
            if text != open(src).read():
                problems.append(where + ": the code block differs from " + m.group(1))
            checked += 1
        elif line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            for k, b in enumerate(block_of(lines, i)):
                if C_LINE.match(b):
                    problems.append("doc/%s:%d: C code in a literal block (make it a "
                                    "test/install program shown with a captioned "
                                    "code-block): %s" % (name, i + 3 + k, b.strip()))
                    break
for p in problems:
    print("FAIL: " + p)
if problems:
    sys.exit(1)
print("doc examples: %d C code blocks, each a test/install program shown as it is" % checked)
