#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
"""Two-way uses between the C files of one folder.

A file's private names are the functions and variables it defines without
`static` that no installed header declares. Two files of a folder form a
circle when each uses a private name of the other. Prints every circle of
each folder given (or of the product folders), with the names used each
way, and a count per folder.

usage: check-circles.py [--max-circles N] [FOLDER...]
  --max-circles N  exit 1 when a folder has more than N circles (default:
                   report only, exit 0)
"""
import argparse
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = [
    "drivers/common/mlx5",
    "drivers/common/mlx5/share",
    "drivers/common/mlx5/attach",
    "lib/swdev",
    "lib/swdev/engine",
    "lib/swdev/uverbs",
]
# The installed headers: what they declare is public, not private.
PUBLIC_HEADERS = [
    "drivers/common/mlx5/mdevx.h",
    "drivers/common/mlx5/share/mdevx_share.h",
    "drivers/common/mlx5/attach/mdevx_attach.h",
    "lib/swdev/swdev_client.h",
    "lib/swdev/engine/swdev_types.h",
]
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"}


def strip(text):
    """The text without comments, #include lines, strings and character constants."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^[ \t]*#[ \t]*include[^\n]*", "", text, flags=re.M)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


def public_names():
    names = set()
    for h in PUBLIC_HEADERS:
        path = os.path.join(TOP, h)
        if os.path.exists(path):
            names |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", strip(open(path).read())))
    return names


def defined(text):
    """Functions (name at the start of a line, then '(') and file-scope
    variables defined without static."""
    names = set()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"([A-Za-z_]\w*)\s*\(", line)
        if m and m.group(1) not in KEYWORDS and not m.group(1).isupper():
            prev = lines[i - 1] if i > 0 else ""
            if "static" in prev.split() or line.rstrip().endswith(";"):
                continue
            # a definition: the body follows before the next ';' at depth 0
            rest = "\n".join(lines[i:i + 40])
            if re.match(r"[^;{]*\)\s*(__attribute__\s*\(\(.*?\)\)\s*)?\{", rest, re.S):
                names.add(m.group(1))
        m = re.match(r"(?!static\b|extern\b|typedef\b|struct\b[^=;]*\{)"
                     r"[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(=|;)", line)
        if m and not line.startswith((" ", "\t", "#", "}")) and "(" not in line.split("=")[0]:
            names.add(m.group(1))
    return names


def folder_circles(folder, public):
    path = os.path.join(TOP, folder)
    files = sorted(f for f in os.listdir(path) if f.endswith(".c"))
    texts = {f: strip(open(os.path.join(path, f)).read()) for f in files}
    private = {f: defined(t) - public for f, t in texts.items()}
    words = {f: set(re.findall(r"\b[A-Za-z_]\w*\b", t)) for f, t in texts.items()}
    circles = []
    for i, a in enumerate(files):
        for b in files[i + 1:]:
            ab = sorted(private[b] & words[a])
            ba = sorted(private[a] & words[b])
            if ab and ba:
                circles.append((a, b, ab, ba))
    return files, circles


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-circles", type=int, default=None)
    ap.add_argument("folders", nargs="*")
    args = ap.parse_args()
    public = public_names()
    worst = 0
    for folder in args.folders or FOLDERS:
        if not os.path.isdir(os.path.join(TOP, folder)):
            print(f"check-circles: no folder {folder}", file=sys.stderr)
            return 2
        files, circles = folder_circles(folder, public)
        for a, b, ab, ba in circles:
            print(f"{folder}: {a} <-> {b}")
            print(f"    {a} uses {', '.join(ab[:6])}{' ...' if len(ab) > 6 else ''}")
            print(f"    {b} uses {', '.join(ba[:6])}{' ...' if len(ba) > 6 else ''}")
        print(f"{folder}: {len(circles)} circle(s) among {len(files)} files")
        worst = max(worst, len(circles))
    if args.max_circles is not None and worst > args.max_circles:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
