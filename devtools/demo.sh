#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job, on the software device: set up and build, then run the
# multi-process demo. Until the sharing demo lands this is the EAL
# multi-process plumbing demo (memzone + fd passing to two secondaries).
#
# usage: demo.sh
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" = "--help" ] && { sed -n '4,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
"$top/devtools/setup.sh" --build-dir "$top/build"

demo="$top/build/app/mlx5-share-demo/mlx5-share-demo"
if [ -x "$demo" ]; then
	exec "$top/devtools/run-demo.sh" "$top/build"
fi
exec "$top/devtools/run-autotest.sh" "$top/build/app/test/dpdk-test" eal_mp_share_autotest
