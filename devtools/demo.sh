#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job, on the software device: set up (packages, hugepages), build,
# then run mlx5-share-demo: a primary publishes flow counter bulks, a direct
# TIR and an RSS TIR; secondaries attach, import them by name and read the
# counters while traffic is injected; each secondary installs a rule for a
# UDP port of its own to one of the primary's TIRs, counting on a published
# counter; a pcap (written with scapy) is replayed into the device and the
# counters, RQs and port are checked against what the file says; then
# everything is withdrawn with the secondaries' acknowledgements, which
# removes their rules.
#
# usage: demo.sh [demo options, see build/app/mlx5-share-demo/mlx5-share-demo --help]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" = "--help" ] && { sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
"$top/devtools/setup.sh" --build-dir "$top/build"
exec "$top/devtools/run-demo.sh" "$top/build" "$@"
