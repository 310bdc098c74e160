#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job, on the software device: set up (packages, hugepages), build,
# then run mlx5-share-demo: a primary publishes flow counter bulks and TIRs,
# secondaries attach, import them by name and read the counters while
# traffic is injected, a summary table is printed, and everything is
# withdrawn with the secondaries' acknowledgements.
#
# usage: demo.sh [demo options, see build/app/mlx5-share-demo/mlx5-share-demo --help]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" = "--help" ] && { sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
"$top/devtools/setup.sh" --build-dir "$top/build"
exec "$top/devtools/run-demo.sh" "$top/build" "$@"
