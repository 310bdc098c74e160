# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Run test_text_escape --emit-json and parse its document with python's json:
# each escaped string must decode to one code point per byte, equal to it.
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1], "--emit-json", "2000"], check=True,
                     stdout=subprocess.PIPE).stdout
doc = json.loads(out.decode("ascii"))
names = doc["names"]
assert len(names) == 2000, len(names)
for n in names:
    got = [ord(ch) for ch in n["json"]]
    assert got == n["bytes"], (got, n["bytes"])
print("2000 random names: valid JSON, every byte decoded back")
